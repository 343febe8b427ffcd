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
            per_address: 1_000,
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

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "sessions-test", "version": "1"}}
    })
}

/// Opens the session's standalone stream (`GET /mcp`), held open until dropped.
async fn stream(app: &App, key: &str, session: &str) -> reqwest::Response {
    let response = reqwest::Client::new()
        .get(format!("{}/mcp", app.base))
        .header("accept", "text/event-stream")
        .header("x-api-key", key)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .expect("response");
    assert_eq!(response.status(), 200);
    response
}

#[tokio::test]
async fn at_the_total_cap_the_least_recently_used_idle_session_makes_room() {
    let app = spawn_configured(&[], None, limits(5, 2, Duration::from_secs(300))).await;
    let oldest = open(&app, &app.key).await;
    let newer = open(&app, &app.key).await;
    let other = another_key(&app, "newcomer@example.org").await;
    let theirs = open(&app, &other).await;
    assert_eq!(list_tools(&app, &other, &theirs).await.0, 200);
    assert_eq!(list_tools(&app, &app.key, &oldest).await.0, 404, "evicted");
    assert_eq!(list_tools(&app, &app.key, &newer).await.0, 200);
}

#[tokio::test]
async fn past_the_total_cap_with_every_session_streaming_a_new_one_is_refused_with_503() {
    let app = spawn_configured(&[], None, limits(5, 2, Duration::from_secs(300))).await;
    let first = open(&app, &app.key).await;
    let second = open(&app, &app.key).await;
    let _first = stream(&app, &app.key, &first).await;
    let _second = stream(&app, &app.key, &second).await;
    let refused = post(&app, &app.key, None, initialize()).await;
    assert_eq!(refused.status(), 503);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(
        code(&refused.text().await.expect("body")),
        "sessions_exhausted"
    );
}

/// A client whose connections come from `127.0.0.<host>`.
fn client_from(host: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, host]))
        .build()
        .expect("client")
}

/// `initialize` with `key` from `client`: the status.
async fn initialize_from(app: &App, client: &reqwest::Client, key: &str) -> (u16, Option<String>) {
    let response = client
        .post(format!("{}/mcp", app.base))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("x-api-key", key)
        .body(initialize().to_string())
        .send()
        .await
        .expect("response");
    let status = response.status().as_u16();
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    drop(response.bytes().await);
    (status, id)
}

/// The flood: 330 keys from 33 addresses (10 each) open 32 sessions
/// per key (10,560, every one at its key's cap), then a new client from a
/// new address with a new key gets a working session at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_ten_thousand_sessions_from_33_addresses_leaves_room_for_a_newcomer() {
    use futures::StreamExt;
    let app = spawn_configured(&[], None, McpConfig::default()).await;
    let keys = crate::support::many_keys(&app, "flood", 330).await;
    let attempts: Vec<(u8, String)> = keys
        .iter()
        .enumerate()
        .flat_map(|(n, key)| {
            let host = 2 + u8::try_from(n / 10).expect("33 addresses");
            std::iter::repeat_n((host, key.clone()), 32)
        })
        .collect();
    assert!(attempts.len() >= 10_000);
    let clients: Vec<reqwest::Client> = (0..=34).map(client_from).collect();
    let app_ref = &app;
    let clients_ref = &clients;
    let answers: Vec<(u16, Option<String>)> = futures::stream::iter(attempts)
        .map(|(host, key)| async move {
            initialize_from(app_ref, &clients_ref[usize::from(host)], &key).await
        })
        .buffer_unordered(32)
        .collect()
        .await;
    let opened = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(
        opened,
        answers.len(),
        "every flood session was opened (older ones evicted)"
    );

    let started = std::time::Instant::now();
    let newcomer = another_key(&app, "newcomer@example.org").await;
    let client = client_from(200);
    let (status, session) = initialize_from(&app, &client, &newcomer).await;
    assert_eq!(status, 200, "a new client is not locked out");
    let session = session.expect("session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        post(&app, &newcomer, Some(&session), initialized)
            .await
            .status(),
        202
    );
    let (status, text) = list_tools(&app, &newcomer, &session).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("lookup"), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "at once: {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn an_address_past_its_cap_loses_its_least_recently_used_idle_session() {
    let config = McpConfig {
        sessions: SessionLimits {
            per_key: 10,
            per_address: 2,
            total: 100,
            idle: Duration::from_secs(300),
        },
        ..McpConfig::default()
    };
    let app = spawn_configured(&[], None, config).await;
    let keys = crate::support::many_keys(&app, "neighbour", 3).await;
    let here = client_from(7);
    let first = initialize_from(&app, &here, &keys[0]).await.1.expect("id");
    let second = initialize_from(&app, &here, &keys[1]).await.1.expect("id");
    let elsewhere = initialize_from(&app, &client_from(8), &keys[0])
        .await
        .1
        .expect("id");
    let third = initialize_from(&app, &here, &keys[2]).await.1.expect("id");
    let status = |key: &str, id: &str| {
        let (key, id) = (key.to_owned(), id.to_owned());
        let app = &app;
        async move {
            let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
            post(app, &key, Some(&id), ping).await.status().as_u16()
        }
    };
    assert_eq!(status(&keys[0], &first).await, 404, "the address's oldest");
    assert_eq!(status(&keys[1], &second).await, 200);
    assert_eq!(status(&keys[2], &third).await, 200);
    assert_eq!(status(&keys[0], &elsewhere).await, 200, "another address");
}

