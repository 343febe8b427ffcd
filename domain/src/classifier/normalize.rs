//! Text normalisation: the same function turns both the user's description
//! and the curated terms into tokens, so they meet half-way.
//!
//! Lower case; every non-alphanumeric character separates tokens (so
//! "lead-acid" and "lead acid" agree); British/American spelling and
//! plural/singular folded by `fold_in_place`. Clause punctuation is kept as a
//! flag on the next token, because negation stops at a clause boundary.

use std::borrow::Cow;

use super::fast::FastMap;
use super::fold_table::FOLD;
use super::vocab::{Vocab, UNKNOWN};

/// One normalised word of a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token<'k> {
    /// The folded word: the knowledge base's copy when it knows the word
    /// (no allocation), else the description's own.
    pub text: Cow<'k, str>,
    /// The word's id in the knowledge base's vocabulary
    /// ([`super::vocab::UNKNOWN`] when the curated data never uses it).
    pub id: u32,
    /// What precedes it: [`NO_BREAK`], [`COMMA`] or [`CLAUSE`] (`. ; : ! ?`
    /// or a line break). Brackets do not break: "chromium(VI)" is one phrase.
    pub break_before: u8,
    /// Byte range of the word in the original description, for quoting.
    pub span: (usize, usize),
    /// The word was read through the multilingual lexicon or a spelling
    /// correction, not as written.
    pub origin: Origin,
}

impl Token<'_> {
    /// The folded word.
    pub fn word(&self) -> &str {
        &self.text
    }
}

/// How a token was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// As written (after folding).
    Written,
    /// Translated from another language by the lexicon.
    Translated,
    /// A misspelling corrected to a known word.
    Corrected,
}

/// No punctuation before the token.
pub const NO_BREAK: u8 = 0;
/// A comma (or `/`, `&`, `+`) before the token: a list continues.
pub const COMMA: u8 = 1;
/// A clause break before the token.
pub const CLAUSE: u8 = 2;

/// The longest description the classifier reads, in characters. Longer input
/// is cut here (with a warning), which bounds the work per request.
pub const MAX_CHARS: usize = 5000;

/// Ideographs (Chinese, Japanese kanji) are one token each: those scripts
/// write no spaces, so the lexicon matches them character by character.
pub fn is_ideograph(ch: char) -> bool {
    matches!(ch as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// Lower case without diacritics: `É` → `e`, `ắ` → `a`, `ß` → `ss`.
pub fn fold_char(ch: char, out: &mut String) {
    for low in ch.to_lowercase() {
        if low.is_ascii() {
            out.push(low);
            continue;
        }
        match FOLD.binary_search_by_key(&low, |(c, _)| *c) {
            Ok(i) => out.push_str(FOLD[i].1),
            Err(_) => out.push(low),
        }
    }
}

/// Splits and folds `text` into tokens, reading at most [`MAX_CHARS`].
/// Decimal numbers stay whole ("0,3" → "0.3"); `<`, `>`, `≤`, `≥` and `%`
/// are tokens of their own, so amounts can be read.
/// Each token's `id` is its word's id in `vocab`.
pub fn tokenize<'k>(
    text: &str,
    spellings: &FastMap<String, String>,
    vocab: &'k Vocab,
) -> Vec<Token<'k>> {
    let mut out = Words {
        tokens: Vec::with_capacity(text.len() / 5 + 1),
        pending_break: NO_BREAK,
        spellings,
        vocab,
    };
    let mut word = String::with_capacity(24);
    let mut start = 0;
    let mut chars = Cursor {
        text,
        pos: 0,
        left: MAX_CHARS,
    };
    let mut end = 0;
    while let Some((i, ch)) = chars.next() {
        end = i + ch.len_utf8();
        if ch.is_ascii_alphanumeric() {
            if word.is_empty() {
                start = i;
            }
            word.push(ch.to_ascii_lowercase());
            // The ASCII letters and digits that follow, in one step.
            let run = chars.ascii_alphanumeric_run();
            if let Some(rest) = text.get(run.0..run.1).filter(|r| !r.is_empty()) {
                let from = word.len();
                word.push_str(rest);
                word[from..].make_ascii_lowercase();
                end = run.1;
            }
            continue;
        }
        if is_ideograph(ch) {
            out.flush(&mut word, start, i);
            word.push(ch);
            out.flush(&mut word, i, i + ch.len_utf8());
            continue;
        }
        if ch.is_alphanumeric() {
            if word.is_empty() {
                start = i;
            }
            fold_char(ch, &mut word);
            continue;
        }
        let decimal = matches!(ch, '.' | ',')
            && word.bytes().last().is_some_and(|b| b.is_ascii_digit())
            && word.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && chars.peek().is_some_and(|c| c.is_ascii_digit());
        if decimal && !word.contains('.') {
            word.push('.');
            continue;
        }
        out.flush(&mut word, start, i);
        let symbol = match ch {
            '<' | '≤' | '＜' => Some("<"),
            '>' | '≥' | '＞' => Some(">"),
            '%' | '％' => Some("%"),
            _ => None,
        };
        if let Some(s) = symbol {
            word.push_str(s);
            start = i;
            out.flush(&mut word, i, i + ch.len_utf8());
            continue;
        }
        let level = match ch {
            '.' | ';' | ':' | '\n' | '!' | '?' | '。' | '；' | '：' => CLAUSE,
            ',' | '/' | '&' | '+' | '，' | '、' => COMMA,
            _ => NO_BREAK,
        };
        out.pending_break = out.pending_break.max(level);
    }
    out.flush(&mut word, start, end);
    out.tokens
}

