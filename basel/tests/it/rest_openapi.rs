//! The OpenAPI document: 3.1, public, matching real answers (in both storage
//! modes), and every documented operation a route guarded as documented.

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

/// Every documented operation is a route of the router, guarded as its
/// security says: asked without credentials, an `api_key` operation answers
/// 401 with the API-key body, a `steward_token` one 401 with
/// `WWW-Authenticate: Bearer`, an open one neither; none answers the
/// router's "no such route" 404 or 405. (Routes and operations come from one
/// registration, `rest::api`; this checks that registration's wiring.)
async fn every_documented_operation_is_a_route_guarded_as_documented(mode: Mode) {
    let app = App::seeded(mode).await;
    let doc = app.get_anonymous("/api/v1/openapi.json").await.body;
    let mut operations = 0;
    for (template, item) in doc["paths"].as_object().expect("paths") {
        let path = template
            .replace("{country_code}", "FR")
            .replace("{contact_id}", "c1")
            .replace("{tree_size}", "1")
            .replace("{position}", "1");
        for (method, operation) in item.as_object().expect("path item") {
            let method = reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
                .expect("method");
            let answer = app
                .send(app.client().request(method.clone(), app.url(&path)))
                .await;
            let what = format!("{method} {template}: {} {}", answer.status, answer.text);
            assert_ne!(answer.status, 405, "{what}");
            assert!(
                !(answer.status == 404 && answer.text.contains("no such route")),
                "{what}"
            );
            let security = operation["security"].to_string();
            if security.contains("api_key") {
                assert_eq!(answer.status, 401, "{what}");
                assert!(answer.body.get("help").is_some(), "{what}");
            } else if security.contains("steward_token") {
                assert_eq!(answer.status, 401, "{what}");
                assert!(
                    answer
                        .header("www-authenticate")
                        .is_some_and(|c| c.contains("basel stewards")),
                    "{what}"
                );
            } else {
                assert_eq!(operation["security"], Value::Null, "{what}");
                assert_ne!(answer.status, 401, "{what}");
            }
            assert!(operation["responses"]
                .as_object()
                .is_some_and(|r| !r.is_empty()));
            operations += 1;
        }
    }
    assert!(operations >= 33, "{operations}");
}

both_modes!(every_documented_operation_is_a_route_guarded_as_documented);

#[test]
fn the_openapi_document_names_both_auth_schemes() {
    let doc = rest::openapi::document();
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["api_key"]["in"], "header");
    assert_eq!(schemes["api_key"]["name"], "X-API-Key");
    assert_eq!(schemes["steward_token"]["scheme"], "bearer");
}
