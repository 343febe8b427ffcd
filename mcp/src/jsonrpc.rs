//! The JSON-RPC checks in front of rmcp, for `POST /mcp` and
//! `POST /message`.
//!
//! rmcp answers a body that is not a message it can read with a plain-text
//! 415, and a known method whose params do not fit (`tools/call` without
//! `name`) with -32601, as if the method did not exist. Here every message is
//! checked first and refused as JSON-RPC says:
//!
//! - not JSON: -32700, HTTP 400;
//! - not a JSON-RPC 2.0 request, notification or response (no `jsonrpc:
//!   "2.0"`, a `method` or `id` of the wrong type, an over-long id or method):
//!   -32600, HTTP 400;
//! - a known method whose `params` are missing or ill-typed: -32602, with
//!   the request's id, HTTP 200 (the request itself was understood).
//!
//! Strings a client sends that rmcp writes to its logs (the `initialize`
//! params, notification params, request `_meta`, ids and method names) are
//! cut to a bounded length here, before rmcp sees them.
//!
//! Batches (a JSON array) are answered on `/mcp` only where the revision in
//! use has them: 2025-03-26, which a request without `MCP-Protocol-Version`
//! is taken to speak (as the transport specification says). Each message is
//! served on its own through rmcp and the answers come back as one JSON
//! array (202 when the batch held no request). Later revisions removed
//! batching, so there a batch is -32600.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, InitializeRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams,
};
use rmcp::transport::StreamableHttpService;
use rmcp::ErrorData;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::answer::{self, Caller};
use crate::handler::Basel;
use crate::state::{bounded, MAX_BODY_BYTES};

/// The longest request id or method name accepted, in bytes.
const MAX_NAME_BYTES: usize = 128;
/// The most messages one batch may hold.
const MAX_BATCH: usize = 50;
/// The one revision whose clients may send batches.
const BATCH_REVISION: &str = "2025-03-26";
/// The protocol-revision header.
const PROTOCOL_HEADER: &str = "mcp-protocol-version";
/// The header naming a message's method (revision 2026-07-28 and later).
const METHOD_HEADER: &str = "mcp-method";
/// The largest answer read back from rmcp for one message of a batch.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// rmcp's streamable HTTP service, as `/mcp` runs it.
pub(crate) type Streamable = StreamableHttpService<Basel, crate::event_ids::NumberedEvents>;

/// A message refused before rmcp: the id to answer (when usable) and why.
#[derive(Debug)]
pub(crate) struct Refused {
    id: Option<Value>,
    error: ErrorData,
}

impl Refused {
    fn request(id: Option<Value>, message: &str) -> Self {
        Self {
            id,
            error: ErrorData::invalid_request(message.to_owned(), None),
        }
    }

    fn params(id: Option<Value>, message: String) -> Self {
        Self {
            id,
            error: ErrorData::invalid_params(message, None),
        }
    }

    /// Whether the refusal can be answered to the request it refuses.
    pub(crate) fn has_id(&self) -> bool {
        self.id.is_some()
    }

    /// The JSON-RPC error object for this refusal.
    pub(crate) fn to_value(&self) -> Value {
        error_value(self.id.clone(), &self.error)
    }

    /// The HTTP answer: 400, or 200 for invalid params of a request with an id.
    pub(crate) fn into_response(self) -> Response {
        let status =
            if self.error.code == rmcp::model::ErrorCode::INVALID_PARAMS && self.id.is_some() {
                StatusCode::OK
            } else {
                StatusCode::BAD_REQUEST
            };
        error_response(status, self.id, self.error)
    }
}

/// A JSON-RPC error message: `{jsonrpc, id, error}` (id `null` when unknown).
fn error_value(id: Option<Value>, error: &ErrorData) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": error })
}

/// A JSON-RPC error as an HTTP response with `status`.
pub(crate) fn error_response(status: StatusCode, id: Option<Value>, error: ErrorData) -> Response {
    json_response(status, &error_value(id, &error))
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body.to_string(),
    )
        .into_response()
}

/// -32700 for a body that is not JSON.
pub(crate) fn parse_error() -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        None,
        ErrorData::parse_error("Parse error: the body is not valid JSON", None),
    )
}

/// Parses a body: one message or a batch of them, unchecked.
///
/// # Errors
/// The answer to send instead: [`parse_error`] when it is not JSON; 400
/// with -32600 naming the key when an object names a key twice (which
/// `serde_json` alone would read as its last value).
pub(crate) fn parse(body: &[u8]) -> Result<Value, Box<Response>> {
    match domain::json::parse(body) {
        Ok(value) => Ok(value),
        Err(domain::json::JsonError::Syntax(_)) => Err(Box::new(parse_error())),
        Err(duplicate @ domain::json::JsonError::DuplicateKey(_)) => Err(Box::new(error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorData::invalid_request(format!("Invalid request: {duplicate}"), None),
        ))),
    }
}

