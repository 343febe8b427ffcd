//! Steward writes over REST, and the record they answer with, in both storage
//! modes: `POST /api/v1/ca`, `POST /api/v1/ca/{cc}/verifications`,
//! `GET /api/v1/ca/{cc}`.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::inproc::{today, App};
use crate::support::{both_modes, Mode};

fn check(date: &str) -> Value {
    json!({
        "verified": true,
        "checked_on": date,
        "method": "email",
        "source": "reply from the ministry, ref 12/2025",
        "note": "confirmed by phone as well",
        "changes": {
            "ca_name": "Ministry of Environment",
            "email": "Basel@Ministry.example.org",
            "phone": "+49-30-1234-5678",
        }
    })
}

async fn a_verification_answers_with_the_record_as_get_now_returns_it(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;
    let created = app.add_country(&token, "de", "Germany").await;
    assert_eq!(created.header("location"), Some("/api/v1/ca/DE"));
    assert_eq!(created.body["version"], 1);

    let answer = app
        .post_as("/api/v1/ca/de/verifications", &token, &check(&today()))
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let record = answer.body.clone();
    assert_eq!(record["country_code"], "DE");
    assert_eq!(record["verified"], true);
    assert_eq!(record["ca_name"], "Ministry of Environment");
    assert_eq!(
        record["email"], "Basel@ministry.example.org",
        "the domain is lower-cased"
    );
    assert_eq!(record["email_primary"], record["email"]);
    assert_eq!(record["last_checked"], today());
    assert_eq!(record["last_verified_date"], today());
    assert_eq!(record["source"], "reply from the ministry, ref 12/2025");
    assert_eq!(record["provenance"]["steward"], "ana");
    assert_eq!(record["provenance"]["method"], "email");
    assert_eq!(record["stale"], false);
    assert_eq!(record["version"], 3, "changes and verification: two events");

    let read = app.get("/api/v1/ca/De", &key).await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body, record, "the write answers what GET returns");

    let unchanged = app
        .post_as("/api/v1/ca/DE/verifications", &token, &check(&today()))
        .await;
    assert_eq!(unchanged.status, 200, "{}", unchanged.text);
    assert_eq!(
        unchanged.body["version"], 4,
        "a check that changes nothing is still recorded"
    );
}

async fn adding_a_country_answers_201_with_location_and_409_when_it_exists(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ben").await;
    let key = app.key().await;
    let body = json!({
        "country_code": "tv", "country_name": "Tuvalu", "ca_name": "Ministry",
        "email": "ca@example.org", "phone": "+688-2010-0100", "address": "Funafuti",
        "verified": true, "last_checked": today(), "source": "official letter",
    });
    let created = app.post_as("/api/v1/ca", &token, &body).await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(created.header("location"), Some("/api/v1/ca/TV"));
    assert_eq!(created.body["verified"], true);
    let read = app.get("/api/v1/ca/TV", &key).await;
    assert_eq!(read.body, created.body);

    let again = app.post_as("/api/v1/ca", &token, &body).await;
    assert_eq!(again.status, 409, "{}", again.text);
    assert_eq!(again.code(), "already_exists");

    let history = app.get("/api/v1/ca/TV", &key).await;
    assert_eq!(history.body["version"], 1, "the refused write left nothing");
}

async fn steward_writes_refuse_missing_wrong_and_api_key_credentials_with_401(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("cleo").await;
    let key = app.key().await;
    app.add_country(&token, "FR", "France").await;
    let path = "/api/v1/ca/FR/verifications";
    let body = check(&today());
    let cases = [
        (
            "no credentials",
            app.client().post(app.url(path)).json(&body),
        ),
        (
            "wrong token",
            app.client()
                .post(app.url(path))
                .bearer_auth("bst_0000")
                .json(&body),
        ),
        (
            "API key as bearer",
            app.client()
                .post(app.url(path))
                .bearer_auth(&key)
                .json(&body),
        ),
        (
            "API key header",
            app.client()
                .post(app.url(path))
                .header("x-api-key", &key)
                .json(&body),
        ),
        (
            "token with another scheme",
            app.client()
                .post(app.url(path))
                .header("authorization", format!("Basic {token}"))
                .json(&body),
        ),
        (
            "create with an API key",
            app.client()
                .post(app.url("/api/v1/ca"))
                .header("x-api-key", &key)
                .json(&json!({"country_code": "BE", "country_name": "Belgium"})),
        ),
    ];
    for (case, request) in cases {
        let answer = app.send(request).await;
        assert_eq!(answer.status, 401, "{case}: {}", answer.text);
        assert_eq!(answer.code(), "steward_token_required", "{case}");
        assert!(answer
            .header("www-authenticate")
            .is_some_and(|h| h.starts_with("Bearer")));
        assert!(
            !answer.text.contains(&key) && !answer.text.contains(&token),
            "{case}"
        );
    }
    let record = app.get("/api/v1/ca/FR", &key).await;
    assert_eq!(record.body["version"], 1, "nothing was written");
    assert_eq!(app.get("/api/v1/ca/BE", &key).await.status, 404);
}

