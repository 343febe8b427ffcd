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
