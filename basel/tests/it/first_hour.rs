//! The first hour of a user and an operator, against the real binary:
//! `basel --listen …` without the word `serve`, the start-up lines, JSON
//! logs with one access line per request and `x-request-id` on every answer,
//! no key, token or address in any log line, and health on every role.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::process::Basel;
use crate::running::Running;
use crate::support::eventually;

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

#[tokio::test]
async fn basel_starts_without_the_word_serve_and_says_where_everything_is() {
    let basel = Basel::embedded();
    let data_dir = basel.dir().join("chosen-dir");
    let data_dir = data_dir.display().to_string();
    let running = Running::start(
        &basel,
        &[
            "--data-dir",
            &data_dir,
            "--listen",
            "127.0.0.1:0",
            "--mcp-listen",
            "127.0.0.1:0",
        ],
        &[],
        &["addr", "mcp_addr"],
    );
    let rest = running.url("addr").to_owned();
    let mcp = running.url("mcp_addr").to_owned();
    let page = client()
        .get(format!("{rest}/"))
        .send()
        .await
        .expect("GET /");
    assert_eq!(page.status().as_u16(), 200);
    let html = page.text().await.expect("html");
    assert!(
        html.contains("href=\"/register\"") && html.contains(&format!("{mcp}/mcp")),
        "{html}"
    );
    let docs = client()
        .get(format!("{rest}/docs"))
        .send()
        .await
        .expect("GET /docs");
    assert_eq!(docs.status().as_u16(), 200);
    let log = running.stop().join("\n");
    assert!(
        log.contains(&format!("get an API key at {rest}/register")),
        "{log}"
    );
    assert!(log.contains(&format!("REST API at {rest}")), "{log}");
    assert!(log.contains(&format!("MCP server at {mcp}/mcp")), "{log}");
    assert!(log.contains(&format!("{mcp}/sse")), "{log}");
    assert!(
        log.contains("data: embedded SQLite in ") && log.contains("chosen-dir"),
        "{log}"
    );
    assert!(!log.contains("[All]") && log.contains("roles=all"), "{log}");
    assert!(
        std::path::Path::new(&data_dir).join("basel.db").exists(),
        "--data-dir was not used"
    );
}

/// What a test sent and what it was answered, for matching with the log.
#[derive(Default)]
struct Sent {
    /// listener → the `x-request-id` of every answer.
    ids: HashMap<&'static str, Vec<String>>,
}

impl Sent {
    fn note(&mut self, listener: &'static str, response: &reqwest::Response) -> String {
        let id = response
            .headers()
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("no x-request-id on {}", response.url()))
            .to_owned();
        self.ids.entry(listener).or_default().push(id.clone());
        id
    }
}

