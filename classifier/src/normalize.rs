//! Text normalisation: the same function turns both the user's description
//! and the curated terms into tokens, so they meet half-way.
//!
//! Lower case; every non-alphanumeric character separates tokens (so
//! "lead-acid" and "lead acid" agree); British/American spelling and
//! plural/singular folded by `fold_in_place`. Clause punctuation is kept as a
//! flag on the next token, because negation stops at a clause boundary.

use std::borrow::Cow;

use super::vocab::{Vocab, UNKNOWN};
use rustc_hash::FxHashMap;

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
/// Other scripts (Cyrillic, Greek, CJK) are kept as written: the lexicon
/// holds their words.
pub fn fold_char(ch: char, out: &mut String) {
    for low in ch.to_lowercase() {
        match latin_fold(low) {
            Some(ascii) => out.push_str(ascii),
            None => out.push(low),
        }
    }
}

/// The ASCII letters a lower-case Latin letter with diacritics folds to
/// (Latin-1, Latin Extended-A/B, Latin Extended Additional incl.
/// Vietnamese), by `deunicode`; `None` for anything else.
fn latin_fold(ch: char) -> Option<&'static str> {
    if !matches!(u32::from(ch), 0xC0..=0x24F | 0x1E00..=0x1EFF) || !ch.is_alphabetic() {
        return None;
    }
    deunicode::deunicode_char(ch)
        .filter(|ascii| !ascii.is_empty() && ascii.bytes().all(|b| b.is_ascii_lowercase()))
}

/// What folding a written word and looking it up in the vocabulary give,
/// precomputed for every vocabulary word and every spelling variant, so
/// that most words of a description take one look-up
/// ([`tokenize_known`]); same tokens as [`tokenize`] (test
/// `the_word_table_reads_like_folding_then_looking_up`).
pub struct WordTable {
    map: FxHashMap<String, Looked>,
    /// Spelling targets the vocabulary does not hold.
    extra: Vec<Box<str>>,
}

/// One entry of a [`WordTable`].
#[derive(Debug, Clone, Copy)]
struct Looked {
    /// The id of the folded word ([`UNKNOWN`]: `extra` holds the word).
    id: u32,
    extra: u32,
    /// The key is a spelling variant: folding gives its canonical form.
    spelling: bool,
    /// Folding the key gives the entry (a spelling variant, or a word the
    /// suffix rules leave as it is); else the key is a vocabulary word
    /// that folding changes, and the entry is the word itself.
    stable: bool,
}

impl WordTable {
    /// The table for `vocab` and the curated `spellings`.
    pub fn new(vocab: &Vocab, spellings: &FxHashMap<String, String>) -> Self {
        let mut map = FxHashMap::default();
        let mut extra: Vec<Box<str>> = Vec::new();
        let mut folded = String::new();
        for (id, w) in vocab.words() {
            if spellings.contains_key(w) {
                continue;
            }
            folded.clear();
            folded.push_str(w);
            british(&mut folded);
            singular(&mut folded);
            let stable = folded == w;
            map.insert(
                w.to_owned(),
                Looked {
                    id,
                    extra: UNKNOWN,
                    spelling: false,
                    stable,
                },
            );
        }
        for (variant, canonical) in spellings {
            let (id, at) = match vocab.get(canonical) {
                Some((id, _)) => (id, UNKNOWN),
                None => {
                    extra.push(canonical.as_str().into());
                    (UNKNOWN, u32::try_from(extra.len() - 1).unwrap_or(UNKNOWN))
                }
            };
            map.insert(
                variant.clone(),
                Looked {
                    id,
                    extra: at,
                    spelling: true,
                    stable: true,
                },
            );
        }
        Self { map, extra }
    }

    /// The folded word of an entry.
    fn text<'t>(&'t self, e: Looked, vocab: &'t Vocab) -> &'t str {
        if e.id == UNKNOWN {
            self.extra.get(e.extra as usize).map_or("", |w| &**w)
        } else {
            vocab.word(e.id).unwrap_or("")
        }
    }
}

