//! The outbox relay against real PostgreSQL and NATS JetStream: every
//! committed event reaches the stream exactly once, in commit order, even with
//! two relays racing and a re-publish of the whole log.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use chrono::{NaiveDate, Utc};
use tokio::sync::watch;

use commands::authority::AuthorityCommands;
use commands::relay::{self, LogSettings, Relay};
use commands::store::testing::{eventually, fresh_postgres, stream_payloads};
use domain::authority::{
    ContactField, ContactInput, ContactPatch, RegisterAuthority, SubmitVerificationUpdate,
    VerificationMethod,
};
use domain::envelope::Envelope;
use domain::metadata::{Actor, Metadata};
use domain::values::CountryCode;

const NATS_URL: &str = "nats://127.0.0.1:4222";

/// A stream of this test's own on the machine's NATS server.
async fn jetstream_or_fail() -> (jetstream::Context, LogSettings) {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let settings = LogSettings {
        url: NATS_URL.into(),
        stream: format!("TEST_{tag}"),
        subject_prefix: format!("test{tag}.events"),
        replicas: 1,
    };
    let client = tokio::time::timeout(Duration::from_secs(5), async_nats::connect(NATS_URL))
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_else(|| {
            panic!(
                "NATS with JetStream is not reachable at {NATS_URL}: start it with \
                 `nats-server -a 127.0.0.1 -p 4222 -js` (.ci/run does)"
            )
        });
    (jetstream::new(client), settings)
}

fn metadata() -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Seed,
        request_id: "relay-test".into(),
        client_request_id: None,
        idempotency: None,
    }
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 21).expect("date")
}

async fn read_stream(context: &jetstream::Context, settings: &LogSettings) -> Vec<Envelope> {
    stream_payloads(context, &settings.stream)
        .await
        .iter()
        .map(|payload| serde_json::from_slice(payload).expect("an envelope"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_stream_holds_every_committed_event_once_in_commit_order() {
    let (context, settings) = jetstream_or_fail().await;
    let (backend, _db) = fresh_postgres().await;
    let pool = backend.pg_pool().expect("postgres").clone();
    let codes = ["FR", "DE", "IT", "ES", "PT", "NL", "BE", "AT"];
    let authorities = AuthorityCommands::new(&backend);
    for code in codes {
        let command = RegisterAuthority {
            country: CountryCode::parse(code).expect("code"),
            country_name: format!("Country {code}"),
            contact: ContactInput {
                ca_name: Some("Agency".into()),
                ..ContactInput::default()
            },
            verified: false,
            last_checked: None,
            source: None,
            contacts: Vec::new(),
            steward: None,
            today: today(),
        };
        authorities
            .register(command, &metadata())
            .await
            .expect("registered");
    }

    // Two relays race for the lock while 8 writers commit.
    let (stop, stopped) = watch::channel(false);
    let mut relays = Vec::new();
    for _ in 0..2 {
        let relay = Relay::new(pool.clone(), context.clone(), settings.clone());
        let mut stopped = stopped.clone();
        relays.push(tokio::spawn(async move {
            relay
                .run(Duration::from_millis(50), async move {
                    let _ = stopped.wait_for(|s| *s).await;
                })
                .await;
        }));
    }
    let backend = Arc::new(backend);
    let mut writers = Vec::new();
    for (w, code) in codes.iter().enumerate() {
        let backend = backend.clone();
        let code = CountryCode::parse(code).expect("code");
        writers.push(tokio::spawn(async move {
            let authorities = AuthorityCommands::new(&backend);
            for n in 0..25 {
                let update = SubmitVerificationUpdate {
                    contact_id: None,
                    outcome: None,
                    verified: false,
                    checked_on: today(),
                    method: VerificationMethod::Email,
                    source: format!("writer {w} update {n}"),
                    note: None,
                    changes: ContactPatch::from([(ContactField::Notes, Some(format!("{w}-{n}")))]),
                    steward: None,
                    today: today(),
                };
                authorities
                    .submit_verification(&code, update, &metadata())
                    .await
                    .expect("committed");
            }
        }));
    }
    for writer in writers {
        writer.await.expect("writer");
    }

    let drained = eventually(Duration::from_secs(30), || async {
        relay::backlog(&pool).await.expect("backlog") == 0
    })
    .await;
    assert!(drained.is_some(), "the relay did not drain in 30 s");
    // An operator re-publishes everything: JetStream drops every duplicate.
    let operator = Relay::new(pool.clone(), context.clone(), settings.clone());
    let (sent, stored) = operator.republish_from(1).await.expect("republished");
    let _ = stop.send(true);
    for relay in relays {
        relay.await.expect("relay stops");
    }

    let committed: Vec<(i64, String, String, i64)> = sqlx::query_as(
        "SELECT position, aggregate_type, aggregate_id, sequence FROM events ORDER BY position",
    )
    .fetch_all(&pool)
    .await
    .expect("events");
    assert_eq!(
        committed.len(),
        8 + 8 * 25 * 2,
        "registrations, changes and verifications"
    );
    assert_eq!(sent, committed.len());
    assert_eq!(
        stored, 0,
        "a re-publish inside the window stores nothing new"
    );

    let published = read_stream(&context, &settings).await;
    assert_eq!(published.len(), committed.len(), "every event exactly once");
    let ids: HashSet<String> = published.iter().map(Envelope::message_id).collect();
    assert_eq!(ids.len(), published.len(), "no event twice");
    let positions: Vec<i64> = published.iter().map(|e| e.position).collect();
    let expected: Vec<i64> = committed.iter().map(|c| c.0).collect();
    assert_eq!(positions, expected, "the stream is in commit order");
    let mut last: HashMap<&str, i64> = HashMap::new();
    for envelope in &published {
        let previous = last
            .insert(&envelope.aggregate_id, envelope.sequence)
            .unwrap_or(0);
        assert_eq!(
            envelope.sequence,
            previous + 1,
            "{} out of order on the stream",
            envelope.message_id()
        );
        assert_eq!(
            envelope.subject(&settings.subject_prefix),
            format!(
                "{}.authority.{}",
                settings.subject_prefix, envelope.aggregate_id
            )
        );
    }
    let unpublished: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE published_at IS NULL")
            .fetch_one(&pool)
            .await
            .expect("count");
    assert_eq!(unpublished, 0);
    context
        .delete_stream(&settings.stream)
        .await
        .expect("stream deleted");
}
