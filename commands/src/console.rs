//! The steward console's sessions and form tokens, kept in the
//! store beside the events (tables `console_sessions`, `console_forms`).
//!
//! Neither table holds a secret: a session id and a form's CSRF token live
//! only in the browser (cookie, hidden field) and in memory on their way
//! there; the tables hold their SHA-256. A session ends when it is idle too
//! long, when it is too old whatever its use, at sign-out, or when its
//! steward is no longer active (the console checks that on every request).
//! A form token is spent once, atomically, so a form submitted twice (or
//! replayed) is refused the second time.

use secrecy::SecretString;

use domain::credentials::hash_secret;

use crate::secrets::new_console_secret;
use crate::store::on_pool;
use crate::store::{Backend, StoreError};

/// How long sessions last, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetimes {
    /// A session unused this long ends.
    pub idle: i64,
    /// A session this old ends, however busy.
    pub absolute: i64,
}

impl Default for Lifetimes {
    /// 30 minutes idle, 12 hours in all (a working day).
    fn default() -> Self {
        Self {
            idle: 30 * 60,
            absolute: 12 * 60 * 60,
        }
    }
}

/// How long a mailed sign-in link is valid, in seconds (15 minutes).
pub const LINK_SECONDS: i64 = 15 * 60;

/// A live session as the store knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The signed-in steward's id.
    pub steward_id: String,
    /// When the session began (Unix seconds).
    pub created_at: i64,
}

/// The console's sessions and form tokens in `backend`.
#[derive(Debug, Clone)]
pub struct ConsoleStore {
    backend: Backend,
    lifetimes: Lifetimes,
}

impl ConsoleStore {
    /// Sessions and forms in `backend`, lasting `lifetimes`.
    pub fn new(backend: &Backend, lifetimes: Lifetimes) -> Self {
        Self {
            backend: backend.clone(),
            lifetimes,
        }
    }