/// How the tokenizer folds and looks words up.
#[derive(Clone, Copy)]
enum Lookup<'s, 'k> {
    /// Fold with the spelling table, then look the word up.
    Fold(&'s FxHashMap<String, String>),
    /// Through the precomputed table (same answers).
    Table(&'k WordTable),
}

/// Splits and folds `text` into tokens, reading at most [`MAX_CHARS`].
/// Decimal numbers stay whole ("0,3" → "0.3"); `<`, `>`, `≤`, `≥` and `%`
/// are tokens of their own, so amounts can be read.
/// Each token's `id` is its word's id in `vocab`.
pub fn tokenize<'k>(
    text: &'k str,
    spellings: &FxHashMap<String, String>,
    vocab: &'k Vocab,
) -> Vec<Token<'k>> {
    split(text, Lookup::Fold(spellings), vocab)
}

/// [`tokenize`] with the spellings of `table` (built for `vocab`).
pub fn tokenize_known<'k>(text: &'k str, table: &'k WordTable, vocab: &'k Vocab) -> Vec<Token<'k>> {
    split(text, Lookup::Table(table), vocab)
}

fn split<'k>(text: &'k str, lookup: Lookup<'_, 'k>, vocab: &'k Vocab) -> Vec<Token<'k>> {
    let text = text.get(..read_up_to(text)).unwrap_or(text);
    let mut s = Splitter {
        out: Words {
            tokens: Vec::with_capacity(text.len() / 5 + 1),
            pending_break: NO_BREAK,
            lookup,
            vocab,
            text,
        },
        word: String::with_capacity(24),
        start: 0,
        end: 0,
        chars: Cursor { text, pos: 0 },
    };
    while s.step() {}
    s.finish()
}

/// The byte length of the first [`MAX_CHARS`] characters of `text` (all
/// of it when shorter).
fn read_up_to(text: &str) -> usize {
    if text.len() <= MAX_CHARS {
        // No more characters than bytes.
        return text.len();
    }
    text.char_indices()
        .nth(MAX_CHARS)
        .map_or(text.len(), |(i, _)| i)
}

/// The state of [`split`]: the tokens so far, the word being read
/// and where it starts, and the characters left.
struct Splitter<'s, 'k> {
    out: Words<'s, 'k>,
    /// The word being read, folded.
    word: String,
    /// Byte offset where `word` starts.
    start: usize,
    /// Byte offset after the last character read.
    end: usize,
    chars: Cursor<'k>,
}

