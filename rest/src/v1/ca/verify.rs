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
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use commands::authority::AuthorityCommands;
use domain::authority::{
    parse_field, AuthorityCommand, CheckOutcome, ContactField, ContactPatch,
    SubmitVerificationUpdate, VerificationMethod,
};

use super::{proposals, CountryPath};
use web::auth::Steward;
use web::body::{one_of, one_of_or_null, present, Body, Day, Problems, Valid};
use web::error::ApiError;
use web::schemas::Schemas;
use web::state::Shared;
use web::write;

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
    params(CountryPath),
    request_body = VerificationBody,
    responses(
        (status = 200, description = "Recorded; the record as GET now returns it", body = crate::schema::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::v1::ca::proposals::Deferred,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
        (status = 404, description = "No record for this well-formed code", body = web::error::ErrorBody),
        (status = 409, description = "`already_exists`, `version_mismatch` (expected_version moved on) or `conflict` (a concurrent write won)", body = web::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = web::error::ErrorBody),
    ))]
pub async fn submit(
    State(state): State<Shared>,
    steward: Steward,
    CountryPath(country): CountryPath,
    headers: HeaderMap,
    Valid(body): Valid<VerificationBody>,
) -> Result<Response, ApiError> {
    let mut input = VerificationInput::from(body);
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
    Ok(crate::v1::written::answer(&state, &country, &committed, StatusCode::OK).await)
}

/// `POST /api/v1/ca/{country_code}/verifications` (and
/// `…/contacts/{contact_id}/verifications`): a steward's check.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerificationBody {
    /// Whether the contact details were confirmed.
    pub verified: bool,
    /// When the check was made, `YYYY-MM-DD`: not in the future, not before
    /// the record's previous check.
    #[schema(value_type = String, format = Date, example = "2025-06-30")]
    pub checked_on: Day,
    /// How: `email`, `phone`, `website`, `official_notification` or `other`.
    #[schema(schema_with = one_of::<VerificationMethod>)]
    pub method: VerificationMethod,
    /// What the check relied on (a letter, a page, a call), at most 1,000
    /// characters.
    #[schema(
        max_length = 1000,
        pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*[^\s\u0000-\u001f\u007f-\u009f][^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$"
    )]
    pub source: String,
    /// What the check found: `confirmed`, `changed` (with corrections),
    /// `no_answer` (reached nobody: `last_checked` does not move, the day is
    /// `last_attempt`) or `defunct` (the channels are retired). Default:
    /// `changed` when `changes` differ from the record, else `confirmed`.
    #[schema(schema_with = one_of_or_null::<CheckOutcome>)]
    pub outcome: Option<CheckOutcome>,
    /// The steward's note, at most 4,000 characters.
    #[schema(
        max_length = 4000,
        pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$"
    )]
    pub note: Option<String>,
    /// Corrections: contact field → new text, or `null` to clear it.
    pub changes: Option<Corrections>,
    /// The `version` the steward last read: a record that moved on since
    /// answers 409 `version_mismatch` instead of being overwritten.
    #[schema(minimum = 1)]
    pub expected_version: Option<i64>,
}

impl Body for VerificationBody {
    /// What the domain would refuse of the body alone, so that one 422
    /// lists it with the rest: a check dated in the future, and each
    /// correction the contact's rules refuse.
    fn check(&self, problems: &mut Problems) {
        let day = self.checked_on.0;
        if day > Utc::now().date_naive() {
            problems.add("checked_on", format!("{day} is in the future"));
        }
        let corrections = self.changes.iter().flat_map(Corrections::given);
        for (field, text) in corrections {
            if let Err(problem) = parse_field(field, text) {
                problems.add(format!("changes.{}", problem.field), problem.message);
            }
        }
    }
}

/// Corrections a check brings to the contact it concerns: a field left out
/// stays as it is, `null` (or only spaces) clears it.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Corrections {
    /// The competent authority's name.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 300, pattern = r"^\s*[^\u0000-\u001f\u007f-\u009f]*\s*$")]
    pub ca_name: Option<Option<String>>,
    /// The person to address.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub contact_person: Option<Option<String>>,
    /// Its e-mail address.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 254)]
    pub email: Option<Option<String>>,
    /// Its phone number, `+CC-…` with hyphens.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 40, pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$")]
    pub phone: Option<Option<String>>,
    /// Fax, `+CC-…` with hyphens.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 40, pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$")]
    pub fax: Option<Option<String>>,
    /// Website, `http(s)://…`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub website: Option<Option<String>>,
    /// Its postal address.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 1000, pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$")]
    pub address: Option<Option<String>>,
    /// Scope: the geographical area.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub area: Option<Option<String>>,
    /// Scope: the wastes handled, in words.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub wastes: Option<Option<String>>,
    /// Scope: `import`, `export`, `transit`, comma-separated.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub movements: Option<Option<String>>,
    /// Notes shown with the record.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 4000, pattern = r"^\s*[^\u0000-\u0009\u000b-\u001f\u007f-\u009f]*\s*$")]
    pub notes: Option<Option<String>>,
}

