//! Projections over the log, on both stores: apply, duplicate, gap, poison.

use chrono::Utc;
use commands::authority::AuthorityCommands;
use commands::store::testing::{both_modes, fresh_store, Mode, TestStore};
use commands::store::Backend;
use domain::authority::{
    ContactField, ContactInput, ContactPatch, RegisterAuthority, SubmitVerificationUpdate,
    VerificationMethod,
};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};
use projections::directory::Reader;
use projections::runner::Projector;

pub(crate) fn metadata() -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Seed,
        request_id: "t".into(),
        client_request_id: None,
        idempotency: None,
    }
}

/// A fresh store of `mode`, its read tables and a projector over them.
pub(crate) async fn open(mode: Mode) -> (TestStore, Projector, projections::ReadDb) {
    let store = fresh_store(mode).await;
    let db = projections::connect(&store.url).await.expect("read db");
    let projector = Projector::new(db.clone()).await.expect("projector");
    (store, projector, db)
}

pub(crate) async fn register(backend: &Backend, code: &str) {
    let today = Utc::now().date_naive();
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
        today,
    };
    AuthorityCommands::new(backend)
        .register(command, &metadata())
        .await
        .expect("register");
}

async fn the_directory_shows_registrations_and_verifications(mode: Mode) {
    let (store, projector, db) = open(mode).await;
    let backend = &store.backend;
    register(backend, "DE").await;
    let today = Utc::now().date_naive();
    let update = SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: false,
        checked_on: today,
        method: VerificationMethod::Phone,
        source: "call".into(),
        note: Some("confirmed".into()),
        changes: ContactPatch::from([(ContactField::Email, Some("ca@example.de".into()))]),
        steward: Some(Slug::parse("ana").expect("slug")),
        today,
    };
    let committed = AuthorityCommands::new(backend)
        .submit_verification(
            &CountryCode::parse("DE").expect("code"),
            update,
            &metadata(),
        )
        .await
        .expect("update");
    projector.catch_up().await.expect("catch up");
    assert!(
        projector
            .wait_for(
                projections::registry::Projection::Directory,
                committed.position,
                std::time::Duration::from_millis(10)
            )
            .await
    );
    let row = Reader::new(db.clone())
        .get("DE")
        .await
        .expect("read")
        .expect("row");
    assert_eq!(row.email.as_deref(), Some("ca@example.de"));
    assert_eq!(row.source_method.as_deref(), Some("phone"));
    assert_eq!(row.source_steward.as_deref(), Some("ana"));
    assert_eq!(row.version, 3);
    let history = projections::history::of(&db, "DE").await.expect("history");
    let types: Vec<_> = history.iter().map(|h| h.event_type.as_str()).collect();
    assert_eq!(
        types,
        [
            "AuthorityRegistered",
            "ContactDetailsChanged",
            "VerificationRecorded"
        ]
    );
}

async fn replaying_from_zero_changes_nothing(mode: Mode) {
    let (store, projector, db) = open(mode).await;
    let backend = &store.backend;
    register(backend, "FR").await;
    projector.catch_up().await.expect("catch up");
    let before = Reader::new(db.clone()).all().await.expect("rows");
    sqlx::query("UPDATE projection_checkpoints SET position = 0")
        .execute(&db)
        .await
        .expect("rewind");
    projector.catch_up().await.expect("catch up again");
    assert_eq!(Reader::new(db.clone()).all().await.expect("rows"), before);
    assert_eq!(
        projections::history::of(&db, "FR")
            .await
            .expect("history")
            .len(),
        1
    );
}

async fn an_undecodable_event_halts_its_projection_and_nothing_after_it_is_applied(mode: Mode) {
    let (store, projector, db) = open(mode).await;
    let backend = &store.backend;
    register(backend, "DE").await;
    sqlx::query(
        "INSERT INTO events (aggregate_type, aggregate_id, sequence, event_type, event_version, payload, metadata) \
         VALUES ('authority', 'DE', 2, 'Garbage', '1', '{\"Garbage\":{}}', '{}')",
    )
    .execute(&db)
    .await
    .expect("poison");
    register(backend, "NL").await;
    assert!(projector.catch_up().await.is_err());
    let statuses = projector.status().await.expect("status");
    let directory = statuses
        .iter()
        .find(|s| s.name == "directory")
        .expect("directory");
    assert!(directory
        .halted
        .as_deref()
        .is_some_and(|h| h.contains("Garbage")));
    assert!(
        Reader::new(db.clone())
            .get("NL")
            .await
            .expect("read")
            .is_none(),
        "nothing after the poison event is applied"
    );
    let stewards = statuses
        .iter()
        .find(|s| s.name == "stewards")
        .expect("stewards");
    assert!(stewards.halted.is_none(), "other projections keep flowing");
}

both_modes!(
    the_directory_shows_registrations_and_verifications,
    replaying_from_zero_changes_nothing,
    an_undecodable_event_halts_its_projection_and_nothing_after_it_is_applied,
);
