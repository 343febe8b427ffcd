//! The write side of basel: cqrs-es wiring, the event stores (PostgreSQL in
//! server mode, SQLite in embedded mode), and the command services every edge
//! (REST, CLI import, seed) calls.
//!
//! Must not depend on `projections`, `api` or `mcp`. Never publishes from a
//! cqrs-es `Query`: the log is read from the store.
//!
//! Layout:
//! - [`store`]: the `events` table on either backend, migrations, and the
//!   cqrs-es event repository;
//! - [`adapter`]: `domain` aggregates seen by cqrs-es;
//! - [`executor`]: load, decide, append, report the committed position;
//! - [`authority`], [`steward`], [`api_key`]: one command service per aggregate;
//! - [`mailing`]: key mails, unsubscribing and notices (events the mail outbox reads);
//! - [`nats`]: reaching NATS (URL lists, credentials, TLS);
//! - [`relay`]: the outbox relay from the `events` table to JetStream (server mode);
//! - [`seed`]: the bundled dataset on first start;
//! - [`secrets`]: tokens, keys and their hashes;
//! - [`console`]: the steward console's sessions and form tokens (hashes only);
//! - [`audit`]: the verifiable log (Merkle tree, signed checkpoints, proofs);
//! - [`identity`]: people's addresses sealed under keys of their own, the
//!   [`identity::AddressBook`] that opens them, and erasure (`forget`).

pub mod adapter;
pub mod api_key;
pub mod audit;
pub mod authority;
pub mod console;
pub mod executor;
pub mod identity;
pub mod mailing;
pub mod nats;
pub mod relay;
pub mod secrets;
pub mod seed;
pub mod steward;
pub mod store;

/// Why a command was not committed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError<E: std::error::Error> {
    /// The domain refused it (a business rule).
    #[error(transparent)]
    Rejected(E),
    /// Another command on the same aggregate committed first (and retrying
    /// did not help, or the caller pinned a version).
    #[error("another write to the same record committed first; retry")]
    Conflict,
    /// The caller pinned the version it last read, and the aggregate has
    /// moved on since.
    #[error("the record is at version {current}, not {expected}")]
    VersionMismatch {
        /// The version the caller expected.
        expected: i64,
        /// The version the event store holds.
        current: i64,
    },
    /// The request's `Idempotency-Key` was used before by the same sender
    /// for a different request.
    #[error("this Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    /// The store failed; the cause is logged where this is handled.
    #[error("the event store failed: {0}")]
    Infrastructure(String),
}
