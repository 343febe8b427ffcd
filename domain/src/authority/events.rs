//! What an [`Authority`](super::Authority) records. Published events are a
//! public contract: additive changes only, a new version otherwise.
//!
//! Version 2 (contacts) changed `AuthorityRegistered` (a list of contacts
//! instead of one set of fields) and gave `ContactDetailsChanged` and
//! `VerificationRecorded` the contact they concern. Events stored by the
//! first release (version 1) are upcast when read, wherever they are read
//! from (the events table, a JetStream message, a history row): see
//! [`super::upcast`].

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::contact::FieldChange;
use super::party::VerificationMethod;
use super::party::{CheckOutcome, PartyContact};
use crate::aggregate::DomainEvent;
use crate::values::{CountryCode, Slug};

/// An event of the `Authority` aggregate. Deserialising accepts the first
/// release's payloads too and upcasts them.
// Events are few and short-lived (decided, stored, applied); boxing the
// contact would only add an indirection to their JSON contract's types.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "super::upcast::Wire")]
pub enum AuthorityEvent {
    /// The Party entered the directory.
    AuthorityRegistered(AuthorityRegistered),
    /// Some fields of one contact changed.
    ContactDetailsChanged(ContactDetailsChanged),
    /// A steward checked one contact.
    VerificationRecorded(VerificationRecorded),
    /// A contact was added.
    ContactAdded(ContactAdded),
    /// A contact was withdrawn (history keeps it).
    ContactRemoved(ContactRemoved),
    /// A competent authority became the primary one.
    PrimaryDesignated(PrimaryDesignated),
    /// The record was retired (created in error: not a Party).
    AuthorityRetired(AuthorityRetired),
    /// A file backs a check (the steward console): the check's
    /// evidence, referenced by the SHA-256 of its bytes.
    EvidenceAttached(EvidenceAttached),
    /// A steward proposed a change for review (`BASEL_REVIEW=required`).
    ChangeProposed(ChangeProposed),
    /// Another steward approved a proposal; the change's events follow in
    /// the same commit, attributed to its author.
    ProposalApproved(ProposalApproved),
    /// A steward rejected a proposal, with a reason.
    ProposalRejected(ProposalRejected),
    /// A steward took the Party's work on ("assign to me" in the console).
    WorkAssigned(WorkAssigned),
}

/// A steward is on the Party's work: others see who.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkAssigned {
    /// The steward now on it.
    pub steward: Slug,
}

/// A change proposed for review: nothing in the record changes until
/// another steward approves it.
///
/// Version 2 proposes any steward change of the record: the change is
/// flattened under its kind's key (`check`, `add_contact`,
/// `remove_contact`, `designate_primary`, `retire`). Version 1 proposed
/// checks only, as `{"check": {..}}`: the same shape, read unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeProposed {
    /// The proposal's id.
    pub proposal_id: String,
    /// Its author.
    pub proposer: Slug,
    /// The change proposed.
    #[serde(flatten)]
    pub change: super::review::ProposedChange,
    /// The field changes it would make on the record as it was (old, new).
    pub changes: Vec<FieldChange>,
}

/// A proposal approved: its change is recorded in the same commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalApproved {
    /// The proposal.
    pub proposal_id: String,
    /// Who approved it (never its author).
    pub approver: Slug,
    /// Who proposed it (the change's steward).
    pub proposer: Slug,
}

/// A proposal rejected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalRejected {
    /// The proposal.
    pub proposal_id: String,
    /// Who rejected it.
    pub reviewer: Slug,
    /// Why.
    pub reason: String,
}

