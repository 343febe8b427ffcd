//! The commands behind e-mail: asking for the key by mail, unsubscribing from
//! notices, and publishing a notice. Each only records an event; the mail
//! outbox (crate `mail`) turns those events into mail.

use chrono::{DateTime, Utc};

use domain::api_key::{ApiKey, ApiKeyCommand, ApiKeyError};
use domain::metadata::Metadata;
use domain::notice::{Notice, NoticeCommand, NoticeError};
use domain::values::Email;

use crate::executor::{Committed, Executor};
use crate::secrets::ServerSecret;
use crate::store::Backend;
use crate::CommandError;

/// What became of a request for the key by mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMail {
    /// Recorded: the outbox mails the key.
    Requested(Committed),
    /// Not recorded: the address asked too often today (the answer to the
    /// registrant is the same, so it says nothing about the address).
    Limited,
}

/// The write side of mail.
pub struct MailingCommands {
    keys: Executor<ApiKey>,
    notices: Executor<Notice>,
    secret: ServerSecret,
}

impl MailingCommands {
    /// Commands writing to `backend`; key ids are derived under `secret`.
    pub fn new(backend: &Backend, secret: ServerSecret) -> Self {
        Self {
            keys: Executor::new(backend),
            notices: Executor::new(backend),
            secret,
        }
    }

    /// Asks for the active key of `email` to be mailed to it (at most
    /// [`domain::api_key::KEY_MAILS_PER_DAY`] times a day).
    ///
    /// # Errors
    /// [`CommandError::Rejected`] with `NotActive` when the address has no
    /// active key; conflicts and infrastructure errors.
    pub async fn request_key_mail(
        &self,
        email: &Email,
        at: DateTime<Utc>,
        metadata: &Metadata,
    ) -> Result<KeyMail, CommandError<ApiKeyError>> {
        let id = self.secret.api_key_id(&email.normalized());
        match self
            .keys
            .execute(&id, &ApiKeyCommand::RequestKeyMail { at }, metadata)
            .await
        {
            Ok(committed) => Ok(KeyMail::Requested(committed)),
            Err(CommandError::Rejected(ApiKeyError::TooManyKeyMails)) => Ok(KeyMail::Limited),
            Err(other) => Err(other),
        }
    }

    /// Records that the registrant whose key aggregate is `key_id` wants no
    /// more notices. `false` when they had unsubscribed already (or `key_id`
    /// names no registrant): nothing is recorded then.
    ///
    /// # Errors
    /// Conflicts and infrastructure errors.
    pub async fn unsubscribe(
        &self,
        key_id: &str,
        metadata: &Metadata,
    ) -> Result<bool, CommandError<ApiKeyError>> {
        match self
            .keys
            .execute(key_id, &ApiKeyCommand::Unsubscribe, metadata)
            .await
        {
            Ok(_) => Ok(true),
            Err(CommandError::Rejected(ApiKeyError::NotSubscribed)) => Ok(false),
            Err(other) => Err(other),
        }
    }

    /// Publishes notice `id`: the outbox mails it to every active registrant.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] for an empty or overlong subject or body,
    /// or an id published already; infrastructure errors.
    pub async fn publish_notice(
        &self,
        id: &str,
        subject: &str,
        body: &str,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<NoticeError>> {
        let command = NoticeCommand::Publish {
            subject: subject.to_owned(),
            body: body.to_owned(),
        };
        self.notices.execute(id, &command, metadata).await
    }
}