impl<'k> Splitter<'_, 'k> {
    /// Reads the next character (or run of ASCII letters and digits);
    /// false when none is left.
    #[inline(always)]
    fn step(&mut self) -> bool {
        if self.word.is_empty() {
            self.whole_ascii_words();
            if self.chars.at_ascii_alphanumeric() {
                // A word that may go on past its ASCII letters and digits.
                self.ascii_word();
                return true;
            }
        }
        let Some((i, ch)) = self.chars.next() else {
            return false;
        };
        self.end = i + ch.len_utf8();
        // A space between words changes nothing (see the steps below).
        if ch == ' ' && self.word.is_empty() {
            return true;
        }
        if ch.is_ascii_alphanumeric() {
            self.ascii_alphanumeric(i, ch);
        } else if is_ideograph(ch) {
            self.out.flush(&mut self.word, self.start, i);
            self.word.push(ch);
            self.out.flush(&mut self.word, i, i + ch.len_utf8());
        } else if ch.is_alphanumeric() {
            if self.word.is_empty() {
                self.start = i;
            }
            fold_char(ch, &mut self.word);
        } else {
            self.other(i, ch);
        }
        true
    }

    /// Between words (`word` empty): the separators and the whole words of
    /// ASCII letters and digits that follow, read in one loop, as the
    /// steps would read them one at a time: between words, ASCII spaces
    /// and punctuation only raise the break before the next token, and a
    /// word that nothing can continue (see [`Self::whole_ascii_word`]) is
    /// a token. Stops before anything else.
    #[inline(always)]
    fn whole_ascii_words(&mut self) {
        let text = self.chars.text;
        let bytes = text.as_bytes();
        let mut pos = self.chars.pos;
        loop {
            let mut level = self.out.pending_break;
            while let Some(&b) = bytes.get(pos) {
                let l = SEPARATORS[usize::from(b)];
                if l == NOT_SEPARATOR {
                    break;
                }
                level = level.max(l);
                pos += 1;
            }
            self.out.pending_break = level;
            let from = pos;
            pos += bytes.get(from..).map_or(0, alnum_run);
            let ends = match bytes.get(pos) {
                None => true,
                Some(b'.' | b',') => !bytes.get(from..pos).is_some_and(all_digits),
                Some(&b) => b.is_ascii(),
            };
            let Some(w) = text.get(from..pos).filter(|w| ends && !w.is_empty()) else {
                self.chars.pos = from;
                return;
            };
            self.out.flush_ascii(w, &mut self.word, from, pos);
        }
    }

    /// An ASCII letter or digit `ch` at `i`, with those that follow.
    #[inline(always)]
    fn ascii_alphanumeric(&mut self, i: usize, ch: char) {
        // The ASCII letters and digits that follow, in one step.
        let run = self.chars.ascii_alphanumeric_run();
        if self.word.is_empty() {
            self.start = i;
            if self.whole_ascii_word(i, run.1) {
                return;
            }
        }
        self.word.push(ch.to_ascii_lowercase());
        if let Some(rest) = self.chars.text.get(run.0..run.1).filter(|r| !r.is_empty()) {
            let from = self.word.len();
            self.word.push_str(rest);
            self.word[from..].make_ascii_lowercase();
            self.end = run.1;
        }
    }

    /// A word starting with an ASCII letter or digit at the cursor, with
    /// the ASCII letters and digits that follow, read in one step (as
    /// [`Self::ascii_alphanumeric`] reads them after their first
    /// character; `word` is empty).
    #[inline(always)]
    fn ascii_word(&mut self) {
        let (i, to) = self.chars.ascii_alphanumeric_run();
        self.start = i;
        self.end = to;
        if self.whole_ascii_word(i, to) {
            return;
        }
        if let Some(w) = self.chars.text.get(i..to) {
            self.word.push_str(w);
            self.word.make_ascii_lowercase();
        }
    }

    /// Reads `i..to` as a whole word of ASCII letters and digits when
    /// nothing can continue it (no decimal point and no other letter may
    /// follow), from the text itself, as the steps would read it; whether
    /// it did. A "." or "," continues only a number (a word of digits).
    #[inline(always)]
    fn whole_ascii_word(&mut self, i: usize, to: usize) -> bool {
        let w = self.chars.text.get(i..to);
        let number = || w.is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()));
        let ends = self
            .chars
            .peek()
            .is_none_or(|c| c.is_ascii() && (!matches!(c, '.' | ',') || !number()));
        match w.filter(|_| ends) {
            Some(w) => {
                self.out.flush_ascii(w, &mut self.word, i, to);
                self.end = to;
                true
            }
            None => false,
        }
    }

    /// A character `ch` at `i` that is neither a letter nor a digit: a
    /// decimal point, a symbol token (`<`, `>`, `%`) or a break.
    #[inline(always)]
    fn other(&mut self, i: usize, ch: char) {
        let decimal = matches!(ch, '.' | ',')
            && self.word.bytes().last().is_some_and(|b| b.is_ascii_digit())
            && self.word.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && self.chars.peek().is_some_and(|c| c.is_ascii_digit());
        if decimal && !self.word.contains('.') {
            self.word.push('.');
            return;
        }
        self.out.flush(&mut self.word, self.start, i);
        if let Some(s) = symbol(ch) {
            self.word.push_str(s);
            self.start = i;
            self.out.flush(&mut self.word, i, i + ch.len_utf8());
            return;
        }
        let level = match ch {
            '.' | ';' | ':' | '\n' | '!' | '?' | '。' | '；' | '：' => CLAUSE,
            ',' | '/' | '&' | '+' | '，' | '、' => COMMA,
            _ => NO_BREAK,
        };
        self.out.pending_break = self.out.pending_break.max(level);
    }

    /// The last word flushed; the tokens.
    fn finish(mut self) -> Vec<Token<'k>> {
        self.out.flush(&mut self.word, self.start, self.end);
        self.out.tokens
    }
}

/// The token a symbol character reads as, if it is one.
#[inline(always)]
fn symbol(ch: char) -> Option<&'static str> {
    match ch {
        '<' | '≤' | '＜' => Some("<"),
        '>' | '≥' | '＞' => Some(">"),
        '%' | '％' => Some("%"),
        _ => None,
    }
}

/// How many ASCII letters and digits `bytes` starts with.
fn alnum_run(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .unwrap_or(bytes.len())
}

