//! The one JSON error shape of the REST API.
//!
//! Every error body has `error` (a short title), `message` (what to do) and a
//! stable machine `code`, except the 401 for a missing or invalid API key,
//! whose body is exactly `{error, message, help}` as clients of this kind of
//! service expect. 5xx bodies never carry internals: the cause is logged here,
//! once.

use std::borrow::Cow;

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

/// One line for logs: the code and the message, and for a 5xx its cause
/// (which no answer carries).
impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.code(),
            self.status().as_u16(),
            self.message()
        )?;
        match self {
            Self::Unavailable(cause) | Self::Internal(cause) => write!(f, "; cause: {cause}"),
            _ => Ok(()),
        }
    }
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
        let status = self.status();
        let mut value = body(self.title(), self.code(), &self.message());
        match self {
            Self::Invalid(mut problems) => {
                problems.truncate(MAX_LISTED_PROBLEMS);
                value.errors = Some(problems);
            }
            Self::Unprocessable { message, field, .. } => {
                value.errors = Some(vec![FieldProblem::new(field, message)]);
            }
            Self::Unavailable(cause) => tracing::error!(error = %cause, "store unavailable"),
            Self::Internal(cause) => tracing::error!(error = %cause, "internal error"),
            Self::ApiKey(_)
            | Self::BadRequest { .. }
            | Self::NotFound { .. }
            | Self::MethodNotAllowed
            | Self::StewardTokenRequired
            | Self::StewardSuspended
            | Self::Conflict
            | Self::AlreadyExists(_)
            | Self::VersionMismatch { .. }
            | Self::StateConflict { .. }
            | Self::PayloadTooLarge
            | Self::UnsupportedMediaType
            | Self::TooManyRegistrations { .. }
            | Self::TooManyFailedAttempts { .. }
            | Self::NotCaughtUp { .. } => {}
        }
        (status, value)
    }

    /// The answer's status.
    fn status(&self) -> StatusCode {
        match self {
            Self::ApiKey(_) | Self::StewardTokenRequired => StatusCode::UNAUTHORIZED,
            Self::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Self::NotFound { .. } => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::StewardSuspended => StatusCode::FORBIDDEN,
            Self::Conflict
            | Self::AlreadyExists(_)
            | Self::VersionMismatch { .. }
            | Self::StateConflict { .. } => StatusCode::CONFLICT,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Invalid(_) | Self::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Self::TooManyRegistrations { .. } | Self::TooManyFailedAttempts { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            Self::NotCaughtUp { .. } | Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The kind of error, in words (`error`).
    fn title(&self) -> &'static str {
        match self {
            Self::ApiKey(refusal) => refusal.error(),
            Self::BadRequest { .. } => "bad request",
            Self::NotFound { .. } => "not found",
            Self::MethodNotAllowed => "method not allowed",
            Self::StewardTokenRequired => "steward token required",
            Self::StewardSuspended => "steward suspended",
            Self::Conflict
            | Self::AlreadyExists(_)
            | Self::VersionMismatch { .. }
            | Self::StateConflict { .. } => "conflict",
            Self::PayloadTooLarge => "payload too large",
            Self::UnsupportedMediaType => "unsupported media type",
            Self::Invalid(_) => "invalid fields",
            Self::Unprocessable { .. } => "unprocessable",
            Self::TooManyRegistrations { .. } => "too many registrations",
            Self::TooManyFailedAttempts { .. } => "too many failed attempts",
            Self::NotCaughtUp { .. } => "not caught up",
            Self::Unavailable(_) => "service unavailable",
            Self::Internal(_) => "internal error",
        }
    }

    /// The stable machine `code`.
    fn code(&self) -> &'static str {
        match self {
            Self::ApiKey(_) => "api_key_required",
            Self::BadRequest { code, .. }
            | Self::NotFound { code, .. }
            | Self::StateConflict { code, .. }
            | Self::Unprocessable { code, .. } => code,
            Self::MethodNotAllowed => "method_not_allowed",
            Self::StewardTokenRequired => "steward_token_required",
            Self::StewardSuspended => "steward_suspended",
            Self::Conflict => "conflict",
            Self::AlreadyExists(_) => "already_exists",
            Self::VersionMismatch { .. } => "version_mismatch",
            Self::PayloadTooLarge => "payload_too_large",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::Invalid(_) => "validation_failed",
            Self::TooManyRegistrations { .. } => "rate_limited",
            Self::TooManyFailedAttempts { .. } => "too_many_failed_attempts",
            Self::NotCaughtUp { .. } => "not_caught_up",
            Self::Unavailable(_) => "unavailable",
            Self::Internal(_) => "internal",
        }
    }

    /// What to do about it (`message`); never a 5xx's cause.
    fn message(&self) -> Cow<'static, str> {
        match self {
            Self::ApiKey(refusal) => refusal.message().into(),
            Self::BadRequest { message, .. }
            | Self::NotFound { message, .. }
            | Self::StateConflict { message, .. }
            | Self::Unprocessable { message, .. }
            | Self::AlreadyExists(message) => message.clone().into(),
            Self::MethodNotAllowed => "this route does not serve that method".into(),
            Self::StewardTokenRequired => "send a steward's token as `Authorization: Bearer TOKEN` (from `basel steward enrol`); API keys are not accepted here".into(),
            Self::StewardSuspended => "this steward is suspended and cannot write".into(),
            Self::Conflict => "another write to the same record came first; retry".into(),
            Self::VersionMismatch { expected } => format!("the record is no longer at version {expected}; GET it again and resubmit").into(),
            Self::PayloadTooLarge => "the request body is over 64 KiB".into(),
            Self::UnsupportedMediaType => "send the body as JSON with Content-Type: application/json".into(),
            Self::Invalid(problems) => invalid_summary(problems).into(),
            Self::TooManyRegistrations { retry_after_secs } => format!("this client registered too many new addresses; retry in {retry_after_secs} s").into(),
            Self::TooManyFailedAttempts { retry_after_secs } => format!("too many requests from this address failed authentication; retry in {retry_after_secs} s").into(),
            Self::NotCaughtUp { position } => format!("this replica has not applied the log up to position {position} yet; retry shortly").into(),
            Self::Unavailable(_) => "the store is unavailable; retry shortly".into(),
            Self::Internal(_) => "something went wrong on our side".into(),
        }
    }
}

/// The message of a 422: the first problems in words, and how many more.
fn invalid_summary(problems: &[FieldProblem]) -> String {
    let found = problems.len();
    let mut message = summary(&problems[..found.min(MAX_LISTED_PROBLEMS)]);
    if found > MAX_LISTED_PROBLEMS {
        message.push_str(&format!(
            " (and {} more: {found} problems in all, the first {MAX_LISTED_PROBLEMS} listed)",
            found - MAX_LISTED_PROBLEMS
        ));
    }
    message
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