async fn a_suspended_steward_gets_403(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("dora").await;
    app.add_country(&token, "IT", "Italy").await;
    app.suspend("dora").await;
    let answer = app
        .post_as("/api/v1/ca/IT/verifications", &token, &check(&today()))
        .await;
    assert_eq!(answer.status, 403, "{}", answer.text);
    assert_eq!(answer.code(), "steward_suspended");
    let create = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "ES", "country_name": "Spain"}),
        )
        .await;
    assert_eq!(create.status, 403);
}

async fn invalid_writes_get_422_naming_every_field(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("eli").await;
    app.add_country(&token, "PT", "Portugal").await;
    let path = "/api/v1/ca/PT/verifications";
    let cases: [(Value, &[&str]); 5] = [
        (json!({}), &["verified", "checked_on", "method", "source"]),
        (
            json!({"verified": "yes", "checked_on": "2025-1-1", "method": "fax", "source": 3, "colour": 1}),
            &["verified", "checked_on", "method", "source", "colour"],
        ),
        (
            json!({"verified": false, "checked_on": "2999-01-01", "method": "email", "source": "x",
                   "changes": {"email": "not-an-address", "phone": "0049 30 1"}}),
            &["checked_on", "changes.email", "changes.phone"],
        ),
        (
            json!({"verified": true, "checked_on": today(), "method": "phone", "source": "call"}),
            &["ca_name", "email", "phone"],
        ),
        (json!([1, 2]), &["body"]),
    ];
    for (body, fields) in cases {
        let answer = app.post_as(path, &token, &body).await;
        assert_eq!(answer.status, 422, "{body} → {}", answer.text);
        assert_eq!(answer.code(), "validation_failed");
        let named: Vec<&str> = answer.body["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| {
                assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
                e["field"].as_str().unwrap_or_default()
            })
            .collect();
        assert_eq!(named, fields, "{body}");
    }
    let create = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "PRT", "email": "x"}),
        )
        .await;
    assert_eq!(create.status, 422);
    let unknown = app
        .post_as("/api/v1/ca/QQ/verifications", &token, &check(&today()))
        .await;
    assert_eq!((unknown.status, unknown.code()), (404, "country_not_found"));
    let malformed = app
        .post_as("/api/v1/ca/Q1/verifications", &token, &check(&today()))
        .await;
    assert_eq!(
        (malformed.status, malformed.code()),
        (400, "invalid_country_code")
    );
}

async fn a_stale_expected_version_gets_409_and_concurrent_updates_on_one_version_apply_once(
    mode: Mode,
) {
    let app = App::start(mode).await;
    let token = app.enrol("finn").await;
    let key = app.key().await;
    app.add_country(&token, "NL", "Netherlands").await;
    let path = "/api/v1/ca/NL/verifications";
    let mut body = check(&today());
    body["expected_version"] = json!(1);
    let first = app.post_as(path, &token, &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let stale = app.post_as(path, &token, &body).await;
    assert_eq!((stale.status, stale.code()), (409, "version_mismatch"));

    body["expected_version"] = first.body["version"].clone();
    body["changes"] = json!({"notes": "racing"});
    let racers = (0..8).map(|_| app.post_as(path, &token, &body));
    let answers = futures_join(racers).await;
    let statuses: Vec<u16> = answers.iter().map(|a| a.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        7,
        "{statuses:?}"
    );
    let record = app.get("/api/v1/ca/NL", &key).await;
    assert_eq!(
        record.body["version"], 5,
        "exactly one racer applied (two events)"
    );
}

async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let handles: Vec<_> = futures.collect();
    let mut out = Vec::new();
    let joined = futures::future::join_all(handles).await;
    out.extend(joined);
    out
}

