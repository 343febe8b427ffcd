//! The contacts of a Party, after the Secretariat's harmonized form for
//! notifying contacts (decision BC-11/21): each contact is a competent
//! authority or the focal point, with its own scope and provenance.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::contact::{Contact, ContactField};
use crate::values::Slug;

/// The id of the contact a record of the first release described (its only
/// contact). Events written before contacts existed refer to it.
pub const LEGACY_CONTACT_ID: &str = "c1";

/// How a steward checked a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerificationMethod {
    /// Confirmed by e-mail with the authority.
    Email,
    /// Confirmed by phone.
    Phone,
    /// Read on the authority's or the Secretariat's website.
    Website,
    /// An official notification (e.g. from the Basel Secretariat).
    OfficialNotification,
    /// Anything else; say what in `source` or `note`.
    Other,
}

impl VerificationMethod {
    /// Parses the client-facing name (`email`, `phone`, `website`, `official_notification`, `other`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "email" => Some(Self::Email),
            "phone" => Some(Self::Phone),
            "website" => Some(Self::Website),
            "official_notification" => Some(Self::OfficialNotification),
            "other" => Some(Self::Other),
            _ => None,
        }
    }

    /// The client-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Phone => "phone",
            Self::Website => "website",
            Self::OfficialNotification => "official_notification",
            Self::Other => "other",
        }
    }
}

/// What a contact is for the Party.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A competent authority: handles notifications of transboundary movements.
    CompetentAuthority,
    /// The focal point: transmits information to and from the Secretariat.
    FocalPoint,
}

impl Role {
    /// Parses the client-facing name.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "competent_authority" => Some(Self::CompetentAuthority),
            "focal_point" => Some(Self::FocalPoint),
            _ => None,
        }
    }

    /// The client-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CompetentAuthority => "competent_authority",
            Self::FocalPoint => "focal_point",
        }
    }
}

/// What a check of a contact found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckOutcome {
    /// The details were confirmed as they are.
    Confirmed,
    /// The details were confirmed with corrections.
    Changed,
    /// Nobody answered: nothing was confirmed.
    NoAnswer,
    /// The office or its channels no longer exist.
    Defunct,
}

impl CheckOutcome {
    /// Parses the client-facing name.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "confirmed" => Some(Self::Confirmed),
            "changed" => Some(Self::Changed),
            "no_answer" => Some(Self::NoAnswer),
            "defunct" => Some(Self::Defunct),
            _ => None,
        }
    }

    /// The client-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Confirmed => "confirmed",
            Self::Changed => "changed",
            Self::NoAnswer => "no_answer",
            Self::Defunct => "defunct",
        }
    }

    /// Whether the check reached the authority (it moves `last_checked`).
    pub fn reached(self) -> bool {
        matches!(self, Self::Confirmed | Self::Changed)
    }
}

/// A contact channel that is known to be dead: kept for the audit trail,
/// never served as a way to reach the contact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retired {
    /// Which field (`email`, `phone`, `fax`, `website`, `address`).
    pub field: ContactField,
    /// The value that no longer works.
    pub value: String,
    /// Why it is retired.
    pub reason: String,
}

/// How sure the source is of a contact's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoleBasis {
    /// The source names the role in so many words.
    Stated,
    /// The source describes the function (permits, notifications) without
    /// the words "competent authority".
    Inferred,
    /// The source's layout leaves the role in doubt.
    Uncertain,
}

impl RoleBasis {
    /// The client-facing name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stated => "stated",
            Self::Inferred => "inferred",
            Self::Uncertain => "uncertain",
        }
    }

    /// Parses the client-facing name.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Stated, Self::Inferred, Self::Uncertain]
            .into_iter()
            .find(|r| r.as_str() == text.trim())
    }
}

