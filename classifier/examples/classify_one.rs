//! Prints the classification of each argument as JSON (a debugging aid).
//!
//! Usage: `cargo run -p classifier --example classify_one -- "description" ...`

use classifier::Classifier;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let classifier = Classifier::bundled()?;
    for d in std::env::args().skip(1) {
        let r = classifier.classify(&d);
        println!("{}", serde_json::to_string_pretty(&r)?);
    }
    Ok(())
}
