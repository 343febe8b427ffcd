//! The HTTP guard in front of every route of every listener (run by
//! [`super::front::Front`]).
//!
//! Before a route runs: a URI over [`MAX_URI_BYTES`] is a 414, a head with
//! more than [`MAX_HEADERS`] headers or over [`MAX_HEADER_BYTES`] a 431, a
//! `Content-Length` over the listener's body limit a 413 (before a byte of
//! the body is read), and a body that does not arrive whole within the body
//! deadline a 408 (`Connection: close`); a request with two `Host` headers
//! is a 400 `duplicate_host` (RFC 9112). The body is read here, so the
//! route gets it in memory and no route waits on a slow client.
//!
//! After: every answer carries `X-Content-Type-Options: nosniff`; answers
//! under `/register` (which carry API keys) carry `Cache-Control: no-store`;
//! an error answer (4xx/5xx) whose body is not JSON or HTML (axum's own
//! rejections, rmcp's plain-text refusals) gets the JSON error shape
//! `{error, message, code}`, keeping the original text as the message.

use std::future::Future;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{
    CACHE_CONTROL, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, TRANSFER_ENCODING,
    X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The longest request URI (path and query) accepted.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most request headers accepted.
pub const MAX_HEADERS: usize = 100;
/// The most bytes of request headers (names and values) accepted.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;
/// The most bytes of a plain-text error kept as the JSON message.
const MAX_MESSAGE_BYTES: usize = 512;

/// A listener's request-body bounds.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit {
    /// The largest body accepted (413 beyond).
    pub max_bytes: usize,
    /// Time to receive the whole body (408 beyond).
    pub deadline: Duration,
    /// Routes that take files, each with its own larger limit (the front
    /// end that serves them says which: e.g. `console::UPLOADS`).
    pub uploads: &'static [Upload],
}

/// A route that takes a larger body than its listener's limit: a path that
/// starts with `prefix` and ends with `suffix`.
#[derive(Debug, Clone, Copy)]
pub struct Upload {
    /// The start of the path (`/steward/party/`).
    pub prefix: &'static str,
    /// The end of the path (`/check/preview`; empty: the prefix is the path).
    pub suffix: &'static str,
    /// The largest body accepted there.
    pub max_bytes: usize,
}

impl Upload {
    fn matches(&self, path: &str) -> bool {
        if self.suffix.is_empty() {
            path == self.prefix
        } else {
            path.len() >= self.prefix.len() + self.suffix.len()
                && path.starts_with(self.prefix)
                && path.ends_with(self.suffix)
        }
    }
}

impl BodyLimit {
    /// The limit for a request to `path`: the listener's, or the larger one
    /// of an upload route.
    fn for_path(self, path: &str) -> Self {
        match self.uploads.iter().find(|u| u.matches(path)) {
            Some(upload) => Self {
                max_bytes: self.max_bytes.max(upload.max_bytes),
                ..self
            },
            None => self,
        }
    }
}

/// Runs `inner` on `request` behind the guard (see the module
/// documentation): refusals before, headers and the JSON error shape after.
pub async fn around<F, Fut>(limit: BodyLimit, request: Request, inner: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let keys = request.uri().path() == "/register";
    let limit = limit.for_path(request.uri().path());
    // The body read and the JSON rewrite are boxed: they are the rare paths,
    // and a future holds room for every future it awaits, which is copied
    // each time the request's future moves (a GET never reads a body).
    let mut response = match admit(limit, request) {
        Admitted::Whole(request) => inner(request).await,
        Admitted::BodyToRead(request) => match Box::pin(read_body(limit, request)).await {
            Ok(request) => inner(request).await,
            Err(refusal) => refusal,
        },
        Admitted::Refused(refusal) => refusal,
    };
    if response.status().as_u16() >= 400 && !described(&response) {
        response = Box::pin(as_json(response)).await;
    }
    let headers = response.headers_mut();
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if keys {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// What the guard makes of a request's head.
enum Admitted {
    /// Nothing to read: no body.
    Whole(Request),
    /// A body of an allowed size still to be read.
    BodyToRead(Request),
    /// Refused on its head.
    Refused(Response),
}

/// The request, if its head is within the bounds, or the refusal.
fn admit(limit: BodyLimit, request: Request) -> Admitted {
    if request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len())
        > MAX_URI_BYTES
    {
        return Admitted::Refused(error(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            &format!("Request URIs are limited to {MAX_URI_BYTES} bytes."),
        ));
    }
    let headers = request.headers();
    let header_bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers.len() > MAX_HEADERS || header_bytes > MAX_HEADER_BYTES {
        return Admitted::Refused(error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "headers_too_large",
            &format!(
                "Requests are limited to {MAX_HEADERS} headers and {MAX_HEADER_BYTES} bytes of headers."
            ),
        ));
    }
    if headers.get_all(HOST).iter().nth(1).is_some() {
        // RFC 9112, section 3.2: a request with more than one Host is a 400.
        return Admitted::Refused(error(
            StatusCode::BAD_REQUEST,
            "duplicate_host",
            "A request names its Host once.",
        ));
    }
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit.max_bytes as u64) {
        return Admitted::Refused(too_large(limit));
    }
    let has_body = declared.is_some_and(|n| n > 0) || headers.contains_key(TRANSFER_ENCODING);
    if has_body {
        Admitted::BodyToRead(request)
    } else {
        Admitted::Whole(request)
    }
}

