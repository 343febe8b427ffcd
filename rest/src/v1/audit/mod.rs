//! `/api/v1/audit/…`: the verifiable log for auditors.
//!
//! - [`checkpoint`]: the service's public key and its signed checkpoints
//!   (C2SP signed notes, `text/plain`);
//! - [`proof`]: RFC 9162 inclusion and consistency proofs;
//! - [`entry`]: one leaf's bytes (the event as stored).
//!
//! The key, checkpoints and proofs are public (they reveal hashes only);
//! an entry carries an event, so it needs an API key like every read.

pub mod checkpoint;
pub mod entry;
pub mod proof;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use commands::store::StoreError;
use utoipa::IntoParams;

use web::error::ApiError;
use web::params::bad;
use web::state::{AppState, AuditState};

/// The `{position}` of the path: an event's position in the log, from 1;
/// anything else is a 400.
#[derive(Debug, Clone, Copy, IntoParams)]
#[into_params(names("position"), parameter_in = Path)]
pub struct PositionPath(
    /// The event's position in the log.
    #[param(minimum = 1, maximum = 9223372036854775807i64)]
    pub i64,
);

impl<S: Send + Sync> FromRequestParts<S> for PositionPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        positive(parts, state, "position").await.map(Self)
    }
}

/// The `{tree_size}` of the path: a tree size, from 1; anything else is a
/// 400.
#[derive(Debug, Clone, Copy, IntoParams)]
#[into_params(names("tree_size"), parameter_in = Path)]
pub struct TreeSizePath(
    /// The tree size a checkpoint was signed at.
    #[param(minimum = 1, maximum = 9223372036854775807i64)]
    pub i64,
);

impl<S: Send + Sync> FromRequestParts<S> for TreeSizePath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        positive(parts, state, "tree_size").await.map(Self)
    }
}

/// The path parameter `name` as a positive `i64` (the bounds the path
/// types state).
async fn positive<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    name: &str,
) -> Result<i64, ApiError> {
    let refused = || bad(format!("{name} must be a positive integer"));
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|_| refused())?;
    params
        .iter()
        .find_map(|(n, value)| (n == name).then_some(value))
        .and_then(|value| value.parse::<i64>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(refused)
}

/// The audit state of a server that has one, else a 503.
pub(crate) fn of(state: &AppState) -> Result<&AuditState, ApiError> {
    state
        .audit
        .as_ref()
        .ok_or_else(|| ApiError::Unavailable("the audit log is not configured".into()))
}

/// A store failure as an answer.
pub(crate) fn unavailable(error: StoreError) -> ApiError {
    ApiError::Unavailable(error.to_string())
}

/// Standard base64, as in signed notes and RFC 6962's JSON API.
pub(crate) fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}
