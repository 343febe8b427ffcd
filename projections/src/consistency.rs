//! Read-your-writes on any replica: a write answers its log
//! position (`X-Basel-Position`); a read that names it as `min_position`
//! waits until the projections serving it here have applied everything up
//! to that position, whichever process runs them.
//!
//! Each projection reads one aggregate kind, so "applied up to `position`"
//! means: its checkpoint has reached the last event of its kind at or before
//! `position` (a projection never sees the other kinds' positions).

use std::time::Duration;

use crate::registry::{AggregateKind, Projection};
use crate::runner::Projector;
use crate::{ProjectionError, ReadDb};

impl Projector {
    /// Waits, at most `timeout`, until every projection has applied every
    /// event of its kind at or before `position`; returns whether they got
    /// there.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] when the log cannot be read.
    pub async fn wait_for_position(
        &self,
        position: i64,
        timeout: Duration,
    ) -> Result<bool, ProjectionError> {
        let deadline = tokio::time::Instant::now() + timeout;
        // One lookup per aggregate kind, not per projection.
        let mut targets = std::collections::HashMap::new();
        for projection in Projection::ALL {
            let kind = projection.reads();
            let target = match targets.get(&kind) {
                Some(target) => *target,
                None => {
                    let target = last_at_or_before(&self.db, kind, position).await?;
                    targets.insert(kind, target);
                    target
                }
            };
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if target > 0 && !self.wait_for(projection, target, left).await {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The position of the last event of `kind` at or before `position`, 0 when
/// there is none.
async fn last_at_or_before(
    db: &ReadDb,
    kind: AggregateKind,
    position: i64,
) -> Result<i64, ProjectionError> {
    Ok(sqlx::query_scalar(
        "SELECT CAST(COALESCE(MAX(position), 0) AS BIGINT) FROM events WHERE aggregate_type = $1 AND position <= $2",
    )
    .bind(kind.type_name())
    .bind(position)
    .fetch_one(db)
    .await?)
}
