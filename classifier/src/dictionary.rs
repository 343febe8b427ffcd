//! The words of real word lists (`classifier/data/dictionary_words.fst`,
//! sources and licences in `classifier/data/DICTIONARY_SOURCES.md`), each with
//! the languages whose list holds it: every form of three letters or more
//! of the Hunspell dictionaries of English, Spanish, Dutch and Polish
//! (expanded with their affix rules), the head words of French, Italian,
//! Portuguese and Turkish, and the German forms of Wikidata's lexemes
//! (CC0), lower case.
//!
//! Two uses:
//! - a word found here is a word of some supported language, so the
//!   spelling corrector leaves it as written ("garages" is not "garbage",
//!   "tower" is not "toner");
//! - German and Dutch compounds are split into words of this list
//!   ([`Dictionary::split`]): "Kupferkabelreste" is "kupfer|kabel|reste".
//!
//! **Boundary:** the map is a finite-state transducer embedded with
//! `include_bytes!` and read in place (no parsing, no allocation).

use fst::raw::{Fst, Output};
use fst::Map;

use super::error::KnowledgeBaseError;

const WORDS: &[u8] = include_bytes!("../data/dictionary_words.fst");

/// The language bits of the map's values (see `dictionary_words.py`: en 1,
/// de 2, es 4, nl 8, pl 16, fr 32, it 64, pt 128, tr 256).
pub mod lang {
    /// English.
    #[cfg(test)]
    pub const EN: u64 = 1;
    /// German.
    pub const DE: u64 = 2;
    /// Dutch.
    pub const NL: u64 = 8;
    /// The languages that write compounds as one word.
    pub const COMPOUNDING: u64 = DE | NL;
}

/// The linking elements between the parts of a German or Dutch compound
/// ("Walz|zunder", "Altöl|s|ammel…", "Batterie|n|schrott", "Kabel|n|…").
const LINKS: [&str; 6] = ["", "s", "es", "n", "en", "e"];

/// The most parts a compound is split into.
const MAX_PARTS: usize = 4;

/// The shortest part of a compound, in characters.
const MIN_PART: usize = 3;

/// The dictionary words and their languages.
pub struct Dictionary {
    map: Map<&'static [u8]>,
}

impl Dictionary {
    /// Opens the embedded map.
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when the embedded bytes are no map.
    pub fn bundled() -> Result<Self, KnowledgeBaseError> {
        let map = Map::new(WORDS).map_err(|e| KnowledgeBaseError::Parse {
            file: "dictionary_words.fst",
            message: e.to_string(),
        })?;
        Ok(Self { map })
    }

    /// The languages (bits of [`lang`]) whose list holds `word` (compared
    /// in lower case; "ß" also as "ss"); 0: none.
    pub fn languages(&self, word: &str) -> u64 {
        let lower;
        let word = if word.chars().any(char::is_uppercase) {
            lower = word.to_lowercase();
            lower.as_str()
        } else {
            word
        };
        let found = self.map.get(word).unwrap_or(0);
        if found == 0 && word.contains('ß') {
            return self.map.get(word.replace('ß', "ss")).unwrap_or(0);
        }
        found
    }

    /// Whether `word` is a word of a dictionary.
    pub fn contains(&self, word: &str) -> bool {
        self.languages(word) != 0
    }

    /// The prefixes of `word` (lower case) that are words of the lists of
    /// `langs`, as byte lengths, shortest first (one walk down the map).
    fn prefixes(&self, word: &str, langs: u64, out: &mut Vec<usize>) {
        out.clear();
        let fst: &Fst<&[u8]> = self.map.as_fst();
        let mut node = fst.root();
        let mut value = Output::zero();
        for (i, b) in word.bytes().enumerate() {
            let Some(t) = node.find_input(b) else {
                return;
            };
            let tr = node.transition(t);
            value = value.cat(tr.out);
            node = fst.node(tr.addr);
            let end = i + 1;
            if node.is_final()
                && word.is_char_boundary(end)
                && word[..end].chars().count() >= MIN_PART
                && value.cat(node.final_output()).value() & langs != 0
            {
                out.push(end);
            }
        }
    }

