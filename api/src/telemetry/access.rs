//! One access line per request, on every listener (REST, MCP, ops).
//!
//! [`with_access_log`] wraps every route and the fallback of a router (a
//! `Router::layer`, which runs after routing, so the route's *template* is
//! known: `/api/v1/ca/{country_code}`, never the raw path with what a client
//! typed in it). The line (target `basel::access`, level info) has
//! `listener`, `method`, `route` (`unmatched` when no route matched),
//! `status`, `latency_ms`, `bytes` and `request_id`. Query strings, header
//! values and bodies are never logged, so no key, token or address can be.
//!
//! The request runs inside a `request` span carrying `request.id`, with that
//! id current (`request_id::current`) and set on the request's
//! `x-request-id` header; the answer carries it in `x-request-id` too.
//!
//! `bytes` is the body's length; for a streamed body (an SSE stream) it is
//! counted as the body is sent, and the line is written when the stream ends
//! or the client leaves.

use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::{from_fn_with_state, Next};
use axum::response::Response;
use axum::Router;
use futures::StreamExt;
use http_body::Body as _;
use tracing::{Instrument, Span};

use crate::telemetry::request_id;

/// The target of access lines (filter them with `BASEL_LOG=…,basel::access=off`).
pub const TARGET: &str = "basel::access";

/// `router` with one access line per request, naming `listener`
/// (`rest`, `mcp` or `ops`).
pub fn with_access_log<S>(router: Router<S>, listener: &'static str) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router.layer(from_fn_with_state(listener, access))
}

/// The middleware (see the module documentation).
pub async fn access(
    State(listener): State<&'static str>,
    mut request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let id = request_id::from_headers(request.headers());
    let header = HeaderValue::from_str(&id).ok();
    if let Some(value) = &header {
        request
            .headers_mut()
            .insert(request_id::HEADER, value.clone());
    }
    if !tracing::enabled!(target: TARGET, tracing::Level::INFO) {
        // No access line is written (e.g. `BASEL_LOG=warn`): the id still
        // goes to the handler and the answer, nothing else is prepared.
        let mut response = request_id::scope(id, next.run(request)).await;
        if let Some(value) = header {
            response.headers_mut().insert(request_id::HEADER, value);
        }
        return response;
    }
    let line = Line {
        listener,
        method: request.method().clone(),
        route: request
            .extensions()
            .get::<MatchedPath>()
            .map_or_else(|| "unmatched".to_owned(), |path| path.as_str().to_owned()),
        status: StatusCode::OK,
        started,
        request_id: id.clone(),
        span: tracing::info_span!("request", request.id = %id, listener = %listener),
        bytes: 0,
    };
    let span = line.span.clone();
    let mut response = request_id::scope(id, next.run(request))
        .instrument(span)
        .await;
    if let Some(value) = header {
        response.headers_mut().insert(request_id::HEADER, value);
    }
    let line = Line {
        status: response.status(),
        ..line
    };
    match response.body().size_hint().exact() {
        Some(bytes) => {
            Line { bytes, ..line }.write();
            response
        }
        None => response.map(|body| counted(body, line)),
    }
}

/// The body, counting what is sent; the line is written when it is dropped
/// (ended, or abandoned by the client).
fn counted(body: Body, line: Line) -> Body {
    let mut pending = Pending(Some(line));
    Body::from_stream(body.into_data_stream().map(move |chunk| {
        if let (Ok(bytes), Some(line)) = (&chunk, pending.0.as_mut()) {
            line.bytes += bytes.len() as u64;
        }
        chunk
    }))
}

struct Pending(Option<Line>);

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(line) = self.0.take() {
            line.write();
        }
    }
}

/// One access line's values.
struct Line {
    listener: &'static str,
    method: Method,
    route: String,
    status: StatusCode,
    started: Instant,
    request_id: String,
    span: Span,
    bytes: u64,
}

impl Line {
    fn write(self) {
        let latency_ms = self.started.elapsed().as_secs_f64() * 1000.0;
        let latency_ms = (latency_ms * 1000.0).round() / 1000.0;
        self.span.in_scope(|| {
            tracing::info!(
                target: TARGET,
                listener = %self.listener,
                method = %self.method,
                route = %self.route,
                status = self.status.as_u16(),
                latency_ms,
                bytes = self.bytes,
                request_id = %self.request_id,
                "{} {} {}",
                self.method,
                self.route,
                self.status.as_u16(),
            );
        });
    }
}
