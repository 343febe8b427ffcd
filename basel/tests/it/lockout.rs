//! Issue #31 against the real binary: a store is bound to its secret, and a
//! revoked key's open MCP streams end, in both storage modes.

use std::process::Stdio;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;

use crate::process::{Basel, Node};
use crate::support::stderr;

/// The shared NATS server of the test machine.
const NATS: &str = "nats://127.0.0.1:4222";

/// `basel serve` with `BASEL_SECRET` = `secret`: its exit status and
/// stderr, or a failure when it is still running after 60 s.
fn serve_until_exit(deployment: &Basel, secret: &str) -> (bool, String) {
    let mut command = deployment.basel(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--mcp-listen",
        "127.0.0.1:0",
    ]);
    let mut child = command
        .env("BASEL_SECRET", secret)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("basel starts");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let output = child.wait_with_output().expect("output");
            return (status.success(), stderr(&output));
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("basel serve kept running under another BASEL_SECRET");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

async fn another_secret_is_refused(deployment: Basel) {
    let node = deployment.serve().await;
    let key = node.register("kept@example.org").await;
    node.stop();
    let (ok, said) = serve_until_exit(&deployment, "another-secret-0123456789abcdefghijklmnop");
    assert!(!ok, "started under another secret");
    assert!(said.contains("BASEL_SECRET"), "{said}");
    let node = deployment.serve().await;
    assert_eq!(
        node.get_with_key("/api/v1/ca/DE", &key)
            .await
            .map(|(s, _)| s),
        Some(200),
        "the original secret still opens it"
    );
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_a_store_refuses_another_secret_naming_basel_secret() {
    another_secret_is_refused(Basel::embedded().with_secret()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_mode_a_store_refuses_another_secret_naming_basel_secret() {
    another_secret_is_refused(Basel::postgres().await.with_secret()).await;
}

#[tokio::test]
async fn a_blank_secret_is_refused() {
    let deployment = Basel::embedded();
    let (ok, said) = serve_until_exit(&deployment, &" ".repeat(40));
    assert!(!ok);
    assert!(said.contains("BASEL_SECRET"), "{said}");
}

/// Opens a streamable HTTP session with `key` and its standalone stream
/// (`GET /mcp`), and a legacy `/sse` stream: both bodies.
async fn open_streams(node: &Node, key: &str) -> (reqwest::Response, reqwest::Response) {
    let http = reqwest::Client::new();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "lockout-test", "version": "1"}}
    });
    let opened = http
        .post(format!("{}/mcp", node.mcp))
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", key)
        .json(&initialize)
        .send()
        .await
        .expect("initialize");
    assert_eq!(opened.status(), 200);
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    drop(opened.bytes().await);
    let initialized = http
        .post(format!("{}/mcp", node.mcp))
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", key)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .expect("initialized");
    assert_eq!(initialized.status(), 202);
    let standalone = http
        .get(format!("{}/mcp", node.mcp))
        .header("accept", "text/event-stream")
        .header("x-api-key", key)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .expect("GET /mcp");
    assert_eq!(standalone.status(), 200);
    let mut legacy = http
        .get(format!("{}/sse", node.mcp))
        .header("accept", "text/event-stream")
        .header("x-api-key", key)
        .send()
        .await
        .expect("GET /sse");
    assert_eq!(legacy.status(), 200);
    let first = legacy
        .chunk()
        .await
        .expect("chunk")
        .expect("endpoint event");
    assert!(String::from_utf8_lossy(&first).contains("endpoint"));
    (standalone, legacy)
}

async fn revoking_ends_open_streams(deployment: Basel) {
    let node = deployment.serve().await;
    let key = node.register("streaming@example.org").await;
    let (standalone, mut legacy) = open_streams(&node, &key).await;
    let output = deployment.run(&["key", "revoke", "streaming@example.org"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let revoked = Instant::now();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        let mut standalone = standalone.bytes_stream();
        while let Some(Ok(_)) = standalone.next().await {}
        while let Ok(Some(_)) = legacy.chunk().await {}
    })
    .await;
    assert!(
        ended.is_ok(),
        "the revoked key's GET /mcp and /sse streams were still open 5 s after the revocation"
    );
    assert!(revoked.elapsed() < Duration::from_secs(5));
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_revoking_a_key_ends_its_open_mcp_streams_within_5_s() {
    revoking_ends_open_streams(Basel::embedded().with_secret()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_mode_revoking_a_key_ends_its_open_mcp_streams_within_5_s() {
    revoking_ends_open_streams(Basel::postgres().await.with_secret().with_nats(NATS)).await;
}

/// A client whose connections come from `127.0.0.<host>`.
fn client_from(host: u8) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, host]))
        .build()
        .expect("client")
}