#[tokio::test]
async fn json_logs_carry_one_access_line_per_request_and_no_key_token_or_address() {
    let basel = Basel::embedded().with_secret();
    let steward_email = "steward.secret-address@example.org";
    let token = basel.enrol("Ana López", steward_email);
    let running = Running::start(
        &basel,
        &["--listen", "127.0.0.1:0", "--mcp-listen", "127.0.0.1:0"],
        &[("BASEL_LOG_FORMAT", "json")],
        &["addr", "mcp_addr"],
    );
    let rest = running.url("addr").to_owned();
    let mcp = running.url("mcp_addr").to_owned();
    let http = client();
    let mut sent = Sent::default();
    let json_email = "json.registrant@example.org";
    let form_email = "form.registrant@example.org";

    let answer = http
        .post(format!("{rest}/register"))
        .json(&json!({ "email": json_email }))
        .send()
        .await
        .expect("register");
    sent.note("rest", &answer);
    let key = answer.json::<Value>().await.expect("json")["api_key"]
        .as_str()
        .expect("key")
        .to_owned();
    let answer = http
        .post(format!("{rest}/register"))
        .form(&[("email", form_email)])
        .send()
        .await
        .expect("form");
    sent.note("rest", &answer);
    assert_eq!(answer.status().as_u16(), 200);
    let answer = http
        .get(format!("{rest}/api/v1/ca/DE"))
        .header("x-api-key", &key)
        .header("x-request-id", "client-chosen-1")
        .send()
        .await
        .expect("get");
    assert_eq!(
        answer
            .headers()
            .get("x-client-request-id")
            .and_then(|v| v.to_str().ok()),
        Some("client-chosen-1"),
        "a sane incoming id is kept beside the server's"
    );
    assert_ne!(
        sent.note("rest", &answer),
        "client-chosen-1",
        "the request id is the server's"
    );
    let answer = http
        .get(format!("{rest}/api/v1/ca/DE"))
        .header("x-api-key", "bsl_not-a-real-key")
        .header("x-request-id", "not a sane id")
        .send()
        .await
        .expect("bad key");
    assert_eq!(answer.status().as_u16(), 401);
    assert_ne!(
        sent.note("rest", &answer),
        "not a sane id",
        "an insane id is replaced"
    );
    let today = chrono::Utc::now().date_naive().to_string();
    let answer = http
        .post(format!("{rest}/api/v1/ca/DE/verifications"))
        .bearer_auth(&token)
        .header("x-request-id", "seed")
        .json(&json!({ "verified": false, "checked_on": today, "method": "email", "source": "a reply" }))
        .send()
        .await
        .expect("verify");
    assert!(
        [200, 202].contains(&answer.status().as_u16()),
        "{}",
        answer.status()
    );
    let write_id = sent.note("rest", &answer);
    for path in ["/nope", "/", "/docs", "/api/v1/openapi.json"] {
        let answer = http.get(format!("{rest}{path}")).send().await.expect(path);
        sent.note("rest", &answer);
    }
    let answer = http
        .get(format!("{rest}/api/v1/ca/DE/history"))
        .header("x-api-key", &key)
        .send()
        .await
        .expect("history");
    sent.note("rest", &answer);
    let history = answer.json::<Value>().await.expect("json");
    let last = history["items"]
        .as_array()
        .and_then(|items| items.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        last["request_id"], write_id,
        "the event metadata carries the server's request id: {last}"
    );
    assert_ne!(
        last["request_id"], "seed",
        "a client cannot claim the seed's request id"
    );

    let answer = http
        .get(format!("{mcp}/healthz"))
        .send()
        .await
        .expect("mcp healthz");
    assert_eq!(
        answer.status().as_u16(),
        200,
        "the MCP listener's /healthz needs no key"
    );
    sent.note("mcp", &answer);
    let answer = http
        .post(format!("{mcp}/mcp"))
        .json(&json!({}))
        .send()
        .await
        .expect("mcp 401");
    assert_eq!(answer.status().as_u16(), 401);
    sent.note("mcp", &answer);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "log-test", "version": "1"}}});
    let answer = http
        .post(format!("{mcp}/mcp"))
        .bearer_auth(&key)
        .header("accept", "application/json, text/event-stream")
        .json(&initialize)
        .send()
        .await
        .expect("initialize");
    assert_eq!(answer.status().as_u16(), 200);
    sent.note("mcp", &answer);
    drop(answer);

    let expected: usize = sent.ids.values().map(Vec::len).sum();
    let logged = eventually(Duration::from_secs(10), || async {
        access_lines(&running.lines()).len() >= expected
    })
    .await;
    assert!(
        logged.is_some(),
        "access lines missing:\n{}",
        running.lines().join("\n")
    );
    let lines = running.stop();

    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        let parsed: Result<Value, _> = serde_json::from_str(line);
        assert!(
            parsed.as_ref().is_ok_and(Value::is_object),
            "not one JSON object: {line}"
        );
    }
    let access = access_lines(&lines);
    for (listener, ids) in &sent.ids {
        let logged: Vec<&str> = access
            .iter()
            .filter(|l| l["listener"] == *listener)
            .filter_map(|l| l["request_id"].as_str())
            .collect();
        assert_eq!(
            logged.len(),
            ids.len(),
            "{listener}: one access line per request: {logged:?} vs {ids:?}"
        );
        for id in ids {
            assert!(
                logged.contains(&id.as_str()),
                "{listener}: no access line for {id}"
            );
        }
    }
    for line in &access {
        for field in [
            "method",
            "route",
            "status",
            "latency_ms",
            "bytes",
            "request_id",
        ] {
            assert!(!line[field].is_null(), "{field} missing in {line}");
        }
    }
    assert!(
        access
            .iter()
            .any(|l| l["route"] == "/api/v1/ca/{country_code}"),
        "routes are templates"
    );
    for secret in [
        key.as_str(),
        token.as_str(),
        json_email,
        form_email,
        steward_email,
        "bsl_not-a-real-key",
    ] {
        let leaked: Vec<&String> = lines.iter().filter(|l| l.contains(secret)).collect();
        assert!(leaked.is_empty(), "{secret} appears in the log: {leaked:?}");
    }
}

