//! Idle streamable-HTTP sessions without a worker: a session nobody is using
//! is kept as a small record, and rmcp's per-session service runs only while
//! the session is in use.
//!
//! rmcp's `LocalSessionManager` runs, for every session, a worker task, its
//! channels and event caches, and the running `serve_server` loop with a
//! handler: about 61 KiB of memory, from `initialize` until the session is
//! closed, whether or not the client ever comes back. [`Dormant`] wraps that
//! manager and keeps, per session, only what it takes to start it again: the
//! client's `initialize` params (as JSON, at most [`MAX_PARAMS_BYTES`]).
//!
//! - **Asleep** (no worker) right after `initialize` answers, and whenever
//!   nothing holds the session.
//! - **Woken** by the next request or stream: rmcp's own restore path is
//!   followed (`restore_session`, then the stored `initialize` and
//!   `notifications/initialized` replayed to a fresh handler), so the session
//!   answers as before, on the protocol revision it negotiated.
//! - **Held awake** while a request is being answered, while an event stream
//!   (`GET /mcp`, a resumption, a request's stream) is open, while the
//!   session has resource subscriptions ([`Records::pin`]), and for
//!   [`LINGER`] after a stream was cut before its end, so that a client
//!   reconnecting with `Last-Event-ID` is replayed what it missed.
//!
//! A notification for an asleep session is accepted and dropped: it has no
//! request in flight to cancel and no server request to answer. What an
//! asleep session loses is what rmcp kept for a client with no stream open:
//! notifications sent while nobody listened (they would have been replayed to
//! a later `GET /mcp`).
//!
//! The session's lifetime is unchanged: it ends when its client deletes it or
//! `sessions::Registry` closes it (caps, idle expiry, revoked key), both
//! through [`Dormant`]'s `close_session`.

use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::service::serve_server_with_ct;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionError,
};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::TransportAdapterIdentity;
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::handler::Basel;
use crate::records::{Record, Records, State};

/// How long a session stays awake after one of its streams was cut before
/// its end: the time a client has to resume it with `Last-Event-ID` (rmcp
/// asks clients to retry after 3 s).
pub(crate) const LINGER: Duration = Duration::from_secs(30);

/// The largest `initialize` params kept for a session, as JSON. Larger ones
/// are kept without their capabilities (the server sends clients no
/// requests, so it never reads them) and with the client's name and version
/// only.
pub(crate) const MAX_PARAMS_BYTES: usize = 2048;

type Error = LocalSessionManagerError;
type Transport = <LocalSessionManager as SessionManager>::Transport;
type BoxedEvents = Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync + 'static>>;

/// rmcp's session manager, with idle sessions asleep (see the module).
pub(crate) struct Dormant {
    inner: LocalSessionManager,
    records: Arc<Records>,
    /// Each woken session runs `handler.session()`.
    handler: Basel,
    /// Ends every worker when the server shuts down.
    shutdown: CancellationToken,
    myself: Weak<Dormant>,
}

/// What [`Dormant::hold`] found.
enum Found {
    Gone,
    Wait(tokio::sync::futures::OwnedNotified),
    Awake(Hold),
    Asleep(Hold, Box<str>, u64),
}

impl Dormant {
    /// A manager over `inner` whose woken sessions run `handler.session()`
    /// until `shutdown`.
    pub(crate) fn new(
        inner: LocalSessionManager,
        records: Arc<Records>,
        handler: Basel,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        Arc::new_cyclic(|myself| Self {
            inner,
            records,
            handler,
            shutdown,
            myself: myself.clone(),
        })
    }

    /// A hold on session `id`, woken first if asleep.
    ///
    /// # Errors
    /// `SessionNotFound` for a session that is not (or no longer) open; a
    /// session error when it cannot be woken.
    async fn hold(&self, id: &SessionId) -> Result<Hold, Error> {
        loop {
            let found = self.records.with(|records| {
                let Some(record) = records.get_mut(id) else {
                    return Found::Gone;
                };
                match &record.state {
                    State::Turning(done) => Found::Wait(done.clone().notified_owned()),
                    State::Awake => {
                        record.holds += 1;
                        Found::Awake(self.new_hold(id, record.generation))
                    }
                    State::Asleep => {
                        record.holds += 1;
                        record.generation += 1;
                        record.state = State::Turning(Arc::default());
                        Found::Asleep(
                            self.new_hold(id, record.generation),
                            record.params.clone(),
                            record.generation,
                        )
                    }
                }
            });
            match found {
                Found::Gone => return Err(Error::SessionNotFound(id.clone())),
                Found::Wait(done) => done.await,
                Found::Awake(hold) => return Ok(hold),
                Found::Asleep(hold, params, generation) => {
                    let Some(me) = self.myself.upgrade() else {
                        return Err(terminated());
                    };
                    // Spawned, so that a caller who hangs up does not leave
                    // the session half woken.
                    let waking = tokio::spawn(me.wake(id.clone(), params, generation));
                    return match waking.await {
                        Ok(Ok(())) => Ok(hold),
                        Ok(Err(error)) => Err(error),
                        Err(_) => Err(terminated()),
                    };
                }
            }
        }
    }

