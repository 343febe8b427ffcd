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

use rustc_hash::{FxHashMap, FxHashSet};

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
    /// Says what the term before withstands ("acid-proof"): that term does
    /// not describe the waste.
    PropertyAfter,
    /// Says the term before names a plant or process ("sulphuric acid
    /// plant"): that term names where the waste comes from.
    OriginAfter,
    /// Says the term after was consumed making the waste ("neutralising
    /// weak acid"): that term names where the waste comes from.
    OriginBefore,
}

/// How a term hit describes the waste.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reading {
    /// What the waste is or contains.
    #[default]
    Content,
    /// The plant or process it comes from ("sulphuric acid plant").
    Origin,
    /// A property of something else ("acid-proof boxes"): not read.
    Property,
    /// The packaging the waste is in ("in HDPE IBCs"): not read.
    Packaging,
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
    /// How it describes the waste (set by a word right after a term).
    pub reading: Reading,
    /// The phrase as curated, for explanations.
    pub phrase: usize,
}

struct Phrase {
    tokens: Vec<String>,
    /// `tokens` as vocabulary ids.
    ids: Vec<u32>,
    /// The ids of the tokens without glue words, for out-of-order matching.
    content: Vec<u32>,
    /// [`id_bit`] of each word of `content`, or-ed: a window lacking one of
    /// these bits lacks a content word.
    content_bits: u64,
    kind: Kind,
    text: String,
}

/// A candidate hit: (start, end, phrase, in order, the length it is taken
/// by: `2 ×` the phrase's content words, `+ 1` in order). The length is
/// kept here, so that ordering the candidates does not read the phrases.
type Candidate = (usize, usize, usize, bool, usize);

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
/// them in another word order ("cable of copper insulated"): those are
/// `Matcher::rare[rare.0..rare.1]`.
#[derive(Clone, Copy)]
struct Heads {
    node: u32,
    rare: (u32, u32),
    /// The word is a barrier (see [`is_barrier`]).
    barrier: bool,
    /// The word stops a negation (`negation_stops`).
    stop: bool,
    /// The word names a container (`packaging`: "drum", "IBC", "pallet").
    container: bool,
    /// The [`id_bit`]s of the words that may follow this one in a phrase
    /// (the children of `node`), or-ed: when the next token's bit is not
    /// among them, the longest phrase here is the one-word phrase, if any.
    next_bits: u64,
}

impl Default for Heads {
    fn default() -> Self {
        Self {
            node: NO_NODE,
            rare: (0, 0),
            barrier: false,
            stop: false,
            container: false,
            next_bits: 0,
        }
    }
}

/// One of 64 bits for a word id: a window's bits (or-ed) tell a word that
/// is surely absent (its bit is clear); a set bit proves nothing.
fn id_bit(id: u32) -> u64 {
    1 << (id.wrapping_mul(0x9e37_79b1) >> 26)
}

/// Room made for out-of-order spans on the first one found (the
/// 5,000-character benchmark finds 67).
const SEEN_ROOM: usize = 96;

/// No trie node / no phrase.
const NO_NODE: u32 = u32::MAX;

/// The phrases as a trie over word ids (node 0 is the root), so that the
/// longest phrase at a position is found by walking the tokens once instead
/// of trying every phrase that starts with the word.
#[derive(Default)]
struct Trie {
    /// (node, word id) → child node.
    edges: FxHashMap<(u32, u32), u32>,
    /// Per node: the phrase that ends there ([`NO_NODE`]: none). Of phrases
    /// with the same words, the first in curated order.
    ends: Vec<u32>,
    /// Per node: its children are `kids[first[node]..first[node + 1]]`,
    /// sorted by word id (the same edges as `edges`, read without hashing:
    /// most nodes have one or two children).
    first: Vec<u32>,
    /// (word id, child node), grouped by parent node.
    kids: Vec<(u32, u32)>,
}

impl Trie {
    fn new(phrases: &[Phrase]) -> Self {
        let mut edges: FxHashMap<(u32, u32), u32> = FxHashMap::default();
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
        let mut sorted: Vec<(u32, u32, u32)> =
            edges.iter().map(|(&(n, w), &c)| (n, w, c)).collect();
        sorted.sort_unstable();
        let mut first = Vec::with_capacity(ends.len() + 1);
        let mut kids = Vec::with_capacity(sorted.len());
        let mut at = 0;
        for node in 0..ends.len() {
            first.push(u32::try_from(kids.len()).unwrap_or(NO_NODE));
            while let Some(&(_, w, c)) = sorted.get(at).filter(|e| e.0 as usize == node) {
                kids.push((w, c));
                at += 1;
            }
        }
        first.push(u32::try_from(kids.len()).unwrap_or(NO_NODE));
        Self {
            edges,
            ends,
            first,
            kids,
        }
    }

