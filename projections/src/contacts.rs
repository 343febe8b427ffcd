//! A Party's contacts as clients see them (`contacts` of a record, REST and
//! MCP alike): each competent authority and the focal point with its role,
//! scope and provenance. Retired channels are flagged by field, never served.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;

use domain::authority::{Authority, PartyContact, Role};

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

/// Where a contact's details come from and how they were last checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ContactProvenanceView {
    /// What the details rely on.
    pub source: Option<String>,
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
    /// The institution's name.
    pub name: Option<String>,
    /// What it covers.
    pub scope: ScopeView,
    /// The person to address.
    pub contact_person: Option<String>,
    /// E-mail.
    pub email: Option<String>,
    /// Phone (`+CC-…`).
    pub phone: Option<String>,
    /// Fax (`+CC-…`).
    pub fax: Option<String>,
    /// Website.
    pub website: Option<String>,
    /// Postal address.
    pub address: Option<String>,
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
        contact_person: d.contact_person.clone(),
        email: d.email.as_ref().map(|e| e.as_str().to_owned()),
        phone: d.phone.as_ref().map(|v| v.as_str().to_owned()),
        fax: d.fax.as_ref().map(|v| v.as_str().to_owned()),
        website: d.website.clone(),
        address: d.address.clone(),
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
            source_notes: if p.verified { None } else { d.notes.clone() },
            verified: p.verified,
            last_checked: day(p.last_checked),
            last_attempt: day(p.last_attempt),
            outcome: p.outcome.map(|o| o.as_str().to_owned()),
            method: p.method.map(|m| m.as_str().to_owned()),
            steward: p.steward.as_ref().map(|s| s.as_str().to_owned()),
            note: p.steward_note.clone(),
            stale: p
                .last_checked
                .is_none_or(|checked| (today - checked).num_days() > stale_after_days),
        },
    }
}