    /// A hold on `id` if it is awake now; none (and no waking) otherwise.
    fn hold_if_awake(&self, id: &str) -> Option<Hold> {
        self.records.with(|records| {
            let record = records.get_mut(id)?;
            matches!(record.state, State::Awake).then(|| {
                record.holds += 1;
                self.new_hold(id, record.generation)
            })
        })
    }

    fn new_hold(&self, id: &str, generation: u64) -> Hold {
        Hold {
            manager: self.myself.clone(),
            id: id.into(),
            generation,
            finished: false,
        }
    }

    /// Starts a worker for asleep session `id` and replays its handshake.
    async fn wake(
        self: Arc<Self>,
        id: SessionId,
        params: Box<str>,
        generation: u64,
    ) -> Result<(), Error> {
        let woken = self.start_worker(&id, &params, generation).await;
        if woken.is_err() {
            // Half started: no worker may stay.
            let _ = self.inner.close_session(&id).await;
        }
        let stale = self.records.with(|records| {
            let Some(record) = records.get_mut(&id) else {
                return true;
            };
            let next = if woken.is_ok() {
                State::Awake
            } else {
                State::Asleep
            };
            if let State::Turning(done) = std::mem::replace(&mut record.state, next) {
                done.notify_waiters();
            }
            self.settle(&id, record);
            false
        });
        if stale && woken.is_ok() {
            // Closed while it was being woken.
            let _ = self.inner.close_session(&id).await;
        }
        woken
    }

    async fn start_worker(
        &self,
        id: &SessionId,
        params: &str,
        generation: u64,
    ) -> Result<(), Error> {
        let transport = match self.inner.restore_session(id.clone()).await? {
            RestoreOutcome::Restored(transport) => transport,
            _ => return Err(terminated()),
        };
        self.spawn_worker(id.clone(), transport, generation);
        let (initialize, initialized) = handshake(params).ok_or_else(terminated)?;
        match self.inner.initialize_session(id, initialize).await? {
            ServerJsonRpcMessage::Response(_) => {}
            _ => return Err(terminated()),
        }
        self.inner.accept_message(id, initialized).await
    }

    /// Runs the session's service over `transport` until it ends; an end
    /// that was not a sleep leaves the session asleep (the next request
    /// wakes it again).
    fn spawn_worker(&self, id: SessionId, transport: Transport, generation: u64) {
        let service = self.handler.session();
        let shutdown = self.shutdown.child_token();
        let manager = self.myself.clone();
        tokio::spawn(async move {
            let served = serve_server_with_ct::<_, _, _, TransportAdapterIdentity>(
                service, transport, shutdown,
            )
            .await;
            match served {
                Ok(running) => drop(running.waiting().await),
                Err(error) => {
                    tracing::debug!(mcp.session = %id, error = %error, "MCP session could not be woken")
                }
            }
            if let Some(manager) = manager.upgrade() {
                manager.worker_ended(id, generation).await;
            }
        });
    }

    async fn worker_ended(&self, id: SessionId, generation: u64) {
        let unexpected = self.records.with(|records| {
            let record = records.get_mut(&id)?;
            let current = record.generation == generation && matches!(record.state, State::Awake);
            current.then(|| {
                let done = Arc::new(Notify::new());
                record.state = State::Turning(done.clone());
                done
            })
        });
        if let Some(done) = unexpected {
            let _ = self.inner.close_session(&id).await;
            self.records.with(|records| {
                if let Some(record) = records.get_mut(&id) {
                    record.state = State::Asleep;
                }
            });
            done.notify_waiters();
        }
    }

