//! Classifies the benchmark descriptions in a loop, for CPU-time
//! measurements on a busy machine (`perf stat -e task-clock`), where
//! criterion's wall-clock medians are inflated by other processes.
//!
//! Usage: `cargo run --release -p classifier --example probe -- 200|5000 N`

use classifier::Classifier;

#[path = "../benches/common/texts.rs"]
mod texts;

#[path = "../benches/common/allocator.rs"]
mod allocator;

use texts::SHORT;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "200".to_owned());
    let n: usize = args.next().unwrap_or_else(|| "1000".to_owned()).parse()?;
    let text = if which == "5000" {
        texts::long()
    } else {
        SHORT.to_owned()
    };
    let c = Classifier::bundled()?;
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for _ in 0..n {
        total += c.classify(std::hint::black_box(&text)).warnings.len();
    }
    let per = start.elapsed().as_secs_f64() / n as f64 * 1e6;
    println!(
        "{} chars: {per:.2} µs wall per call ({total})",
        text.chars().count()
    );
    Ok(())
}
