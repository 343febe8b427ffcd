//! Phrase matching: finds curated terms and qualifiers in a tokenised
//! description, longest phrase first, then applies negation.
//!
//! Longer phrases win over shorter ones they overlap and consume their
//! tokens, so "lead acid battery" is one hit and "lead" does not fire again
//! on its own. A phrase never spans a
//! punctuation break.
//!
//! Negation: a `negate_before` phrase ("free of", "without", "not
//! containing") negates the hits after it until a clause break, a
//! `negation_stops` word ("with", "containing") or six tokens; a
//! `negate_after` phrase ("free", "removed") negates the hit right before it.

use super::fast::{FastMap, FastSet};

use super::curated::Curated;
use super::normalize::{phrase_tokens, Token, CLAUSE, NO_BREAK};
use super::vocab::Vocab;

/// What a phrase means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A curated term: index into `Curated::terms`.
    Term(usize),
    /// Negates what follows.
    NegateBefore,
    /// Negates the hit before.
    NegateAfter,
    /// Hazard qualifier.
    Hazard,
    /// Clean / non-hazardous qualifier.
    Clean,
    /// Mixed / unsorted qualifier.
    Mixed,
    /// Sorted / single-material qualifier.
    Sorted,
    /// Destined for recovery.
    Recycling,
    /// Introduces contaminants; `true` when it is a hazard qualifier too.
    Introducer(bool),
    /// Introduces the source of the waste.
    Source,
}

/// One phrase found in a description.
#[derive(Debug, Clone)]
pub struct Hit {
    /// What it means.
    pub kind: Kind,
    /// First token index.
    pub start: usize,
    /// One past the last token index.
    pub end: usize,
    /// Whether a negation applies to it.
    pub negated: bool,
    /// The phrase as curated, for explanations.
    pub phrase: usize,
}

struct Phrase {
    tokens: Vec<String>,
    /// `tokens` as vocabulary ids.
    ids: Vec<u32>,
    /// The ids of the tokens without glue words, for out-of-order matching.
    content: Vec<u32>,
    kind: Kind,
    text: String,
}

/// A candidate hit: (start, end, phrase, in order).
type Candidate = (usize, usize, usize, bool);

/// The order candidates are taken in: longest first (`len`), in order
/// first, leftmost (`pos`), then as found (`i`), packed so that the integer
/// order is that order. `pos` and `i` are below 2^31 (a description is at
/// most 5,000 characters).
fn pack(len: usize, ordered: bool, pos: usize, i: usize) -> u128 {
    let longest_first = u128::from(u64::MAX - u64::try_from(len).unwrap_or(u64::MAX));
    let out_of_order = u128::from(!ordered);
    let pos = u128::from(u32::try_from(pos).unwrap_or(u32::MAX).min(0x7fff_ffff));
    let i = u128::from(u32::try_from(i).unwrap_or(u32::MAX));
    (longest_first << 64) | (out_of_order << 63) | (pos << 32) | i
}

/// What a word can begin: the phrases it starts (its node in the [`Trie`])
/// and the multi-word terms whose rarest content word it is, for matching
/// them in another word order ("cable of copper insulated").
struct Heads {
    node: u32,
    rare: Vec<usize>,
}

impl Default for Heads {
    fn default() -> Self {
        Self {
            node: NO_NODE,
            rare: Vec::new(),
        }
    }
}

/// No trie node / no phrase.
const NO_NODE: u32 = u32::MAX;

/// The phrases as a trie over word ids (node 0 is the root), so that the
/// longest phrase at a position is found by walking the tokens once instead
/// of trying every phrase that starts with the word.
#[derive(Default)]
struct Trie {
    /// (node, word id) → child node.
    edges: FastMap<(u32, u32), u32>,
    /// Per node: the phrase that ends there ([`NO_NODE`]: none). Of phrases
    /// with the same words, the first in curated order.
    ends: Vec<u32>,
}

impl Trie {
    fn new(phrases: &[Phrase]) -> Self {
        let mut edges: FastMap<(u32, u32), u32> = FastMap::default();
        let mut ends = vec![NO_NODE];
        for (i, p) in phrases.iter().enumerate() {
            let mut node = 0;
            for &w in &p.ids {
                node = *edges.entry((node, w)).or_insert_with(|| {
                    ends.push(NO_NODE);
                    u32::try_from(ends.len() - 1).unwrap_or(NO_NODE)
                });
            }
            if let Some(end) = ends.get_mut(node as usize) {
                if *end == NO_NODE {
                    *end = u32::try_from(i).unwrap_or(NO_NODE);
                }
            }
        }
        Self { edges, ends }
    }

