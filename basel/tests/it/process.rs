//! The process harness: the real `basel` binary against a [`Store`] of the
//! test's own, and real servers for the fault tests.
//!
//! - [`Basel`]: a deployment (store, environment, in server mode a JetStream
//!   stream and subject prefix of its own) that runs CLI commands
//!   ([`Basel::run`]) and `basel serve` ([`Basel::serve`]: both listeners on
//!   port 0, waits for `/healthz`);
//! - [`Node`]: a running `basel serve`: its REST and MCP addresses, its
//!   stderr, SIGTERM ([`Node::stop`]) or SIGKILL ([`Node::kill9`]);
//! - [`Nats`], [`PrivatePostgres`]: servers of the test's own that can be
//!   killed and restarted without touching the machine's shared services.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream;
use commands::store::testing::stream_payloads;
use serde_json::{json, Value};

use crate::support::{eventually, eventually_blocking, free_port, listening, Mode, Store};

/// The server secret of [`Basel::with_secret`].
pub const SECRET: &str = "fault-test-secret-0123456789abcdef0123456789";

/// A basel deployment: a [`Store`] and the environment `basel` runs with.
pub struct Basel {
    pub store: Store,
    env: HashMap<&'static str, String>,
    /// The JetStream stream of [`Basel::with_nats`].
    pub stream: String,
    /// The subject prefix of [`Basel::with_nats`].
    pub prefix: String,
}

impl Basel {
    /// `basel` on `store`, with only `BASEL_DATA_DIR`, `BASEL_LOG=info` and
    /// (PostgreSQL) `BASEL_DATABASE_URL` set, and on PostgreSQL also
    /// `BASEL_SECRET` = [`SECRET`] (server mode refuses to start without
    /// one; [`Basel::without_secret`] takes it away).
    pub fn on(store: Store) -> Self {
        let tag = uuid::Uuid::new_v4().simple().to_string();
        let mut env = HashMap::new();
        if store.database_url.is_some() {
            env.insert("BASEL_SECRET", SECRET.to_owned());
        }
        Self {
            store,
            env,
            stream: format!("FAULT_{tag}"),
            prefix: format!("fault{tag}.events"),
        }
    }

    /// A copy of this deployment's store ([`Store::copy`]) with the same
    /// environment, stream and subject prefix.
    pub async fn copy(&self) -> Self {
        Self {
            store: self.store.copy().await,
            env: self.env.clone(),
            stream: self.stream.clone(),
            prefix: self.prefix.clone(),
        }
    }

    /// Without `BASEL_SECRET`.
    pub fn without_secret(mut self) -> Self {
        self.env.remove("BASEL_SECRET");
        self
    }

    /// On a fresh embedded store.
    pub fn embedded() -> Self {
        Self::on(Store::embedded())
    }

    /// On a fresh PostgreSQL test database.
    pub async fn postgres() -> Self {
        Self::on(Store::postgres().await)
    }

    /// On a fresh store of `mode`.
    pub async fn of(mode: Mode) -> Self {
        Self::on(Store::of(mode).await)
    }

    /// With `BASEL_SECRET` = [`SECRET`].
    pub fn with_secret(mut self) -> Self {
        self.env.insert("BASEL_SECRET", SECRET.to_owned());
        self
    }

    /// With one more environment variable.
    pub fn with_env(mut self, name: &'static str, value: &str) -> Self {
        self.env.insert(name, value.to_owned());
        self
    }

    /// Server mode: NATS at `nats_url`, a stream and subject prefix of this
    /// deployment's own.
    pub fn with_nats(mut self, nats_url: &str) -> Self {
        self.env.insert("BASEL_NATS_URL", nats_url.to_owned());
        self.env.insert("BASEL_NATS_STREAM", self.stream.clone());
        self.env
            .insert("BASEL_NATS_SUBJECT_PREFIX", self.prefix.clone());
        self
    }

