//! `POST /api/v1/ca/{country_code}/verifications`: a steward records a check
//! of a record, with any corrections.
//!
//! Body: `{verified, checked_on, method, source, note?, changes?, expected_version?}`.
//! `changes` maps `ca_name`, `email`, `phone`, `address`, `notes` to new text
//! (or `null` to clear). `expected_version` (the `version` the steward last
//! read) turns a concurrent update into a 409 instead of a silent overwrite.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::Utc;
use serde_json::{Map, Value};

use commands::authority::AuthorityCommands;
use domain::authority::{
    ContactField, ContactPatch, FieldProblem, SubmitVerificationUpdate, VerificationMethod,
};
use domain::values::CountryCode;

use super::CountryPath;
use crate::app::{AppState, Shared};
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::fields::Fields;
use crate::steward_auth::Steward;
use crate::write;

/// A verification update as the body carries it, checked for shape.
#[derive(Debug)]
pub struct VerificationInput {
    /// The command, but for the steward and today's date.
    pub update: SubmitVerificationUpdate,
    /// The version the steward last read, if they want the write to depend on it.
    pub expected_version: Option<i64>,
}

/// Records a steward's check and answers with the record as `GET` now returns it.
///
/// # Errors
/// 401/403 (token), 400 (code), 404 (unknown country), 409 (version moved or
/// a concurrent write won), 422 (fields), 503 (store unavailable).
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/verifications", tag = "stewards", security(("steward_token" = [])),
    params(("country_code" = String, Path, description = "ISO 3166-1 alpha-2, any case; not two letters: 400")),
    request_body = crate::openapi::VerificationBody,
    responses(
        (status = 200, description = "Recorded; the record as GET now returns it", body = crate::openapi::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 202, description = "Committed, not yet in the directory: follow Location", body = crate::openapi::Accepted,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::openapi::Error),
        (status = 401, description = "Missing or wrong steward token (API keys are refused); `WWW-Authenticate: Bearer`", body = crate::openapi::Error),
        (status = 403, description = "The steward is suspended", body = crate::openapi::Error),
        (status = 404, description = "No record for this well-formed code", body = crate::openapi::Error),
        (status = 409, description = "`already_exists`, `version_mismatch` (expected_version moved on) or `conflict` (a concurrent write won)", body = crate::openapi::Error),
        (status = 413, description = "Body over 64 KiB", body = crate::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::openapi::Error),
        (status = 422, description = "Invalid fields, each named", body = crate::openapi::ValidationError),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = crate::openapi::Error)
    ))]
pub async fn submit(
    State(state): State<Shared>,
    steward: Steward,
    CountryPath(country): CountryPath,
    headers: HeaderMap,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let mut input = parse(&body)?;
    input.update.steward = Some(steward.id.clone());
    input.update.today = Utc::now().date_naive();
    let guard = write::lock(&country).await;
    if let Some(expected) = input.expected_version {
        check_version(&state, &country, expected).await?;
    }
    let committed = AuthorityCommands::new(&state.runtime.backend)
        .submit_verification_at(
            &country,
            input.update,
            &write::metadata(&steward, &headers),
            input.expected_version,
        )
        .await
        .map_err(write::from_command)?;
    drop(guard);
    Ok(write::answer(&state, &country, &committed, StatusCode::OK).await)
}

