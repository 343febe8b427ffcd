//! basel's pure core.
//!
//! Everything here is deterministic: aggregates decide on commands and apply
//! events; the classifier maps descriptions to Basel codes. Nothing here does
//! IO, reads a clock, or draws random numbers: actor, time and ids arrive in
//! the command. This crate must not depend on sqlx, async-nats, axum, rmcp or
//! tokio (CI checks it with `cargo tree`).
//!
//! Layout:
//! - [`values`]: validated value types (country code, e-mail, phone, slug);
//! - [`classifier`]: the Basel waste classifier and its knowledge base.

pub mod classifier;
pub mod values;
