//! The `/api/v1` handlers, one file per use case: the directory
//! ([`ca`]: reads, steward writes, contacts, proposals), with [`written`]
//! answering a committed write; the classifier ([`classify`])
//! and the shipment planner ([`shipments`]); the feed of changes
//! ([`changes`]), coverage ([`coverage`]), the stewards' worklist
//! ([`worklist`]) and the verifiable log ([`audit`]).

pub mod audit;
pub mod ca;
pub mod changes;
pub mod classify;
pub mod coverage;
pub mod shipments;
pub mod worklist;
pub mod written;
