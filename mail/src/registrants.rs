//! Registrants as the `ApiKey` events describe them: whether a key is
//! active, whether notices go to them, and their address.
//!
//! The address is read in exactly one place, [`address`], so the way it is
//! stored in events can change (e.g. encrypted for crypto-shredding) without
//! touching the rest of the outbox.

use std::collections::BTreeMap;

use domain::api_key::{ApiKey, ApiKeyEvent};
use domain::values::Email;
use domain::Aggregate;
use sqlx::Row;

use crate::MailError;

/// The address mail for this registrant goes to: opened from the sealed
/// address of the latest key issued to them (`None` when there is none or
/// they were forgotten). **The one function that reads a registrant's address.**
///
/// # Errors
/// [`MailError::Database`]-like errors when the store cannot be read.
pub async fn address(
    addresses: &commands::identity::AddressBook,
    api_key_id: &str,
) -> Result<Option<Email>, MailError> {
    addresses
        .registrant(api_key_id)
        .await
        .map_err(|e| MailError::Settings(format!("the address book cannot be read: {e}")))
}

fn fold(
    states: &mut BTreeMap<String, ApiKey>,
    id: String,
    position: i64,
    payload: &str,
) -> Result<(), MailError> {
    let event: ApiKeyEvent = serde_json::from_str(payload).map_err(|e| MailError::Decode {
        position,
        reason: e.to_string(),
    })?;
    states.entry(id).or_default().apply(event);
    Ok(())
}

/// One registrant's state now.
///
/// # Errors
/// Database or decode errors.
pub async fn load<'c, E>(db: E, key_id: &str) -> Result<ApiKey, MailError>
where
    E: sqlx::Executor<'c, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT position, CAST(payload AS TEXT) AS payload FROM events \
         WHERE aggregate_type = $1 AND aggregate_id = $2 ORDER BY sequence",
    )
    .bind(ApiKey::TYPE)
    .bind(key_id)
    .fetch_all(db)
    .await?;
    let mut states = BTreeMap::new();
    for row in rows {
        fold(
            &mut states,
            key_id.to_owned(),
            row.try_get("position")?,
            &row.try_get::<String, _>("payload")?,
        )?;
    }
    Ok(states.remove(key_id).unwrap_or_default())
}

/// The key aggregate ids of everyone a notice at `position` goes to: an
/// active key and no opt-out, as the log stood just before `position`.
/// Sorted, so a repeated fan-out yields the same list.
///
/// # Errors
/// Database or decode errors.
pub async fn receiving_notices_before<'c, E>(db: E, position: i64) -> Result<Vec<String>, MailError>
where
    E: sqlx::Executor<'c, Database = sqlx::Any>,
{
    let rows = sqlx::query(
        "SELECT position, aggregate_id, CAST(payload AS TEXT) AS payload FROM events \
         WHERE aggregate_type = $1 AND position < $2 ORDER BY position",
    )
    .bind(ApiKey::TYPE)
    .bind(position)
    .fetch_all(db)
    .await?;
    let mut states = BTreeMap::new();
    for row in rows {
        fold(
            &mut states,
            row.try_get("aggregate_id")?,
            row.try_get("position")?,
            &row.try_get::<String, _>("payload")?,
        )?;
    }
    Ok(states
        .into_iter()
        .filter(|(_, state)| state.receives_notices())
        .map(|(id, _)| id)
        .collect())
}
