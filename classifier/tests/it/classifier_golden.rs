//! The exact classifier output (serde_json) for every description of the
//! two case files in this directory and for the benchmark descriptions,
//! pinned by its SHA-256.
//!
//! Speed work must not change a single answer: this test fails on any
//! change of any byte. When a behaviour change is intended, compare the
//! outputs with the `golden` example (`cargo run --release -p classifier
//! --example golden -- before.jsonl classifier/tests/it/trade_cases.json ...`)
//! before and after, then update [`OUTPUTS_SHA256`].

use classifier::Classifier;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// SHA-256 of all outputs, one JSON line each, in the order of [`inputs`].
const OUTPUTS_SHA256: &str = "d49701836fcb4b865b98c9d4757cf53ceb527b6a037f78e76eb40055e991157f";

/// The description of every case, then the benchmark texts.
fn inputs() -> Vec<String> {
    let mut out = Vec::new();
    for file in [
        include_str!("trade_cases.json"),
        include_str!("classifier_cases.json"),
    ] {
        let v: Value = serde_json::from_str(file).expect("case file parses");
        let cases = v["cases"].as_array().cloned().unwrap_or_default();
        for c in cases {
            let s = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
            out.push(s("description").unwrap_or_default());
        }
    }
    let short = "Spent lead-acid car batteries, whole and undrained, collected from garages and \
scrap yards, mixed with a few nickel-cadmium packs; shipped in acid-proof pallets for recovery \
of lead at a secondary smelter.";
    let lots = [
        "Lot 1: baled OCC and mixed office paper, dry, sorted, for repulping. ",
        "Lot 2: HMS 1&2 steel scrap, cut to size, free of oil and sealed containers. ",
        "Lot 3: used lubricating oil from a vehicle workshop, PCB below 5 mg/kg (lab). ",
        "Lot 4: insulated copper cable offcuts, PVC sheathed, from building demolition. ",
        "Lot 5: spent caustic solution, pH 13, from an aluminium anodising line. ",
    ];
    let mut long = String::new();
    for lot in lots.iter().cycle() {
        if long.chars().count() + 80 >= 5000 {
            break;
        }
        long.push_str(lot);
    }
    for text in [short.to_owned(), long] {
        out.push(text);
    }
    out
}

#[test]
fn classifier_outputs_are_byte_for_byte_the_pinned_ones() {
    let classifier = Classifier::bundled().expect("the embedded knowledge base builds");
    let mut hasher = Sha256::new();
    for text in inputs() {
        let r = classifier.classify(&text);
        let line = serde_json::to_string(&r).expect("a classification serialises");
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    let got = hex::encode(hasher.finalize());
    assert_eq!(got, OUTPUTS_SHA256, "classifier outputs changed");
}
