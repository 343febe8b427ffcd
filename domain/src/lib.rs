//! basel's directory domain: the competent-authority records, API keys and
//! stewards as aggregates, and the facts they rest on (the Party registry,
//! the data release).
//!
//! Everything here is deterministic: aggregates decide on commands and apply
//! events. Nothing here does
//! IO, reads a clock, or draws random numbers: actor, time and ids arrive in
//! the command. This crate must not depend on sqlx, async-nats, axum, rmcp or
//! tokio (CI checks it with `cargo tree`).
//!
//! Layout:
//! - [`aggregate`]: the decide/apply shape every aggregate has;
//! - [`authority`], [`api_key`], [`steward`]: the three aggregates;
//! - [`notice`]: announcements mailed to every registrant;
//! - [`credentials`]: how API keys and steward tokens are read and hashed;
//! - [`metadata`]: who, when and which request, stored with every event;
//! - [`envelope`]: the log's wire format (an event as published to JetStream);
//! - [`trace`]: the W3C `traceparent` a request, its events and the log carry;
//! - [`values`]: validated value types (country code, e-mail, phone, slug);
//! - [`parties`]: the Party registry (status, Annex VII, OECD, Ban
//!   Amendment acceptance, every other ISO code as a non-Party);
//! - [`release`], [`seed`]: the directory's data release and the bundled
//!   dataset of Basel Parties and their sourced records.
//!
//! The waste classifier (crate `classifier`) and the shipment law (crate
//! `law`) are crates of their own.

pub mod aggregate;
pub mod api_key;
pub mod authority;
pub mod credentials;
pub mod echo;
pub mod envelope;
pub mod json;
pub mod metadata;
pub mod notice;
pub mod parties;
pub mod release;
pub mod seed;
pub mod steward;
#[cfg(test)]
mod testing;
pub mod trace;
pub mod values;

pub use aggregate::{Aggregate, DomainEvent};
