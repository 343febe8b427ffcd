//! The one JSON error shape of the REST API.
//!
//! Every error body has `error` (a short title), `message` (what to do) and a
//! stable machine `code`, except the 401 for a missing or invalid API key,
//! whose body is exactly `{error, message, help}` as clients of this kind of
//! service expect. 5xx bodies never carry internals: the cause is logged here,
//! once.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::FieldProblem;
use domain::credentials::KeyRefusal;

/// An error answer.
#[derive(Debug)]
pub enum ApiError {
    /// 401: no API key, or a key that is not active.
    ApiKey(KeyRefusal),
    /// 400: the body is not JSON, or a query parameter is malformed.
    BadRequest {
        /// Stable code.
        code: &'static str,
        /// What is wrong.
        message: String,
    },
    /// 404: no such resource.
    NotFound {
        /// Stable code.
        code: &'static str,
        /// What was not found.
        message: String,
    },
    /// 405: the route exists but not with this method.
    MethodNotAllowed,
    /// 401: a steward write without a valid `Authorization: Bearer` token
    /// (API keys are never accepted here).
    StewardTokenRequired,
    /// 403: the token belongs to a suspended steward.
    StewardSuspended,
    /// 409: a concurrent write to the same record won.
    Conflict,
    /// 409: the record already exists (e.g. a country registered twice).
    AlreadyExists(String),
    /// 409: the write named an `expected_version` the record is no longer at.
    VersionMismatch {
        /// The version the client expected.
        expected: i64,
    },
    /// 409: the record's state does not allow the write (e.g. a check of
    /// "the" competent authority of a Party that has none).
    StateConflict {
        /// Stable code.
        code: &'static str,
        /// What to do instead.
        message: String,
    },
    /// 413: the body is over the limit.
    PayloadTooLarge,
    /// 415: the body is not `application/json`.
    UnsupportedMediaType,
    /// 422: the body parsed, but fields are invalid.
    Invalid(Vec<FieldProblem>),
    /// 422: the body is well formed but asks for what cannot be (a record
    /// of a State that is not a Party).
    Unprocessable {
        /// Stable code.
        code: &'static str,
        /// Why, and what to do instead.
        message: String,
        /// The field at fault.
        field: &'static str,
    },
    /// 429: this client made too many new registrations; `Retry-After`
    /// says when the next one can succeed.
    TooManyRegistrations {
        /// Whole seconds until the next registration from this client.
        retry_after_secs: u64,
    },
    /// 429 `too_many_failed_attempts`: too many requests from this client
    /// address failed authentication (`Retry-After`).
    TooManyFailedAttempts {
        /// Whole seconds until the address may try again.
        retry_after_secs: u64,
    },
    /// 503 with `Retry-After`: this replica has not applied the log up to
    /// the `min_position` the read asked for within the bound.
    NotCaughtUp {
        /// The position asked for.
        position: i64,
    },
    /// 503: the store is unreachable; the cause is logged.
    Unavailable(String),
    /// 500: a defect; the cause is logged.
    Internal(String),
}

impl ApiError {
    /// A 422 about one field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid(vec![FieldProblem::new(field, message)])
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self {
            Self::ApiKey(refusal) => {
                let mut response =
                    (StatusCode::UNAUTHORIZED, Json(ApiKeyErrorBody::of(refusal))).into_response();
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static(refusal.www_authenticate()),
                );
                response
            }
            Self::StewardTokenRequired => {
                let (status, body) = self.parts();
                let mut response = (status, Json(body)).into_response();
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"basel stewards\""),
                );
                response
            }
            Self::NotCaughtUp { .. } => {
                let (status, body) = self.parts();
                let mut response = (status, Json(body)).into_response();
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                response
            }
            Self::TooManyRegistrations { retry_after_secs }
            | Self::TooManyFailedAttempts { retry_after_secs } => {
                let (status, body) = self.parts();
                let mut response = (status, Json(body)).into_response();
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
                response
            }
            other => {
                let (status, body) = other.parts();
                (status, Json(body)).into_response()
            }
        }
    }
}

