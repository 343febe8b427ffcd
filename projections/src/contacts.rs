//! A Party's contacts as clients see them (`contacts` of a record, REST and
//! MCP alike): each competent authority and the focal point with its role,
//! scope and provenance. Retired channels are flagged by field, never served.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::{Authority, Channels, PartyContact, Role, SourceRef};

/// What a contact covers: an area, kinds of waste, movements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScopeView {
    /// The geographical area it is competent for (all of the Party when absent).
    pub area: Option<String>,
    /// The wastes it handles, in words (all when absent).
    pub wastes: Option<String>,
    /// The movements it handles: `export`, `import`, `transit` (all when empty).
    pub movements: Vec<String>,
}

/// A channel known to be dead: which field and why. The value is kept in the
/// record's history only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RetiredView {
    /// `email`, `phone`, `fax`, `website` or `address`.
    pub field: String,
    /// Why it is retired.
    pub reason: String,
}

/// How old what is known of a contact is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct AgeView {
    /// The day its details are known to hold as of: the newest of its
    /// sources' dates and its last check that reached and verified it
    /// (`YYYY-MM-DD`; a source dated by year alone counts from 1 January).
    pub as_of: Option<String>,
    /// Whole years since then; absent when unknown.
    pub years: Option<i64>,
    /// `under_1y`, `1_to_5y`, `5_to_15y`, `over_15y` or `unknown`.
    pub band: String,
    /// Whether the details are over five years old: a historic record,
    /// to be confirmed before use.
    pub historic: bool,
}

/// A steward's last check of a contact, with its own evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CheckView {
    /// The day of the check.
    pub checked_on: String,
    /// `confirmed`, `changed`, `no_answer`, `defunct` (absent for checks of
    /// the first release).
    pub outcome: Option<String>,
    /// Whether it verified the contact.
    pub verified: bool,
    /// How it was made.
    pub method: String,
    /// What it relied on.
    pub source: String,
    /// The steward's note.
    pub note: Option<String>,
}

/// Where a contact's details come from and how they were last checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ContactProvenanceView {
    /// What the details rely on: the source they were copied from (a check
    /// never replaces it; see `last_check`).
    pub source: Option<String>,
    /// The newest public source's address (the same as `source` for a
    /// contact from a data release).
    pub source_url: Option<String>,
    /// Its title.
    pub source_title: Option<String>,
    /// Its kind (`secretariat_factsheet`, `government_current`, …), or
    /// `unknown` for a contact entered without one.
    pub source_kind: String,
    /// The date it states the details as of (`YYYY` or `YYYY-MM-DD`);
    /// absent when the source gives none.
    pub source_date: Option<String>,
    /// Every public source, newest first, with the values as printed and
    /// which served values are derived from them.
    pub sources: Vec<SourceRef>,
    /// How sure the source is of the role: `stated`, `inferred`,
    /// `uncertain`; absent for a contact entered by a steward.
    pub role_basis: Option<String>,
    /// How old what is known is.
    pub age: AgeView,
    /// The last check of any kind, with its evidence.
    pub last_check: Option<CheckView>,
    /// Notes on where the details came from; not shown once a check
    /// verified the contact (the history keeps them).
    pub source_notes: Option<String>,
    /// Whether a check confirmed the details.
    pub verified: bool,
    /// The day of the last check that reached the contact (or the source's date).
    pub last_checked: Option<String>,
    /// The day of the last check that reached nobody or found it defunct.
    pub last_attempt: Option<String>,
    /// `confirmed`, `changed`, `no_answer`, `defunct`; absent before any
    /// check, and for checks recorded before outcomes existed.
    pub outcome: Option<String>,
    /// How the last check was made.
    pub method: Option<String>,
    /// The steward who last wrote the contact (id only).
    pub steward: Option<String>,
    /// That steward's note.
    pub note: Option<String>,
    /// Whether `last_checked` is older than the staleness bound (or missing).
    pub stale: bool,
}

/// One contact of a Party.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ContactView {
    /// Its id within the Party (`c1`, `c2`, …).
    pub id: String,
    /// `competent_authority` or `focal_point`.
    pub role: String,
    /// Whether it is the primary competent authority (the one the record's
    /// own fields describe).
    pub primary: bool,
    /// Whether this competent authority is also the Party's focal point.
    pub also_focal_point: bool,
    /// The institution's name.
    pub name: Option<String>,
    /// What it covers.
    pub scope: ScopeView,
    /// The person to address and the channels: `contact_person`, `email`,
    /// `phone`, `fax`, `website`, `address` (the domain's one contact shape).
    #[serde(flatten)]
    pub channels: Channels,
    /// Channels found dead (not served).
    pub retired: Vec<RetiredView>,
    /// Where the details come from and how they were checked.
    pub provenance: ContactProvenanceView,
}

