//! The MCP router on port 0 over a fresh SQLite store with a few records,
//! and clients for it: the rmcp client (streamable HTTP) and raw HTTP.
//!
//! The store comes from the workspace's test support
//! (`commands::store::testing::fresh_store`); `mcp` may not depend on `api`,
//! so this in-process harness serves the MCP router alone.

use std::sync::Arc;

use chrono::{Duration, Utc};
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use classifier::Classifier;
use commands::api_key::ApiKeyCommands;
use commands::authority::AuthorityCommands;
use commands::secrets::ServerSecret;
use commands::store::testing::{fresh_store, Mode, TestStore};
use commands::store::Backend;
use domain::authority::{
    ContactField, ContactInput, ContactPatch, RegisterAuthority, SubmitVerificationUpdate,
    VerificationMethod,
};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Email, Slug};
use mcp::{McpConfig, McpState};
use projections::runner::Projector;

/// A running MCP server with its store.
pub struct App {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// An active API key.
    pub key: String,
    pub backend: Backend,
    pub projector: Projector,
    /// The read tables.
    pub db: projections::ReadDb,
    stop: CancellationToken,
    served: Option<tokio::task::JoinHandle<()>>,
    _store: TestStore,
}

impl App {
    /// Shuts the server down; whether the graceful shutdown finished within 5 s.
    pub async fn shut_down(mut self) -> bool {
        self.stop.cancel();
        match self.served.take() {
            Some(served) => tokio::time::timeout(std::time::Duration::from_secs(5), served)
                .await
                .is_ok(),
            None => true,
        }
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

pub fn metadata(actor: Actor) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor,
        request_id: "test".into(),
        client_request_id: None,
        idempotency: None,
    }
}

pub fn code(text: &str) -> CountryCode {
    CountryCode::parse(text).expect("country code")
}

async fn register(backend: &Backend, cc: &str, name: &str, ca_name: Option<&str>) {
    let command = RegisterAuthority {
        country: code(cc),
        country_name: name.into(),
        contact: ContactInput {
            ca_name: ca_name.map(str::to_owned),
            ..ContactInput::default()
        },
        verified: false,
        last_checked: Some(Utc::now().date_naive() - Duration::days(3000)),
        source: Some("fact sheet 2004".into()),
        contacts: Vec::new(),
        steward: None,
        today: Utc::now().date_naive(),
    };
    AuthorityCommands::new(backend)
        .register(command, &metadata(Actor::Seed))
        .await
        .expect("register");
}

/// Verifies Germany's record by steward `ana`, today.
pub async fn verify_germany(backend: &Backend, email: &str) {
    let today = Utc::now().date_naive();
    let update = SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: true,
        checked_on: today,
        method: VerificationMethod::Phone,
        source: "call to the ministry".into(),
        note: Some("confirmed by phone".into()),
        changes: ContactPatch::from([
            (ContactField::Email, Some(email.into())),
            (ContactField::Phone, Some("+49-228-99305-0".into())),
        ]),
        steward: Some(Slug::parse("ana").expect("slug")),
        today,
    };
    AuthorityCommands::new(backend)
        .submit_verification(
            &code("DE"),
            update,
            &metadata(Actor::Steward(Slug::parse("ana").expect("slug"))),
        )
        .await
        .expect("verification");
}

/// Starts the router with these origins and hosts (None = loopback defaults).
pub async fn spawn_with(origins: &[&str], hosts: Option<&[&str]>) -> App {
    spawn_configured(origins, hosts, McpConfig::default()).await
}

