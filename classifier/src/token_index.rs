//! An index of a description's tokens, so that phrase presence checks do
//! not rescan the text.

use super::normalize::Token;
use super::vocab::UNKNOWN;

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
