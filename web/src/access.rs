//! One access line per request, on every listener (REST, MCP, ops).
//!
//! [`around`] runs in the connection edge's front service
//! (`crate::edge::front`), around the guard and the router, so it sees every
//! request, refused ones included. The line (target `basel::access`, level
//! info) has `listener`, `method`, `route`, `status`, `latency_ms`, `bytes`
//! and `request_id`. `route` is the route's *template*
//! (`/api/v1/ca/{country_code}`, never the raw path with what a client typed
//! in it), read from the answer's [`RouteTag`], which whoever matched the
//! route puts there (the REST route layer, [`tag_routes`] for other routers,
//! the 405 fallbacks); `unmatched` when no route matched. Query strings,
//! header values and bodies are never logged, so no key, token or address
//! can be.
//!
//! The request's id (always issued here) is set on its `x-request-id`
//! header (where handlers read it: `request_id::of`) and on the answer's,
//! with the client's own id beside it as `x-client-request-id`; when access lines are
//! written the request runs inside a `request` span carrying `request.id`.
//!
//! That span continues the client's trace: a well-formed W3C `traceparent`
//! header ([`incoming`]) becomes its parent, and the answer carries the
//! span's own `traceparent`, when spans are exported (`BASEL_OTLP_ENDPOINT`,
//! [`super::otlp`]). A `traceparent` that is not well formed is ignored: the
//! trace starts here, the request is served as any other.
//!
//! `bytes` is the body's length; for a streamed body (an SSE stream) it is
//! counted as the body is sent, and the line is written when the stream ends
//! or the client leaves.

use std::future::Future;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{from_fn, Next};
use axum::response::Response;
use axum::Router;
use domain::trace::TraceParent;
use futures::StreamExt;
use http_body::Body as _;
use opentelemetry::trace::TraceContextExt as _;
use tracing::{Instrument, Span};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::request_id;

/// The W3C Trace Context header, read from requests and set on answers.
pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");

/// The client's trace context: its `traceparent` header, when there is
/// exactly one and it is well formed (anything else is ignored, never an
/// error).
pub fn incoming(headers: &HeaderMap) -> Option<TraceParent> {
    let mut values = headers.get_all(TRACEPARENT).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return None;
    };
    TraceParent::parse(value.to_str().ok()?)
}

/// The target of access lines (filter them with `BASEL_LOG=…,basel::access=off`).
pub const TARGET: &str = "basel::access";

/// The template of the route that answered, carried in the answer's
/// extensions for the access line.
#[derive(Debug, Clone)]
pub struct RouteTag(pub MatchedPath);

/// Puts `route` (when one matched) on `response` as its [`RouteTag`], when
/// access lines are written (otherwise nobody reads it, and an answer's
/// first extension costs three allocations).
pub fn tag(response: &mut Response, route: Option<MatchedPath>) {
    if let Some(route) = route {
        if tracing::enabled!(target: TARGET, tracing::Level::INFO) {
            response.extensions_mut().insert(RouteTag(route));
        }
    }
}

/// `router` with each matched route's template on its answers: for routers
/// whose routes have no layer of basel's own that does it (MCP).
pub fn tag_routes<S>(router: Router<S>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router.route_layer(from_fn(tag_matched))
}

async fn tag_matched(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(request).await;
    tag(&mut response, route);
    response
}

/// Runs `inner` on `request` with a request id (see the module
/// documentation) and writes the access line, naming `listener` (`rest`,
/// `mcp` or `ops`).
pub async fn around<F, Fut>(listener: &'static str, mut request: Request, inner: F) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let id = request_id::fresh();
    let client = request_id::client(request.headers());
    let headers = request.headers_mut();
    headers.insert(request_id::HEADER, id.clone());
    match &client {
        Some(client) => headers.insert(request_id::CLIENT_HEADER, client.clone()),
        None => headers.remove(request_id::CLIENT_HEADER),
    };
    if !tracing::enabled!(target: TARGET, tracing::Level::INFO) {
        // No access line is written (e.g. `BASEL_LOG=warn`): the id still
        // goes to the handler and the answer, nothing else is prepared.
        let mut response = inner(request).await;
        response.headers_mut().insert(request_id::HEADER, id);
        if let Some(client) = client {
            response
                .headers_mut()
                .insert(request_id::CLIENT_HEADER, client);
        }
        return response;
    }
    // Boxed: this future holds room for what it awaits, copied whenever the
    // request's future moves, and the logged path is the larger one.
    Box::pin(logged(listener, request, inner, (id, client))).await
}