/// Sends `request` (built by `make`) until an answer is not `first`:
/// how many were `first`, and the answer that was not.
async fn until_not(
    first: u16,
    mut make: impl FnMut() -> reqwest::RequestBuilder,
) -> (usize, reqwest::Response) {
    for sent in 0..1_000 {
        let response = make().send().await.expect("answer");
        if response.status().as_u16() != first {
            return (sent, response);
        }
    }
    panic!("1,000 answers were all {first}");
}

async fn json_code(response: reqwest::Response) -> String {
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    body["code"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn repeated_wrong_api_keys_from_one_address_are_refused_with_429() {
    let app = crate::inproc::App::start(crate::support::Mode::Embedded).await;
    let key = app.key().await;
    let url = app.url("/api/v1/ca");
    let attacker = client_from(9);
    let (failed, refused) =
        until_not(401, || attacker.get(&url).header("x-api-key", "bsl_wrong")).await;
    assert!(failed >= 50, "the first failures are plain 401s ({failed})");
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(json_code(refused).await, "too_many_failed_attempts");
    let held = attacker
        .get(&url)
        .header("x-api-key", &key)
        .send()
        .await
        .expect("answer");
    assert_eq!(
        held.status(),
        429,
        "held back before any lookup, whatever the key"
    );
    let neighbour = client_from(10);
    let served = neighbour
        .get(&url)
        .header("x-api-key", &key)
        .send()
        .await
        .expect("answer");
    assert_eq!(served.status(), 200, "another address is not held back");
}

#[tokio::test]
async fn repeated_wrong_steward_tokens_from_one_address_are_refused_with_429() {
    let app = crate::inproc::App::start(crate::support::Mode::Embedded).await;
    let url = app.url("/api/v1/ca/DE/verifications");
    let attacker = client_from(11);
    let (failed, refused) = until_not(401, || {
        attacker
            .post(&url)
            .bearer_auth("bst_wrong")
            .json(&json!({"verified": false}))
    })
    .await;
    assert!(failed >= 50, "the first failures are plain 401s ({failed})");
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    assert_eq!(json_code(refused).await, "too_many_failed_attempts");
}

#[tokio::test]
async fn past_the_registration_limit_a_registered_address_is_refused_like_a_new_one() {
    let app = crate::inproc::App::start(crate::support::Mode::Embedded).await;
    let url = app.url("/register");
    let client = client_from(12);
    let register = |email: &str| client.post(&url).json(&json!({ "email": email }));
    let known = register("known@example.org").send().await.expect("answer");
    assert_eq!(known.status(), 200);
    let mut n = 0;
    let (_, refused) = until_not(200, || {
        n += 1;
        register(&format!("new{n}@example.org"))
    })
    .await;
    assert_eq!(refused.status(), 429);
    let again = register("known@example.org").send().await.expect("answer");
    assert_eq!(
        again.status(),
        429,
        "a registered address gets the same answer as an unknown one"
    );
}

#[tokio::test]
async fn a_party_holds_at_most_100_contacts() {
    let app = crate::inproc::App::start(crate::support::Mode::Embedded).await;
    let token = app.enrol("ana").await;
    app.add_country(&token, "AF", "Afghanistan").await;
    for n in 0..100 {
        let added = app
            .post_as(
                "/api/v1/ca/AF/contacts",
                &token,
                &json!({ "name": format!("Office {n}") }),
            )
            .await;
        assert_eq!(added.status, 201, "contact {n}: {}", added.text);
    }
    let refused = app
        .post_as(
            "/api/v1/ca/AF/contacts",
            &token,
            &json!({ "name": "Office 101" }),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("at most 100 contacts"),
        "{}",
        refused.text
    );
}

#[tokio::test]
async fn two_host_headers_are_a_400() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = crate::inproc::App::start(crate::support::Mode::Embedded).await;
    let addr = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("answered")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("duplicate_host"), "{answer}");
    let single = reqwest::get(app.url("/healthz")).await.expect("answer");
    assert_eq!(single.status(), 200);
}

#[tokio::test]
async fn a_422_lists_the_first_20_problems_and_counts_the_rest() {
    let app = crate::inproc::App::start(crate::support::Mode::Embedded).await;
    let mut body = serde_json::Map::new();
    body.insert("email".into(), json!("someone@example.org"));
    for n in 0..500 {
        body.insert(format!("unknown_{n}"), json!(n));
    }
    let answer = app
        .send(app.client().post(app.url("/register")).json(&body))
        .await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(answer.body["errors"].as_array().map(Vec::len), Some(20));
    let message = answer.body["message"].as_str().unwrap_or_default();
    assert!(message.contains("480 more"), "{message}");
    assert!(answer.text.len() < 8_000, "{} bytes", answer.text.len());
}
