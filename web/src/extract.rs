//! A JSON body extractor whose rejections are [`ApiError`]s: not JSON → 415,
//! malformed → 400, a key named twice in one object → 400
//! `duplicate_key`, too large → 413.
//!
//! The body is read with `domain::json::parse`, which refuses repeated
//! keys: `serde_json` alone keeps the last one, so a proxy that checks the
//! first and basel would act on different bodies.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use domain::json::JsonError;

use crate::error::ApiError;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// A request body parsed as JSON (any value; handlers check the shape so they
/// can name the field).
pub struct JsonBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        if !json_content_type(request.headers()) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let bytes = match Bytes::from_request(request, state).await {
            Ok(bytes) => bytes,
            Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return Err(ApiError::PayloadTooLarge)
            }
            Err(e) => {
                return Err(ApiError::BadRequest {
                    code: "unreadable_body",
                    message: e.body_text(),
                })
            }
        };
        match domain::json::parse(&bytes) {
            Ok(value) => Ok(Self(value)),
            Err(JsonError::Syntax(e)) => Err(ApiError::BadRequest {
                code: "malformed_json",
                message: format!("Failed to parse the request body as JSON: {e}"),
            }),
            Err(e @ JsonError::DuplicateKey(_)) => Err(ApiError::BadRequest {
                code: "duplicate_key",
                message: e.to_string(),
            }),
        }
    }
}

/// Whether `Content-Type` names JSON (`application/json` or
/// `application/*+json`, parameters allowed), as axum's `Json` checks.
fn json_content_type(headers: &HeaderMap) -> bool {
    let Some(text) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let essence = text.split(';').next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    kind.eq_ignore_ascii_case("application")
        && (subtype.eq_ignore_ascii_case("json") || subtype.to_ascii_lowercase().ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn json_content_types_are_recognised() {
        for (value, json) in [
            ("application/json", true),
            ("application/json; charset=utf-8", true),
            ("Application/JSON", true),
            ("application/problem+json", true),
            ("text/json", false),
            ("application/jsonx", false),
            ("text/plain", false),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(value));
            assert_eq!(json_content_type(&headers), json, "{value}");
        }
        assert!(!json_content_type(&HeaderMap::new()));
    }
}
