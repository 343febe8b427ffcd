//! `/register` as a page: works without JavaScript, shows a working key, and
//! agrees with the JSON form; in both storage modes.

use serde_json::json;

use crate::inproc::App;
use crate::support::{both_modes, Mode};

fn key_in(html: &str) -> String {
    let start = html.find("<output id=\"api-key\"").expect("key element");
    let code = html[start..].find("<code>").expect("code") + start + 6;
    let end = html[code..].find("</code>").expect("end") + code;
    html[code..end].to_owned()
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

both_modes!(the_register_page_works_without_javascript_and_shows_a_working_key);
