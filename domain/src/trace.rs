//! `TraceParent`: a W3C Trace Context `traceparent` value
//! (`00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`), checked for
//! shape.
//!
//! It is how one trace crosses basel's boundaries: a REST request's header,
//! the metadata of the events a command records (key
//! [`crate::metadata::TRACEPARENT`]), the relay's NATS message. Only the
//! text is kept here: building and exporting spans is the edges' business
//! (OpenTelemetry lives in `api`, `commands` and `projections`, never here).
//!
//! A value that is not well formed is never an error anywhere: it is not
//! read (the trace starts afresh), as the W3C recommendation asks.

use std::fmt;

/// A well-formed `traceparent` (version `00` as written; a later version's
/// first four fields are read and the rest dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParent(String);

/// The length of a version-00 value.
const LEN: usize = 55;

impl TraceParent {
    /// Reads a header or metadata value; `None` unless it is well formed:
    /// lowercase hex fields of 2, 32, 16 and 2 characters joined by `-`, a
    /// version other than `ff` (version `00` exactly 55 characters), a trace
    /// id and a parent id that are not all zeros.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let head = text.get(..LEN)?;
        let mut fields = head.split('-');
        let (version, trace_id, parent_id, flags) = (
            fields.next()?,
            fields.next()?,
            fields.next()?,
            fields.next()?,
        );
        let shaped = [(version, 2), (trace_id, 32), (parent_id, 16), (flags, 2)]
            .iter()
            .all(|(field, len)| field.len() == *len && field.bytes().all(lower_hex));
        let later = match version {
            "00" => text.len() == LEN,
            "ff" => false,
            _ => text.len() == LEN || text[LEN..].starts_with('-'),
        };
        let zero = |field: &str| field.bytes().all(|b| b == b'0');
        (shaped && later && !zero(trace_id) && !zero(parent_id))
            .then(|| Self(format!("00-{trace_id}-{parent_id}-{flags}")))
    }

    /// From its parts (hex trace id, hex parent id, flags), when they make a
    /// well-formed value.
    pub fn from_parts(trace_id: &str, parent_id: &str, flags: u8) -> Option<Self> {
        Self::parse(&format!("00-{trace_id}-{parent_id}-{flags:02x}"))
    }

    /// The trace id: 32 lowercase hex characters.
    pub fn trace_id(&self) -> &str {
        &self.0[3..35]
    }

    /// The id of the span it continues: 16 lowercase hex characters.
    pub fn parent_id(&self) -> &str {
        &self.0[36..52]
    }

    /// The trace flags (bit 0: sampled).
    pub fn flags(&self) -> u8 {
        u8::from_str_radix(&self.0[53..55], 16).unwrap_or_default()
    }

    /// The value as written (version `00`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn lower_hex(byte: u8) -> bool {
    byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)
}

impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_well_formed_value_is_read_with_its_parts() {
        let parent = TraceParent::parse(GOOD).expect("well formed");
        assert_eq!(parent.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parent.parent_id(), "00f067aa0ba902b7");
        assert_eq!(parent.flags(), 1);
        assert_eq!(parent.to_string(), GOOD);
        assert_eq!(
            TraceParent::from_parts(parent.trace_id(), parent.parent_id(), 1),
            Some(parent)
        );
        let later = format!("01{}-extra", &GOOD[2..]);
        assert_eq!(
            TraceParent::parse(&later).map(|p| p.to_string()).as_deref(),
            Some(GOOD)
        );
    }

    #[test]
    fn malformed_values_are_not_read() {
        for bad in [
            "",
            "garbage",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more",
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1é",
        ] {
            assert_eq!(TraceParent::parse(bad), None, "{bad}");
        }
    }
}
