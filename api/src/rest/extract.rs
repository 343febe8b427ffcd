//! A JSON body extractor whose rejections are [`ApiError`]s: not JSON → 415,
//! malformed → 400, wrong shape → 422, too large → 413.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde_json::Value;

use crate::rest::error::ApiError;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A request body parsed as JSON (any value; handlers check the shape so they
/// can name the field).
pub struct JsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<Value>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(JsonRejection::MissingJsonContentType(_)) => Err(ApiError::UnsupportedMediaType),
            Err(JsonRejection::JsonSyntaxError(e)) => Err(ApiError::BadRequest {
                code: "malformed_json",
                message: e.body_text(),
            }),
            Err(JsonRejection::JsonDataError(e)) => Err(ApiError::invalid("body", e.body_text())),
            Err(JsonRejection::BytesRejection(e))
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE =>
            {
                Err(ApiError::PayloadTooLarge)
            }
            Err(other) => Err(ApiError::BadRequest {
                code: "unreadable_body",
                message: other.body_text(),
            }),
        }
    }
}
