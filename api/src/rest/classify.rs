//! `POST /api/v1/classify`: a waste description → Basel codes.

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use domain::classifier::Classification;
use domain::values::CountryCode;

use crate::rest::error::ApiError;
use crate::rest::extract::JsonBody;
use crate::rest::fields::Fields;
use crate::rest::state::Shared;

/// The longest description accepted, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 5000;

/// The longest country (code or name) accepted, in characters.
pub const MAX_COUNTRY_CHARS: usize = 100;

/// Classifies `{description, origin?, destination?}`.
///
/// # Errors
/// 422 naming the field when `description` is missing, not a string, empty
/// after trimming or over 5 000 characters, or a country is neither a code
/// nor a name the Party registry knows.
#[utoipa::path(post, path = "/api/v1/classify", tag = "classifier", security(("api_key" = [])),
    request_body = crate::rest::openapi::ClassifyBody,
    responses(
        (status = 200, description = "Basel signals for the description", body = crate::rest::openapi::Classification),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or invalid API key: exactly {error, message, help}", body = crate::rest::openapi::ApiKeyError),
        (status = 413, description = "Body over 64 KiB", body = crate::rest::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::rest::openapi::Error),
        (status = 422, description = "Invalid fields, each named", body = crate::rest::openapi::ValidationError)
    ))]
pub async fn classify(
    State(state): State<Shared>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let request = parse(&body)?;
    answer(&state.classifier.classify(
        &request.description,
        request.origin.as_ref(),
        request.destination.as_ref(),
    ))
}

/// Room for a typical answer (4–6 KiB) from the start: axum's `Json` begins
/// with 128 bytes and grows, copying, several times per classification.
const ANSWER_CAPACITY: usize = 8 * 1024;

/// The classification as a JSON answer.
fn answer(classification: &Classification) -> Result<Response, ApiError> {
    let mut bytes = Vec::with_capacity(ANSWER_CAPACITY);
    serde_json::to_writer(&mut bytes, classification)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        bytes,
    )
        .into_response())
}

/// A classification request, checked.
#[derive(Debug)]
pub struct Request {
    /// The description, trimmed, 1 to [`MAX_DESCRIPTION_CHARS`] characters.
    pub description: String,
    /// The country of export.
    pub origin: Option<CountryCode>,
    /// The country of import.
    pub destination: Option<CountryCode>,
}

/// Reads a classification body with the strict field reader.
///
/// # Errors
/// 422 listing every problem, unknown fields included.
pub fn parse(body: &Value) -> Result<Request, ApiError> {
    let mut fields = Fields::of(body)?;
    let description = fields
        .text("description", true)
        .map(|text| text.trim().to_owned());
    match description.as_deref().map(|d| d.chars().count()) {
        Some(0) => fields.problem("description", "must not be empty"),
        Some(n) if n > MAX_DESCRIPTION_CHARS => fields.problem(
            "description",
            format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
        ),
        _ => {}
    }
    let origin = country(&mut fields, "origin");
    let destination = country(&mut fields, "destination");
    fields.finish()?;
    let description = description.ok_or_else(|| ApiError::invalid("description", "is required"))?;
    Ok(Request {
        description,
        origin,
        destination,
    })
}

fn country(fields: &mut Fields<'_>, field: &'static str) -> Option<CountryCode> {
    let text = fields.text(field, false)?;
    if text.chars().count() > MAX_COUNTRY_CHARS {
        fields.problem(
            field,
            format!("must be at most {MAX_COUNTRY_CHARS} characters"),
        );
        return None;
    }
    // Codes and names, as the shipment planner and the MCP tools read them.
    let parsed = domain::parties::registry().code_of(&text);
    if parsed.is_none() {
        fields.problem(
            field,
            "must name a country: an ISO 3166-1 alpha-2 code or a name, e.g. DE or Germany",
        );
    }
    parsed
}
