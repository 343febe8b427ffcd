//! The socket under hyper: it records that bytes moved (for the idle
//! timeout) and gives hyper's own error answers a JSON body; and the
//! connection's watchdog, which closes it after the idle or the header
//! timeout.
//!
//! hyper answers a request it cannot parse (a malformed request line or
//! header: 400; a URI over 64 KiB: 414; a head over its buffer: 431) by
//! itself, before any route or middleware runs, with an empty body. Every
//! answer basel's routes give carries a body, so an HTTP/1 error head with
//! `content-length: 0` written in one piece can only be one of those; the
//! wrapper rewrites it into the same head with a JSON body
//! (`{error, message, code}`).

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// What happened on a connection, as its watchdog ([`Watchdog`]) needs to
/// know it: whether bytes moved (a flag set on every read and write, no
/// clock read on the data path), how many request heads arrived, and how
/// many answers are done (their body sent, or given up).
#[derive(Clone, Default)]
pub struct Activity {
    counts: Arc<Counts>,
}

#[derive(Default)]
struct Counts {
    moved: AtomicBool,
    heads: AtomicU32,
    answered: AtomicU32,
}

impl Activity {
    /// Nothing has happened yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn touch(&self) {
        self.counts.moved.store(true, Ordering::Relaxed);
    }

    /// Whether anything moved since the last call, clearing the flag.
    pub fn take(&self) -> bool {
        self.counts.moved.swap(false, Ordering::Relaxed)
    }

    /// A request head arrived (hyper handed its request to the service): the
    /// answer is in progress until the returned guard is dropped, which the
    /// connection does when the answer's body is sent or abandoned.
    pub fn answering(&self) -> Answering {
        self.counts.heads.fetch_add(1, Ordering::Relaxed);
        Answering {
            activity: self.clone(),
        }
    }

    /// (request heads arrived, answers done).
    fn requests(&self) -> (u32, u32) {
        (
            self.counts.heads.load(Ordering::Relaxed),
            self.counts.answered.load(Ordering::Relaxed),
        )
    }
}

/// An answer in progress on a connection (see [`Activity::answering`]).
pub struct Answering {
    activity: Activity,
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.activity
            .counts
            .answered
            .fetch_add(1, Ordering::Relaxed);
    }
}

/// Why the watchdog closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// No byte moved either way for the idle timeout.
    Idle,
    /// No complete request head arrived within the header timeout of the
    /// connection's start or of the end of the previous answer.
    HeaderTimeout,
}

/// A connection's two timeouts, decided by looking at its [`Activity`] at
/// a fixed tick (a quarter of the shorter timeout) rather than by a timer
/// per request: hyper's own header-read timeout allocated, armed and
/// cancelled a timer for every request. A connection is closed after
/// between one and 1.25 times a timeout.
pub struct Watchdog {
    tick: Duration,
    idle_ticks: u32,
    header_ticks: u32,
    /// Ticks in a row with no byte moved.
    quiet: u32,
    /// Ticks in a row with no answer in progress and no request arriving or
    /// finishing.
    waiting: u32,
    /// The request counts at the previous tick.
    seen: (u32, u32),
}

/// Looks per timeout: the tick is a quarter of the shorter one.
const TICKS_PER_TIMEOUT: u32 = 4;

impl Watchdog {
    /// The watchdog of a connection with these timeouts.
    pub fn new(idle: Duration, header: Duration) -> Self {
        let tick = (idle.min(header) / TICKS_PER_TIMEOUT).max(Duration::from_millis(1));
        let ticks = |timeout: Duration| {
            u32::try_from(timeout.as_nanos().div_ceil(tick.as_nanos())).unwrap_or(u32::MAX)
        };
        Self {
            tick,
            idle_ticks: ticks(idle).max(1),
            header_ticks: ticks(header).max(1),
            quiet: 0,
            waiting: 0,
            seen: (0, 0),
        }
    }

    /// Time between two looks.
    pub fn tick(&self) -> Duration {
        self.tick
    }

    /// One look, a tick after the previous one (or the connection's start):
    /// whether to close the connection now, and why.
    pub fn look(&mut self, activity: &Activity) -> Option<Closing> {
        self.quiet = if activity.take() { 0 } else { self.quiet + 1 };
        let now = activity.requests();
        let answering = now.0 != now.1;
        // A request that arrived or finished since the last look restarts the
        // wait for the next head at this look (not earlier: never less than
        // the header timeout after the end of an answer).
        self.waiting = if answering || now != self.seen {
            0
        } else {
            self.waiting + 1
        };
        self.seen = now;
        if self.quiet >= self.idle_ticks {
            Some(Closing::Idle)
        } else if self.waiting >= self.header_ticks {
            Some(Closing::HeaderTimeout)
        } else {
            None
        }
    }
}

/// A socket that records activity and rewrites hyper's bodiless error heads.
pub struct Wire<T> {
    inner: T,
    activity: Activity,
    /// A rewritten answer still to be written.
    pending: Vec<u8>,
}

impl<T> Wire<T> {
    /// Wraps `inner`.
    pub fn new(inner: T, activity: Activity) -> Self {
        Self {
            inner,
            activity,
            pending: Vec::new(),
        }
    }
}

