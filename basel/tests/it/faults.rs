//! The log's fault tests: real `basel` processes, real PostgreSQL
//! and NATS, a database and a stream of each test's own. No acknowledged
//! write may ever be lost.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::Row;

use crate::process::{read_stream, update, verify_record, Basel, Nats, Node, PrivatePostgres};
use crate::support::{eventually, Store};

const UPDATES: usize = 500;
const CLIENTS: usize = 8;

/// The first `n` seeded country codes, once the directory holds them (in
/// server mode the seed reaches it through the relay and the stream, which
/// a cluster that has just formed can take seconds to accept).
pub(crate) async fn countries(deployment: &Basel, n: i64) -> Vec<String> {
    let db = deployment.db().await;
    let wanted = usize::try_from(n).unwrap_or(usize::MAX);
    let seeded = crate::support::eventually_some(Duration::from_secs(60), || async {
        let codes: Vec<String> =
            sqlx::query_scalar("SELECT country_code FROM directory ORDER BY country_code LIMIT $1")
                .bind(n)
                .fetch_all(&db)
                .await
                .expect("countries");
        (codes.len() == wanted).then_some(codes)
    })
    .await;
    seeded.unwrap_or_else(|| panic!("the directory did not hold {n} seeded Parties within 60 s"))
}

/// (country, source) of every verification in the events table.
async fn committed(deployment: &Basel) -> Vec<(String, String)> {
    let db = deployment.db().await;
    let rows = sqlx::query(
        "SELECT aggregate_id, CAST(payload AS TEXT) AS payload FROM events \
         WHERE event_type = 'VerificationRecorded' ORDER BY position",
    )
    .fetch_all(&db)
    .await
    .expect("events");
    rows.iter()
        .map(|r| {
            let payload: String = r.get("payload");
            let payload: Value = serde_json::from_str(&payload).expect("payload");
            let source = payload["VerificationRecorded"]["source"]
                .as_str()
                .or_else(|| payload["source"].as_str())
                .unwrap_or_default()
                .to_owned();
            (r.get("aggregate_id"), source)
        })
        .collect()
}

/// Whether the relay has published everything and every projection shows
/// every committed event.
pub(crate) async fn settled(deployment: &Basel) -> bool {
    let db = deployment.db().await;
    if deployment.store.database_url.is_some() {
        let unpublished: i64 = sqlx::query_scalar(
            "SELECT CAST(COUNT(*) AS BIGINT) FROM events WHERE published_at IS NULL",
        )
        .fetch_one(&db)
        .await
        .expect("count");
        if unpublished > 0 {
            return false;
        }
    }
    let behind: i64 = sqlx::query_scalar(
        "SELECT CAST(COUNT(*) AS BIGINT) FROM (SELECT aggregate_id, MAX(sequence) AS last FROM events \
         WHERE aggregate_type = 'authority' GROUP BY aggregate_id) e \
         LEFT JOIN directory d ON d.country_code = e.aggregate_id \
         LEFT JOIN (SELECT country_code, MAX(sequence) AS last FROM authority_history GROUP BY country_code) h \
           ON h.country_code = e.aggregate_id \
         WHERE d.version IS NULL OR d.version <> e.last OR h.last IS NULL OR h.last <> e.last",
    )
    .fetch_one(&db)
    .await
    .expect("lag");
    behind == 0
}

