//! The verifiable log on both stores: the notary keeps the tree over the
//! seeded store, checkpoints verify, and each way of tampering with a copy
//! of the store (payload edit, middle delete, reorder, truncation, a
//! replaced checkpoint) is named by position; the events table refuses
//! UPDATE and DELETE; forgetting a person leaves every checkpoint valid.

use chrono::{NaiveDate, Utc};
use commands::audit::verify::{verify, Kind};
use commands::audit::{tables, Cadence, Notary, Signer};
use commands::store::testing::{both_modes, fresh_store, without_append_guard, Mode, TestStore};
use commands::store::Backend;
use ed25519_dalek::SigningKey;

fn signer() -> Signer {
    Signer::new("test.basel/audit", SigningKey::from_bytes(&[3u8; 32]))
}

/// A seeded store whose tree covers every event, with a checkpoint every
/// 50 events and one of the whole tree.
async fn sealed_store(mode: Mode) -> (TestStore, Vec<i64>) {
    let store = fresh_store(mode).await;
    let today = NaiveDate::from_ymd_opt(2026, 11, 26).expect("date");
    commands::seed::seed_if_empty(&store.backend, Utc::now(), today)
        .await
        .expect("seeded");
    let cadence = Cadence {
        every: 50,
        interval: std::time::Duration::from_secs(3600),
    };
    let mut notary = Notary::open(store.backend.clone(), signer(), cadence)
        .await
        .expect("notary");
    notary.step().await.expect("extended");
    notary.checkpoint().await.expect("checkpoint");
    let positions = positions(&store.backend).await;
    assert_eq!(notary.size(), positions.len() as u64);
    (store, positions)
}

async fn positions(backend: &Backend) -> Vec<i64> {
    const SQL: &str = "SELECT position FROM events ORDER BY position";
    match backend {
        Backend::Postgres(pool) => sqlx::query_scalar(SQL).fetch_all(pool).await,
        Backend::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_all(pool).await,
    }
    .expect("positions")
}

async fn first_finding(backend: &Backend) -> (Kind, Option<i64>, String) {
    let report = verify(backend, &signer().verifier(), None)
        .await
        .expect("verified");
    let first = report.findings.first().expect("a finding");
    (first.kind, first.position, first.to_string())
}

async fn the_unaltered_store_verifies(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let report = verify(&store.backend, &signer().verifier(), None)
        .await
        .expect("verified");
    assert!(report.is_clean(), "{:?}", report.findings);
    assert_eq!(report.events, positions.len() as u64);
    assert_eq!(report.verified_size, positions.len() as u64);
    assert!(report.checkpoints >= 2, "{}", report.checkpoints);
}

async fn an_edited_payload_is_named_by_position(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let target = positions[positions.len() / 2];
    let edit = match mode {
        Mode::Postgres => format!(
            "UPDATE events SET payload = jsonb_set(payload, '{{x}}', '1') WHERE position = {target}"
        ),
        Mode::Embedded => format!(
            "UPDATE events SET payload = replace(payload, '}}', ',\"x\":1}}') WHERE position = {target}"
        ),
    };
    without_append_guard(&store.backend, &edit).await;
    let (kind, position, text) = first_finding(&store.backend).await;
    assert_eq!((kind, position), (Kind::Altered, Some(target)), "{text}");
}

async fn a_deleted_event_is_named_by_position(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let target = positions[positions.len() / 3];
    without_append_guard(
        &store.backend,
        &format!("DELETE FROM events WHERE position = {target}"),
    )
    .await;
    let (kind, position, text) = first_finding(&store.backend).await;
    assert_eq!((kind, position), (Kind::Missing, Some(target)), "{text}");
}

async fn swapped_events_are_named_as_reordered(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let (a, b) = (positions[10], positions[11]);
    without_append_guard(
        &store.backend,
        &format!(
            "UPDATE events SET position = -1 WHERE position = {a}; \
             UPDATE events SET position = {a} WHERE position = {b}; \
             UPDATE events SET position = {b} WHERE position = -1"
        ),
    )
    .await;
    let (kind, position, text) = first_finding(&store.backend).await;
    assert_eq!((kind, position), (Kind::Reordered, Some(a)), "{text}");
}

