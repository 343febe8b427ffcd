//! `GET /steward/worklist`: the Parties that need a steward, most urgent
//! first (`projections::worklist`, the list `GET /api/v1/stewardship/worklist`
//! returns), with filters as a plain GET form: need (`reason`), source kind,
//! age (what is known is older than N days, or of unknown age) and region
//! (the Party registry's groups: EU, OECD, Annex VII, others), and pages of
//! [`PER_PAGE`].

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{Duration, NaiveDate, Utc};
use maud::{html, Markup};

use projections::worklist::WorkItem;

use super::html::{page, respond, select, Chrome};
use super::session::Signed;
use crate::state::Handle;

/// Items per page.
pub const PER_PAGE: usize = 25;

/// The filters, as the form sends them (an empty value: no filter).
#[derive(Debug, Default, serde::Deserialize)]
pub struct Filters {
    reason: Option<String>,
    source_kind: Option<String>,
    older_than: Option<String>,
    region: Option<String>,
    page: Option<String>,
}

const REASONS: [(&str, &str); 6] = [
    ("", "Any need"),
    ("no_contact", "No contact known"),
    ("focal_point_only", "Focal point only"),
    ("defunct_or_unanswered", "Defunct or unanswered"),
    ("never_verified", "Never verified"),
    ("stale", "Stale"),
];

const KINDS: [(&str, &str); 6] = [
    ("", "Any source"),
    ("secretariat_factsheet", "Secretariat factsheet"),
    ("government_current", "Government, current"),
    ("government_dated", "Government, dated"),
    ("other_official", "Other official"),
    ("unknown", "Unknown"),
];

const AGES: [(&str, &str); 5] = [
    ("", "Any age"),
    ("365", "Older than 1 year"),
    ("730", "Older than 2 years"),
    ("1825", "Older than 5 years"),
    ("unknown", "Unknown age"),
];

const REGIONS: [(&str, &str); 5] = [
    ("", "Any region"),
    ("eu", "European Union"),
    ("oecd", "OECD"),
    ("annex_vii", "Annex VII"),
    ("other", "Others"),
];

fn chosen<'a>(value: Option<&'a str>, options: &[(&str, &str)]) -> &'a str {
    value
        .filter(|v| options.iter().any(|(o, _)| o == v))
        .unwrap_or("")
}

fn keeps(item: &WorkItem, f: &Chosen<'_>, today: NaiveDate) -> bool {
    let groups = domain::parties::registry().groups();
    let code = item.country_code.as_str();
    let as_of = item
        .as_of
        .as_deref()
        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
    (f.reason.is_empty() || item.need == f.reason)
        && (f.kind.is_empty() || item.source_kinds.iter().any(|k| k == f.kind))
        && match f.age {
            "" => true,
            "unknown" => as_of.is_none(),
            days => days
                .parse::<i64>()
                .is_ok_and(|days| as_of.is_none_or(|d| d < today - Duration::days(days))),
        }
        && match f.region {
            "eu" => groups.eu(code),
            "oecd" => groups.oecd(code),
            "annex_vii" => groups.annex_vii(code),
            "other" => !groups.eu(code) && !groups.oecd(code) && !groups.annex_vii(code),
            _ => true,
        }
}

struct Chosen<'a> {
    reason: &'a str,
    kind: &'a str,
    age: &'a str,
    region: &'a str,
}

