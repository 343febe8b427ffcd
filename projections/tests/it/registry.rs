//! The registry at work: heads per aggregate, and strings that name nothing
//! (an aggregate type, a projection) are errors, never a default.

use projections::registry::{AggregateKind, Projection};
use projections::replay::{fold_log, Source};
use projections::ProjectionError;

use commands::store::testing::Mode;

use crate::runner::{open, register};

#[tokio::test]
async fn each_projection_is_measured_against_the_aggregate_it_reads() {
    let (store, projector, _db) = open(Mode::Embedded).await;
    let backend = &store.backend;
    register(backend, "DE").await;
    projector.catch_up().await.expect("catch up");
    let lags = projector.lag().await.expect("lag");
    assert_eq!(lags.len(), Projection::ALL.len());
    for lag in lags {
        let projection = Projection::named(&lag.name).expect("a known projection");
        let head = i64::from(projection.reads() == AggregateKind::Authority);
        assert_eq!((lag.head, lag.lag), (head, 0), "{}", lag.name);
        // Embedded, every projection reads the whole log.
        assert_eq!(lag.position, 1, "{}", lag.name);
    }
}

#[tokio::test]
async fn an_event_of_an_unknown_aggregate_type_halts_every_projection_and_fails_a_replay() {
    let (store, projector, db) = open(Mode::Embedded).await;
    let backend = &store.backend;
    register(backend, "DE").await;
    sqlx::query(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
         VALUES ('counter', 'a', 1, 'Incremented', '1', '{}', '{}')",
    )
    .execute(&db)
    .await
    .expect("insert");
    assert!(matches!(
        projector.catch_up().await,
        Err(ProjectionError::Decode { .. })
    ));
    for status in projector.status().await.expect("status") {
        assert!(
            status
                .halted
                .as_deref()
                .is_some_and(|h| h.contains("unknown aggregate type")),
            "{} keeps flowing past an event no projection knows",
            status.name
        );
        assert_eq!(status.position, 0, "{} applied the batch", status.name);
    }
    assert!(matches!(
        fold_log(Source::Table(&db)).await,
        Err(ProjectionError::Decode { .. })
    ));
}

#[tokio::test]
async fn a_checkpoint_naming_no_projection_makes_lag_an_error() {
    let (_store, projector, db) = open(Mode::Embedded).await;
    sqlx::query(
        "INSERT INTO projection_checkpoints (name, position, halted, updated_at) \
         VALUES ('retired', 0, NULL, '2026-01-01T00:00:00Z')",
    )
    .execute(&db)
    .await
    .expect("insert");
    assert!(matches!(
        projector.lag().await,
        Err(ProjectionError::Corrupt(_))
    ));
}