/// Starts the router with these origins, hosts and settings.
pub async fn spawn_configured(origins: &[&str], hosts: Option<&[&str]>, config: McpConfig) -> App {
    let store = fresh_store(Mode::Embedded).await;
    let backend = store.backend.clone();
    let db = projections::connect(&store.url).await.expect("read db");
    let projector = Projector::new(db.clone()).await.expect("projector");
    register(
        &backend,
        "DE",
        "Germany",
        Some("Federal Ministry for the Environment"),
    )
    .await;
    register(
        &backend,
        "FR",
        "France",
        Some("Ministère de la Transition écologique"),
    )
    .await;
    register(&backend, "NG", "Nigeria", None).await;
    register(&backend, "CI", "Côte d'Ivoire", None).await;
    register(
        &backend,
        "KR",
        "South Korea",
        Some("Ministry of Environment"),
    )
    .await;
    register(&backend, "KP", "North Korea", None).await;
    verify_germany(&backend, "ca@bmuv.example.de").await;
    let secret = ServerSecret::new(SecretString::from("t".repeat(40)));
    let registration = ApiKeyCommands::new(&backend, secret.clone())
        .register(
            &Email::parse("tester@example.org").expect("email"),
            &metadata(Actor::Registrant),
        )
        .await
        .expect("api key");
    projector.catch_up().await.expect("catch up");
    let state = McpState {
        read_db: db.clone(),
        cache: Arc::default(),
        classifier: Arc::new(Classifier::bundled().expect("classifier")),
        stale_after_days: 365,
        allowed_origins: origins.iter().map(|s| (*s).to_owned()).collect(),
        allowed_hosts: hosts
            .unwrap_or(&["localhost", "127.0.0.1", "::1"])
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
    };
    let stop = CancellationToken::new();
    let router = mcp::router_with(state, config, stop.clone().cancelled_owned());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let shutdown = stop.clone();
    let served = tokio::spawn(async move {
        let router = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await;
    });
    App {
        base,
        key: registration.api_key.expose_secret().to_owned(),
        backend,
        projector,
        db,
        stop,
        served: Some(served),
        _store: store,
    }
}

/// Registers `email` and returns its active API key (once the projections
/// have it).
pub async fn another_key(app: &App, email: &str) -> String {
    let secret = ServerSecret::new(SecretString::from("t".repeat(40)));
    let registration = ApiKeyCommands::new(&app.backend, secret)
        .register(
            &Email::parse(email).expect("email"),
            &metadata(Actor::Registrant),
        )
        .await
        .expect("api key");
    app.projector.catch_up().await.expect("catch up");
    registration.api_key.expose_secret().to_owned()
}

/// Registers `count` addresses (`{prefix}{n}@example.org`) at once and
/// returns their active API keys.
pub async fn many_keys(app: &App, prefix: &str, count: usize) -> Vec<String> {
    let secret = ServerSecret::new(SecretString::from("t".repeat(40)));
    let commands = ApiKeyCommands::new(&app.backend, secret);
    let mut keys = Vec::with_capacity(count);
    for n in 0..count {
        let email = Email::parse(&format!("{prefix}{n}@example.org")).expect("email");
        let registration = commands
            .register(&email, &metadata(Actor::Registrant))
            .await
            .expect("api key");
        keys.push(registration.api_key.expose_secret().to_owned());
    }
    app.projector.catch_up().await.expect("catch up");
    keys
}

/// The router with default settings.
pub async fn spawn() -> App {
    spawn_with(&[], None).await
}

pub type Client = RunningService<RoleClient, ()>;

/// The rmcp client over streamable HTTP, authenticated with a bearer key.
pub async fn client(app: &App) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", app.base))
        .auth_header(app.key.clone());
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve(transport).await.expect("rmcp client connects")
}

/// Calls `name` with `arguments` (a JSON object).
pub async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = match arguments {
        Value::Object(map) => Some(map),
        _ => Some(JsonObject::new()),
    };
    client.call_tool(params).await.expect("tools/call answers")
}

/// A successful call's structured content, checked against the text content.
pub fn structured(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let value = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .expect("text content");
    let parsed: Value = serde_json::from_str(&text).expect("text content is JSON");
    assert_eq!(parsed, value, "text content must be the same JSON");
    value
}

/// A tool error's stable code, checked to be `isError` with one readable
/// text `<code>: <message>` and no structured content (which would have to
/// match the output schema).
pub fn refusal(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(result.structured_content, None, "{result:?}");
    assert_eq!(result.content.len(), 1, "{result:?}");
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .expect("text content");
    let (code, message) = text.split_once(": ").expect("`<code>: <message>`");
    assert!(!message.trim().is_empty(), "{text}");
    assert!(
        code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
        "{text}"
    );
    code.to_owned()
}
