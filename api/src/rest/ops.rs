//! Liveness and readiness.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use crate::rest::state::Shared;

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
/// reads and still count as caught up: about one batch.
const READY_LAG: i64 = 500;

/// `GET /readyz`: the log's tail verified at start (else `details.audit_log`
/// says what is wrong), the store answers, and no projection is halted, behind
/// the events it reads by more than one batch, or behind and not moving
/// (`readiness`: its checkpoint unchanged for 2 s, or at the first look
/// after a start). Each projection is measured
/// against the last event of the aggregates it reads (in server mode a
/// consumer never sees the others).
#[utoipa::path(get, path = "/readyz", tag = "ops",
    responses(
        (status = 200, description = "Store reachable, projections caught up and not halted"),
        (status = 503, description = "Not ready: `{error, message, code: not_ready, details}`")))]
pub async fn readyz(State(state): State<Shared>) -> impl IntoResponse {
    if let Some(problem) = state.audit.as_ref().and_then(|a| a.problem()) {
        return not_ready(json!({ "audit_log": problem }));
    }
    let lags = match state.wiring.projector.lag().await {
        Ok(lags) => lags,
        Err(projections::ProjectionError::Corrupt(reason)) => {
            tracing::error!(reason = %reason, "readiness: a checkpoint names no known projection");
            return not_ready(json!({ "projections": "unknown checkpoint" }));
        }
        Err(error) => {
            tracing::warn!(error = %error, "readiness: store unreachable");
            return not_ready(json!({ "store": "unreachable" }));
        }
    };
    let projections: Vec<_> = lags
        .iter()
        .map(|l| json!({ "name": l.name, "position": l.position, "head": l.head, "lag": l.lag, "halted": l.halted.is_some() }))
        .collect();
    // Every projection is looked at (no short cut), so each one's progress
    // is recorded.
    let verdicts: Vec<bool> = lags
        .iter()
        .map(|l| {
            let moving = state.readiness.moving(&l.name, l.position, l.lag);
            l.halted.is_none() && l.lag <= READY_LAG && moving
        })
        .collect();
    let ready = verdicts.iter().all(|ready| *ready);
    let log_head = lags.iter().map(|l| l.head).max().unwrap_or(0);
    let body = json!({ "status": if ready { "ready" } else { "not_ready" }, "log_head": log_head, "projections": projections });
    if ready {
        (StatusCode::OK, Json(body))
    } else {
        not_ready(body)
    }
}

fn not_ready(details: serde_json::Value) -> (StatusCode, Json<serde_json::Value>) {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(
            json!({ "error": "not_ready", "code": "not_ready", "message": "the service is not ready to serve", "details": details }),
        ),
    )
}