    /// Puts `record` to sleep if nothing holds it any more.
    fn settle(&self, id: &SessionId, record: &mut Record) {
        if !matches!(record.state, State::Awake) || record.holds > 0 || record.pinned {
            return;
        }
        if let Some(until) = record.linger_until.filter(|until| *until > Instant::now()) {
            if !record.recheck {
                record.recheck = true;
                let (manager, id) = (self.myself.clone(), id.clone());
                tokio::spawn(async move {
                    tokio::time::sleep_until(until.into()).await;
                    if let Some(manager) = manager.upgrade() {
                        manager.recheck(&id);
                    }
                });
            }
            return;
        }
        let done = Arc::new(Notify::new());
        record.state = State::Turning(done.clone());
        let (manager, id) = (self.myself.clone(), id.clone());
        tokio::spawn(async move {
            let Some(manager) = manager.upgrade() else {
                return;
            };
            let _ = manager.inner.close_session(&id).await;
            manager.records.with(|records| {
                if let Some(record) = records.get_mut(&id) {
                    record.state = State::Asleep;
                }
            });
            done.notify_waiters();
        });
    }

    fn recheck(&self, id: &SessionId) {
        self.records.with(|records| {
            if let Some(record) = records.get_mut(id) {
                record.recheck = false;
                self.settle(id, record);
            }
        });
    }

    /// A hold ended: the session sleeps if it was the last (after
    /// [`LINGER`] when its stream was cut).
    fn release(&self, id: &SessionId, cut: bool) {
        self.records.with(|records| {
            if let Some(record) = records.get_mut(id) {
                record.holds = record.holds.saturating_sub(1);
                if cut {
                    record.linger_until = Some(Instant::now() + LINGER);
                }
                self.settle(id, record);
            }
        });
    }
}

/// rmcp's id for event `last` (see [`Held`]): `N/R.G` → `N/R` when G is
/// `generation`, `None` when it is another's; `N` unchanged.
fn of_generation(last: &str, generation: u64) -> Option<String> {
    let Some((index, request)) = last.split_once('/') else {
        return Some(last.to_owned());
    };
    let (request, of) = request.rsplit_once('.')?;
    (of.parse::<u64>().ok()? == generation).then(|| format!("{index}/{request}"))
}

fn terminated() -> Error {
    Error::SessionError(SessionError::SessionServiceTerminated)
}

/// The `initialize` request and `notifications/initialized` that start a
/// woken session as its client started it.
fn handshake(params: &str) -> Option<(ClientJsonRpcMessage, ClientJsonRpcMessage)> {
    let params: Value = serde_json::from_str(params).ok()?;
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    Some((
        serde_json::from_value(initialize).ok()?,
        serde_json::from_value(initialized).ok()?,
    ))
}

/// The params of an `initialize` request, as kept for the session: as
/// JSON, cut down to what is needed when over [`MAX_PARAMS_BYTES`].
fn kept_params(message: &ClientJsonRpcMessage) -> Option<Box<str>> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let ClientRequest::InitializeRequest(initialize) = &request.request else {
        return None;
    };
    let full = serde_json::to_string(&initialize.params).ok()?;
    if full.len() <= MAX_PARAMS_BYTES {
        return Some(full.into());
    }
    let info = &initialize.params.client_info;
    let short = json!({
        "protocolVersion": initialize.params.protocol_version,
        "capabilities": {},
        "clientInfo": {"name": info.name, "version": info.version},
    });
    Some(short.to_string().into())
}

/// A request or stream using a session: it stays awake until dropped.
pub(crate) struct Hold {
    manager: Weak<Dormant>,
    id: SessionId,
    /// The worker it holds (see [`Record::generation`]).
    generation: u64,
    /// Whether the stream it came with ran to its end (not cut).
    finished: bool,
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Some(manager) = self.manager.upgrade() {
            manager.release(&self.id, !self.finished);
        }
    }
}

/// An event stream that holds its session awake until dropped.
///
/// rmcp numbers a request's events `N/R`, R counting the worker's requests
/// from 0, so a woken session reuses the R of an earlier worker: those ids
/// get the worker's generation, `N/R.G`, and a resumption from another
/// generation's stream replays nothing rather than another request's events.
struct Held {
    events: BoxedEvents,
    hold: Hold,
}

impl Stream for Held {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = self.events.as_mut().poll_next(cx);
        match next {
            Poll::Ready(None) => self.hold.finished = true,
            Poll::Ready(Some(mut event)) => {
                if let Some(id) = event.event_id.as_mut().filter(|id| id.contains('/')) {
                    *id = format!("{id}.{}", self.hold.generation);
                }
                return Poll::Ready(Some(event));
            }
            Poll::Pending => {}
        }
        next
    }
}

fn held(events: impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, hold: Hold) -> Held {
    Held {
        events: Box::pin(events),
        hold,
    }
}

