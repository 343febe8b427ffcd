//! The shapes of a transfer file, and a Party's state in them (export).
//!
//! A Party is its country columns ([`PARTY_COLUMNS`]) plus one set of
//! contact columns ([`CONTACT_COLUMNS`]) per contact. JSON nests the
//! contacts (`contacts: [...]`) under the Party's object; CSV repeats the
//! country columns on one row per contact, and gives a Party without
//! contacts one row with empty contact columns. Both carry exactly the same
//! cells, under the same names.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use domain::authority::{Authority, ContactInput, PartyContact, SourceRef};

/// The Party's columns, in export order.
pub const PARTY_COLUMNS: [&str; 5] = [
    "country_code",
    "country_name",
    "party_source",
    "party_notes",
    "party_last_attempt",
];

/// A contact's columns, in export order (its detail columns are
/// [`ContactInput::FIELDS`], in that order: a test holds them together).
pub const CONTACT_COLUMNS: [&str; 22] = [
    "contact_id",
    "role",
    "primary",
    "ca_name",
    "contact_person",
    "email",
    "phone",
    "fax",
    "website",
    "address",
    "area",
    "wastes",
    "movements",
    "notes",
    "source",
    "verified",
    "last_checked",
    "outcome",
    "last_attempt",
    "also_focal_point",
    "role_basis",
    "sources",
];

/// One Party as exported: JSON writes it as one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartyRecord {
    /// ISO alpha-2, upper case.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// What the Party's registration relied on.
    pub party_source: Option<String>,
    /// Notes on the Party's record as a whole.
    pub party_notes: Option<String>,
    /// The last check of the Party's record itself (made while no competent
    /// authority was known), `YYYY-MM-DD`.
    pub party_last_attempt: Option<String>,
    /// Its contacts, in the order they were added.
    pub contacts: Vec<ContactRecord>,
}

/// One contact as exported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactRecord {
    /// Its id within the Party (`c1`, …).
    pub contact_id: String,
    /// `competent_authority` or `focal_point`.
    pub role: String,
    /// Whether it is the primary competent authority.
    pub primary: bool,
    /// Its details, one column each ([`ContactInput::FIELDS`]: `ca_name`,
    /// the channels, the scope, the source notes), as the domain's one
    /// contact shape writes them.
    #[serde(flatten)]
    pub details: ContactInput,
    /// What its details rely on.
    pub source: Option<String>,
    /// Whether a check confirmed them.
    pub verified: bool,
    /// The last check that reached it (or the source's date), `YYYY-MM-DD`.
    pub last_checked: Option<String>,
    /// What its last check found.
    pub outcome: Option<String>,
    /// The last check that reached nobody or found it defunct.
    pub last_attempt: Option<String>,
    /// A competent authority that is also the focal point.
    #[serde(default)]
    pub also_focal_point: bool,
    /// `stated`, `inferred`, `uncertain`: how sure its source is of its role.
    #[serde(default)]
    pub role_basis: Option<String>,
    /// The public sources its details were copied from, with the values as
    /// printed (CSV: this list as JSON text).
    #[serde(default)]
    pub sources: Vec<SourceRef>,
}

fn day(date: Option<NaiveDate>) -> Option<String> {
    date.map(|d| d.format("%Y-%m-%d").to_string())
}

impl PartyRecord {
    /// The Party as its state stands.
    pub fn of(state: &Authority) -> Self {
        Self {
            country_code: state
                .country
                .as_ref()
                .map(|c| c.as_str().to_owned())
                .unwrap_or_default(),
            country_name: state.country_name.clone(),
            party_source: state.source.clone(),
            party_notes: state.notes.clone(),
            party_last_attempt: day(state.last_attempt),
            contacts: state
                .contacts
                .iter()
                .map(|c| ContactRecord::of(c, state.primary.as_deref() == Some(c.id.as_str())))
                .collect(),
        }
    }

    /// The Party's cells, in [`PARTY_COLUMNS`] order.
    pub fn cells(&self) -> Vec<String> {
        [
            Some(self.country_code.clone()),
            Some(self.country_name.clone()),
            self.party_source.clone(),
            self.party_notes.clone(),
            self.party_last_attempt.clone(),
        ]
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
    }
}

impl ContactRecord {
    /// A contact as its state stands.
    pub fn of(contact: &PartyContact, primary: bool) -> Self {
        let p = &contact.provenance;
        Self {
            contact_id: contact.id.clone(),
            role: contact.role.as_str().to_owned(),
            primary,
            details: ContactInput::of(&contact.details),
            source: p.source.clone(),
            verified: p.verified,
            last_checked: day(p.last_checked),
            outcome: p.outcome.map(|o| o.as_str().to_owned()),
            last_attempt: day(p.last_attempt),
            also_focal_point: contact.also_focal_point,
            role_basis: contact.role_basis.map(|r| r.as_str().to_owned()),
            sources: contact.sources.clone(),
        }
    }

    /// The contact's cells, in [`CONTACT_COLUMNS`] order.
    pub fn cells(&self) -> Vec<String> {
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let mut cells = vec![
            self.contact_id.clone(),
            self.role.clone(),
            self.primary.to_string(),
        ];
        cells.extend(
            ContactInput::FIELDS
                .map(|field| self.details.get(field).unwrap_or_default().to_owned()),
        );
        cells.push(text(&self.source));
        cells.push(self.verified.to_string());
        cells.extend([&self.last_checked, &self.outcome, &self.last_attempt].map(text));
        cells.push(self.also_focal_point.to_string());
        cells.push(text(&self.role_basis));
        cells.push(if self.sources.is_empty() {
            String::new()
        } else {
            serde_json::to_string(&self.sources).unwrap_or_default()
        });
        cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_columns_are_the_contact_shape_in_order() {
        let names = ContactInput::FIELDS.map(|field| field.name());
        assert_eq!(CONTACT_COLUMNS[3..3 + names.len()], names);
    }
}
