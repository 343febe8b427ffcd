//! The REST contract, row by row, in both storage modes: the list, the record
//! `as_of`, history, the changes feed, `/register` (HTML and JSON), ops,
//! `/metrics`, the OpenAPI document, and errors everywhere.

use serde_json::{json, Value};

use crate::inproc::{today, verification, App};
use crate::support::{both_modes, Mode};

fn codes(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["country_code"].as_str().expect("code").to_owned())
        .collect()
}

async fn the_list_covers_every_country_by_default_and_pages_add_up(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let all = app.get("/api/v1/ca", &key).await;
    assert_eq!(all.status, 200, "{}", all.text);
    assert_eq!(
        (
            &all.body["page"],
            &all.body["perPage"],
            &all.body["totalItems"],
            &all.body["totalPages"]
        ),
        (&json!(1), &json!(200), &json!(189), &json!(1))
    );
    let every = codes(&all.body);
    assert_eq!(every.len(), 189);
    let mut sorted = every.clone();
    sorted.sort();
    assert_eq!(every, sorted, "sorted by country_code");
    let item = all.body["items"][0].as_object().expect("item");
    assert_eq!(
        item.keys().collect::<Vec<_>>(),
        ["ca_name", "country_code", "country_name"]
    );

    let mut paged = Vec::new();
    for page in 1..=4 {
        let answer = app
            .get(&format!("/api/v1/ca?page={page}&perPage=50"), &key)
            .await;
        assert_eq!(
            (&answer.body["totalPages"], &answer.body["totalItems"]),
            (&json!(4), &json!(189))
        );
        paged.extend(codes(&answer.body));
    }
    assert_eq!(paged, every, "pages partition the list");
    let past = app.get("/api/v1/ca?page=5&perPage=50", &key).await;
    assert_eq!(past.status, 200);
    assert!(codes(&past.body).is_empty());
    assert_eq!(
        app.get("/api/v1/ca?per_page=500", &key).await.body["perPage"],
        500
    );

    assert_eq!(
        codes(&app.get("/api/v1/ca?q=SWITZ", &key).await.body),
        ["CH"]
    );
    assert!(codes(&app.get("/api/v1/ca?q=germany", &key).await.body).contains(&"DE".to_owned()));
    let none = app.get("/api/v1/ca?q=no%20such%20place", &key).await;
    assert_eq!(
        (&none.body["totalItems"], &none.body["totalPages"]),
        (&json!(0), &json!(0))
    );
    assert_eq!(
        app.get("/api/v1/ca?verified=true", &key).await.body["totalItems"],
        0
    );
    assert_eq!(
        app.get("/api/v1/ca?verified=false", &key).await.body["totalItems"],
        189
    );

    let token = app.enrol("lia").await;
    let mut body = verification(json!({"ca_name": "Federal Office for the Environment",
        "email": "basel@bafu.example.ch", "phone": "+41-58-462-9311"}));
    body["verified"] = json!(true);
    let verified = app
        .post_as("/api/v1/ca/CH/verifications", &token, &body)
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert_eq!(
        codes(&app.get("/api/v1/ca?verified=true", &key).await.body),
        ["CH"]
    );
    assert_eq!(
        codes(
            &app.get("/api/v1/ca?q=federal%20office&verified=true", &key)
                .await
                .body
        ),
        ["CH"]
    );

    for bad in [
        "page=0",
        "page=x",
        "perPage=0",
        "perPage=501",
        "verified=maybe",
        "page=1&page=2",
        "colour=red",
        "page=99999999999999999999",
    ] {
        let answer = app.get(&format!("/api/v1/ca?{bad}"), &key).await;
        assert_eq!(answer.status, 400, "{bad}: {}", answer.text);
        assert!(
            ["invalid_parameter", "unknown_parameter"].contains(&answer.code()),
            "{bad}"
        );
    }
    assert_eq!(app.get_anonymous("/api/v1/ca").await.status, 401);
}

