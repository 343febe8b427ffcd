//! The basel binary.
fn main() {}
