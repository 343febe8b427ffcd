//! A store written by the first release (commit 5dd3875, before contacts)
//! opens with this release and upgrades in place, in both storage modes:
//! migrations run, the read models are rebuilt from the first release's
//! events (upcast on read), keys and steward tokens still work, records and
//! history are kept, and `replay --verify` passes.
//!
//! The fixtures are in `basel/tests/fixtures/first_release/` and are written by
//! `scripts/first_release_fixture.sh` with the first release's binary: an
//! embedded SQLite file, and a PostgreSQL dump. A dump holds no JetStream
//! stream, so in server mode the log is put on a fresh stream with
//! `basel relay --republish-from 1`: the first release's event payloads
//! then travel as JetStream messages and are upcast where they are consumed.

use std::path::PathBuf;

use serde_json::{json, Value};
use sqlx::Connection;

use crate::process::{Basel, Nats, Node};
use crate::support::{both_modes, eventually_some, Mode};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/first_release")
        .join(path)
}

fn credentials(mode: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("{mode}/credentials.json")))
        .expect("credentials fixture");
    serde_json::from_str(&text).expect("credentials JSON")
}

async fn restore(mode: Mode) -> (Basel, Option<Nats>, Value) {
    match mode {
        Mode::Embedded => {
            let basel = Basel::embedded().with_secret();
            std::fs::create_dir_all(basel.store.data_dir()).expect("data dir");
            std::fs::copy(
                fixture("embedded/basel.db"),
                basel.store.data_dir().join("basel.db"),
            )
            .expect("copy the first release's store");
            (basel, None, credentials("embedded"))
        }
        Mode::Postgres => {
            let nats = Nats::start();
            let basel = Basel::postgres().await.with_secret().with_nats(&nats.url());
            restore_dump(&basel).await;
            let republished = basel.run(&["relay", "--republish-from", "1"]);
            assert!(
                republished.status.success(),
                "republish: {}",
                String::from_utf8_lossy(&republished.stderr)
            );
            (basel, Some(nats), credentials("postgres"))
        }
    }
}