    fn end(&self, node: u32) -> Option<usize> {
        self.ends
            .get(node as usize)
            .filter(|e| **e != NO_NODE)
            .map(|e| *e as usize)
    }

    /// `node`'s children: (word id, child node), sorted by word id.
    #[inline(always)]
    fn kids_of(&self, node: u32) -> &[(u32, u32)] {
        let n = node as usize;
        match (self.first.get(n), self.first.get(n.wrapping_add(1))) {
            (Some(&a), Some(&b)) => self.kids.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }

    /// The word ids of `node`'s children.
    fn children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        self.kids_of(node).iter().map(|k| k.0)
    }

    /// The child of `node` by the word with id `word` (as `edges` says).
    fn child(&self, node: u32, word: u32) -> Option<u32> {
        let kids = self.kids_of(node);
        if kids.len() <= 8 {
            return kids.iter().find(|k| k.0 == word).map(|k| k.1);
        }
        kids.binary_search_by_key(&word, |k| k.0)
            .ok()
            .and_then(|i| kids.get(i))
            .map(|k| k.1)
    }
}

/// The compiled phrase table.
pub struct Matcher {
    phrases: Vec<Phrase>,
    /// By word id: one look-up per token serves both kinds of match.
    heads: Vec<Heads>,
    /// The terms of [`Heads::rare`].
    rare: Vec<Rare>,
    trie: Trie,
}

/// A multi-word term matched out of order, from its rarest content word:
/// the phrase, how far from that word its window reaches (its content
/// words + 2) and its content words' [`id_bit`]s.
#[derive(Clone, Copy)]
struct Rare {
    id: u32,
    reach: u32,
    bits: u64,
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
const BARRIERS: [&str; 16] = [
    "from",
    "containing",
    "with",
    "without",
    "for",
    "free",
    "by",
    "after",
    "before",
    "no",
    "not",
    "non",
    "in",
    "at",
    "during",
    "on",
];

/// A term right before a [`Kind::PropertyAfter`] or [`Kind::OriginAfter`]
/// word, joined to it ("acid-proof", "acid plant"), or right after a
/// [`Kind::OriginBefore`] word ("neutralising spent acid"), takes that
/// reading.
fn set_readings(tokens: &[Token], hits: &mut [Hit]) {
    let joined = |at: usize| tokens.get(at).is_some_and(|t| t.break_before == NO_BREAK);
    for i in 0..hits.len() {
        let (k, reading) = match hits[i].kind {
            Kind::PropertyAfter if i > 0 => (i - 1, Reading::Property),
            Kind::OriginAfter if i > 0 => (i - 1, Reading::Origin),
            Kind::OriginBefore if i + 1 < hits.len() => (i + 1, Reading::Origin),
            _ => continue,
        };
        // A word after the term ("acid plant") is joined to it; the term
        // after "neutralising" may have two words before it ("neutralising
        // the weak acid").
        let (first, second, gap) = if k < i { (k, i, 0) } else { (i, k, 2) };
        let (from, to) = (hits[first].end, hits[second].start);
        let near = from <= to && to - from <= gap && (from..=to).all(joined);
        if near && matches!(hits[k].kind, Kind::Term(_)) {
            hits[k].reading = reading;
        }
    }
}

fn is_glue(w: &str) -> bool {
    GLUE.contains(&w)
}

/// Every curated phrase with its kind: the qualifiers, then the terms.
fn raw_phrases(curated: &Curated) -> Vec<(&str, Kind)> {
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
        (&q.property_after, Kind::PropertyAfter),
        (&q.origin_after, Kind::OriginAfter),
        (&q.origin_before, Kind::OriginBefore),
    ] {
        raw.extend(list.iter().map(|p| (p.as_str(), kind)));
    }
    for (i, entry) in curated.terms.iter().enumerate() {
        raw.extend(entry.t.iter().map(|p| (p.as_str(), Kind::Term(i))));
    }
    raw
}

/// One phrase, normalised with `sp`, its words interned in `vocab`.
fn compile_phrase(
    text: &str,
    kind: Kind,
    sp: &FxHashMap<String, String>,
    vocab: &mut Vocab,
) -> Phrase {
    let tokens = phrase_tokens(text, sp);
    let ids = vocab.intern_all(&tokens);
    let content: Vec<u32> = tokens
        .iter()
        .zip(&ids)
        .filter(|(w, _)| !is_glue(w))
        .map(|(_, id)| *id)
        .collect();
    let content_bits = content.iter().fold(0, |b, &w| b | id_bit(w));
    Phrase {
        tokens,
        ids,
        content,
        content_bits,
        kind,
        text: text.to_owned(),
    }
}