/// [`around`] with its access line.
async fn logged<F, Fut>(
    listener: &'static str,
    request: Request,
    inner: F,
    (id, client): (axum::http::HeaderValue, Option<axum::http::HeaderValue>),
) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: Future<Output = Response>,
{
    let started = Instant::now();
    let text = id.to_str().unwrap_or_default().to_owned();
    // Without an OTLP exporter the span only puts the request id on the
    // lines logged while it runs (the access line names the listener
    // itself): a span with one field costs each request less to format
    // (lookups: 0.848 of the floor with three fields, 0.851–0.852 with one;
    // BENCHMARKS.md, "REST lookups").
    let span = if telemetry::otlp::exporting() {
        tracing::info_span!(
            "request",
            otel.kind = "server",
            request.id = %text,
            listener = %listener
        )
    } else {
        tracing::info_span!("request", request.id = %text)
    };
    if let Some(parent) = incoming(request.headers()) {
        telemetry::trace::follow(&span, &parent);
    }
    let line = Line {
        listener,
        method: request.method().clone(),
        route: String::new(),
        status: StatusCode::OK,
        started,
        span: span.clone(),
        request_id: text,
        bytes: 0,
    };
    let mut response = inner(request).instrument(span).await;
    response.headers_mut().insert(request_id::HEADER, id);
    if let Some(client) = client {
        response
            .headers_mut()
            .insert(request_id::CLIENT_HEADER, client);
    }
    let route = response
        .extensions()
        .get::<RouteTag>()
        .map_or_else(|| "unmatched".to_owned(), |tag| tag.0.as_str().to_owned());
    let line = Line {
        status: response.status(),
        route,
        ..line
    };
    outgoing(&line, response.headers_mut());
    match response.body().size_hint().exact() {
        Some(bytes) => {
            Line { bytes, ..line }.write();
            response
        }
        None => response.map(|body| counted(body, line)),
    }
}

/// Names the request's span after the route (`POST /api/v1/ca/{country_code}`)
/// with its HTTP attributes (and status error on a 5xx), and sets the
/// answer's `traceparent` to it, when spans are exported (otherwise nothing
/// is done).
fn outgoing(line: &Line, headers: &mut HeaderMap) {
    let Some(context) = telemetry::trace::of(&line.span) else {
        return;
    };
    if let Ok(value) = HeaderValue::from_str(context.as_str()) {
        headers.insert(TRACEPARENT, value);
    }
    let method = method_label(&line.method);
    line.span
        .set_attribute("http.request.method", method.to_string());
    line.span.set_attribute("http.route", line.route.clone());
    line.span
        .set_attribute("http.response.status_code", i64::from(line.status.as_u16()));
    if line.status.is_server_error() {
        line.span
            .set_status(opentelemetry::trace::Status::error("server error"));
    }
    line.span
        .context()
        .span()
        .update_name(format!("{method} {}", line.route));
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

/// The most characters of a request method an access line keeps.
const MAX_METHOD_CHARS: usize = 16;

/// A method as logged: escaped and cut to [`MAX_METHOD_CHARS`] characters
/// (with `…`) by `domain::echo`, so a client cannot write kilobytes into
/// the log through it (hyper lets only token characters through; the
/// escaping holds whatever a future parser lets in).
fn method_label(method: &Method) -> std::borrow::Cow<'_, str> {
    domain::echo::loggable(method.as_str(), MAX_METHOD_CHARS)
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
        let method = method_label(&self.method);
        self.span.in_scope(|| {
            tracing::info!(
                target: TARGET,
                listener = %self.listener,
                method = %method,
                route = %self.route,
                status = self.status.as_u16(),
                latency_ms,
                bytes = self.bytes,
                request_id = %domain::echo::loggable(&self.request_id, 64),
                "{} {} {}",
                method,
                self.route,
                self.status.as_u16(),
            );
        });
    }
}

#[cfg(test)]
mod method_tests {
    use super::*;

    #[test]
    fn a_malformed_or_repeated_traceparent_is_ignored() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let mut headers = HeaderMap::new();
        assert_eq!(incoming(&headers), None);
        headers.insert(TRACEPARENT, HeaderValue::from_static(good));
        assert_eq!(
            incoming(&headers).map(|t| t.to_string()).as_deref(),
            Some(good)
        );
        for bad in [
            "",
            "nonsense",
            "00-zz-00f067aa0ba902b7-01",
            &good.replace("00-4", "ff-4"),
        ] {
            headers.insert(
                TRACEPARENT,
                HeaderValue::from_str(bad).expect("a header value"),
            );
            assert_eq!(incoming(&headers), None, "{bad}");
        }
        headers.insert(TRACEPARENT, HeaderValue::from_static(good));
        headers.append(TRACEPARENT, HeaderValue::from_static(good));
        assert_eq!(incoming(&headers), None);
        headers.insert(
            TRACEPARENT,
            HeaderValue::from_bytes(b"00-\xff\xfe").expect("opaque bytes"),
        );
        assert_eq!(incoming(&headers), None);
    }

    #[test]
    fn a_long_method_is_cut_in_the_access_line() {
        let long = Method::from_bytes("X".repeat(5_000).as_bytes()).expect("a token");
        assert_eq!(method_label(&long).chars().count(), MAX_METHOD_CHARS + 1);
        assert_eq!(method_label(&Method::GET), "GET");
    }
}
