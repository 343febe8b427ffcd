//! `basel relay`, `basel replay` and `basel history`: the log and the audit trail.

use std::io::Write;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use domain::values::CountryCode;
use projections::replay::{self, Scratch, Source};

use crate::node::runtime::Runtime;

/// How long `replay` waits for live projections to reach the log before comparing.
const SETTLE: Duration = Duration::from_secs(10);

/// `basel relay --republish-from POSITION`: publishes every event from
/// `position` on again; JetStream drops those it still remembers.
///
/// # Errors
/// Not in server mode, or NATS/PostgreSQL failing.
pub async fn republish(
    runtime: &Runtime,
    position: i64,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let (Some(log), Some(pool)) = (&runtime.log, runtime.backend.pg_pool()) else {
        bail!("the relay needs server mode (BASEL_DATABASE_URL and BASEL_NATS_URL)");
    };
    let relay =
        commands::relay::Relay::new(pool.clone(), log.context.clone(), log.settings.clone());
    let (sent, stored) = relay
        .republish_from(position)
        .await
        .context("republishing failed")?;
    writeln!(
        out,
        "republished {sent} events from position {position}: {stored} stored, {} dropped as duplicates",
        sent - stored
    )?;
    Ok(())
}

/// `basel replay [--verify]`: rebuilds every projection from the log into
/// scratch tables; with `verify`, compares each with its live table and fails
/// naming the rows that differ.
///
/// # Errors
/// The log or a database failing; with `verify`, any difference.
pub async fn replay(runtime: &Runtime, verify: bool, out: &mut impl Write) -> anyhow::Result<()> {
    if verify {
        // Compare against projections that have seen the whole log.
        match &runtime.log {
            None => runtime.catch_up().await?,
            Some(_) => {
                if !runtime.projector.wait_for_head(SETTLE).await? {
                    writeln!(
                        out,
                        "warning: live projections are still behind the log after {}s",
                        SETTLE.as_secs()
                    )?;
                }
            }
        }
    }
    let scratch = Scratch::create(&runtime.read_db, &runtime.read_url)
        .await
        .context("cannot create scratch tables")?;
    let result = rebuild_and_compare(runtime, &scratch, verify, out).await;
    if let Err(error) = scratch.drop_all().await {
        writeln!(out, "warning: scratch tables were not removed: {error}")?;
    }
    result
}

async fn rebuild_and_compare(
    runtime: &Runtime,
    scratch: &Scratch,
    verify: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let log_source;
    let (source, from) = match &runtime.log {
        Some(log) => {
            log_source = log.source();
            (
                Source::Stream(&log_source),
                format!("stream {}", log.settings.stream),
            )
        }
        None => (
            Source::Table(&runtime.read_db),
            "the events table".to_owned(),
        ),
    };
    let (timing, _) = replay::rebuild(source, &scratch.db)
        .await
        .map_err(|e| anyhow!("rebuilding from {from} failed: {e}"))?;
    let total = timing.fold + timing.write;
    writeln!(
        out,
        "replayed {} events from {from} in {:.3}s ({:.0} events/s; read+fold {:.3}s, write {:.3}s)",
        timing.events,
        total.as_secs_f64(),
        timing.events as f64 / total.as_secs_f64().max(1e-9),
        timing.fold.as_secs_f64(),
        timing.write.as_secs_f64(),
    )?;
    if !verify {
        return Ok(());
    }
    let comparisons = replay::compare(&runtime.read_db, &scratch.db).await?;
    let mut differing = 0;
    for c in &comparisons {
        if c.matches() {
            writeln!(
                out,
                "{}: ok ({} rows, sha256 {})",
                c.projection,
                c.live_rows,
                &c.live_checksum[..16]
            )?;
        } else {
            differing += 1;
            writeln!(
                out,
                "{}: MISMATCH (live {} rows, rebuilt {} rows); differing {} keys: {}",
                c.projection,
                c.live_rows,
                c.rebuilt_rows,
                c.table,
                c.differing.join(", ")
            )?;
        }
    }
    if differing > 0 {
        bail!("{differing} projection(s) differ from the log");
    }
    Ok(())
}

/// `basel history CC`: the record's history from the history projection,
/// oldest first, one line per event.
///
/// # Errors
/// A malformed code, an unknown country, or the database failing.
pub async fn history(
    runtime: &Runtime,
    code: &str,
    json: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let code = CountryCode::parse(code.trim()).map_err(|e| anyhow!("{code:?}: {e}"))?;
    runtime.catch_up().await?;
    let items = projections::history::items(&runtime.read_db, code.as_str()).await?;
    if items.is_empty() {
        bail!("no record for {}", code.as_str());
    }
    if json {
        serde_json::to_writer_pretty(&mut *out, &items)?;
        writeln!(out)?;
        return Ok(());
    }
    for item in &items {
        let item = serde_json::to_value(item)?;
        let mut details = item.clone();
        if let Some(map) = details.as_object_mut() {
            for key in [
                "sequence",
                "recorded_at",
                "event_type",
                "actor",
                "request_id",
                "position",
            ] {
                map.remove(key);
            }
        }
        writeln!(
            out,
            "#{} {} {} by {} (request {}): {}",
            item["sequence"],
            item["recorded_at"].as_str().unwrap_or_default(),
            item["event_type"].as_str().unwrap_or_default(),
            item["actor"].as_str().unwrap_or_default(),
            item["request_id"].as_str().unwrap_or_default(),
            details
        )?;
    }
    Ok(())
}
