//! People's e-mail addresses in the log, and how they are erased
//! (crypto-shredding).
//!
//! The log is append-only and kept forever (in PostgreSQL or SQLite, and in
//! every copy of the JetStream stream), yet a person may ask to be
//! forgotten. So no event holds a person's address in the clear: each address
//! is sealed ([`crypto`]: XChaCha20-Poly1305) under a data key of that person
//! ([`keys`]: the `subject_keys` table, each key itself sealed under a key
//! derived from the server secret). `basel forget EMAIL` ([`erase`])
//! destroys the person's keys: every event that named them still decodes,
//! but their address opens nowhere.
//!
//! [`AddressBook`] is the one reader that opens addresses: whoever needs a
//! registrant's address (key delivery, notices) asks it, by the `api_key`
//! aggregate id, and gets `None` once the person was forgotten.
//!
//! Events written before sealing hold plaintext addresses; [`legacy`]
//! seals them in place at start (the one rewrite of stored events basel
//! makes, for erasure only).

mod crypto;
pub mod erase;
mod keys;
pub mod legacy;

use serde_json::Value;
use sqlx::Row;

use domain::values::{Email, SealedAddress, StoredAddress};

use crate::secrets::ServerSecret;
use crate::store::{Backend, StoreError};
use keys::SubjectKeys;

/// Seals and opens people's addresses.
#[derive(Clone)]
pub struct AddressBook {
    backend: Backend,
    secret: ServerSecret,
    keys: SubjectKeys,
}

impl AddressBook {
    /// The address book of `backend`, with keys wrapped under `secret`.
    pub fn new(backend: &Backend, secret: &ServerSecret) -> Self {
        Self {
            backend: backend.clone(),
            secret: secret.clone(),
            keys: SubjectKeys::new(backend, secret),
        }
    }

    /// The subject id of an address: a keyed digest of its normalised form.
    pub fn subject_of(&self, email: &Email) -> String {
        self.secret.subject_id(&email.normalized())
    }

    /// Seals `email` under its person's data key (created on first use).
    ///
    /// # Errors
    /// [`StoreError::Database`] when `subject_keys` cannot be read or written.
    pub async fn seal(&self, email: &Email) -> Result<SealedAddress, StoreError> {
        let key = self.keys.for_subject(&self.subject_of(email)).await?;
        Ok(SealedAddress {
            sealed: crypto::seal(&key.key, key.id.as_bytes(), email.as_str().as_bytes()),
            key: key.id,
        })
    }

    /// Opens a stored address: `None` when its key was destroyed (the person
    /// was forgotten). A plaintext address (an event from before sealing) is
    /// returned as it is.
    ///
    /// # Errors
    /// [`StoreError::Database`] when `subject_keys` cannot be read.
    pub async fn open(&self, address: &StoredAddress) -> Result<Option<Email>, StoreError> {
        let sealed = match address {
            StoredAddress::Plain(email) => return Ok(Some(email.clone())),
            StoredAddress::Sealed(sealed) => sealed,
        };
        let Some(key) = self.keys.by_id(&sealed.key).await? else {
            return Ok(None);
        };
        Ok(crypto::open(&key.key, key.id.as_bytes(), &sealed.sealed)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|text| Email::parse_stored(&text).ok()))
    }

    /// The address of the registrant whose `api_key` aggregate id is
    /// `api_key_id` (as the latest key issued to them recorded it), or
    /// `None` when there is none or they were forgotten. This is how key
    /// delivery and notices find where to write.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be read.
    pub async fn registrant(&self, api_key_id: &str) -> Result<Option<Email>, StoreError> {
        let sql = |payload: &str| {
            format!(
                "SELECT {payload} FROM events WHERE aggregate_type = 'api_key' AND aggregate_id = $1 \
                 AND event_type = 'ApiKeyIssued' ORDER BY sequence DESC LIMIT 1"
            )
        };
        let payload: Option<String> = match &self.backend {
            Backend::Postgres(pool) => {
                sqlx::query_scalar(&sql("payload::text"))
                    .bind(api_key_id)
                    .fetch_optional(pool)
                    .await?
            }
            Backend::Sqlite(pool) => {
                sqlx::query_scalar(&sql("payload"))
                    .bind(api_key_id)
                    .fetch_optional(pool)
                    .await?
            }
        };
        match payload
            .as_deref()
            .and_then(|p| address_in(p, "ApiKeyIssued"))
        {
            Some(address) => self.open(&address).await,
            None => Ok(None),
        }
    }

    /// The ids of the stewards enrolled with `email` (compared normalised,
    /// after opening each steward's address; stewards are few).
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be read.
    pub async fn stewards_with(&self, email: &Email) -> Result<Vec<String>, StoreError> {
        let sql = |payload: &str| {
            format!(
                "SELECT aggregate_id, {payload} FROM events WHERE aggregate_type = 'steward' \
                 AND event_type = 'StewardEnrolled' ORDER BY position"
            )
        };
        let rows: Vec<(String, String)> = match &self.backend {
            Backend::Postgres(pool) => sqlx::query(&sql("payload::text"))
                .fetch_all(pool)
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, sqlx::Error>>()?,
            Backend::Sqlite(pool) => sqlx::query(&sql("payload"))
                .fetch_all(pool)
                .await?
                .iter()
                .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
                .collect::<Result<_, sqlx::Error>>()?,
        };
        let wanted = email.normalized();
        let mut ids = Vec::new();
        for (id, payload) in rows {
            let Some(address) = address_in(&payload, "StewardEnrolled") else {
                continue;
            };
            if let Some(found) = self.open(&address).await? {
                if found.normalized() == wanted {
                    ids.push(id);
                }
            }
        }
        Ok(ids)
    }

    /// The address steward `steward_id` was enrolled with, or `None` (no
    /// such steward, or forgotten).
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be read.
    pub async fn steward(&self, steward_id: &str) -> Result<Option<Email>, StoreError> {
        let sql = |payload: &str| {
            format!(
                "SELECT {payload} FROM events WHERE aggregate_type = 'steward' AND aggregate_id = $1 \
                 AND event_type = 'StewardEnrolled' ORDER BY sequence LIMIT 1"
            )
        };
        let payload: Option<String> = match &self.backend {
            Backend::Postgres(pool) => {
                sqlx::query_scalar(&sql("payload::text"))
                    .bind(steward_id)
                    .fetch_optional(pool)
                    .await?
            }
            Backend::Sqlite(pool) => {
                sqlx::query_scalar(&sql("payload"))
                    .bind(steward_id)
                    .fetch_optional(pool)
                    .await?
            }
        };
        match payload
            .as_deref()
            .and_then(|p| address_in(p, "StewardEnrolled"))
        {
            Some(address) => self.open(&address).await,
            None => Ok(None),
        }
    }

    /// Destroys every key of `email`'s person.
    pub(crate) async fn destroy(&self, email: &Email) -> Result<u64, StoreError> {
        self.keys.destroy(&self.subject_of(email)).await
    }

    pub(crate) fn backend(&self) -> &Backend {
        &self.backend
    }
}

/// The `email` field of a stored event payload `{"<variant>": {"email": …}}`.
fn address_in(payload: &str, variant: &str) -> Option<StoredAddress> {
    let value: Value = serde_json::from_str(payload).ok()?;
    serde_json::from_value(value.get(variant)?.get("email")?.clone()).ok()
}
