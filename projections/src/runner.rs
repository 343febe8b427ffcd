//! Applies the log to every projection.
//!
//! Which projections there are, and which events each reads, comes from
//! [`crate::registry`]; this module only knows how to step one of them.
//!
//! Each step of a projection is one transaction: lock its checkpoint row,
//! read the events after it, apply them, move the checkpoint, commit. Taking
//! the row lock first serialises projectors of the same projection across
//! processes (a `basel export` catching up while the server runs), so an event
//! is never applied twice at the same time. Applying is idempotent anyway
//! (per-aggregate sequence guards, `ON CONFLICT DO NOTHING`).
//!
//! An event a projection cannot decode halts that projection: the reason is
//! stored with its checkpoint, logged once, and reported by `/readyz`; nothing
//! after it is applied until an operator fixes the cause and clears it.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use sqlx::Row;
use tokio::sync::Notify;

use crate::log::read_after;
use crate::progress::Changed;
use crate::progress::{Feed, Forgets};
use crate::registry::{AggregateKind, Projection};
use crate::{ProjectionError, ReadDb};

/// Every projection's name, in the order they are stepped (derived from
/// [`Projection::ALL`]).
pub const ALL: [&str; Projection::ALL.len()] = {
    let mut names = [""; Projection::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Projection::ALL[i].name();
        i += 1;
    }
    names
};

const BATCH: i64 = 500;

/// How often a projector running in this process looks for events other
/// processes wrote, and so how long a read cache may take to forget what a
/// command run in another process changed (embedded mode: `basel key
/// revoke` beside `basel serve`).
pub const POLL: Duration = Duration::from_millis(250);

/// How often [`Projector::wait_for`] reads a checkpoint kept by another
/// process when this one hears of no progress (see [`Projector::fed`]).
const CHECKPOINT_POLL: Duration = Duration::from_millis(5);

/// Where one projection stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectionStatus {
    /// Its name.
    pub name: String,
    /// The last log position it has applied.
    pub position: i64,
    /// Why it halted, if it did.
    pub halted: Option<String>,
}

/// A projection's distance from the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectionLag {
    /// Its name.
    pub name: String,
    /// The last log position it applied.
    pub position: i64,
    /// The last log position of an event it reads.
    pub head: i64,
    /// `head - position`, never negative.
    pub lag: i64,
    /// Why it halted, if it did.
    pub halted: Option<String>,
}

/// The last position of the events each projection reads (one index lookup
/// per aggregate type).
async fn heads(db: &ReadDb) -> Result<HashMap<Projection, i64>, ProjectionError> {
    let mut by_aggregate = HashMap::new();
    for kind in AggregateKind::ALL {
        let head: i64 = sqlx::query_scalar(
            "SELECT CAST(COALESCE(MAX(position), 0) AS BIGINT) FROM events WHERE aggregate_type = $1",
        )
        .bind(kind.type_name())
        .fetch_one(db)
        .await?;
        by_aggregate.insert(kind, head);
    }
    Ok(Projection::ALL
        .into_iter()
        .map(|p| (p, by_aggregate.get(&p.reads()).copied().unwrap_or(0)))
        .collect())
}

/// Runs the projections over one read database and tells waiters how far they got.
#[derive(Clone)]
pub struct Projector {
    pub(crate) db: ReadDb,
    positions: Arc<Mutex<HashMap<&'static str, i64>>>,
    progressed: Arc<Notify>,
    /// Events each projection applied from the store because its stream
    /// consumer was not handed them ([`crate::fill`]).
    filled: Arc<Mutex<HashMap<&'static str, u64>>>,
    /// Whether this process hears of every checkpoint move: it runs the
    /// projections ([`Projector::run`] or `run_stream`), or follows another
    /// process's through PostgreSQL notifications ([`Projector::follow`]).
    /// Then waiters are woken as projections progress and need not read the
    /// checkpoints table, and read caches may remember.
    pub(crate) feed: Arc<Feed>,
    /// The read caches to tell what each step changed, before waiters hear
    /// of it ([`Projector::advance`]).
    caches: Arc<Mutex<Vec<Weak<dyn Forgets>>>>,
}