/// Whether every byte of `w` is an ASCII digit.
fn all_digits(w: &[u8]) -> bool {
    w.iter().all(u8::is_ascii_digit)
}

/// Per byte: [`SEPARATOR`] for an ASCII character that, between words,
/// only sets the break before the next token (not a letter, digit, `<`,
/// `>` or `%`), else [`NOT_SEPARATOR`]; a separator's value is that break.
const SEPARATORS: [u8; 256] = {
    let mut t = [NOT_SEPARATOR; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if !c.is_ascii_alphanumeric() && !matches!(c, b'<' | b'>' | b'%') {
            t[b] = match c {
                b'.' | b';' | b':' | b'\n' | b'!' | b'?' => CLAUSE,
                b',' | b'/' | b'&' | b'+' => COMMA,
                _ => NO_BREAK,
            };
        }
        b += 1;
    }
    t
};

/// In [`SEPARATORS`]: not a separator.
const NOT_SEPARATOR: u8 = u8::MAX;

/// The characters of a text, with their byte offsets.
struct Cursor<'a> {
    /// The text up to [`MAX_CHARS`] characters.
    text: &'a str,
    /// Byte offset of the next character.
    pos: usize,
}

impl Cursor<'_> {
    fn next(&mut self) -> Option<(usize, char)> {
        let ch = self.peek()?;
        let at = self.pos;
        self.pos += ch.len_utf8();
        Some((at, ch))
    }

    fn peek(&self) -> Option<char> {
        match self.text.as_bytes().get(self.pos) {
            // ASCII: the byte is the character.
            Some(&b) if b.is_ascii() => Some(char::from(b)),
            _ => self.text.get(self.pos..)?.chars().next(),
        }
    }

    /// Whether the next character is an ASCII letter or digit.
    fn at_ascii_alphanumeric(&self) -> bool {
        self.text
            .as_bytes()
            .get(self.pos)
            .is_some_and(u8::is_ascii_alphanumeric)
    }

    /// Reads the ASCII letters and digits that follow; their byte range.
    fn ascii_alphanumeric_run(&mut self) -> (usize, usize) {
        let from = self.pos;
        let rest = self.text.as_bytes().get(from..).unwrap_or_default();
        let n = alnum_run(rest);
        self.pos += n;
        (from, self.pos)
    }
}

/// The tokens read so far and the break before the next one.
struct Words<'s, 'k> {
    tokens: Vec<Token<'k>>,
    pending_break: u8,
    lookup: Lookup<'s, 'k>,
    vocab: &'k Vocab,
    /// The text read (an unknown word as written borrows it).
    text: &'k str,
}

impl<'k> Words<'_, 'k> {
    /// Ends the word being read (if any) as a token spanning `start..end`.
    fn flush(&mut self, word: &mut String, start: usize, end: usize) {
        if word.is_empty() {
            return;
        }
        let (id, known) = match self.lookup {
            Lookup::Fold(spellings) => {
                fold_in_place(word, spellings);
                match self.vocab.get(word) {
                    Some((id, known)) => (id, Some(known)),
                    None => (UNKNOWN, None),
                }
            }
            Lookup::Table(table) => self.look_up(table, word),
        };
        self.push(word, id, known, start, end);
    }

    /// Pushes the token of the folded `word` (the vocabulary's `known`
    /// copy, else the text when written so, else a copy) and clears `word`.
    fn push(
        &mut self,
        word: &mut String,
        id: u32,
        known: Option<&'k str>,
        start: usize,
        end: usize,
    ) {
        let text = match known {
            Some(k) => Cow::Borrowed(k),
            None => match self.text.get(start..end).filter(|w| *w == word.as_str()) {
                Some(written) => Cow::Borrowed(written),
                None => Cow::Owned(word.clone()),
            },
        };
        word.clear();
        self.push_written(id, text, start, end);
    }

    /// Pushes the token `text` (id `id`) read as written at `start..end`,
    /// with the break pending before it.
    #[inline(always)]
    fn push_written(&mut self, id: u32, text: Cow<'k, str>, start: usize, end: usize) {
        self.tokens.push(Token {
            id,
            text,
            break_before: std::mem::take(&mut self.pending_break),
            span: (start, end),
            origin: Origin::Written,
        });
    }
}

