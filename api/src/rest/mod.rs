//! The REST edge: the routes (each registered once, with its OpenAPI
//! operation, by [`api`]), the router built from them, and the `run` entry
//! point that tests and `node` share.
//!
//! Layout (one file per concern, one per use case under `ca/`):
//! - [`state`]: [`AppState`], everything a handler can reach;
//! - [`error`], [`extract`], [`body`], [`params`]: the one JSON error shape,
//!   the JSON reader, the typed body reader ([`body::Valid`]) and the
//!   query-parameter reader;
//! - [`auth`]: the `X-API-Key` check and the steward bearer token;
//! - [`ca`]: the directory routes `/api/v1/ca…` (reads and steward writes),
//!   with [`write`] holding what every steward write shares;
//! - [`classify`], [`shipments`], [`changes`], [`register`] and [`page`]:
//!   the other routes;
//! - [`observe`]: the route layer around every route (deadline, metrics,
//!   the API-key check, the route's template for the access line);
//! - [`ops`], [`metrics`], [`openapi`]: health, readiness, Prometheus text and
//!   the OpenAPI document;
//! - [`audit`]: the verifiable log (key, checkpoints, proofs, entries).

pub mod audit;
pub mod auth;
pub mod auth_throttle;
pub mod body;
pub mod bounds;
pub mod ca;
pub mod changes;
pub mod classify;
pub mod consistency;
pub mod counters;
pub mod coverage;
pub mod docs;
pub mod error;
pub mod extract;
pub mod home;
pub mod mail_delivery;
pub mod metrics;
pub mod observe;
pub mod openapi;
pub mod ops;
pub mod page;
pub mod params;
pub mod readiness;
pub mod register;
pub mod register_limit;
pub mod routes;
pub mod schema;
pub mod shipments;
pub mod state;
pub mod unsubscribe;
pub mod worklist;
pub mod write;

pub use extract::BODY_LIMIT;
pub use observe::REQUEST_DEADLINE;
pub use state::{AppState, Shared, Wiring};

use std::future::Future;
use std::sync::Arc;

use axum::extract::{MatchedPath, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;

use error::ApiError;

/// The REST router.
pub fn router(state: AppState) -> Router {
    let state: Shared = Arc::new(state);
    let (router, _) = routes::api(Some(&state)).split_for_parts();
    // No router-wide layers: the edge's front service runs the access line
    // and the guard (which also bounds bodies at `BODY_LIMIT`) around the
    // whole router (`crate::edge::front`).
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            consistency::layer,
        ))
        .with_state(state.clone())
        .merge(crate::console::router(state)) // the steward console, `/steward/…`
}

async fn not_found(State(state): State<Shared>, method: Method) -> ApiError {
    metrics::observe_fallback(&state, None, &method, StatusCode::NOT_FOUND);
    ApiError::NotFound {
        code: "not_found",
        message: "no such route".into(),
    }
}

async fn method_not_allowed(
    State(state): State<Shared>,
    method: Method,
    route: Option<MatchedPath>,
) -> Response {
    metrics::observe_fallback(
        &state,
        route.as_ref(),
        &method,
        StatusCode::METHOD_NOT_ALLOWED,
    );
    let mut response = ApiError::MethodNotAllowed.into_response();
    crate::telemetry::access::tag(&mut response, route);
    response
}

/// Serves `router` on `listener` until `shutdown` resolves, then drains,
/// with the default connection limits ([`run_with`]).
///
/// # Errors
/// When the server fails.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    run_with(
        listener,
        state,
        crate::edge::ConnSettings::default(),
        shutdown,
    )
    .await
}

/// Serves the REST router behind the connection edge (`crate::edge`:
/// connection caps, header and body deadlines, JSON on every error,
/// `nosniff`) until `shutdown` resolves, then drains. Every accepted socket
/// has `TCP_NODELAY` set: small JSON answers leave at once instead of
/// waiting for the client's delayed ACK.
///
/// # Errors
/// When the server fails.
pub async fn run_with(
    listener: TcpListener,
    state: AppState,
    limits: crate::edge::ConnSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let body = crate::edge::BodyLimit {
        max_bytes: BODY_LIMIT,
        deadline: limits.body_timeout,
    };
    let front = crate::edge::Front::new("rest", router(state), body);
    crate::edge::serve(listener, front, limits, shutdown).await
}
