//! A read-through cache of the lookups the edges make on every request (is
//! this API key active? what is this country's record? what does the
//! directory hold, for a search?), so hot paths need no database round trip.
//! The REST edge and the MCP server each keep one.
//!
//! The projector tells the cache what each step of a projection changed
//! before it tells anyone the step was made ([`Projector::advance`]): a step
//! of `directory` makes it forget the records of the countries the step
//! touched (and the directory's rows, for searches), a step of `api_keys`
//! the keys it knew active. Every other entry stays. The projector hears of
//! every step when it runs the projections itself, or by PostgreSQL
//! notifications from the process that does ([`crate::follow`]); while it
//! hears of none, the cache remembers nothing.
//!
//! A value read from the database is remembered only if nothing was
//! forgotten about it since the reader took the [`ReadCache::generation`]
//! (taken *before* the read): a row read just before a change is never
//! served after the change was heard of. Only active keys are cached: a new
//! key works at once; a revoked one stops when `api_keys` applies the
//! revocation.
//!
//! One cache per server, so servers over different stores in one process
//! never share.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use rustc_hash::FxHashMap;

use crate::directory::{AuthorityRow, Reader};
use crate::progress::Changed;
use crate::progress::{Feed, Forgets};
use crate::registry::Projection;
use crate::runner::Projector;
use crate::{api_keys, ProjectionError, ReadDb};

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

/// Active keys (by SHA-256) and records, and when each kind was last
/// forgotten (a generation). Hashed with rustc's Fx hash, several times
/// cheaper than std's SipHash on every lookup: no client chooses these keys
/// (only keys found active in the `api_keys` table are remembered, under
/// their digests, and records under country codes and days), so there is no
/// flooding to resist.
#[derive(Default)]
struct Remembered {
    keys: FxHashMap<[u8; 32], ()>,
    records: FxHashMap<RecordKey, Bytes>,
    /// When the keys were last forgotten.
    keys_forgotten: u64,
    /// When each country's records were last forgotten.
    records_forgotten: FxHashMap<[u8; 2], u64>,
    /// When every record was last forgotten.
    all_records_forgotten: u64,
}

impl Remembered {
    fn record_forgotten(&self, code: [u8; 2]) -> u64 {
        self.records_forgotten
            .get(&code)
            .copied()
            .unwrap_or(0)
            .max(self.all_records_forgotten)
    }
}

/// The directory's rows for searches, and when they were last forgotten.
#[derive(Default)]
struct Rows {
    rows: Option<Arc<Vec<AuthorityRow>>>,
    forgotten: u64,
}

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
    /// How the projector hears of steps; `None` (no projector): nothing is
    /// remembered.
    feed: Option<Arc<Feed>>,
}

impl ReadCache {
    /// A cache that `projector` tells what each step changes.
    pub fn watching(projector: &Projector) -> Arc<ReadCache> {
        let cache = Arc::new(ReadCache {
            feed: Some(projector.feed.clone()),
            ..ReadCache::default()
        });
        let weak: std::sync::Weak<dyn Forgets> = Arc::downgrade(&cache) as _;
        projector.tell(weak);
        cache
    }

    /// The current generation: take it before reading the database, and
    /// hand it back with what was read.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether values read now may be remembered: the projector hears of
    /// every step (else a change could go unheard and a value stay stale).
    fn remembering(&self) -> bool {
        self.feed.as_ref().is_some_and(|feed| feed.heard())
    }

    /// A new generation, for what is being forgotten now.
    fn next(&self) -> u64 {
        self.generation.fetch_add(1, Ordering::AcqRel) + 1
    }

    /// Forgets what `projection`'s step changed: for `directory`, the
    /// records of the countries in `changed` and the directory's rows; for
    /// `api_keys`, every key known active. Other projections feed nothing
    /// cached here.
    pub fn forget(&self, projection: Projection, changed: &Changed) {
        match projection {
            Projection::Directory => {
                if let Ok(mut remembered) = self.remembered.lock() {
                    let now = self.next();
                    match changed {
                        Changed::Everything => {
                            remembered.records.clear();
                            remembered.records_forgotten.clear();
                            remembered.all_records_forgotten = now;
                        }
                        Changed::Aggregates(ids) => {
                            let codes: Vec<[u8; 2]> =
                                ids.iter().filter_map(|id| record_key(id)).collect();
                            remembered
                                .records
                                .retain(|(code, _), _| !codes.contains(code));
                            for code in codes {
                                remembered.records_forgotten.insert(code, now);
                            }
                        }
                    }
                }
                if let Ok(mut rows) = self.rows.lock() {
                    rows.rows = None;
                    rows.forgotten = self.next();
                }
            }
            Projection::ApiKeys => {
                if let Ok(mut remembered) = self.remembered.lock() {
                    remembered.keys.clear();
                    remembered.keys_forgotten = self.next();
                }
            }
            _ => {}
        }
    }

    /// Forgets everything (a local change the projector will not tell of).
    pub fn forget_everything(&self) {
        self.forget(Projection::Directory, &Changed::Everything);
        self.forget(Projection::ApiKeys, &Changed::Everything);
    }

