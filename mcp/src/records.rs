//! The records of the streamable sessions: each one asleep or awake, with
//! what it needs to wake again. Shared by the session manager
//! ([`crate::dormant`]) and the handler (which pins a session that has
//! subscriptions).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rmcp::transport::common::server_side_http::SessionId;
use tokio::sync::Notify;

/// Whether a session has a worker.
pub(crate) enum State {
    Asleep,
    Awake,
    /// Being woken or put to sleep; waiters are told when it is done.
    Turning(Arc<Notify>),
}

/// One session, asleep or awake.
pub(crate) struct Record {
    /// The client's `initialize` params, as JSON.
    pub(crate) params: Box<str>,
    pub(crate) state: State,
    /// Requests and streams using the session now.
    pub(crate) holds: u32,
    /// Whether the session has resource subscriptions.
    pub(crate) pinned: bool,
    /// Awake until then at least (a stream was cut).
    pub(crate) linger_until: Option<Instant>,
    /// Whether a check at `linger_until` is already scheduled.
    pub(crate) recheck: bool,
    /// Counts the session's workers, so that the end of an old one is not
    /// taken for the end of the current one.
    pub(crate) generation: u64,
    /// rmcp's first worker (the one that answered `initialize`) was put to
    /// sleep and has yet to report its end, which rmcp does by calling
    /// `close_session`: that call is not the client's.
    pub(crate) first_exit_pending: bool,
}

/// The records of the streamable sessions, shared by [`Dormant`] and the
/// handler (which pins a session with subscriptions).
#[derive(Default)]
pub(crate) struct Records(Mutex<HashMap<SessionId, Record>>);

impl Records {
    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut HashMap<SessionId, Record>) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Keeps session `id` awake while `pinned` (it has subscriptions, whose
    /// notifications come from its worker). Unpinning lets it sleep once the
    /// request that unpinned it is answered.
    pub(crate) fn pin(&self, id: &str, pinned: bool) {
        self.with(|records| {
            if let Some(record) = records.get_mut(id) {
                record.pinned = pinned;
            }
        });
    }
}
