//! What both harnesses share: where a test's data lives ([`Store`]), free
//! ports, and the workspace's test support (`commands::store::testing`:
//! fresh databases on `BASEL_TEST_DATABASE_URL`, [`Mode`], `both_modes!`,
//! bounded polling with [`eventually`]).
//!
//! - [`crate::process`]: the real `basel` binary (`basel serve`, the CLI),
//!   plus private NATS and PostgreSQL servers for the fault tests;
//! - [`crate::inproc`]: the REST app in this process on port 0, with typed
//!   request helpers.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

pub use commands::store::testing::{
    both_modes, eventually, eventually_blocking, eventually_some, Mode,
};
use commands::store::testing::{copy_postgres, fresh_postgres, TestDb};

/// Where a test's data lives: a temp dir, plus a fresh PostgreSQL database
/// (on the server `BASEL_TEST_DATABASE_URL` names) in PostgreSQL mode.
pub struct Store {
    pub dir: tempfile::TempDir,
    pub database_url: Option<String>,
    db: Option<TestDb>,
}

impl Store {
    /// A SQLite store (the `basel` binary creates it in [`Store::data_dir`]).
    pub fn embedded() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            database_url: None,
            db: None,
        }
    }

    /// A fresh, migrated PostgreSQL test database, dropped with the store.
    pub async fn postgres() -> Self {
        let (_backend, db) = fresh_postgres().await;
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            database_url: Some(db.url().to_owned()),
            db: Some(db),
        }
    }

    /// [`Store::embedded`] or [`Store::postgres`].
    pub async fn of(mode: Mode) -> Self {
        match mode {
            Mode::Embedded => Self::embedded(),
            Mode::Postgres => Self::postgres().await,
        }
    }

    /// A store on an existing PostgreSQL database (e.g. a private cluster).
    pub fn at(database_url: String) -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            database_url: Some(database_url),
            db: None,
        }
    }

    /// A copy of this store as it is now (its data directory's files, and
    /// in PostgreSQL mode a copy of its test database, dropped with the
    /// copy). No process may have the store open meanwhile.
    pub async fn copy(&self) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let to = dir.path().join("data");
        std::fs::create_dir_all(&to).expect("data dir");
        if let Ok(entries) = std::fs::read_dir(self.data_dir()) {
            for entry in entries {
                let entry = entry.expect("entry");
                if entry.file_type().expect("type").is_file() {
                    std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
                }
            }
        }
        match &self.db {
            Some(source) => {
                let db = copy_postgres(source).await;
                Self {
                    dir,
                    database_url: Some(db.url().to_owned()),
                    db: Some(db),
                }
            }
            None => Self {
                dir,
                database_url: None,
                db: None,
            },
        }
    }

    /// The PostgreSQL test database of [`Store::postgres`].
    pub fn test_db(&self) -> Option<&TestDb> {
        self.db.as_ref()
    }

    /// `BASEL_DATA_DIR`.
    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The read/write database (sqlx Any over SQLite or PostgreSQL).
    pub async fn db(&self) -> sqlx::AnyPool {
        sqlx::any::install_default_drivers();
        let url = match &self.database_url {
            Some(url) => url.clone(),
            None => format!("sqlite://{}", self.data_dir().join("basel.db").display()),
        };
        sqlx::any::AnyPoolOptions::new()
            .max_connections(2)
            .connect(&url)
            .await
            .expect("database")
    }
}

/// Counts every row of the events table of `store`.
pub async fn count_all_events(store: &Store) -> i64 {
    count_events(store, "%").await
}

/// Counts the rows of the events table of `store` whose aggregate type is
/// like `aggregate_type` (`%` for every row).
pub async fn count_events(store: &Store, aggregate_type: &str) -> i64 {
    let sql = "SELECT COUNT(*) FROM events WHERE aggregate_type LIKE $1";
    match &store.database_url {
        Some(url) => {
            let pool = sqlx::PgPool::connect(url).await.expect("postgres");
            sqlx::query_scalar(sql)
                .bind(aggregate_type)
                .fetch_one(&pool)
                .await
                .expect("count")
        }
        None => {
            let url = format!("sqlite://{}", store.data_dir().join("basel.db").display());
            let pool = sqlx::SqlitePool::connect(&url).await.expect("sqlite");
            sqlx::query_scalar(sql)
                .bind(aggregate_type)
                .fetch_one(&pool)
                .await
                .expect("count")
        }
    }
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("addr")
        .port()
}

/// Whether something listens on `127.0.0.1:port` within `timeout`.
pub fn listening(port: u16, timeout: Duration) -> bool {
    eventually_blocking(timeout, || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .is_some()
}

/// Every byte of every file under `dir`.
pub fn all_bytes(dir: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            bytes.extend(all_bytes(&path));
        } else {
            bytes.extend(std::fs::read(&path).unwrap_or_default());
        }
    }
    bytes
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every table in PostgreSQL's `public` schema with its rows as text: for
/// checking that a value appears in no row at all.
pub async fn every_row(db: &sqlx::AnyPool) -> std::collections::BTreeMap<String, Vec<String>> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    )
    .fetch_all(db)
    .await
    .expect("tables");
    let mut all = std::collections::BTreeMap::new();
    for table in tables {
        let rows: Vec<String> =
            sqlx::query_scalar(&format!("SELECT CAST(t AS TEXT) FROM \"{table}\" t"))
                .fetch_all(db)
                .await
                .expect("rows");
        all.insert(table, rows);
    }
    all
}
