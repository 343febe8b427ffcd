//! From phrase hits to evidence: a score per candidate code and the
//! qualifier signals (hazard, clean, mixed, sorted, recycling).
//!
//! Score of a code: its best term weight plus 0.3 × the other distinct terms'
//! weights. A negated term scores nothing; a negated hazardous term (or an
//! A-code term, e.g. "without batteries") counts as a clean signal instead.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::annexes::CodeStatus;
use rustc_hash::FxHashSet;

use super::kb::KnowledgeBase;
use super::matcher::{Hit, Kind, Reading};
use super::normalize::Token;
use super::token_index::TokenIndex;

/// Weight kept by a term that names a contaminant ("... containing X") or a
/// source ("... from Y") rather than the waste itself, unless its entry is
/// defined by that constituent.
const CONTAMINANT_DISCOUNT: f64 = 0.6;
/// Weight of a code named in the description (e.g. "A1160").
const CODE_NAMED: f64 = 1.3;
/// Weight of the replacement of a deleted code named in the description.
const REPLACEMENT_OF_DELETED: f64 = 0.8;

/// One candidate code and why.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// The terms that matched, with their weights.
    pub terms: Vec<(String, f64)>,
    /// Reasons added by rules (mirror moves, penalties).
    pub reasons: Vec<String>,
    /// Multiplier applied by rules (1.0 when none).
    pub factor: f64,
    /// Added by rules: 0.3 × the weight of hazardous constituents that
    /// moved a mirror group to this A member.
    pub bonus: f64,
    /// Byte spans of the description's words that support the code.
    pub spans: Vec<(usize, usize)>,
    /// Deciding criteria in words (thresholds met, scope rules applied).
    pub criteria: Vec<String>,
    /// Whether only terms read as the waste's origin ("from a dyestuff
    /// plant") support it: hazardous constituents then do not add to it.
    pub origin_only: bool,
}

impl Candidate {
    /// Best weight + 0.3 × the rest + bonus, times the rule factor.
    pub fn score(&self) -> f64 {
        // The weights in descending order (on the stack for up to 16 terms),
        // summed in that order.
        let mut stack = [0.0f64; 16];
        let mut heap = Vec::new();
        let w: &mut [f64] = if self.terms.len() <= stack.len() {
            let w = &mut stack[..self.terms.len()];
            for (slot, t) in w.iter_mut().zip(&self.terms) {
                *slot = t.1;
            }
            w
        } else {
            heap.extend(self.terms.iter().map(|t| t.1));
            &mut heap
        };
        w.sort_by(|a, b| b.total_cmp(a));
        let best = w.first().copied().unwrap_or(0.0);
        let rest: f64 = w.iter().skip(1).sum();
        (best + 0.3 * rest + self.bonus).min(2.5) * self.factor
    }

    /// Adds a supporting term (once) with its weight.
    pub fn add(&mut self, term: &str, weight: f64) {
        if self.factor == 0.0 {
            self.factor = 1.0;
        }
        if !self.terms.iter().any(|(t, _)| t == term) {
            self.terms.push((term.to_owned(), weight));
        }
    }
}

/// Companion codes a matched term brings (Y, H or UN).
#[derive(Debug, Clone)]
pub struct Extra<'a> {
    /// The code, e.g. "Y31", "H3", "UN1090".
    pub code: &'a str,
    /// The term's weight.
    pub weight: f64,
    /// The term.
    pub term: Cow<'a, str>,
}

