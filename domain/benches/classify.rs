//! Benchmark: classifying a ~200-character description with a knowledge base
//! built once outside the timed loop. Target: median ≤ 50 µs.

#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use domain::classifier::Classifier;
use domain::values::CountryCode;

const DESCRIPTION: &str = "Spent lead-acid car batteries, whole and undrained, collected from \
garages and scrap yards, mixed with a few nickel-cadmium packs; shipped in acid-proof pallets for \
recovery of lead at a secondary smelter.";

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
    c.bench_function("classify_200_chars_with_procedure", |b| {
        b.iter(|| classifier.classify(black_box(DESCRIPTION), Some(&de), Some(&ng)))
    });
}

criterion_group!(benches, classify);
criterion_main!(benches);
