//! Situations a compliance officer must be told about, read from the
//! (English-read) tokens: reuse or repair claims, goods that may not be
//! waste, claims only a lab can settle, ships, whole objects, and text in
//! a language the lexicon does not cover.

use super::normalize::is_ideograph;
use super::result::WarningCode;
use super::token_index::TokenIndex;
use super::vocab::Vocab;

/// The situations found, each with the words that show it.
#[derive(Debug, Default)]
pub struct Signals {
    /// (code, the words found)
    pub found: Vec<(WarningCode, Vec<String>)>,
}

const REUSE: [&str; 14] = [
    "reuse",
    "repair",
    "refurbishment",
    "refurbished",
    "refurbish",
    "resale",
    "second hand",
    "secondhand",
    "warranty",
    "rma",
    "remanufacturing",
    "working",
    "functional",
    "untested",
];

const NOT_WASTE: [&str; 14] = [
    "new",
    "virgin",
    "prime",
    "in date",
    "shelf life",
    "commercial spec",
    "meets commercial",
    "meets specification",
    "product",
    "export order",
    "sold as",
    "retail",
    "mill test",
    "feed safety",
];

const SHIP: [&str; 10] = [
    "ship",
    "vessel",
    "barge",
    "tanker",
    "bulk carrier",
    "hulk",
    "fpso",
    "floating",
    "offshore platform",
    "ihm",
];

const WHOLE: [&str; 12] = [
    "vehicle",
    "car",
    "truck",
    "bus",
    "ship",
    "vessel",
    "barge",
    "aircraft",
    "locomotive",
    "wagon",
    "machine",
    "scanner",
];

const UNRESOLVED: [&str; 9] = [
    "suspected",
    "likely",
    "pending",
    "not analysed",
    "not yet analysed",
    "no analysis",
    "unanalysed",
    "not characterised",
    "varies",
];

/// A list of phrases as vocabulary ids (interned when the knowledge base is
/// built), for one warning.
type List = (WarningCode, Vec<(&'static str, Vec<u32>)>);

/// The warning lists, compiled once.
pub struct Lists {
    lists: Vec<List>,
}

impl Lists {
    /// Interns every word of the lists.
    pub fn new(vocab: &mut Vocab) -> Self {
        let lists = [
            (WarningCode::ReuseClaim, &REUSE[..]),
            (WarningCode::PossiblyNotWaste, &NOT_WASTE[..]),
            (WarningCode::ShipRecycling, &SHIP[..]),
            (WarningCode::WholeObject, &WHOLE[..]),
            (WarningCode::LabAnalysis, &UNRESOLVED[..]),
        ]
        .into_iter()
        .map(|(code, list)| {
            let phrases = list
                .iter()
                .map(|p| {
                    let ids = p
                        .split(' ')
                        .filter(|w| !w.is_empty())
                        .map(|w| vocab.intern(w))
                        .collect();
                    (*p, ids)
                })
                .collect();
            (code, phrases)
        })
        .collect();
        Self { lists }
    }
}

impl Lists {
    /// Every phrase of the lists, as vocabulary ids.
    pub fn phrases(&self) -> impl Iterator<Item = &[u32]> {
        self.lists
            .iter()
            .flat_map(|(_, l)| l.iter().map(|(_, ids)| ids.as_slice()))
    }
}

fn present(index: &TokenIndex<'_>, list: &[(&'static str, Vec<u32>)]) -> Vec<String> {
    list.iter()
        .filter(|(_, ids)| index.has_phrase(ids))
        .map(|(p, _)| (*p).to_owned())
        .collect()
}

/// Like [`present`], but not where the words name the source ("from a car
/// repair workshop" claims no repair and is no whole car).
fn present_not_source(index: &TokenIndex<'_>, list: &[(&'static str, Vec<u32>)]) -> Vec<String> {
    list.iter()
        .filter(|(_, ids)| {
            index.phrase_at(ids).any(|at| {
                !(at.saturating_sub(4)..at).any(|k| {
                    index
                        .token(k)
                        .is_some_and(|t| matches!(t.word(), "from" | "by" | "during"))
                })
            })
        })
        .map(|(p, _)| (*p).to_owned())
        .collect()
}

/// Reads the situations from the tokens and the original text.
pub fn read(index: &TokenIndex<'_>, lists: &Lists, original: &str, unknown_share: f64) -> Signals {
    let mut s = Signals::default();
    for (code, list) in &lists.lists {
        let code = *code;
        let words = match code {
            WarningCode::ReuseClaim | WarningCode::WholeObject => present_not_source(index, list),
            _ => present(index, list),
        };
        if !words.is_empty() {
            s.found.push((code, words));
        }
    }
    if uncovered_script(original) || unknown_share > 0.6 {
        s.found.push((WarningCode::LanguageNotCovered, Vec::new()));
    }
    s
}

impl Signals {
    /// The words for `code`, if found.
    pub fn get(&self, code: WarningCode) -> Option<&[String]> {
        self.found
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, w)| w.as_slice())
    }
}

/// Most letters are in a script the lexicon has no words for (Cyrillic,
/// Arabic, Greek, Hebrew, Indic, Thai, Korean, Japanese kana, ...).
fn uncovered_script(text: &str) -> bool {
    // ASCII letters are all Latin: nothing to count.
    if text.is_ascii() {
        return false;
    }
    let (mut letters, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        let latin = (c as u32) < 0x0250 || (0x1E00..0x1F00).contains(&(c as u32));
        if !latin && !is_ideograph(c) {
            other += 1;
        }
    }
    letters > 0 && other * 2 > letters
}
