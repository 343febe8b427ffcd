//! Classifier benchmark (being built).
fn main() {}
