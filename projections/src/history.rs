//! The authority history: one row per event, for auditors.

use serde_json::{json, Value};
use sqlx::{Any, Row, Transaction};

use domain::authority::AuthorityEvent;

use crate::log::StoredEvent;
use crate::{ProjectionError, ReadDb};

/// The projection's name.
pub const NAME: &str = "history";

/// One entry of a record's history.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HistoryRow {
    /// The event's sequence within the country's record.
    pub sequence: i64,
    /// `AuthorityRegistered`, `ContactDetailsChanged` or `VerificationRecorded`.
    pub event_type: String,
    /// When it was recorded (RFC 3339).
    pub recorded_at: String,
    /// Who caused it (`steward:<id>`, `system:seed`, …).
    pub actor: String,
    /// The request that carried it.
    pub request_id: String,
    /// Its log position.
    pub position: i64,
    /// The change or verification it recorded.
    pub details: Value,
}

/// Applies one authority event; applying it twice changes nothing.
///
/// # Errors
/// Decode or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let details = match event.decode::<AuthorityEvent>()? {
        AuthorityEvent::AuthorityRegistered(e) => json!({
            "country_name": e.country_name, "contact": e.contact, "verified": e.verified,
            "last_checked": e.last_checked, "source": e.source,
        }),
        AuthorityEvent::ContactDetailsChanged(e) => json!({ "changes": e.changes }),
        AuthorityEvent::VerificationRecorded(e) => json!({
            "verified": e.verified, "checked_on": e.checked_on, "method": e.method,
            "source": e.source, "steward": e.steward, "note": e.note,
        }),
    };
    sqlx::query(
        "INSERT INTO authority_history (country_code, sequence, event_type, recorded_at, actor, request_id, position, details) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (country_code, sequence) DO NOTHING",
    )
    .bind(&event.aggregate_id)
    .bind(event.sequence)
    .bind(&event.event_type)
    .bind(event.meta("recorded_at"))
    .bind(event.meta("actor"))
    .bind(event.meta("request_id"))
    .bind(event.position)
    .bind(details.to_string())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A country's history, oldest first.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn of(db: &ReadDb, code: &str) -> Result<Vec<HistoryRow>, ProjectionError> {
    let rows = sqlx::query(
        "SELECT sequence, event_type, recorded_at, actor, request_id, position, details FROM authority_history \
         WHERE country_code = $1 ORDER BY sequence",
    )
    .bind(code)
    .fetch_all(db)
    .await?;
    rows.iter()
        .map(|row| {
            let details: String = row.try_get("details")?;
            Ok(HistoryRow {
                sequence: row.try_get("sequence")?,
                event_type: row.try_get("event_type")?,
                recorded_at: row.try_get("recorded_at")?,
                actor: row.try_get("actor")?,
                request_id: row.try_get("request_id")?,
                position: row.try_get("position")?,
                details: serde_json::from_str(&details).unwrap_or(Value::Null),
            })
        })
        .collect()
}
