//! Queries the REST edge needs beyond the readers of each projection.

use crate::{ProjectionError, ReadDb};

/// Committed events the relay has not published yet (`published_at IS
/// NULL`). Meaningful only where a relay runs (server mode), on the
/// database that holds the events table.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn unpublished_events(db: &ReadDb) -> Result<i64, ProjectionError> {
    Ok(
        sqlx::query_scalar(
            "SELECT CAST(COUNT(*) AS BIGINT) FROM events WHERE published_at IS NULL",
        )
        .fetch_one(db)
        .await?,
    )
}
