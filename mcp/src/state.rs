//! What the MCP server reads and how it is set up: [`McpState`] (the read
//! side and the door's allow-lists), [`McpConfig`] (rates, sessions,
//! change feeds), and the bounds every part of the server shares.

use std::sync::Arc;

use classifier::Classifier;
use projections::cache::ReadCache;
use projections::ReadDb;
use web::throttle::{FailedAuth, RateLimit};

use crate::sessions::SessionLimits;

/// The largest request body accepted, in bytes (413 beyond).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// `text` escaped and cut to `domain::echo::MAX_ECHOED_CHARS` characters
/// (with `…` when cut): for client-supplied strings quoted in logs and error
/// messages (see `domain::echo`).
pub(crate) fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    domain::echo::loggable(text, domain::echo::MAX_ECHOED_CHARS)
}

/// What the MCP server reads and how it guards its door.
#[derive(Clone)]
pub struct McpState {
    /// The read tables (directory, history, api keys).
    pub read_db: ReadDb,
    /// Active keys and the directory, remembered until the read tables change
    /// (`ReadCache::watching` in a server; `ReadCache::default()` caches
    /// nothing).
    pub cache: Arc<ReadCache>,
    /// The waste classifier, built once at start.
    pub classifier: Arc<Classifier>,
    /// Days after which a record's last check is `stale`.
    pub stale_after_days: i64,
    /// Browser origins allowed (requests without `Origin` always are).
    pub allowed_origins: Vec<String>,
    /// `Host` values answered (others get 403).
    pub allowed_hosts: Vec<String>,
}

/// Settings of the MCP server that are not about what it reads.
#[derive(Clone, Debug, Default)]
pub struct McpConfig {
    /// Calls per second and burst per API key, over `tools/call` and
    /// `resources/read` (default 20/s, burst 100).
    pub rate: RateLimit,
    /// Country codes (ISO 3166-1 alpha-2) whose directory record changed,
    /// sent by whoever applies directory changes. When set, the server
    /// advertises `resources.subscribe` and sends
    /// `notifications/resources/updated` for subscribed `basel://ca/{cc}`;
    /// when `None` (the default), `resources/subscribe` is -32601.
    pub changes: Option<tokio::sync::broadcast::Sender<String>>,
    /// Country codes added to the directory. When set, the server advertises
    /// `resources.listChanged` and sends `notifications/resources/list_changed`
    /// to every initialised session when one arrives.
    pub added: Option<tokio::sync::broadcast::Sender<String>>,
    /// Caps per key and in all on open sessions, and their idle expiry.
    pub sessions: SessionLimits,
    /// Failed authentications per client address (shared with the REST
    /// edge of the same process; default 10/s, bursts of 100).
    pub failed_auth: Arc<FailedAuth>,
}
