//! A read-through cache of the lookups the edges make on every request (is
//! this API key active? what is this country's record? what does the
//! directory hold, for a search?), so hot paths need no database round trip.
//! The REST edge and the MCP server each keep one.
//!
//! Entries are tagged with a *generation*. The generation moves when the read
//! tables may have changed: a watcher task follows the `directory` and
//! `api_keys` checkpoints (woken by the local projector, and polling every
//! 250 ms for projectors in other processes), and a local steward write moves
//! it before it answers, so the write's author never reads their old record.
//! An entry is served only while its generation is current, and its tag is
//! taken *before* the database read, so a row read just before a change is
//! never served after the change was seen. Only active keys are cached: a new
//! key works at once; a revoked one stops within one watcher cycle.
//!
//! One cache per server, so servers over different stores in one process
//! never share; its watcher ends when the cache is dropped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use bytes::Bytes;
use rustc_hash::FxHashMap;

use crate::directory::{AuthorityRow, Reader};
use crate::runner::Projector;
use crate::{api_keys, directory, ProjectionError, ReadDb};

/// How often the watcher looks at the checkpoints when not woken.
pub const POLL: Duration = Duration::from_millis(250);

/// The largest number of entries of each kind (a full cache is cleared).
const MAX_ENTRIES: usize = 10_000;

/// A record as of a day: the country code's two letters and the day (its
/// `stale` flag depends on the date).
type RecordKey = ([u8; 2], i32);

