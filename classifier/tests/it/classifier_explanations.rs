//! Explanations, warnings and languages: explanations quote the
//! entry and state the deciding criterion; amounts are compared with the
//! thresholds the entries state; situations get their warning codes; other
//! languages are read.

use crate::common::classifier;
use classifier::{Classification, Classifier, ListType, WarningCode};

fn classify(text: &str) -> Classification {
    classifier().classify(text)
}

#[test]
fn a_pcb_amount_above_50_mg_kg_names_the_amount_and_the_threshold() {
    let r = classify("Crushed concrete from a transformer bund, PCB 62 mg/kg (lab)");
    assert_eq!(r.best_code(), Some("A3180"));
    let e = r
        .explanation
        .iter()
        .find(|e| e.code == "A3180")
        .expect("A3180 explained");
    assert!(e.criterion.contains("62 mg/kg"), "{}", e.criterion);
    assert!(e.criterion.contains("50 mg/kg"), "{}", e.criterion);
    assert!(e.quote.starts_with("A3180: \u{201c}"), "{}", e.quote);
    assert!(
        e.supporting_text.iter().any(|s| s.contains("PCB 62 mg/kg")),
        "{:?}",
        e.supporting_text
    );
}

#[test]
fn a_pcb_amount_below_50_mg_kg_rules_a3180_out() {
    let r = classify("Used transformer oil, PCB 12 mg/kg (lab)");
    assert_eq!(r.best_code(), Some("A3020"));
    assert!(r.a_codes.iter().all(|c| c.code != "A3180"));
    let e = &r.explanation[0];
    assert!(
        e.criterion.contains("below the 50 mg/kg"),
        "{}",
        e.criterion
    );
}

#[test]
fn every_explanation_quotes_its_entry_and_the_deciding_one_states_a_criterion() {
    for text in [
        "Spent lead-acid car batteries, whole",
        "Clean sorted PET bottle flakes for recycling",
        "Spent caustic scrubber liquor, pH 13.6",
        "Residuos de baterías de plomo ácido",
    ] {
        let r = classify(text);
        assert!(!r.explanation.is_empty(), "{text}");
        for e in &r.explanation {
            assert!(e.quote.starts_with(e.code.as_ref()), "{text}: {:?}", e);
            assert!(!e.reason.contains("score"), "{text}: {}", e.reason);
        }
        let first = &r.explanation[0];
        assert!(!first.criterion.is_empty(), "{text}");
        assert!(!first.supporting_text.is_empty(), "{text}");
    }
}

#[test]
fn ph_is_compared_with_the_bounds_of_b2120_and_a4090() {
    let acid = classify("Spent sulphuric acid from an alkylation unit, pH < 1");
    assert_eq!(acid.best_code(), Some("A4090"));
    assert!(acid.explanation[0].criterion.contains("pH"));
    let neutral = classify("Spent citric acid passivation bath, pH 3.2, Ni and Cr n.d.");
    assert_eq!(neutral.best_code(), Some("B2120"));
}

#[test]
fn printed_circuit_boards_are_not_read_as_polychlorinated_biphenyls() {
    let r = classify("PCB scrap, low grade boards from TV power supplies, for refining");
    assert!(r.a_codes.iter().all(|c| c.code != "A3180"), "{r:?}");
    assert!(r.a_codes.iter().any(|c| c.code == "A1181"), "{r:?}");
}

#[test]
fn situations_raise_their_warning_codes() {
    let cases = [
        (
            "Used laptops 'for repair', untested, in bulk",
            WarningCode::ReuseClaim,
        ),
        (
            "Inland steel tank barge for dismantling",
            WarningCode::ShipRecycling,
        ),
        (
            "Insulation boards, brominated flame retardant suspected, no analysis",
            WarningCode::LabAnalysis,
        ),
        (
            "Virgin kraftliner reels, new mill production, export order",
            WarningCode::PossiblyNotWaste,
        ),
        (
            "Отходы свинцовых аккумуляторов",
            WarningCode::LanguageNotCovered,
        ),
        (
            "Leed acid batteris from trucks",
            WarningCode::SpellingCorrected,
        ),
    ];
    for (text, code) in cases {
        let r = classify(text);
        assert!(
            r.warning_codes.contains(&code),
            "{text}: {:?}",
            r.warning_codes
        );
        assert!(!r.warnings.is_empty(), "{text}");
    }
}

#[test]
fn a_language_not_covered_gets_a_warning_and_the_controlled_answer() {
    let r = classify("Отходы свинцовых аккумуляторов");
    assert!(r.pic_required);
    assert!(r.warning_codes.contains(&WarningCode::LanguageNotCovered));
}

#[test]
fn other_languages_are_read_into_the_annex_concepts() {
    for (text, code, lang) in [
        (
            "Baterías de plomo ácido usadas, enteras",
            "A1160",
            "Spanish",
        ),
        ("Sucata de cobre limpa, classificada", "B1010", "Portuguese"),
        ("Huiles usagées de moteur", "A3020", "French"),
        ("Altöl aus Kfz-Werkstätten", "A3020", "German"),
        ("Rottami di rame puliti", "B1010", "Italian"),
        ("Asbestcement golfplaten", "A2050", "Dutch"),
        ("废铅酸蓄电池", "A1160", "Chinese"),
        ("Ắc quy chì axit thải", "A1160", "Vietnamese"),
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some(code), "{text}: {r:?}");
        assert!(
            r.languages.iter().any(|l| l == lang),
            "{text}: {:?}",
            r.languages
        );
    }
}

#[test]
fn halogenated_or_unlisted_mixed_plastics_leave_b3011() {
    for text in [
        "PVC window profile offcuts, clean, sorted",
        "PTFE machining scrap, one polymer only",
        "Mixed plastic packaging, unsorted",
    ] {
        let r = classify(text);
        assert_ne!(r.list_type, ListType::Green, "{text}: {r:?}");
        assert!(r.pic_required, "{text}");
    }
    let ok =
        classify("Mixed bales of PE, PP and PET destined for separate recycling of each polymer");
    assert_eq!(ok.best_code(), Some("B3011"));
}

/// Words of the implementation that must never reach a reader.
const INTERNAL_TERMS: [&str; 15] = [
    "companion of",
    "qualifier",
    "chosen in its group",
    "best-scoring",
    "mirror group",
    "the clean reading",
    "mirror",
    "weakened",
    "candidate",
    "score",
    "weight",
    "lexicon",
    "token",
    "member",
    "vocabulary",
];

#[test]
fn no_answer_of_the_case_files_speaks_implementation_language() {
    let c = Classifier::bundled().expect("bundled");
    let mut found = Vec::new();
    for file in [
        include_str!("trade_cases.json"),
        include_str!("classifier_cases.json"),
    ] {
        let v: serde_json::Value = serde_json::from_str(file).expect("case file parses");
        for case in v["cases"].as_array().into_iter().flatten() {
            let text = case["description"].as_str().unwrap_or_default();
            let r = c.classify(text);
            let prose = r
                .explanation
                .iter()
                .flat_map(|e| [e.reason.as_str(), e.criterion.as_str()])
                .chain(r.warnings.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            for term in INTERNAL_TERMS {
                if prose.contains(term) {
                    found.push(format!("{term:?} in the answer to {text:?}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} answers: {:#?}",
        found.len(),
        &found[..found.len().min(10)]
    );
}
