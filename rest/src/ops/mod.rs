//! Liveness and readiness.

pub mod metrics;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use web::state::Shared;

/// `GET /healthz`: the process is up.
#[utoipa::path(get, path = "/healthz", tag = "ops",
    responses((status = 200, description = "`{\"status\": \"ok\"}`: the process is up")))]
pub async fn healthz() -> impl IntoResponse {
    Json(json!({ "status": "ok" }))
}

/// `GET /api/v1/health`: the same as `/healthz`, kept for client compatibility.
#[utoipa::path(get, path = "/api/v1/health", tag = "ops",
    responses((status = 200, description = "`{\"status\": \"ok\"}`: the process is up")))]
pub async fn health() -> impl IntoResponse {
    healthz().await
}

/// How far (in log positions) a projection may be behind the last event it
/// reads and still count as caught up for a projector: about one batch.
const READY_LAG: i64 = 500;

/// `GET /readyz`: whether this process can do what its roles need
/// ([`web::readiness`]). Every role: the log's tail verified at
/// start (else `details.audit_log`), the store answers. A process serving
/// reads (REST, MCP): every projection's oldest unapplied event waited less
/// than `BASEL_READY_MAX_LAG`. A projector: NATS connected, no projection
/// halted, more than one batch behind, or behind and not moving (its
/// checkpoint unchanged for 2 s, or at the first look after a start). A
/// relay: NATS connected (`relay.active` tells the active relay from a
/// standby). A 503 names each failed check in `details.reasons`, prefixed
/// by the role (`reads:`, `projector:`, `relay:`).
#[utoipa::path(get, path = "/readyz", tag = "ops",
    responses(
        (status = 200, description = "Ready for this process's roles: `{status, roles, log_head, projections, relay?, nats?}`"),
        (status = 503, description = "Not ready: `{error, message, code: not_ready, details: {reasons, …}}`")))]
pub async fn readyz(State(state): State<Shared>) -> impl IntoResponse {
    let policy = state.readiness.policy;
    if let Some(problem) = state.audit.as_ref().and_then(|a| a.problem()) {
        return not_ready(
            json!({ "audit_log": problem, "reasons": [format!("audit log: {problem}")] }),
        );
    }
    let lags = match state.wiring.projector.lag().await {
        Ok(lags) => lags,
        Err(projections::ProjectionError::Corrupt(reason)) => {
            tracing::error!(reason = %reason, "readiness: a checkpoint names no known projection");
            return not_ready(
                json!({ "projections": "unknown checkpoint", "reasons": ["store: a checkpoint names no known projection"] }),
            );
        }
        Err(error) => {
            tracing::warn!(error = %error, "readiness: store unreachable");
            return not_ready(json!({ "store": "unreachable", "reasons": ["store: unreachable"] }));
        }
    };
    let mut reasons = Vec::new();
    let nats = state.wiring.log.as_ref().map(|log| {
        matches!(
            log.nats.connection_state(),
            async_nats::connection::State::Connected
        )
    });
    let projections = looked(&state, &lags, &mut reasons);
    if nats == Some(false) {
        for (runs, role) in [(policy.projects, "projector"), (policy.relays, "relay")] {
            if runs {
                reasons.push(format!("{role}: NATS is not connected"));
            }
        }
    }
    let log_head = lags.iter().map(|l| l.head).max().unwrap_or(0);
    let mut body = json!({
        "status": if reasons.is_empty() { "ready" } else { "not_ready" },
        "roles": roles(policy),
        "log_head": log_head,
        "projections": projections,
    });
    if let Some(connected) = nats {
        body["nats"] = json!(if connected {
            "connected"
        } else {
            "disconnected"
        });
    }
    if let (true, Some(log)) = (policy.relays, &state.wiring.log) {
        body["relay"] = json!({ "active": log.relay.is_active() });
    }
    if reasons.is_empty() {
        return (StatusCode::OK, Json(body));
    }
    body["reasons"] = json!(reasons);
    not_ready(body)
}

/// Each projection as `/readyz` shows it; what keeps this process's
/// roles from being ready goes into `reasons`.
fn looked(
    state: &web::state::AppState,
    lags: &[projections::runner::ProjectionLag],
    reasons: &mut Vec<String>,
) -> Vec<serde_json::Value> {
    let policy = state.readiness.policy;
    let mut projections = Vec::with_capacity(lags.len());
    // Every projection is looked at (no short cut), so each one's progress
    // is recorded.
    for l in lags {
        let look = state.readiness.look(&l.name, l.position, l.head);
        projections.push(json!({ "name": l.name, "position": l.position, "head": l.head, "lag": l.lag, "lag_seconds": look.behind_for.as_secs(), "halted": l.halted.is_some() }));
        if policy.serves_reads && look.behind_for > policy.max_lag {
            reasons.push(format!(
                "reads: projection {} has not applied an event for {} s (BASEL_READY_MAX_LAG {} s)",
                l.name,
                look.behind_for.as_secs(),
                policy.max_lag.as_secs()
            ));
        }
        if policy.projects {
            if let Some(why) = &l.halted {
                reasons.push(format!("projector: projection {} halted: {why}", l.name));
            } else if l.lag > READY_LAG {
                reasons.push(format!(
                    "projector: projection {} is {} events behind",
                    l.name, l.lag
                ));
            } else if !look.moving {
                reasons.push(format!(
                    "projector: projection {} is behind and not moving",
                    l.name
                ));
            }
        }
    }
    projections
}

/// The roles `/readyz` answers for.
fn roles(policy: web::readiness::Policy) -> Vec<&'static str> {
    [
        (policy.serves_reads, "reads"),
        (policy.projects, "projector"),
        (policy.relays, "relay"),
    ]
    .into_iter()
    .filter_map(|(runs, name)| runs.then_some(name))
    .collect()
}

fn not_ready(details: serde_json::Value) -> (StatusCode, Json<serde_json::Value>) {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(
            json!({ "error": "not_ready", "code": "not_ready", "message": "the service is not ready to serve", "details": details }),
        ),
    )
}