/// Everything read from one description; codes and curated words are
/// borrowed from the knowledge base.
#[derive(Debug, Clone, Default)]
pub struct Evidence<'a> {
    /// Candidates keyed by code (sorted, so results are deterministic).
    pub candidates: BTreeMap<&'a str, Candidate>,
    /// Hazard signals (the words).
    pub hazard: Vec<Cow<'a, str>>,
    /// Hazardous constituent terms (of entries outside any mirror group) with
    /// their weights and Annex I categories (Y-codes): they support the A
    /// member of a mirror group they flip, where that entry is about them.
    pub hazard_terms: Vec<(Cow<'a, str>, f64, &'a [String])>,
    /// Clean / non-hazardous signals.
    pub clean: Vec<Cow<'a, str>>,
    /// Mixed / unsorted signals.
    pub mixed: Vec<Cow<'a, str>>,
    /// Sorted / single-material signals.
    pub sorted: Vec<Cow<'a, str>>,
    /// Recovery signals.
    pub recycling: Vec<Cow<'a, str>>,
    /// Y-codes brought by terms.
    pub y: Vec<Extra<'a>>,
    /// H-codes brought by terms and hazard words.
    pub h: Vec<Extra<'a>>,
    /// UN numbers brought by terms.
    pub un: Vec<Extra<'a>>,
    /// Warnings (deleted codes named, ...).
    pub warnings: Vec<String>,
    /// Facts read from amounts that rule an entry out, in words.
    pub notes: Vec<String>,
    /// Constituent words ruled out by a measured amount.
    pub ruled_out: Vec<String>,
    /// Entries the description pointed to that a rule set aside (another
    /// form of the same waste fits, a scope exception, an amount below
    /// the entry's limit), each with why in words.
    pub considered: Vec<(&'a str, String)>,
    /// `hazard` joined by [`words_once`], made on first use
    /// ([`Evidence::hazard_words`]): the thresholds are the last step that
    /// changes `hazard`, and the mirror groups, the weakening and the
    /// warnings that name the words all come after them.
    pub hazard_joined: std::cell::OnceCell<String>,
}

/// Qualifier words joined with ", ", each once ("acid, lead" for the
/// signals acid, lead, lead), in the order first named.
pub fn words_once(words: &[Cow<'_, str>]) -> String {
    let mut out = String::with_capacity(words.iter().map(|w| w.len() + 2).sum());
    let mut once = Once::new(words.len());
    for w in words {
        if !once.first(w) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(w);
    }
    out
}

/// Tells whether a word is named for the first time. A long description
/// names the same hazard words again and again (hundreds of signals): a
/// set beyond a few words, so that listing them once stays linear. Words
/// are mostly the curated phrase itself (the same text at the same
/// address), so they are compared by address before their bytes.
pub struct Once<'w> {
    few: Vec<Word<'w>>,
    many: Option<FxHashSet<Word<'w>>>,
}

/// A word compared by address and length first, then by its bytes.
#[derive(Clone, Copy)]
struct Word<'w>(&'w str);

impl PartialEq for Word<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0) || self.0 == other.0
    }
}

impl Eq for Word<'_> {}

impl std::hash::Hash for Word<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl<'w> Once<'w> {
    /// Room for `n` words.
    pub fn new(n: usize) -> Self {
        const FEW: usize = 8;
        if n <= FEW {
            Self {
                few: Vec::with_capacity(n),
                many: None,
            }
        } else {
            let mut set = FxHashSet::default();
            set.reserve(n);
            Self {
                few: Vec::new(),
                many: Some(set),
            }
        }
    }

    /// Whether `w` was not seen before (it is seen from now on).
    pub fn first(&mut self, w: &'w str) -> bool {
        let w = Word(w);
        match &mut self.many {
            Some(set) => set.insert(w),
            None if self.few.contains(&w) => false,
            None => {
                self.few.push(w);
                true
            }
        }
    }
}

/// The net hazard reading of a description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HazardState {
    /// Some hazard signal, at least as many as clean ones (precaution wins ties).
    Hazard,
    /// Clean signals only (or more of them).
    Clean,
    /// No qualifier.
    Neutral,
}