/// Per word id, where the trie starts with it, the phrases it is the
/// rarest word of (ranges into the returned [`Rare`] list) and whether it
/// is a barrier. Interns the rare and barrier words first (in this order).
fn heads_and_rare(phrases: &[Phrase], trie: &Trie, vocab: &mut Vocab) -> (Vec<Heads>, Vec<Rare>) {
    let mut by_word: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (word, ids) in rare_index(phrases) {
        by_word.insert(vocab.intern(&word), ids);
    }
    // Every barrier word gets an id, so that the id tells a barrier.
    let barriers: Vec<u32> = BARRIERS.iter().map(|w| vocab.intern(w)).collect();
    let mut heads = vec![Heads::default(); vocab.len()];
    for (&(node, word), &child) in &trie.edges {
        if let Some(h) = heads.get_mut(word as usize).filter(|_| node == 0) {
            h.node = child;
        }
    }
    for h in heads.iter_mut().filter(|h| h.node != NO_NODE) {
        h.next_bits = trie.children(h.node).fold(0, |b, w| b | id_bit(w));
    }
    let mut rare = Vec::new();
    for (word, h) in heads.iter_mut().enumerate() {
        let ids = u32::try_from(word)
            .ok()
            .and_then(|w| by_word.remove(&w))
            .unwrap_or_default();
        let from = u32::try_from(rare.len()).unwrap_or(u32::MAX);
        rare.extend(ids.into_iter().map(|id| Rare {
            id: u32::try_from(id).unwrap_or(NO_NODE),
            reach: u32::try_from(phrases[id].content.len() + 2).unwrap_or(0),
            bits: phrases[id].content_bits,
        }));
        h.rare = (from, u32::try_from(rare.len()).unwrap_or(u32::MAX));
    }
    for id in barriers {
        if let Some(h) = heads.get_mut(id as usize) {
            h.barrier = true;
        }
    }
    (heads, rare)
}

impl Matcher {
    /// Compiles every curated phrase with the same normalisation as descriptions.
    pub fn new(curated: &Curated, vocab: &mut Vocab) -> Self {
        let sp = &curated.spellings;
        let phrases: Vec<Phrase> = raw_phrases(curated)
            .into_iter()
            .map(|(text, kind)| compile_phrase(text, kind, sp, vocab))
            .filter(|p| !p.tokens.is_empty())
            .collect();
        let trie = Trie::new(&phrases);
        let (mut heads, rare) = heads_and_rare(&phrases, &trie, vocab);
        let stops: Vec<u32> = curated
            .qualifiers
            .negation_stops
            .iter()
            .flat_map(|s| phrase_tokens(s, sp))
            .map(|w| vocab.intern(&w))
            .collect();
        // Every stop word's id tells it (ids interned here come last).
        heads.resize(vocab.len(), Heads::default());
        for &id in &stops {
            if let Some(h) = heads.get_mut(id as usize) {
                h.stop = true;
            }
        }
        let containers: Vec<u32> = curated
            .qualifiers
            .packaging
            .iter()
            .flat_map(|s| phrase_tokens(s, sp))
            .map(|w| vocab.intern(&w))
            .collect();
        heads.resize(vocab.len(), Heads::default());
        for &id in &containers {
            if let Some(h) = heads.get_mut(id as usize) {
                h.container = true;
            }
        }
        Self {
            phrases,
            heads,
            rare,
            trie,
        }
    }

    /// Every token of every curated phrase (the English vocabulary).
    pub fn vocabulary(&self) -> FxHashSet<String> {
        self.phrases
            .iter()
            .flat_map(|p| p.tokens.iter().cloned())
            .collect()
    }

