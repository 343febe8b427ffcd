//! Idempotent writes and read-your-writes on any replica:
//! `Idempotency-Key` on steward and registration writes, `X-Basel-Position`
//! on their answers, `min_position` on reads; in both storage modes, and
//! across two server-mode replicas.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::inproc::{today, verification, Answer, App};
use crate::process::{Basel, Nats};
use crate::support::{both_modes, count_events, Mode};

/// A steward's check of `code` under `key`.
async fn check_with_key(app: &App, token: &str, code: &str, key: &str, body: &Value) -> Answer {
    app.send(
        app.client()
            .post(app.url(&format!("/api/v1/ca/{code}/verifications")))
            .bearer_auth(token)
            .header("idempotency-key", key)
            .json(body),
    )
    .await
}

fn position(answer: &Answer) -> i64 {
    answer
        .header("x-basel-position")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no X-Basel-Position on {answer:?}"))
}

async fn a_retried_write_is_answered_as_the_first_and_writes_nothing(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    app.add_country(&token, "de", "Germany").await;
    let body = verification(json!({ "notes": "first" }));
    let before = count_events(&app.store, "authority").await;

    let first = check_with_key(&app, &token, "DE", "key-1", &body).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.header("idempotent-replayed"), None);
    let written = count_events(&app.store, "authority").await;
    assert!(written > before, "the first request writes");

    let retry = check_with_key(&app, &token, "DE", "key-1", &body).await;
    assert_eq!(retry.status, 200, "{}", retry.text);
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(
        retry.body, first.body,
        "the retry answers the original record"
    );
    assert_eq!(position(&retry), position(&first));
    assert_eq!(
        count_events(&app.store, "authority").await,
        written,
        "the retry writes nothing"
    );

    // The same key with another body: refused, nothing written.
    let other = verification(json!({ "notes": "second" }));
    let reused = check_with_key(&app, &token, "DE", "key-1", &other).await;
    assert_eq!(
        (reused.status, reused.code()),
        (422, "idempotency_key_reused"),
        "{}",
        reused.text
    );
    assert_eq!(count_events(&app.store, "authority").await, written);

    // Keys are scoped to their sender: another steward's same key is new.
    let ben = app.enrol("ben").await;
    let theirs = check_with_key(&app, &ben, "DE", "key-1", &other).await;
    assert_eq!(theirs.status, 200, "{}", theirs.text);
    assert_eq!(theirs.header("idempotent-replayed"), None);

    // A fresh key writes again.
    let fresh = check_with_key(&app, &token, "DE", "key-2", &body).await;
    assert_eq!(fresh.status, 200, "{}", fresh.text);
    assert!(position(&fresh) > position(&theirs));
}

async fn concurrent_retries_under_one_key_write_once(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    app.add_country(&token, "fr", "France").await;
    app.add_country(&token, "de", "Germany").await;
    let body = verification(json!({ "notes": "raced" }));

    // What one such request writes, alone.
    let before = count_events(&app.store, "authority").await;
    let solo = check_with_key(&app, &token, "DE", "solo", &body).await;
    assert_eq!(solo.status, 200, "{}", solo.text);
    let by_one = count_events(&app.store, "authority").await - before;

    let before = count_events(&app.store, "authority").await;
    let answers = futures::future::join_all(
        (0..8).map(|_| check_with_key(&app, &token, "FR", "same-key", &body)),
    )
    .await;
    let written = count_events(&app.store, "authority").await - before;
    assert_eq!(
        written, by_one,
        "eight racing requests under one key wrote what one writes"
    );
    for answer in &answers {
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.body["version"], answers[0].body["version"]);
        assert_eq!(position(answer), position(&answers[0]));
    }
    let replayed = answers
        .iter()
        .filter(|a| a.header("idempotent-replayed") == Some("true"))
        .count();
    assert_eq!(
        replayed, 7,
        "one request wrote, seven were answered from it"
    );
}

async fn bad_idempotency_keys_are_refused(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    app.add_country(&token, "de", "Germany").await;
    let body = verification(json!({ "notes": "x" }));
    for key in ["", &"k".repeat(256), "two words"] {
        let answer = check_with_key(&app, &token, "DE", key, &body).await;
        assert_eq!(
            (answer.status, answer.code()),
            (400, "invalid_idempotency_key"),
            "{key:?}: {}",
            answer.text
        );
    }
    // A client cannot pose as the layer's digest.
    let forged = app
        .send(
            app.client()
                .post(app.url("/api/v1/ca/DE/verifications"))
                .bearer_auth(&token)
                .header("x-basel-internal-request-digest", "0".repeat(64))
                .json(&body),
        )
        .await;
    assert_eq!(forged.status, 200, "{}", forged.text);
}

async fn a_retried_registration_answers_the_original(mode: Mode) {
    let app = App::start(mode).await;
    let register = |email: &str, key: &str| {
        app.client()
            .post(app.url("/register"))
            .header("idempotency-key", key)
            .json(&json!({ "email": email }))
    };
    let first = app.send(register("idem@example.org", "reg-1")).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.body["created"], true);
    assert!(position(&first) > 0);
    let events = count_events(&app.store, "api_key").await;

    let retry = app.send(register("idem@example.org", "reg-1")).await;
    assert_eq!(retry.status, 200, "{}", retry.text);
    assert_eq!(retry.body, first.body, "created: true and the same key");
    assert_eq!(retry.header("idempotent-replayed"), Some("true"));
    assert_eq!(count_events(&app.store, "api_key").await, events);

    // Without the key, the same address is answered as already registered.
    let plain = app
        .send(
            app.client()
                .post(app.url("/register"))
                .json(&json!({ "email": "idem@example.org" })),
        )
        .await;
    assert_eq!(plain.body["created"], false);

    let reused = app.send(register("other@example.org", "reg-1")).await;
    assert_eq!(
        (reused.status, reused.code()),
        (422, "idempotency_key_reused"),
        "{}",
        reused.text
    );
}

