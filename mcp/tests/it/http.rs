//! The HTTP edge of both transports with raw requests: 401, 403, 400, 405,
//! 413, 404, protocol revisions, and a whole legacy SSE session.

use std::time::Duration;

use futures::StreamExt;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{json, Value};

use crate::support::{spawn, spawn_with, App};

const ACCEPT: &str = "application/json, text/event-stream";

fn initialize(version: &str) -> String {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"},
        }
    })
    .to_string()
}

async fn send(
    app: &App,
    method: reqwest::Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .request(method, format!("{}{path}", app.base))
        .header("accept", ACCEPT)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.body(body);
    }
    request.send().await.expect("response")
}

/// Status and JSON body of an error answer.
async fn json_error(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "{status}: {content_type}"
    );
    (status, response.json().await.expect("JSON body"))
}

/// Reads server-sent events from a streaming response.
struct Events {
    stream: futures::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Events {
    fn new(response: reqwest::Response) -> Self {
        Self {
            stream: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event with data: (event name, data).
    async fn next(&mut self) -> (String, String) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let normalised = self.buffer.replace("\r\n", "\n");
            if let Some(end) = normalised.find("\n\n") {
                let block = normalised[..end].to_owned();
                self.buffer = normalised[end + 2..].to_owned();
                let mut event = "message".to_owned();
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(name) = line.strip_prefix("event:") {
                        event = name.trim().to_owned();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push(value.trim_start().to_owned());
                    }
                }
                if !data.is_empty() && !data.iter().all(String::is_empty) {
                    return (event, data.join("\n"));
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .expect("an event within 10 s")
                .expect("stream open")
                .expect("chunk");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The next JSON-RPC message.
    async fn message(&mut self) -> Value {
        loop {
            let (event, data) = self.next().await;
            if event == "message" {
                if let Ok(value) = serde_json::from_str::<Value>(&data) {
                    return value;
                }
            }
        }
    }
}

/// Initialises over `/mcp` with these headers; the JSON-RPC answer.
async fn initialise(app: &App, headers: &[(&str, &str)], version: &str) -> (u16, Option<Value>) {
    let response = send(
        app,
        reqwest::Method::POST,
        "/mcp",
        headers,
        Some(initialize(version)),
    )
    .await;
    let status = response.status().as_u16();
    if status != 200 {
        return (status, None);
    }
    (status, Some(Events::new(response).message().await))
}

#[tokio::test]
async fn missing_or_invalid_keys_get_a_401_json_body_before_any_mcp_processing() {
    let app = spawn().await;
    let cases: [(reqwest::Method, &str); 6] = [
        (reqwest::Method::POST, "/mcp"),
        (reqwest::Method::GET, "/mcp"),
        (reqwest::Method::DELETE, "/mcp"),
        (reqwest::Method::PUT, "/mcp"),
        (reqwest::Method::GET, "/sse"),
        (reqwest::Method::POST, "/message?sessionId=abc"),
    ];
    let wrong_bearer = format!("Bearer {}x", app.key);
    let wrong_key = format!("{}x", app.key);
    for headers in [
        vec![],
        vec![("x-api-key", wrong_key.as_str())],
        vec![("authorization", wrong_bearer.as_str())],
        vec![("authorization", "Basic dXNlcjpwYXNz")],
    ] {
        for (method, path) in &cases {
            let response = send(
                &app,
                method.clone(),
                path,
                &headers,
                Some(initialize("2025-06-18")),
            )
            .await;
            let challenge = response
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let (status, body) = json_error(response).await;
            assert_eq!(status, 401, "{method} {path} {headers:?}");
            let keys: Vec<&String> = body.as_object().expect("object").keys().collect();
            assert_eq!(keys, ["error", "help", "message"], "{body}");
            // A key that was sent is "not accepted", one that was not "required".
            let sent = headers.iter().any(|(_, v)| v.contains(&app.key[..8]));
            let (error, challenge_expected) = if sent {
                (
                    "API key not accepted",
                    "Bearer realm=\"basel\", error=\"invalid_token\"",
                )
            } else {
                ("API key required", "Bearer realm=\"basel\"")
            };
            assert_eq!(body["error"], error, "{headers:?}");
            assert_eq!(
                challenge.as_deref(),
                Some(challenge_expected),
                "{headers:?}"
            );
            assert!(
                !body.to_string().contains(&app.key[..8]),
                "no key in the body"
            );
        }
    }
}

#[tokio::test]
async fn a_key_works_as_x_api_key_or_as_a_bearer_token() {
    let app = spawn().await;
    let bearer = format!("Bearer {}", app.key);
    for headers in [
        [("x-api-key", app.key.as_str())],
        [("authorization", bearer.as_str())],
    ] {
        let (status, answer) = initialise(&app, &headers, "2025-06-18").await;
        assert_eq!(status, 200);
        let result = &answer.expect("answer")["result"];
        assert_eq!(result["serverInfo"]["name"], "basel");
        assert_eq!(result["protocolVersion"], "2025-06-18");
        let instructions = result["instructions"].as_str().expect("instructions");
        assert!(instructions.contains("Disclaimer: classifications and shipment plans"));
        // Every tool and resource is named, from their definitions.
        for name in [
            "get_competent_authority",
            "list_competent_authorities",
            "search_competent_authorities",
            "get_authority_history",
            "classify_waste",
            "lookup_basel_code",
            "plan_shipment",
            "basel://ca/{country_code}",
            "basel://codes/{code}",
            "basel://coverage",
        ] {
            assert!(
                instructions.contains(name),
                "{name} missing: {instructions}"
            );
        }
        assert!(result["capabilities"]["tools"].is_object());
        assert!(result["capabilities"]["resources"].is_object());
    }
}

#[tokio::test]
async fn every_revision_with_a_handshake_is_negotiated_as_asked() {
    let app = spawn().await;
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let (status, answer) = initialise(&app, &[("x-api-key", app.key.as_str())], version).await;
        assert_eq!(status, 200, "{version}");
        assert_eq!(
            answer.expect("answer")["result"]["protocolVersion"],
            version
        );
    }
}

#[tokio::test]
async fn the_2026_07_28_revision_works_without_a_session() {
    let app = spawn().await;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", app.base))
        .auth_header(app.key.clone());
    let client = ()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_config(config),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover lifecycle");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 7);
    let mut params = CallToolRequestParams::new("get_competent_authority");
    params.arguments = json!({"country_code": "FR"}).as_object().cloned();
    let result = client.call_tool(params).await.expect("tools/call");
    assert_eq!(crate::support::structured(&result)["country_code"], "FR");
}

#[tokio::test]
async fn an_unsupported_protocol_version_header_gets_400() {
    let app = spawn().await;
    for (method, path) in [
        (reqwest::Method::POST, "/mcp"),
        (reqwest::Method::GET, "/sse"),
        (reqwest::Method::POST, "/message?sessionId=abc"),
    ] {
        let headers = [
            ("x-api-key", app.key.as_str()),
            ("mcp-protocol-version", "1999-01-01"),
        ];
        let response = send(
            &app,
            method.clone(),
            path,
            &headers,
            Some(initialize("2025-06-18")),
        )
        .await;
        let (status, body) = json_error(response).await;
        assert_eq!(status, 400, "{method} {path}");
        assert_eq!(body["error"]["code"], -32022, "{body}");
        assert_eq!(body["error"]["data"]["requested"], "1999-01-01");
        assert!(body["error"]["data"]["supported"]
            .as_array()
            .is_some_and(|s| s.contains(&json!("2025-06-18")) && s.contains(&json!("2026-07-28"))));
    }
    let ok = [
        ("x-api-key", app.key.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    assert_eq!(initialise(&app, &ok, "2025-06-18").await.0, 200);
}

#[tokio::test]
async fn a_foreign_origin_gets_403_and_a_configured_one_is_served() {
    let app = spawn_with(&["https://app.example.org"], None).await;
    for (method, path) in [
        (reqwest::Method::POST, "/mcp"),
        (reqwest::Method::GET, "/sse"),
    ] {
        let headers = [
            ("x-api-key", app.key.as_str()),
            ("origin", "https://evil.example"),
        ];
        let (status, body) =
            json_error(send(&app, method, path, &headers, Some(initialize("2025-06-18"))).await)
                .await;
        assert_eq!(status, 403);
        assert_eq!(body["code"], "origin_not_allowed");
    }
    let allowed = [
        ("x-api-key", app.key.as_str()),
        ("origin", "https://app.example.org"),
    ];
    assert_eq!(initialise(&app, &allowed, "2025-06-18").await.0, 200);
    let no_origin = [("x-api-key", app.key.as_str())];
    assert_eq!(initialise(&app, &no_origin, "2025-06-18").await.0, 200);
    let closed = spawn().await;
    let any = [
        ("x-api-key", closed.key.as_str()),
        ("origin", "http://localhost:3000"),
    ];
    let (status, _) = json_error(
        send(
            &closed,
            reqwest::Method::POST,
            "/mcp",
            &any,
            Some(initialize("2025-06-18")),
        )
        .await,
    )
    .await;
    assert_eq!(status, 403, "no origin is allowed by default");
}

#[tokio::test]
async fn hosts_follow_the_configured_list_on_both_transports() {
    let app = spawn().await;
    let evil = [("x-api-key", app.key.as_str()), ("host", "evil.example")];
    for (method, path) in [
        (reqwest::Method::POST, "/mcp"),
        (reqwest::Method::GET, "/sse"),
    ] {
        let (status, body) =
            json_error(send(&app, method, path, &evil, Some(initialize("2025-06-18"))).await).await;
        assert_eq!(status, 403);
        assert_eq!(body["code"], "host_not_allowed");
    }
    let public = spawn_with(&[], Some(&["mcp.example.org"])).await;
    let named = [
        ("x-api-key", public.key.as_str()),
        ("host", "mcp.example.org"),
    ];
    let (status, answer) = initialise(&public, &named, "2025-06-18").await;
    assert_eq!(status, 200, "rmcp must accept the configured host too");
    assert!(answer.expect("answer")["result"].is_object());
    let loopback = [("x-api-key", public.key.as_str())];
    assert_eq!(initialise(&public, &loopback, "2025-06-18").await.0, 403);
}

#[tokio::test]
async fn methods_a_transport_does_not_serve_get_405_with_allow() {
    let app = spawn().await;
    let key = [("x-api-key", app.key.as_str())];
    for (method, path, allow) in [
        (reqwest::Method::PUT, "/mcp", "GET, POST, DELETE"),
        (reqwest::Method::PATCH, "/mcp", "GET, POST, DELETE"),
        (reqwest::Method::POST, "/sse", "GET"),
        (reqwest::Method::DELETE, "/sse", "GET"),
        (reqwest::Method::GET, "/message?sessionId=abc", "POST"),
        (reqwest::Method::PUT, "/message", "POST"),
    ] {
        let response = send(&app, method.clone(), path, &key, None).await;
        assert_eq!(
            response
                .headers()
                .get("allow")
                .and_then(|v| v.to_str().ok()),
            Some(allow),
            "{method} {path}"
        );
        let (status, body) = json_error(response).await;
        assert_eq!(status, 405, "{method} {path}");
        assert_eq!(body["code"], "method_not_allowed");
    }
}

#[tokio::test]
async fn bodies_over_the_limit_get_413_and_unknown_paths_404() {
    let app = spawn().await;
    let key = [("x-api-key", app.key.as_str())];
    let huge = "x".repeat(mcp::MAX_BODY_BYTES + 1);
    for path in ["/mcp", "/message?sessionId=abc"] {
        let (status, body) =
            json_error(send(&app, reqwest::Method::POST, path, &key, Some(huge.clone())).await)
                .await;
        assert_eq!(status, 413, "{path}");
        assert_eq!(body["code"], "payload_too_large");
    }
    let (status, body) =
        json_error(send(&app, reqwest::Method::GET, "/nowhere", &key, None).await).await;
    assert_eq!(status, 404);
    assert_eq!(body["code"], "not_found");
}

#[tokio::test]
async fn legacy_sse_serves_the_same_tools_over_the_event_stream() {
    let app = spawn().await;
    let key = [("x-api-key", app.key.as_str())];
    let response = send(&app, reqwest::Method::GET, "/sse", &key, None).await;
    assert_eq!(response.status(), 200);
    assert!(response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream")));
    let mut events = Events::new(response);
    let (event, endpoint) = events.next().await;
    assert_eq!(event, "endpoint");
    assert!(endpoint.starts_with("/message?sessionId="), "{endpoint}");
    let post = |body: Value| {
        let endpoint = endpoint.clone();
        let app = &app;
        async move {
            send(
                app,
                reqwest::Method::POST,
                &endpoint,
                &[("x-api-key", app.key.as_str())],
                Some(body.to_string()),
            )
            .await
            .status()
            .as_u16()
        }
    };
    let init: Value = serde_json::from_str(&initialize("2024-11-05")).expect("json");
    assert_eq!(post(init).await, 202);
    let answer = events.message().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");
    assert!(answer["result"]["instructions"]
        .as_str()
        .is_some_and(|i| i.contains("Disclaimer")));
    assert_eq!(
        post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await,
        202
    );
    assert_eq!(
        post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await,
        202
    );
    let tools = events.message().await;
    assert_eq!(tools["id"], 2);
    let listed = tools["result"]["tools"].as_array().expect("tools");
    assert_eq!(listed.len(), 7);
    assert!(listed
        .iter()
        .all(|t| t["annotations"]["readOnlyHint"] == true && t["outputSchema"].is_object()));
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "get_competent_authority", "arguments": {"country_code": "Germany"}}});
    assert_eq!(post(call).await, 202);
    let record = events.message().await;
    assert_eq!(record["id"], 3);
    assert_eq!(record["result"]["isError"], false);
    assert_eq!(record["result"]["structuredContent"]["country_code"], "DE");
    let classify = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "classify_waste", "arguments": {"description": "Spent lead-acid car batteries"}}});
    assert_eq!(post(classify).await, 202);
    let classified = events.message().await;
    assert_eq!(
        classified["result"]["structuredContent"]["list_type"],
        "Amber"
    );
    let missing = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "get_competent_authority", "arguments": {"country_code": "Atlantis"}}});
    assert_eq!(post(missing).await, 202);
    let refused = events.message().await;
    assert_eq!(refused["result"]["isError"], true);
    assert!(refused["result"]["content"][0]["text"]
        .as_str()
        .is_some_and(|t| t.starts_with("country_not_found: ")));
    assert_eq!(refused["result"].get("structuredContent"), None);
    let garbage = send(
        &app,
        reqwest::Method::POST,
        &endpoint,
        &key,
        Some("{not json".into()),
    )
    .await;
    let (status, body) = json_error(garbage).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], -32700);
}

