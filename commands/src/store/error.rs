//! [`StoreError`]: what can go wrong while opening or querying the store.

use std::path::PathBuf;

/// An error from opening, migrating or querying the event store outside of
/// cqrs-es (which reports through [`cqrs_es::persist::PersistenceError`]).
///
/// Every variant displays as one line and never contains a password: the
/// `Display` text is safe to log and to print at startup.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL could not be parsed.
    #[error("invalid database URL (BASEL_DATABASE_URL, --database-url): {0}")]
    InvalidUrl(String),
    /// The database server could not be reached, or refused the connection.
    ///
    /// `target` is `host:port` only (never the user or password).
    #[error("cannot reach {backend} at {target}: {reason}")]
    Unreachable {
        /// "PostgreSQL" or "SQLite".
        backend: &'static str,
        /// `host:port` for PostgreSQL, the file path for SQLite.
        target: String,
        /// Why, in one line.
        reason: String,
    },
    /// The PostgreSQL server answered, but the database does not exist.
    #[error("the PostgreSQL database {database} does not exist on {host}:{port}; create it with `createdb -h {host} -p {port} {database}` (as a user allowed to) and start again")]
    MissingDatabase {
        /// The server's host (never the user or password).
        host: String,
        /// The server's port.
        port: u16,
        /// The database's name.
        database: String,
    },
    /// The data directory for the SQLite file could not be created.
    #[error("cannot create data directory {}: {source}", path.display())]
    DataDir {
        /// The directory that was to be created.
        path: PathBuf,
        /// The underlying IO error.
        source: std::io::Error,
    },
    /// Applying the SQL migrations failed.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A query failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// Turns a connection failure into one line without newlines, e.g.
/// "connection refused", so that [`StoreError::Unreachable`] stays one line.
pub(crate) fn connect_reason(err: &sqlx::Error) -> String {
    let text = match err {
        sqlx::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
            std::io::ErrorKind::TimedOut => "connection timed out".to_string(),
            _ => io.to_string(),
        },
        sqlx::Error::PoolTimedOut => "no connection within the acquire timeout".to_string(),
        sqlx::Error::Database(db) => db.message().to_string(),
        other => other.to_string(),
    };
    // sqlx nests a configuration error in another and says so at each level.
    let mut text = text.as_str();
    while let Some(inner) = text.strip_prefix("error with configuration: ") {
        text = inner;
    }
    text.replace(['\n', '\r'], " ")
}
