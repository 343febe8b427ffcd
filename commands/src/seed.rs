//! Imports the bundled dataset on first start.
//!
//! "First start" means the store holds no authority events at all. Each
//! record becomes an `AuthorityRegistered` event with actor `system:seed`, so
//! the seed is part of the audit trail like any other write. A second start,
//! or a start after an import, seeds nothing. If two processes seed at once,
//! the loser's registrations are refused as already registered and skipped.

use chrono::{DateTime, NaiveDate, Utc};

use domain::authority::{AuthorityError, RegisterAuthority};
use domain::metadata::{Actor, Metadata};
use domain::seed::SeedError;

use crate::authority::AuthorityCommands;
use crate::store::{Backend, StoreError};
use crate::CommandError;

/// Why seeding failed.
#[derive(Debug, thiserror::Error)]
pub enum SeedFailure {
    /// The bundled data does not parse (a build defect).
    #[error(transparent)]
    Data(#[from] SeedError),
    /// The store could not be read or written.
    #[error("seeding failed: {0}")]
    Store(String),
}

impl From<StoreError> for SeedFailure {
    fn from(error: StoreError) -> Self {
        Self::Store(error.to_string())
    }
}

/// Seeds the directory when the store has no authority yet; returns how many
/// records were registered (0 when the store was already seeded).
///
/// # Errors
/// [`SeedFailure`] when the data or the store fails; a record refused by the
/// domain is a defect in the bundled data and fails too.
pub async fn seed_if_empty(
    backend: &Backend,
    now: DateTime<Utc>,
    today: NaiveDate,
) -> Result<usize, SeedFailure> {
    if count_authority_events(backend).await? > 0 {
        return Ok(0);
    }
    let commands = AuthorityCommands::new(backend);
    let metadata = Metadata {
        recorded_at: now,
        actor: Actor::Seed,
        request_id: "seed".to_owned(),
        client_request_id: None,
    };
    let mut registered = 0;
    for record in domain::seed::bundled()? {
        let command = RegisterAuthority {
            country: record.country,
            country_name: record.country_name,
            contact: record.contact,
            verified: false,
            last_checked: record.last_checked,
            source: record.source,
            contacts: record.contacts,
            steward: None,
            today,
        };
        match commands.register(command, &metadata).await {
            Ok(_) => registered += 1,
            Err(
                CommandError::Rejected(AuthorityError::AlreadyRegistered(_))
                | CommandError::Conflict,
            ) => {}
            Err(other) => return Err(SeedFailure::Store(other.to_string())),
        }
    }
    Ok(registered)
}

async fn count_authority_events(backend: &Backend) -> Result<i64, StoreError> {
    const SQL: &str = "SELECT COUNT(*) FROM events WHERE aggregate_type = 'authority'";
    let count = match backend {
        Backend::Postgres(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await,
        Backend::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await,
    };
    count.map_err(StoreError::Database)
}
