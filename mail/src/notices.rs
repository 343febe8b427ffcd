//! Notices as the log holds them, with their delivery counts from the
//! outbox: what `basel notice list` prints and what a notice mail is built
//! from.

use domain::notice::{Notice, NoticeEvent};
use domain::Aggregate;
use sqlx::Row;

use crate::MailError;

/// One published notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeSummary {
    /// Its id.
    pub id: String,
    /// When it was recorded (RFC 3339).
    pub recorded_at: String,
    /// Its subject.
    pub subject: String,
    /// Whether the outbox has queued its mail yet (it fans out when the
    /// serving process's mail role reads the event).
    pub fanned_out: bool,
    /// Messages by status: queued, sent, failed, skipped.
    pub counts: [(&'static str, i64); 4],
}

/// A notice's subject and body.
///
/// # Errors
/// Database or decode errors; `Ok(None)` when no such notice was published.
pub async fn content(
    db: &projections::ReadDb,
    id: &str,
) -> Result<Option<(String, String)>, MailError> {
    let row = sqlx::query(
        "SELECT position, CAST(payload AS TEXT) AS payload FROM events \
         WHERE aggregate_type = $1 AND aggregate_id = $2 ORDER BY sequence LIMIT 1",
    )
    .bind(Notice::TYPE)
    .bind(id)
    .fetch_optional(db)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let payload: String = row.try_get("payload")?;
    let NoticeEvent::NoticePublished { subject, body } =
        serde_json::from_str(&payload).map_err(|e| MailError::Decode {
            position: row.try_get("position").unwrap_or_default(),
            reason: e.to_string(),
        })?;
    Ok(Some((subject, body)))
}

/// Every notice, oldest first, with its delivery counts.
///
/// # Errors
/// Database or decode errors.
pub async fn list(db: &projections::ReadDb) -> Result<Vec<NoticeSummary>, MailError> {
    let fed: i64 = sqlx::query_scalar("SELECT position FROM mail_feed WHERE name = 'outbox'")
        .fetch_one(db)
        .await?;
    let rows = sqlx::query(
        "SELECT position, aggregate_id, CAST(payload AS TEXT) AS payload, CAST(metadata AS TEXT) AS metadata \
         FROM events WHERE aggregate_type = $1 ORDER BY position",
    )
    .bind(Notice::TYPE)
    .fetch_all(db)
    .await?;
    let counted = sqlx::query(
        "SELECT reference, status, CAST(COUNT(*) AS BIGINT) AS n FROM mail_outbox \
         WHERE kind = 'notice' GROUP BY reference, status",
    )
    .fetch_all(db)
    .await?;
    let mut notices = Vec::new();
    for row in rows {
        let position: i64 = row.try_get("position")?;
        let id: String = row.try_get("aggregate_id")?;
        let payload: String = row.try_get("payload")?;
        let metadata: String = row.try_get("metadata")?;
        let NoticeEvent::NoticePublished { subject, .. } =
            serde_json::from_str(&payload).map_err(|e| MailError::Decode {
                position,
                reason: e.to_string(),
            })?;
        let recorded_at = serde_json::from_str::<serde_json::Value>(&metadata)
            .ok()
            .and_then(|m| {
                m.get("recorded_at")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let mut counts = [("queued", 0), ("sent", 0), ("failed", 0), ("skipped", 0)];
        for count in &counted {
            if count.try_get::<String, _>("reference")? != id {
                continue;
            }
            let status: String = count.try_get("status")?;
            if let Some(slot) = counts.iter_mut().find(|(s, _)| *s == status) {
                slot.1 = count.try_get("n")?;
            }
        }
        notices.push(NoticeSummary {
            id,
            recorded_at,
            subject,
            fanned_out: position <= fed,
            counts,
        });
    }
    Ok(notices)
}
