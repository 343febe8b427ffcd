//! basel's read side.
//!
//! Projections consume the event log in position order and keep read tables
//! that the REST API and the MCP server query. Each projection has its own
//! checkpoint, written in the same transaction as its table, so a crash
//! between the two is impossible and applying is idempotent. Read tables are
//! disposable: drop them and the projection rebuilds them from the log.
//!
//! Every table uses plain text, integer and boolean columns, so one SQL text
//! serves SQLite and PostgreSQL through sqlx's `Any` driver.
//!
//! Must not: write the events table, or call the `commands` crate.
//!
//! Layout:
//! - [`registry`]: the one list of projections: each one's name, the
//!   aggregate it reads, its live apply and replay fold, its tables;
//! - [`cache`]: active keys, records and the directory remembered until a
//!   projection step changes them (REST and MCP);
//! - [`follow`]: how a process that does not project hears of each step
//!   (PostgreSQL notifications, server mode);
//! - [`changes`]: the codes of directory records as they change (MCP
//!   subscriptions);
//! - [`log`]: reading the embedded log (the events table by position);
//! - [`replay`]: rebuilding every projection into scratch tables and comparing;
//! - [`contacts`]: a Party's contacts as clients see them;
//! - [`stream`]: projections as durable JetStream consumers (server mode);
//! - [`runner`]: applying the log to every projection, checkpoints, waiting
//!   for a position (read-your-writes);
//! - `trace`: the span each applied event gets, continuing its command's trace;
//! - [`directory`], [`history`], [`api_keys`], [`stewards`]: one projection
//!   each, with its reader;
//! - `sequence`: the per-aggregate sequence guard every projection applies;
//! - [`views`]: the JSON shapes clients see, shared by REST and MCP, and
//!   [`schema`]: their JSON Schemas, generated from the types;
//! - [`search`]: finding countries by code, name, other name or authority,
//!   for REST and MCP alike;
//! - [`listing`]: the directory filtered and cut into pages, for REST and
//!   MCP alike;
//! - [`shipment`]: the shipment plan (classification, procedure per State,
//!   who notifies whom, every State's record) for REST and MCP alike.

pub mod api_keys;
pub mod cache;
pub mod changes;
pub mod consistency;
pub mod contacts;
pub mod coverage;
pub mod directory;
mod fill;
pub mod follow;
pub mod history;
pub mod listing;
pub mod log;
pub mod progress;
pub mod registry;
pub mod replay;
pub mod rest_queries;
mod rows;
pub mod runner;
pub mod schema;
pub mod scope;
pub mod search;
mod sequence;
pub mod shipment;
pub mod stewards;
pub mod stream;
mod trace;
pub mod views;
pub mod worklist;

use sqlx::AnyPool;

/// The database holding the read tables (and, in embedded mode, the log).
pub type ReadDb = AnyPool;

/// Why a projection could not apply the log.
#[derive(Debug, thiserror::Error)]
pub enum ProjectionError {
    /// An event could not be decoded: the projection halts on it.
    #[error("event at position {position} ({event_type}) does not decode: {reason}")]
    Decode {
        /// The event's log position.
        position: i64,
        /// Its type as stored.
        event_type: String,
        /// The decoder's complaint.
        reason: String,
    },
    /// An event arrived whose sequence is not the next for its aggregate.
    #[error("gap for {aggregate_id}: expected sequence {expected}, got {got}")]
    Gap {
        /// The aggregate.
        aggregate_id: String,
        /// The sequence due.
        expected: i64,
        /// The sequence seen.
        got: i64,
    },
    /// A read row holds something it never should (a hand-edited table).
    #[error("read table is corrupt: {0}")]
    Corrupt(String),
    /// The log could not be read (NATS, or a message that does not decode).
    #[error("log: {0}")]
    Log(String),
    /// The database failed.
    #[error("read database: {0}")]
    Database(#[from] sqlx::Error),
}

/// Connects to the read database by URL (`sqlite://…` or `postgres://…`).
///
/// # Errors
/// [`ProjectionError::Database`] when the database cannot be reached.
pub async fn connect(url: &str) -> Result<ReadDb, ProjectionError> {
    sqlx::any::install_default_drivers();
    let sqlite = url.starts_with("sqlite");
    Ok(sqlx::any::AnyPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(std::time::Duration::from_secs(3))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if sqlite {
                    // At most 512 KiB of page cache per connection (SQLite's
                    // default is 2 MiB), as the write pool: eight caches that
                    // fill as the database grows would otherwise add 16 MiB.
                    sqlx::Executor::execute(&mut *conn, "PRAGMA cache_size = -512").await?;
                }
                Ok(())
            })
        })
        .connect(url)
        .await?)
}
