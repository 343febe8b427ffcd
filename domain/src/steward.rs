//! The `Steward` aggregate: a person who keeps directory records true.
//!
//! Stewards authenticate with their own bearer token (never an API key). The
//! token is generated at the edge and only its SHA-256 hash is recorded.
//! Their address is recorded sealed under their own subject key, so that
//! forgetting them ([`StewardCommand::Forget`]) erases it while their id and
//! name stay in the history of the records they checked.

use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregate, DomainEvent};
use crate::values::{SealedAddress, Slug, StoredAddress};

/// A command for the `Steward` aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StewardCommand {
    /// Enrol a new steward.
    Enrol {
        /// The steward's id (also the aggregate id).
        id: Slug,
        /// Their name.
        name: String,
        /// Their e-mail address, sealed (never exposed by the API).
        email: SealedAddress,
        /// SHA-256 of their bearer token, hex.
        token_hash: String,
    },
    /// Stop a steward's token from working.
    Suspend {
        /// Why.
        reason: String,
    },
    /// Replace the steward's token.
    RotateToken {
        /// SHA-256 of the new token, hex.
        token_hash: String,
    },
    /// Erase the steward's address (its subject key is destroyed outside
    /// the log) and suspend them: an operator cannot reach them any more.
    Forget,
}

/// What the audit trail says when a steward is suspended because they were
/// forgotten.
pub const FORGOTTEN_REASON: &str = "the steward asked to be forgotten";

/// An event of the `Steward` aggregate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StewardEvent {
    /// A steward was enrolled.
    StewardEnrolled {
        /// Their id.
        id: Slug,
        /// Their name.
        name: String,
        /// Their address: sealed (plaintext only in events written before
        /// sealing, `event_version` 1).
        email: StoredAddress,
        /// SHA-256 of their token, hex.
        token_hash: String,
    },
    /// A steward was suspended.
    StewardSuspended {
        /// Why.
        reason: String,
    },
    /// A steward's token was replaced.
    StewardTokenRotated {
        /// SHA-256 of the new token, hex.
        token_hash: String,
    },
    /// The steward's address was erased (its subject key destroyed); their
    /// id and name stay.
    StewardForgotten {},
}

impl DomainEvent for StewardEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::StewardEnrolled { .. } => "StewardEnrolled",
            Self::StewardSuspended { .. } => "StewardSuspended",
            Self::StewardTokenRotated { .. } => "StewardTokenRotated",
            Self::StewardForgotten { .. } => "StewardForgotten",
        }
    }

    /// `StewardEnrolled` is at version 2 since its address is sealed;
    /// version 1 (plaintext) still decodes.
    fn event_version(&self) -> &'static str {
        match self {
            Self::StewardEnrolled { .. } => "2",
            Self::StewardSuspended { .. }
            | Self::StewardTokenRotated { .. }
            | Self::StewardForgotten { .. } => "1",
        }
    }
}

/// Why a command on a steward was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StewardError {
    /// The id is taken.
    #[error("a steward with id {0} is already enrolled")]
    AlreadyEnrolled(Slug),
    /// No such steward.
    #[error("no steward is enrolled under this id")]
    NotEnrolled,
    /// Already suspended.
    #[error("the steward is already suspended")]
    AlreadySuspended,
    /// The name is empty or too long.
    #[error("the steward's name is required (at most 200 characters)")]
    InvalidName,
    /// Already forgotten.
    #[error("the steward was already forgotten")]
    AlreadyForgotten,
}

/// The state of one steward.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Steward {
    /// The id, once enrolled.
    pub id: Option<Slug>,
    /// The name.
    pub name: String,
    /// Whether the steward is suspended.
    pub suspended: bool,
    /// Whether their address was erased.
    pub forgotten: bool,
}

impl Aggregate for Steward {
    const TYPE: &'static str = "steward";
    type Command = StewardCommand;
    type Event = StewardEvent;
    type Error = StewardError;

