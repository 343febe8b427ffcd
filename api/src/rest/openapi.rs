//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 document, generated from the
//! handlers' `#[utoipa::path]` annotations and the schemas below (which
//! mirror the shared views in `projections::views`; a test compares them with
//! real answers). Every route of [`crate::rest::route_table`] is in it (tested).

use axum::Json;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "basel",
        description = "Basel Convention competent-authority directory and waste classifier. \
Reads need an API key (`X-API-Key`, free at `/register`); directory writes need a steward's bearer \
token (`basel steward enrol`), never an API key. Every error is JSON with `error`, `message` and a \
stable `code`, except the API-key 401, which is exactly `{error, message, help}`.",
    ),
    paths(
        crate::rest::ops::healthz,
        crate::rest::ops::readyz,
        crate::rest::ops::health,
        crate::rest::metrics::metrics,
        crate::rest::register::form,
        crate::rest::register::register,
        openapi_json,
        crate::rest::classify::classify,
        crate::rest::ca::list::list,
        crate::rest::ca::create::create,
        crate::rest::ca::get::get,
        crate::rest::ca::history::history,
        crate::rest::ca::verify::submit,
        crate::rest::changes::changes,
    ),
    components(schemas(
        Record, Provenance, ListItem, Page, History, HistoryItem, Changes, Accepted,
        Error, ApiKeyError, ValidationError, FieldProblem, VerificationBody, ContactChanges,
        CreateBody, RegisterBody, RegisterAnswer, ClassifyBody, Classification, ListType,
    )),
    modifiers(&AuthSchemes),
    tags(
        (name = "directory", description = "Competent-authority records"),
        (name = "stewards", description = "Directory writes by data stewards"),
        (name = "classifier", description = "Waste description → Basel codes"),
        (name = "keys", description = "Free API keys"),
        (name = "ops", description = "Health, readiness, metrics, this document"),
    )
)]
pub struct ApiDoc;

/// Adds the two auth schemes: `api_key` (`X-API-Key` header) and
/// `steward_token` (HTTP bearer).
pub struct AuthSchemes;

impl Modify for AuthSchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "A free key from `/register`. Missing or invalid: 401 `{error, message, help}`.",
            ))),
        );
        components.add_security_scheme(
            "steward_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A steward's token from `basel steward enrol` (`Authorization: Bearer TOKEN`). \
API keys are refused. Missing or wrong: 401 `steward_token_required`; suspended steward: 403.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The document as JSON.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "ops",
    responses((status = 200, description = "This OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// One country's competent-authority record (the same JSON as the MCP tool returns).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Record {
    /// ISO 3166-1 alpha-2, upper case.
    #[schema(example = "DE")]
    country_code: String,
    /// The country's name.
    country_name: String,
    /// The competent authority's name.
    ca_name: Option<String>,
    /// Its e-mail address.
    email: Option<String>,
    /// Its phone, international format with hyphens (`+CC-…`).
    phone: Option<String>,
    /// Its postal address.
    address: Option<String>,
    /// Whether the contact details are verified.
    verified: bool,
    /// Date of the last check, `YYYY-MM-DD`.
    #[schema(format = Date)]
    last_checked: Option<String>,
    /// The same as `email` (the name some clients know it by).
    email_primary: Option<String>,
    /// The same as `last_checked` (the name some clients know it by).
    #[schema(format = Date)]
    last_verified_date: Option<String>,
    /// Notes shown with the record.
    notes: Option<String>,
    /// What the last check (or the registration) relied on.
    source: Option<String>,
    /// How and by whom the last check was made.
    provenance: Provenance,
    /// The last check is older than `BASEL_STALE_AFTER_DAYS` (default 365), or missing.
    stale: bool,
    /// The number of events applied to the record; pass it as `expected_version`.
    version: i64,
}

/// How a record's last check was made and by whom.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Provenance {
    /// `email`, `phone`, `website`, `official_notification`, `other`; null if never checked by a steward.
    method: Option<String>,
    /// The steward's id (never an e-mail).
    steward: Option<String>,
    /// The steward's note.
    note: Option<String>,
    /// When the record last changed (RFC 3339).
    recorded_at: String,
}

/// One entry of the directory list.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ListItem {
    /// ISO alpha-2.
    country_code: String,
    /// The country's name.
    country_name: String,
    /// The authority's name.
    ca_name: Option<String>,
}