/// Replaces the test database with the first release's PostgreSQL dump.
async fn restore_dump(basel: &Basel) {
    let url = basel.store.database_url.clone().expect("postgres url");
    let dump = std::fs::read_to_string(fixture("postgres/dump.sql")).expect("dump fixture");
    let mut connection = sqlx::PgConnection::connect(&url).await.expect("connect");
    // The test database comes migrated by this release: start bare.
    sqlx::raw_sql("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
        .execute(&mut connection)
        .await
        .expect("empty the test database");
    sqlx::raw_sql(&dump)
        .execute(&mut connection)
        .await
        .expect("the first release's dump restores");
    connection.close().await.expect("close");
}

async fn record(node: &Node, key: &str, code: &str) -> Value {
    eventually_some(std::time::Duration::from_secs(30), || async {
        match node.get_with_key(&format!("/api/v1/ca/{code}"), key).await {
            Some((200, body)) => Some(body),
            _ => None,
        }
    })
    .await
    .unwrap_or_else(|| panic!("{code} is not served"))
}

async fn the_first_release_store_upgrades_in_place(mode: Mode) {
    let (basel, _nats, credentials) = restore(mode).await;
    let key = credentials["api_key"].as_str().expect("key");
    let token = credentials["steward_token"].as_str().expect("token");
    let node = basel.serve().await;

    // XK was registered by a steward of the first release, which accepted
    // any two letters; the upgrade retires it (history keeps it).
    // Server mode applies the retirement through the stream: wait for it.
    let xk = eventually_some(std::time::Duration::from_secs(30), || async {
        node.get_with_key("/api/v1/ca/XK", key)
            .await
            .filter(|(status, _)| *status == 404)
    })
    .await
    .unwrap_or((200, Value::Null));
    assert_eq!(xk.0, 404, "the key still works: {}", xk.1);
    assert_eq!(xk.1["code"], "country_not_found");
    // The history projection follows on its own (server mode: its own
    // consumer of the stream).
    let xk_history = eventually_some(std::time::Duration::from_secs(30), || async {
        node.get_with_key("/api/v1/ca/XK/history", key)
            .await
            .filter(|(status, body)| {
                *status == 200
                    && body["items"].as_array().is_some_and(|items| {
                        items.iter().any(|i| i["event_type"] == "AuthorityRetired")
                    })
            })
    })
    .await;
    assert!(xk_history.is_some(), "history keeps a retired record");

    let eu = record(&node, key, "EU").await;
    assert_eq!(
        eu["country_name"], "European Union",
        "the upgrade registers the EU"
    );

    // Server mode projects the release through the stream: wait for it.
    let de = eventually_some(std::time::Duration::from_secs(30), || async {
        node.get_with_key("/api/v1/ca/DE", key)
            .await
            .filter(|(status, body)| {
                *status == 200 && body["contacts"].as_array().map(Vec::len) > Some(10)
            })
            .map(|(_, body)| body)
    })
    .await
    .unwrap_or_else(|| panic!("DE did not show the release's contacts within 30 s"));
    assert_eq!(
        de["ca_name"],
        Value::Null,
        "no competent authority of national scope: the Länder are competent"
    );
    assert_eq!(de["email"], Value::Null);
    let focal = de["contacts"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["id"] == "c1"))
        .expect("the first release's contact");
    assert_eq!(focal["role"], "focal_point");
    assert_eq!(focal["email"], "focal.point.basel@uba.de");
    assert_eq!(
        focal["provenance"]["last_checked"], "2002-11-20",
        "an unverified first-release check is no freshness"
    );
    assert_eq!(
        focal["provenance"]["last_check"]["checked_on"], "2026-11-21",
        "the check itself is kept"
    );
    assert_eq!(
        focal["provenance"]["outcome"],
        Value::Null,
        "a first-release check"
    );
    assert!(
        de["contacts"].as_array().map(Vec::len) > Some(10),
        "the release adds the Länder authorities"
    );

    let jp = record(&node, key, "JP").await;
    assert_eq!(jp["verified"], true);
    assert_eq!(jp["last_checked"], "2026-11-20");
    assert_eq!(jp["address"], "1-2-2 Kasumigaseki, Chiyoda-ku, Tokyo");
    assert_eq!(
        jp["notes"],
        Value::Null,
        "source notes are not shown once verified"
    );
    assert_eq!(jp["provenance"]["steward"], "ana");
    assert_eq!(jp["contacts"][0]["primary"], true);

    let cn = record(&node, key, "CN").await;
    assert_eq!(
        cn["phone"],
        Value::Null,
        "the seed's misprinted +861-0-… is no longer served"
    );
    assert_eq!(cn["contacts"][0]["retired"][0]["field"], "phone");
    assert!(
        cn["contacts"][0]["retired"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("calling code")),
        "{cn}"
    );

    let ng = eventually_some(std::time::Duration::from_secs(30), || async {
        node.get_with_key("/api/v1/ca/NG", key)
            .await
            .filter(|(status, body)| {
                *status == 200 && body["contacts"].as_array().is_some_and(|c| !c.is_empty())
            })
            .map(|(_, body)| body)
    })
    .await
    .unwrap_or_default();
    assert!(
        ng["contacts"].as_array().is_some_and(|c| !c.is_empty()),
        "the release adds NG's traced contacts"
    );
    assert_eq!(
        ng["verified"], false,
        "a check nobody answered confirms nothing"
    );
    assert_eq!(ng["stale"], true);

    // The history projection catches up on its own (its own consumer).
    let history = eventually_some(std::time::Duration::from_secs(30), || async {
        node.get_with_key("/api/v1/ca/JP/history", key)
            .await
            .filter(|(status, body)| {
                *status == 200 && body["items"].as_array().map(Vec::len) >= Some(4)
            })
    })
    .await
    .expect("JP's history: the first release's three events, then the release's");
    let kinds: Vec<&str> = history.1["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["event_type"].as_str())
        .collect();
    assert_eq!(
        kinds[..3],
        [
            "AuthorityRegistered",
            "ContactDetailsChanged",
            "VerificationRecorded"
        ]
    );
    assert!(kinds[3..].iter().all(|k| *k == "ContactAdded"), "{kinds:?}");
    assert_eq!(history.1["items"][2]["steward"]["id"], "ana");
    assert_eq!(history.1["items"][3]["actor"], "system:release");

    let added = node
        .http
        .post(format!("{}/api/v1/ca/DE/contacts", node.base))
        .bearer_auth(token)
        .json(&json!({"name": "Landesdirektion Sachsen", "scope": {"area": "Saxony"}, "primary": true}))
        .send()
        .await
        .expect("POST contacts");
    assert_eq!(
        added.status().as_u16(),
        201,
        "the steward token still works"
    );
    let de = record(&node, key, "DE").await;
    assert_eq!(de["ca_name"], "Landesdirektion Sachsen");
    node.stop();

    let worklist = basel.run(&["worklist"]);
    assert!(worklist.status.success());
    let text = String::from_utf8_lossy(&worklist.stdout);
    let first = text.lines().next().unwrap_or_default();
    assert!(first.contains("no_contact"), "most urgent first: {first}");
    assert_eq!(line_of(&text, "XK"), "", "a retired record is not listed");
    let line = |code: &str| line_of(&text, code);
    assert!(line("NG").contains("never_verified"), "{text}");
    assert!(line("DE").contains("never_verified"), "{text}");
    assert!(line("DE").contains("search \"Germany (DE)\""), "{text}");
    assert_eq!(line("JP"), "", "verified and fresh: not listed");

    let (verified, output) = basel.verify();
    assert!(verified, "replay --verify after the upgrade:\n{output}");
}

both_modes!(the_first_release_store_upgrades_in_place);

/// The worklist line of `code` (empty when it is not listed).
fn line_of(text: &str, code: &str) -> String {
    text.lines()
        .find(|l| l.starts_with(&format!("{code}  ")))
        .unwrap_or_default()
        .to_owned()
}

/// The first release's address, in plaintext in its `ApiKeyIssued` event.
const FIXTURE_CLIENT: &str = "fixture-client@example.org";

/// Publishes the restored events as the first release's relay did: their
/// stored payloads (plaintext addresses), under their own message ids.
async fn publish_as_first_release(basel: &Basel, nats_url: &str) -> async_nats::jetstream::Context {
    let settings = commands::relay::LogSettings {
        url: nats_url.to_owned(),
        stream: basel.stream.clone(),
        subject_prefix: basel.prefix.clone(),
        replicas: 1,
    };
    let context = commands::relay::connect(&settings).await.expect("nats");
    // The first release created its stream without deny-delete/deny-purge.
    let config = async_nats::jetstream::stream::Config {
        deny_delete: false,
        deny_purge: false,
        ..commands::relay::stream_config(&settings)
    };
    context.create_stream(config).await.expect("stream");
    let url = basel.store.database_url.clone().expect("postgres url");
    let mut connection = sqlx::PgConnection::connect(&url).await.expect("connect");
    let rows: Vec<Value> = sqlx::query_scalar(
        "SELECT row_to_json(e) FROM (SELECT position, aggregate_type, aggregate_id, sequence, \
         event_type, event_version, payload, metadata FROM events ORDER BY position) e",
    )
    .fetch_all(&mut connection)
    .await
    .expect("events");
    for row in rows {
        let envelope: domain::envelope::Envelope = serde_json::from_value(row).expect("envelope");
        let position = envelope.position;
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Nats-Msg-Id", envelope.message_id().as_str());
        headers.insert(
            commands::relay::POSITION_HEADER,
            position.to_string().as_str(),
        );
        context
            .publish_with_headers(
                envelope.subject(&basel.prefix),
                headers,
                serde_json::to_vec(&envelope).expect("json").into(),
            )
            .await
            .expect("publish")
            .await
            .expect("ack");
    }
    connection.close().await.expect("close");
    context
}

fn holds(messages: &[impl AsRef<[u8]>], text: &str) -> bool {
    messages
        .iter()
        .any(|m| String::from_utf8_lossy(m.as_ref()).contains(text))
}

/// Server mode: the first release's messages on the stream carry plaintext
/// addresses; after the upgrade the relay has rewritten the stream from the
/// sealed store, so no message holds the address, every event is still on
/// the stream, and `replay --verify` (which reads the stream) passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_release_stream_loses_its_plaintext_addresses() {
    let nats = Nats::start();
    let basel = Basel::postgres().await.with_secret().with_nats(&nats.url());
    restore_dump(&basel).await;
    let context = publish_as_first_release(&basel, &nats.url()).await;
    let payloads = || commands::store::testing::stream_payloads(&context, &basel.stream);
    let before = payloads().await;
    assert!(
        holds(&before, FIXTURE_CLIENT),
        "the old stream holds the address"
    );

    let credentials = credentials("postgres");
    let key = credentials["api_key"].as_str().expect("key");
    let node = basel.serve().await;
    let rewritten = crate::support::eventually(std::time::Duration::from_secs(30), || async {
        let messages = payloads().await;
        !holds(&messages, FIXTURE_CLIENT) && holds(&messages, "ApiKeyIssued")
    })
    .await;
    assert!(rewritten.is_some(), "the stream still holds the address");
    let messages = payloads().await;
    let stored = crate::support::count_all_events(&basel.store).await;
    assert!(
        messages.len() > before.len(),
        "the upgrade's release events"
    );
    assert_eq!(
        i64::try_from(messages.len()).unwrap_or_default(),
        stored,
        "every event once, none lost"
    );
    // The key still works, and JP's first-release check is served again once
    // the directory has caught up with the rewritten stream.
    let jp = eventually_some(std::time::Duration::from_secs(30), || async {
        let jp = record(&node, key, "JP").await;
        (jp["verified"] == true).then_some(jp)
    })
    .await;
    assert!(
        jp.is_some(),
        "JP's verified record is served with the old key"
    );

    let forget = basel.run(&["forget", FIXTURE_CLIENT]);
    assert!(
        forget.status.success(),
        "{}",
        String::from_utf8_lossy(&forget.stderr)
    );
    node.stop();
    let (verified, output) = basel.verify();
    assert!(
        verified,
        "replay --verify from the rewritten stream:\n{output}"
    );
    assert!(!holds(&payloads().await, FIXTURE_CLIENT));
}
