//! Benchmark: classifying a ~200-character and a 5,000-character description
//! with a knowledge base built once outside the timed loop. Targets (issue
//! #11): median ≤ 10 µs at 200 characters, ≤ 50 µs at 5,000.

#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use domain::classifier::Classifier;
use domain::values::CountryCode;

const DESCRIPTION: &str = "Spent lead-acid car batteries, whole and undrained, collected from \
garages and scrap yards, mixed with a few nickel-cadmium packs; shipped in acid-proof pallets for \
recovery of lead at a secondary smelter.";

/// A 5,000-character trade description: several realistic lots in a row.
fn long_description() -> String {
    const LOTS: [&str; 5] = [
        "Lot 1: baled OCC and mixed office paper, dry, sorted, for repulping. ",
        "Lot 2: HMS 1&2 steel scrap, cut to size, free of oil and sealed containers. ",
        "Lot 3: used lubricating oil from a vehicle workshop, PCB below 5 mg/kg (lab). ",
        "Lot 4: insulated copper cable offcuts, PVC sheathed, from building demolition. ",
        "Lot 5: spent caustic solution, pH 13, from an aluminium anodising line. ",
    ];
    let mut s = String::new();
    let mut i = 0;
    while s.chars().count() + 80 < 5000 {
        s.push_str(LOTS[i % LOTS.len()]);
        i += 1;
    }
    s
}

fn classify(c: &mut Criterion) {
    let classifier = match Classifier::bundled() {
        Ok(c) => c,
        Err(e) => panic!("knowledge base: {e}"),
    };
    let (de, ng) = match (CountryCode::parse("DE"), CountryCode::parse("NG")) {
        (Ok(a), Ok(b)) => (a, b),
        _ => panic!("country codes"),
    };
    c.bench_function("classify_200_chars", |b| {
        b.iter(|| classifier.classify(black_box(DESCRIPTION), None, None))
    });
    let long = long_description();
    c.bench_function("classify_5000_chars", |b| {
        b.iter(|| classifier.classify(black_box(&long), None, None))
    });
    c.bench_function("classify_200_chars_with_procedure", |b| {
        b.iter(|| classifier.classify(black_box(DESCRIPTION), Some(&de), Some(&ng)))
    });
}

criterion_group!(benches, classify);
criterion_main!(benches);
