//! The ops listener of a process without a REST listener (`--role
//! relay,projector`, `--role mcp`, …): `/healthz`, `/readyz` and `/metrics`
//! on `BASEL_OPS_LISTEN` (default `127.0.0.1:8082`), the same handlers and
//! answers as on the REST listener, behind the same edge (access line,
//! guard, connection limits).

use std::sync::Arc;

use axum::extract::MatchedPath;
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::node::settings::{Role, ServeSettings};
use rest::ops::{self, metrics};
use web::error::ApiError;
use web::observe::Observe;
use web::readiness::Policy;
use web::{AppState, Shared};

/// What `/readyz` checks on a listener of a process run with `settings`:
/// reads when it serves them (`serves_reads`: the REST listener, or an MCP
/// server in the process), the projector and the relay when it runs them.
pub fn readiness(settings: &ServeSettings, serves_reads: bool) -> Policy {
    Policy {
        serves_reads: serves_reads || settings.runs(Role::Mcp),
        projects: settings.runs(Role::Projector),
        relays: settings.runs(Role::Relay),
        max_lag: settings.readiness.ready_max_lag,
    }
}

/// The ops router over `state`.
pub fn router(state: AppState) -> Router {
    let state: Shared = Arc::new(state);
    let observe = || Observe::open(state.clone());
    Router::new()
        .route("/healthz", get(ops::healthz).route_layer(observe()))
        .route("/readyz", get(ops::readyz).route_layer(observe()))
        .route("/metrics", get(metrics::metrics).route_layer(observe()))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
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

async fn method_not_allowed(route: Option<MatchedPath>) -> Response {
    let mut response = ApiError::MethodNotAllowed.into_response();
    web::access::tag(&mut response, route);
    response
}
