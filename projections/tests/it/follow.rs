//! A process that does not run the projections hears of their steps by
//! PostgreSQL notification: its read cache forgets only the
//! records a step changed, before a waiter hears of the step, and after a
//! lost connection it listens again and starts over.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use chrono::Utc;
use commands::authority::AuthorityCommands;
use commands::store::testing::{eventually, Mode};
use commands::store::Backend;
use domain::authority::{ContactField, ContactPatch, SubmitVerificationUpdate, VerificationMethod};
use domain::values::CountryCode;
use projections::cache::ReadCache;
use projections::registry::Projection;
use projections::runner::Projector;

use crate::runner::{metadata, open, register};

const WAIT: Duration = Duration::from_secs(10);

/// A second process's view of `url`: a projector that follows and its cache.
async fn follower(url: &str) -> (Projector, Arc<ReadCache>, tokio::sync::oneshot::Sender<()>) {
    let db = projections::connect(url).await.expect("read db");
    let projector = Projector::new(db).await.expect("projector");
    let cache = ReadCache::watching(&projector);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(projector.clone().follow(url.to_owned(), async {
        let _ = stopped.await;
    }));
    let heard = eventually(WAIT, || {
        let projector = projector.clone();
        async move { projector.fed() }
    })
    .await;
    assert!(heard.is_some(), "the follower never started listening");
    (projector, cache, stop)
}

/// Records a check of `code` that changes its e-mail address; returns
/// the last position it wrote.
async fn change(backend: &Backend, code: &str, email: &str) -> i64 {
    let today = Utc::now().date_naive();
    let update = SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: false,
        checked_on: today,
        method: VerificationMethod::Email,
        source: "follow test".into(),
        note: None,
        changes: ContactPatch::from([(ContactField::Email, Some(email.into()))]),
        steward: None,
        today,
    };
    AuthorityCommands::new(backend)
        .submit_verification(
            &CountryCode::parse(code).expect("code"),
            update,
            &metadata(),
        )
        .await
        .expect("update")
        .position
}

/// Remembers a record for `code` as a reader would: generation first.
fn remember(cache: &ReadCache, code: &str, text: &str) {
    let generation = cache.generation();
    cache.remember_record(code, 1, generation, Bytes::from(text.to_owned()));
}

#[tokio::test]
async fn a_follower_forgets_only_the_records_a_step_changed_before_waiters_hear_of_it() {
    let (store, runner, _db) = open(Mode::Postgres).await;
    register(&store.backend, "DE").await;
    register(&store.backend, "FR").await;
    runner.catch_up().await.expect("catch up");
    let (follower, cache, _stop) = follower(&store.url).await;

    remember(&cache, "DE", "old DE");
    remember(&cache, "FR", "FR");
    assert_eq!(cache.record("DE", 1).as_deref(), Some(&b"old DE"[..]));

    let head = change(&store.backend, "DE", "new@example.de").await;
    runner.catch_up().await.expect("catch up");
    assert!(
        follower
            .wait_for(Projection::Directory, head, Duration::from_millis(500))
            .await,
        "the follower heard of the step within 500 ms"
    );
    assert_eq!(
        cache.record("FR", 1).as_deref(),
        Some(&b"FR"[..]),
        "a record the step did not touch stays remembered"
    );
    assert_eq!(
        cache.record("DE", 1),
        None,
        "a record the step touched is forgotten before the waiter hears of it"
    );
}

#[tokio::test]
async fn a_follower_that_loses_its_connection_forgets_everything_and_listens_again() {
    let (store, runner, _db) = open(Mode::Postgres).await;
    register(&store.backend, "DE").await;
    register(&store.backend, "FR").await;
    runner.catch_up().await.expect("catch up");
    let (follower, cache, _stop) = follower(&store.url).await;
    remember(&cache, "FR", "FR");

    let admin = projections::connect(&store.url).await.expect("admin");
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    )
    .execute(&admin)
    .await
    .expect("terminate the listener");
    let forgot = eventually(WAIT, || {
        let cache = cache.clone();
        async move { cache.record("FR", 1).is_none() }
    })
    .await;
    assert!(
        forgot.is_some(),
        "a lost connection forgets what was cached"
    );
    let back = eventually(WAIT, || {
        let follower = follower.clone();
        async move { follower.fed() }
    })
    .await;
    assert!(back.is_some(), "the follower listens again");

    remember(&cache, "FR", "FR again");
    remember(&cache, "DE", "old DE");
    let head = change(&store.backend, "DE", "new@example.de").await;
    runner.catch_up().await.expect("catch up");
    assert!(
        follower
            .wait_for(Projection::Directory, head, Duration::from_millis(500))
            .await,
        "after reconnecting, steps are heard again"
    );
    assert_eq!(cache.record("FR", 1).as_deref(), Some(&b"FR again"[..]));
    assert_eq!(cache.record("DE", 1), None);
}
