//! No silent divergence: outages of NATS and PostgreSQL under a
//! steady stream of writes, with every projection equal to a rebuild
//! afterwards (`basel replay --verify`) and every acknowledged write in the
//! store, on the stream, in the history exactly once and in the directory.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::faults::{assert_nothing_lost, countries};
use crate::process::{update, verify_record, Basel, Nats, Node, PrivatePostgres};
use crate::support::{eventually, Store};

const CLIENTS: usize = 4;

/// Steward updates from [`CLIENTS`] clients until stopped. An update that
/// was not acknowledged (no answer, 409, 503) is retried under a new
/// `source`, so every attempt can be told apart; anything else fails.
pub(crate) struct Load {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<(String, String)>>>,
    refused: Arc<Mutex<Vec<(String, String)>>>,
    answered: Arc<AtomicUsize>,
    clients: Vec<tokio::task::JoinHandle<()>>,
}

impl Load {
    pub(crate) fn start(node: &Node, token: &str, codes: Vec<String>, tag: &'static str) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(Mutex::new(Vec::new()));
        let refused = Arc::new(Mutex::new(Vec::new()));
        let answered = Arc::new(AtomicUsize::new(0));
        let codes = Arc::new(codes);
        let clients = (0..CLIENTS)
            .map(|client| {
                let (stop, acked, refused, answered, codes) = (
                    stop.clone(),
                    acked.clone(),
                    refused.clone(),
                    answered.clone(),
                    codes.clone(),
                );
                let (http, base, token) = (node.http.clone(), node.base.clone(), token.to_owned());
                tokio::spawn(async move {
                    let mut n = client;
                    while !stop.load(Ordering::SeqCst) {
                        let code = &codes[n % codes.len()];
                        let source = format!("{tag} client {client} update {n}");
                        match verify_record(&http, &base, &token, code, &update(&source)).await {
                            Some(status) if (200..300).contains(&status) => {
                                acked.lock().expect("acked").push((code.clone(), source));
                                answered.fetch_add(1, Ordering::SeqCst);
                            }
                            Some(503) => {
                                refused
                                    .lock()
                                    .expect("refused")
                                    .push((code.clone(), source));
                                tokio::time::sleep(Duration::from_millis(50)).await;
                            }
                            Some(409) | None => {
                                tokio::time::sleep(Duration::from_millis(50)).await;
                            }
                            Some(status) => panic!("update {source} got {status}"),
                        }
                        n += CLIENTS;
                    }
                })
            })
            .collect();
        Self {
            stop,
            acked,
            refused,
            answered,
            clients,
        }
    }

    /// Waits until `more` further updates were acknowledged (at most 60 s).
    pub(crate) async fn advance(&self, more: usize) {
        let target = self.answered.load(Ordering::SeqCst) + more;
        let reached = eventually(Duration::from_secs(60), || async {
            self.answered.load(Ordering::SeqCst) >= target
        })
        .await;
        assert!(
            reached.is_some(),
            "{more} more updates were not acknowledged in 60 s"
        );
    }

    /// Stops the clients; every acknowledged update, and every update
    /// answered 503.
    pub(crate) async fn finish(self) -> (Vec<(String, String)>, Vec<(String, String)>) {
        self.stop.store(true, Ordering::SeqCst);
        for client in self.clients {
            client.await.expect("a client failed");
        }
        let acked = self.acked.lock().expect("acked").clone();
        let refused = self.refused.lock().expect("refused").clone();
        (acked, refused)
    }
}

