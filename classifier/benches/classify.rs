//! Benchmark: classifying a ~200-character and a 5,000-character description
//! with a knowledge base built once outside the timed loop. Targets (issue
//! #11): median ≤ 10 µs at 200 characters, ≤ 50 µs at 5,000.

#![allow(missing_docs)]

use classifier::Classifier;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

#[path = "common/texts.rs"]
mod texts;

#[path = "common/allocator.rs"]
mod allocator;

use texts::SHORT as DESCRIPTION;

fn classify(c: &mut Criterion) {
    let classifier = match Classifier::bundled() {
        Ok(c) => c,
        Err(e) => panic!("knowledge base: {e}"),
    };
    c.bench_function("classify_200_chars", |b| {
        b.iter(|| classifier.classify(black_box(DESCRIPTION)))
    });
    let long = texts::long();
    c.bench_function("classify_5000_chars", |b| {
        b.iter(|| classifier.classify(black_box(&long)))
    });
}

criterion_group!(benches, classify);
criterion_main!(benches);
