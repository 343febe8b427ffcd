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
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use commands::authority::AuthorityCommands;
use domain::authority::{
    AddContact, AuthorityCommand, Channels, ContactInput, DesignatePrimary, NewContact,
    RemoveContact, Role,
};
use domain::values::CountryCode;

use super::verify::{VerificationBody, VerificationInput};
use super::{proposals, CountryPath};
use crate::rest::http::auth::Steward;
use crate::rest::http::body::{one_of_or_null, read, Body, Day, Valid};
use crate::rest::http::error::ApiError;
use crate::rest::http::state::Shared;
use crate::rest::v1::ca::verified::{Verifiable, VerifiedNeeds};
use crate::rest::v1::write;

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
        (status = 201, description = "Added; the record as GET now returns it", body = crate::rest::http::schema::Record,
            headers(("Location" = String, description = "/api/v1/ca/{country_code}/contacts/{contact_id}"))),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::rest::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed country code or JSON", body = crate::rest::http::error::ErrorBody),
        (status = 404, description = "No record for this code", body = crate::rest::http::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = crate::rest::http::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = crate::rest::http::error::ErrorBody),
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
    Ok(write::answer_at(&state, &country, &committed, StatusCode::CREATED, at).await)
}

/// `POST /api/v1/ca/{cc}/contacts`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactBody {
    /// An id of your choice (`[a-z0-9-]`, ≤ 40); the next `cN` when absent.
    pub contact_id: Option<String>,
    /// `competent_authority` (default) or `focal_point` (at most one).
    #[schema(schema_with = one_of_or_null::<Role>)]
    pub role: Option<Role>,
    /// The institution's name.
    pub name: String,
    /// The person to address.
    pub contact_person: Option<String>,
    /// E-mail.
    pub email: Option<String>,
    /// Phone, `+CC-…` with hyphens.
    #[schema(
        max_length = 40,
        pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$"
    )]
    pub phone: Option<String>,
    /// Fax, `+CC-…` with hyphens.
    #[schema(
        max_length = 40,
        pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$"
    )]
    pub fax: Option<String>,
    /// `http://` or `https://` address.
    pub website: Option<String>,
    /// Postal address.
    pub address: Option<String>,
    /// What it covers.
    pub scope: Option<ScopeBody>,
    /// Notes on where the details come from.
    pub source_notes: Option<String>,
    /// What the details rely on (a URL, a letter…).
    pub source: Option<String>,
    /// Whether they are verified (needs name, e-mail, phone, `last_checked`).
    pub verified: Option<bool>,
    /// When they were last checked, `YYYY-MM-DD`.
    #[schema(value_type = Option<String>, format = Date)]
    pub last_checked: Option<Day>,
    /// Make it the primary competent authority.
    pub primary: Option<bool>,
}

impl Body for ContactBody {}

/// [`ContactBody`] as read and documented: with the `verified` rule.
pub type ContactRequest = Verifiable<ContactBody>;

impl VerifiedNeeds for ContactBody {
    const NEEDS: &'static [&'static str] = &["email", "phone", "last_checked"];
}

/// What a contact covers.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopeBody {
    /// The geographical area (a Land, a province…).
    pub area: Option<String>,
    /// The wastes it handles, in words.
    pub wastes: Option<String>,
    /// `import`, `export`, `transit` (all when absent).
    pub movements: Option<Vec<String>>,
}

impl From<ContactBody> for NewContact {
    fn from(body: ContactBody) -> Self {
        let scope = body.scope;
        let (area, wastes, movements) = match scope {
            Some(scope) => (
                scope.area,
                scope.wastes,
                scope.movements.map(|m| m.join(",")),
            ),
            None => (None, None, None),
        };
        Self {
            id: body.contact_id,
            role: body.role,
            details: ContactInput {
                ca_name: Some(body.name),
                channels: Channels {
                    contact_person: body.contact_person,
                    email: body.email,
                    phone: body.phone,
                    fax: body.fax,
                    website: body.website,
                    address: body.address,
                },
                notes: body.source_notes,
                area,
                wastes,
                movements,
            },
            source: body.source,
            verified: body.verified.unwrap_or(false),
            last_checked: body.last_checked.map(|day| day.0),
            primary: body.primary.unwrap_or(false),
            ..Self::default()
        }
    }
}

/// The body of `POST …/contacts` (also what the console's contact form
/// becomes).
///
/// # Errors
/// 422 listing every field problem.
pub fn parse_add(body: &Value) -> Result<NewContact, ApiError> {
    read::<ContactBody>(body.clone()).map(NewContact::from)
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
        (status = 200, description = "The contact", body = crate::rest::http::schema::Contact),
        (status = 400, description = "Malformed path", body = crate::rest::http::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = crate::rest::http::error::ErrorBody),
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
        (status = 200, description = "Recorded; the record as GET now returns it", body = crate::rest::http::schema::Record),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::rest::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path or JSON", body = crate::rest::http::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = crate::rest::http::error::ErrorBody),
        (status = 409, description = "`version_mismatch` or `conflict`", body = crate::rest::http::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = crate::rest::http::error::ErrorBody),
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
    Ok(write::answer(&state, &country, &committed, StatusCode::OK).await)
}

/// Makes a competent authority the primary one (the record's own fields
/// then describe it).
///
/// # Errors
/// 404 (country, contact), 422 (a focal point, or primary already), 503.
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/contacts/{contact_id}/primary", tag = "stewards", security(("steward_token" = [])),
    params(ContactPath),
    responses(
        (status = 200, description = "Designated; the record as GET now returns it", body = crate::rest::http::schema::Record),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::rest::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path", body = crate::rest::http::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = crate::rest::http::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = crate::rest::http::error::ErrorBody),
        (status = 422, description = "Not a competent authority, or primary already", body = crate::rest::http::error::ErrorBody),
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
    Ok(write::answer(&state, &country, &committed, StatusCode::OK).await)
}

/// Withdraws a contact with a reason; the history keeps it.
///
/// # Errors
/// 404 (country, contact), 422 (no reason), 503.
#[utoipa::path(delete, path = "/api/v1/ca/{country_code}/contacts/{contact_id}", tag = "stewards", security(("steward_token" = [])),
    params(ContactPath),
    request_body = RemovalBody,
    responses(
        (status = 200, description = "Withdrawn; the record as GET now returns it", body = crate::rest::http::schema::Record),
        (status = 202, description = "Committed, not yet in the directory (`accepted`: follow Location); or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location (`/api/v1/ca/{country_code}/proposals/{proposal_id}`)", body = crate::rest::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path or JSON", body = crate::rest::http::error::ErrorBody),
        (status = 404, description = "No such country or contact", body = crate::rest::http::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = crate::rest::http::error::ErrorBody),
        (status = 422, description = "`reason` missing or invalid", body = crate::rest::http::error::ErrorBody),
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
    Ok(write::answer(&state, &country, &committed, StatusCode::OK).await)
}
