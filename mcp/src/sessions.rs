//! The open MCP sessions of both transports, each bound to the hash of the
//! API key that opened it and to the client address it came from, with caps
//! and an idle expiry.
//!
//! - A request naming a session (`Mcp-Session-Id`, or `/message?sessionId=`)
//!   is served only for the key that opened it; for any other key, and for a
//!   session that expired or was closed, the answer is 404
//!   `session_not_found`.
//! - At most [`SessionLimits::per_key`] sessions per key and
//!   [`SessionLimits::per_address`] per client address (an IPv4 address, an
//!   IPv6 /64): one more closes the key's (or address's) least recently used
//!   idle session (one with no open event stream); when none of them is idle
//!   the new one is refused (429 `too_many_sessions` /
//!   `too_many_sessions_from_address`, `Retry-After`).
//! - At most [`SessionLimits::total`] sessions in all: at the cap the least
//!   recently used idle session of the whole server is closed for the
//!   newcomer, so a flood evicts itself rather than locking others out; only
//!   when every session has an open stream is a new one refused (503
//!   `sessions_exhausted`, `Retry-After`).
//! - A session unused for [`SessionLimits::idle`] (no request, no open
//!   stream) is closed by a sweeper; past half the total cap, after a quarter
//!   of it (idle sessions expire sooner under pressure).
//! - A session whose key is no longer active (revoked, erased) is closed with
//!   its streams by [`crate::revoked`].
//!
//! Sessions are held in memory by this process only; after a restart, or on
//! another replica, clients initialise again.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::SessionManager;
use tokio_util::sync::CancellationToken;

use crate::answer;

/// Caps and expiry of MCP sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// Open sessions per API key (default 32).
    pub per_key: usize,
    /// Open sessions per client address, IPv4 address or IPv6 /64
    /// (default 256).
    pub per_address: usize,
    /// Open sessions in all (default 10,000).
    pub total: usize,
    /// A session unused this long is closed (default 5 minutes).
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            per_key: 32,
            per_address: 256,
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
    address: Option<IpAddr>,
    last: Instant,
    streams: usize,
    /// Whether the session's standalone stream (`GET /mcp` without
    /// `Last-Event-ID`) is open.
    standalone: bool,
    closer: Closer,
    /// Cancelled when the session is closed: ends its open streams.
    ended: CancellationToken,
}

/// Why a session was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The caller's key holds its maximum and none of them is idle.
    KeyFull,
    /// The caller's address holds its maximum and none of them is idle.
    AddressFull,
    /// The server holds its maximum and none of them is idle.
    Full,
}

impl Refused {
    /// The JSON answer, with `Retry-After`.
    pub(crate) fn response(self) -> Response {
        let (status, code, message) = match self {
            Self::KeyFull => (
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_sessions",
                "This API key holds its maximum of open MCP sessions, all in use; close one (DELETE /mcp) or reuse it.",
            ),
            Self::AddressFull => (
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_sessions_from_address",
                "Your address holds its maximum of open MCP sessions, all in use; close one (DELETE /mcp) or reuse it.",
            ),
            Self::Full => (
                StatusCode::SERVICE_UNAVAILABLE,
                "sessions_exhausted",
                "The server holds its maximum of open MCP sessions, all in use; try again shortly.",
            ),
        };
        let mut response = answer::error(status, code, message);
        response
            .headers_mut()
            .insert("retry-after", HeaderValue::from_static("5"));
        response
    }
}

/// Who a new session belongs to.
#[derive(Clone, Debug)]
pub(crate) struct Holder<'a> {
    /// The hash of the key that opens it.
    pub(crate) owner: &'a str,
    /// The client's address (see `web::throttle::client_address`), when known.
    pub(crate) address: Option<IpAddr>,
}

/// Closes a streamable HTTP session in the session manager.
type CloseStreamable = Box<dyn Fn(String) + Send + Sync>;

/// The open sessions.
pub(crate) struct Registry {
    limits: SessionLimits,
    close_streamable: CloseStreamable,
    open: Mutex<HashMap<String, Entry>>,
}

