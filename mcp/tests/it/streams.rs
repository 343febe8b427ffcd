//! Event streams on `/mcp`: event ids a client can resume from, and
//! notifications accepted as real clients send them.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::support::{spawn, spawn_configured, App};
use mcp::McpConfig;

const ACCEPT: &str = "application/json, text/event-stream";

fn request(app: &App, method: reqwest::Method, session: Option<&str>) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}/mcp", app.base))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("x-api-key", &app.key);
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18");
    }
    request
}

/// Opens an initialised session: its id.
async fn open(app: &App) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "streams-test", "version": "1"}}
    });
    let response = request(app, reqwest::Method::POST, None)
        .body(initialize.to_string())
        .send()
        .await
        .expect("initialize");
    assert_eq!(response.status(), 200);
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    drop(response.bytes().await);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let answer = request(app, reqwest::Method::POST, Some(&id))
        .body(initialized.to_string())
        .send()
        .await
        .expect("initialized");
    assert_eq!(answer.status(), 202);
    id
}

/// One server-sent event: its id and its data (both possibly empty).
#[derive(Debug)]
struct Event {
    id: String,
    data: String,
}

/// The events of one `GET /mcp` stream.
struct Stream {
    body: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Stream {
    /// `GET /mcp` for `session`, resuming after `last` when given.
    async fn open(app: &App, session: &str, last: Option<&str>) -> Self {
        let mut get = request(app, reqwest::Method::GET, Some(session));
        if let Some(last) = last {
            get = get.header("last-event-id", last);
        }
        let response = get.send().await.expect("GET /mcp");
        assert_eq!(response.status(), 200);
        Self {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event within `wait`, if any.
    async fn next(&mut self, wait: Duration) -> Option<Event> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let normalised = self.buffer.replace("\r\n", "\n");
            if let Some(end) = normalised.find("\n\n") {
                let block = normalised[..end].to_owned();
                self.buffer = normalised[end + 2..].to_owned();
                let field = |name: &str| {
                    block
                        .lines()
                        .filter_map(|l| l.strip_prefix(name))
                        .map(str::trim)
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                let (id, data) = (field("id:"), field("data:"));
                if id.is_empty() && data.is_empty() {
                    continue; // a keep-alive comment
                }
                return Some(Event { id, data });
            }
            let chunk = tokio::time::timeout_at(deadline, self.body.next())
                .await
                .ok()??;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk.ok()?));
        }
    }

    /// The next event carrying a JSON-RPC message: its id and method.
    async fn message(&mut self) -> (String, String) {
        let event = self
            .next(Duration::from_secs(5))
            .await
            .expect("an event within 5 s");
        let message: Value = serde_json::from_str(&event.data).expect("JSON-RPC");
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        (event.id, method)
    }
}

#[tokio::test]
async fn event_ids_are_unique_and_a_resumed_stream_starts_after_the_last_event_seen() {
    let (added, _keep) = broadcast::channel(16);
    let config = McpConfig {
        added: Some(added.clone()),
        ..McpConfig::default()
    };
    let app = spawn_configured(&[], None, config).await;
    let session = open(&app).await;
    let mut stream = Stream::open(&app, &session, None).await;
    let priming = stream
        .next(Duration::from_secs(5))
        .await
        .expect("priming event");
    assert_eq!((priming.id.as_str(), priming.data.as_str()), ("0", ""));
    added.send("AT".into()).expect("sent");
    added.send("BE".into()).expect("sent");
    let first = stream.message().await;
    let second = stream.message().await;
    let list_changed = "notifications/resources/list_changed".to_owned();
    assert_eq!(
        first,
        ("1".to_owned(), list_changed.clone()),
        "not the priming event's 0"
    );
    assert_eq!(second, ("2".to_owned(), list_changed.clone()));
    drop(stream);
    // Resume after event 1: rmcp replaces the stream once it has noticed the
    // old one is gone; until then a second stream gets nothing (bounded).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let replayed = loop {
        let mut resumed = Stream::open(&app, &session, Some("1")).await;
        if let Some(event) = resumed.next(Duration::from_millis(300)).await {
            break (event, resumed);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no replay within 10 s"
        );
    };
    let (event, mut resumed) = replayed;
    assert_eq!(event.id, "2", "event 1 itself is not sent again: {event:?}");
    added.send("CH".into()).expect("sent");
    assert_eq!(resumed.message().await, ("3".to_owned(), list_changed));
}

#[tokio::test]
async fn on_2026_07_28_a_cancellation_without_mcp_method_is_accepted() {
    let app = spawn().await;
    let cancelled = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "the user stopped it"},
    });
    let send = |method_header: Option<&'static str>| {
        let mut post = request(&app, reqwest::Method::POST, None)
            .header("mcp-protocol-version", "2026-07-28")
            .body(cancelled.to_string());
        if let Some(method) = method_header {
            post = post.header("mcp-method", method);
        }
        post.send()
    };
    let without = send(None).await.expect("answer");
    assert_eq!(without.status(), 202, "{:?}", without.text().await);
    let with = send(Some("notifications/cancelled")).await.expect("answer");
    assert_eq!(with.status(), 202);
    let contradicting = send(Some("tools/call")).await.expect("answer");
    assert_eq!(
        contradicting.status(),
        400,
        "a header that contradicts the body"
    );
}
