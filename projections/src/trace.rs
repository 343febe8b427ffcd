//! Trace context on the read side: every event a projection applies, live
//! from the events table (`runner`) or from JetStream (`stream`, `fill`),
//! is applied in a `projection.apply` span whose parent is the span of the
//! command that recorded it (the `traceparent` of its metadata), so one
//! trace runs from a REST request to the read table.
//!
//! Spans reach an OpenTelemetry exporter only when the process installed
//! one (`BASEL_OTLP_ENDPOINT`, in `api::telemetry`); without it the parent
//! is not looked up.

use domain::trace::TraceParent;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::log::StoredEvent;

/// The span `projection` applies `event` in, continuing the event's trace.
pub(crate) fn apply_span(projection: &'static str, event: &StoredEvent) -> tracing::Span {
    let span = tracing::info_span!(
        "projection.apply",
        otel.kind = "consumer",
        projection.name = projection,
        event.position = event.position,
        event.r#type = %event.event_type,
        aggregate.r#type = %event.aggregate_type,
    );
    if !span.is_disabled() {
        if let Some(parent) = domain::metadata::traceparent_in(&event.metadata) {
            follow(&span, &parent);
        }
    }
    span
}

/// Makes the (remote) span `parent` names the parent of `span`, which must
/// not have been entered yet. Does nothing without an exporter.
fn follow(span: &tracing::Span, parent: &TraceParent) {
    let (Ok(trace_id), Ok(span_id)) = (
        TraceId::from_hex(parent.trace_id()),
        SpanId::from_hex(parent.parent_id()),
    ) else {
        return;
    };
    let remote = SpanContext::new(
        trace_id,
        span_id,
        TraceFlags::new(parent.flags()),
        true,
        TraceState::default(),
    );
    // An error only says that no OpenTelemetry layer is installed.
    let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(remote));
}
