//! Verification of the store against its tree and its checkpoints
//! (`basel audit verify`, and the tail check at start).
//!
//! The tree is recomputed from the events table as stored now, then
//! compared leaf by leaf with the stored leaves, and root by root with every
//! stored checkpoint (whose signatures are checked) and with a checkpoint an
//! auditor saved. What it finds names a position and says what is wrong:
//! altered, missing, reordered, or inconsistent with checkpoint S.

use std::collections::HashMap;
use std::fmt;

use domain::envelope::Envelope;

use super::leaf::{hash_of, read_after};
use super::merkle::{Frontier, Hash};
use super::note::NoteVerifier;
use super::tables::{self, StoredLeaf};
use crate::store::{Backend, StoreError};

/// Events read per query.
const BATCH: i64 = 2000;

/// What is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The event's stored bytes differ from those its leaf was made of.
    Altered,
    /// A leaf's event is no longer stored (deleted, or the log truncated).
    Missing,
    /// The event holds what another position's leaf was made of.
    Reordered,
    /// A checkpoint's root differs from the tree recomputed from the events.
    Inconsistent,
    /// A stored checkpoint is not signed by the service's key, or its note
    /// and row disagree.
    BadCheckpoint,
    /// A JetStream message differs from the event it carries.
    Stream,
    /// A read model differs from a rebuild.
    Projection,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Altered => "altered",
            Self::Missing => "missing",
            Self::Reordered => "reordered",
            Self::Inconsistent => "inconsistent",
            Self::BadCheckpoint => "bad checkpoint",
            Self::Stream => "stream",
            Self::Projection => "projection",
        })
    }
}

/// One thing verification found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What is wrong.
    pub kind: Kind,
    /// The first position concerned, when one can be named.
    pub position: Option<i64>,
    /// In words.
    pub detail: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(position) => write!(f, "position {position}: {}: {}", self.kind, self.detail),
            None => write!(f, "{}: {}", self.kind, self.detail),
        }
    }
}

/// The outcome of a verification.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Events stored.
    pub events: u64,
    /// Leaves in the stored tree.
    pub tree_size: u64,
    /// Stored checkpoints checked.
    pub checkpoints: usize,
    /// The largest checkpoint size that verified (stored or saved).
    pub verified_size: u64,
    /// The root of the tree recomputed from every stored event.
    pub root: Hash,
    /// Every finding, the first bad position first.
    pub findings: Vec<Finding>,
    /// Each stored event's leaf hash by position (for the stream check).
    pub leaf_by_position: HashMap<i64, Hash>,
}

impl Report {
    /// Whether nothing was found wrong.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Reads every event, in position order.
async fn all_events(backend: &Backend) -> Result<Vec<Envelope>, StoreError> {
    let mut events = Vec::new();
    loop {
        let after = events.last().map_or(0, |e: &Envelope| e.position);
        let batch = read_after(backend, after, BATCH).await?;
        let done = batch.len() < BATCH as usize;
        events.extend(batch);
        if done {
            return Ok(events);
        }
    }
}

/// Verifies the store (see the module documentation); `saved` is a signed
/// checkpoint an auditor kept.
///
/// # Errors
/// [`StoreError::Database`] when the store cannot be read (a finding is not
/// an error).
pub async fn verify(
    backend: &Backend,
    verifier: &NoteVerifier,
    saved: Option<&str>,
) -> Result<Report, StoreError> {
    let events = all_events(backend).await?;
    let stored = tables::leaves(backend, u64::MAX >> 1).await?;
    let mut report = Report {
        events: events.len() as u64,
        tree_size: stored.len() as u64,
        ..Report::default()
    };
    let hashes: Vec<Hash> = events.iter().map(hash_of).collect();
    report.leaf_by_position = events
        .iter()
        .map(|e| e.position)
        .zip(hashes.iter().copied())
        .collect();
    if let Some(finding) = compare_leaves(&events, &hashes, &stored) {
        report.findings.push(finding);
    }
    let checkpoints = tables::checkpoints(backend, None).await?;
    report.checkpoints = checkpoints.len();
    let mut notes = Vec::new();
    for checkpoint in &checkpoints {
        match verifier.open(&checkpoint.note) {
            Ok(note) if note.size == checkpoint.size && note.root == checkpoint.root => {
                notes.push((note.size, note.root, "stored checkpoint"));
            }
            Ok(_) => report.findings.push(bad_checkpoint(
                checkpoint.size,
                "its note and its row state different trees",
            )),
            Err(error) => report
                .findings
                .push(bad_checkpoint(checkpoint.size, &error.to_string())),
        }
    }
    if let Some(saved) = saved {
        match verifier.open(saved) {
            Ok(note) => notes.push((note.size, note.root, "saved checkpoint")),
            Err(error) => report.findings.push(Finding {
                kind: Kind::BadCheckpoint,
                position: None,
                detail: format!("the saved checkpoint does not verify: {error}"),
            }),
        }
    }
    notes.sort_by_key(|(size, _, _)| *size);
    check_roots(&hashes, &stored, &notes, &mut report);
    report.root = Frontier::of(&hashes).root();
    report
        .findings
        .sort_by_key(|f| f.position.unwrap_or(i64::MAX));
    Ok(report)
}

fn bad_checkpoint(size: u64, why: &str) -> Finding {
    Finding {
        kind: Kind::BadCheckpoint,
        position: None,
        detail: format!("stored checkpoint of size {size}: {why}"),
    }
}

/// The first leaf whose event is altered, missing or reordered.
fn compare_leaves(events: &[Envelope], hashes: &[Hash], stored: &[StoredLeaf]) -> Option<Finding> {
    let by_position: HashMap<i64, usize> = events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.position, i))
        .collect();
    for (index, leaf) in stored.iter().enumerate() {
        let here = events.get(index);
        if here.map(|e| e.position) == Some(leaf.position) && hashes[index] == leaf.hash {
            continue;
        }
        let Some(&at) = by_position.get(&leaf.position) else {
            let gone = if index >= events.len() {
                format!(
                    "leaf {index} and every later one have no event: the log was truncated to {} events",
                    events.len()
                )
            } else {
                format!("the event of leaf {index} is no longer stored (deleted)")
            };
            return Some(Finding {
                kind: Kind::Missing,
                position: Some(leaf.position),
                detail: gone,
            });
        };
        if let Some(extra) = here.filter(|_| hashes[at] == leaf.hash && at > index) {
            return Some(Finding {
                kind: Kind::Altered,
                position: Some(extra.position),
                detail: format!(
                    "an event no leaf covers was inserted before position {} (leaf {index})",
                    leaf.position
                ),
            });
        }
        return Some(match moved_from(&events[at], stored) {
            Some(from) => Finding {
                kind: Kind::Reordered,
                position: Some(leaf.position),
                detail: format!("it holds the event appended at position {from}"),
            },
            None => Finding {
                kind: Kind::Altered,
                position: Some(leaf.position),
                detail: format!("its stored bytes differ from those of leaf {index}"),
            },
        });
    }
    None
}

