//! The `ApiKey` aggregate: the free API key bound to one e-mail address.
//!
//! Its id is a keyed hash of the normalised address (never the address), so
//! subjects and logs carry none. The key itself is derived at the edge (an
//! HMAC of the address and the key's generation under the server secret) and
//! only its hash and a short prefix for support are recorded. The address is
//! recorded sealed under the registrant's own key ([`SealedAddress`]), so
//! forgetting the registrant ([`ApiKeyCommand::Forget`]) can erase it.
//!
//! Registering again while a key is active returns the same key and records
//! nothing: a repeat is not a fact worth an event, and an aggregate that grew
//! with every repeat would get slower to load with each one. (Events written
//! before this rule may hold `RegistrationRepeated`; they still decode.)

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregate, DomainEvent};
use crate::values::{SealedAddress, StoredAddress};

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
    /// Erase the registrant: revoke the active key, and record that the
    /// address is forgotten (its subject key is destroyed outside the log).
    Forget,
    /// Mail the active key to its address (`BASEL_KEY_DELIVERY=email`): at
    /// most [`KEY_MAILS_PER_DAY`] times in any 24 hours.
    RequestKeyMail {
        /// When the registrant asked (the caller's clock).
        at: DateTime<Utc>,
    },
    /// Stop sending notices to this address (the one-click unsubscribe link).
    Unsubscribe,
}

/// How many key mails one address can ask for in any 24 hours: registering
/// again re-sends the key, but nobody can flood an address with them.
pub const KEY_MAILS_PER_DAY: usize = 5;

/// A registration. The edge derives the key for `generation` (see
/// [`ApiKey::generation_for_registration`]) and sends only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterApiKey {
    /// The registrant's address, sealed under their subject key.
    pub email: SealedAddress,
    /// The generation the key was derived for.
    pub generation: u32,
    /// SHA-256 of the key, hex.
    pub key_hash: String,
    /// The key's first characters, for support conversations.
    pub key_prefix: String,
}

/// What the audit trail says when a key is revoked because its registrant
/// was forgotten.
pub const FORGOTTEN_REASON: &str = "the registrant asked to be forgotten";

/// An event of the `ApiKey` aggregate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApiKeyEvent {
    /// A key was issued.
    ApiKeyIssued {
        /// The registrant's address: sealed (plaintext only in events
        /// written before sealing, `event_version` 1).
        email: StoredAddress,
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
    /// The same address registered again and got its active key back. No
    /// longer recorded (see the module documentation); kept so that old
    /// events decode.
    RegistrationRepeated {
        /// The active generation.
        generation: u32,
    },
    /// The registrant was forgotten: the key that sealed their address is
    /// destroyed, so no event of this aggregate reveals it any more.
    RegistrantForgotten {},
    /// The key of `generation` is to be mailed to the registrant's address
    /// (the outbox derives the key again at send time; it is never stored).
    KeyMailRequested {
        /// The generation to mail.
        generation: u32,
        /// When it was asked for.
        requested_at: DateTime<Utc>,
    },
    /// The registrant asked for no more notices.
    NoticesUnsubscribed,
}

