//! `basel serve`: start, seed once, health, restart.

use crate::support::{count_events, Store};

async fn starts_seeds_once_and_keeps_data(store: Store) {
    let server = store.serve().await;
    let health = server.get("/healthz").await.expect("healthz");
    assert_eq!(health.status().as_u16(), 200);
    let mut ready = false;
    for _ in 0..100 {
        if server.get("/readyz").await.map(|r| r.status().as_u16()) == Some(200) {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(ready, "/readyz never answered 200");
    let legacy = server.get("/api/v1/health").await.expect("health");
    assert_eq!(legacy.status().as_u16(), 200);
    server.stop();
    let seeded = count_events(&store, "authority").await;
    assert_eq!(
        seeded, 189,
        "one registration per Basel Party except the EU"
    );

    let again = store.serve().await;
    again.stop();
    assert_eq!(
        count_events(&store, "authority").await,
        seeded,
        "a second start must not seed again"
    );
}

#[tokio::test]
async fn embedded_serve_starts_seeds_once_and_keeps_data_across_restarts() {
    let store = Store::embedded();
    starts_seeds_once_and_keeps_data(store).await;
}

#[tokio::test]
async fn postgres_serve_starts_seeds_once_and_keeps_data_across_restarts() {
    starts_seeds_once_and_keeps_data(Store::postgres().await).await;
}

#[tokio::test]
async fn unknown_routes_get_a_json_404() {
    let store = Store::embedded();
    let server = store.serve().await;
    let response = server.get("/nope").await.expect("response");
    assert_eq!(response.status().as_u16(), 404);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["code"], "not_found");
    server.stop();
}

#[tokio::test]
async fn an_unreachable_database_fails_in_one_line_naming_the_host_without_the_password() {
    let mut store = Store::embedded();
    store.database_url = Some("postgres://basel:hunter2secret@127.0.0.1:1/basel".into());
    let output = store.run(&["export"]);
    assert!(!output.status.success());
    let stderr = crate::support::stderr(&output);
    let error_lines: Vec<_> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(error_lines.len(), 1, "{stderr}");
    assert!(error_lines[0].contains("127.0.0.1:1"), "{stderr}");
    assert!(!stderr.contains("hunter2secret"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
