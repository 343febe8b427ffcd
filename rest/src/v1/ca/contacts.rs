//! A Party's contacts under `/api/v1/ca/{country_code}/contacts`:
//! - `POST …/contacts` (steward): add a competent authority or the focal
//!   point; 201 with `Location: /api/v1/ca/{cc}/contacts/{id}` and the record;
//! - `GET …/contacts/{id}` (API key): one contact as the record lists it;
//! - `POST …/contacts/{id}/verifications` (steward): a check of that contact,
//!   the body of `POST …/verifications`;
//! - `POST …/contacts/{id}/primary` (steward): make it the primary authority;
//! - `DELETE …/contacts/{id}` (steward, body `{reason}`): withdraw it; the
//!   history keeps it.
//!
//! Every write is attributed to its steward (event metadata and provenance).

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use commands::authority::AuthorityCommands;
use domain::authority::{
    AddContact, AuthorityCommand, DesignatePrimary, NewContact, RemoveContact,
};
use domain::values::CountryCode;

use super::verify::{VerificationBody, VerificationInput};
use super::{proposals, CountryPath};
use crate::v1::ca::verified::{Verifiable, VerifiedNeeds};
use web::auth::Steward;
use web::body::{Body, Valid};
pub use web::contact::ContactBody;
use web::error::ApiError;
use web::state::Shared;
use web::write;

/// `{country_code}` and `{contact_id}` of the path.
#[derive(Debug, Clone, IntoParams)]
#[into_params(names("country_code", "contact_id"), parameter_in = Path)]
pub struct ContactPath(
    /// ISO 3166-1 alpha-2, any case; not two letters: 400 `invalid_country_code`.
    #[param(value_type = String, pattern = r"^\s*[A-Za-z]{2}\s*$")]
    pub CountryCode,
    /// The contact's id (e.g. `c2`): 1 to 40 of a-z, 0-9 and `-`, else 400 `invalid_contact_id`.
    #[param(pattern = r"^[a-z0-9-]{1,40}$")]
    pub String,
);

impl<S: Send + Sync> FromRequestParts<S> for ContactPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((code, id)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|_| bad_path())?;
        let country = CountryCode::parse(&code).map_err(|_| bad_path())?;
        let valid = !id.is_empty()
            && id.len() <= 40
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(ApiError::BadRequest {
                code: "invalid_contact_id",
                message: "a contact id is 1 to 40 characters of a-z, 0-9 and -, e.g. c2".into(),
            });
        }
        Ok(Self(country, id))
    }
}

fn bad_path() -> ApiError {
    ApiError::BadRequest {
        code: "invalid_country_code",
        message: "the country code must be two letters (ISO 3166-1 alpha-2), e.g. DE".into(),
    }
}

/// Where a contact is read.
pub fn location(country: &CountryCode, id: &str) -> String {
    format!("/api/v1/ca/{country}/contacts/{id}")
}

/// Adds a contact, attributed to the steward.
///
/// # Errors
/// 401/403 (token), 400 (code), 404 (country), 409 (conflict), 422 (fields:
/// a second focal point, an id in use, invalid details), 503 (store).
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/contacts", tag = "stewards", security(("steward_token" = [])),
    params(CountryPath),
    request_body = ContactRequest,
    responses(
        (status = 201, description = "Added; the record as GET now returns it", body = crate::schema::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}/contacts/{contact_id}"))),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed country code or JSON", body = web::error::ErrorBody),
        (status = 404, description = "No record for this code", body = web::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = web::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = web::error::ErrorBody),
    ))]
pub async fn add(
    State(state): State<Shared>,
    steward: Steward,
    CountryPath(country): CountryPath,
    headers: HeaderMap,
    Valid(Verifiable(body)): Valid<ContactRequest>,
) -> Result<Response, ApiError> {
    let contact = NewContact::from(body);
    let command = AddContact {
        contact,
        max_contacts: state.wiring.max_contacts,
        steward: Some(steward.id.clone()),
        today: Utc::now().date_naive(),
    };
    if state.review {
        let command = AuthorityCommand::AddContact(command);
        return proposals::propose(&state, &steward, &country, command, &headers, None).await;
    }
    let (committed, id) = AuthorityCommands::new(&state.wiring.store)
        .add_contact(&country, command, &write::metadata(&steward, &headers))
        .await
        .map_err(write::from_command)?;
    let at = location(&country, &id);
    Ok(crate::v1::written::answer_at(&state, &country, &committed, StatusCode::CREATED, at).await)
}

/// [`ContactBody`] as read and documented: with the `verified` rule.
pub type ContactRequest = Verifiable<ContactBody>;

impl VerifiedNeeds for ContactBody {
    const NEEDS: &'static [&'static str] = &["email", "phone", "last_checked"];
}

/// `DELETE /api/v1/ca/{cc}/contacts/{id}`, `DELETE /api/v1/ca/{cc}` and a
/// proposal's rejection: why.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RemovalBody {
    /// Why (required; kept in the history).
    pub reason: String,
}

