//! Integration tests of the law crate (one test binary).

mod data;
mod procedure;
