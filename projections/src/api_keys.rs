//! API keys: key hash → status, for authenticating requests.

use sqlx::{Any, Transaction};

use domain::api_key::ApiKeyEvent;

use crate::log::StoredEvent;
use crate::{ProjectionError, ReadDb};

/// The projection's name.
pub const NAME: &str = "api_keys";

/// Applies one key event; applying it twice changes nothing.
///
/// # Errors
/// Decode or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    match event.decode::<ApiKeyEvent>()? {
        ApiKeyEvent::ApiKeyIssued {
            generation,
            key_hash,
            ..
        } => {
            sqlx::query(
                "INSERT INTO api_keys (key_hash, key_id, generation, status, issued_at) VALUES ($1, $2, $3, 'active', $4) \
                 ON CONFLICT (key_hash) DO NOTHING",
            )
            .bind(key_hash)
            .bind(&event.aggregate_id)
            .bind(i64::from(generation))
            .bind(event.meta("recorded_at"))
            .execute(&mut **tx)
            .await?;
        }
        ApiKeyEvent::ApiKeyRevoked { generation, .. } => {
            sqlx::query(
                "UPDATE api_keys SET status = 'revoked' WHERE key_id = $1 AND generation = $2",
            )
            .bind(&event.aggregate_id)
            .bind(i64::from(generation))
            .execute(&mut **tx)
            .await?;
        }
        ApiKeyEvent::RegistrationRepeated { .. } => {}
    }
    Ok(())
}

/// Whether `key_hash` (SHA-256 hex of a presented key) is an active key.
/// The lookup is by hash, so the presented key is never compared byte by
/// byte with a stored secret.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn is_active(db: &ReadDb, key_hash: &str) -> Result<bool, ProjectionError> {
    let status: Option<String> =
        sqlx::query_scalar("SELECT status FROM api_keys WHERE key_hash = $1")
            .bind(key_hash)
            .fetch_optional(db)
            .await?;
    Ok(status.as_deref() == Some("active"))
}
