//! Hardening of the real binary: server mode insists on its secret, the
//! embedded data is owner-only, and MCP sessions stay bounded in memory.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

use crate::process::Basel;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

#[tokio::test]
async fn server_mode_without_a_secret_exits_naming_it_and_writes_nothing() {
    let deployment = Basel::postgres().await.without_secret();
    let workdir = tempfile::tempdir().expect("temp dir");
    let output = deployment
        .basel(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--mcp-listen",
            "127.0.0.1:0",
        ])
        .env_remove("BASEL_DATA_DIR")
        .current_dir(workdir.path())
        .output()
        .expect("basel runs");
    assert!(
        !output.status.success(),
        "basel serve started without a secret"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("BASEL_SECRET"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(workdir.path()).expect("dir").collect();
    assert!(
        left.is_empty(),
        "server mode wrote into its working directory"
    );
}

#[tokio::test]
async fn embedded_data_is_owner_only_and_loose_modes_are_corrected() {
    let deployment = Basel::embedded();
    let dir = deployment.store.data_dir();
    let node = deployment.serve().await;
    assert_eq!(mode(&dir), 0o700);
    for file in ["basel.db", "server.secret"] {
        assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
    }
    node.stop();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    std::fs::set_permissions(dir.join("basel.db"), std::fs::Permissions::from_mode(0o644))
        .expect("chmod");
    let node = deployment.serve().await;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("basel.db")), 0o600);
    for file in std::fs::read_dir(&dir).expect("dir").flatten() {
        let name = file.file_name().to_string_lossy().to_string();
        if name.starts_with("basel.db") || name == "server.secret" {
            assert_eq!(mode(&file.path()), 0o600, "{name}");
        }
    }
    assert!(
        node.log().contains("its mode is corrected"),
        "{}",
        node.log()
    );
}

/// 5,000 `initialize` calls from one key: the key's oldest idle sessions
/// are closed past its cap, so memory stays bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn five_thousand_initialize_calls_from_one_key_keep_memory_bounded() {
    let deployment = Basel::embedded();
    let node = deployment.serve().await;
    let key = node.register("sessions@example.org").await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "flood", "version": "1"}}
    })
    .to_string();
    let client = reqwest::Client::new();
    let open = |n: usize| {
        let (client, url, key, body) = (
            client.clone(),
            format!("{}/mcp", node.mcp),
            key.clone(),
            initialize.clone(),
        );
        async move {
            let response = client
                .post(url)
                .header("x-api-key", key)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap_or_else(|e| panic!("initialize {n}: {e}"));
            let status = response.status().as_u16();
            let _ = response.bytes().await;
            status
        }
    };
    for n in 0..200 {
        assert_eq!(open(n).await, 200);
    }
    let before = node.rss_kib();
    for chunk in (200..5_000).collect::<Vec<_>>().chunks(16) {
        let statuses = futures::future::join_all(chunk.iter().map(|n| open(*n))).await;
        assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    }
    let after = node.rss_kib();
    let grown_mib = after.saturating_sub(before) / 1024;
    assert!(
        grown_mib <= 64,
        "RSS grew by {grown_mib} MiB over 4,800 initialize calls ({before} → {after} KiB)"
    );
}
