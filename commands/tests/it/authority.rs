//! The authority command service on both stores: concurrency with the real
//! aggregate, and the committed position it reports.

use std::sync::Arc;

use chrono::{NaiveDate, Utc};
use commands::authority::AuthorityCommands;
use commands::store::testing::{both_modes, fresh_sqlite, fresh_store, Mode};
use commands::store::Backend;
use commands::CommandError;
use domain::authority::{
    ContactField, ContactInput, ContactPatch, RegisterAuthority, SubmitVerificationUpdate,
    VerificationMethod,
};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};

fn metadata(request: usize) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Steward(Slug::parse("ana").expect("slug")),
        request_id: format!("req-{request}"),
        client_request_id: None,
        idempotency: None,
    }
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 21).expect("date")
}

async fn register_de(commands: &AuthorityCommands) {
    let command = RegisterAuthority {
        country: CountryCode::parse("DE").expect("code"),
        country_name: "Germany".into(),
        contact: ContactInput {
            ca_name: Some("UBA".into()),
            ..ContactInput::default()
        },
        verified: false,
        last_checked: None,
        source: None,
        contacts: Vec::new(),
        steward: None,
        today: today(),
    };
    commands
        .register(command, &metadata(0))
        .await
        .expect("registered");
}

fn update(n: usize) -> SubmitVerificationUpdate {
    SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: false,
        checked_on: today(),
        method: VerificationMethod::Email,
        source: format!("check {n}"),
        note: None,
        changes: ContactPatch::from([(ContactField::Notes, Some(format!("note {n}")))]),
        steward: Some(Slug::parse("ana").expect("slug")),
        today: today(),
    }
}

async fn fifty_concurrent_updates_commit_each_sequence_once(backend: Backend) {
    let commands = Arc::new(AuthorityCommands::new(&backend));
    register_de(&commands).await;
    let de = CountryCode::parse("DE").expect("code");
    let tasks: Vec<_> = (1..=50)
        .map(|n| {
            let (commands, de) = (commands.clone(), de.clone());
            tokio::spawn(async move {
                commands
                    .submit_verification(&de, update(n), &metadata(n))
                    .await
            })
        })
        .collect();
    let (mut won, mut lost) = (Vec::new(), 0);
    for task in tasks {
        match task.await.expect("task") {
            Ok(committed) => won.push(committed),
            Err(CommandError::Conflict) => lost += 1,
            Err(other) => panic!("unexpected error: {other}"),
        }
    }
    assert_eq!(won.len() + lost, 50);
    assert!(!won.is_empty(), "at least one update must win");
    // Each winner appended two events (changed + verified) at distinct sequences.
    let mut sequences: Vec<_> = won.iter().map(|c| c.sequence).collect();
    sequences.sort_unstable();
    sequences.dedup();
    assert_eq!(sequences.len(), won.len(), "a sequence was committed twice");
    let events = backend.event_store::<commands::adapter::Agg<domain::authority::Authority>>();
    let stored = cqrs_es::EventStore::load_events(&events, "DE")
        .await
        .expect("load");
    assert_eq!(
        stored.len(),
        1 + 2 * won.len(),
        "every acknowledged update is stored, nothing else"
    );
    let stored_sequences: Vec<_> = stored.iter().map(|e| e.sequence).collect();
    assert_eq!(stored_sequences, (1..=stored.len()).collect::<Vec<_>>());
    let mut positions: Vec<_> = won.iter().map(|c| c.position).collect();
    positions.sort_unstable();
    positions.dedup();
    assert_eq!(
        positions.len(),
        won.len(),
        "every winner reports its own position"
    );
}

async fn fifty_concurrent_verification_updates_on_one_record_lose_nothing(mode: Mode) {
    let store = fresh_store(mode).await;
    fifty_concurrent_updates_commit_each_sequence_once(store.backend.clone()).await;
}