impl ApiError {
    /// The status and body of every error but the API-key 401. Causes of
    /// 5xx answers are logged here, once; the body never carries them.
    fn parts(self) -> (StatusCode, ErrorBody) {
        match self {
            Self::ApiKey(refusal) => (
                StatusCode::UNAUTHORIZED,
                body(refusal.error(), "api_key_required", refusal.message()),
            ),
            Self::BadRequest { code, message } => {
                (StatusCode::BAD_REQUEST, body("bad request", code, &message))
            }
            Self::NotFound { code, message } => {
                (StatusCode::NOT_FOUND, body("not found", code, &message))
            }
            Self::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                body(
                    "method not allowed",
                    "method_not_allowed",
                    "this route does not serve that method",
                ),
            ),
            Self::StewardTokenRequired => (
                StatusCode::UNAUTHORIZED,
                body(
                    "steward token required",
                    "steward_token_required",
                    "send a steward's token as `Authorization: Bearer TOKEN` (from `basel steward enrol`); API keys are not accepted here",
                ),
            ),
            Self::StewardSuspended => (
                StatusCode::FORBIDDEN,
                body(
                    "steward suspended",
                    "steward_suspended",
                    "this steward is suspended and cannot write",
                ),
            ),
            Self::AlreadyExists(message) => (
                StatusCode::CONFLICT,
                body("conflict", "already_exists", &message),
            ),
            Self::VersionMismatch { expected } => (
                StatusCode::CONFLICT,
                body(
                    "conflict",
                    "version_mismatch",
                    &format!(
                        "the record is no longer at version {expected}; GET it again and resubmit"
                    ),
                ),
            ),
            Self::Conflict => (
                StatusCode::CONFLICT,
                body(
                    "conflict",
                    "conflict",
                    "another write to the same record came first; retry",
                ),
            ),
            Self::StateConflict { code, message } => {
                (StatusCode::CONFLICT, body("conflict", code, &message))
            }
            Self::PayloadTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                body(
                    "payload too large",
                    "payload_too_large",
                    "the request body is over 64 KiB",
                ),
            ),
            Self::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                body(
                    "unsupported media type",
                    "unsupported_media_type",
                    "send the body as JSON with Content-Type: application/json",
                ),
            ),
            Self::Invalid(mut problems) => {
                let found = problems.len();
                problems.truncate(MAX_LISTED_PROBLEMS);
                let mut message = summary(&problems);
                if found > MAX_LISTED_PROBLEMS {
                    message.push_str(&format!(
                        " (and {} more: {found} problems in all, the first {MAX_LISTED_PROBLEMS} listed)",
                        found - MAX_LISTED_PROBLEMS
                    ));
                }
                let mut value = body("invalid fields", "validation_failed", &message);
                value.errors = Some(problems);
                (StatusCode::UNPROCESSABLE_ENTITY, value)
            }
            Self::Unprocessable {
                code,
                message,
                field,
            } => {
                let mut value = body("unprocessable", code, &message);
                value.errors = Some(vec![FieldProblem::new(field, message)]);
                (StatusCode::UNPROCESSABLE_ENTITY, value)
            }
            Self::TooManyRegistrations { retry_after_secs } => (
                StatusCode::TOO_MANY_REQUESTS,
                body(
                    "too many registrations",
                    "rate_limited",
                    &format!("this client registered too many new addresses; retry in {retry_after_secs} s"),
                ),
            ),
            Self::TooManyFailedAttempts { retry_after_secs } => (
                StatusCode::TOO_MANY_REQUESTS,
                body(
                    "too many failed attempts",
                    "too_many_failed_attempts",
                    &format!("too many requests from this address failed authentication; retry in {retry_after_secs} s"),
                ),
            ),
            Self::NotCaughtUp { position } => (
                StatusCode::SERVICE_UNAVAILABLE,
                body(
                    "not caught up",
                    "not_caught_up",
                    &format!("this replica has not applied the log up to position {position} yet; retry shortly"),
                ),
            ),
            Self::Unavailable(cause) => {
                tracing::error!(error = %cause, "store unavailable");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    body(
                        "service unavailable",
                        "unavailable",
                        "the store is unavailable; retry shortly",
                    ),
                )
            }
            Self::Internal(cause) => {
                tracing::error!(error = %cause, "internal error");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    body(
                        "internal error",
                        "internal",
                        "something went wrong on our side",
                    ),
                )
            }
        }
    }
}

fn body(error: &str, code: &str, message: &str) -> ErrorBody {
    ErrorBody {
        error: error.to_owned(),
        code: code.to_owned(),
        message: message.to_owned(),
        errors: None,
    }
}

/// Every error answer but the API-key 401: what went wrong in words
/// (`error`, `message`) and as a stable `code` clients can match on.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ErrorBody {
    /// The kind of error, in words (e.g. `not found`).
    pub error: String,
    /// A stable machine code (e.g. `country_not_found`, `validation_failed`).
    pub code: String,
    /// What to do about it.
    pub message: String,
    /// For `validation_failed` (422): every field problem, each named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldProblem>>,
}
crate::schemars_schema!(ErrorBody, "Error");

/// The API-key 401, exactly `{error, message, help}` (the product's contract;
/// `error` says whether the key was missing or not accepted).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ApiKeyErrorBody {
    /// `API key required`.
    pub error: &'static str,
    /// Where the key goes.
    pub message: &'static str,
    /// Where to get one.
    pub help: &'static str,
}
crate::schemars_schema!(ApiKeyErrorBody, "ApiKeyError");

impl ApiKeyErrorBody {
    /// The body of an API-key refusal: the same words as the MCP server's.
    pub fn of(refusal: KeyRefusal) -> Self {
        Self {
            error: refusal.error(),
            message: refusal.message(),
            help: KeyRefusal::HELP,
        }
    }
}

/// The most problems a 422 lists (its message counts the rest), so a body
/// of a thousand unknown fields is not answered with a thousand entries.
pub const MAX_LISTED_PROBLEMS: usize = 20;

fn summary(problems: &[FieldProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("{}: {}", p.field, p.message))
        .collect::<Vec<_>>()
        .join("; ")
}

impl From<projections::ProjectionError> for ApiError {
    fn from(error: projections::ProjectionError) -> Self {
        Self::Unavailable(error.to_string())
    }
}
