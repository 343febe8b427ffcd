//! `POST /api/v1/ca/{country_code}/verifications`: a steward records a check
//! of a record, with any corrections.
//!
//! Body: `{verified, checked_on, method, source, outcome?, note?, changes?, expected_version?}`.
//! The check concerns the Party's primary competent authority (409
//! `no_competent_authority` when none is known, unless `changes` names one:
//! then it is added first). `outcome` is `confirmed`, `changed`, `no_answer`
//! or `defunct` (default: `changed` with corrections, else `confirmed`).
//! `changes` maps contact fields (`ca_name`, `contact_person`, `email`,
//! `phone`, `fax`, `website`, `address`, `area`, `wastes`, `movements`,
//! `notes`) to new text (or `null` to clear). `expected_version` (the `version` the steward last
//! read) turns a concurrent update into a 409 instead of a silent overwrite.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use chrono::Utc;
use serde_json::{Map, Value};

use commands::authority::AuthorityCommands;
use domain::authority::{
    AuthorityCommand, CheckOutcome, ContactField, ContactPatch, FieldProblem,
    SubmitVerificationUpdate, VerificationMethod,
};

use super::{proposals, CountryPath};
use crate::rest::auth::Steward;
use crate::rest::error::ApiError;
use crate::rest::extract::JsonBody;
use crate::rest::fields::Fields;
use crate::rest::state::Shared;
use crate::rest::write;

/// A verification update as the body carries it, checked for shape.
#[derive(Debug)]
pub struct VerificationInput {
    /// The command, but for the steward and today's date.
    pub update: SubmitVerificationUpdate,
    /// The version the steward last read, if they want the write to depend on it.
    pub expected_version: Option<i64>,
}

/// Records a steward's check and answers with the record as `GET` now
/// returns it; with four-eyes review on, proposes it (202 `proposed`).
///
/// # Errors
/// 401/403 (token), 400 (code), 404 (unknown country), 409 (version moved or
/// a concurrent write won), 422 (fields), 503 (store unavailable).
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/verifications", tag = "stewards", security(("steward_token" = [])),
    params(("country_code" = String, Path, description = "ISO 3166-1 alpha-2, any case; not two letters: 400")),
    request_body = crate::rest::openapi::VerificationBody,
    responses(
        (status = 200, description = "Recorded; the record as GET now returns it", body = crate::rest::openapi::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::rest::openapi::Deferred,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or wrong steward token (API keys are refused); `WWW-Authenticate: Bearer`", body = crate::rest::openapi::Error),
        (status = 403, description = "The steward is suspended", body = crate::rest::openapi::Error),
        (status = 404, description = "No record for this well-formed code", body = crate::rest::openapi::Error),
        (status = 409, description = "`already_exists`, `version_mismatch` (expected_version moved on) or `conflict` (a concurrent write won)", body = crate::rest::openapi::Error),
        (status = 413, description = "Body over 64 KiB", body = crate::rest::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::rest::openapi::Error),
        (status = 422, description = "Invalid fields, each named", body = crate::rest::openapi::ValidationError),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = crate::rest::openapi::Error)
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
    if state.review {
        let command = AuthorityCommand::SubmitVerification(input.update);
        return proposals::propose(
            &state,
            &steward,
            &country,
            command,
            &headers,
            input.expected_version,
        )
        .await;
    }
    let committed = AuthorityCommands::new(&state.wiring.store)
        .submit_verification_at(
            &country,
            input.update,
            &write::metadata(&steward, &headers),
            input.expected_version,
        )
        .await
        .map_err(write::from_command)?;
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
    let outcome = fields.text("outcome", false).and_then(|o| {
        let parsed = CheckOutcome::parse(&o);
        if parsed.is_none() {
            fields.problem(
                "outcome",
                "must be one of confirmed, changed, no_answer, defunct",
            );
        }
        parsed
    });
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
                contact_id: None,
                outcome,
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
        let Some(field) = ContactField::parse(key) else {
            problems.push(FieldProblem::new(
                format!("changes.{key}"),
                "is not a contact field (ca_name, contact_person, email, phone, fax, website, address, area, wastes, movements, notes)",
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
            "changes": {"pager": "1", "email": 5}, "expected_version": 0, "colour": "red"
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
                "changes.pager",
                "colour"
            ]
        );
    }
}
