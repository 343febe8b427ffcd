//! `GET /api/v1/ca/{country_code}/history`: the events of a record, oldest
//! first, a page at a time (`after`, `limit`), for auditors. Stewards appear
//! by id and name, never by e-mail.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use utoipa::IntoParams;

use projections::history::DEFAULT_PAGE_LIMIT;
use projections::views::History;

use super::CountryPath;
use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::Shared;
use web::write::missing;

/// The parameters of `GET /api/v1/ca/{country_code}/history`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Entries after this sequence (the previous page's `next`; default 0).
    #[param(minimum = 0, maximum = 9223372036854775807i64, default = 0)]
    pub after: Option<i64>,
    /// Entries per page, 1–1000 (default 100).
    #[param(minimum = 1, maximum = 1000, default = 100)]
    pub limit: Option<i64>,
}

impl QueryParams for HistoryQuery {}

/// `{country_code, items, next, has_more}` for a registered country: the
/// events after sequence `after` (default 0), at most `limit` (default 100,
/// at most 1000).
///
/// # Errors
/// 400 malformed code or parameter, 404 unknown country, 503 read side
/// unavailable.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}/history", tag = "directory", security(("api_key" = [])),
    params(CountryPath, HistoryQuery),
    responses(
        (status = 200, description = "A page of the record's events, oldest first; `has_more` says whether another follows (ask with `after=next`)", body = crate::schema::History),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
        (status = 404, description = "No record for this well-formed code", body = web::error::ErrorBody),
    ))]
pub async fn history(
    State(state): State<Shared>,
    CountryPath(country): CountryPath,
    Query(query): Query<HistoryQuery>,
) -> Result<Json<History>, ApiError> {
    let after = query.after.unwrap_or(0);
    let limit = query.limit.unwrap_or(DEFAULT_PAGE_LIMIT);
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

#[cfg(test)]
mod tests {
    use super::*;
    use projections::history::MAX_PAGE_LIMIT;

    #[test]
    fn the_parameters_state_the_bounds_the_constants_name() {
        let params = web::params::schemas::<HistoryQuery>();
        assert_eq!(params["limit"]["maximum"], MAX_PAGE_LIMIT);
        assert_eq!(params["limit"]["default"], DEFAULT_PAGE_LIMIT);
        assert_eq!(params["after"]["maximum"], i64::MAX);
    }
}
