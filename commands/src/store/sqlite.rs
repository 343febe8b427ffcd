//! The embedded event store: one SQLite file, `<data_dir>/basel.db`.
//!
//! # Durability
//!
//! The pool opens the file in WAL mode with `synchronous = FULL`: every commit
//! fsyncs the write-ahead log before it returns, so an acknowledged command
//! survives a process crash *and* a power loss. `NORMAL` would survive only a
//! process crash (the last commits could vanish on power loss), which breaks
//! "no acknowledged write is lost"; basel writes rarely, so the fsync per
//! commit is cheap.
//!
//! # Writers
//!
//! Appends run in a transaction begun with `BEGIN IMMEDIATE`, which takes the
//! write lock up front. A deferred transaction that reads and then upgrades to
//! a writer can fail with `SQLITE_BUSY` at once in WAL mode (the busy timeout
//! cannot help it); an immediate one simply waits up to the 5 s busy timeout.
//! Because writers are serialised, `position` (the rowid) is assigned in
//! commit order.

use std::path::Path;
use std::time::Duration;

use cqrs_es::persist::{
    PersistedEventRepository, PersistenceError, ReplayStream, SerializedEvent, SerializedSnapshot,
};
use cqrs_es::Aggregate;
use futures::TryStreamExt;
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::Row;

use super::error::{connect_reason, StoreError};

/// File name of the database inside the data directory.
pub const DATABASE_FILE: &str = "basel.db";

/// `PRAGMA cache_size` of every connection: negative means KiB.
pub const CACHE_SIZE: &str = "-512";

/// `PRAGMA soft_heap_limit`, in bytes: a bound on all of SQLite's memory in
/// the process (both pools). Once SQLite holds this much, a page cache
/// recycles its least recently used page rather than allocating another
/// (SQLite's `pcache1`), so the twelve caches together stay under it
/// instead of each filling to [`CACHE_SIZE`] (~7 MiB in all) as the
/// database grows; the OS page cache still holds the file. SQLite held
/// 3–4 MB three minutes into the soak (BENCHMARKS.md, "Soak").
pub const SOFT_HEAP_LIMIT: &str = "4194304";

/// How long a writer waits for another writer's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections of the pool. SQLite takes one writer at a time, and the
/// pool's readers (a command's aggregate, the feeds) are short on a machine
/// of a few cores; each connection is a thread with its own page cache
/// (up to [`CACHE_SIZE`]) and prepared statements, which fill as the log
/// grows: with sqlx's default of 10 the soak's RssAnon rose 2.6 MiB in
/// 150 s, with 4 1.1 MiB (BENCHMARKS.md, "Soak").
pub const MAX_CONNECTIONS: u32 = 4;

/// Events loaded per page by the replay streams, and the channel size.
const STREAM_CHANNEL_SIZE: usize = 200;

/// Channel size of one aggregate's stream (a command rebuilding its state):
/// small, so what a command holds does not depend on the history's length.
const AGGREGATE_CHANNEL_SIZE: usize = 16;

const SELECT_COLUMNS: &str =
    "SELECT aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata FROM events";

/// Opens (creating if missing) `<data_dir>/basel.db` with basel's pragmas:
/// WAL, `synchronous = FULL`, 5 s busy timeout, foreign keys on.
///
/// # Errors
///
/// [`StoreError::DataDir`] if the directory cannot be created,
/// [`StoreError::Unreachable`] if the file cannot be opened.
pub async fn open_pool(data_dir: &Path) -> Result<SqlitePool, StoreError> {
    std::fs::create_dir_all(data_dir).map_err(|source| StoreError::DataDir {
        path: data_dir.to_path_buf(),
        source,
    })?;
    let file = data_dir.join(DATABASE_FILE);
    let options = SqliteConnectOptions::new()
        .filename(&file)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .busy_timeout(BUSY_TIMEOUT)
        .foreign_keys(true)
        // Freed content is zeroed, so an erased address leaves no bytes
        // behind in free pages (`commands::identity::erase`).
        .pragma("secure_delete", "ON")
        // Each connection's page cache at most 512 KiB (SQLite's default is
        // 2 MiB): the pool's caches fill as the log grows, so this bounds
        // what they add to the process (`projections::connect` does the
        // same for the read pool); the OS page cache keeps the file anyway.
        .pragma("cache_size", CACHE_SIZE)
        .pragma("soft_heap_limit", SOFT_HEAP_LIMIT);
    SqlitePoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(BUSY_TIMEOUT)
        .connect_with(options)
        .await
        .map_err(|err| StoreError::Unreachable {
            backend: "SQLite",
            target: file.display().to_string(),
            reason: connect_reason(&err),
        })
}