#[tokio::test]
async fn messages_for_unknown_or_missing_sessions_are_refused() {
    let app = spawn().await;
    let key = [("x-api-key", app.key.as_str())];
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let (status, body) = json_error(
        send(
            &app,
            reqwest::Method::POST,
            "/message?sessionId=nope",
            &key,
            Some(ping.clone()),
        )
        .await,
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(body["code"], "session_not_found");
    let (status, body) =
        json_error(send(&app, reqwest::Method::POST, "/message", &key, Some(ping)).await).await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], "session_required");
}

#[tokio::test]
async fn shutting_down_ends_open_event_streams_and_sessions() {
    let app = spawn().await;
    let key = [("x-api-key", app.key.as_str())];
    let sse = send(&app, reqwest::Method::GET, "/sse", &key, None).await;
    let mut events = Events::new(sse);
    assert_eq!(events.next().await.0, "endpoint");
    let client = crate::support::client(&app).await;
    assert_eq!(client.list_all_tools().await.expect("tools").len(), 7);
    assert!(
        app.shut_down().await,
        "graceful shutdown must not wait for open event streams"
    );
}

#[tokio::test]
async fn deleting_a_session_answers_204_and_ends_it() {
    let app = spawn().await;
    let key = [("x-api-key", app.key.as_str())];
    let response = send(
        &app,
        reqwest::Method::POST,
        "/mcp",
        &key,
        Some(initialize("2025-06-18")),
    )
    .await;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    drop(response);
    let with_session = [
        ("x-api-key", app.key.as_str()),
        ("mcp-session-id", session.as_str()),
    ];
    let deleted = send(&app, reqwest::Method::DELETE, "/mcp", &with_session, None).await;
    assert_eq!(deleted.status(), 204);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let after = send(
        &app,
        reqwest::Method::POST,
        "/mcp",
        &with_session,
        Some(list),
    )
    .await;
    assert_eq!(after.status(), 404, "the session is gone");
}

#[tokio::test]
async fn chunked_bodies_over_the_limit_get_413_too() {
    let app = spawn().await;
    for path in ["/mcp", "/message?sessionId=abc"] {
        let chunks: Vec<Result<String, std::io::Error>> =
            (0..80).map(|_| Ok("x".repeat(4096))).collect();
        let response = reqwest::Client::new()
            .post(format!("{}{path}", app.base))
            .header("x-api-key", &app.key)
            .header("accept", ACCEPT)
            .header("content-type", "application/json")
            .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
            .send()
            .await
            .expect("response");
        assert_eq!(response.status(), 413, "{path}");
    }
}
