//! `POST /register` (JSON) and `POST /api/v1/classify` against the running binary.

use serde_json::{json, Value};

use crate::process::{Basel, Node};

async fn post(
    server: &Node,
    path: &str,
    key: Option<&str>,
    body: reqwest::Body,
    content_type: &str,
) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("{}{path}", server.base))
        .header("content-type", content_type)
        .body(body);
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    let response = request.send().await.expect("response");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn post_json(server: &Node, path: &str, key: Option<&str>, body: &Value) -> (u16, Value) {
    post(
        server,
        path,
        key,
        body.to_string().into(),
        "application/json",
    )
    .await
}

async fn register(server: &Node, email: &str) -> Value {
    let (status, body) = post_json(server, "/register", None, &json!({ "email": email })).await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn registration_returns_a_key_that_works_at_once_and_the_same_key_again() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let first = register(&server, "Ana@Example.org").await;
    assert_eq!(first["created"], true);
    let key = first["api_key"].as_str().expect("key").to_owned();
    let (status, _) = post_json(
        &server,
        "/api/v1/classify",
        Some(&key),
        &json!({ "description": "waste lead-acid batteries" }),
    )
    .await;
    assert_eq!(status, 200, "the key must work on the very next request");
    let again = register(&server, "  ana@example.ORG ").await;
    assert_eq!(again["api_key"], first["api_key"]);
    assert_eq!(again["created"], false);
    let other = register(&server, "bob@example.org").await;
    assert_ne!(other["api_key"], first["api_key"]);
    server.stop();
}

#[tokio::test]
async fn registration_refuses_invalid_addresses_with_422() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    for body in [
        json!({ "email": "nope" }),
        json!({}),
        json!({ "email": 7 }),
        json!(["a@b.org"]),
    ] {
        let (status, answer) = post_json(&server, "/register", None, &body).await;
        assert_eq!(status, 422, "{body} → {answer}");
        assert_eq!(answer["code"], "validation_failed");
    }
    server.stop();
}

#[tokio::test]
async fn classify_needs_a_valid_key_and_says_which_problem_in_exactly_three_fields() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let body = json!({ "description": "used tyres" });
    let call = |headers: Vec<(&'static str, String)>| {
        let mut request = server
            .http
            .post(format!("{}/api/v1/classify", server.base))
            .json(&body);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        async move {
            let response = request.send().await.expect("answer");
            let status = response.status().as_u16();
            let challenge = response
                .headers()
                .get("www-authenticate")
                .map(|v| v.to_str().expect("ascii").to_owned());
            (
                status,
                challenge,
                response.json::<Value>().await.expect("json"),
            )
        }
    };
    let (status, challenge, missing) = call(vec![]).await;
    assert_eq!(
        (status, challenge.as_deref()),
        (401, Some("Bearer realm=\"basel\""))
    );
    assert_eq!(missing["error"], "API key required");
    for wrong in [
        vec![("x-api-key", "bsl_not_a_key".to_owned())],
        vec![("authorization", "Bearer bsl_not_a_key".to_owned())],
    ] {
        let (status, challenge, body) = call(wrong).await;
        assert_eq!(status, 401);
        assert_eq!(
            challenge.as_deref(),
            Some("Bearer realm=\"basel\", error=\"invalid_token\""),
        );
        assert_eq!(body["error"], "API key not accepted", "{body}");
        assert_eq!(body.as_object().map(|o| o.len()), Some(3), "{body}");
    }
    let fields = missing.as_object().expect("object");
    assert_eq!(fields.len(), 3);
    for field in ["error", "message", "help"] {
        assert!(fields[field].is_string(), "{field} must be a string");
    }
    let message = fields["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("X-API-Key") && message.contains("Bearer"),
        "{message}"
    );
    assert!(fields["help"]
        .as_str()
        .unwrap_or_default()
        .contains("/register"));
    // A key works in either header, as on the MCP server; a name works as a country.
    let key = server.register("bearer@example.org").await;
    let (status, _, answer) = call(vec![("authorization", format!("Bearer {key}"))]).await;
    assert_eq!(status, 200, "{answer}");
    let named = server
        .http
        .post(format!("{}/api/v1/classify", server.base))
        .header("x-api-key", &key)
        .json(&json!({"description": "used lead-acid batteries", "origin": "Germany", "destination": "viet nam"}))
        .send()
        .await
        .expect("answer");
    assert_eq!(named.status().as_u16(), 200);
    let answer: Value = named.json().await.expect("json");
    assert!(answer["procedure"].is_object(), "{answer}");
    server.stop();
}

