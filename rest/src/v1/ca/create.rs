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
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use commands::authority::AuthorityCommands;
use domain::authority::{Channels, ContactInput, RegisterAuthority};
use domain::values::CountryCode;

use crate::v1::ca::verified::{Verifiable, VerifiedNeeds};
use web::auth::Steward;
use web::body::{read, Body, Day, Problems, Valid};
use web::error::ApiError;
use web::schemas::Schemas;
use web::state::Shared;
use web::write;

/// Registers a country's authority, attributed to the steward.
///
/// # Errors
/// 401/403 (token), 409 (already registered), 422 (fields), 503 (store).
#[utoipa::path(post, path = "/api/v1/ca", tag = "stewards", security(("steward_token" = [])),
    request_body = CreateRequest,
    responses(
        (status = 201, description = "Registered; the record as GET returns it", body = crate::schema::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 202, description = "Committed, not yet in the directory: follow Location", body = crate::v1::written::Accepted,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
        (status = 409, description = "`already_exists`, `version_mismatch` (expected_version moved on) or `conflict` (a concurrent write won)", body = web::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = web::error::ErrorBody),
    ))]
pub async fn create(
    State(state): State<Shared>,
    steward: Steward,
    headers: HeaderMap,
    Valid(Verifiable(body)): Valid<CreateRequest>,
) -> Result<Response, ApiError> {
    let mut command = body.into_command()?;
    command.today = Utc::now().date_naive();
    command.steward = Some(steward.id.clone());
    let country = command.country.clone();
    write::require_party(&country)?;
    let committed = AuthorityCommands::new(&state.wiring.store)
        .register(command, &write::metadata(&steward, &headers))
        .await
        .map_err(write::from_command)?;
    Ok(crate::v1::written::answer(&state, &country, &committed, StatusCode::CREATED).await)
}

/// `POST /api/v1/ca`: a steward adds a country.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    /// ISO 3166-1 alpha-2, any case.
    #[schema(pattern = r"^\s*[A-Za-z]{2}\s*$")]
    pub country_code: String,
    /// The country's name.
    #[schema(
        max_length = 200,
        pattern = r"^\s*[^\u0000-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u001f\u007f-\u009f]*\s*$"
    )]
    pub country_name: String,
    /// The competent authority's name.
    #[schema(max_length = 300, pattern = r"^\s*[^\u0000-\u001f\u007f-\u009f]*\s*$")]
    pub ca_name: Option<String>,
    /// Its e-mail address (empty: not known).
    #[schema(max_length = 254)]
    pub email: Option<String>,
    /// Its phone number, `+CC-…` with hyphens.
    #[schema(
        max_length = 40,
        pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$"
    )]
    pub phone: Option<String>,
    /// Its postal address.
    #[schema(
        max_length = 1000,
        pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$"
    )]
    pub address: Option<String>,
    /// Notes shown with the record.
    #[schema(
        max_length = 4000,
        pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$"
    )]
    pub notes: Option<String>,
    /// Whether the details were verified (default false; then `ca_name`,
    /// `email`, `phone` and `last_checked` are needed).
    pub verified: Option<bool>,
    /// Date of the last check, `YYYY-MM-DD`.
    #[schema(value_type = Option<String>, format = Date)]
    pub last_checked: Option<Day>,
    /// What the record relies on.
    #[schema(
        max_length = 1000,
        pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$"
    )]
    pub source: Option<String>,
}

impl Body for CreateBody {
    fn check(&self, problems: &mut Problems) {
        if CountryCode::parse(&self.country_code).is_err() {
            problems.add("country_code", "must be two letters (ISO 3166-1 alpha-2)");
        }
    }
}

/// [`CreateBody`] as read and documented: with the `verified` rule.
pub type CreateRequest = Verifiable<CreateBody>;

impl VerifiedNeeds for CreateBody {
    const NEEDS: &'static [&'static str] = &["ca_name", "email", "phone", "last_checked"];
}

impl CreateBody {
    /// The command (steward and today left for the handler).
    ///
    /// # Errors
    /// 422 `country_code` when it is not two letters.
    pub fn into_command(self) -> Result<RegisterAuthority, ApiError> {
        let country = CountryCode::parse(&self.country_code).map_err(|_| {
            ApiError::invalid("country_code", "must be two letters (ISO 3166-1 alpha-2)")
        })?;
        Ok(RegisterAuthority {
            country,
            country_name: self.country_name,
            contact: ContactInput {
                ca_name: self.ca_name,
                channels: Channels {
                    email: self.email,
                    phone: self.phone,
                    address: self.address,
                    ..Channels::default()
                },
                notes: self.notes,
                ..ContactInput::default()
            },
            verified: self.verified.unwrap_or(false),
            last_checked: self.last_checked.map(|day| day.0),
            source: self.source,
            contacts: Vec::new(),
            steward: None,
            today: Utc::now().date_naive(),
        })
    }
}

/// Reads the body into a command (today left for the handler).
///
/// # Errors
/// 422 listing every field problem.
pub fn parse(schemas: &Schemas, body: &Value) -> Result<RegisterAuthority, ApiError> {
    read::<CreateBody>(schemas, body.clone())?.into_command()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_minimal_body_registers_an_unverified_record() {
        let command = parse(
            &Schemas::default(),
            &json!({"country_code": "xk", "country_name": "Kosovo"}),
        )
        .expect("ok");
        assert_eq!(command.country.as_str(), "XK");
        assert!(!command.verified);
        assert_eq!(command.contact, ContactInput::default());
    }

    #[test]
    fn bad_fields_are_all_named() {
        let Err(ApiError::Invalid(problems)) = parse(
            &Schemas::default(),
            &json!({"country_code": "XKX", "email": 3, "verified": "no"}),
        ) else {
            panic!("expected 422");
        };
        let names: Vec<_> = problems.into_iter().map(|p| p.field).collect();
        assert_eq!(names, ["country_code", "country_name", "email", "verified"]);
    }
}
