//! The `mail_outbox` table: one row per message, keyed by its Message-ID
//! (derived from the event that queued it), so feeding the same event twice
//! queues nothing new. Rows move `queued` → `sent`, or `failed` (a permanent
//! refusal, or [`MAX_ATTEMPTS`] transient ones), or `skipped` (nothing to send
//! any more: the key was revoked, the registrant unsubscribed).
//!
//! One SQL text for SQLite and PostgreSQL (sqlx `Any`, `$n` placeholders,
//! RFC 3339 text for instants, which sort as they compare).

use chrono::{DateTime, SecondsFormat, Utc};
use domain::api_key::ApiKey;
use domain::notice::Notice;
use domain::Aggregate as _;
use sqlx::{Any, Row, Transaction};

use crate::MailError;

/// Attempts before a message is given up as `failed`.
pub const MAX_ATTEMPTS: i64 = 8;

/// What a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The API key (`KeyMailRequested`).
    Key,
    /// A notice (`NoticePublished`), one per recipient.
    Notice,
}

impl Kind {
    /// The stored form.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Key => "key",
            Self::Notice => "notice",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Self::Key, Self::Notice]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// A message to queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMessage {
    /// The Message-ID's local part, derived from the event.
    pub message_id: String,
    /// What it carries.
    pub kind: Kind,
    /// The recipient's `api_key` aggregate id.
    pub recipient: String,
    /// Key: the generation; notice: the notice id.
    pub reference: String,
    /// The log position of the event.
    pub position: i64,
}

/// A queued message that is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    /// As queued.
    pub message: NewMessage,
    /// Attempts so far.
    pub attempts: i64,
}

/// An instant as stored.
pub fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Whether an event the outbox mails about (an API key's or a notice's)
/// lies after the feed's position: one statement, no lock, an index lookup
/// per aggregate type. When none does there is nothing to feed, and the
/// events after the position (the Parties', which mail nobody) wait until
/// one does: a steward write costs the outbox this one statement, not a
/// transaction moving its position (measured: 6.5 statements per write).
///
/// # Errors
/// Database errors.
pub async fn anything_to_feed(db: &projections::ReadDb) -> Result<bool, MailError> {
    let due: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT 1 FROM events WHERE aggregate_type IN ($1, $2) \
         AND position > (SELECT position FROM mail_feed WHERE name = 'outbox') LIMIT 1) AS due",
    )
    .bind(ApiKey::TYPE)
    .bind(Notice::TYPE)
    .fetch_one(db)
    .await?;
    Ok(due > 0)
}

/// How far the outbox has read the log, locked for the rest of `tx`.
///
/// The read is a write (the position set to itself), so it is the
/// transaction's first write: on SQLite it takes the write lock at once,
/// waiting (busy timeout) for another writer, where a read first would have
/// to upgrade later and fail with `SQLITE_BUSY` whenever anything committed
/// in between (under steady writes the feed never moved, and re-read its
/// batch every pass); on PostgreSQL it locks the row, so two feeders take
/// turns.
///
/// # Errors
/// Database errors.
pub async fn feed_position(tx: &mut Transaction<'_, Any>) -> Result<i64, MailError> {
    Ok(sqlx::query_scalar(
        "UPDATE mail_feed SET position = position WHERE name = 'outbox' RETURNING position",
    )
    .fetch_one(&mut **tx)
    .await?)
}

/// Moves the feed's position.
///
/// # Errors
/// Database errors.
pub async fn set_feed_position(
    tx: &mut Transaction<'_, Any>,
    position: i64,
) -> Result<(), MailError> {
    sqlx::query("UPDATE mail_feed SET position = $1 WHERE name = 'outbox'")
        .bind(position)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Queues `message` unless a message with its id exists; `true` if queued.
///
/// # Errors
/// Database errors.
pub async fn enqueue(
    tx: &mut Transaction<'_, Any>,
    message: &NewMessage,
    now: DateTime<Utc>,
) -> Result<bool, MailError> {
    let done = sqlx::query(
        "INSERT INTO mail_outbox (message_id, kind, recipient, reference, position, status, attempts, next_attempt_at, queued_at) \
         VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $6) ON CONFLICT (message_id) DO NOTHING",
    )
    .bind(&message.message_id)
    .bind(message.kind.as_str())
    .bind(&message.recipient)
    .bind(&message.reference)
    .bind(message.position)
    .bind(stamp(now))
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Up to `limit` queued messages due at `now`, oldest event first.
///
/// # Errors
/// Database errors.
pub async fn due(
    db: &projections::ReadDb,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Due>, MailError> {
    let rows = sqlx::query(
        "SELECT message_id, kind, recipient, reference, position, attempts FROM mail_outbox \
         WHERE status = 'queued' AND next_attempt_at <= $1 ORDER BY position, message_id LIMIT $2",
    )
    .bind(stamp(now))
    .bind(limit)
    .fetch_all(db)
    .await?;
    rows.into_iter()
        .map(|row| {
            let kind: String = row.try_get("kind")?;
            Ok(Due {
                message: NewMessage {
                    message_id: row.try_get("message_id")?,
                    kind: Kind::parse(&kind).ok_or_else(|| MailError::Decode {
                        position: 0,
                        reason: format!("unknown mail kind {kind:?}"),
                    })?,
                    recipient: row.try_get("recipient")?,
                    reference: row.try_get("reference")?,
                    position: row.try_get("position")?,
                },
                attempts: row.try_get("attempts")?,
            })
        })
        .collect()
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The SMTP server accepted it.
    Sent,
    /// Nothing to send any more (why, for the row).
    Skipped(String),
    /// Try again at the instant given (why, never an address or key).
    Retry(DateTime<Utc>, String),
    /// Given up (why).
    Failed(String),
}

/// Records how the attempt on `message_id` ended.
///
/// # Errors
/// Database errors.
pub async fn record(
    db: &projections::ReadDb,
    message_id: &str,
    outcome: &Outcome,
    now: DateTime<Utc>,
) -> Result<(), MailError> {
    let (status, next, error, sent_at) = match outcome {
        Outcome::Sent => ("sent", now, None, Some(stamp(now))),
        Outcome::Skipped(why) => ("skipped", now, Some(why.clone()), None),
        Outcome::Retry(at, why) => ("queued", *at, Some(why.clone()), None),
        Outcome::Failed(why) => ("failed", now, Some(why.clone()), None),
    };
    sqlx::query(
        "UPDATE mail_outbox SET status = $1, attempts = attempts + 1, next_attempt_at = $2, \
         last_error = $3, sent_at = $4 WHERE message_id = $5 AND status = 'queued'",
    )
    .bind(status)
    .bind(stamp(next))
    .bind(error)
    .bind(sent_at)
    .bind(message_id)
    .execute(db)
    .await?;
    Ok(())
}

/// How many messages are in each status (`queued`, `sent`, `failed`,
/// `skipped`; absent statuses count 0).
///
/// # Errors
/// Database errors.
pub async fn counts(db: &projections::ReadDb) -> Result<[(&'static str, i64); 4], MailError> {
    let rows = sqlx::query(
        "SELECT status, CAST(COUNT(*) AS BIGINT) AS n FROM mail_outbox GROUP BY status",
    )
    .fetch_all(db)
    .await?;
    let mut counts = [("queued", 0), ("sent", 0), ("failed", 0), ("skipped", 0)];
    for row in rows {
        let status: String = row.try_get("status")?;
        let n: i64 = row.try_get("n")?;
        if let Some(slot) = counts.iter_mut().find(|(s, _)| *s == status) {
            slot.1 = n;
        }
    }
    Ok(counts)
}
