//! The JetStream consumer never moves past an event it has not applied
//!: a consumer re-created past a message it was never handed
//! still applies it (read from the event store), and an event whose
//! predecessors are missing from the store too halts the projection loudly.

use std::time::Duration;

use async_nats::jetstream;
use chrono::Utc;
use commands::authority::AuthorityCommands;
use commands::relay::{LogSettings, Relay};
use commands::store::testing::{eventually, fresh_store, without_append_guard, Mode, TestStore};
use domain::authority::{ContactField, ContactPatch, SubmitVerificationUpdate, VerificationMethod};
use domain::values::CountryCode;
use projections::directory::Reader;
use projections::registry::Projection;
use projections::runner::Projector;
use projections::stream::LogSource;

use crate::runner::{metadata, register};

const NATS_URL: &str = "nats://127.0.0.1:4222";

/// A stream of this test's own on the machine's NATS server.
async fn jetstream_or_fail() -> (jetstream::Context, LogSettings) {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    let settings = LogSettings {
        url: NATS_URL.into(),
        stream: format!("GAPS_{tag}"),
        subject_prefix: format!("gaps{tag}.events"),
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

/// DE registered, FR registered, DE verified with a changed e-mail (two
/// events), NL registered: five authority events, all on the stream in
/// position order. Returns the store, the stream, and DE's last position.
async fn five_events_on_the_stream() -> (TestStore, jetstream::Context, LogSettings, i64) {
    let store = fresh_store(Mode::Postgres).await;
    let (context, settings) = jetstream_or_fail().await;
    register(&store.backend, "DE").await;
    register(&store.backend, "FR").await;
    let today = Utc::now().date_naive();
    let update = SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: false,
        checked_on: today,
        method: VerificationMethod::Phone,
        source: "call".into(),
        note: None,
        changes: ContactPatch::from([(ContactField::Email, Some("ca@example.de".into()))]),
        steward: None,
        today,
    };
    let committed = AuthorityCommands::new(&store.backend)
        .submit_verification(
            &CountryCode::parse("DE").expect("code"),
            update,
            &metadata(),
        )
        .await
        .expect("update");
    register(&store.backend, "NL").await;
    let pool = store.backend.pg_pool().expect("postgres").clone();
    let relay = Relay::new(pool, context.clone(), settings.clone());
    let (sent, stored) = relay.republish_from(1).await.expect("published");
    assert_eq!((sent, stored), (5, 5), "five events on the stream");
    (store, context, settings, committed.position)
}

/// Every checkpoint as a consumer that was re-created past `sequence` left
/// it: nothing applied, the stream sequence at `sequence`.
async fn checkpoints_past(db: &projections::ReadDb, sequence: i64) {
    sqlx::query("UPDATE projection_checkpoints SET position = 0, stream_sequence = $1")
        .bind(sequence)
        .execute(db)
        .await
        .expect("checkpoints");
}

/// Runs the stream consumers until the returned sender is dropped.
fn consume(
    projector: &Projector,
    context: jetstream::Context,
    settings: &LogSettings,
) -> tokio::sync::oneshot::Sender<()> {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let source = LogSource {
        context,
        stream: settings.stream.clone(),
        subject_prefix: settings.subject_prefix.clone(),
    };
    tokio::spawn(projector.clone().run_stream(source, async move {
        let _ = stopped.await;
    }));
    stop
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consumer_started_past_unapplied_messages_still_applies_them() {
    let (store, context, settings, _) = five_events_on_the_stream().await;
    let db = projections::connect(&store.url).await.expect("read db");
    let projector = Projector::new(db.clone()).await.expect("projector");
    checkpoints_past(&db, 4).await;
    let head = projections::log::head(&db).await.expect("head");
    let stop = consume(&projector, context, &settings);
    for projection in [Projection::Directory, Projection::History] {
        assert!(
            projector
                .wait_for(projection, head, Duration::from_secs(10))
                .await,
            "{} reached the head",
            projection.name()
        );
    }
    drop(stop);
    let rows = Reader::new(db.clone()).all().await.expect("rows");
    let codes: Vec<_> = rows.iter().map(|r| r.country_code.as_str()).collect();
    assert_eq!(codes, ["DE", "FR", "NL"]);
    let de = rows.iter().find(|r| r.country_code == "DE").expect("DE");
    assert_eq!(
        (de.version, de.email.as_deref()),
        (3, Some("ca@example.de"))
    );
    let history = projections::history::of(&db, "DE").await.expect("history");
    assert_eq!(history.len(), 3, "DE's whole history");
    let filled: Vec<_> = projector
        .gaps_filled()
        .into_iter()
        .filter(|(name, _)| ["directory", "history"].contains(name))
        .collect();
    assert_eq!(filled, [("directory", 4), ("history", 4)]);
    let statuses = projector.status().await.expect("status");
    assert!(statuses.iter().all(|s| s.halted.is_none()), "{statuses:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gap_the_store_cannot_fill_halts_the_projection() {
    let (store, context, settings, de_last) = five_events_on_the_stream().await;
    // DE's second event is gone from the store (tampering); the consumer
    // starts with DE's third, which cannot be applied without it.
    without_append_guard(
        &store.backend,
        "DELETE FROM events WHERE aggregate_id = 'DE' AND sequence = 2",
    )
    .await;
    let db = projections::connect(&store.url).await.expect("read db");
    let projector = Projector::new(db.clone()).await.expect("projector");
    checkpoints_past(&db, 3).await;
    let stop = consume(&projector, context, &settings);
    let halted = eventually(Duration::from_secs(10), || async {
        projector
            .status()
            .await
            .expect("status")
            .iter()
            .any(|s| s.name == "directory" && s.halted.is_some())
    })
    .await;
    drop(stop);
    assert!(halted.is_some(), "the directory halted");
    let statuses = projector.status().await.expect("status");
    let directory = statuses
        .iter()
        .find(|s| s.name == "directory")
        .expect("directory");
    let reason = directory.halted.as_deref().unwrap_or_default();
    assert!(
        reason.contains("gap for DE: expected sequence 2, got 3"),
        "{reason}"
    );
    assert!(
        directory.position < de_last,
        "the checkpoint stays before the event it could not apply"
    );
    let rows = Reader::new(db.clone()).all().await.expect("rows");
    let codes: Vec<_> = rows.iter().map(|r| r.country_code.as_str()).collect();
    assert_eq!(codes, ["DE", "FR"], "nothing after the gap is applied");
    assert_eq!(rows[0].version, 1);
}
