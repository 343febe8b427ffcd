//! `GET /metrics`: Prometheus text. Request counts and latency histograms by
//! route (the route's template, never the raw path), method and status;
//! projection positions, heads and lag; the log head; and, where a relay
//! publishes the log (server mode), the relay backlog (events not yet
//! published).
//!
//! The request series live in the server's `RequestMetrics`
//! (`rest::http::counters`, in its `AppState`): every request is recorded by `rest::http::observe`, the route layer
//! around every route (which also enforces the request deadline), or by the
//! fallbacks.

use std::fmt::Write;

use axum::extract::{MatchedPath, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::rest::http::state::{AppState, Shared};

/// Records an answer given by a fallback (no route, or not this method).
pub fn observe_fallback(
    state: &AppState,
    route: Option<&MatchedPath>,
    method: &Method,
    status: StatusCode,
) {
    let route = route.map_or("unmatched", MatchedPath::as_str);
    state.requests.record(
        route,
        crate::rest::http::observe::method_label(method),
        status.as_u16(),
        0.0,
    );
}

/// `GET /metrics`.
#[utoipa::path(get, path = "/metrics", tag = "ops",
    responses(
        (status = 200, description = "Prometheus text: requests and latencies by route and status, projection positions and lag, relay backlog", content_type = "text/plain"),
        (status = 401, description = "`BASEL_METRICS_TOKEN` is set and the request does not present it as `Authorization: Bearer TOKEN` (`metrics_token_required`)"),
        (status = 404, description = "`BASEL_METRICS` is `ops` (served on the ops listener only) or `off` (`metrics_not_served`)")))]
pub async fn metrics(State(state): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(refusal) = state.metrics.admit(&headers) {
        return *refusal;
    }
    let mut out = String::new();
    state.requests.render(&mut out);
    render_log(&state, &mut out).await;
    crate::rest::v1::coverage::render(&state, &mut out).await;
    let mut response = (StatusCode::OK, out).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

async fn render_log(state: &AppState, out: &mut String) {
    let up = match state.wiring.projector.lag().await {
        Ok(lags) => {
            out.push_str("# HELP basel_projection_position Last log position a projection applied.\n# TYPE basel_projection_position gauge\n");
            for l in &lags {
                let _ = writeln!(
                    out,
                    "basel_projection_position{{projection=\"{}\"}} {}",
                    l.name, l.position
                );
            }
            out.push_str("# HELP basel_projection_head Last log position of the events a projection reads.\n# TYPE basel_projection_head gauge\n");
            for l in &lags {
                let _ = writeln!(
                    out,
                    "basel_projection_head{{projection=\"{}\"}} {}",
                    l.name, l.head
                );
            }
            out.push_str("# HELP basel_projection_lag Log positions a projection is behind its head.\n# TYPE basel_projection_lag gauge\n");
            for l in &lags {
                let _ = writeln!(
                    out,
                    "basel_projection_lag{{projection=\"{}\"}} {}",
                    l.name, l.lag
                );
            }
            out.push_str("# HELP basel_projection_halted 1 when a projection halted on an event it cannot decode.\n# TYPE basel_projection_halted gauge\n");
            for l in &lags {
                let _ = writeln!(
                    out,
                    "basel_projection_halted{{projection=\"{}\"}} {}",
                    l.name,
                    u8::from(l.halted.is_some())
                );
            }
            render_gaps_filled(state, out);
            true
        }
        Err(error) => {
            tracing::warn!(error = %error, "metrics: projection checkpoints unreadable");
            false
        }
    };
    if let Ok(head) = projections::log::head(state.read_db()).await {
        let _ = writeln!(out, "# HELP basel_log_head Position of the last committed event.\n# TYPE basel_log_head gauge\nbasel_log_head {head}");
    }
    render_log_connection(state, out);
    if let Some(backlog) = relay_backlog(state).await {
        let _ = writeln!(out, "# HELP basel_relay_backlog Committed events the relay has not published yet.\n# TYPE basel_relay_backlog gauge\nbasel_relay_backlog {backlog}");
    }
    crate::rest::pages::mail_delivery::render_metrics(state.read_db(), out).await;
    let _ = writeln!(out, "# HELP basel_read_store_up 1 when the read store answered this scrape.\n# TYPE basel_read_store_up gauge\nbasel_read_store_up {}", u8::from(up));
}

/// In server mode: whether this process's relay is the active one, and
/// whether its NATS connection is up.
fn render_log_connection(state: &AppState, out: &mut String) {
    let Some(log) = &state.wiring.log else { return };
    let active = u8::from(log.relay.is_active());
    let connected = u8::from(matches!(
        log.nats.connection_state(),
        async_nats::connection::State::Connected
    ));
    let _ = writeln!(out, "# HELP basel_relay_active 1 when this process's relay holds the relay lock and publishes; 0 when it is a standby or runs no relay.\n# TYPE basel_relay_active gauge\nbasel_relay_active {active}");
    let _ = writeln!(out, "# HELP basel_nats_connected 1 when this process's NATS connection is up.\n# TYPE basel_nats_connected gauge\nbasel_nats_connected {connected}");
}

fn render_gaps_filled(state: &AppState, out: &mut String) {
    out.push_str("# HELP basel_projection_gaps_filled_total Events a projection applied from the event store because the stream had not delivered them.\n# TYPE basel_projection_gaps_filled_total counter\n");
    for (name, filled) in state.wiring.projector.gaps_filled() {
        let _ = writeln!(
            out,
            "basel_projection_gaps_filled_total{{projection=\"{name}\"}} {filled}"
        );
    }
}

/// Events with `published_at IS NULL`, where a relay publishes the log
/// (server mode with JetStream); `None` elsewhere or when the store fails.
async fn relay_backlog(state: &AppState) -> Option<i64> {
    if !state.wiring.relayed {
        return None;
    }
    projections::rest_queries::unpublished_events(state.read_db())
        .await
        .map_err(|error| tracing::warn!(error = %error, "metrics: relay backlog unreadable"))
        .ok()
}