/// Checks one message and bounds the strings rmcp would log.
///
/// # Errors
/// -32600 for something that is not a JSON-RPC 2.0 message an MCP client
/// sends; -32602 for a known method's missing or ill-typed params.
pub(crate) fn check(message: Value) -> Result<Value, Refused> {
    let Value::Object(mut object) = message else {
        return Err(Refused::request(
            None,
            "Invalid request: a JSON-RPC message is a JSON object",
        ));
    };
    let id = object.get("id").cloned();
    let id_ok = match &id {
        None => true,
        Some(Value::String(text)) => text.len() <= MAX_NAME_BYTES,
        Some(Value::Number(number)) => number.is_i64() || number.is_u64(),
        Some(_) => false,
    };
    let usable_id = id.clone().filter(|_| id_ok);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Refused::request(
            usable_id,
            "Invalid request: `jsonrpc` must be \"2.0\"",
        ));
    }
    if !id_ok {
        return Err(Refused::request(
            None,
            "Invalid request: `id` must be an integer or a string of at most 128 bytes",
        ));
    }
    let method = match object.get("method") {
        None => return response(object, usable_id),
        Some(Value::String(method)) if method.len() <= MAX_NAME_BYTES => method.clone(),
        Some(_) => {
            return Err(Refused::request(
                usable_id,
                "Invalid request: `method` must be a string of at most 128 bytes",
            ))
        }
    };
    let params = object.get("params").cloned().unwrap_or(Value::Null);
    if !matches!(params, Value::Null | Value::Object(_)) {
        return Err(Refused::params(
            usable_id,
            format!("Invalid params for `{method}`: `params` must be an object"),
        ));
    }
    if id.is_some() {
        if let Some(problem) = params_problem(&method, params) {
            return Err(Refused::params(
                usable_id,
                format!("Invalid params for `{method}`: {}", bounded(&problem)),
            ));
        }
    }
    if let Some(params) = object.get_mut("params") {
        if id.is_none() || method == "initialize" {
            cut_strings(params);
        } else if let Some(meta) = params.get_mut("_meta") {
            cut_strings(meta);
        }
    }
    readable(Value::Object(object), usable_id)
}

/// A message without `method`: a response to a server request.
fn response(object: serde_json::Map<String, Value>, id: Option<Value>) -> Result<Value, Refused> {
    let one_outcome = object.contains_key("result") != object.contains_key("error");
    if id.is_none() || !one_outcome {
        return Err(Refused::request(
            id,
            "Invalid request: a request needs a `method`; a response an `id` and either `result` or `error`",
        ));
    }
    readable(Value::Object(object), id)
}

/// The last check: rmcp can read the message.
fn readable(message: Value, id: Option<Value>) -> Result<Value, Refused> {
    match serde_json::from_value::<ClientJsonRpcMessage>(message.clone()) {
        Ok(_) => Ok(message),
        Err(_) => Err(Refused::request(
            id,
            "Invalid request: not a JSON-RPC 2.0 message an MCP client sends",
        )),
    }
}

/// What is wrong with the params of a method this server offers, if
/// anything. (Methods it does not offer are -32601 whatever their params.)
fn params_problem(method: &str, params: Value) -> Option<String> {
    fn fits<T: DeserializeOwned>(params: Value) -> Option<String> {
        if params.is_null() {
            return Some("`params` is required".to_owned());
        }
        serde_json::from_value::<T>(params)
            .err()
            .map(|e| e.to_string())
    }
    fn optional<T: DeserializeOwned>(params: Value) -> Option<String> {
        serde_json::from_value::<Option<T>>(params)
            .err()
            .map(|e| e.to_string())
    }
    match method {
        "initialize" => fits::<InitializeRequestParams>(params),
        "tools/call" => fits::<CallToolRequestParams>(params),
        "resources/read" => fits::<ReadResourceRequestParams>(params),
        "tools/list" | "resources/list" | "resources/templates/list" => {
            optional::<PaginatedRequestParams>(params)
        }
        _ => None,
    }
}

/// Cuts every string in `value` (keys too) to a loggable length.
fn cut_strings(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(cut) = bounded(text) {
                *text = cut;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(cut_strings),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut item) in entries {
                cut_strings(&mut item);
                map.insert(bounded(&key).into_owned(), item);
            }
        }
        _ => {}
    }
}

/// `POST /mcp`: checks the body, then hands it (or each message of a batch)
/// to rmcp.
pub(crate) async fn post(service: Streamable, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        return answer::too_large();
    };
    match parse(&bytes) {
        Err(refusal) => *refusal,
        Ok(Value::Array(items)) => batch(&service, &parts, items).await,
        Ok(single) => match check(single) {
            Err(refused) => refused.into_response(),
            Ok(message) => forward(&service, &parts, &message).await,
        },
    }
}

