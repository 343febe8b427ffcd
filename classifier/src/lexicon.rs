//! The multilingual lexicon (`classifier/data/classifier_lexicon.json`): words
//! and phrases of Spanish, Portuguese, French, German, Italian, Dutch,
//! Chinese and Vietnamese, each keyed to the English term of the annex
//! concept it names. Descriptions are read into English tokens here, so one
//! set of curated terms serves every language.
//!
//! Reading, per token: the longest lexicon phrase that starts there (in a
//! language the description uses); else a German/Dutch-style compound split
//! into lexicon words ("Schleifschlamm" → "grinding sludge"); else, for an
//! unknown word, a spelling correction (see [`super::fuzzy`]). Keys and text
//! are folded the same way (case, diacritics, light plural), so "Baterías"
//! and "bateria" meet.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use serde::Deserialize;

use super::codes::{Codes, Mention};
use super::dictionary::{lang, Dictionary};
use super::edits::Edits;
use super::error::KnowledgeBaseError;
use super::fuzzy::Speller;
use super::normalize::{phrase_tokens, Origin, Token, NO_BREAK};
use super::vocab::{Vocab, UNKNOWN};

const LEXICON: &str = include_str!("../data/classifier_lexicon.json");

#[derive(Deserialize)]
struct LexiconFile {
    languages: Vec<LanguageFile>,
    english_common: Vec<String>,
    /// Ordered maps (not `HashMap`, whose order differs from process to
    /// process): the words are interned in the same order, so they get the
    /// same vocabulary ids, every run.
    hs_headings: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct LanguageFile {
    code: String,
    name: String,
    #[serde(default)]
    marks: String,
    words: BTreeMap<String, String>,
}

/// One phrase of another language and its English reading.
#[derive(Debug)]
struct Entry {
    src: Vec<String>,
    /// `src` as vocabulary ids.
    src_ids: Vec<u32>,
    dst: Words,
    lang: usize,
}

/// English words with their vocabulary ids.
#[derive(Debug, Clone, Default)]
struct Words {
    words: Vec<String>,
    ids: Vec<u32>,
}

impl Words {
    fn new(words: Vec<String>, vocab: &mut Vocab) -> Self {
        let ids = vocab.intern_all(&words);
        Self { words, ids }
    }
}

/// The compiled lexicon.
pub struct Lexicon {
    names: Vec<(String, String)>,
    /// Per language, its marks sorted (empty: no marks needed).
    marks: Vec<Vec<char>>,
    hs: FxHashMap<String, Words>,
    /// The entries, grouped by the id of their first word (longest first
    /// within a group): those of id `i` are `entries[starts[i]..starts[i + 1]]`.
    entries: Vec<Entry>,
    starts: Vec<u32>,
    /// Per vocabulary id (of the words interned when the lexicon was
    /// built): its [`Kind`] bits.
    kinds: Vec<u8>,
    /// A filter of the words a compound's part can be ([`part_filter`]).
    parts: Vec<u64>,
    bigrams: FxHashSet<(String, String)>,
    speller: Speller,
    codes: Codes,
    dictionary: Dictionary,
    /// The curated spelling variants (to fold a compound's parts as the
    /// lexicon's keys were folded).
    spellings: FxHashMap<String, String>,
}

/// A description read into English tokens, with the languages seen.
pub struct Reading<'k> {
    /// The tokens, in English where the lexicon knew the word.
    pub tokens: Vec<Token<'k>>,
    /// Names of the other languages whose words were read (e.g. "Spanish").
    pub languages: Vec<String>,
    /// Words (original spelling) that were corrected, with the correction.
    pub corrections: Vec<(String, String)>,
    /// Alphabetic words no language of the lexicon knows.
    pub unknown_words: usize,
    /// Alphabetic words in total.
    pub words: usize,
    /// List of Waste codes and UN numbers written, read as their words.
    pub codes: Vec<Mention<'k>>,
}

impl Lexicon {
    /// Parses the embedded lexicon; `english` is every token of the curated
    /// English terms.
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when the file does not have the expected shape.
    pub fn bundled(
        english_terms: FxHashSet<String>,
        bigrams: FxHashSet<(String, String)>,
        spellings: &FxHashMap<String, String>,
        vocab: &mut Vocab,
    ) -> Result<Self, KnowledgeBaseError> {
        let file: LexiconFile =
            serde_json::from_str(LEXICON).map_err(|e| KnowledgeBaseError::Parse {
                file: "classifier_lexicon.json",
                message: e.to_string(),
            })?;
        let mut english = english_terms;
        for w in &file.english_common {
            english.extend(phrase_tokens(w, spellings));
        }
        let Languages {
            names,
            marks,
            by_first,
        } = compile_languages(&file.languages, spellings, vocab);
        let (entries, starts) = flatten_entries(by_first, vocab.len());
        let speller = speller_for(&english, &entries);
        let hs = file
            .hs_headings
            .iter()
            .map(|(k, v)| (k.clone(), Words::new(phrase_tokens(v, spellings), vocab)))
            .collect();
        mark_english(&english, vocab);
        let kinds = kinds(&english, &starts, vocab);
        let parts = part_filter(&kinds, &entries, vocab);
        let codes = Codes::bundled(spellings, vocab)?;
        let dictionary = Dictionary::bundled()?;
        Ok(Self {
            names,
            marks,
            hs,
            entries,
            starts,
            kinds,
            parts,
            bigrams,
            speller,
            codes,
            dictionary,
            spellings: spellings.clone(),
        })
    }

