//! Events written before addresses were sealed (`ApiKeyIssued` and
//! `StewardEnrolled` at `event_version` 1) hold plaintext addresses. They
//! still decode (the domain's `StoredAddress::Plain`), and they are sealed
//! in place once, at start, so no plaintext address outlives an upgrade.
//!
//! This is the one exception to "events are never changed": erasure has to
//! reach every stored byte, and an event whose address stays in the clear
//! cannot be erased by destroying a key. Only the `email` field changes
//! (plaintext → the sealed object), with `event_version` 2; the rest of the
//! payload, the metadata, sequence and position stay.
//!
//! In server mode the stream holds a copy of each old event. The rewrite
//! marks the event unpublished (`published_at = NULL`) in the same
//! statement, which leaves a hole before events already published: the
//! active relay takes that hole as the sign that the stream holds messages
//! the store no longer does, and rewrites the stream
//! (`crate::relay::Relay::rewrite_stream`). The mark survives a crash, so an
//! interrupted rewrite is done again at the next start.

use serde_json::Value;
use sqlx::Row;

use domain::values::{Email, StoredAddress};

use super::AddressBook;
use crate::store::on_pool;
use crate::store::{Backend, StoreError};

/// An aggregate one of whose events was sealed in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resealed {
    /// `api_key` or `steward`.
    pub aggregate_type: String,
    /// Its id.
    pub aggregate_id: String,
    /// Whether the old event had been published to the JetStream log.
    pub published: bool,
}

/// The event types whose payload carries a person's address, by aggregate.
const WITH_ADDRESS: [(&str, &str); 2] =
    [("api_key", "ApiKeyIssued"), ("steward", "StewardEnrolled")];

/// Seals every plaintext address still stored in an event, in place, and
/// says which aggregates changed. Cheap when there is nothing to do (one
/// indexed read of version-1 events of two types).
///
/// # Errors
/// [`StoreError::Database`] when the store cannot be read or written.
pub async fn seal_plaintext(book: &AddressBook) -> Result<Vec<Resealed>, StoreError> {
    let mut resealed = Vec::new();
    for (aggregate_type, event_type) in WITH_ADDRESS {
        for (position, aggregate_id, payload, published) in
            version_one(book.backend(), aggregate_type, event_type).await?
        {
            let Some(new_payload) = sealed_payload(book, &payload, event_type).await? else {
                continue;
            };
            rewrite(book.backend(), position, &new_payload).await?;
            resealed.push(Resealed {
                aggregate_type: aggregate_type.to_owned(),
                aggregate_id,
                published,
            });
        }
    }
    if !resealed.is_empty() {
        tracing::info!(
            events = resealed.len(),
            "sealed plaintext addresses of events written before sealing"
        );
    }
    Ok(resealed)
}

type Row1 = (i64, String, String, bool);

async fn version_one(
    backend: &Backend,
    aggregate_type: &str,
    event_type: &str,
) -> Result<Vec<Row1>, StoreError> {
    let sql = |payload: &str| {
        format!(
            "SELECT position, aggregate_id, {payload}, published_at IS NOT NULL FROM events \
             WHERE aggregate_type = $1 AND event_type = $2 AND event_version = '1' ORDER BY position"
        )
    };
    let payload = match backend {
        Backend::Postgres(_) => "payload::text",
        Backend::Sqlite(_) => "payload",
    };
    let sql = sql(payload);
    Ok(on_pool!(backend, |pool| {
        sqlx::query(&sql)
            .bind(aggregate_type)
            .bind(event_type)
            .fetch_all(pool)
            .await?
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)))
            .collect::<Result<Vec<Row1>, sqlx::Error>>()?
    }))
}

/// The payload with its plaintext `email` sealed; `None` when it holds none.
async fn sealed_payload(
    book: &AddressBook,
    payload: &str,
    variant: &str,
) -> Result<Option<String>, StoreError> {
    let Ok(mut value) = serde_json::from_str::<Value>(payload) else {
        return Ok(None);
    };
    let Some(field) = value.get_mut(variant).and_then(|v| v.get_mut("email")) else {
        return Ok(None);
    };
    let Some(email) = field.as_str().and_then(|t| Email::parse_stored(t).ok()) else {
        return Ok(None);
    };
    let sealed = StoredAddress::Sealed(book.seal(&email).await?);
    *field = serde_json::to_value(sealed)
        .map_err(|e| StoreError::Database(sqlx::Error::Decode(Box::new(e))))?;
    Ok(Some(value.to_string()))
}

async fn rewrite(backend: &Backend, position: i64, payload: &str) -> Result<(), StoreError> {
    match backend {
        Backend::Postgres(pool) => {
            sqlx::query(
                "UPDATE events SET payload = $1::jsonb, event_version = '2', published_at = NULL WHERE position = $2",
            )
            .bind(payload)
            .bind(position)
            .execute(pool)
            .await?;
        }
        Backend::Sqlite(pool) => {
            sqlx::query("UPDATE events SET payload = $1, event_version = '2', published_at = NULL WHERE position = $2")
                .bind(payload)
                .bind(position)
                .execute(pool)
                .await?;
        }
    }
    Ok(())
}