impl Corrections {
    /// Each field with what the body says of it, in the order of the
    /// domain's contact shape (`ContactInput::FIELDS`).
    fn fields(&self) -> [(ContactField, &Option<Option<String>>); 11] {
        [
            (ContactField::CaName, &self.ca_name),
            (ContactField::ContactPerson, &self.contact_person),
            (ContactField::Email, &self.email),
            (ContactField::Phone, &self.phone),
            (ContactField::Fax, &self.fax),
            (ContactField::Website, &self.website),
            (ContactField::Address, &self.address),
            (ContactField::Area, &self.area),
            (ContactField::Wastes, &self.wastes),
            (ContactField::Movements, &self.movements),
            (ContactField::Notes, &self.notes),
        ]
    }

    /// The fields given, with their new text (`None`: clear).
    fn given(&self) -> Vec<(ContactField, Option<&str>)> {
        self.fields()
            .into_iter()
            .filter_map(|(field, change)| Some((field, change.as_ref()?.as_deref())))
            .collect()
    }

    /// The fields given, each to its new text or `None` (clear).
    pub fn into_patch(self) -> ContactPatch {
        self.given()
            .into_iter()
            .map(|(field, text)| (field, text.map(str::to_owned)))
            .collect()
    }
}

impl From<VerificationBody> for VerificationInput {
    fn from(body: VerificationBody) -> Self {
        Self {
            update: SubmitVerificationUpdate {
                contact_id: None,
                outcome: body.outcome,
                verified: body.verified,
                checked_on: body.checked_on.0,
                method: body.method,
                source: body.source,
                note: body.note,
                changes: body
                    .changes
                    .map(Corrections::into_patch)
                    .unwrap_or_default(),
                steward: None,
                today: body.checked_on.0,
            },
            expected_version: body.expected_version,
        }
    }
}

/// Reads the body into a command (steward and today left for the handler).
///
/// # Errors
/// 422 listing every field problem.
pub fn parse(schemas: &Schemas, body: &Value) -> Result<VerificationInput, ApiError> {
    web::body::read::<VerificationBody>(schemas, body.clone()).map(VerificationInput::from)
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
        let input = parse(
            &Schemas::default(),
            &json!({
                "verified": true, "checked_on": "2025-03-01", "method": "official_notification",
                "source": "letter 12", "note": "called", "expected_version": 3,
                "changes": {"email": "ca@example.org", "address": null}
            }),
        )
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
        let error = parse(
            &Schemas::default(),
            &json!({
                "verified": "yes", "checked_on": "01/03/2025", "method": "fax",
                "changes": {"pager": "1", "email": 5}, "expected_version": 0, "colour": "red"
            }),
        )
        .expect_err("invalid");
        let mut named = fields_of(error);
        named.sort();
        assert_eq!(
            named,
            [
                "changes.email",
                "changes.pager",
                "checked_on",
                "colour",
                "expected_version",
                "method",
                "source",
                "verified",
            ]
        );
    }

    #[test]
    fn the_phone_pattern_takes_the_numbers_the_server_takes() {
        let schema =
            serde_json::to_value(<Corrections as utoipa::PartialSchema>::schema()).expect("JSON");
        let pattern = schema["properties"]["phone"]["pattern"]
            .as_str()
            .expect("pattern");
        for code in 1..1000 {
            for rest in [
                "5555555555",
                "30-1234567",
                "1-2-3-4",
                "123456",
                "1234567890123",
                "5-",
            ] {
                let number = format!("+{code}-{rest}");
                let server = domain::values::Phone::parse_input(&number).is_ok();
                assert_eq!(web::schemas::matches(pattern, &number), server, "{number}");
            }
        }
        assert!(web::schemas::matches(pattern, "  "));
        assert!(web::schemas::matches(pattern, " +49-371-532-0 "));
    }
}
