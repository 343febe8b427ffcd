//! What an [`Authority`](super::Authority) records. Published events are a
//! public contract: additive changes only, a new version otherwise.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::commands::VerificationMethod;
use super::contact::{Contact, ContactField};
use crate::aggregate::DomainEvent;
use crate::values::{CountryCode, Slug};

/// An event of the `Authority` aggregate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AuthorityEvent {
    /// The country's authority entered the directory.
    AuthorityRegistered(AuthorityRegistered),
    /// Some contact fields changed.
    ContactDetailsChanged(ContactDetailsChanged),
    /// A steward checked the record.
    VerificationRecorded(VerificationRecorded),
}

/// The country's authority entered the directory with these details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorityRegistered {
    /// The country.
    pub country: CountryCode,
    /// Its name in English.
    pub country_name: String,
    /// The details known at registration.
    pub contact: Contact,
    /// Whether they were verified.
    pub verified: bool,
    /// When they were last checked against their source, if known.
    pub last_checked: Option<NaiveDate>,
    /// Where they come from.
    pub source: Option<String>,
}

/// One field's old and new value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    /// Which field.
    pub field: ContactField,
    /// Its value before.
    pub old: Option<String>,
    /// Its value after.
    pub new: Option<String>,
}

/// Only the fields that changed, old and new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactDetailsChanged {
    /// The changes, in field order.
    pub changes: Vec<FieldChange>,
}

/// A check of the record, whether or not anything changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationRecorded {
    /// Whether the record is verified after the check.
    pub verified: bool,
    /// The day of the check.
    pub checked_on: NaiveDate,
    /// How it was checked.
    pub method: VerificationMethod,
    /// What it was checked against.
    pub source: String,
    /// The steward who checked it.
    pub steward: Option<Slug>,
    /// The steward's note.
    pub note: Option<String>,
}

impl DomainEvent for AuthorityEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::AuthorityRegistered(_) => "AuthorityRegistered",
            Self::ContactDetailsChanged(_) => "ContactDetailsChanged",
            Self::VerificationRecorded(_) => "VerificationRecorded",
        }
    }

    fn event_version(&self) -> &'static str {
        "1"
    }
}