impl Evidence<'_> {
    /// The hazard words, each once, joined with ", " (made once per
    /// classification; see `hazard_joined`).
    pub fn hazard_words(&self) -> &str {
        self.hazard_joined.get_or_init(|| words_once(&self.hazard))
    }

    /// The net hazard reading.
    pub fn state(&self) -> HazardState {
        if !self.hazard.is_empty() && self.hazard.len() >= self.clean.len() {
            HazardState::Hazard
        } else if !self.clean.is_empty() {
            HazardState::Clean
        } else {
            HazardState::Neutral
        }
    }

    /// Mixed without a sorted signal.
    /// Mixed wins over a bare "sorted" (a sorted mixture is still a
    /// mixture); only a separate-recycling statement overrides it.
    pub fn is_mixed(&self) -> bool {
        !self.mixed.is_empty() && !self.sorted.iter().any(|s| s.contains("separate"))
    }

    /// The candidate's score, 0 when absent.
    pub fn score(&self, code: &str) -> f64 {
        self.candidates.get(code).map_or(0.0, Candidate::score)
    }
}

/// Reads the hits (and any code named in the text) into evidence.
pub fn gather<'a>(
    kb: &'a KnowledgeBase,
    tokens: &[Token],
    index: &TokenIndex<'_>,
    hits: &[Hit],
) -> Evidence<'a> {
    let mut ev = with_room(kb, hits);
    let mut contexts = Contexts {
        index,
        known: Vec::new(),
    };
    let mut found = Found::new(hits, kb.curated.terms.len());
    let mut contaminants_from: Option<usize> = None;
    for hit in hits {
        let text = kb.matcher.text(hit.phrase);
        if contaminants_from.is_some()
            && tokens
                .get(hit.start)
                .is_some_and(|t| t.break_before >= super::normalize::CLAUSE)
        {
            contaminants_from = None;
        }
        match hit.kind {
            Kind::Term(i) => {
                let contaminant = contaminants_from.is_some();
                let mut to = Into {
                    ev: &mut ev,
                    found: &mut found,
                };
                term(
                    kb,
                    &mut to,
                    tokens,
                    &mut contexts,
                    hit,
                    i,
                    text,
                    contaminant,
                );
            }
            Kind::Source => contaminants_from = Some(hit.end),
            Kind::Introducer(hazard) => {
                contaminants_from = Some(hit.end);
                if hazard && !hit.negated {
                    ev.hazard.push(Cow::Borrowed(text));
                }
            }
            Kind::Hazard if hit.negated => ev.clean.push(Cow::Owned(format!("not {text}"))),
            Kind::Hazard => {
                if let Some(h) = kb.curated.qualifiers.h_words.get(text) {
                    ev.h.push(Extra {
                        code: h,
                        weight: 0.8,
                        term: Cow::Borrowed(text),
                    });
                }
                ev.hazard.push(Cow::Borrowed(text));
            }
            Kind::Clean if hit.negated => ev.hazard.push(Cow::Owned(format!("not {text}"))),
            Kind::Clean => ev.clean.push(Cow::Borrowed(text)),
            Kind::Mixed if hit.negated => ev.sorted.push(Cow::Owned(format!("not {text}"))),
            Kind::Mixed => ev.mixed.push(Cow::Borrowed(text)),
            Kind::Sorted => ev.sorted.push(Cow::Borrowed(text)),
            Kind::Recycling => ev.recycling.push(Cow::Borrowed(text)),
            Kind::NegateBefore
            | Kind::NegateAfter
            | Kind::PropertyAfter
            | Kind::OriginAfter
            | Kind::OriginBefore => {}
        }
    }
    for (code, cand) in found.list {
        ev.candidates.insert(code, cand);
    }
    named_codes(kb, &mut ev, tokens);
    ev
}

