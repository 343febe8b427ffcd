//! Filling holes in what a stream consumer was handed, from the event store.
//!
//! JetStream hands a consumer each message at least once, but not always in
//! order and not always before the consumer is re-created: a delivery lost
//! with a dropped connection comes back only after the ack wait, and a
//! consumer re-created from the projection's checkpoint never sees it again.
//! The relay publishes in position order and positions become visible in
//! commit order, so when a message at position `q` arrives, every event that
//! will ever exist below `q` is already in the `events` table. A projection
//! fed by the stream therefore reads from the store whatever of its
//! aggregate's events lie between its checkpoint and `q` and were not in the
//! batch, and applies them first: its checkpoint then means "every event of
//! this aggregate type up to here is applied", whatever the stream did.
//!
//! Boundary: reads the `events` table only (the projections never write it).

use sqlx::{Any, Transaction};

use crate::log::{from_row, StoredEvent};
use crate::ProjectionError;

const COLUMNS: &str = "SELECT position, aggregate_type, aggregate_id, sequence, event_type, \
     event_version, CAST(payload AS TEXT) AS payload, CAST(metadata AS TEXT) AS metadata FROM events";

/// Adds to `events` (sorted by position, all above `after`) every event of
/// `aggregate_type` in the store with a position in `(after, last]` that
/// `events` lacks, keeping the order; returns how many it added.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub(crate) async fn complete(
    tx: &mut Transaction<'_, Any>,
    aggregate_type: &str,
    after: i64,
    events: &mut Vec<StoredEvent>,
) -> Result<usize, ProjectionError> {
    let Some(last) = events.last().map(|e| e.position) else {
        return Ok(0);
    };
    let stored: Vec<i64> = sqlx::query_scalar(
        "SELECT position FROM events WHERE aggregate_type = $1 AND position > $2 AND position <= $3 ORDER BY position",
    )
    .bind(aggregate_type)
    .bind(after)
    .bind(last)
    .fetch_all(&mut **tx)
    .await?;
    let mut added = 0;
    for position in stored {
        if events
            .binary_search_by_key(&position, |e| e.position)
            .is_ok()
        {
            continue;
        }
        let row = sqlx::query(&format!("{COLUMNS} WHERE position = $1"))
            .bind(position)
            .fetch_one(&mut **tx)
            .await?;
        let event = from_row(&row)?;
        let at = events.partition_point(|e| e.position < position);
        events.insert(at, event);
        added += 1;
    }
    Ok(added)
}

/// The events of one aggregate with sequences `from..to`, from the store, in
/// order; fewer when the store lacks some.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub(crate) async fn sequences(
    tx: &mut Transaction<'_, Any>,
    aggregate_type: &str,
    aggregate_id: &str,
    from: i64,
    to: i64,
) -> Result<Vec<StoredEvent>, ProjectionError> {
    let rows = sqlx::query(&format!(
        "{COLUMNS} WHERE aggregate_type = $1 AND aggregate_id = $2 AND sequence >= $3 AND sequence < $4 ORDER BY sequence"
    ))
    .bind(aggregate_type)
    .bind(aggregate_id)
    .bind(from)
    .bind(to)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter().map(from_row).collect()
}
