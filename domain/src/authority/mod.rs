//! The `Authority` aggregate: one country's competent-authority record.
//!
//! Rules (each refusal is an [`AuthorityError`]):
//! - a country is registered once;
//! - e-mail and phone are validated (phone as `+CC-...` with hyphens);
//! - `checked_on` is not in the future and not before the previous check;
//! - a record cannot be verified while a required field (name, e-mail,
//!   phone) is empty;
//! - a check that changes nothing is still recorded.

mod commands;
mod contact;
mod decide;
mod events;
#[cfg(test)]
mod tests;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

pub use commands::{
    AuthorityCommand, ContactPatch, RegisterAuthority, SubmitVerificationUpdate, VerificationMethod,
};
pub use contact::{parse_field, Contact, ContactField, ContactInput, FieldProblem};
pub use events::{
    AuthorityEvent, AuthorityRegistered, ContactDetailsChanged, FieldChange, VerificationRecorded,
};

use crate::aggregate::Aggregate;
use crate::values::CountryCode;

/// Why a command on an authority was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthorityError {
    /// The country is already in the directory.
    #[error("the authority of {0} is already registered")]
    AlreadyRegistered(CountryCode),
    /// The country is not in the directory.
    #[error("no authority is registered for this country")]
    NotRegistered,
    /// One or more fields are invalid.
    #[error("{} invalid field(s): {}", .0.len(), .0.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<FieldProblem>),
}

/// The state of one country's record, rebuilt from its events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Authority {
    /// The country; `None` until registered.
    pub country: Option<CountryCode>,
    /// Its name in English.
    pub country_name: String,
    /// Current contact details.
    pub contact: Contact,
    /// Whether the record is verified.
    pub verified: bool,
    /// The day of the last check.
    pub last_checked: Option<NaiveDate>,
}

impl Aggregate for Authority {
    const TYPE: &'static str = "authority";
    type Command = AuthorityCommand;
    type Event = AuthorityEvent;
    type Error = AuthorityError;

    fn decide(&self, command: &AuthorityCommand) -> Result<Vec<AuthorityEvent>, AuthorityError> {
        match command {
            AuthorityCommand::Register(register) => decide::register(self, register),
            AuthorityCommand::SubmitVerification(update) => {
                decide::submit_verification(self, update)
            }
        }
    }

    fn apply(&mut self, event: AuthorityEvent) {
        match event {
            AuthorityEvent::AuthorityRegistered(e) => {
                self.country = Some(e.country);
                self.country_name = e.country_name;
                self.contact = e.contact;
                self.verified = e.verified;
                self.last_checked = e.last_checked;
            }
            AuthorityEvent::ContactDetailsChanged(e) => {
                for change in e.changes {
                    self.contact.set(change.field, change.new);
                }
            }
            AuthorityEvent::VerificationRecorded(e) => {
                self.verified = e.verified;
                self.last_checked = Some(e.checked_on);
            }
        }
    }
}
