//! `GET /api/v1/changes?after=POSITION&limit=N`: directory changes across
//! every country in log order, so a consumer can keep a copy in sync: start
//! with `after=0`, then pass the answer's `next` as `after`.

use axum::extract::State;
use axum::Json;
use schemars::JsonSchema;
use serde::Serialize;

use projections::views::HistoryItem;

use crate::rest::http::error::ApiError;
use crate::rest::http::params::Params;
use crate::rest::http::state::Shared;

/// Entries per answer unless `limit` says otherwise.
pub const DEFAULT_LIMIT: i64 = 100;
/// The largest `limit`.
pub const MAX_LIMIT: i64 = 1000;

/// `{items, next}`: up to `limit` changes after log position `after`; `next`
/// is the position to pass as `after` for the following ones (unchanged when
/// there is nothing new).
///
/// # Errors
/// 400 for a bad or unknown parameter; 503 when the read side is unavailable.
#[utoipa::path(get, path = "/api/v1/changes", tag = "directory", security(("api_key" = [])),
    params(
        ("after" = Option<i64>, Query, description = "Log position to start after (default 0); pass the last answer's `next`"),
        ("limit" = Option<i64>, Query, description = "At most this many entries, 1–1000 (default 100)"),
    ),
    responses(
        (status = 200, description = "Changes in log order", body = crate::rest::v1::changes::Changes),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::http::error::ErrorBody),
    ))]
pub async fn changes(
    State(state): State<Shared>,
    params: Params,
) -> Result<Json<Changes>, ApiError> {
    let mut params = params;
    let after = params.integer(&["after"], 0, 0, i64::MAX)?;
    let limit = params.integer(&["limit"], DEFAULT_LIMIT, 1, MAX_LIMIT)?;
    params.finish()?;
    // One more than asked for says whether anything follows this page.
    let mut items = projections::history::after(state.read_db(), after, limit + 1).await?;
    let has_more = items.len() as i64 > limit;
    items.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next = items.last().map_or(after, |item| item.position);
    Ok(Json(Changes {
        after,
        limit,
        next,
        has_more,
        items,
    }))
}

/// One page of the changes feed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Changes {
    /// The position this page starts after.
    pub after: i64,
    /// The most entries a page holds.
    pub limit: i64,
    /// What to pass as `after` for the next page (the last entry's position,
    /// or `after` when the page is empty).
    pub next: i64,
    /// Whether more changes follow this page (as of this answer): `false`
    /// means the feed is read to its end; ask again later with `next`.
    pub has_more: bool,
    /// Directory changes in log order, each with its `country_code`.
    pub items: Vec<HistoryItem>,
}
crate::rest::http::schema::schemars_schema!(Changes, "Changes");