/// Reads the body into a command (steward and today left for the handler).
///
/// # Errors
/// 422 listing every field problem.
pub fn parse(body: &Value) -> Result<VerificationInput, ApiError> {
    let mut fields = Fields::of(body)?;
    let verified = fields.flag("verified", true);
    let checked_on = fields.date("checked_on", true);
    let method = fields.text("method", true).and_then(|m| {
        let parsed = VerificationMethod::parse(&m);
        if parsed.is_none() {
            fields.problem(
                "method",
                "must be one of email, phone, website, official_notification, other",
            );
        }
        parsed
    });
    let source = fields.text("source", true);
    let note = fields.text("note", false);
    let changes = fields.object("changes").map(patch);
    let expected_version = fields.positive("expected_version");
    let changes = match changes {
        Some(Ok(patch)) => patch,
        Some(Err(problems)) => {
            fields.extend(problems);
            ContactPatch::new()
        }
        None => ContactPatch::new(),
    };
    fields.finish()?;
    match (verified, checked_on, method, source) {
        (Some(verified), Some(checked_on), Some(method), Some(source)) => Ok(VerificationInput {
            update: SubmitVerificationUpdate {
                verified,
                checked_on,
                method,
                source,
                note,
                changes,
                steward: None,
                today: checked_on,
            },
            expected_version,
        }),
        _ => Err(ApiError::Internal(
            "verification fields checked but missing".into(),
        )),
    }
}

/// `changes`: contact fields to new text or `null`.
fn patch(map: &Map<String, Value>) -> Result<ContactPatch, Vec<FieldProblem>> {
    let mut patch = ContactPatch::new();
    let mut problems = Vec::new();
    for (key, value) in map {
        let Some(field) = ContactField::ALL.into_iter().find(|f| f.name() == key) else {
            problems.push(FieldProblem::new(
                format!("changes.{key}"),
                "is not a contact field (ca_name, email, phone, address, notes)",
            ));
            continue;
        };
        match value {
            Value::Null => {
                patch.insert(field, None);
            }
            Value::String(text) => {
                patch.insert(field, Some(text.clone()));
            }
            _ => problems.push(FieldProblem::new(
                format!("changes.{key}"),
                "must be a string, or null to clear it",
            )),
        }
    }
    if problems.is_empty() {
        Ok(patch)
    } else {
        Err(problems)
    }
}

/// 409 unless the record's latest event is number `expected`, asked of the
/// event store (the write side's truth, not a projection that may lag).
async fn check_version(
    state: &AppState,
    country: &CountryCode,
    expected: i64,
) -> Result<(), ApiError> {
    let backend = &state.runtime.backend;
    let Ok(sequence) = usize::try_from(expected) else {
        return Err(ApiError::VersionMismatch { expected });
    };
    let unavailable = |e: commands::store::StoreError| ApiError::Unavailable(e.to_string());
    let at = backend
        .position_of("authority", country.as_str(), sequence)
        .await
        .map_err(unavailable)?;
    let after = backend
        .position_of("authority", country.as_str(), sequence + 1)
        .await
        .map_err(unavailable)?;
    if at.is_some() && after.is_none() {
        return Ok(());
    }
    let exists = backend
        .position_of("authority", country.as_str(), 1)
        .await
        .map_err(unavailable)?
        .is_some();
    if exists {
        Err(ApiError::VersionMismatch { expected })
    } else {
        Err(write::unknown_country())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields_of(error: ApiError) -> Vec<String> {
        match error {
            ApiError::Invalid(problems) => problems.into_iter().map(|p| p.field).collect(),
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn a_full_body_becomes_a_command() {
        let input = parse(&json!({
            "verified": true, "checked_on": "2025-03-01", "method": "official_notification",
            "source": "letter 12", "note": "called", "expected_version": 3,
            "changes": {"email": "ca@example.org", "address": null}
        }))
        .expect("valid");
        assert_eq!(input.expected_version, Some(3));
        assert_eq!(
            input.update.method,
            VerificationMethod::OfficialNotification
        );
        assert_eq!(
            input.update.changes.get(&ContactField::Address),
            Some(&None)
        );
        assert_eq!(input.update.changes.len(), 2);
    }

    #[test]
    fn every_bad_field_is_named() {
        let error = parse(&json!({
            "verified": "yes", "checked_on": "01/03/2025", "method": "fax",
            "changes": {"fax": "1", "email": 5}, "expected_version": 0, "colour": "red"
        }))
        .expect_err("invalid");
        assert_eq!(
            fields_of(error),
            [
                "verified",
                "checked_on",
                "method",
                "source",
                "expected_version",
                "changes.email",
                "changes.fax",
                "colour"
            ]
        );
    }
}
