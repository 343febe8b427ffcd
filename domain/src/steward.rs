//! The `Steward` aggregate: a person who keeps directory records true.
//!
//! Stewards authenticate with their own bearer token (never an API key). The
//! token is generated at the edge and only its SHA-256 hash is recorded.

use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregate, DomainEvent};
use crate::values::{Email, Slug};

/// A command for the `Steward` aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StewardCommand {
    /// Enrol a new steward.
    Enrol {
        /// The steward's id (also the aggregate id).
        id: Slug,
        /// Their name.
        name: String,
        /// Their e-mail address (never exposed by the API).
        email: Email,
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
}

/// An event of the `Steward` aggregate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StewardEvent {
    /// A steward was enrolled.
    StewardEnrolled {
        /// Their id.
        id: Slug,
        /// Their name.
        name: String,
        /// Their address.
        email: Email,
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
}

impl DomainEvent for StewardEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::StewardEnrolled { .. } => "StewardEnrolled",
            Self::StewardSuspended { .. } => "StewardSuspended",
            Self::StewardTokenRotated { .. } => "StewardTokenRotated",
        }
    }

    fn event_version(&self) -> &'static str {
        "1"
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
                    email: email.clone(),
                    token_hash: token_hash.clone(),
                }])
            }
            (_, None) => Err(StewardError::NotEnrolled),
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
            email: Email::parse("ana@example.org").expect("email"),
            token_hash: "h".into(),
        }
    }

    fn enrolled() -> StewardEvent {
        StewardEvent::StewardEnrolled {
            id: Slug::parse("ana").expect("slug"),
            name: "Ana".into(),
            email: Email::parse("ana@example.org").expect("email"),
            token_hash: "h".into(),
        }
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
