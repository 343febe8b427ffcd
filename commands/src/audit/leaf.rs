//! The bytes a leaf of the tree stands for: one event as stored.
//!
//! A leaf's bytes are the event's [`Envelope`] as compact JSON, exactly the
//! body of its JetStream message (`crate::relay` publishes these bytes), so
//! the stream is checked against the same hashes. They are recomputable from
//! the stored row alone: position, aggregate type and id, sequence, event type
//! and version, payload and metadata (a sealed address is its ciphertext, so
//! destroying a key changes no leaf). `published_at` is not part of them.
//!
//! A payload or metadata that is not JSON any more (a row edited by hand in
//! SQLite) is taken as the JSON string of its text: its leaf then differs
//! and verification names the row, instead of failing to read it.

use domain::envelope::Envelope;

use super::merkle::{leaf_hash, Hash};
use crate::store::events::{envelope, COLUMNS};
use crate::store::{on_pool, Backend, StoreError};

/// The canonical bytes of `envelope`: its compact JSON.
pub fn leaf_bytes(envelope: &Envelope) -> Vec<u8> {
    // Serialising strings, integers and JSON values cannot fail.
    serde_json::to_vec(envelope).unwrap_or_default()
}

/// The leaf hash of `envelope`: `SHA-256(0x00 || leaf_bytes)`.
pub fn hash_of(envelope: &Envelope) -> Hash {
    leaf_hash(&leaf_bytes(envelope))
}

/// The stored events after `after` (a position), in position order, at most
/// `limit` of them.
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn read_after(
    backend: &Backend,
    after: i64,
    limit: i64,
) -> Result<Vec<Envelope>, StoreError> {
    let sql =
        format!("SELECT {COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2");
    Ok(on_pool!(backend, |pool| {
        sqlx::query(&sql)
            .bind(after)
            .bind(limit)
            .fetch_all(pool)
            .await?
            .iter()
            .map(envelope)
            .collect::<Result<Vec<_>, sqlx::Error>>()?
    }))
}

/// The event at `position`, if stored.
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn read_at(backend: &Backend, position: i64) -> Result<Option<Envelope>, StoreError> {
    let mut events = read_after(backend, position - 1, 1).await?;
    Ok(events.pop().filter(|e| e.position == position))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn leaf_bytes_are_the_envelope_as_compact_json() {
        let envelope = Envelope {
            position: 7,
            aggregate_type: "authority".into(),
            aggregate_id: "FR".into(),
            sequence: 3,
            event_type: "VerificationRecorded".into(),
            event_version: "1".into(),
            payload: json!({"b": 1, "a": [true, null]}),
            metadata: json!({"actor": "system:seed"}),
        };
        let text = String::from_utf8(leaf_bytes(&envelope)).expect("utf-8");
        assert!(
            text.starts_with(r#"{"position":7,"aggregate_type":"authority""#),
            "{text}"
        );
        assert_eq!(hash_of(&envelope), leaf_hash(text.as_bytes()));
    }
}