    /// Reads `tokens` into English (see the module doc). Tokens read as
    /// written stay where they are; see [`Edits`]. Kept out of line (called
    /// once per description; inlined, it made the caller's code larger).
    #[inline(never)]
    pub fn read<'k>(
        &'k self,
        tokens: Vec<Token<'k>>,
        original: &str,
        vocab: &'k Vocab,
    ) -> Reading<'k> {
        let kinds: Vec<Kind> = tokens.iter().map(|t| self.kind(t)).collect();
        let counts = self.language_counts(&tokens, &kinds, original);
        let mut pass = Pass {
            english_count: kinds.iter().filter(|&&k| k & ENGLISH != 0).count(),
            counts,
            out: Edits::default(),
            corrections: Vec::new(),
            codes: Vec::new(),
            words: 0,
            unknown: 0,
            memo: Memo {
                enabled: tokens.len() >= MEMO_FROM,
                ..Memo::default()
            },
        };
        // With no language read, no entry is (`best_at`), so a phrase's
        // first word is read like any other.
        let stops = if pass.counts.iter().any(|&c| c > 0) {
            DIGIT | HEAD
        } else {
            DIGIT
        };
        let mut i = 0;
        while let Some(&kind) = kinds.get(i) {
            if kind & stops == 0 && kind & (ALPHA | ENGLISH) != ALPHA {
                // Not an HS number, not the first word of an entry of a
                // language read, and not an unknown word: kept as written
                // (as `read_at` would keep it).
                pass.words += usize::from(kind & ALPHA);
                i += 1;
                continue;
            }
            i += self.read_at(&tokens, i, kind, original, vocab, &mut pass);
        }
        Reading {
            tokens: pass.out.finish(tokens),
            languages: self.language_names(&pass.counts),
            corrections: pass.corrections,
            unknown_words: pass.unknown,
            words: pass.words,
            codes: pass.codes,
        }
    }

    /// Reads the tokens from `i` on (token `i` of [`Kind`] `kind`): an HS
    /// heading, a lexicon phrase, an English word or else
    /// [`Self::read_unknown`]; how many it read.
    fn read_at<'k>(
        &'k self,
        tokens: &[Token<'k>],
        i: usize,
        kind: Kind,
        original: &str,
        vocab: &'k Vocab,
        pass: &mut Pass<'k>,
    ) -> usize {
        let tok = &tokens[i];
        let alpha = kind & ALPHA != 0;
        pass.words += usize::from(alpha);
        if let Some((n, e)) = self.codes.at(tokens, i, original) {
            let span = (tok.span.0, tokens[i + n - 1].span.1);
            let written = self.codes.written(tokens, i, span, original);
            pass.codes.push(Mention { written, entry: e });
            push_reading(
                pass.out.replace(i, i + n),
                &e.words,
                &e.ids,
                tok.break_before,
                span,
            );
            return n;
        }
        if let Some(dst) = self.hs_heading(tokens, i, &pass.out) {
            push_reading(
                pass.out.replace(i, i + 1),
                &dst.words,
                &dst.ids,
                tok.break_before,
                tok.span,
            );
            return 1;
        }
        let head = self.entries_of(tok.id);
        if let Some(e) = self.best_at(tokens, i, head, &pass.counts, pass.english_count) {
            let span = (tok.span.0, tokens[i + e.src.len() - 1].span.1);
            push_reading(
                pass.out.replace(i, i + e.src.len()),
                &e.dst.words,
                &e.dst.ids,
                tok.break_before,
                span,
            );
            return e.src.len();
        }
        if !alpha || kind & ENGLISH != 0 {
            // Kept as written.
            return 1;
        }
        self.read_unknown(tokens, i, original, vocab, pass);
        1
    }

    /// Reads token `i`, an alphabetic word that is neither English nor the
    /// start of a lexicon phrase: as a compound's parts, as a correction or
    /// else as written (an unknown word when longer than two letters).
    fn read_unknown<'k>(
        &'k self,
        tokens: &[Token<'k>],
        i: usize,
        original: &str,
        vocab: &'k Vocab,
        pass: &mut Pass<'k>,
    ) {
        let tok = &tokens[i];
        let foreign = pass.counts.iter().any(|c| *c > 0);
        let written = original.get(tok.span.0..tok.span.1).unwrap_or("");
        let split = if foreign || tok.text.len() >= 9 {
            let german_or_dutch = self
                .names
                .iter()
                .zip(&pass.counts)
                .any(|((code, _), n)| *n > 0 && (code == "de" || code == "nl"));
            self.split_compound_cached(written, &tok.text, german_or_dutch, &mut pass.memo, vocab)
        } else {
            None
        };
        if let Some(parts) = split {
            push_parts(pass.out.replace(i, i + 1), parts, tok);
            return;
        }
        let prev = pass.out.last_before(tokens, i).map(Token::word);
        // A word of a real dictionary is never corrected (looked up only
        // when the corrector has a correction to offer).
        let fixed = self
            .correct_cached(tokens, i, prev, &mut pass.memo)
            .filter(|_| !self.dictionary.contains(written));
        if let Some(fixed) = fixed {
            pass.corrections.push((written.to_owned(), fixed.clone()));
            self.push_corrected(pass.out.replace(i, i + 1), tok, fixed, vocab);
            return;
        }
        // Kept as written.
        pass.unknown += usize::from(has_chars(&tok.text, 3));
    }

    /// The entries whose first word has vocabulary id `id` (none: `None`).
    fn entries_of(&self, id: u32) -> Option<&[Entry]> {
        let i = id as usize;
        let (Some(&a), Some(&b)) = (self.starts.get(i), self.starts.get(i.wrapping_add(1))) else {
            return None;
        };
        self.entries
            .get(a as usize..b as usize)
            .filter(|e| !e.is_empty())
    }

    /// The names of the languages read (not English).
    fn language_names(&self, counts: &[usize]) -> Vec<String> {
        counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .filter_map(|(l, _)| self.names.get(l))
            .filter(|n| n.0 != "en")
            .map(|n| n.1.clone())
            .collect()
    }

    /// `tok` corrected to `fixed`, read through the lexicon when `fixed` is
    /// a foreign word.
    fn push_corrected<'k>(
        &'k self,
        out: &mut Vec<Token<'k>>,
        tok: &Token<'k>,
        fixed: String,
        vocab: &Vocab,
    ) {
        let id = vocab.id(&fixed);
        let entry = self.single(id);
        let t = Token {
            id,
            text: Cow::Owned(fixed),
            break_before: tok.break_before,
            span: tok.span,
            origin: Origin::Corrected,
        };
        match entry {
            Some(e) => push_reading(out, &e.dst.words, &e.dst.ids, t.break_before, t.span),
            None => out.push(t),
        }
    }

    /// How many words of each language the description has; a language is
    /// read only where it counts two words or leads the count, and a
    /// language with marks only when the text has one of them.
    fn language_counts(&self, tokens: &[Token], kinds: &[Kind], original: &str) -> Vec<usize> {
        let mut counts = vec![0; self.names.len()];
        // Per language, the last token that counted for it.
        let mut seen = vec![usize::MAX; self.names.len()];
        for (i, t) in tokens.iter().enumerate() {
            if kinds.get(i).is_none_or(|k| k & HEAD == 0) {
                continue;
            }
            if let Some(entries) = self.entries_of(t.id) {
                for e in entries.iter().filter(|e| matches_at(tokens, i, &e.src_ids)) {
                    let english_word = e.src_ids.len() == 1 && self.is_english(e.src_ids[0]);
                    if seen[e.lang] != i && !english_word {
                        counts[e.lang] += 1;
                        seen[e.lang] = i;
                    }
                }
            }
        }
        for (lang, m) in self.marks.iter().enumerate() {
            let marked = || {
                original
                    .chars()
                    .filter(|c| !c.is_ascii())
                    .any(|c| m.binary_search(&c).is_ok())
            };
            if !m.is_empty() && counts[lang] > 0 && !marked() {
                counts[lang] = 0;
            }
        }
        let top = counts.iter().copied().max().unwrap_or(0);
        for c in counts.iter_mut() {
            if *c < 2 && *c < top {
                *c = 0;
            }
        }
        counts
    }

    /// A Harmonized System number right after "HS" (or "HS code"), read as
    /// the waste its heading names; the longest known prefix wins
    /// ("8549.11" before "8549"). A heading is broad: beside other words it
    /// is read only when its marker was itself read from another language
    /// or spelling ("código SH"); a code written almost alone ("HS 7404",
    /// "HS code 8549.11 used batteries") is always read, so it answers.
    fn hs_heading(&self, tokens: &[Token], i: usize, out: &Edits) -> Option<&Words> {
        let t = tokens.get(i)?;
        if !t.text.starts_with(|c: char| c.is_ascii_digit()) || i == 0 {
            return None;
        }
        let short = tokens.len() <= HS_ALONE;
        // No edit reaches the words before: none of them was changed.
        if !short && !out.reaches(i.saturating_sub(2)) {
            return None;
        }
        let marker = |k: usize| {
            (short || out.edited(k))
                && tokens
                    .get(k)
                    .is_some_and(|p| matches!(p.word(), "hs" | "hts" | "cn" | "code" | "heading"))
        };
        if !(marker(i - 1) || (i >= 2 && marker(i - 2))) {
            return None;
        }
        let digits: String = t.text.chars().filter(|c| c.is_ascii_digit()).collect();
        if digits.len() < 4 {
            return None;
        }
        for n in (4..=digits.len().min(6)).rev() {
            let key = if n > 4 {
                format!("{}.{}", &digits[..4], &digits[4..n])
            } else {
                digits[..4].to_owned()
            };
            if let Some(v) = self.hs.get(&key) {
                return Some(v);
            }
        }
        None
    }

    /// [`Self::correct`], remembering the answers that depend on the word
    /// alone (five letters or more), since a description often repeats one.
    fn correct_cached(
        &self,
        tokens: &[Token],
        i: usize,
        prev: Option<&str>,
        memo: &mut Memo,
    ) -> Option<String> {
        let word = tokens.get(i)?.word();
        if !memo.enabled || !has_chars(word, 5) {
            return self.correct(tokens, i, prev);
        }
        if let Some(known) = memo.corrections.get(word) {
            return known.clone();
        }
        let fixed = self.correct(tokens, i, prev);
        memo.corrections.insert(word.to_owned(), fixed.clone());
        fixed
    }

    /// [`Self::split_compound`], remembering the answer per word.
    fn split_compound_cached(
        &self,
        written: &str,
        word: &str,
        german_or_dutch: bool,
        memo: &mut Memo,
        vocab: &Vocab,
    ) -> Option<Vec<Words>> {
        if !memo.enabled {
            return self.split_compound(written, word, german_or_dutch, vocab);
        }
        let splits = &mut memo.splits;
        if let Some(known) = splits.get(written) {
            return known.clone();
        }
        let parts = self.split_compound(written, word, german_or_dutch, vocab);
        splits.insert(written.to_owned(), parts.clone());
        parts
    }

    /// A spelling correction for token `i`: five letters or more on its
    /// own; a four-letter word only where the correction forms a curated
    /// pair with a neighbour ("leed acid" → "lead acid").
    fn correct(&self, tokens: &[Token], i: usize, prev: Option<&str>) -> Option<String> {
        let word = tokens.get(i)?.word();
        if has_chars(word, 5) {
            return self.speller.correct(word);
        }
        let pair = |a: &str, b: &str| self.bigrams.contains(&(a.to_owned(), b.to_owned()));
        let fits = |fixed: &str| {
            let before = prev.is_some_and(|p| pair(p, fixed));
            before || tokens.get(i + 1).is_some_and(|n| pair(fixed, &n.text))
        };
        let fitting: Vec<String> = self
            .speller
            .near_short(word)
            .into_iter()
            .filter(|c| fits(c))
            .collect();
        match fitting.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// The longest entry at `i` in a language the description uses; a
    /// single word that is also English is read as English unless that
    /// language dominates the description.
    fn best_at<'a>(
        &'a self,
        tokens: &[Token],
        i: usize,
        entries: Option<&'a [Entry]>,
        counts: &[usize],
        english_count: usize,
    ) -> Option<&'a Entry> {
        let entries = entries?;
        let mut best: Option<&Entry> = None;
        for e in entries.iter().filter(|e| matches_at(tokens, i, &e.src_ids)) {
            let count = counts.get(e.lang).copied().unwrap_or(0);
            if count == 0 {
                continue;
            }
            if e.src_ids.len() == 1 && self.is_english(e.src_ids[0]) && count <= english_count {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    e.src.len() > b.src.len()
                        || (e.src.len() == b.src.len()
                            && count > counts.get(b.lang).copied().unwrap_or(0))
                }
            };
            if better {
                best = Some(e);
            }
        }
        best
    }

    /// The one-word entry for the word with vocabulary id `id`, in a
    /// language without marks.
    fn single(&self, id: u32) -> Option<&Entry> {
        self.entries_of(id)?
            .iter()
            .find(|e| e.src.len() == 1 && self.marks.get(e.lang).is_some_and(Vec::is_empty))
    }

    /// Whether the word whose [`prefix_hashes`] hash is `h` may be a
    /// compound's part (false: it is neither English nor a one-word
    /// entry).
    fn may_be_part(&self, h: u64) -> bool {
        let (at, mask) = part_bit(h);
        self.parts.get(at).is_some_and(|w| w & mask != 0)
    }

    /// Whether the word with vocabulary id `id` is English.
    fn is_english(&self, id: u32) -> bool {
        self.kind_of_id(id) & ENGLISH != 0
    }

    /// The [`Kind`] bits of the word with vocabulary id `id` as far as the
    /// id tells them: [`ENGLISH`] and [`HEAD`] exactly, [`ALPHA`] and
    /// [`DIGIT`] only for the words interned before the lexicon was built
    /// (0 for [`UNKNOWN`] and the later words).
    #[inline(always)]
    fn kind_of_id(&self, id: u32) -> u8 {
        self.kinds.get(id as usize).copied().unwrap_or(0)
    }

    /// The [`Kind`] bits of `tok`: from its id when the lexicon knows the
    /// id (a token with a known id has the vocabulary's word as its text),
    /// else from its text.
    #[inline(always)]
    fn kind(&self, tok: &Token) -> u8 {
        match self.kinds.get(tok.id as usize) {
            Some(&k) => k,
            None => kind_of_text(&tok.text),
        }
    }

    /// Splits a compound `written` (`word` folded; `german_or_dutch`: the
    /// description uses German or Dutch words): into words of the German
    /// or Dutch word lists ([`Dictionary::split`]), each part read through
    /// the lexicon ([`Self::read_part`]), when the word is itself German
    /// or Dutch or the description uses those languages; else, for a word
    /// no word list of a language without compounds holds, into lexicon
    /// (or English) words directly ([`Self::split_lexicon`]). A word of an
    /// English, Romance, Polish or Turkish list is never split.
    fn split_compound(
        &self,
        written: &str,
        word: &str,
        german_or_dutch: bool,
        vocab: &Vocab,
    ) -> Option<Vec<Words>> {
        let lower = written.to_lowercase();
        let langs = self.dictionary.languages(&lower);
        if langs & !lang::COMPOUNDING != 0 {
            return None;
        }
        if german_or_dutch || langs != 0 {
            if let Some(read) = self.read_split(&lower, vocab, 0) {
                return Some(read);
            }
        }
        self.split_lexicon(word, vocab)
    }

    /// [`Dictionary::split`] of `lower`, its parts read by
    /// [`Self::read_part`] (`depth`: how many splits this one is inside);
    /// `None` when the word does not split or no part reads.
    fn read_split(&self, lower: &str, vocab: &Vocab, depth: usize) -> Option<Vec<Words>> {
        let parts = self.dictionary.split(lower)?;
        let mut out = Vec::with_capacity(parts.len());
        let mut any = false;
        for part in &parts {
            match self.read_part(part, vocab, depth) {
                Some(read) => {
                    any = true;
                    out.extend(read);
                }
                None => {
                    let folded = phrase_tokens(part, &self.spellings).concat();
                    out.push(Words {
                        ids: vec![vocab.id(&folded)],
                        words: vec![folded],
                    });
                }
            }
        }
        any.then_some(out)
    }

    /// The reading of one part of a compound (a word of a word list, lower
    /// case): its one-word lexicon entry or English word, tried as written
    /// and without a plural or linking ending ("platten" → "platte"); else
    /// the part split again ("altbatterien" → "alt|batterien"), first by
    /// the word lists, then by the lexicon. `None`: the part does not read.
    fn read_part(&self, part: &str, vocab: &Vocab, depth: usize) -> Option<Vec<Words>> {
        let folded = phrase_tokens(part, &self.spellings).concat();
        for ending in ["", "n", "en", "e", "s"] {
            let Some(stem) = folded.strip_suffix(ending) else {
                continue;
            };
            if stem.len() < 3 {
                continue;
            }
            let id = vocab.id(stem);
            if let Some(e) = self.single(id) {
                return Some(vec![e.dst.clone()]);
            }
            if stem.len() >= 4 && self.is_english(id) {
                return Some(vec![Words {
                    words: vec![stem.to_owned()],
                    ids: vec![id],
                }]);
            }
        }
        if depth >= 2 {
            return None;
        }
        self.read_split(part, vocab, depth + 1)
            .or_else(|| self.split_lexicon(&folded, vocab))
    }

    /// Splits a folded compound into lexicon (or English) words, allowing
    /// the linking letters of German and Dutch compounds ("-s-", "-n-",
    /// "-en-").
    fn split_lexicon(&self, word: &str, vocab: &Vocab) -> Option<Vec<Words>> {
        if word.len() < 7 || word.len() > MAX_COMPOUND || !word.is_ascii() {
            return None;
        }
        let mut parts: Vec<Part<'_, '_>> = Vec::with_capacity(4);
        if !self.split_from(word, &mut parts, vocab) {
            return None;
        }
        let owned = parts
            .into_iter()
            .map(|p| match p {
                Part::Entry(w) => w.clone(),
                Part::English(head, id) => Words {
                    words: vec![head.to_owned()],
                    ids: vec![id],
                },
            })
            .collect();
        Some(owned)
    }

    /// Splits `rest` into parts after `parts` (see [`Self::split_lexicon`]);
    /// parts borrow the lexicon or the word until a split is found.
    fn split_from<'s, 'w>(
        &'s self,
        rest: &'w str,
        parts: &mut Vec<Part<'s, 'w>>,
        vocab: &Vocab,
    ) -> bool {
        if rest.is_empty() {
            return parts.len() >= 2;
        }
        if parts.len() >= 4 {
            return false;
        }
        let mut hashes = [0u64; MAX_COMPOUND + 1];
        prefix_hashes(rest.as_bytes(), &mut hashes);
        for cut in (3..=rest.len()).rev() {
            // Neither English nor a one-word entry: not looked up.
            if hashes.get(cut).is_some_and(|&h| !self.may_be_part(h)) {
                continue;
            }
            let Some(head) = rest.get(..cut) else {
                continue;
            };
            let id = vocab.id(head);
            let reading = match self.single(id) {
                Some(e) => Part::Entry(&e.dst),
                None if cut >= 4 && self.is_english(id) => Part::English(head, id),
                None => continue,
            };
            let tail = &rest[cut..];
            for link in ["", "s", "en", "n", "e"] {
                let Some(t) = tail.strip_prefix(link) else {
                    continue;
                };
                parts.push(reading);
                if self.split_from(t, parts, vocab) {
                    return true;
                }
                parts.pop();
            }
        }
        false
    }
}

