//! The HTTP checks in front of both transports, in order: allowed `Host`
//! (403), allowed `Origin` (403), API key (401), `MCP-Protocol-Version`
//! (400), body size (413). Each refusal is JSON and happens before any MCP
//! processing; the 401 body is exactly `{error, message, help}`, as on the
//! REST API, and the 400 for an unknown revision is the JSON-RPC error
//! -32022 with `data.supported` (revision 2026-07-28). Nothing here logs a
//! presented key. A request that passes carries its [`Caller`] (the key's
//! hash) in its extensions, for the rate limiter.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use futures::StreamExt;

use axum::extract::{Request, State};
use axum::http::header::{ALLOW, CONTENT_LENGTH, HOST, ORIGIN};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::credentials::KeyRefusal;
use rmcp::model::{ErrorCode, ProtocolVersion};
use rmcp::ErrorData;
use serde_json::json;

use crate::answer::{error, peer, too_large, Caller};
use crate::jsonrpc;
use crate::sessions::{Closer, Holder, Registry};
use crate::state::{bounded, McpState, MAX_BODY_BYTES};
use web::throttle::FailedAuth;

/// The header carrying the key, as on the REST API.
const API_KEY_HEADER: &str = "x-api-key";
/// The session header of the streamable HTTP transport.
const SESSION_HEADER: &str = "mcp-session-id";
/// The protocol-revision header of the streamable HTTP transport.
const PROTOCOL_HEADER: &str = "mcp-protocol-version";
/// A refusal: the response to send instead of serving the request.
type Refusal = Box<Response>;

/// Middleware: lets a request through only when every check passes.
pub(crate) async fn check(
    State((state, refusals, failures)): State<(Arc<McpState>, Arc<Refusals>, Arc<FailedAuth>)>,
    mut request: Request,
    next: Next,
) -> Response {
    let door = Door {
        state: &state,
        refusals: &refusals,
        failures: &failures,
        peer: request
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|info| info.0.ip()),
    };
    match refuse(&door, request.headers(), request.uri()).await {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(refusal) => *refusal,
    }
}

/// What the checks need: the state, the refusal log, the failed-auth
/// buckets and the client's address.
struct Door<'a> {
    state: &'a McpState,
    refusals: &'a Refusals,
    failures: &'a FailedAuth,
    peer: Option<std::net::IpAddr>,
}

async fn refuse(
    door: &Door<'_>,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
) -> Result<Caller, Refusal> {
    let (state, refusals) = (door.state, door.refusals);
    if !host_allowed(headers, uri, &state.allowed_hosts) {
        let host = presented_host(headers, uri);
        refusals.log("Host", &host);
        return Err(Box::new(error(
            StatusCode::FORBIDDEN,
            "host_not_allowed",
            &format!(
                "This server does not answer to Host {host}; add it to BASEL_MCP_ALLOWED_HOSTS."
            ),
        )));
    }
    if let Some(origin) = headers.get(ORIGIN) {
        if !origin_allowed(origin, &state.allowed_origins) {
            let max = domain::echo::MAX_ECHOED_CHARS;
            refusals.log(
                "Origin",
                &domain::echo::loggable_bytes(origin.as_bytes(), max),
            );
            return Err(Box::new(error(
                StatusCode::FORBIDDEN,
                "origin_not_allowed",
                "Requests from this Origin are not allowed; add it to BASEL_MCP_ALLOWED_ORIGINS.",
            )));
        }
    }
    let caller = authenticate_throttled(door, headers).await?;
    protocol_version(headers)?;
    let length = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if length.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return Err(Box::new(too_large()));
    }
    Ok(caller)
}

/// The presented key: `X-API-Key`, else `Authorization: Bearer KEY`, read
/// by the same `domain::credentials` reader as the REST edge.
fn presented_key(headers: &HeaderMap) -> Option<&str> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    domain::credentials::presented_api_key(
        text(API_KEY_HEADER),
        text(axum::http::header::AUTHORIZATION.as_str()),
    )
}

