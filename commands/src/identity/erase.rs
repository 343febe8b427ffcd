//! `basel forget EMAIL`: erase a person from every place basel keeps them.
//!
//! 1. Seal any plaintext address still stored ([`super::legacy`]).
//! 2. Forget the registrant: the `api_key` aggregate revokes the active key
//!    and records `RegistrantForgotten` (no address in either event).
//! 3. Forget every steward enrolled with the address: suspended, and
//!    `StewardForgotten` recorded; their id and name stay in history.
//! 4. Destroy the person's subject keys: every sealed copy of the address,
//!    in the events table and in every JetStream message, opens no more.
//! 5. Embedded mode: rewrite the SQLite file so no freed page or WAL frame
//!    keeps old bytes (checkpoint, `VACUUM`, checkpoint with `TRUNCATE`).

use std::time::Duration;

use domain::api_key::{ApiKey, ApiKeyCommand, ApiKeyError};
use domain::metadata::Metadata;
use domain::steward::{Steward, StewardCommand, StewardError};
use domain::values::Email;
use sqlx::Row;

use super::legacy::{seal_plaintext, Resealed};
use super::AddressBook;
use crate::executor::Executor;
use crate::secrets::ServerSecret;
use crate::store::{Backend, StoreError};
use crate::CommandError;

/// What forgetting a person did.
#[derive(Debug, Default)]
pub struct Erasure {
    /// Whether a registration was forgotten (its key revoked if active).
    pub registrant: bool,
    /// The ids of the stewards forgotten.
    pub stewards: Vec<String>,
    /// How many subject keys were destroyed.
    pub keys_destroyed: u64,
    /// The log position of the registrant's last new event (0 when none):
    /// what the `api_keys` projection must reach.
    pub api_key_position: i64,
    /// The log position of the last steward event written (0 when none):
    /// what the `stewards` projection must reach.
    pub steward_position: i64,
    /// Aggregates whose old plaintext events were sealed on the way.
    pub resealed: Vec<Resealed>,
}

/// Why forgetting failed.
#[derive(Debug, thiserror::Error)]
pub enum EraseError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A command could not be committed.
    #[error("{0}")]
    Command(String),
    /// The SQLite file could not be compacted (another process kept reading).
    #[error("the address is erased, but the database file could not be compacted: {0}; run `basel forget` again when the service is idle")]
    Compact(String),
}

fn command_error<E: std::error::Error>(error: CommandError<E>) -> EraseError {
    EraseError::Command(error.to_string())
}

/// Forgets the person with address `email` (see the module documentation).
/// Forgetting someone basel never knew does nothing and succeeds.
///
/// # Errors
/// [`EraseError`] when the store fails; steps already done stay done, and
/// running it again completes the rest.
pub async fn forget(
    book: &AddressBook,
    secret: &ServerSecret,
    email: &Email,
    metadata: &Metadata,
) -> Result<Erasure, EraseError> {
    let backend = book.backend();
    let mut erasure = Erasure {
        resealed: seal_plaintext(book).await?,
        ..Erasure::default()
    };
    let keys = Executor::<ApiKey>::new(backend);
    match keys
        .execute(
            &secret.api_key_id(&email.normalized()),
            &ApiKeyCommand::Forget,
            metadata,
        )
        .await
    {
        Ok(committed) => {
            erasure.registrant = true;
            erasure.api_key_position = committed.position;
        }
        Err(CommandError::Rejected(ApiKeyError::NothingToForget)) => {}
        Err(other) => return Err(command_error(other)),
    }
    let stewards = Executor::<Steward>::new(backend);
    for id in book.stewards_with(email).await? {
        match stewards
            .execute(&id, &StewardCommand::Forget, metadata)
            .await
        {
            Ok(committed) => {
                erasure.steward_position = erasure.steward_position.max(committed.position);
            }
            Err(CommandError::Rejected(StewardError::AlreadyForgotten)) => {}
            Err(other) => return Err(command_error(other)),
        }
        erasure.stewards.push(id);
    }
    erasure.keys_destroyed = book.destroy(email).await?;
    compact(backend).await?;
    Ok(erasure)
}

/// Embedded mode: leaves no old byte in the database files. The pool runs
/// with `secure_delete` (freed content is zeroed); `VACUUM` rebuilds the
/// file from live rows only; the checkpoints move everything out of the
/// write-ahead log and truncate it to zero bytes. PostgreSQL keeps no
/// plaintext address to begin with (only ciphertext and wrapped keys).
///
/// # Errors
/// [`EraseError::Compact`] when a checkpoint stays blocked by readers.
pub async fn compact(backend: &Backend) -> Result<(), EraseError> {
    let Backend::Sqlite(pool) = backend else {
        return Ok(());
    };
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    truncate_wal(&mut conn).await?;
    sqlx::query("VACUUM")
        .execute(&mut *conn)
        .await
        .map_err(|e| EraseError::Compact(e.to_string()))?;
    truncate_wal(&mut conn).await
}

async fn truncate_wal(conn: &mut sqlx::SqliteConnection) -> Result<(), EraseError> {
    for _ in 0..50 {
        let row = sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(&mut *conn)
            .await
            .map_err(|e| EraseError::Compact(e.to_string()))?;
        let busy: i64 = row.try_get(0).map_err(StoreError::from)?;
        if busy == 0 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(EraseError::Compact(
        "the write-ahead log stayed in use for 5 s".into(),
    ))
}
