//! The verifiable log: an RFC 9162 Merkle tree over the stored
//! bytes of every event in append order, signed checkpoints, proofs, and
//! verification.
//!
//! - [`merkle`]: leaf and node hashing, proofs and their verification (pure);
//! - [`leaf`]: an event's canonical bytes (its JetStream message body);
//! - [`note`]: checkpoints as C2SP signed notes, Ed25519 keys;
//! - [`tables`]: the append-only `audit_leaves` and `audit_checkpoints`;
//! - [`notary`]: the task that extends the tree and signs checkpoints;
//! - [`verify`]: the store against its tree and its checkpoints;
//! - [`stream`]: the JetStream copy against the store (server mode).
//!
//! The tree never covers a rewritten byte: events are append-only at the
//! store (triggers), and the one-time sealing of first-release plaintext
//! addresses (`crate::identity::legacy`) runs at start before the notary,
//! and the trigger refuses it for any event a leaf covers.

pub mod leaf;
pub mod merkle;
pub mod notary;
pub mod note;
pub mod stream;
pub mod tables;
pub mod verify;

pub use merkle::Hash;
pub use notary::{Cadence, Notary};
pub use note::{NoteVerifier, Signer};
