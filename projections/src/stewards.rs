//! Stewards: token hash → steward, for authenticating steward writes. The
//! steward's e-mail is not projected: nothing on the read side exposes it.

use sqlx::{Any, Row, Transaction};

use domain::steward::StewardEvent;

use crate::directory::{guard, Guard};
use crate::log::StoredEvent;
use crate::{ProjectionError, ReadDb};

/// The projection's name.
pub const NAME: &str = "stewards";

/// A steward as the read side knows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StewardRow {
    /// Their id.
    pub id: String,
    /// Their name.
    pub name: String,
    /// `active` or `suspended`.
    pub status: String,
}

/// Applies one steward event.
///
/// # Errors
/// Decode, gap or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let decoded: StewardEvent = event.decode()?;
    let version: Option<i64> = sqlx::query_scalar("SELECT version FROM stewards WHERE id = $1")
        .bind(&event.aggregate_id)
        .fetch_optional(&mut **tx)
        .await?;
    if let Guard::Skip = guard(version, event)? {
        return Ok(());
    }
    let query = match &decoded {
        StewardEvent::StewardEnrolled { name, token_hash, .. } => sqlx::query(
            "INSERT INTO stewards (id, name, token_hash, status, version) VALUES ($1, $2, $3, 'active', $4)",
        )
        .bind(&event.aggregate_id)
        .bind(name)
        .bind(token_hash)
        .bind(event.sequence),
        StewardEvent::StewardSuspended { .. } => {
            sqlx::query("UPDATE stewards SET status = 'suspended', version = $1 WHERE id = $2").bind(event.sequence).bind(&event.aggregate_id)
        }
        StewardEvent::StewardTokenRotated { token_hash } => sqlx::query("UPDATE stewards SET token_hash = $1, version = $2 WHERE id = $3")
            .bind(token_hash)
            .bind(event.sequence)
            .bind(&event.aggregate_id),
    };
    query.execute(&mut **tx).await?;
    Ok(())
}

/// The steward holding the token with this hash.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn by_token_hash(
    db: &ReadDb,
    token_hash: &str,
) -> Result<Option<StewardRow>, ProjectionError> {
    find(db, "token_hash", token_hash).await
}

/// The steward with this id.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn by_id(db: &ReadDb, id: &str) -> Result<Option<StewardRow>, ProjectionError> {
    find(db, "id", id).await
}

/// One steward by a unique column (`id` or `token_hash`, never user input).
async fn find(
    db: &ReadDb,
    column: &str,
    value: &str,
) -> Result<Option<StewardRow>, ProjectionError> {
    let sql = format!("SELECT id, name, status FROM stewards WHERE {column} = $1");
    let row = sqlx::query(&sql).bind(value).fetch_optional(db).await?;
    row.map(|r| {
        Ok(StewardRow {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
            status: r.try_get("status")?,
        })
    })
    .transpose()
}