async fn a_truncated_log_is_named_by_its_first_missing_position(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let target = positions[positions.len() - 5];
    without_append_guard(
        &store.backend,
        &format!("DELETE FROM events WHERE position >= {target}"),
    )
    .await;
    let (kind, position, text) = first_finding(&store.backend).await;
    assert_eq!((kind, position), (Kind::Missing, Some(target)), "{text}");
}

async fn a_replaced_checkpoint_is_refused(mode: Mode) {
    let (store, _) = sealed_store(mode).await;
    let stored = tables::checkpoints(&store.backend, Some(50))
        .await
        .expect("read");
    let forged = Signer::new("test.basel/audit", SigningKey::from_bytes(&[4u8; 32]))
        .sign(50, &stored[0].root);
    without_append_guard(
        &store.backend,
        &format!("UPDATE audit_checkpoints SET note = '{forged}' WHERE tree_size = 50"),
    )
    .await;
    let (kind, _, text) = first_finding(&store.backend).await;
    assert_eq!(kind, Kind::BadCheckpoint, "{text}");
    assert!(text.contains("size 50"), "{text}");
}

async fn a_rewritten_tree_is_inconsistent_with_its_checkpoint(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let target = positions[20];
    // Someone who edits an event and its stored leaf alike still cannot
    // sign the checkpoint again.
    let edit = match mode {
        Mode::Postgres => format!(
            "UPDATE events SET payload = jsonb_set(payload, '{{x}}', '1') WHERE position = {target}; \
             UPDATE audit_leaves SET leaf_hash = sha256('forged'::bytea) WHERE position = {target}"
        ),
        Mode::Embedded => format!(
            "UPDATE events SET payload = replace(payload, '}}', ',\"x\":1}}') WHERE position = {target}; \
             UPDATE audit_leaves SET leaf_hash = zeroblob(32) WHERE position = {target}"
        ),
    };
    without_append_guard(&store.backend, &edit).await;
    let report = verify(&store.backend, &signer().verifier(), None)
        .await
        .expect("verified");
    assert!(
        report.findings.iter().any(|f| f.kind == Kind::Inconsistent
            && f.position == Some(target)
            && f.detail.contains("checkpoint 50")),
        "{:?}",
        report.findings
    );
}

async fn the_events_table_refuses_update_and_delete(mode: Mode) {
    let (store, positions) = sealed_store(mode).await;
    let p = positions[0];
    let statements = [
        format!("UPDATE events SET payload = metadata WHERE position = {p}"),
        format!("UPDATE events SET sequence = sequence + 100 WHERE position = {p}"),
        format!("DELETE FROM events WHERE position = {p}"),
        format!("DELETE FROM audit_leaves WHERE position = {p}"),
        "DELETE FROM audit_checkpoints".to_owned(),
    ];
    for sql in statements {
        let result = match &store.backend {
            Backend::Postgres(pool) => sqlx::query(&sql).execute(pool).await.map(|_| ()),
            Backend::Sqlite(pool) => sqlx::query(&sql).execute(pool).await.map(|_| ()),
        };
        let error = result.expect_err(&sql).to_string();
        assert!(error.contains("append-only"), "{sql}: {error}");
    }
    if let Backend::Postgres(pool) = &store.backend {
        let error = sqlx::query("TRUNCATE events")
            .execute(pool)
            .await
            .expect_err("truncate");
        assert!(error.to_string().contains("append-only"), "{error}");
    }
    let published = match &store.backend {
        Backend::Postgres(pool) => {
            sqlx::query("UPDATE events SET published_at = now() WHERE position = $1")
                .bind(p)
                .execute(pool)
                .await
                .map(|_| ())
        }
        Backend::Sqlite(pool) => sqlx::query(
            "UPDATE events SET published_at = '2026-01-01T00:00:00.000Z' WHERE position = $1",
        )
        .bind(p)
        .execute(pool)
        .await
        .map(|_| ()),
    };
    published.expect("the relay's mark is still allowed");
}

both_modes!(
    the_unaltered_store_verifies,
    an_edited_payload_is_named_by_position,
    a_deleted_event_is_named_by_position,
    swapped_events_are_named_as_reordered,
    a_truncated_log_is_named_by_its_first_missing_position,
    a_replaced_checkpoint_is_refused,
    a_rewritten_tree_is_inconsistent_with_its_checkpoint,
    the_events_table_refuses_update_and_delete
);
