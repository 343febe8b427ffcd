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

use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use commands::audit::NoteVerifier;
use commands::store::StoreError;

use crate::rest::error::ApiError;
use crate::rest::state::AppState;

/// What the audit routes and `/readyz` need: the public key, and what the
/// check of the log's tail at start found wrong, if anything.
#[derive(Debug, Clone)]
pub struct AuditState {
    /// Checks the service's signed notes.
    pub verifier: NoteVerifier,
    problem: Arc<Mutex<Option<String>>>,
}

impl AuditState {
    /// The state of a service whose checkpoints `verifier` checks.
    pub fn new(verifier: NoteVerifier) -> Self {
        Self {
            verifier,
            problem: Arc::default(),
        }
    }

    /// Records that the log does not verify: `/readyz` answers 503 with it.
    pub fn fail(&self, reason: String) {
        if let Ok(mut problem) = self.problem.lock() {
            *problem = Some(reason);
        }
    }

    /// What the log's check at start found wrong.
    pub fn problem(&self) -> Option<String> {
        self.problem.lock().ok().and_then(|p| p.clone())
    }
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
