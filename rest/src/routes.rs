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
use web::schemas::Schemas;
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
        .merge(ops(state))
}

/// The ops routes (`/healthz`, `/readyz`, `/metrics`): part of [`api`], and
/// all a process without a REST listener serves, on its ops listener
/// ([`crate::ops_router`]).
pub fn ops(state: Option<&Shared>) -> OpenApiRouter<Shared> {
    let layered = |route: UtoipaMethodRouter<Shared>| observed(state, route);
    OpenApiRouter::new()
        .routes(layered(routes!(ops::healthz)))
        .routes(layered(routes!(ops::readyz)))
        .routes(layered(routes!(metrics::metrics)))
}

/// `/healthz` alone, without state or layers: the MCP listener answers it
/// before its guard (load balancers probe without a key).
pub fn health() -> axum::Router {
    let (router, _) = OpenApiRouter::<()>::new()
        .routes(routes!(ops::healthz))
        .split_for_parts();
    router
}

/// Every body and query type a route reads, with its schema: built once at
/// start into the server's state (`AppState::schemas`). A route added with
/// a new body or query type adds it here (a test finds every `Valid<…>` and
/// `Query<…>` of the handlers in this list).
pub fn schemas() -> Schemas {
    Schemas::default()
        .body::<classify::ClassifyBody>()
        .body::<shipments::ShipmentBody>()
        .body::<register::RegisterBody>()
        .body::<ca::create::CreateRequest>()
        .body::<ca::contacts::ContactRequest>()
        .body::<ca::contacts::ContactBody>()
        .body::<ca::contacts::RemovalBody>()
        .body::<ca::verify::VerificationBody>()
        .query::<ca::list::ListQuery>()
        .query::<ca::get::GetQuery>()
        .query::<ca::history::HistoryQuery>()
        .query::<changes::ChangesQuery>()
        .query::<worklist::WorklistQuery>()
        .query::<audit::proof::InclusionQuery>()
        .query::<audit::proof::ConsistencyQuery>()
        .query::<unsubscribe::TokenQuery>()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The type names in `Valid<…>` and `Query<…>` of every handler file,
    /// with `pub type X = Verifiable<Y>` aliases read as they are written.
    fn read_types() -> Vec<String> {
        fn walk(dir: &std::path::Path, into: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("src").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, into);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    into.push(std::fs::read_to_string(&path).expect("readable"));
                }
            }
        }
        let mut sources = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut sources,
        );
        let mut found = Vec::new();
        for source in &sources {
            for wrapper in ["Valid<", "Query<"] {
                for (at, _) in source.match_indices(wrapper) {
                    let rest = &source[at + wrapper.len()..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != "T" && rest[name.len()..].starts_with('>') {
                        found.push(name);
                    }
                }
            }
        }
        found.sort();
        found.dedup();
        found
    }

    #[test]
    fn every_body_and_query_type_a_route_reads_is_registered() {
        let schemas = schemas();
        let registered: Vec<&str> = schemas.body_names().collect();
        let types = read_types();
        assert!(types.len() >= 10, "{types:?}");
        for name in types {
            let known = registered.iter().any(|r| {
                r.rsplit("::").next() == Some(name.as_str())
                    || r.contains(&format!("::{name}>"))
                    || alias_of(&name).is_some_and(|real| r.contains(&format!("::{real}>")))
            });
            assert!(
                known,
                "{name} is read by a route but not in routes::schemas()"
            );
        }
    }

    /// `Y` for `pub type X = Verifiable<Y>`.
    fn alias_of(name: &str) -> Option<&'static str> {
        match name {
            "CreateRequest" => Some("CreateBody"),
            "ContactRequest" => Some("ContactBody"),
            _ => None,
        }
    }
}
