//! Every REST route, registered once with its OpenAPI operation: the
//! router ([`super::router`]) and the document ([`super::openapi::document`])
//! are both built from [`api`].

use utoipa::openapi::path::{Operation, PathItem, Paths};
use utoipa::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

use crate::openapi;
use crate::ops::{self, metrics};
use crate::pages::{docs, home, register, unsubscribe};
use crate::v1::{audit, ca, changes, classify, coverage, shipments, worklist};
use web::observe;
use web::state::Shared;

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
        .routes(layered(routes!(ca::proposals::list)))
        .routes(layered(routes!(ca::proposals::get)))
        .routes(layered(routes!(ca::proposals::approve)))
        .routes(layered(routes!(ca::proposals::reject)))
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
