//! `lag`: projection lag in server mode at a steady write rate.
//!
//! What a client waits for between "the command was acknowledged" and "the
//! change shows in the directory", the read model every page and API answer
//! comes from. Steward verification updates go in-process through
//! `AuthorityCommands` into PostgreSQL at `--rate` per second, while a
//! separate `basel serve --role relay,projector` relays them over JetStream
//! and projects them; a watcher polls the `directory` rows of the countries
//! with writes in flight and times each write from its acknowledgement until
//! the row's version reaches the write's sequence. The lag is split at
//! `events.published_at` into the relay's share and the stream's plus the
//! projection's, and the command latency is reported beside it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::postgres::PgPool;

use commands::authority::AuthorityCommands;
use commands::store::Backend;
use domain::values::CountryCode;

use crate::stats::{ms, summary};
use crate::store::{countries, metadata, update, wait_caught_up, Store};

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

/// The run's settings: how many writes, how many of them warm-up.
struct Plan {
    rate: f64,
    warmup: u64,
    poll_ms: u64,
    total: usize,
    warm: usize,
}

/// What the writers, the watcher and the report share.
#[derive(Clone)]
struct Run {
    samples: Arc<Mutex<Vec<Sample>>>,
    /// Writes not yet visible, by country code.
    pending: Arc<Mutex<HashMap<String, Vec<Pending>>>>,
    errors: Arc<Mutex<Vec<String>>>,
    /// Set once every write has returned.
    done: Arc<AtomicBool>,
}

fn lock<T>(mutex: &Mutex<T>) -> anyhow::Result<MutexGuard<'_, T>> {
    mutex.lock().map_err(|_| anyhow!("poisoned"))
}

/// Seeds the store if empty, waits until the relay and projector have caught
/// up, then writes `rate` updates a second for `warmup` + `seconds` seconds
/// and reports the lag of the last `seconds`.
pub async fn lag(
    url: &str,
    rate: f64,
    seconds: u64,
    warmup: u64,
    poll_ms: u64,
) -> anyhow::Result<()> {
    if rate <= 0.0 {
        bail!("--rate must be positive");
    }
    let backend = prepare(url).await?;
    let poll = PgPool::connect(url).await?;
    let countries = countries()?;
    let plan = Plan {
        rate,
        warmup,
        poll_ms,
        total: ((warmup + seconds) as f64 * rate).round() as usize,
        warm: (warmup as f64 * rate).round() as usize,
    };
    let run = Run {
        samples: Arc::new(Mutex::new(vec![Sample::default(); plan.total])),
        pending: Arc::default(),
        errors: Arc::new(Mutex::new(Vec::<String>::new())),
        done: Arc::new(AtomicBool::new(false)),
    };
    let watcher = tokio::spawn(watch(run.clone(), poll, poll_ms));
    let sending = send(&backend, &run, &countries, &plan).await;
    run.done.store(true, Ordering::SeqCst);
    let unseen = watcher.await??;
    report(&backend, &run, &plan, sending, unseen).await
}

/// Connects, seeds, and waits for the relay and projector to catch up.
async fn prepare(url: &str) -> anyhow::Result<Backend> {
    let backend = Backend::connect(Some(url), std::path::Path::new(".")).await?;
    let now = Utc::now();
    commands::seed::seed_if_empty(&backend, now, now.date_naive()).await?;
    let store = Store {
        database_url: Some(url.to_owned()),
        data_dir: std::path::PathBuf::from("."),
    };
    wait_caught_up(&store, Duration::from_secs(60))
        .await
        .context("the relay and projector (basel serve --role relay,projector) must be running")?;
    Ok(backend)
}

