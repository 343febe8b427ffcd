//! `POST /api/v1/classify`: a waste description → Basel codes.

use axum::extract::State;
use axum::Json;
use serde_json::Value;

use domain::classifier::Classification;
use domain::values::CountryCode;

use crate::rest::error::ApiError;
use crate::rest::extract::{object, optional_string, JsonBody};
use crate::rest::Shared;

/// The longest description accepted, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 5000;

/// Classifies `{description, origin?, destination?}`.
///
/// # Errors
/// 422 naming the field when `description` is missing, not a string, empty
/// after trimming or over 5 000 characters, or a country is not ISO alpha-2.
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
) -> Result<Json<Classification>, ApiError> {
    object(&body)?;
    let description = match body.get("description") {
        Some(Value::String(text)) => text.trim(),
        None | Some(Value::Null) => return Err(ApiError::invalid("description", "is required")),
        Some(_) => return Err(ApiError::invalid("description", "must be a string")),
    };
    if description.is_empty() {
        return Err(ApiError::invalid("description", "must not be empty"));
    }
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(ApiError::invalid(
            "description",
            format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
        ));
    }
    let origin = country(&body, "origin")?;
    let destination = country(&body, "destination")?;
    Ok(Json(state.classifier.classify(
        description,
        origin.as_ref(),
        destination.as_ref(),
    )))
}

fn country(body: &Value, field: &str) -> Result<Option<CountryCode>, ApiError> {
    optional_string(body, field)?
        .map(|code| {
            CountryCode::parse(&code)
                .map_err(|_| ApiError::invalid(field, "must be an ISO 3166-1 alpha-2 country code"))
        })
        .transpose()
}
