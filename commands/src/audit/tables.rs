//! The audit tables (`migrations/*/0029_audit_log.sql`): the leaves of the
//! tree in append order and the signed checkpoints. Both are append-only.

use super::merkle::Hash;
use crate::store::on_pool;
use crate::store::{Backend, StoreError};

/// One leaf as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLeaf {
    /// Its index in the tree (0-based).
    pub index: u64,
    /// The position of its event.
    pub position: i64,
    /// Its leaf hash.
    pub hash: Hash,
}

/// One signed checkpoint as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCheckpoint {
    /// The tree size it commits to.
    pub size: u64,
    /// The root it states (as stored beside the note).
    pub root: Hash,
    /// The signed note.
    pub note: String,
}

fn decode_error(what: &str) -> StoreError {
    StoreError::Database(sqlx::Error::Decode(
        format!("{what} is not 32 bytes").into(),
    ))
}

fn hash(bytes: Vec<u8>, what: &str) -> Result<Hash, StoreError> {
    Hash::try_from(bytes.as_slice()).map_err(|_| decode_error(what))
}

fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// How many leaves the tree has, and the position of the last one (0 when
/// empty).
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn tree_head(backend: &Backend) -> Result<(u64, i64), StoreError> {
    const SQL: &str =
        "SELECT leaf_index, position FROM audit_leaves ORDER BY leaf_index DESC LIMIT 1";
    let row: Option<(i64, i64)> = on_pool!(backend, |pool| sqlx::query_as(SQL)
        .fetch_optional(pool)
        .await?);
    Ok(row.map_or((0, 0), |(index, position)| (to_u64(index) + 1, position)))
}

/// Every stored leaf of index below `size`, in order.
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn leaves(backend: &Backend, size: u64) -> Result<Vec<StoredLeaf>, StoreError> {
    const SQL: &str = "SELECT leaf_index, position, leaf_hash FROM audit_leaves WHERE leaf_index < $1 ORDER BY leaf_index";
    let limit = i64::try_from(size).unwrap_or(i64::MAX);
    let rows: Vec<(i64, i64, Vec<u8>)> = on_pool!(backend, |pool| sqlx::query_as(SQL)
        .bind(limit)
        .fetch_all(pool)
        .await?);
    rows.into_iter()
        .map(|(index, position, bytes)| {
            Ok(StoredLeaf {
                index: to_u64(index),
                position,
                hash: hash(bytes, "a leaf hash")?,
            })
        })
        .collect()
}

/// The leaf hashes of the first `size` leaves, in order.
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn leaf_hashes(backend: &Backend, size: u64) -> Result<Vec<Hash>, StoreError> {
    Ok(leaves(backend, size)
        .await?
        .into_iter()
        .map(|leaf| leaf.hash)
        .collect())
}

/// The leaf of the event at `position`, if the tree covers it.
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn leaf_at_position(
    backend: &Backend,
    position: i64,
) -> Result<Option<StoredLeaf>, StoreError> {
    const SQL: &str =
        "SELECT leaf_index, position, leaf_hash FROM audit_leaves WHERE position = $1";
    let row: Option<(i64, i64, Vec<u8>)> = on_pool!(backend, |pool| sqlx::query_as(SQL)
        .bind(position)
        .fetch_optional(pool)
        .await?);
    row.map(|(index, position, bytes)| {
        Ok(StoredLeaf {
            index: to_u64(index),
            position,
            hash: hash(bytes, "a leaf hash")?,
        })
    })
    .transpose()
}

/// Stores a signed checkpoint (a second one for the same size is ignored).
///
/// # Errors
/// [`StoreError::Database`] when the row cannot be written.
pub async fn insert_checkpoint(
    backend: &Backend,
    size: u64,
    root: &Hash,
    note: &str,
) -> Result<(), StoreError> {
    let tree_size = i64::try_from(size).unwrap_or(i64::MAX);
    match backend {
        Backend::Postgres(pool) => {
            sqlx::query(
                "INSERT INTO audit_checkpoints (tree_size, root_hash, note) VALUES ($1, $2, $3) ON CONFLICT (tree_size) DO NOTHING",
            )
            .bind(tree_size)
            .bind(root.as_slice())
            .bind(note)
            .execute(pool)
            .await?;
        }
        Backend::Sqlite(pool) => {
            sqlx::query(
                "INSERT INTO audit_checkpoints (tree_size, root_hash, note, signed_at) VALUES ($1, $2, $3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) ON CONFLICT (tree_size) DO NOTHING",
            )
            .bind(tree_size)
            .bind(root.as_slice())
            .bind(note)
            .execute(pool)
            .await?;
        }
    }
    Ok(())
}

/// Stored checkpoints: every one (`None`), or the one of tree size `size`.
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn checkpoints(
    backend: &Backend,
    only: Option<u64>,
) -> Result<Vec<StoredCheckpoint>, StoreError> {
    let wanted = only.map_or(-1, |s| i64::try_from(s).unwrap_or(i64::MAX));
    const SQL: &str = "SELECT tree_size, root_hash, note FROM audit_checkpoints WHERE $1 < 0 OR tree_size = $1 ORDER BY tree_size";
    let rows: Vec<(i64, Vec<u8>, String)> = on_pool!(backend, |pool| sqlx::query_as(SQL)
        .bind(wanted)
        .fetch_all(pool)
        .await?);
    rows.into_iter().map(checkpoint).collect()
}

fn checkpoint((size, root, note): (i64, Vec<u8>, String)) -> Result<StoredCheckpoint, StoreError> {
    Ok(StoredCheckpoint {
        size: to_u64(size),
        root: hash(root, "a checkpoint root")?,
        note,
    })
}

/// The latest stored checkpoint (largest tree size).
///
/// # Errors
/// [`StoreError::Database`] when the table cannot be read.
pub async fn latest_checkpoint(backend: &Backend) -> Result<Option<StoredCheckpoint>, StoreError> {
    const SQL: &str =
        "SELECT tree_size, root_hash, note FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1";
    let row: Option<(i64, Vec<u8>, String)> = on_pool!(backend, |pool| sqlx::query_as(SQL)
        .fetch_optional(pool)
        .await?);
    row.map(checkpoint).transpose()
}