    fn end(&self, node: u32) -> Option<usize> {
        self.ends
            .get(node as usize)
            .filter(|e| **e != NO_NODE)
            .map(|e| *e as usize)
    }
}

/// The compiled phrase table.
pub struct Matcher {
    phrases: Vec<Phrase>,
    /// Keyed by word id: one look-up per token serves both kinds of match.
    heads: FastMap<u32, Heads>,
    trie: Trie,
    /// Ids of the words that stop a negation.
    stops: Vec<u32>,
}

/// Words skipped when a term is matched out of order.
const GLUE: [&str; 12] = [
    "of", "the", "a", "an", "and", "in", "for", "from", "to", "on", "by", "with",
];

/// Words that carry the sentence's structure: a term holding one is only
/// matched in its own word order.
const SYNTAX: [&str; 9] = [
    "containing",
    "contaminated",
    "free",
    "without",
    "not",
    "no",
    "non",
    "bearing",
    "than",
];

/// Words an out-of-order match does not reach across: they start a new
/// part of the description (a source, a contaminant, a purpose).
fn is_barrier(w: &str) -> bool {
    matches!(
        w,
        "from"
            | "containing"
            | "with"
            | "without"
            | "for"
            | "free"
            | "by"
            | "after"
            | "before"
            | "no"
            | "not"
            | "non"
            | "in"
            | "at"
            | "during"
            | "on"
    )
}

fn is_glue(w: &str) -> bool {
    GLUE.contains(&w)
}

impl Matcher {
    /// Compiles every curated phrase with the same normalisation as descriptions.
    pub fn new(curated: &Curated, vocab: &mut Vocab) -> Self {
        let sp = &curated.spellings;
        let q = &curated.qualifiers;
        let mut raw: Vec<(&str, Kind)> = Vec::new();
        for (list, kind) in [
            (&q.negate_before, Kind::NegateBefore),
            (&q.negate_after, Kind::NegateAfter),
            (&q.hazard, Kind::Hazard),
            (&q.clean, Kind::Clean),
            (&q.mixed, Kind::Mixed),
            (&q.sorted, Kind::Sorted),
            (&q.recycling, Kind::Recycling),
            (&q.contaminant_introducers, Kind::Introducer(false)),
            (&q.hazard_introducers, Kind::Introducer(true)),
            (&q.source_markers, Kind::Source),
        ] {
            raw.extend(list.iter().map(|p| (p.as_str(), kind)));
        }
        for (i, entry) in curated.terms.iter().enumerate() {
            raw.extend(entry.t.iter().map(|p| (p.as_str(), Kind::Term(i))));
        }
        let phrases: Vec<Phrase> = raw
            .into_iter()
            .map(|(text, kind)| {
                let tokens = phrase_tokens(text, sp);
                let ids = vocab.intern_all(&tokens);
                let content = tokens
                    .iter()
                    .zip(&ids)
                    .filter(|(w, _)| !is_glue(w))
                    .map(|(_, id)| *id)
                    .collect();
                Phrase {
                    tokens,
                    ids,
                    content,
                    kind,
                    text: text.to_owned(),
                }
            })
            .filter(|p| !p.tokens.is_empty())
            .collect();
        let trie = Trie::new(&phrases);
        let mut heads: FastMap<u32, Heads> = FastMap::default();
        for (&(node, word), &child) in &trie.edges {
            if node == 0 {
                heads.entry(word).or_default().node = child;
            }
        }
        for (word, ids) in rare_index(&phrases) {
            heads.entry(vocab.intern(&word)).or_default().rare = ids;
        }
        let stops = q
            .negation_stops
            .iter()
            .flat_map(|s| phrase_tokens(s, sp))
            .map(|w| vocab.intern(&w))
            .collect();
        Self {
            phrases,
            heads,
            trie,
            stops,
        }
    }

    /// Every token of every curated phrase (the English vocabulary).
    pub fn vocabulary(&self) -> FastSet<String> {
        self.phrases
            .iter()
            .flat_map(|p| p.tokens.iter().cloned())
            .collect()
    }

    /// Every pair of neighbouring words in a curated term ("lead acid").
    pub fn bigrams(&self) -> FastSet<(String, String)> {
        self.phrases
            .iter()
            .flat_map(|p| p.tokens.windows(2).map(|w| (w[0].clone(), w[1].clone())))
            .collect()
    }

    /// The curated text of phrase `i`.
    pub fn text(&self, i: usize) -> &str {
        self.phrases.get(i).map_or("", |p| p.text.as_str())
    }

