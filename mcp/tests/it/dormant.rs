//! Idle streamable-HTTP sessions hold no worker: after `initialize` (and
//! after each request) a session nobody uses keeps no task running, and the
//! next request starts it again, answering as before; a session with
//! subscriptions stays awake.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::support::{spawn, spawn_configured, App};
use mcp::McpConfig;

const ACCEPT: &str = "application/json, text/event-stream";

async fn post(app: &App, session: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("x-api-key", &app.key)
        .body(body.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18");
    }
    request.send().await.expect("response")
}

/// An initialised session: its id.
async fn open(app: &App) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "dormant-test", "version": "1"}}
    });
    let response = post(app, None, &initialize).await;
    assert_eq!(response.status(), 200);
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    drop(response.bytes().await);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(app, Some(&id), &initialized).await.status(), 202);
    id
}

/// `tools/list` on `session`: the status and the body.
async fn list_tools(app: &App, session: &str, id: u64) -> (u16, String) {
    let list = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    let response = post(app, Some(session), &list).await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Waits (bounded) until at most `limit` tasks are alive: the count then.
async fn settled_to(limit: usize) -> usize {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let alive = alive_tasks();
        if alive <= limit || tokio::time::Instant::now() >= deadline {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn idle_sessions_keep_no_task_and_wake_for_their_next_request() {
    let config = McpConfig {
        sessions: mcp::SessionLimits {
            per_key: 1_000,
            ..mcp::SessionLimits::default()
        },
        ..McpConfig::default()
    };
    let app = spawn_configured(&[], None, config).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let sessions_before = alive_tasks();
    let mut sessions = Vec::new();
    for _ in 0..100 {
        sessions.push(open(&app).await);
    }
    // rmcp ran a worker and a service task per session (200 for these).
    let alive = settled_to(sessions_before + 20).await;
    assert!(
        alive <= sessions_before + 20,
        "100 idle sessions hold {} tasks",
        alive - sessions_before
    );
    for (n, session) in sessions.iter().enumerate().take(10) {
        let (status, text) = list_tools(&app, session, 2 + n as u64).await;
        assert_eq!(status, 200, "{text}");
        assert!(
            text.contains("lookup") && text.contains("\"id\":"),
            "{text}"
        );
    }
    let alive = settled_to(sessions_before + 20).await;
    assert!(alive <= sessions_before + 20, "asleep again: {alive} tasks");
}

#[tokio::test]
async fn concurrent_requests_on_an_asleep_session_are_all_answered() {
    let app = spawn().await;
    let session = open(&app).await;
    let answers =
        futures::future::join_all((0..8).map(|n| list_tools(&app, &session, 10 + n))).await;
    for (status, text) in answers {
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("lookup"), "{text}");
    }
    let ping = json!({"jsonrpc": "2.0", "id": 99, "method": "ping"});
    let answer = post(&app, Some(&session), &ping).await;
    assert_eq!(answer.status(), 200);
    assert!(answer.text().await.expect("body").contains("\"id\":99"));
}

#[tokio::test]
async fn a_deleted_asleep_session_is_gone() {
    let app = spawn().await;
    let session = open(&app).await;
    let deleted = reqwest::Client::new()
        .delete(format!("{}/mcp", app.base))
        .header("x-api-key", &app.key)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .expect("response");
    assert_eq!(deleted.status(), 204);
    let (status, _) = list_tools(&app, &session, 3).await;
    assert_eq!(status, 404);
}

/// The next `data:` JSON-RPC message with `method` on `stream`, within 5 s.
async fn next_with(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
    buffer: &mut String,
    method: &str,
) -> Value {
    loop {
        while let Some(end) = buffer.replace("\r\n", "\n").find("\n\n") {
            let normalised = buffer.replace("\r\n", "\n");
            let block = normalised[..end].to_owned();
            *buffer = normalised[end + 2..].to_owned();
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if let Ok(message) = serde_json::from_str::<Value>(&data.join("\n")) {
                if message["method"] == method {
                    return message;
                }
            }
        }
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .unwrap_or_else(|_| panic!("{method} within 5 s"))
            .expect("the stream is open")
            .expect("a chunk");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

#[tokio::test]
async fn a_session_with_subscriptions_stays_awake_without_a_stream() {
    let (changes, _keep) = broadcast::channel(16);
    let config = McpConfig {
        changes: Some(changes.clone()),
        ..McpConfig::default()
    };
    let app = spawn_configured(&[], None, config).await;
    let session = open(&app).await;
    let subscribe = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                           "params": {"uri": "basel://ca/DE"}});
    let answer = post(&app, Some(&session), &subscribe).await;
    assert_eq!(answer.status(), 200);
    assert!(answer.text().await.expect("body").contains("\"result\""));
    // No stream open: a session put to sleep now would lose its
    // subscription; this one is woken by the GET only if it slept.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let stream = reqwest::Client::new()
        .get(format!("{}/mcp", app.base))
        .header("accept", "text/event-stream")
        .header("x-api-key", &app.key)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .expect("GET /mcp");
    assert_eq!(stream.status(), 200);
    let mut stream = Box::pin(stream.bytes_stream());
    let mut buffer = String::new();
    changes.send("DE".into()).expect("sent");
    let update = next_with(&mut stream, &mut buffer, "notifications/resources/updated").await;
    assert_eq!(update["params"]["uri"], "basel://ca/DE");
}