    /// Splits a German or Dutch compound (lower case, as written) into
    /// words of the German or of the Dutch list, with the linking elements
    /// "-s-", "-es-", "-n-", "-en-", "-e-" between parts: the split with
    /// the fewest parts, of those the one with the longest last part (the
    /// head, which names what the thing is). Each part is returned without
    /// its linking element. `None` when the word is no such compound, and
    /// always when the word is itself a word of a list of a language that
    /// does not write compounds as one word (English "garages" is never
    /// "gar|ages").
    pub fn split(&self, word: &str) -> Option<Vec<String>> {
        let langs = self.languages(word);
        if langs & !lang::COMPOUNDING != 0 || word.chars().count() < 2 * MIN_PART {
            return None;
        }
        let mut best: Option<Vec<(usize, usize)>> = None;
        for l in [lang::DE, lang::NL] {
            let mut parts = Vec::with_capacity(MAX_PARTS);
            let mut found = None;
            self.split_from(word, 0, l, &mut parts, &mut found);
            if let Some(f) = found {
                if best.as_ref().is_none_or(|b| better(word, &f, b)) {
                    best = Some(f);
                }
            }
        }
        best.map(|b| b.iter().map(|&(s, e)| word[s..e].to_owned()).collect())
    }

    /// Splits `word[at..]` after `parts` (byte ranges of the parts), keeping
    /// the best complete split in `found`.
    fn split_from(
        &self,
        word: &str,
        at: usize,
        langs: u64,
        parts: &mut Vec<(usize, usize)>,
        found: &mut Option<Vec<(usize, usize)>>,
    ) {
        if at == word.len() {
            if parts.len() >= 2 && found.as_ref().is_none_or(|f| better(word, parts, f)) {
                *found = Some(parts.clone());
            }
            return;
        }
        if parts.len() >= MAX_PARTS || found.as_ref().is_some_and(|f| f.len() <= parts.len()) {
            return;
        }
        let mut ends = Vec::new();
        self.prefixes(&word[at..], langs, &mut ends);
        for &len in ends.iter().rev() {
            let end = at + len;
            parts.push((at, end));
            for link in LINKS {
                let rest = &word[end..];
                // A linking element is never the end of the word.
                if !rest.starts_with(link) || (!link.is_empty() && rest.len() == link.len()) {
                    continue;
                }
                self.split_from(word, end + link.len(), langs, parts, found);
            }
            parts.pop();
        }
    }
}

/// Whether split `a` of `word` is better than `b`: fewer parts, then a
/// longer last part.
fn better(word: &str, a: &[(usize, usize)], b: &[(usize, usize)]) -> bool {
    let head = |p: &[(usize, usize)]| p.last().map_or(0, |&(s, e)| word[s..e].chars().count());
    a.len() < b.len() || (a.len() == b.len() && head(a) > head(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(w: &str) -> Option<Vec<String>> {
        Dictionary::bundled().expect("dictionary").split(w)
    }

    #[test]
    fn german_compounds_split_into_dictionary_words_with_linking_elements() {
        assert_eq!(split("walzzunder").unwrap(), ["walz", "zunder"]);
        // The fewest parts: "Kupferkabel" is itself a word of the list (the
        // lexicon then splits it again when it does not know it whole).
        assert_eq!(split("kupferkabelreste").unwrap(), ["kupferkabel", "reste"]);
        assert_eq!(
            split("gipskartonplatten").unwrap(),
            ["gipskarton", "platten"]
        );
        assert_eq!(split("altbatterien").unwrap(), ["alt", "batterien"]);
        // -s- between the parts, not kept in them.
        assert_eq!(
            split("abfallverbrennungsasche").unwrap(),
            ["abfallverbrennung", "asche"]
        );
        assert_eq!(split("zinkasche").unwrap(), ["zink", "asche"]);
    }

    #[test]
    fn dutch_compounds_split() {
        assert_eq!(split("afvalolie").unwrap(), ["afval", "olie"]);
        assert_eq!(split("loodaccu").unwrap(), ["lood", "accu"]);
    }

    #[test]
    fn words_of_languages_without_compounds_are_never_split() {
        for w in ["garages", "cartridges", "tower", "together"] {
            assert_eq!(split(w), None, "{w}");
        }
    }

    #[test]
    fn words_that_are_no_compound_stay_whole() {
        for w in ["zunder", "kabel", "xqzvbnmrtk"] {
            assert_eq!(split(w), None, "{w}");
        }
    }

    #[test]
    fn languages_are_told_apart() {
        let d = Dictionary::bundled().expect("dictionary");
        assert_ne!(d.languages("garages") & lang::EN, 0);
        assert_ne!(d.languages("Zunder") & lang::DE, 0);
        assert_eq!(d.languages("Zunder") & lang::EN, 0);
        assert_ne!(d.languages("Straße") & lang::DE, 0);
    }
}
