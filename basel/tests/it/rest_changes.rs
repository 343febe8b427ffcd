//! `GET /api/v1/changes`: the feed follows the log with a cursor; in both
//! storage modes.

use serde_json::json;

use crate::inproc::{verification, App};
use crate::support::{both_modes, Mode};

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

both_modes!(the_changes_feed_follows_the_log_with_a_cursor);
