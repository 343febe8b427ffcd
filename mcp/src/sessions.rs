//! The open MCP sessions of both transports, each bound to the hash of the
//! API key that opened it, with caps and an idle expiry.
//!
//! - A request naming a session (`Mcp-Session-Id`, or `/message?sessionId=`)
//!   is served only for the key that opened it; for any other key, and for a
//!   session that expired or was closed, the answer is 404
//!   `session_not_found`.
//! - At most [`SessionLimits::per_key`] sessions per key: a key that opens
//!   one more closes its least recently used idle session (one with no open
//!   event stream); when none of its sessions is idle the new one is refused
//!   (429 `too_many_sessions`).
//! - At most [`SessionLimits::total`] sessions in all: past it a new session
//!   is refused (503 `sessions_exhausted`, `Retry-After`), after expired ones
//!   are closed.
//! - A session unused for [`SessionLimits::idle`] (no request, no open
//!   stream) is closed by a sweeper.
//!
//! Sessions are held in memory by this process only; after a restart, or on
//! another replica, clients initialise again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio_util::sync::CancellationToken;

use crate::guard;

/// Caps and expiry of MCP sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Open sessions per API key (default 32).
    pub per_key: usize,
    /// Open sessions in all (default 10,000).
    pub total: usize,
    /// A session unused this long is closed (default 5 minutes).
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            per_key: 32,
            total: 10_000,
            idle: Duration::from_secs(300),
        }
    }
}

/// How a session is closed when evicted or expired.
#[derive(Clone)]
pub(crate) enum Closer {
    /// A streamable HTTP session held by rmcp's session manager.
    Streamable,
    /// A legacy SSE session, ended by cancelling its token.
    Sse(CancellationToken),
}

struct Entry {
    owner: String,
    last: Instant,
    streams: usize,
    /// Whether the session's standalone stream (`GET /mcp` without
    /// `Last-Event-ID`) is open.
    standalone: bool,
    closer: Closer,
}

/// Why a session was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The caller's key holds its maximum and none of them is idle.
    KeyFull,
    /// The server holds its maximum.
    Full,
}

impl Refused {
    /// The JSON answer.
    pub(crate) fn response(self) -> Response {
        match self {
            Self::KeyFull => guard::error(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_sessions",
                "This API key holds its maximum of open MCP sessions, all in use; close one (DELETE /mcp) or reuse it.",
            ),
            Self::Full => {
                let mut response = guard::error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "sessions_exhausted",
                    "The server holds its maximum of open MCP sessions; try again shortly.",
                );
                response
                    .headers_mut()
                    .insert("retry-after", HeaderValue::from_static("5"));
                response
            }
        }
    }
}

/// The open sessions.
pub(crate) struct Registry {
    limits: SessionLimits,
    manager: Arc<LocalSessionManager>,
    open: Mutex<HashMap<String, Entry>>,
}

impl Registry {
    /// No sessions yet; streamable sessions live in `manager`.
    pub(crate) fn new(limits: SessionLimits, manager: Arc<LocalSessionManager>) -> Arc<Self> {
        Arc::new(Self {
            limits,
            manager,
            open: Mutex::default(),
        })
    }

