//! basel's e-mail: API keys delivered by mail, notices to every registrant,
//! and the one-click unsubscribe link, all through an outbox fed from the
//! event log and a real SMTP client (lettre over rustls).
//!
//! Nothing here decides a business rule: the events (`KeyMailRequested`,
//! `NoticePublished`, `NoticesUnsubscribed`) are recorded by
//! `commands::mailing`; this crate turns them into mail.
//!
//! Must not: store a key, an address or a token in a table, or write one to
//! a log line (rows name recipients by their `api_key` aggregate id; the key
//! is derived again from the server secret when the mail is built); write the
//! events table; read the environment.
//!
//! Layout:
//! - [`smtp`]: `BASEL_SMTP_URL` and the lettre transport built from it;
//! - [`outbox`]: the `mail_outbox` table (queued, sent, failed, skipped);
//! - [`feed`]: events → outbox rows, one per Message-ID;
//! - [`registrants`]: who has an active key, and the one function that reads
//!   a registrant's address;
//! - [`compose`]: the key mail and the notice mail;
//! - [`unsubscribe`]: tokens for the one-click link;
//! - [`mailer`]: the task that feeds the outbox and sends what is due;
//! - [`notices`]: the notices and their delivery counts, for `basel notice list`.

pub mod compose;
pub mod feed;
pub mod mailer;
pub mod notices;
pub mod outbox;
pub mod registrants;
pub mod smtp;
pub mod unsubscribe;

/// Why mail could not be queued, built or read.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// The database failed.
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    /// A stored event did not decode.
    #[error("event at position {position} does not decode: {reason}")]
    Decode {
        /// Its log position.
        position: i64,
        /// Why.
        reason: String,
    },
    /// A setting is unusable (the message names the setting).
    #[error("{0}")]
    Settings(String),
    /// A message could not be built.
    #[error("cannot build the message: {0}")]
    Build(String),
}

impl From<projections::ProjectionError> for MailError {
    fn from(error: projections::ProjectionError) -> Self {
        match error {
            projections::ProjectionError::Database(e) => Self::Database(e),
            other => Self::Decode {
                position: 0,
                reason: other.to_string(),
            },
        }
    }
}