/// [`authenticate`], throttled per client address: past its budget of
/// failures an address that presents a key is answered 429 before any
/// lookup, and the failure that empties the budget is a 429 too.
async fn authenticate_throttled(door: &Door<'_>, headers: &HeaderMap) -> Result<Caller, Refusal> {
    let Some(peer) = door.peer else {
        return authenticate(door.state, headers).await;
    };
    if let Some(wait) = door.failures.held_back(peer) {
        return Err(Box::new(too_many_failures(wait)));
    }
    let answer = authenticate(door.state, headers).await;
    if let Err(refusal) = &answer {
        if refusal.status() == StatusCode::UNAUTHORIZED {
            if let Err(wait) = door.failures.failed(peer) {
                return Err(Box::new(too_many_failures(wait)));
            }
        }
    }
    answer
}

/// 429 `too_many_failed_attempts` with `Retry-After`.
fn too_many_failures(wait: std::time::Duration) -> Response {
    let mut response = error(
        StatusCode::TOO_MANY_REQUESTS,
        "too_many_failed_attempts",
        "Too many requests from your address failed authentication; wait before trying again.",
    );
    response.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        HeaderValue::from(web::throttle::retry_after_secs(wait)),
    );
    response
}

async fn authenticate(state: &McpState, headers: &HeaderMap) -> Result<Caller, Refusal> {
    let Some(key) = presented_key(headers) else {
        return Err(Box::new(unauthorized(KeyRefusal::Missing)));
    };
    let digest = domain::credentials::secret_digest(key);
    let hash = hex::encode(digest);
    match state.cache.is_active_key(&state.read_db, digest).await {
        Ok(true) => Ok(Caller(hash)),
        Ok(false) => Err(Box::new(unauthorized(KeyRefusal::NotActive))),
        Err(cause) => {
            tracing::error!(error = %cause, "MCP: the API key table cannot be read");
            Err(Box::new(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "The service cannot check API keys right now; try again shortly.",
            )))
        }
    }
}

/// 400 with the JSON-RPC error -32022 (`data: {supported, requested}`) when
/// `MCP-Protocol-Version` names a revision this server does not speak.
fn protocol_version(headers: &HeaderMap) -> Result<(), Refusal> {
    let Some(value) = headers.get(PROTOCOL_HEADER) else {
        return Ok(());
    };
    let presented = value.to_str().map(str::trim).unwrap_or_default();
    let known = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|known| known.as_str() == presented);
    if known {
        return Ok(());
    }
    let supported: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(ProtocolVersion::as_str)
        .collect();
    let error = ErrorData::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!(
            "Unsupported protocol version: MCP-Protocol-Version must be one of {}",
            supported.join(", ")
        ),
        Some(json!({ "supported": supported, "requested": bounded(presented) })),
    );
    Err(Box::new(jsonrpc::error_response(
        StatusCode::BAD_REQUEST,
        None,
        error,
    )))
}

/// Whether the request's host (Host header, else the URI's authority) is allowed.
/// An allowed entry without a port matches any port.
/// The `Host` a request names (header, else the URI's authority), for
/// messages; `(none)` when it names none.
/// Escaped and cut (`domain::echo`): it goes into a log line and a message.
fn presented_host(headers: &HeaderMap, uri: &axum::http::Uri) -> String {
    let max = domain::echo::MAX_ECHOED_CHARS;
    headers
        .get(HOST)
        .map(|v| domain::echo::loggable_bytes(v.as_bytes(), max))
        .or_else(|| uri.authority().map(|a| bounded(a.as_str()).into_owned()))
        .unwrap_or_else(|| "(none)".to_owned())
}

pub(crate) fn host_allowed(headers: &HeaderMap, uri: &axum::http::Uri, allowed: &[String]) -> bool {
    let presented = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| uri.authority().map(|a| a.as_str().to_owned()));
    let Some((host, port)) = presented.as_deref().and_then(authority) else {
        return false;
    };
    allowed
        .iter()
        .filter_map(|entry| authority(entry))
        .any(|(h, p)| h == host && (p.is_none() || p == port))
}

fn authority(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    match text.parse::<axum::http::uri::Authority>() {
        Ok(a) => Some((normal_host(a.host()), a.port_u16())),
        Err(_) => Some((normal_host(text), None)),
    }
}

fn normal_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// One side of an origin comparison: `null`, or scheme, host and port.
#[derive(PartialEq, Eq)]
enum OriginValue {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

fn parse_origin(text: &str) -> Option<OriginValue> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("null") {
        return Some(OriginValue::Null);
    }
    let uri = text.parse::<axum::http::Uri>().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    let port = authority.port_u16().or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    Some(OriginValue::Tuple {
        scheme,
        host: normal_host(authority.host()),
        port,
    })
}