/// The contacts of `state`: the primary authority first, then the other
/// authorities and the focal point in the order they were added.
pub fn views(state: &Authority, today: NaiveDate, stale_after_days: i64) -> Vec<ContactView> {
    let mut ordered: Vec<&PartyContact> = state.contacts.iter().collect();
    ordered.sort_by_key(|c| state.primary.as_deref() != Some(c.id.as_str()));
    ordered
        .into_iter()
        .map(|c| {
            view(
                c,
                state.primary.as_deref() == Some(c.id.as_str()),
                today,
                stale_after_days,
            )
        })
        .collect()
}

fn view(c: &PartyContact, primary: bool, today: NaiveDate, stale_after_days: i64) -> ContactView {
    let d = &c.details;
    let p = &c.provenance;
    let day = |d: Option<NaiveDate>| d.map(|d| d.to_string());
    ContactView {
        id: c.id.clone(),
        role: c.role.as_str().to_owned(),
        primary: primary && c.role == Role::CompetentAuthority,
        also_focal_point: c.also_focal_point,
        name: d.ca_name.clone(),
        scope: ScopeView {
            area: d.area.clone(),
            wastes: d.wastes.clone(),
            movements: d
                .movements
                .as_deref()
                .map(|m| m.split(',').map(str::to_owned).collect())
                .unwrap_or_default(),
        },
        channels: Channels::of(d),
        retired: c
            .retired
            .iter()
            .map(|r| RetiredView {
                field: r.field.name().to_owned(),
                reason: r.reason.clone(),
            })
            .collect(),
        provenance: ContactProvenanceView {
            source: p.source.clone(),
            source_url: c
                .sources
                .first()
                .map(|s| s.url.clone())
                .or_else(|| p.source.clone().filter(|s| s.starts_with("http"))),
            source_title: c.sources.first().and_then(|s| s.title.clone()),
            source_kind: c
                .sources
                .first()
                .map_or_else(|| "unknown".to_owned(), |s| s.kind.clone()),
            source_date: c.sources.first().and_then(|s| s.date.clone()),
            sources: c.sources.clone(),
            role_basis: c.role_basis.map(|r| r.as_str().to_owned()),
            age: age(c.as_of(), today),
            last_check: p.last_check.as_ref().map(|k| CheckView {
                checked_on: k.checked_on.to_string(),
                outcome: k.outcome.map(|o| o.as_str().to_owned()),
                verified: k.verified,
                method: k.method.as_str().to_owned(),
                source: k.source.clone(),
                note: k.note.clone(),
            }),
            source_notes: if p.verified { None } else { d.notes.clone() },
            verified: p.verified,
            last_checked: day(p.last_checked),
            last_attempt: day(p.last_attempt),
            outcome: p.outcome.map(|o| o.as_str().to_owned()),
            method: p.method.map(|m| m.as_str().to_owned()),
            steward: p.steward.as_ref().map(|s| s.as_str().to_owned()),
            note: p.steward_note.clone(),
            stale: stale(c, today, stale_after_days),
        },
    }
}

/// Whether what is known of `contact` is older than the bound (or of
/// unknown age).
pub fn stale(contact: &PartyContact, today: NaiveDate, stale_after_days: i64) -> bool {
    contact
        .as_of()
        .is_none_or(|as_of| (today - as_of).num_days() > stale_after_days)
}

/// The age of details known as of `as_of`, on `today`.
pub fn age(as_of: Option<NaiveDate>, today: NaiveDate) -> AgeView {
    let years = as_of.map(|d| (today - d).num_days().max(0) / 365);
    let band = match years {
        None => "unknown",
        Some(0) => "under_1y",
        Some(1..=4) => "1_to_5y",
        Some(5..=14) => "5_to_15y",
        Some(_) => "over_15y",
    };
    AgeView {
        as_of: as_of.map(|d| d.to_string()),
        years,
        band: band.to_owned(),
        historic: years.is_some_and(|y| y >= 5),
    }
}
