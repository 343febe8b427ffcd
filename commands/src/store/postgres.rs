//! The server event store: the PostgreSQL `events` table, written by
//! [`postgres_es::PostgresEventRepository`].
//!
//! postgres-es already maps SQLSTATE 23505 (unique violation) on the primary
//! key `(aggregate_type, aggregate_id, sequence)` to
//! [`PersistenceError::OptimisticLockError`], so loads and appends are
//! delegated to it unchanged. Two things are not:
//!
//! - its replay streams `unwrap()` database errors inside a spawned task and
//!   order "all events" by per-aggregate sequence; [`PgEventRepository`]
//!   streams itself, reports errors, and orders by `position`;
//! - snapshots: basel uses the plain event store only, so
//!   [`PgEventRepository`] never reads or writes a snapshots table.
//!
//! Positions are assigned in commit order by a trigger (see
//! `migrations/postgres/0001_events.sql` and [`super::POSITION_LOCK_KEY`]).

use std::str::FromStr;
use std::time::Duration;

use cqrs_es::persist::{
    PersistedEventRepository, PersistenceError, ReplayStream, SerializedEvent, SerializedSnapshot,
};
use cqrs_es::Aggregate;
use futures::TryStreamExt;
use postgres_es::PostgresEventRepository;
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::{Connection, PgConnection, Row};

use super::error::{connect_reason, StoreError};

/// How long to wait for a connection (including the first one at startup).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// Channel size of the replay streams.
const STREAM_CHANNEL_SIZE: usize = 200;

/// Channel size of one aggregate's stream (a command rebuilding its state):
/// small, so what a command holds does not depend on the history's length.
const AGGREGATE_CHANNEL_SIZE: usize = 16;

const SELECT_COLUMNS: &str =
    "SELECT aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata FROM events";

/// Connects to `database_url` with a 3 s acquire timeout (a write during an outage fails within it).
///
/// # Errors
///
/// [`StoreError::InvalidUrl`] if the URL does not parse, and
/// [`StoreError::Unreachable`] (naming only `host:port`) if no connection can
/// be made.
pub async fn open_pool(database_url: &str) -> Result<PgPool, StoreError> {
    let options = PgConnectOptions::from_str(database_url)
        .map_err(|err| StoreError::InvalidUrl(connect_reason(&err)))?;
    open_pool_with(options).await
}

/// SQLSTATE 3D000 (`invalid_catalog_name`): the server answers, the
/// database does not exist.
fn is_missing_database(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.code().as_deref() == Some("3D000"))
}

/// Like [`open_pool`], from parsed options.
///
/// # Errors
///
/// [`StoreError::Unreachable`] if no connection can be made.
pub async fn open_pool_with(options: PgConnectOptions) -> Result<PgPool, StoreError> {
    let target = format!("{}:{}", options.get_host(), options.get_port());
    let unreachable = |reason: String| StoreError::Unreachable {
        backend: "PostgreSQL",
        target: target.clone(),
        reason,
    };
    // One direct attempt first: a pool retries failed connects until its
    // acquire timeout and then reports only "timed out", hiding the cause
    // ("connection refused", "password authentication failed", ...).
    match tokio::time::timeout(ACQUIRE_TIMEOUT, PgConnection::connect_with(&options)).await {
        Err(_) => return Err(unreachable(format!("no answer within {ACQUIRE_TIMEOUT:?}"))),
        Ok(Err(err)) if is_missing_database(&err) => {
            return Err(StoreError::MissingDatabase {
                host: options.get_host().to_owned(),
                port: options.get_port(),
                database: options.get_database().unwrap_or("postgres").to_owned(),
            })
        }
        Ok(Err(err)) => return Err(unreachable(connect_reason(&err))),
        Ok(Ok(probe)) => {
            let _ = probe.close().await;
        }
    }
    PgPoolOptions::new()
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
        .await
        .map_err(|err| unreachable(connect_reason(&err)))
}

