//! The HTTP application: state, router, and the `run` entry point that tests
//! and `main` share.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request};
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Router;
use tokio::net::TcpListener;

use domain::classifier::Classifier;

use crate::error::ApiError;
use crate::runtime::Runtime;
use crate::{auth, ca, classify, ops, register};

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// No request takes longer: past it the answer is a 503 JSON (a store that
/// stopped answering must not hang clients; pools give up after 5 s).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(4);

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
    let keyed = |route: MethodRouter<AppState>| {
        route
            .fallback(method_not_allowed)
            .layer(from_fn_with_state(state.clone(), auth::require_api_key))
    };
    let v1 = Router::new()
        .route("/classify", keyed(post(classify::classify)))
        .route("/ca", post(ca::create::create))
        .route("/ca/{country_code}", keyed(get(ca::get::get)))
        .route("/ca/{country_code}/verifications", post(ca::verify::submit));
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/api/v1/health", get(ops::healthz))
        .route("/register", post(register::register_json))
        .nest("/api/v1", v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(from_fn(deadline))
        .with_state(state)
}

/// Answers 503 JSON when a request runs past [`REQUEST_DEADLINE`].
async fn deadline(request: Request, next: Next) -> Response {
    match tokio::time::timeout(REQUEST_DEADLINE, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::Unavailable(format!(
            "request did not finish within {REQUEST_DEADLINE:?}"
        ))
        .into_response(),
    }
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