impl DomainEvent for ApiKeyEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::ApiKeyIssued { .. } => "ApiKeyIssued",
            Self::ApiKeyRevoked { .. } => "ApiKeyRevoked",
            Self::RegistrationRepeated { .. } => "RegistrationRepeated",
            Self::RegistrantForgotten { .. } => "RegistrantForgotten",
            Self::KeyMailRequested { .. } => "KeyMailRequested",
            Self::NoticesUnsubscribed => "NoticesUnsubscribed",
        }
    }

    /// `ApiKeyIssued` is at version 2 since its address is sealed; version
    /// 1 (plaintext) still decodes.
    fn event_version(&self) -> &'static str {
        match self {
            Self::ApiKeyIssued { .. } => "2",
            Self::ApiKeyRevoked { .. }
            | Self::RegistrationRepeated { .. }
            | Self::RegistrantForgotten { .. }
            | Self::KeyMailRequested { .. }
            | Self::NoticesUnsubscribed => "1",
        }
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
    /// There is no active key to revoke.
    #[error("this address has no active key")]
    NotActive,
    /// Nothing to forget: the address never registered, or was forgotten
    /// and has not registered since.
    #[error("this address holds no registration to forget")]
    NothingToForget,
    /// The key was mailed [`KEY_MAILS_PER_DAY`] times in the last 24 hours.
    #[error("the key was mailed {KEY_MAILS_PER_DAY} times in the last 24 hours")]
    TooManyKeyMails,
    /// The address unsubscribed already (or never registered).
    #[error("this address receives no notices")]
    NotSubscribed,
}

/// The state of one address's key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// Whether the address registered and was not forgotten since.
    pub registered: bool,
    /// The latest generation issued (0 before the first).
    pub generation: u32,
    /// Whether that generation is active.
    pub active: bool,
    /// When the key was last asked for by mail (the latest
    /// [`KEY_MAILS_PER_DAY`], oldest first).
    #[serde(default)]
    pub key_mails: Vec<DateTime<Utc>>,
    /// Whether the registrant declined notices.
    #[serde(default)]
    pub unsubscribed: bool,
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

    fn register(&self, register: &RegisterApiKey) -> Result<Vec<ApiKeyEvent>, ApiKeyError> {
        let due = self.generation_for_registration();
        if register.generation != due {
            return Err(ApiKeyError::StaleGeneration {
                offered: register.generation,
                due,
            });
        }
        if self.active {
            return Ok(vec![]);
        }
        Ok(vec![ApiKeyEvent::ApiKeyIssued {
            email: StoredAddress::Sealed(register.email.clone()),
            generation: due,
            key_hash: register.key_hash.clone(),
            key_prefix: register.key_prefix.clone(),
        }])
    }

    fn forget(&self) -> Result<Vec<ApiKeyEvent>, ApiKeyError> {
        if !self.registered {
            return Err(ApiKeyError::NothingToForget);
        }
        let mut events = Vec::with_capacity(2);
        if self.active {
            events.push(ApiKeyEvent::ApiKeyRevoked {
                generation: self.generation,
                reason: FORGOTTEN_REASON.into(),
            });
        }
        events.push(ApiKeyEvent::RegistrantForgotten {});
        Ok(events)
    }
}

impl Aggregate for ApiKey {
    const TYPE: &'static str = "api_key";
    type Command = ApiKeyCommand;
    type Event = ApiKeyEvent;
    type Error = ApiKeyError;

    fn decide(&self, command: &ApiKeyCommand) -> Result<Vec<ApiKeyEvent>, ApiKeyError> {
        match command {
            ApiKeyCommand::Register(register) => self.register(register),
            ApiKeyCommand::Revoke { reason } if self.active => {
                Ok(vec![ApiKeyEvent::ApiKeyRevoked {
                    generation: self.generation,
                    reason: reason.clone(),
                }])
            }
            ApiKeyCommand::Revoke { .. } => Err(ApiKeyError::NotActive),
            ApiKeyCommand::Forget => self.forget(),
            ApiKeyCommand::RequestKeyMail { at } => self.decide_key_mail(*at),
            ApiKeyCommand::Unsubscribe if self.registered && !self.unsubscribed => {
                Ok(vec![ApiKeyEvent::NoticesUnsubscribed])
            }
            ApiKeyCommand::Unsubscribe => Err(ApiKeyError::NotSubscribed),
        }
    }

