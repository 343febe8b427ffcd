//! Property tests of the classifier: it never panics on any
//! Unicode input, and every answer keeps the precaution invariant:
//!
//! - an Annex VIII code or an unresolved hazard means `pic_required`;
//! - the list type agrees with its deciding code (Amber: an A-code first,
//!   or nothing at all for a vague answer; Green: a B-code first and no
//!   A-code; Annex I: Y1–Y45 first; Annex II: Y46–Y49 first);
//! - Green without PIC only with no A-code and no hazard warning.

use crate::common::classifier;
use classifier::{Classification, ListType, WarningCode};
use proptest::prelude::*;

/// Words that reach the interesting paths: entries, qualifiers, amounts,
/// other languages, scripts, misspellings.
const WORDS: &[&str] = &[
    "lead",
    "acid",
    "batteries",
    "PCB",
    "62",
    "mg/kg",
    "<",
    "n.d.",
    "pH",
    "1,5",
    "13",
    "%",
    "copper",
    "cable",
    "insulated",
    "PVC",
    "mixed",
    "sorted",
    "clean",
    "contaminated",
    "free of",
    "without",
    "drained",
    "e-waste",
    "circuit",
    "boards",
    "plastic",
    "PET",
    "PTFE",
    "HS",
    "8549.11",
    "asbestos",
    "oil",
    "used",
    "spent",
    "catalyst",
    "platinum",
    "ash",
    "slag",
    "for repair",
    "untested",
    "ship",
    "vessel",
    "suspected",
    "residuos",
    "plomo",
    "Altöl",
    "废电池",
    "ắc quy chì",
    "Медь",
    "kabel",
    "batteris",
    "leed",
    ",",
    ".",
    ";",
    "(",
    ")",
    "A1180",
    "B1110",
    "Y49",
    "",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..24).prop_map(|w| w.join(" "))
}

fn is_y_annex_i(code: &str) -> bool {
    code.strip_prefix('Y')
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| (1..=45).contains(&n))
}

fn check(r: &Classification) -> Result<(), TestCaseError> {
    let hazard_warned = r
        .warning_codes
        .iter()
        .any(|w| matches!(w, WarningCode::UnresolvedHazard | WarningCode::LabAnalysis));
    if !r.a_codes.is_empty() || hazard_warned {
        prop_assert!(r.pic_required, "A-code or hazard without PIC: {r:?}");
    }
    match r.list_type {
        ListType::Amber => {
            // No entry decided: vague, or a hazardous List of Waste code set
            // the Green entry aside (no B-code left).
            let undecided = r.a_codes.is_empty() && r.b_codes.is_empty();
            prop_assert!(
                undecided || !r.a_codes.is_empty(),
                "Amber without an A-code: {r:?}"
            );
            prop_assert!(r.pic_required);
        }
        ListType::Green => {
            prop_assert!(!r.b_codes.is_empty(), "Green without a B-code: {r:?}");
            prop_assert!(r.a_codes.is_empty(), "Green with an A-code: {r:?}");
        }
        ListType::AnnexI => {
            let first = r.y_codes.first().map(|c| c.code.as_ref()).unwrap_or("");
            prop_assert!(is_y_annex_i(first), "Annex I decided by {first}: {r:?}");
            prop_assert!(r.pic_required);
        }
        ListType::AnnexII => {
            let first = r.y_codes.first().map(|c| c.code.as_ref()).unwrap_or("");
            prop_assert!(
                matches!(first, "Y46" | "Y47" | "Y48" | "Y49"),
                "Annex II decided by {first}: {r:?}"
            );
            prop_assert!(r.pic_required);
        }
    }
    prop_assert!((0.0..=1.0).contains(&r.overall_confidence));
    if r.pic_required {
        prop_assert!(!r.questions.is_empty(), "PIC without questions: {r:?}");
    } else {
        prop_assert!(r.questions.is_empty(), "questions without PIC: {r:?}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn any_unicode_text_is_classified_without_panic_and_keeps_the_invariant(text in any::<String>()) {
        let r = classifier().classify(&text);
        check(&r)?;
    }

    #[test]
    fn word_soups_keep_the_precaution_invariant(text in soup()) {
        let r = classifier().classify(&text);
        check(&r)?;
    }
}

#[test]
fn pathological_input_is_classified_quickly() {
    let long_word = "oro".repeat(1666);
    let many_numbers = "PCB 1 mg/kg pH 7 ".repeat(300);
    let cjk = "废电池含铅".repeat(1000);
    for text in [long_word, many_numbers, cjk] {
        let start = std::time::Instant::now();
        let r = classifier().classify(&text);
        assert!(r.pic_required || !r.b_codes.is_empty());
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{} chars took {:?}",
            text.chars().count(),
            start.elapsed()
        );
    }
}
