//! The classifier against its regression set and focused rules: negation and
//! qualifiers, deleted codes, vague and odd input.

use classifier::{Classification, Classifier, ListType};
use serde::Deserialize;

const CASES: &str = include_str!("classifier_cases.json");

#[derive(Deserialize)]
struct CaseFile {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    description: String,
    list_type: String,
    pic_required: bool,
    top_any: Vec<String>,
}

fn classifier() -> Classifier {
    Classifier::bundled().expect("the embedded knowledge base builds")
}

fn all_codes(r: &Classification) -> Vec<String> {
    r.y_codes
        .iter()
        .chain(&r.a_codes)
        .chain(&r.b_codes)
        .chain(&r.h_codes)
        .map(|c| c.code.to_string())
        .collect()
}

#[test]
fn every_case_in_the_regression_set_is_classified_as_expected() {
    let file: CaseFile = serde_json::from_str(CASES).expect("cases parse");
    assert!(
        file.cases.len() >= 150,
        "the regression set has at least 150 cases"
    );
    let c = classifier();
    let mut failures = Vec::new();
    let (mut high, mut high_ok, mut low, mut low_ok) = (0usize, 0usize, 0usize, 0usize);
    for case in &file.cases {
        let r = c.classify(&case.description);
        let best = r.best_code().unwrap_or("-").to_owned();
        let top_ok = case.top_any.contains(&best);
        if r.overall_confidence >= 0.7 {
            high += 1;
            high_ok += usize::from(top_ok);
        } else {
            low += 1;
            low_ok += usize::from(top_ok);
        }
        if !top_ok || r.list_type.as_str() != case.list_type || r.pic_required != case.pic_required
        {
            failures.push(format!(
                "{} {:?}: got {} {} pic={} conf={:.2}, want {} {:?} pic={}",
                case.id,
                case.description,
                r.list_type.as_str(),
                best,
                r.pic_required,
                r.overall_confidence,
                case.list_type,
                case.top_any,
                case.pic_required
            ));
        }
    }
    let rate = |ok: usize, n: usize| if n == 0 { 1.0 } else { ok as f64 / n as f64 };
    println!(
        "calibration: confidence >= 0.7: {high_ok}/{high} correct ({:.2}); below 0.7: {low_ok}/{low} correct ({:.2})",
        rate(high_ok, high),
        rate(low_ok, low)
    );
    println!(
        "cases: {} passed of {}",
        file.cases.len() - failures.len(),
        file.cases.len()
    );
    assert!(
        failures.is_empty(),
        "failing cases:\n{}",
        failures.join("\n")
    );
    assert!(
        rate(high_ok, high) >= rate(low_ok, low),
        "high-confidence results are at least as accurate"
    );
}

#[test]
fn the_bundled_knowledge_base_builds_and_knows_every_annex() {
    let c = classifier();
    for (code, annex) in [
        ("Y1", "I"),
        ("Y49", "II"),
        ("H4.1", "III"),
        ("A1181", "VIII"),
        ("B3011", "IX"),
    ] {
        let info = c.lookup(code).expect("known code");
        assert_eq!(info.annex, annex, "{code}");
    }
    assert_eq!(c.lookup("a1160").map(|i| i.code), Some("A1160".to_owned()));
    assert!(c.lookup("XX99").is_none());
    assert!(!c.version().is_empty());
}

#[test]
fn deleted_codes_are_known_to_lookup_but_never_returned() {
    let c = classifier();
    for code in ["A1180", "B1110", "B4030", "B3010"] {
        let info = c.lookup(code).expect("deleted code is known");
        assert_eq!(
            serde_json::to_value(info.status).ok(),
            Some("deleted".into())
        );
    }
    assert_eq!(
        c.lookup("A1180").and_then(|i| i.replaced_by),
        Some(vec!["A1181".to_owned()])
    );
    for text in [
        "B1110 electrical assemblies",
        "waste classified as A1180 computer scrap",
        "B3010 solid plastic waste",
        "used single-use cameras with batteries (B4030)",
        "A1180 B1110 B4030 B3010",
    ] {
        let r = c.classify(text);
        let codes = all_codes(&r);
        for deleted in ["A1180", "B1110", "B4030", "B3010"] {
            assert!(
                !codes.contains(&deleted.to_owned()),
                "{deleted} returned for {text:?}"
            );
        }
        assert!(
            !r.warnings.is_empty() || text.contains("cameras"),
            "{text:?} warns about the deleted code"
        );
    }
}