    fn decide(&self, command: &StewardCommand) -> Result<Vec<StewardEvent>, StewardError> {
        match (command, &self.id) {
            (StewardCommand::Enrol { id, .. }, Some(_)) => {
                Err(StewardError::AlreadyEnrolled(id.clone()))
            }
            (
                StewardCommand::Enrol {
                    id,
                    name,
                    email,
                    token_hash,
                },
                None,
            ) => {
                let name = name.trim();
                if name.is_empty()
                    || name.chars().count() > 200
                    || name.chars().any(char::is_control)
                {
                    return Err(StewardError::InvalidName);
                }
                Ok(vec![StewardEvent::StewardEnrolled {
                    id: id.clone(),
                    name: name.to_owned(),
                    email: StoredAddress::Sealed(email.clone()),
                    token_hash: token_hash.clone(),
                }])
            }
            (_, None) => Err(StewardError::NotEnrolled),
            (StewardCommand::Forget, Some(_)) if self.forgotten => {
                Err(StewardError::AlreadyForgotten)
            }
            (StewardCommand::Forget, Some(_)) => {
                let mut events = Vec::with_capacity(2);
                if !self.suspended {
                    events.push(StewardEvent::StewardSuspended {
                        reason: FORGOTTEN_REASON.into(),
                    });
                }
                events.push(StewardEvent::StewardForgotten {});
                Ok(events)
            }
            (StewardCommand::Suspend { .. }, Some(_)) if self.suspended => {
                Err(StewardError::AlreadySuspended)
            }
            (StewardCommand::Suspend { reason }, Some(_)) => {
                Ok(vec![StewardEvent::StewardSuspended {
                    reason: reason.clone(),
                }])
            }
            (StewardCommand::RotateToken { token_hash }, Some(_)) => {
                Ok(vec![StewardEvent::StewardTokenRotated {
                    token_hash: token_hash.clone(),
                }])
            }
        }
    }

    fn apply(&mut self, event: StewardEvent) {
        match event {
            StewardEvent::StewardEnrolled { id, name, .. } => {
                self.id = Some(id);
                self.name = name;
            }
            StewardEvent::StewardSuspended { .. } => self.suspended = true,
            StewardEvent::StewardTokenRotated { .. } => {}
            StewardEvent::StewardForgotten {} => self.forgotten = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::given;

    fn enrol(name: &str) -> StewardCommand {
        StewardCommand::Enrol {
            id: Slug::parse("ana").expect("slug"),
            name: name.into(),
            email: sealed(),
            token_hash: "h".into(),
        }
    }

    fn sealed() -> SealedAddress {
        SealedAddress {
            key: "k1".into(),
            sealed: "00".into(),
        }
    }

    fn enrolled() -> StewardEvent {
        StewardEvent::StewardEnrolled {
            id: Slug::parse("ana").expect("slug"),
            name: "Ana".into(),
            email: StoredAddress::Sealed(sealed()),
            token_hash: "h".into(),
        }
    }

    #[test]
    fn forgetting_a_steward_suspends_them_once_and_records_the_erasure() {
        given::<Steward>(vec![enrolled()])
            .when(StewardCommand::Forget)
            .then_expect(vec![
                StewardEvent::StewardSuspended {
                    reason: FORGOTTEN_REASON.into(),
                },
                StewardEvent::StewardForgotten {},
            ]);
        given::<Steward>(vec![enrolled(), StewardEvent::StewardForgotten {}])
            .when(StewardCommand::Forget)
            .then_refused(StewardError::AlreadyForgotten);
        given::<Steward>(vec![])
            .when(StewardCommand::Forget)
            .then_refused(StewardError::NotEnrolled);
    }

    #[test]
    fn a_steward_is_enrolled_with_a_token_hash() {
        given::<Steward>(vec![])
            .when(enrol(" Ana "))
            .then_expect(vec![enrolled()]);
    }

    #[test]
    fn an_id_is_enrolled_only_once() {
        given::<Steward>(vec![enrolled()])
            .when(enrol("Ana"))
            .then_refused(StewardError::AlreadyEnrolled(
                Slug::parse("ana").expect("slug"),
            ));
    }

    #[test]
    fn a_steward_needs_a_name() {
        given::<Steward>(vec![])
            .when(enrol("  "))
            .then_refused(StewardError::InvalidName);
    }

    #[test]
    fn a_steward_is_suspended_once() {
        let suspended = StewardEvent::StewardSuspended {
            reason: "left".into(),
        };
        given::<Steward>(vec![enrolled()])
            .when(StewardCommand::Suspend {
                reason: "left".into(),
            })
            .then_expect(vec![suspended.clone()]);
        given::<Steward>(vec![enrolled(), suspended])
            .when(StewardCommand::Suspend {
                reason: "again".into(),
            })
            .then_refused(StewardError::AlreadySuspended);
    }

    #[test]
    fn an_unknown_steward_cannot_be_suspended_or_rotated() {
        given::<Steward>(vec![])
            .when(StewardCommand::Suspend { reason: "x".into() })
            .then_refused(StewardError::NotEnrolled);
        given::<Steward>(vec![])
            .when(StewardCommand::RotateToken {
                token_hash: "n".into(),
            })
            .then_refused(StewardError::NotEnrolled);
    }

    #[test]
    fn a_token_can_be_rotated() {
        given::<Steward>(vec![enrolled()])
            .when(StewardCommand::RotateToken {
                token_hash: "n".into(),
            })
            .then_expect(vec![StewardEvent::StewardTokenRotated {
                token_hash: "n".into(),
            }]);
    }
}
