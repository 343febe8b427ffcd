//! Codes brokers write before any words (`classifier/data/classifier_codes.json`):
//! European List of Waste codes ("EWC 16 06 01*", "LoW 170605", "16 06 01")
//! and UN numbers ("UN2794", "UN 1790", "UN No. 3190"). Each code is read
//! as the English words of the waste it names, so a code alone gives the
//! same answer as those words, and a code beside words adds its reading to
//! theirs. HS codes are read the same way by the lexicon (`hs_headings`).
//!
//! After the answer is assembled ([`apply`]): a UN number written is listed
//! with the Annex III characteristic of its class, the explanation says how
//! each code was read, and a code whose entries disagree with the answer
//! is a warning (an asterisked List of Waste code, hazardous in the EU, never
//! leaves a Green answer without PIC).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::annexes::Annexes;
use super::error::KnowledgeBaseError;
use super::low::{self, LowEntry};
use super::normalize::{phrase_tokens, Token, NO_BREAK};
use super::result::{Classification, CodeMatch, ListType, WarningCode};
use super::vocab::Vocab;
use rustc_hash::FxHashMap;

const CODES: &str = include_str!("../data/classifier_codes.json");

#[derive(Deserialize)]
struct CodesFile {
    markers: Markers,
    un_class_h: BTreeMap<String, String>,
    ewc: BTreeMap<String, EwcFile>,
    un: BTreeMap<String, UnFile>,
}

#[derive(Deserialize)]
struct Markers {
    ewc: Vec<String>,
}

#[derive(Deserialize)]
struct EwcFile {
    title: String,
    read: String,
    basel: Vec<String>,
}

#[derive(Deserialize)]
struct UnFile {
    name: String,
    class: String,
    read: String,
    basel: Vec<String>,
}

/// Which list a code belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The European List of Waste.
    Ewc,
    /// The UN Dangerous Goods List.
    Un,
}

/// One code of the table and how it is read.
#[derive(Debug)]
pub struct CodeEntry {
    /// The code as the list prints it ("16 06 01*", "UN2794").
    pub label: String,
    pub kind: Kind,
    /// The list's own title or proper shipping name.
    pub title: String,
    /// The English words read instead of the code, as written in the
    /// table and as tokens with their ids.
    pub read: String,
    pub words: Vec<String>,
    pub ids: Vec<u32>,
    /// The Basel entries the reading gives.
    pub basel: Vec<String>,
    /// Hazardous in the list itself (an asterisked List of Waste entry, any
    /// UN number).
    pub hazardous: bool,
    /// The Annex III characteristic of a UN number's class, if one.
    pub h: Option<String>,
    /// The List of Waste entry itself (kind, mirror partners, texts).
    pub low: Option<LowEntry>,
}

/// A code found in a description: the text as written and its entry.
#[derive(Debug)]
pub struct Mention<'k> {
    pub written: String,
    pub entry: &'k CodeEntry,
}

/// The compiled table.
pub struct Codes {
    ewc: FxHashMap<String, CodeEntry>,
    un: FxHashMap<String, CodeEntry>,
    ewc_markers: Vec<String>,
}

