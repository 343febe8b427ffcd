//! The tidy-ups of issue #31: a JSON body that names a key twice is a 400
//! naming the key; `/metrics` on the ops listener only, off, or behind a
//! token (`BASEL_METRICS`, `BASEL_METRICS_TOKEN`); client-supplied values
//! in log lines escaped and cut.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::inproc::App;
use crate::process::Basel;
use crate::running::Running;
use crate::support::{both_modes, Mode};

const TOKEN: &str = "metrics-token-0123456789abcdef0123456789";

async fn a_body_that_names_a_key_twice_is_refused_naming_it(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("dora").await;
    let register = app
        .send(
            app.client()
                .post(app.url("/register"))
                .header("content-type", "application/json")
                .body(r#"{"email": "a@example.org", "email": "b@example.org"}"#),
        )
        .await;
    assert_eq!((register.status, register.code()), (400, "duplicate_key"));
    assert!(
        register.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("`email`")),
        "{}",
        register.text
    );
    let nested = app
        .send(
            app.client()
                .post(app.url("/api/v1/ca"))
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .body(r#"{"country_code": "FI", "contact": {"ca_name": "A", "ca_name": "B"}}"#),
        )
        .await;
    assert_eq!((nested.status, nested.code()), (400, "duplicate_key"));
    assert!(nested.text.contains("contact.ca_name"), "{}", nested.text);
    let unique = app
        .send(
            app.client()
                .post(app.url("/register"))
                .header("content-type", "application/json")
                .body(r#"{"email": "c@example.org"}"#),
        )
        .await;
    assert_eq!(unique.status, 200, "{}", unique.text);
}

both_modes!(a_body_that_names_a_key_twice_is_refused_naming_it);

async fn get(url: &str, token: Option<&str>) -> (u16, String, Option<String>) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("answer");
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (status, response.text().await.expect("body"), challenge)
}

fn code(text: &str) -> String {
    let body: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    body["code"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn metrics_on_the_ops_listener_only_count_the_rest_requests_and_the_rest_listener_says_404() {
    let basel = Basel::embedded();
    let running = Running::start(
        &basel,
        &["--listen", "127.0.0.1:0", "--role", "rest"],
        &[
            ("BASEL_METRICS", "ops"),
            ("BASEL_OPS_LISTEN", "127.0.0.1:0"),
        ],
        &["addr", "ops_addr"],
    );
    let rest = running.url("addr").to_owned();
    let ops = running.url("ops_addr").to_owned();
    let (status, text, _) = get(&format!("{rest}/metrics"), None).await;
    assert_eq!((status, code(&text).as_str()), (404, "metrics_not_served"));
    assert_eq!(get(&format!("{rest}/healthz"), None).await.0, 200);
    let (status, text, _) = get(&format!("{ops}/metrics"), None).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains("basel_http_requests_total{route=\"/healthz\""),
        "the REST listener's requests are counted on the ops listener: {text}"
    );
}

#[tokio::test]
async fn metrics_off_are_served_nowhere() {
    let basel = Basel::embedded();
    let running = Running::start(
        &basel,
        &["--listen", "127.0.0.1:0", "--role", "rest"],
        &[("BASEL_METRICS", "off")],
        &["addr"],
    );
    let rest = running.url("addr").to_owned();
    let (status, text, _) = get(&format!("{rest}/metrics"), None).await;
    assert_eq!((status, code(&text).as_str()), (404, "metrics_not_served"));
    assert_eq!(get(&format!("{rest}/healthz"), None).await.0, 200);
}

#[tokio::test]
async fn metrics_behind_a_token_answer_only_the_token() {
    let basel = Basel::embedded();
    let running = Running::start(
        &basel,
        &["--listen", "127.0.0.1:0", "--role", "rest"],
        &[("BASEL_METRICS_TOKEN", TOKEN)],
        &["addr"],
    );
    let url = format!("{}/metrics", running.url("addr"));
    for wrong in [None, Some("not-the-token-0123456789abcdef0123456789")] {
        let (status, text, challenge) = get(&url, wrong).await;
        assert_eq!(
            (status, code(&text).as_str()),
            (401, "metrics_token_required")
        );
        assert!(challenge.is_some_and(|c| c.starts_with("Bearer")));
        assert!(!text.contains(TOKEN));
    }
    let (status, text, _) = get(&url, Some(TOKEN)).await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("basel_http_requests_total"), "{text}");
    let lines = running.stop().join("\n");
    assert!(!lines.contains(TOKEN), "the token is never logged");
}

#[test]
fn a_short_metrics_token_is_refused_at_start_naming_the_setting() {
    let basel = Basel::embedded();
    let output = basel
        .basel(&["--listen", "127.0.0.1:0"])
        .env("BASEL_METRICS_TOKEN", "short")
        .output()
        .expect("basel runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("BASEL_METRICS_TOKEN"), "{stderr}");
}

/// Sends `head` as it is on a fresh connection and reads the answer.
fn raw(addr: &str, head: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr.trim_start_matches("http://")).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream.write_all(head).expect("send");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

#[test]
fn a_refused_host_of_five_thousand_characters_is_logged_escaped_and_cut() {
    let basel = Basel::embedded();
    let running = Running::start(
        &basel,
        &["--listen", "127.0.0.1:0", "--mcp-listen", "127.0.0.1:0"],
        &[],
        &["addr", "mcp_addr"],
    );
    // CR and LF cannot reach a header value (hyper refuses the request);
    // a tab, a backslash and bytes that are not UTF-8 can.
    let mut host = b"evil\tname\\x\xff".to_vec();
    host.extend(std::iter::repeat_n(b'a', 5_000));
    let mut head = b"POST /mcp HTTP/1.1\r\nHost: ".to_vec();
    head.extend(&host);
    head.extend(
        b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    let answer = raw(running.url("mcp_addr"), &head);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    let lines = running.stop();
    let line = lines
        .iter()
        .find(|l| l.contains("MCP request refused: Host"))
        .expect("the refusal is logged");
    assert!(line.contains(r"evil\tname\\x\xff"), "{line}");
    assert!(line.contains("aaa…"), "{line}");
    assert!(!line.contains(&"a".repeat(200)), "cut: {line}");
    assert!(line.len() < 600, "{} bytes: {line}", line.len());
}
