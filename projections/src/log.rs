//! The embedded log: the events table read by `position`.
//!
//! Positions are assigned in commit order on both backends (SQLite serialises
//! writers; on PostgreSQL a trigger takes an advisory lock before drawing the
//! position), so "everything after my checkpoint" never skips an event that
//! commits late.

use serde_json::Value;
use sqlx::Row;

use crate::{ProjectionError, ReadDb};

/// One event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Its position in the log.
    pub position: i64,
    /// The aggregate's type string, as its `domain::Aggregate::TYPE` says
    /// (resolved by [`crate::registry::AggregateKind::of`]).
    pub aggregate_type: String,
    /// The aggregate's id.
    pub aggregate_id: String,
    /// Its sequence within the aggregate (1-based).
    pub sequence: i64,
    /// The event's type, e.g. `VerificationRecorded`.
    pub event_type: String,
    /// The payload version.
    pub event_version: String,
    /// The payload as JSON text.
    pub payload: String,
    /// The metadata as JSON text (`recorded_at`, `actor`, `request_id`).
    pub metadata: String,
}

impl StoredEvent {
    /// The payload parsed.
    ///
    /// # Errors
    /// [`ProjectionError::Decode`] when it is not JSON of the expected shape.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, ProjectionError> {
        serde_json::from_str(&self.payload).map_err(|e| self.undecodable(e.to_string()))
    }

    /// One metadata value, or an empty string.
    pub fn meta(&self, key: &str) -> String {
        serde_json::from_str::<Value>(&self.metadata)
            .ok()
            .and_then(|m| m.get(key).and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default()
    }

    /// A decode error for this event.
    pub fn undecodable(&self, reason: String) -> ProjectionError {
        ProjectionError::Decode {
            position: self.position,
            event_type: self.event_type.clone(),
            reason,
        }
    }
}

/// Up to `limit` events after `position`, in position order.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn read_after<'c, E>(
    db: E,
    position: i64,
    limit: i64,
) -> Result<Vec<StoredEvent>, ProjectionError>
where
    E: sqlx::Executor<'c, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT position, aggregate_type, aggregate_id, sequence, event_type, event_version, \
         CAST(payload AS TEXT) AS payload, CAST(metadata AS TEXT) AS metadata \
         FROM events WHERE position > $1 ORDER BY position LIMIT $2",
    )
    .bind(position)
    .bind(limit)
    .fetch_all(db)
    .await?;
    rows.iter().map(from_row).collect()
}

/// The position of the last event in the log (0 when empty).
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn head(db: &ReadDb) -> Result<i64, ProjectionError> {
    let row = sqlx::query("SELECT CAST(COALESCE(MAX(position), 0) AS BIGINT) AS head FROM events")
        .fetch_one(db)
        .await?;
    Ok(row.try_get("head")?)
}

pub(crate) fn from_row(row: &sqlx::any::AnyRow) -> Result<StoredEvent, ProjectionError> {
    Ok(StoredEvent {
        position: row.try_get("position")?,
        aggregate_type: row.try_get("aggregate_type")?,
        aggregate_id: row.try_get("aggregate_id")?,
        sequence: row.try_get("sequence")?,
        event_type: row.try_get("event_type")?,
        event_version: row.try_get("event_version")?,
        payload: row.try_get("payload")?,
        metadata: row.try_get("metadata")?,
    })
}
