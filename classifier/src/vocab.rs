//! Interned words: every word of the curated data (phrases, lexicon,
//! qualifiers, scopes, contexts, warning lists) gets a small integer id once,
//! when the knowledge base is built. A description's tokens are looked up
//! once each ([`Vocab::id`]); matching, the lexicon and the token index then
//! compare ids instead of hashing and comparing strings.
//!
//! **Invariant:** two words have the same id exactly when they are the same
//! string; a token whose word the curated data never uses gets [`UNKNOWN`],
//! which equals no curated word's id (so comparing a token's id with a
//! curated word's id gives the same answer as comparing the strings).

use rustc_hash::FxHashMap;

/// The id of a word the curated data never uses.
pub const UNKNOWN: u32 = u32::MAX;

/// The interned vocabulary.
#[derive(Default)]
pub struct Vocab {
    ids: FxHashMap<String, u32>,
    /// The words, by id.
    words: Vec<Box<str>>,
}

impl Vocab {
    /// The id of `word`, adding it when new (building the knowledge base).
    pub fn intern(&mut self, word: &str) -> u32 {
        if let Some((id, _)) = self.get(word) {
            return id;
        }
        let id = u32::try_from(self.words.len()).unwrap_or(UNKNOWN);
        self.words.push(word.into());
        self.ids.insert(word.to_owned(), id);
        id
    }

    /// The ids of `words`, adding the new ones.
    pub fn intern_all(&mut self, words: &[String]) -> Vec<u32> {
        words.iter().map(|w| self.intern(w)).collect()
    }

    /// The id of `word`, or [`UNKNOWN`].
    pub fn id(&self, word: &str) -> u32 {
        self.get(word).map_or(UNKNOWN, |(id, _)| id)
    }

    /// The id of `word` and the vocabulary's copy of it, if known.
    pub fn get(&self, word: &str) -> Option<(u32, &str)> {
        let id = *self.ids.get(word)?;
        self.words.get(id as usize).map(|w| (id, &**w))
    }

    /// The word with id `id`.
    pub fn word(&self, id: u32) -> Option<&str> {
        self.words.get(id as usize).map(|w| &**w)
    }

    /// Every word with its id.
    pub fn words(&self) -> impl Iterator<Item = (u32, &str)> {
        self.words
            .iter()
            .enumerate()
            .map(|(i, w)| (u32::try_from(i).unwrap_or(UNKNOWN), &**w))
    }

    /// How many words there are (ids are `0..len`).
    pub fn len(&self) -> usize {
        self.words.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_word_same_id_and_unknown_words_match_nothing() {
        let mut v = Vocab::default();
        let lead = v.intern("lead");
        let acid = v.intern("acid");
        assert_ne!(lead, acid);
        assert_eq!(v.intern("lead"), lead);
        assert_eq!(v.id("lead"), lead);
        assert_eq!(v.id("leed"), UNKNOWN);
        assert_eq!(v.get("acid"), Some((acid, "acid")));
        assert_eq!(v.get("leed"), None);
        assert_eq!(v.len(), 2);
        assert_eq!(
            v.intern_all(&["acid".to_owned(), "lead".to_owned()]),
            [acid, lead]
        );
        // Long words (past the inline key) work the same way.
        let long = "polychlorinatedbiphenylcontaining";
        let id = v.intern(long);
        assert_eq!(v.get(long), Some((id, long)));
        assert_eq!(v.id(&long[..23]), UNKNOWN);
        let at_limit = &long[..23];
        let id2 = v.intern(at_limit);
        assert_ne!(id, id2);
        assert_eq!(v.get(at_limit), Some((id2, at_limit)));
        assert_eq!(v.len(), 4);
    }
}
