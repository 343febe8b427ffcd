//! Resources: `basel://ca/{country_code}` (one record, the same JSON as the
//! `get_competent_authority` tool) and `basel://codes/{code}` (one code, the
//! same JSON as `lookup_basel_code`), both templates, and `basel://coverage`
//! (the counts of `GET /api/v1/coverage`). `resources/list`
//! names every concrete record and code, 100 per page.

use chrono::Utc;
use projections::directory::Reader;
use projections::views::Record;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};
use rmcp::ErrorData;

use crate::cursor;
use crate::state::{bounded, McpState};
use crate::tools::internal;

const JSON: &str = "application/json";
const CA_PREFIX: &str = "basel://ca/";
const CODE_PREFIX: &str = "basel://codes/";
/// The directory's coverage: the counts of `GET /api/v1/coverage`.
const COVERAGE: &str = "basel://coverage";
/// Resources per page of `resources/list`.
const PAGE: usize = 100;

/// The URIs and URI templates offered, for the server's instructions.
pub(crate) fn uris() -> Vec<String> {
    let mut uris: Vec<String> = templates()
        .resource_templates
        .into_iter()
        .map(|t| t.uri_template)
        .collect();
    uris.push(COVERAGE.to_owned());
    uris
}

/// The two URI templates.
pub(crate) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new("basel://ca/{country_code}", "competent-authority")
            .with_title("Competent-authority record")
            .with_description(
                "One country's Basel competent-authority record (ISO 3166-1 alpha-2 code), \
                 with provenance and staleness, as the REST API returns it.",
            )
            .with_mime_type(JSON),
        ResourceTemplate::new("basel://codes/{code}", "basel-code")
            .with_title("Basel code")
            .with_description(
                "One Y, A, B or H code: official title, annex, and status (in force, or \
                 deleted and replaced by what).",
            )
            .with_mime_type(JSON),
    ])
}

/// Every record, then every code, one page after `cursor`.
///
/// # Errors
/// Invalid params for a bad cursor; internal error when the directory
/// cannot be read.
pub(crate) async fn list(
    state: &McpState,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, ErrorData> {
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(c, "resources", "all")?
            .parse::<usize>()
            .map_err(|_| ErrorData::invalid_params("invalid cursor", None))?,
    };
    let rows = state
        .cache
        .directory(&state.read_db)
        .await
        .map_err(|e| internal("listing the directory", &e))?;
    let mut codes = state.classifier.codes();
    codes.sort_by(|a, b| a.code.cmp(&b.code));
    let all = rows
        .iter()
        .map(|r| {
            Resource::new(
                format!("{CA_PREFIX}{}", r.country_code),
                format!("ca-{}", r.country_code),
            )
            .with_title(format!("{} — competent authority", r.country_name))
            .with_mime_type(JSON)
        })
        .chain(codes.iter().map(|c| {
            Resource::new(
                format!("{CODE_PREFIX}{}", c.code),
                format!("code-{}", c.code),
            )
            .with_title(format!("{} — {}", c.code, c.name))
            .with_mime_type(JSON)
        }))
        .chain(std::iter::once(
            Resource::new(COVERAGE, "coverage")
                .with_title("Directory coverage: Parties with a competent authority, focal point only, no contact, verified, stale, checked in the last 365 days")
                .with_mime_type(JSON),
        ));
    let page: Vec<Resource> = all.skip(start).take(PAGE + 1).collect();
    let more = page.len() > PAGE;
    let mut result = ListResourcesResult::with_all_items(page.into_iter().take(PAGE).collect());
    if more {
        result.next_cursor = Some(cursor::encode(
            "resources",
            "all",
            &(start + PAGE).to_string(),
        ));
    }
    Ok(result)
}

/// Reads one resource.
///
/// # Errors
/// Resource not found (-32002, `data.uri` naming it) for a URI that names
/// nothing here; internal
/// error when the directory cannot be read.
pub(crate) async fn read(state: &McpState, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = || {
        ErrorData::resource_not_found(
            format!(
                "no resource {}: use basel://ca/{{country_code}}, basel://codes/{{code}} or basel://coverage",
                bounded(uri)
            ),
            // The specification's resource-not-found error names the URI.
            Some(serde_json::json!({ "uri": bounded(uri) })),
        )
    };
    let json = if uri == COVERAGE {
        let coverage = projections::coverage::now(
            &state.read_db,
            Utc::now().date_naive(),
            state.stale_after_days,
        )
        .await
        .map_err(|e| internal("reading the directory's coverage", &e))?;
        serde_json::to_string(&coverage)
    } else if let Some(code) = uri.strip_prefix(CA_PREFIX) {
        let code = code.trim().to_ascii_uppercase();
        if code.len() != 2 || !code.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(not_found());
        }
        let row = Reader::new(state.read_db.clone())
            .get(&code)
            .await
            .map_err(|e| internal("reading a directory record", &e))?
            .ok_or_else(not_found)?;
        serde_json::to_string(&Record::new(
            row,
            Utc::now().date_naive(),
            state.stale_after_days,
        ))
    } else if let Some(code) = uri.strip_prefix(CODE_PREFIX) {
        let info = state.classifier.lookup(code.trim()).ok_or_else(not_found)?;
        serde_json::to_string(&info)
    } else {
        return Err(not_found());
    }
    .map_err(|e| internal("serialising a resource", &e))?;
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        json, uri,
    )
    .with_mime_type(JSON)]))
}
