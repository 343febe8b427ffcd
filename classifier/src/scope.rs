//! Entry scope as data (`classifier/data/classifier_scope.json`): what an entry
//! covers, the words that take a waste out of it, and where the waste goes
//! instead. One mechanism applies every rule: when a candidate entry's rule
//! words occur in the description (and are not negated), the candidate
//! moves to the rule's target entry (or is dropped when there is none),
//! with the rule's reason as the deciding criterion.

use serde::Deserialize;

use super::error::KnowledgeBaseError;
use super::evidence::Evidence;
use super::normalize::phrase_tokens;
use super::token_index::TokenIndex;
use super::vocab::Vocab;

const SCOPE: &str = include_str!("../data/classifier_scope.json");

#[derive(Deserialize)]
struct ScopeFile {
    entries: Vec<EntryScope>,
}

/// The scope of one entry.
#[derive(Debug, Deserialize)]
pub struct EntryScope {
    /// The entry.
    pub code: String,
    /// What it covers, in words (for reviewers and explanations).
    pub covers: String,
    /// Exclusions and exceptions, tried in order.
    pub rules: Vec<ScopeRule>,
}

/// One exclusion: these words take the waste out of the entry.
#[derive(Debug, Deserialize)]
pub struct ScopeRule {
    /// Phrases, any of which applies the rule.
    #[serde(default)]
    pub if_any: Vec<String>,
    /// Families of phrases (e.g. one per polymer): the rule applies when
    /// words of at least `min_groups` families occur (a mixture).
    #[serde(default)]
    pub groups: Vec<Vec<String>>,
    /// See `groups`; 0 when unused.
    #[serde(default)]
    pub min_groups: usize,
    /// Phrases that keep the waste in the entry after all.
    #[serde(default)]
    pub unless: Vec<String>,
    /// Where the waste goes instead (empty: the entry does not apply).
    pub then: String,
    /// Why, quoting the entry.
    pub why: String,
    #[serde(skip)]
    if_tokens: Vec<Vec<u32>>,
    #[serde(skip)]
    unless_tokens: Vec<Vec<u32>>,
    #[serde(skip)]
    group_tokens: Vec<Vec<Vec<u32>>>,
}

impl ScopeRule {
    fn applies(&self, index: &TokenIndex<'_>, negated: &[bool]) -> bool {
        let named = found(&self.if_tokens, index, negated);
        let families = self
            .group_tokens
            .iter()
            .filter(|g| found(g, index, negated))
            .count();
        let mixture = self.min_groups > 0 && families >= self.min_groups;
        (named || mixture) && !found(&self.unless_tokens, index, negated)
    }
}

/// Every entry's scope.
pub struct Scopes {
    entries: Vec<EntryScope>,
}

impl Scopes {
    /// Parses the embedded scope file.
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when it does not have the expected shape.
    pub fn bundled(
        spellings: &rustc_hash::FxHashMap<String, String>,
        vocab: &mut Vocab,
    ) -> Result<Self, KnowledgeBaseError> {
        let mut file: ScopeFile =
            serde_json::from_str(SCOPE).map_err(|e| KnowledgeBaseError::Parse {
                file: "classifier_scope.json",
                message: e.to_string(),
            })?;
        for e in &mut file.entries {
            for r in &mut e.rules {
                let mut ids = |p: &String| vocab.intern_all(&phrase_tokens(p, spellings));
                r.if_tokens = r.if_any.iter().map(&mut ids).collect();
                r.unless_tokens = r.unless.iter().map(&mut ids).collect();
                r.group_tokens = r
                    .groups
                    .iter()
                    .map(|g| g.iter().map(&mut ids).collect())
                    .collect();
            }
        }
        Ok(Self {
            entries: file.entries,
        })
    }

    /// Every code a scope names (entries and targets), for validation.
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().flat_map(|e| {
            std::iter::once(e.code.as_str()).chain(
                e.rules
                    .iter()
                    .map(|r| r.then.as_str())
                    .filter(|t| !t.is_empty()),
            )
        })
    }

    /// Every phrase the rules look for, as vocabulary ids.
    pub fn phrases(&self) -> impl Iterator<Item = &[u32]> {
        self.entries.iter().flat_map(|e| &e.rules).flat_map(|r| {
            r.if_tokens
                .iter()
                .chain(&r.unless_tokens)
                .chain(r.group_tokens.iter().flatten())
                .map(Vec::as_slice)
        })
    }

    /// Applies the scopes to the candidates (see the module doc).
    pub fn apply<'a>(&'a self, ev: &mut Evidence<'a>, index: &TokenIndex<'_>, negated: &[bool]) {
        for e in &self.entries {
            if !ev.candidates.contains_key(e.code.as_str()) {
                continue;
            }
            let Some(rule) = e.rules.iter().find(|r| r.applies(index, negated)) else {
                continue;
            };
            let Some(mut cand) = ev.candidates.remove(e.code.as_str()) else {
                continue;
            };
            ev.considered.push((
                e.code.as_str(),
                if rule.then.is_empty() {
                    rule.why.clone()
                } else {
                    format!("{} ({} fits instead)", rule.why, rule.then)
                },
            ));
            if rule.then.is_empty() {
                ev.notes.push(format!(
                    "{} does not apply (it covers {}): {}",
                    e.code, e.covers, rule.why
                ));
                continue;
            }
            cand.criteria
                .push(format!("{} → {}: {}", e.code, rule.then, rule.why));
            let target = ev.candidates.entry(rule.then.as_str()).or_default();
            if target.factor == 0.0 {
                target.factor = 1.0;
            }
            for (t, w) in cand.terms {
                target.add(&t, w);
            }
            target.spans.extend(cand.spans);
            target.criteria.extend(cand.criteria);
        }
    }
}

fn found(phrases: &[Vec<u32>], index: &TokenIndex<'_>, negated: &[bool]) -> bool {
    phrases.iter().any(|p| {
        index
            .phrase_at(p)
            .any(|i| !negated.get(i).copied().unwrap_or(false))
    })
}