fn access_lines(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["target"] == "basel::access")
        .collect()
}

async fn status(url: &str) -> u16 {
    client()
        .get(url)
        .send()
        .await
        .map_or(0, |r| r.status().as_u16())
}

#[tokio::test]
async fn an_mcp_process_answers_health_on_its_ops_listener_and_its_mcp_listener_without_a_key() {
    let basel = Basel::embedded();
    let running = Running::start(
        &basel,
        &["--role", "mcp", "--mcp-listen", "127.0.0.1:0"],
        &[("BASEL_OPS_LISTEN", "127.0.0.1:0")],
        &["mcp_addr", "ops_addr"],
    );
    let ops = running.url("ops_addr").to_owned();
    let mcp = running.url("mcp_addr").to_owned();
    assert_eq!(status(&format!("{mcp}/healthz")).await, 200);
    assert_eq!(
        status(&format!("{mcp}/mcp")).await,
        401,
        "MCP itself still needs a key"
    );
    assert_eq!(status(&format!("{ops}/healthz")).await, 200);
    let ready = eventually(Duration::from_secs(10), || async {
        status(&format!("{ops}/readyz")).await == 200
    })
    .await;
    assert!(ready.is_some(), "/readyz on the ops listener");
    let metrics = client()
        .get(format!("{ops}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(metrics.contains("basel_projection_position"), "{metrics}");
    assert_eq!(
        status(&format!("{ops}/api/v1/ca")).await,
        404,
        "the ops listener serves ops only"
    );
    let refused = client()
        .get(format!("{mcp}/mcp"))
        .header("host", "evil.example.org")
        .send()
        .await
        .expect("a foreign Host");
    assert_eq!(refused.status().as_u16(), 403);
    let body: Value = refused.json().await.expect("json");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("evil.example.org"),
        "{body}"
    );
    let log = running.stop().join("\n");
    assert!(log.contains("health at http://"), "{log}");
    assert!(
        log.lines()
            .any(|l| l.contains("Host evil.example.org is not in BASEL_MCP_ALLOWED_HOSTS")),
        "the refusal names the host: {log}"
    );
}

#[tokio::test]
async fn a_relay_and_projector_process_serves_health_readiness_and_metrics() {
    let basel = Basel::postgres().await.with_nats("nats://127.0.0.1:4222");
    let running = Running::start(
        &basel,
        &["--role", "relay,projector"],
        &[("BASEL_OPS_LISTEN", "127.0.0.1:0")],
        &["ops_addr"],
    );
    let ops = running.url("ops_addr").to_owned();
    assert_eq!(status(&format!("{ops}/healthz")).await, 200);
    let ready = eventually(Duration::from_secs(20), || async {
        status(&format!("{ops}/readyz")).await == 200
    })
    .await;
    assert!(ready.is_some(), "/readyz on the ops listener");
    let metrics = client()
        .get(format!("{ops}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(metrics.contains("basel_relay_backlog"), "{metrics}");
    assert!(
        metrics.contains("basel_http_requests_total{route=\"/healthz\""),
        "{metrics}"
    );
    let log = running.stop().join("\n");
    assert!(log.contains("roles=relay,projector"), "{log}");
    assert!(log.contains("data: PostgreSQL at 127.0.0.1:5432/"), "{log}");
}
