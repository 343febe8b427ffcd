//! Registrations that cannot be abused, key revocation, and erasure
//! (`basel forget`) in both storage modes.

use std::time::Duration;

use serde_json::{json, Value};

use crate::inproc::App;
use crate::process::{Basel, Node};
use crate::support::{all_bytes, both_modes, count_events, eventually, stderr, stdout, Mode};

/// The shared NATS server of the test machine (each deployment gets a
/// stream and subject prefix of its own).
const NATS: &str = "nats://127.0.0.1:4222";

async fn register_json(app: &App, email: &str) -> crate::inproc::Answer {
    app.send(
        app.client()
            .post(app.url("/register"))
            .json(&json!({ "email": email })),
    )
    .await
}

async fn repeat_registrations_append_no_event(mode: Mode) {
    let app = App::start(mode).await;
    let first = register_json(&app, "Repeat@Example.org").await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(first.body["created"], json!(true));
    let key = first.body["api_key"].as_str().expect("key").to_owned();
    let events = count_events(&app.store, "api_key").await;
    for n in 0..200 {
        let email = if n % 2 == 0 {
            "repeat@example.org"
        } else {
            " REPEAT@example.ORG "
        };
        let again = register_json(&app, email).await;
        assert_eq!(again.status, 200, "{}", again.text);
        assert_eq!(
            (again.body["api_key"].as_str(), &again.body["created"]),
            (Some(key.as_str()), &json!(false))
        );
    }
    let form = app
        .send(
            app.client()
                .post(app.url("/register"))
                .form(&[("email", "repeat@example.org")]),
        )
        .await;
    assert_eq!(form.status, 200);
    assert!(form.text.contains(&key));
    assert_eq!(
        count_events(&app.store, "api_key").await,
        events,
        "200 repeats appended nothing"
    );
    assert_eq!(app.get("/api/v1/ca", &key).await.status, 200);
}

async fn new_registrations_past_the_burst_are_refused_with_429(mode: Mode) {
    let app = App::start(mode).await;
    let mut keys = Vec::new();
    for n in 0..10 {
        let answer = register_json(&app, &format!("burst{n}@example.org")).await;
        assert_eq!(answer.status, 200, "registration {n}: {}", answer.text);
        keys.push(answer.body["api_key"].as_str().expect("key").to_owned());
    }
    let refused = register_json(&app, "one-too-many@example.org").await;
    assert_eq!(refused.status, 429, "{}", refused.text);
    assert_eq!(refused.code(), "rate_limited");
    let retry: u64 = refused
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!(
        (1..=180).contains(&retry),
        "one token in 20 an hour: {retry}"
    );
    let form = app
        .send(
            app.client()
                .post(app.url("/register"))
                .form(&[("email", "form-too-many@example.org")]),
        )
        .await;
    assert_eq!(form.status, 429, "the form shares the limit");
    // Past the limit a registered address is refused like a new one, so the
    // answer does not tell which addresses are registered.
    let repeat = register_json(&app, "burst3@example.org").await;
    assert_eq!(repeat.status, 429, "{}", repeat.text);
    assert_eq!(repeat.code(), "rate_limited");
    assert!(!repeat.text.contains(keys[3].as_str()));
    assert_eq!(
        count_events(&app.store, "api_key").await,
        10,
        "the refused registrations recorded nothing"
    );
}

both_modes!(
    repeat_registrations_append_no_event,
    new_registrations_past_the_burst_are_refused_with_429
);

#[tokio::test]
async fn addresses_with_invisible_control_or_markup_characters_are_refused() {
    let app = App::start(Mode::Embedded).await;
    for bad in [
        "ana\u{200B}@example.org",
        "ana@exam\u{200D}ple.org",
        "\u{202E}ana@example.org",
        "ana\u{0000}@example.org",
        "<b>ana</b>@example.org",
        "ana\"@example.org",
    ] {
        let answer = register_json(&app, bad).await;
        assert_eq!(answer.status, 422, "{bad:?}: {}", answer.text);
        let message = answer.body["errors"][0]["message"]
            .as_str()
            .expect("message");
        assert_eq!(answer.body["errors"][0]["field"], json!("email"));
        assert!(!message.contains(". "), "one sentence: {message}");
        let page = app
            .send(
                app.client()
                    .post(app.url("/register"))
                    .form(&[("email", bad)]),
            )
            .await;
        assert_eq!(page.status, 422, "{bad:?}");
        assert!(!page.text.contains("<b>ana"), "markup is never echoed raw");
    }
    assert_eq!(count_events(&app.store, "api_key").await, 0);
    let page = app.send(app.client().get(app.url("/register"))).await;
    assert!(
        page.text.contains("anyone who knows an address can")
            && page.text.contains("by e-mail close that"),
        "the page states the page-mode trade-off"
    );
}

