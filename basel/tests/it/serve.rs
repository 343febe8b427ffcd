//! `basel serve`: start, seed once, health, restart.

use std::time::Duration;

use crate::process::Basel;
use crate::support::{both_modes, count_events, eventually, Mode};

async fn serve_starts_seeds_once_and_keeps_data_across_restarts(mode: Mode) {
    let basel = Basel::of(mode).await;
    let server = basel.serve().await;
    let health = server.get("/healthz").await.expect("healthz");
    assert_eq!(health.0, 200);
    let ready = eventually(Duration::from_secs(10), || async {
        server.get("/readyz").await.map(|(status, _)| status) == Some(200)
    })
    .await;
    assert!(ready.is_some(), "/readyz never answered 200");
    let legacy = server.get("/api/v1/health").await.expect("health");
    assert_eq!(legacy.0, 200);
    server.stop();
    let seeded = count_events(&basel.store, "authority").await;
    assert_eq!(
        seeded, 191,
        "one registration per Basel Party, the EU included"
    );

    let again = basel.serve().await;
    again.stop();
    assert_eq!(
        count_events(&basel.store, "authority").await,
        seeded,
        "a second start must not seed again"
    );
}

both_modes!(serve_starts_seeds_once_and_keeps_data_across_restarts);

#[tokio::test]
async fn unknown_routes_get_a_json_404() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let (status, body) = server.get("/nope").await.expect("response");
    assert_eq!(status, 404);
    assert_eq!(body["code"], "not_found");
    server.stop();
}

#[tokio::test]
async fn an_unreachable_database_fails_in_one_line_naming_the_host_without_the_password() {
    // Server mode needs its secret before anything else is checked.
    let mut basel = Basel::embedded().with_secret();
    basel.store.database_url = Some("postgres://basel:hunter2secret@127.0.0.1:1/basel".into());
    let output = basel.run(&["export"]);
    assert!(!output.status.success());
    let stderr = crate::support::stderr(&output);
    let error_lines: Vec<_> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(error_lines.len(), 1, "{stderr}");
    assert!(error_lines[0].contains("127.0.0.1:1"), "{stderr}");
    assert!(!stderr.contains("hunter2secret"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