/// One page of the directory.
#[derive(ToSchema)]
#[allow(dead_code, non_snake_case)]
pub struct Page {
    /// This page (1-based).
    page: i64,
    /// Items per page (default 200, at most 500).
    perPage: i64,
    /// Items matching the filters.
    totalItems: i64,
    /// `ceil(totalItems / perPage)`.
    totalPages: i64,
    /// Sorted by `country_code`; empty past the last page.
    items: Vec<ListItem>,
}

/// A record's history, oldest first.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct History {
    /// The country.
    country_code: String,
    /// One entry per event.
    items: Vec<HistoryItem>,
}

/// One event of a record: the common fields, then what it recorded
/// (`changes` with old and new values, the verification's `verified`,
/// `checked_on`, `method`, `source`, `note`, `steward` `{id, name}`, or the
/// registered `contact`).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct HistoryItem {
    /// Its sequence within the record.
    sequence: i64,
    /// `AuthorityRegistered`, `ContactDetailsChanged` or `VerificationRecorded`.
    event_type: String,
    /// RFC 3339.
    recorded_at: String,
    /// `steward:<id>`, `system:seed`, `system:import`, …
    actor: String,
    /// The request that carried it.
    request_id: String,
    /// Its log position (the `changes` feed's cursor).
    position: i64,
}

/// A page of the changes feed.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Changes {
    /// The `after` asked for.
    after: i64,
    /// The `limit` applied.
    limit: i64,
    /// Pass as `after` to get the following changes (unchanged when there are none).
    next: i64,
    /// History entries with their `country_code`, in log order.
    items: Vec<HistoryItem>,
}

/// A committed write the directory did not show within 2 s; follow `Location`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Accepted {
    /// `accepted`.
    status: String,
    /// What happened.
    message: String,
    /// The country.
    country_code: String,
    /// The record's version after the write.
    version: i64,
    /// The write's log position.
    position: i64,
    /// Where the record is read.
    location: String,
}

/// Every error but the API-key 401.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Error {
    /// A short title.
    error: String,
    /// What to do.
    message: String,
    /// Stable machine code: `not_found`, `country_not_found`, `method_not_allowed`,
    /// `invalid_country_code`, `invalid_parameter`, `unknown_parameter`, `malformed_json`,
    /// `unsupported_media_type`, `payload_too_large`, `steward_token_required`,
    /// `steward_suspended`, `already_exists`, `version_mismatch`, `conflict`, `unavailable`.
    code: String,
}

/// The 401 for a missing or invalid API key: exactly these three fields.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ApiKeyError {
    /// Says a key is required.
    error: String,
    /// Send the key in the `X-API-Key` header.
    message: String,
    /// Where to get one (`/register`).
    help: String,
}

/// 422: the body parsed but fields are invalid.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ValidationError {
    /// `invalid fields`.
    error: String,
    /// Every problem in one line.
    message: String,
    /// `validation_failed`.
    code: String,
    /// One entry per problem.
    errors: Vec<FieldProblem>,
}

/// One invalid field.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct FieldProblem {
    /// The field, e.g. `checked_on` or `changes.email`.
    field: String,
    /// What is wrong.
    message: String,
}