/// A value on cache lines of its own (128 bytes: two lines, as adjacent
/// lines are fetched in pairs).
#[derive(Default)]
#[repr(align(128))]
struct Line<T>(T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// Active keys (by SHA-256) and records, each with the generation it was
/// read in. Hashed with rustc's Fx hash, several times cheaper than std's
/// SipHash on every lookup: no client chooses these keys (only keys found
/// active in the `api_keys` table are remembered, under their digests, and
/// records under country codes and days), so there is no flooding to resist.
#[derive(Default)]
struct Remembered {
    keys: FxHashMap<[u8; 32], u64>,
    records: FxHashMap<RecordKey, (u64, Bytes)>,
}

/// The directory's rows for searches, with the generation they were read in.
type Rows = Option<(u64, Arc<Vec<AuthorityRow>>)>;

/// The cache of one server.
///
/// The generation and each lock sit on cache lines of their own: read on
/// every request from every core, the generation would otherwise share a
/// line with a lock another core had just taken, and wait for it.
#[derive(Default)]
pub struct ReadCache {
    generation: Line<AtomicU64>,
    /// Active keys and records under one lock: a lookup checks its key,
    /// then reads its record, and finds the lock's memory already here.
    remembered: Line<Mutex<Remembered>>,
    rows: Line<Mutex<Rows>>,
    /// False when no watcher runs: then nothing is remembered.
    watched: bool,
    /// The highest log position a `min_position` read saw applied when it
    /// last moved the generation ([`ReadCache::applied`]).
    applied: std::sync::atomic::AtomicI64,
}

impl ReadCache {
    /// A cache whose watcher follows `projector`'s checkpoints, started on
    /// the current Tokio runtime. Outside one no watcher can run, so the
    /// cache remembers nothing.
    pub fn watching(projector: &Projector) -> Arc<ReadCache> {
        let handle = tokio::runtime::Handle::try_current().ok();
        let cache = Arc::new(ReadCache {
            watched: handle.is_some(),
            ..ReadCache::default()
        });
        if let Some(handle) = handle {
            handle.spawn(watch(projector.clone(), Arc::downgrade(&cache)));
        }
        cache
    }

    /// The current generation: take it before reading the database.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Tells the cache that the projections have applied the log up to
    /// `position` (a `min_position` read waited for it): unless an earlier
    /// such read saw that far already, everything cached so far is forgotten,
    /// so nothing read before `position` was applied is served after. The
    /// watcher would do the same, but only when it next looks.
    pub fn applied(&self, position: i64) {
        // Moved before it is recorded: a read that finds `position`
        // recorded finds the generation moved too.
        if self.applied.load(Ordering::Acquire) < position {
            self.bump();
            self.applied.fetch_max(position, Ordering::AcqRel);
        }
    }

    /// Forgets everything cached so far (the read tables changed).
    pub fn bump(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Whether the key with this SHA-256 was seen active in the current
    /// generation.
    /// Whether `digest` is an API key this cache holds as active in the
    /// current generation (no table read; `false` may just mean unknown).
    pub fn knows_active_key(&self, digest: &[u8; 32]) -> bool {
        let generation = self.generation();
        self.remembered
            .lock()
            .map(|remembered| remembered.keys.get(digest) == Some(&generation))
            .unwrap_or(false)
    }

    /// Remembers an active key, read at `generation`.
    fn remember_key(&self, digest: [u8; 32], generation: u64) {
        if !self.watched {
            return;
        }
        if let Ok(mut remembered) = self.remembered.lock() {
            let keys = &mut remembered.keys;
            if keys.len() >= MAX_ENTRIES {
                keys.clear();
            }
            keys.insert(digest, generation);
        }
    }

    /// The record (as JSON) of `country` (two ASCII letters) on `day`, if it
    /// was read in the current generation.
    pub fn record(&self, country: &str, day: i32) -> Option<Bytes> {
        let key = (record_key(country)?, day);
        let generation = self.generation();
        let remembered = self.remembered.lock().ok()?;
        remembered
            .records
            .get(&key)
            .filter(|(tag, _)| *tag == generation)
            .map(|(_, record)| record.clone())
    }

    /// Remembers the JSON of `country`'s record on `day`, read at `generation`.
    pub fn remember_record(&self, country: &str, day: i32, generation: u64, record: Bytes) {
        let Some(code) = record_key(country) else {
            return;
        };
        if !self.watched {
            return;
        }
        if let Ok(mut remembered) = self.remembered.lock() {
            let records = &mut remembered.records;
            if records.len() >= MAX_ENTRIES {
                records.clear();
            }
            records.insert((code, day), (generation, record));
        }
    }
}

/// Moves the generation whenever the `directory` or `api_keys` checkpoint
/// moves; stops when the runtime or the cache is gone.
impl ReadCache {
    /// Whether the key whose SHA-256 is `digest` is active: from the cache,
    /// else from the `api_keys` table (and remembered when it is). The one
    /// check both edges make.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] when the table cannot be read.
    pub async fn is_active_key(
        &self,
        db: &ReadDb,
        digest: [u8; 32],
    ) -> Result<bool, ProjectionError> {
        if self.knows_active_key(&digest) {
            return Ok(true);
        }
        let generation = self.generation();
        let active = api_keys::is_active(db, &hex_of(&digest)).await?;
        if active {
            self.remember_key(digest, generation);
        }
        Ok(active)
    }

    /// Every directory record, sorted by code: from the cache, else read
    /// (and remembered).
    ///
    /// # Errors
    /// [`ProjectionError::Database`] when the table cannot be read.
    pub async fn directory(&self, db: &ReadDb) -> Result<Arc<Vec<AuthorityRow>>, ProjectionError> {
        let generation = self.generation();
        if let Ok(rows) = self.rows.lock() {
            if let Some((_, rows)) = rows.as_ref().filter(|(tag, _)| *tag == generation) {
                return Ok(rows.clone());
            }
        }
        let rows = Arc::new(Reader::new(db.clone()).all().await?);
        if self.watched {
            if let Ok(mut cached) = self.rows.lock() {
                *cached = Some((generation, rows.clone()));
            }
        }
        Ok(rows)
    }
}

async fn watch(projector: Projector, cache: Weak<ReadCache>) {
    let mut seen: Option<(i64, i64)> = None;
    loop {
        let Some(cache) = cache.upgrade() else { return };
        let positions = projector.status().await.ok().map(|statuses| {
            let at = |name: &str| {
                statuses
                    .iter()
                    .find(|s| s.name == name)
                    .map_or(0, |s| s.position)
            };
            (at(directory::NAME), at(api_keys::NAME))
        });
        if positions.is_none() || positions != seen {
            cache.bump();
        }
        seen = positions;
        drop(cache);
        if seen.is_none() {
            tokio::time::sleep(POLL).await;
            continue;
        }
        let (dir, keys) = seen.unwrap_or_default();
        tokio::select! {
            _ = projector.wait_for(crate::registry::Projection::Directory, dir + 1, POLL) => {}
            _ = projector.wait_for(crate::registry::Projection::ApiKeys, keys + 1, POLL) => {}
        }
    }
}

/// The two letters of a country code, if it is two ASCII bytes.
fn record_key(country: &str) -> Option<[u8; 2]> {
    <[u8; 2]>::try_from(country.as_bytes()).ok()
}

fn hex_of(digest: &[u8; 32]) -> String {
    use std::fmt::Write;
    digest.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}
