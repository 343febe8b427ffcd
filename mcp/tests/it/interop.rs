//! What real clients need from the protocol edge: tool errors they can read,
//! JSON-RPC errors with the right codes, batches on 2025-03-26, nothing
//! answered that is not advertised, the server's identity on 2026-07-28
//! results, and the per-key rate limit.

use rmcp::model::ErrorCode;
use rmcp::service::ServiceError;
use serde_json::{json, Value};

use crate::support::{call, client, refusal, spawn, spawn_configured, App};
use mcp::{McpConfig, RateLimit};

const ACCEPT: &str = "application/json, text/event-stream";

/// Posts `body` to `/mcp` with the key and `headers`.
async fn post(app: &App, headers: &[(&str, &str)], body: String) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .header("accept", ACCEPT)
        .header("content-type", "application/json")
        .header("x-api-key", &app.key);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(body).send().await.expect("response")
}

/// The JSON-RPC messages of an answer: a JSON body, or an event stream's data.
async fn messages(response: reqwest::Response) -> Vec<Value> {
    let is_stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let text = response.text().await.expect("body");
    if !is_stream {
        return match serde_json::from_str(&text).expect("JSON body") {
            Value::Array(items) => items,
            single => vec![single],
        };
    }
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            serde_json::from_str(&data.join("\n")).ok()
        })
        .collect()
}

/// The one response in an answer.
async fn answer(response: reqwest::Response) -> Value {
    let all = messages(response).await;
    all.into_iter()
        .find(|m| m.get("result").is_some() || m.get("error").is_some())
        .expect("a response")
}

/// A session on `revision` over raw HTTP: its id.
async fn session(app: &App, revision: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": revision, "capabilities": {},
        "clientInfo": {"name": "interop-test", "version": "1"}}});
    let response = post(app, &[], init.to_string()).await;
    assert_eq!(response.status(), 200);
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(app, &[("mcp-session-id", &id)], initialized.to_string()).await;
    assert_eq!(response.status(), 202);
    id
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn a_tool_error_is_readable_text_with_a_code_and_no_structured_content() {
    let app = spawn().await;
    let client = client(&app).await;
    let result = call(
        &client,
        "get_competent_authority",
        json!({"country_code": "Atlantis"}),
    )
    .await;
    assert_eq!(refusal(&result), "country_not_found");
    let text = &result.content[0].as_text().expect("text").text;
    assert!(text.contains("Atlantis"), "{text}");
    let bad = call(&client, "classify_waste", json!({"description": 5})).await;
    assert_eq!(refusal(&bad), "invalid_argument");
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_with_400() {
    let app = spawn().await;
    let response = post(&app, &[], "{not json".into()).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
}

#[tokio::test]
async fn a_message_that_names_a_key_twice_is_an_invalid_request_naming_it() {
    let app = spawn().await;
    let body =
        r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "method": "ping", "params": {}}"#;
    let response = post(&app, &[], body.into()).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32600);
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`method`"), "{message}");
    let id = session(&app, "2025-06-18").await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let nested = r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_competent_authority", "arguments": {"country_code": "DE", "country_code": "FR"}}}"#;
    let response = post(&app, &headers, nested.into()).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("params.arguments.country_code"),
        "{message}"
    );
}

