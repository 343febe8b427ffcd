//! API keys: key hash → status, for authenticating requests.

use sqlx::{Any, Row, Transaction};

use domain::api_key::ApiKeyEvent;

use crate::log::StoredEvent;
use crate::rows::{upsert, Cell, Table};
use crate::sequence::{guard, Guard};
use crate::{ProjectionError, ReadDb};

/// The projection's name.
pub const NAME: &str = "api_keys";

/// The api_keys table.
pub const TABLE: Table = Table {
    name: "api_keys",
    columns: &["key_hash", "key_id", "generation", "status", "issued_at"],
    key: &["key_hash"],
};

/// The per-aggregate versions this projection keeps (`projection_versions`).
pub const VERSIONS: Table = Table {
    name: "projection_versions",
    columns: &["projection", "aggregate_id", "version"],
    key: &["projection", "aggregate_id"],
};

/// One key generation as the table holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    /// SHA-256 hex of the key.
    pub key_hash: String,
    /// The key's aggregate id (keyed hash of the e-mail).
    pub key_id: String,
    /// Which generation of the address's key.
    pub generation: i64,
    /// `active` or `revoked`.
    pub status: String,
    /// When it was issued (RFC 3339).
    pub issued_at: String,
}

/// Applies `event` to the rows of its key (every generation): returns whether
/// it was new (false for a duplicate).
///
/// # Errors
/// Decode or gap errors.
pub fn fold(
    version: Option<i64>,
    rows: &mut Vec<KeyRow>,
    event: &StoredEvent,
) -> Result<bool, ProjectionError> {
    let decoded: ApiKeyEvent = event.decode()?;
    if let Guard::Skip = guard(version, event)? {
        return Ok(false);
    }
    match decoded {
        ApiKeyEvent::ApiKeyIssued {
            generation,
            key_hash,
            ..
        } => {
            if !rows.iter().any(|r| r.key_hash == key_hash) {
                rows.push(KeyRow {
                    key_hash,
                    key_id: event.aggregate_id.clone(),
                    generation: i64::from(generation),
                    status: "active".into(),
                    issued_at: event.meta("recorded_at"),
                });
            }
        }
        ApiKeyEvent::ApiKeyRevoked { generation, .. } => {
            for row in rows.iter_mut() {
                if row.generation == i64::from(generation) {
                    row.status = "revoked".into();
                }
            }
        }
        ApiKeyEvent::RegistrationRepeated { .. }
        | ApiKeyEvent::RegistrantForgotten {}
        | ApiKeyEvent::KeyMailRequested { .. }
        | ApiKeyEvent::NoticesUnsubscribed => {}
    }
    Ok(true)
}

/// The row's cells in [`TABLE`] order.
pub(crate) fn cells(row: KeyRow) -> Vec<Cell> {
    vec![
        row.key_hash.into(),
        row.key_id.into(),
        row.generation.into(),
        row.status.into(),
        row.issued_at.into(),
    ]
}

/// Applies one key event; applying it twice changes nothing.
///
/// # Errors
/// Decode, gap or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let version: Option<i64> = sqlx::query_scalar(
        "SELECT version FROM projection_versions WHERE projection = $1 AND aggregate_id = $2",
    )
    .bind(NAME)
    .bind(&event.aggregate_id)
    .fetch_optional(&mut **tx)
    .await?;
    let mut rows = sqlx::query(
        "SELECT key_hash, key_id, generation, status, issued_at FROM api_keys WHERE key_id = $1",
    )
    .bind(&event.aggregate_id)
    .fetch_all(&mut **tx)
    .await?
    .iter()
    .map(|r| -> Result<KeyRow, sqlx::Error> {
        Ok(KeyRow {
            key_hash: r.try_get("key_hash")?,
            key_id: r.try_get("key_id")?,
            generation: r.try_get("generation")?,
            status: r.try_get("status")?,
            issued_at: r.try_get("issued_at")?,
        })
    })
    .collect::<Result<Vec<_>, _>>()?;
    let before = rows.clone();
    if !fold(version, &mut rows, event)? {
        return Ok(());
    }
    for row in rows {
        if !before.contains(&row) {
            upsert(tx, &TABLE, cells(row)).await?;
        }
    }
    upsert(
        tx,
        &VERSIONS,
        vec![
            NAME.into(),
            event.aggregate_id.clone().into(),
            event.sequence.into(),
        ],
    )
    .await?;
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

/// The active key of the address whose aggregate id is `key_id`: its
/// generation and hash. One indexed read whatever the address's history, so
/// a repeat registration is answered in constant time.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn active_key(
    db: &ReadDb,
    key_id: &str,
) -> Result<Option<(i64, String)>, ProjectionError> {
    let row = sqlx::query(
        "SELECT generation, key_hash FROM api_keys WHERE key_id = $1 AND status = 'active' \
         ORDER BY generation DESC LIMIT 1",
    )
    .bind(key_id)
    .fetch_optional(db)
    .await?;
    row.map(|r| Ok((r.try_get("generation")?, r.try_get("key_hash")?)))
        .transpose()
}
