//! [`AnyEventRepository`]: one repository type for either backend, so that
//! command services are written once and configured at startup.

use cqrs_es::persist::{
    PersistedEventRepository, PersistenceError, ReplayStream, SerializedEvent, SerializedSnapshot,
};
use cqrs_es::Aggregate;
use serde_json::Value;

use super::postgres::PgEventRepository;
use super::sqlite::SqliteEventRepository;

/// The event repository of the configured backend; build it with
/// [`super::Backend::repository`] or directly use
/// [`super::Backend::event_store`].
///
/// Every call is delegated to the backend's repository. Snapshots are not
/// supported by either: `persist` with a snapshot update fails, and
/// `get_snapshot` always answers `None`.
#[derive(Debug)]
pub enum AnyEventRepository {
    /// Server mode.
    Postgres(PgEventRepository),
    /// Embedded mode.
    Sqlite(SqliteEventRepository),
}

/// The error for a snapshot update: basel only uses
/// `PersistedEventStore::new_event_store`, because cqrs-es 0.5 snapshot stores
/// apply new events twice.
pub(crate) fn snapshots_unsupported() -> PersistenceError {
    PersistenceError::UnknownError(
        "snapshots are not supported: use PersistedEventStore::new_event_store".into(),
    )
}

impl PersistedEventRepository for AnyEventRepository {
    async fn get_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        match self {
            Self::Postgres(repo) => repo.get_events::<A>(aggregate_id).await,
            Self::Sqlite(repo) => repo.get_events::<A>(aggregate_id).await,
        }
    }

    async fn get_last_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
        last_sequence: usize,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        match self {
            Self::Postgres(repo) => repo.get_last_events::<A>(aggregate_id, last_sequence).await,
            Self::Sqlite(repo) => repo.get_last_events::<A>(aggregate_id, last_sequence).await,
        }
    }

    async fn get_snapshot<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<Option<SerializedSnapshot>, PersistenceError> {
        match self {
            Self::Postgres(repo) => repo.get_snapshot::<A>(aggregate_id).await,
            Self::Sqlite(repo) => repo.get_snapshot::<A>(aggregate_id).await,
        }
    }

    async fn persist<A: Aggregate>(
        &self,
        events: &[SerializedEvent],
        snapshot_update: Option<(String, Value, usize)>,
    ) -> Result<(), PersistenceError> {
        match self {
            Self::Postgres(repo) => repo.persist::<A>(events, snapshot_update).await,
            Self::Sqlite(repo) => repo.persist::<A>(events, snapshot_update).await,
        }
    }

    async fn stream_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<ReplayStream, PersistenceError> {
        match self {
            Self::Postgres(repo) => repo.stream_events::<A>(aggregate_id).await,
            Self::Sqlite(repo) => repo.stream_events::<A>(aggregate_id).await,
        }
    }

    async fn stream_all_events<A: Aggregate>(&self) -> Result<ReplayStream, PersistenceError> {
        match self {
            Self::Postgres(repo) => repo.stream_all_events::<A>().await,
            Self::Sqlite(repo) => repo.stream_all_events::<A>().await,
        }
    }
}
