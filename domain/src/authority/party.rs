//! The contacts of a Party, after the Secretariat's harmonized form for
//! notifying contacts (decision BC-11/21): each contact is a competent
//! authority or the focal point, with its own scope and provenance.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::commands::VerificationMethod;
use super::contact::{Contact, ContactField};
use crate::values::Slug;

/// The id of the contact a record of the first release described (its only
/// contact). Events written before contacts existed refer to it.
pub const LEGACY_CONTACT_ID: &str = "c1";

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

/// Where a contact's details come from and how they were last checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactProvenance {
    /// What the details rely on (the source they were copied from, or what
    /// the last check was made against).
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
}

impl PartyContact {
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