impl<T: AsyncWrite + Unpin> Wire<T> {
    /// Writes what is pending; ready when nothing is.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            match Pin::new(&mut self.inner).poll_write(cx, &self.pending) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    self.pending.drain(..n);
                    self.activity.touch();
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Wire<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Wire<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.poll_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        if let Some(rewritten) = with_json_body(buf) {
            this.pending = rewritten;
            // Written on this call if the socket takes it, else on flush.
            let _ = this.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        let written = Pin::new(&mut this.inner).poll_write(cx, buf);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.touch();
        }
        written
    }

    /// hyper writes a head and its body in one `writev` when the socket
    /// can; a head alone (its own error answers have no body) is one
    /// non-empty slice and gets the same rewrite as in [`Self::poll_write`].
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.poll_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        let mut filled = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next()) {
            if let Some(rewritten) = with_json_body(only) {
                this.pending = rewritten;
                let _ = this.poll_pending(cx)?;
                return Poll::Ready(Ok(only.len()));
            }
        }
        let written = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            this.activity.touch();
        }
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.poll_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.poll_pending(cx)?.is_pending() {
            return Poll::Pending;
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// `head` with a JSON body, when it is a whole HTTP/1 4xx head with
/// `content-length: 0` and no content type (hyper's own error answers).
pub fn with_json_body(head: &[u8]) -> Option<Vec<u8>> {
    const EMPTY: &[u8] = b"\r\ncontent-length: 0\r\n";
    let is_error =
        head.len() > 12 && (head.starts_with(b"HTTP/1.1 4") || head.starts_with(b"HTTP/1.0 4"));
    if !is_error || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let text = std::str::from_utf8(head).ok()?;
    let lower = text.to_ascii_lowercase();
    if lower.contains("\r\ncontent-type:") || lower.matches("\r\n\r\n").count() != 1 {
        return None;
    }
    let at = lower.find(std::str::from_utf8(EMPTY).ok()?)?;
    let status: u16 = text.get(9..12)?.parse().ok()?;
    let (code, message) = match status {
        414 => ("uri_too_long", "The request URI is too long."),
        431 => ("headers_too_large", "The request headers are too large."),
        _ => (
            "bad_request",
            "The request is not valid HTTP/1.1 (request line or a header could not be parsed).",
        ),
    };
    let title = axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("error")
        .to_lowercase();
    let body = serde_json::json!({ "error": title, "message": message, "code": code }).to_string();
    let mut out = String::with_capacity(head.len() + body.len() + 80);
    out.push_str(&text[..at]);
    out.push_str(&format!(
        "\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\ncontent-length: {}\r\n",
        body.len()
    ));
    out.push_str(&text[at + EMPTY.len()..]);
    out.push_str(&body);
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bodiless_error_head_gets_a_json_body() {
        let head = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(with_json_body(head).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.contains("content-type: application/json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(head.contains("connection: close"));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["code"], "headers_too_large");
    }

    #[test]
    fn answers_with_a_body_or_a_success_are_left_alone() {
        assert!(with_json_body(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
        assert!(with_json_body(
            b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
        )
        .is_none());
        assert!(
            with_json_body(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 10\r\n\r\n").is_none()
        );
    }

    /// Looks until the watchdog closes (at most `limit`), `between` run
    /// before each look; the number of the closing look and why.
    fn looks_until_closed(
        dog: &mut Watchdog,
        activity: &Activity,
        limit: u32,
        mut between: impl FnMut(u32),
    ) -> Option<(u32, Closing)> {
        (1..=limit).find_map(|n| {
            between(n);
            dog.look(activity).map(|why| (n, why))
        })
    }

    #[test]
    fn a_head_that_never_completes_is_closed_after_the_header_timeout_even_if_bytes_trickle() {
        let mut dog = Watchdog::new(Duration::from_secs(60), Duration::from_secs(10));
        assert_eq!(dog.tick(), Duration::from_millis(2500));
        let activity = Activity::new();
        let closed = looks_until_closed(&mut dog, &activity, 100, |_| activity.touch());
        assert_eq!(closed, Some((4, Closing::HeaderTimeout)), "4 ticks = 10 s");
    }

    #[test]
    fn the_header_timeout_counts_from_the_end_of_the_previous_answer() {
        let mut dog = Watchdog::new(Duration::from_secs(60), Duration::from_secs(10));
        let activity = Activity::new();
        let mut answer = None;
        let closed = looks_until_closed(&mut dog, &activity, 100, |n| {
            activity.touch();
            match n {
                2 => answer = Some(activity.answering()),
                // A long answer (an event stream) is never cut by it.
                20 => answer = None,
                _ => {}
            }
        });
        drop(answer);
        // The answer ended between looks 19 and 20: look 20 restarts the
        // wait, four more complete it (between 10 and 12.5 s after the end).
        assert_eq!(closed, Some((24, Closing::HeaderTimeout)));
    }

    #[test]
    fn requests_that_keep_coming_keep_the_connection_and_silence_closes_it() {
        let mut dog = Watchdog::new(Duration::from_secs(60), Duration::from_secs(10));
        let activity = Activity::new();
        let closed = looks_until_closed(&mut dog, &activity, 100, |_| {
            activity.touch();
            drop(activity.answering());
        });
        assert_eq!(closed, None, "one request a tick, 100 ticks");
        let _answer = activity.answering();
        let closed = looks_until_closed(&mut dog, &activity, 100, |_| {});
        assert_eq!(
            closed,
            Some((24, Closing::Idle)),
            "nothing moves during an answer: 24 ticks of 2.5 s = 60 s"
        );
    }
}