/// A cqrs-es event repository over the SQLite `events` table.
///
/// Use it through [`super::Backend::event_store`]; it supports the plain event
/// store only (no snapshots).
#[derive(Clone, Debug)]
pub struct SqliteEventRepository {
    pool: SqlitePool,
}

impl SqliteEventRepository {
    /// Wraps a pool whose database has been migrated (see [`open_pool`]).
    pub fn new(pool: SqlitePool) -> Self {
        Self { pool }
    }

    async fn select(
        &self,
        aggregate_type: &str,
        aggregate_id: &str,
        after_sequence: i64,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        let sql = format!(
            "{SELECT_COLUMNS} WHERE aggregate_type = ? AND aggregate_id = ? AND sequence > ? ORDER BY sequence"
        );
        let rows = sqlx::query(&sql)
            .bind(aggregate_type)
            .bind(aggregate_id)
            .bind(after_sequence)
            .fetch_all(&self.pool)
            .await
            .map_err(persistence_error)?;
        rows.iter().map(decode_event).collect()
    }

    async fn insert_events(
        &self,
        aggregate_type: &str,
        events: &[SerializedEvent],
    ) -> Result<(), PersistenceError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .map_err(persistence_error)?;
        for event in events {
            sqlx::query(
                "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(aggregate_type)
            .bind(&event.aggregate_id)
            .bind(to_i64(event.sequence)?)
            .bind(&event.event_type)
            .bind(&event.event_version)
            .bind(serde_json::to_string(&event.payload)?)
            .bind(serde_json::to_string(&event.metadata)?)
            .execute(&mut *tx)
            .await
            .map_err(persistence_error)?;
        }
        tx.commit().await.map_err(persistence_error)
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
                    Err(err) => Err(persistence_error(err)),
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

impl PersistedEventRepository for SqliteEventRepository {
    async fn get_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        self.select(A::TYPE, aggregate_id, -1).await
    }

    async fn get_last_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
        last_sequence: usize,
    ) -> Result<Vec<SerializedEvent>, PersistenceError> {
        self.select(A::TYPE, aggregate_id, to_i64(last_sequence)?)
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
        self.insert_events(A::TYPE, events).await
    }

    async fn stream_events<A: Aggregate>(
        &self,
        aggregate_id: &str,
    ) -> Result<ReplayStream, PersistenceError> {
        let sql = format!(
            "{SELECT_COLUMNS} WHERE aggregate_type = ? AND aggregate_id = ? ORDER BY sequence"
        );
        Ok(self.stream(sql, A::TYPE, Some(aggregate_id)))
    }

    async fn stream_all_events<A: Aggregate>(&self) -> Result<ReplayStream, PersistenceError> {
        let sql = format!("{SELECT_COLUMNS} WHERE aggregate_type = ? ORDER BY position");
        Ok(self.stream(sql, A::TYPE, None))
    }
}

fn decode_event(row: &SqliteRow) -> Result<SerializedEvent, PersistenceError> {
    let sequence: i64 = row.try_get("sequence").map_err(persistence_error)?;
    let payload: String = row.try_get("payload").map_err(persistence_error)?;
    let metadata: String = row.try_get("metadata").map_err(persistence_error)?;
    Ok(SerializedEvent::new(
        row.try_get("aggregate_id").map_err(persistence_error)?,
        usize::try_from(sequence)
            .map_err(|err| PersistenceError::DeserializationError(Box::new(err)))?,
        row.try_get("aggregate_type").map_err(persistence_error)?,
        row.try_get("event_type").map_err(persistence_error)?,
        row.try_get("event_version").map_err(persistence_error)?,
        serde_json::from_str(&payload)?,
        serde_json::from_str(&metadata)?,
    ))
}

fn to_i64(sequence: usize) -> Result<i64, PersistenceError> {
    i64::try_from(sequence).map_err(|err| PersistenceError::UnknownError(Box::new(err)))
}

/// Maps a sqlx error to the cqrs-es error the framework understands:
/// a unique violation is an optimistic-lock conflict, a lost connection or a
/// busy database is a connection error, anything else is unknown.
fn persistence_error(err: sqlx::Error) -> PersistenceError {
    match &err {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            PersistenceError::OptimisticLockError
        }
        sqlx::Error::Database(db) if is_busy(db.code().as_deref()) => {
            PersistenceError::ConnectionError(Box::new(err))
        }
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => PersistenceError::ConnectionError(Box::new(err)),
        sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) => {
            PersistenceError::DeserializationError(Box::new(err))
        }
        _ => PersistenceError::UnknownError(Box::new(err)),
    }
}

/// SQLITE_BUSY (5) and SQLITE_LOCKED (6), including their extended codes
/// (the low byte is the primary code).
fn is_busy(code: Option<&str>) -> bool {
    code.and_then(|c| c.parse::<i32>().ok())
        .is_some_and(|c| matches!(c & 0xff, 5 | 6))
}
