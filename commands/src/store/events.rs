//! One stored event as the log carries it ([`Envelope`]): the columns every
//! reader of the events table on the write side selects (the relay, the
//! notary, the audit checks), and the one decoding of such a row, the same
//! on both backends (payload and metadata read as text, then parsed).

use serde_json::Value;
use sqlx::{ColumnIndex, Decode, Row, Type};

use domain::envelope::Envelope;

/// The columns of an event, in [`envelope`]'s order, for a `SELECT`
/// (`{payload}` and `{metadata}` cast to text on either backend).
pub(crate) const COLUMNS: &str = "position, aggregate_type, aggregate_id, sequence, \
    event_type, event_version, CAST(payload AS TEXT) AS payload, \
    CAST(metadata AS TEXT) AS metadata";

/// The event in `row` (selected with [`COLUMNS`]).
///
/// # Errors
/// When a column is missing or of another type.
pub(crate) fn envelope<R>(row: &R) -> Result<Envelope, sqlx::Error>
where
    R: Row,
    for<'c> &'c str: ColumnIndex<R>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(Envelope {
        position: row.try_get("position")?,
        aggregate_type: row.try_get("aggregate_type")?,
        aggregate_id: row.try_get("aggregate_id")?,
        sequence: row.try_get("sequence")?,
        event_type: row.try_get("event_type")?,
        event_version: row.try_get("event_version")?,
        payload: json(row.try_get("payload")?),
        metadata: json(row.try_get("metadata")?),
    })
}

/// Stored JSON text as a value (text that is not JSON stays a string: the
/// tree covers what is stored, whatever it is).
fn json(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_json_stays_a_string() {
        assert_eq!(json("not json".into()), Value::String("not json".into()));
        assert_eq!(json("{\"a\":1}".into()), serde_json::json!({"a": 1}));
    }
}