/// Evidence with room for what `hits` can add to each list (an upper
/// bound, counted as [`gather`] and [`term`] add), so that no list grows
/// while the hits are read: a long description names the same terms again
/// and again, and each list grew (reallocating) several times per call.
fn with_room<'a>(kb: &KnowledgeBase, hits: &[Hit]) -> Evidence<'a> {
    let mut n = [0usize; 9];
    const HAZARD: usize = 0;
    const HAZARD_TERMS: usize = 1;
    const CLEAN: usize = 2;
    const MIXED: usize = 3;
    const SORTED: usize = 4;
    const RECYCLING: usize = 5;
    const Y: usize = 6;
    const H: usize = 7;
    const UN: usize = 8;
    for hit in hits {
        let list = match hit.kind {
            Kind::Term(i) => {
                let Some(entry) = kb.curated.terms.get(i) else {
                    continue;
                };
                if hit.negated {
                    CLEAN
                } else {
                    n[Y] += entry.y.len();
                    n[H] += entry.h.len();
                    n[UN] += entry.un.len();
                    n[HAZARD_TERMS] += usize::from(entry.hazard);
                    HAZARD
                }
            }
            Kind::Introducer(_) => HAZARD,
            Kind::Hazard if hit.negated => CLEAN,
            Kind::Hazard => {
                n[H] += 1;
                HAZARD
            }
            Kind::Clean if hit.negated => HAZARD,
            Kind::Clean => CLEAN,
            Kind::Mixed if hit.negated => SORTED,
            Kind::Mixed => MIXED,
            Kind::Sorted => SORTED,
            Kind::Recycling => RECYCLING,
            Kind::Source
            | Kind::NegateBefore
            | Kind::NegateAfter
            | Kind::PropertyAfter
            | Kind::OriginAfter
            | Kind::OriginBefore => continue,
        };
        n[list] += 1;
    }
    Evidence {
        hazard: Vec::with_capacity(n[HAZARD]),
        hazard_terms: Vec::with_capacity(n[HAZARD_TERMS]),
        clean: Vec::with_capacity(n[CLEAN]),
        mixed: Vec::with_capacity(n[MIXED]),
        sorted: Vec::with_capacity(n[SORTED]),
        recycling: Vec::with_capacity(n[RECYCLING]),
        y: Vec::with_capacity(n[Y]),
        h: Vec::with_capacity(n[H]),
        un: Vec::with_capacity(n[UN]),
        ..Evidence::default()
    }
}

/// With fewer hits (a short description), candidates go straight into
/// the map: a table per term would cost more than it saves.
const FOUND_FROM: usize = 32;

/// The candidates of the terms found, while the hits are read (they go
/// into [`Evidence::candidates`] after): a term's candidate is found by
/// the term's index after its first hit, instead of searching the map by
/// the code's text (a long description names the same terms again and
/// again). Off (`by_term` empty) below [`FOUND_FROM`] hits.
struct Found<'a> {
    /// Per curated term: 1 + its candidate's place in `list`; 0 before
    /// the term's first hit.
    by_term: Vec<u32>,
    /// Per curated term: its hits, so that its candidate has room for
    /// their spans from the term's first hit on.
    hits_of: Vec<u32>,
    /// The candidates by code (each code once), in the order first found.
    list: Vec<(&'a str, Candidate)>,
    /// A bit per phrase already added to its candidate: a phrase has one
    /// text and one code, so its later hits add no term (the text
    /// comparison `Candidate::add` would make is skipped).
    added: Vec<u64>,
}

impl<'a> Found<'a> {
    /// For `hits` of `terms` curated terms: on from [`FOUND_FROM`] hits.
    fn new(hits: &[Hit], terms: usize) -> Self {
        if hits.len() < FOUND_FROM {
            return Self {
                by_term: Vec::new(),
                hits_of: Vec::new(),
                list: Vec::new(),
                added: Vec::new(),
            };
        }
        let mut hits_of = vec![0u32; terms];
        for hit in hits {
            if let Kind::Term(i) = hit.kind {
                if let Some(n) = hits_of.get_mut(i) {
                    *n += 1;
                }
            }
        }
        Self {
            by_term: vec![0; terms],
            hits_of,
            list: Vec::new(),
            added: Vec::new(),
        }
    }

