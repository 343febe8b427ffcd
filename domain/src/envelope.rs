//! The log's wire format: how one stored event travels on JetStream.
//!
//! The relay writes it, projections read it; both go through this type so the
//! format has one definition. It is JSON, readable by auditors with any NATS
//! client, and carries everything the events table holds for the event.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event as published to the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// Its position in the events table (commit order).
    pub position: i64,
    /// `authority`, `api_key` or `steward`.
    pub aggregate_type: String,
    /// The aggregate's id.
    pub aggregate_id: String,
    /// Its sequence within the aggregate (1-based).
    pub sequence: i64,
    /// The event's type, e.g. `VerificationRecorded`.
    pub event_type: String,
    /// The payload's version.
    pub event_version: String,
    /// The event itself.
    pub payload: Value,
    /// `recorded_at`, `actor`, `request_id`, …, `traceparent` when traced.
    pub metadata: Value,
}

impl Envelope {
    /// The JetStream de-duplication id: `<type>:<id>:<sequence>`, the same
    /// whenever the same event is published again.
    pub fn message_id(&self) -> String {
        format!(
            "{}:{}:{}",
            self.aggregate_type, self.aggregate_id, self.sequence
        )
    }

    /// The trace context of the command that recorded it, when its metadata
    /// carries a well-formed one ([`crate::metadata::TRACEPARENT`]).
    pub fn traceparent(&self) -> Option<crate::trace::TraceParent> {
        self.metadata
            .get(crate::metadata::TRACEPARENT)
            .and_then(Value::as_str)
            .and_then(crate::trace::TraceParent::parse)
    }

    /// The subject it is published on: `<prefix>.<aggregate_type>.<aggregate_id>`.
    pub fn subject(&self, prefix: &str) -> String {
        format!("{prefix}.{}.{}", self.aggregate_type, self.aggregate_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_and_subjects_name_type_aggregate_and_sequence() {
        let envelope = Envelope {
            position: 7,
            aggregate_type: "authority".into(),
            aggregate_id: "FR".into(),
            sequence: 3,
            event_type: "VerificationRecorded".into(),
            event_version: "1".into(),
            payload: json!({}),
            metadata: json!({}),
        };
        assert_eq!(envelope.message_id(), "authority:FR:3");
        assert_eq!(
            envelope.subject("basel.events"),
            "basel.events.authority.FR"
        );
        let text = serde_json::to_string(&envelope).unwrap();
        assert_eq!(serde_json::from_str::<Envelope>(&text).unwrap(), envelope);
        assert!(serde_json::from_str::<Envelope>("{\"position\": 1}").is_err());
    }
}
