//! Running the real `basel` binary against a fresh store.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use commands::store::testing::{fresh_postgres, TestDb};

/// Where a test's data lives: a temp dir, plus a fresh PostgreSQL database in server mode.
pub struct Store {
    pub dir: tempfile::TempDir,
    pub database_url: Option<String>,
    _db: Option<TestDb>,
}

impl Store {
    pub fn embedded() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            database_url: None,
            _db: None,
        }
    }

    pub async fn postgres() -> Self {
        let (_backend, db) = fresh_postgres().await;
        let url = format!("postgres://postgres@127.0.0.1:5432/{}", db.name());
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            database_url: Some(url),
            _db: Some(db),
        }
    }

    /// A store on an existing PostgreSQL database (e.g. a private cluster).
    pub fn at(database_url: String) -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
            database_url: Some(database_url),
            _db: None,
        }
    }

    /// Enrols a steward with `basel steward enrol`; returns the bearer token
    /// (the last line of stdout).
    pub fn enrol(&self, name: &str, email: &str) -> String {
        steward_token(&self.run(&["steward", "enrol", "--name", name, "--email", email]))
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// `basel ARGS` against this store.
    pub fn basel(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_basel"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default());
        command
            .env("BASEL_DATA_DIR", self.data_dir())
            .env("BASEL_LOG", "info");
        if let Some(url) = &self.database_url {
            command.env("BASEL_DATABASE_URL", url);
        }
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.basel(args).output().expect("basel runs")
    }

    /// Starts `basel serve` on a free port and waits until `/healthz` answers.
    pub async fn serve(&self) -> Server {
        let spawned = spawn_serve(self.basel(&[]));
        let server = Server {
            child: spawned.child,
            base: spawned.base,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if server.get("/healthz").await.map(|r| r.status().as_u16()) == Some(200) {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("/healthz did not answer 200 within 30 s");
    }
}

/// The bearer token `basel steward enrol` printed (its last stdout line).
pub fn steward_token(output: &Output) -> String {
    assert!(
        output.status.success(),
        "enrol failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .expect("a token line")
        .trim()
        .to_owned()
}

/// A `basel serve` process just started: its REST base URL and every stderr
/// line it has written (kept for assertions on the log).
pub struct Spawned {
    pub child: Child,
    pub base: String,
    pub mcp: String,
    pub lines: Arc<Mutex<Vec<String>>>,
}

/// Runs `command` (a `basel` command without a subcommand) as `basel serve`
/// on free ports and waits until it logs the REST and MCP addresses.
pub fn spawn_serve(mut command: Command) -> Spawned {
    let mut child = command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--mcp-listen",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("basel serve starts");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let kept = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            for field in [" addr=", " mcp_addr="] {
                if let Some(addr) = line.split(field).nth(1) {
                    let addr = addr.split_whitespace().next().unwrap_or_default();
                    let _ = tx.send((field, format!("http://{addr}")));
                }
            }
            kept.lock().expect("lines").push(line);
        }
    });
    let (mut base, mut mcp) = (None, None);
    while base.is_none() || mcp.is_none() {
        let (field, url) = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("basel serve logs addr= and mcp_addr= within 60 s");
        match field {
            " addr=" => base = Some(url),
            _ => mcp = Some(url),
        }
    }
    Spawned {
        child,
        base: base.unwrap_or_default(),
        mcp: mcp.unwrap_or_default(),
        lines,
    }
}

/// A running `basel serve`.
pub struct Server {
    child: Child,
    pub base: String,
}

impl Server {
    pub async fn get(&self, path: &str) -> Option<reqwest::Response> {
        reqwest::get(format!("{}{path}", self.base)).await.ok()
    }

    /// SIGTERM, and wait for a clean exit.
    pub fn stop(mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(
                    status.success(),
                    "basel serve exited with {status} after SIGTERM"
                );
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("basel serve did not exit within 20 s of SIGTERM");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Counts rows of the events table of `store`.
pub async fn count_events(store: &Store, aggregate_type: &str) -> i64 {
    let sql = "SELECT COUNT(*) FROM events WHERE aggregate_type = $1";
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
