//! `GET /api/v1/audit/proof/inclusion?position=N&tree_size=S` and
//! `GET /api/v1/audit/proof/consistency?from=S1&to=S2`: RFC 9162 proofs
//! (§2.1.3 and §2.1.4), hashes in standard base64 as in RFC 6962's JSON API.
//! `tree_size` and `to` default to the latest checkpoint's size.

use axum::extract::State;
use axum::Json;
use commands::audit::{merkle, tables};
use commands::store::Backend;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use super::{b64, of, unavailable};
use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::Shared;

/// An inclusion proof.
#[derive(Debug, Serialize)]
pub struct InclusionProof {
    /// The event's position in the events table.
    pub position: i64,
    /// Its leaf's index in the tree (0-based).
    pub leaf_index: u64,
    /// The tree the proof is for.
    pub tree_size: u64,
    /// The leaf hash, SHA-256(0x00 || leaf bytes).
    pub leaf_hash: String,
    /// The audit path, bottom up.
    pub inclusion_path: Vec<String>,
    /// The root of that tree (compare with a signed checkpoint).
    pub root_hash: String,
}

/// A consistency proof.
#[derive(Debug, Serialize)]
pub struct ConsistencyProof {
    /// The older tree's size.
    pub from: u64,
    /// The newer tree's size.
    pub to: u64,
    /// The proof (RFC 9162 `PROOF(from, D[to])`).
    pub consistency_path: Vec<String>,
}

/// The leaf hashes of a tree of `size` (`0`: the latest checkpoint's).
async fn tree(backend: &Backend, size: u64) -> Result<Vec<merkle::Hash>, ApiError> {
    let size = match size {
        0 => tables::latest_checkpoint(backend)
            .await
            .map_err(unavailable)?
            .map(|c| c.size)
            .ok_or_else(|| ApiError::NotFound {
                code: "no_checkpoint",
                message: "no checkpoint has been signed yet".into(),
            })?,
        size => size,
    };
    let leaves = tables::leaf_hashes(backend, size)
        .await
        .map_err(unavailable)?;
    if (leaves.len() as u64) < size {
        return Err(ApiError::NotFound {
            code: "tree_size_unknown",
            message: format!("the tree has {} leaves, fewer than {size}", leaves.len()),
        });
    }
    Ok(leaves)
}

/// The parameters of `GET /api/v1/audit/proof/inclusion`; positions and
/// tree sizes count from 1.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct InclusionQuery {
    /// The event's position in the log.
    #[param(minimum = 1, maximum = 9223372036854775807i64)]
    pub position: i64,
    /// The tree size (default: the latest checkpoint's).
    #[param(minimum = 1, maximum = 9223372036854775807i64)]
    pub tree_size: Option<i64>,
}

impl QueryParams for InclusionQuery {}

/// The inclusion proof of the event at `position` in the tree of `tree_size`.
///
/// # Errors
/// 400 for bad parameters or an event outside that tree; 404
/// `not_in_tree` / `tree_size_unknown` / `no_checkpoint`; 503 when the store
/// fails.
#[utoipa::path(get, path = "/api/v1/audit/proof/inclusion", tag = "audit",
    params(InclusionQuery),
    responses(
        (status = 200, description = "`{position, leaf_index, tree_size, leaf_hash, inclusion_path, root_hash}`, hashes in base64", content_type = "application/json"),
        (status = 400, description = "A parameter is missing or malformed, or the event is not in that tree", body = web::error::ErrorBody),
        (status = 404, description = "`not_in_tree`: no leaf for that position yet; `tree_size_unknown`; `no_checkpoint`", body = web::error::ErrorBody),
    ))]
pub async fn inclusion(
    State(state): State<Shared>,
    Query(query): Query<InclusionQuery>,
) -> Result<Json<InclusionProof>, ApiError> {
    of(&state)?;
    let position = query.position;
    let tree_size = query.tree_size.unwrap_or(0);
    let backend = &state.wiring.store;
    let leaf = tables::leaf_at_position(backend, position)
        .await
        .map_err(unavailable)?
        .ok_or_else(|| ApiError::NotFound {
            code: "not_in_tree",
            message: format!("no leaf covers position {position} yet"),
        })?;
    let leaves = tree(backend, tree_size.unsigned_abs()).await?;
    let index = usize::try_from(leaf.index).unwrap_or(usize::MAX);
    // A leaf past the tree asked for is not in it: not found there.
    let path = merkle::inclusion_proof(index, &leaves).ok_or_else(|| ApiError::NotFound {
        code: "not_in_tree",
        message: format!(
            "position {position} is leaf {}, not in a tree of {} leaves",
            leaf.index,
            leaves.len()
        ),
    })?;
    Ok(Json(InclusionProof {
        position,
        leaf_index: leaf.index,
        tree_size: leaves.len() as u64,
        leaf_hash: b64(&leaf.hash),
        inclusion_path: path.iter().map(|h| b64(h)).collect(),
        root_hash: b64(&merkle::root(&leaves)),
    }))
}

/// The parameters of `GET /api/v1/audit/proof/consistency`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ConsistencyQuery {
    /// The older tree size (at least 1).
    #[param(minimum = 1, maximum = 9223372036854775807i64)]
    pub from: i64,
    /// The newer tree size (default: the latest checkpoint's).
    #[param(minimum = 1, maximum = 9223372036854775807i64)]
    pub to: Option<i64>,
}

impl QueryParams for ConsistencyQuery {}

/// The consistency proof between the trees of sizes `from` and `to`.
///
/// # Errors
/// 400 for bad parameters; 404 `tree_size_unknown` / `no_checkpoint`; 503
/// when the store fails.
#[utoipa::path(get, path = "/api/v1/audit/proof/consistency", tag = "audit",
    params(ConsistencyQuery),
    responses(
        (status = 200, description = "`{from, to, consistency_path}`, hashes in base64", content_type = "application/json"),
        (status = 400, description = "A parameter is missing or malformed, or `from` exceeds `to`", body = web::error::ErrorBody),
        (status = 404, description = "`tree_size_unknown` or `no_checkpoint`", body = web::error::ErrorBody),
    ))]
pub async fn consistency(
    State(state): State<Shared>,
    Query(query): Query<ConsistencyQuery>,
) -> Result<Json<ConsistencyProof>, ApiError> {
    of(&state)?;
    let (from, to) = (query.from, query.to.unwrap_or(0));
    let leaves = tree(&state.wiring.store, to.unsigned_abs()).await?;
    let from = from.unsigned_abs();
    let path = merkle::consistency_proof(usize::try_from(from).unwrap_or(usize::MAX), &leaves)
        .ok_or_else(|| ApiError::NotFound {
            code: "no_such_proof",
            message: format!(
                "from ({from}) exceeds to ({}): no consistency proof",
                leaves.len()
            ),
        })?;
    Ok(Json(ConsistencyProof {
        from,
        to: leaves.len() as u64,
        consistency_path: path.iter().map(|h| b64(h)).collect(),
    }))
}
