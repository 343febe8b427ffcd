//! Integration tests of the domain crate (one test binary).

mod classifier;
mod trade_cases;