impl<'k> Words<'_, 'k> {
    /// Ends the word `w` of ASCII letters and digits, written at
    /// `start..end`, as a token (as [`Self::flush`] of `w` in lower case;
    /// `word` is an empty buffer).
    fn flush_ascii(&mut self, w: &'k str, word: &mut String, start: usize, end: usize) {
        if let (Lookup::Table(table), false) =
            (self.lookup, w.bytes().any(|b| b.is_ascii_uppercase()))
        {
            let first = table.map.get(w).copied();
            if let Some(e) = first.filter(|e| e.stable) {
                let text = Cow::Borrowed(table.text(e, self.vocab));
                self.push_written(e.id, text, start, end);
                return;
            }
            word.push_str(w);
            let (id, known) = self.fold_and_look_up(table, word, first);
            self.push(word, id, known, start, end);
            return;
        }
        word.push_str(w);
        word.make_ascii_lowercase();
        self.flush(word, start, end);
    }

    /// [`fold_in_place`] then the vocabulary, through `table`: the folded
    /// word's id and, when the table holds it, its text (else the word is
    /// left folded in `word`).
    fn look_up(&self, table: &'k WordTable, word: &mut String) -> (u32, Option<&'k str>) {
        let first = table.map.get(word).copied();
        if let Some(e) = first.filter(|e| e.stable) {
            return (e.id, Some(table.text(e, self.vocab)));
        }
        self.fold_and_look_up(table, word, first)
    }

    /// [`Self::look_up`] of a word the table does not hold as it is;
    /// `first` is what the table holds for the word as it is (when the
    /// suffix rules leave the word as it is, it is not looked up again).
    fn fold_and_look_up(
        &self,
        table: &'k WordTable,
        word: &mut String,
        first: Option<Looked>,
    ) -> (u32, Option<&'k str>) {
        let vocab = self.vocab;
        // Neither a spelling variant nor a word folding leaves as it is:
        // fold by the suffix rules, then what `fold_in_place` and the
        // vocabulary say of the result.
        let before = word.len();
        let changed = british(word);
        let changed = singular(word) || changed;
        let e = if changed {
            table.map.get(word).copied()
        } else {
            first
        };
        let e = if word.len() != before {
            // A spelling variant after the suffix rules folds once more.
            e
        } else {
            // Not looked up as a spelling variant again.
            match e {
                Some(e) if e.spelling => {
                    return match vocab.get(word) {
                        Some((id, known)) => (id, Some(known)),
                        None => (UNKNOWN, None),
                    };
                }
                e => e,
            }
        };
        match e {
            Some(e) => (e.id, Some(table.text(e, vocab))),
            None => (UNKNOWN, None),
        }
    }
}

/// Folds one lower-case word in place: spelling variants first (from the
/// curated table), then `-ize` to `-ise`, then a light plural strip.
fn fold_in_place(w: &mut String, spellings: &FxHashMap<String, String>) {
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

/// `-ize` spellings to `-ise`; whether the word changed.
fn british(word: &mut String) -> bool {
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
            return true;
        }
    }
    false
}

/// A light plural strip; whether the word changed.
fn singular(word: &mut String) -> bool {
    if word.len() <= 3 || !word.is_ascii() || word.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    if word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
        return true;
    }
    for suffix in ["sses", "xes", "ches", "shes", "zzes"] {
        if word.ends_with(suffix) {
            word.truncate(word.len() - 2);
            return true;
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word.pop();
        return true;
    }
    false
}