#[test]
fn hazard_qualifiers_move_a_green_waste_to_its_amber_mirror() {
    let c = classifier();
    let pairs = [
        (
            "insulated copper cables",
            "B1115",
            "insulated copper cables containing lead and PCB",
            "A1190",
        ),
        (
            "road asphalt planings",
            "B2130",
            "road asphalt planings containing tar",
            "A3200",
        ),
        (
            "coal fly ash",
            "B2050",
            "coal fly ash, contaminated, hazardous",
            "A2060",
        ),
        (
            "PET flakes, sorted",
            "B3011",
            "PET flakes contaminated with hazardous substances",
            "A3210",
        ),
    ];
    for (clean, green, dirty, amber) in pairs {
        assert_eq!(c.classify(clean).best_code(), Some(green), "{clean}");
        let r = c.classify(dirty);
        assert_eq!(r.best_code(), Some(amber), "{dirty}");
        assert_eq!(r.list_type, ListType::Amber);
        assert!(r.pic_required);
    }
}

#[test]
fn negation_and_clean_qualifiers_move_an_amber_waste_to_its_green_mirror() {
    let c = classifier();
    let cases = [
        (
            "spent activated carbon",
            "A4160",
            "spent activated carbon from potable water treatment, uncontaminated",
            "B2060",
        ),
        (
            "waste batteries",
            "A1170",
            "alkaline batteries, sorted, free of mercury and cadmium",
            "B1090",
        ),
        (
            "waste acid solution",
            "A4090",
            "acid solution, neutralised, not corrosive",
            "B2120",
        ),
    ];
    for (dirty, amber, clean, green) in cases {
        assert_eq!(c.classify(dirty).best_code(), Some(amber), "{dirty}");
        let r = c.classify(clean);
        assert_eq!(r.best_code(), Some(green), "{clean}");
        assert!(!r.pic_required, "{clean}");
    }
}

#[test]
fn e_waste_without_hazardous_components_is_y49_and_with_them_a1181() {
    let c = classifier();
    let clean = c.classify("e-waste, non-hazardous, without batteries or CRTs");
    assert_eq!(clean.best_code(), Some("Y49"));
    assert_eq!(clean.list_type, ListType::AnnexII);
    assert!(clean.pic_required);
    let dirty = c.classify("e-waste containing mercury switches and lead solder");
    assert_eq!(dirty.best_code(), Some("A1181"));
}

#[test]
fn mixed_and_unsorted_plastic_is_y48_and_sorted_single_polymer_is_b3011() {
    let c = classifier();
    assert_eq!(
        c.classify("unsorted mixed plastics").best_code(),
        Some("Y48")
    );
    assert_eq!(
        c.classify("polypropylene scrap, sorted, clean").best_code(),
        Some("B3011")
    );
}

#[test]
fn a_vague_description_gives_no_codes_low_confidence_pic_and_a_warning() {
    let c = classifier();
    for text in [
        "",
        "   ",
        "waste",
        "stuff from our factory",
        "???",
        "material for export",
    ] {
        let r = c.classify(text);
        assert!(r.deciding().is_empty(), "{text:?}");
        assert!(
            r.a_codes.is_empty() && r.b_codes.is_empty() && r.y_codes.is_empty(),
            "{text:?}"
        );
        assert!(r.overall_confidence < 0.2, "{text:?}");
        assert!(r.pic_required, "{text:?}");
        assert!(
            r.warnings.iter().any(|w| w.contains("too vague")),
            "{text:?}"
        );
    }
}

#[test]
fn huge_unicode_and_control_character_input_never_panics() {
    let c = classifier();
    let huge = "lead acid batteries ".repeat(50_000);
    let r = c.classify(&huge);
    assert_eq!(r.best_code(), Some("A1160"));
    assert!(r.warnings.iter().any(|w| w.contains("cut")));
    for text in [
        "\u{0}\u{1}\u{7f}\t\r\n",
        "Ölfilter 🛢️ ääää — ñ ĳ ǅ İstanbul ΣΑΣ",
        "電池 廃棄物",
        "a1 b2 y999 A99999 h8 un2794",
        "-- -- ,,, ;;; (( ))",
        "\u{202e}battery\u{200b}",
        "İİİİ lead-acid batteries",
    ] {
        let r = c.classify(text);
        assert!((0.0..=1.0).contains(&r.overall_confidence));
        assert!(serde_json::to_string(&r).is_ok());
    }
}