#[tokio::test]
async fn revoking_a_key_ends_its_streams_and_sessions_within_seconds() {
    use futures::StreamExt;
    let app = spawn_configured(&[], None, McpConfig::default()).await;
    let key = another_key(&app, "revoked@example.org").await;
    let session = open(&app, &key).await;
    let mut standalone = stream(&app, &key, &session).await.bytes_stream();
    let mut legacy = reqwest::Client::new()
        .get(format!("{}/sse", app.base))
        .header("accept", "text/event-stream")
        .header("x-api-key", &key)
        .send()
        .await
        .expect("sse");
    assert_eq!(legacy.status(), 200);
    let endpoint = legacy
        .chunk()
        .await
        .expect("chunk")
        .expect("endpoint event");
    assert!(String::from_utf8_lossy(&endpoint).contains("endpoint"));
    let bystander = open(&app, &app.key).await;

    let secret = commands::secrets::ServerSecret::new(secrecy::SecretString::from("t".repeat(40)));
    commands::api_key::ApiKeyCommands::new(&app.backend, secret)
        .revoke(
            &domain::values::Email::parse("revoked@example.org").expect("email"),
            "test",
            &crate::support::metadata(domain::metadata::Actor::Admin),
        )
        .await
        .expect("revoke");
    app.projector.catch_up().await.expect("catch up");

    let started = std::time::Instant::now();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(_)) = standalone.next().await {}
        while let Ok(Some(_)) = legacy.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "both streams ended within 5 s");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        list_tools(&app, &app.key, &bystander).await.0,
        200,
        "other keys keep theirs"
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

#[tokio::test]
async fn repeated_wrong_keys_from_one_address_are_refused_with_429() {
    let app = spawn_configured(&[], None, McpConfig::default()).await;
    let attacker = client_from(21);
    let mut failed = 0;
    let refused = loop {
        let response = attacker
            .post(format!("{}/mcp", app.base))
            .header("accept", ACCEPT)
            .header("content-type", "application/json")
            .header("x-api-key", "bsl_wrong")
            .body(initialize().to_string())
            .send()
            .await
            .expect("response");
        if response.status() != 401 {
            break response;
        }
        failed += 1;
        assert!(failed < 1_000, "never throttled");
    };
    assert!(failed >= 50, "the first failures are plain 401s ({failed})");
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(
        code(&refused.text().await.expect("body")),
        "too_many_failed_attempts"
    );
    let (status, _) = initialize_from(&app, &attacker, &app.key).await;
    assert_eq!(status, 429, "held back whatever the key");
    let (status, _) = initialize_from(&app, &client_from(22), &app.key).await;
    assert_eq!(status, 200, "another address is not");
}
