//! `GET /api/v1/ca/{cc}/history`: oldest first, stewards by id and name
//! only; in both storage modes.

use serde_json::json;

use crate::inproc::{verification, App};
use crate::support::{both_modes, Mode};

async fn history_is_oldest_first_and_shows_stewards_by_id_and_name_only(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("nia").await;
    let key = app.key().await;
    // A record with a competent authority: the check corrects that contact.
    let created = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "IE", "country_name": "Ireland", "ca_name": "EPA"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
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

both_modes!(history_is_oldest_first_and_shows_stewards_by_id_and_name_only);

/// History comes a page at a time: `limit` entries after `after`, with
/// `next` and `has_more`; following `next` reads every entry exactly once.
/// The MCP tool pages the same way.
async fn history_is_paginated_with_after_and_limit(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("pia").await;
    let key = app.key().await;
    let created = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "IE", "country_name": "Ireland", "ca_name": "EPA"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    for n in 0..3 {
        let email = format!("ca{n}@epa.example.ie");
        let update = app
            .post_as(
                "/api/v1/ca/IE/verifications",
                &token,
                &verification(json!({ "email": email })),
            )
            .await;
        assert_eq!(update.status, 200, "{}", update.text);
    }
    let all = app.get("/api/v1/ca/IE/history?limit=1000", &key).await;
    assert_eq!(all.status, 200, "{}", all.text);
    let every: Vec<i64> = all.body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["sequence"].as_i64().expect("sequence"))
        .collect();
    assert!(every.len() >= 7, "{every:?}");
    assert_eq!(all.body["has_more"], false);
    let (mut after, mut read) = (0_i64, Vec::new());
    loop {
        let page = app
            .get(
                &format!("/api/v1/ca/IE/history?after={after}&limit=2"),
                &key,
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.text);
        let items = page.body["items"].as_array().expect("items");
        assert!(items.len() <= 2);
        read.extend(
            items
                .iter()
                .map(|i| i["sequence"].as_i64().expect("sequence")),
        );
        after = page.body["next"].as_i64().expect("next");
        if page.body["has_more"] == false {
            break;
        }
        assert_eq!(items.len(), 2);
    }
    assert_eq!(read, every);
    assert_eq!(after, *every.last().expect("one entry"));
    // Past the end: an empty page, not a 404.
    let past = app
        .get(&format!("/api/v1/ca/IE/history?after={after}"), &key)
        .await;
    assert_eq!(past.status, 200, "{}", past.text);
    assert_eq!(past.body["items"], json!([]));
    assert_eq!(past.body["next"], after);
    for bad in ["limit=0", "limit=1001", "after=-1", "after=x"] {
        let answer = app.get(&format!("/api/v1/ca/IE/history?{bad}"), &key).await;
        assert_eq!(answer.status, 400, "{bad}: {}", answer.text);
    }
    let unknown = app.get("/api/v1/ca/QZ/history", &key).await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);
}

both_modes!(history_is_paginated_with_after_and_limit);