/// A steward's check of a record.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct VerificationBody {
    /// Whether the record is verified after the check (needs `ca_name`, `email`, `phone`).
    verified: bool,
    /// The day of the check: not in the future, not before the previous check.
    #[schema(format = Date, example = "2025-06-30")]
    checked_on: String,
    /// `email`, `phone`, `website`, `official_notification` or `other`.
    method: String,
    /// What the record was checked against (at most 1000 characters).
    source: String,
    /// A note (at most 4000 characters).
    note: Option<String>,
    /// Corrections; fields not named keep their value.
    changes: Option<ContactChanges>,
    /// The `version` last read: a 409 `version_mismatch` if the record moved on since.
    expected_version: Option<i64>,
}

/// Contact corrections: new text, or `null` to clear a field.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ContactChanges {
    /// The authority's name.
    ca_name: Option<String>,
    /// E-mail.
    email: Option<String>,
    /// Phone, `+CC-…` with hyphens.
    phone: Option<String>,
    /// Postal address.
    address: Option<String>,
    /// Notes.
    notes: Option<String>,
}

/// A new country's authority.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct CreateBody {
    /// ISO alpha-2, any case.
    country_code: String,
    /// The country's name.
    country_name: String,
    /// The authority's name.
    ca_name: Option<String>,
    /// E-mail.
    email: Option<String>,
    /// Phone, `+CC-…`.
    phone: Option<String>,
    /// Postal address.
    address: Option<String>,
    /// Notes.
    notes: Option<String>,
    /// Verified from the start (default false; needs name, e-mail, phone, `last_checked`).
    verified: Option<bool>,
    /// `YYYY-MM-DD`, not in the future.
    #[schema(format = Date)]
    last_checked: Option<String>,
    /// Where the details come from.
    source: Option<String>,
}

/// `POST /register` with JSON (a form body `email=…` gets an HTML page instead).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct RegisterBody {
    /// The address the key is bound to (case and surrounding spaces ignored).
    email: String,
}

/// A key, new or issued again.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct RegisterAnswer {
    /// The key; works on the very next request.
    api_key: String,
    /// The address.
    email: String,
    /// False when the address was already registered (same key).
    created: bool,
}

/// A waste description to classify.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ClassifyBody {
    /// Plain language, 1–5000 characters.
    description: String,
    /// Exporting country, ISO alpha-2.
    origin: Option<String>,
    /// Importing country, ISO alpha-2.
    destination: Option<String>,
}

/// The classifier's list type. `Amber`, `Green` and `Annex I` are the usual
/// three; **`Annex II` is an extension** for the "other wastes" Y46–Y49
/// (household waste and its incineration residues, plastic and e-waste
/// mixtures), which need prior informed consent.
#[derive(ToSchema)]
#[allow(dead_code)]
pub enum ListType {
    /// An Annex VIII entry decides (or the precautionary answer for vague descriptions).
    Amber,
    /// An Annex IX entry decides.
    Green,
    /// Hazardous by Annexes I and III without an Annex VIII entry.
    #[schema(rename = "Annex I")]
    AnnexI,
    /// Extension: Annex II "other wastes" (Y46–Y49).
    #[schema(rename = "Annex II")]
    AnnexII,
}

/// A classification (informational; the competent authorities decide).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Classification {
    /// Y-codes (Annexes I and II), each `{code, title, confidence, …}`.
    y_codes: Vec<serde_json::Value>,
    /// A-codes (Annex VIII).
    a_codes: Vec<serde_json::Value>,
    /// B-codes (Annex IX).
    b_codes: Vec<serde_json::Value>,
    /// H-codes (Annex III).
    h_codes: Vec<serde_json::Value>,
    /// UN numbers, e.g. `UN2794`.
    un_codes: Vec<serde_json::Value>,
    /// The deciding list.
    list_type: ListType,
    /// Whether prior informed consent is required.
    pic_required: bool,
    /// 0–1.
    overall_confidence: f64,
    /// Fixed text: informational only.
    disclaimer: String,
    /// Per code: the terms that matched and why.
    explanation: serde_json::Value,
    /// What to add or check.
    warnings: Vec<String>,
    /// The classifier's version.
    classifier_version: String,
    /// With `origin` and `destination`: the control procedure.
    procedure: Option<serde_json::Value>,
}
