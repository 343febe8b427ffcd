//! Classifies the benchmark descriptions in a loop, for CPU-time
//! measurements on a busy machine (`perf stat -e task-clock`), where
//! criterion's wall-clock medians are inflated by other processes.
//!
//! Usage: `cargo run --release -p domain --example probe -- 200|5000 N`

use domain::classifier::Classifier;

const SHORT: &str = "Spent lead-acid car batteries, whole and undrained, collected from \
garages and scrap yards, mixed with a few nickel-cadmium packs; shipped in acid-proof pallets for \
recovery of lead at a secondary smelter.";

fn long() -> String {
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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "200".to_owned());
    let n: usize = args.next().unwrap_or_else(|| "1000".to_owned()).parse()?;
    let text = if which == "5000" {
        long()
    } else {
        SHORT.to_owned()
    };
    let c = Classifier::bundled()?;
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for _ in 0..n {
        total += c
            .classify(std::hint::black_box(&text), None, None)
            .warnings
            .len();
    }
    let per = start.elapsed().as_secs_f64() / n as f64 * 1e6;
    println!(
        "{} chars: {per:.2} µs wall per call ({total})",
        text.chars().count()
    );
    Ok(())
}
