//! The knowledge base: official entries plus curated terms and relations,
//! checked against each other once at startup.
//!
//! **Invariant:** every code the curated data can put in a result is an
//! in-force entry; [`KnowledgeBase::bundled`] refuses the data otherwise.

use super::annexes::Annexes;
use super::curated::{Curated, Mirror, Relation};
use super::error::KnowledgeBaseError;
use super::facets::Roles;
use rustc_hash::FxHashMap;

use super::lexicon::Lexicon;
use super::matcher::Matcher;
use super::normalize::{phrase_tokens, WordTable};
use super::scope::Scopes;
use super::token_index::IndexedWords;
use super::vocab::Vocab;

/// Everything the classifier reads, built once.
pub struct KnowledgeBase {
    /// The official entries (parsed once per process).
    pub annexes: &'static Annexes,
    /// The curated data.
    pub curated: Curated,
    /// The compiled phrase table.
    pub matcher: Matcher,
    /// The multilingual lexicon and spelling corrector.
    pub lexicon: Lexicon,
    /// Entry scopes: exclusions and exceptions as data.
    pub scopes: Scopes,
    /// Every curated word, interned.
    pub vocab: Vocab,
    /// The phrases the warnings look for.
    pub warning_lists: super::signals::Lists,
    /// Folding and looking up a description's words, precomputed.
    pub words: WordTable,
    /// The words a description's token index answers questions about.
    pub indexed: IndexedWords,
    /// What each word can be in an amount statement.
    pub roles: Roles,
    relations: FxHashMap<String, usize>,
    mirror_of: FxHashMap<String, usize>,
}

impl KnowledgeBase {
    /// Parses and cross-checks the embedded data.
    ///
    /// # Errors
    /// [`KnowledgeBaseError`] when a file does not parse or curated data names
    /// a code that is not in force.
    pub fn bundled() -> Result<Self, KnowledgeBaseError> {
        let annexes = Annexes::bundled()?;
        let mut curated = Curated::bundled()?;
        validate(annexes, &curated)?;
        let sp = curated.spellings.clone();
        let mut vocab = Vocab::default();
        for t in &mut curated.terms {
            let mut ids = |c: &String| vocab.intern_all(&phrase_tokens(c, &sp));
            t.ctx_tokens = t.ctx.iter().map(&mut ids).collect();
            t.not_ctx_tokens = t.not_ctx.iter().map(&mut ids).collect();
        }
        let matcher = Matcher::new(&curated, &mut vocab);
        let lexicon = Lexicon::bundled(
            matcher.vocabulary(),
            matcher.bigrams(),
            &curated.spellings,
            &mut vocab,
        )?;
        let scopes = Scopes::bundled(&curated.spellings, &mut vocab)?;
        let warning_lists = super::signals::Lists::new(&mut vocab);
        for code in scopes.codes() {
            if annexes.in_force(code).is_none_or(|c| c.code != code) {
                return Err(KnowledgeBaseError::UnknownCode {
                    code: code.to_owned(),
                    context: "entry scope".to_owned(),
                });
            }
        }
        let contexts = curated
            .terms
            .iter()
            .flat_map(|t| t.ctx_tokens.iter().chain(&t.not_ctx_tokens))
            .map(Vec::as_slice);
        let indexed = IndexedWords::new(
            vocab.len(),
            contexts
                .chain(scopes.phrases())
                .chain(warning_lists.phrases()),
        );
        let words = WordTable::new(&vocab, &curated.spellings);
        let roles = Roles::new(&vocab);
        let mut relations = FxHashMap::default();
        for (i, r) in curated.relations.iter().enumerate() {
            relations.insert(r.code.clone(), i);
        }
        let mut mirror_of = FxHashMap::default();
        for (i, m) in curated.mirrors.iter().enumerate() {
            for code in m.members() {
                mirror_of.insert(code.to_owned(), i);
            }
        }
        Ok(Self {
            annexes,
            curated,
            matcher,
            lexicon,
            scopes,
            vocab,
            warning_lists,
            words,
            indexed,
            roles,
            relations,
            mirror_of,
        })
    }

    /// The curated relation of `code`, if any.
    pub fn relation(&self, code: &str) -> Option<&Relation> {
        self.relations
            .get(code)
            .and_then(|&i| self.curated.relations.get(i))
    }

    /// The mirror group `code` belongs to, with its index.
    pub fn mirror(&self, code: &str) -> Option<(usize, &Mirror)> {
        let i = *self.mirror_of.get(code)?;
        self.curated.mirrors.get(i).map(|m| (i, m))
    }
}

fn validate(annexes: &Annexes, curated: &Curated) -> Result<(), KnowledgeBaseError> {
    let check = |code: &str, context: &str| -> Result<(), KnowledgeBaseError> {
        let ok = annexes.in_force(code).is_some_and(|c| c.code == code);
        if ok {
            Ok(())
        } else {
            Err(KnowledgeBaseError::UnknownCode {
                code: code.to_owned(),
                context: context.to_owned(),
            })
        }
    };
    for t in &curated.terms {
        let context = format!("term {:?}", t.t.first());
        check(&t.code, &context)?;
        for c in t.y.iter().chain(&t.h) {
            check(c, &context)?;
        }
    }
    for r in &curated.relations {
        let context = format!("relation of {}", r.code);
        check(&r.code, &context)?;
        for c in r.y.iter().chain(&r.h) {
            check(c, &context)?;
        }
    }
    for m in &curated.mirrors {
        for c in m
            .members()
            .chain(m.mixed.as_deref())
            .chain(m.default.as_deref())
        {
            check(c, "mirror group")?;
        }
    }
    for h in curated.qualifiers.h_words.values() {
        check(h, "qualifier h_words")?;
    }
    Ok(())
}
