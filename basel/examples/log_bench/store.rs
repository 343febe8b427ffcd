//! The store the benchmarks write to, and the writes themselves: connecting
//! (PostgreSQL in server mode, SQLite in embedded mode), the set-up and
//! clean-up commands (`create-db`, `drop-db`, `drop-stream`, `seed`),
//! waiting until the relay and projections have caught up (`wait`), and the
//! steward verification updates that `lag` and `fill` submit. Nothing here is
//! timed; it exists so every benchmark starts from the same seeded store and
//! writes the same events.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::bail;
use chrono::{NaiveDate, Utc};
use clap::Args;
use sqlx::postgres::PgPool;

use commands::store::Backend;
use domain::authority::{ContactField, ContactPatch, SubmitVerificationUpdate, VerificationMethod};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};

#[derive(Debug, Clone, Args)]
pub struct Store {
    /// PostgreSQL URL (server mode); absent = SQLite in --data-dir.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Embedded mode: the data directory holding basel.db.
    #[arg(long, default_value = "./basel-data")]
    pub data_dir: PathBuf,
}

/// A database name safe to splice into DDL.
fn ident(name: &str) -> anyhow::Result<&str> {
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        bail!("database name {name:?}: use [a-z0-9_]");
    }
    Ok(name)
}

/// `create-db`: creates database `name` on the server of `admin_url`.
pub async fn create_db(admin_url: &str, name: &str) -> anyhow::Result<()> {
    let pool = PgPool::connect(admin_url).await?;
    sqlx::query(&format!("CREATE DATABASE {}", ident(name)?))
        .execute(&pool)
        .await?;
    Ok(())
}

/// `drop-db`: drops database `name`, forcing its connections closed.
pub async fn drop_db(admin_url: &str, name: &str) -> anyhow::Result<()> {
    let pool = PgPool::connect(admin_url).await?;
    sqlx::query(&format!(
        "DROP DATABASE IF EXISTS {} WITH (FORCE)",
        ident(name)?
    ))
    .execute(&pool)
    .await?;
    Ok(())
}

/// `drop-stream`: deletes a JetStream stream; a stream that cannot be
/// deleted is reported, not an error (clean-up goes on).
pub async fn drop_stream(nats_url: &str, stream: &str) -> anyhow::Result<()> {
    let client = async_nats::connect(nats_url).await?;
    let context = async_nats::jetstream::new(client);
    match context.delete_stream(stream).await {
        Ok(_) => Ok(()),
        Err(error) => {
            eprintln!("stream {stream} not deleted: {error}");
            Ok(())
        }
    }
}

/// `seed`: migrates and seeds the store, as the first `basel serve` would.
pub async fn seed(store: &Store) -> anyhow::Result<()> {
    let backend = connect(store).await?;
    let now = Utc::now();
    let seeded = commands::seed::seed_if_empty(&backend, now, now.date_naive()).await?;
    println!("seeded {seeded} records");
    Ok(())
}

/// `wait`: until the relay and the projections have caught up.
pub async fn wait(store: &Store, timeout: u64) -> anyhow::Result<()> {
    let started = Instant::now();
    wait_caught_up(store, Duration::from_secs(timeout)).await?;
    println!(
        "relay and projections caught up (waited {:.1}s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The store's write side.
pub async fn connect(store: &Store) -> anyhow::Result<Backend> {
    Ok(Backend::connect(store.database_url.as_deref(), &store.data_dir).await?)
}

/// The seeded countries, in the bundled order.
pub fn countries() -> anyhow::Result<Vec<CountryCode>> {
    Ok(domain::seed::bundled()?
        .into_iter()
        .map(|r| r.country)
        .collect())
}

fn bench_steward() -> Slug {
    Slug::parse("bench").expect("a valid slug")
}

/// A steward's check of `country`, number `n`. With `change`, it also
/// corrects the contact details (ca_name, e-mail, phone once, `notes` every
/// time), so the command emits `ContactDetailsChanged` and
/// `VerificationRecorded`; without, it emits only `VerificationRecorded`
/// (and does not mark the record verified, which would need the contact
/// fields a seeded record may lack).
pub fn update(
    country: &CountryCode,
    n: u64,
    change: bool,
    today: NaiveDate,
) -> SubmitVerificationUpdate {
    let mut changes = ContactPatch::new();
    if change {
        let cc = country.as_str().to_ascii_lowercase();
        changes.insert(
            ContactField::CaName,
            Some(format!("Ministry of Environment ({cc})")),
        );
        changes.insert(ContactField::Email, Some(format!("ca-{cc}@example.org")));
        changes.insert(ContactField::Phone, Some("+41-22-917-8218".to_owned()));
        changes.insert(ContactField::Notes, Some(format!("benchmark check {n}")));
    }
    SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: change,
        checked_on: today,
        method: VerificationMethod::Email,
        source: format!("e-mail from the authority, benchmark {n}"),
        note: Some("confirmed by reply".to_owned()),
        changes,
        steward: Some(bench_steward()),
        today,
    }
}

/// The metadata of update number `n`, recorded now by the bench steward.
pub fn metadata(n: u64) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Steward(bench_steward()),
        request_id: format!("bench-{n}"),
        client_request_id: None,
        idempotency: None,
    }
}

/// Rows in the `events` table.
pub async fn count_events(backend: &Backend) -> anyhow::Result<i64> {
    const SQL: &str = "SELECT COUNT(*) FROM events";
    Ok(match backend {
        Backend::Postgres(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
        Backend::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
    })
}

/// Polls until the relay backlog is empty (server mode) and every
/// projection is at the log head; fails on a halted projection or after
/// `timeout`.
pub async fn wait_caught_up(store: &Store, timeout: Duration) -> anyhow::Result<()> {
    let backend = connect(store).await?;
    let read_url = match &store.database_url {
        Some(url) => url.clone(),
        None => format!(
            "sqlite://{}",
            store.data_dir.canonicalize()?.join("basel.db").display()
        ),
    };
    let read_db = projections::connect(&read_url).await?;
    let projector = projections::runner::Projector::new(read_db).await?;
    let deadline = Instant::now() + timeout;
    loop {
        let backlog = match backend.pg_pool() {
            Some(pool) => commands::relay::backlog(pool).await?,
            None => 0,
        };
        let lags = projector.lag().await?;
        if let Some(halted) = lags.iter().find(|l| l.halted.is_some()) {
            bail!("projection {} halted: {:?}", halted.name, halted.halted);
        }
        let behind: Vec<String> = lags
            .iter()
            .filter(|l| l.lag > 0)
            .map(|l| format!("{} {} behind", l.name, l.lag))
            .collect();
        if backlog == 0 && behind.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!(
                "not caught up after {}s: relay backlog {backlog}; {}",
                timeout.as_secs(),
                behind.join(", ")
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
