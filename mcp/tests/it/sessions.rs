//! MCP sessions: bound to the key that opened them, capped per key (least
//! recently used idle session closed) and in all, expired when idle; on
//! both transports.

use std::time::Duration;

use mcp::{McpConfig, SessionLimits};
use serde_json::{json, Value};

use crate::support::{another_key, spawn_configured, App};

const ACCEPT: &str = "application/json, text/event-stream";

fn limits(per_key: usize, total: usize, idle: Duration) -> McpConfig {
    McpConfig {
        sessions: SessionLimits {
            per_key,
            total,
            idle,
        },
        ..McpConfig::default()
    }
}

async fn post(app: &App, key: &str, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("x-api-key", key)
        .body(body.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18");
    }
    request.send().await.expect("response")
}

/// Opens a session with `key`: its id.
async fn open(app: &App, key: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "sessions-test", "version": "1"}}
    });
    let response = post(app, key, None, initialize).await;
    assert_eq!(response.status(), 200);
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    drop(response.bytes().await);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(app, key, Some(&id), initialized).await.status(), 202);
    id
}

async fn list_tools(app: &App, key: &str, session: &str) -> (u16, String) {
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let response = post(app, key, Some(session), list).await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

fn code(text: &str) -> String {
    serde_json::from_str::<Value>(text).unwrap_or_default()["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_session_is_refused_to_another_key() {
    let app = spawn_configured(&[], None, McpConfig::default()).await;
    let other = another_key(&app, "other@example.org").await;
    let session = open(&app, &app.key).await;
    let (status, text) = list_tools(&app, &other, &session).await;
    assert_eq!(status, 404);
    assert_eq!(code(&text), "session_not_found");
    let deleted = reqwest::Client::new()
        .delete(format!("{}/mcp", app.base))
        .header("x-api-key", &other)
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("response");
    assert_eq!(deleted.status(), 404, "another key cannot close it either");
    let (status, text) = list_tools(&app, &app.key, &session).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("lookup"), "{text}");
}

#[tokio::test]
async fn a_key_past_its_cap_loses_its_least_recently_used_session() {
    let app = spawn_configured(&[], None, limits(2, 100, Duration::from_secs(300))).await;
    let first = open(&app, &app.key).await;
    let second = open(&app, &app.key).await;
    assert_eq!(list_tools(&app, &app.key, &first).await.0, 200);
    let third = open(&app, &app.key).await;
    assert_eq!(
        list_tools(&app, &app.key, &second).await.0,
        404,
        "least recently used"
    );
    assert_eq!(list_tools(&app, &app.key, &first).await.0, 200);
    assert_eq!(list_tools(&app, &app.key, &third).await.0, 200);
    let other = another_key(&app, "other@example.org").await;
    let theirs = open(&app, &other).await;
    assert_eq!(
        list_tools(&app, &app.key, &first).await.0,
        200,
        "their session is theirs"
    );
    assert_eq!(list_tools(&app, &other, &theirs).await.0, 200);
}

#[tokio::test]
async fn past_the_total_cap_a_new_session_is_refused_with_503() {
    let app = spawn_configured(&[], None, limits(5, 2, Duration::from_secs(300))).await;
    open(&app, &app.key).await;
    open(&app, &app.key).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "sessions-test", "version": "1"}}
    });
    let refused = post(&app, &app.key, None, initialize).await;
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(
        code(&refused.text().await.expect("body")),
        "sessions_exhausted"
    );
}

#[tokio::test]
async fn an_idle_session_expires() {
    let app = spawn_configured(&[], None, limits(5, 100, Duration::from_millis(300))).await;
    let session = open(&app, &app.key).await;
    assert_eq!(list_tools(&app, &app.key, &session).await.0, 200);
    // Any request would use (and so keep) the session: wait, unseen, for
    // several idle limits (the sweeper runs every quarter of one).
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let (status, text) = list_tools(&app, &app.key, &session).await;
    assert_eq!(status, 404, "the idle session was closed: {text}");
}

#[tokio::test]
async fn a_legacy_sse_session_is_refused_to_another_key() {
    let app = spawn_configured(&[], None, McpConfig::default()).await;
    let other = another_key(&app, "other@example.org").await;
    let mut stream = reqwest::Client::new()
        .get(format!("{}/sse", app.base))
        .header("x-api-key", &app.key)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("stream");
    assert_eq!(stream.status(), 200);
    let first = stream
        .chunk()
        .await
        .expect("chunk")
        .expect("endpoint event");
    let text = String::from_utf8_lossy(&first).to_string();
    let endpoint = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .expect("endpoint")
        .trim()
        .to_owned();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let send = |key: String| {
        let (url, ping) = (format!("{}{endpoint}", app.base), ping.clone());
        async move {
            reqwest::Client::new()
                .post(url)
                .header("x-api-key", key)
                .header("content-type", "application/json")
                .body(ping)
                .send()
                .await
                .expect("response")
                .status()
                .as_u16()
        }
    };
    assert_eq!(send(other).await, 404);
    assert_eq!(send(app.key.clone()).await, 202);
}
