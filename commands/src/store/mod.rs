//! The event store: where every command's events are committed, and the one
//! source of truth of basel.
//!
//! # Two backends, one table
//!
//! | mode | backend | repository |
//! |---|---|---|
//! | server (`--database-url postgres://…`) | PostgreSQL | [`postgres::PgEventRepository`] (postgres-es inside) |
//! | embedded (no URL) | SQLite file `<data_dir>/basel.db` | [`sqlite::SqliteEventRepository`] |
//!
//! Both have one `events` table with postgres-es's columns
//! (`aggregate_type, aggregate_id, sequence, event_type, event_version,
//! payload, metadata`, primary key `(aggregate_type, aggregate_id, sequence)`)
//! plus three of basel's own:
//!
//! - `position`: a global, strictly increasing number assigned **in commit
//!   order**, so a reader that follows positions (the relay) never skips an
//!   event that commits late. On PostgreSQL a trigger serialises the
//!   assignment with an advisory lock ([`POSITION_LOCK_KEY`]); SQLite has a
//!   single writer anyway.
//! - `recorded_at`: when the row was written.
//! - `published_at`: set by the relay once the event is on the log.
//!
//! The SQL lives in `migrations/{postgres,sqlite}`; [`Backend::connect`]
//! applies every file there.
//!
//! # Optimistic concurrency
//!
//! A command loads its aggregate's events (sequence `1..=n`), decides, and
//! appends events `n+1..`. If another command appended `n+1` meanwhile, the
//! primary key refuses the whole batch and cqrs-es reports
//! [`cqrs_es::AggregateError::AggregateConflict`]; nothing of the loser is
//! stored. Callers may retry the command on fresh state.
//!
//! # Using it
//!
//! ```no_run
//! # async fn demo<A: cqrs_es::Aggregate>(services: A::Services) -> Result<(), commands::store::StoreError> {
//! use commands::store::Backend;
//! let backend = Backend::connect(None, std::path::Path::new("./data")).await?;
//! let cqrs = cqrs_es::CqrsFramework::new(backend.event_store::<A>(), vec![], services);
//! # Ok(()) }
//! ```
//!
//! Only the plain event store is offered: cqrs-es 0.5 snapshot stores apply
//! newly committed events twice, so snapshots are refused.