    /// Finds the phrases in `tokens`, longest first, and marks negated hits.
    ///
    /// The longest phrase at each position is a candidate; candidates are
    /// then taken longest first (leftmost on ties) where they do not overlap
    /// one already taken, so "scrap lead-acid batteries" is read as "lead
    /// acid battery" rather than "scrap lead".
    pub fn find(&self, tokens: &[Token]) -> Vec<Hit> {
        let heads: Vec<Option<&Heads>> = tokens.iter().map(|t| self.heads.get(&t.id)).collect();
        // (start, end, phrase, in order)
        let mut candidates: Vec<Candidate> = (0..tokens.len())
            .filter_map(|pos| {
                self.longest_at(tokens, pos, heads[pos]?)
                    .map(|id| (pos, pos + self.phrases[id].tokens.len(), id, true))
            })
            .collect();
        self.unordered(tokens, &heads, &mut candidates);
        // Keys computed once and packed into one integer, with the
        // candidate's index last: equal keys keep their order (as a stable
        // sort would) and the sort compares and moves single integers.
        let mut keyed: Vec<u128> = candidates
            .iter()
            .enumerate()
            .map(|(i, &(pos, _, id, ordered))| {
                let len = 2 * self.phrases[id].content.len() + usize::from(ordered);
                pack(len, ordered, pos, i)
            })
            .collect();
        keyed.sort_unstable();
        let mut taken = vec![false; tokens.len()];
        let mut hits = Vec::new();
        for &key in &keyed {
            let i = (key & u128::from(u32::MAX)) as usize;
            let Some(&(pos, end, id, ordered)) = candidates.get(i) else {
                continue;
            };
            let free = if ordered {
                taken[pos..end].iter().all(|&t| !t)
            } else {
                self.used_positions(tokens, pos, end, id).all(|k| !taken[k])
            };
            if !free {
                continue;
            }
            if ordered {
                taken[pos..end].iter_mut().for_each(|t| *t = true);
            } else {
                for k in self.used_positions(tokens, pos, end, id) {
                    taken[k] = true;
                }
            }
            hits.push(Hit {
                kind: self.phrases[id].kind,
                start: pos,
                end,
                negated: false,
                phrase: id,
            });
        }
        hits.sort_by_key(|h| h.start);
        self.negate(tokens, &mut hits);
        hits
    }

    /// Multi-word terms whose content words all occur, in any order, within
    /// a short stretch of one clause (no comma or clause break inside).
    fn unordered(&self, tokens: &[Token], heads: &[Option<&Heads>], out: &mut Vec<Candidate>) {
        // (start, phrase) of every candidate so far: one candidate each;
        // built on the first out-of-order match.
        let mut seen: Option<FastSet<(usize, usize)>> = None;
        // Whether each token is a barrier, computed on the first match.
        let mut barriers: Option<Vec<bool>> = None;
        for (pos, head) in heads.iter().enumerate() {
            let Some(ids) = head.map(|h| &h.rare).filter(|r| !r.is_empty()) else {
                continue;
            };
            let barrier: &[bool] = barriers
                .get_or_insert_with(|| tokens.iter().map(|t| is_barrier(&t.text)).collect());
            for &id in ids {
                let content = &self.phrases[id].content;
                let reach = content.len() + 2;
                let lo = (pos.saturating_sub(reach)..pos)
                    .rev()
                    .take_while(|&k| tokens[k + 1].break_before == NO_BREAK && !barrier[k])
                    .last()
                    .unwrap_or(pos);
                let mut hi = pos + 1;
                while hi < tokens.len()
                    && hi <= pos + reach
                    && tokens[hi].break_before == NO_BREAK
                    && !barrier[hi]
                {
                    hi += 1;
                }
                let window = &tokens[lo..hi];
                let all = content.iter().all(|w| window.iter().any(|t| t.id == *w));
                if !all {
                    continue;
                }
                let is_used = |k: &usize| content.contains(&tokens[*k].id);
                let (Some(s), Some(e)) = ((lo..hi).find(is_used), (lo..hi).rev().find(is_used))
                else {
                    continue;
                };
                let seen = seen.get_or_insert_with(|| out.iter().map(|c| (c.0, c.2)).collect());
                if seen.insert((s, id)) {
                    out.push((s, e + 1, id, false));
                }
            }
        }
    }