#[test]
fn the_result_serialises_with_every_field_and_the_contract_names() {
    let r = classifier().classify("used lead-acid car batteries");
    let v = serde_json::to_value(&r).expect("serialises");
    for key in [
        "y_codes",
        "a_codes",
        "b_codes",
        "h_codes",
        "un_codes",
        "list_type",
        "pic_required",
        "overall_confidence",
        "disclaimer",
        "explanation",
        "warnings",
        "classifier_version",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["list_type"], "Amber");
    assert_eq!(v["a_codes"][0]["code"], "A1160");
    assert!(v["y_codes"][0]["confidence"].is_number());
    assert!(r.un_codes.contains(&"UN2794".to_owned()));
    let annex = serde_json::to_value(ListType::AnnexI).expect("serialises");
    assert_eq!(annex, "Annex I");
}

#[test]
fn the_classifier_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Classifier>();
}

#[test]
fn a_substance_a_container_withstands_is_not_read_as_the_waste() {
    let c = classifier();
    let with_boxes = c.classify(
        "Used lead-acid starter batteries from scrapped cars, drained, shipped on pallets in \
         acid-proof boxes to a secondary lead smelter for recovery of lead and plastics",
    );
    assert_eq!(with_boxes.best_code(), Some("A1160"));
    assert!(!all_codes(&with_boxes).contains(&"A4090".to_owned()));
    // Without the batteries, "acid-proof" still names no acid: the gloves
    // are not read as oil either.
    let gloves = c.classify("PVC gloves, oil-resistant, acid-resistant, used");
    let codes = all_codes(&gloves);
    assert!(!codes.contains(&"A4090".to_owned()), "{codes:?}");
    assert!(!codes.contains(&"A3020".to_owned()), "{codes:?}");
    // The same word as the waste itself is read.
    let acid = c.classify("spent acid from a pickling line");
    assert_eq!(acid.best_code(), Some("A4090"));
}

#[test]
fn a_substance_naming_the_plant_is_the_origin_not_the_waste() {
    let c = classifier();
    let catalyst = c.classify("Spent vanadium pentoxide catalyst from a sulphuric acid plant");
    let codes = all_codes(&catalyst);
    assert!(!codes.contains(&"A4090".to_owned()), "{codes:?}");
    assert!(!codes.contains(&"Y34".to_owned()), "{codes:?}");
    // A process named as such still says what its wastes carry.
    let mercury = c.classify("Sludge from a chlor-alkali plant");
    assert!(all_codes(&mercury).contains(&"A1030".to_owned()));
    let plating = c.classify("Filter cake from a cyanide plating plant");
    assert!(all_codes(&plating).contains(&"A4050".to_owned()));
    // Not followed by a plant word, the substance is the waste's.
    let sludge = c.classify("Sludge containing sulphuric acid, pH 1");
    assert!(all_codes(&sludge).contains(&"A4090".to_owned()));
}

#[test]
fn a_constituent_supports_only_an_a_entry_about_it_and_is_named_once() {
    let c = classifier();
    let r = c.classify("Spent acid solution with lead, from a battery plant; lead content high");
    let a4090 = r
        .explanation
        .iter()
        .find(|e| e.code == "A4090")
        .expect("A4090 explained");
    assert!(
        !a4090
            .reason
            .contains("supported by hazardous constituent 'lead'"),
        "{}",
        a4090.reason
    );
    // A carrier entry (plastics) is supported by what contaminates it,
    // and a word named twice is one qualifier, one reason.
    let r = c.classify("Plastic casings contaminated with lead; the plastic holds lead");
    let explained = r
        .explanation
        .iter()
        .find(|e| e.code == "A3210")
        .expect("A3210 explained");
    assert_eq!(
        explained
            .reason
            .matches("supported by hazardous constituent 'lead'")
            .count(),
        1,
        "{}",
        explained.reason
    );
    for e in &r.explanation {
        for text in [&e.criterion, &e.reason] {
            for listed in text.split('(').skip(1) {
                let words: Vec<&str> = listed.split(')').next().unwrap_or("").split(", ").collect();
                let once: std::collections::BTreeSet<&&str> = words.iter().collect();
                assert_eq!(once.len(), words.len(), "{text}");
            }
        }
    }
}