/// Every acknowledged update is in the events table, the history and the
/// directory (and on the stream, in server mode), exactly once.
pub(crate) async fn assert_nothing_lost(
    deployment: &Basel,
    acked: &[(String, String)],
    nats: Option<&Nats>,
) {
    let took = eventually(Duration::from_secs(30), || settled(deployment)).await;
    assert!(
        took.is_some(),
        "the relay and projections did not settle in 30 s"
    );
    let events: BTreeSet<(String, String)> = committed(deployment).await.into_iter().collect();
    for update in acked {
        assert!(
            events.contains(update),
            "acknowledged update {update:?} is not in the events table"
        );
    }
    let db = deployment.db().await;
    let rows = sqlx::query(
        "SELECT country_code, sequence, details FROM authority_history WHERE event_type = 'VerificationRecorded'",
    )
    .fetch_all(&db)
    .await
    .expect("history");
    let mut history: BTreeMap<(String, String), usize> = BTreeMap::new();
    for row in &rows {
        let details: String = row.get("details");
        let details: Value = serde_json::from_str(&details).expect("details");
        let key = (
            row.get::<String, _>("country_code"),
            details["source"].as_str().unwrap_or_default().to_owned(),
        );
        *history.entry(key).or_default() += 1;
    }
    for update in acked {
        assert_eq!(
            history.get(update),
            Some(&1),
            "{update:?} must be in the history exactly once"
        );
    }
    assert!(
        history.values().all(|n| *n == 1),
        "the history has duplicate rows"
    );
    let total_history: i64 =
        sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM authority_history")
            .fetch_one(&db)
            .await
            .expect("count");
    let total_authority: i64 = sqlx::query_scalar(
        "SELECT CAST(COUNT(*) AS BIGINT) FROM events WHERE aggregate_type = 'authority'",
    )
    .fetch_one(&db)
    .await
    .expect("count");
    assert_eq!(
        total_history, total_authority,
        "one history row per authority event"
    );
    if let Some(nats) = nats {
        let context = nats.jetstream().await;
        let published = read_stream(&context, &deployment.stream).await;
        let total: i64 = sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM events")
            .fetch_one(&db)
            .await
            .expect("count");
        assert_eq!(
            published.len() as i64,
            total,
            "the stream holds every event exactly once"
        );
        let ids: BTreeSet<String> = published
            .iter()
            .map(|e| {
                format!(
                    "{}:{}:{}",
                    e["aggregate_type"], e["aggregate_id"], e["sequence"]
                )
            })
            .collect();
        assert_eq!(
            ids.len(),
            published.len(),
            "an event is on the stream twice"
        );
        let on_stream: BTreeSet<(String, String)> = published
            .iter()
            .filter(|e| e["event_type"] == "VerificationRecorded")
            .map(|e| {
                let p = &e["payload"];
                let source = p["VerificationRecorded"]["source"]
                    .as_str()
                    .or_else(|| p["source"].as_str())
                    .unwrap_or_default();
                (
                    e["aggregate_id"].as_str().unwrap_or_default().to_owned(),
                    source.to_owned(),
                )
            })
            .collect();
        for update in acked {
            assert!(
                on_stream.contains(update),
                "{update:?} is not on the stream"
            );
        }
    }
    let (ok, out) = deployment.verify();
    assert!(ok, "basel replay --verify failed:\n{out}");
}

/// 500 updates from 8 clients; the server is killed with SIGKILL part-way and
/// restarted. A client retries an update the dead server did not answer with
/// a new `source`, so every attempt is distinguishable.
async fn crash_and_restart(deployment: &Basel, nats: Option<&Nats>) {
    let node = deployment.serve().await;
    let token = deployment.enrol("Crash Tester", "steward@example.org");
    let codes = Arc::new(countries(deployment, 40).await);
    let base = Arc::new(RwLock::new(node.base.clone()));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let answered = Arc::new(AtomicUsize::new(0));
    let http = node.http.clone();
    let mut clients = Vec::new();
    for client in 0..CLIENTS {
        let (codes, base, acked, answered, http, token) = (
            codes.clone(),
            base.clone(),
            acked.clone(),
            answered.clone(),
            http.clone(),
            token.clone(),
        );
        clients.push(tokio::spawn(async move {
            for n in (client..UPDATES).step_by(CLIENTS) {
                let code = &codes[n % codes.len()];
                for attempt in 0.. {
                    let source = format!("crash update {n} attempt {attempt}");
                    let url = base.read().expect("base").clone();
                    match verify_record(&http, &url, &token, code, &update(&source)).await {
                        Some(status) if (200..300).contains(&status) => {
                            acked.lock().expect("acked").push((code.clone(), source));
                            answered.fetch_add(1, Ordering::SeqCst);
                            break;
                        }
                        Some(409 | 503) => tokio::time::sleep(Duration::from_millis(20)).await,
                        Some(status) => panic!("update {n} got {status}"),
                        None => tokio::time::sleep(Duration::from_millis(100)).await,
                    }
                }
            }
        }));
    }
    let progressed = eventually(Duration::from_secs(120), || async {
        answered.load(Ordering::SeqCst) >= UPDATES / 3 || clients.iter().any(|c| c.is_finished())
    })
    .await;
    if progressed.is_none() || answered.load(Ordering::SeqCst) < UPDATES / 3 {
        for client in clients {
            client.await.expect("a client failed before the kill");
        }
        panic!("the clients did not get a third of their updates through in 120 s");
    }
    node.kill9();
    let killed_after = answered.load(Ordering::SeqCst);
    let node: Node = deployment.serve().await;
    *base.write().expect("base") = node.base.clone();
    if nats.is_some() {
        assert_caught_up_within(&node, Duration::from_secs(5)).await;
    }
    for client in clients {
        client.await.expect("client");
    }
    let acked = acked.lock().expect("acked").clone();
    assert_eq!(acked.len(), UPDATES);
    assert!(killed_after < UPDATES, "the kill happened part-way");
    assert_nothing_lost(deployment, &acked, nats).await;
    drop(node);
}