#[tokio::test]
async fn a_message_that_is_not_json_rpc_is_an_invalid_request() {
    let app = spawn().await;
    let id = session(&app, "2025-06-18").await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    for bad in [
        json!({"id": 1, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": 7}),
        json!({"jsonrpc": "2.0", "id": [1], "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1}),
        json!("ping"),
    ] {
        let response = post(&app, &headers, bad.to_string()).await;
        assert_eq!(response.status(), 400, "{bad}");
        let body: Value = response.json().await.expect("JSON");
        assert_eq!(body["error"]["code"], -32600, "{bad}");
    }
}

#[tokio::test]
async fn missing_or_ill_typed_params_are_invalid_params_with_the_request_id() {
    let app = spawn().await;
    let id = session(&app, "2025-06-18").await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    for (n, (method, params)) in [
        ("tools/call", json!({})),
        ("tools/call", json!({"name": 5})),
        ("tools/call", Value::Null),
        ("resources/read", json!({"uri": ["x"]})),
        ("tools/list", json!("page 2")),
    ]
    .into_iter()
    .enumerate()
    {
        let n = i64::try_from(n).expect("small") + 10;
        let mut message = request(n, method, params.clone());
        if params.is_null() {
            message.as_object_mut().expect("object").remove("params");
        }
        let body = answer(post(&app, &headers, message.to_string()).await).await;
        assert_eq!(body["error"]["code"], -32602, "{method} {params}: {body}");
        assert_eq!(body["id"], n);
    }
}

#[tokio::test]
async fn methods_that_are_not_advertised_are_not_found() {
    let app = spawn().await;
    let id = session(&app, "2025-06-18").await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let complete = request(
        1,
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "basel://ca/{country_code}"},
               "argument": {"name": "country_code", "value": "D"}}),
    );
    for message in [
        complete,
        request(2, "prompts/list", json!({})),
        request(3, "prompts/get", json!({"name": "x"})),
        request(4, "logging/setLevel", json!({"level": "debug"})),
        request(5, "resources/subscribe", json!({"uri": "basel://ca/DE"})),
        request(6, "x".repeat(100).as_str(), json!({})),
    ] {
        let body = answer(post(&app, &headers, message.to_string()).await).await;
        assert_eq!(body["error"]["code"], -32601, "{message}: {body}");
        let text = body["error"]["message"].as_str().expect("message");
        assert!(text.chars().count() < 200, "{text}");
    }
    let client = client(&app).await;
    let info = client.peer_info().expect("server info");
    assert!(info.capabilities.prompts.is_none());
    assert!(info.capabilities.completions.is_none());
    assert!(info.capabilities.logging.is_none());
}

#[tokio::test]
async fn batches_are_served_on_2025_03_26_and_refused_on_later_revisions() {
    let app = spawn().await;
    let id = session(&app, "2025-03-26").await;
    let batch = json!([
        request(1, "tools/list", json!({})),
        request(2, "tools/call", json!({"name": "lookup_basel_code", "arguments": {"code": "Y31"}})),
        {"jsonrpc": "2.0", "method": "notifications/progress",
         "params": {"progressToken": "t", "progress": 1}},
        request(3, "tools/call", json!({})),
    ]);
    let response = post(&app, &[("mcp-session-id", &id)], batch.to_string()).await;
    assert_eq!(response.status(), 200);
    let answers = messages(response).await;
    assert_eq!(answers.len(), 3, "{answers:?}");
    let by_id = |n: i64| {
        answers
            .iter()
            .find(|a| a["id"] == n)
            .unwrap_or_else(|| panic!("an answer to {n}: {answers:?}"))
    };
    assert_eq!(
        by_id(1)["result"]["tools"].as_array().map(Vec::len),
        Some(7)
    );
    assert_eq!(by_id(2)["result"]["structuredContent"]["code"], "Y31");
    assert_eq!(by_id(3)["error"]["code"], -32602);
    let notifications = json!([{"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": "t", "progress": 2}}]);
    let response = post(&app, &[("mcp-session-id", &id)], notifications.to_string()).await;
    assert_eq!(response.status(), 202);

    let modern = session(&app, "2025-06-18").await;
    let headers = [
        ("mcp-session-id", modern.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let response = post(
        &app,
        &headers,
        json!([request(1, "ping", json!({}))]).to_string(),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32600);
}

#[tokio::test]
async fn results_on_2026_07_28_carry_the_server_info_in_meta() {
    let app = spawn().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "interop-test", "version": "1"},
    });
    let headers = [("mcp-protocol-version", "2026-07-28")];
    for (method, params) in [
        ("tools/list", json!({"_meta": meta})),
        (
            "tools/call",
            json!({"_meta": meta, "name": "lookup_basel_code", "arguments": {"code": "A1010"}}),
        ),
        ("resources/templates/list", json!({"_meta": meta})),
        (
            "resources/read",
            json!({"_meta": meta, "uri": "basel://codes/Y31"}),
        ),
    ] {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params,});
        let mut extra = headers.to_vec();
        extra.push(("mcp-method", method));
        let name = params["name"].as_str().or(params["uri"].as_str());
        if let Some(name) = name {
            extra.push(("mcp-name", name));
        }
        let body = answer(post(&app, &extra, message.to_string()).await).await;
        let info = &body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
        assert_eq!(info["name"], "basel", "{method}: {body}");
        assert!(info["version"].is_string());
    }
    let client = client(&app).await;
    let old = call(&client, "lookup_basel_code", json!({"code": "Y31"})).await;
    assert_eq!(old.meta, None, "older revisions get no serverInfo in _meta");
}

fn limited(per_second: f64, burst: u32) -> McpConfig {
    McpConfig {
        rate: RateLimit { per_second, burst },
        ..McpConfig::default()
    }
}

