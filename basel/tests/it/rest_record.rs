//! `GET /api/v1/ca/{cc}?as_of=`: a record as it was at a past moment,
//! rebuilt from its history; in both storage modes.

use serde_json::{json, Value};

use crate::inproc::{today, verification, App};
use crate::support::{both_modes, Mode};

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
    assert_eq!((not_yet.status, not_yet.code()), (404, "not_yet_recorded"));
    assert!(
        not_yet.body["message"]
            .as_str()
            .is_some_and(|m| m.contains(&today())),
        "the answer names the date of the first record: {}",
        not_yet.text
    );
    let unknown = app
        .get(&format!("/api/v1/ca/QZ?as_of={}", at(before)), &key)
        .await;
    assert_eq!((unknown.status, unknown.code()), (404, "country_not_found"));
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

both_modes!(a_record_as_of_a_past_moment_is_rebuilt_from_its_history);
