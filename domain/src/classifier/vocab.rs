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

use super::fast::FastMap;

/// The id of a word the curated data never uses.
pub const UNKNOWN: u32 = u32::MAX;

/// The interned vocabulary.
#[derive(Default)]
pub struct Vocab {
    ids: FastMap<String, u32>,
    len: u32,
}

impl Vocab {
    /// The id of `word`, adding it when new (building the knowledge base).
    pub fn intern(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.ids.get(word) {
            return id;
        }
        let id = self.len;
        self.len += 1;
        self.ids.insert(word.to_owned(), id);
        id
    }

    /// The ids of `words`, adding the new ones.
    pub fn intern_all(&mut self, words: &[String]) -> Vec<u32> {
        words.iter().map(|w| self.intern(w)).collect()
    }

    /// The id of `word`, or [`UNKNOWN`].
    pub fn id(&self, word: &str) -> u32 {
        self.ids.get(word).copied().unwrap_or(UNKNOWN)
    }

    /// The id of `word` and the vocabulary's copy of it, if known.
    pub fn get(&self, word: &str) -> Option<(u32, &str)> {
        self.ids.get_key_value(word).map(|(w, id)| (*id, w.as_str()))
    }

    /// How many words there are (ids are `0..len`).
    pub fn len(&self) -> usize {
        self.len as usize
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
        assert_eq!(v.intern_all(&["acid".to_owned(), "lead".to_owned()]), [acid, lead]);
    }
}
