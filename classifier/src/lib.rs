//! The Basel Convention waste classifier: a plain-language description
//! becomes Y-codes (Annexes I and II), A-codes (Annex VIII), B-codes
//! (Annex IX), H-codes (Annex III), UN numbers, a list type, whether Prior
//! Informed Consent is required, confidences, an explanation and warnings.
//! Which procedure a movement of the waste needs is the shipment law's
//! answer (crate `law`), not this crate's.
//!
//! How it works, in order:
//! 1. `normalize`: case and diacritics folded (`É` → `e`, `ắ` → `a`),
//!    ideographs one token each, decimals and `<`, `>`, `%` kept as tokens,
//!    British/American spelling and plurals folded the same way for text and
//!    terms;
//! 2. `lexicon`: words of Spanish, Portuguese, French, German, Italian,
//!    Dutch, Chinese and Vietnamese read as the English terms of the annex
//!    concepts (longest phrase first; German/Dutch compounds split; HS
//!    headings read after "HS"); unknown words corrected against the
//!    vocabulary (`fuzzy`);
//! 3. `matcher`: curated phrases found longest first, in order or, within
//!    one clause, in another word order; negation applied ("free of",
//!    "without", "mercury-free", "oil and coolant drained", "n.d.");
//! 4. `evidence`: a score per candidate code plus hazard / clean / mixed /
//!    sorted signals; two-sense terms read by context ("PCB" beside boards);
//! 5. `facets` and `thresholds`: amounts compared with what the entries state
//!    (PCB 50 mg/kg, pH 2 / 11.5, Annex I metals at 0.1 %);
//! 6. `rules`: mirror groups (A/B/Y forms of one waste) pick the member the
//!    qualifiers call for;
//! 7. `scope`: entry scope as data (what an entry excludes and where the
//!    waste goes instead), one mechanism for every entry;
//! 8. `assemble`: the best code decides the list (an A-code close behind a
//!    B-code decides instead); related Y/H/UN codes, confidences,
//!    explanations (supporting words, entry quote, criterion);
//! 9. `signals` and `advice`: warnings with stable codes (reuse claims,
//!    possibly not waste, lab analysis, ship recycling, whole objects,
//!    language not covered), then the precaution invariant: PIC unless a
//!    Green entry decides with no A-code and no hazard signal; the list type
//!    agrees with the deciding code.
//!
//! **Boundary:** pure (no sqlx, async-nats, axum, rmcp, tokio or hyper:
//! CI checks with `cargo tree`), and knows nothing of events, countries or
//! routes. The reference and curated data are embedded with
//! `include_str!` and parsed once by [`Classifier::bundled`]; classifying
//! does no IO and never panics.
//!
//! **Invariant:** deleted codes (A1180, B1110, B4030, B3010, and the never
//! adopted B3025) are known to [`Classifier::lookup`] but never returned by
//! [`Classifier::classify`].

mod advice;
mod annexes;
mod assemble;
mod codes;
mod curated;
mod dictionary;
mod edits;
mod error;
mod evidence;
mod facets;
mod fuzzy;
mod kb;
mod lexicon;
mod low;
mod matcher;
mod normalize;
mod questions;
mod result;
mod rules;
mod scope;
mod signals;
mod thresholds;
mod token_index;
mod vocab;

pub use annexes::{CodeInfo, CodeStatus};
pub use error::KnowledgeBaseError;
pub use result::{Classification, CodeMatch, Explanation, ListType, WarningCode, DISCLAIMER};

use kb::KnowledgeBase;

/// The classifier and knowledge-base version reported with every result.
pub const VERSION: &str = concat!(
    "basel-classifier/",
    env!("CARGO_PKG_VERSION"),
    " (codes in force 2025-01-01)"
);

/// The classifier: built once at startup, shared by every request
/// (`Send + Sync`, read-only).
pub struct Classifier {
    kb: KnowledgeBase,
}

impl Classifier {
    /// Parses the embedded reference and curated data and checks them
    /// against each other.
    ///
    /// # Errors
    /// [`KnowledgeBaseError`] when embedded data does not parse or curated
    /// data names a code that is not in force (a build defect).
    pub fn bundled() -> Result<Classifier, KnowledgeBaseError> {
        let kb = KnowledgeBase::bundled()?;
        Ok(Classifier { kb })
    }

    /// Classifies a waste description. Never panics: empty, huge or odd
    /// input gives a vague result with a warning. (The control procedure for
    /// a route is the shipment law's answer: `law::classify_route`.)
    pub fn classify(&self, description: &str) -> Classification {
        let vocab = &self.kb.vocab;
        let tokens = normalize::tokenize_known(description, &self.kb.words, vocab);
        let reading = self.kb.lexicon.read(tokens, description, vocab);
        let tokens = reading.tokens;
        let index = token_index::TokenIndex::new(&tokens, &self.kb.indexed);
        let hits = self.kb.matcher.find(&tokens);
        let mut ev = evidence::gather(&self.kb, &tokens, &index, &hits);
        thresholds::apply(&mut ev, &facets::measures(&tokens, &self.kb.roles));
        rules::apply(&self.kb, &mut ev);
        let negated = self.kb.matcher.negated_tokens(&tokens, &hits);
        self.kb.scopes.apply(&mut ev, &index, &negated);
        let cx = assemble::Context {
            text: description,
            version: VERSION,
        };
        let mut out = assemble::build(&self.kb, &mut ev, &cx);
        codes::apply(&mut out, &reading.codes, self.kb.annexes);
        let unknown_share = if reading.words == 0 {
            0.0
        } else {
            // The word before a code ("EWC", "LoW") is no language's word.
            let unknown = reading.unknown_words.saturating_sub(reading.codes.len());
            unknown as f64 / reading.words as f64
        };
        let found = signals::read(&index, &self.kb.warning_lists, description, unknown_share);
        advice::add(&mut out, &found, &reading.corrections);
        questions::ask(&mut out, &reading.codes);
        out.languages = reading.languages;
        if description.chars().nth(normalize::MAX_CHARS).is_some() {
            out.warning_codes.push(WarningCode::Truncated);
            out.warnings.push(format!(
                "The description was cut to its first {} characters.",
                normalize::MAX_CHARS
            ));
        }
        out
    }

    /// Any Y, A, B or H code (case-insensitive), in force or deleted.
    pub fn lookup(&self, code: &str) -> Option<CodeInfo> {
        self.kb.annexes.get(code).cloned()
    }

    /// Every code the knowledge base knows, in force or deleted (unordered).
    pub fn codes(&self) -> Vec<CodeInfo> {
        self.kb.annexes.all().cloned().collect()
    }

    /// The classifier and knowledge-base version.
    pub fn version(&self) -> &'static str {
        VERSION
    }
}