impl Registry {
    /// No sessions yet; streamable sessions live in `manager`.
    pub(crate) fn new<M: SessionManager>(limits: SessionLimits, manager: Arc<M>) -> Arc<Self> {
        let close_streamable: CloseStreamable = Box::new(move |id: String| {
            let manager = manager.clone();
            tokio::spawn(async move {
                let _ = manager.close_session(&id.into()).await;
            });
        });
        Arc::new(Self {
            limits,
            close_streamable,
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

    /// Makes room for one more session: at the total cap, closes expired
    /// sessions, then the least recently used idle one.
    ///
    /// # Errors
    /// [`Refused::Full`] when every session has an open stream.
    pub(crate) fn admit(&self) -> Result<(), Refused> {
        if self.len() < self.limits.total {
            return Ok(());
        }
        self.sweep();
        let evicted = self.with_open(|open| {
            if open.len() < self.limits.total {
                return Ok(None);
            }
            match least_recently_used(open, |_| true, "") {
                Some(victim) => Ok(open.remove(&victim).map(|entry| (victim, entry))),
                None => Err(Refused::Full),
            }
        })?;
        if let Some((victim, entry)) = evicted {
            tracing::debug!(mcp.session = %victim, "MCP session closed: the server is at its cap and it was the least recently used idle one");
            self.close(victim, entry);
        }
        Ok(())
    }

    /// Records a new session of `holder`; past the key's or the address's
    /// cap closes that key's (address's) least recently used idle session,
    /// or, with none idle, this new one.
    ///
    /// # Errors
    /// [`Refused::KeyFull`] or [`Refused::AddressFull`] when the new session
    /// was closed.
    pub(crate) fn insert(&self, id: &str, holder: &Holder, closer: Closer) -> Result<(), Refused> {
        let ended = CancellationToken::new();
        let (owner, address) = (holder.owner, holder.address);
        let evicted = self.with_open(|open| {
            open.insert(
                id.to_owned(),
                Entry {
                    owner: owner.to_owned(),
                    address,
                    last: Instant::now(),
                    streams: 0,
                    standalone: false,
                    closer,
                    ended,
                },
            );
            let mut evicted = Vec::new();
            let key_over = open.values().filter(|e| e.owner == owner).count() > self.limits.per_key;
            if key_over {
                let victim = least_recently_used(open, |e| e.owner == owner, id);
                evicted.push(evict(open, victim, id, Refused::KeyFull));
            }
            let address_over = |open: &HashMap<String, Entry>| {
                address.is_some_and(|a| {
                    open.values().filter(|e| e.address == Some(a)).count() > self.limits.per_address
                })
            };
            if open.contains_key(id) && address_over(open) {
                let victim = least_recently_used(open, |e| e.address == address, id);
                evicted.push(evict(open, victim, id, Refused::AddressFull));
            }
            evicted
        });
        let mut refused = Ok(());
        for (victim, entry, why) in evicted {
            let Some(entry) = entry else { continue };
            tracing::debug!(mcp.session = %victim, "MCP session closed: its key or address opened one past its cap");
            if victim == id {
                refused = Err(why);
            }
            self.close(victim, entry);
        }
        refused
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

    /// The token that ends the session's streams when it is closed.
    pub(crate) fn ended(&self, id: &str) -> Option<CancellationToken> {
        self.with_open(|open| open.get(id).map(|e| e.ended.clone()))
    }

    /// Forgets a session its client closed (or whose stream ended).
    pub(crate) fn remove(&self, id: &str) {
        self.with_open(|open| open.remove(id));
    }

    /// The keys (hashes) holding open sessions.
    pub(crate) fn owners(&self) -> Vec<String> {
        let mut owners: Vec<String> =
            self.with_open(|open| open.values().map(|e| e.owner.clone()).collect());
        owners.sort_unstable();
        owners.dedup();
        owners
    }

    /// Closes every session of `owner`, with its streams.
    pub(crate) fn close_owner(&self, owner: &str) -> usize {
        let closed: Vec<(String, Entry)> = self.with_open(|open| {
            let ids: Vec<String> = open
                .iter()
                .filter(|(_, e)| e.owner == owner)
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| open.remove(&id).map(|e| (id, e)))
                .collect()
        });
        let count = closed.len();
        for (id, entry) in closed {
            self.close(id, entry);
        }
        count
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

    /// The idle limit now: a quarter of it past half the total cap.
    fn idle_limit(&self, open: usize) -> Duration {
        if open > self.limits.total / 2 {
            self.limits.idle / 4
        } else {
            self.limits.idle
        }
    }

    /// Closes every session unused for the idle limit.
    pub(crate) fn sweep(&self) {
        let expired: Vec<(String, Entry)> = self.with_open(|open| {
            let idle = self.idle_limit(open.len());
            let ids: Vec<String> = open
                .iter()
                .filter(|(_, e)| e.streams == 0 && e.last.elapsed() >= idle)
                .map(|(id, _)| id.clone())
                .collect();
            ids.into_iter()
                .filter_map(|id| open.remove(&id).map(|e| (id, e)))
                .collect()
        });
        if !expired.is_empty() {
            tracing::debug!(mcp.sessions = expired.len(), "idle MCP sessions closed");
        }
        for (id, entry) in expired {
            self.close(id, entry);
        }
    }

    /// Sweeps every quarter of the idle limit (at most every 30 s) until
    /// `shutdown`.
    pub(crate) fn sweep_until(self: &Arc<Self>, shutdown: CancellationToken) {
        let registry = Arc::downgrade(self);
        let every =
            (self.limits.idle / 16).clamp(Duration::from_millis(50), Duration::from_secs(30));
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

    fn close(&self, id: String, entry: Entry) {
        entry.ended.cancel();
        match entry.closer {
            Closer::Sse(token) => token.cancel(),
            Closer::Streamable => (self.close_streamable)(id),
        }
    }
}

/// Removes `victim`, or the new session `id` when there is none to evict.
fn evict(
    open: &mut HashMap<String, Entry>,
    victim: Option<String>,
    id: &str,
    why: Refused,
) -> (String, Option<Entry>, Refused) {
    let victim = victim.unwrap_or_else(|| id.to_owned());
    let entry = open.remove(&victim);
    (victim, entry, why)
}

/// The least recently used idle session among those `in_group`, other than
/// `except`.
fn least_recently_used(
    open: &HashMap<String, Entry>,
    in_group: impl Fn(&Entry) -> bool,
    except: &str,
) -> Option<String> {
    open.iter()
        .filter(|(key, e)| e.streams == 0 && in_group(e) && key.as_str() != except)
        .min_by_key(|(_, e)| e.last)
        .map(|(key, _)| key.clone())
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
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

    fn registry(per_key: usize, total: usize) -> Arc<Registry> {
        Registry::new(
            SessionLimits {
                per_key,
                per_address: 1_000,
                total,
                idle: Duration::from_millis(30),
            },
            Arc::new(LocalSessionManager::default()),
        )
    }

    fn key(owner: &str) -> Holder<'_> {
        Holder {
            owner,
            address: None,
        }
    }

    fn from(owner: &str, last_octet: u8) -> Holder<'_> {
        Holder {
            owner,
            address: Some(IpAddr::from([192, 0, 2, last_octet])),
        }
    }

    #[tokio::test]
    async fn a_key_past_its_cap_loses_its_least_recently_used_session() {
        let sessions = registry(2, 100);
        sessions
            .insert("a1", &key("A"), Closer::Streamable)
            .unwrap();
        sessions
            .insert("a2", &key("A"), Closer::Streamable)
            .unwrap();
        assert!(sessions.touch("a1", "A"));
        sessions
            .insert("a3", &key("A"), Closer::Streamable)
            .unwrap();
        assert!(sessions.touch("a1", "A"));
        assert!(!sessions.touch("a2", "A"), "a2 was the least recently used");
        assert!(sessions.touch("a3", "A"));
        sessions
            .insert("b1", &key("B"), Closer::Streamable)
            .unwrap();
        assert_eq!(sessions.len(), 3, "another key's sessions are its own");
    }

    #[tokio::test]
    async fn an_address_past_its_cap_loses_its_least_recently_used_session_whatever_the_key() {
        let sessions = Registry::new(
            SessionLimits {
                per_key: 10,
                per_address: 2,
                total: 100,
                idle: Duration::from_secs(60),
            },
            Arc::new(LocalSessionManager::default()),
        );
        sessions
            .insert("a1", &from("A", 1), Closer::Streamable)
            .unwrap();
        sessions
            .insert("b1", &from("B", 1), Closer::Streamable)
            .unwrap();
        sessions
            .insert("c1", &from("C", 1), Closer::Streamable)
            .unwrap();
        assert!(!sessions.touch("a1", "A"), "the address's oldest went");
        assert!(sessions.touch("b1", "B") && sessions.touch("c1", "C"));
        sessions
            .insert("a2", &from("A", 2), Closer::Streamable)
            .unwrap();
        assert!(sessions.touch("a2", "A"), "another address is not charged");
        let _b = sessions.stream("b1");
        let _c = sessions.stream("c1");
        assert_eq!(
            sessions.insert("d1", &from("D", 1), Closer::Streamable),
            Err(Refused::AddressFull),
            "nothing idle to close at that address"
        );
        assert_eq!(sessions.len(), 3);
    }

    #[tokio::test]
    async fn a_key_whose_sessions_are_all_streaming_is_refused_a_new_one() {
        let sessions = registry(1, 100);
        sessions
            .insert("a1", &key("A"), Closer::Streamable)
            .unwrap();
        let _busy = sessions.stream("a1");
        assert_eq!(
            sessions.insert("a2", &key("A"), Closer::Streamable),
            Err(Refused::KeyFull)
        );
        assert!(sessions.touch("a1", "A"));
        assert!(!sessions.touch("a2", "A"));
    }

    #[tokio::test]
    async fn a_session_has_one_standalone_stream_at_a_time() {
        let sessions = registry(4, 100);
        sessions
            .insert("a1", &key("A"), Closer::Streamable)
            .unwrap();
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
        sessions
            .insert("a1", &key("A"), Closer::Streamable)
            .unwrap();
        assert!(!sessions.touch("a1", "B"));
        assert!(sessions.touch("a1", "A"));
    }

    #[tokio::test]
    async fn at_the_total_cap_the_least_recently_used_idle_session_makes_room() {
        let sessions = Registry::new(
            SessionLimits {
                per_key: 10,
                per_address: 10,
                total: 2,
                idle: Duration::from_secs(60),
            },
            Arc::new(LocalSessionManager::default()),
        );
        let token = CancellationToken::new();
        sessions
            .insert("a1", &key("A"), Closer::Sse(token.clone()))
            .unwrap();
        sessions
            .insert("b1", &key("B"), Closer::Streamable)
            .unwrap();
        assert_eq!(sessions.admit(), Ok(()));
        assert!(
            token.is_cancelled(),
            "the oldest (an SSE session) was ended"
        );
        assert!(sessions.touch("b1", "B"));
        sessions
            .insert("c1", &key("C"), Closer::Streamable)
            .unwrap();
        let _b = sessions.stream("b1");
        let _c = sessions.stream("c1");
        assert_eq!(sessions.admit(), Err(Refused::Full), "none idle");
    }

    #[tokio::test]
    async fn idle_sessions_expire() {
        let sessions = registry(10, 100);
        let token = CancellationToken::new();
        sessions
            .insert("a1", &key("A"), Closer::Sse(token.clone()))
            .unwrap();
        let ended = sessions.ended("a1").expect("open");
        tokio::time::sleep(Duration::from_millis(40)).await;
        sessions.sweep();
        assert_eq!(sessions.len(), 0);
        assert!(token.is_cancelled() && ended.is_cancelled());
    }

    #[tokio::test]
    async fn closing_a_key_closes_all_its_sessions() {
        let sessions = registry(10, 100);
        sessions
            .insert("a1", &key("A"), Closer::Streamable)
            .unwrap();
        sessions
            .insert("a2", &key("A"), Closer::Streamable)
            .unwrap();
        sessions
            .insert("b1", &key("B"), Closer::Streamable)
            .unwrap();
        let ended = sessions.ended("a2").expect("open");
        assert_eq!(sessions.owners(), ["A", "B"]);
        assert_eq!(sessions.close_owner("A"), 2);
        assert!(ended.is_cancelled());
        assert_eq!(sessions.owners(), ["B"]);
    }
}
