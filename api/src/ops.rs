//! Liveness and readiness.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use crate::app::AppState;

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

/// `GET /readyz`: the store answers, and no projection is halted or behind
/// the log by more than it can apply in one poll.
#[utoipa::path(get, path = "/readyz", tag = "ops",
    responses(
        (status = 200, description = "Store reachable, projections caught up and not halted"),
        (status = 503, description = "Not ready: `{error, message, code: not_ready, details}`")))]
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    let runtime = &state.runtime;
    let head = match projections::log::head(&runtime.read_db).await {
        Ok(head) => head,
        Err(error) => {
            tracing::warn!(error = %error, "readiness: store unreachable");
            return not_ready(json!({ "store": "unreachable" }));
        }
    };
    let statuses = match runtime.projector.status().await {
        Ok(statuses) => statuses,
        Err(error) => {
            tracing::warn!(error = %error, "readiness: checkpoints unreadable");
            return not_ready(json!({ "store": "unreachable" }));
        }
    };
    let projections: Vec<_> = statuses
        .iter()
        .map(|s| json!({ "name": s.name, "position": s.position, "lag": head - s.position, "halted": s.halted.is_some() }))
        .collect();
    let ready = statuses
        .iter()
        .all(|s| s.halted.is_none() && head - s.position <= 500);
    let body = json!({ "status": if ready { "ready" } else { "not_ready" }, "log_head": head, "projections": projections });
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