    fn used_positions<'s>(
        &'s self,
        tokens: &'s [Token<'_>],
        start: usize,
        end: usize,
        id: usize,
    ) -> impl Iterator<Item = usize> + 's {
        let content = &self.phrases[id].content;
        (start..end).filter(move |&k| content.contains(&tokens[k].id))
    }

    /// Which tokens a negation reaches: true for every token inside the
    /// reach of a negating phrase.
    pub fn negated_tokens(&self, tokens: &[Token], hits: &[Hit]) -> Vec<bool> {
        let mut out = vec![false; tokens.len()];
        for h in hits {
            match h.kind {
                Kind::NegateBefore => {
                    let reach = self.reach(tokens, h.end);
                    out[h.end.min(reach)..reach]
                        .iter_mut()
                        .for_each(|t| *t = true);
                }
                Kind::Term(_) if h.negated => {
                    out[h.start..h.end].iter_mut().for_each(|t| *t = true);
                }
                // "fluids drained": the word before is negated even when it
                // names no entry.
                Kind::NegateAfter
                    if h.start > 0
                        && self.after_applies(tokens, h)
                        && tokens[h.start].break_before == NO_BREAK =>
                {
                    out[h.start - 1] = true;
                }
                _ => {}
            }
        }
        out
    }

    /// The longest phrase starting at `pos` (whose word is `head`) that
    /// spans no break; of phrases with the same words, the first curated.
    fn longest_at(&self, tokens: &[Token], pos: usize, head: &Heads) -> Option<usize> {
        let mut node = head.node;
        if node == NO_NODE {
            return None;
        }
        let mut best = self.trie.end(node);
        for tok in tokens.iter().skip(pos + 1) {
            if tok.break_before != NO_BREAK {
                break;
            }
            match self.trie.edges.get(&(node, tok.id)) {
                Some(&child) => node = child,
                None => break,
            }
            if let Some(end) = self.trie.end(node) {
                best = Some(end);
            }
        }
        best
    }

    fn negate(&self, tokens: &[Token], hits: &mut [Hit]) {
        for i in 0..hits.len() {
            match hits[i].kind {
                Kind::NegateBefore => {
                    let from = hits[i].end;
                    let reach = self.reach(tokens, from);
                    for h in hits.iter_mut().skip(i + 1) {
                        if h.start >= reach {
                            break;
                        }
                        // A list of terms continues over commas ("free of lead,
                        // cadmium or mercury"); a qualifier after a comma is a
                        // new statement ("without batteries, non-hazardous").
                        let after_comma = (from + 1..=h.start)
                            .any(|j| tokens.get(j).is_some_and(|t| t.break_before != NO_BREAK));
                        if matches!(h.kind, Kind::Term(_)) || !after_comma {
                            h.negated = true;
                        }
                    }
                }
                Kind::NegateAfter if i > 0 && self.after_applies(tokens, &hits[i]) => {
                    // "oil and coolant drained": back over a coordinated list.
                    // The first step back needs a conjunction; later ones may
                    // be commas ("oil, coolant and fuel drained").
                    let mut edge = hits[i].start;
                    for (step, k) in (0..i).rev().enumerate() {
                        // "lead weights and floats removed": the head may
                        // be followed by a few words of its own phrase.
                        let near = edge - hits[k].end.min(edge) <= 3
                            && (hits[k].end..=edge)
                                .all(|j| tokens.get(j).is_some_and(|t| t.break_before == NO_BREAK));
                        if !matches!(hits[k].kind, Kind::Term(_)) {
                            break;
                        }
                        if near && step == 0 {
                            hits[k].negated = true;
                            continue;
                        }
                        let gap: Vec<&str> = (hits[k].end..edge)
                            .filter_map(|j| tokens.get(j).map(|t| t.word()))
                            .collect();
                        let conj = !gap.is_empty()
                            && gap.iter().all(|w| matches!(*w, "and" | "or" | "nor"));
                        let comma = gap.is_empty()
                            && step > 1
                            && tokens
                                .get(edge)
                                .is_some_and(|t| t.break_before == super::normalize::COMMA);
                        let clause = tokens
                            .get(hits[k].end)
                            .is_some_and(|t| t.break_before >= CLAUSE);
                        if !(conj || comma) || clause || !matches!(hits[k].kind, Kind::Term(_)) {
                            break;
                        }
                        hits[k].negated = true;
                        edge = hits[k].start;
                    }
                }
                _ => {}
            }
        }
    }

    /// Where a negation starting at token `from` stops.
    fn reach(&self, tokens: &[Token], from: usize) -> usize {
        let limit = (from + 6).min(tokens.len());
        (from..limit)
            .find(|&j| {
                (j > from && tokens[j].break_before >= CLAUSE) || self.stops.contains(&tokens[j].id)
            })
            .unwrap_or(limit)
    }

    /// "batteries removed" negates; "boards removed from servers" does not.
    fn after_applies(&self, tokens: &[Token], hit: &Hit) -> bool {
        match tokens.get(hit.end) {
            None => true,
            Some(next) => next.break_before != NO_BREAK || !matches!(next.word(), "from" | "of"),
        }
    }
}

