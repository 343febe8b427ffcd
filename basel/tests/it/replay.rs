//! `basel replay --verify` and `basel history` against populated stores in
//! both modes: a faithful store verifies, a tampered read table is caught
//! and the differing row named.

use crate::process::{update, verify_record, Basel, Nats};
use crate::support::eventually;

/// Writes through every projection: verifications, a key, a steward.
async fn populate(deployment: &Basel) {
    let node = deployment.serve().await;
    let token = deployment.enrol("Replay Tester", "steward@example.org");
    let key = node.register("replay@example.org").await;
    for (n, code) in ["FR", "DE", "FR", "KE"].iter().enumerate() {
        let status = verify_record(
            &node.http,
            &node.base,
            &token,
            code,
            &update(&format!("replay {n}")),
        )
        .await;
        assert_eq!(status, Some(200));
    }
    let (status, _) = node
        .get_with_key("/api/v1/ca/FR", &key)
        .await
        .expect("read");
    assert_eq!(status, 200);
    let ready = eventually(std::time::Duration::from_secs(10), || async {
        matches!(node.get("/readyz").await, Some((200, _)))
    })
    .await;
    assert!(ready.is_some(), "the projections caught up");
}

async fn verify_then_tamper(deployment: &Basel) {
    populate(deployment).await;
    let (ok, out) = deployment.verify();
    assert!(ok, "a faithful store verifies:\n{out}");
    for projection in ["directory", "history", "api_keys", "stewards"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("{projection}: ok"))),
            "one line per projection:\n{out}"
        );
    }

    let db = deployment.db().await;
    sqlx::query("UPDATE directory SET ca_name = 'Forged Agency' WHERE country_code = 'KE'")
        .execute(&db)
        .await
        .expect("tampered");
    sqlx::query("DELETE FROM authority_history WHERE country_code = 'FR' AND sequence = 2")
        .execute(&db)
        .await
        .expect("tampered");
    let (ok, out) = deployment.verify();
    assert!(!ok, "a tampered store fails:\n{out}");
    let directory = out
        .lines()
        .find(|l| l.starts_with("directory:"))
        .expect("a directory line");
    assert!(
        directory.contains("MISMATCH") && directory.contains("KE"),
        "{out}"
    );
    let history = out
        .lines()
        .find(|l| l.starts_with("history:"))
        .expect("a history line");
    assert!(
        history.contains("MISMATCH") && history.contains("FR/2"),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("stewards: ok")), "{out}");

    let output = deployment.run(&["history", "DE"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("#1 ") && l.contains("AuthorityRegistered")),
        "{text}"
    );
    assert!(
        text.contains("VerificationRecorded by steward:replay-tester"),
        "{text}"
    );
    assert!(
        !text.contains("steward@example.org"),
        "no steward e-mail in the history"
    );
    let unknown = deployment.run(&["history", "ZZ"]);
    assert!(!unknown.status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_replay_verifies_and_names_tampered_rows() {
    verify_then_tamper(&Basel::embedded().with_secret()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_mode_replay_from_jetstream_verifies_and_names_tampered_rows() {
    let nats = Nats::start();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    verify_then_tamper(&deployment).await;
    let output = deployment.run(&["relay", "--republish-from", "1"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains(": 0 stored"),
        "every re-published event is a duplicate: {text}"
    );
}