impl Codes {
    /// Parses the embedded table.
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when the file does not have the expected shape.
    pub fn bundled(
        spellings: &FxHashMap<String, String>,
        vocab: &mut Vocab,
    ) -> Result<Self, KnowledgeBaseError> {
        let file: CodesFile =
            serde_json::from_str(CODES).map_err(|e| KnowledgeBaseError::Parse {
                file: "classifier_codes.json",
                message: e.to_string(),
            })?;
        let mut read = |phrase: &str| {
            let words = phrase_tokens(phrase, spellings);
            let ids = vocab.intern_all(&words);
            (words, ids)
        };
        let mut ewc = FxHashMap::default();
        for (label, e) in &file.ewc {
            let (words, ids) = read(&e.read);
            let entry = CodeEntry {
                read: e.read.clone(),
                label: label.clone(),
                kind: Kind::Ewc,
                title: e.title.clone(),
                words,
                ids,
                basel: e.basel.clone(),
                hazardous: label.ends_with('*'),
                h: None,
                low: None,
            };
            ewc.insert(digits(label), entry);
        }
        for l in low::entries()? {
            let key = l.digits();
            if let Some(curated) = ewc.get_mut(&key) {
                curated.hazardous |= l.hazardous();
                curated.low = Some(l);
                continue;
            }
            let reading = l.reading();
            let (words, ids) = read(&reading);
            let entry = CodeEntry {
                read: reading,
                label: l.label.clone(),
                kind: Kind::Ewc,
                title: l.en.clone(),
                words,
                ids,
                basel: Vec::new(),
                hazardous: l.hazardous(),
                h: None,
                low: Some(l),
            };
            ewc.insert(key, entry);
        }
        let mut un = FxHashMap::default();
        for (number, e) in &file.un {
            let (words, ids) = read(&e.read);
            let entry = CodeEntry {
                read: e.read.clone(),
                label: format!("UN{number}"),
                kind: Kind::Un,
                title: e.name.clone(),
                words,
                ids,
                basel: e.basel.clone(),
                hazardous: true,
                h: file.un_class_h.get(&e.class).cloned(),
                low: None,
            };
            un.insert(number.clone(), entry);
        }
        Ok(Self {
            ewc,
            un,
            ewc_markers: file.markers.ewc,
        })
    }

    /// The code written at token `i`, if any: how many tokens it takes and
    /// its entry.
    pub fn at(&self, tokens: &[Token], i: usize, original: &str) -> Option<(usize, &CodeEntry)> {
        let t = tokens.get(i)?;
        let word = t.word();
        if let Some(n) = word.strip_prefix("un").filter(|n| is_digits(n, 4)) {
            return self.un.get(n).map(|e| (1, e));
        }
        if !word.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        if is_digits(word, 4) && self.un_before(tokens, i) {
            return self.un.get(word).map(|e| (1, e));
        }
        self.ewc_at(tokens, i, original)
    }

    /// A List of Waste code at token `i`: three groups of two digits, or
    /// six digits after a marker word or before an asterisk.
    fn ewc_at(&self, tokens: &[Token], i: usize, original: &str) -> Option<(usize, &CodeEntry)> {
        let word = tokens.get(i)?.word();
        if is_digits(word, 6) {
            let last = tokens.get(i)?;
            let marked = self.ewc_marker_before(tokens, i) || star_after(original, last.span.1);
            return self.ewc.get(word).filter(|_| marked).map(|e| (1, e));
        }
        let group = |k: usize| {
            tokens
                .get(k)
                .filter(|t| is_digits(t.word(), 2) && (k == i || t.break_before == NO_BREAK))
        };
        let (a, b, c) = (group(i)?, group(i + 1)?, group(i + 2)?);
        let key = format!("{}{}{}", a.word(), b.word(), c.word());
        self.ewc.get(&key).map(|e| (3, e))
    }

    /// A code as written at tokens from `i` (`span`): from a marker word
    /// right before it ("EWC", "UN") to its last digit and asterisk.
    pub fn written(
        &self,
        tokens: &[Token],
        i: usize,
        span: (usize, usize),
        original: &str,
    ) -> String {
        let start = match i.checked_sub(1).and_then(|k| tokens.get(k)) {
            Some(t) if self.is_marker(t.word()) || t.word() == "un" => t.span.0,
            _ => span.0,
        };
        let mut end = span.1;
        if let Some(rest) = original.get(end..) {
            let trimmed = rest.trim_start();
            if trimmed.starts_with('*') {
                end += rest.len() - trimmed.len() + 1;
            }
        }
        original.get(start..end).unwrap_or("").to_owned()
    }

    fn is_marker(&self, word: &str) -> bool {
        self.ewc_markers.iter().any(|m| m == word)
    }

    fn ewc_marker_before(&self, tokens: &[Token], i: usize) -> bool {
        let is_marker = |k: usize| tokens.get(k).is_some_and(|t| self.is_marker(t.word()));
        (i >= 1 && is_marker(i - 1)) || (i >= 2 && is_marker(i - 2))
    }