async fn a_record_as_of_a_past_moment_is_rebuilt_from_its_history(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("max").await;
    let key = app.key().await;
    let before = chrono::Utc::now();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    app.add_country(&token, "GR", "Greece").await;
    let registered = chrono::Utc::now();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let update = app
        .post_as(
            "/api/v1/ca/GR/verifications",
            &token,
            &verification(json!({"ca_name": "Ministry"})),
        )
        .await;
    assert_eq!(update.status, 200, "{}", update.text);

    let at = |t: chrono::DateTime<chrono::Utc>| {
        t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
            .replace('+', "%2B")
    };
    let then = app
        .get(&format!("/api/v1/ca/gr?as_of={}", at(registered)), &key)
        .await;
    assert_eq!(then.status, 200, "{}", then.text);
    assert_eq!(
        (&then.body["version"], &then.body["ca_name"]),
        (&json!(1), &Value::Null)
    );
    let now = app
        .get(
            &format!("/api/v1/ca/GR?as_of={}", at(chrono::Utc::now())),
            &key,
        )
        .await;
    assert_eq!(
        (&now.body["version"], &now.body["ca_name"]),
        (&json!(3), &json!("Ministry"))
    );
    let current = app.get("/api/v1/ca/GR", &key).await;
    assert_eq!(now.body["ca_name"], current.body["ca_name"]);
    let not_yet = app
        .get(&format!("/api/v1/ca/GR?as_of={}", at(before)), &key)
        .await;
    assert_eq!((not_yet.status, not_yet.code()), (404, "country_not_found"));
    let by_date = app
        .get(&format!("/api/v1/ca/GR?as_of={}", today()), &key)
        .await;
    assert_eq!(
        by_date.body["version"], 3,
        "a date means the end of that day"
    );
    let day_before = (chrono::Utc::now().date_naive() - chrono::Days::new(1)).to_string();
    assert_eq!(
        app.get(&format!("/api/v1/ca/GR?as_of={day_before}"), &key)
            .await
            .status,
        404
    );
    for bad in ["as_of=yesterday", "as_of=2024-13-01", "as_of=", "when=now"] {
        let answer = app.get(&format!("/api/v1/ca/GR?{bad}"), &key).await;
        assert_eq!(answer.status, 400, "{bad}");
    }
}

async fn history_is_oldest_first_and_shows_stewards_by_id_and_name_only(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("nia").await;
    let key = app.key().await;
    app.add_country(&token, "IE", "Ireland").await;
    let update = app
        .post_as(
            "/api/v1/ca/IE/verifications",
            &token,
            &verification(json!({"email": "ca@epa.example.ie"})),
        )
        .await;
    assert_eq!(update.status, 200);
    let history = app.get("/api/v1/ca/ie/history", &key).await;
    assert_eq!(history.status, 200, "{}", history.text);
    assert_eq!(history.body["country_code"], "IE");
    let items = history.body["items"].as_array().expect("items");
    let kinds: Vec<_> = items
        .iter()
        .map(|i| (i["sequence"].as_i64(), i["event_type"].as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (Some(1), Some("AuthorityRegistered")),
            (Some(2), Some("ContactDetailsChanged")),
            (Some(3), Some("VerificationRecorded"))
        ]
    );
    for item in items {
        assert_eq!(item["actor"], "steward:nia");
        assert!(item["recorded_at"].is_string() && item["position"].is_i64());
    }
    assert_eq!(items[1]["changes"][0]["field"], "email");
    assert_eq!(items[1]["changes"][0]["new"], "ca@epa.example.ie");
    assert_eq!(
        items[2]["steward"],
        json!({"id": "nia", "name": "Steward nia"})
    );
    assert_eq!(items[2]["method"], "website");
    assert!(
        !history.text.contains("@stewards.example.org"),
        "no steward e-mail: {}",
        history.text
    );
    let unknown = app.get("/api/v1/ca/QZ/history", &key).await;
    assert_eq!((unknown.status, unknown.code()), (404, "country_not_found"));
    assert_eq!(app.get("/api/v1/ca/IRL/history", &key).await.status, 400);
    assert_eq!(app.get_anonymous("/api/v1/ca/IE/history").await.status, 401);
}

