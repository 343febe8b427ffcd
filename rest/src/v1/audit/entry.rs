//! `GET /api/v1/audit/entries/{position}`: one leaf's bytes, so anyone can
//! hash them (`SHA-256(0x00 || leaf_data)`) and check an inclusion proof.

use axum::extract::State;
use axum::Json;
use commands::audit::{leaf, tables};
use domain::envelope::Envelope;
use serde::Serialize;

use super::{b64, of, unavailable, PositionPath};
use web::error::ApiError;
use web::state::Shared;

/// One leaf of the log.
#[derive(Debug, Serialize)]
pub struct Entry {
    /// The event's position.
    pub position: i64,
    /// Its leaf's index in the tree (0-based).
    pub leaf_index: u64,
    /// The leaf hash recorded when the event was appended, base64.
    pub leaf_hash: String,
    /// The leaf bytes as stored now (the event's canonical JSON), base64.
    pub leaf_data: String,
    /// The same event, decoded.
    pub event: Envelope,
}

/// The leaf of the event at `position`.
///
/// # Errors
/// 400 for a malformed position; 404 `not_in_tree`; 503 when the store fails.
#[utoipa::path(get, path = "/api/v1/audit/entries/{position}", tag = "audit", security(("api_key" = [])),
    params(PositionPath),
    responses(
        (status = 200, description = "`{position, leaf_index, leaf_hash, leaf_data, event}`: `leaf_data` is the leaf's bytes in base64", content_type = "application/json"),
        (status = 400, description = "Not a positive integer", body = web::error::ErrorBody),
        (status = 404, description = "`not_in_tree`: no leaf covers that position (yet)", body = web::error::ErrorBody),
    ))]
pub async fn entry(
    State(state): State<Shared>,
    PositionPath(position): PositionPath,
) -> Result<Json<Entry>, ApiError> {
    of(&state)?;
    let backend = &state.wiring.store;
    let not_in_tree = || ApiError::NotFound {
        code: "not_in_tree",
        message: format!("no leaf covers position {position}"),
    };
    let stored = tables::leaf_at_position(backend, position)
        .await
        .map_err(unavailable)?
        .ok_or_else(not_in_tree)?;
    let event = leaf::read_at(backend, position)
        .await
        .map_err(unavailable)?
        .ok_or_else(not_in_tree)?;
    Ok(Json(Entry {
        position,
        leaf_index: stored.index,
        leaf_hash: b64(&stored.hash),
        leaf_data: b64(&leaf::leaf_bytes(&event)),
        event,
    }))
}