impl Body for RemovalBody {}

/// One contact, as the record lists it.
///
/// # Errors
/// 400 (path), 404 (`country_not_found`, `contact_not_found`), 503.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}/contacts/{contact_id}", tag = "directory", security(("api_key" = [])),
    params(ContactPath),
    responses(
        (status = 200, description = "The contact", body = crate::schema::Contact),
        (status = 400, description = "Malformed path", body = web::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = web::error::ErrorBody),
    ))]
pub async fn get(
    State(state): State<Shared>,
    ContactPath(country, id): ContactPath,
) -> Result<Response, ApiError> {
    let record = super::record(&state, &country)
        .await?
        .ok_or_else(write::unknown_country)?;
    let contact = record
        .contacts
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| unknown_contact(&id))?;
    Ok(Json(contact).into_response())
}

fn unknown_contact(id: &str) -> ApiError {
    ApiError::NotFound {
        code: "contact_not_found",
        message: format!("this Party has no contact `{id}` (it may have been withdrawn)"),
    }
}

/// Records a check of one contact.
///
/// # Errors
/// As `POST …/verifications`; 404 `contact_not_found`.
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/contacts/{contact_id}/verifications", tag = "stewards", security(("steward_token" = [])),
    params(ContactPath),
    request_body = VerificationBody,
    responses(
        (status = 200, description = "Recorded; the record as GET now returns it", body = crate::schema::Record),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path or JSON", body = web::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = web::error::ErrorBody),
        (status = 409, description = "`version_mismatch` or `conflict`", body = web::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = web::error::ErrorBody),
    ))]
pub async fn verify(
    State(state): State<Shared>,
    steward: Steward,
    ContactPath(country, id): ContactPath,
    headers: HeaderMap,
    Valid(body): Valid<VerificationBody>,
) -> Result<Response, ApiError> {
    let mut input = VerificationInput::from(body);
    input.update.contact_id = Some(id);
    input.update.steward = Some(steward.id.clone());
    input.update.today = Utc::now().date_naive();
    if state.review {
        let command = AuthorityCommand::SubmitVerification(input.update);
        let version = input.expected_version;
        return proposals::propose(&state, &steward, &country, command, &headers, version).await;
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

/// Makes a competent authority the primary one (the record's own fields
/// then describe it).
///
/// # Errors
/// 404 (country, contact), 422 (a focal point, or primary already), 503.
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/contacts/{contact_id}/primary", tag = "stewards", security(("steward_token" = [])),
    params(ContactPath),
    responses(
        (status = 200, description = "Designated; the record as GET now returns it", body = crate::schema::Record),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path", body = web::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = web::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = web::error::ErrorBody),
        (status = 422, description = "Not a competent authority, or primary already", body = web::error::ErrorBody),
    ))]
pub async fn make_primary(
    State(state): State<Shared>,
    steward: Steward,
    ContactPath(country, id): ContactPath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let command = DesignatePrimary {
        contact_id: id,
        steward: Some(steward.id.clone()),
    };
    if state.review {
        let command = AuthorityCommand::DesignatePrimary(command);
        return proposals::propose(&state, &steward, &country, command, &headers, None).await;
    }
    let committed = AuthorityCommands::new(&state.wiring.store)
        .designate_primary(&country, command, &write::metadata(&steward, &headers))
        .await
        .map_err(write::from_command)?;
    Ok(crate::v1::written::answer(&state, &country, &committed, StatusCode::OK).await)
}

/// Withdraws a contact with a reason; the history keeps it.
///
/// # Errors
/// 404 (country, contact), 422 (no reason), 503.
#[utoipa::path(delete, path = "/api/v1/ca/{country_code}/contacts/{contact_id}", tag = "stewards", security(("steward_token" = [])),
    params(ContactPath),
    request_body = RemovalBody,
    responses(
        (status = 200, description = "Withdrawn; the record as GET now returns it", body = crate::schema::Record),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path or JSON", body = web::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = web::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = web::error::ErrorBody),
        (status = 422, description = "`reason` missing or invalid", body = web::error::ErrorBody),
    ))]
pub async fn remove(
    State(state): State<Shared>,
    steward: Steward,
    ContactPath(country, id): ContactPath,
    headers: HeaderMap,
    Valid(RemovalBody { reason }): Valid<RemovalBody>,
) -> Result<Response, ApiError> {
    let command = RemoveContact {
        contact_id: id,
        reason,
        steward: Some(steward.id.clone()),
    };
    if state.review {
        let command = AuthorityCommand::RemoveContact(command);
        return proposals::propose(&state, &steward, &country, command, &headers, None).await;
    }
    let committed = AuthorityCommands::new(&state.wiring.store)
        .remove_contact(&country, command, &write::metadata(&steward, &headers))
        .await
        .map_err(write::from_command)?;
    Ok(crate::v1::written::answer(&state, &country, &committed, StatusCode::OK).await)
}