    /// Whether `digest` is an API key this cache holds as active (no table
    /// read; `false` may just mean unknown).
    pub fn knows_active_key(&self, digest: &[u8; 32]) -> bool {
        self.remembered
            .lock()
            .is_ok_and(|remembered| remembered.keys.contains_key(digest))
    }

    /// Remembers an active key, read at `generation`.
    fn remember_key(&self, digest: [u8; 32], generation: u64) {
        if !self.remembering() {
            return;
        }
        if let Ok(mut remembered) = self.remembered.lock() {
            if generation < remembered.keys_forgotten {
                return;
            }
            let keys = &mut remembered.keys;
            if keys.len() >= MAX_ENTRIES {
                keys.clear();
            }
            keys.insert(digest, ());
        }
    }

    /// The record (as JSON) of `country` (two ASCII letters) on `day`, if
    /// it is remembered.
    pub fn record(&self, country: &str, day: i32) -> Option<Bytes> {
        let key = (record_key(country)?, day);
        let remembered = self.remembered.lock().ok()?;
        remembered.records.get(&key).cloned()
    }

    /// Remembers the JSON of `country`'s record on `day`, read at
    /// `generation`, unless the country's records were forgotten since.
    pub fn remember_record(&self, country: &str, day: i32, generation: u64, record: Bytes) {
        let Some(code) = record_key(country) else {
            return;
        };
        if !self.remembering() {
            return;
        }
        if let Ok(mut remembered) = self.remembered.lock() {
            if generation < remembered.record_forgotten(code) {
                return;
            }
            let records = &mut remembered.records;
            if records.len() >= MAX_ENTRIES {
                records.clear();
            }
            records.insert((code, day), record);
        }
    }

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
        if let Ok(rows) = self.rows.lock() {
            if let Some(rows) = &rows.rows {
                return Ok(rows.clone());
            }
        }
        let generation = self.generation();
        let rows = Arc::new(Reader::new(db.clone()).all().await?);
        if self.remembering() {
            if let Ok(mut cached) = self.rows.lock() {
                if generation >= cached.forgotten {
                    cached.rows = Some(rows.clone());
                }
            }
        }
        Ok(rows)
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

impl Forgets for ReadCache {
    fn forget(&self, projection: Projection, changed: &Changed) {
        ReadCache::forget(self, projection, changed);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::progress::Feed;

    fn heard() -> ReadCache {
        let feed = Feed::default();
        feed.local.store(true, Ordering::Release);
        ReadCache {
            feed: Some(Arc::new(feed)),
            ..ReadCache::default()
        }
    }

    fn remember(cache: &ReadCache, code: &str) {
        let generation = cache.generation();
        cache.remember_record(code, 1, generation, Bytes::from(code.to_owned()));
    }

    fn only(codes: &[&str]) -> Changed {
        Changed::Aggregates(
            codes
                .iter()
                .map(|c| (*c).to_owned())
                .collect::<BTreeSet<_>>(),
        )
    }

    #[test]
    fn a_directory_step_forgets_only_the_records_it_touched() {
        let cache = heard();
        remember(&cache, "DE");
        remember(&cache, "FR");
        cache.remember_key([7; 32], cache.generation());
        cache.forget(Projection::Directory, &only(&["DE", "key-1"]));
        assert_eq!(cache.record("DE", 1), None);
        assert_eq!(cache.record("FR", 1).as_deref(), Some(&b"FR"[..]));
        assert!(cache.knows_active_key(&[7; 32]), "keys stay");
        cache.forget(Projection::ApiKeys, &only(&["key-1"]));
        assert!(!cache.knows_active_key(&[7; 32]));
        assert_eq!(
            cache.record("FR", 1).as_deref(),
            Some(&b"FR"[..]),
            "records stay"
        );
        cache.forget(Projection::History, &Changed::Everything);
        assert!(
            cache.record("FR", 1).is_some(),
            "history feeds nothing cached"
        );
        cache.forget(Projection::Directory, &Changed::Everything);
        assert_eq!(cache.record("FR", 1), None);
    }

    #[test]
    fn a_value_read_before_a_step_touched_it_is_not_remembered() {
        let cache = heard();
        let before = cache.generation();
        cache.forget(Projection::Directory, &only(&["DE"]));
        cache.remember_record("DE", 1, before, Bytes::from_static(b"old"));
        assert_eq!(cache.record("DE", 1), None, "read before the step");
        cache.remember_record("FR", 1, before, Bytes::from_static(b"FR"));
        assert!(
            cache.record("FR", 1).is_some(),
            "another country's read stays"
        );
        cache.forget(Projection::ApiKeys, &Changed::Everything);
        cache.remember_key([1; 32], before);
        assert!(!cache.knows_active_key(&[1; 32]));
        remember(&cache, "DE");
        assert!(cache.record("DE", 1).is_some(), "read after the step");
    }

    #[test]
    fn a_cache_whose_projector_hears_nothing_remembers_nothing() {
        let cache = ReadCache::default();
        remember(&cache, "DE");
        assert_eq!(cache.record("DE", 1), None);
        let deaf = ReadCache {
            feed: Some(Arc::default()),
            ..ReadCache::default()
        };
        remember(&deaf, "DE");
        assert_eq!(deaf.record("DE", 1), None);
    }
}
