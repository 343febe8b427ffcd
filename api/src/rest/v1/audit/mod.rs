//! `/api/v1/audit/…`: the verifiable log for auditors (issue #29).
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

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use commands::store::StoreError;

use crate::rest::http::error::ApiError;
use crate::rest::http::state::{AppState, AuditState};

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
