//! The steward worklist: Parties ordered by what their record needs most.
//!
//! 1. `no_contact`: nothing is known;
//! 2. `focal_point_only`: only the focal point is known, no competent authority;
//! 3. `defunct_or_unanswered`: a contact's last check found it defunct or reached nobody;
//! 4. `never_verified`: the primary authority was never confirmed by a check;
//! 5. `stale`: its last check is older than the bound (oldest first).
//!
//! Verified, fresh records are not listed. Each item says where to look: the
//! Basel Secretariat's country-contacts page, searched for the Party.

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
    /// Where to look: the Secretariat's country-contacts page.
    pub look_at: String,
    /// What to search for there.
    pub look_for: String,
}

/// The worklist of `rows` on `today`.
pub fn of(rows: &[AuthorityRow], today: NaiveDate, stale_after_days: i64) -> Vec<WorkItem> {
    let mut ranked: Vec<(u8, Option<NaiveDate>, WorkItem)> = rows
        .iter()
        .filter_map(|row| need(row, today, stale_after_days))
        .collect();
    ranked.sort_by(|a, b| (a.0, a.1, &a.2.country_code).cmp(&(b.0, b.1, &b.2.country_code)));
    ranked.into_iter().map(|(_, _, item)| item).collect()
}

fn need(
    row: &AuthorityRow,
    today: NaiveDate,
    stale_after_days: i64,
) -> Option<(u8, Option<NaiveDate>, WorkItem)> {
    let state = &row.state;
    let primary = state.primary_contact();
    let checked = primary.and_then(|p| p.provenance.last_checked);
    let troubled = state.contacts.iter().find(|c| {
        matches!(
            c.provenance.outcome,
            Some(CheckOutcome::Defunct | CheckOutcome::NoAnswer)
        )
    });
    let (rank, need, reason) = if state.contacts.is_empty() {
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
    } else if !row.verified
        && primary.is_some_and(|p| p.provenance.steward.is_none() || p.provenance.outcome.is_none())
    {
        (
            4,
            "never_verified",
            "no check has confirmed the competent authority".to_owned(),
        )
    } else if checked.is_none_or(|d| (today - d).num_days() > stale_after_days) {
        (
            5,
            "stale",
            format!("the last check is older than {stale_after_days} days"),
        )
    } else {
        return None;
    };
    Some((
        rank,
        checked,
        WorkItem {
            country_code: row.country_code.clone(),
            country_name: row.country_name.clone(),
            need: need.to_owned(),
            reason,
            last_checked: checked.map(|d| d.to_string()),
            look_at: COUNTRY_CONTACTS.to_owned(),
            look_for: format!("{} ({})", row.country_name, row.country_code),
        },
    ))
}
