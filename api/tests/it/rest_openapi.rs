//! The OpenAPI document: 3.1, public, matching real answers (in both storage
//! modes), and covering every route of the router with its auth scheme.

use serde_json::{json, Value};

use crate::inproc::App;
use crate::support::{both_modes, Mode};

async fn the_openapi_document_is_3_1_public_and_matches_real_answers(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let doc = app.get_anonymous("/api/v1/openapi.json").await;
    assert_eq!(doc.status, 200, "{}", doc.text);
    assert_eq!(doc.body["openapi"], "3.1.0");
    let schemas = &doc.body["components"]["schemas"];
    let record = app.get("/api/v1/ca/FR", &key).await.body;
    let documented: std::collections::BTreeSet<&str> = schemas["Record"]["properties"]
        .as_object()
        .expect("Record properties")
        .keys()
        .map(String::as_str)
        .collect();
    let served: std::collections::BTreeSet<&str> = record
        .as_object()
        .expect("record")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(documented, served, "the Record schema is what GET returns");
    let page = app.get("/api/v1/ca?perPage=1", &key).await.body;
    let page_keys: std::collections::BTreeSet<&str> = page
        .as_object()
        .expect("page")
        .keys()
        .map(String::as_str)
        .collect();
    let page_doc: std::collections::BTreeSet<&str> = schemas["Page"]["properties"]
        .as_object()
        .expect("Page")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(page_doc, page_keys);
    let list_types = schemas["ListType"]["enum"]
        .as_array()
        .expect("ListType enum");
    assert!(list_types.contains(&json!("Annex II")), "{list_types:?}");
    assert!(schemas["ListType"]["description"]
        .as_str()
        .is_some_and(|d| d.contains("extension")));
}

both_modes!(the_openapi_document_is_3_1_public_and_matches_real_answers);

/// Every route of the router is in the OpenAPI document, with its auth
/// scheme; and every documented operation is a route. Fails when a route is
/// added to `app::route_table` without documentation.
#[test]
fn every_route_of_the_router_is_in_the_openapi_document() {
    use utoipa::OpenApi;
    let doc = serde_json::to_value(api::rest::openapi::ApiDoc::openapi()).expect("doc");
    let mut routes = 0;
    for route in api::rest::route_table() {
        let method = route.method.as_str().to_ascii_lowercase();
        let operation = &doc["paths"][route.path][&method];
        assert!(
            operation.is_object(),
            "{} {} is missing from openapi.json",
            route.method,
            route.path
        );
        let security = operation["security"].to_string();
        match route.auth {
            api::rest::Auth::ApiKey => assert!(
                security.contains("api_key"),
                "{} {}",
                route.method,
                route.path
            ),
            api::rest::Auth::Steward => assert!(
                security.contains("steward_token"),
                "{} {}",
                route.method,
                route.path
            ),
            api::rest::Auth::None => {
                assert_eq!(operation["security"], Value::Null, "{}", route.path)
            }
        }
        assert!(operation["responses"]
            .as_object()
            .is_some_and(|r| !r.is_empty()));
        routes += 1;
    }
    let documented: usize = doc["paths"]
        .as_object()
        .expect("paths")
        .values()
        .map(|p| p.as_object().map_or(0, |o| o.len()))
        .sum();
    assert_eq!(documented, routes, "every documented operation is a route");
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["api_key"]["in"], "header");
    assert_eq!(schemes["api_key"]["name"], "X-API-Key");
    assert_eq!(schemes["steward_token"]["scheme"], "bearer");
}
