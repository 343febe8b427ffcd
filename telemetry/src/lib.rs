//! basel's logs and traces: where log lines go, in which format and at
//! which levels; the spans exported over OTLP; and the trace context an
//! event carries from the request that recorded it to the projection that
//! applies it, across processes.
//!
//! **Boundary:** no HTTP (the access line and request ids are the web
//! crate's) and no store.
//!
//! - [`init`]: the one subscriber of the `basel` binary: stderr, text (ANSI
//!   colours only on a terminal) or JSON (`BASEL_LOG_FORMAT=json`: every line
//!   one JSON object, lines of libraries that log through the `log` crate
//!   included), filtered by `BASEL_LOG` with the chatty libraries (sqlx, rmcp,
//!   async_nats, hyper, …) at `warn` unless `BASEL_LOG` names them;
//! - [`otlp`]: the spans exported to an OpenTelemetry collector when
//!   `BASEL_OTLP_ENDPOINT` is set (`basel serve`);
//! - [`trace`]: the `traceparent` of a span, and a span continuing one.

pub mod otlp;
pub mod trace;

use std::io::{BufWriter, IsTerminal, Write};
use std::os::fd::AsFd as _;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use clap::ValueEnum;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, the
    /// message and fields at the top level, the current span under `span`).
    Json,
}

/// Libraries kept at `warn` unless `BASEL_LOG` names them: at `info` or
/// `debug` they drown basel's own lines (sqlx logs every statement).
pub const QUIET_LIBRARIES: [&str; 8] = [
    "sqlx",
    "rmcp",
    "async_nats",
    "hyper",
    "hyper_util",
    "h2",
    "tower",
    "reqwest",
];

/// The filter for `BASEL_LOG` (`None`: `info`): the operator's directives,
/// then `<library>=warn` for each quiet library they do not name.
pub fn filter_directives(basel_log: Option<&str>) -> String {
    let own = basel_log
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .unwrap_or("info");
    let mut directives = vec![own.to_owned()];
    for library in QUIET_LIBRARIES {
        let named = own.split(',').any(|directive| {
            let target = directive.split(['=', '[']).next().unwrap_or_default();
            target.trim() == library || target.trim().starts_with(&format!("{library}::"))
        });
        if !named {
            directives.push(format!("{library}=warn"));
        }
    }
    directives.join(",")
}

/// Installs the process's subscriber (stderr, `format`, `BASEL_LOG`), and,
/// with `traces`, the OpenTelemetry layer exporting spans ([`otlp`]).
///
/// Lines go through one buffer ([`Lines`]), written out every
/// [`FLUSH_EVERY`] and when full; the returned guard sends the last spans
/// and writes out the last lines when dropped, so hold it until the process
/// ends.
///
/// # Errors
/// When `BASEL_LOG` is not a valid filter, the exporter cannot be built, or
/// a subscriber is already set.
pub fn init(format: LogFormat, traces: Option<&otlp::Traces>) -> anyhow::Result<Guard> {
    let basel_log = std::env::var("BASEL_LOG").ok();
    let filter = EnvFilter::try_new(filter_directives(basel_log.as_deref())).map_err(|error| {
        anyhow::anyhow!("BASEL_LOG is not a valid log filter ({error}); write e.g. BASEL_LOG=info or BASEL_LOG=debug,sqlx=info")
    })?;
    let lines = Lines::new();
    let writer = lines.clone();
    let fmt = tracing_subscriber::fmt::layer().with_writer(writer);
    let fmt = match format {
        LogFormat::Text => fmt.with_ansi(std::io::stderr().is_terminal()).boxed(),
        LogFormat::Json => {
            // A panic's message would otherwise be the one plain line.
            let lines = lines.clone();
            std::panic::set_hook(Box::new(move |panic| {
                tracing::error!(target: "basel", panic = %panic, "the process panicked");
                lines.flush();
            }));
            fmt.json()
                .flatten_event(true)
                .with_current_span(true)
                .with_span_list(false)
                .boxed()
        }
    };
    let provider = traces.map(otlp::provider).transpose()?;
    tracing_subscriber::registry()
        .with(filter)
        .with(fmt)
        .with(provider.as_ref().map(otlp::layer))
        .try_init()
        .map_err(|error| anyhow::anyhow!("cannot set up logging: {error}"))?;
    if let Some(traces) = traces {
        tracing::info!(otlp.endpoint = %traces.endpoint, basel.role = %traces.role, "spans exported over OTLP/HTTP to {}/v1/traces", traces.endpoint);
    }
    Ok(Guard {
        traces: provider,
        lines,
    })
}