    /// Whether phrase `phrase` is added to its candidate for the first
    /// time (always when the table is off).
    fn first_add(&mut self, phrase: usize) -> bool {
        if self.by_term.is_empty() {
            return true;
        }
        let (word, bit) = (phrase / 64, 1u64 << (phrase % 64));
        if self.added.len() <= word {
            self.added.resize(word + 1, 0);
        }
        let first = self.added[word] & bit == 0;
        self.added[word] |= bit;
        first
    }

    /// The candidate of `code`, the code of term `i` (a new one on the
    /// code's first hit); in `map` when the table is off.
    fn candidate<'m>(
        &'m mut self,
        map: &'m mut BTreeMap<&'a str, Candidate>,
        i: usize,
        code: &'a str,
    ) -> &'m mut Candidate {
        if self.by_term.is_empty() {
            return map.entry(code).or_default();
        }
        let known = self.by_term.get(i).copied().unwrap_or(0) as usize;
        let at = match known.checked_sub(1) {
            Some(at) => at,
            None => {
                let at = match self.list.iter().position(|(c, _)| *c == code) {
                    Some(at) => at,
                    None => {
                        self.list.push((code, Candidate::default()));
                        self.list.len() - 1
                    }
                };
                if let Some(slot) = self.by_term.get_mut(i) {
                    *slot = u32::try_from(at + 1).unwrap_or(0);
                }
                let room = self.hits_of.get(i).copied().unwrap_or(0) as usize;
                self.list[at].1.spans.reserve(room);
                at
            }
        };
        &mut self.list[at].1
    }
}

/// Where [`term`] writes: the evidence, and the candidates found so far.
struct Into<'e, 'a> {
    ev: &'e mut Evidence<'a>,
    found: &'e mut Found<'a>,
}

#[allow(clippy::too_many_arguments)]
fn term<'a>(
    kb: &'a KnowledgeBase,
    to: &mut Into<'_, 'a>,
    tokens: &[Token],
    contexts: &mut Contexts<'_, '_>,
    hit: &Hit,
    i: usize,
    text: &'a str,
    contaminant: bool,
) {
    let Some(entry) = kb.curated.terms.get(i) else {
        return;
    };
    if !contexts.allow(i, entry) {
        return;
    }
    let ev = &mut *to.ev;
    if hit.negated {
        if entry.hazard || entry.code.starts_with('A') {
            ev.clean.push(Cow::Owned(format!("no {text}")));
        }
        return;
    }
    // A term right before a plant or process word names where the waste
    // comes from: weighed as a source; a hazardous constituent named so
    // ("sulphuric acid plant") is the plant's product, not the waste's.
    let origin = match hit.reading {
        Reading::Property | Reading::Packaging => return,
        Reading::Origin if entry.process => false,
        Reading::Origin if entry.hazard && entry.constituent => return,
        Reading::Origin => true,
        Reading::Content => false,
    };
    let weight = if origin || (contaminant && !entry.constituent) {
        entry.w * CONTAMINANT_DISCOUNT
    } else {
        entry.w
    };
    // A term naming the waste's origin is no hazard signal and brings no
    // categories of its own.
    if entry.hazard && !origin {
        ev.hazard.push(Cow::Borrowed(text));
        if entry.constituent && kb.mirror(&entry.code).is_none() {
            let y = if entry.y.is_empty() {
                kb.relation(&entry.code).map_or(&[][..], |r| &r.y[..])
            } else {
                &entry.y[..]
            };
            ev.hazard_terms.push((Cow::Borrowed(text), weight, y));
        }
    }
    if !origin {
        for (list, codes) in [
            (&mut ev.y, &entry.y),
            (&mut ev.h, &entry.h),
            (&mut ev.un, &entry.un),
        ] {
            list.extend(codes.iter().map(|c| Extra {
                code: c,
                weight: entry.w,
                term: Cow::Borrowed(text),
            }));
        }
    }
    let first = to.found.first_add(hit.phrase);
    let cand = to
        .found
        .candidate(&mut ev.candidates, i, entry.code.as_str());
    cand.origin_only = origin && (cand.origin_only || cand.terms.is_empty());
    if first {
        cand.add(text, weight);
    }
    if let (Some(a), Some(b)) = (tokens.get(hit.start), tokens.get(hit.end.saturating_sub(1))) {
        cand.spans.push((a.span.0, b.span.1.max(a.span.0)));
    }
}

