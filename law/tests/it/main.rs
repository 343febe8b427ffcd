//! Integration tests of the law crate (one test binary).

mod procedure;