/// A file that backs the check recorded just before it (in the same
/// commit): an authority's reply (`.eml`), a designation letter (PDF), a
/// screenshot. The bytes are not in the event: they are stored
/// content-addressed beside the events (`console_evidence`), so erasure can
/// delete them while every proof over the events stays valid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceAttached {
    /// The contact the check concerned.
    pub contact_id: String,
    /// SHA-256 of the file's bytes, lower-case hex.
    pub sha256: String,
    /// The type read from the content (`application/pdf`, `message/rfc822`,
    /// `image/png`, `image/jpeg`, `image/gif`).
    pub media_type: String,
    /// The file's name as the steward's browser sent it.
    pub file_name: String,
    /// Its size in bytes.
    pub size: u64,
    /// The steward who attached it.
    pub steward: Option<Slug>,
}

/// A record created in error was retired; its history stays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorityRetired {
    /// Why.
    pub reason: String,
    /// Who retired it (none for the operator's command or an upgrade).
    pub steward: Option<Slug>,
}

/// The Party entered the directory with these contacts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorityRegistered {
    /// The country.
    pub country: CountryCode,
    /// Its name in English.
    pub country_name: String,
    /// Where the registration's data come from.
    pub source: Option<String>,
    /// Notes on the Party's record as a whole (e.g. "no source found").
    pub notes: Option<String>,
    /// Its contacts (possibly none).
    pub contacts: Vec<PartyContact>,
    /// The primary competent authority's id, if any.
    pub primary: Option<String>,
    /// The steward who registered it (none for the seed and the first release).
    #[serde(default)]
    pub steward: Option<Slug>,
}

/// Only the fields that changed, old and new.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactDetailsChanged {
    /// The contact.
    pub contact_id: String,
    /// The changes, in field order.
    pub changes: Vec<FieldChange>,
}

/// A check of one contact, whatever it found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationRecorded {
    /// The contact checked.
    pub contact_id: String,
    /// What the check found; `None` for checks of the first release.
    pub outcome: Option<CheckOutcome>,
    /// Whether the contact is verified after the check.
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

/// A contact was added to the Party.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContactAdded {
    /// The contact, with its provenance.
    pub contact: PartyContact,
    /// Whether it is now the primary competent authority.
    pub primary: bool,
}

/// A contact was withdrawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactRemoved {
    /// The contact.
    pub contact_id: String,
    /// Why.
    pub reason: String,
    /// Who withdrew it.
    pub steward: Option<Slug>,
    /// The competent authority that became primary in its place, if any.
    pub new_primary: Option<String>,
}

/// A competent authority became the Party's primary one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimaryDesignated {
    /// The contact.
    pub contact_id: String,
    /// Who designated it.
    pub steward: Option<Slug>,
}

impl DomainEvent for AuthorityEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::AuthorityRegistered(_) => "AuthorityRegistered",
            Self::ContactDetailsChanged(_) => "ContactDetailsChanged",
            Self::VerificationRecorded(_) => "VerificationRecorded",
            Self::ContactAdded(_) => "ContactAdded",
            Self::ContactRemoved(_) => "ContactRemoved",
            Self::PrimaryDesignated(_) => "PrimaryDesignated",
            Self::AuthorityRetired(_) => "AuthorityRetired",
            Self::EvidenceAttached(_) => "EvidenceAttached",
            Self::ChangeProposed(_) => "ChangeProposed",
            Self::ProposalApproved(_) => "ProposalApproved",
            Self::ProposalRejected(_) => "ProposalRejected",
            Self::WorkAssigned(_) => "WorkAssigned",
        }
    }

    fn event_version(&self) -> &'static str {
        match self {
            Self::AuthorityRegistered(_)
            | Self::ContactDetailsChanged(_)
            | Self::VerificationRecorded(_)
            | Self::ChangeProposed(_) => "2",
            Self::ContactAdded(_)
            | Self::ContactRemoved(_)
            | Self::PrimaryDesignated(_)
            | Self::AuthorityRetired(_)
            | Self::EvidenceAttached(_)
            | Self::ProposalApproved(_)
            | Self::ProposalRejected(_)
            | Self::WorkAssigned(_) => "1",
        }
    }
}