/// The worklist page.
pub async fn render(
    console: &crate::state::Console,
    signed: &Signed,
    filters: &Filters,
) -> Response {
    let chosen = Chosen {
        reason: chosen(filters.reason.as_deref(), &REASONS),
        kind: chosen(filters.source_kind.as_deref(), &KINDS),
        age: chosen(filters.older_than.as_deref(), &AGES),
        region: chosen(filters.region.as_deref(), &REGIONS),
    };
    let page_no = filters
        .page
        .as_deref()
        .and_then(|p| p.parse::<usize>().ok())
        .filter(|p| *p >= 1)
        .unwrap_or(1);
    let rows = match projections::directory::Reader::new(console.app.read_db().clone())
        .all()
        .await
    {
        Ok(rows) => rows,
        Err(error) => {
            tracing::warn!(error = %error, "directory unreadable");
            return super::html::message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The directory is unavailable",
                "The worklist cannot be read right now. Try again in a moment.",
                ("/steward/worklist", "Reload"),
            );
        }
    };
    let today = Utc::now().date_naive();
    let by_code: std::collections::HashMap<&str, &projections::directory::AuthorityRow> =
        rows.iter().map(|r| (r.country_code.as_str(), r)).collect();
    let items: Vec<WorkItem> =
        projections::worklist::of(&rows, today, console.app.stale_after_days)
            .into_iter()
            .filter(|i| keeps(i, &chosen, today))
            .collect();
    let total = items.len();
    let pages = total.div_ceil(PER_PAGE).max(1);
    let page_no = page_no.min(pages);
    let shown: Vec<&WorkItem> = items
        .iter()
        .skip((page_no - 1) * PER_PAGE)
        .take(PER_PAGE)
        .collect();
    let csrf = match console.form_token(signed).await {
        Ok(token) => token,
        Err(response) => return response,
    };
    let link = |p: usize| {
        format!(
            "/steward/worklist?reason={}&source_kind={}&older_than={}&region={}&page={p}",
            chosen.reason, chosen.kind, chosen.age, chosen.region
        )
    };
    let body = html! {
        h1 { "Worklist" }
        form method="get" action="/steward/worklist" class="filters" aria-label="Filters" {
            div { (select("reason", "Need", &REASONS, chosen.reason, None)) }
            div { (select("source_kind", "Source kind", &KINDS, chosen.kind, None)) }
            div { (select("older_than", "Age", &AGES, chosen.age, None)) }
            div { (select("region", "Region", &REGIONS, chosen.region, None)) }
            div { button type="submit" { "Filter" } }
        }
        p role="status" { (total) " Parties need a steward. Page " (page_no) " of " (pages) "." }
        (items_table(&shown, &by_code, today))
        nav aria-label="Pages" {
            @if page_no > 1 { a href=(link(page_no - 1)) rel="prev" { "Previous page" } " " }
            @if page_no < pages { a href=(link(page_no + 1)) rel="next" { "Next page" } }
        }
    };
    let chrome = Chrome {
        name: &signed.steward.name,
        csrf: &csrf,
    };
    respond(StatusCode::OK, page("Worklist", Some(&chrome), &body))
}

/// The table of the page's items, with each record's retry date and who
/// is on it.
fn items_table(
    shown: &[&WorkItem],
    by_code: &std::collections::HashMap<&str, &projections::directory::AuthorityRow>,
    today: NaiveDate,
) -> Markup {
    html! {
    table {
        caption { "Parties that need a steward, most urgent first" }
        thead { tr { th scope="col" { "Party" } th scope="col" { "Need" } th scope="col" { "Known as of" } th scope="col" { "Last checked" } th scope="col" { "Retry due" } th scope="col" { "On it" } th scope="col" { "Sources" } } }
        tbody {
            @for item in shown {
                tr {
                    td { a href=(format!("/steward/party/{}", item.country_code)) { (item.country_name) " (" (item.country_code) ")" } }
                    td { (item.reason) }
                    td { (item.as_of.as_deref().unwrap_or("unknown")) }
                    td { (item.last_checked.as_deref().unwrap_or("never")) }
                    @let row = by_code.get(item.country_code.as_str());
                    td { @match row.and_then(|r| retry_due(r)) {
                        Some(due) if due <= today => strong { (due) " (due)" },
                        Some(due) => (due),
                        None => "",
                    } }
                    td { (row.and_then(|r| r.state.assigned_to.as_ref()).map_or("", |s| s.as_str())) }
                    td { (item.source_kinds.join(", ")) }
                }
            }
        }
    }
    }
}

/// Days after a check that reached nobody before it is due again.
pub const RETRY_AFTER_DAYS: i64 = 14;

/// When a contact whose last check reached nobody (`no_answer`) is due to
/// be tried again: [`RETRY_AFTER_DAYS`] after that attempt.
pub fn retry_due(row: &projections::directory::AuthorityRow) -> Option<NaiveDate> {
    row.state
        .contacts
        .iter()
        .filter(|c| c.provenance.outcome == Some(domain::authority::CheckOutcome::NoAnswer))
        .filter_map(|c| {
            c.provenance
                .last_attempt
                .or(c.provenance.last_check.as_ref().map(|k| k.checked_on))
        })
        .max()
        .map(|d| d + Duration::days(RETRY_AFTER_DAYS))
}

/// `GET /steward/worklist`.
pub async fn show(
    State(console): State<Handle>,
    signed: Signed,
    Query(filters): Query<Filters>,
) -> Response {
    render(&console, &signed, &filters).await
}
