//! `GET /api/v1/ca/{country_code}/history`: the events of a record, oldest
//! first, a page at a time (`after`, `limit`), for auditors. Stewards appear
//! by id and name, never by e-mail.

use axum::extract::State;
use axum::Json;

use projections::history::{DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT};
use projections::views::History;

use super::CountryPath;
use crate::rest::http::error::ApiError;
use crate::rest::http::params::Params;
use crate::rest::http::state::Shared;
use crate::rest::v1::write::missing;

/// `{country_code, items, next, has_more}` for a registered country: the
/// events after sequence `after` (default 0), at most `limit` (default 100,
/// at most 1000).
///
/// # Errors
/// 400 malformed code or parameter, 404 unknown country, 503 read side
/// unavailable.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}/history", tag = "directory", security(("api_key" = [])),
    params(
        CountryPath,
        ("after" = Option<i64>, Query, description = "Entries after this sequence (the previous page's `next`; default 0)"),
        ("limit" = Option<i64>, Query, description = "Entries per page, 1–1000 (default 100)")
    ),
    responses(
        (status = 200, description = "A page of the record's events, oldest first; `has_more` says whether another follows (ask with `after=next`)", body = crate::rest::http::schema::History),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::http::error::ErrorBody),
        (status = 404, description = "No record for this well-formed code", body = crate::rest::http::error::ErrorBody),
    ))]
pub async fn history(
    State(state): State<Shared>,
    CountryPath(country): CountryPath,
    mut params: Params,
) -> Result<Json<History>, ApiError> {
    let after = params.integer(&["after"], 0, 0, i64::MAX)?;
    let limit = params.integer(&["limit"], DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT)?;
    params.finish()?;
    let db = state.read_db();
    let (items, has_more) = projections::history::page(db, country.as_str(), after, limit).await?;
    if items.is_empty() && !projections::history::exists(db, country.as_str()).await? {
        return Err(missing(&country));
    }
    Ok(Json(History::page(
        country.as_str(),
        after,
        items,
        has_more,
    )))
}