/// The watcher: polls the directory rows of countries with pending writes.
/// After the run, gives stragglers 10 s; returns how many stayed unseen.
async fn watch(run: Run, poll: PgPool, poll_ms: u64) -> anyhow::Result<usize> {
    let mut idle_since: Option<Instant> = None;
    loop {
        let wanted: Vec<String> = lock(&run.pending)?
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, _)| k.clone())
            .collect();
        if wanted.is_empty() {
            if run.done.load(Ordering::SeqCst) {
                return Ok(0);
            }
        } else {
            let rows: Vec<(String, i64)> = sqlx::query_as(
                "SELECT country_code, version FROM directory WHERE country_code = ANY($1)",
            )
            .bind(&wanted)
            .fetch_all(&poll)
            .await?;
            let seen = Instant::now();
            let pending = mark_visible(&run, rows, seen)?;
            // After the run, give stragglers 10 s, then report them.
            if run.done.load(Ordering::SeqCst) {
                let since = *idle_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(10) {
                    return Ok(pending);
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(poll_ms)).await;
    }
}

/// Records the lag of every pending write that `rows` (country, version),
/// read at `seen`, show; returns how many writes are still pending.
fn mark_visible(run: &Run, rows: Vec<(String, i64)>, seen: Instant) -> anyhow::Result<usize> {
    let mut pending = lock(&run.pending)?;
    let mut samples = lock(&run.samples)?;
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
    Ok(pending.values().map(Vec::len).sum())
}

/// Starts `plan.total` writes at `plan.rate` per second, round-robin over
/// the countries, and waits for all of them to return; the result is the
/// seconds the measured writes took to send.
async fn send(backend: &Backend, run: &Run, countries: &[CountryCode], plan: &Plan) -> f64 {
    let today = Utc::now().date_naive();
    let commands = Arc::new(AuthorityCommands::new(backend));
    let mut ticks = tokio::time::interval(Duration::from_secs_f64(1.0 / plan.rate));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut writers = tokio::task::JoinSet::new();
    let started = Instant::now();
    let mut measured_start = started;
    for index in 0..plan.total {
        ticks.tick().await;
        if index == plan.warm {
            measured_start = Instant::now();
        }
        let country = countries[index % countries.len()].clone();
        let measured = index >= plan.warm;
        writers.spawn(write(
            commands.clone(),
            run.clone(),
            country,
            index,
            measured,
            today,
        ));
    }
    let sending = measured_start.elapsed().as_secs_f64();
    while writers.join_next().await.is_some() {}
    sending
}

/// One write: submits the update, times the command, and hands the write
/// to the watcher (or records the error).
async fn write(
    commands: Arc<AuthorityCommands>,
    run: Run,
    country: CountryCode,
    index: usize,
    measured: bool,
    today: NaiveDate,
) {
    let n = index as u64;
    let sent = Instant::now();
    let result = commands
        .submit_verification(&country, update(&country, n, true, today), &metadata(n))
        .await;
    let acked = Instant::now();
    let acked_wall = Utc::now();
    match result {
        Ok(committed) => {
            if let (Ok(mut pending), Ok(mut samples)) = (run.pending.lock(), run.samples.lock()) {
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
                        measured,
                        index,
                    });
            }
        }
        Err(error) => {
            if let Ok(mut errors) = run.errors.lock() {
                errors.push(format!("{}: {error}", country.as_str()));
            }
        }
    }
}

/// Splits the lag of each measured write at `events.published_at`: the
/// relay's share (milliseconds) and the rest (stream and projection).
async fn relay_split(
    backend: &Backend,
    measured: &[&Sample],
) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
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
    for s in measured {
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
    Ok((relay, projection))
}

/// Prints the run's figures.
async fn report(
    backend: &Backend,
    run: &Run,
    plan: &Plan,
    sending: f64,
    unseen: usize,
) -> anyhow::Result<()> {
    let (total, warm, warmup, poll_ms) = (plan.total, plan.warm, plan.warmup, plan.poll_ms);
    let samples = lock(&run.samples)?.clone();
    let measured: Vec<&Sample> = samples.iter().filter(|s| s.measured).collect();
    let (relay, projection) = relay_split(backend, &measured).await?;
    let lags: Vec<f64> = measured.iter().filter_map(|s| s.lag).map(ms).collect();
    let commands_ms: Vec<f64> = samples
        .iter()
        .skip(warm)
        .filter_map(|s| s.command)
        .map(ms)
        .collect();
    let errors = lock(&run.errors)?.clone();
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
