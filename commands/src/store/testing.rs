//! Test support for every crate's integration tests (cargo feature `testing`).
//!
//! Each test gets a store of its own:
//!
//! - [`fresh_postgres`] creates a brand-new database `basel_t_<random hex>` on
//!   the server named by `BASEL_TEST_DATABASE_URL` (default
//!   [`DEFAULT_TEST_DATABASE_URL`]), migrates it, and drops it when the
//!   returned [`TestDb`] guard is dropped;
//! - [`fresh_sqlite`] opens a store in a new temporary directory, removed when
//!   the returned [`tempfile::TempDir`] is dropped;
//! - [`fresh_store`] is either, by [`Mode`], with the URL a reader (or the
//!   `basel` binary) would use for it.
//!
//! A test that needs PostgreSQL and cannot reach it panics with the command
//! that starts it: tests never pass by skipping.
//!
//! Waiting for something asynchronous is bounded polling with [`eventually`]
//! (or [`eventually_some`], [`eventually_blocking`]), never a bare `sleep`
//! loop; [`both_modes!`](crate::store::testing::both_modes) runs one test body
//! as two tests, `embedded` and `postgres`.
//!
//! ```ignore
//! use commands::store::testing::{both_modes, fresh_store, Mode};
//!
//! async fn appends_and_loads(mode: Mode) {
//!     let store = fresh_store(mode).await;
//!     // … use store.backend …
//! }
//!
//! both_modes!(appends_and_loads);
//! ```

use std::future::Future;
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant};

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgConnection};

use super::{postgres, Backend};

/// The server used when `BASEL_TEST_DATABASE_URL` is unset.
pub const DEFAULT_TEST_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// How to start the test server, for failure messages.
pub const HOW_TO_START: &str =
    "start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start \
     (or point BASEL_TEST_DATABASE_URL at a server where the user may CREATE DATABASE)";

/// Drops its test database when dropped (with `WITH (FORCE)`, so open pools
/// do not block it). Keep it alive as long as the [`Backend`].
#[derive(Debug)]
pub struct TestDb {
    admin: PgConnectOptions,
    name: String,
    url: String,
}

impl TestDb {
    /// The database's name, `basel_t_<hex>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This database's URL: `BASEL_TEST_DATABASE_URL` with the database
    /// name replaced (what `--database-url` of the `basel` binary takes).
    pub fn url(&self) -> &str {
        &self.url
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

/// The test server's URL: `BASEL_TEST_DATABASE_URL`, or
/// [`DEFAULT_TEST_DATABASE_URL`] when it is unset or empty.
pub fn test_database_url() -> String {
    std::env::var("BASEL_TEST_DATABASE_URL")
        .ok()
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_TEST_DATABASE_URL.to_string())
}

/// Connection options for the test server's administrative database (the
/// one [`test_database_url`] names), where test databases are created.
///
/// # Panics
///
/// If the URL is not a PostgreSQL URL.
pub fn admin_options() -> PgConnectOptions {
    match PgConnectOptions::from_str(&test_database_url()) {
        Ok(options) => options,
        Err(err) => panic!("BASEL_TEST_DATABASE_URL is not a valid PostgreSQL URL: {err}"),
    }
}

/// A connection to the test server's administrative database.
///
/// # Panics
///
/// If PostgreSQL cannot be reached; the message says how to start it.
pub async fn admin_connection() -> PgConnection {
    let admin = admin_options();
    match PgConnection::connect_with(&admin).await {
        Ok(conn) => conn,
        Err(err) => panic!(
            "PostgreSQL for tests is not reachable at {}:{} ({err}); {HOW_TO_START}",
            admin.get_host(),
            admin.get_port()
        ),
    }
}

/// `url` with its database (the path) replaced by `name`; user, password,
/// host, port and query are kept.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority = base.find("://").map_or(0, |i| i + 3);
    let path = base[authority..]
        .find('/')
        .map_or(base.len(), |i| authority + i);
    let mut out = format!("{}/{name}", &base[..path]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
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
    let mut conn = admin_connection().await;
    let name = format!("basel_t_{:016x}", rand::random::<u64>());
    if let Err(err) = sqlx::query(&format!("CREATE DATABASE \"{name}\""))
        .execute(&mut conn)
        .await
    {
        panic!("cannot create test database {name} at {target}: {err}");
    }
    let _ = conn.close().await;
    let url = with_database(&test_database_url(), &name);
    let guard = TestDb { admin, name, url };
    let backend = match postgres::open_pool_with(guard.connect_options()).await {
        Ok(pool) => Backend::Postgres(pool),
        Err(err) => panic!("{err}; {HOW_TO_START}"),
    };
    if let Err(err) = backend.migrate().await {
        panic!("migrating test database {}: {err}", guard.name);
    }
    (backend, guard)
}

/// A copy of the test database `source` (`CREATE DATABASE … TEMPLATE`), and
/// the guard that drops it. Nothing may be connected to `source` meanwhile.
///
/// # Panics
///
/// If PostgreSQL cannot be reached or the copy cannot be made.
pub async fn copy_postgres(source: &TestDb) -> TestDb {
    let admin = admin_options();
    let mut conn = admin_connection().await;
    let name = format!("basel_t_{:016x}", rand::random::<u64>());
    let sql = format!("CREATE DATABASE \"{name}\" TEMPLATE \"{}\"", source.name());
    // PostgreSQL refuses while a connection to `source` is still open (it
    // waits 5 s itself). On a loaded machine a stopped process's server-side
    // backend can outlive that (CI once failed after 12 tries), so after a
    // refusal the backends still attached to `source` are ended: nothing of
    // the caller's may be connected, so they are leftovers.
    let mut tries = 0;
    while let Err(err) = sqlx::query(&sql).execute(&mut conn).await {
        tries += 1;
        if tries == 12 {
            panic!("cannot copy test database {}: {err}", source.name());
        }
        let _ = sqlx::query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
        )
        .bind(source.name())
        .execute(&mut conn)
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let _ = conn.close().await;
    let url = with_database(&test_database_url(), &name);
    TestDb { admin, name, url }
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

/// Which store a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A SQLite file in a temporary directory.
    Embedded,
    /// A fresh database on the PostgreSQL test server.
    Postgres,
}

/// A fresh, migrated store of either kind, and what keeps it alive.
#[derive(Debug)]
pub struct TestStore {
    /// The event store.
    pub backend: Backend,
    /// Its URL: `sqlite://<dir>/basel.db`, or the test database's URL.
    pub url: String,
    guard: Guard,
}

#[derive(Debug)]
enum Guard {
    Sqlite(tempfile::TempDir),
    Postgres(Box<TestDb>),
}

impl TestStore {
    /// Which kind of store this is.
    pub fn mode(&self) -> Mode {
        match self.guard {
            Guard::Sqlite(_) => Mode::Embedded,
            Guard::Postgres(_) => Mode::Postgres,
        }
    }

