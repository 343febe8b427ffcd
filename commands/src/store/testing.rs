//! Test support for every crate's integration tests (cargo feature `testing`).
//!
//! Each test gets a store of its own:
//!
//! - [`fresh_postgres`] creates a brand-new database `basel_t_<random hex>` on
//!   the server named by `BASEL_TEST_DATABASE_URL` (default
//!   [`DEFAULT_TEST_DATABASE_URL`]), migrates it, and drops it when the
//!   returned [`TestDb`] guard is dropped;
//! - [`fresh_sqlite`] opens a store in a new temporary directory, removed when
//!   the returned [`tempfile::TempDir`] is dropped.
//!
//! A test that needs PostgreSQL and cannot reach it panics with the command
//! that starts it: tests never pass by skipping.
//!
//! ```ignore
//! let (backend, _db) = commands::store::testing::fresh_postgres().await;
//! ```

use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgConnection};

use super::{postgres, Backend};

/// The server used when `BASEL_TEST_DATABASE_URL` is unset.
pub const DEFAULT_TEST_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

const HOW_TO_START: &str =
    "start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start \
     (or point BASEL_TEST_DATABASE_URL at a server where the user may CREATE DATABASE)";

/// Drops its test database when dropped (with `WITH (FORCE)`, so open pools
/// do not block it). Keep it alive as long as the [`Backend`].
#[derive(Debug)]
pub struct TestDb {
    admin: PgConnectOptions,
    name: String,
}

impl TestDb {
    /// The database's name, `basel_t_<hex>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Connection options for this database (for tests that need a raw
    /// connection, e.g. to hold a transaction open).
    pub fn connect_options(&self) -> PgConnectOptions {
        self.admin.clone().database(&self.name)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let admin = self.admin.clone();
        let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
        // Drop runs inside the test's runtime, which we must not block on;
        // a thread with its own runtime does the async work.
        let dropper = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                if let Ok(mut conn) = admin.connect().await {
                    let _ = sqlx::query(&sql).execute(&mut conn).await;
                    let _ = conn.close().await;
                }
            });
        });
        let _ = dropper.join();
    }
}

fn admin_options() -> PgConnectOptions {
    let url = std::env::var("BASEL_TEST_DATABASE_URL")
        .unwrap_or_else(|_| DEFAULT_TEST_DATABASE_URL.to_string());
    match PgConnectOptions::from_str(&url) {
        Ok(options) => options,
        Err(err) => panic!("BASEL_TEST_DATABASE_URL is not a valid PostgreSQL URL: {err}"),
    }
}

/// A new, migrated PostgreSQL database for one test, and the guard that drops
/// it.
///
/// # Panics
///
/// If PostgreSQL cannot be reached (the message says how to start it), or the
/// database cannot be created or migrated.
pub async fn fresh_postgres() -> (Backend, TestDb) {
    let admin = admin_options();
    let target = format!("{}:{}", admin.get_host(), admin.get_port());
    let mut conn = match PgConnection::connect_with(&admin).await {
        Ok(conn) => conn,
        Err(err) => {
            panic!("PostgreSQL for tests is not reachable at {target} ({err}); {HOW_TO_START}")
        }
    };
    let name = format!("basel_t_{:016x}", rand::random::<u64>());
    if let Err(err) = sqlx::query(&format!("CREATE DATABASE \"{name}\""))
        .execute(&mut conn)
        .await
    {
        panic!("cannot create test database {name} at {target}: {err}");
    }
    let _ = conn.close().await;
    let guard = TestDb { admin, name };
    let backend = match postgres::open_pool_with(guard.connect_options()).await {
        Ok(pool) => Backend::Postgres(pool),
        Err(err) => panic!("{err}; {HOW_TO_START}"),
    };
    if let Err(err) = backend.migrate().await {
        panic!("migrating test database {}: {err}", guard.name);
    }
    (backend, guard)
}

/// A new, migrated SQLite store in a temporary directory that lives as long as
/// the returned [`tempfile::TempDir`].
///
/// # Panics
///
/// If the directory or the database cannot be created or migrated.
pub async fn fresh_sqlite() -> (Backend, tempfile::TempDir) {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => panic!("cannot create a temporary directory: {err}"),
    };
    match Backend::connect(None, dir.path()).await {
        Ok(backend) => (backend, dir),
        Err(err) => panic!(
            "cannot open a SQLite store in {}: {err}",
            dir.path().display()
        ),
    }
}
