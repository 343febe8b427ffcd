//! basel's REST API: the routes (each registered once, with its OpenAPI
//! operation, by [`routes::api`]), the router built from them, the OpenAPI
//! document, the HTML pages and the ops routes.
//!
//! **Boundary:** handlers hold no business rules: they parse, call a
//! command service or a projection reader, and shape the answer. The HTTP
//! plumbing they share (state, error shape, body and query readers, auth)
//! is the `web` crate's; the steward console is a crate of its own, merged
//! beside this router by the binary.
//!
//! Layout: grouped by what a file is, so that imports run one way:
//! - [`v1`]: the `/api/v1` handlers, one file per use case (the directory
//!   under [`v1::ca`], the verifiable log under [`v1::audit`]);
//! - [`pages`]: the HTML pages (`/`, `/docs`, `/register`, `/unsubscribe`);
//! - [`ops`]: health, readiness and `/metrics`;
//! - [`schema`]: the answer types documented from their schemars schemas;
//! - [`routes`], [`openapi`]: every route registered once, and the OpenAPI
//!   document built from that registration.

pub mod openapi;
pub mod ops;
pub mod pages;
pub mod routes;
pub mod schema;
pub mod v1;

use axum::extract::{MatchedPath, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;

use web::error::ApiError;
use web::Shared;

/// The REST router (the steward console's routes are merged beside it by
/// the binary).
pub fn router(state: Shared) -> Router {
    let (router, _) = routes::api(Some(&state)).split_for_parts();
    // No router-wide layers: the edge's front service runs the access line
    // and the guard (which also bounds bodies at `BODY_LIMIT`) around the
    // whole router (`web::edge::front`).
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            web::consistency::layer,
        ))
        .with_state(state)
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
    web::access::tag(&mut response, route);
    response
}

/// The ops listener's router (a process without a REST listener: `--role
/// relay,projector`, `--role mcp`, …): the ops routes of [`routes::ops`],
/// the same handlers and answers as on the REST listener.
pub fn ops_router(state: Shared) -> Router {
    let (router, _) = routes::ops(Some(&state)).split_for_parts();
    router
        .fallback(ops_not_found)
        .method_not_allowed_fallback(ops_method_not_allowed)
        .with_state(state)
}

async fn ops_not_found() -> ApiError {
    ApiError::NotFound {
        code: "not_found",
        message: "no such route; this listener serves /healthz, /readyz and /metrics".into(),
    }
}

async fn ops_method_not_allowed(route: Option<MatchedPath>) -> Response {
    let mut response = ApiError::MethodNotAllowed.into_response();
    web::access::tag(&mut response, route);
    response
}
