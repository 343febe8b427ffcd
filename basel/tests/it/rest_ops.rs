//! Ops routes (`/healthz`, `/readyz`, `/api/v1/health`) and `/metrics`:
//! no key needed, requests counted; in both storage modes.

use serde_json::json;

use crate::inproc::App;
use crate::support::{both_modes, Mode};

async fn ops_routes_and_metrics_need_no_key_and_metrics_count_requests(mode: Mode) {
    let app = App::start(mode).await;
    let key = app.key().await;
    for path in ["/healthz", "/api/v1/health"] {
        let answer = app.get_anonymous(path).await;
        assert_eq!(
            (answer.status, &answer.body["status"]),
            (200, &json!("ok")),
            "{path}"
        );
    }
    assert_eq!(app.get_anonymous("/readyz").await.status, 200);
    assert_eq!(app.get("/api/v1/ca/ZZ", &key).await.status, 404);
    assert_eq!(app.get("/api/v1/ca", &key).await.status, 200);
    let metrics = app.get_anonymous("/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(metrics
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/plain")));
    let line = |prefix: &str| {
        metrics
            .text
            .lines()
            .find(|l| l.starts_with(prefix))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {prefix} in {}", metrics.text))
    };
    assert!(line("basel_http_requests_total{route=\"/api/v1/ca/{country_code}\",method=\"GET\",status=\"404\"}") >= 1.0);
    assert!(
        line("basel_http_requests_total{route=\"/api/v1/ca\",method=\"GET\",status=\"200\"}")
            >= 1.0
    );
    assert!(line("basel_http_request_duration_seconds_count{route=\"/api/v1/ca\",method=\"GET\",status=\"200\"}") >= 1.0);
    let head = line("basel_log_head");
    assert!(head >= 1.0, "the key's registration is in the log");
    assert!(line("basel_projection_position{projection=\"api_keys\"}") >= 1.0);
    assert!(line("basel_projection_lag{projection=\"directory\"}") >= 0.0);
    assert_eq!(
        line("basel_projection_halted{projection=\"directory\"}"),
        0.0
    );
    assert!(!metrics.text.contains(&key), "no secret in metrics");
}

both_modes!(ops_routes_and_metrics_need_no_key_and_metrics_count_requests);