/// The position whose leaf `event`'s content was made of, if another's.
fn moved_from(event: &Envelope, stored: &[StoredLeaf]) -> Option<i64> {
    stored.iter().find_map(|leaf| {
        let mut moved = event.clone();
        moved.position = leaf.position;
        (leaf.position != event.position && hash_of(&moved) == leaf.hash).then_some(leaf.position)
    })
}

/// Compares the recomputed tree's root at each checkpoint's size.
fn check_roots(
    hashes: &[Hash],
    stored: &[StoredLeaf],
    notes: &[(u64, Hash, &str)],
    report: &mut Report,
) {
    let mut frontier = Frontier::default();
    let mut next = notes.iter().peekable();
    let mut good = 0;
    for (index, hash) in hashes.iter().enumerate() {
        frontier.push(*hash);
        while let Some((size, root, what)) = next.next_if(|(s, _, _)| *s == index as u64 + 1) {
            if frontier.root() == *root {
                good = *size;
                report.verified_size = report.verified_size.max(*size);
            } else {
                report
                    .findings
                    .push(inconsistent(*size, what, good, hashes, stored));
            }
        }
    }
    for (size, _, what) in next {
        report.findings.push(Finding {
            kind: Kind::Missing,
            position: stored.get(hashes.len()).map(|l| l.position),
            detail: format!(
                "inconsistent with {what} {size}: it covers {size} events, the store holds {}",
                hashes.len()
            ),
        });
    }
}

fn inconsistent(
    size: u64,
    what: &str,
    good: u64,
    hashes: &[Hash],
    stored: &[StoredLeaf],
) -> Finding {
    let first_bad = (good as usize..size as usize)
        .find(|&i| stored.get(i).is_none_or(|leaf| leaf.hash != hashes[i]));
    Finding {
        kind: Kind::Inconsistent,
        position: first_bad.and_then(|i| stored.get(i)).map(|l| l.position),
        detail: format!(
            "inconsistent with {what} {size}: the events recomputed give another root (the change lies after size {good})"
        ),
    }
}

/// Checks the last `count` leaves against their events and the latest
/// checkpoint's signature and root against the stored leaves: the check the
/// service runs at start. `Ok(None)` when all is well.
///
/// # Errors
/// [`StoreError::Database`] when the store cannot be read.
pub async fn check_tail(
    backend: &Backend,
    verifier: &NoteVerifier,
    count: u64,
) -> Result<Option<Finding>, StoreError> {
    let stored = tables::leaves(backend, u64::MAX >> 1).await?;
    let from = stored.len().saturating_sub(count as usize);
    let tail = &stored[from..];
    if let Some(first) = tail.first() {
        let events = read_after(backend, first.position - 1, tail.len() as i64).await?;
        let hashes: Vec<Hash> = events.iter().map(hash_of).collect();
        if let Some(finding) = compare_leaves(&events, &hashes, tail) {
            return Ok(Some(finding));
        }
    }
    let Some(latest) = tables::latest_checkpoint(backend).await? else {
        return Ok(None);
    };
    let note = match verifier.open(&latest.note) {
        Ok(note) => note,
        Err(error) => return Ok(Some(bad_checkpoint(latest.size, &error.to_string()))),
    };
    let leaves: Vec<Hash> = stored
        .iter()
        .take(note.size as usize)
        .map(|l| l.hash)
        .collect();
    if leaves.len() as u64 != note.size || Frontier::of(&leaves).root() != note.root {
        return Ok(Some(Finding {
            kind: Kind::Inconsistent,
            position: None,
            detail: format!(
                "the stored tree is inconsistent with the latest checkpoint {}",
                note.size
            ),
        }));
    }
    Ok(None)
}
