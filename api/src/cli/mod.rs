//! The non-serving subcommands. Each writes through command services and
//! reads through projections, exactly like the HTTP edges.

pub mod log;
pub mod steward;
pub mod transfer;

use chrono::Utc;
use domain::metadata::{Actor, Metadata};

/// Metadata for a command issued from the command line.
pub fn cli_metadata(actor: Actor) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor,
        request_id: format!("cli-{}", uuid::Uuid::new_v4()),
    }
}
