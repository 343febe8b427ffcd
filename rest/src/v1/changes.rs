//! `GET /api/v1/changes?after=POSITION&limit=N`: directory changes across
//! every country in log order, so a consumer can keep a copy in sync: start
//! with `after=0`, then pass the answer's `next` as `after`.

use axum::extract::State;
use axum::Json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use projections::views::HistoryItem;

use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::Shared;

/// Entries per answer unless `limit` says otherwise.
pub const DEFAULT_LIMIT: i64 = 100;
/// The largest `limit`.
pub const MAX_LIMIT: i64 = 1000;

/// The parameters of `GET /api/v1/changes`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ChangesQuery {
    /// Log position to start after (default 0); pass the last answer's
    /// `next`.
    #[param(minimum = 0, maximum = 9223372036854775807i64, default = 0)]
    pub after: Option<i64>,
    /// At most this many entries, 1–1000 (default 100).
    #[param(minimum = 1, maximum = 1000, default = 100)]
    pub limit: Option<i64>,
}

impl QueryParams for ChangesQuery {}

/// `{items, next}`: up to `limit` changes after log position `after`; `next`
/// is the position to pass as `after` for the following ones (unchanged when
/// there is nothing new).
///
/// # Errors
/// 400 for a bad or unknown parameter; 503 when the read side is unavailable.
#[utoipa::path(get, path = "/api/v1/changes", tag = "directory", security(("api_key" = [])),
    params(ChangesQuery),
    responses(
        (status = 200, description = "Changes in log order", body = crate::v1::changes::Changes),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
    ))]
pub async fn changes(
    State(state): State<Shared>,
    Query(query): Query<ChangesQuery>,
) -> Result<Json<Changes>, ApiError> {
    let after = query.after.unwrap_or(0);
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
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
web::schemars_schema!(Changes, "Changes");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameters_state_the_bounds_the_constants_name() {
        let params = web::params::schemas::<ChangesQuery>();
        assert_eq!(params["limit"]["maximum"], MAX_LIMIT);
        assert_eq!(params["limit"]["default"], DEFAULT_LIMIT);
        assert_eq!(params["after"]["minimum"], 0);
        assert_eq!(params["after"]["maximum"], i64::MAX);
    }
}
