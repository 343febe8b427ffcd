//! Logging: where lines go, in which format, at which levels, and the access
//! line every listener writes for every request.
//!
//! - [`init`]: the one subscriber of the `basel` binary: stderr, text (ANSI
//!   colours only on a terminal) or JSON (`BASEL_LOG_FORMAT=json`: every line
//!   one JSON object, lines of libraries that log through the `log` crate
//!   included), filtered by `BASEL_LOG` with the chatty libraries (sqlx, rmcp,
//!   async_nats, hyper, …) at `warn` unless `BASEL_LOG` names them;
//! - [`request_id`]: the id of a request (the client's `x-request-id` when it
//!   is a sane one, else a fresh UUID), which the access line, the spans and
//!   the metadata of the events a request records all carry;
//! - [`access`]: the middleware that writes one access line per request
//!   (method, route template, status, latency, bytes, request id; never a
//!   query string, a header value, a key, a token or an address), in the
//!   request's span, which continues the client's W3C `traceparent`;
//! - [`otlp`]: the spans exported to an OpenTelemetry collector when
//!   `BASEL_OTLP_ENDPOINT` is set (`basel serve`).

pub mod access;
pub mod otlp;
pub mod request_id;

use std::io::IsTerminal;

use clap::ValueEnum;
use opentelemetry_sdk::trace::SdkTracerProvider;
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
/// Lines are written by a background thread (`tracing-appender`), so a
/// request's access line costs a copy into a queue rather than a write
/// system call under a lock: with the writes synchronous, the default
/// configuration served lookups at about half the rate it did with access
/// lines off (issue #24). The queue never drops a line (when it is full the
/// logging thread waits); the returned guard sends the last spans and
/// flushes the lines when dropped, so hold it until the process ends.
///
/// # Errors
/// When `BASEL_LOG` is not a valid filter, the exporter cannot be built, or
/// a subscriber is already set.
pub fn init(format: LogFormat, traces: Option<&otlp::Traces>) -> anyhow::Result<Guard> {
    let basel_log = std::env::var("BASEL_LOG").ok();
    let filter = EnvFilter::try_new(filter_directives(basel_log.as_deref())).map_err(|error| {
        anyhow::anyhow!("BASEL_LOG is not a valid log filter ({error}); write e.g. BASEL_LOG=info or BASEL_LOG=debug,sqlx=info")
    })?;
    let (writer, lines) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("basel-log")
        .finish(std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer().with_writer(writer);
    let fmt = match format {
        LogFormat::Text => fmt.with_ansi(std::io::stderr().is_terminal()).boxed(),
        LogFormat::Json => {
            // A panic's message would otherwise be the one plain line.
            std::panic::set_hook(Box::new(|panic| {
                tracing::error!(target: "basel", panic = %panic, "the process panicked");
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
        _lines: lines,
    })
}

/// What [`init`] set up that must be closed at exit: the span exporter
/// (shut down first, sending what it holds) and the log writer (flushed
/// when dropped, after it).
pub struct Guard {
    traces: Option<SdkTracerProvider>,
    _lines: tracing_appender::non_blocking::WorkerGuard,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(provider) = self.traces.take() {
            if let Err(error) = provider.shutdown() {
                tracing::warn!(error = %error, "the last spans could not be exported");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
