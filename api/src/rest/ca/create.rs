//! `POST /api/v1/ca`: a steward adds a country's competent authority.
//!
//! Body: `{country_code, country_name, ca_name?, email?, phone?, address?,
//! notes?, verified?, last_checked?, source?}`. 201 with `Location` and the
//! record; 409 when the country is already in the directory.
//!
//! With four-eyes review on (`BASEL_REVIEW=required`) a registration is
//! still made at once: a proposal is a change of a record, and there is
//! none yet to hang it on; only a Party the registry names can be
//! registered, and every later change of its record is reviewed.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::Utc;
use serde_json::Value;

use commands::authority::AuthorityCommands;
use domain::authority::{ContactInput, RegisterAuthority};
use domain::values::CountryCode;

use crate::rest::auth::Steward;
use crate::rest::error::ApiError;
use crate::rest::extract::JsonBody;
use crate::rest::fields::Fields;
use crate::rest::state::Shared;
use crate::rest::write;

/// Registers a country's authority, attributed to the steward.
///
/// # Errors
/// 401/403 (token), 409 (already registered), 422 (fields), 503 (store).
#[utoipa::path(post, path = "/api/v1/ca", tag = "stewards", security(("steward_token" = [])),
    request_body = crate::rest::openapi::CreateBody,
    responses(
        (status = 201, description = "Registered; the record as GET returns it", body = crate::rest::openapi::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 202, description = "Committed, not yet in the directory: follow Location", body = crate::rest::openapi::Accepted,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or wrong steward token (API keys are refused); `WWW-Authenticate: Bearer`", body = crate::rest::openapi::Error),
        (status = 403, description = "The steward is suspended", body = crate::rest::openapi::Error),
        (status = 409, description = "`already_exists`, `version_mismatch` (expected_version moved on) or `conflict` (a concurrent write won)", body = crate::rest::openapi::Error),
        (status = 413, description = "Body over 64 KiB", body = crate::rest::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::rest::openapi::Error),
        (status = 422, description = "Invalid fields, each named", body = crate::rest::openapi::ValidationError),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = crate::rest::openapi::Error)
    ))]
pub async fn create(
    State(state): State<Shared>,
    steward: Steward,
    headers: HeaderMap,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let mut command = parse(&body)?;
    command.today = Utc::now().date_naive();
    command.steward = Some(steward.id.clone());
    let country = command.country.clone();
    write::require_party(&country)?;
    let committed = AuthorityCommands::new(&state.wiring.store)
        .register(command, &write::metadata(&steward, &headers))
        .await
        .map_err(write::from_command)?;
    Ok(write::answer(&state, &country, &committed, StatusCode::CREATED).await)
}

/// Reads the body into a command (today left for the handler).
///
/// # Errors
/// 422 listing every field problem.
pub fn parse(body: &Value) -> Result<RegisterAuthority, ApiError> {
    let mut fields = Fields::of(body)?;
    let country = fields.text("country_code", true).and_then(|code| {
        let parsed = CountryCode::parse(&code).ok();
        if parsed.is_none() {
            fields.problem("country_code", "must be two letters (ISO 3166-1 alpha-2)");
        }
        parsed
    });
    let country_name = fields.text("country_name", true);
    let contact = ContactInput {
        ca_name: fields.text("ca_name", false),
        email: fields.text("email", false),
        phone: fields.text("phone", false),
        address: fields.text("address", false),
        notes: fields.text("notes", false),
        ..ContactInput::default()
    };
    let verified = fields.flag("verified", false).unwrap_or(false);
    let last_checked = fields.date("last_checked", false);
    let source = fields.text("source", false);
    fields.finish()?;
    match (country, country_name) {
        (Some(country), Some(country_name)) => Ok(RegisterAuthority {
            country,
            country_name,
            contact,
            verified,
            last_checked,
            source,
            contacts: Vec::new(),
            steward: None,
            today: Utc::now().date_naive(),
        }),
        _ => Err(ApiError::Internal(
            "registration fields checked but missing".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_minimal_body_registers_an_unverified_record() {
        let command = parse(&json!({"country_code": "xk", "country_name": "Kosovo"})).expect("ok");
        assert_eq!(command.country.as_str(), "XK");
        assert!(!command.verified);
        assert_eq!(command.contact, ContactInput::default());
    }

    #[test]
    fn bad_fields_are_all_named() {
        let Err(ApiError::Invalid(problems)) =
            parse(&json!({"country_code": "XKX", "email": 3, "verified": "no"}))
        else {
            panic!("expected 422");
        };
        let names: Vec<_> = problems.into_iter().map(|p| p.field).collect();
        assert_eq!(names, ["country_code", "country_name", "email", "verified"]);
    }
}