    /// The SQLite store's directory (`None` on PostgreSQL).
    pub fn dir(&self) -> Option<&Path> {
        match &self.guard {
            Guard::Sqlite(dir) => Some(dir.path()),
            Guard::Postgres(_) => None,
        }
    }

    /// The PostgreSQL test database (`None` on SQLite).
    pub fn test_db(&self) -> Option<&TestDb> {
        match &self.guard {
            Guard::Sqlite(_) => None,
            Guard::Postgres(db) => Some(db),
        }
    }
}

/// A new, migrated store for one test: [`fresh_sqlite`] or [`fresh_postgres`].
///
/// # Panics
///
/// As those do.
pub async fn fresh_store(mode: Mode) -> TestStore {
    match mode {
        Mode::Embedded => {
            let (backend, dir) = fresh_sqlite().await;
            let url = format!("sqlite://{}", dir.path().join("basel.db").display());
            TestStore {
                backend,
                url,
                guard: Guard::Sqlite(dir),
            }
        }
        Mode::Postgres => {
            let (backend, db) = fresh_postgres().await;
            TestStore {
                backend,
                url: db.url().to_owned(),
                guard: Guard::Postgres(Box::new(db)),
            }
        }
    }
}

/// The first pause between two polls; it doubles up to [`POLL_MAX`].
const POLL_FIRST: Duration = Duration::from_millis(10);
/// The longest pause between two polls.
const POLL_MAX: Duration = Duration::from_millis(100);

/// Polls `check` until it answers `Some`, or `timeout` has passed (it is
/// tried at least once, and once more at the deadline). Pauses start at
/// 10 ms and double up to 100 ms.
pub async fn eventually_some<T, F, Fut>(timeout: Duration, mut check: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let started = Instant::now();
    let mut pause = POLL_FIRST;
    loop {
        if let Some(value) = check().await {
            return Some(value);
        }
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return None;
        }
        tokio::time::sleep(pause.min(left)).await;
        pause = (pause * 2).min(POLL_MAX);
    }
}

/// Polls `check` until it holds or `timeout` has passed; how long it took,
/// or `None`. Callers assert on the answer with a message of their own.
pub async fn eventually<F, Fut>(timeout: Duration, mut check: F) -> Option<Duration>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    eventually_some(timeout, || {
        let holds = check();
        async move { holds.await.then_some(()) }
    })
    .await
    .map(|()| started.elapsed())
}

