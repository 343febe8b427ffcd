//! `http`: HTTP write throughput of steward verification updates.
//!
//! The whole write path as a steward's client sees it (REST routing,
//! authentication, the command, the store, and in server mode the wait for
//! the projection): `POST /api/v1/ca/{cc}/verifications` from `--clients`
//! concurrent clients, each on its own countries so they do not conflict,
//! against a running `basel serve --role all`. After `--warmup` seconds,
//! counts the writes answered within the `--seconds` window (200 visible,
//! 202 accepted but not yet visible, failures) and their latency
//! percentiles.

use std::time::{Duration, Instant};

use chrono::Utc;
use serde_json::json;

use crate::stats::{ms, summary};
use crate::store::countries;

/// What one client counted in the measured window.
#[derive(Default)]
struct Tally {
    latencies: Vec<f64>,
    ok: usize,
    accepted: usize,
    failed: usize,
    first_failure: Option<String>,
}

impl Tally {
    fn merge(&mut self, t: Tally) {
        self.latencies.extend(t.latencies);
        self.ok += t.ok;
        self.accepted += t.accepted;
        self.failed += t.failed;
        if self.first_failure.is_none() {
            self.first_failure = t.first_failure;
        }
    }
}

/// One client's share of the work and the measured window.
struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
    today: String,
    client: usize,
    countries: Vec<String>,
    measure_from: Instant,
    measure_to: Instant,
}

/// Runs `clients` clients for `warmup` + `seconds` seconds and reports the
/// last `seconds`.
pub async fn http(
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
        tasks.spawn(run(Client {
            http: http.clone(),
            base: base.clone(),
            token: token.to_owned(),
            today: today.clone(),
            client,
            countries: mine,
            measure_from,
            measure_to,
        }));
    }
    let mut all = Tally::default();
    while let Some(joined) = tasks.join_next().await {
        all.merge(joined?);
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

/// One client: posts updates of its countries in turn until the window
/// closes, counting only requests sent and answered inside it.
async fn run(c: Client) -> Tally {
    let mut tally = Tally::default();
    for (i, country) in c.countries.iter().cycle().enumerate() {
        let sent = Instant::now();
        if sent >= c.measure_to {
            break;
        }
        let response = c
            .http
            .post(format!("{}/api/v1/ca/{country}/verifications", c.base))
            .bearer_auth(&c.token)
            .json(&body(country, &c.today, c.client, i))
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
        if sent < c.measure_from || done > c.measure_to {
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
}

/// The request body of request `i` of `client`: a verified check that also
/// corrects the contact details.
fn body(country: &str, today: &str, client: usize, i: usize) -> serde_json::Value {
    let cc = country.to_ascii_lowercase();
    json!({
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
    })
}
