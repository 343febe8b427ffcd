//! The verifiable log end to end, in both storage modes: a real
//! store written through `basel serve` verifies (`basel audit verify` exits
//! 0, also against a checkpoint saved earlier); the independent Python
//! verifier checks the latest checkpoint's signature, an inclusion proof of
//! a steward's write and a consistency proof between two checkpoints, and
//! fails on a flipped byte in any of them; a client's `x-request-id: seed`
//! is not the change's request id; an edited event, after the projections
//! are reset, makes `basel audit verify` exit 1 naming its position and the
//! service not ready; each way of tampering with a copy of such a store is
//! named, also after the projections are reset. After `basel forget`,
//! every checkpoint still verifies and the address stays unreadable.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

use crate::process::{update, Basel, Nats, Node};
use crate::support::{both_modes, eventually, eventually_some, Mode};

async fn deployment(mode: Mode) -> (Basel, Option<Nats>) {
    let basel = |b: Basel| {
        b.with_secret()
            .with_env("BASEL_CHECKPOINT_EVERY", "40")
            .with_env("BASEL_CHECKPOINT_INTERVAL", "1")
    };
    match mode {
        Mode::Embedded => (basel(Basel::embedded()), None),
        Mode::Postgres => {
            let nats = Nats::start();
            let b = basel(Basel::postgres().await).with_nats(&nats.url());
            (b, Some(nats))
        }
    }
}

async fn scalar(deployment: &Basel, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&deployment.db().await)
        .await
        .expect(sql)
}

/// The latest checkpoint once it covers every stored event.
async fn checkpoint_of_all(node: &Node, deployment: &Basel) -> String {
    let events = scalar(deployment, "SELECT COUNT(*) FROM events").await;
    eventually_some(Duration::from_secs(30), || async {
        let answer = node
            .http
            .get(format!("{}/api/v1/audit/checkpoint", node.base))
            .send()
            .await
            .ok()?;
        let text = answer.text().await.ok()?;
        let size: i64 = text.lines().nth(1)?.parse().ok()?;
        (size == events).then_some(text)
    })
    .await
    .unwrap_or_else(|| panic!("no checkpoint of all {events} events within 30 s"))
}

async fn get_text(node: &Node, path: &str, key: Option<&str>) -> String {
    let mut request = node.http.get(format!("{}{path}", node.base));
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    let answer = request.send().await.expect(path);
    assert_eq!(answer.status().as_u16(), 200, "{path}");
    answer.text().await.expect("body")
}

