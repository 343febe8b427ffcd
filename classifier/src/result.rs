//! What a classification returns: the codes per list, the list type, whether
//! Prior Informed Consent applies, confidences, the explanation and warnings.
//!
//! Field names are a public contract (REST body and MCP tool output): every
//! field is always present, lists may be empty.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The fixed disclaimer attached to every classification.
pub const DISCLAIMER: &str = "Informational only: this classification is generated automatically \
from a plain-language description and is not a legal determination. The classification of a waste \
and the procedure for its transboundary movement must be checked with the competent authorities of \
the countries of export, transit and import.";

/// One code in a result list, with its official title as `name`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct CodeMatch {
    /// The code, e.g. `"A1160"`, `"Y31"`, `"H8"`.
    pub code: Cow<'static, str>,
    /// The official title of the entry (first clause where the entry is long).
    pub name: Cow<'static, str>,
    /// How sure the classifier is that this code applies, from 0 to 1.
    pub confidence: f64,
}

/// Which list decides the classification, and so which control applies.
/// `Annex I` and `Annex II` are extensions of the Amber/Green pair of the
/// OECD Decision, for wastes no Annex VIII or IX entry covers.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
pub enum ListType {
    /// An Annex VIII (list A) entry decides: hazardous, PIC required.
    Amber,
    /// An Annex IX (list B) entry decides: not hazardous under Basel.
    Green,
    /// Hazardous by Annex I (Y1–Y45) and Annex III without an Annex VIII entry.
    #[serde(rename = "Annex I")]
    AnnexI,
    /// "Other wastes" of Annex II (Y46–Y49): PIC required.
    #[serde(rename = "Annex II")]
    AnnexII,
}

impl ListType {
    /// The serialised name, e.g. `"Annex I"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ListType::Amber => "Amber",
            ListType::Green => "Green",
            ListType::AnnexI => "Annex I",
            ListType::AnnexII => "Annex II",
        }
    }
}

/// Why one code is in the result: the description's words that matched it and
/// the rule that put it there.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct Explanation {
    /// The code explained.
    pub code: Cow<'static, str>,
    /// The normalised terms of the description that matched (may be empty for
    /// codes that come from a relation, e.g. the Y-codes of an A-code).
    pub matched_terms: Vec<String>,
    /// Why the code is there, in words.
    pub reason: String,
    /// The description's own words that support the code, as written.
    #[serde(default)]
    pub supporting_text: Vec<String>,
    /// A short quote of the entry's official text.
    #[serde(default)]
    pub quote: Cow<'static, str>,
    /// The criterion that put the code in the answer, e.g. "PCB 62 mg/kg ≥
    /// 50 mg/kg (A3180 threshold)"; empty for companion codes.
    #[serde(default)]
    pub criterion: String,
}

/// The answer to "what is this waste under the Basel Convention?".
///
/// The deciding list is `a_codes` for `Amber`, `b_codes` for `Green` and
/// `y_codes` otherwise; its first element is the best code. When the description is too vague, every code list is empty,
/// `overall_confidence` is below 0.2, `pic_required` is true (precaution) and
/// a warning says what is missing.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct Classification {
    /// Annex I / Annex II categories, best first, each with a confidence.
    pub y_codes: Vec<CodeMatch>,
    /// Annex VIII entries (list A), best first.
    pub a_codes: Vec<CodeMatch>,
    /// Annex IX entries (list B), best first.
    pub b_codes: Vec<CodeMatch>,
    /// Annex III hazard characteristics.
    pub h_codes: Vec<CodeMatch>,
    /// UN numbers, e.g. `"UN2794"`.
    pub un_codes: Vec<String>,
    /// The list that decides.
    pub list_type: ListType,
    /// Whether the Basel Prior Informed Consent procedure applies.
    pub pic_required: bool,
    /// Confidence in the deciding code, from 0 to 1.
    pub overall_confidence: f64,
    /// Fixed text: informational only, to be checked with the competent authority.
    pub disclaimer: Cow<'static, str>,
    /// One entry per returned code: matched terms and reason.
    pub explanation: Vec<Explanation>,
    /// Things the user should know: missing information, conflicting
    /// qualifiers, unknown country codes, deleted codes named in the text.
    pub warnings: Vec<String>,
    /// The classifier and knowledge-base version that produced this answer.
    pub classifier_version: Cow<'static, str>,
    /// Stable codes of the warnings above that the classifier raised (e.g.
    /// `lab_analysis`, `reuse_claim`), for clients that act on them.
    #[serde(default)]
    pub warning_codes: Vec<WarningCode>,
    /// The languages the description was read in besides English (e.g.
    /// `"Spanish"`).
    #[serde(default)]
    pub languages: Vec<String>,
    /// What the user or the steward must answer to settle a precautionary
    /// answer (`pic_required`), each tied to an entry's own words, e.g.
    /// "Is PCB below 50 mg/kg?". Never empty when PIC is required; empty
    /// for a Green answer without PIC.
    #[serde(default)]
    pub questions: Vec<String>,
}

