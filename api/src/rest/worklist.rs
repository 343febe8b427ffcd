//! `GET /api/v1/stewardship/worklist` (steward token): Parties ordered by
//! need, each with the reason and where to look (`projections::worklist`).
//! `basel worklist` prints the same list.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use schemars::JsonSchema;
use serde::Serialize;

use projections::worklist::WorkItem;

use crate::rest::auth::Steward;
use crate::rest::error::ApiError;
use crate::rest::params::Params;
use crate::rest::Shared;

/// The worklist.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Worklist {
    /// Parties that need a steward, most urgent first.
    pub items: Vec<WorkItem>,
}

/// The steward worklist.
///
/// # Errors
/// 401/403 (token), 400 (an unknown parameter), 503.
#[utoipa::path(get, path = "/api/v1/stewardship/worklist", tag = "stewards", security(("steward_token" = [])),
    responses(
        (status = 200, description = "Parties ordered by need: no contact, focal point only, defunct or unanswered contact, never verified, stale (oldest first)", body = crate::rest::openapi::Worklist),
        (status = 400, description = "Unknown parameter", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or wrong steward token", body = crate::rest::openapi::Error),
        (status = 403, description = "The steward is suspended", body = crate::rest::openapi::Error),
        (status = 503, description = "The store is unavailable", body = crate::rest::openapi::Error)
    ))]
pub async fn worklist(
    State(state): State<Shared>,
    _steward: Steward,
    params: Params,
) -> Result<Response, ApiError> {
    params.finish()?;
    let rows = projections::directory::Reader::new(state.read_db().clone())
        .all()
        .await?;
    let items = projections::worklist::of(&rows, Utc::now().date_naive(), state.stale_after_days);
    Ok(Json(Worklist { items }).into_response())
}
