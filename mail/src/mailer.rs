//! The mail task of a serving process: feeds the outbox from the log, then
//! sends what is due, whenever a local commit rings and every poll interval.
//!
//! One mailer sends at a time: on PostgreSQL it holds a session advisory
//! lock ([`MAIL_LOCK_KEY`]) on a connection of its own, so replicas running
//! the mail role stand by; an embedded (SQLite) data directory has one
//! serving process anyway. A message is recorded `sent` right after the SMTP
//! server accepts it. A crash in the instant between the two sends it again
//! on restart, with the same Message-ID (so the receiving side can tell it is
//! the same message); nothing else is ever sent twice, and a crash at any
//! other point loses nothing.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use commands::store::Backend;
use lettre::AsyncTransport;
use tokio::sync::Notify;

use crate::compose::{self, Built, Sender};
use crate::outbox::{self, Due, Outcome, MAX_ATTEMPTS};
use crate::smtp::Transport;
use crate::{feed, MailError};

/// The advisory-lock key the active mailer holds ("baselmai").
pub const MAIL_LOCK_KEY: i64 = 0x6261_7365_6c6d_6169;

/// Messages sent per pass before the feed is read again.
const SEND_BATCH: i64 = 50;

/// The first retry waits this long; each later one twice as long as the last.
const FIRST_RETRY: Duration = Duration::from_secs(5);

/// No retry waits longer.
const LONGEST_RETRY: Duration = Duration::from_secs(3600);

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// Messages the SMTP server accepted.
    pub sent: usize,
    /// Attempts that failed (retried later or given up).
    pub failed: usize,
    /// Messages with nothing to send any more.
    pub skipped: usize,
}

/// The mail task.
pub struct Mailer {
    db: projections::ReadDb,
    backend: Backend,
    sender: Sender,
    transport: Option<Transport>,
}

impl Mailer {
    /// A mailer over the store; without a transport it only feeds the
    /// outbox (mail waits until `BASEL_SMTP_URL` is set).
    pub fn new(
        db: projections::ReadDb,
        backend: Backend,
        sender: Sender,
        transport: Option<Transport>,
    ) -> Self {
        Self {
            db,
            backend,
            sender,
            transport,
        }
    }

