//! Stewards: token hash → steward, for authenticating steward writes. The
//! steward's e-mail is not projected: nothing on the read side exposes it.

use sqlx::{Any, Row, Transaction};

use domain::steward::StewardEvent;

use crate::log::StoredEvent;
use crate::rows::{upsert, Cell, Table};
use crate::sequence::{guard, Guard};
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

/// The stewards table.
pub const TABLE: Table = Table {
    name: "stewards",
    columns: &["id", "name", "token_hash", "status", "version"],
    key: &["id"],
};

/// A steward row with everything the table holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSteward {
    /// Id, name, status.
    pub steward: StewardRow,
    /// SHA-256 of their current token.
    pub token_hash: String,
    /// The last applied sequence.
    pub version: i64,
}

/// The steward after `event`: `None` when it was applied already.
///
/// # Errors
/// Decode or gap errors.
pub fn fold(
    current: Option<&StoredSteward>,
    event: &StoredEvent,
) -> Result<Option<StoredSteward>, ProjectionError> {
    let decoded: StewardEvent = event.decode()?;
    if let Guard::Skip = guard(current.map(|s| s.version), event)? {
        return Ok(None);
    }
    let mut next = match (decoded, current) {
        (
            StewardEvent::StewardEnrolled {
                name, token_hash, ..
            },
            _,
        ) => StoredSteward {
            steward: StewardRow {
                id: event.aggregate_id.clone(),
                name,
                status: "active".into(),
            },
            token_hash,
            version: 0,
        },
        (StewardEvent::StewardSuspended { .. }, Some(current)) => {
            let mut next = current.clone();
            next.steward.status = "suspended".into();
            next
        }
        (StewardEvent::StewardTokenRotated { token_hash }, Some(current)) => StoredSteward {
            token_hash,
            ..current.clone()
        },
        (StewardEvent::StewardForgotten {}, Some(current)) => current.clone(),
        (_, None) => return Err(event.undecodable("a change to a steward never enrolled".into())),
    };
    next.version = event.sequence;
    Ok(Some(next))
}

/// The row's cells in [`TABLE`] order.
pub(crate) fn cells(s: StoredSteward) -> Vec<Cell> {
    vec![
        s.steward.id.into(),
        s.steward.name.into(),
        s.token_hash.into(),
        s.steward.status.into(),
        s.version.into(),
    ]
}

/// Applies one steward event.
///
/// # Errors
/// Decode, gap or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let current =
        sqlx::query("SELECT id, name, token_hash, status, version FROM stewards WHERE id = $1")
            .bind(&event.aggregate_id)
            .fetch_optional(&mut **tx)
            .await?
            .map(|r| -> Result<StoredSteward, sqlx::Error> {
                Ok(StoredSteward {
                    steward: StewardRow {
                        id: r.try_get("id")?,
                        name: r.try_get("name")?,
                        status: r.try_get("status")?,
                    },
                    token_hash: r.try_get("token_hash")?,
                    version: r.try_get("version")?,
                })
            })
            .transpose()?;
    if let Some(next) = fold(current.as_ref(), event)? {
        upsert(tx, &TABLE, cells(next)).await?;
    }
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
