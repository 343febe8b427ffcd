//! `GET /api/v1/ca`: the directory, one page at a time, sorted by country
//! code. The default page (200 per page) holds every country.

use axum::extract::State;
use axum::Json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use projections::listing::{self, Filter, Listing, Start};
use projections::views::ListItem;

use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::Shared;

/// Items per page unless `perPage` says otherwise.
pub const DEFAULT_PER_PAGE: i64 = 200;
/// The largest `perPage`.
pub const MAX_PER_PAGE: i64 = 500;
/// The largest `page` accepted (far past any real directory).
pub const MAX_PAGE: i64 = 1_000_000;

/// One page of the directory.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Page {
    /// This page's number (1-based).
    pub page: i64,
    /// Items per page.
    #[serde(rename = "perPage")]
    pub per_page: i64,
    /// Items matching the filters, on every page.
    #[serde(rename = "totalItems")]
    pub total_items: i64,
    /// `ceil(totalItems / perPage)`.
    #[serde(rename = "totalPages")]
    pub total_pages: i64,
    /// This page's items (empty past the last page).
    pub items: Vec<ListItem>,
}
web::schemars_schema!(Page, "Page");

/// The parameters of `GET /api/v1/ca`, bounds stated once here: the
/// document states them and [`Query`] checks them.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Page, from 1 (default 1).
    #[param(minimum = 1, maximum = 1000000, default = 1)]
    pub page: Option<i64>,
    /// Items per page, 1–500 (default 200: every country on one page);
    /// alias per_page.
    #[serde(rename = "perPage")]
    #[param(minimum = 1, maximum = 500, default = 200)]
    pub per_page: Option<i64>,
    /// Only verified (true) or unverified (false) records.
    pub verified: Option<bool>,
    /// Only records with (true) or without (false) any contact detail
    /// (authority name, e-mail, phone or address).
    pub has_contact: Option<bool>,
    /// Search: a code, a country's name or other name (e.g. turkey, czech
    /// republic, viet nam; any case, accents optional), or part of one, or
    /// part of an authority's name. Best matches first: exact, then the
    /// start of a name, then a part of it, then the authority; the same
    /// search as the MCP tool search_competent_authorities.
    #[param(max_length = 200)]
    pub q: Option<String>,
}

impl QueryParams for ListQuery {
    const ALIASES: &'static [(&'static str, &'static str)] = &[("per_page", "perPage")];
}

/// Lists records: `page`, `perPage` (alias `per_page`), `verified`,
/// `has_contact`, `q`; filtered and cut by `projections::listing`, as the
/// MCP tool `list_competent_authorities` is.
///
/// # Errors
/// 400 for a bad or unknown parameter; 503 when the read side is unavailable.
#[utoipa::path(get, path = "/api/v1/ca", tag = "directory", security(("api_key" = [])),
    params(ListQuery),
    responses(
        (status = 200, description = "One page, sorted by country_code (with q: best match first)", body = crate::v1::ca::list::Page),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
    ))]
pub async fn list(
    State(state): State<Shared>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Page>, ApiError> {
    let page = query.page.unwrap_or(1);
    let per_page = query.per_page.unwrap_or(DEFAULT_PER_PAGE);
    let filter = Filter {
        verified: query.verified,
        has_contact: query.has_contact,
        q: query.q.filter(|q| !q.trim().is_empty()),
    };
    let rows = state.cache.directory(state.read_db()).await?;
    let skip = (page - 1).saturating_mul(per_page);
    let listing = listing::list(
        &rows,
        &filter,
        Start::Skip(usize::try_from(skip).unwrap_or(usize::MAX)),
        usize::try_from(per_page).unwrap_or(usize::MAX),
    );
    Ok(Json(numbered(listing, page, per_page)))
}

/// Page `page` of `per_page` (both at least 1) as REST numbers it.
fn numbered(listing: Listing, page: i64, per_page: i64) -> Page {
    let total_items = i64::try_from(listing.total).unwrap_or(i64::MAX);
    let per = per_page.max(1);
    Page {
        page,
        per_page,
        total_items,
        total_pages: (total_items + per - 1) / per,
        items: listing.items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(total: usize) -> Listing {
        Listing {
            items: Vec::new(),
            total,
            more: false,
        }
    }

    #[test]
    fn the_parameters_state_the_bounds_the_constants_name() {
        let params = web::params::schemas::<ListQuery>();
        assert_eq!(params["page"]["maximum"], MAX_PAGE);
        assert_eq!(params["page"]["minimum"], 1);
        assert_eq!(params["perPage"]["maximum"], MAX_PER_PAGE);
        assert_eq!(params["perPage"]["default"], DEFAULT_PER_PAGE);
        assert_eq!(
            params["q"]["maxLength"],
            projections::search::MAX_QUERY_CHARS
        );
    }

    #[test]
    fn pages_add_up() {
        let page = numbered(listing(189), 2, 50);
        assert_eq!((page.total_items, page.total_pages), (189, 4));
        assert_eq!(numbered(listing(200), 1, 200).total_pages, 1);
        assert_eq!(numbered(listing(0), 1, 200).total_pages, 0);
        assert_eq!(numbered(listing(3), MAX_PAGE, MAX_PER_PAGE).total_pages, 1);
    }
}