    /// Runs until `shutdown`: becomes the active mailer, then feeds and sends
    /// whenever `wake` rings and every `poll`. Failures are logged and
    /// retried; it never gives up.
    pub async fn run(
        self,
        poll: Duration,
        wake: Arc<Notify>,
        shutdown: impl std::future::Future<Output = ()>,
    ) {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => return,
                result = self.lead(poll, &wake) => {
                    if let Err(error) = result {
                        tracing::warn!(error = %error, "mail outbox interrupted; retrying");
                    }
                }
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = tokio::time::sleep(poll) => {}
            }
        }
    }

    async fn lead(&self, poll: Duration, wake: &Notify) -> Result<(), MailError> {
        let mut lock = match self.backend.pg_pool() {
            Some(pool) => Some(lock(pool, poll).await?),
            None => None,
        };
        tracing::info!(sending = self.transport.is_some(), "mail outbox active");
        let result = async {
            let mut checked = tokio::time::Instant::now();
            loop {
                if let Some(lock) = lock.as_mut() {
                    // A lost lock connection means another mailer may lead
                    // now: checked once per `poll`, not on every wake (every
                    // write rings it).
                    if checked.elapsed() >= poll {
                        sqlx::query("SELECT 1").execute(&mut **lock).await?;
                        checked = tokio::time::Instant::now();
                    }
                }
                let notified = wake.notified();
                self.pass().await?;
                tokio::select! {
                    () = notified => {}
                    () = tokio::time::sleep(poll) => {}
                }
            }
        }
        .await;
        if let Some(lock) = lock {
            // The lock goes with the session; never return it to the pool.
            lock.detach();
        }
        result
    }

    /// Feeds the outbox up to the log's head, then sends every due message.
    ///
    /// # Errors
    /// Database or decode errors (a failed send is recorded, not an error).
    pub async fn pass(&self) -> Result<Pass, MailError> {
        while feed::feed_once(&self.db).await? > 0 {}
        let mut pass = Pass::default();
        let Some(transport) = &self.transport else {
            return Ok(pass);
        };
        loop {
            let due = outbox::due(&self.db, Utc::now(), SEND_BATCH).await?;
            if due.is_empty() {
                return Ok(pass);
            }
            for message in &due {
                let outcome = self.attempt(transport, message).await?;
                match &outcome {
                    Outcome::Sent => pass.sent += 1,
                    Outcome::Skipped(_) => pass.skipped += 1,
                    Outcome::Retry(..) | Outcome::Failed(_) => pass.failed += 1,
                }
                outbox::record(&self.db, &message.message.message_id, &outcome, Utc::now()).await?;
            }
        }
    }

    async fn attempt(&self, transport: &Transport, due: &Due) -> Result<Outcome, MailError> {
        let message = match compose::build(&self.db, &self.sender, due).await? {
            Built::Skip(why) => {
                tracing::info!(mail.id = %due.message.message_id, reason = why, "mail skipped");
                return Ok(Outcome::Skipped(why.to_owned()));
            }
            Built::Message(message) => message,
        };
        match transport.send(*message).await {
            Ok(_) => {
                tracing::info!(mail.id = %due.message.message_id, mail.kind = due.message.kind.as_str(), "mail sent");
                Ok(Outcome::Sent)
            }
            Err(error) => {
                let why = describe(&error);
                let attempts = due.attempts + 1;
                let outcome = if error.is_permanent() || attempts >= MAX_ATTEMPTS {
                    Outcome::Failed(why.clone())
                } else {
                    Outcome::Retry(retry_at(Utc::now(), attempts), why.clone())
                };
                tracing::warn!(mail.id = %due.message.message_id, mail.attempts = attempts, error = %why, gave_up = matches!(outcome, Outcome::Failed(_)), "mail not sent");
                Ok(outcome)
            }
        }
    }
}

async fn lock(
    pool: &sqlx::PgPool,
    poll: Duration,
) -> Result<sqlx::pool::PoolConnection<sqlx::Postgres>, MailError> {
    let mut connection = pool.acquire().await?;
    loop {
        let held: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
            .bind(MAIL_LOCK_KEY)
            .fetch_one(&mut *connection)
            .await?;
        if held {
            return Ok(connection);
        }
        tokio::time::sleep(poll).await;
    }
}

/// When attempt number `attempts + 1` is due: 5 s, 10 s, 20 s, … at most an hour.
pub fn retry_at(now: DateTime<Utc>, attempts: i64) -> DateTime<Utc> {
    let exponent = u32::try_from(attempts.saturating_sub(1))
        .unwrap_or(u32::MAX)
        .min(16);
    let wait = FIRST_RETRY
        .saturating_mul(2u32.saturating_pow(exponent))
        .min(LONGEST_RETRY);
    now + chrono::Duration::from_std(wait).unwrap_or_else(|_| chrono::Duration::hours(1))
}

/// The error without the server's text, which may quote the recipient's
/// address: the SMTP code when there is one, else lettre's own description
/// (connection, TLS, timeout), which names no recipient.
fn describe(error: &lettre::transport::smtp::Error) -> String {
    match error.status() {
        Some(code) => format!("the SMTP server answered {code}"),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_exponentially_up_to_an_hour() {
        let now = Utc::now();
        assert_eq!(retry_at(now, 1) - now, chrono::Duration::seconds(5));
        assert_eq!(retry_at(now, 2) - now, chrono::Duration::seconds(10));
        assert_eq!(retry_at(now, 4) - now, chrono::Duration::seconds(40));
        assert_eq!(retry_at(now, 30) - now, chrono::Duration::hours(1));
    }
}
