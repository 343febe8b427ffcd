//! The roles of words: packaging never decides, origin informs,
//! negation and absence are clean signals, an entry's own exceptions are
//! read, the most specific constituent wins; German and Dutch compounds are
//! split against the word lists; each in several languages. Explanations
//! say why the list and which other entries were considered.

use crate::common::{all_codes, classifier};
use classifier::{Classification, ListType};

fn classify(text: &str) -> Classification {
    classifier().classify(text)
}

#[test]
fn packaging_never_decides_in_any_language() {
    for (text, want) in [
        ("Waste sulphuric acid in HDPE IBCs", "A4090"),
        ("Ácido sulfúrico residual en bidones de plástico", "A4090"),
        ("Lead acid batteries on wooden pallets", "A1160"),
        ("Altöl in Stahlfässern", "A3020"),
        ("Huile usagée en fûts métalliques", "A3020"),
        ("afgewerkte olie in vaten", "A3020"),
        ("Olio esausto in fusti", "A3020"),
        ("Copper scrap in big bags", "B1010"),
        ("Kupferschrott in Big Bags", "B1010"),
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}: {:?}", all_codes(&r));
        for container in ["B3011", "B3050", "B3020"] {
            assert!(
                !all_codes(&r).contains(&container),
                "{text}: {:?}",
                all_codes(&r)
            );
        }
    }
}

#[test]
fn origin_informs_the_entries_defined_by_their_source() {
    for (text, want) in [
        ("Sludge from the production of dyes", "A4070"),
        ("Schlamm aus der Farbenherstellung", "A4070"),
        ("Lodos procedentes de la fabricación de pinturas", "A4070"),
        ("Filter dust arising at a secondary lead smelter", "A4100"),
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}: {:?}", all_codes(&r));
    }
    // The acid names the plant, not the waste.
    let r = classify("Spent catalyst from a sulphuric acid plant");
    assert_eq!(r.best_code(), Some("A2030"));
    assert!(!all_codes(&r).contains(&"A4090"), "{:?}", all_codes(&r));
}

#[test]
fn negation_and_absence_rule_a_constituent_out() {
    for text in [
        "Used transformer oil, PCB not detected",
        "Used transformer oil, PCB < LOQ",
        "Aceite usado de transformador, PCB no detectado",
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some("A3020"), "{text}");
        assert!(
            !all_codes(&r).contains(&"A3180"),
            "{text}: {:?}",
            all_codes(&r)
        );
    }
    for (text, want) in [
        (
            "Concrete rubble from demolition, asbestos survey negative",
            "B2040",
        ),
        ("Betonbruch, asbestfrei", "B2040"),
        ("Wood offcuts, solvent-free, untreated", "B3050"),
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}: {:?}", all_codes(&r));
        assert_eq!(r.list_type, ListType::Green, "{text}");
    }
}

#[test]
fn an_entrys_own_exception_is_read() {
    let clean = classify("Leather dust not containing hexavalent chromium");
    assert_eq!(clean.best_code(), Some("B3100"));
    let chromium = classify("Leather dust containing hexavalent chromium");
    assert_eq!(chromium.best_code(), Some("A3090"));
    let burnt = classify("Insulated copper cable, PVC, for open burning");
    assert_eq!(burnt.best_code(), Some("A1190"));
}

#[test]
fn the_most_specific_constituent_wins_over_the_first_named() {
    let r = classify("Copper electrolyte from a refinery");
    assert_eq!(r.best_code(), Some("A1110"));
    assert!(!all_codes(&r).contains(&"B1010"), "{:?}", all_codes(&r));
}

#[test]
fn german_and_dutch_compounds_are_read_through_their_parts() {
    for (text, want) in [
        ("Walzzunder aus dem Warmwalzwerk", "B1230"),
        ("Gipskartonplatten, Bauabfall", "B2040"),
        ("Kupferkabelreste, sortiert", "B1115"),
        ("Bleiakkumulatoren, gebraucht", "A1160"),
        ("Zinkkrätze aus der Feuerverzinkung", "B1100"),
        ("gebruikte loodaccu's", "A1160"),
        ("afvalolie uit garages", "A3020"),
        ("koperkabelafval", "B1115"),
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}: {:?}", all_codes(&r));
    }
}

#[test]
fn chinese_and_vietnamese_trade_terms_are_read() {
    for (text, want) in [
        ("废铅酸蓄电池", "A1160"),
        ("废电路板", "A1181"),
        ("废矿物油", "A3020"),
        ("废铜", "B1010"),
        ("电镀污泥", "A1050"),
        ("ắc quy chì thải", "A1160"),
        ("dầu thải", "A3020"),
        ("phế liệu đồng", "B1010"),
        ("bùn mạ điện", "A1050"),
    ] {
        let r = classify(text);
        assert_eq!(r.best_code(), Some(want), "{text}: {:?}", all_codes(&r));
    }
}

#[test]
fn the_deciding_explanation_says_why_the_list_and_what_else_was_considered() {
    let r = classify("Copper cable scrap with some lead sheathing");
    assert_eq!(r.best_code(), Some("A1190"));
    let reason = &r.explanation[0].reason;
    assert!(reason.contains("Annex VIII (list A)"), "{reason}");
    assert!(
        reason.contains("prior informed consent (Amber)"),
        "{reason}"
    );
    assert!(reason.contains("Also considered: B1115"), "{reason}");
    assert!(reason.contains("not chosen"), "{reason}");

    let green = classify("Baled OCC from supermarkets, sorted");
    let reason = &green.explanation[0].reason;
    assert!(reason.contains("Annex IX (list B)"), "{reason}");
    assert!(
        reason.contains("without prior informed consent (Green)"),
        "{reason}"
    );

    let pcb = classify("Used transformer oil, PCB 12 mg/kg (lab)");
    let reason = &pcb.explanation[0].reason;
    assert!(reason.contains("Also considered: A3180"), "{reason}");
    assert!(reason.contains("below its limit"), "{reason}");
}