/// Whether a present `Origin` is in the allowed list. Entries are
/// `scheme://host[:port]` (no port = the scheme's default) or
/// `scheme://host:*` (any port), or `null`.
pub(crate) fn origin_allowed(origin: &HeaderValue, allowed: &[String]) -> bool {
    let Some(origin) = origin.to_str().ok().and_then(parse_origin) else {
        return false;
    };
    allowed.iter().any(|entry| {
        let entry = entry.trim();
        if let Some(base) = entry.strip_suffix(":*") {
            return match (parse_origin(base), &origin) {
                (
                    Some(OriginValue::Tuple { scheme, host, .. }),
                    OriginValue::Tuple {
                        scheme: s, host: h, ..
                    },
                ) => &scheme == s && &host == h,
                _ => false,
            };
        }
        parse_origin(entry).is_some_and(|e| e == origin)
    })
}

/// `/mcp`: GET, POST and DELETE go to rmcp's streamable HTTP service.
/// A request naming a session is served only for the key that opened it
/// (`sessions`); a request that opens one is counted against the caps.
pub(crate) async fn streamable(
    service: jsonrpc::Streamable,
    registry: Arc<Registry>,
    request: Request,
) -> Response {
    let caller = request
        .extensions()
        .get::<Caller>()
        .cloned()
        .unwrap_or_default();
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = &session {
        if !matches!(
            *request.method(),
            Method::DELETE | Method::POST | Method::GET
        ) {
            return not_allowed("GET, POST, DELETE");
        }
        if !registry.touch(id, caller.id()) {
            return unknown_session();
        }
    }
    match (request.method().clone(), session) {
        (Method::DELETE, session) => close(service, &registry, session, request).await,
        (Method::POST, Some(_)) => jsonrpc::post(service, request).await,
        (Method::POST, None) => open(service, &registry, &caller, request).await,
        (Method::GET, Some(id)) => stream(service, &registry, &id, request).await,
        (Method::GET, None) => service.handle(request).await.map(axum::body::Body::new),
        _ => not_allowed("GET, POST, DELETE"),
    }
}

/// `DELETE /mcp`: closes the session.
async fn close(
    service: jsonrpc::Streamable,
    registry: &Registry,
    session: Option<String>,
    request: Request,
) -> Response {
    let mut response = service.handle(request).await.map(axum::body::Body::new);
    if response.status() == StatusCode::ACCEPTED {
        // A closed session: 204, the answer clients expect to DELETE.
        *response.status_mut() = StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
        if let Some(id) = session {
            registry.remove(&id);
        }
    }
    response
}

/// `POST /mcp` without a session: an `initialize` that opens one, within
/// the caps.
async fn open(
    service: jsonrpc::Streamable,
    registry: &Registry,
    caller: &Caller,
    request: Request,
) -> Response {
    if let Err(refused) = registry.admit() {
        return refused.response();
    }
    let address = peer(&request);
    let response = jsonrpc::post(service, request).await;
    let opened = response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let holder = Holder {
        owner: caller.id(),
        address,
    };
    match opened {
        Some(id) => match registry.insert(&id, &holder, Closer::Streamable) {
            Ok(()) => response,
            Err(refused) => refused.response(),
        },
        None => response,
    }
}

/// `GET /mcp` of a session: a resumption (`Last-Event-ID`) replays; a plain
/// GET opens the session's one standalone stream. Either ends when the
/// session is closed (evicted, expired, its key revoked), whatever rmcp does
/// with the stream.
async fn stream(
    service: jsonrpc::Streamable,
    registry: &Arc<Registry>,
    id: &str,
    request: Request,
) -> Response {
    let busy = if request.headers().contains_key("last-event-id") {
        registry.stream(id)
    } else {
        match registry.standalone(id) {
            Some(busy) => busy,
            None => return stream_conflict(),
        }
    };
    let Some(ended) = registry.ended(id) else {
        return unknown_session();
    };
    let response = service.handle(request).await.map(axum::body::Body::new);
    if !response.status().is_success() {
        return response;
    }
    response.map(|body| {
        let stream = body
            .into_data_stream()
            .take_until(ended.cancelled_owned())
            .map(move |chunk| {
                let _busy = &busy;
                chunk
            });
        axum::body::Body::from_stream(stream)
    })
}