/// One part of a compound being split: a lexicon entry's reading or an
/// English word of the compound itself (with its vocabulary id).
#[derive(Clone, Copy)]
enum Part<'s, 'w> {
    Entry(&'s Words),
    English(&'w str, u32),
}

/// The longest word [`Lexicon::split_lexicon`] splits, in bytes.
const MAX_COMPOUND: usize = 40;

/// The filter of [`part_filter`] has `1 << PART_BITS` bits.
const PART_BITS: u32 = 16;

/// The hashes of the prefixes of `w`: `out[i]` of `w[..i]` (as far as
/// `out` reaches).
fn prefix_hashes(w: &[u8], out: &mut [u64]) {
    let mut h = 0u64;
    for (slot, &b) in out.iter_mut().skip(1).zip(w) {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        *slot = h;
    }
}

/// The filter word and bit of a [`prefix_hashes`] hash (its top bits).
fn part_bit(h: u64) -> (usize, u64) {
    let bit = h >> (64 - PART_BITS);
    ((bit >> 6) as usize, 1u64 << (bit & 63))
}

/// One bit per hash of every word a compound's part can be: the English
/// words (by `kinds`) and every one-word entry's word. A clear bit means
/// the word is neither, so [`Lexicon::split_from`] need not look it up.
fn part_filter(kinds: &[Kind], entries: &[Entry], vocab: &Vocab) -> Vec<u64> {
    let mut bits = vec![0u64; (1usize << PART_BITS) / 64];
    let mut add = |w: &str| {
        let mut hashes = vec![0u64; w.len() + 1];
        prefix_hashes(w.as_bytes(), &mut hashes);
        let (at, mask) = part_bit(hashes.last().copied().unwrap_or(0));
        if let Some(word) = bits.get_mut(at) {
            *word |= mask;
        }
    };
    for (id, w) in vocab.words() {
        if kinds.get(id as usize).is_some_and(|k| k & ENGLISH != 0) {
            add(w);
        }
    }
    for e in entries {
        if let [w] = e.src.as_slice() {
            add(w);
        }
    }
    bits
}

/// Descriptions of fewer tokens are read without [`Memo`]: repeats are rare
/// there and remembering costs more than it saves.
const MEMO_FROM: usize = 64;

/// Lexicon entries grouped by the vocabulary id of their first word.
type ByFirst = FxHashMap<u32, Vec<Entry>>;

/// The languages of the lexicon file, compiled.
struct Languages {
    /// Per language, its code and name.
    names: Vec<(String, String)>,
    /// Per language, its marks sorted.
    marks: Vec<Vec<char>>,
    by_first: ByFirst,
}

/// The languages' names, marks (sorted) and entries (grouped by the id of
/// their first word, longest first, then by reading); interns the words.
fn compile_languages(
    languages: &[LanguageFile],
    spellings: &FxHashMap<String, String>,
    vocab: &mut Vocab,
) -> Languages {
    let mut by_first = ByFirst::default();
    let mut names = Vec::new();
    let mut marks = Vec::new();
    for (lang, l) in languages.iter().enumerate() {
        names.push((l.code.clone(), l.name.clone()));
        let mut m: Vec<char> = l.marks.chars().collect();
        m.sort_unstable();
        marks.push(m);
        for (src, dst) in &l.words {
            let src = phrase_tokens(src, spellings);
            let src_ids = vocab.intern_all(&src);
            let Some(&first) = src_ids.first() else {
                continue;
            };
            let dst = Words::new(phrase_tokens(dst, spellings), vocab);
            by_first.entry(first).or_default().push(Entry {
                src,
                src_ids,
                dst,
                lang,
            });
        }
    }
    for v in by_first.values_mut() {
        v.sort_by(|a, b| {
            b.src
                .len()
                .cmp(&a.src.len())
                .then(a.dst.words.cmp(&b.dst.words))
        });
    }
    Languages {
        names,
        marks,
        by_first,
    }
}

/// The groups flattened by id (`0..ids`), each in its order, with where
/// each id's group starts (and, last, the end).
fn flatten_entries(mut by_first: ByFirst, ids: usize) -> (Vec<Entry>, Vec<u32>) {
    let mut entries = Vec::new();
    let mut starts = Vec::with_capacity(ids + 1);
    for id in 0..ids {
        starts.push(u32::try_from(entries.len()).unwrap_or(u32::MAX));
        let id = u32::try_from(id).unwrap_or(UNKNOWN);
        entries.extend(by_first.remove(&id).unwrap_or_default());
    }
    starts.push(u32::try_from(entries.len()).unwrap_or(u32::MAX));
    (entries, starts)
}

/// The speller over the English words and the single-word entries, each
/// word with what it reads as, so that two spellings of one concept
/// ("batterie", "batterij") are not a tie.
fn speller_for(english: &FxHashSet<String>, entries: &[Entry]) -> Speller {
    let mut vocabulary: Vec<(&str, &str)> =
        english.iter().map(|w| (w.as_str(), w.as_str())).collect();
    for e in entries {
        if let ([src], Some(dst)) = (e.src.as_slice(), e.dst.words.first()) {
            vocabulary.push((src.as_str(), dst.as_str()));
        }
    }
    Speller::new(&vocabulary)
}

/// Interns the `english` words.
fn mark_english(english: &FxHashSet<String>, vocab: &mut Vocab) {
    for w in english {
        vocab.intern(w);
    }
}

/// Bits of what a word is, per vocabulary id ([`Lexicon::kind`]), so that
/// reading a plain English word looks at one byte: [`ALPHA`], [`DIGIT`],
/// [`ENGLISH`], [`HEAD`].
type Kind = u8;

/// The word has an alphabetic character (counts as a word).
const ALPHA: Kind = 1;
/// Up to this many tokens, an HS code is read beside any words (see
/// [`Lexicon::hs_heading`]).
const HS_ALONE: usize = 5;
/// The word starts with an ASCII digit (may be an HS number).
const DIGIT: Kind = 2;
/// The word is English (a word of the curated terms or `english_common`).
const ENGLISH: Kind = 4;
/// Some lexicon entry starts with the word.
const HEAD: Kind = 8;

/// Whether `word` has `n` characters or more (`n` > 0), counting at most
/// `n` of them.
fn has_chars(word: &str, n: usize) -> bool {
    // A character has one to four bytes.
    if word.len() < n {
        return false;
    }
    word.len() >= 4 * n || word.chars().nth(n - 1).is_some()
}

/// [`ALPHA`] and [`DIGIT`] of `word`.
fn kind_of_text(word: &str) -> Kind {
    let b = word.as_bytes();
    let k = if b.first().is_some_and(u8::is_ascii_digit) {
        DIGIT
    } else {
        0
    };
    for c in b {
        if c.is_ascii_alphabetic() {
            return k | ALPHA;
        }
        if !c.is_ascii() {
            // Letters of other scripts: by their characters.
            return if word.chars().any(char::is_alphabetic) {
                k | ALPHA
            } else {
                k
            };
        }
    }
    k
}

/// Per vocabulary id (every word of `vocab`): its [`Kind`] bits; `starts`
/// as in [`Lexicon`], `english` interned.
fn kinds(english: &FxHashSet<String>, starts: &[u32], vocab: &Vocab) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = vocab.words().map(|(_, w)| kind_of_text(w)).collect();
    for w in english {
        if let Some(k) = kinds.get_mut(vocab.id(w) as usize) {
            *k |= ENGLISH;
        }
    }
    for (k, pair) in kinds.iter_mut().zip(starts.windows(2)) {
        if pair[1] > pair[0] {
            *k |= HEAD;
        }
    }
    kinds
}

/// The state of one [`Lexicon::read`].
struct Pass<'k> {
    /// What the reading so far changed in the tokens.
    out: Edits<'k>,
    /// Words (original spelling) corrected, with the correction.
    corrections: Vec<(String, String)>,
    /// Codes written (see [`Codes`]).
    codes: Vec<Mention<'k>>,
    /// Alphabetic words seen.
    words: usize,
    /// Alphabetic words no language knows.
    unknown: usize,
    memo: Memo,
    /// Words per language (see [`Lexicon::language_counts`]).
    counts: Vec<usize>,
    /// English words in the description.
    english_count: usize,
}

