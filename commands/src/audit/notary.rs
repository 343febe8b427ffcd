//! The notary: keeps the tree over the events table as events are appended,
//! and signs a checkpoint every N events or T seconds.
//!
//! It follows the events table by position (like a projection), off the
//! write path: a command commits as before, and the notary appends the new
//! events' leaves within a poll interval. Each extension
//! is one transaction that first takes a lock (`BEGIN IMMEDIATE` on SQLite,
//! the advisory lock [`AUDIT_LOCK_KEY`] on PostgreSQL), so several
//! processes may run a notary and the leaves are still appended once, in
//! position order. Leaves are computed from the rows as stored
//! ([`super::leaf`]).

use std::time::{Duration, Instant};

use super::leaf::{hash_of, read_after};
use super::merkle::{Frontier, Hash};
use super::note::Signer;
use super::tables::{self, StoredCheckpoint};
use crate::store::{Backend, StoreError};

/// The transaction-scoped advisory lock the PostgreSQL notary takes (the
/// bytes `"basel\0au"`); no other lock in basel may use it.
pub const AUDIT_LOCK_KEY: i64 = 0x6261_7365_6c00_6175;

/// Events read per extension.
const BATCH: i64 = 1000;

/// When checkpoints are signed.
#[derive(Debug, Clone, Copy)]
pub struct Cadence {
    /// After this many new leaves.
    pub every: u64,
    /// Or when this much time passed and the tree grew.
    pub interval: Duration,
}

impl Default for Cadence {
    fn default() -> Self {
        Self {
            every: 100,
            interval: Duration::from_secs(60),
        }
    }
}

/// Keeps the tree and signs checkpoints (see the module documentation).
#[derive(Debug)]
pub struct Notary {
    backend: Backend,
    signer: Signer,
    cadence: Cadence,
    frontier: Frontier,
    last_position: i64,
    signed: u64,
    signed_at: Instant,
}

impl Notary {
    /// A notary over `backend`'s events, resuming from the stored tree.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the audit tables cannot be read.
    pub async fn open(
        backend: Backend,
        signer: Signer,
        cadence: Cadence,
    ) -> Result<Self, StoreError> {
        let mut notary = Self {
            backend,
            signer,
            cadence,
            frontier: Frontier::default(),
            last_position: 0,
            signed: 0,
            signed_at: Instant::now(),
        };
        notary.reload().await?;
        notary.signed = tables::latest_checkpoint(&notary.backend)
            .await?
            .map_or(0, |c| c.size);
        Ok(notary)
    }

    async fn reload(&mut self) -> Result<(), StoreError> {
        let leaves = tables::leaves(&self.backend, u64::MAX >> 1).await?;
        self.last_position = leaves.last().map_or(0, |l| l.position);
        self.frontier = Frontier::of(&leaves.iter().map(|l| l.hash).collect::<Vec<_>>());
        Ok(())
    }

    /// The tree's size.
    pub fn size(&self) -> u64 {
        self.frontier.size()
    }

    /// The tree's root.
    pub fn root(&self) -> Hash {
        self.frontier.root()
    }

    /// Appends the leaves of every event not in the tree yet; returns how
    /// many.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store fails.
    pub async fn extend(&mut self) -> Result<u64, StoreError> {
        let mut added = 0;
        loop {
            let n = self.extend_once(BATCH).await?;
            added += n;
            if n < BATCH as u64 {
                return Ok(added);
            }
        }
    }

    /// Appends the leaves of at most `limit` new events; returns how many.
    async fn extend_once(&mut self, limit: i64) -> Result<u64, StoreError> {
        let (size, _) = tables::tree_head(&self.backend).await?;
        if size != self.frontier.size() {
            // Another process's notary appended: start from the table.
            self.reload().await?;
        }
        let events = read_after(&self.backend, self.last_position, limit).await?;
        if events.is_empty() {
            return Ok(0);
        }
        let leaves: Vec<(i64, Hash)> = events.iter().map(|e| (e.position, hash_of(e))).collect();
        let first = self.frontier.size();
        match self.append_locked(first, &leaves).await {
            Ok(()) => {}
            Err(StoreError::Database(sqlx::Error::Database(db))) if db.is_unique_violation() => {
                self.reload().await?;
                return Ok(0);
            }
            Err(error) => return Err(error),
        }
        for (position, hash) in &leaves {
            self.frontier.push(*hash);
            self.last_position = *position;
        }
        Ok(leaves.len() as u64)
    }

