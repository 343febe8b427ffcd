//! The directory tools: one record, a page of records, a search, a history.
//! Every answer is built from the same read tables and views as REST.

use chrono::Utc;
use projections::views::{History, ListItem, Record};
use rmcp::ErrorData;

use super::{args::Args, country, done, internal, Outcome, ToolError};
use super::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_QUERY_CHARS};
use crate::schemas::{ListPage, SearchResult};
use crate::{cursor, McpState};

/// The longest country argument accepted, in characters.
const MAX_COUNTRY_CHARS: usize = 100;
/// Search answers at most this many records.
const MAX_SEARCH_RESULTS: usize = 50;

/// `get_competent_authority`: the record as `GET /api/v1/ca/{cc}` returns it.
pub(crate) async fn get(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let scope = args
        .only(&["country_code", "area", "movement"])
        .and_then(|()| Ok((args.string("area")?, args.string("movement")?)));
    let (area, movement) = match scope {
        Ok(scope) => scope,
        Err(refusal) => return Ok(refusal.into()),
    };
    let row = match find(state, &args).await? {
        Ok(row) => row,
        Err(refusal) => return Ok(refusal.into()),
    };
    let competent = if area.is_some() || movement.is_some() {
        match projections::scope::competent(&row.state, area.as_deref(), movement.as_deref()) {
            Ok(found) => Some(found),
            Err(e) => return Ok(ToolError::invalid(e.to_string()).into()),
        }
    } else {
        None
    };
    let mut record = Record::new(row, Utc::now().date_naive(), state.stale_after_days);
    record.competent = competent;
    done(record)
}

/// The record named by the `country_code` argument.
async fn find(
    state: &McpState,
    args: &Args,
) -> Result<Result<projections::directory::AuthorityRow, ToolError>, ErrorData> {
    let input = match args.required("country_code", MAX_COUNTRY_CHARS) {
        Ok(input) => input,
        Err(refusal) => return Ok(Err(refusal)),
    };
    country::resolve(state, &input).await
}

/// `list_competent_authorities`: one page, sorted by code.
pub(crate) async fn list(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let parsed = args
        .only(&["cursor", "page_size", "verified", "has_contact"])
        .and_then(|()| {
            Ok((
                args.string("cursor")?,
                args.integer("page_size", 1, MAX_PAGE_SIZE)?,
                args.boolean("verified")?,
                args.boolean("has_contact")?,
            ))
        });
    let (cursor, page_size, verified, has_contact) = match parsed {
        Ok(parsed) => parsed,
        Err(refusal) => return Ok(refusal.into()),
    };
    let filter = format!(
        "{}{}",
        match verified {
            None => "all",
            Some(true) => "verified",
            Some(false) => "unverified",
        },
        match has_contact {
            None => "",
            Some(true) => "+contact",
            Some(false) => "-contact",
        }
    );
    let after = cursor
        .map(|c| cursor::decode(&c, "ca", &filter))
        .transpose()?;
    let rows = state
        .cache
        .directory(&state.read_db)
        .await
        .map_err(|e| internal("listing the directory", &e))?;
    let matching: Vec<_> = rows
        .iter()
        .filter(|r| verified.is_none_or(|v| r.verified == v))
        .filter(|r| has_contact.is_none_or(|c| has_contact_details(r) == c))
        .collect();
    let size = usize::try_from(page_size.unwrap_or(DEFAULT_PAGE_SIZE)).unwrap_or(usize::MAX);
    let start = after.map_or(0, |code| {
        matching.partition_point(|r| r.country_code.as_str() <= code.as_str())
    });
    let page: Vec<ListItem> = matching
        .iter()
        .skip(start)
        .take(size)
        .map(|r| ListItem::from(*r))
        .collect();
    let next_cursor = matching
        .get(start + size - 1)
        .filter(|_| start + size < matching.len())
        .map(|last| cursor::encode("ca", &filter, &last.country_code));
    done(ListPage {
        items: page,
        total: matching.len(),
        next_cursor,
    })
}

/// Whether a record holds any contact detail at all.
fn has_contact_details(row: &projections::directory::AuthorityRow) -> bool {
    [&row.ca_name, &row.email, &row.phone, &row.address]
        .iter()
        .any(|field| field.as_deref().is_some_and(|v| !v.trim().is_empty()))
}

/// `search_competent_authorities`: by code, country name or authority name.
pub(crate) async fn search(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let query = match args
        .only(&["query"])
        .and_then(|()| args.required("query", MAX_QUERY_CHARS))
    {
        Ok(query) => query,
        Err(refusal) => return Ok(refusal.into()),
    };
    let rows = state
        .cache
        .directory(&state.read_db)
        .await
        .map_err(|e| internal("searching the directory", &e))?;
    let results: Vec<ListItem> = projections::search::search(&rows, &query)
        .into_iter()
        .take(MAX_SEARCH_RESULTS)
        .map(ListItem::from)
        .collect();
    done(SearchResult { query, results })
}

/// `get_authority_history`: the audit trail as REST shows it.
pub(crate) async fn history(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    if let Err(refusal) = args.only(&["country_code"]) {
        return Ok(refusal.into());
    }
    let row = match find(state, &args).await? {
        Ok(row) => row,
        Err(refusal) => return Ok(refusal.into()),
    };
    let items = projections::history::items(&state.read_db, &row.country_code)
        .await
        .map_err(|e| internal("reading a record's history", &e))?;
    done(History {
        country_code: row.country_code,
        items,
    })
}
