//! The directory tools: one record, a page of records, a search, a history.
//! Every answer is built from the same read tables, views and readers as
//! REST (`projections::listing` for the page, `projections::search` for the
//! search).

use chrono::Utc;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use projections::directory::AuthorityRow;
use projections::history::{DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT};
use projections::listing::{self, Filter, Start};
use projections::search::MAX_QUERY_CHARS;
use projections::views::{History, ListItem, Record};

use super::args::{Count, Text};
use super::{country, internal, ToolError, MAX_COUNTRY_CHARS};
use crate::cursor;
use crate::handler::Basel;

/// Records per page of `list_competent_authorities` unless asked otherwise.
const DEFAULT_PAGE_SIZE: u64 = 50;
/// The largest page `list_competent_authorities` serves.
const MAX_PAGE_SIZE: u64 = 200;
/// Search answers at most this many records.
const MAX_SEARCH_RESULTS: usize = 50;

/// A country named by its ISO code or any of its names.
type Country = Text<MAX_COUNTRY_CHARS>;

/// The arguments of `get_competent_authority`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetAuthority {
    /// ISO 3166-1 alpha-2 code (DE) or country name (Germany).
    country_code: Country,
    /// An area of the country (a Land, a region): `competent` lists its authorities.
    area: Option<Text<MAX_COUNTRY_CHARS>>,
    /// A movement: `competent` lists the authorities that handle it.
    movement: Option<Movement>,
}

/// A kind of transboundary movement.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum Movement {
    Export,
    Import,
    Transit,
}

impl Movement {
    fn as_str(self) -> &'static str {
        match self {
            Self::Export => "export",
            Self::Import => "import",
            Self::Transit => "transit",
        }
    }
}

/// The arguments of `get_authority_history`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HistoryPage {
    /// ISO 3166-1 alpha-2 code (DE) or country name (Germany).
    country_code: Country,
    /// Entries after this sequence: the previous page's next (default 0).
    after: Option<Count<0, { i64::MAX as u64 }>>,
    /// Entries per page (default 100).
    limit: Option<Count<1, { MAX_PAGE_LIMIT as u64 }>>,
}

/// The arguments of `list_competent_authorities`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListAuthorities {
    /// The nextCursor of the previous page, passed back unchanged.
    cursor: Option<String>,
    /// Records per page (default 50; the directory has about 190).
    page_size: Option<Count<1, MAX_PAGE_SIZE>>,
    /// Only verified (true) or only unverified (false) records.
    verified: Option<bool>,
    /// Only records with (true) or without (false) any contact detail (authority name,
    /// e-mail, phone or address).
    has_contact: Option<bool>,
}

/// The arguments of `search_competent_authorities`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchAuthorities {
    /// Part of a country name, an ISO code, or part of an authority's name.
    query: Text<MAX_QUERY_CHARS>,
}

/// One page of `list_competent_authorities`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListPage {
    /// Records on this page, by country code.
    items: Vec<ListItem>,
    /// Records matching the filter, over all pages.
    total: usize,
    /// Opaque: pass it back as `cursor` for the next page; absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

/// The answer of `search_competent_authorities`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SearchResult {
    /// The query as given.
    query: String,
    /// Matching records, best first.
    results: Vec<ListItem>,
}

#[tool_router(router = directory_tools, vis = "pub(crate)")]
impl Basel {
    /// One Party's record: competent authorities and focal point, each with scope, sources,
    /// age and whether a steward verified it; the Party (accession, Annex VII, Ban
    /// Amendment). By ISO code or name; a non-Party gets not_a_party. With area and/or
    /// movement, `competent` names the authorities for them. Most contacts are historic
    /// (2002-2009) and unverified: tell the user when a record is unverified or stale
    /// (`stale`, each contact's `age`).
    #[tool(title = "Get a competent authority")]
    async fn get_competent_authority(
        &self,
        Parameters(input): Parameters<GetAuthority>,
    ) -> Result<Json<Record>, ToolError> {
        let row = self.country(&input.country_code).await?;
        let area = input.area.as_ref().map(Text::as_str);
        let movement = input.movement.map(Movement::as_str);
        let competent = if area.is_some() || movement.is_some() {
            let found = projections::scope::competent(&row.state, area, movement)
                .map_err(|e| ToolError::invalid(e.to_string()))?;
            Some(found)
        } else {
            None
        };
        let state = self.state();
        let mut record = Record::new(row, Utc::now().date_naive(), state.stale_after_days);
        record.competent = competent;
        Ok(Json(record))
    }

