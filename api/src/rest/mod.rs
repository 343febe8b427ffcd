//! The REST edge: the routes (each registered once, with its OpenAPI
//! operation, by [`api`]), the router built from them, and the `run` entry
//! point that tests and `node` share.
//!
//! Layout: grouped by what a file is, so that imports run one way (a test,
//! `rest_imports`, keeps every import cycle under `rest/` to 3 files at most):
//! - [`http`]: the plumbing every route shares: [`AppState`], the one JSON
//!   error shape, the readers of bodies (typed, [`http::body::Valid`]) and
//!   query parameters, the route layer, credentials, consistency, the
//!   documented answer types;
//! - [`v1`]: the `/api/v1` handlers, one file per use case (the directory
//!   under [`v1::ca`], the verifiable log under [`v1::audit`]);
//! - [`pages`]: the HTML pages (`/`, `/docs`, `/register`, `/unsubscribe`);
//! - [`ops`]: health, readiness and `/metrics`;
//! - [`routes`], [`openapi`]: every route registered once, and
//!   the OpenAPI document built from that registration.

pub mod http;
pub mod openapi;
pub mod ops;
pub mod pages;
pub mod routes;
pub mod v1;

pub use http::extract::BODY_LIMIT;
pub use http::observe::REQUEST_DEADLINE;
pub use http::state::{AppState, Shared, Wiring};

use std::future::Future;
use std::sync::Arc;

use axum::extract::{MatchedPath, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;

use http::error::ApiError;

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
            http::consistency::layer,
        ))
        .with_state(state.clone())
        .merge(crate::console::router(state)) // the steward console, `/steward/…`
}

async fn not_found(State(state): State<Shared>, method: Method) -> ApiError {
    ops::metrics::observe_fallback(&state, None, &method, StatusCode::NOT_FOUND);
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
    ops::metrics::observe_fallback(
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
