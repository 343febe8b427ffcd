//! `GET /api/v1/audit/key`, `GET /api/v1/audit/checkpoint` and
//! `GET /api/v1/audit/checkpoint/{tree_size}`.

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::Json;
use commands::audit::tables;
use serde::Serialize;

use super::{b64, of, unavailable, TreeSizePath};
use web::error::ApiError;
use web::state::Shared;

/// The service's checkpoint key.
#[derive(Debug, Serialize)]
pub struct KeyAnswer {
    /// The log's origin, also the key name in signature lines.
    pub origin: String,
    /// Always `Ed25519`.
    pub algorithm: &'static str,
    /// The raw 32-byte public key, base64.
    pub public_key: String,
    /// The signed-note key id (first 4 bytes of SHA-256(name, 0x0A, 0x01, key)), hex.
    pub key_id: String,
    /// The signed-note verifier key: `origin+key_id+base64(0x01 || key)`.
    pub vkey: String,
}

/// The public key that signs checkpoints.
///
/// # Errors
/// 503 when the audit log is not configured.
#[utoipa::path(get, path = "/api/v1/audit/key", tag = "audit",
    responses(
        (status = 200, description = "`{origin, algorithm, public_key, key_id, vkey}`: the Ed25519 key that signs checkpoints", content_type = "application/json"),
        (status = 503, description = "The audit log is not configured", body = web::error::ErrorBody)
    ))]
pub async fn key(State(state): State<Shared>) -> Result<Json<KeyAnswer>, ApiError> {
    let verifier = &of(&state)?.verifier;
    Ok(Json(KeyAnswer {
        origin: verifier.name().to_owned(),
        algorithm: "Ed25519",
        public_key: b64(&verifier.public_key()),
        key_id: verifier.key_id_hex(),
        vkey: verifier.vkey(),
    }))
}

/// The latest signed checkpoint.
///
/// # Errors
/// 404 `no_checkpoint` before the first one; 503 when the store fails.
#[utoipa::path(get, path = "/api/v1/audit/checkpoint", tag = "audit",
    responses(
        (status = 200, description = "The latest checkpoint: a C2SP tlog-checkpoint signed note (origin, tree size, root hash, Ed25519 signature line)", content_type = "text/plain"),
        (status = 404, description = "`no_checkpoint`: none signed yet", body = web::error::ErrorBody),
    ))]
pub async fn latest(State(state): State<Shared>) -> Result<Response, ApiError> {
    of(&state)?;
    let checkpoint = tables::latest_checkpoint(&state.wiring.store)
        .await
        .map_err(unavailable)?;
    note(
        checkpoint.map(|c| c.note),
        "no checkpoint has been signed yet",
    )
}

/// The signed checkpoint of one tree size.
///
/// # Errors
/// 400 for a size that is not a positive integer; 404 `no_checkpoint` when
/// none was signed at that size; 503 when the store fails.
#[utoipa::path(get, path = "/api/v1/audit/checkpoint/{tree_size}", tag = "audit",
    params(TreeSizePath),
    responses(
        (status = 200, description = "That checkpoint, as a signed note", content_type = "text/plain"),
        (status = 400, description = "Not a positive integer", body = web::error::ErrorBody),
        (status = 404, description = "`no_checkpoint`: none was signed at that size", body = web::error::ErrorBody),
    ))]
pub async fn by_size(
    State(state): State<Shared>,
    TreeSizePath(size): TreeSizePath,
) -> Result<Response, ApiError> {
    of(&state)?;
    let size = size.unsigned_abs();
    let found = tables::checkpoints(&state.wiring.store, Some(size))
        .await
        .map_err(unavailable)?;
    note(
        found.into_iter().next().map(|c| c.note),
        "no checkpoint was signed at this tree size",
    )
}

fn note(note: Option<String>, missing: &str) -> Result<Response, ApiError> {
    let note = note.ok_or_else(|| ApiError::NotFound {
        code: "no_checkpoint",
        message: missing.to_owned(),
    })?;
    Ok(([(CONTENT_TYPE, "text/plain; charset=utf-8")], note).into_response())
}