    fn apply(&mut self, event: ApiKeyEvent) {
        match event {
            ApiKeyEvent::ApiKeyIssued { generation, .. } => {
                self.registered = true;
                self.generation = generation;
                self.active = true;
            }
            ApiKeyEvent::ApiKeyRevoked { .. } => self.active = false,
            ApiKeyEvent::RegistrationRepeated { .. } => {}
            ApiKeyEvent::RegistrantForgotten {} => {
                self.registered = false;
                self.active = false;
            }
            ApiKeyEvent::KeyMailRequested { requested_at, .. } => {
                self.key_mails.push(requested_at);
                let excess = self.key_mails.len().saturating_sub(KEY_MAILS_PER_DAY);
                self.key_mails.drain(..excess);
            }
            ApiKeyEvent::NoticesUnsubscribed => self.unsubscribed = true,
        }
    }
}

impl ApiKey {
    fn decide_key_mail(&self, at: DateTime<Utc>) -> Result<Vec<ApiKeyEvent>, ApiKeyError> {
        if !self.active {
            return Err(ApiKeyError::NotActive);
        }
        let day_ago = at - Duration::hours(24);
        let recent = self.key_mails.iter().filter(|t| **t > day_ago).count();
        if recent >= KEY_MAILS_PER_DAY {
            return Err(ApiKeyError::TooManyKeyMails);
        }
        Ok(vec![ApiKeyEvent::KeyMailRequested {
            generation: self.generation,
            requested_at: at,
        }])
    }