/// Normalises a curated phrase into its token texts.
pub fn phrase_tokens(phrase: &str, spellings: &FxHashMap<String, String>) -> Vec<String> {
    tokenize(phrase, spellings, &Vocab::default())
        .into_iter()
        .map(|t| t.text.into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        phrase_tokens(s, &FxHashMap::default())
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
        let t = tokenize(&long, &FxHashMap::default(), &v);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].text, "ab".to_owned() + &"c".repeat(MAX_CHARS - 2));
        assert_eq!(t[0].span, (0, MAX_CHARS));
        // The decimal point is the last character read: no digit follows it.
        let number = format!("{}.5", "1".repeat(MAX_CHARS - 1));
        let t = tokenize(&number, &FxHashMap::default(), &v);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].text, "1".repeat(MAX_CHARS - 1));
        let t = tokenize("Été 0,3 % Blei-Säure", &FxHashMap::default(), &v);
        let texts: Vec<&str> = t.iter().map(|t| t.word()).collect();
        assert_eq!(texts, ["ete", "0.3", "%", "blei", "saure"]);
        assert_eq!(t[0].span, (0, "Été".len()));
    }

    #[test]
    fn reading_stops_after_max_chars_of_several_bytes() {
        let v = Vocab::default();
        let long = "é".repeat(MAX_CHARS + 3);
        let t = tokenize(&long, &FxHashMap::default(), &v);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].text, "e".repeat(MAX_CHARS));
        assert_eq!(t[0].span, (0, 2 * MAX_CHARS));
        assert_eq!(read_up_to(&long), 2 * MAX_CHARS);
        assert_eq!(read_up_to("abc"), 3);
        let exact = "ü".repeat(MAX_CHARS);
        assert_eq!(read_up_to(&exact), exact.len());
    }

    /// The tokens of `text` read one character at a time, as the module
    /// doc and [`split_with`]'s steps describe them (no fast paths), then
    /// folded and looked up as [`tokenize`] does.
    fn one_char_at_a_time<'k>(
        text: &str,
        spellings: &FxHashMap<String, String>,
        vocab: &'k Vocab,
    ) -> Vec<Token<'k>> {
        let chars: Vec<(usize, char)> = text.char_indices().take(MAX_CHARS).collect();
        let mut raw: Vec<(String, u8, (usize, usize))> = Vec::new();
        let (mut word, mut start, mut end, mut brk) = (String::new(), 0, 0, NO_BREAK);
        let mut flush = |word: &mut String, brk: &mut u8, span: (usize, usize)| {
            if !word.is_empty() {
                raw.push((std::mem::take(word), std::mem::take(brk), span));
            }
        };
        for (k, &(i, ch)) in chars.iter().enumerate() {
            let next = chars.get(k + 1).map(|c| c.1);
            let len = ch.len_utf8();
            if is_ideograph(ch) {
                flush(&mut word, &mut brk, (start, i));
                flush(&mut ch.to_string(), &mut brk, (i, i + len));
            } else if ch.is_alphanumeric() {
                if word.is_empty() {
                    start = i;
                }
                fold_char(ch, &mut word);
                end = i + len;
            } else if matches!(ch, '.' | ',')
                && word.ends_with(|c: char| c.is_ascii_digit())
                && word.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && next.is_some_and(|c| c.is_ascii_digit())
                && !word.contains('.')
            {
                word.push('.');
                end = i + len;
            } else {
                flush(&mut word, &mut brk, (start, i));
                if let Some(sym) = symbol(ch) {
                    flush(&mut sym.to_owned(), &mut brk, (i, i + len));
                } else {
                    brk = brk.max(match ch {
                        '.' | ';' | ':' | '\n' | '!' | '?' | '。' | '；' | '：' => CLAUSE,
                        ',' | '/' | '&' | '+' | '，' | '、' => COMMA,
                        _ => NO_BREAK,
                    });
                }
            }
        }
        flush(&mut word, &mut brk, (start, end));
        raw.into_iter()
            .map(|(mut w, break_before, span)| {
                fold_in_place(&mut w, spellings);
                Token {
                    id: vocab.id(&w),
                    text: Cow::Owned(w),
                    break_before,
                    span,
                    origin: Origin::Written,
                }
            })
            .collect()
    }

    #[test]
    fn the_fast_paths_read_as_one_character_at_a_time() {
        let kb = super::super::kb::KnowledgeBase::bundled().expect("knowledge base");
        let (sp, vocab) = (&kb.curated.spellings, &kb.vocab);
        let mut pieces: Vec<String> = vocab
            .words()
            .map(|(_, w)| w.to_owned())
            .step_by(7)
            .collect();
        pieces.extend(sp.keys().cloned());
        pieces.extend(
            [
                "Lot",
                "LOTS",
                "Batteries",
                "OCC",
                "12",
                "0",
                "7",
                "0,3",
                "12.5",
                "1.2.3",
                "7,",
                "x1.5",
                "1,",
                "5.",
                "A1160,0,3",
                "1&2",
                "mg/kg",
                "pH",
                "Été",
                "Säure",
                "中文",
                "—",
                "<",
                ">",
                "%",
                "≤5",
                "５%",
                "(lab)",
                "lead-acid",
                "e.g.",
                "3,5,7",
                "9.x",
                "abcé",
                "x—y",
                "12é",
                "12—",
                "\u{a0}",
                "；",
                "a\nb",
                "?!",
                "  ",
                "ß",
            ]
            .map(str::to_owned),
        );
        let seps = [
            " ", " ", " ", ", ", ". ", "", "/", "-", "\n", ";", "(", ") ", "+", "é", "1",
        ];
        let mut state = 0x2545_f491_u32;
        let mut rand = |n: usize| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as usize % n
        };
        let mut compared = 0;
        for round in 0..400 {
            let mut text = String::new();
            let target = [40, 300, 700, 2_000, 5_100][round % 5];
            while text.chars().count() < target {
                text.push_str(&pieces[rand(pieces.len())]);
                text.push_str(seps[rand(seps.len())]);
            }
            let expected = one_char_at_a_time(&text, sp, vocab);
            for lookup in [Lookup::Table(&kb.words), Lookup::Fold(sp)] {
                let got = split(&text, lookup, vocab);
                assert_eq!(got, expected, "{text}");
            }
            compared += expected.len();
        }
        assert!(compared > 50_000, "{compared}");
    }

    #[test]
    fn the_word_table_reads_like_folding_then_looking_up() {
        let kb = super::super::kb::KnowledgeBase::bundled().expect("knowledge base");
        let (sp, vocab) = (&kb.curated.spellings, &kb.vocab);
        let mut words: Vec<String> = Vec::new();
        for w in vocab
            .words()
            .map(|(_, w)| w)
            .chain(sp.keys().map(String::as_str))
        {
            for suffix in ["", "s", "es", "ies", "ize", "izes", "ized", "ization", "ss"] {
                words.push(format!("{w}{suffix}"));
            }
            words.push(w.to_uppercase());
            words.push(w.chars().skip(1).collect());
        }
        words.extend(
            [
                "organized",
                "batteries",
                "colour",
                "aluminum",
                "tyres",
                "x",
                "12",
                "0,3",
            ]
            .map(str::to_owned),
        );
        let mut compared = 0;
        for chunk in words.chunks(200) {
            let text = chunk.join(" ");
            let slow = tokenize(&text, sp, vocab);
            assert_eq!(slow, tokenize_known(&text, &kb.words, vocab));
            compared += slow.len();
        }
        assert!(compared > 10_000, "{compared}");
    }

    #[test]
    fn a_point_or_comma_after_a_word_ends_it_and_after_digits_may_continue_a_number() {
        let kb = super::super::kb::KnowledgeBase::bundled().expect("knowledge base");
        let text = "Lead, Batteries. A1160,0,3 % 12.5, x1.5 7,";
        let t = tokenize_known(text, &kb.words, &kb.vocab);
        let words: Vec<&str> = t.iter().map(|t| t.word()).collect();
        assert_eq!(
            words,
            ["lead", "battery", "a1160", "0.3", "%", "12.5", "x1", "5", "7"]
        );
        let breaks: Vec<u8> = t.iter().map(|t| t.break_before).collect();
        assert_eq!(breaks, [0, COMMA, CLAUSE, COMMA, 0, 0, COMMA, CLAUSE, 0]);
        assert_eq!(t[1].span, (6, 15));
        assert_eq!(t, tokenize(text, &kb.curated.spellings, &kb.vocab));
    }

    #[test]
    fn clause_punctuation_marks_the_next_token() {
        let v = Vocab::default();
        let t = tokenize("free of lead, mercury", &FxHashMap::default(), &v);
        assert_eq!(t[3].break_before, COMMA);
        assert_eq!(t[1].break_before, NO_BREAK);
    }

    #[test]
    fn latin_letters_fold_to_ascii_and_other_scripts_stay() {
        let fold = |text: &str| {
            let mut out = String::new();
            text.chars().for_each(|c| fold_char(c, &mut out));
            out
        };
        assert_eq!(
            fold("Ætna Straße Łódź Œuvre Việt"),
            "aetna strasse lodz oeuvre viet"
        );
        assert_eq!(fold("þorn ðæt"), "thorn daet");
        assert_eq!(fold("свинец 鉛 ÷ ×"), "свинец 鉛 ÷ ×");
    }
}
