//! Registration for free API keys, and their revocation.

use secrecy::{ExposeSecret, SecretString};

use domain::api_key::{ApiKey, ApiKeyCommand, ApiKeyError, RegisterApiKey};
use domain::metadata::Metadata;
use domain::values::Email;

use crate::executor::{Committed, Executor};
use crate::identity::AddressBook;
use crate::secrets::{hash_secret, key_prefix, ServerSecret};
use crate::store::Backend;
use crate::CommandError;

/// How many times a registration retries a lost race before giving up.
const ATTEMPTS: usize = 5;

/// The answer to a registration.
pub struct Registration {
    /// The key (derived again on every registration, never stored).
    pub api_key: SecretString,
    /// False when the address already had this key.
    pub created: bool,
    /// Where the registration landed in the log (`events: 0` and position
    /// 0 when the key was active already: nothing is recorded then).
    pub committed: Committed,
}

/// The write side of API-key registration.
pub struct ApiKeyCommands {
    executor: Executor<ApiKey>,
    secret: ServerSecret,
    addresses: AddressBook,
}

impl ApiKeyCommands {
    /// Commands writing to `backend`, deriving keys under `secret`.
    pub fn new(backend: &Backend, secret: ServerSecret) -> Self {
        Self {
            executor: Executor::new(backend),
            addresses: AddressBook::new(backend, &secret),
            secret,
        }
    }

    /// Registers an address. The same address (case and surrounding spaces
    /// ignored) gets the same key back while it is active. A retry under an
    /// `Idempotency-Key` is the caller's to answer first
    /// ([`ApiKeyCommands::replayed`]); one racing the original is found by
    /// the executor.
    ///
    /// # Errors
    /// [`CommandError::Conflict`] when concurrent registrations of the same
    /// address kept winning the race; infrastructure errors.
    pub async fn register(
        &self,
        email: &Email,
        metadata: &Metadata,
    ) -> Result<Registration, CommandError<ApiKeyError>> {
        let normalized = email.normalized();
        let id = self.secret.api_key_id(&normalized);
        let mut last_error = CommandError::Conflict;
        for _ in 0..ATTEMPTS {
            let state = self.executor.load(&id).await?;
            let generation = state.generation_for_registration();
            let api_key = self.secret.api_key(&normalized, generation);
            if state.active {
                return Ok(Registration {
                    api_key,
                    created: false,
                    committed: Committed {
                        aggregate_id: id,
                        sequence: 0,
                        position: 0,
                        events: 0,
                        replayed: false,
                    },
                });
            }
            let sealed = self
                .addresses
                .seal(email)
                .await
                .map_err(|e| CommandError::Infrastructure(e.to_string()))?;
            let command = ApiKeyCommand::Register(RegisterApiKey {
                email: sealed,
                generation,
                key_hash: hash_secret(api_key.expose_secret()),
                key_prefix: key_prefix(api_key.expose_secret()),
            });
            match self.executor.execute(&id, &command, metadata).await {
                Ok(committed) => {
                    return Ok(Registration {
                        api_key,
                        created: !state.active,
                        committed,
                    })
                }
                Err(
                    CommandError::Conflict
                    | CommandError::Rejected(ApiKeyError::StaleGeneration { .. }),
                ) => {
                    last_error = CommandError::Conflict;
                }
                Err(other) => return Err(other),
            }
        }
        Err(last_error)
    }

    /// The original answer to a registration retried under the same
    /// `Idempotency-Key` as an earlier one that recorded something: `None`
    /// when `metadata` carries no key or the key is new.
    ///
    /// # Errors
    /// [`CommandError::IdempotencyKeyReused`] when the key was used for
    /// another request; infrastructure errors.
    pub async fn replayed(
        &self,
        email: &Email,
        metadata: &Metadata,
    ) -> Result<Option<Registration>, CommandError<ApiKeyError>> {
        let Some(committed) = self.executor.replay(metadata).await? else {
            return Ok(None);
        };
        let normalized = email.normalized();
        let state = self.executor.load(&committed.aggregate_id).await?;
        Ok(Some(Registration {
            api_key: self.secret.api_key(&normalized, state.generation),
            created: true,
            committed,
        }))
    }

    /// Revokes the active key of `email`: it is refused once the `api_keys`
    /// projection applies the revocation; registering again issues a new
    /// key (the next generation). The event names the generation, never the
    /// address.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] with [`ApiKeyError::NotActive`] when the
    /// address holds no active key; infrastructure errors.
    pub async fn revoke(
        &self,
        email: &Email,
        reason: &str,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<ApiKeyError>> {
        let command = ApiKeyCommand::Revoke {
            reason: reason.to_owned(),
        };
        self.executor
            .execute(&self.id_of(email), &command, metadata)
            .await
    }

    /// The aggregate id for an address (what subjects and logs carry).
    pub fn id_of(&self, email: &Email) -> String {
        self.secret.api_key_id(&email.normalized())
    }
}