/// `POST /mcp` `initialize` with `key`: the HTTP status.
async fn mcp_status(node: &Node, key: &str) -> u16 {
    node.http
        .post(format!("{}/mcp", node.mcp))
        .header("x-api-key", key)
        .header("accept", "application/json, text/event-stream")
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "identity-test", "version": "1"}}}),
        )
        .send()
        .await
        .expect("mcp answers")
        .status()
        .as_u16()
}

async fn read_status(node: &Node, key: &str) -> u16 {
    node.get_with_key("/api/v1/ca/DE", key)
        .await
        .map_or(0, |(status, _)| status)
}

async fn revoke_refuses_the_key_at_once(deployment: Basel) {
    let node = deployment.serve().await;
    let key = node.register("revoke-me@example.org").await;
    assert_eq!(read_status(&node, &key).await, 200);
    assert_eq!(mcp_status(&node, &key).await, 200);

    let output = deployment.run(&["key", "revoke", "Revoke-Me@example.org"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        read_status(&node, &key).await,
        401,
        "REST refuses it at once"
    );
    assert_eq!(mcp_status(&node, &key).await, 401, "MCP refuses it at once");

    let again = deployment.run(&["key", "revoke", "revoke-me@example.org"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("no active API key"),
        "{}",
        stderr(&again)
    );

    let fresh = node.register("revoke-me@example.org").await;
    assert_ne!(fresh, key, "registering again issues a new key");
    let works = eventually(Duration::from_secs(5), || async {
        read_status(&node, &fresh).await == 200
    })
    .await;
    assert!(works.is_some(), "the new key works");
    assert_eq!(read_status(&node, &key).await, 401);

    let db = deployment.db().await;
    let payloads: Vec<String> = sqlx::query_scalar(
        "SELECT CAST(payload AS TEXT) FROM events WHERE aggregate_type = 'api_key' AND event_type = 'ApiKeyRevoked'",
    )
    .fetch_all(&db)
    .await
    .expect("events");
    assert_eq!(payloads.len(), 1, "{payloads:?}");
    assert!(
        !payloads[0].to_lowercase().contains("revoke-me@"),
        "{}",
        payloads[0]
    );
    let (ok, out) = deployment.verify();
    assert!(ok, "{out}");
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_key_revoke_refuses_the_key_at_once_in_rest_and_mcp() {
    revoke_refuses_the_key_at_once(Basel::embedded().with_secret()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_mode_key_revoke_refuses_the_key_at_once_in_rest_and_mcp() {
    let deployment = Basel::postgres().await.with_secret().with_nats(NATS);
    revoke_refuses_the_key_at_once(deployment).await;
}

const FORGOTTEN: &str = "forget.me@example.org";

/// Rewrites the sealed address of every `ApiKeyIssued` and
/// `StewardEnrolled` event back to plaintext at `event_version` 1: a store
/// written before addresses were sealed.
async fn make_legacy(db: &sqlx::AnyPool, email: &str) {
    // The first release had no append-only guard and no verifiable log (an
    // SQLite store here): lift the guards, forget the tree.
    let guards: Vec<(String, String)> = sqlx::query_as(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' \
         AND name IN ('events_no_update', 'audit_leaves_no_delete', 'audit_checkpoints_no_delete')",
    )
    .fetch_all(db)
    .await
    .expect("triggers");
    for (name, _) in &guards {
        sqlx::query(&format!("DROP TRIGGER {name}"))
            .execute(db)
            .await
            .expect("drop the guard");
    }
    for table in ["audit_leaves", "audit_checkpoints"] {
        sqlx::query(&format!("DELETE FROM {table}"))
            .execute(db)
            .await
            .expect("no tree yet");
    }
    let rows: Vec<(i64, String)> = sqlx::query_as(
        "SELECT position, CAST(payload AS TEXT) FROM events WHERE event_type IN ('ApiKeyIssued', 'StewardEnrolled')",
    )
    .fetch_all(db)
    .await
    .expect("events");
    for (position, payload) in rows {
        let mut value: Value = serde_json::from_str(&payload).expect("json");
        for variant in ["ApiKeyIssued", "StewardEnrolled"] {
            if let Some(body) = value.get_mut(variant) {
                body["email"] = json!(email);
            }
        }
        sqlx::query("UPDATE events SET payload = $1, event_version = '1' WHERE position = $2")
            .bind(value.to_string())
            .bind(position)
            .execute(db)
            .await
            .expect("legacy payload");
    }
    for (_, create) in &guards {
        sqlx::query(create)
            .execute(db)
            .await
            .expect("restore the guard");
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_forget_leaves_the_address_in_no_byte_of_the_database_files() {
    let deployment = Basel::embedded().with_secret();
    let token = deployment.enrol("Forget Me", FORGOTTEN);
    let node = deployment.serve().await;
    let key = node.register(FORGOTTEN).await;
    node.stop();
    {
        let db = deployment.db().await;
        make_legacy(&db, FORGOTTEN).await;
        db.close().await;
    }
    assert!(
        contains(&all_bytes(&deployment.store.data_dir()), FORGOTTEN),
        "the old store holds the address in plaintext"
    );

    let node = deployment.serve().await;
    assert_eq!(read_status(&node, &key).await, 200, "old events still read");
    let output = deployment.run(&["forget", FORGOTTEN]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("Forgot steward forget-me"),
        "{}",
        stdout(&output)
    );
    let files = all_bytes(&deployment.store.data_dir());
    assert!(
        !contains(&files, FORGOTTEN),
        "no byte of the data directory holds the address once forget returns"
    );
    assert_eq!(read_status(&node, &key).await, 401, "the key is refused");
    let write = node
        .http
        .post(format!("{}/api/v1/ca/DE/verifications", node.base))
        .bearer_auth(&token)
        .json(&json!({"verified": false, "checked_on": "2026-01-02", "method": "email"}))
        .send()
        .await
        .expect("answer");
    assert_eq!(
        write.status().as_u16(),
        403,
        "the forgotten steward is suspended"
    );
    node.stop();

    let (ok, out) = deployment.verify();
    assert!(ok, "{out}");
    let db = deployment.db().await;
    let name: String = sqlx::query_scalar("SELECT name FROM stewards WHERE id = 'forget-me'")
        .fetch_one(&db)
        .await
        .expect("the steward keeps id and name");
    assert_eq!(name, "Forget Me");
    db.close().await;
    assert!(!contains(
        &all_bytes(&deployment.store.data_dir()),
        FORGOTTEN
    ));
    let again = deployment.run(&["forget", FORGOTTEN]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("nothing to forget"),
        "{}",
        stdout(&again)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_mode_forget_leaves_the_address_in_no_table_or_stream_message() {
    let deployment = Basel::postgres().await.with_secret().with_nats(NATS);
    deployment.enrol("Forget Me", FORGOTTEN);
    let node = deployment.serve().await;
    let key = node.register(FORGOTTEN).await;
    let context = async_nats::jetstream::new(async_nats::connect(NATS).await.expect("nats"));
    let published = eventually(Duration::from_secs(10), || async {
        commands::store::testing::stream_payloads(&context, &deployment.stream)
            .await
            .len()
            >= 2
    })
    .await;
    assert!(published.is_some(), "the events reached the stream");

    let output = deployment.run(&["forget", FORGOTTEN]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        read_status(&node, &key).await,
        401,
        "the key is refused at once"
    );

    let relayed = eventually(Duration::from_secs(10), || async {
        let messages =
            commands::store::testing::stream_payloads(&context, &deployment.stream).await;
        messages
            .iter()
            .any(|m| String::from_utf8_lossy(m).contains("RegistrantForgotten"))
    })
    .await;
    assert!(relayed.is_some(), "the erasure reached the stream");
    let messages = commands::store::testing::stream_payloads(&context, &deployment.stream).await;
    assert!(
        messages
            .iter()
            .any(|m| String::from_utf8_lossy(m).contains("ApiKeyIssued")),
        "events stay"
    );
    for message in &messages {
        assert!(
            !contains(message, FORGOTTEN),
            "a stream message holds the address"
        );
    }

    let db = deployment.db().await;
    let rows = crate::support::every_row(&db).await;
    assert!(rows.contains_key("subject_keys"), "{:?}", rows.keys());
    for (table, row) in rows
        .iter()
        .flat_map(|(t, rows)| rows.iter().map(move |r| (t, r)))
    {
        assert!(
            !contains(row.as_bytes(), FORGOTTEN),
            "{table} holds the address: {row}"
        );
    }
    let name: String = sqlx::query_scalar("SELECT name FROM stewards WHERE id = 'forget-me'")
        .fetch_one(&db)
        .await
        .expect("the steward keeps id and name");
    assert_eq!(name, "Forget Me");
    let (ok, out) = deployment.verify();
    assert!(ok, "{out}");
    node.stop();
}