/// The parts of a compound `tok`, each part's words in order; the first
/// word keeps the break before `tok`.
fn push_parts<'k>(out: &mut Vec<Token<'k>>, parts: Vec<Words>, tok: &Token<'k>) {
    let mut first = true;
    for dst in parts {
        let brk = if first { tok.break_before } else { NO_BREAK };
        for (k, (w, id)) in dst.words.into_iter().zip(dst.ids).enumerate() {
            out.push(Token {
                id,
                text: Cow::Owned(w),
                break_before: if k == 0 { brk } else { NO_BREAK },
                span: tok.span,
                origin: Origin::Translated,
            });
        }
        first = false;
    }
}

/// Per-call answers that depend on one word only.
#[derive(Default)]
struct Memo {
    enabled: bool,
    corrections: FxHashMap<String, Option<String>>,
    splits: FxHashMap<String, Option<Vec<Words>>>,
}

/// Whether the words with ids `src` start at token `i` (no break inside).
fn matches_at(tokens: &[Token], i: usize, src: &[u32]) -> bool {
    i + src.len() <= tokens.len()
        && src.iter().enumerate().all(|(k, w)| {
            let t = &tokens[i + k];
            t.id == *w && (k == 0 || t.break_before == NO_BREAK)
        })
}

/// The English words `dst` (the knowledge base's copies) as tokens.
fn push_reading<'k>(
    out: &mut Vec<Token<'k>>,
    dst: &'k [String],
    ids: &[u32],
    brk: u8,
    span: (usize, usize),
) {
    for (k, w) in dst.iter().enumerate() {
        out.push(Token {
            id: ids.get(k).copied().unwrap_or(UNKNOWN),
            text: Cow::Borrowed(w.as_str()),
            break_before: if k == 0 { brk } else { NO_BREAK },
            span,
            origin: Origin::Translated,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token of the vocabulary's word `id` (or of `text`, unknown).
    fn token<'k>(text: &'k str, id: u32) -> Token<'k> {
        Token {
            text: Cow::Borrowed(text),
            id,
            break_before: NO_BREAK,
            span: (0, text.len()),
            origin: Origin::Written,
        }
    }

    #[test]
    fn kinds_read_by_id_agree_with_the_words_and_the_entries() {
        let kb = super::super::kb::KnowledgeBase::bundled().expect("knowledge base");
        let (lex, vocab) = (&kb.lexicon, &kb.vocab);
        let mut with_head = 0;
        for (id, w) in vocab.words() {
            let k = lex.kind(&token(w, id));
            assert_eq!(k & (ALPHA | DIGIT), kind_of_text(w), "{w}");
            let head = lex.entries_of(id).is_some();
            assert_eq!(k & HEAD != 0, head, "{w}");
            with_head += usize::from(head);
        }
        assert!(with_head > 100, "{with_head}");
        for w in ["undrained", "12", "1a", "é", "x", ""] {
            assert_eq!(lex.kind(&token(w, UNKNOWN)), kind_of_text(w), "{w}");
        }
        assert_eq!(kind_of_text("12ab"), ALPHA | DIGIT);
        assert_eq!(kind_of_text("ab12"), ALPHA);
        assert_eq!(kind_of_text("%"), 0);
        // Every word a compound's part can be passes the filter.
        let mut hashes = [0u64; MAX_COMPOUND + 1];
        for (id, w) in vocab.words().filter(|(_, w)| w.len() <= MAX_COMPOUND) {
            if lex.single(id).is_some() || lex.is_english(id) {
                prefix_hashes(w.as_bytes(), &mut hashes);
                assert!(lex.may_be_part(hashes[w.len()]), "{w}");
            }
        }
        assert_eq!(kind_of_text("５"), 0);
        assert_eq!(kind_of_text("中"), ALPHA);
    }

    #[test]
    fn has_chars_counts_characters_not_bytes() {
        for w in [
            "",
            "a",
            "ab",
            "abc",
            "abcde",
            "é",
            "éé",
            "ééé",
            "中文",
            "中文字",
            "𝔸𝔹",
            "ab𝔸",
            "abcdefghijklmnopq",
        ] {
            for n in 1..8 {
                assert_eq!(has_chars(w, n), w.chars().count() >= n, "{w} {n}");
            }
        }
    }
}