/// The request with its body in memory (within the deadline), or the refusal.
async fn read_body(limit: BodyLimit, request: Request) -> Result<Request, Response> {
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limit.max_bytes);
    match tokio::time::timeout(limit.deadline, read).await {
        Err(_) => {
            let mut response = error(
                StatusCode::REQUEST_TIMEOUT,
                "body_timeout",
                &format!(
                    "The request body did not arrive within {} ms.",
                    limit.deadline.as_millis()
                ),
            );
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
        Ok(Ok(bytes)) => Ok(Request::from_parts(parts, Body::from(bytes))),
        Ok(Err(cause)) => {
            let too_big = std::error::Error::source(&cause)
                .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            if too_big {
                Err(too_large(limit))
            } else {
                Err(error(
                    StatusCode::BAD_REQUEST,
                    "body_unreadable",
                    "The request body could not be read (the client broke off or the framing is invalid).",
                ))
            }
        }
    }
}

fn too_large(limit: BodyLimit) -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        &format!("Request bodies are limited to {} bytes.", limit.max_bytes),
    )
}

/// Whether an error answer already has a body a client can read as such
/// (JSON, JSON problem details, HTML for the registration page, or an
/// event stream).
fn described(response: &Response) -> bool {
    let Some(kind) = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let kind = kind.to_ascii_lowercase();
    kind.contains("json") || kind.starts_with("text/html") || kind.starts_with("text/event-stream")
}

/// The answer with the JSON error shape, its text (if any) as the message.
async fn as_json(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let text = match axum::body::to_bytes(body, 64 * 1024).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).trim().to_owned(),
        Err(_) => String::new(),
    };
    let message = if text.is_empty() {
        parts
            .status
            .canonical_reason()
            .unwrap_or("error")
            .to_owned()
    } else {
        cut(&text, MAX_MESSAGE_BYTES).to_owned()
    };
    let code = code_of(parts.status);
    let fresh = error(parts.status, code, &message);
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(parts, fresh.into_body())
}

fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A stable code for an error answer that came without one.
fn code_of(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "bad_request",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        406 => "not_acceptable",
        408 => "request_timeout",
        409 => "conflict",
        413 => "payload_too_large",
        414 => "uri_too_long",
        415 => "unsupported_media_type",
        422 => "unprocessable",
        429 => "rate_limited",
        431 => "headers_too_large",
        500..=599 => "unavailable",
        _ => "error",
    }
}

/// A JSON error answer: `{error, message, code}`.
pub fn error(status: StatusCode, code: &str, message: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("error").to_lowercase();
    let body = serde_json::json!({ "error": title, "message": message, "code": code });
    (status, Json(body)).into_response()
}

/// A bound on how often a line is logged: one a second, then the count of
/// those held back in the next line's `suppressed` field.
#[derive(Debug)]
pub struct LogBudget {
    every: Duration,
    last: Option<Instant>,
    held: u64,
}

impl LogBudget {
    /// At most one line a second.
    pub fn per_second() -> Self {
        Self {
            every: Duration::from_secs(1),
            last: None,
            held: 0,
        }
    }

    /// Whether to log now; otherwise the line is counted as held back.
    pub fn allow(&mut self) -> bool {
        self.take().is_some()
    }

    /// `Some(lines held back since the last one logged)` when a line may be
    /// logged now.
    pub fn take(&mut self) -> Option<u64> {
        let now = Instant::now();
        if self
            .last
            .is_some_and(|last| now.duration_since(last) < self.every)
        {
            self.held += 1;
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_budget_lets_one_line_a_second_through_and_counts_the_rest() {
        let mut budget = LogBudget::per_second();
        assert_eq!(budget.take(), Some(0));
        assert_eq!(budget.take(), None);
        assert_eq!(budget.take(), None);
        budget.last = budget.last.map(|t| t - Duration::from_secs(2));
        assert_eq!(budget.take(), Some(2));
    }

    #[test]
    fn every_error_status_has_a_code() {
        for status in [400, 401, 403, 404, 405, 408, 413, 414, 415, 429, 431, 503] {
            let status = StatusCode::from_u16(status).unwrap();
            assert_ne!(code_of(status), "error", "{status}");
        }
    }
}