async fn the_changes_feed_follows_the_log_with_a_cursor(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("oli").await;
    let key = app.key().await;
    app.add_country(&token, "NO", "Norway").await;
    app.add_country(&token, "DK", "Denmark").await;
    let update = app
        .post_as(
            "/api/v1/ca/NO/verifications",
            &token,
            &verification(json!({"notes": "n"})),
        )
        .await;
    assert_eq!(update.status, 200);
    let mut seen = Vec::new();
    let mut after = 0;
    loop {
        let page = app
            .get(&format!("/api/v1/changes?after={after}&limit=2"), &key)
            .await;
        assert_eq!(page.status, 200, "{}", page.text);
        let items = page.body["items"].as_array().expect("items").clone();
        assert!(items.len() <= 2);
        let next = page.body["next"].as_i64().expect("next");
        if items.is_empty() {
            assert_eq!(next, after, "no news: the cursor stays");
            break;
        }
        assert_eq!(
            Some(next),
            items.last().and_then(|i| i["position"].as_i64())
        );
        for item in items {
            assert!(item["position"].as_i64() > Some(after));
            seen.push((
                item["country_code"].as_str().unwrap_or_default().to_owned(),
                item["event_type"].as_str().unwrap_or_default().to_owned(),
            ));
        }
        after = next;
    }
    let seen: Vec<(&str, &str)> = seen.iter().map(|(c, t)| (c.as_str(), t.as_str())).collect();
    assert_eq!(
        seen,
        [
            ("NO", "AuthorityRegistered"),
            ("DK", "AuthorityRegistered"),
            ("NO", "ContactDetailsChanged"),
            ("NO", "VerificationRecorded")
        ]
    );
    for bad in ["after=-1", "limit=0", "limit=1001", "after=x"] {
        assert_eq!(
            app.get(&format!("/api/v1/changes?{bad}"), &key)
                .await
                .status,
            400,
            "{bad}"
        );
    }
    assert_eq!(app.get_anonymous("/api/v1/changes").await.status, 401);
}

async fn the_register_page_works_without_javascript_and_shows_a_working_key(mode: Mode) {
    let app = App::seeded(mode).await;
    let page = app.send(app.client().get(app.url("/register"))).await;
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/html")));
    for needle in [
        "<html lang=\"en\"",
        "<form method=\"post\" action=\"/register\"",
        "<label for=\"email\">",
        "id=\"email\" name=\"email\" type=\"email\"",
    ] {
        assert!(
            page.text.contains(needle),
            "{needle} missing: {}",
            page.text
        );
    }
    assert!(!page.text.contains("<script"), "no JavaScript needed");

    let form = |email: &str| {
        app.client()
            .post(app.url("/register"))
            .form(&[("email", email)])
    };
    let shown = app.send(form("  Page@Example.org ")).await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    assert_eq!(shown.header("cache-control"), Some("no-store"));
    let key = key_in(&shown.text);
    assert!(key.starts_with("bsl_"), "{key}");
    assert_eq!(
        app.get("/api/v1/ca/DE", &key).await.status,
        200,
        "the key works at once"
    );
    let again = app.send(form("page@example.ORG")).await;
    assert_eq!(
        key_in(&again.text),
        key,
        "the same address gets the same key"
    );
    let json = app
        .send(
            app.client()
                .post(app.url("/register"))
                .json(&json!({"email": "page@example.org"})),
        )
        .await;
    assert_eq!(
        (json.body["api_key"].as_str(), &json.body["created"]),
        (Some(key.as_str()), &json!(false))
    );

    let bad = app.send(form("<script>alert(1)</script>")).await;
    assert_eq!(bad.status, 422);
    assert!(
        bad.text.contains("role=\"alert\"") && bad.text.contains("aria-invalid=\"true\""),
        "{}",
        bad.text
    );
    assert!(
        bad.text.contains("&lt;script&gt;") && !bad.text.contains("<script>"),
        "echo is escaped"
    );
    let empty = app.send(form("")).await;
    assert_eq!(empty.status, 422);
    assert!(empty.text.contains("Enter your e-mail address."));
}

fn key_in(html: &str) -> String {
    let start = html.find("<output id=\"api-key\"").expect("key element");
    let code = html[start..].find("<code>").expect("code") + start + 6;
    let end = html[code..].find("</code>").expect("end") + code;
    html[code..end].to_owned()
}

