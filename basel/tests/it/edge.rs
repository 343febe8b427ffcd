//! The connection edge against slow, idle and flooding clients (in-process
//! app, raw sockets): idle connections closed by the header timeout while
//! `/healthz` answers, the per-peer cap, 413 before the body, 408 for a
//! trickled body, and a JSON body on every error hyper or the guard gives.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use web::edge::ConnSettings;

use crate::inproc::App;
use crate::support::Mode;

fn addr(app: &App) -> SocketAddr {
    app.base
        .trim_start_matches("http://")
        .parse()
        .expect("socket address")
}

/// A connection to `app` from the loopback address `from` (127.0.0.x).
async fn connect_from(app: &App, from: [u8; 4]) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("bind a loopback source address");
    socket.connect(addr(app)).await.expect("connect")
}

/// Sends `request` and reads the answer until the server closes or
/// `within` passes: (status, head, JSON body).
async fn exchange(
    stream: &mut TcpStream,
    request: &[u8],
    within: Duration,
) -> (u16, String, Value) {
    stream.write_all(request).await.expect("write");
    read_answer(stream, within).await
}

async fn read_answer(stream: &mut TcpStream, within: Duration) -> (u16, String, Value) {
    let mut bytes = Vec::new();
    let _ = tokio::time::timeout(within, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => bytes.extend_from_slice(&buf[..n]),
            }
            if complete(&bytes) {
                break;
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&bytes).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no answer within {within:?}: {text:?}"));
    (
        status,
        head.to_owned(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

/// Reads (and drops) what the server sends until it closes the
/// connection: whether it did within `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 512];
    tokio::time::timeout(within, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

/// Whether `bytes` hold a whole answer with a `content-length` body.
fn complete(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes).to_ascii_lowercase();
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    head.lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse::<usize>().ok())
        .is_some_and(|n| body.len() >= n)
}

fn limits() -> ConnSettings {
    ConnSettings {
        header_timeout: Duration::from_secs(2),
        body_timeout: Duration::from_secs(1),
        max_connections: 20_000,
        max_connections_per_peer: 5_000,
        ..ConnSettings::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn idle_connections_are_closed_within_the_header_timeout_while_healthz_answers() {
    web::edge::raise_open_file_limit();
    let app = App::start_limited(Mode::Embedded, limits()).await;
    let opened = Instant::now();
    let mut idle = Vec::new();
    for n in 0..3_000 {
        let mut stream = connect_from(&app, [127, 0, 0, 1]).await;
        if n % 3 == 1 {
            // Half a request head, then nothing.
            stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                .await
                .expect("write");
        }
        idle.push(stream);
    }
    let healthz = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    let answered = healthz
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .expect("/healthz answers while 3,000 idle connections are open");
    assert_eq!(answered.status(), 200);
    let closing = idle.into_iter().map(|mut stream| {
        tokio::spawn(async move { closed_within(&mut stream, Duration::from_secs(30)).await })
    });
    let mut open = 0;
    for closed in futures::future::join_all(closing).await {
        if !closed.expect("reader") {
            open += 1;
        }
    }
    let took = opened.elapsed();
    assert_eq!(open, 0, "connections still open after 30 s");
    // The header timeout is 2 s; opening 3,000 connections on a loaded
    // machine takes a few more.
    assert!(
        took < Duration::from_secs(20),
        "the idle connections were closed only after {took:?}"
    );
}

#[tokio::test]
async fn a_kept_alive_connection_serves_requests_until_the_header_timeout_passes_without_one() {
    let app = App::start_limited(Mode::Embedded, limits()).await;
    let mut stream = connect_from(&app, [127, 0, 0, 1]).await;
    let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    let (status, _, _) = exchange(&mut stream, request, Duration::from_secs(5)).await;
    assert_eq!(status, 200);
    // Half the header timeout (2 s) of quiet: the connection still serves.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (status, head, _) = exchange(&mut stream, request, Duration::from_secs(5)).await;
    assert_eq!(
        status, 200,
        "a second request on the kept-alive connection: {head}"
    );
    let answered = Instant::now();
    // Then no request: the server closes it (within 1.25 times the timeout
    // of the answer's end; the margin is for a loaded machine).
    assert!(
        closed_within(&mut stream, Duration::from_secs(15)).await,
        "still open 15 s after the last answer"
    );
    assert!(
        answered.elapsed() >= Duration::from_secs(2),
        "closed after {:?}, before the header timeout",
        answered.elapsed()
    );
}

#[tokio::test]
async fn a_peer_past_its_connection_cap_gets_a_429_and_other_peers_are_served() {
    let limits = ConnSettings {
        max_connections_per_peer: 10,
        ..limits()
    };
    let app = App::start_limited(Mode::Embedded, limits).await;
    let mut held = Vec::new();
    for _ in 0..10 {
        held.push(connect_from(&app, [127, 0, 0, 1]).await);
    }
    let mut extra = connect_from(&app, [127, 0, 0, 1]).await;
    let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    let (status, head, body) = exchange(&mut extra, request, Duration::from_secs(5)).await;
    assert_eq!(status, 429, "{head}");
    assert_eq!(body["code"], "too_many_connections_from_peer");
    let mut other = connect_from(&app, [127, 0, 0, 3]).await;
    let (status, _, _) = exchange(&mut other, request, Duration::from_secs(5)).await;
    assert_eq!(status, 200, "another address is served");
    drop(held);
}

#[tokio::test]
async fn an_oversized_content_length_gets_413_at_once() {
    let app = App::start_limited(Mode::Embedded, ConnSettings::default()).await;
    let mut stream = connect_from(&app, [127, 0, 0, 1]).await;
    let head = b"POST /api/v1/classify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n";
    let asked = Instant::now();
    // The default body deadline is 10 s: an answer within 5 s was not
    // waiting for the body.
    let (status, head, body) = exchange(&mut stream, head, Duration::from_secs(5)).await;
    assert_eq!(status, 413, "{head}");
    assert_eq!(body["code"], "payload_too_large");
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert!(head
        .to_ascii_lowercase()
        .contains("x-content-type-options: nosniff"));
}

#[tokio::test]
async fn a_trickled_body_gets_408() {
    let app = App::start_limited(Mode::Embedded, limits()).await;
    let mut stream = connect_from(&app, [127, 0, 0, 1]).await;
    stream
        .write_all(b"POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{")
        .await
        .expect("write");
    let trickle = async {
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if stream.write_all(b" ").await.is_err() {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_millis(1500), trickle).await;
    let (status, head, body) = read_answer(&mut stream, Duration::from_secs(10)).await;
    assert_eq!(status, 408, "{head}");
    assert_eq!(body["code"], "body_timeout");
}

#[tokio::test]
async fn errors_before_any_route_have_json_bodies() {
    let app = App::start_limited(Mode::Embedded, limits()).await;
    let long_uri = format!(
        "GET /healthz?{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(9_000)
    );
    let huge_uri = format!(
        "GET /healthz?{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    let many_headers = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\n{}\r\n",
        (0..120)
            .map(|n| format!("x-h{n}: v\r\n"))
            .collect::<String>()
    );
    let huge_headers = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: {}\r\n\r\n",
        "b".repeat(600_000)
    );
    let cases = [
        ("garbage", b"NOT HTTP AT ALL\r\n\r\n".to_vec(), 400),
        (
            "bad header",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n".to_vec(),
            400,
        ),
        ("uri over the guard's limit", long_uri.into_bytes(), 414),
        ("uri over hyper's limit", huge_uri.into_bytes(), 414),
        ("too many headers", many_headers.into_bytes(), 431),
        ("a head over hyper's buffer", huge_headers.into_bytes(), 431),
    ];
    for (case, request, expected) in cases {
        let mut stream = connect_from(&app, [127, 0, 0, 1]).await;
        let (status, head, body) = exchange(&mut stream, &request, Duration::from_secs(5)).await;
        assert_eq!(status, expected, "{case}: {head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{case}: {head}"
        );
        assert!(body["code"].is_string(), "{case}: {body}");
        assert!(body["message"].is_string(), "{case}: {body}");
    }
}

#[tokio::test]
async fn every_answer_is_nosniff_and_key_answers_are_not_stored() {
    let app = App::start_limited(Mode::Embedded, limits()).await;
    let client = reqwest::Client::new();
    let health = client
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .expect("healthz");
    assert_eq!(
        health
            .headers()
            .get("x-content-type-options")
            .map(|v| v.to_str().unwrap_or_default()),
        Some("nosniff")
    );
    let registered = client
        .post(format!("{}/register", app.base))
        .json(&serde_json::json!({"email": "nosniff@example.org"}))
        .send()
        .await
        .expect("register");
    assert_eq!(registered.status(), 200);
    assert_eq!(
        registered
            .headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap_or_default()),
        Some("no-store")
    );
    let page = client
        .post(format!("{}/register", app.base))
        .form(&[("email", "page@example.org")])
        .send()
        .await
        .expect("register page");
    assert_eq!(
        page.headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap_or_default()),
        Some("no-store")
    );
}