    async fn append_locked(&self, first: u64, leaves: &[(i64, Hash)]) -> Result<(), StoreError> {
        let index = |offset: usize| i64::try_from(first + offset as u64).unwrap_or(i64::MAX);
        match &self.backend {
            Backend::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock($1)")
                    .bind(AUDIT_LOCK_KEY)
                    .execute(&mut *tx)
                    .await?;
                // One statement for the whole extension (it was one per
                // leaf: two per steward write).
                let indexes: Vec<i64> = (0..leaves.len()).map(index).collect();
                let positions: Vec<i64> = leaves.iter().map(|(position, _)| *position).collect();
                let hashes: Vec<&[u8]> = leaves.iter().map(|(_, hash)| hash.as_slice()).collect();
                sqlx::query(
                    "INSERT INTO audit_leaves (leaf_index, position, leaf_hash) \
                     SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::BYTEA[])",
                )
                .bind(&indexes)
                .bind(&positions)
                .bind(&hashes)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
            }
            Backend::Sqlite(pool) => {
                let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
                for (offset, (position, hash)) in leaves.iter().enumerate() {
                    sqlx::query(
                        "INSERT INTO audit_leaves (leaf_index, position, leaf_hash) VALUES ($1, $2, $3)",
                    )
                        .bind(index(offset))
                        .bind(position)
                        .bind(hash.as_slice())
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
            }
        }
        Ok(())
    }

    /// Signs and stores a checkpoint of the tree as it is, unless one of
    /// this size exists or the tree is empty; returns it.
    ///
    /// # Errors
    /// [`StoreError::Database`] when it cannot be stored.
    pub async fn checkpoint(&mut self) -> Result<Option<StoredCheckpoint>, StoreError> {
        let size = self.frontier.size();
        if size == 0 || size == self.signed {
            return Ok(None);
        }
        let root = self.frontier.root();
        let note = self.signer.sign(size, &root);
        tables::insert_checkpoint(&self.backend, size, &root, &note).await?;
        self.signed = size;
        self.signed_at = Instant::now();
        tracing::debug!(audit.tree_size = size, "checkpoint signed");
        Ok(Some(StoredCheckpoint { size, root, note }))
    }

    /// Extends the tree, signing a checkpoint at every `every` leaves on the
    /// way (a store that was behind gets one per `every` events), and one of
    /// the whole tree when `interval` has passed since the last.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the store fails.
    pub async fn step(&mut self) -> Result<(), StoreError> {
        let every = self.cadence.every.max(1);
        loop {
            let room = every
                - self
                    .frontier
                    .size()
                    .saturating_sub(self.signed)
                    .min(every - 1);
            let added = self
                .extend_once(i64::try_from(room.min(BATCH as u64)).unwrap_or(BATCH))
                .await?;
            if self.frontier.size().saturating_sub(self.signed) >= every {
                self.checkpoint().await?;
            } else if added == 0 {
                break;
            }
        }
        if self.frontier.size() > self.signed && self.signed_at.elapsed() >= self.cadence.interval {
            self.checkpoint().await?;
        }
        Ok(())
    }

    /// Runs until `shutdown`: a [`Self::step`] every `poll`. Failures are
    /// logged and retried.
    pub async fn run(mut self, poll: Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            if let Err(error) = self.step().await {
                tracing::warn!(error = %error, "audit log: cannot extend the tree; retrying");
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = tokio::time::sleep(poll) => {}
            }
        }
    }
}
