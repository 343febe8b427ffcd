//! The event-store contract, run against both backends with the same bodies:
//! every `both_modes!` test exists as `<name>::embedded` (SQLite) and
//! `<name>::postgres`.

use std::collections::HashMap;
use std::sync::Arc;

use commands::store::testing::{both_modes, fresh_store, Mode};
use commands::store::{AnyEventRepository, Backend};
use cqrs_es::persist::{PersistedEventRepository, PersistenceError, SerializedEvent};
use cqrs_es::{AggregateError, CqrsFramework, EventStore};
use serde_json::json;

use crate::support::{Counter, CounterCommand, CounterEvent};

type Cqrs =
    CqrsFramework<Counter, cqrs_es::persist::PersistedEventStore<AnyEventRepository, Counter>>;

both_modes!(
    worker_threads = 4;
    appended_events_load_back_in_sequence_order,
    metadata_survives_the_round_trip,
    a_batch_reusing_a_taken_sequence_is_refused_whole,
    positions_increase_strictly_in_commit_order_across_aggregates,
    fifty_concurrent_commands_on_one_aggregate_commit_each_sequence_once_and_lose_nothing,
    snapshots_are_refused_and_never_returned,
);

fn cqrs(backend: &Backend) -> Cqrs {
    CqrsFramework::new(backend.event_store::<Counter>(), vec![], ())
}

fn event(id: &str, sequence: usize, to: u64) -> SerializedEvent {
    SerializedEvent::new(
        id.to_string(),
        sequence,
        "counter".to_string(),
        "Incremented".to_string(),
        "1".to_string(),
        json!({ "Incremented": { "to": to } }),
        json!({ "actor": "test" }),
    )
}

fn sequences(events: &[SerializedEvent]) -> Vec<usize> {
    events.iter().map(|e| e.sequence).collect()
}

async fn appended_events_load_back_in_sequence_order(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    let repo = backend.repository();
    assert!(repo.get_events::<Counter>("a").await.unwrap().is_empty());

    let written = vec![event("a", 1, 1), event("a", 2, 2), event("a", 3, 3)];
    repo.persist::<Counter>(&written, None).await.unwrap();

    let loaded = repo.get_events::<Counter>("a").await.unwrap();
    assert_eq!(loaded, written);
    let tail = repo.get_last_events::<Counter>("a", 1).await.unwrap();
    assert_eq!(sequences(&tail), vec![2, 3]);
    assert!(repo.get_events::<Counter>("b").await.unwrap().is_empty());

    let mut stream = repo.stream_events::<Counter>("a").await.unwrap();
    let mut streamed = Vec::new();
    while let Some(envelope) = stream.next::<Counter>(&[]).await {
        streamed.push(envelope.unwrap().sequence);
    }
    assert_eq!(streamed, vec![1, 2, 3]);
}

async fn metadata_survives_the_round_trip(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    let metadata = HashMap::from([
        (
            "recorded_at".to_string(),
            "2025-01-31T12:00:00.123Z".to_string(),
        ),
        ("actor".to_string(), "steward:de@example.org".to_string()),
        (
            "request_id".to_string(),
            "0f1e2d3c-aaaa-bbbb-cccc-000000000001".to_string(),
        ),
    ]);
    cqrs(backend)
        .execute_with_metadata("m", CounterCommand::IncrementTimes(2), metadata.clone())
        .await
        .unwrap();

    let envelopes = backend
        .event_store::<Counter>()
        .load_events("m")
        .await
        .unwrap();
    assert_eq!(envelopes.len(), 2);
    for (envelope, sequence) in envelopes.iter().zip(1..) {
        assert_eq!(envelope.sequence, sequence);
        assert_eq!(envelope.metadata, metadata);
        assert_eq!(
            envelope.payload,
            CounterEvent::Incremented {
                to: sequence as u64
            }
        );
    }
}

async fn a_batch_reusing_a_taken_sequence_is_refused_whole(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    let repo = backend.repository();
    repo.persist::<Counter>(&[event("a", 1, 1), event("a", 2, 2)], None)
        .await
        .unwrap();

    let refused = repo
        .persist::<Counter>(&[event("a", 3, 3), event("a", 2, 99)], None)
        .await
        .unwrap_err();

    assert!(
        matches!(refused, PersistenceError::OptimisticLockError),
        "{refused:?}"
    );
    let stored = repo.get_events::<Counter>("a").await.unwrap();
    assert_eq!(
        sequences(&stored),
        vec![1, 2],
        "nothing of the refused batch is stored"
    );
    assert_eq!(backend.max_position().await.unwrap(), 2);
}

