//! The steward worklist: Parties ordered by what their record needs most.
//!
//! 1. `no_contact`: nothing is known;
//! 2. `focal_point_only`: only the focal point is known, no competent authority;
//! 3. `defunct_or_unanswered`: a contact's last check found it defunct or reached nobody;
//! 4. `never_verified`: no competent authority was ever confirmed by a check;
//! 5. `stale`: what is known is older than the bound.
//!
//! Within each need, the oldest first: a Party is as old as its newest
//! contact (its sources' dates and verified checks), and a Party of unknown
//! age comes before any dated one. Verified, fresh records are not listed.
//! Each item says where to look: the Party's own leads (the addresses of
//! its contacts' sources, newest first), then the Basel Secretariat's
//! country-contacts page, searched for the Party.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::{CheckOutcome, Role};

use crate::directory::AuthorityRow;

/// The Secretariat's page listing every Party's designated contacts.
pub const COUNTRY_CONTACTS: &str =
    "http://www.basel.int/Countries/CountryContacts/tabid/1342/Default.aspx";

/// One Party that needs a steward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct WorkItem {
    /// ISO alpha-2.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// `no_contact`, `focal_point_only`, `defunct_or_unanswered`, `never_verified` or `stale`.
    pub need: String,
    /// The need in words.
    pub reason: String,
    /// The primary authority's last check, if any.
    pub last_checked: Option<String>,
    /// The day what is known of the Party holds as of (its newest contact),
    /// `YYYY-MM-DD`; absent when unknown.
    pub as_of: Option<String>,
    /// The kinds of the sources its contacts rest on (`unknown` without one).
    pub source_kinds: Vec<String>,
    /// Where to look: the Party's own leads (its contacts' source
    /// addresses, newest first), then the Secretariat's country-contacts page.
    pub look_at: Vec<String>,
    /// What to search for there.
    pub look_for: String,
}

/// The worklist of `rows` on `today`.
pub fn of(rows: &[AuthorityRow], today: NaiveDate, stale_after_days: i64) -> Vec<WorkItem> {
    let mut ranked: Vec<(u8, Option<NaiveDate>, WorkItem)> = rows
        .iter()
        .filter_map(|row| need(row, today, stale_after_days))
        .collect();
    // Oldest first: `None` (unknown age) sorts before any date.
    ranked.sort_by(|a, b| (a.0, a.1, &a.2.country_code).cmp(&(b.0, b.1, &b.2.country_code)));
    ranked.into_iter().map(|(_, _, item)| item).collect()
}

fn need(
    row: &AuthorityRow,
    today: NaiveDate,
    stale_after_days: i64,
) -> Option<(u8, Option<NaiveDate>, WorkItem)> {
    let state = &row.state;
    domain::parties::registry().party(&row.country_code)?;
    let (rank, need, reason) = ranked(state, today, stale_after_days)?;
    let checked = state
        .primary_contact()
        .and_then(|p| p.provenance.last_checked);
    let as_of = state.contacts.iter().filter_map(|c| c.as_of()).max();
    let (look_at, source_kinds) = where_to_look(state);
    let name = domain::parties::registry()
        .party(&row.country_code)
        .map_or_else(|| row.country_name.clone(), |p| p.name.clone());
    Some((
        rank,
        as_of,
        WorkItem {
            country_code: row.country_code.clone(),
            look_for: format!("{name} ({})", row.country_code),
            country_name: name,
            need: need.to_owned(),
            reason,
            last_checked: checked.map(|d| d.to_string()),
            as_of: as_of.map(|d| d.to_string()),
            source_kinds,
            look_at,
        },
    ))
}

/// What a record needs first, most urgent first (rank 1), with the reason
/// a steward reads; `None` when it needs nothing.
fn ranked(
    state: &domain::authority::Authority,
    today: NaiveDate,
    stale_after_days: i64,
) -> Option<(u8, &'static str, String)> {
    let primary = state.primary_contact();
    let troubled = state.contacts.iter().find(|c| {
        matches!(
            c.provenance.outcome,
            Some(CheckOutcome::Defunct | CheckOutcome::NoAnswer)
        )
    });
    Some(if state.contacts.is_empty() {
        (
            1,
            "no_contact",
            "no contact of this Party is known".to_owned(),
        )
    } else if primary.is_none() && state.contacts.iter().all(|c| c.role == Role::FocalPoint) {
        (
            2,
            "focal_point_only",
            "only the focal point is known: find the competent authorities".to_owned(),
        )
    } else if let Some(c) = troubled {
        let found = c
            .provenance
            .outcome
            .map(CheckOutcome::as_str)
            .unwrap_or_default();
        (
            3,
            "defunct_or_unanswered",
            format!("the last check of contact {} found: {found}", c.id),
        )
    } else if !state
        .contacts
        .iter()
        .any(|c| c.role == Role::CompetentAuthority && c.provenance.verified)
    {
        (
            4,
            "never_verified",
            "no check has confirmed a competent authority".to_owned(),
        )
    } else if primary.is_none_or(|p| crate::contacts::stale(p, today, stale_after_days)) {
        (
            5,
            "stale",
            format!("what is known is older than {stale_after_days} days"),
        )
    } else {
        return None;
    })
}

/// Where to look: the record's sources, newest first, then the
/// Convention's country contacts page; and the kinds of those sources.
fn where_to_look(state: &domain::authority::Authority) -> (Vec<String>, Vec<String>) {
    let mut sources: Vec<&domain::authority::SourceRef> =
        state.contacts.iter().flat_map(|c| &c.sources).collect();
    sources.sort_by_key(|s| std::cmp::Reverse(s.as_of()));
    let mut look_at: Vec<String> = Vec::new();
    for url in sources
        .iter()
        .map(|s| s.url.clone())
        .chain(std::iter::once(COUNTRY_CONTACTS.to_owned()))
    {
        if !look_at.contains(&url) {
            look_at.push(url);
        }
    }
    let mut source_kinds: Vec<String> = state
        .contacts
        .iter()
        .map(|c| {
            c.sources
                .first()
                .map_or("unknown", |s| s.kind.as_str())
                .to_owned()
        })
        .collect();
    source_kinds.sort();
    source_kinds.dedup();
    (look_at, source_kinds)
}
