//! `GET /metrics`: Prometheus text (version 0.0.4), written by
//! `prometheus-client`. Request counts and latency histograms by route (the
//! route's template, never the raw path), method and status; projection
//! positions, heads and lag; the log head; and, where a relay publishes the
//! log (server mode), the relay backlog (events not yet published).
//!
//! The request series live in the server's `RequestMetrics`
//! (`rest::http::counters`, in its `AppState`): every request is recorded by `rest::http::observe`, the route layer
//! around every route (which also enforces the request deadline), or by the
//! fallbacks. Everything else is read when the scrape comes, into a
//! registry made for that scrape.

use axum::extract::{MatchedPath, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use web::state::{AppState, Shared};

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
        web::observe::method_label(method),
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
    let mut registry = Registry::default();
    state.requests.register(&mut registry);
    register_log(&state, &mut registry).await;
    crate::v1::coverage::register(&state, &mut registry).await;
    let mut out = String::new();
    if let Err(error) = prometheus_text::encode(&mut out, &registry) {
        tracing::warn!(error = %error, "metrics: the scrape could not be written");
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let mut response = (StatusCode::OK, out).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(prometheus_text::CONTENT_TYPE),
    );
    response
}

/// A gauge holding `value`.
fn gauge(value: i64) -> Gauge {
    let gauge = Gauge::default();
    gauge.set(value);
    gauge
}

/// Series labelled by projection name.
type ByProjection<M> = Family<[(&'static str, String); 1], M>;

async fn register_log(state: &AppState, registry: &mut Registry) {
    let up = match state.wiring.projector.lag().await {
        Ok(lags) => {
            let position = ByProjection::<Gauge>::default();
            let head = ByProjection::<Gauge>::default();
            let lag = ByProjection::<Gauge>::default();
            let halted = ByProjection::<Gauge>::default();
            for l in &lags {
                let labels = [("projection", l.name.clone())];
                position.get_or_create(&labels).set(l.position);
                head.get_or_create(&labels).set(l.head);
                lag.get_or_create(&labels).set(l.lag);
                halted
                    .get_or_create(&labels)
                    .set(i64::from(l.halted.is_some()));
            }
            registry.register(
                "basel_projection_position",
                "Last log position a projection applied",
                position,
            );
            registry.register(
                "basel_projection_head",
                "Last log position of the events a projection reads",
                head,
            );
            registry.register(
                "basel_projection_lag",
                "Log positions a projection is behind its head",
                lag,
            );
            registry.register(
                "basel_projection_halted",
                "1 when a projection halted on an event it cannot decode",
                halted,
            );
            register_gaps_filled(state, registry);
            true
        }
        Err(error) => {
            tracing::warn!(error = %error, "metrics: projection checkpoints unreadable");
            false
        }
    };
    if let Ok(head) = projections::log::head(state.read_db()).await {
        registry.register(
            "basel_log_head",
            "Position of the last committed event",
            gauge(head),
        );
    }
    register_log_connection(state, registry);
    if let Some(backlog) = relay_backlog(state).await {
        registry.register(
            "basel_relay_backlog",
            "Committed events the relay has not published yet",
            gauge(backlog),
        );
    }
    crate::pages::mail_delivery::register_metrics(state.read_db(), registry).await;
    registry.register(
        "basel_read_store_up",
        "1 when the read store answered this scrape",
        gauge(i64::from(up)),
    );
}

/// In server mode: whether this process's relay is the active one, and
/// whether its NATS connection is up.
fn register_log_connection(state: &AppState, registry: &mut Registry) {
    let Some(log) = &state.wiring.log else { return };
    let connected = matches!(
        log.nats.connection_state(),
        async_nats::connection::State::Connected
    );
    registry.register(
        "basel_relay_active",
        "1 when this process's relay holds the relay lock and publishes; 0 when it is a standby or runs no relay",
        gauge(i64::from(log.relay.is_active())),
    );
    registry.register(
        "basel_nats_connected",
        "1 when this process's NATS connection is up",
        gauge(i64::from(connected)),
    );
}

fn register_gaps_filled(state: &AppState, registry: &mut Registry) {
    let filled = ByProjection::<Counter>::default();
    for (name, count) in state.wiring.projector.gaps_filled() {
        filled
            .get_or_create(&[("projection", name.to_owned())])
            .inc_by(count);
    }
    registry.register(
        "basel_projection_gaps_filled",
        "Events a projection applied from the event store because the stream had not delivered them",
        filled,
    );
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
