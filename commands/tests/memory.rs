//! What a command holds in memory does not grow with its aggregate's
//! history (issue #14's soak: every steward check read its Party's whole
//! history into memory at once, and the process kept the high-water mark).
//!
//! A test binary of its own, apart from `it`: dhat's counting allocator has
//! to be the process's global allocator, and its figures would count the
//! allocations of any test running beside it.

use chrono::{NaiveDate, Utc};
use commands::adapter::Agg;
use commands::authority::AuthorityCommands;
use commands::store::testing::fresh_sqlite;
use commands::store::Backend;
use cqrs_es::persist::{PersistedEventRepository, SerializedEvent};
use domain::authority::{
    Authority, ContactField, ContactInput, ContactPatch, RegisterAuthority,
    SubmitVerificationUpdate, VerificationMethod,
};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// Events of the Party before the measured command: a few years of checks.
const HISTORY: usize = 3_000;

/// The most heap a command may hold at once, whatever the history's length
/// (reading the whole history took over 5 MiB here).
const BOUND: usize = 512 * 1024;

fn metadata() -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Steward(Slug::parse("ana").expect("slug")),
        request_id: "req-memory".into(),
        client_request_id: None,
        idempotency: None,
    }
}

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 21).expect("date")
}

fn check(n: usize) -> SubmitVerificationUpdate {
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

fn register(country: &CountryCode) -> RegisterAuthority {
    RegisterAuthority {
        country: country.clone(),
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
    }
}

/// Registers DE and gives it about `HISTORY` events: copies of one real
/// check's events, appended in batches (no command reads them on the way).
/// Returns its version.
async fn long_history(backend: &Backend, commands: &AuthorityCommands, de: &CountryCode) -> i64 {
    commands
        .register(register(de), &metadata())
        .await
        .expect("registered");
    let committed = commands
        .submit_verification(de, check(0), &metadata())
        .await
        .expect("first check");
    let repository = backend.repository();
    let stored = repository
        .get_events::<Agg<Authority>>("DE")
        .await
        .expect("events");
    let pattern: Vec<SerializedEvent> = stored.into_iter().skip(1).collect();
    let mut next = usize::try_from(committed.sequence).expect("sequence") + 1;
    while next <= HISTORY {
        let batch: Vec<SerializedEvent> = (0..100)
            .map(|i| {
                let mut event = pattern[i % pattern.len()].clone();
                event.sequence = next + i;
                event
            })
            .collect();
        repository
            .persist::<Agg<Authority>>(&batch, None)
            .await
            .expect("appended");
        next += batch.len();
    }
    i64::try_from(next - 1).expect("version")
}

#[tokio::test]
async fn a_command_on_a_long_history_holds_a_bounded_part_of_it() {
    let (backend, dir) = fresh_sqlite().await;
    let commands = AuthorityCommands::new(&backend);
    let de = CountryCode::parse("DE").expect("code");
    let version = long_history(&backend, &commands, &de).await;

    let profiler = dhat::Profiler::builder()
        .testing()
        .file_name(dir.path().join("dhat-heap.json"))
        .build();
    let committed = commands
        .submit_verification(&de, check(HISTORY), &metadata())
        .await
        .expect("a check on a long history");
    let stats = dhat::HeapStats::get();
    drop(profiler);

    assert_eq!(
        committed.sequence,
        version + 2,
        "the check (a change and a verification) follows every stored event"
    );
    assert!(
        stats.max_bytes < BOUND,
        "a command on {HISTORY} events held {} bytes at its peak (bound {BOUND})",
        stats.max_bytes
    );
}