    /// `basel ARGS` against this deployment, with nothing else from the
    /// test's environment but `PATH`.
    pub fn basel(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_basel"));
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default());
        command
            .env("BASEL_DATA_DIR", self.store.data_dir())
            .env("BASEL_LOG", "info");
        if let Some(url) = &self.store.database_url {
            command.env("BASEL_DATABASE_URL", url);
        }
        command.envs(&self.env);
        command
    }

    /// `basel ARGS`, run to completion. On a fresh embedded store it first
    /// makes the store exist, migrated and empty, as a fresh PostgreSQL test
    /// database is: no command but `serve` creates one.
    pub fn run(&self, args: &[&str]) -> Output {
        let names_a_store = args
            .iter()
            .any(|a| a.starts_with("--data-dir") || a.starts_with("--database-url"));
        if !names_a_store && args.first() != Some(&"serve") {
            self.create_store();
        }
        self.basel(args).output().expect("basel runs")
    }

    /// Creates and migrates the embedded store (unseeded) if it is missing.
    fn create_store(&self) {
        if self.store.database_url.is_some() || self.store.data_dir().join("basel.db").exists() {
            return;
        }
        let dir = self.store.data_dir();
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime")
                .block_on(async {
                    let backend = commands::store::Backend::connect(None, &dir)
                        .await
                        .expect("the embedded store is created and migrated");
                    drop(backend);
                });
        })
        .join()
        .expect("store creation");
    }

    /// The temp dir the deployment's data lives in (for files to import).
    pub fn dir(&self) -> &Path {
        self.store.dir.path()
    }

    /// Enrols a steward with `basel steward enrol`; returns the bearer token
    /// (the last line of stdout).
    pub fn enrol(&self, name: &str, email: &str) -> String {
        steward_token(&self.run(&["steward", "enrol", "--name", name, "--email", email]))
    }

    /// `basel replay --verify`: (exit success, stdout and stderr).
    pub fn verify(&self) -> (bool, String) {
        let output = self.run(&["replay", "--verify"]);
        (
            output.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ),
        )
    }

    /// The read/write database (sqlx Any over SQLite or PostgreSQL).
    pub async fn db(&self) -> sqlx::AnyPool {
        self.store.db().await
    }

    /// `basel serve` with both listeners on port 0: waits until it logs both
    /// addresses and `/healthz` answers 200.
    pub async fn serve(&self) -> Node {
        let mut child = self
            .basel(&[
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
                .unwrap_or_else(|e| {
                    // Give the reader a moment to keep the last lines.
                    std::thread::sleep(Duration::from_millis(200));
                    panic!(
                        "basel serve logs addr= and mcp_addr= within 60 s: {e}; it said:\n{}",
                        lines.lock().map(|l| l.join("\n")).unwrap_or_default()
                    )
                });
            match field {
                " addr=" => base = Some(url),
                _ => mcp = Some(url),
            }
        }
        let node = Node {
            child,
            base: base.unwrap_or_default(),
            mcp: mcp.unwrap_or_default(),
            lines,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .expect("client"),
        };
        let healthy = eventually(Duration::from_secs(30), || async {
            node.get("/healthz").await.map(|(s, _)| s) == Some(200)
        })
        .await;
        assert!(healthy.is_some(), "/healthz did not answer 200 within 30 s");
        node
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

/// A running `basel serve`, killed when dropped.
pub struct Node {
    child: Child,
    /// The REST base URL, `http://127.0.0.1:PORT`.
    pub base: String,
    /// The MCP base URL (`/mcp`, `/sse` below it).
    pub mcp: String,
    lines: Arc<Mutex<Vec<String>>>,
    /// A client with a 20 s timeout.
    pub http: reqwest::Client,
}

impl Node {
    /// `GET path`: status and JSON body (`Null` when not JSON), or `None`
    /// when the server did not answer.
    pub async fn get(&self, path: &str) -> Option<(u16, Value)> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .ok()?;
        let status = response.status().as_u16();
        Some((status, response.json().await.unwrap_or(Value::Null)))
    }

    /// `GET path` with an API key.
    pub async fn get_with_key(&self, path: &str, key: &str) -> Option<(u16, Value)> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .header("x-api-key", key)
            .send()
            .await
            .ok()?;
        let status = response.status().as_u16();
        Some((status, response.json().await.unwrap_or(Value::Null)))
    }

    /// A key from `POST /register` (asserting 200).
    pub async fn register(&self, email: &str) -> String {
        let response = self
            .http
            .post(format!("{}/register", self.base))
            .json(&json!({ "email": email }))
            .send()
            .await
            .expect("register");
        assert_eq!(response.status().as_u16(), 200);
        let body: Value = response.json().await.expect("json");
        body["api_key"].as_str().expect("api_key").to_owned()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The resident set size, in KiB (from `/proc/PID/status`).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("/proc/PID/status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// Every stderr line so far.
    pub fn log(&self) -> String {
        self.lines.lock().expect("lines").join("\n")
    }

    /// SIGTERM, and wait for a clean exit.
    pub fn stop(mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let mut exit = None;
        let exited = eventually_blocking(Duration::from_secs(20), || {
            exit = self.child.try_wait().ok().flatten();
            exit.is_some()
        });
        assert!(
            exited.is_some(),
            "basel serve did not exit within 20 s of SIGTERM"
        );
        if let Some(status) = exit {
            assert!(
                status.success(),
                "basel serve exited with {status} after SIGTERM"
            );
        }
    }

    /// SIGKILL: no graceful anything.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A nats-server with JetStream of this test's own.
pub struct Nats {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
}

impl Nats {
    pub fn start() -> Self {
        let mut nats = Self {
            child: None,
            port: free_port(),
            dir: tempfile::tempdir().expect("temp dir"),
        };
        nats.resume();
        nats
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Starts it again on the same port and store directory.
    pub fn resume(&mut self) {
        let binary = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| Path::new(p).exists())
            .unwrap_or_else(|| {
                panic!("nats-server is not installed (apt-get install nats-server; .ci/run does)")
            });
        let child = Command::new(binary)
            .args([
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-js",
                "-sd",
            ])
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        assert!(
            listening(self.port, Duration::from_secs(10)),
            "nats-server did not listen on {} within 10 s",
            self.port
        );
    }

    /// Kills it (SIGKILL): clients see the connection drop.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub async fn jetstream(&self) -> jetstream::Context {
        let client = async_nats::connect(self.url())
            .await
            .expect("nats connects");
        jetstream::new(client)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A PostgreSQL cluster of this test's own (initdb into a temp dir), run as
/// the `postgres` user when the tests run as root.
pub struct PrivatePostgres {
    dir: tempfile::TempDir,
    port: u16,
}

impl PrivatePostgres {
    pub fn start() -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|mut d| d.next())
            .and_then(Result::ok)
            .map(|e| e.path().join("bin"))
            .filter(|p| p.join("initdb").exists())
            .expect("PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
        let dir = tempfile::tempdir().expect("temp dir");
        let pg = Self {
            dir,
            port: free_port(),
        };
        let _ = Command::new("chown")
            .args(["-R", "postgres"])
            .arg(pg.dir.path())
            .status();
        let output = pg
            .as_owner(&bin.join("initdb"))
            .args(["-A", "trust", "-U", "postgres", "-D"])
            .arg(pg.data())
            .output()
            .expect("initdb runs");
        assert!(
            output.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        pg.ctl("start");
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn as_owner(&self, program: &Path) -> Command {
        let root = Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false);
        if root {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    fn ctl(&self, action: &str) {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("postgresql")
            .flatten()
            .map(|e| e.path().join("bin"))
            .find(|p| p.join("pg_ctl").exists())
            .expect("pg_ctl");
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let mut command = self.as_owner(&bin.join("pg_ctl"));
        command
            .arg("-D")
            .arg(self.data())
            .args(["-w", "-m", "fast", "-o", &options]);
        command.arg("-l").arg(self.dir.path().join("log"));
        let output = command.arg(action).output().expect("pg_ctl runs");
        assert!(
            output.status.success(),
            "pg_ctl {action} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    pub fn stop(&self) {
        self.ctl("stop");
    }

    pub fn resume(&self) {
        self.ctl("start");
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.ctl("stop")));
    }
}

/// A steward verification update with a unique `source`.
pub fn update(source: &str) -> Value {
    json!({
        "verified": false,
        "checked_on": "2026-11-20",
        "method": "email",
        "source": source,
        "note": "fault test",
        "changes": { "notes": format!("after {source}") },
    })
}

/// POSTs `body` as a verification of `code`; the status, or `None` when the
/// server did not answer.
pub async fn verify_record(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    code: &str,
    body: &Value,
) -> Option<u16> {
    http.post(format!("{base}/api/v1/ca/{code}/verifications"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .ok()
        .map(|r| r.status().as_u16())
}

/// Every envelope on the deployment's stream, in stream order (`Null` for a
/// message that is not JSON).
pub async fn read_stream(context: &jetstream::Context, stream: &str) -> Vec<Value> {
    stream_payloads(context, stream)
        .await
        .iter()
        .map(|payload| serde_json::from_slice(payload).unwrap_or(Value::Null))
        .collect()
}
