//! The ops listener of a process without a REST listener (`--role
//! relay,projector`, `--role mcp`, …): `/healthz`, `/readyz` and `/metrics`
//! on `BASEL_OPS_LISTEN` (default `127.0.0.1:8082`), the same handlers and
//! answers as on the REST listener, behind the same edge (access line,
//! guard, connection limits).

use std::sync::Arc;

use axum::Router;

use crate::node::settings::{Role, ServeSettings};
use web::readiness::Policy;
use web::AppState;

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
    rest::ops_router(Arc::new(state))
}

/// The MCP listener's own `/healthz`: answered before the MCP server's
/// guard, so it needs no key (load balancers probe without one).
pub fn with_mcp_health(router: Router) -> Router {
    router.merge(rest::routes::health())
}