/// `POST /register`: the status (a key registered while the log is down is
/// committed all the same).
async fn register(node: &Node, email: &str) -> u16 {
    node.http
        .post(format!("{}/register", node.base))
        .json(&json!({ "email": email }))
        .send()
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_projection_equals_a_rebuild_after_a_31_second_nats_outage_under_writes() {
    let mut nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let node = deployment.serve().await;
    let token = deployment.enrol("Outage Tester", "steward@example.org");
    let load = Load::start(&node, &token, countries(&deployment, 20).await, "nats");
    load.advance(30).await;

    assert_eq!(gauge(&node, "basel_nats_connected").await, Some(1));
    nats.kill();
    let outage = Instant::now();
    let seen = eventually(Duration::from_secs(10), || async {
        gauge(&node, "basel_nats_connected").await == Some(0)
    })
    .await;
    assert!(seen.is_some(), "/metrics shows the NATS connection down");
    load.advance(20).await;
    // Every projection gets writes while the log is down: keys, a steward.
    for n in 0..3 {
        let status = register(&node, &format!("outage{n}@example.org")).await;
        assert!(
            matches!(status, 200 | 202),
            "registration during the outage: {status}"
        );
    }
    let late = deployment.enrol("Late Steward", "late@example.org");
    let left = Duration::from_secs(31).saturating_sub(outage.elapsed());
    tokio::time::sleep(left).await;
    nats.resume();
    let took = catch_up_time(&deployment).await;
    eprintln!("catch-up after a 31 s NATS outage under writes: {took:?}");
    assert_eq!(gauge(&node, "basel_nats_connected").await, Some(1));
    assert_eq!(gauge(&node, "basel_relay_active").await, Some(1));

    load.advance(30).await;
    let (acked, _) = load.finish().await;
    assert_nothing_lost(&deployment, &acked, Some(&nats)).await;
    // The steward enrolled during the outage reached the stewards projection.
    let status = verify_record(&node.http, &node.base, &late, "DE", &update("late")).await;
    assert_eq!(
        status,
        Some(200),
        "the steward enrolled during the outage can write"
    );
    let (_, metrics) = metrics(&node).await;
    assert!(
        !metrics
            .lines()
            .any(|l| l.starts_with("basel_projection_halted{") && l.ends_with(" 1")),
        "no projection halted:\n{metrics}"
    );
    drop(node);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_projection_equals_a_rebuild_after_a_6_second_postgres_outage_under_writes() {
    let postgres = PrivatePostgres::start();
    let nats = Nats::start();
    let deployment = Basel::on(Store::at(postgres.url()))
        .with_secret()
        .with_nats(&nats.url());
    let node = deployment.serve().await;
    let token = deployment.enrol("Restart Tester", "steward@example.org");
    let load = Load::start(&node, &token, countries(&deployment, 20).await, "postgres");
    load.advance(30).await;

    postgres.stop();
    tokio::time::sleep(Duration::from_secs(6)).await;
    postgres.resume();
    let took = catch_up_time(&deployment).await;
    eprintln!("catch-up after a 6 s PostgreSQL outage under writes: {took:?}");

    load.advance(30).await;
    let (acked, refused) = load.finish().await;
    assert!(
        !refused.is_empty(),
        "some writes were refused while PostgreSQL was down (the outage was felt)"
    );
    assert_nothing_lost(&deployment, &acked, Some(&nats)).await;
    drop(node);
}

/// How long every projection takes to apply the events committed up to now
/// (asserted within 10 s).
pub(crate) async fn catch_up_time(deployment: &Basel) -> Duration {
    let db = deployment.db().await;
    let heads: Vec<(String, i64)> = sqlx::query_as(
        "SELECT aggregate_type, CAST(MAX(position) AS BIGINT) FROM events GROUP BY aggregate_type",
    )
    .fetch_all(&db)
    .await
    .expect("heads");
    let reads = |name: &str| match name {
        "directory" | "history" => "authority",
        "api_keys" => "api_key",
        "stewards" => "steward",
        other => panic!("unknown projection {other}"),
    };
    let took = eventually(Duration::from_secs(10), || async {
        let checkpoints: Vec<(String, i64)> =
            sqlx::query_as("SELECT name, position FROM projection_checkpoints")
                .fetch_all(&db)
                .await
                .unwrap_or_default();
        !checkpoints.is_empty()
            && checkpoints.iter().all(|(name, position)| {
                heads
                    .iter()
                    .filter(|(kind, _)| kind == reads(name))
                    .all(|(_, head)| position >= head)
            })
    })
    .await;
    took.expect("every projection applied what was committed within 10 s")
}

/// `GET /metrics`: status and text.
async fn metrics(node: &Node) -> (u16, String) {
    let response = node
        .http
        .get(format!("{}/metrics", node.base))
        .send()
        .await
        .expect("/metrics answers");
    (
        response.status().as_u16(),
        response.text().await.unwrap_or_default(),
    )
}

/// The value of an unlabelled gauge on `/metrics`.
async fn gauge(node: &Node, name: &str) -> Option<i64> {
    let (status, text) = metrics(node).await;
    assert_eq!(status, 200);
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_relay_is_active_and_a_standby_takes_over_when_it_dies() {
    let nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let first = deployment.serve().await;
    let second = deployment.serve().await;
    let one_active = eventually(Duration::from_secs(10), || async {
        let states = (
            gauge(&first, "basel_relay_active").await,
            gauge(&second, "basel_relay_active").await,
        );
        matches!(states, (Some(1), Some(0)) | (Some(0), Some(1)))
    })
    .await;
    assert!(one_active.is_some(), "exactly one relay is active");
    let (active, standby) = if gauge(&first, "basel_relay_active").await == Some(1) {
        (first, second)
    } else {
        (second, first)
    };
    active.kill9();
    let took_over = eventually(Duration::from_secs(10), || async {
        gauge(&standby, "basel_relay_active").await == Some(1)
    })
    .await;
    assert!(
        took_over.is_some(),
        "the standby relay took over within 10 s"
    );
    let token = deployment.enrol("Relay Tester", "steward@example.org");
    let status = verify_record(&standby.http, &standby.base, &token, "FR", &update("after")).await;
    assert_eq!(
        status,
        Some(200),
        "writes are published by the new active relay"
    );
}
