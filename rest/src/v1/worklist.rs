//! `GET /api/v1/stewardship/worklist` (steward token): Parties ordered by
//! need, each with the reason and where to look (`projections::worklist`).
//! `basel worklist` prints the same list.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use projections::worklist::WorkItem;

use web::auth::Steward;
use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::Shared;

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
web::schemars_schema!(Worklist, "Worklist");

/// The needs a worklist item can have (`reason=`).
pub const NEEDS: [&str; 5] = [
    "no_contact",
    "focal_point_only",
    "defunct_or_unanswered",
    "never_verified",
    "stale",
];

/// Items per page unless `per_page` says otherwise.
pub const DEFAULT_PER_PAGE: i64 = 50;
/// The largest `per_page`.
pub const MAX_PER_PAGE: i64 = 200;

/// The parameters of `GET /api/v1/stewardship/worklist`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WorklistQuery {
    /// Only this need: no_contact, focal_point_only, defunct_or_unanswered,
    /// never_verified, stale.
    #[param(value_type = Option<Need>, inline)]
    pub reason: Option<String>,
    /// Only Parties with a contact from this kind of source
    /// (secretariat_factsheet, government_current, government_dated,
    /// other_official, unknown).
    pub source_kind: Option<String>,
    /// Page, from 1.
    #[param(minimum = 1, maximum = 1000000, default = 1)]
    pub page: Option<i64>,
    /// Items per page, 1 to 200 (default 50); alias perPage.
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub per_page: Option<i64>,
}

impl QueryParams for WorklistQuery {
    const ALIASES: &'static [(&'static str, &'static str)] = &[("perPage", "per_page")];
}

/// The schema of `reason`: one of [`NEEDS`].
pub struct Need;

impl utoipa::PartialSchema for Need {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(NEEDS))
            .into()
    }
}

impl utoipa::ToSchema for Need {}

/// The steward worklist.
///
/// # Errors
/// 401/403 (token), 400 (a bad or unknown parameter), 503.
#[utoipa::path(get, path = "/api/v1/stewardship/worklist", tag = "stewards", security(("steward_token" = [])),
    params(WorklistQuery),
    responses(
        (status = 200, description = "Parties ordered by need: no contact, focal point only, defunct or unanswered contact, never verified, stale; oldest first within a need; each with its own leads", body = crate::v1::worklist::Worklist),
        (status = 400, description = "A bad or unknown parameter", body = web::error::ErrorBody),
    ))]
pub async fn worklist(
    State(state): State<Shared>,
    _steward: Steward,
    Query(query): Query<WorklistQuery>,
) -> Result<Response, ApiError> {
    let WorklistQuery {
        reason,
        source_kind,
        page,
        per_page,
    } = query;
    let page = page.unwrap_or(1);
    let per_page = per_page.unwrap_or(DEFAULT_PER_PAGE);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::ca::list::MAX_PAGE;

    #[test]
    fn the_parameters_state_the_bounds_the_constants_name() {
        let params = web::params::schemas::<WorklistQuery>();
        assert_eq!(params["page"]["maximum"], MAX_PAGE);
        assert_eq!(params["per_page"]["maximum"], MAX_PER_PAGE);
        assert_eq!(params["per_page"]["default"], DEFAULT_PER_PAGE);
        assert_eq!(params["reason"]["enum"], serde_json::json!(NEEDS));
    }
}