impl Projector {
    /// A projector over `db`; creates missing checkpoints.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn new(db: ReadDb) -> Result<Self, ProjectionError> {
        for name in ALL {
            sqlx::query("INSERT INTO projection_checkpoints (name, position, halted, updated_at) VALUES ($1, 0, NULL, $2) ON CONFLICT (name) DO NOTHING")
                .bind(name)
                .bind(now())
                .execute(&db)
                .await?;
        }
        Ok(Self {
            db,
            positions: Arc::default(),
            progressed: Arc::default(),
            filled: Arc::default(),
            feed: Arc::default(),
            caches: Arc::default(),
        })
    }

    /// Applies everything in the log to every projection.
    ///
    /// # Errors
    /// The first projection error; the other projections still ran.
    pub async fn catch_up(&self) -> Result<(), ProjectionError> {
        let mut first_error = None;
        for projection in Projection::ALL {
            loop {
                match self.step(projection).await {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) => {
                        first_error.get_or_insert(error);
                        break;
                    }
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// One batch of one projection; returns how many events it read.
    async fn step(&self, projection: Projection) -> Result<usize, ProjectionError> {
        let name = projection.name();
        let mut tx = self.db.begin().await?;
        sqlx::query("UPDATE projection_checkpoints SET updated_at = $1 WHERE name = $2")
            .bind(now())
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let row =
            sqlx::query("SELECT position, halted FROM projection_checkpoints WHERE name = $1")
                .bind(name)
                .fetch_one(&mut *tx)
                .await?;
        let checkpoint: i64 = row.try_get("position")?;
        // Another process (a command catching up) moved the checkpoint past
        // what this one applied: what it changed is not known here.
        let moved_elsewhere = checkpoint > self.position(name);
        let unseen = |position| {
            if moved_elsewhere {
                self.advance(projection, position, &Changed::Everything);
            } else {
                self.record(name, position);
            }
        };
        if row.try_get::<Option<String>, _>("halted")?.is_some() {
            unseen(checkpoint);
            return Ok(0);
        }
        let events = read_after(&mut *tx, checkpoint, BATCH).await?;
        let Some(last) = events.last().map(|e| e.position) else {
            unseen(checkpoint);
            return Ok(0);
        };
        for event in &events {
            if let Err(error) = projection.apply(&mut tx, event).await {
                drop(tx);
                if let ProjectionError::Decode { .. } = error {
                    self.halt(name, &error).await?;
                }
                return Err(error);
            }
        }
        sqlx::query("UPDATE projection_checkpoints SET position = $1 WHERE name = $2")
            .bind(last)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let changed = if moved_elsewhere {
            Changed::Everything
        } else {
            Changed::of(&events)
        };
        crate::progress::announce(&mut tx, projection, last, &changed).await?;
        tx.commit().await?;
        self.advance(projection, last, &changed);
        Ok(events.len())
    }

    async fn halt(&self, name: &str, error: &ProjectionError) -> Result<(), ProjectionError> {
        tracing::error!(projection.name = name, error = %error, "projection halted on an event it cannot decode");
        sqlx::query("UPDATE projection_checkpoints SET halted = $1 WHERE name = $2")
            .bind(error.to_string())
            .bind(name)
            .execute(&self.db)
            .await?;
        Ok(())
    }

    /// Notes that `projection` applied the log up to `position`, changing
    /// what `changed` says: the read caches forget what it changed first,
    /// then waiters are woken, so a reader woken at `position` is never
    /// served a value cached before it.
    pub(crate) fn advance(&self, projection: Projection, position: i64, changed: &Changed) {
        for cache in self.caches() {
            cache.forget(projection, changed);
        }
        self.record(projection.name(), position);
    }

    /// Makes every read cache told of this projector forget what
    /// `projection` feeds it.
    pub(crate) fn forget_everywhere(&self, projection: Projection) {
        for cache in self.caches() {
            cache.forget(projection, &Changed::Everything);
        }
    }

    fn caches(&self) -> Vec<Arc<dyn Forgets>> {
        self.caches
            .lock()
            .map(|mut caches| {
                caches.retain(|cache| cache.strong_count() > 0);
                caches.iter().filter_map(Weak::upgrade).collect()
            })
            .unwrap_or_default()
    }

    /// Tells `cache` what every later step changes ([`Projector::advance`]).
    pub(crate) fn tell(&self, cache: Weak<dyn Forgets>) {
        if let Ok(mut caches) = self.caches.lock() {
            caches.push(cache);
        }
    }

    /// Whether this process hears of every checkpoint move: it runs the
    /// projections, or follows their notifications and is listening now.
    pub fn fed(&self) -> bool {
        self.feed.heard()
    }

    pub(crate) fn record(&self, name: &'static str, position: i64) {
        if let Ok(mut positions) = self.positions.lock() {
            positions.insert(name, position);
        }
        self.progressed.notify_waiters();
    }

    pub(crate) fn count_filled(&self, name: &'static str, events: usize) {
        if let Ok(mut filled) = self.filled.lock() {
            *filled.entry(name).or_default() += u64::try_from(events).unwrap_or(u64::MAX);
        }
    }

    /// How many events each projection has applied from the event store
    /// because the stream had not handed them over (since this process
    /// started), in [`ALL`] order; a rising count means the log lost
    /// deliveries, and nothing was skipped.
    pub fn gaps_filled(&self) -> Vec<(&'static str, u64)> {
        let filled = self.filled.lock().map(|f| f.clone()).unwrap_or_default();
        ALL.iter()
            .map(|name| (*name, filled.get(name).copied().unwrap_or(0)))
            .collect()
    }

    /// The last position of `name` this process applied or heard of.
    pub(crate) fn position(&self, name: &str) -> i64 {
        self.positions
            .lock()
            .map(|p| p.get(name).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Waits until `projection` has applied `position`, at most `timeout`.
    /// Returns whether it got there. Works whether the projection runs in this
    /// process (woken as it progresses), in another one this process follows
    /// (woken by its notifications), or in another one it cannot hear (its
    /// checkpoint is polled every few milliseconds).
    pub async fn wait_for(&self, projection: Projection, position: i64, timeout: Duration) -> bool {
        let name = projection.name();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let progressed = self.progressed.notified();
            if self.reached(name, position).await {
                return true;
            }
            // Progress made or heard of here wakes `progressed`; a
            // checkpoint kept by a process this one cannot hear is polled.
            let tick = if self.fed() {
                deadline
            } else {
                tokio::time::Instant::now() + CHECKPOINT_POLL
            };
            if tokio::time::timeout_at(deadline.min(tick), progressed)
                .await
                .is_err()
                && tokio::time::Instant::now() >= deadline
            {
                return self.reached(name, position).await;
            }
        }
    }

    /// Whether `name` has applied `position`: by the progress this process
    /// made or heard of, else (hearing of none) by the stored checkpoint.
    async fn reached(&self, name: &str, position: i64) -> bool {
        self.position(name) >= position
            || (!self.fed() && self.stored_position(name).await >= position)
    }

    /// Marks this process as the one applying the projections.
    pub(crate) fn run_here(&self) {
        self.feed.local.store(true, Ordering::Release);
    }

    async fn stored_position(&self, name: &str) -> i64 {
        sqlx::query_scalar("SELECT position FROM projection_checkpoints WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.db)
            .await
            .ok()
            .flatten()
            .unwrap_or(0)
    }

    /// Where every projection stands, from the checkpoints table.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn status(&self) -> Result<Vec<ProjectionStatus>, ProjectionError> {
        let rows =
            sqlx::query("SELECT name, position, halted FROM projection_checkpoints ORDER BY name")
                .fetch_all(&self.db)
                .await?;
        rows.iter()
            .map(|r| {
                Ok(ProjectionStatus {
                    name: r.try_get("name")?,
                    position: r.try_get("position")?,
                    halted: r.try_get("halted")?,
                })
            })
            .collect()
    }

    /// Where every projection stands against the log: its checkpoint, the
    /// last log position of the events it reads (`head`), and whether it
    /// halted. `head - position` is its lag in log positions.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure; [`ProjectionError::Corrupt`]
    /// when a checkpoint names no known projection.
    pub async fn lag(&self) -> Result<Vec<ProjectionLag>, ProjectionError> {
        let heads = heads(&self.db).await?;
        self.status()
            .await?
            .into_iter()
            .map(|s| {
                let projection = Projection::named(&s.name)?;
                let head = heads.get(&projection).copied().unwrap_or(0);
                Ok(ProjectionLag {
                    head,
                    lag: (head - s.position).max(0),
                    name: s.name,
                    position: s.position,
                    halted: s.halted,
                })
            })
            .collect()
    }

    /// How far `projection` is behind the events it reads, in one statement:
    /// `Some(head)` when its checkpoint is below `head`, the last position
    /// of those events; `None` when it has applied them all.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn behind(&self, projection: Projection) -> Result<Option<i64>, ProjectionError> {
        let (head, position): (i64, i64) = sqlx::query_as(
            "SELECT CAST(COALESCE((SELECT MAX(position) FROM events WHERE aggregate_type = $1), 0) AS BIGINT), \
             CAST(COALESCE((SELECT position FROM projection_checkpoints WHERE name = $2), 0) AS BIGINT)",
        )
        .bind(projection.reads().type_name())
        .bind(projection.name())
        .fetch_one(&self.db)
        .await?;
        Ok((position < head).then_some(head))
    }

    /// Waits until every projection has applied the whole log as it is now,
    /// at most `timeout`; returns whether they got there. For processes that
    /// do not run the projections themselves (server mode, other roles).
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn wait_for_head(&self, timeout: Duration) -> Result<bool, ProjectionError> {
        let heads = heads(&self.db).await?;
        let deadline = tokio::time::Instant::now() + timeout;
        for projection in Projection::ALL {
            let head = heads.get(&projection).copied().unwrap_or(0);
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if !self.wait_for(projection, head, left).await {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Runs until `shutdown` resolves: catches up, then waits for a wake-up
    /// (a local commit) or the poll interval (writes by other processes).
    pub async fn run(
        self,
        wake: Arc<Notify>,
        poll: Duration,
        shutdown: impl std::future::Future<Output = ()>,
    ) {
        self.run_here();
        tokio::pin!(shutdown);
        loop {
            if let Err(error) = self.catch_up().await {
                tracing::warn!(error = %error, "projection step failed; retrying");
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = wake.notified() => {}
                () = tokio::time::sleep(poll) => {}
            }
        }
    }
}

pub(crate) fn now() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Micros, true)
}
