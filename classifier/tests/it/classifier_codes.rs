//! Codes brokers write first: List of Waste codes, UN numbers and HS codes
//! alone give the entry they name; a code the words contradict warns.

use classifier::{Classifier, ListType, WarningCode};
use serde_json::Value;

fn classifier() -> Classifier {
    Classifier::bundled().expect("bundled data is valid")
}

fn best(c: &Classifier, text: &str) -> Option<String> {
    c.classify(text).best_code().map(str::to_owned)
}

#[test]
fn a_code_alone_gives_its_entry() {
    let c = classifier();
    for (text, want) in [
        ("EWC 16 06 01*", "A1160"),
        ("UN2794", "A1160"),
        ("HS 7404", "B1010"),
        ("LoW 17 06 05*", "A2050"),
        ("160601*", "A1160"),
        ("UN 1790", "A2020"),
        ("EAK 17 08 02", "B2040"),
    ] {
        assert_eq!(best(&c, text).as_deref(), Some(want), "{text}");
    }
}

#[test]
fn a_un_number_is_listed_with_its_class_characteristic() {
    let r = classifier().classify("spent catalyst, ships as UN3190");
    assert!(r.un_codes.iter().any(|u| u == "UN3190"), "{:?}", r.un_codes);
    assert!(
        r.h_codes.iter().any(|h| h.code == "H4.2"),
        "{:?}",
        r.h_codes
    );
}

#[test]
fn each_code_alone_gives_one_of_its_entries() {
    let c = classifier();
    let file: Value = serde_json::from_str(include_str!("../../data/classifier_codes.json"))
        .expect("codes file parses");
    for (list, prefix) in [("ewc", "LoW "), ("un", "UN")] {
        let table = file[list].as_object().expect("table");
        for (code, e) in table {
            let basel: Vec<&str> = e["basel"]
                .as_array()
                .expect("basel")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let text = format!("{prefix}{code}");
            let r = c.classify(&text);
            for b in &basel {
                assert!(c.lookup(b).is_some(), "{code}: {b} is no entry");
            }
            if let Some(first) = basel.first() {
                let listed = r.a_codes.iter().chain(&r.b_codes).chain(&r.y_codes);
                assert!(
                    listed.into_iter().any(|x| x.code == *first),
                    "{text}: {first} not in {:?}",
                    r.best_code()
                );
                assert!(
                    !r.warning_codes.contains(&WarningCode::CodeConflict),
                    "{text}"
                );
            }
        }
    }
}

#[test]
fn a_code_the_words_contradict_warns() {
    let r = classifier().classify("Copper wire scrap, bare, EWC 16 06 01*");
    assert!(
        r.warning_codes.contains(&WarningCode::CodeConflict),
        "{:?}",
        r.warnings
    );
    assert!(r.pic_required);
    let agree = classifier().classify("Lead-acid batteries, EWC 16 06 01*");
    assert!(!agree.warning_codes.contains(&WarningCode::CodeConflict));
}

/// Material and metal words a description may put beside a code: every
/// Annex IX metal and the common Green materials.
const MATERIALS: &[&str] = &[
    "copper scrap",
    "aluminium",
    "aluminium dross",
    "iron and steel scrap",
    "stainless steel",
    "brass",
    "zinc",
    "nickel",
    "lead",
    "tin",
    "gold",
    "silver",
    "platinum",
    "titanium",
    "tungsten",
    "cobalt",
    "molybdenum",
    "tantalum",
    "magnesium",
    "precious metals",
    "plastic",
    "polyethylene",
    "paper and cardboard",
    "glass cullet",
    "textiles",
    "rubber",
    "wood",
    "slag",
    "ceramics",
    "gypsum",
];

/// Every List of Waste entry, as printed (`"16 06 01*"`), from the embedded copy.
fn list_of_waste() -> Vec<String> {
    let file: Value = serde_json::from_str(include_str!("../../data/eu_list_of_waste.json"))
        .expect("the List of Waste parses");
    file["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e[0].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn every_starred_code_alone_or_beside_a_material_needs_pic_and_is_never_green() {
    let c = classifier();
    let codes = list_of_waste();
    assert_eq!(codes.len(), 842);
    let starred: Vec<&String> = codes.iter().filter(|k| k.ends_with('*')).collect();
    assert_eq!(starred.len(), 408);
    for code in starred {
        let six: String = code.chars().filter(char::is_ascii_digit).collect();
        let mut texts = vec![
            format!("EWC {code}"),
            format!("{six}*"),
            format!("LoW {six}"),
        ];
        texts.extend(MATERIALS.iter().map(|m| format!("{m}, EWC {code}")));
        texts.extend(MATERIALS.iter().map(|m| format!("{code} {m}, clean")));
        for text in texts {
            let r = c.classify(&text);
            assert!(r.pic_required, "{text}: no PIC ({:?})", r.best_code());
            assert_ne!(
                r.list_type,
                ListType::Green,
                "{text}: Green {:?}",
                r.b_codes
            );
            assert!(!r.questions.is_empty(), "{text}: no questions");
        }
    }
}

#[test]
fn a_code_outside_the_curated_table_is_read_as_its_entry() {
    let c = classifier();
    // 19 10 03* "fluff-light fraction and dust containing hazardous substances"
    let r = c.classify("AVV 19 10 03*");
    assert_eq!(r.best_code(), Some("A3120"), "{r:?}");
    // A starred code beside a Green metal: the metal's entry is set aside.
    let r = c.classify("copper scrap, EWC 19 12 11*");
    assert!(r.pic_required);
    assert_ne!(r.list_type, ListType::Green);
    assert!(r.b_codes.is_empty(), "{:?}", r.b_codes);
    assert!(
        r.questions.iter().any(|q| q.contains("19 12 11*")),
        "{:?}",
        r.questions
    );
}

#[test]
fn a_non_hazardous_code_does_not_force_pic() {
    let r = classifier().classify("untreated wood sawdust, EWC 03 01 05");
    assert_eq!(r.list_type, ListType::Green, "{r:?}");
    assert!(!r.pic_required);
    assert!(r.questions.is_empty(), "{:?}", r.questions);
}