fn script(args: &[&str]) -> (bool, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/audit_verify.py");
    let output = Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("python3 runs");
    (
        output.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

fn audit_verify(deployment: &Basel, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["audit", "verify"];
    args.extend_from_slice(extra);
    let output = deployment.run(&args);
    (
        output.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

/// Flips one bit of the byte at `at` of a base64 string.
fn flip_base64(text: &str, at: usize) -> String {
    let mut bytes = STANDARD.decode(text).expect("base64");
    bytes[at] ^= 1;
    STANDARD.encode(bytes)
}

async fn a_real_store_is_proven_and_tampering_is_named(mode: Mode) {
    let (deployment, nats) = deployment(mode).await;
    let token = deployment.enrol("Audit Steward", "audit.steward@example.org");
    let node = deployment.serve().await;
    let key = node.register("auditor@example.org").await;
    let older = checkpoint_of_all(&node, &deployment).await;

    // A steward's write, claiming the seed's request id.
    let answer = node
        .http
        .post(format!("{}/api/v1/ca/FR/verifications", node.base))
        .bearer_auth(&token)
        .header("x-request-id", "seed")
        .json(&update("audit test"))
        .send()
        .await
        .expect("write");
    assert!([200, 202].contains(&answer.status().as_u16()));
    let newer = checkpoint_of_all(&node, &deployment).await;
    let position = scalar(&deployment, "SELECT MAX(position) FROM events").await;
    let entry: Value = serde_json::from_str(
        &get_text(
            &node,
            &format!("/api/v1/audit/entries/{position}"),
            Some(&key),
        )
        .await,
    )
    .expect("entry");
    assert_eq!(entry["event"]["aggregate_id"], "FR");
    let request_id = entry["event"]["metadata"]["request_id"]
        .as_str()
        .expect("id");
    assert_ne!(request_id, "seed", "a client cannot claim the seed's id");
    assert_eq!(request_id.len(), 36, "{request_id}");
    assert!(entry["event"]["metadata"]["client_request_id"].is_null());

    // The independent verifier.
    let vkey: Value =
        serde_json::from_str(&get_text(&node, "/api/v1/audit/key", None).await).expect("key");
    let vkey = vkey["vkey"].as_str().expect("vkey").to_owned();
    let size_of = |note: &str| note.lines().nth(1).expect("size").to_owned();
    let inclusion = get_text(
        &node,
        &format!(
            "/api/v1/audit/proof/inclusion?position={position}&tree_size={}",
            size_of(&newer)
        ),
        None,
    )
    .await;
    let consistency = get_text(
        &node,
        &format!(
            "/api/v1/audit/proof/consistency?from={}&to={}",
            size_of(&older),
            size_of(&newer)
        ),
        None,
    )
    .await;
    let dir = deployment.dir().to_path_buf();
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let (older_file, newer_file) = (file("older.txt", &older), file("newer.txt", &newer));
    let entry_file = file("entry.json", &entry.to_string());
    let inclusion_file = file("inclusion.json", &inclusion);
    let consistency_file = file("consistency.json", &consistency);
    let checks = |checkpoint: &str, entry: &str, inclusion: &str, consistency: &str| {
        [
            script(&["checkpoint", "--vkey", &vkey, checkpoint]),
            script(&[
                "inclusion",
                "--vkey",
                &vkey,
                "--checkpoint",
                checkpoint,
                "--entry",
                entry,
                "--proof",
                inclusion,
            ]),
            script(&[
                "consistency",
                "--vkey",
                &vkey,
                "--old",
                &older_file,
                "--new",
                checkpoint,
                "--proof",
                consistency,
            ]),
        ]
    };
    for (ok, out) in checks(&newer_file, &entry_file, &inclusion_file, &consistency_file) {
        assert!(ok, "{out}");
    }
    let root_line = newer.lines().nth(2).expect("root");
    let bad_checkpoint = file(
        "bad.txt",
        &newer.replacen(root_line, &flip_base64(root_line, 5), 1),
    );
    let mut bad = entry.clone();
    bad["leaf_data"] = Value::from(flip_base64(entry["leaf_data"].as_str().expect("data"), 40));
    let bad_entry = file("bad-entry.json", &bad.to_string());
    let mut bad: Value = serde_json::from_str(&inclusion).expect("json");
    bad["inclusion_path"][0] = Value::from(flip_base64(
        bad["inclusion_path"][0].as_str().expect("hash"),
        0,
    ));
    let bad_inclusion = file("bad-inclusion.json", &bad.to_string());
    let mut bad: Value = serde_json::from_str(&consistency).expect("json");
    bad["consistency_path"][0] = Value::from(flip_base64(
        bad["consistency_path"][0].as_str().expect("hash"),
        31,
    ));
    let bad_consistency = file("bad-consistency.json", &bad.to_string());
    let (ok, out) = &checks(
        &bad_checkpoint,
        &entry_file,
        &inclusion_file,
        &consistency_file,
    )[0];
    assert!(!ok, "a flipped root byte fails: {out}");
    let [_, (ok, out), _] = checks(&newer_file, &bad_entry, &inclusion_file, &consistency_file);
    assert!(!ok, "a flipped leaf byte fails: {out}");
    let [_, (ok, out), _] = checks(&newer_file, &entry_file, &bad_inclusion, &consistency_file);
    assert!(!ok, "a flipped proof byte fails: {out}");
    let [_, _, (ok, out)] = checks(&newer_file, &entry_file, &inclusion_file, &bad_consistency);
    assert!(!ok, "a flipped consistency byte fails: {out}");
    let (status, ready) = node.get("/readyz").await.expect("readyz");
    assert_eq!(status, 200, "{ready}");
    node.stop();
    if let Some(nats) = &nats {
        let stream = nats
            .jetstream()
            .await
            .get_stream(&deployment.stream)
            .await
            .expect("stream");
        assert!(
            stream.delete_message(1).await.is_err(),
            "the stream refuses deletes"
        );
        assert!(stream.purge().await.is_err(), "the stream refuses purges");
        let config = stream.cached_info().config.clone();
        assert!(config.deny_delete && config.deny_purge, "{config:?}");
    }

    let (ok, out) = audit_verify(&deployment, &["--checkpoint", &older_file]);
    assert!(ok, "the store verifies: {out}");
    assert!(out.contains("ok: the log verifies"), "{out}");

    // Edit an event in the middle, then reset every projection.
    let target = scalar(
        &deployment,
        "SELECT position FROM events ORDER BY position LIMIT 1 OFFSET 60",
    )
    .await;
    let db = deployment.db().await;
    let script_sql = match mode {
        Mode::Embedded => vec![
            "DROP TRIGGER events_no_update".to_owned(),
            format!("UPDATE events SET payload = replace(payload, '}}', ',\"x\":1}}') WHERE position = {target}"),
        ],
        Mode::Postgres => vec![
            "ALTER TABLE events DISABLE TRIGGER USER".to_owned(),
            format!("UPDATE events SET payload = payload || '{{\"x\":1}}'::jsonb WHERE position = {target}"),
        ],
    };
    for sql in script_sql.iter().map(String::as_str).chain([
        "DELETE FROM directory",
        "DELETE FROM authority_history",
        "DELETE FROM api_keys",
        "DELETE FROM stewards",
        "DELETE FROM projection_checkpoints",
    ]) {
        sqlx::query(sql).execute(&db).await.expect(sql);
    }
    db.close().await;
    let (ok, out) = audit_verify(&deployment, &[]);
    assert!(!ok, "an edited store fails: {out}");
    assert!(
        out.contains(&format!("position {target}: altered")),
        "{out}"
    );

    let node = deployment.serve().await;
    let (status, body) = node.get("/readyz").await.expect("readyz");
    assert_eq!(status, 503, "{body}");
    assert!(
        body["details"]["audit_log"]
            .as_str()
            .is_some_and(|r| r.contains(&format!("position {target}"))),
        "{body}"
    );
    // Log lines reach stderr through a background writer: moments later.
    let logged = eventually(Duration::from_secs(5), || async {
        node.log().contains("the audit log does not verify")
    })
    .await;
    assert!(logged.is_some(), "{}", node.log());
}

both_modes!(a_real_store_is_proven_and_tampering_is_named);

/// The tree size a checkpoint states.
fn tree_size_of(checkpoint: &str) -> i64 {
    checkpoint
        .lines()
        .nth(1)
        .and_then(|size| size.parse().ok())
        .expect("a tree size")
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Done-when 2: after `basel forget` (the service running, so that in
/// server mode the erasure is relayed), every checkpoint signed before
/// still verifies, also against the one an auditor saved, and the address
/// is in no byte of the data directory (embedded) or in no table row and
/// no stream message (server mode).
async fn after_forget_every_checkpoint_still_verifies_and_the_address_stays_unreadable(mode: Mode) {
    const EMAIL: &str = "forget.audit@example.org";
    let (deployment, nats) = deployment(mode).await;
    deployment.enrol("Forget Audit", EMAIL);
    let node = deployment.serve().await;
    node.register(EMAIL).await;
    let saved = checkpoint_of_all(&node, &deployment).await;
    let saved_file = deployment.dir().join("saved.txt");
    std::fs::write(&saved_file, &saved).expect("write");
    let before = scalar(&deployment, "SELECT COUNT(*) FROM audit_checkpoints").await;

    let output = deployment.run(&["forget", EMAIL]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The erasure is appended, notarised (and in server mode relayed).
    let after = checkpoint_of_all(&node, &deployment).await;
    assert_ne!(after, saved, "the erasure is a new leaf");
    if let Some(nats) = &nats {
        let context = nats.jetstream().await;
        let relayed = eventually(Duration::from_secs(30), || async {
            commands::store::testing::stream_payloads(&context, &deployment.stream)
                .await
                .iter()
                .any(|m| String::from_utf8_lossy(m).contains("RegistrantForgotten"))
        })
        .await;
        assert!(relayed.is_some(), "the erasure reached the stream");
    }
    node.stop();

    let (ok, out) = audit_verify(
        &deployment,
        &["--checkpoint", &saved_file.display().to_string()],
    );
    assert!(ok, "every checkpoint verifies after forget: {out}");
    let stored = scalar(&deployment, "SELECT COUNT(*) FROM audit_checkpoints").await;
    assert!(stored > before, "{stored} checkpoints, {before} before");
    assert!(
        out.contains(&format!("stored checkpoints: {stored}")),
        "{out}"
    );
    match &nats {
        None => {
            let mut files = Vec::new();
            for entry in std::fs::read_dir(deployment.store.data_dir()).expect("data dir") {
                files.extend(std::fs::read(entry.expect("entry").path()).unwrap_or_default());
            }
            assert!(
                !holds(&files, EMAIL),
                "no byte of the data directory holds the address"
            );
        }
        Some(nats) => {
            let context = nats.jetstream().await;
            let messages =
                commands::store::testing::stream_payloads(&context, &deployment.stream).await;
            assert!(
                messages.len() as i64 >= tree_size_of(&after),
                "every event was relayed"
            );
            for message in &messages {
                assert!(!holds(message, EMAIL), "a stream message holds the address");
            }
            let db = deployment.db().await;
            let rows = crate::support::every_row(&db).await;
            assert!(rows.contains_key("audit_leaves"), "{:?}", rows.keys());
            for (table, row) in rows
                .iter()
                .flat_map(|(t, rows)| rows.iter().map(move |r| (t, r)))
            {
                assert!(
                    !holds(row.as_bytes(), EMAIL),
                    "{table} holds the address: {row}"
                );
            }
            db.close().await;
        }
    }
}

both_modes!(after_forget_every_checkpoint_still_verifies_and_the_address_stays_unreadable);

/// The read tables and the bookkeeping of every projection: emptied, as a
/// rebuild starts.
const PROJECTIONS: [&str; 6] = [
    "directory",
    "authority_history",
    "api_keys",
    "stewards",
    "projection_versions",
    "projection_checkpoints",
];

/// One way of tampering with a copy of the store: the SQL (run with the
/// append-only guards lifted) and what `basel audit verify` must print.
struct Tampering {
    what: &'static str,
    sql: String,
    names: String,
}

/// Each tampering of Done-when 1, at positions of `positions` (the store's,
/// in order); `checkpoint` is a stored checkpoint (size and signed note).
fn tamperings(mode: Mode, positions: &[i64], checkpoint: (i64, &str)) -> Vec<Tampering> {
    let middle = positions[positions.len() / 2];
    let (a, b) = (
        positions[positions.len() / 3],
        positions[positions.len() / 3 + 1],
    );
    let tail = positions[positions.len() - 3];
    let edit = match mode {
        Mode::Embedded => format!(
            "UPDATE events SET payload = replace(payload, '}}', ',\"x\":1}}') WHERE position = {middle}"
        ),
        Mode::Postgres => format!(
            "UPDATE events SET payload = payload || '{{\"x\":1}}'::jsonb WHERE position = {middle}"
        ),
    };
    let (size, note) = checkpoint;
    let root: [u8; 32] = STANDARD
        .decode(note.lines().nth(2).expect("root line"))
        .expect("base64")
        .try_into()
        .expect("32 bytes");
    // Signed with a key that is not the service's.
    let forged = commands::audit::Signer::new(
        note.lines().next().expect("origin"),
        ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]),
    )
    .sign(u64::try_from(size).expect("size"), &root);
    vec![
        Tampering {
            what: "payload edit",
            sql: edit,
            names: format!("position {middle}: altered"),
        },
        Tampering {
            what: "middle delete",
            sql: format!("DELETE FROM events WHERE position = {middle}"),
            names: format!("position {middle}: missing"),
        },
        Tampering {
            what: "reorder",
            sql: format!(
                "UPDATE events SET position = -1 WHERE position = {a}; \
                 UPDATE events SET position = {a} WHERE position = {b}; \
                 UPDATE events SET position = {b} WHERE position = -1"
            ),
            names: format!("position {a}: reordered"),
        },
        Tampering {
            what: "truncation",
            sql: format!("DELETE FROM events WHERE position >= {tail}"),
            names: format!("position {tail}: missing"),
        },
        Tampering {
            what: "replaced checkpoint",
            sql: format!("UPDATE audit_checkpoints SET note = '{forged}' WHERE tree_size = {size}"),
            names: format!("bad checkpoint: stored checkpoint of size {size}"),
        },
    ]
}

/// Done-when 1 on copies of a store written through `basel serve`: each
/// tampering makes `basel audit verify` (given the checkpoint an auditor
/// saved) exit 1 naming the position, with the projections as they were and
/// again after they are reset; the unaltered store exits 0.
async fn each_tampering_of_a_copy_is_named_also_after_a_projection_reset(mode: Mode) {
    let (deployment, _nats) = deployment(mode).await;
    let token = deployment.enrol("Copy Steward", "copy.steward@example.org");
    let node = deployment.serve().await;
    node.register("copy.auditor@example.org").await;
    for code in ["FR", "DE", "NG"] {
        let status = crate::process::verify_record(
            &node.http,
            &node.base,
            &token,
            code,
            &update("copy test"),
        )
        .await;
        assert!(matches!(status, Some(200 | 202)), "{code}: {status:?}");
    }
    let saved = checkpoint_of_all(&node, &deployment).await;
    node.stop();
    let saved_file = deployment.dir().join("saved.txt");
    std::fs::write(&saved_file, &saved).expect("write");
    let saved_file = saved_file.display().to_string();

    let db = deployment.db().await;
    let positions: Vec<i64> = sqlx::query_scalar("SELECT position FROM events ORDER BY position")
        .fetch_all(&db)
        .await
        .expect("positions");
    let (size, note): (i64, String) =
        sqlx::query_as("SELECT tree_size, note FROM audit_checkpoints ORDER BY tree_size LIMIT 1")
            .fetch_one(&db)
            .await
            .expect("a stored checkpoint");
    db.close().await;
    assert!(positions.len() > 40, "{} events", positions.len());

    let (ok, out) = audit_verify(&deployment, &["--checkpoint", &saved_file]);
    assert!(ok, "the unaltered store verifies: {out}");

    for tampering in tamperings(mode, &positions, (size, &note)) {
        let copy = deployment.copy().await;
        let backend = commands::store::Backend::connect(
            copy.store.database_url.as_deref(),
            &copy.store.data_dir(),
        )
        .await
        .expect("the copy opens");
        commands::store::testing::without_append_guard(&backend, &tampering.sql).await;
        match &backend {
            commands::store::Backend::Postgres(pool) => pool.close().await,
            commands::store::Backend::Sqlite(pool) => pool.close().await,
        }
        let what = tampering.what;
        let (ok, out) = audit_verify(&copy, &["--checkpoint", &saved_file]);
        assert!(!ok, "{what}: verify exits 1: {out}");
        assert!(out.contains(&tampering.names), "{what}: {out}");

        let db = copy.db().await;
        for table in PROJECTIONS {
            let sql = format!("DELETE FROM {table}");
            sqlx::query(&sql).execute(&db).await.expect(&sql);
        }
        db.close().await;
        let (ok, out) = audit_verify(&copy, &["--checkpoint", &saved_file]);
        assert!(!ok, "{what}, projections reset: verify exits 1: {out}");
        assert!(
            out.contains(&tampering.names),
            "{what}, projections reset: {out}"
        );
    }
}

both_modes!(each_tampering_of_a_copy_is_named_also_after_a_projection_reset);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_independent_script_reports_http_and_network_errors_in_one_line() {
    let basel = crate::process::Basel::embedded();
    let node = basel.serve().await;
    let key = node.register("auditor@example.org").await;
    let mut vkey = None;
    for _ in 0..100 {
        let checkpoint = node.get("/api/v1/audit/checkpoint").await.map(|(s, _)| s);
        if checkpoint == Some(200) {
            vkey = node
                .get("/api/v1/audit/key")
                .await
                .and_then(|(_, body)| body["vkey"].as_str().map(str::to_owned));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let vkey = vkey.expect("a checkpoint and its key");
    let base = node.base.clone();
    let (ok, said) = script(&[
        "--url",
        &base,
        "--api-key",
        &key,
        "inclusion",
        "--vkey",
        &vkey,
        "--position",
        "999999",
    ]);
    assert!(!ok, "{said}");
    assert!(
        said.starts_with("FAILED: GET /api/v1/audit/entries/999999: HTTP 404"),
        "{said}"
    );
    assert!(!said.contains("Traceback"), "{said}");
    let (ok, said) = script(&["--url", "http://127.0.0.1:9", "checkpoint", "--vkey", &vkey]);
    assert!(
        !ok && said.starts_with("FAILED: GET http://127.0.0.1:9/api/v1/audit/checkpoint"),
        "{said}"
    );
    assert!(!said.contains("Traceback"), "{said}");
    node.stop();
}