#[tokio::test]
async fn classify_answers_every_result_field_and_the_procedure_for_a_country_pair() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = register(&server, "c@example.org").await["api_key"]
        .as_str()
        .expect("key")
        .to_owned();
    let (status, result) = post_json(
        &server,
        "/api/v1/classify",
        Some(&key),
        &json!({ "description": "Spent lead-acid car batteries", "origin": "de", "destination": "NG" }),
    )
    .await;
    assert_eq!(status, 200, "{result}");
    for field in [
        "y_codes",
        "a_codes",
        "b_codes",
        "h_codes",
        "un_codes",
        "list_type",
        "pic_required",
        "overall_confidence",
        "disclaimer",
    ] {
        assert!(result.get(field).is_some(), "{field} missing");
    }
    assert_eq!(result["list_type"], "Amber");
    assert_eq!(result["a_codes"][0]["code"], "A1160");
    assert_eq!(result["procedure"]["prohibited"], true);
    let (_, vague) = post_json(
        &server,
        "/api/v1/classify",
        Some(&key),
        &json!({ "description": "stuff" }),
    )
    .await;
    assert!(vague["overall_confidence"].as_f64().unwrap_or(1.0) < 0.2);
    assert_eq!(vague["pic_required"], true);
    server.stop();
}

#[tokio::test]
async fn classify_bad_input_gets_the_right_status_and_names_the_field() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = register(&server, "d@example.org").await["api_key"]
        .as_str()
        .expect("key")
        .to_owned();
    let long = "a".repeat(5001);
    let cases = [
        (json!({}), "description"),
        (json!({ "description": 42 }), "description"),
        (json!({ "description": "   " }), "description"),
        (json!({ "description": long }), "description"),
        (json!({ "description": "tyres", "origin": "DEU" }), "origin"),
        (
            json!({ "description": "tyres", "destination": 5 }),
            "destination",
        ),
        (json!("just a string"), "body"),
    ];
    for (body, field) in cases {
        let (status, answer) = post_json(&server, "/api/v1/classify", Some(&key), &body).await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(answer["errors"][0]["field"], field, "{answer}");
    }
    let (malformed, answer) = post(
        &server,
        "/api/v1/classify",
        Some(&key),
        "{\"description\":".into(),
        "application/json",
    )
    .await;
    assert_eq!(
        (malformed, answer["code"].as_str()),
        (400, Some("malformed_json"))
    );
    let (wrong_type, answer) = post(
        &server,
        "/api/v1/classify",
        Some(&key),
        "description=tyres".into(),
        "text/plain",
    )
    .await;
    assert_eq!(
        (wrong_type, answer["code"].as_str()),
        (415, Some("unsupported_media_type"))
    );
    let huge = json!({ "description": "x".repeat(70 * 1024) });
    let (too_large, answer) = post_json(&server, "/api/v1/classify", Some(&key), &huge).await;
    assert_eq!(
        (too_large, answer["code"].as_str()),
        (413, Some("payload_too_large"))
    );
    let wrong_method = reqwest::Client::new()
        .get(format!("{}/api/v1/classify", server.base))
        .header("x-api-key", &key)
        .send()
        .await
        .expect("response");
    assert_eq!(wrong_method.status().as_u16(), 405);
    server.stop();
}
