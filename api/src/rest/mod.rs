//! The REST edge: the routes (each registered once, with its OpenAPI
//! operation, by [`api`]), the router built from them, and the `run` entry
//! point that tests and `node` share.
//!
//! Layout (one file per concern, one per use case under `ca/`):
//! - [`state`]: [`AppState`], everything a handler can reach;
//! - [`error`], [`extract`], [`fields`], [`params`]: the one JSON error shape,
//!   the strict JSON body reader and the query-parameter reader; [`bodies`]:
//!   the request bodies and the edge's own answers, documented as types;
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
pub mod bodies;
pub mod bounds;
pub mod ca;
pub mod changes;
pub mod classify;
pub mod coverage;
pub mod docs;
pub mod error;
pub mod extract;
pub mod fields;
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
pub mod shipments;
pub mod state;
pub mod unsubscribe;
pub mod worklist;
pub mod write;

pub use state::{AppState, Shared, Wiring};

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{MatchedPath, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio::net::TcpListener;
use utoipa::openapi::path::{Operation, PathItem, Paths};
use utoipa::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

use error::ApiError;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// No request takes longer: past it the answer is a 503 JSON (a store that
/// stopped answering must not hang clients; pools give up after 5 s).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(4);

/// Every route with its OpenAPI operation, each registered once from its
/// handler's `#[utoipa::path]` annotation (method, path, parameters,
/// answers and security). A route whose operation names the `api_key`
/// scheme gets the API-key check in its route layer ([`observe`]); steward
/// routes read their token in the handler. `state` is `None` when only the
/// document is wanted ([`openapi::document`]).
pub fn api(state: Option<&Shared>) -> OpenApiRouter<Shared> {
    let layered = |route: UtoipaMethodRouter<Shared>| observed(state, route);
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .routes(layered(routes!(home::home)))
        .routes(layered(routes!(docs::docs)))
        .routes(layered(routes!(ops::healthz)))
        .routes(layered(routes!(ops::readyz)))
        .routes(layered(routes!(metrics::metrics)))
        .routes(layered(routes!(register::form)))
        .routes(layered(routes!(register::register)))
        .routes(layered(routes!(unsubscribe::confirm)))
        .routes(layered(routes!(unsubscribe::one_click)))
        .routes(layered(routes!(ops::health)))
        .routes(layered(routes!(openapi::openapi_json)))
        .routes(layered(routes!(classify::classify)))
        .routes(layered(routes!(ca::list::list)))
        .routes(layered(routes!(ca::create::create)))
        .routes(layered(routes!(ca::get::get)))
        .routes(layered(routes!(ca::retire::retire)))
        .routes(layered(routes!(ca::history::history)))
        .routes(layered(routes!(ca::verify::submit)))
        .routes(layered(routes!(ca::contacts::add)))
        .routes(layered(routes!(ca::contacts::get)))
        .routes(layered(routes!(ca::contacts::remove)))
        .routes(layered(routes!(ca::contacts::verify)))
        .routes(layered(routes!(ca::contacts::make_primary)))
        .routes(layered(routes!(shipments::plan)))
        .routes(layered(routes!(worklist::worklist)))
        .routes(layered(routes!(coverage::coverage)))
        .routes(layered(routes!(changes::changes)))
        .routes(layered(routes!(audit::checkpoint::key)))
        .routes(layered(routes!(audit::checkpoint::latest)))
        .routes(layered(routes!(audit::checkpoint::by_size)))
        .routes(layered(routes!(audit::proof::inclusion)))
        .routes(layered(routes!(audit::proof::consistency)))
        .routes(layered(routes!(audit::entry::entry)))
}

/// `route` behind its route layer: timer, deadline, metrics and, when its
/// operation names the `api_key` scheme, the API-key check.
fn observed(
    state: Option<&Shared>,
    (schemas, paths, router): UtoipaMethodRouter<Shared>,
) -> UtoipaMethodRouter<Shared> {
    let Some(state) = state else {
        return (schemas, paths, router);
    };
    let layer = if needs_api_key(&paths) {
        observe::Observe::with_api_key(state.clone())
    } else {
        observe::Observe::open(state.clone())
    };
    (schemas, paths, router.layer(layer))
}

/// Whether an operation of `paths` requires the `api_key` scheme.
fn needs_api_key(paths: &Paths) -> bool {
    paths.paths.values().any(|item| {
        operations(item).any(|operation| {
            operation.security.iter().flatten().any(|requirement| {
                serde_json::to_value(requirement)
                    .ok()
                    .and_then(|v| v.as_object().map(|o| o.contains_key("api_key")))
                    .unwrap_or(false)
            })
        })
    })
}

fn operations(item: &PathItem) -> impl Iterator<Item = &Operation> {
    [
        &item.get,
        &item.put,
        &item.post,
        &item.delete,
        &item.options,
        &item.head,
        &item.patch,
        &item.trace,
    ]
    .into_iter()
    .flatten()
}

/// The REST router.
pub fn router(state: AppState) -> Router {
    let state: Shared = Arc::new(state);
    let (router, _) = api(Some(&state)).split_for_parts();
    // No router-wide layers: the edge's front service runs the access line
    // and the guard (which also bounds bodies at `BODY_LIMIT`) around the
    // whole router (`crate::edge::front`).
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
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
