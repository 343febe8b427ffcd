//! The HTTP application: state, router, and the `run` entry point that tests
//! and `main` share.

use std::future::Future;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;

use domain::classifier::Classifier;

use crate::error::ApiError;
use crate::runtime::Runtime;
use crate::{auth, classify, ops, register};

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Store, read tables, projections.
    pub runtime: Runtime,
    /// The waste classifier, built once at start.
    pub classifier: Arc<Classifier>,
    /// Days after which a record's last check is reported `stale`.
    pub stale_after_days: i64,
}

/// The REST router.
pub fn router(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/classify", post(classify::classify))
        .route_layer(from_fn_with_state(state.clone(), auth::require_api_key));
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/api/v1/health", get(ops::healthz))
        .route("/register", post(register::register_json))
        .nest("/api/v1", v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::NotFound {
        code: "not_found",
        message: "no such route".into(),
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
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