async fn positions_increase_strictly_in_commit_order_across_aggregates(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    assert_eq!(
        backend.max_position().await.unwrap(),
        0,
        "an empty store is at position 0"
    );
    assert_eq!(backend.position_of("counter", "a", 1).await.unwrap(), None);

    let cqrs = cqrs(backend);
    let commits = [("a", 1), ("b", 1), ("a", 2), ("c", 1), ("b", 1)];
    let mut expected_order = Vec::new();
    let mut next_sequence: HashMap<&str, usize> = HashMap::new();
    for (id, times) in commits {
        cqrs.execute(id, CounterCommand::IncrementTimes(times))
            .await
            .unwrap();
        for _ in 0..times {
            let sequence = next_sequence.entry(id).or_insert(0);
            *sequence += 1;
            expected_order.push((id.to_string(), *sequence));
        }
    }

    let mut positions = Vec::new();
    for (id, sequence) in &expected_order {
        let position = backend.position_of("counter", id, *sequence).await.unwrap();
        positions.push(position.unwrap());
    }
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    assert_eq!(
        backend.max_position().await.unwrap(),
        *positions.last().unwrap()
    );

    let mut stream = backend
        .repository()
        .stream_all_events::<Counter>()
        .await
        .unwrap();
    let mut streamed = Vec::new();
    while let Some(envelope) = stream.next::<Counter>(&[]).await {
        let envelope = envelope.unwrap();
        streamed.push((envelope.aggregate_id, envelope.sequence));
    }
    assert_eq!(
        streamed, expected_order,
        "all events stream in commit order"
    );
}

async fn fifty_concurrent_commands_on_one_aggregate_commit_each_sequence_once_and_lose_nothing(
    mode: Mode,
) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    const COMMANDS: usize = 50;
    let cqrs = Arc::new(cqrs(backend));
    let tasks: Vec<_> = (0..COMMANDS)
        .map(|i| {
            let cqrs = Arc::clone(&cqrs);
            tokio::spawn(async move {
                // Staggered starts: some commands race on the same state,
                // others load after earlier ones committed.
                for _ in 0..i * 20 {
                    tokio::task::yield_now().await;
                }
                cqrs.execute("hot", CounterCommand::Increment).await
            })
        })
        .collect();

    let (mut successes, mut conflicts) = (0, 0);
    for task in tasks {
        match task.await.unwrap() {
            Ok(()) => successes += 1,
            Err(AggregateError::AggregateConflict) => conflicts += 1,
            Err(other) => panic!("a command failed with neither success nor conflict: {other:?}"),
        }
    }

    assert_eq!(successes + conflicts, COMMANDS);
    assert!(successes >= 1);
    let stored = backend
        .repository()
        .get_events::<Counter>("hot")
        .await
        .unwrap();
    assert_eq!(
        stored.len(),
        successes,
        "every success, and only successes, is stored"
    );
    assert_eq!(sequences(&stored), (1..=successes).collect::<Vec<_>>());
    for event in stored {
        let payload: CounterEvent = serde_json::from_value(event.payload).unwrap();
        assert_eq!(
            payload,
            CounterEvent::Incremented {
                to: event.sequence as u64
            }
        );
    }
}

async fn snapshots_are_refused_and_never_returned(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = &store.backend;
    let repo = backend.repository();
    let snapshot = Some(("a".to_string(), json!({ "value": 1 }), 1));
    let refused = repo.persist::<Counter>(&[event("a", 1, 1)], snapshot).await;

    assert!(
        matches!(refused, Err(PersistenceError::UnknownError(_))),
        "{refused:?}"
    );
    assert!(repo.get_events::<Counter>("a").await.unwrap().is_empty());
    assert!(repo.get_snapshot::<Counter>("a").await.unwrap().is_none());
}

mod postgres_only {
    use std::time::Duration;

    use commands::store::testing::{eventually, fresh_postgres};
    use commands::store::{Backend, StoreError};
    use sqlx::{Connection, PgConnection};

    const INSERT: &str = "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
                          VALUES ('counter', $1, 1, 'Incremented', '1', '{}'::jsonb, '{}'::jsonb) RETURNING position";

