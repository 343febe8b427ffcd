//! `fill`: fills the event log to an exact size, for the replay timing.
//!
//! `basel replay` is timed by `scripts/bench-log` itself; what it needs from
//! here is a log of known size (`--events`, seed included), so replay
//! figures from different runs and modes compare. Concurrent writers (one
//! per slice of countries) submit steward verification updates of two
//! events each (one for an odd last event) until the budget is spent; the
//! fill's own throughput (events/s, commands/s) is printed as a by-product.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};
use chrono::{NaiveDate, Utc};

use commands::authority::AuthorityCommands;
use commands::CommandError;
use domain::values::CountryCode;

use crate::store::{connect, count_events, countries, metadata, update, Store};

/// Seeds the store if empty, then writes until the `events` table holds
/// exactly `target` rows.
pub async fn fill(store: &Store, target: i64, concurrency: usize) -> anyhow::Result<()> {
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
        let commands = AuthorityCommands::new(&backend);
        workers.spawn(write(commands, mine, budget.clone(), worker, today));
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

/// One writer: cycles through its countries while the budget lasts; returns
/// its commits and the failures it retried.
async fn write(
    commands: AuthorityCommands,
    mine: Vec<CountryCode>,
    budget: Arc<AtomicI64>,
    worker: usize,
    today: NaiveDate,
) -> anyhow::Result<(u64, Vec<String>)> {
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
        submit(&commands, country, n, change, today, &mut retried).await?;
        commits += 1;
    }
    Ok((commits, retried))
}

/// Submits update `n` of `country`, retrying up to five times on a conflict
/// or an infrastructure error (each noted in `retried`).
async fn submit(
    commands: &AuthorityCommands,
    country: &CountryCode,
    n: u64,
    change: bool,
    today: NaiveDate,
    retried: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut tries = 0;
    loop {
        match commands
            .submit_verification(country, update(country, n, change, today), &metadata(n))
            .await
        {
            Ok(_) => return Ok(()),
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
}
