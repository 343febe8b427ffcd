//! The accept loop of both listeners.
//!
//! Each accepted socket first takes a place under two caps: the listener's
//! total and its peer address's share. A socket over either cap gets a short
//! JSON answer (503 `too_many_connections` or 429
//! `too_many_connections_from_peer`, `Connection: close`) and is closed,
//! without a request being read. An admitted socket is served by hyper
//! (HTTP/1.1, as before: the build has no HTTP/2) under a watchdog
//! (`wire::Watchdog`) that closes it when no complete request head arrives
//! within the header timeout (from the connection's start or the end of the
//! previous answer) or no byte moves for the idle timeout; it looks every
//! quarter of the shorter timeout, so a connection goes after between one
//! and 1.25 times its timeout. On shutdown the loop stops accepting and waits for open
//! connections to finish their current requests.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use super::front::Front;
use super::settings::ConnSettings;
use super::wire::{Activity, Answering, Watchdog, Wire};
use axum::extract::ConnectInfo;
use hyper::server::conn::http1::Builder;
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};

/// Refusals being written at once; past it a refused socket is just closed.
const REFUSING: usize = 256;
/// How long a refused client gets to read its answer.
const REFUSAL_GRACE: Duration = Duration::from_secs(1);

/// Serves `front` on `listener` under `limits` until `shutdown` resolves,
/// then drains. Each request carries `ConnectInfo<SocketAddr>` (the peer).
///
/// # Errors
/// Never for a client's doing: accept errors (such as running out of file
/// descriptors) are logged and retried.
pub async fn serve(
    listener: TcpListener,
    front: Front,
    limits: ConnSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let gate = Gate::new(&limits);
    let refusing = Arc::new(Semaphore::new(REFUSING));
    let builder = Arc::new(builder());
    let settings = Arc::new(limits.clone());
    let (stop, stopping) = watch::channel(false);
    let mut errors = super::guard::LogBudget::per_second();
    tokio::pin!(shutdown);
    loop {
        let (socket, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    if errors.allow() {
                        tracing::error!(error = %error, "accept error (retrying)");
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = socket.set_nodelay(true);
        match gate.admit(peer.ip()) {
            Ok(place) => {
                let connection = Connection {
                    builder: builder.clone(),
                    // Each connection its own copy: the reference its
                    // requests take is then counted on this connection's
                    // memory, not on memory every core writes.
                    front: Arc::new(front.clone()),
                    peer,
                    limits: settings.clone(),
                    stopping: stopping.clone(),
                };
                tokio::spawn(async move {
                    connection.run(socket).await;
                    drop(place);
                });
            }
            Err(refusal) => refuse(socket, refusal, &refusing),
        }
    }
    drop(listener);
    let _ = stop.send(true);
    gate.drained().await;
    Ok(())
}

fn builder() -> Builder {
    let mut builder = Builder::new();
    builder
        // The header timeout is the connection watchdog's (`wire::Watchdog`),
        // not hyper's: hyper's allocates and arms a timer for every request.
        .header_read_timeout(None)
        // hyper's default limit, 100 headers, is the guard's
        // (`guard::MAX_HEADERS`); more is hyper's own 431, which the wire
        // gives a JSON body. Setting any limit explicitly makes hyper
        // allocate and fill a header table for every request.
        .keep_alive(true);
    builder
}

/// One admitted connection.
struct Connection {
    builder: Arc<Builder>,
    front: Arc<Front>,
    peer: SocketAddr,
    limits: Arc<ConnSettings>,
    stopping: watch::Receiver<bool>,
}

impl Connection {
    /// Serves the socket until the client leaves, the watchdog closes it
    /// (idle or header timeout), or the server drains (current requests
    /// finish first).
    async fn run(mut self, socket: TcpStream) {
        let activity = Activity::new();
        let io = TokioIo::new(Wire::new(socket, activity.clone()));
        let (front, peer, requests) = (self.front.clone(), self.peer, activity.clone());
        let service = hyper::service::service_fn(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                let answering = requests.answering();
                request.extensions_mut().insert(ConnectInfo(peer));
                let front = front.clone();
                async move {
                    let request = request.map(axum::body::Body::new);
                    let response = front.handle(request).await;
                    Ok::<_, std::convert::Infallible>(response.map(|body| Tracked {
                        body,
                        _answering: answering,
                    }))
                }
            },
        );
        let served = self.builder.serve_connection(io, service).with_upgrades();
        tokio::pin!(served);
        let mut watchdog = Watchdog::new(self.limits.idle_timeout, self.limits.header_timeout);
        let tick = watchdog.tick();
        let timer = tokio::time::sleep(tick);
        tokio::pin!(timer);
        let mut draining = false;
        loop {
            tokio::select! {
                _ = served.as_mut() => return,
                () = timer.as_mut() => {
                    if let Some(why) = watchdog.look(&activity) {
                        tracing::debug!(?why, "connection closed by its watchdog");
                        return;
                    }
                    timer.as_mut().reset(tokio::time::Instant::now() + tick);
                }
                _ = self.stopping.wait_for(|stop| *stop), if !draining => {
                    draining = true;
                    served.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// An answer's body, holding the connection's [`Answering`] until it is
/// sent (or the connection gives it up), so the watchdog counts the header
/// timeout from the end of the answer.
struct Tracked {
    body: axum::body::Body,
    _answering: Answering,
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Why a socket was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The listener holds its maximum of connections.
    Full,
    /// This peer address holds its maximum.
    PeerFull,
}

/// The two caps on open connections.
#[derive(Clone)]
pub struct Gate {
    total: Arc<Semaphore>,
    size: usize,
    per_peer: usize,
    peers: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// A connection's place under both caps, given back when dropped.
pub struct Place {
    _total: OwnedSemaphorePermit,
    peer: IpAddr,
    peers: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Gate {
    /// Caps from `limits`.
    pub fn new(limits: &ConnSettings) -> Self {
        Self {
            total: Arc::new(Semaphore::new(limits.max_connections.max(1))),
            size: limits.max_connections.max(1),
            per_peer: limits.max_connections_per_peer.max(1),
            peers: Arc::default(),
        }
    }

    /// Resolves once every admitted connection has closed.
    pub async fn drained(&self) {
        let all = u32::try_from(self.size).unwrap_or(u32::MAX);
        let _ = self.total.acquire_many(all).await;
    }

    /// A place for one more connection from `peer`, or why there is none.
    ///
    /// # Errors
    /// [`Refusal`] when a cap is reached.
    pub fn admit(&self, peer: IpAddr) -> Result<Place, Refusal> {
        let total = self
            .total
            .clone()
            .try_acquire_owned()
            .map_err(|_| Refusal::Full)?;
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        let held = peers.entry(peer).or_insert(0);
        if *held >= self.per_peer {
            return Err(Refusal::PeerFull);
        }
        *held += 1;
        Ok(Place {
            _total: total,
            peer,
            peers: self.peers.clone(),
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = peers.get_mut(&self.peer) {
            *held -= 1;
            if *held == 0 {
                peers.remove(&self.peer);
            }
        }
    }
}

/// Writes the refusal and closes, in the background; with too many
/// refusals in flight, just closes.
fn refuse(mut socket: TcpStream, refusal: Refusal, refusing: &Arc<Semaphore>) {
    let Ok(permit) = refusing.clone().try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let _permit = permit;
        let answer = refusal_bytes(refusal);
        let _ = tokio::time::timeout(REFUSAL_GRACE, async {
            socket.write_all(&answer).await?;
            socket.shutdown().await?;
            // Let the client read the answer before the close (closing with
            // its request unread would reset the connection).
            let mut sink = [0u8; 1024];
            while tokio::io::AsyncReadExt::read(&mut socket, &mut sink).await? > 0 {}
            Ok::<_, std::io::Error>(())
        })
        .await;
    });
}

/// The whole HTTP/1.1 answer to a refused socket.
pub fn refusal_bytes(refusal: Refusal) -> Vec<u8> {
    let (status, code, message) = match refusal {
        Refusal::Full => (
            "503 Service Unavailable",
            "too_many_connections",
            "The server holds its maximum of open connections; try again shortly.",
        ),
        Refusal::PeerFull => (
            "429 Too Many Requests",
            "too_many_connections_from_peer",
            "Your address holds its maximum of open connections; reuse or close one.",
        ),
    };
    let title = &status[4..];
    let body =
        serde_json::json!({ "error": title.to_lowercase(), "message": message, "code": code })
            .to_string();
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(total: usize, per_peer: usize) -> ConnSettings {
        ConnSettings {
            max_connections: total,
            max_connections_per_peer: per_peer,
            ..ConnSettings::default()
        }
    }

    #[test]
    fn a_peer_gets_its_share_and_gets_it_back_when_a_connection_closes() {
        let gate = Gate::new(&limits(10, 2));
        let a: IpAddr = [127, 0, 0, 1].into();
        let b: IpAddr = [127, 0, 0, 2].into();
        let first = gate.admit(a).unwrap();
        let _second = gate.admit(a).unwrap();
        assert_eq!(gate.admit(a).err(), Some(Refusal::PeerFull));
        assert!(gate.admit(b).is_ok(), "another peer is not affected");
        drop(first);
        assert!(gate.admit(a).is_ok());
    }

    #[test]
    fn the_total_cap_holds_across_peers() {
        let gate = Gate::new(&limits(2, 5));
        let _a = gate.admit([127, 0, 0, 1].into()).unwrap();
        let _b = gate.admit([127, 0, 0, 2].into()).unwrap();
        assert_eq!(gate.admit([127, 0, 0, 3].into()).err(), Some(Refusal::Full));
    }

    #[test]
    fn refusals_are_complete_json_answers() {
        let text = String::from_utf8(refusal_bytes(Refusal::PeerFull)).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 429 "));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["code"], "too_many_connections_from_peer");
    }
}