/// 409 for a second standalone stream of one session.
/// The connection is closed after it: a client retrying its stream would
/// otherwise keep one more idle connection per attempt.
fn stream_conflict() -> Response {
    let mut response = error(
        StatusCode::CONFLICT,
        "stream_conflict",
        "This session's event stream (GET /mcp) is already open; use it, or close it before opening another.",
    );
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        HeaderValue::from_static("close"),
    );
    response
}

/// 404 for a session that is not open, or is another key's.
pub(crate) fn unknown_session() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "session_not_found",
        "No such session (it expired, was closed, or belongs to another API key): initialise a new one.",
    )
}

/// Refused `Host` and `Origin` values, logged at most once a second (the
/// refusals held back meanwhile are counted in the next line), so a flood of
/// refused requests cannot flood the log. One per MCP router.
#[derive(Debug, Default)]
pub(crate) struct Refusals {
    last: AtomicU64,
    held: AtomicU64,
}

impl Refusals {
    fn log(&self, what: &'static str, value: &str) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let last = self.last.load(Ordering::Relaxed);
        if now > last
            && self
                .last
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            let held = self.held.swap(0, Ordering::Relaxed);
            tracing::warn!(
                refused.held_back = held,
                "MCP request refused: {what} {value} is not in BASEL_MCP_ALLOWED_{upper}S",
                upper = what.to_ascii_uppercase()
            );
        } else {
            self.held.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// 405 naming the methods a route serves.
pub(crate) fn not_allowed(allow: &'static str) -> Response {
    let mut response = error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        &format!("This endpoint serves {allow} only."),
    );
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// Fallback for paths this server does not have.
pub(crate) async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "not_found",
        "No such endpoint: use /mcp (streamable HTTP) or /sse (legacy SSE).",
    )
}

fn unauthorized(refusal: KeyRefusal) -> Response {
    let body = json!({
        "error": refusal.error(),
        "message": refusal.message(),
        "help": KeyRefusal::HELP,
    });
    let mut response = (StatusCode::UNAUTHORIZED, Json(body)).into_response();
    response.headers_mut().insert(
        axum::http::header::WWW_AUTHENTICATE,
        HeaderValue::from_static(refusal.www_authenticate()),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn host_ok(host: &str, allowed: &[&str]) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_str(host).unwrap());
        host_allowed(&headers, &"/mcp".parse().unwrap(), &hosts(allowed))
    }

    #[test]
    fn hosts_match_by_name_and_by_port_when_one_is_given() {
        let loopback = ["localhost", "127.0.0.1", "::1"];
        assert!(host_ok("127.0.0.1:8081", &loopback));
        assert!(host_ok("LOCALHOST", &loopback));
        assert!(host_ok("[::1]:8081", &loopback));
        assert!(!host_ok("evil.example:8081", &loopback));
        assert!(host_ok(
            "mcp.example.org",
            &["mcp.example.org:443", "mcp.example.org"]
        ));
        assert!(!host_ok("mcp.example.org:8443", &["mcp.example.org:443"]));
        assert!(!host_ok("localhost", &[]));
    }

    fn origin_ok(origin: &str, allowed: &[&str]) -> bool {
        origin_allowed(&HeaderValue::from_str(origin).unwrap(), &hosts(allowed))
    }

    #[test]
    fn origins_match_scheme_host_and_port() {
        let allowed = ["https://app.example.org", "http://localhost:*"];
        assert!(origin_ok("https://app.example.org", &allowed));
        assert!(origin_ok("https://app.example.org:443", &allowed));
        assert!(!origin_ok("https://app.example.org:8443", &allowed));
        assert!(!origin_ok("http://app.example.org", &allowed));
        assert!(origin_ok("http://localhost:5173", &allowed));
        assert!(!origin_ok("https://evil.example", &allowed));
        assert!(!origin_ok("null", &allowed));
        assert!(!origin_ok("https://app.example.org", &[]));
    }

    #[test]
    fn a_key_comes_from_x_api_key_or_a_bearer_token() {
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Bearer abc"));
        assert_eq!(presented_key(&headers), Some("abc"));
        headers.insert("x-api-key", HeaderValue::from_static(" xyz "));
        assert_eq!(presented_key(&headers), Some("xyz"));
        let mut basic = HeaderMap::new();
        basic.insert("authorization", HeaderValue::from_static("Basic abc"));
        assert_eq!(presented_key(&basic), None);
    }
}