/// [`eventually`] for synchronous checks (a process's exit, a port that
/// starts listening), outside or inside a runtime; it blocks the thread.
pub fn eventually_blocking<F>(timeout: Duration, mut check: F) -> Option<Duration>
where
    F: FnMut() -> bool,
{
    let started = Instant::now();
    let mut pause = POLL_FIRST;
    loop {
        if check() {
            return Some(started.elapsed());
        }
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return None;
        }
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(POLL_MAX);
    }
}

/// Every message payload on JetStream `stream`, in stream order, read with an
/// ordered consumer up to the last sequence the stream held when called.
///
/// # Panics
///
/// If the stream does not exist or cannot be read.
pub async fn stream_payloads(
    context: &async_nats::jetstream::Context,
    stream: &str,
) -> Vec<bytes::Bytes> {
    use futures::StreamExt;
    let mut stream = match context.get_stream(stream).await {
        Ok(stream) => stream,
        Err(err) => panic!("JetStream stream {stream}: {err}"),
    };
    let last = stream
        .info()
        .await
        .expect("stream info")
        .state
        .last_sequence;
    if last == 0 {
        return Vec::new();
    }
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig::default())
        .await
        .expect("an ordered consumer");
    let mut messages = consumer.messages().await.expect("messages");
    let mut out = Vec::new();
    while let Some(message) = messages.next().await {
        let message = message.expect("message");
        out.push(message.payload.clone());
        if message.info().expect("message info").stream_sequence >= last {
            break;
        }
    }
    out
}

/// Runs each `async fn NAME(mode: Mode)` as two tests, `NAME::embedded` and
/// `NAME::postgres`, on a multi-threaded runtime (2 workers unless
/// `worker_threads = N;` comes first). The calling crate needs `tokio`.
///
/// ```ignore
/// both_modes!(a_test, another_test);
/// both_modes!(worker_threads = 4; a_concurrent_test);
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __basel_both_modes {
    (worker_threads = $workers:tt; $($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = $workers)]
            async fn embedded() {
                super::$name($crate::store::testing::Mode::Embedded).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = $workers)]
            async fn postgres() {
                super::$name($crate::store::testing::Mode::Postgres).await;
            }
        }
    )*};
    ($($name:ident),* $(,)?) => {
        $crate::__basel_both_modes!(worker_threads = 2; $($name),*);
    };
}
pub use crate::__basel_both_modes as both_modes;

/// The triggers that make the events and audit tables append-only
/// (`migrations/*/0029_audit_log.sql`).
const APPEND_GUARDS: [&str; 3] = ["events", "audit_leaves", "audit_checkpoints"];

/// Runs `sql` (one or more statements) with the append-only triggers lifted,
/// then puts them back: what someone with write access to the database files
/// or an owner's login can do. Tests use it to tamper with a store, and to
/// make a store look like one written before addresses were sealed.
///
/// # Panics
/// When a statement fails.
pub async fn without_append_guard(backend: &super::Backend, sql: &str) {
    match backend {
        super::Backend::Postgres(pool) => {
            let mut script = String::from("BEGIN;\n");
            for table in APPEND_GUARDS {
                script.push_str(&format!("ALTER TABLE {table} DISABLE TRIGGER USER;\n"));
            }
            script.push_str(sql);
            script.push_str(";\n");
            for table in APPEND_GUARDS {
                script.push_str(&format!("ALTER TABLE {table} ENABLE TRIGGER USER;\n"));
            }
            script.push_str("COMMIT;");
            sqlx::raw_sql(&script)
                .execute(pool)
                .await
                .expect("statements run without the append-only guard");
        }
        super::Backend::Sqlite(pool) => {
            let triggers: Vec<(String, String)> = sqlx::query_as(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('events', 'audit_leaves', 'audit_checkpoints') AND (name LIKE '%no_update' OR name LIKE '%no_delete')",
            )
            .fetch_all(pool)
            .await
            .expect("triggers");
            let mut script = String::from("BEGIN IMMEDIATE;\n");
            for (name, _) in &triggers {
                script.push_str(&format!("DROP TRIGGER {name};\n"));
            }
            script.push_str(sql);
            script.push_str(";\n");
            for (_, create) in &triggers {
                script.push_str(create);
                script.push_str(";\n");
            }
            script.push_str("COMMIT;");
            sqlx::raw_sql(&script)
                .execute(pool)
                .await
                .expect("statements run without the append-only guard");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_is_replaced_and_everything_else_kept() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/postgres", "t1"),
            "postgres://postgres@127.0.0.1:5432/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@db:6543?sslmode=disable", "t2"),
            "postgres://u:p@db:6543/t2?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres:///postgres?host=/run/postgresql", "t3"),
            "postgres:///t3?host=/run/postgresql"
        );
    }
}
