//! `basel worklist`: the steward worklist (`projections::worklist`), one
//! line per Party (`CC  need  reason — search "<name> (CC)" at <page>`), or
//! JSON with `--json`.

use std::io::Write;

use chrono::Utc;

use crate::node::runtime::Runtime;

/// The days after which a check is stale, as `serve` judges it by default.
const STALE_AFTER_DAYS: i64 = projections::views::DEFAULT_STALE_AFTER_DAYS;

/// Prints the worklist.
///
/// # Errors
/// When projections cannot catch up or the output cannot be written.
pub async fn print(runtime: &Runtime, json: bool, out: &mut impl Write) -> anyhow::Result<()> {
    runtime.catch_up().await?;
    let rows = projections::directory::Reader::new(runtime.read_db.clone())
        .all()
        .await?;
    let items = projections::worklist::of(&rows, Utc::now().date_naive(), STALE_AFTER_DAYS);
    if json {
        serde_json::to_writer_pretty(&mut *out, &serde_json::json!({ "items": items }))?;
        writeln!(out)?;
        return Ok(());
    }
    for item in &items {
        writeln!(
            out,
            "{}  {:<22} {} — search \"{}\" at {}",
            item.country_code,
            item.need,
            item.reason,
            item.look_for,
            item.look_at.join(" , ")
        )?;
    }
    writeln!(out, "{} Part(ies) need a steward.", items.len())?;
    Ok(())
}