impl SessionManager for Dormant {
    type Error = Error;
    type Transport = Transport;

    async fn create_session(&self) -> Result<(SessionId, Transport), Error> {
        self.inner.create_session().await
    }

    /// Answers `initialize` on rmcp's first worker, records the session and
    /// puts it to sleep.
    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Error> {
        let params = kept_params(&message);
        let response = self.inner.initialize_session(id, message).await?;
        if let (ServerJsonRpcMessage::Response(_), Some(params)) = (&response, params) {
            self.records.with(|records| {
                let record = records.entry(id.clone()).or_insert(Record {
                    params,
                    state: State::Awake,
                    holds: 0,
                    pinned: false,
                    linger_until: None,
                    recheck: false,
                    generation: 0,
                    first_exit_pending: true,
                });
                self.settle(id, record);
            });
        }
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Error> {
        Ok(self.records.with(|records| records.contains_key(id)))
    }

    /// Ends the session: its client deleted it, or the registry closed it.
    /// rmcp also calls this when a worker it started ends; the end of the
    /// first one, put to sleep after `initialize`, is not an end of the
    /// session.
    async fn close_session(&self, id: &SessionId) -> Result<(), Error> {
        let closing = self.records.with(|records| {
            let record = records.get_mut(id)?;
            if std::mem::take(&mut record.first_exit_pending) {
                return Some(false);
            }
            if let Some(Record {
                state: State::Turning(done),
                ..
            }) = records.remove(id)
            {
                done.notify_waiters();
            }
            Some(true)
        });
        if closing != Some(false) {
            self.inner.close_session(id).await?;
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        let hold = self.hold(id).await?;
        let events = self.inner.create_stream(id, message).await?;
        Ok(held(events, hold))
    }

    /// A notification or response for a session: dropped when it is asleep
    /// (no request of it is in flight, it has sent no request to answer).
    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Error> {
        if !self.records.with(|records| records.contains_key(id)) {
            return Err(Error::SessionNotFound(id.clone()));
        }
        match self.hold_if_awake(id) {
            Some(mut hold) => {
                hold.finished = true;
                self.inner.accept_message(id, message).await
            }
            None => Ok(()),
        }
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        let hold = self.hold(id).await?;
        let events = self.inner.create_standalone_stream(id).await?;
        Ok(held(events, hold))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        let hold = self.hold(id).await?;
        let Some(last_event_id) = of_generation(&last_event_id, hold.generation) else {
            return Ok(held(futures::stream::empty(), hold));
        };
        let events = self.inner.resume(id, last_event_id).await?;
        Ok(held(events, hold))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn initialize(params: Value) -> ClientJsonRpcMessage {
        serde_json::from_value(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}),
        )
        .expect("an initialize request")
    }

    #[test]
    fn kept_params_replay_as_the_same_handshake() {
        let params = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "c", "version": "1"}});
        let kept = kept_params(&initialize(params.clone())).expect("kept");
        let (replayed, initialized) = handshake(&kept).expect("handshake");
        let replayed = serde_json::to_value(replayed).expect("json");
        assert_eq!(replayed["params"]["protocolVersion"], "2025-06-18");
        assert_eq!(replayed["params"]["clientInfo"]["name"], "c");
        let initialized = serde_json::to_value(initialized).expect("json");
        assert_eq!(initialized["method"], "notifications/initialized");
    }

    #[test]
    fn a_request_stream_resumes_only_on_the_worker_it_came_from() {
        assert_eq!(of_generation("4/2.7", 7).as_deref(), Some("4/2"));
        assert_eq!(of_generation("4/2.6", 7), None);
        assert_eq!(of_generation("4/2", 7), None);
        assert_eq!(of_generation("12", 7).as_deref(), Some("12"));
    }

    #[test]
    fn large_params_are_kept_without_their_capabilities() {
        let experimental: serde_json::Map<String, Value> = (0..200)
            .map(|n| (format!("feature-{n}"), json!({"on": true, "level": n})))
            .collect();
        let params = json!({"protocolVersion": "2025-03-26",
                            "capabilities": {"experimental": experimental},
                            "clientInfo": {"name": "big", "version": "2"}});
        let kept = kept_params(&initialize(params)).expect("kept");
        assert!(kept.len() <= MAX_PARAMS_BYTES, "{} bytes", kept.len());
        let kept: Value = serde_json::from_str(&kept).expect("json");
        assert_eq!(kept["protocolVersion"], "2025-03-26");
        assert_eq!(kept["clientInfo"]["name"], "big");
        assert_eq!(kept["capabilities"], json!({}));
    }
}
