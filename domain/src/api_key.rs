//! The `ApiKey` aggregate: the free API key bound to one e-mail address.
//!
//! Its id is a hash of the normalised address (never the address), so subjects
//! and logs carry none. The key itself is derived at the edge (an HMAC of the
//! address and the key's generation under the server secret) and only its
//! hash and a short prefix for support are recorded. Registering again while
//! a key is active returns the same key: the aggregate records that as
//! `RegistrationRepeated` for abuse monitoring.

use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregate, DomainEvent};
use crate::values::Email;

/// A command for the `ApiKey` aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiKeyCommand {
    /// Issue a key for an address, or recognise a repeated registration.
    Register(RegisterApiKey),
    /// Revoke the active key; the next registration issues a new generation.
    Revoke {
        /// Why, for the audit trail.
        reason: String,
    },
}

/// A registration. The edge derives the key for `generation` (see
/// [`ApiKey::generation_for_registration`]) and sends only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterApiKey {
    /// The registrant's address.
    pub email: Email,
    /// The generation the key was derived for.
    pub generation: u32,
    /// SHA-256 of the key, hex.
    pub key_hash: String,
    /// The key's first characters, for support conversations.
    pub key_prefix: String,
}

/// An event of the `ApiKey` aggregate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApiKeyEvent {
    /// A key was issued.
    ApiKeyIssued {
        /// The registrant's address.
        email: Email,
        /// The key's generation (1 for the first key of an address).
        generation: u32,
        /// SHA-256 of the key, hex.
        key_hash: String,
        /// The key's first characters.
        key_prefix: String,
    },
    /// The key was revoked.
    ApiKeyRevoked {
        /// The revoked generation.
        generation: u32,
        /// Why.
        reason: String,
    },
    /// The same address registered again and got its active key back.
    RegistrationRepeated {
        /// The active generation.
        generation: u32,
    },
}

impl DomainEvent for ApiKeyEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::ApiKeyIssued { .. } => "ApiKeyIssued",
            Self::ApiKeyRevoked { .. } => "ApiKeyRevoked",
            Self::RegistrationRepeated { .. } => "RegistrationRepeated",
        }
    }

    fn event_version(&self) -> &'static str {
        "1"
    }
}

/// Why a command on a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiKeyError {
    /// The key was derived for another generation than the one due (a
    /// concurrent registration or revocation happened); derive again.
    #[error("key generation {offered} is not the one due ({due})")]
    StaleGeneration {
        /// The generation offered.
        offered: u32,
        /// The generation due.
        due: u32,
    },
    /// The address does not belong to this key.
    #[error("the address does not belong to this key")]
    WrongAddress,
    /// There is no active key to revoke.
    #[error("there is no active key")]
    NotActive,
}

/// The state of one address's key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// The address, once registered.
    pub email: Option<Email>,
    /// The latest generation issued (0 before the first).
    pub generation: u32,
    /// Whether that generation is active.
    pub active: bool,
}

impl ApiKey {
    /// The generation a registration now should derive its key for: the
    /// active one (so the same key comes back), or the next after a revocation.
    pub fn generation_for_registration(&self) -> u32 {
        if self.active {
            self.generation
        } else {
            self.generation + 1
        }
    }
}

impl Aggregate for ApiKey {
    const TYPE: &'static str = "api_key";
    type Command = ApiKeyCommand;
    type Event = ApiKeyEvent;
    type Error = ApiKeyError;

    fn decide(&self, command: &ApiKeyCommand) -> Result<Vec<ApiKeyEvent>, ApiKeyError> {
        match command {
            ApiKeyCommand::Register(register) => {
                if self
                    .email
                    .as_ref()
                    .is_some_and(|e| e.normalized() != register.email.normalized())
                {
                    return Err(ApiKeyError::WrongAddress);
                }
                let due = self.generation_for_registration();
                if register.generation != due {
                    return Err(ApiKeyError::StaleGeneration {
                        offered: register.generation,
                        due,
                    });
                }
                if self.active {
                    return Ok(vec![ApiKeyEvent::RegistrationRepeated { generation: due }]);
                }
                Ok(vec![ApiKeyEvent::ApiKeyIssued {
                    email: register.email.clone(),
                    generation: due,
                    key_hash: register.key_hash.clone(),
                    key_prefix: register.key_prefix.clone(),
                }])
            }
            ApiKeyCommand::Revoke { reason } if self.active => {
                Ok(vec![ApiKeyEvent::ApiKeyRevoked {
                    generation: self.generation,
                    reason: reason.clone(),
                }])
            }
            ApiKeyCommand::Revoke { .. } => Err(ApiKeyError::NotActive),
        }
    }

    fn apply(&mut self, event: ApiKeyEvent) {
        match event {
            ApiKeyEvent::ApiKeyIssued {
                email, generation, ..
            } => {
                self.email = Some(email);
                self.generation = generation;
                self.active = true;
            }
            ApiKeyEvent::ApiKeyRevoked { .. } => self.active = false,
            ApiKeyEvent::RegistrationRepeated { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::given;

    fn email() -> Email {
        Email::parse("ana@example.org").expect("email")
    }

    fn register(generation: u32) -> ApiKeyCommand {
        ApiKeyCommand::Register(RegisterApiKey {
            email: email(),
            generation,
            key_hash: "h".into(),
            key_prefix: "bsl_ab".into(),
        })
    }

    fn issued(generation: u32) -> ApiKeyEvent {
        ApiKeyEvent::ApiKeyIssued {
            email: email(),
            generation,
            key_hash: "h".into(),
            key_prefix: "bsl_ab".into(),
        }
    }

    #[test]
    fn a_first_registration_issues_generation_one() {
        given::<ApiKey>(vec![])
            .when(register(1))
            .then_expect(vec![issued(1)]);
    }

    #[test]
    fn registering_again_returns_the_active_key_and_is_recorded() {
        given::<ApiKey>(vec![issued(1)])
            .when(register(1))
            .then_expect(vec![ApiKeyEvent::RegistrationRepeated { generation: 1 }]);
    }

    #[test]
    fn a_key_derived_for_the_wrong_generation_is_refused() {
        given::<ApiKey>(vec![issued(1)])
            .when(register(2))
            .then_refused(ApiKeyError::StaleGeneration { offered: 2, due: 1 });
    }

    #[test]
    fn after_revocation_the_next_registration_issues_a_new_generation() {
        let revoked = ApiKeyEvent::ApiKeyRevoked {
            generation: 1,
            reason: "abuse".into(),
        };
        given::<ApiKey>(vec![issued(1), revoked])
            .when(register(2))
            .then_expect(vec![issued(2)]);
    }

    #[test]
    fn only_an_active_key_can_be_revoked() {
        given::<ApiKey>(vec![])
            .when(ApiKeyCommand::Revoke { reason: "x".into() })
            .then_refused(ApiKeyError::NotActive);
    }

    #[test]
    fn another_address_cannot_register_under_this_id() {
        let other = Email::parse("bob@example.org").expect("email");
        let command = ApiKeyCommand::Register(RegisterApiKey {
            email: other,
            generation: 1,
            key_hash: "h".into(),
            key_prefix: "p".into(),
        });
        given::<ApiKey>(vec![issued(1)])
            .when(command)
            .then_refused(ApiKeyError::WrongAddress);
    }
}
