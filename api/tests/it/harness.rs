//! Real processes for the log's fault tests: a private NATS server and a
//! private PostgreSQL cluster (both can be stopped and restarted without
//! touching the machine's shared services), and `basel` deployments in
//! embedded or server mode with their stderr kept for assertions.

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, consumer::pull};
use futures::StreamExt;
use serde_json::{json, Value};

use crate::support::{spawn_serve, steward_token, Store};

pub const SECRET: &str = "fault-test-secret-0123456789abcdef0123456789";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("addr")
        .port()
}

fn wait_for_port(port: u16, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    false
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
            wait_for_port(self.port, Duration::from_secs(10)),
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

/// A basel deployment: a [`Store`] plus the server secret and, in server
/// mode, a JetStream stream and subject prefix of its own.
pub struct Deployment {
    pub store: Store,
    env: HashMap<&'static str, String>,
    pub stream: String,
    pub prefix: String,
}

impl Deployment {
    pub fn embedded() -> Self {
        Self::with(Store::embedded(), None)
    }

    /// PostgreSQL (a fresh database on the shared server) and NATS at `nats_url`.
    pub async fn server(nats_url: &str) -> Self {
        Self::with(Store::postgres().await, Some(nats_url))
    }

    /// Server mode on a store at `database_url` (e.g. a private cluster).
    pub fn server_at(database_url: String, nats_url: &str) -> Self {
        Self::with(Store::at(database_url), Some(nats_url))
    }

    fn with(store: Store, nats_url: Option<&str>) -> Self {
        let tag = uuid::Uuid::new_v4().simple().to_string();
        let stream = format!("FAULT_{tag}");
        let prefix = format!("fault{tag}.events");
        let mut env = HashMap::new();
        env.insert("BASEL_SECRET", SECRET.to_owned());
        if let Some(nats) = nats_url {
            env.insert("BASEL_NATS_URL", nats.to_owned());
            env.insert("BASEL_NATS_STREAM", stream.clone());
            env.insert("BASEL_NATS_SUBJECT_PREFIX", prefix.clone());
        }
        Self {
            store,
            env,
            stream,
            prefix,
        }
    }

    pub fn basel(&self, args: &[&str]) -> Command {
        let mut command = self.store.basel(args);
        command.envs(&self.env);
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.basel(args).output().expect("basel runs")
    }

    /// `basel serve` on free ports; waits for `/healthz`.
    pub async fn serve(&self) -> Node {
        let spawned = spawn_serve(self.basel(&[]));
        let node = Node {
            child: spawned.child,
            base: spawned.base,
            lines: spawned.lines,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .expect("client"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if node.get("/healthz").await.map(|(s, _)| s) == Some(200) {
                return node;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("/healthz did not answer 200 within 30 s");
    }

    /// Enrols a steward with the CLI; returns their token.
    pub fn enrol(&self, name: &str) -> String {
        steward_token(&self.run(&[
            "steward",
            "enrol",
            "--name",
            name,
            "--email",
            "steward@example.org",
        ]))
    }

    /// `basel replay --verify`: (exit success, stdout).
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
        sqlx::any::install_default_drivers();
        let url = match &self.store.database_url {
            Some(url) => url.clone(),
            None => format!(
                "sqlite://{}",
                self.store.data_dir().join("basel.db").display()
            ),
        };
        sqlx::any::AnyPoolOptions::new()
            .max_connections(2)
            .connect(&url)
            .await
            .expect("database")
    }
}

/// A running `basel serve`.
pub struct Node {
    child: Child,
    pub base: String,
    lines: Arc<Mutex<Vec<String>>>,
    pub http: reqwest::Client,
}

impl Node {
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

    /// Every stderr line so far.
    pub fn log(&self) -> String {
        self.lines.lock().expect("lines").join("\n")
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

/// Every envelope on the deployment's stream, in stream order.
pub async fn read_stream(context: &jetstream::Context, stream: &str) -> Vec<Value> {
    let mut stream = context.get_stream(stream).await.expect("stream");
    let last = stream.info().await.expect("info").state.last_sequence;
    if last == 0 {
        return Vec::new();
    }
    let consumer = stream
        .create_consumer(pull::OrderedConfig::default())
        .await
        .expect("consumer");
    let mut messages = consumer.messages().await.expect("messages");
    let mut out = Vec::new();
    while let Some(message) = messages.next().await {
        let message = message.expect("message");
        out.push(serde_json::from_slice(&message.payload).unwrap_or(Value::Null));
        if message.info().expect("info").stream_sequence >= last {
            break;
        }
    }
    out
}

/// Polls `check` every 100 ms until it holds or `timeout` passes; returns
/// how long it took, or `None`.
pub async fn eventually<F, Fut>(timeout: Duration, mut check: F) -> Option<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while started.elapsed() < timeout {
        if check().await {
            return Some(started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}
