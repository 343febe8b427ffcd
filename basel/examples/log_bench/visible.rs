//! `visible`: how long a steward write on one REST replica takes to show on
//! another, in server mode with the relay and projector in a
//! third process.
//!
//! Sequential writes (`POST /api/v1/ca/{cc}/verifications` on `--write-url`,
//! countries in turn, `--rate` a second), each naming the authority in a
//! way no other write does. After each write's answer, one of two readers
//! on `--read-url`, in turn (so neither warms the replica for the other):
//! - **polling**: `GET /api/v1/ca/{cc}` without `min_position`, every
//!   millisecond, until the new name shows: the time from the write's answer to
//!   the first read that has it (what a client that does not pass the
//!   position sees; the replica learns of the change from the projection's
//!   checkpoint). The record is read on that replica just before each
//!   write, so its entry is in the replica's read cache;
//! - **min_position**: one `GET /api/v1/ca/{cc}?min_position=P` with the
//!   write's `X-Basel-Position`: its latency, and whether it had the new name
//!   (it must, or answer 503).

use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::json;

use crate::stats::{ms, summary};
use crate::store::countries;

/// What `visible` needs: where to write and read, as whom, how many.
pub struct Visible<'a> {
    pub write_url: &'a str,
    pub read_url: &'a str,
    pub token: &'a str,
    pub api_key: &'a str,
    pub writes: usize,
    pub rate: f64,
}

/// Runs the writes and prints both distributions.
pub async fn visible(v: &Visible<'_>) -> anyhow::Result<()> {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()?;
    let countries = countries()?;
    let today = Utc::now().date_naive().to_string();
    let every = Duration::from_secs_f64(1.0 / v.rate.max(0.1));
    let run = Utc::now().timestamp_millis();
    let (mut polled, mut pinned) = (Vec::new(), Vec::new());
    let (mut stale, mut unavailable, mut timeouts, mut accepted) = (0, 0, 0, 0);
    let mut next = Instant::now();
    for i in 0..v.writes {
        tokio::time::sleep_until(next.into()).await;
        next += every;
        let cc = countries[i % countries.len()].as_str();
        let note = format!("visible-{run}-{i}");
        // The record read on the other replica just before: its entry is
        // in that replica's read cache, as for a client that keeps looking.
        http.get(format!("{}/api/v1/ca/{cc}", v.read_url))
            .header("x-api-key", v.api_key)
            .send()
            .await?
            .error_for_status()?;
        let response = http
            .post(format!("{}/api/v1/ca/{cc}/verifications", v.write_url))
            .bearer_auth(v.token)
            .json(&json!({
                "verified": true, "checked_on": today, "method": "email",
                "source": "e-mail from the authority", "note": "benchmark",
                "changes": {
                    "ca_name": format!("Ministry of Environment, {note}"),
                    "email": format!("ca-{}@example.org", cc.to_ascii_lowercase()),
                    "phone": "+41-22-917-8218",
                },
            }))
            .send()
            .await?;
        let answered = Instant::now();
        let status = response.status().as_u16();
        let position = response
            .headers()
            .get("x-basel-position")
            .and_then(|p| p.to_str().ok())
            .map(str::to_owned);
        // 202: committed, not yet in the writer's own projection.
        anyhow::ensure!(
            status == 200 || status == 202,
            "write {i} on {cc}: {status} {}",
            response.text().await?
        );
        accepted += usize::from(status == 202);
        let position = position.ok_or_else(|| anyhow::anyhow!("no X-Basel-Position"))?;

        let read = |query: String| {
            http.get(format!("{}/api/v1/ca/{cc}{query}", v.read_url))
                .header("x-api-key", v.api_key)
                .send()
        };
        if i % 2 == 1 {
            let sent = Instant::now();
            let pinned_read = read(format!("?min_position={position}")).await?;
            let took = sent.elapsed();
            match pinned_read.status().as_u16() {
                200 if pinned_read.text().await?.contains(&note) => pinned.push(ms(took)),
                200 => stale += 1,
                _ => unavailable += 1,
            }
            continue;
        }
        let shown = loop {
            if answered.elapsed() > Duration::from_secs(5) {
                break None;
            }
            let body = read(String::new()).await?.text().await?;
            if body.contains(&note) {
                break Some(answered.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        };
        match shown {
            Some(d) => polled.push(ms(d)),
            None => timeouts += 1,
        }
    }
    println!(
        "visible: {} writes at {}/s on one replica ({accepted} answered 202), read on another",
        v.writes, v.rate
    );
    println!(
        "visible: without min_position, write answered -> first read that shows it: {} ({timeouts} not shown within 5 s)",
        summary(polled)
    );
    println!(
        "visible: with min_position, one read: {} ({stale} stale, {unavailable} answered 503)",
        summary(pinned)
    );
    Ok(())
}
