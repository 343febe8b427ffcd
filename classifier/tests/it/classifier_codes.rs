//! Codes brokers write first: List of Waste codes, UN numbers and HS codes
//! alone give the entry they name; a code the words contradict warns.

use classifier::{Classifier, WarningCode};
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