    /// "UN 2794", "UN No. 2794", "UN number 2794".
    fn un_before(&self, tokens: &[Token], i: usize) -> bool {
        let word = |k: usize| tokens.get(k).map(Token::word);
        match i {
            0 => false,
            1 => word(0) == Some("un"),
            _ => {
                word(i - 1) == Some("un")
                    || (matches!(word(i - 1), Some("no" | "nr" | "number" | "num"))
                        && word(i - 2) == Some("un"))
            }
        }
    }
}

fn is_digits(word: &str, n: usize) -> bool {
    word.len() == n && word.bytes().all(|b| b.is_ascii_digit())
}

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// An asterisk right after byte `end` of `original` (spaces allowed).
fn star_after(original: &str, end: usize) -> bool {
    original
        .get(end..)
        .is_some_and(|rest| rest.trim_start().starts_with('*'))
}

/// What the written codes add to the answer (see the module doc).
pub fn apply(out: &mut Classification, mentions: &[Mention], annexes: &'static Annexes) {
    for m in mentions {
        let e = m.entry;
        if e.kind == Kind::Un && !out.un_codes.contains(&e.label) {
            out.un_codes.insert(0, e.label.clone());
        }
        if let Some(h) = &e.h {
            if !out.h_codes.iter().any(|c| c.code == h.as_str()) {
                let (code, name) = annexes.code_and_name(h);
                out.h_codes.push(CodeMatch {
                    code: own(code),
                    name: own(name),
                    confidence: 0.9,
                });
            }
        }
        explain(out, m);
        warn_on_conflict(out, m);
        never_green_beside_a_hazardous_entry(out, m);
    }
}

/// An asterisked List of Waste entry is hazardous in the EU list: the
/// answer needs PIC and is never Green (`result::set_green_aside`).
fn never_green_beside_a_hazardous_entry(out: &mut Classification, m: &Mention) {
    let e = m.entry;
    if e.kind != Kind::Ewc || !e.hazardous {
        return;
    }
    out.pic_required = true;
    let why = format!("the code '{}' marks the waste hazardous", m.written);
    super::result::set_green_aside(out, &why);
}

fn own(c: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(c.into_owned())
}

fn list_name(e: &CodeEntry) -> &'static str {
    match (e.kind, e.hazardous) {
        (Kind::Ewc, true) => "European List of Waste, hazardous entry",
        (Kind::Ewc, false) => "European List of Waste",
        (Kind::Un, _) => "UN Dangerous Goods List",
    }
}

/// The deciding explanation says how the code was read.
fn explain(out: &mut Classification, m: &Mention) {
    let e = m.entry;
    let sentence = format!(
        "The code '{}' ({}: '{}') was read as '{}'.",
        m.written,
        list_name(e),
        e.title,
        e.read
    );
    if let Some(x) = out.explanation.first_mut() {
        if !x.reason.is_empty() {
            x.reason
                .push_str(if x.reason.ends_with('.') { " " } else { ". " });
        }
        x.reason.push_str(&sentence);
    }
}

/// A code whose entries differ from the first A- or B-code of the answer
/// is a warning; an asterisked List of Waste code (hazardous in the EU list)
/// keeps PIC on a Green answer.
fn warn_on_conflict(out: &mut Classification, m: &Mention) {
    let e = m.entry;
    let others: Vec<String> = [out.a_codes.first(), out.b_codes.first()]
        .into_iter()
        .flatten()
        .map(|c| c.code.to_string())
        .filter(|c| !e.basel.is_empty() && !e.basel.contains(c))
        .collect();
    let hazard_clash = e.kind == Kind::Ewc && e.hazardous && out.list_type == ListType::Green;
    if others.is_empty() && !hazard_clash {
        return;
    }
    let points_to = if e.basel.is_empty() {
        "a hazardous waste".to_owned()
    } else {
        e.basel.join(" or ")
    };
    let words = if others.is_empty() {
        out.best_code().unwrap_or("no entry").to_owned()
    } else {
        others.join(" and ")
    };
    let mut w = format!(
        "The code '{}' ({}: '{}') points to {points_to}, but the words of the description point \
to {words}: check which is right.",
        m.written,
        list_name(e),
        e.title,
    );
    if hazard_clash {
        out.pic_required = true;
        w.push_str(" The code marks the waste hazardous, so prior informed consent is assumed.");
    }
    out.warnings.push(w);
    out.warning_codes.push(WarningCode::CodeConflict);
}