/// The characters of a text up to [`MAX_CHARS`], with their byte offsets.
struct Cursor<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    /// Characters still to read.
    left: usize,
}

impl Cursor<'_> {
    fn next(&mut self) -> Option<(usize, char)> {
        let ch = self.peek()?;
        let at = self.pos;
        self.pos += ch.len_utf8();
        self.left -= 1;
        Some((at, ch))
    }

    fn peek(&self) -> Option<char> {
        if self.left == 0 {
            return None;
        }
        match self.text.as_bytes().get(self.pos) {
            // ASCII: the byte is the character.
            Some(&b) if b.is_ascii() => Some(char::from(b)),
            _ => self.text.get(self.pos..)?.chars().next(),
        }
    }

    /// Reads the ASCII letters and digits that follow; their byte range.
    fn ascii_alphanumeric_run(&mut self) -> (usize, usize) {
        let from = self.pos;
        let bytes = self.text.as_bytes();
        while self.left > 0 && bytes.get(self.pos).is_some_and(u8::is_ascii_alphanumeric) {
            self.pos += 1;
            self.left -= 1;
        }
        (from, self.pos)
    }
}

/// The tokens read so far and the break before the next one.
struct Words<'s, 'k> {
    tokens: Vec<Token<'k>>,
    pending_break: u8,
    spellings: &'s FastMap<String, String>,
    vocab: &'k Vocab,
}

impl Words<'_, '_> {
    /// Ends the word being read (if any) as a token spanning `start..end`.
    fn flush(&mut self, word: &mut String, start: usize, end: usize) {
        if word.is_empty() {
            return;
        }
        fold_in_place(word, self.spellings);
        let (id, text) = match self.vocab.get(word) {
            Some((id, known)) => (id, Cow::Borrowed(known)),
            None => (UNKNOWN, Cow::Owned(word.clone())),
        };
        word.clear();
        self.tokens.push(Token {
            id,
            text,
            break_before: std::mem::take(&mut self.pending_break),
            span: (start, end),
            origin: Origin::Written,
        });
    }
}

/// Folds one lower-case word in place: spelling variants first (from the
/// curated table), then `-ize` to `-ise`, then a light plural strip.
fn fold_in_place(w: &mut String, spellings: &FastMap<String, String>) {
    if let Some(canonical) = spellings.get(w.as_str()) {
        w.clone_from(canonical);
        return;
    }
    let before = w.len();
    british(w);
    singular(w);
    if w.len() != before {
        if let Some(canonical) = spellings.get(w.as_str()) {
            w.clone_from(canonical);
        }
    }
}

fn british(word: &mut String) {
    for (us, gb) in [
        ("ization", "isation"),
        ("izing", "ising"),
        ("ized", "ised"),
        ("izes", "ises"),
        ("ize", "ise"),
        ("izer", "iser"),
    ] {
        if word.len() > us.len() + 2 && word.ends_with(us) {
            word.truncate(word.len() - us.len());
            word.push_str(gb);
            return;
        }
    }
}

fn singular(word: &mut String) {
    if word.len() <= 3 || !word.is_ascii() || word.bytes().any(|b| b.is_ascii_digit()) {
        return;
    }
    if word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
        return;
    }
    for suffix in ["sses", "xes", "ches", "shes", "zzes"] {
        if word.ends_with(suffix) {
            word.truncate(word.len() - 2);
            return;
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word.pop();
    }
}

/// Normalises a curated phrase into its token texts.
pub fn phrase_tokens(phrase: &str, spellings: &FastMap<String, String>) -> Vec<String> {
    tokenize(phrase, spellings, &Vocab::default())
        .into_iter()
        .map(|t| t.text.into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        phrase_tokens(s, &FastMap::default())
    }

    #[test]
    fn hyphens_case_and_plurals_fold_together() {
        assert_eq!(texts("Lead-Acid Batteries"), texts("lead acid battery"));
        assert_eq!(texts("PCBs"), vec!["pcb"]);
        assert_eq!(texts("galvanized"), texts("galvanised"));
    }

    #[test]
    fn reading_stops_after_max_chars_even_inside_a_word_or_number() {
        let long = format!("ab{}", "C".repeat(MAX_CHARS + 10));
        let v = Vocab::default();
        let t = tokenize(&long, &FastMap::default(), &v);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].text, "ab".to_owned() + &"c".repeat(MAX_CHARS - 2));
        assert_eq!(t[0].span, (0, MAX_CHARS));
        // The decimal point is the last character read: no digit follows it.
        let number = format!("{}.5", "1".repeat(MAX_CHARS - 1));
        let t = tokenize(&number, &FastMap::default(), &v);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].text, "1".repeat(MAX_CHARS - 1));
        let t = tokenize("Été 0,3 % Blei-Säure", &FastMap::default(), &v);
        let texts: Vec<&str> = t.iter().map(|t| t.word()).collect();
        assert_eq!(texts, ["ete", "0.3", "%", "blei", "saure"]);
        assert_eq!(t[0].span, (0, "Été".len()));
    }

    #[test]
    fn clause_punctuation_marks_the_next_token() {
        let v = Vocab::default();
        let t = tokenize("free of lead, mercury", &FastMap::default(), &v);
        assert_eq!(t[3].break_before, COMMA);
        assert_eq!(t[1].break_before, NO_BREAK);
    }
}
