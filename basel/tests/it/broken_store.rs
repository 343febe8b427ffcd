//! Stores that stop answering, for the 503 tests.

use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::Connection;

use commands::store::Backend;

use crate::support::{Mode, Store};

/// An event store of the same kind as `mode` that nobody answers for: a
/// PostgreSQL port nothing listens on, or a SQLite file that cannot be opened.
pub async fn unreachable_backend(mode: Mode, store: &Store) -> Backend {
    match mode {
        Mode::Postgres => Backend::Postgres(
            PgPoolOptions::new()
                .acquire_timeout(Duration::from_secs(1))
                .connect_lazy_with(PgConnectOptions::new().host("127.0.0.1").port(1)),
        ),
        Mode::Embedded => Backend::Sqlite(
            SqlitePoolOptions::new()
                .acquire_timeout(Duration::from_secs(1))
                .connect_lazy_with(
                    SqliteConnectOptions::new()
                        .filename(store.dir.path().join("missing-dir").join("basel.db"))
                        .create_if_missing(false),
                ),
        ),
    }
}

/// Refuses every new connection to `store`'s PostgreSQL database and ends
/// the open ones (the test database is still dropped at the end).
pub async fn cut_off(store: &Store) {
    let name = store.test_db().expect("a PostgreSQL test store").name();
    let mut conn = commands::store::testing::admin_connection().await;
    sqlx::query(&format!(
        "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS false"
    ))
    .execute(&mut conn)
    .await
    .expect("disallow connections");
    sqlx::query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()")
        .bind(name)
        .execute(&mut conn)
        .await
        .expect("terminate");
    let _ = conn.close().await;
}
