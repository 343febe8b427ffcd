//! Traces over OTLP: with `BASEL_OTLP_ENDPOINT` set, a
//! `basel serve` process exports its spans to an OpenTelemetry collector;
//! unset, no exporter, no layer, no cost.
//!
//! - Protocol: OTLP/HTTP with protobuf bodies, `POST <endpoint>/v1/traces`
//!   (what collectors listen for on port 4318), from a batch processor on a
//!   thread of its own (a blocking HTTP client: no request waits for an
//!   export). Plain `http://` only: basel holds no TLS client for it, so a
//!   collector on the host or its network forwards further (an `https://`
//!   endpoint is refused at start rather than failing every export).
//! - Resource: `service.name = basel`, `service.version`, `basel.role` (the
//!   process's `--role` list, e.g. `relay,projector`).
//! - Which spans: those `BASEL_LOG` lets through (the same filter as log
//!   lines): `request` (every request, its parent the client's
//!   `traceparent`), `command`, `relay.publish`, `projection.apply`, with
//!   the log events inside them. Their fields are the log lines' own, which
//!   never carry a key, a token or an address.
//! - The SDK's own variables still apply: `OTEL_EXPORTER_OTLP_HEADERS`
//!   (e.g. a collector's API key), `OTEL_EXPORTER_OTLP_TIMEOUT`,
//!   `OTEL_BSP_SCHEDULE_DELAY` and the other batch settings.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

/// What a process exports its spans to, and as whom.
#[derive(Debug, Clone)]
pub struct Traces {
    /// The collector's base URL (`http://collector:4318`), as
    /// [`parse_endpoint`] accepted it.
    pub endpoint: String,
    /// The process's roles, e.g. `all` or `relay,projector`.
    pub role: String,
}

/// `BASEL_OTLP_ENDPOINT`: an `http://` URL with a host; a trailing `/` or
/// `/v1/traces` is dropped (the exporter adds the path).
///
/// # Errors
/// A sentence naming the setting when it is not such a URL.
pub fn parse_endpoint(text: &str) -> Result<String, String> {
    let text = text.trim().trim_end_matches('/');
    let base = text.strip_suffix("/v1/traces").unwrap_or(text);
    if base.starts_with("https://") {
        return Err("BASEL_OTLP_ENDPOINT must be http:// (basel exports OTLP/HTTP without TLS; run a collector beside it that forwards over TLS)".into());
    }
    let host = base.strip_prefix("http://").unwrap_or_default();
    if host.is_empty() || host.contains(['?', '#', ' ', '@']) || base.parse::<http::Uri>().is_err()
    {
        return Err(
            "BASEL_OTLP_ENDPOINT must be a collector's URL, e.g. http://127.0.0.1:4318".into(),
        );
    }
    Ok(base.to_owned())
}

/// Whether this process exports spans (a provider was built).
static EXPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this process exports spans over OTLP: the request span then
/// carries what a collector needs (`otel.kind`, `listener`), which log
/// lines alone do not.
pub fn exporting() -> bool {
    EXPORTING.load(std::sync::atomic::Ordering::Relaxed)
}

/// The tracer provider exporting to `traces.endpoint`; shut it down at exit
/// so the last spans are sent.
///
/// # Errors
/// When the exporter cannot be built.
pub fn provider(traces: &Traces) -> anyhow::Result<SdkTracerProvider> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .with_endpoint(format!("{}/v1/traces", traces.endpoint))
        .build()
        .map_err(|error| anyhow::anyhow!("cannot export traces to BASEL_OTLP_ENDPOINT: {error}"))?;
    let resource = Resource::builder()
        .with_service_name("basel")
        .with_attributes([
            KeyValue::new("service.version", env!("CARGO_PKG_VERSION")),
            KeyValue::new("basel.role", traces.role.clone()),
        ])
        .build();
    EXPORTING.store(true, std::sync::atomic::Ordering::Relaxed);
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build())
}

/// The layer that turns `tracing` spans into OpenTelemetry spans of
/// `provider`.
pub fn layer<S>(provider: &SdkTracerProvider) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("basel"))
        .with_tracked_inactivity(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_an_http_base_url() {
        assert_eq!(
            parse_endpoint("http://127.0.0.1:4318/").as_deref(),
            Ok("http://127.0.0.1:4318")
        );
        assert_eq!(
            parse_endpoint("http://collector:4318/v1/traces").as_deref(),
            Ok("http://collector:4318")
        );
        for bad in [
            "",
            "collector:4318",
            "https://collector:4318",
            "http://",
            "http://a b",
            "http://user:pw@host",
        ] {
            assert!(parse_endpoint(bad).is_err(), "{bad}");
        }
    }
}
