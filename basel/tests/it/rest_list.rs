//! `GET /api/v1/ca`: every country by default, pages that add up, search,
//! the `verified` and `has_contact` filters, and refused parameters; in both storage modes.

use serde_json::{json, Value};

use crate::inproc::{verification, App};
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
        (&json!(1), &json!(200), &json!(191), &json!(1))
    );
    let every = codes(&all.body);
    assert_eq!(every.len(), 191);
    let mut sorted = every.clone();
    sorted.sort();
    assert_eq!(every, sorted, "sorted by country_code");
    let item = all.body["items"][0].as_object().expect("item");
    assert_eq!(
        item.keys().collect::<Vec<_>>(),
        [
            "ca_name",
            "contacts_count",
            "country_code",
            "country_name",
            "has_competent_authority"
        ]
    );

    let mut paged = Vec::new();
    for page in 1..=4 {
        let answer = app
            .get(&format!("/api/v1/ca?page={page}&perPage=50"), &key)
            .await;
        assert_eq!(
            (&answer.body["totalPages"], &answer.body["totalItems"]),
            (&json!(4), &json!(191))
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
        191
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
    let with = app.get("/api/v1/ca?has_contact=true", &key).await.body;
    let without = app.get("/api/v1/ca?has_contact=false", &key).await.body;
    let (with, without) = (codes(&with), codes(&without));
    assert_eq!(
        with.len() + without.len(),
        191,
        "has_contact splits the list"
    );
    assert!(with.contains(&"CH".to_owned()), "CH now has an e-mail");
    assert!(without.iter().all(|code| !with.contains(code)));
    assert_eq!(
        codes(
            &app.get("/api/v1/ca?has_contact=true&verified=true", &key)
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
        "has_contact=1",
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

both_modes!(the_list_covers_every_country_by_default_and_pages_add_up);
