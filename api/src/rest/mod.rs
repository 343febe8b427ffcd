//! The REST edge: the route table, the router built from it, and the `run`
//! entry point that tests and `node` share.
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
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use axum::Router;
use tokio::net::TcpListener;
use tower::Layer;

use error::ApiError;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// No request takes longer: past it the answer is a 503 JSON (a store that
/// stopped answering must not hang clients; pools give up after 5 s).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(4);

/// How a route authenticates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// Open (health, readiness, metrics, registration, the OpenAPI document).
    None,
    /// `X-API-Key` (reads and the classifier).
    ApiKey,
    /// A steward's `Authorization: Bearer` token (directory writes).
    Steward,
}

/// One route: method, path template, how it authenticates, its handler.
pub struct RouteSpec {
    /// The HTTP method.
    pub method: Method,
    /// The path template (`{country_code}` style).
    pub path: &'static str,
    /// How it authenticates.
    pub auth: Auth,
    endpoint: Endpoint,
}

/// Builds a route's endpoint from the state and its route layer.
type Endpoint = Box<dyn FnOnce(&Shared, observe::Observe) -> MethodRouter<Shared>>;

fn spec<H, T>(method: Method, path: &'static str, auth: Auth, handler: H) -> RouteSpec
where
    H: Handler<T, Shared>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone())
        .expect("route table: every method is one a route can be registered for");
    RouteSpec {
        method,
        path,
        auth,
        // The handler with its state is the service the route layer wraps,
        // and the router boxes the pair once. (`MethodRouter::route_layer`
        // boxed the handler, then the layer around it: two boxed services
        // to clone and two boxed futures per request.)
        endpoint: Box::new(move |state, observe| {
            MethodRouter::new().on_service(filter, observe.layer(handler.with_state(state.clone())))
        }),
    }
}

/// Every route the server answers. [`router`] is built from this table
/// alone, and a test checks each entry against the OpenAPI document.
pub fn route_table() -> Vec<RouteSpec> {
    use Auth::{ApiKey, Steward};
    vec![
        spec(Method::GET, "/", Auth::None, home::home),
        spec(Method::GET, "/docs", Auth::None, docs::docs),
        spec(Method::GET, "/healthz", Auth::None, ops::healthz),
        spec(Method::GET, "/readyz", Auth::None, ops::readyz),
        spec(Method::GET, "/metrics", Auth::None, metrics::metrics),
        spec(Method::GET, "/register", Auth::None, register::form),
        spec(Method::POST, "/register", Auth::None, register::register),
        spec(
            Method::GET,
            "/unsubscribe",
            Auth::None,
            unsubscribe::confirm,
        ),
        spec(
            Method::POST,
            "/unsubscribe",
            Auth::None,
            unsubscribe::one_click,
        ),
        spec(Method::GET, "/api/v1/health", Auth::None, ops::health),
        spec(
            Method::GET,
            "/api/v1/openapi.json",
            Auth::None,
            openapi::openapi_json,
        ),
        spec(Method::POST, "/api/v1/classify", ApiKey, classify::classify),
        spec(Method::GET, "/api/v1/ca", ApiKey, ca::list::list),
        spec(Method::POST, "/api/v1/ca", Steward, ca::create::create),
        spec(
            Method::GET,
            "/api/v1/ca/{country_code}",
            ApiKey,
            ca::get::get,
        ),
        spec(
            Method::GET,
            "/api/v1/ca/{country_code}/history",
            ApiKey,
            ca::history::history,
        ),
        spec(
            Method::POST,
            "/api/v1/ca/{country_code}/verifications",
            Steward,
            ca::verify::submit,
        ),
        spec(
            Method::POST,
            "/api/v1/ca/{country_code}/contacts",
            Steward,
            ca::contacts::add,
        ),
        spec(
            Method::GET,
            "/api/v1/ca/{country_code}/contacts/{contact_id}",
            ApiKey,
            ca::contacts::get,
        ),
        spec(
            Method::DELETE,
            "/api/v1/ca/{country_code}/contacts/{contact_id}",
            Steward,
            ca::contacts::remove,
        ),
        spec(
            Method::POST,
            "/api/v1/ca/{country_code}/contacts/{contact_id}/verifications",
            Steward,
            ca::contacts::verify,
        ),
        spec(
            Method::POST,
            "/api/v1/ca/{country_code}/contacts/{contact_id}/primary",
            Steward,
            ca::contacts::make_primary,
        ),
        spec(
            Method::POST,
            "/api/v1/shipments/plan",
            ApiKey,
            shipments::plan,
        ),
        spec(
            Method::GET,
            "/api/v1/stewardship/worklist",
            Steward,
            worklist::worklist,
        ),
        spec(
            Method::DELETE,
            "/api/v1/ca/{country_code}",
            Steward,
            ca::retire::retire,
        ),
        spec(Method::GET, "/api/v1/coverage", ApiKey, coverage::coverage),
        spec(Method::GET, "/api/v1/changes", ApiKey, changes::changes),
        spec(
            Method::GET,
            "/api/v1/audit/key",
            Auth::None,
            audit::checkpoint::key,
        ),
        spec(
            Method::GET,
            "/api/v1/audit/checkpoint",
            Auth::None,
            audit::checkpoint::latest,
        ),
        spec(
            Method::GET,
            "/api/v1/audit/checkpoint/{tree_size}",
            Auth::None,
            audit::checkpoint::by_size,
        ),
        spec(
            Method::GET,
            "/api/v1/audit/proof/inclusion",
            Auth::None,
            audit::proof::inclusion,
        ),
        spec(
            Method::GET,
            "/api/v1/audit/proof/consistency",
            Auth::None,
            audit::proof::consistency,
        ),
        spec(
            Method::GET,
            "/api/v1/audit/entries/{position}",
            ApiKey,
            audit::entry::entry,
        ),
    ]
}

/// The REST router.
pub fn router(state: AppState) -> Router {
    let state: Shared = Arc::new(state);
    let mut paths: Vec<(&'static str, MethodRouter<Shared>)> = Vec::new();
    for route in route_table() {
        // One route layer per request: timer, deadline, metrics and, where
        // the route needs one, the API-key check.
        let observe = match route.auth {
            Auth::ApiKey => observe::Observe::with_api_key(state.clone()),
            Auth::None | Auth::Steward => observe::Observe::open(state.clone()),
        };
        let endpoint = (route.endpoint)(&state, observe);
        match paths.iter_mut().find(|(path, _)| *path == route.path) {
            Some((_, existing)) => {
                *existing = std::mem::replace(existing, MethodRouter::new()).merge(endpoint);
            }
            None => paths.push((route.path, endpoint)),
        }
    }
    let mut router = Router::new();
    for (path, endpoint) in paths {
        router = router.route(path, endpoint);
    }
    // No router-wide layers: the edge's front service runs the access line
    // and the guard (which also bounds bodies at `BODY_LIMIT`) around the
    // whole router (`crate::edge::front`).
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
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