/// A read with `min_position` waits for the projections (here stalled: they
/// move only when the test applies the log), then answers 503 with
/// `Retry-After`; once they have applied it, the read shows the write.
async fn a_read_with_min_position_waits_for_the_write(mode: Mode) {
    let app = App::start_stalled(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key_after_catch_up().await;
    let created = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({ "country_code": "de", "country_name": "Germany" }),
        )
        .await;
    assert!([201, 202].contains(&created.status), "{}", created.text);
    let written = position(&created);
    app.runtime.catch_up().await.expect("catch up");

    let check = app
        .post_as(
            "/api/v1/ca/DE/verifications",
            &token,
            &verification(json!({ "notes": "after the stall" })),
        )
        .await;
    assert_eq!(
        check.status, 202,
        "the stalled directory cannot show it: {}",
        check.text
    );
    let at = position(&check);
    assert!(at > written);

    let started = Instant::now();
    let early = app
        .get(&format!("/api/v1/ca/DE?min_position={at}"), &key)
        .await;
    assert_eq!(
        (early.status, early.code()),
        (503, "not_caught_up"),
        "{}",
        early.text
    );
    assert_eq!(early.header("retry-after"), Some("1"));
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "it waited first"
    );

    // Without min_position the replica serves what it has.
    let stale = app.get("/api/v1/ca/DE", &key).await;
    assert_eq!(stale.status, 200);
    assert!(!stale.text.contains("after the stall"), "{}", stale.text);

    app.runtime.catch_up().await.expect("catch up");
    for path in [
        format!("/api/v1/ca/DE?min_position={at}"),
        format!("/api/v1/ca?min_position={at}&per_page=5"),
    ] {
        let read = app.get(&path, &key).await;
        assert_eq!(read.status, 200, "{path}: {}", read.text);
    }
    let by_header = app
        .send(
            app.client()
                .get(app.url("/api/v1/ca/DE"))
                .header("x-api-key", &key)
                .header("x-basel-min-position", at.to_string()),
        )
        .await;
    assert_eq!(by_header.status, 200, "{}", by_header.text);
    let record = by_header.body;
    let notes = record.to_string();
    assert!(notes.contains("after the stall"), "{record}");

    for bad in ["-1", "x", "1&min_position=2"] {
        let answer = app
            .get(&format!("/api/v1/ca/DE?min_position={bad}"), &key)
            .await;
        assert_eq!(
            (answer.status, answer.code()),
            (400, "invalid_parameter"),
            "{bad}: {}",
            answer.text
        );
    }
}

both_modes!(
    a_retried_write_is_answered_as_the_first_and_writes_nothing,
    concurrent_retries_under_one_key_write_once,
    bad_idempotency_keys_are_refused,
    a_retried_registration_answers_the_original,
    a_read_with_min_position_waits_for_the_write,
);

/// Two server-mode replicas on one PostgreSQL and NATS: a steward writes on
/// A (which runs every role), a reader reads on B (REST only, its own read
/// cache) with the write's position as `min_position`: never stale, 200
/// times in a row.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_read_on_another_replica_with_min_position_is_never_stale() {
    let nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let token = deployment.enrol("Replica Tester", "replicas@example.org");
    let a = deployment.serve().await;
    let reader = deployment.with_env("BASEL_ROLE", "rest,mcp");
    let b = reader.serve().await;

    let registered = a
        .http
        .post(format!("{}/register", a.base))
        .json(&json!({ "email": "reader@example.org" }))
        .send()
        .await
        .expect("register");
    let at: i64 = registered.headers()["x-basel-position"]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("a position");
    let key = registered.json::<Value>().await.expect("json")["api_key"]
        .as_str()
        .expect("key")
        .to_owned();

    let read = |position: i64| {
        b.http
            .get(format!("{}/api/v1/ca/FR?min_position={position}", b.base))
            .header("x-api-key", &key)
            .send()
    };
    // The key registered on A works on B once B has applied it.
    let first = read(at).await.expect("read");
    assert_eq!(first.status().as_u16(), 200, "the new key works on B");

    for n in 0..200 {
        let note = format!("replica check {n} at {}", today());
        let written = a
            .http
            .post(format!("{}/api/v1/ca/FR/verifications", a.base))
            .bearer_auth(&token)
            .json(&json!({
                "verified": false, "checked_on": today(), "method": "email",
                "source": "replica test", "changes": { "notes": note },
            }))
            .send()
            .await
            .expect("write");
        assert!(
            written.status().is_success(),
            "write {n}: {}",
            written.status()
        );
        let position: i64 = written.headers()["x-basel-position"]
            .to_str()
            .expect("ascii")
            .parse()
            .expect("a position");
        let answer = read(position).await.expect("read");
        assert_eq!(answer.status().as_u16(), 200, "read {n}");
        let record = answer.text().await.expect("body");
        assert!(
            record.contains(&note),
            "read {n} on replica B after a write on A is stale: {record}"
        );
    }
}