/// A cqrs-es event repository over the PostgreSQL `events` table: postgres-es
/// for loads and appends, basel's own position-ordered replay streams.
pub struct PgEventRepository {
    inner: PostgresEventRepository,
    pool: PgPool,
}

impl std::fmt::Debug for PgEventRepository {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgEventRepository").finish_non_exhaustive()
    }
}

impl PgEventRepository {
    /// Wraps a pool whose database has been migrated.
    pub fn new(pool: PgPool) -> Self {
        Self {
            inner: PostgresEventRepository::new(pool.clone()),
            pool,
        }
    }

    fn stream(
        &self,
        sql: String,
        aggregate_type: &str,
        aggregate_id: Option<&str>,
    ) -> ReplayStream {
        let size = if aggregate_id.is_some() {
            AGGREGATE_CHANNEL_SIZE
        } else {
            STREAM_CHANNEL_SIZE
        };
        let (mut feed, stream) = ReplayStream::new(size);
        let pool = self.pool.clone();
        let aggregate_type = aggregate_type.to_string();
        let aggregate_id = aggregate_id.map(str::to_string);
        tokio::spawn(async move {
            let mut query = sqlx::query(&sql).bind(&aggregate_type);
            if let Some(id) = &aggregate_id {
                query = query.bind(id);
            }
            let mut rows = query.fetch(&pool);
            loop {
                let item = match rows.try_next().await {
                    Ok(Some(row)) => decode_event(&row),
                    Ok(None) => return,
                    Err(err) => Err(PersistenceError::UnknownError(Box::new(err))),
                };
                let failed = item.is_err();
                if feed.push(item).await.is_err() || failed {
                    return;
                }
            }
        });
        stream
    }
}

impl PersistedEventRepository for PgEventRepository {
    async fn get_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        self.inner.get_events::<A>(aggregate_id).await
    }

    async fn get_last_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
        last_sequence: usize,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        self.inner
            .get_last_events::<A>(aggregate_id, last_sequence)
            .await
    }

    async fn get_snapshot<A: Aggregate>(
        &self,
        _aggregate_id: &str,
    ) -> Result<Option<SerializedSnapshot>, PersistenceError> {
        Ok(None)
    }

    async fn persist<A: Aggregate>(
        &self,
        events: &[SerializedEvent],
        snapshot_update: Option<(String, Value, usize)>,
    ) -> Result<(), PersistenceError> {
        if snapshot_update.is_some() {
            return Err(super::any::snapshots_unsupported());
        }
        self.inner.persist::<A>(events, None).await
    }

    async fn stream_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<ReplayStream, PersistenceError> {
        let sql = format!(
            "{SELECT_COLUMNS} WHERE aggregate_type = $1 AND aggregate_id = $2 ORDER BY sequence"
        );
        Ok(self.stream(sql, A::TYPE, Some(aggregate_id)))
    }

    async fn stream_all_events<A: Aggregate>(&self) -> Result<ReplayStream, PersistenceError> {
        let sql = format!("{SELECT_COLUMNS} WHERE aggregate_type = $1 ORDER BY position");
        Ok(self.stream(sql, A::TYPE, None))
    }
}

fn decode_event(row: &PgRow) -> Result<SerializedEvent, PersistenceError> {
    let decode = |err: sqlx::Error| PersistenceError::DeserializationError(Box::new(err));
    let sequence: i64 = row.try_get("sequence").map_err(decode)?;
    Ok(SerializedEvent::new(
        row.try_get("aggregate_id").map_err(decode)?,
        usize::try_from(sequence)
            .map_err(|err| PersistenceError::DeserializationError(Box::new(err)))?,
        row.try_get("aggregate_type").map_err(decode)?,
        row.try_get("event_type").map_err(decode)?,
        row.try_get("event_version").map_err(decode)?,
        row.try_get("payload").map_err(decode)?,
        row.try_get("metadata").map_err(decode)?,
    ))
}