/// Whether a term's context words allow it, asked of the token index once
/// per term of the curated data (the answer depends on the description
/// only, and a long description names the same terms again and again).
struct Contexts<'i, 'a> {
    index: &'i TokenIndex<'a>,
    /// (term index, allowed) for the terms with context words asked so far.
    known: Vec<(usize, bool)>,
}

impl Contexts<'_, '_> {
    /// Whether term `i` (`entry`) counts here: one of its context phrases
    /// (if it has any) occurs and none of its excluding phrases does.
    fn allow(&mut self, i: usize, entry: &super::curated::TermEntry) -> bool {
        if entry.ctx_tokens.is_empty() && entry.not_ctx_tokens.is_empty() {
            return true;
        }
        if let Some(&(_, allowed)) = self.known.iter().find(|k| k.0 == i) {
            return allowed;
        }
        let index = self.index;
        let allowed = (entry.ctx_tokens.is_empty()
            || entry.ctx_tokens.iter().any(|c| index.has_phrase(c)))
            && !entry.not_ctx_tokens.iter().any(|c| index.has_phrase(c));
        self.known.push((i, allowed));
        allowed
    }
}

fn named_codes<'a>(kb: &'a KnowledgeBase, ev: &mut Evidence<'a>, tokens: &[Token]) {
    for t in tokens {
        let s = t.word();
        let looks = s.len() >= 2
            && s.len() <= 5
            && matches!(s.as_bytes()[0], b'a' | b'b' | b'y')
            && s[1..].bytes().all(|b| b.is_ascii_digit());
        if !looks {
            continue;
        }
        let Some(info) = kb.annexes.get(s) else {
            continue;
        };
        if info.status == CodeStatus::InForce {
            let code = info.code.as_str();
            ev.candidates
                .entry(code)
                .or_default()
                .add(&format!("code {code} named"), CODE_NAMED);
            continue;
        }
        let replaced: &[String] = info.replaced_by.as_deref().unwrap_or_default();
        ev.warnings.push(format!(
            "{} is not in force (deleted or never adopted){}; it is never returned.",
            info.code,
            if replaced.is_empty() {
                String::new()
            } else {
                format!(", replaced by {}", replaced.join(" / "))
            }
        ));
        for r in replaced {
            if kb.annexes.in_force(r).is_some() {
                ev.candidates.entry(r.as_str()).or_default().add(
                    &format!("replacement of {}", info.code),
                    REPLACEMENT_OF_DELETED,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_listed_once_in_the_order_first_named() {
        let few: Vec<Cow<'_, str>> = ["acid", "lead", "acid", "lead"]
            .into_iter()
            .map(Cow::Borrowed)
            .collect();
        assert_eq!(words_once(&few), "acid, lead");
        // Past a few words a set decides; owned copies equal to borrowed
        // words are the same word.
        let mut many: Vec<Cow<'_, str>> = Vec::new();
        for k in 0..40 {
            many.push(Cow::Borrowed(["lead", "acid", "pcb"][k % 3]));
            many.push(Cow::Owned(format!("not {}", k % 5)));
            many.push(Cow::Owned("lead".to_owned()));
        }
        assert_eq!(
            words_once(&many),
            "lead, not 0, acid, not 1, pcb, not 2, not 3, not 4"
        );
        assert_eq!(words_once(&[]), "");
    }
}
