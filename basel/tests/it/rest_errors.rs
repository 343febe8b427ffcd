//! Errors everywhere are JSON with a stable `code`: unknown routes, wrong
//! methods, content types, malformed and oversized bodies; in both storage
//! modes.

use serde_json::json;

use crate::inproc::App;
use crate::support::{both_modes, Mode};

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
                .patch(app.url("/api/v1/ca/FI"))
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

both_modes!(errors_are_json_with_a_stable_code_everywhere);
