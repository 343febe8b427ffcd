//! The ops listener of a process without a REST listener (`--role
//! relay,projector`, `--role mcp`, …): `/healthz`, `/readyz` and `/metrics`
//! on `BASEL_OPS_LISTEN` (default `127.0.0.1:8082`), the same handlers and
//! answers as on the REST listener, with an access line per request.

use std::sync::Arc;

use axum::http::Method;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use axum::Router;

use crate::rest::error::ApiError;
use crate::rest::{metrics, ops, AppState, Shared};
use crate::telemetry::access::with_access_log;

/// The ops router over `state`.
pub fn router(state: AppState) -> Router {
    let state: Shared = Arc::new(state);
    let observe = || from_fn_with_state(state.clone(), metrics::observe);
    let router = Router::new()
        .route("/healthz", get(ops::healthz).route_layer(observe()))
        .route("/readyz", get(ops::readyz).route_layer(observe()))
        .route("/metrics", get(metrics::metrics).route_layer(observe()))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    with_access_log(router, "ops")
}

/// The MCP listener's own `/healthz`: answered before the MCP server's
/// guard, so it needs no key (load balancers probe without one).
pub fn with_mcp_health(router: Router) -> Router {
    router.route("/healthz", get(ops::healthz))
}

async fn not_found(_method: Method) -> ApiError {
    ApiError::NotFound {
        code: "not_found",
        message: "no such route; this listener serves /healthz, /readyz and /metrics".into(),
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}