#[test]
fn nitrile_rubber_is_not_read_as_an_organic_cyanide() {
    let c = classifier();
    for text in [
        "Used nitrile gloves from a food plant, no chemical contact",
        "NBR nitrile rubber seals and o-rings, offcuts",
    ] {
        let codes = all_codes(&c.classify(text));
        assert!(!codes.contains(&"A4050".to_owned()), "{text}: {codes:?}");
        assert!(!codes.contains(&"Y33".to_owned()), "{text}: {codes:?}");
    }
    let solvent = c.classify("Spent acetonitrile and other nitriles from HPLC");
    assert!(all_codes(&solvent).contains(&"A4050".to_owned()));
}

#[test]
fn a_hazard_word_before_not_detected_is_a_clean_signal() {
    let c = classifier();
    for text in [
        "Spent activated carbon from sugar decolourisation, heavy metals and organic pollutants not detected",
        "废活性炭（制糖厂脱色用），重金属及有机污染物未检出",
    ] {
        let r = c.classify(text);
        assert_eq!(r.best_code(), Some("B2060"), "{text}");
        assert!(!r.pic_required, "{text}");
    }
    let found = c.classify("Spent activated carbon, heavy metals detected above limits");
    assert_eq!(found.best_code(), Some("A4160"));
    assert!(found.pic_required);
}

#[test]
fn what_was_neutralised_to_make_the_waste_is_its_origin() {
    let c = classifier();
    let gypsum =
        c.classify("Gypsum sludge from neutralising the weak acid of a zinc smelter, Cd 0.3 %");
    let codes = all_codes(&gypsum);
    assert_eq!(gypsum.best_code(), Some("A2040"), "{codes:?}");
    assert!(!codes.contains(&"A4090".to_owned()), "{codes:?}");
    // A process liquor named so still says where the sludge comes from.
    let sludge = c.classify("Sludge from neutralising spent pickling acid with lime");
    assert!(all_codes(&sludge).contains(&"A1060".to_owned()));
}

#[test]
fn a_solvent_waste_naming_a_halogenated_solvent_is_a3150() {
    let c = classifier();
    for text in [
        "Spent cleaning solvent, trichloroethylene, from metal degreasing",
        // The coating it comes from does not make it a paint waste (A4070).
        "Spent solvent (dichloromethane) from tablet coating, in drums",
    ] {
        let r = c.classify(text);
        let codes = all_codes(&r);
        assert_eq!(r.best_code(), Some("A3150"), "{text}: {codes:?}");
        assert!(!codes.contains(&"A3140".to_owned()), "{text}: {codes:?}");
    }
    // A stated mixture keeps the non-halogenated entry too.
    let mixed = c.classify(
        "Mixed solvent waste: acetone and dichloromethane, non-halogenated part about 70 %",
    );
    let codes = all_codes(&mixed);
    assert!(codes.contains(&"A3140".to_owned()), "{codes:?}");
    assert!(codes.contains(&"A3150".to_owned()), "{codes:?}");
}

#[test]
fn a_named_substance_brings_its_own_un_number() {
    let c = classifier();
    for (text, un) in [
        (
            "Metallic mercury from decommissioned equipment, in flasks",
            "UN2809",
        ),
        ("Waste monochlorobenzene from a chemical plant", "UN1134"),
        (
            "Undeployed airbag modules from vehicle dismantling",
            "UN3268",
        ),
        ("Spent hydrofluoric acid from etching", "UN1790"),
        ("Expired diethyl ether in lab bottles", "UN1155"),
        ("Arsenic trioxide residue from a roaster", "UN1561"),
        ("Spent Raney nickel catalyst kept under water", "UN1378"),
    ] {
        let r = c.classify(text);
        assert!(
            r.un_codes.iter().any(|u| u == un),
            "{text}: {:?}",
            r.un_codes
        );
    }
}

#[test]
fn a_code_lookup_serves_no_note_about_how_the_data_was_transcribed() {
    let classifier = classifier();
    for code in ["Y1", "Y12", "Y44", "A4080", "B3060"] {
        let info = classifier.lookup(code).expect(code);
        let note = info.note.unwrap_or_default();
        for word in ["OCR", "NL copy", "DEFRA", "typo"] {
            assert!(!note.contains(word), "{code}: {note}");
        }
    }
    let deleted = classifier.lookup("A1180").expect("A1180");
    assert!(
        deleted.replaced_by.is_some(),
        "what replaces a deleted entry is still said"
    );
}