async fn ops_routes_and_metrics_need_no_key_and_metrics_count_requests(mode: Mode) {
    let app = App::start(mode).await;
    let key = app.key().await;
    for path in ["/healthz", "/api/v1/health"] {
        let answer = app.get_anonymous(path).await;
        assert_eq!(
            (answer.status, &answer.body["status"]),
            (200, &json!("ok")),
            "{path}"
        );
    }
    assert_eq!(app.get_anonymous("/readyz").await.status, 200);
    assert_eq!(app.get("/api/v1/ca/ZZ", &key).await.status, 404);
    assert_eq!(app.get("/api/v1/ca", &key).await.status, 200);
    let metrics = app.get_anonymous("/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(metrics
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/plain")));
    let line = |prefix: &str| {
        metrics
            .text
            .lines()
            .find(|l| l.starts_with(prefix))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {prefix} in {}", metrics.text))
    };
    assert!(line("basel_http_requests_total{route=\"/api/v1/ca/{country_code}\",method=\"GET\",status=\"404\"}") >= 1.0);
    assert!(
        line("basel_http_requests_total{route=\"/api/v1/ca\",method=\"GET\",status=\"200\"}")
            >= 1.0
    );
    assert!(line("basel_http_request_duration_seconds_count{route=\"/api/v1/ca\",method=\"GET\",status=\"200\"}") >= 1.0);
    let head = line("basel_log_head");
    assert!(head >= 1.0, "the key's registration is in the log");
    assert!(line("basel_projection_position{projection=\"api_keys\"}") >= 1.0);
    assert!(line("basel_projection_lag{projection=\"directory\"}") >= 0.0);
    assert_eq!(
        line("basel_projection_halted{projection=\"directory\"}"),
        0.0
    );
    assert!(!metrics.text.contains(&key), "no secret in metrics");
}

async fn errors_are_json_with_a_stable_code_everywhere(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("pia").await;
    app.add_country(&token, "FI", "Finland").await;
    let key = app.key().await;
    let unknown = app.get("/api/v2/nothing", &key).await;
    assert_eq!((unknown.status, unknown.code()), (404, "not_found"));
    let wrong_method = app
        .send(
            app.client()
                .delete(app.url("/api/v1/ca/FI"))
                .header("x-api-key", &key),
        )
        .await;
    assert_eq!(
        (wrong_method.status, wrong_method.code()),
        (405, "method_not_allowed")
    );
    let put = app
        .send(
            app.client()
                .put(app.url("/api/v1/ca/FI/verifications"))
                .bearer_auth(&token),
        )
        .await;
    assert_eq!((put.status, put.code()), (405, "method_not_allowed"));
    let path = app.url("/api/v1/ca/FI/verifications");
    let text = app
        .send(
            app.client()
                .post(&path)
                .bearer_auth(&token)
                .header("content-type", "text/plain")
                .body("verified"),
        )
        .await;
    assert_eq!((text.status, text.code()), (415, "unsupported_media_type"));
    let malformed = app
        .send(
            app.client()
                .post(&path)
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .body("{\"verified\":"),
        )
        .await;
    assert_eq!(
        (malformed.status, malformed.code()),
        (400, "malformed_json")
    );
    let huge = json!({"note": "x".repeat(70 * 1024)});
    let too_large = app
        .post_as("/api/v1/ca/FI/verifications", &token, &huge)
        .await;
    assert_eq!(
        (too_large.status, too_large.code()),
        (413, "payload_too_large")
    );
    let form_too_large = app
        .send(
            app.client()
                .post(app.url("/register"))
                .form(&[("email", "y".repeat(70 * 1024))]),
        )
        .await;
    assert_eq!(
        (form_too_large.status, form_too_large.code()),
        (413, "payload_too_large")
    );
    for answer in [&unknown, &wrong_method, &put, &text, &malformed, &too_large] {
        assert!(
            answer.body["error"].is_string() && answer.body["message"].is_string(),
            "{}",
            answer.text
        );
    }
}

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

both_modes!(
    the_list_covers_every_country_by_default_and_pages_add_up,
    a_record_as_of_a_past_moment_is_rebuilt_from_its_history,
    history_is_oldest_first_and_shows_stewards_by_id_and_name_only,
    the_changes_feed_follows_the_log_with_a_cursor,
    the_register_page_works_without_javascript_and_shows_a_working_key,
    ops_routes_and_metrics_need_no_key_and_metrics_count_requests,
    errors_are_json_with_a_stable_code_everywhere,
    the_openapi_document_is_3_1_public_and_matches_real_answers,
);

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
