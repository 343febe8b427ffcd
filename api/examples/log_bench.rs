//! Load generator for the event-log benchmarks of issue #3 (driven by
//! `scripts/bench-log`; results in `BENCHMARKS.md`).
//!
//! - `lag`: in-process steward verification updates through
//!   `AuthorityCommands` against PostgreSQL at a steady rate, each timed from
//!   the command's return ("acknowledged") until the `directory` row shows
//!   its sequence; a separate `basel serve --role relay,projector` relays and
//!   projects. Also splits the lag at `events.published_at` (relay) and
//!   reports the command latency.
//! - `fill`: writes verification updates concurrently (one worker per slice
//!   of countries) until the `events` table holds exactly `--events` rows,
//!   so `basel replay` has a log of known size.
//! - `http`: `POST /api/v1/ca/{cc}/verifications` from N concurrent clients,
//!   each on its own countries; writes/s and latency percentiles.
//! - `wait`: until the relay's backlog is empty and every projection has
//!   reached the log head.
//! - `create-db`, `drop-db`, `drop-stream`: set-up and clean-up without psql
//!   or the nats CLI.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use chrono::{DateTime, NaiveDate, Utc};
use clap::{Args, Parser, Subcommand};
use serde_json::json;
use sqlx::postgres::PgPool;

use commands::authority::AuthorityCommands;
use commands::store::Backend;
use commands::CommandError;
use domain::authority::{ContactField, ContactPatch, SubmitVerificationUpdate, VerificationMethod};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};

