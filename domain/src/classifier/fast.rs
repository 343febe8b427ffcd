//! Small speed helpers for the per-request path: a fast non-cryptographic
//! hasher for the read-only tables (keys come from curated data and the
//! description; no adversary gains from collisions beyond a slower
//! lookup), and an index of a description's tokens so that phrase presence
//! checks do not rescan the text.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::normalize::Token;
use super::vocab::UNKNOWN;

/// The Fx hash (rustc's): one multiply-rotate per word of input.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            self.add(u64::from_le_bytes(b));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A `HashSet` with [`FxHasher`].
pub type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

/// Longest string kept inline in a [`ShortKey`], in bytes.
const SHORT: usize = 23;

/// A string of up to [`SHORT`] bytes stored inline (zero-padded, its length
/// in the last byte): a look-up hashes and compares three machine words and
/// reads no memory outside the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ShortKey([u8; SHORT + 1]);

impl ShortKey {
    fn new(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() > SHORT {
            return None;
        }
        let mut k = [0u8; SHORT + 1];
        k[..b.len()].copy_from_slice(b);
        k[SHORT] = u8::try_from(b.len()).unwrap_or(0);
        Some(Self(k))
    }
}

/// A map keyed by strings, with short keys (words, codes) stored inline:
/// same answers as a `HashMap<String, V>`, without following a pointer to
/// compare each key.
#[derive(Debug, Clone)]
pub struct StrMap<V> {
    short: FastMap<ShortKey, V>,
    long: FastMap<String, V>,
}

impl<V> Default for StrMap<V> {
    fn default() -> Self {
        Self {
            short: FastMap::default(),
            long: FastMap::default(),
        }
    }
}

impl<V> StrMap<V> {
    /// Inserts `value` under `key` (replacing any value there).
    pub fn insert(&mut self, key: &str, value: V) {
        match ShortKey::new(key) {
            Some(k) => self.short.insert(k, value),
            None => self.long.insert(key.to_owned(), value),
        };
    }

    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        match ShortKey::new(key) {
            Some(k) => self.short.get(&k),
            None => self.long.get(key),
        }
    }

    /// Every value (unordered).
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.short.values().chain(self.long.values())
    }
}

const NONE: u32 = u32::MAX;

/// Which words a [`TokenIndex`] indexes: the first word of every phrase
/// the classifier asks it about (contexts, scopes, warning lists), each
/// with a small slot number, so that a description's index is two short
/// arrays instead of a hash table of every token.
#[derive(Debug, Clone, Default)]
pub struct IndexedWords {
    /// Per vocabulary id: its slot, or `NONE` when no question starts
    /// with the word.
    slot: Vec<u32>,
    /// How many slots there are.
    slots: usize,
}

impl IndexedWords {
    /// Slots for the first word of each phrase of `phrases` (vocabulary
    /// ids; `vocab_len` ids in all).
    pub fn new<'p>(vocab_len: usize, phrases: impl IntoIterator<Item = &'p [u32]>) -> Self {
        let mut slot = vec![NONE; vocab_len];
        let mut slots = 0usize;
        for p in phrases {
            let Some(s) = p.first().and_then(|&id| slot.get_mut(id as usize)) else {
                continue;
            };
            if *s == NONE {
                *s = u32::try_from(slots).unwrap_or(NONE);
                slots += 1;
            }
        }
        Self { slot, slots }
    }

    fn slot(&self, id: u32) -> u32 {
        self.slot.get(id as usize).copied().unwrap_or(NONE)
    }
}

/// Where each token occurs in a description, by vocabulary id. Every
/// phrase the classifier looks for is interned when the knowledge base is
/// built, so ids answer every question; tokens of unknown words are not
/// indexed (no curated phrase contains them). Only the words of
/// [`IndexedWords`] are indexed; a question about another word scans the
/// tokens (same answers).
pub struct TokenIndex<'a> {
    tokens: &'a [Token<'a>],
    words: &'a IndexedWords,
    /// Per slot: the first position of its word.
    first: Vec<u32>,
    /// Per position: the next position of the same word.
    next: Vec<u32>,
}

impl<'a> TokenIndex<'a> {
    /// Indexes `tokens`.
    pub fn new(tokens: &'a [Token<'a>], words: &'a IndexedWords) -> Self {
        let mut first = vec![NONE; words.slots];
        let mut next = vec![NONE; tokens.len()];
        for (i, t) in tokens.iter().enumerate().rev() {
            let Some(head) = first.get_mut(words.slot(t.id) as usize) else {
                continue;
            };
            let i = u32::try_from(i).unwrap_or(NONE);
            let prev = std::mem::replace(head, i);
            if let Some(slot) = next.get_mut(i as usize) {
                *slot = prev;
            }
        }
        Self {
            tokens,
            words,
            first,
            next,
        }
    }

    /// The first position at or after `from` of the word with id `id`,
    /// for a word that is not indexed.
    fn scan(&self, id: u32, from: usize) -> u32 {
        if id == UNKNOWN {
            return NONE;
        }
        self.tokens
            .get(from..)
            .and_then(|rest| rest.iter().position(|t| t.id == id))
            .map_or(NONE, |p| u32::try_from(from + p).unwrap_or(NONE))
    }

    /// Positions of the word with id `id`, in order.
    fn positions_of(&self, id: u32) -> impl Iterator<Item = usize> + '_ {
        let slot = self.words.slot(id);
        let mut at = if slot == NONE {
            self.scan(id, 0)
        } else {
            self.first.get(slot as usize).copied().unwrap_or(NONE)
        };
        std::iter::from_fn(move || {
            if at == NONE {
                return None;
            }
            let here = at as usize;
            at = if slot == NONE {
                self.scan(id, here + 1)
            } else {
                self.next.get(here).copied().unwrap_or(NONE)
            };
            Some(here)
        })
    }

    /// Start positions where the words with ids `phrase` occur in sequence.
    pub fn phrase_at<'p>(&'p self, phrase: &'p [u32]) -> impl Iterator<Item = usize> + 'p {
        let head = phrase.first().copied().unwrap_or(UNKNOWN);
        self.positions_of(head).filter(move |&p| {
            phrase
                .iter()
                .enumerate()
                .skip(1)
                .all(|(k, w)| self.tokens.get(p + k).is_some_and(|t| t.id == *w))
        })
    }

    /// The token at `i`, if any.
    pub fn token(&self, i: usize) -> Option<&Token<'a>> {
        self.tokens.get(i)
    }

    /// Whether the words with ids `phrase` occur in sequence.
    pub fn has_phrase(&self, phrase: &[u32]) -> bool {
        match phrase.len() {
            0 => false,
            1 => self.positions_of(phrase[0]).next().is_some(),
            _ => self.phrase_at(phrase).next().is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_map_answers_like_a_string_map_for_short_and_long_keys() {
        let mut m = StrMap::default();
        let long = "x".repeat(SHORT + 1);
        let at_limit = "y".repeat(SHORT);
        for (i, k) in ["", "a", "a1160", at_limit.as_str(), long.as_str()]
            .iter()
            .enumerate()
        {
            m.insert(k, i);
        }
        assert_eq!(m.get(""), Some(&0));
        assert_eq!(m.get("a1160"), Some(&2));
        assert_eq!(m.get(&at_limit), Some(&3));
        assert_eq!(m.get(&long), Some(&4));
        assert_eq!(m.get(&long[..SHORT]), None);
        assert_eq!(m.get("a\0"), None);
        m.insert("a", 9);
        assert_eq!(m.get("a"), Some(&9));
        assert_eq!(m.values().count(), 5);
    }
}