/// Runs `$body` with `$pool` bound to the backend's pool, PostgreSQL or
/// SQLite: for the side tables whose SQL is the same on both (`$N`
/// parameters, BIGINT). The one way the write side reaches a backend's pool.
macro_rules! on_pool {
    ($backend:expr, |$pool:ident| $body:expr) => {
        match $backend {
            $crate::store::Backend::Postgres($pool) => $body,
            $crate::store::Backend::Sqlite($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

mod any;
mod error;
pub(crate) mod events;
pub mod postgres;
pub mod sqlite;
#[cfg(feature = "testing")]
pub mod testing;
mod verifier;

use std::path::Path;

use cqrs_es::persist::PersistedEventStore;
use cqrs_es::Aggregate;
use sqlx::migrate::Migrator;
use sqlx::{PgPool, SqlitePool};

pub use any::AnyEventRepository;
pub use error::StoreError;
pub use postgres::PgEventRepository;
pub use sqlite::SqliteEventRepository;
pub use verifier::SecretCheck;

/// The advisory-lock key the PostgreSQL position trigger takes for the rest of
/// the inserting transaction (the bytes `"basel\0po"`). No other lock in basel
/// may use it.
pub const POSITION_LOCK_KEY: i64 = 7_089_074_167_898_730_607;

/// Channel the PostgreSQL `events` trigger notifies with the new position.
pub const NOTIFY_CHANNEL: &str = "basel_events";

static POSTGRES_MIGRATOR: Migrator = sqlx::migrate!("../migrations/postgres");
static SQLITE_MIGRATOR: Migrator = sqlx::migrate!("../migrations/sqlite");

/// A connected, migrated event store. Cheap to clone (it holds a pool).
#[derive(Clone, Debug)]
pub enum Backend {
    /// Server mode: PostgreSQL.
    Postgres(PgPool),
    /// Embedded mode: one SQLite file.
    Sqlite(SqlitePool),
}

impl Backend {
    /// Connects to PostgreSQL at `database_url`, or, without a URL, opens
    /// (creating it if needed) `<data_dir>/basel.db`; then applies every
    /// migration of that backend.
    ///
    /// # Errors
    ///
    /// [`StoreError::Unreachable`] names `host:port` (never the password) when
    /// PostgreSQL cannot be reached within 5 s; [`StoreError::InvalidUrl`],
    /// [`StoreError::DataDir`] and [`StoreError::Migrate`] as their names say.
    pub async fn connect(database_url: Option<&str>, data_dir: &Path) -> Result<Self, StoreError> {
        let backend = match database_url {
            Some(url) => Self::Postgres(postgres::open_pool(url).await?),
            None => Self::Sqlite(sqlite::open_pool(data_dir).await?),
        };
        backend.migrate().await?;
        Ok(backend)
    }

    /// Applies the migrations in `migrations/<backend>` that are not applied yet.
    ///
    /// # Errors
    ///
    /// [`StoreError::Migrate`] if a migration fails or an applied one changed.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match self {
            Self::Postgres(pool) => POSTGRES_MIGRATOR.run(pool).await?,
            Self::Sqlite(pool) => SQLITE_MIGRATOR.run(pool).await?,
        }
        Ok(())
    }

    /// "postgres" or "sqlite", for logs and health output.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Postgres(_) => "postgres",
            Self::Sqlite(_) => "sqlite",
        }
    }

    /// The PostgreSQL pool, in server mode.
    pub fn pg_pool(&self) -> Option<&PgPool> {
        match self {
            Self::Postgres(pool) => Some(pool),
            Self::Sqlite(_) => None,
        }
    }

    /// The SQLite pool, in embedded mode.
    pub fn sqlite_pool(&self) -> Option<&SqlitePool> {
        match self {
            Self::Postgres(_) => None,
            Self::Sqlite(pool) => Some(pool),
        }
    }

    /// A cqrs-es event repository over this backend's `events` table.
    pub fn repository(&self) -> AnyEventRepository {
        match self {
            Self::Postgres(pool) => {
                AnyEventRepository::Postgres(PgEventRepository::new(pool.clone()))
            }
            Self::Sqlite(pool) => {
                AnyEventRepository::Sqlite(SqliteEventRepository::new(pool.clone()))
            }
        }
    }

    /// A plain (snapshot-free) cqrs-es event store for aggregate `A`, ready for
    /// `CqrsFramework::new`.
    pub fn event_store<A: Aggregate>(&self) -> PersistedEventStore<AnyEventRepository, A> {
        PersistedEventStore::new_event_store(self.repository())
    }

    /// The committed position of one event, or `None` if it is not stored
    /// (yet). Commands use it to tell the caller how far a projection must
    /// catch up for read-your-writes.
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] if the query fails.
    pub async fn position_of(
        &self,
        aggregate_type: &str,
        aggregate_id: &str,
        sequence: usize,
    ) -> Result<Option<i64>, StoreError> {
        let sequence = i64::try_from(sequence)
            .map_err(|err| StoreError::Database(sqlx::Error::Encode(Box::new(err))))?;
        let position = match self {
            Self::Postgres(pool) => {
                sqlx::query_scalar(
                    "SELECT position FROM events WHERE aggregate_type = $1 AND aggregate_id = $2 AND sequence = $3",
                )
                .bind(aggregate_type)
                .bind(aggregate_id)
                .bind(sequence)
                .fetch_optional(pool)
                .await?
            }
            Self::Sqlite(pool) => {
                sqlx::query_scalar(
                    "SELECT position FROM events WHERE aggregate_type = ? AND aggregate_id = ? AND sequence = ?",
                )
                .bind(aggregate_type)
                .bind(aggregate_id)
                .bind(sequence)
                .fetch_optional(pool)
                .await?
            }
        };
        Ok(position)
    }

    /// The last event of the command of `aggregate_type` stored under the
    /// idempotency key `key` (see [`domain::metadata::Idempotency`]), if
    /// any: where it landed and the digest of the request that made it.
    /// Served by the `events_idempotency` index.
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] if the query fails.
    pub async fn find_idempotent(
        &self,
        aggregate_type: &str,
        key: &str,
    ) -> Result<Option<IdempotentCommit>, StoreError> {
        let row: Option<(String, i64, i64, Option<String>)> = match self {
            Self::Postgres(pool) => {
                sqlx::query_as(
                    "SELECT aggregate_id, sequence, position, metadata->>'idempotency_request' FROM events \
                     WHERE metadata->>'idempotency_key' = $2 AND aggregate_type = $1 \
                     ORDER BY position DESC LIMIT 1",
                )
                .bind(aggregate_type)
                .bind(key)
                .fetch_optional(pool)
                .await?
            }
            Self::Sqlite(pool) => {
                sqlx::query_as(
                    "SELECT aggregate_id, sequence, position, json_extract(metadata, '$.idempotency_request') FROM events \
                     WHERE json_extract(metadata, '$.idempotency_key') = ? AND aggregate_type = ? \
                     ORDER BY position DESC LIMIT 1",
                )
                .bind(key)
                .bind(aggregate_type)
                .fetch_optional(pool)
                .await?
            }
        };
        Ok(row.map(
            |(aggregate_id, sequence, position, request)| IdempotentCommit {
                aggregate_id,
                sequence,
                position,
                request: request.unwrap_or_default(),
            },
        ))
    }

    /// The highest committed position, 0 when the store is empty.
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] if the query fails.
    pub async fn max_position(&self) -> Result<i64, StoreError> {
        const SQL: &str = "SELECT COALESCE(MAX(position), 0) FROM events";
        let max = match self {
            Self::Postgres(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
            Self::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
        };
        Ok(max)
    }
}

/// A command committed under an idempotency key ([`Backend::find_idempotent`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotentCommit {
    /// Its aggregate.
    pub aggregate_id: String,
    /// The sequence of its last event.
    pub sequence: i64,
    /// The log position of its last event.
    pub position: i64,
    /// The digest of the request that made it.
    pub request: String,
}
