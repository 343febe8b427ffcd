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

use std::collections::HashMap;

use super::curated::Curated;
use super::normalize::{phrase_tokens, Token, CLAUSE, NO_BREAK};

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
    kind: Kind,
    text: String,
}

/// The compiled phrase table.
pub struct Matcher {
    phrases: Vec<Phrase>,
    by_first: HashMap<String, Vec<usize>>,
    stops: Vec<String>,
}

impl Matcher {
    /// Compiles every curated phrase with the same normalisation as descriptions.
    pub fn new(curated: &Curated) -> Self {
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
            .map(|(text, kind)| Phrase {
                tokens: phrase_tokens(text, sp),
                kind,
                text: text.to_owned(),
            })
            .filter(|p| !p.tokens.is_empty())
            .collect();
        let mut by_first: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, p) in phrases.iter().enumerate() {
            by_first.entry(p.tokens[0].clone()).or_default().push(i);
        }
        for ids in by_first.values_mut() {
            ids.sort_by_key(|&i| std::cmp::Reverse(phrases[i].tokens.len()));
        }
        let stops = q
            .negation_stops
            .iter()
            .flat_map(|s| phrase_tokens(s, sp))
            .collect();
        Self {
            phrases,
            by_first,
            stops,
        }
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
        let mut candidates: Vec<(usize, usize)> = (0..tokens.len())
            .filter_map(|pos| self.longest_at(tokens, pos).map(|id| (pos, id)))
            .collect();
        candidates
            .sort_by_key(|&(pos, id)| (std::cmp::Reverse(self.phrases[id].tokens.len()), pos));
        let mut taken = vec![false; tokens.len()];
        let mut hits = Vec::new();
        for (pos, id) in candidates {
            let end = pos + self.phrases[id].tokens.len();
            if taken[pos..end].iter().any(|t| *t) {
                continue;
            }
            taken[pos..end].iter_mut().for_each(|t| *t = true);
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

    fn longest_at(&self, tokens: &[Token], pos: usize) -> Option<usize> {
        let candidates = self.by_first.get(&tokens[pos].text)?;
        candidates.iter().copied().find(|&id| {
            let p = &self.phrases[id].tokens;
            pos + p.len() <= tokens.len()
                && p.iter().enumerate().all(|(k, t)| {
                    let tok = &tokens[pos + k];
                    tok.text == *t && (k == 0 || tok.break_before == NO_BREAK)
                })
        })
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
                    let start = hits[i].start;
                    if let Some(prev) = hits.get_mut(i - 1) {
                        if prev.end == start {
                            prev.negated = true;
                        }
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
                    || self.stops.contains(&tokens[j].text)
            })
            .unwrap_or(limit)
    }

    /// "batteries removed" negates; "boards removed from servers" does not.
    fn after_applies(&self, tokens: &[Token], hit: &Hit) -> bool {
        match tokens.get(hit.end) {
            None => true,
            Some(next) => {
                next.break_before != NO_BREAK || !matches!(next.text.as_str(), "from" | "of")
            }
        }
    }
}
