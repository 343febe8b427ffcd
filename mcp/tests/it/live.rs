//! Live updates: a session subscribed to `basel://ca/{cc}` hears
//! `notifications/resources/updated` when a change for that country arrives
//! on the channel the server was given, and only then.
//!
//! (`resources/subscribe` is the legacy-lifecycle method, deprecated in rmcp
//! in favour of 2026-07-28's `subscriptions/listen`; it is the one this
//! server offers.)
#![allow(deprecated)]

use std::time::Duration;

use rmcp::model::{ResourceUpdatedNotificationParam, SubscribeRequestParams};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::{broadcast, mpsc};

use crate::support::{spawn_configured, App};
use mcp::McpConfig;

/// A client that passes on every `resources/updated` URI it hears.
struct Listener(mpsc::UnboundedSender<String>);

impl ClientHandler for Listener {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

async fn listener(
    app: &App,
) -> (
    RunningService<RoleClient, Listener>,
    mpsc::UnboundedReceiver<String>,
) {
    let (tx, rx) = mpsc::unbounded_channel();
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", app.base))
        .auth_header(app.key.clone());
    let client = Listener(tx)
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("client connects");
    (client, rx)
}

/// The next updated URI, within 5 s.
async fn next(updates: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(5), updates.recv())
        .await
        .expect("an update within 5 s")
        .expect("the client is still there")
}

#[tokio::test]
async fn a_subscribed_record_is_announced_when_its_country_changes() {
    let (changes, _keep) = broadcast::channel(16);
    let config = McpConfig {
        changes: Some(changes.clone()),
        ..McpConfig::default()
    };
    let app = spawn_configured(&[], None, config).await;
    let (client, mut updates) = listener(&app).await;
    let capabilities = &client.peer_info().expect("server info").capabilities;
    assert_eq!(
        capabilities.resources.as_ref().and_then(|r| r.subscribe),
        Some(true)
    );
    client
        .subscribe(SubscribeRequestParams::new("basel://ca/de"))
        .await
        .expect("subscribed");
    client
        .subscribe(SubscribeRequestParams::new("basel://ca/NG"))
        .await
        .expect("subscribed");
    let refused = client
        .subscribe(SubscribeRequestParams::new("basel://codes/Y31"))
        .await;
    assert!(refused.is_err(), "only records can be subscribed to");

    changes.send("FR".into()).expect("sent");
    changes.send("de".into()).expect("sent");
    assert_eq!(next(&mut updates).await, "basel://ca/DE");
    client
        .unsubscribe(rmcp::model::UnsubscribeRequestParams::new("basel://ca/DE"))
        .await
        .expect("unsubscribed");
    changes.send("DE".into()).expect("sent");
    changes.send("NG".into()).expect("sent");
    assert_eq!(
        next(&mut updates).await,
        "basel://ca/NG",
        "FR was never subscribed and DE no longer is"
    );
}

/// The next JSON-RPC message with `method` on an event stream, within 5 s.
async fn next_message(
    stream: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
    buffer: &mut String,
    method: &str,
) -> serde_json::Value {
    use futures::StreamExt;
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if let Ok(message) = serde_json::from_str::<serde_json::Value>(&data.join("\n")) {
                if message["method"] == method {
                    return message;
                }
            }
        }
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .unwrap_or_else(|_| panic!("{method} within 5 s"))
            .expect("the stream is open")
            .expect("a chunk");
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

#[tokio::test]
async fn a_2026_07_28_listen_stream_carries_updates_of_its_records() {
    let (changes, _keep) = broadcast::channel(16);
    let config = McpConfig {
        changes: Some(changes.clone()),
        ..McpConfig::default()
    };
    let app = spawn_configured(&[], None, config).await;
    let listen = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "live-test", "version": "1"},
        },
        "notifications": {"resourceSubscriptions": ["basel://ca/DE", "basel://codes/Y31"]},
    }});
    let response = reqwest::Client::new()
        .post(format!("{}/mcp", app.base))
        .header("x-api-key", &app.key)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(listen.to_string())
        .send()
        .await
        .expect("listen");
    assert_eq!(response.status(), 200);
    let mut stream = Box::pin(response.bytes_stream());
    let mut buffer = String::new();
    let ack = next_message(
        &mut stream,
        &mut buffer,
        "notifications/subscriptions/acknowledged",
    )
    .await;
    let accepted = &ack["params"]["notifications"]["resourceSubscriptions"];
    assert_eq!(accepted, &serde_json::json!(["basel://ca/DE"]), "{ack}");
    changes.send("FR".into()).expect("sent");
    changes.send("DE".into()).expect("sent");
    let update = next_message(&mut stream, &mut buffer, "notifications/resources/updated").await;
    assert_eq!(update["params"]["uri"], "basel://ca/DE");
}
