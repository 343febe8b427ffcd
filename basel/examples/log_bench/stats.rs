//! Percentiles and one-line latency summaries, shared by the `lag` and `http`
//! reports. Nearest-rank percentiles of the raw samples (no histogram, no
//! interpolation), so a figure is always one measured value and p99 of a
//! few thousand samples stays honest about the tail.

use std::time::Duration;

/// Nearest-rank percentile of sorted `values`.
fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// p50, p90, p99, max (milliseconds) and the count of `values`.
pub fn summary(mut values: Vec<f64>) -> String {
    values.sort_by(f64::total_cmp);
    format!(
        "p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms (n={})",
        pct(&values, 50.0),
        pct(&values, 90.0),
        pct(&values, 99.0),
        values.last().copied().unwrap_or(f64::NAN),
        values.len()
    )
}

/// `d` in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