#[tokio::test]
async fn a_burst_over_the_limit_gets_a_retry_error() {
    let app = spawn_configured(&[], None, limited(1.0, 5)).await;
    let client = client(&app).await;
    for _ in 0..5 {
        let result = call(&client, "lookup_basel_code", json!({"code": "Y31"})).await;
        assert_eq!(result.is_error, Some(false));
    }
    let mut params = rmcp::model::CallToolRequestParams::new("lookup_basel_code");
    params.arguments = json!({"code": "Y31"}).as_object().cloned();
    match client.call_tool(params).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode(-32029));
            let wait = error.data.as_ref().expect("data")["retry_after_ms"]
                .as_u64()
                .expect("retry_after_ms");
            assert!((1..=1000).contains(&wait), "{wait}");
            assert!(error.message.contains("retry in"), "{}", error.message);
        }
        other => panic!("expected the rate-limit error, got {other:?}"),
    }
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "basel://codes/Y31",
        ))
        .await;
    assert!(
        matches!(read, Err(ServiceError::McpError(ref e)) if e.code == ErrorCode(-32029)),
        "resource reads share the bucket: {read:?}"
    );
    let listed = client.list_all_tools().await;
    assert!(listed.is_ok(), "listing is not limited");
}

#[tokio::test]
async fn calls_under_the_limit_are_never_refused() {
    let app = spawn().await;
    assert_eq!(McpConfig::default().rate.burst, 100);
    let client = client(&app).await;
    for _ in 0..100 {
        let result = call(&client, "lookup_basel_code", json!({"code": "B1010"})).await;
        assert_eq!(result.is_error, Some(false));
    }
}

/// A writer for a test's own log subscriber.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn client_strings_reach_the_logs_cut_short() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = spawn().await;
    let long = "x".repeat(5000);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {"experimental": {"k": {"v": long}}},
        "clientInfo": {"name": long, "version": long}}});
    let response = post(&app, &[], init.to_string()).await;
    let id = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    for message in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 99, "reason": long}}),
        json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": long}}),
        request(1, "tools/call", json!({"name": long})),
        request(2, &"y".repeat(100), json!({})),
        request(
            3,
            "resources/read",
            json!({"uri": format!("basel://ca/{long}")}),
        ),
        request(
            4,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": long}}),
        ),
    ] {
        let _ = post(&app, &headers, message.to_string())
            .await
            .bytes()
            .await;
    }
    let logs = String::from_utf8_lossy(
        &captured
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    )
    .into_owned();
    assert!(
        logs.contains("xxxxxxxxxx"),
        "the client's strings were logged: {logs}"
    );
    let longest = logs
        .split(|c: char| c != 'x')
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(
        longest <= 200,
        "a client string of {longest} characters reached the logs"
    );
}

/// The data of the next `event` on a legacy SSE stream.
async fn next_event(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
    buffer: &mut String,
    event: &str,
) -> String {
    use futures::StreamExt;
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let name = block.lines().find_map(|l| l.strip_prefix("event:"));
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if name.map(str::trim) == Some(event) {
                return data.join("\n");
            }
        }
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(5), stream.next())
            .await
            .expect("an event within 5 s")
            .expect("the stream is open")
            .expect("a chunk");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

#[tokio::test]
async fn on_legacy_sse_a_refused_request_is_answered_on_the_stream() {
    let app = spawn().await;
    let http = reqwest::Client::new();
    let response = http
        .get(format!("{}/sse", app.base))
        .header("x-api-key", &app.key)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("stream");
    let mut stream = Box::pin(response.bytes_stream());
    let mut buffer = String::new();
    let endpoint = next_event(&mut stream, &mut buffer, "endpoint").await;
    let post = |body: Value| {
        http.post(format!("{}{endpoint}", app.base))
            .header("x-api-key", &app.key)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
    };
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "interop-test", "version": "1"}}});
    assert_eq!(post(init).await.expect("posted").status(), 202);
    next_event(&mut stream, &mut buffer, "message").await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(initialized).await.expect("posted").status(), 202);
    let nameless = request(7, "tools/call", json!({"arguments": {}}));
    assert_eq!(post(nameless).await.expect("posted").status(), 202);
    let answer: Value =
        serde_json::from_str(&next_event(&mut stream, &mut buffer, "message").await).expect("JSON");
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let idless = post(json!({"jsonrpc": "1.0", "method": "ping"}))
        .await
        .expect("posted");
    assert_eq!(idless.status(), 400);
    let body: Value = idless.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], -32600);
}

#[tokio::test]
async fn an_unknown_resource_is_not_found_naming_its_uri() {
    let app = spawn().await;
    let client = client(&app).await;
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "basel://nothing/here",
        ))
        .await;
    match read {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode(-32002));
            assert_eq!(
                error.data.as_ref().expect("data")["uri"],
                "basel://nothing/here"
            );
        }
        other => panic!("expected resource not found, got {other:?}"),
    }
}