/// What a warning is about, as a stable machine code.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// Too vague to classify: PIC assumed.
    Vague,
    /// Written in a language the lexicon does not cover.
    LanguageNotCovered,
    /// A word was read as a correction of a misspelling.
    SpellingCorrected,
    /// No qualifier chose between the hazardous and the other form.
    AssumedForm,
    /// Hazard and clean qualifiers conflict.
    ConflictingQualifiers,
    /// A hazard signal stands beside a Green entry: PIC until shown otherwise.
    UnresolvedHazard,
    /// Only a lab analysis can settle the classification.
    LabAnalysis,
    /// Equipment claimed for reuse or repair.
    ReuseClaim,
    /// The goods may not be waste at all.
    PossiblyNotWaste,
    /// A ship or floating structure: ship-recycling rules apply too.
    ShipRecycling,
    /// A whole object, classified by its hazardous components.
    WholeObject,
    /// A deleted code was named.
    DeletedCode,
    /// The description was cut.
    Truncated,
    /// A code written (List of Waste, UN number) points to other entries
    /// than the words of the description.
    CodeConflict,
}

impl Classification {
    /// The deciding list for this result's list type.
    pub fn deciding(&self) -> &[CodeMatch] {
        match self.list_type {
            ListType::Amber => &self.a_codes,
            ListType::Green => &self.b_codes,
            ListType::AnnexI | ListType::AnnexII => &self.y_codes,
        }
    }

    /// The best code: the first of the deciding list, if any.
    pub fn best_code(&self) -> Option<&str> {
        self.deciding().first().map(|c| c.code.as_ref())
    }
}

/// Green only on positive identification with nothing signalling a hazard:
/// a Green answer that needs PIC becomes the precautionary one. With an
/// A-code, Amber; otherwise Annex I when an Annex I category is listed, or
/// Amber with no entry decided. The Annex IX entries the words pointed to
/// are set aside and named in a question (`why` says what set them aside).
pub(crate) fn set_green_aside(out: &mut Classification, why: &str) {
    out.pic_required = true;
    if out.list_type != ListType::Green {
        return;
    }
    if !out.a_codes.is_empty() {
        out.list_type = ListType::Amber;
        return;
    }
    let set_aside: Vec<String> = out.b_codes.drain(..).map(|c| c.code.to_string()).collect();
    out.explanation
        .retain(|x| !set_aside.iter().any(|b| *b == x.code));
    let annex_i = out.y_codes.first().is_some_and(|y| {
        y.code
            .get(1..)
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| (1..=45).contains(&n))
    });
    out.list_type = if annex_i {
        ListType::AnnexI
    } else {
        ListType::Amber
    };
    if !set_aside.is_empty() {
        out.questions.push(format!(
            "The words point to the Annex IX (Green) entry {}, but {why}: is the waste free of \
that hazard (no residues, below the entry's threshold, not the excluded form), and if not, which \
Annex VIII entry describes it?",
            set_aside.join(" or "),
        ));
    }
}
