//! What a four-eyes proposal carries: one steward change of one Party's
//! record ([`ProposedChange`]), as the direct command would make it, and
//! the field diff a reviewer reads.
//!
//! Stored in `ChangeProposed` (flattened: the kind is the key, so the first
//! shape, `{"check": {..}}`, reads as [`ProposedChange::Check`] unchanged).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::contact::ContactField;
use super::contact::ContactPatch;
use super::contact::FieldChange;
use super::party::VerificationMethod;
use super::party::{CheckOutcome, PartyContact};

/// One steward change of a Party's record, awaiting review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposedChange {
    /// A check, with any corrections (the first kind).
    Check(ProposedCheck),
    /// A contact to add, as the addition would record it (its id drawn).
    AddContact(Box<ProposedContact>),
    /// A contact to withdraw.
    RemoveContact(ProposedRemoval),
    /// A competent authority to make primary.
    DesignatePrimary(ProposedPrimary),
    /// The record to retire (created in error: a code that is not a Party).
    Retire(ProposedRetirement),
    /// Several changes of the record made together, in order (one Party's
    /// rows of an import): approved or rejected as one.
    Batch(Vec<ProposedChange>),
}

impl ProposedChange {
    /// Its kind as clients name it: `check`, `add_contact`,
    /// `remove_contact`, `designate_primary`, `retire`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Check(_) => "check",
            Self::AddContact(_) => "add_contact",
            Self::RemoveContact(_) => "remove_contact",
            Self::DesignatePrimary(_) => "designate_primary",
            Self::Retire(_) => "retire",
            Self::Batch(_) => "batch",
        }
    }

    /// The contact it concerns (`None`: the Party's record itself).
    pub fn contact_id(&self) -> Option<&str> {
        match self {
            Self::Check(c) => c.contact_id.as_deref(),
            Self::AddContact(a) => Some(a.contact.id.as_str()),
            Self::RemoveContact(r) => Some(r.contact_id.as_str()),
            Self::DesignatePrimary(p) => Some(p.contact_id.as_str()),
            Self::Retire(_) | Self::Batch(_) => None,
        }
    }

    /// One line saying what it does, for queues and timelines.
    pub fn summary(&self) -> String {
        let contact = self.contact_id().unwrap_or("(the Party)");
        match self {
            Self::Check(c) => format!("a check of contact {contact} against {}", c.source),
            Self::AddContact(a) => format!(
                "add contact {contact} ({}){}",
                a.contact.role.as_str(),
                if a.primary { ", primary" } else { "" }
            ),
            Self::RemoveContact(r) => format!(
                "withdraw contact {contact}: {}{}",
                r.reason,
                r.new_primary
                    .as_ref()
                    .map_or(String::new(), |p| format!(" ({p} becomes primary)"))
            ),
            Self::DesignatePrimary(p) => format!(
                "make contact {contact} primary (now: {})",
                p.old_primary.as_deref().unwrap_or("none")
            ),
            Self::Retire(r) => format!("retire the record: {}", r.reason),
            Self::Batch(parts) => format!(
                "{} changes together: {}",
                parts.len(),
                parts
                    .iter()
                    .map(Self::summary)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }
}

/// A check as a proposal records it (what `SubmitVerificationUpdate`
/// carries, but its author and today).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedCheck {
    /// The contact checked.
    pub contact_id: Option<String>,
    /// What the check found.
    pub outcome: Option<CheckOutcome>,
    /// Whether the contact is verified after it.
    pub verified: bool,
    /// The day of the check.
    pub checked_on: NaiveDate,
    /// How it was checked.
    pub method: VerificationMethod,
    /// What it was checked against.
    pub source: String,
    /// The author's note.
    pub note: Option<String>,
    /// The corrections (field → new value, `None` clears it).
    pub changes: ContactPatch,
    /// The files backing it, stored by hash.
    pub evidence: Vec<EvidenceRef>,
}

/// A file backing a proposed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceRef {
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Its type, read from its content.
    pub media_type: String,
    /// Its name as sent.
    pub file_name: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A contact to add: the `ContactAdded` the addition decided, replayed on
/// approval (the record cannot have changed meanwhile: it would be stale).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedContact {
    /// The contact, validated, its provenance naming the author.
    pub contact: PartyContact,
    /// Whether it becomes the primary competent authority.
    pub primary: bool,
}

/// A contact to withdraw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedRemoval {
    /// The contact.
    pub contact_id: String,
    /// Why.
    pub reason: String,
    /// The authority that would become primary in its place.
    pub new_primary: Option<String>,
}

/// A competent authority to make primary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedPrimary {
    /// The contact.
    pub contact_id: String,
    /// The primary one when it was proposed.
    pub old_primary: Option<String>,
}

/// A record to retire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedRetirement {
    /// Why.
    pub reason: String,
}

/// The field diff of adding (`adding`) or withdrawing a contact: each field
/// it holds, from nothing or to nothing.
pub(super) fn whole_contact(contact: &PartyContact, adding: bool) -> Vec<FieldChange> {
    ContactField::ALL
        .iter()
        .filter_map(|field| {
            let value = contact.details.get(*field)?;
            let (old, new) = if adding {
                (None, Some(value))
            } else {
                (Some(value), None)
            };
            Some(FieldChange {
                field: *field,
                old,
                new,
            })
        })
        .collect()
}