    /// All countries in the directory, by code, a page at a time: pass nextCursor back as
    /// cursor for the next page. Filters verified and has_contact, as on REST GET /api/v1/ca.
    /// For one country use search_competent_authorities or get_competent_authority.
    #[tool(title = "List competent authorities")]
    async fn list_competent_authorities(
        &self,
        Parameters(input): Parameters<ListAuthorities>,
    ) -> Result<Json<ListPage>, ToolError> {
        let filter = Filter {
            verified: input.verified,
            has_contact: input.has_contact,
            q: None,
        };
        let tag = cursor_tag(&filter);
        let after = match input.cursor.as_deref() {
            None => None,
            Some(given) => Some(
                cursor::decode(given, "ca", &tag)
                    .map_err(|_| ToolError::refused("invalid_cursor", cursor::INVALID))?,
            ),
        };
        let rows = self.directory("listing the directory").await?;
        let size = input.page_size.map_or(DEFAULT_PAGE_SIZE, Count::get);
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let start = after.as_deref().map_or(Start::Skip(0), Start::After);
        let page = listing::list(&rows, &filter, start, size);
        let next_cursor = page
            .items
            .last()
            .filter(|_| page.more)
            .map(|last| cursor::encode("ca", &tag, &last.country_code));
        Ok(Json(ListPage {
            items: page.items,
            total: page.total,
            next_cursor,
        }))
    }

    /// Find directory records by ISO code, country name or other name (Turkey, Czech
    /// Republic, Ivory Coast; any case, accents optional) or part of one, or part of an
    /// authority's name. Best matches first, as REST ?q=.
    #[tool(title = "Search competent authorities")]
    async fn search_competent_authorities(
        &self,
        Parameters(input): Parameters<SearchAuthorities>,
    ) -> Result<Json<SearchResult>, ToolError> {
        let rows = self.directory("searching the directory").await?;
        let query = input.query.into_string();
        let results = projections::search::search(&rows, &query)
            .into_iter()
            .take(MAX_SEARCH_RESULTS)
            .map(ListItem::from)
            .collect();
        Ok(Json(SearchResult { query, results }))
    }

    /// The audit trail of one country's record, oldest first, a page at a time: registration,
    /// contact changes (old and new values) and every verification, with who and when.
    #[tool(title = "Get a record's history")]
    async fn get_authority_history(
        &self,
        Parameters(input): Parameters<HistoryPage>,
    ) -> Result<Json<History>, ToolError> {
        let row = self.country(&input.country_code).await?;
        let after = input
            .after
            .map_or(0, |a| i64::try_from(a.get()).unwrap_or(i64::MAX));
        let limit = input.limit.map_or(DEFAULT_PAGE_LIMIT, |l| {
            i64::try_from(l.get()).unwrap_or(MAX_PAGE_LIMIT)
        });
        let (items, has_more) =
            projections::history::page(&self.state().read_db, &row.country_code, after, limit)
                .await
                .map_err(|e| internal("reading a record's history", &e))?;
        Ok(Json(History::page(
            &row.country_code,
            after,
            items,
            has_more,
        )))
    }
}

impl Basel {
    /// The directory, as the cache holds it.
    async fn directory(&self, doing: &str) -> Result<std::sync::Arc<Vec<AuthorityRow>>, ToolError> {
        let state = self.state();
        Ok(state
            .cache
            .directory(&state.read_db)
            .await
            .map_err(|e| internal(doing, &e))?)
    }

    /// The record of the country named by `input` (a code or a name).
    pub(crate) async fn country(&self, input: &Country) -> Result<AuthorityRow, ToolError> {
        let rows = self.directory("reading the directory").await?;
        country::by_name(&rows, input.as_str())
    }
}

/// The filter as a cursor records it: a cursor is valid only under the
/// filter it was issued for.
fn cursor_tag(filter: &Filter) -> String {
    let verified = match filter.verified {
        None => "all",
        Some(true) => "verified",
        Some(false) => "unverified",
    };
    let contact = match filter.has_contact {
        None => "",
        Some(true) => "+contact",
        Some(false) => "-contact",
    };
    format!("{verified}{contact}")
}