#[tokio::test]
async fn a_refused_command_writes_nothing_and_says_why() {
    let (backend, _dir) = fresh_sqlite().await;
    let commands = AuthorityCommands::new(&backend);
    let de = CountryCode::parse("DE").expect("code");
    let refused = commands
        .submit_verification(&de, update(1), &metadata(1))
        .await;
    assert!(matches!(
        refused,
        Err(CommandError::Rejected(
            domain::authority::AuthorityError::NotRegistered
        ))
    ));
    assert_eq!(backend.max_position().await.expect("position"), 0);
}

async fn a_stale_expected_version_is_a_conflict_and_writes_nothing(backend: Backend) {
    let commands = AuthorityCommands::new(&backend);
    register_de(&commands).await;
    let de = CountryCode::parse("DE").expect("code");
    // Another writer moves the record from version 1 to 3 first.
    commands
        .submit_verification(&de, update(1), &metadata(1))
        .await
        .expect("first update");
    let stale = commands
        .submit_verification_at(&de, update(2), &metadata(2), Some(1))
        .await;
    assert!(
        matches!(
            stale,
            Err(CommandError::VersionMismatch {
                expected: 1,
                current: 3
            })
        ),
        "{stale:?}"
    );
    let current = commands
        .submit_verification_at(&de, update(3), &metadata(3), Some(3))
        .await
        .expect("at the current version");
    assert_eq!(current.sequence, 5);
}

async fn a_stale_expected_version_is_a_conflict(mode: Mode) {
    let store = fresh_store(mode).await;
    a_stale_expected_version_is_a_conflict_and_writes_nothing(store.backend.clone()).await;
}

/// Two processes write one Party in turn: each decides on every stored
/// event, the other's included; a stale state would refuse the expected
/// version, or record the wrong `old` value.
async fn two_processes_writing_one_party_in_turn_decide_on_every_stored_event(mode: Mode) {
    let store = fresh_store(mode).await;
    let backend = store.backend.clone();
    let (a, b) = (
        AuthorityCommands::new(&backend),
        AuthorityCommands::new(&backend),
    );
    register_de(&a).await;
    let de = CountryCode::parse("DE").expect("code");
    let mut version = 1;
    for n in 1..=6 {
        let writer = if n % 2 == 1 { &a } else { &b };
        let committed = writer
            .submit_verification_at(&de, update(n), &metadata(n), Some(version))
            .await
            .unwrap_or_else(|error| panic!("update {n} at version {version}: {error}"));
        assert_eq!(committed.sequence, version + 2, "update {n}");
        version = committed.sequence;
    }
    // Without an expected version too: A decides on B's last note.
    a.submit_verification(&de, update(7), &metadata(7))
        .await
        .expect("update 7");
    let events = backend.event_store::<commands::adapter::Agg<domain::authority::Authority>>();
    let stored = cqrs_es::EventStore::load_events(&events, "DE")
        .await
        .expect("load");
    let olds: Vec<Option<String>> = stored
        .iter()
        .filter_map(|envelope| match &envelope.payload.0 {
            domain::authority::AuthorityEvent::ContactDetailsChanged(changed) => {
                Some(changed.changes[0].old.clone())
            }
            _ => None,
        })
        .collect();
    let expected: Vec<Option<String>> = (0..7)
        .map(|n| (n > 0).then(|| format!("note {n}")))
        .collect();
    assert_eq!(
        olds, expected,
        "each change starts from the last stored note"
    );
    let rebuilt = a.current(&de).await.expect("rebuilt");
    assert_eq!(
        rebuilt
            .primary_contact()
            .and_then(|c| c.details.notes.clone()),
        Some("note 7".to_owned())
    );
}

both_modes!(
    fifty_concurrent_verification_updates_on_one_record_lose_nothing,
    a_stale_expected_version_is_a_conflict,
    two_processes_writing_one_party_in_turn_decide_on_every_stored_event,
);