    async fn waiting_advisory_locks(backend: &Backend) -> i64 {
        sqlx::query_scalar(
            "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database \
             WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted",
        )
        .fetch_one(backend.pg_pool().unwrap())
        .await
        .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_later_writer_waits_for_an_uncommitted_one_so_positions_follow_commit_order() {
        let (backend, db) = fresh_postgres().await;
        let mut first = PgConnection::connect_with(&db.connect_options())
            .await
            .unwrap();
        let mut second = PgConnection::connect_with(&db.connect_options())
            .await
            .unwrap();

        let mut first_tx = first.begin().await.unwrap();
        let first_position: i64 = sqlx::query_scalar(INSERT)
            .bind("first")
            .fetch_one(&mut *first_tx)
            .await
            .unwrap();
        assert_eq!(
            backend.max_position().await.unwrap(),
            0,
            "uncommitted rows are invisible"
        );

        let second_writer = tokio::spawn(async move {
            let mut tx = second.begin().await.unwrap();
            let position: i64 = sqlx::query_scalar(INSERT)
                .bind("second")
                .fetch_one(&mut *tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();
            position
        });

        // Bounded polling: the second writer must be queued on the position lock.
        let queued = eventually(Duration::from_secs(5), || async {
            waiting_advisory_locks(&backend).await > 0
        })
        .await;
        assert!(queued.is_some(), "second writer never waited for the lock");
        assert!(
            !second_writer.is_finished(),
            "second writer drew a position before the first committed"
        );

        first_tx.commit().await.unwrap();
        let second_position = second_writer.await.unwrap();

        assert!(
            second_position > first_position,
            "{first_position} then {second_position}"
        );
        assert_eq!(backend.max_position().await.unwrap(), second_position);
    }

    #[tokio::test]
    async fn an_unreachable_server_is_named_by_host_and_port_without_the_password() {
        let dir = tempfile::tempdir().unwrap();
        let url = "postgres://basel:s3cret-pw@127.0.0.1:5999/basel";

        let err = Backend::connect(Some(url), dir.path()).await.unwrap_err();

        match &err {
            StoreError::Unreachable {
                backend, target, ..
            } => {
                assert_eq!(*backend, "PostgreSQL");
                assert_eq!(target, "127.0.0.1:5999");
            }
            other => panic!("expected Unreachable, got {other:?}"),
        }
        let shown = err.to_string();
        assert!(!shown.contains("s3cret-pw"), "{shown}");
        assert!(!shown.contains('\n'), "{shown}");
        assert!(shown.contains("127.0.0.1:5999"), "{shown}");
    }
}

mod sqlite_only {
    use commands::store::Backend;

    #[tokio::test]
    async fn the_embedded_store_creates_its_directory_and_commits_durably() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().join("nested").join("data");

        let backend = Backend::connect(None, &data_dir).await.unwrap();

        assert!(data_dir.join("basel.db").is_file());
        let pool = backend.sqlite_pool().unwrap();
        let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
            .fetch_one(pool)
            .await
            .unwrap();
        let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(pool)
            .await
            .unwrap();
        let busy_timeout: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
            .fetch_one(pool)
            .await
            .unwrap();
        assert_eq!(journal, "wal");
        assert_eq!(synchronous, 2, "synchronous = FULL");
        assert_eq!(busy_timeout, 5000);
    }

    #[tokio::test]
    async fn recorded_at_is_rfc3339_utc_with_milliseconds() {
        let (backend, _dir) = commands::store::testing::fresh_sqlite().await;
        sqlx::query(
            "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
             VALUES ('counter', 'a', 1, 'Incremented', '1', '{}', '{}')",
        )
        .execute(backend.sqlite_pool().unwrap())
        .await
        .unwrap();

        let recorded_at: String = sqlx::query_scalar("SELECT recorded_at FROM events")
            .fetch_one(backend.sqlite_pool().unwrap())
            .await
            .unwrap();

        // 2025-01-31T12:00:00.123Z
        let bytes = recorded_at.as_bytes();
        assert_eq!(bytes.len(), 24, "{recorded_at}");
        assert_eq!(
            (bytes[10], bytes[19], bytes[23]),
            (b'T', b'.', b'Z'),
            "{recorded_at}"
        );
    }
}
