//! The small truths of the REST edge a new user meets: absolute URLs (the
//! OpenAPI `servers`, the key page's example), one sentence per form error,
//! the start page's figures, `has_more` at the end of the changes feed, and
//! `x-request-id` on every answer, errors included.

use crate::inproc::App;
use crate::support::Mode;

#[tokio::test]
async fn the_openapi_document_names_the_server_it_is_served_from() {
    let app = App::start(Mode::Embedded).await;
    let answer = app.get_anonymous("/api/v1/openapi.json").await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.body["servers"][0]["url"], app.base.as_str());
}

#[tokio::test]
async fn the_key_page_example_is_an_absolute_url_and_a_bad_address_gets_one_sentence() {
    let app = App::start(Mode::Embedded).await;
    let page = app
        .send(
            app.client()
                .post(app.url("/register"))
                .form(&[("email", "page.user@example.org")]),
        )
        .await;
    assert_eq!(page.status, 200);
    assert!(
        page.text.contains(&format!("{}/api/v1/ca/DE", app.base)),
        "{}",
        page.text
    );
    let refused = app
        .send(
            app.client()
                .post(app.url("/register"))
                .form(&[("email", "not-an-address")]),
        )
        .await;
    assert_eq!(refused.status, 422);
    let alert = refused
        .text
        .split("role=\"alert\">")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .expect("an alert")
        .to_owned();
    assert!(!alert.contains("is not valid"), "{alert}");
    assert_eq!(
        alert.matches("e-mail address").count(),
        1,
        "one sentence: {alert}"
    );
}

#[tokio::test]
async fn the_start_page_counts_what_the_directory_holds() {
    let app = App::seeded(Mode::Embedded).await;
    let key = app.key().await;
    let all = app.get("/api/v1/ca", &key).await.body["totalItems"]
        .as_i64()
        .expect("total");
    let verified = app.get("/api/v1/ca?verified=true", &key).await.body["totalItems"]
        .as_i64()
        .expect("total");
    let page = app.get_anonymous("/").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let figure = |id: &str| -> i64 {
        page.text
            .split(&format!("id=\"{id}\">"))
            .nth(1)
            .and_then(|rest| rest.split('<').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{id} missing"))
    };
    assert_eq!(figure("coverage-records"), all);
    assert_eq!(figure("coverage-verified"), verified);
    let contact = figure("coverage-contact");
    assert!(contact > 0 && contact < all, "{contact} of {all}");
    assert!(!page.text.contains("<script"));
}

#[tokio::test]
async fn the_changes_feed_says_when_nothing_follows() {
    let app = App::seeded(Mode::Embedded).await;
    let key = app.key().await;
    let first = app.get("/api/v1/changes?after=0&limit=10", &key).await;
    assert_eq!(first.body["has_more"], true);
    let mut after = 0;
    let mut pages = 0;
    loop {
        let page = app
            .get(&format!("/api/v1/changes?after={after}&limit=1000"), &key)
            .await;
        assert_eq!(page.status, 200);
        pages += 1;
        after = page.body["next"].as_i64().expect("next");
        if page.body["has_more"] == false {
            break;
        }
        assert!(pages < 10, "the feed never ends");
    }
    let past = app
        .get(&format!("/api/v1/changes?after={after}"), &key)
        .await;
    assert_eq!(past.body["has_more"], false);
    assert_eq!(past.body["items"].as_array().map(Vec::len), Some(0));
}

#[tokio::test]
async fn every_answer_carries_a_server_request_id_and_a_sane_client_one_beside_it() {
    let app = App::start(Mode::Embedded).await;
    for (path, status) in [("/nope", 404), ("/api/v1/ca", 401), ("/healthz", 200)] {
        let answer = app.get_anonymous(path).await;
        assert_eq!(answer.status, status, "{path}");
        let id = answer
            .header("x-request-id")
            .unwrap_or_else(|| panic!("{path}: no x-request-id"));
        assert_eq!(id.len(), 36, "{path}: {id}");
    }
    let answer = app
        .send(
            app.client()
                .delete(app.url("/healthz"))
                .header("x-request-id", "kept.id-1"),
        )
        .await;
    assert_eq!(answer.status, 405);
    assert_eq!(answer.header("x-request-id").map(str::len), Some(36));
    assert_eq!(answer.header("x-client-request-id"), Some("kept.id-1"));
}
