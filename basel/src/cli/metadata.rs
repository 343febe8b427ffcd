//! The metadata of a command issued from the command line: now, the actor,
//! and a request id of its own (`cli-<uuid>`).

use chrono::Utc;
use domain::metadata::{Actor, Metadata};

/// Metadata for a command issued from the command line.
pub fn cli_metadata(actor: Actor) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor,
        request_id: format!("cli-{}", uuid::Uuid::new_v4()),
        client_request_id: None,
        idempotency: None,
    }
}
