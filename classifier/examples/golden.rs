//! Records the exact output of `Classifier::classify` (serde_json, one line
//! per description) for every case of the given case files, plus the
//! benchmark descriptions and a few pathological inputs, so that speed work
//! can be checked to change no answer byte for byte.
//!
//! Usage: `cargo run --release -p classifier --example golden -- OUT.jsonl CASES.json...`
//! Prints the SHA-256 of all outputs and the number of lines written.

use std::fmt::Write as _;

#[path = "../benches/common/texts.rs"]
mod texts;

use classifier::Classifier;
use serde_json::Value;
use sha2::{Digest, Sha256};

fn extra_inputs() -> Vec<String> {
    let long = texts::long();
    let very_long = long.repeat(2);
    vec![
        texts::SHORT.to_owned(),
        long,
        very_long,
        String::new(),
        "   ".to_owned(),
        "a".repeat(5000),
        "Altbatterien Bleiakkumulatoren ungeöffnet; baterías de plomo usadas; 废电池 ắc quy chì"
            .to_owned(),
        "PCB < 50 mg/kg, pH 1.5, Hg 0.2 %, sludge n.d. free of asbestos, not hazardous?".to_owned(),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().ok_or("usage: golden OUT.jsonl CASES.json...")?;
    let classifier = Classifier::bundled()?;
    let mut text = String::new();
    let mut lines = 0usize;
    for path in args {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let cases = file
            .get("cases")
            .and_then(Value::as_array)
            .ok_or("no cases")?;
        for c in cases {
            let desc = c.get("description").and_then(Value::as_str).unwrap_or("");
            let r = classifier.classify(desc);
            writeln!(text, "{}", serde_json::to_string(&r)?)?;
            lines += 1;
        }
    }
    for desc in extra_inputs() {
        let r = classifier.classify(&desc);
        writeln!(text, "{}", serde_json::to_string(&r)?)?;
        lines += 1;
    }
    std::fs::write(&out, &text)?;
    println!(
        "{lines} lines, sha256 {}",
        hex::encode(Sha256::digest(text.as_bytes()))
    );
    Ok(())
}