/// The same request with `message` as its body.
///
/// A notification without `Mcp-Method` gets one naming its own method:
/// rmcp refuses (HTTP 400) any message without it from revision 2026-07-28
/// on, and clients send `notifications/cancelled` without it (nothing routes
/// on a notification, which has no answer to carry an error anyway). A
/// header that contradicts the body is left for rmcp to refuse.
fn rebuild(parts: &Parts, message: &Value) -> Request {
    let mut request = Request::new(Body::from(message.to_string()));
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.version_mut() = parts.version;
    *request.headers_mut() = parts.headers.clone();
    request.headers_mut().remove(CONTENT_LENGTH);
    let notification = message.get("id").is_none();
    if let Some(method) = message.get("method").and_then(Value::as_str) {
        if notification && !parts.headers.contains_key(METHOD_HEADER) {
            if let Ok(value) = HeaderValue::from_str(method) {
                request.headers_mut().insert(METHOD_HEADER, value);
            }
        }
    }
    if let Some(caller) = parts.extensions.get::<Caller>() {
        request.extensions_mut().insert(caller.clone());
    }
    request
}

async fn forward(service: &Streamable, parts: &Parts, message: &Value) -> Response {
    service.handle(rebuild(parts, message)).await.map(Body::new)
}

async fn batch(service: &Streamable, parts: &Parts, items: Vec<Value>) -> Response {
    let refuse = |message: &str| {
        error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorData::invalid_request(message.to_owned(), None),
        )
    };
    let revision = parts
        .headers
        .get(PROTOCOL_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or(BATCH_REVISION);
    if revision != BATCH_REVISION {
        return refuse(&format!(
            "Invalid request: protocol revision {} has no JSON-RPC batches (only {BATCH_REVISION} has); send one message per request",
            bounded(revision)
        ));
    }
    if items.is_empty() || items.len() > MAX_BATCH {
        return refuse("Invalid request: a batch holds 1 to 50 messages");
    }
    if items.iter().any(|item| item["method"] == "initialize") {
        return refuse("Invalid request: initialize must not be part of a batch");
    }
    let answers = futures::future::join_all(items.into_iter().map(|item| async move {
        match check(item) {
            Err(refused) => Some(refused.to_value()),
            Ok(message) => answer(service, parts, message).await,
        }
    }))
    .await;
    let answers: Vec<Value> = answers.into_iter().flatten().collect();
    if answers.is_empty() {
        return StatusCode::ACCEPTED.into_response();
    }
    json_response(StatusCode::OK, &Value::Array(answers))
}

/// Serves one message of a batch; its response, if it is a request.
async fn answer(service: &Streamable, parts: &Parts, message: Value) -> Option<Value> {
    let id = message.get("id").cloned();
    let is_request = message.get("method").is_some() && id.is_some();
    let response = forward(service, parts, &message).await;
    if !is_request {
        return None;
    }
    let id = id?;
    let status = response.status();
    let found = read_response(response, &id).await;
    Some(found.unwrap_or_else(|| {
        error_value(
            Some(id),
            &ErrorData::internal_error(
                format!("no answer to this message of the batch (HTTP {status})"),
                None,
            ),
        )
    }))
}

/// The JSON-RPC response with `id` in an rmcp answer: a JSON body, or an
/// event stream read until that response arrives.
async fn read_response(response: Response, id: &Value) -> Option<Value> {
    let is_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let matches = |value: &Value| {
        &value["id"] == id && (value.get("result").is_some() || value.get("error").is_some())
    };
    if !is_stream {
        let bytes = axum::body::to_bytes(response.into_body(), MAX_ANSWER_BYTES)
            .await
            .ok()?;
        let value: Value = serde_json::from_slice(&bytes).ok()?;
        return matches(&value).then_some(value);
    }
    let mut stream = response.into_body().into_data_stream();
    let mut buffer = String::new();
    while let Some(chunk) = stream.next().await {
        let chunk: Result<bytes::Bytes, _> = chunk;
        buffer.push_str(&String::from_utf8_lossy(&chunk.ok()?));
        if buffer.len() > MAX_ANSWER_BYTES {
            return None;
        }
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if let Ok(value) = serde_json::from_str::<Value>(&data.join("\n")) {
                if matches(&value) {
                    return Some(value);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(message: Value) -> Option<i32> {
        check(message).err().map(|r| r.error.code.0)
    }

    #[test]
    fn messages_are_checked_as_json_rpc_before_rmcp() {
        let ok =
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}});
        assert_eq!(code(ok), None);
        assert_eq!(code(json!([1])), Some(-32600));
        assert_eq!(code(json!({"id": 1, "method": "ping"})), Some(-32600));
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})),
            Some(-32600)
        );
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "method": 5})),
            Some(-32600)
        );
        assert_eq!(code(json!({"jsonrpc": "2.0", "id": 1})), Some(-32600));
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})),
            Some(-32602)
        );
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"})),
            Some(-32602)
        );
        assert_eq!(
            code(
                json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": 5}})
            ),
            Some(-32602)
        );
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]})),
            Some(-32602)
        );
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            None
        );
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            None,
            "a response to a server request"
        );
    }

    #[test]
    fn strings_rmcp_logs_are_cut() {
        let long = "x".repeat(10_000);
        let message = json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": long},
        });
        let checked = check(message).expect("a notification");
        assert!(
            checked["params"]["reason"]
                .as_str()
                .unwrap()
                .chars()
                .count()
                <= 121
        );
        let long_id = json!({"jsonrpc": "2.0", "id": long, "method": "ping"});
        assert_eq!(code(long_id), Some(-32600));
    }
}
