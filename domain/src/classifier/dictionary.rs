//! The words of real spelling dictionaries (`domain/data/dictionary_words.fst`,
//! sources and licences in `domain/data/DICTIONARY_SOURCES.md`): every form
//! of three letters or more of the Hunspell dictionaries of English, German,
//! Spanish, Dutch and Polish (expanded with their affix rules), and the head
//! words of French, Italian, Portuguese and Turkish, lower case.
//!
//! A word found here is a word of some supported language, so the spelling
//! corrector leaves it as written ("garages" is not "garbage", "tower" is
//! not "toner"): only a word no dictionary knows is corrected toward the
//! classifier's vocabulary.
//!
//! **Boundary:** the set is a finite-state transducer embedded with
//! `include_bytes!` and read in place (no parsing, no allocation).

use fst::Set;

use super::error::KnowledgeBaseError;

const WORDS: &[u8] = include_bytes!("../../data/dictionary_words.fst");

/// The dictionary words.
pub struct Dictionary {
    set: Set<&'static [u8]>,
}

impl Dictionary {
    /// Opens the embedded set.
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when the embedded bytes are no set.
    pub fn bundled() -> Result<Self, KnowledgeBaseError> {
        let set = Set::new(WORDS).map_err(|e| KnowledgeBaseError::Parse {
            file: "dictionary_words.fst",
            message: e.to_string(),
        })?;
        Ok(Self { set })
    }

    /// Whether `word` (as written; compared in lower case) is a word of a
    /// dictionary.
    pub fn contains(&self, word: &str) -> bool {
        if word.chars().any(char::is_uppercase) {
            self.set.contains(word.to_lowercase())
        } else {
            self.set.contains(word)
        }
    }
}
