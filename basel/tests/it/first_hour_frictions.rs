//! What a new user meets in the first hour, each met once and fixed: a port
//! in use is named by the flag that set it before anything is written,
//! `--port` says what to use instead, a default start logs no warning and
//! no Rust debug notation, and a bad database setting is said once.

use std::net::TcpListener;

use crate::process::Basel;
use crate::running::Running;

#[test]
fn a_port_in_use_names_its_flag_and_nothing_is_written() {
    let held = TcpListener::bind("127.0.0.1:0").expect("a port to hold");
    let port = held.local_addr().expect("addr").port().to_string();
    let basel = Basel::embedded();
    let data = basel.dir().join("fresh");
    let output = basel
        .basel(&[
            "--data-dir",
            &data.display().to_string(),
            "--listen",
            "127.0.0.1:0",
            "--mcp-listen",
            &format!("127.0.0.1:{port}"),
        ])
        .output()
        .expect("basel runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("127.0.0.1:{port}"))
            && stderr.contains("--mcp-listen")
            && stderr.contains("BASEL_MCP_LISTEN"),
        "{stderr}"
    );
    assert!(
        !data.join("basel.db").exists(),
        "the store was opened before the ports were bound"
    );
}

#[test]
fn port_is_answered_with_the_flags_to_use() {
    let basel = Basel::embedded();
    let output = basel
        .basel(&["--port", "9090"])
        .output()
        .expect("basel runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("--listen 127.0.0.1:9090") && stderr.contains("--mcp-listen"),
        "{stderr}"
    );
    assert!(!stderr.contains("similar argument"), "{stderr}");
}

#[test]
fn a_default_start_logs_no_warning_and_no_debug_notation() {
    let basel = Basel::embedded();
    let running = Running::start(
        &basel,
        &["--listen", "127.0.0.1:0", "--mcp-listen", "127.0.0.1:0"],
        &[("BASEL_LOG_FORMAT", "json")],
        &["addr", "mcp_addr"],
    );
    let lines = running.stop();
    assert!(lines.len() > 5, "{lines:?}");
    for line in &lines {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"));
        assert!(
            matches!(value["level"].as_str(), Some("INFO" | "DEBUG" | "TRACE")),
            "a default start logs: {line}"
        );
        for debug in ["Some(", "None", "Ok(", "Err(", " { "] {
            assert!(!line.contains(debug), "Rust debug notation in: {line}");
        }
    }
}

#[test]
fn a_bad_database_setting_is_said_once() {
    let basel = Basel::embedded();
    let output = basel
        .basel(&[
            "--database-url",
            "postgres://postgres@127.0.0.1:5432/test?sslmode=bogus",
            "--secret",
            "a-secret-long-enough-for-the-check-0123456789",
            "--listen",
            "127.0.0.1:0",
            "--mcp-listen",
            "127.0.0.1:0",
        ])
        .output()
        .expect("basel runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("BASEL_DATABASE_URL") && stderr.contains("bogus"),
        "{stderr}"
    );
    assert!(
        stderr.matches("configuration").count() <= 1,
        "said more than once: {stderr}"
    );
}

#[test]
fn ci_checks_postgres_authentication_first_and_says_how_to_fix_it() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/check-postgres");
    let closed = TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = closed.local_addr().expect("addr").port().to_string();
    drop(closed);
    let refused = std::process::Command::new("bash")
        .arg(&script)
        .env("PGPORT", &port)
        .output()
        .expect("the script runs (it needs pg_isready and psql)");
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("does not answer") && said.contains("pg_ctlcluster"),
        "{said}"
    );
    let accepted = std::process::Command::new("bash")
        .arg(&script)
        .output()
        .expect("the script runs");
    assert!(
        accepted.status.success(),
        "PostgreSQL on 127.0.0.1:5432 must accept user postgres with trust: {}",
        String::from_utf8_lossy(&accepted.stdout)
    );
    let ci = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/run"),
    )
    .expect(".ci/run");
    let check = ci
        .find("scripts/check-postgres")
        .expect("CI runs the check");
    let tests = ci
        .find("cargo nextest run --workspace --locked --no-run")
        .expect("CI builds the tests");
    assert!(
        check < tests,
        "CI checks PostgreSQL before it builds and runs the tests"
    );
}