/// Multi-word term phrases keyed by their content word that is rarest
/// among all phrases.
fn rare_index(phrases: &[Phrase]) -> FastMap<String, Vec<usize>> {
    let mut freq: FastMap<&str, usize> = FastMap::default();
    for p in phrases {
        for w in &p.tokens {
            *freq.entry(w.as_str()).or_default() += 1;
        }
    }
    let mut by_rare: FastMap<String, Vec<usize>> = FastMap::default();
    for (i, p) in phrases.iter().enumerate() {
        let content: Vec<&String> = p.tokens.iter().filter(|w| !is_glue(w)).collect();
        let syntax = p.tokens.iter().any(|w| SYNTAX.contains(&w.as_str()));
        let short = content.iter().any(|w| w.chars().count() < 2);
        if content.len() < 2
            || content.len() > 4
            || syntax
            || short
            || !matches!(p.kind, Kind::Term(_))
        {
            continue;
        }
        if let Some(rare) = content
            .iter()
            .min_by_key(|w| freq.get(w.as_str()).copied().unwrap_or(0))
        {
            by_rare.entry((*rare).clone()).or_default().push(i);
        }
    }
    by_rare
}

#[cfg(test)]
mod tests {
    use super::super::kb::KnowledgeBase;
    use super::super::normalize::tokenize;
    use super::*;

    /// The longest phrase at `pos` by trying every phrase (what the trie
    /// replaced): longest first, then the first curated.
    fn brute_force(m: &Matcher, tokens: &[Token], pos: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (id, p) in m.phrases.iter().enumerate() {
            let fits = pos + p.ids.len() <= tokens.len()
                && p.ids.iter().enumerate().all(|(k, w)| {
                    let t = &tokens[pos + k];
                    t.id == *w && (k == 0 || t.break_before == NO_BREAK)
                });
            if fits && best.is_none_or(|b| p.ids.len() > m.phrases[b].ids.len()) {
                best = Some(id);
            }
        }
        best
    }

    #[test]
    fn packed_keys_sort_like_the_tuples() {
        let mut tuples = Vec::new();
        for len in [0usize, 1, 2, 7, 40] {
            for ordered in [true, false] {
                for pos in [0usize, 1, 3, 4999] {
                    for i in [0usize, 2, 9] {
                        tuples.push((std::cmp::Reverse(len), !ordered, pos, i));
                    }
                }
            }
        }
        let mut packed: Vec<u128> = tuples
            .iter()
            .map(|&(std::cmp::Reverse(len), out, pos, i)| pack(len, !out, pos, i))
            .collect();
        tuples.sort();
        packed.sort_unstable();
        let expect: Vec<u128> = tuples
            .iter()
            .map(|&(std::cmp::Reverse(len), out, pos, i)| pack(len, !out, pos, i))
            .collect();
        assert_eq!(packed, expect);
    }

    #[test]
    fn the_trie_finds_the_phrase_trying_every_phrase_finds() {
        let kb = KnowledgeBase::bundled().expect("knowledge base");
        let m = &kb.matcher;
        let texts = [
            "Spent lead-acid car batteries, whole and undrained, mixed with nickel-cadmium packs",
            "insulated copper cable offcuts, PVC sheathed; used lubricating oil, PCB below 5 mg/kg",
            "waste oil and coolant drained, free of lead, cadmium or mercury; scrap lead acid battery",
            "printed circuit boards removed from servers, mixed plastics, sorted PET flakes",
            "fly ash from municipal waste incineration, asbestos cement sheets, spent pot liner",
        ];
        let mut checked = 0;
        for text in texts {
            let tokens = tokenize(text, &kb.curated.spellings, &kb.vocab);
            for pos in 0..tokens.len() {
                let trie = m
                    .heads
                    .get(&tokens[pos].id)
                    .and_then(|h| m.longest_at(&tokens, pos, h));
                assert_eq!(trie, brute_force(m, &tokens, pos), "{text} at {pos}");
                checked += usize::from(trie.is_some());
            }
        }
        assert!(checked > 20, "only {checked} phrases found");
    }
}