#[derive(Debug, Parser)]
#[command(name = "log_bench", about = "Event-log benchmarks of issue #3")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Clone, Args)]
struct Store {
    /// PostgreSQL URL (server mode); absent = SQLite in --data-dir.
    #[arg(long)]
    database_url: Option<String>,
    /// Embedded mode: the data directory holding basel.db.
    #[arg(long, default_value = "./basel-data")]
    data_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Create a PostgreSQL database.
    CreateDb {
        /// A URL of the server's maintenance database.
        #[arg(long)]
        admin_url: String,
        /// The database to create.
        #[arg(long)]
        name: String,
    },
    /// Drop a PostgreSQL database (forcing its connections closed).
    DropDb {
        /// A URL of the server's maintenance database.
        #[arg(long)]
        admin_url: String,
        /// The database to drop.
        #[arg(long)]
        name: String,
    },
    /// Delete a JetStream stream (and its consumers).
    DropStream {
        /// NATS URL.
        #[arg(long)]
        nats_url: String,
        /// The stream.
        #[arg(long)]
        stream: String,
    },
    /// Migrate and seed the store (as the first `basel serve` would).
    Seed(Store),
    /// Write verification updates until the log holds exactly --events events.
    Fill {
        #[command(flatten)]
        store: Store,
        /// Events the `events` table holds at the end (seed included).
        #[arg(long, default_value_t = 100_000)]
        events: i64,
        /// Concurrent writers (each on its own countries).
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
    },
    /// Wait until the relay backlog is empty and every projection is at the log head.
    Wait {
        #[command(flatten)]
        store: Store,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Projection lag in server mode at a steady write rate.
    Lag {
        /// PostgreSQL URL (the relay and projector run in another process).
        #[arg(long)]
        database_url: String,
        /// Verification updates per second.
        #[arg(long, default_value_t = 200.0)]
        rate: f64,
        /// Measured seconds.
        #[arg(long, default_value_t = 30)]
        seconds: u64,
        /// Seconds of writes before the measured ones (not counted).
        #[arg(long, default_value_t = 2)]
        warmup: u64,
        /// How often the directory table is polled, in milliseconds.
        #[arg(long, default_value_t = 1)]
        poll_ms: u64,
    },
    /// Steward verification updates over HTTP from concurrent clients.
    Http {
        /// The REST API, e.g. http://127.0.0.1:8080.
        #[arg(long)]
        base_url: String,
        /// A steward's bearer token (`basel steward enrol`).
        #[arg(long, env = "BENCH_TOKEN", hide_env_values = true)]
        token: String,
        /// Concurrent clients (each on its own countries).
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Measured seconds.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// Seconds of load before the measured ones (not counted).
        #[arg(long, default_value_t = 2)]
        warmup: u64,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::CreateDb { admin_url, name } => {
            let pool = PgPool::connect(&admin_url).await?;
            sqlx::query(&format!("CREATE DATABASE {}", ident(&name)?))
                .execute(&pool)
                .await?;
            Ok(())
        }
        Cmd::DropDb { admin_url, name } => {
            let pool = PgPool::connect(&admin_url).await?;
            sqlx::query(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                ident(&name)?
            ))
            .execute(&pool)
            .await?;
            Ok(())
        }
        Cmd::DropStream { nats_url, stream } => {
            let client = async_nats::connect(nats_url.as_str()).await?;
            let context = async_nats::jetstream::new(client);
            match context.delete_stream(&stream).await {
                Ok(_) => Ok(()),
                Err(error) => {
                    eprintln!("stream {stream} not deleted: {error}");
                    Ok(())
                }
            }
        }
        Cmd::Seed(store) => {
            let backend = connect(&store).await?;
            let now = Utc::now();
            let seeded = commands::seed::seed_if_empty(&backend, now, now.date_naive()).await?;
            println!("seeded {seeded} records");
            Ok(())
        }
        Cmd::Fill {
            store,
            events,
            concurrency,
        } => fill(&store, events, concurrency).await,
        Cmd::Wait { store, timeout } => {
            let started = Instant::now();
            wait_caught_up(&store, Duration::from_secs(timeout)).await?;
            println!(
                "relay and projections caught up (waited {:.1}s)",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Cmd::Lag {
            database_url,
            rate,
            seconds,
            warmup,
            poll_ms,
        } => lag(&database_url, rate, seconds, warmup, poll_ms).await,
        Cmd::Http {
            base_url,
            token,
            clients,
            seconds,
            warmup,
        } => http(&base_url, &token, clients, seconds, warmup).await,
    }
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

async fn connect(store: &Store) -> anyhow::Result<Backend> {
    Ok(Backend::connect(store.database_url.as_deref(), &store.data_dir).await?)
}

/// The seeded countries, in the bundled order.
fn countries() -> anyhow::Result<Vec<CountryCode>> {
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
fn update(
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

fn metadata(n: u64) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Steward(bench_steward()),
        request_id: format!("bench-{n}"),
    }
}

async fn count_events(backend: &Backend) -> anyhow::Result<i64> {
    const SQL: &str = "SELECT COUNT(*) FROM events";
    Ok(match backend {
        Backend::Postgres(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
        Backend::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
    })
}

async fn fill(store: &Store, target: i64, concurrency: usize) -> anyhow::Result<()> {
    let backend = connect(store).await?;
    let now = Utc::now();
    commands::seed::seed_if_empty(&backend, now, now.date_naive()).await?;
    let before = count_events(&backend).await?;
    let budget = Arc::new(AtomicI64::new(target - before));
    let countries = countries()?;
    let concurrency = concurrency.clamp(1, countries.len());
    let today = Utc::now().date_naive();
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..concurrency {
        let mine: Vec<CountryCode> = countries
            .iter()
            .skip(worker)
            .step_by(concurrency)
            .cloned()
            .collect();
        let budget = budget.clone();
        let commands = AuthorityCommands::new(&backend);
        workers.spawn(async move {
            let mut commits = 0_u64;
            let mut retried = Vec::new();
            for (i, country) in mine.iter().cycle().enumerate() {
                // Two events (a correction and the check) while the budget
                // allows, one (the check alone) for an odd last event.
                let left = budget.fetch_sub(2, Ordering::SeqCst);
                let change = match left {
                    2.. => true,
                    1 => false,
                    _ => break,
                };
                let n = ((worker as u64) << 32) | i as u64;
                let mut tries = 0;
                loop {
                    match commands
                        .submit_verification(
                            country,
                            update(country, n, change, today),
                            &metadata(n),
                        )
                        .await
                    {
                        Ok(_) => break,
                        // A lost race, or (embedded mode, 16 writers queued on
                        // SQLite's write lock) the 5 s busy timeout: nothing
                        // was committed; try again, and say so at the end.
                        Err(error @ (CommandError::Conflict | CommandError::Infrastructure(_)))
                            if tries < 5 =>
                        {
                            tries += 1;
                            retried.push(format!("{}: {error}", country.as_str()));
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                        Err(error) => {
                            return Err(anyhow!("{}: {error}", country.as_str()));
                        }
                    }
                }
                commits += 1;
            }
            Ok::<_, anyhow::Error>((commits, retried))
        });
    }
    let mut commits = 0;
    let mut retried = Vec::new();
    while let Some(joined) = workers.join_next().await {
        let (done, errors) = joined??;
        commits += done;
        retried.extend(errors);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let after = count_events(&backend).await?;
    println!(
        "fill: {} commands wrote {} events in {elapsed:.1}s ({:.0} events/s, {:.0} commands/s, {concurrency} writers, {}); the log holds {after} events",
        commits,
        after - before,
        (after - before) as f64 / elapsed,
        commits as f64 / elapsed,
        backend.name(),
    );
    if let Some(first) = retried.first() {
        println!(
            "fill: {} commands failed and were retried (first: {first})",
            retried.len()
        );
    }
    if after != target {
        bail!("the log holds {after} events, not {target}");
    }
    Ok(())
}

async fn wait_caught_up(store: &Store, timeout: Duration) -> anyhow::Result<()> {
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

/// Nearest-rank percentile of sorted `values`.
fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn summary(mut values: Vec<f64>) -> String {
    values.sort_by(f64::total_cmp);
    format!(
        "p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms (n={})",
        pct(&values, 50.0),
        pct(&values, 90.0),
        pct(&values, 99.0),
        values.last().copied().unwrap_or(f64::NAN),
        values.len()
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A write waiting to show in the directory.
struct Pending {
    sequence: i64,
    acked: Instant,
    measured: bool,
    index: usize,
}

/// One write of the lag run.
#[derive(Clone, Default)]
struct Sample {
    measured: bool,
    position: i64,
    acked_wall: Option<DateTime<Utc>>,
    command: Option<Duration>,
    lag: Option<Duration>,
}

async fn lag(url: &str, rate: f64, seconds: u64, warmup: u64, poll_ms: u64) -> anyhow::Result<()> {
    if rate <= 0.0 {
        bail!("--rate must be positive");
    }
    let backend = Backend::connect(Some(url), std::path::Path::new(".")).await?;
    let now = Utc::now();
    commands::seed::seed_if_empty(&backend, now, now.date_naive()).await?;
    let store = Store {
        database_url: Some(url.to_owned()),
        data_dir: PathBuf::from("."),
    };
    wait_caught_up(&store, Duration::from_secs(60))
        .await
        .context("the relay and projector (basel serve --role relay,projector) must be running")?;
    let poll = PgPool::connect(url).await?;
    let countries = countries()?;
    let total = ((warmup + seconds) as f64 * rate).round() as usize;
    let warm = (warmup as f64 * rate).round() as usize;
    let samples = Arc::new(Mutex::new(vec![Sample::default(); total]));
    let pending: Arc<Mutex<HashMap<String, Vec<Pending>>>> = Arc::default();
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let done = Arc::new(AtomicBool::new(false));

    // The watcher: polls the directory rows of countries with pending writes.
    let watcher = {
        let (pending, samples, done) = (pending.clone(), samples.clone(), done.clone());
        tokio::spawn(async move {
            let mut idle_since: Option<Instant> = None;
            loop {
                let wanted: Vec<String> = pending
                    .lock()
                    .map_err(|_| anyhow!("poisoned"))?
                    .iter()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(k, _)| k.clone())
                    .collect();
                if wanted.is_empty() {
                    if done.load(Ordering::SeqCst) {
                        return Ok::<usize, anyhow::Error>(0);
                    }
                } else {
                    let rows: Vec<(String, i64)> = sqlx::query_as(
                        "SELECT country_code, version FROM directory WHERE country_code = ANY($1)",
                    )
                    .bind(&wanted)
                    .fetch_all(&poll)
                    .await?;
                    let seen = Instant::now();
                    let mut pending = pending.lock().map_err(|_| anyhow!("poisoned"))?;
                    let mut samples = samples.lock().map_err(|_| anyhow!("poisoned"))?;
                    for (country, version) in rows {
                        if let Some(waiting) = pending.get_mut(&country) {
                            waiting.retain(|p| {
                                if p.sequence > version {
                                    return true;
                                }
                                let sample = &mut samples[p.index];
                                sample.measured = p.measured;
                                sample.lag = Some(seen.saturating_duration_since(p.acked));
                                false
                            });
                        }
                    }
                    // After the run, give stragglers 10 s, then report them.
                    if done.load(Ordering::SeqCst) {
                        let since = *idle_since.get_or_insert_with(Instant::now);
                        if since.elapsed() > Duration::from_secs(10) {
                            return Ok(pending.values().map(Vec::len).sum());
                        }
                    }
                }
                tokio::time::sleep(Duration::from_millis(poll_ms)).await;
            }
        })
    };

    let today = Utc::now().date_naive();
    let commands = Arc::new(AuthorityCommands::new(&backend));
    let mut ticks = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut writers = tokio::task::JoinSet::new();
    let started = Instant::now();
    let mut measured_start = started;
    for index in 0..total {
        ticks.tick().await;
        if index == warm {
            measured_start = Instant::now();
        }
        let country = countries[index % countries.len()].clone();
        let (commands, pending, samples, errors) = (
            commands.clone(),
            pending.clone(),
            samples.clone(),
            errors.clone(),
        );
        writers.spawn(async move {
            let n = index as u64;
            let sent = Instant::now();
            let result = commands
                .submit_verification(&country, update(&country, n, true, today), &metadata(n))
                .await;
            let acked = Instant::now();
            let acked_wall = Utc::now();
            match result {
                Ok(committed) => {
                    if let (Ok(mut pending), Ok(mut samples)) = (pending.lock(), samples.lock()) {
                        let sample = &mut samples[index];
                        sample.position = committed.position;
                        sample.acked_wall = Some(acked_wall);
                        sample.command = Some(acked - sent);
                        pending
                            .entry(country.as_str().to_owned())
                            .or_default()
                            .push(Pending {
                                sequence: committed.sequence,
                                acked,
                                measured: index >= warm,
                                index,
                            });
                    }
                }
                Err(error) => {
                    if let Ok(mut errors) = errors.lock() {
                        errors.push(format!("{}: {error}", country.as_str()));
                    }
                }
            }
        });
    }
    let sending = measured_start.elapsed().as_secs_f64();
    while writers.join_next().await.is_some() {}
    done.store(true, Ordering::SeqCst);
    let unseen = watcher.await??;

    let samples = samples.lock().map_err(|_| anyhow!("poisoned"))?.clone();
    let measured: Vec<&Sample> = samples.iter().filter(|s| s.measured).collect();
    // The relay's share: events.published_at is set right after the relay's
    // pass has published (and had acknowledged) the batch holding the event.
    let positions: Vec<i64> = measured.iter().map(|s| s.position).collect();
    let published: HashMap<i64, Option<DateTime<Utc>>> =
        sqlx::query_as("SELECT position, published_at FROM events WHERE position = ANY($1)")
            .bind(&positions)
            .fetch_all(
                &backend
                    .pg_pool()
                    .cloned()
                    .ok_or_else(|| anyhow!("postgres"))?,
            )
            .await?
            .into_iter()
            .collect();
    let mut relay = Vec::new();
    let mut projection = Vec::new();
    for s in &measured {
        if let (Some(Some(at)), Some(acked), Some(lag)) =
            (published.get(&s.position), s.acked_wall, s.lag)
        {
            // The relay may have published before the command returned;
            // then the whole lag is the projection's.
            let relay_ms =
                ((*at - acked).num_microseconds().unwrap_or(0) as f64 / 1e3).clamp(0.0, ms(lag));
            relay.push(relay_ms);
            projection.push(ms(lag) - relay_ms);
        }
    }
    let lags: Vec<f64> = measured.iter().filter_map(|s| s.lag).map(ms).collect();
    let commands_ms: Vec<f64> = samples
        .iter()
        .skip(warm)
        .filter_map(|s| s.command)
        .map(ms)
        .collect();
    let errors = errors.lock().map_err(|_| anyhow!("poisoned"))?.clone();
    println!(
        "lag: {} writes sent at {:.1}/s over {sending:.1}s (+{warmup}s warm-up, {} events/write, poll every {poll_ms} ms)",
        total - warm,
        (total - warm) as f64 / sending.max(1e-9),
        2,
    );
    println!(
        "lag: acknowledged -> visible in directory: {}",
        summary(lags)
    );
    println!(
        "lag:   acknowledged -> published_at (relay): {}",
        summary(relay)
    );
    println!(
        "lag:   published_at (or ack if later) -> visible (stream + projection): {}",
        summary(projection)
    );
    println!(
        "lag: command latency (the whole submit_verification call): {}",
        summary(commands_ms)
    );
    println!(
        "lag: {} command errors, {unseen} writes not visible 10 s after the run{}",
        errors.len(),
        errors
            .first()
            .map(|e| format!(" (first error: {e})"))
            .unwrap_or_default()
    );
    Ok(())
}

#[derive(Default)]
struct Tally {
    latencies: Vec<f64>,
    ok: usize,
    accepted: usize,
    failed: usize,
    first_failure: Option<String>,
}

async fn http(
    base_url: &str,
    token: &str,
    clients: usize,
    seconds: u64,
    warmup: u64,
) -> anyhow::Result<()> {
    let countries = countries()?;
    let clients = clients.clamp(1, countries.len());
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(clients * 2)
        .timeout(Duration::from_secs(30))
        .build()?;
    let base = base_url.trim_end_matches('/').to_owned();
    let started = Instant::now();
    let measure_from = started + Duration::from_secs(warmup);
    let measure_to = measure_from + Duration::from_secs(seconds);
    let today = Utc::now().date_naive().to_string();
    let mut tasks = tokio::task::JoinSet::new();
    for client in 0..clients {
        let mine: Vec<String> = countries
            .iter()
            .skip(client)
            .step_by(clients)
            .map(|c| c.as_str().to_owned())
            .collect();
        let (http, base, token, today) =
            (http.clone(), base.clone(), token.to_owned(), today.clone());
        tasks.spawn(async move {
            let mut tally = Tally::default();
            for (i, country) in mine.iter().cycle().enumerate() {
                let sent = Instant::now();
                if sent >= measure_to {
                    break;
                }
                let cc = country.to_ascii_lowercase();
                let body = json!({
                    "verified": true,
                    "checked_on": today,
                    "method": "email",
                    "source": format!("e-mail from the authority, client {client} request {i}"),
                    "note": "confirmed by reply",
                    "changes": {
                        "ca_name": format!("Ministry of Environment ({cc})"),
                        "email": format!("ca-{cc}@example.org"),
                        "phone": "+41-22-917-8218",
                        "notes": format!("benchmark check {client}-{i}"),
                    }
                });
                let response = http
                    .post(format!("{base}/api/v1/ca/{country}/verifications"))
                    .bearer_auth(&token)
                    .json(&body)
                    .send()
                    .await;
                let outcome = match response {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        let text = r.text().await.unwrap_or_default();
                        Ok((status, text))
                    }
                    Err(error) => Err(error.to_string()),
                };
                let done = Instant::now();
                if sent < measure_from || done > measure_to {
                    continue;
                }
                match outcome {
                    Ok((200, _)) => tally.ok += 1,
                    Ok((202, _)) => tally.accepted += 1,
                    Ok((status, text)) => {
                        tally.failed += 1;
                        tally
                            .first_failure
                            .get_or_insert(format!("{country}: {status} {text}"));
                        continue;
                    }
                    Err(error) => {
                        tally.failed += 1;
                        tally
                            .first_failure
                            .get_or_insert(format!("{country}: {error}"));
                        continue;
                    }
                }
                tally.latencies.push(ms(done - sent));
            }
            tally
        });
    }
    let mut all = Tally::default();
    while let Some(joined) = tasks.join_next().await {
        let t = joined?;
        all.latencies.extend(t.latencies);
        all.ok += t.ok;
        all.accepted += t.accepted;
        all.failed += t.failed;
        if all.first_failure.is_none() {
            all.first_failure = t.first_failure;
        }
    }
    let writes = all.ok + all.accepted;
    println!(
        "http: {clients} clients, {seconds}s measured (+{warmup}s warm-up): {writes} writes = {:.1} writes/s (200: {}, 202 not yet visible: {}, failed: {})",
        writes as f64 / seconds as f64,
        all.ok,
        all.accepted,
        all.failed,
    );
    println!("http: latency {}", summary(all.latencies));
    if let Some(failure) = all.first_failure {
        println!("http: first failure: {failure}");
    }
    Ok(())
}
