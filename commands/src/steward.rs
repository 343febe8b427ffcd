//! Commands on data stewards.

use secrecy::{ExposeSecret, SecretString};

use domain::metadata::Metadata;
use domain::steward::{Steward, StewardCommand, StewardError};
use domain::values::{Email, Slug};

use crate::executor::{Committed, Executor};
use crate::identity::AddressBook;
use crate::secrets::{hash_secret, new_steward_token, ServerSecret};
use crate::store::Backend;
use crate::CommandError;

/// A steward just enrolled: the token is shown once and never stored.
pub struct Enrolment {
    /// The steward's id.
    pub id: Slug,
    /// The bearer token, in plaintext for the last time.
    pub token: SecretString,
    /// Where the enrolment landed in the log.
    pub committed: Committed,
}

/// The write side of steward administration.
pub struct StewardCommands {
    executor: Executor<Steward>,
    backend: Backend,
}

impl StewardCommands {
    /// Commands writing to `backend`.
    pub fn new(backend: &Backend) -> Self {
        Self {
            executor: Executor::new(backend),
            backend: backend.clone(),
        }
    }

    /// Enrols a steward with a new random token, of which only the hash is
    /// recorded; their address is recorded sealed under their own key
    /// (wrapped under `secret`), so it can be erased.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the id is taken or the name is empty.
    pub async fn enrol(
        &self,
        id: Slug,
        name: &str,
        email: Email,
        secret: &ServerSecret,
        metadata: &Metadata,
    ) -> Result<Enrolment, CommandError<StewardError>> {
        let token = new_steward_token();
        let email = AddressBook::new(&self.backend, secret)
            .seal(&email)
            .await
            .map_err(|e| CommandError::Infrastructure(e.to_string()))?;
        let command = StewardCommand::Enrol {
            id: id.clone(),
            name: name.to_owned(),
            email,
            token_hash: hash_secret(token.expose_secret()),
        };
        let committed = self
            .executor
            .execute(id.as_str(), &command, metadata)
            .await?;
        Ok(Enrolment {
            id,
            token,
            committed,
        })
    }

    /// Suspends a steward: their token stops working once the projection applies it.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the steward is unknown or already suspended.
    pub async fn suspend(
        &self,
        id: &Slug,
        reason: &str,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<StewardError>> {
        self.executor
            .execute(
                id.as_str(),
                &StewardCommand::Suspend {
                    reason: reason.to_owned(),
                },
                metadata,
            )
            .await
    }
}
