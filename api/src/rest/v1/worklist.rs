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

use crate::rest::http::auth::Steward;
use crate::rest::http::error::ApiError;
use crate::rest::http::params::Params;
use crate::rest::http::state::Shared;

/// One page of the worklist.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Worklist {
    /// This page's number (from 1).
    pub page: i64,
    /// Items per page.
    pub per_page: i64,
    /// Items matching the filters, over all pages.
    pub total_items: i64,
    /// Parties that need a steward, most urgent first, oldest first within
    /// a need.
    pub items: Vec<WorkItem>,
}
crate::rest::http::schema::schemars_schema!(Worklist, "Worklist");

/// The needs a worklist item can have (`reason=`).
pub const NEEDS: [&str; 5] = [
    "no_contact",
    "focal_point_only",
    "defunct_or_unanswered",
    "never_verified",
    "stale",
];

/// The steward worklist.
///
/// # Errors
/// 401/403 (token), 400 (an unknown parameter), 503.
#[utoipa::path(get, path = "/api/v1/stewardship/worklist", tag = "stewards", security(("steward_token" = [])),
    params(
        ("reason" = Option<String>, Query, description = "Only this need: no_contact, focal_point_only, defunct_or_unanswered, never_verified, stale"),
        ("source_kind" = Option<String>, Query, description = "Only Parties with a contact from this kind of source (secretariat_factsheet, government_current, government_dated, other_official, unknown)"),
        ("page" = Option<i64>, Query, description = "Page, from 1"),
        ("per_page" = Option<i64>, Query, description = "Items per page, 1 to 200 (default 50)"),
    ),
    responses(
        (status = 200, description = "Parties ordered by need: no contact, focal point only, defunct or unanswered contact, never verified, stale; oldest first within a need; each with its own leads", body = crate::rest::v1::worklist::Worklist),
        (status = 400, description = "Unknown parameter", body = crate::rest::http::error::ErrorBody),
    ))]
pub async fn worklist(
    State(state): State<Shared>,
    _steward: Steward,
    params: Params,
) -> Result<Response, ApiError> {
    let mut params = params;
    let reason = params.take("reason")?;
    if let Some(r) = reason.as_deref().filter(|r| !NEEDS.contains(r)) {
        return Err(crate::rest::http::params::bad(format!(
            "reason `{r}` is not one of {}",
            NEEDS.join(", ")
        )));
    }
    let source_kind = params.take("source_kind")?;
    let page = params.integer(&["page"], 1, 1, crate::rest::v1::ca::list::MAX_PAGE)?;
    let per_page = params.integer(&["per_page", "perPage"], 50, 1, 200)?;
    params.finish()?;
    let rows = projections::directory::Reader::new(state.read_db().clone())
        .all()
        .await?;
    let items: Vec<WorkItem> =
        projections::worklist::of(&rows, Utc::now().date_naive(), state.stale_after_days)
            .into_iter()
            .filter(|i| reason.as_deref().is_none_or(|r| i.need == r))
            .filter(|i| {
                source_kind
                    .as_deref()
                    .is_none_or(|k| i.source_kinds.iter().any(|s| s == k))
            })
            .collect();
    let total_items = i64::try_from(items.len()).unwrap_or(i64::MAX);
    let skip = usize::try_from((page - 1) * per_page).unwrap_or(usize::MAX);
    let items = items
        .into_iter()
        .skip(skip)
        .take(usize::try_from(per_page).unwrap_or(usize::MAX))
        .collect();
    Ok(Json(Worklist {
        page,
        per_page,
        total_items,
        items,
    })
    .into_response())
}
