//! Trace context on the read side: every event a projection applies, live
//! from the events table (`runner`) or from JetStream (`stream`, `fill`),
//! is applied in a `projection.apply` span whose parent is the span of the
//! command that recorded it (the `traceparent` of its metadata), so one
//! trace runs from a REST request to the read table.
//!
//! Spans reach an OpenTelemetry exporter only when the process installed
//! one (`BASEL_OTLP_ENDPOINT`, crate `telemetry`); without it the parent
//! is not looked up.

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
            telemetry::trace::follow(&span, &parent);
        }
    }
    span
}