    /// Opens a new session for `steward_id` at `now` and returns its id (the
    /// cookie's value, never stored). The session `replacing` (the id the
    /// browser presented, if any) ends first, so an id planted before
    /// sign-in is never the signed-in one. Sessions past their absolute
    /// lifetime are deleted on the way.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn open(
        &self,
        steward_id: &str,
        now: i64,
        replacing: Option<&str>,
    ) -> Result<SecretString, StoreError> {
        if let Some(old) = replacing {
            self.close(old).await?;
        }
        let oldest = now - self.lifetimes.absolute;
        on_pool!(&self.backend, |pool| {
            sqlx::query(
                "DELETE FROM console_forms WHERE session_hash IN \
                 (SELECT session_hash FROM console_sessions WHERE created_at < $1)",
            )
            .bind(oldest)
            .execute(pool)
            .await?;
            sqlx::query("DELETE FROM console_sessions WHERE created_at < $1")
                .bind(oldest)
                .execute(pool)
                .await?
                .rows_affected()
        });
        let id = new_console_secret();
        let hash = hash_secret(secrecy::ExposeSecret::expose_secret(&id));
        on_pool!(&self.backend, |pool| sqlx::query(
            "INSERT INTO console_sessions (session_hash, steward_id, created_at, last_seen_at) \
             VALUES ($1, $2, $3, $3)"
        )
        .bind(&hash)
        .bind(steward_id)
        .bind(now)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(id)
    }

    /// The live session with id `id` at `now`, marked as used; `None` (and
    /// the session deleted) when it is unknown, idle too long or too old.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be read.
    pub async fn touch(&self, id: &str, now: i64) -> Result<Option<SessionRow>, StoreError> {
        let hash = hash_secret(id);
        let row: Option<(String, i64, i64)> = on_pool!(&self.backend, |pool| {
            sqlx::query_as(
            "SELECT steward_id, created_at, last_seen_at FROM console_sessions WHERE session_hash = $1"
        )
        .bind(&hash)
        .fetch_optional(pool)
        .await?
        });
        let Some((steward_id, created_at, last_seen_at)) = row else {
            return Ok(None);
        };
        if now - last_seen_at > self.lifetimes.idle || now - created_at > self.lifetimes.absolute {
            self.close(id).await?;
            return Ok(None);
        }
        on_pool!(&self.backend, |pool| sqlx::query(
            "UPDATE console_sessions SET last_seen_at = $2 WHERE session_hash = $1"
        )
        .bind(&hash)
        .bind(now)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(Some(SessionRow {
            steward_id,
            created_at,
        }))
    }

    /// Ends the session `id` and its forms (sign-out; harmless when unknown).
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn close(&self, id: &str) -> Result<(), StoreError> {
        let hash = hash_secret(id);
        on_pool!(&self.backend, |pool| {
            sqlx::query("DELETE FROM console_forms WHERE session_hash = $1")
                .bind(&hash)
                .execute(pool)
                .await?;
            sqlx::query("DELETE FROM console_sessions WHERE session_hash = $1")
                .bind(&hash)
                .execute(pool)
                .await?
                .rows_affected()
        });
        Ok(())
    }

    /// A new CSRF token for one form of session `session_id`.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn issue_form(&self, session_id: &str, now: i64) -> Result<SecretString, StoreError> {
        let token = new_console_secret();
        on_pool!(&self.backend, |pool| sqlx::query(
            "INSERT INTO console_forms (token_hash, session_hash, issued_at) VALUES ($1, $2, $3)"
        )
        .bind(hash_secret(secrecy::ExposeSecret::expose_secret(&token)))
        .bind(hash_secret(session_id))
        .bind(now)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(token)
    }

    /// Spends `token` for session `session_id`: `true` the first time, when
    /// the token was issued to that session; `false` when it is unknown,
    /// another session's, or spent already.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn spend_form(
        &self,
        session_id: &str,
        token: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let done = on_pool!(&self.backend, |pool| sqlx::query(
            "UPDATE console_forms SET spent_at = $3 \
             WHERE token_hash = $1 AND session_hash = $2 AND spent_at IS NULL"
        )
        .bind(hash_secret(token))
        .bind(hash_secret(session_id))
        .bind(now)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(done == 1)
    }

    /// Stores a file of evidence under the SHA-256 of its bytes (once: the
    /// same bytes again change nothing) and returns that hash.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn put_evidence(
        &self,
        bytes: &[u8],
        media_type: &str,
        now: i64,
    ) -> Result<String, StoreError> {
        use sha2::{Digest, Sha256};
        let sha256 = hex::encode(Sha256::digest(bytes));
        let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
        on_pool!(&self.backend, |pool| sqlx::query(
            "INSERT INTO console_evidence (sha256, media_type, size, content, stored_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING"
        )
        .bind(&sha256)
        .bind(media_type)
        .bind(size)
        .bind(bytes)
        .bind(now)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(sha256)
    }

    /// The file stored under `sha256`: its type and bytes.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be read.
    pub async fn evidence(&self, sha256: &str) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        let row: Option<(String, Vec<u8>)> = on_pool!(&self.backend, |pool| sqlx::query_as(
            "SELECT media_type, content FROM console_evidence WHERE sha256 = $1"
        )
        .bind(sha256)
        .fetch_optional(pool)
        .await?);
        Ok(row)
    }

    /// Deletes every e-mail file of evidence that mentions `address`
    /// (case-insensitively), for `basel forget`; returns how many. PDFs and
    /// images cannot be searched: an operator deletes those by hash.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be read or written.
    pub async fn forget_mentions(&self, address: &str) -> Result<u64, StoreError> {
        let needle = address.trim().to_ascii_lowercase();
        if needle.is_empty() {
            return Ok(0);
        }
        let rows: Vec<(String, Vec<u8>)> = on_pool!(&self.backend, |pool| sqlx::query_as(
            "SELECT sha256, content FROM console_evidence WHERE media_type = 'message/rfc822'"
        )
        .fetch_all(pool)
        .await?);
        let mut deleted = 0;
        for (sha256, content) in rows {
            if String::from_utf8_lossy(&content)
                .to_ascii_lowercase()
                .contains(&needle)
            {
                deleted += on_pool!(&self.backend, |pool| sqlx::query(
                    "DELETE FROM console_evidence WHERE sha256 = $1"
                )
                .bind(&sha256)
                .execute(pool)
                .await?
                .rows_affected());
            }
        }
        Ok(deleted)
    }

    /// Issues a one-time sign-in link for `steward_id` at `now`, valid
    /// [`LINK_SECONDS`], and returns its token (for the mail only; the store
    /// keeps its SHA-256). Expired links are deleted on the way.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn issue_link(&self, steward_id: &str, now: i64) -> Result<SecretString, StoreError> {
        let token = new_console_secret();
        on_pool!(&self.backend, |pool| {
            sqlx::query("DELETE FROM console_links WHERE expires_at < $1")
                .bind(now)
                .execute(pool)
                .await?;
            sqlx::query(
                "INSERT INTO console_links (link_hash, steward_id, expires_at) VALUES ($1, $2, $3)",
            )
            .bind(hash_secret(secrecy::ExposeSecret::expose_secret(&token)))
            .bind(steward_id)
            .bind(now + LINK_SECONDS)
            .execute(pool)
            .await?
            .rows_affected()
        });
        Ok(token)
    }

    /// Spends the link `token` at `now`: the steward id the first time,
    /// within its 15 minutes; `None` when it is unknown, used or expired (a
    /// link signs in once: it is deleted here, atomically).
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn redeem_link(&self, token: &str, now: i64) -> Result<Option<String>, StoreError> {
        let row: Option<(String, i64)> = on_pool!(&self.backend, |pool| sqlx::query_as(
            "DELETE FROM console_links WHERE link_hash = $1 RETURNING steward_id, expires_at"
        )
        .bind(hash_secret(token))
        .fetch_optional(pool)
        .await?);
        Ok(row.and_then(|(steward_id, expires_at)| (now <= expires_at).then_some(steward_id)))
    }

    /// Claims the reminder digest of `steward_id` for `day`: `true` the
    /// first time (then send it), `false` when it was claimed already.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn claim_digest(&self, steward_id: &str, day: &str) -> Result<bool, StoreError> {
        let done = on_pool!(&self.backend, |pool| sqlx::query(
            "INSERT INTO console_digests (steward_id, day) VALUES ($1, $2) \
             ON CONFLICT (steward_id, day) DO NOTHING"
        )
        .bind(steward_id)
        .bind(day)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(done == 1)
    }

    /// Gives a claim back (its mail was not sent: the next pass tries again).
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store cannot be written.
    pub async fn release_digest(&self, steward_id: &str, day: &str) -> Result<(), StoreError> {
        on_pool!(&self.backend, |pool| sqlx::query(
            "DELETE FROM console_digests WHERE steward_id = $1 AND day = $2"
        )
        .bind(steward_id)
        .bind(day)
        .execute(pool)
        .await?
        .rows_affected());
        Ok(())
    }
}
