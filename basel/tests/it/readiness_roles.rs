//! Readiness per role: a REST replica answers for its reads, a
//! relay and projector process for itself; a NATS outage takes the
//! projector and the relay out, not the REST replica, until its reads are
//! older than `BASEL_READY_MAX_LAG`.

use std::time::Duration;

use serde_json::Value;

use crate::faults::countries;
use crate::process::{update, verify_record, Basel, Nats};
use crate::running::Running;
use crate::support::eventually;

/// `GET url`: status and JSON body.
async fn get(url: &str) -> Option<(u16, Value)> {
    let response = reqwest::get(url).await.ok()?;
    let status = response.status().as_u16();
    Some((status, response.json().await.unwrap_or(Value::Null)))
}

fn reasons(body: &Value) -> String {
    body["details"]["reasons"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_nats_outage_takes_out_the_projector_and_relay_but_not_a_rest_replica_until_its_max_lag()
{
    let mut nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let projector = Running::start(
        &deployment,
        &["serve", "--role", "relay,projector"],
        &[("BASEL_OPS_LISTEN", "127.0.0.1:0")],
        &["ops_addr"],
    );
    let ops = format!("{}/readyz", projector.url("ops_addr"));
    let rest = Running::start(
        &deployment,
        &["serve", "--role", "rest", "--listen", "127.0.0.1:0"],
        &[("BASEL_READY_MAX_LAG", "4s")],
        &["addr"],
    );
    let readyz = format!("{}/readyz", rest.url("addr"));
    let both_ready = eventually(Duration::from_secs(60), || async {
        matches!(get(&readyz).await, Some((200, _))) && matches!(get(&ops).await, Some((200, _)))
    })
    .await;
    assert!(both_ready.is_some(), "both processes ready within 60 s");
    let (_, body) = get(&readyz).await.expect("rest readyz");
    assert_eq!(body["roles"], serde_json::json!(["reads"]), "{body}");
    assert!(
        body.get("relay").is_none(),
        "a REST replica runs no relay: {body}"
    );
    let (_, body) = get(&ops).await.expect("ops readyz");
    assert_eq!(
        body["roles"],
        serde_json::json!(["projector", "relay"]),
        "{body}"
    );
    assert_eq!(body["relay"]["active"], true, "{body}");
    assert_eq!(body["nats"], "connected", "{body}");

    let token = deployment.enrol("Ready Tester", "steward@example.org");
    let code = countries(&deployment, 1).await.remove(0);
    nats.kill();
    let http = reqwest::Client::new();
    let status = verify_record(&http, rest.url("addr"), &token, &code, &update("outage")).await;
    assert_eq!(status, Some(202), "committed, not yet visible");

    let projector_out = eventually(Duration::from_secs(10), || async {
        matches!(get(&ops).await, Some((503, body))
            if reasons(&body).contains("projector: NATS is not connected")
                && reasons(&body).contains("relay: NATS is not connected"))
    })
    .await;
    assert!(
        projector_out.is_some(),
        "the projector and relay are not ready, and say why"
    );
    let (status, body) = get(&readyz).await.expect("rest readyz");
    assert_eq!(status, 200, "the REST replica still serves reads: {body}");

    let stale = eventually(Duration::from_secs(15), || async {
        matches!(get(&readyz).await, Some((503, body))
            if reasons(&body).contains("reads: projection directory has not applied an event for"))
    })
    .await;
    assert!(
        stale.is_some(),
        "past BASEL_READY_MAX_LAG the REST replica is not ready, and says why"
    );

    nats.resume();
    let back = eventually(Duration::from_secs(20), || async {
        matches!(get(&readyz).await, Some((200, _))) && matches!(get(&ops).await, Some((200, _)))
    })
    .await;
    assert!(back.is_some(), "both ready again once NATS is back");
    drop(rest);
    drop(projector);
}
