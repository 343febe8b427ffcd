//! The `subject_keys` table: each person's data keys, sealed under a key
//! derived from the server secret, outside the log.

use chrono::{SecondsFormat, Utc};
use sqlx::Row;

use super::crypto;
use crate::secrets::ServerSecret;
use crate::store::on_pool;
use crate::store::{Backend, StoreError};

/// A person's data key, unwrapped (in memory only).
pub(crate) struct DataKey {
    /// Its id, named by every address it sealed.
    pub id: String,
    /// The key.
    pub key: [u8; 32],
}

/// The subject keys of one store.
#[derive(Clone)]
pub(crate) struct SubjectKeys {
    backend: Backend,
    /// The key-encryption key: derived from the server secret, never stored,
    /// so a copy of the database alone opens no address.
    kek: [u8; 32],
}

impl SubjectKeys {
    pub(crate) fn new(backend: &Backend, secret: &ServerSecret) -> Self {
        Self {
            backend: backend.clone(),
            kek: secret.derive_key("basel subject key encryption v1"),
        }
    }

    /// The newest key of `subject`, creating one when it has none.
    pub(crate) async fn for_subject(&self, subject: &str) -> Result<DataKey, StoreError> {
        let sql = "SELECT key_id, wrapped FROM subject_keys WHERE subject = $1 ORDER BY created_at DESC LIMIT 1";
        let row: Option<(String, String)> = on_pool!(&self.backend, |pool| {
            sqlx::query(sql)
                .bind(subject)
                .fetch_optional(pool)
                .await?
                .map(|r| Ok::<_, sqlx::Error>((r.try_get(0)?, r.try_get(1)?)))
                .transpose()?
        });
        if let Some(key) = row.and_then(|(id, wrapped)| self.unwrap(id, &wrapped)) {
            return Ok(key);
        }
        let key = DataKey {
            id: uuid_like(),
            key: crypto::new_key(),
        };
        let wrapped = crypto::seal(&self.kek, key.id.as_bytes(), &key.key);
        let now = Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true);
        let insert = "INSERT INTO subject_keys (key_id, subject, wrapped, created_at) VALUES ($1, $2, $3, $4)";
        on_pool!(&self.backend, |pool| {
            sqlx::query(insert)
                .bind(&key.id)
                .bind(subject)
                .bind(&wrapped)
                .bind(&now)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(key)
    }

    /// The key with this id, `None` when it was destroyed (or never was).
    pub(crate) async fn by_id(&self, key_id: &str) -> Result<Option<DataKey>, StoreError> {
        let sql = "SELECT wrapped FROM subject_keys WHERE key_id = $1";
        let wrapped: Option<String> = on_pool!(&self.backend, |pool| {
            sqlx::query_scalar(sql)
                .bind(key_id)
                .fetch_optional(pool)
                .await?
        });
        Ok(wrapped.and_then(|w| self.unwrap(key_id.to_owned(), &w)))
    }

    /// Destroys every key of `subject`: what they sealed can never be opened
    /// again. Returns how many keys there were.
    pub(crate) async fn destroy(&self, subject: &str) -> Result<u64, StoreError> {
        let sql = "DELETE FROM subject_keys WHERE subject = $1";
        Ok(on_pool!(&self.backend, |pool| {
            sqlx::query(sql)
                .bind(subject)
                .execute(pool)
                .await?
                .rows_affected()
        }))
    }

    fn unwrap(&self, id: String, wrapped: &str) -> Option<DataKey> {
        let bytes = crypto::open(&self.kek, id.as_bytes(), wrapped)?;
        let key = <[u8; 32]>::try_from(bytes.as_slice()).ok()?;
        Some(DataKey { id, key })
    }
}

/// A random key id (128 bits, hex): says nothing about the person.
fn uuid_like() -> String {
    hex::encode(&crypto::new_key()[..16])
}