/// What [`init`] set up that must be closed at exit: the span exporter
/// (shut down first, sending what it holds) and the log writer (flushed
/// when dropped, after it).
pub struct Guard {
    traces: Option<SdkTracerProvider>,
    lines: Lines,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(provider) = self.traces.take() {
            if let Err(error) = provider.shutdown() {
                tracing::warn!(error = %error, "the last spans could not be exported");
            }
        }
        self.lines.flush();
    }
}

/// How long a log line may wait in [`Lines`]' buffer before it is written.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);

/// Where the log lines go: stderr through one 64 KiB buffer, which a thread
/// of its own (`basel-log`) writes out every [`FLUSH_EVERY`] (when it holds
/// anything), and which is written out when full and at exit ([`Guard`]).
///
/// A line costs a copy under an uncontended lock. With a write system call
/// per line (synchronous, or `tracing-appender`'s non-blocking writer, which
/// wakes its thread for every line) the default configuration served
/// lookups at 0.72–0.81 of the floor; buffered, at 0.85
/// (`ROUNDS=3 DURATION=8s scripts/bench-http`). A line is never dropped; if
/// the process is killed, the last [`FLUSH_EVERY`] of lines is lost.
///
/// The buffer writes to its own handle on file descriptor 2, not through
/// `std::io::stderr()`: that one takes the standard library's stderr lock,
/// which a command may hold for a while (`basel import` writes its problems
/// through it) while it logs, and the flushing thread, holding this buffer,
/// would wait for it forever.
#[derive(Clone)]
struct Lines(Arc<Mutex<BufWriter<Box<dyn Write + Send>>>>);

impl Lines {
    /// The buffer, and its flushing thread.
    fn new() -> Self {
        let out: Box<dyn Write + Send> = match std::io::stderr().as_fd().try_clone_to_owned() {
            Ok(fd) => Box::new(std::fs::File::from(fd)),
            Err(error) => {
                eprintln!("basel: log lines share the standard error lock: file descriptor 2 could not be duplicated ({error})");
                Box::new(std::io::stderr())
            }
        };
        let lines = Self(Arc::new(Mutex::new(BufWriter::with_capacity(
            64 * 1024,
            out,
        ))));
        let flushing = lines.clone();
        let started = std::thread::Builder::new()
            .name("basel-log".into())
            .spawn(move || loop {
                std::thread::sleep(FLUSH_EVERY);
                flushing.flush();
            });
        if let Err(error) = started {
            eprintln!("basel: log lines are written only when 64 KiB are buffered and at exit: no flushing thread ({error})");
        }
        lines
    }

    fn buffer(&self) -> MutexGuard<'_, BufWriter<Box<dyn Write + Send>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes out what is buffered (nothing when the buffer is empty).
    fn flush(&self) {
        let mut buffer = self.buffer();
        if !buffer.buffer().is_empty() {
            // Nowhere to report a failure to write to stderr.
            let _ = buffer.flush();
        }
    }
}

impl<'a> MakeWriter<'a> for Lines {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line(self.buffer())
    }
}

/// One line being written into [`Lines`]' buffer (it holds the lock).
struct Line<'a>(MutexGuard<'a, BufWriter<Box<dyn Write + Send>>>);

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes)
    }

    /// Lines are written out by the flushing thread, not one by one.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_written_while_another_thread_holds_the_stderr_lock() {
        let lines = Lines::new();
        let held = std::io::stderr().lock();
        let (done, finished) = std::sync::mpsc::channel();
        let writer = lines.clone();
        std::thread::spawn(move || {
            let _ = writer.make_writer().write_all(b"a log line\n");
            writer.flush();
            let _ = done.send(());
        });
        let written = finished.recv_timeout(Duration::from_secs(5));
        drop(held);
        assert!(
            written.is_ok(),
            "flushing the lines waited for the standard error lock"
        );
    }

    #[test]
    fn quiet_libraries_stay_at_warn_unless_named() {
        let default = filter_directives(None);
        assert!(default.starts_with("info,"), "{default}");
        assert!(default.contains("sqlx=warn") && default.contains("rmcp=warn"));
        let debug = filter_directives(Some("debug"));
        assert!(
            debug.starts_with("debug,") && debug.contains("hyper=warn"),
            "{debug}"
        );
        let named = filter_directives(Some("info,sqlx=debug"));
        assert!(!named.contains("sqlx=warn"), "{named}");
        assert!(named.contains("async_nats=warn"), "{named}");
    }
}
