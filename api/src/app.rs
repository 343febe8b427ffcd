//! The HTTP application: state, router, and the `run` entry point that tests
//! and `main` share.

use std::future::Future;

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tokio::net::TcpListener;

use crate::ops;
use crate::runtime::Runtime;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Store, read tables, projections.
    pub runtime: Runtime,
}

/// The REST router.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/api/v1/health", get(ops::healthz))
        .fallback(not_found)
        .with_state(state)
}

async fn not_found() -> impl IntoResponse {
    (
        StatusCode::NOT_FOUND,
        Json(
            json!({ "error": "not_found", "code": "not_found", "message": "no such route; see /api/v1/openapi.json" }),
        ),
    )
}

/// Serves `router` on `listener` until `shutdown` resolves, then drains.
///
/// # Errors
/// When the server fails.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}
