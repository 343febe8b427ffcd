//! The `Authority` aggregate: one country's competent-authority record.
//!
//! Rules (each refusal is an [`AuthorityError`]):
//! - a country is registered once;
//! - e-mail and phone are validated (phone as `+CC-...` with hyphens);
//! - `checked_on` is not in the future and not before the previous check;
//! - a record cannot be verified while a required field (name, e-mail,
//!   phone) is empty;
//! - a check that changes nothing is still recorded.

mod apply;
mod commands;
mod contact;
mod decide;
mod decide_contacts;
mod details;
mod events;
mod party;
mod proposal;
pub mod review;
#[cfg(test)]
mod tests;
pub mod upcast;

use serde::{Deserialize, Serialize};

pub use commands::{
    AddContact, AuthorityCommand, DesignatePrimary, Evidence, NewContact, RegisterAuthority,
    RemoveContact, RetireAuthority, SubmitVerificationUpdate, DEFAULT_MAX_CONTACTS,
};
pub use contact::{parse_field, Contact, ContactField, ContactPatch, FieldChange, FieldProblem};
pub use details::{Channels, ContactInput};
pub use events::{
    AuthorityEvent, AuthorityRegistered, AuthorityRetired, ChangeProposed, ContactAdded,
    ContactDetailsChanged, ContactRemoved, EvidenceAttached, PrimaryDesignated, ProposalApproved,
    ProposalRejected, VerificationRecorded, WorkAssigned,
};
pub use party::{
    CheckOutcome, CheckRecord, ContactProvenance, PartyContact, Retired, Role, RoleBasis,
    SourceRef, VerificationMethod, LEGACY_CONTACT_ID,
};
pub use review::{
    EvidenceRef, Proposal, ProposedChange, ProposedCheck, ProposedContact, ProposedPrimary,
    ProposedRemoval, ProposedRetirement, ReviewCommand,
};

use crate::aggregate::Aggregate;
use crate::values::{CountryCode, Slug};

/// Why a command on an authority was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthorityError {
    /// The country is already in the directory.
    #[error("the authority of {0} is already registered")]
    AlreadyRegistered(CountryCode),
    /// The country is not in the directory.
    #[error("no authority is registered for this country")]
    NotRegistered,
    /// The Party has no contact with this id.
    #[error("the Party has no contact `{0}`")]
    UnknownContact(String),
    /// The record is retired: nothing more can be written to it.
    #[error("the record is retired")]
    Retired,
    /// Only a record of a code that is not a Party can be retired.
    #[error("{0} is a Party: its record cannot be retired")]
    IsAParty(CountryCode),
    /// A check of "the" authority when the Party has none (kept for the
    /// REST contract: a check then concerns the Party's record itself).
    #[error("no competent authority is known for this Party: add one as a contact first")]
    NoCompetentAuthority,
    /// A steward cannot approve their own proposal.
    #[error("a steward cannot approve their own proposal")]
    OwnProposal,
    /// The record changed since the proposal was made.
    #[error("the record changed since this proposal was made: it cannot be approved")]
    StaleProposal,
    /// No open proposal has this id (decided already, or never made).
    #[error("no open proposal `{0}`")]
    UnknownProposal(String),
    /// One or more fields are invalid.
    #[error("{} invalid field(s): {}", .0.len(), .0.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<FieldProblem>),
}

/// The state of one Party's record, rebuilt from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Authority {
    /// The country; `None` until registered.
    pub country: Option<CountryCode>,
    /// Its name in English.
    pub country_name: String,
    /// Where the registration's data came from.
    pub source: Option<String>,
    /// Notes on the record as a whole.
    pub notes: Option<String>,
    /// Current contacts, in the order they were added.
    pub contacts: Vec<PartyContact>,
    /// The primary competent authority's id.
    pub primary: Option<String>,
    /// Contacts ever added (ids are never reused).
    pub added: u32,
    /// The steward of the last write, if a steward made it.
    pub last_steward: Option<Slug>,
    /// The day of the last check of the Party's record itself (made when no
    /// competent authority was known).
    #[serde(default)]
    pub last_attempt: Option<chrono::NaiveDate>,
    /// Why the record was retired, once it is (created in error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<String>,
    /// Open proposals of changes awaiting review (`BASEL_REVIEW=required`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<Proposal>,
    /// The steward on the Party's work, if one took it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assigned_to: Option<Slug>,
}

impl Authority {
    /// The contact with `id`.
    pub fn contact(&self, id: &str) -> Option<&PartyContact> {
        self.contacts.iter().find(|c| c.id == id)
    }

    /// The primary competent authority, if one is known.
    pub fn primary_contact(&self) -> Option<&PartyContact> {
        self.primary.as_deref().and_then(|id| self.contact(id))
    }

    /// The focal point, if known: the focal-point contact, else a
    /// competent authority that is also the focal point.
    pub fn focal_point(&self) -> Option<&PartyContact> {
        self.contacts
            .iter()
            .find(|c| c.role == Role::FocalPoint)
            .or_else(|| self.contacts.iter().find(|c| c.also_focal_point))
    }

    /// The competent authority that should be primary when none is
    /// designated: the first live one of national scope (all areas, all
    /// movements). An area- or movement-limited authority is never chosen
    /// by default.
    pub fn default_primary(&self, except: Option<&str>) -> Option<&PartyContact> {
        self.contacts.iter().find(|c| {
            c.role == Role::CompetentAuthority
                && c.national()
                && !c.defunct()
                && except != Some(c.id.as_str())
        })
    }

    /// The next free contact id.
    pub fn next_contact_id(&self) -> String {
        let mut n = self.added + 1;
        while self.contact(&format!("c{n}")).is_some() {
            n += 1;
        }
        format!("c{n}")
    }
}

impl Aggregate for Authority {
    const TYPE: &'static str = "authority";
    type Command = AuthorityCommand;
    type Event = AuthorityEvent;
    type Error = AuthorityError;

    fn decide(&self, command: &AuthorityCommand) -> Result<Vec<AuthorityEvent>, AuthorityError> {
        if self.retired.is_some() && !matches!(command, AuthorityCommand::Register(_)) {
            return Err(AuthorityError::Retired);
        }
        match command {
            AuthorityCommand::Register(register) => decide::register(self, register),
            AuthorityCommand::SubmitVerification(update) => {
                decide::submit_verification(self, update)
            }
            AuthorityCommand::AddContact(add) => decide_contacts::add(self, add),
            AuthorityCommand::RemoveContact(remove) => decide_contacts::remove(self, remove),
            AuthorityCommand::DesignatePrimary(designate) => {
                decide_contacts::designate(self, designate)
            }
            AuthorityCommand::Retire(retire) => decide::retire(self, retire),
            AuthorityCommand::SubmitVerificationWithEvidence(update, evidence) => {
                decide::submit_verification_with_evidence(self, update, evidence)
            }
            AuthorityCommand::Review(review) => review::decide(self, review),
            AuthorityCommand::Assign(steward) => {
                if self.country.is_none() {
                    return Err(AuthorityError::NotRegistered);
                }
                Ok(vec![AuthorityEvent::WorkAssigned(WorkAssigned {
                    steward: steward.clone(),
                })])
            }
        }
    }

    fn apply(&mut self, event: AuthorityEvent) {
        apply::apply(self, event);
    }
}
#[cfg(test)]
mod tests_contacts;
#[cfg(test)]
mod tests_review;
