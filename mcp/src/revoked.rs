//! Sessions of keys that are no longer active end: a key revoked, or erased
//! with its address (`basel forget`), loses its open sessions and their event
//! streams (`GET /mcp`, `/sse`) within [`RECHECK`] plus a read of the table.
//!
//! Each serving process watches its own read tables: the `api_keys`
//! projection follows the log in both storage modes, so a revocation made
//! anywhere (another process, the CLI) reaches every replica through it.
//! Every [`RECHECK`] the keys holding sessions are looked up through the
//! read cache (which forgets its active keys whenever the `api_keys`
//! checkpoint moves, so a key is read from the table once per change, not
//! once a second); a key not found active has its sessions closed.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::sessions::Registry;
use crate::state::McpState;

/// How often the keys holding sessions are checked.
pub(crate) const RECHECK: Duration = Duration::from_secs(1);

/// Checks the keys of `registry`'s sessions every [`RECHECK`] until `shutdown`.
pub(crate) fn watch(registry: &Arc<Registry>, state: Arc<McpState>, shutdown: CancellationToken) {
    let registry = Arc::downgrade(registry);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(RECHECK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => {}
                () = shutdown.cancelled() => return,
            }
            let Some(registry) = registry.upgrade() else {
                return;
            };
            close_inactive(&registry, &state).await;
        }
    });
}

/// Closes the sessions of every key that the `api_keys` table does not hold
/// as active. A key whose row cannot be read keeps its sessions (the next
/// round tries again).
async fn close_inactive(registry: &Registry, state: &McpState) {
    for owner in registry.owners() {
        let Some(digest) = hex::decode(&owner)
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        else {
            continue;
        };
        match state.cache.is_active_key(&state.read_db, digest).await {
            Ok(true) => {}
            Ok(false) => {
                let closed = registry.close_owner(&owner);
                tracing::info!(
                    mcp.sessions = closed,
                    "MCP sessions closed: their API key is no longer active"
                );
            }
            Err(error) => {
                tracing::warn!(error = %error, "MCP: cannot recheck the keys of open sessions");
                return;
            }
        }
    }
}