/// Every projection reaches the head of the events it reads, as the head was
/// when the restarted server first answered, within `limit`; and `/readyz`
/// is not ready while one is behind and has not been seen moving.
async fn assert_caught_up_within(node: &Node, limit: Duration) {
    let restarted = std::time::Instant::now();
    let (status, first) = node.get("/readyz").await.expect("/readyz answers");
    let heads: Vec<(String, i64)> = first["details"]["projections"]
        .as_array()
        .or_else(|| first["projections"].as_array())
        .expect("projections in /readyz")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_owned(),
                p["head"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    let behind = first["details"]["projections"]
        .as_array()
        .or_else(|| first["projections"].as_array())
        .is_some_and(|all| all.iter().any(|p| p["lag"].as_i64().unwrap_or(0) > 0));
    if behind {
        assert_eq!(
            status, 503,
            "/readyz was ready while a projection was behind: {first}"
        );
    }
    let caught_up = eventually(limit, || async {
        let Some((_, now)) = node.get("/readyz").await else {
            return false;
        };
        let projections = now["details"]["projections"]
            .as_array()
            .or_else(|| now["projections"].as_array())
            .cloned()
            .unwrap_or_default();
        heads.iter().all(|(name, head)| {
            projections.iter().any(|p| {
                p["name"].as_str() == Some(name) && p["position"].as_i64().unwrap_or(0) >= *head
            })
        })
    })
    .await;
    assert!(
        caught_up.is_some(),
        "the projections did not reach {heads:?} within {limit:?} of the restart ({:?} since)",
        restarted.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn server_mode_crash_loses_no_acknowledged_write() {
    let nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    crash_and_restart(&deployment, Some(&nats)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn embedded_crash_loses_no_acknowledged_write() {
    let deployment = Basel::embedded().with_secret();
    crash_and_restart(&deployment, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writes_and_reads_go_on_while_nats_is_down_and_the_log_catches_up() {
    let mut nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let node = deployment.serve().await;
    let token = deployment.enrol("Outage Tester", "steward@example.org");
    let key = node.register("reader@example.org").await;
    let codes = countries(&deployment, 8).await;
    let mut acked = Vec::new();
    for (n, code) in codes.iter().enumerate() {
        let source = format!("before outage {n}");
        let status = verify_record(&node.http, &node.base, &token, code, &update(&source)).await;
        assert_eq!(status, Some(200), "write before the outage");
        acked.push((code.clone(), source));
    }

    nats.kill();
    let outage = Instant::now();
    let mut n = 0;
    while outage.elapsed() < Duration::from_secs(4) {
        let code = &codes[n % codes.len()];
        let source = format!("during outage {n}");
        let status = verify_record(&node.http, &node.base, &token, code, &update(&source)).await;
        assert!(
            matches!(status, Some(200 | 202)),
            "a write during the NATS outage got {status:?}"
        );
        acked.push((code.clone(), source));
        let (status, record) = node
            .get_with_key(&format!("/api/v1/ca/{code}"), &key)
            .await
            .expect("a read answers");
        assert_eq!(status, 200, "a read during the NATS outage: {record}");
        n += 1;
    }
    assert!(n >= 2, "writes went on during the outage");

    nats.resume();
    let caught_up = eventually(Duration::from_secs(10), || settled(&deployment)).await;
    assert!(
        caught_up.is_some(),
        "the relay and projections did not catch up within 10 s of NATS returning"
    );
    assert_nothing_lost(&deployment, &acked, Some(&nats)).await;
    drop(node);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writes_fail_fast_while_postgres_restarts_and_the_service_recovers() {
    let postgres = PrivatePostgres::start();
    let nats = Nats::start();
    let deployment = Basel::on(Store::at(postgres.url()))
        .with_secret()
        .with_nats(&nats.url());
    let node = deployment.serve().await;
    let token = deployment.enrol("Restart Tester", "steward@example.org");
    let status = verify_record(&node.http, &node.base, &token, "FR", &update("before")).await;
    assert_eq!(status, Some(200));

    postgres.stop();
    for n in 0..3 {
        let started = Instant::now();
        let response = node
            .http
            .post(format!("{}/api/v1/ca/FR/verifications", node.base))
            .bearer_auth(&token)
            .json(&update(&format!("during outage {n}")))
            .send()
            .await
            .expect("the server answers during the outage");
        let took = started.elapsed();
        assert_eq!(response.status().as_u16(), 503);
        let body: Value = response.json().await.expect("a JSON error body");
        assert!(
            body["error"].is_string() && body["code"].is_string(),
            "{body}"
        );
        assert!(took < Duration::from_secs(5), "the write hung for {took:?}");
    }

    postgres.resume();
    let recovered = eventually(Duration::from_secs(30), || {
        let (http, base, token) = (node.http.clone(), node.base.clone(), token.clone());
        async move { verify_record(&http, &base, &token, "FR", &update("after")).await == Some(200) }
    })
    .await;
    assert!(
        recovered.is_some(),
        "writes did not recover within 30 s of PostgreSQL returning"
    );
    let key = node.register("after@example.org").await;
    let (status, record) = node
        .get_with_key("/api/v1/ca/FR", &key)
        .await
        .expect("read");
    assert_eq!(status, 200);
    // A check keeps its own evidence; the contact's source stays.
    assert_eq!(
        record["contacts"][0]["provenance"]["last_check"]["source"],
        "after"
    );
    drop(node);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_poison_message_halts_its_projection_and_the_others_keep_flowing() {
    let nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let node = deployment.serve().await;
    let token = deployment.enrol("Poison Tester", "steward@example.org");
    let key = node.register("before@example.org").await;
    // The steward is projected before the poison arrives.
    let status = verify_record(
        &node.http,
        &node.base,
        &token,
        "FR",
        &update("before poison"),
    )
    .await;
    assert_eq!(status, Some(200));

    let context = nats.jetstream().await;
    let subject = format!("{}.steward.mallory", deployment.prefix);
    context
        .publish(subject.clone(), "this is not an event".into())
        .await
        .expect("published")
        .await
        .expect("stored");

    let halted = eventually(Duration::from_secs(10), || async {
        matches!(node.get("/readyz").await, Some((503, body)) if body.to_string().contains("stewards"))
    })
    .await;
    assert!(
        halted.is_some(),
        "/readyz did not report the halted projection"
    );
    let (_, ready) = node.get("/readyz").await.expect("readyz");
    // Log lines reach stderr through a background writer: moments later.
    let named = eventually(Duration::from_secs(5), || async {
        let log = node.log();
        log.contains("projection halted")
            && log.contains(&subject)
            && log.contains("stream sequence")
    })
    .await;
    let log = node.log();
    assert!(
        named.is_some(),
        "the error log names the subject and stream sequence: {ready}\n{log}"
    );

    // Other projections keep flowing: a directory update and a new API key.
    let status = verify_record(
        &node.http,
        &node.base,
        &token,
        "FR",
        &update("after poison"),
    )
    .await;
    assert_eq!(status, Some(200));
    let (status, record) = node
        .get_with_key("/api/v1/ca/FR", &key)
        .await
        .expect("read");
    assert_eq!(
        (
            status,
            record["contacts"][0]["provenance"]["last_check"]["source"].as_str()
        ),
        (200, Some("after poison"))
    );
    let later = node.register("after@example.org").await;
    let (status, _) = node
        .get_with_key("/api/v1/ca/DE", &later)
        .await
        .expect("read");
    assert_eq!(status, 200, "the api_keys projection still flows");

    // Nothing after the poison is applied to the halted projection.
    let late_token = deployment.enrol("Late Steward", "steward@example.org");
    let status = verify_record(&node.http, &node.base, &late_token, "FR", &update("late")).await;
    assert_eq!(
        status,
        Some(401),
        "a steward enrolled after the poison is not projected"
    );
    drop(node);
}
