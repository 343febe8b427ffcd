//! The server secret is fixed per store: the first process to open a store
//! records a verifier of its secret (an HMAC of a constant, which reveals
//! nothing of the secret), and every later process compares its own.
//!
//! A store's API keys, key ids, unsubscribe tags and the keys that seal
//! personal data are all derived from the secret: under another secret old
//! keys would keep working (their hashes are stored) while the same address
//! registered again as new, and erasure would miss what the old secret
//! sealed. So a different secret is refused rather than used.

use chrono::{SecondsFormat, Utc};

use super::{Backend, StoreError};
use crate::secrets::ServerSecret;

/// What the store said about the secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretCheck {
    /// No verifier was recorded yet: this secret's is now.
    Recorded,
    /// The store was created with this secret.
    Matches,
    /// The store was created with another secret.
    Differs,
}

impl Backend {
    /// Records `secret`'s verifier when the store has none, else compares.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the table cannot be read or written.
    pub async fn check_secret(&self, secret: &ServerSecret) -> Result<SecretCheck, StoreError> {
        let verifier = secret.verifier();
        let now = Utc::now().to_rfc3339_opts(SecondsFormat::Secs, true);
        let (inserted, stored): (u64, String) = match self {
            Self::Postgres(pool) => {
                let inserted = sqlx::query(
                    "INSERT INTO secret_verifier (id, verifier, recorded_at) VALUES (1, $1, $2) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(&verifier)
                .bind(&now)
                .execute(pool)
                .await?
                .rows_affected();
                let stored =
                    sqlx::query_scalar("SELECT verifier FROM secret_verifier WHERE id = 1")
                        .fetch_one(pool)
                        .await?;
                (inserted, stored)
            }
            Self::Sqlite(pool) => {
                let inserted = sqlx::query(
                    "INSERT INTO secret_verifier (id, verifier, recorded_at) VALUES (1, ?, ?) \
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(&verifier)
                .bind(&now)
                .execute(pool)
                .await?
                .rows_affected();
                let stored =
                    sqlx::query_scalar("SELECT verifier FROM secret_verifier WHERE id = 1")
                        .fetch_one(pool)
                        .await?;
                (inserted, stored)
            }
        };
        Ok(if stored != verifier {
            SecretCheck::Differs
        } else if inserted > 0 {
            SecretCheck::Recorded
        } else {
            SecretCheck::Matches
        })
    }
}