    fn with_open<T>(&self, f: impl FnOnce(&mut HashMap<String, Entry>) -> T) -> T {
        f(&mut self.open.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Open sessions.
    pub(crate) fn len(&self) -> usize {
        self.with_open(|open| open.len())
    }

    /// Whether one more session may open (expired ones are closed first).
    ///
    /// # Errors
    /// [`Refused::Full`] at the total cap.
    pub(crate) fn admit(&self) -> Result<(), Refused> {
        if self.len() < self.limits.total {
            return Ok(());
        }
        self.sweep();
        if self.len() < self.limits.total {
            Ok(())
        } else {
            Err(Refused::Full)
        }
    }

    /// Records a new session of `owner`; past the key's cap closes the key's
    /// least recently used idle session, or, with none idle, this new one.
    ///
    /// # Errors
    /// [`Refused::KeyFull`] when the new session was closed.
    pub(crate) fn insert(&self, id: &str, owner: &str, closer: Closer) -> Result<(), Refused> {
        let evicted = self.with_open(|open| {
            open.insert(
                id.to_owned(),
                Entry {
                    owner: owner.to_owned(),
                    last: Instant::now(),
                    streams: 0,
                    standalone: false,
                    closer,
                },
            );
            let held = open.values().filter(|e| e.owner == owner).count();
            if held <= self.limits.per_key {
                return None;
            }
            let victim = open
                .iter()
                .filter(|(key, e)| e.owner == owner && e.streams == 0 && key.as_str() != id)
                .min_by_key(|(_, e)| e.last)
                .map(|(key, _)| key.clone())
                .unwrap_or_else(|| id.to_owned());
            open.remove(&victim).map(|entry| (victim, entry.closer))
        });
        match evicted {
            Some((victim, closer)) => {
                tracing::debug!(mcp.session = %victim, "MCP session closed: its key opened one past the cap");
                self.close(victim.clone(), closer);
                if victim == id {
                    return Err(Refused::KeyFull);
                }
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Marks a session used by `owner`: false when it is not open or is
    /// another key's.
    pub(crate) fn touch(&self, id: &str, owner: &str) -> bool {
        self.with_open(|open| match open.get_mut(id) {
            Some(entry) if entry.owner == owner => {
                entry.last = Instant::now();
                true
            }
            _ => false,
        })
    }

    /// Forgets a session its client closed (or whose stream ended).
    pub(crate) fn remove(&self, id: &str) {
        self.with_open(|open| open.remove(id));
    }

    /// Holds the session busy (never idle) until the returned guard drops.
    pub(crate) fn stream(self: &Arc<Self>, id: &str) -> StreamGuard {
        self.with_open(|open| {
            if let Some(entry) = open.get_mut(id) {
                entry.streams += 1;
            }
        });
        StreamGuard {
            registry: self.clone(),
            id: id.to_owned(),
            standalone: false,
        }
    }

    /// The session's one standalone stream, held (and the session busy)
    /// until the guard drops; `None` while another is open. A session has at
    /// most one, as the reference server enforces (a second `GET /mcp` is 409):
    /// a client that reconnected its stream on every error otherwise piled up
    /// open connections.
    pub(crate) fn standalone(self: &Arc<Self>, id: &str) -> Option<StreamGuard> {
        let taken = self.with_open(|open| match open.get_mut(id) {
            Some(entry) if entry.standalone => false,
            Some(entry) => {
                entry.standalone = true;
                entry.streams += 1;
                true
            }
            None => false,
        });
        taken.then(|| StreamGuard {
            registry: self.clone(),
            id: id.to_owned(),
            standalone: true,
        })
    }

    /// Closes every session unused for the idle limit.
    pub(crate) fn sweep(&self) {
        let idle = self.limits.idle;
        let expired: Vec<(String, Closer)> = self.with_open(|open| {
            let ids: Vec<String> = open
                .iter()
                .filter(|(_, e)| e.streams == 0 && e.last.elapsed() >= idle)
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| open.remove(&id).map(|e| (id, e.closer)))
                .collect()
        });
        if !expired.is_empty() {
            tracing::debug!(mcp.sessions = expired.len(), "idle MCP sessions closed");
        }
        for (id, closer) in expired {
            self.close(id, closer);
        }
    }

    /// Sweeps every quarter of the idle limit (at most every 30 s) until
    /// `shutdown`.
    pub(crate) fn sweep_until(self: &Arc<Self>, shutdown: CancellationToken) {
        let registry = Arc::downgrade(self);
        let every =
            (self.limits.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    () = shutdown.cancelled() => return,
                }
                match registry.upgrade() {
                    Some(registry) => registry.sweep(),
                    None => return,
                }
            }
        });
    }

    fn close(&self, id: String, closer: Closer) {
        match closer {
            Closer::Sse(token) => token.cancel(),
            Closer::Streamable => {
                let manager = self.manager.clone();
                tokio::spawn(async move {
                    let _ = manager.close_session(&id.into()).await;
                });
            }
        }
    }
}

/// An open event stream of a session; the session is idle again from its drop.
pub(crate) struct StreamGuard {
    registry: Arc<Registry>,
    id: String,
    standalone: bool,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.registry.with_open(|open| {
            if let Some(entry) = open.get_mut(&self.id) {
                entry.streams = entry.streams.saturating_sub(1);
                entry.standalone &= !self.standalone;
                entry.last = Instant::now();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(per_key: usize, total: usize) -> Arc<Registry> {
        Registry::new(
            SessionLimits {
                per_key,
                total,
                idle: Duration::from_millis(30),
            },
            Arc::new(LocalSessionManager::default()),
        )
    }

    #[tokio::test]
    async fn a_key_past_its_cap_loses_its_least_recently_used_session() {
        let sessions = registry(2, 100);
        sessions.insert("a1", "A", Closer::Streamable).unwrap();
        sessions.insert("a2", "A", Closer::Streamable).unwrap();
        assert!(sessions.touch("a1", "A"));
        sessions.insert("a3", "A", Closer::Streamable).unwrap();
        assert!(sessions.touch("a1", "A"));
        assert!(!sessions.touch("a2", "A"), "a2 was the least recently used");
        assert!(sessions.touch("a3", "A"));
        sessions.insert("b1", "B", Closer::Streamable).unwrap();
        assert_eq!(sessions.len(), 3, "another key's sessions are its own");
    }

    #[tokio::test]
    async fn a_key_whose_sessions_are_all_streaming_is_refused_a_new_one() {
        let sessions = registry(1, 100);
        sessions.insert("a1", "A", Closer::Streamable).unwrap();
        let _busy = sessions.stream("a1");
        assert_eq!(
            sessions.insert("a2", "A", Closer::Streamable),
            Err(Refused::KeyFull)
        );
        assert!(sessions.touch("a1", "A"));
        assert!(!sessions.touch("a2", "A"));
    }

    #[tokio::test]
    async fn a_session_has_one_standalone_stream_at_a_time() {
        let sessions = registry(4, 100);
        sessions.insert("a1", "A", Closer::Streamable).unwrap();
        let first = sessions.standalone("a1").expect("the first stream");
        assert!(sessions.standalone("a1").is_none(), "a second is refused");
        let _resumed = sessions.stream("a1");
        drop(first);
        assert!(
            sessions.standalone("a1").is_some(),
            "free again once closed"
        );
        assert!(sessions.standalone("unknown").is_none());
    }

    #[tokio::test]
    async fn a_session_is_refused_to_another_key() {
        let sessions = registry(4, 100);
        sessions.insert("a1", "A", Closer::Streamable).unwrap();
        assert!(!sessions.touch("a1", "B"));
        assert!(sessions.touch("a1", "A"));
    }

    #[tokio::test]
    async fn idle_sessions_expire_and_the_total_cap_refuses_until_they_do() {
        let sessions = registry(10, 2);
        let token = CancellationToken::new();
        sessions
            .insert("a1", "A", Closer::Sse(token.clone()))
            .unwrap();
        sessions.insert("b1", "B", Closer::Streamable).unwrap();
        assert_eq!(sessions.admit(), Err(Refused::Full));
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(sessions.admit(), Ok(()));
        assert_eq!(sessions.len(), 0);
        assert!(token.is_cancelled(), "the SSE session was ended");
    }
}
