//! basel's MCP server: the AI assistants' door to the same read tables as the
//! REST API. Read-only; keeps no data of its own and offers no write.
//!
//! [`router`] is mounted by the `basel` binary on `BASEL_MCP_LISTEN`. It
//! serves one handler (`handler::Basel`) over two transports:
//!
//! - `POST/GET/DELETE /mcp`: streamable HTTP, rmcp's
//!   `StreamableHttpService` (protocol revisions 2024-11-05 to 2026-07-28);
//! - `GET /sse` + `POST /message?sessionId=…`: the legacy HTTP+SSE transport
//!   of revision 2024-11-05, which rmcp 3.x no longer has (`sse`).
//!
//! Every request passes `guard` first: allowed `Host`, allowed `Origin`,
//! body size, API key (`X-API-Key` or `Authorization: Bearer`), and the
//! `MCP-Protocol-Version` header, each refused with a JSON body before any
//! MCP processing.
//!
//! Must not: write anything, depend on `api`, or read the environment.
//!
//! Layout:
//! - `guard`: the HTTP checks in front of both transports;
//! - `handler`: the rmcp `ServerHandler` (server info, tools, resources);
//! - `tools`: the seven tools, each one `#[tool]` method over its argument
//!   and answer types (rmcp's typed router);
//! - `resources`: `basel://ca/{country_code}` and `basel://codes/{code}`;
//! - `schemas`: the tools' schemas as published: tidy and compact;
//! - `cursor`: opaque pagination cursors;
//! - `sse`: the legacy SSE transport;
//! - `jsonrpc`: the JSON-RPC checks in front of rmcp (parse errors, invalid
//!   requests and params, batches, bounded client strings);
//! - `rate`: the per-key token bucket on tool calls and resource reads;
//! - `live`: `resources/subscribe` and `notifications/resources/updated`
//!   from a channel of changed country codes;
//! - `throttle`: the token buckets (on `governor`) of the call limit and of
//!   failed authentication per client address, also used by the REST edge;
//! - `sessions`: the open sessions of both transports, bound to the key that
//!   opened them, capped per key, per client address and in all, expired
//!   when idle;
//! - `revoked`: closes the sessions (and streams) of keys no longer active;
//! - `dormant`: rmcp's session manager with idle sessions asleep: kept as
//!   their `initialize` params, the per-session service started again by
//!   the next request or stream;
//! - `event_ids`: the session manager with event ids a client can resume
//!   from (the priming event alone has id 0; `Last-Event-ID: N` replays
//!   what came after N).
//!
//! Settings beyond [`McpState`] (the rate limit) come in [`McpConfig`],
//! whose `Default` is what [`router`] and [`router_until`] use.

mod answer;
mod cursor;
mod dormant;
mod event_ids;
mod guard;
mod handler;
mod jsonrpc;
mod live;
mod rate;
mod records;
mod resources;
mod revoked;
mod schemas;
mod sessions;
mod sse;
mod state;

mod tools;

pub use rate::RATE_LIMITED;
pub use sessions::SessionLimits;
pub use state::{McpConfig, McpState, MAX_BODY_BYTES};
pub use web::throttle::{FailedAuth, RateLimit};

use std::future::Future;
use std::sync::Arc;

use axum::routing::{any, get, post};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

/// The MCP router: `POST /mcp` (streamable HTTP), `GET /sse` + `POST /message` (legacy SSE).
///
/// Open event streams stay open until their clients leave; use
/// [`router_until`] to close them when the server shuts down.
pub fn router(state: McpState) -> Router {
    build(state, McpConfig::default(), CancellationToken::new())
}

/// [`router`], whose open event streams and sessions end when `shutdown`
/// completes, so a graceful shutdown of the HTTP server does not wait for
/// clients that never hang up.
pub fn router_until<F>(state: McpState, shutdown: F) -> Router
where
    F: Future<Output = ()> + Send + 'static,
{
    router_with(state, McpConfig::default(), shutdown)
}

/// [`router_until`] with settings other than the defaults.
pub fn router_with<F>(state: McpState, config: McpConfig, shutdown: F) -> Router
where
    F: Future<Output = ()> + Send + 'static,
{
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        shutdown.await;
        trigger.cancel();
    });
    build(state, config, token)
}

fn build(state: McpState, config: McpConfig, shutdown: CancellationToken) -> Router {
    let state = Arc::new(state);
    let records = Arc::new(records::Records::default());
    let handler = handler::Basel::new(state.clone(), &config, records.clone());
    let manager = dormant::Dormant::new(
        session_manager(config.sessions),
        records,
        handler.clone(),
        shutdown.clone(),
    );
    let registry = sessions::Registry::new(config.sessions, manager.clone());
    registry.sweep_until(shutdown.clone());
    revoked::watch(&registry, state.clone(), shutdown.clone());
    let numbered = Arc::new(event_ids::NumberedEvents(manager));
    let streamable = streamable_service(&state, handler.clone(), numbered, shutdown.clone());
    let sessions = sse::Sessions::new(handler, registry.clone(), shutdown);
    let legacy = Router::new()
        .route(
            "/sse",
            get(sse::open).fallback(|| async { guard::not_allowed("GET") }),
        )
        .route(
            "/message",
            post(sse::message).fallback(|| async { guard::not_allowed("POST") }),
        )
        .with_state(sessions);
    Router::new()
        .route(
            "/mcp",
            any(move |request: axum::extract::Request| {
                let (service, registry) = (streamable.clone(), registry.clone());
                async move { guard::streamable(service, registry, request).await }
            }),
        )
        .merge(legacy)
        .fallback(guard::not_found)
        .layer(axum::middleware::from_fn_with_state(
            (
                state,
                Arc::new(guard::Refusals::default()),
                config.failed_auth,
            ),
            guard::check,
        ))
}

/// rmcp's session manager (under `dormant`); its own idle expiry is a
/// safety net behind the registry's sweeper.
fn session_manager(limits: SessionLimits) -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(limits.idle + std::time::Duration::from_secs(60));
    manager
}

fn streamable_service(
    state: &McpState,
    handler: handler::Basel,
    manager: Arc<event_ids::NumberedEvents>,
    shutdown: CancellationToken,
) -> jsonrpc::Streamable {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(state.allowed_hosts.clone())
        .with_allowed_origins(state.allowed_origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_cancellation_token(shutdown);
    StreamableHttpService::new(move || Ok(handler.session()), manager, config)
}