    /// Whether notices go to this registrant: a key is active and they did
    /// not unsubscribe.
    pub fn receives_notices(&self) -> bool {
        self.active && !self.unsubscribed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::given;

    fn sealed() -> SealedAddress {
        SealedAddress {
            key: "k1".into(),
            sealed: "00".into(),
        }
    }

    fn register(generation: u32) -> ApiKeyCommand {
        ApiKeyCommand::Register(RegisterApiKey {
            email: sealed(),
            generation,
            key_hash: "h".into(),
            key_prefix: "bsl_ab".into(),
        })
    }

    fn issued(generation: u32) -> ApiKeyEvent {
        ApiKeyEvent::ApiKeyIssued {
            email: StoredAddress::Sealed(sealed()),
            generation,
            key_hash: "h".into(),
            key_prefix: "bsl_ab".into(),
        }
    }

    fn revoked(generation: u32, reason: &str) -> ApiKeyEvent {
        ApiKeyEvent::ApiKeyRevoked {
            generation,
            reason: reason.into(),
        }
    }

    #[test]
    fn a_first_registration_issues_generation_one() {
        given::<ApiKey>(vec![])
            .when(register(1))
            .then_expect(vec![issued(1)]);
    }

    #[test]
    fn registering_again_returns_the_active_key_and_records_nothing() {
        given::<ApiKey>(vec![issued(1)])
            .when(register(1))
            .then_expect(vec![]);
    }

    #[test]
    fn a_key_derived_for_the_wrong_generation_is_refused() {
        given::<ApiKey>(vec![issued(1)])
            .when(register(2))
            .then_refused(ApiKeyError::StaleGeneration { offered: 2, due: 1 });
    }

    #[test]
    fn after_revocation_the_next_registration_issues_a_new_generation() {
        given::<ApiKey>(vec![issued(1), revoked(1, "abuse")])
            .when(register(2))
            .then_expect(vec![issued(2)]);
    }

    #[test]
    fn only_an_active_key_can_be_revoked() {
        given::<ApiKey>(vec![])
            .when(ApiKeyCommand::Revoke { reason: "x".into() })
            .then_refused(ApiKeyError::NotActive);
        given::<ApiKey>(vec![issued(1)])
            .when(ApiKeyCommand::Revoke { reason: "x".into() })
            .then_expect(vec![revoked(1, "x")]);
    }

    fn at(hour: u32) -> DateTime<Utc> {
        chrono::TimeZone::with_ymd_and_hms(&Utc, 2026, 3, 1, hour, 0, 0).unwrap()
    }

    fn mailed(hour: u32) -> ApiKeyEvent {
        ApiKeyEvent::KeyMailRequested {
            generation: 1,
            requested_at: at(hour),
        }
    }

    #[test]
    fn an_active_key_can_be_mailed() {
        given::<ApiKey>(vec![issued(1)])
            .when(ApiKeyCommand::RequestKeyMail { at: at(9) })
            .then_expect(vec![mailed(9)]);
    }

    #[test]
    fn no_key_is_mailed_without_an_active_key() {
        given::<ApiKey>(vec![])
            .when(ApiKeyCommand::RequestKeyMail { at: at(9) })
            .then_refused(ApiKeyError::NotActive);
    }

    #[test]
    fn a_sixth_key_mail_within_a_day_is_refused_and_allowed_a_day_later() {
        let history = || {
            let mut events = vec![issued(1)];
            events.extend((1..=5).map(mailed));
            events
        };
        given::<ApiKey>(history())
            .when(ApiKeyCommand::RequestKeyMail { at: at(6) })
            .then_refused(ApiKeyError::TooManyKeyMails);
        let next_day = at(1) + Duration::hours(24) + Duration::seconds(1);
        given::<ApiKey>(history())
            .when(ApiKeyCommand::RequestKeyMail { at: next_day })
            .then_expect(vec![ApiKeyEvent::KeyMailRequested {
                generation: 1,
                requested_at: next_day,
            }]);
    }

    #[test]
    fn unsubscribing_is_recorded_once() {
        given::<ApiKey>(vec![issued(1)])
            .when(ApiKeyCommand::Unsubscribe)
            .then_expect(vec![ApiKeyEvent::NoticesUnsubscribed]);
        given::<ApiKey>(vec![issued(1), ApiKeyEvent::NoticesUnsubscribed])
            .when(ApiKeyCommand::Unsubscribe)
            .then_refused(ApiKeyError::NotSubscribed);
        given::<ApiKey>(vec![])
            .when(ApiKeyCommand::Unsubscribe)
            .then_refused(ApiKeyError::NotSubscribed);
    }

    #[test]
    fn forgetting_revokes_the_active_key_and_records_the_erasure() {
        given::<ApiKey>(vec![issued(1)])
            .when(ApiKeyCommand::Forget)
            .then_expect(vec![
                revoked(1, FORGOTTEN_REASON),
                ApiKeyEvent::RegistrantForgotten {},
            ]);
        given::<ApiKey>(vec![issued(1), revoked(1, "x")])
            .when(ApiKeyCommand::Forget)
            .then_expect(vec![ApiKeyEvent::RegistrantForgotten {}]);
    }

    #[test]
    fn there_is_nothing_to_forget_before_a_registration_or_twice() {
        given::<ApiKey>(vec![])
            .when(ApiKeyCommand::Forget)
            .then_refused(ApiKeyError::NothingToForget);
        given::<ApiKey>(vec![
            issued(1),
            revoked(1, FORGOTTEN_REASON),
            ApiKeyEvent::RegistrantForgotten {},
        ])
        .when(ApiKeyCommand::Forget)
        .then_refused(ApiKeyError::NothingToForget);
    }

    #[test]
    fn a_forgotten_address_registering_again_gets_a_new_generation() {
        given::<ApiKey>(vec![
            issued(1),
            revoked(1, FORGOTTEN_REASON),
            ApiKeyEvent::RegistrantForgotten {},
        ])
        .when(register(2))
        .then_expect(vec![issued(2)]);
    }

    #[test]
    fn a_legacy_plaintext_issue_still_decodes() {
        let json = r#"{"ApiKeyIssued":{"email":"ana@example.org","generation":1,"key_hash":"h","key_prefix":"p"}}"#;
        let event: ApiKeyEvent = serde_json::from_str(json).expect("v1 decodes");
        assert!(matches!(
            event,
            ApiKeyEvent::ApiKeyIssued {
                email: StoredAddress::Plain(_),
                ..
            }
        ));
    }
}