/// A public source a contact's details were copied from, with the values as
/// printed there. The served values may be derived from these (an e-mail
/// de-obfuscated, a phone regrouped as `+CC-…`); `derived` names which.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SourceRef {
    /// Where it was published.
    pub url: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The date the information is stated as of (`YYYY`, `YYYY-MM-DD`);
    /// absent when the source gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// `secretariat_factsheet`, `government_current`, `government_dated`,
    /// `other_official`, …
    pub kind: String,
    /// The data release that brought it, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// The values as printed, by field name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub printed: BTreeMap<String, String>,
    /// The fields whose served value was derived from the printed text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<String>,
    /// What the researcher noted on the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl SourceRef {
    /// The first day the stated date can mean (`2003` → 2003-01-01).
    pub fn as_of(&self) -> Option<NaiveDate> {
        let text = self.date.as_deref()?.trim();
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .or_else(|| NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d").ok())
            .or_else(|| NaiveDate::parse_from_str(&format!("{text}-01-01"), "%Y-%m-%d").ok())
    }
}

/// A steward's check of a contact: what it found and what it relied on.
/// Kept apart from the contact's sources, which a check never replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRecord {
    /// The day of the check.
    pub checked_on: NaiveDate,
    /// What it found; `None` for checks of the first release.
    pub outcome: Option<CheckOutcome>,
    /// Whether it verified the contact.
    pub verified: bool,
    /// How it was made.
    pub method: VerificationMethod,
    /// What it relied on (the evidence).
    pub source: String,
    /// The steward's note.
    pub note: Option<String>,
}

/// Where a contact's details come from and how they were last checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactProvenance {
    /// What the details rely on: the source they were copied from when the
    /// contact was added. A check never replaces it (see `last_check`).
    pub source: Option<String>,
    /// Whether a check confirmed them.
    pub verified: bool,
    /// The day of the last check that reached the contact (or the source's date).
    pub last_checked: Option<NaiveDate>,
    /// The day of the last check that reached nobody or found it defunct.
    pub last_attempt: Option<NaiveDate>,
    /// What the last check found; `None` before any check, and for checks
    /// recorded before outcomes existed.
    pub outcome: Option<CheckOutcome>,
    /// How the last check was made.
    pub method: Option<VerificationMethod>,
    /// The steward who last wrote this contact.
    pub steward: Option<Slug>,
    /// That steward's note.
    pub steward_note: Option<String>,
    /// The last check of any kind, with its own evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_check: Option<CheckRecord>,
}

/// One contact of a Party.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartyContact {
    /// Its id within the Party (`c1`, `c2`, …), never reused.
    pub id: String,
    /// Competent authority or focal point.
    pub role: Role,
    /// The details (name, person, channels, address, scope, source notes).
    pub details: Contact,
    /// Where the details come from and how they were checked.
    pub provenance: ContactProvenance,
    /// Channels found dead, not served.
    #[serde(default)]
    pub retired: Vec<Retired>,
    /// The public sources its details were copied from, newest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceRef>,
    /// A competent authority that is also the Party's focal point.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub also_focal_point: bool,
    /// How sure its source is of its role; `None` when entered by a steward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role_basis: Option<RoleBasis>,
}

impl PartyContact {
    /// Whether it covers the whole Party: no area and every movement.
    pub fn national(&self) -> bool {
        self.details.area.is_none() && self.details.movements.is_none()
    }

    /// Whether a check found it defunct (its channels are retired).
    pub fn defunct(&self) -> bool {
        self.provenance.outcome == Some(CheckOutcome::Defunct)
    }

    /// The day its details are known to hold as of: the newest of its
    /// sources' dates and its last check that reached and verified it.
    pub fn as_of(&self) -> Option<NaiveDate> {
        self.sources
            .iter()
            .filter_map(SourceRef::as_of)
            .chain(self.provenance.last_checked)
            .max()
    }

    /// Whether any channel or the name is known.
    pub fn has_details(&self) -> bool {
        [
            ContactField::CaName,
            ContactField::Email,
            ContactField::Phone,
            ContactField::Address,
        ]
        .into_iter()
        .any(|f| self.details.get(f).is_some())
    }
}