async fn get_record_is_case_insensitive_404_when_unknown_400_when_malformed(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let record = app.get("/api/v1/ca/ch", &key).await;
    assert_eq!(record.status, 200, "{}", record.text);
    for field in [
        "country_code",
        "country_name",
        "ca_name",
        "email",
        "phone",
        "address",
        "verified",
        "last_checked",
        "email_primary",
        "last_verified_date",
        "notes",
        "source",
        "stale",
        "version",
    ] {
        assert!(
            record.body.get(field).is_some(),
            "{field} missing: {}",
            record.text
        );
    }
    assert_eq!(record.body["country_code"], "CH");
    assert_eq!(record.body["country_name"], "Switzerland");
    assert_eq!(
        record.body["verified"], false,
        "seeded records are unverified"
    );
    assert_eq!(record.body["stale"], true, "sources are from 2002–2006");
    let unknown = app.get("/api/v1/ca/ZZ", &key).await;
    assert_eq!((unknown.status, unknown.code()), (404, "country_not_found"));
    for bad in ["C", "CHE", "C1", "%C3%A9e", "%20"] {
        let answer = app.get(&format!("/api/v1/ca/{bad}"), &key).await;
        assert_eq!(
            (answer.status, answer.code()),
            (400, "invalid_country_code"),
            "{bad}"
        );
    }
    let anonymous = app.get_anonymous("/api/v1/ca/CH").await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.body.as_object().map(|o| o.len()), Some(3));
}

async fn an_unreachable_event_store_gets_503_json_within_5_s(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("gus").await;
    app.add_country(&token, "AT", "Austria").await;
    app.settle().await;
    let mut runtime = app.runtime.clone();
    runtime.backend = crate::broken_store::unreachable_backend(mode, &app.store).await;
    let broken = App::serve(crate::support::Store::embedded(), runtime).await;
    let started = Instant::now();
    let answer = broken
        .post_as("/api/v1/ca/AT/verifications", &token, &check(&today()))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        (answer.status, answer.code()),
        (503, "unavailable"),
        "{}",
        answer.text
    );
    assert_eq!(answer.body["error"], "service unavailable");
    let create = broken
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "LI", "country_name": "Liechtenstein"}),
        )
        .await;
    assert_eq!((create.status, create.code()), (503, "unavailable"));
}

async fn a_write_the_directory_does_not_show_within_2_s_answers_202_with_location(mode: Mode) {
    let app = App::start_stalled(mode).await;
    let token = app.enrol("ivy").await;
    app.runtime.catch_up().await.expect("steward projected");
    let created = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "LU", "country_name": "Luxembourg"}),
        )
        .await;
    assert_eq!(created.status, 202, "{}", created.text);
    assert_eq!(created.header("location"), Some("/api/v1/ca/LU"));
    assert_eq!(
        (&created.body["status"], &created.body["version"]),
        (&json!("accepted"), &json!(1))
    );
    app.runtime.catch_up().await.expect("catch up");
    let update = app
        .post_as("/api/v1/ca/LU/verifications", &token, &check(&today()))
        .await;
    assert_eq!(update.status, 202, "{}", update.text);
    assert_eq!(update.body["version"], 3);
    app.runtime.catch_up().await.expect("catch up");
    let key = app.key_after_catch_up().await;
    let record = app.get("/api/v1/ca/LU", &key).await;
    assert_eq!(
        (record.status, &record.body["version"]),
        (200, &json!(3)),
        "the write was committed"
    );
}

both_modes!(
    a_write_the_directory_does_not_show_within_2_s_answers_202_with_location,
    a_verification_answers_with_the_record_as_get_now_returns_it,
    adding_a_country_answers_201_with_location_and_409_when_it_exists,
    steward_writes_refuse_missing_wrong_and_api_key_credentials_with_401,
    a_suspended_steward_gets_403,
    invalid_writes_get_422_naming_every_field,
    a_stale_expected_version_gets_409_and_concurrent_updates_on_one_version_apply_once,
    get_record_is_case_insensitive_404_when_unknown_400_when_malformed,
    an_unreachable_event_store_gets_503_json_within_5_s,
);

/// With the whole PostgreSQL database gone (connections refused), reads and
/// writes answer 503 JSON, never hang past 5 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_going_away_gets_503_json_within_5_s_for_reads_and_writes() {
    let app = App::start(Mode::Postgres).await;
    let token = app.enrol("hal").await;
    let key = app.key().await;
    app.add_country(&token, "SE", "Sweden").await;
    crate::broken_store::cut_off(&app.store).await;
    for (what, request) in [
        (
            "write",
            app.client()
                .post(app.url("/api/v1/ca/SE/verifications"))
                .bearer_auth(&token)
                .json(&check(&today())),
        ),
        (
            "read",
            app.client()
                .get(app.url("/api/v1/ca/SE"))
                .header("x-api-key", &key),
        ),
    ] {
        let started = Instant::now();
        let answer = app.send(request).await;
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{what}: {:?}",
            started.elapsed()
        );
        assert_eq!(
            (answer.status, answer.code()),
            (503, "unavailable"),
            "{what}: {}",
            answer.text
        );
    }
}
