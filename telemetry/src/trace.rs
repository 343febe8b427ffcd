//! Trace context across processes: the `traceparent` of a span (what the
//! executor stores in an event's metadata, what the relay puts on the NATS
//! message) and a span continuing a stored one (the relay's publish span, a
//! projection's apply span).
//!
//! Spans reach an OpenTelemetry exporter only when the process installed
//! one (`BASEL_OTLP_ENDPOINT`, [`crate::init`]); without it [`of`]
//! finds no context and [`follow`] does nothing, at the cost of a type
//! check per call.

use domain::trace::TraceParent;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The `traceparent` of `span`, when it belongs to a trace OpenTelemetry
/// records (`None` when no exporter is installed or the span is disabled).
pub fn of(span: &tracing::Span) -> Option<TraceParent> {
    let context = span.context();
    let reference = context.span();
    let span_context = reference.span_context();
    if !span_context.is_valid() {
        return None;
    }
    TraceParent::from_parts(
        &format!("{:032x}", span_context.trace_id()),
        &format!("{:016x}", span_context.span_id()),
        span_context.trace_flags().to_u8(),
    )
}

/// The `traceparent` of the current span (see [`of`]).
pub fn current() -> Option<TraceParent> {
    of(&tracing::Span::current())
}

/// Makes the (remote) span `parent` names the parent of `span`, which must
/// not have been entered yet. Does nothing without an exporter.
pub fn follow(span: &tracing::Span, parent: &TraceParent) {
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