    /// Every pair of neighbouring words in a curated term ("lead acid").
    pub fn bigrams(&self) -> FxHashSet<(String, String)> {
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
        let candidates = self.candidates(tokens);
        let mut taken = vec![false; tokens.len()];
        let mut hits = Vec::with_capacity(candidates.len());
        for i in self.take_order(&candidates) {
            let Some(&(pos, end, id, ordered, _)) = candidates.get(i) else {
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
                reading: Reading::Content,
                phrase: id,
            });
        }
        let mut hits = by_start(hits, tokens.len());
        self.negate(tokens, &mut hits);
        set_readings(tokens, &mut hits);
        self.set_packaging(tokens, &mut hits);
        hits
    }

    /// Whether token `k` names a container.
    fn is_container(&self, tokens: &[Token], k: usize) -> bool {
        tokens
            .get(k)
            .and_then(|t| self.heads.get(t.id as usize))
            .is_some_and(|h| h.container)
    }

    /// A term in "in …" or "on …" up to a container word within the
    /// clause ("in HDPE IBCs", "in steel drums", "on wooden pallets")
    /// names the packaging, not the waste: it is not read.
    fn set_packaging(&self, tokens: &[Token], hits: &mut [Hit]) {
        for h in hits.iter_mut() {
            if !matches!(h.kind, Kind::Term(_)) || h.reading != Reading::Content {
                continue;
            }
            let joined = |a: usize, b: usize| {
                (a + 1..=b).all(|k| tokens.get(k).is_some_and(|t| t.break_before == NO_BREAK))
            };
            let before = (h.start.saturating_sub(3)..h.start).find(|&k| {
                tokens
                    .get(k)
                    .is_some_and(|t| matches!(t.word(), "in" | "on" | "into" | "inside"))
            });
            let Some(p) = before else { continue };
            let last = (h.start..h.end + 2).rfind(|&k| self.is_container(tokens, k));
            if last.is_some_and(|c| joined(p, c)) {
                h.reading = Reading::Packaging;
            }
        }
    }

    /// The longest phrase at each position (in order), then the terms
    /// found out of order.
    ///
    /// One look at each word's [`Heads`] serves both: the in-order
    /// candidates are found in it, and the positions of rare words (with
    /// their terms) kept for [`Self::unordered`], which needs every
    /// in-order candidate first.
    fn candidates(&self, tokens: &[Token]) -> Vec<Candidate> {
        // At most one in-order candidate per token: room for them all up
        // front (collecting an unknown count grew the vector eight times).
        let mut candidates: Vec<Candidate> = Vec::with_capacity(tokens.len() + 16);
        let mut rare_at: Vec<(usize, (u32, u32))> = Vec::with_capacity(tokens.len());
        for (pos, tok) in tokens.iter().enumerate() {
            let Some(head) = self.head(tok.id) else {
                continue;
            };
            if head.rare.0 < head.rare.1 {
                rare_at.push((pos, head.rare));
            }
            if head.node == NO_NODE {
                continue;
            }
            if let Some(id) = self.longest_here(tokens, pos, head) {
                let p = &self.phrases[id];
                let len = 2 * p.content.len() + 1;
                candidates.push((pos, pos + p.tokens.len(), id, true, len));
            }
        }
        self.unordered(tokens, &rare_at, &mut candidates);
        candidates
    }

    /// The order candidates are taken in: longest first (`2 ×` content
    /// words, `+ 1` in order), in order first, leftmost, then as found;
    /// the order of sorting by [`pack`], without sorting them all.
    ///
    /// A length's parity tells whether its candidates are in order, so a
    /// counting sort by length (stable: as found) puts them in that order
    /// but for the position: in-order candidates are found by position, and
    /// only each length's out-of-order ones are sorted by position.
    fn take_order(&self, candidates: &[Candidate]) -> Vec<usize> {
        let len = |c: &Candidate| c.4;
        let longest = candidates.iter().map(len).max().unwrap_or(0);
        // Few candidates (a short description): one small sort is cheaper.
        if longest >= 1024 || candidates.len() < 64 {
            return sorted_by_pack(candidates.iter().map(|c| (len(c), c.3, c.0)));
        }
        // Each candidate's length, looked up once.
        let lens: Vec<usize> = candidates.iter().map(len).collect();
        // Where each length's run starts, longest first.
        let mut runs = vec![0usize; longest + 2];
        for &l in &lens {
            runs[longest - l + 1] += 1;
        }
        for l in 1..runs.len() {
            runs[l] += runs[l - 1];
        }
        let mut next = runs.clone();
        let mut order = vec![0usize; candidates.len()];
        for (i, &l) in lens.iter().enumerate() {
            let slot = &mut next[longest - l];
            order[*slot] = i;
            *slot += 1;
        }
        for k in 0..=longest {
            let run = &mut order[runs[k]..runs[k + 1]];
            if (longest - k) % 2 == 0 && run.len() > 1 {
                // Out of order (even length): leftmost first, then as found.
                run.sort_unstable_by_key(|&i| (candidates[i].0, i));
            }
        }
        order
    }

    /// Multi-word terms whose content words all occur, in any order, within
    /// a short stretch of one clause (no comma or clause break inside),
    /// looked for around each rare word of `rare_at`: its position and its
    /// terms' range in `self.rare` (see [`Heads::rare`]).
    fn unordered(
        &self,
        tokens: &[Token],
        rare_at: &[(usize, (u32, u32))],
        out: &mut Vec<Candidate>,
    ) {
        // One candidate per (start, phrase): the in-order candidates (at
        // most one per position: its phrase by position) and the
        // out-of-order ones pushed here; both built on the first match.
        let mut in_order: Option<Vec<u32>> = None;
        let mut seen: FxHashSet<(usize, usize)> = FxHashSet::default();
        let mut stretch = Stretch::default();
        for &(pos, (from, to)) in rare_at {
            let Some(ids) = self.rare.get(from as usize..to as usize) else {
                continue;
            };
            // A window lies within its stretch: a term whose words are not
            // all in the stretch is not in the window either, and when no
            // term can be, the window is not looked for.
            let in_stretch = stretch.bits_at(tokens, pos);
            if ids.iter().all(|r| r.bits & !in_stretch != 0) {
                continue;
            }
            // The widest window any of these terms may use; each term's
            // window is this one cut to its own reach.
            let widest = ids.iter().map(|r| r.reach as usize).max().unwrap_or(0);
            let (lo_all, hi_all) = self.window(tokens, pos, widest);
            let bits = tokens[lo_all..hi_all]
                .iter()
                .fold(0, |b, t| b | id_bit(t.id));
            for &Rare {
                id,
                reach,
                bits: needs,
            } in ids
            {
                let (id, reach) = (id as usize, reach as usize);
                if needs & !bits != 0 {
                    continue;
                }
                let content = &self.phrases[id].content;
                let lo = lo_all.max(pos.saturating_sub(reach));
                let hi = hi_all.min(pos + reach + 1);
                let Some((s, e)) = used_span(content, needs, &tokens[lo..hi]) else {
                    continue;
                };
                let (s, e) = (lo + s, lo + e);
                let in_order = in_order.get_or_insert_with(|| {
                    let mut by_pos = vec![NO_NODE; tokens.len()];
                    for c in out.iter() {
                        by_pos[c.0] = u32::try_from(c.2).unwrap_or(NO_NODE);
                    }
                    by_pos
                });
                let known = in_order.get(s).is_some_and(|&p| p as usize == id);
                if !known && seen.capacity() == 0 {
                    // Room for a long description's new spans at once
                    // (growing the set rehashed it six times).
                    seen.reserve(SEEN_ROOM);
                }
                if !known && seen.insert((s, id)) {
                    out.push((s, e + 1, id, false, 2 * content.len()));
                }
            }
        }
    }

    /// The widest window around `pos` an out-of-order match may use,
    /// before cutting it to a term's reach (first position, one past the
    /// last): back at most `widest` tokens while the token has no break
    /// before it and the token before is no barrier, ahead at most
    /// `widest` while tokens have no break before them and are no barrier.
    /// Found from `pos` itself: only the positions of rare words ask, and
    /// the stretches between breaks are short.
    fn window(&self, tokens: &[Token], pos: usize, widest: usize) -> (usize, usize) {
        let barrier = |k: usize| self.head(tokens[k].id).is_some_and(|h| h.barrier);
        let min = pos.saturating_sub(widest);
        let mut lo = pos;
        while lo > min && tokens[lo].break_before == NO_BREAK && !barrier(lo - 1) {
            lo -= 1;
        }
        let max = (pos + widest + 1).min(tokens.len());
        let mut hi = pos + 1;
        while hi < max && tokens[hi].break_before == NO_BREAK && !barrier(hi) {
            hi += 1;
        }
        (lo, hi)
    }

    /// What the word with id `id` can begin.
    fn head(&self, id: u32) -> Option<&Heads> {
        self.heads.get(id as usize)
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

    /// [`Self::longest_at`], without the walk when the next token cannot
    /// continue a phrase (most heads): then the one-word phrase, if any.
    #[inline(always)]
    fn longest_here(&self, tokens: &[Token], pos: usize, head: &Heads) -> Option<usize> {
        let longer = tokens
            .get(pos + 1)
            .is_some_and(|t| t.break_before == NO_BREAK && id_bit(t.id) & head.next_bits != 0);
        if longer {
            self.longest_at(tokens, pos, head)
        } else {
            self.trie.end(head.node)
        }
    }

    /// The longest phrase starting at `pos` (whose word is `head`) that
    /// spans no break; of phrases with the same words, the first curated.
    /// Kept out of line: inlined into the loop over positions it cost
    /// about 2 % more instructions per 5,000-character call (callgrind).
    #[inline(never)]
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
            match self.trie.child(node, tok.id) {
                Some(child) => node = child,
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
                        // A term or a hazard word ("heavy metals not
                        // detected"); any other qualifier ends the list.
                        if !matches!(hits[k].kind, Kind::Term(_) | Kind::Hazard) {
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
                        if !(conj || comma) || clause {
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
                (j > from && tokens[j].break_before >= CLAUSE)
                    || self.head(tokens[j].id).is_some_and(|h| h.stop)
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

/// The stretch of tokens between two breaks (a token with a break before
/// it starts a new one) around the positions asked, in increasing order,
/// with its words' [`id_bit`]s or-ed: an out-of-order window never
/// reaches past a break, so a word whose bit is not here is not in the
/// window. Each token is read at most twice over all the positions asked.
#[derive(Default)]
struct Stretch {
    /// One past the stretch's last position (0: no stretch read yet).
    hi: usize,
    bits: u64,
}

impl Stretch {
    /// The bits of the stretch holding `pos` (`pos` not below the
    /// position asked before, and inside `tokens`).
    fn bits_at(&mut self, tokens: &[Token], pos: usize) -> u64 {
        if pos >= self.hi {
            let mut lo = pos;
            while lo > self.hi && tokens[lo].break_before == NO_BREAK {
                lo -= 1;
            }
            let mut hi = pos + 1;
            while hi < tokens.len() && tokens[hi].break_before == NO_BREAK {
                hi += 1;
            }
            self.bits = tokens[lo..hi].iter().fold(0, |b, t| b | id_bit(t.id));
            self.hi = hi;
        }
        self.bits
    }
}

/// When every word of `content` occurs in `window`: the first and the
/// last position in `window` of a word of `content`. `needs` is the
/// content words' [`id_bit`]s or-ed, so a word whose bit is not among them
/// is surely not one of them and is passed over without comparing.
fn used_span(content: &[u32], needs: u64, window: &[Token]) -> Option<(usize, usize)> {
    if content.len() > 32 {
        // (Terms matched out of order have at most four content words.)
        let all = content.iter().all(|w| window.iter().any(|t| t.id == *w));
        let is_used = |k: &usize| content.contains(&window[*k].id);
        let s = (0..window.len()).find(is_used)?;
        let e = (0..window.len()).rev().find(is_used)?;
        return all.then_some((s, e));
    }
    let mut found = 0u32;
    let (mut first, mut last) = (usize::MAX, 0);
    for (k, t) in window.iter().enumerate() {
        let w = t.id;
        if id_bit(w) & needs == 0 {
            continue;
        }
        // Which content words this is, as bits (without branching).
        let mut is = 0u32;
        for (c, &cw) in content.iter().enumerate() {
            is |= u32::from(cw == w) << c;
        }
        if is != 0 {
            found |= is;
            first = first.min(k);
            last = k;
        }
    }
    let all = found.count_ones() as usize == content.len();
    (all && first != usize::MAX).then_some((first, last))
}

/// The indices of candidates given as (length, in order, position), in
/// the order of their [`pack`]ed keys.
fn sorted_by_pack(candidates: impl Iterator<Item = (usize, bool, usize)>) -> Vec<usize> {
    let mut keyed: Vec<u128> = candidates
        .enumerate()
        .map(|(i, (len, ordered, pos))| pack(len, ordered, pos, i))
        .collect();
    keyed.sort_unstable();
    keyed
        .into_iter()
        .map(|key| (key & u128::from(u32::MAX)) as usize)
        .collect()
}

/// `hits` ordered by their first token (as a stable sort by `start`
/// would): hits share no token, so each start has one hit, placed in a
/// slot per token instead of sorting (for 32 hits or more).
fn by_start(mut hits: Vec<Hit>, tokens: usize) -> Vec<Hit> {
    if hits.len() < 32 {
        // A few hits (a short description): one small sort is cheaper.
        hits.sort_by_key(|h| h.start);
        return hits;
    }
    let mut slot = vec![u32::MAX; tokens];
    for (k, h) in hits.iter().enumerate() {
        match slot.get_mut(h.start) {
            Some(s) if *s == u32::MAX => *s = u32::try_from(k).unwrap_or(u32::MAX),
            _ => {
                hits.sort_by_key(|h| h.start);
                return hits;
            }
        }
    }
    let mut ordered = Vec::with_capacity(hits.len());
    for &k in &slot {
        if let Some(h) = hits.get(k as usize) {
            ordered.push(h.clone());
        }
    }
    ordered
}

/// Multi-word term phrases keyed by their content word that is rarest
/// among all phrases.
fn rare_index(phrases: &[Phrase]) -> FxHashMap<String, Vec<usize>> {
    let mut freq: FxHashMap<&str, usize> = FxHashMap::default();
    for p in phrases {
        for w in &p.tokens {
            *freq.entry(w.as_str()).or_default() += 1;
        }
    }
    let mut by_rare: FxHashMap<String, Vec<usize>> = FxHashMap::default();
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
    use super::super::normalize::{tokenize, COMMA};
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
    fn counting_by_length_orders_candidates_as_the_packed_sort() {
        let kb = KnowledgeBase::bundled().expect("knowledge base");
        let m = &kb.matcher;
        let long = [
            "Lot 2: HMS 1&2 steel scrap, cut to size, free of oil and sealed containers. ",
            "insulated copper cable offcuts, cable of copper insulated, PVC sheathed; ",
            "batteries lead acid spent, acid lead batteries, oil used lubricating, ",
            "fly ash from municipal waste incineration, asbestos cement sheets. ",
        ]
        .concat()
        .repeat(8);
        let mut compared = 0;
        for text in [long.as_str(), "lead acid battery", "", "battery acid lead"] {
            let tokens = tokenize(text, &kb.curated.spellings, &kb.vocab);
            let c = m.candidates(&tokens);
            let len = |c: &Candidate| 2 * m.phrases[c.2].content.len() + usize::from(c.3);
            assert!(c.iter().all(|c| c.4 == len(c)), "{text}");
            let packed = sorted_by_pack(c.iter().map(|c| (len(c), c.3, c.0)));
            assert_eq!(m.take_order(&c), packed, "{text}");
            // The long text takes the counting sort.
            assert!(c.len() >= 64 || text.len() < 100, "{}", c.len());
            compared += c.iter().filter(|c| !c.3).count();
        }
        assert!(compared > 10, "only {compared} out-of-order candidates");
    }

    #[test]
    fn the_trie_children_are_its_edges() {
        let kb = KnowledgeBase::bundled().expect("knowledge base");
        let t = &kb.matcher.trie;
        for (&(node, word), &child) in &t.edges {
            assert_eq!(t.child(node, word), Some(child));
            assert_eq!(
                t.child(node, word.wrapping_add(1)),
                t.edges.get(&(node, word.wrapping_add(1))).copied()
            );
            assert_eq!(t.child(node, super::super::vocab::UNKNOWN), None);
        }
        assert_eq!(t.child(NO_NODE, 0), None);
    }

    /// A token of the word with id `id`, as written, no break before it.
    fn token(id: u32) -> Token<'static> {
        Token {
            text: std::borrow::Cow::Borrowed(""),
            id,
            break_before: NO_BREAK,
            span: (0, 0),
            origin: super::super::normalize::Origin::Written,
        }
    }

    #[test]
    fn the_window_stops_at_breaks_barriers_and_its_width() {
        // The stretches computed for every token at once (as before), then
        // cut to the width: what `window` finds from the position alone.
        let kb = KnowledgeBase::bundled().expect("knowledge base");
        let m = &kb.matcher;
        let text = [
            "insulated copper cable offcuts, cable of copper insulated from demolition; ",
            "batteries lead acid spent without caps, acid lead batteries for recovery, ",
            "oil used lubricating in drums at the yard. fly ash from waste incineration",
        ]
        .concat();
        let tokens = tokenize(&text, &kb.curated.spellings, &kb.vocab);
        let n = tokens.len();
        let barrier = |k: usize| m.head(tokens[k].id).is_some_and(|h| h.barrier);
        let mut left = vec![0; n];
        for pos in 1..n {
            let joins = tokens[pos].break_before == NO_BREAK && !barrier(pos - 1);
            left[pos] = if joins { left[pos - 1] } else { pos };
        }
        let mut right = vec![n; n];
        for pos in (0..n - 1).rev() {
            let open = tokens[pos + 1].break_before == NO_BREAK && !barrier(pos + 1);
            right[pos] = if open { right[pos + 1] } else { pos + 1 };
        }
        assert!((0..n).any(barrier) && left.iter().any(|&l| l > 0));
        for widest in [0, 1, 3, 6, 40] {
            for pos in 0..n {
                let expect = (
                    left[pos].max(pos.saturating_sub(widest)),
                    right[pos].min(pos + widest + 1),
                );
                assert_eq!(m.window(&tokens, pos, widest), expect, "{pos} {widest}");
            }
        }
    }

    #[test]
    fn a_stretch_holds_the_bits_of_the_tokens_between_two_breaks() {
        // Breaks every few tokens (and two in a row); positions asked in
        // increasing order, some skipped, some twice, as `unordered` asks.
        let breaks = [0, 3, 4, 9, 10, 11, 17, 25];
        let tokens: Vec<Token> = (0..30u32)
            .map(|i| Token {
                break_before: if breaks.contains(&(i as usize)) {
                    COMMA
                } else {
                    NO_BREAK
                },
                ..token(i * 7 + 1)
            })
            .collect();
        let naive = |pos: usize| {
            let lo = (0..=pos)
                .rev()
                .find(|&k| tokens[k].break_before != NO_BREAK)
                .unwrap_or(0);
            let hi = (pos + 1..tokens.len())
                .find(|&k| tokens[k].break_before != NO_BREAK)
                .unwrap_or(tokens.len());
            tokens[lo..hi].iter().fold(0, |b, t| b | id_bit(t.id))
        };
        let mut stretch = Stretch::default();
        for pos in [0, 1, 1, 2, 3, 5, 8, 9, 10, 11, 12, 12, 16, 18, 24, 25, 29] {
            assert_eq!(stretch.bits_at(&tokens, pos), naive(pos), "{pos}");
        }
        let mut first_late = Stretch::default();
        assert_eq!(first_late.bits_at(&tokens, 14), naive(14));
    }

    #[test]
    fn the_span_passes_over_only_words_that_are_surely_not_content() {
        // Every window of up to 6 words over 8 ids (bits collide: 8 ids in
        // 64 bits), every content of 2 or 3 ids: the direct answer.
        let direct = |content: &[u32], window: &[u32]| {
            let used = |k: &usize| content.contains(&window[*k]);
            let all = content.iter().all(|w| window.contains(w));
            let s = (0..window.len()).find(used)?;
            let e = (0..window.len()).rev().find(used)?;
            all.then_some((s, e))
        };
        let ids: Vec<u32> = (0..8).map(|k| k * 977 + 3).collect();
        let mut checked = 0;
        for seed in 0u32..4000 {
            let len = (seed % 6) as usize + 1;
            let window: Vec<u32> = (0..len)
                .map(|k| ids[((seed / 7 + k as u32 * 5 + seed % 11) % 8) as usize])
                .collect();
            let tokens: Vec<Token> = window.iter().map(|&id| token(id)).collect();
            let content: Vec<u32> = (0..2 + seed % 2)
                .map(|k| ids[((seed / 3 + k * 3) % 8) as usize])
                .collect();
            let needs = content.iter().fold(0, |b, &w| b | id_bit(w));
            let got = used_span(&content, needs, &tokens);
            assert_eq!(got, direct(&content, &window), "{content:?} in {window:?}");
            checked += usize::from(got.is_some());
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn the_stop_words_and_only_they_are_marked_as_stops() {
        let kb = KnowledgeBase::bundled().expect("knowledge base");
        let sp = &kb.curated.spellings;
        let stops: Vec<u32> = kb
            .curated
            .qualifiers
            .negation_stops
            .iter()
            .flat_map(|s| super::super::normalize::phrase_tokens(s, sp))
            .filter_map(|w| kb.vocab.get(&w).map(|(id, _)| id))
            .collect();
        assert!(stops.len() >= 10, "{stops:?}");
        for (id, word) in kb.vocab.words() {
            let marked = kb.matcher.head(id).is_some_and(|h| h.stop);
            assert_eq!(marked, stops.contains(&id), "{word}");
        }
    }

    #[test]
    fn hits_by_start_are_sorted_by_start() {
        let hit = |start| Hit {
            kind: Kind::Hazard,
            start,
            end: start + 1,
            negated: false,
            reading: Reading::Content,
            phrase: start,
        };
        let starts = |h: Vec<Hit>| h.iter().map(|h| h.phrase).collect::<Vec<_>>();
        let many: Vec<Hit> = (0..40).rev().map(|k| hit(2 * k)).collect();
        let sorted: Vec<usize> = (0..40).map(|k| 2 * k).collect();
        assert_eq!(starts(by_start(many.clone(), 80)), sorted);
        assert_eq!(starts(by_start(many[30..].to_vec(), 80)), sorted[..10]);
        // A start shared (not produced by `find`) or out of range: still sorted, stably.
        let mut shared = many.clone();
        shared[3].start = 0;
        shared.push(hit(99));
        let by = by_start(shared.clone(), 80);
        shared.sort_by_key(|h| h.start);
        assert_eq!(starts(by), starts(shared));
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
                let head = m.head(tokens[pos].id);
                let trie = head.and_then(|h| m.longest_at(&tokens, pos, h));
                assert_eq!(trie, brute_force(m, &tokens, pos), "{text} at {pos}");
                let here = head.and_then(|h| m.longest_here(&tokens, pos, h));
                assert_eq!(here, trie, "{text} at {pos}");
                checked += usize::from(trie.is_some());
            }
        }
        assert!(checked > 20, "only {checked} phrases found");
    }
}
