//! Imports the bundled dataset on first start.
//!
//! "First start" means the store holds no authority events at all. Each
//! record becomes an `AuthorityRegistered` event with actor `system:seed`, so
//! the seed is part of the audit trail like any other write. A second start,
//! or a start after an import, seeds nothing. If two processes seed at once,
//! the loser's registrations are refused as already registered and skipped.

use chrono::{DateTime, NaiveDate, Utc};

use domain::authority::{AddContact, Authority, AuthorityError, NewContact, RegisterAuthority};
use domain::metadata::{Actor, Metadata};
use domain::parties::fold;
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
        idempotency: None,
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

/// What applying the bundled data release to an existing store did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReleaseReport {
    /// Parties the store lacked (e.g. the European Union), registered.
    pub registered: usize,
    /// Contacts of the release the store's Parties did not hold, added.
    pub added: usize,
    /// Records of codes that are not Parties (created in error), retired.
    pub retired: usize,
    /// Parties the release could not be applied to (their record could not
    /// be read or written), each with the reason: the start goes on, and
    /// the next start tries again.
    pub failed: Vec<String>,
}

/// Brings a store seeded before the Party registry and the data release up
/// to date, through the same commands as any write (actor `system:release`):
/// registers each Party it lacks with its release contacts, and adds each
/// release contact a Party does not hold yet (the same office from the same
/// source). Idempotent: a second run appends nothing.
///
/// # Errors
/// [`SeedFailure`] when the data or the store fails.
pub async fn apply_release(
    backend: &Backend,
    now: DateTime<Utc>,
    today: NaiveDate,
) -> Result<ReleaseReport, SeedFailure> {
    let commands = AuthorityCommands::new(backend);
    let metadata = Metadata {
        recorded_at: now,
        actor: Actor::Release,
        request_id: format!("release-{}", domain::release::RELEASE),
        client_request_id: None,
        idempotency: None,
    };
    let mut report = ReleaseReport::default();
    for record in domain::seed::bundled()? {
        // A record that cannot be read (an event that does not decode, say,
        // which the audit log reports) does not stop the start.
        let state = match commands.current(&record.country).await {
            Ok(state) => state,
            Err(e) => {
                report.failed.push(format!("{}: {e}", record.country));
                continue;
            }
        };
        if state.country.is_none() {
            let code = record.country.clone();
            let command = RegisterAuthority {
                country: record.country,
                country_name: record.country_name,
                contact: record.contact,
                verified: false,
                last_checked: None,
                source: record.source,
                contacts: record.contacts,
                steward: None,
                today,
            };
            match commands.register(command, &metadata).await {
                Ok(_) => report.registered += 1,
                Err(CommandError::Rejected(AuthorityError::AlreadyRegistered(_))) => {}
                Err(other) => report.failed.push(format!("{code}: {other}")),
            }
            continue;
        }
        for mut contact in record.contacts {
            if holds(&state, &contact) {
                continue;
            }
            // The store's primary (perhaps a steward's verified choice) stays.
            contact.primary &= state.primary.is_none();
            let add = AddContact {
                max_contacts: domain::authority::DEFAULT_MAX_CONTACTS,
                contact,
                steward: None,
                today,
            };
            match commands.add_contact(&record.country, add, &metadata).await {
                Ok(_) => report.added += 1,
                // A contact the store's rules refuse (a second focal point,
                // say) stays out; the release keeps it.
                Err(CommandError::Rejected(_) | CommandError::Conflict) => {}
                Err(other) => report.failed.push(format!("{}: {other}", record.country)),
            }
        }
    }
    retire_non_parties(&commands, &metadata, &mut report).await?;
    Ok(report)
}

/// Retires every record of a code that is not a Party (registered in error
/// by an earlier release, which accepted any two letters).
async fn retire_non_parties(
    commands: &AuthorityCommands,
    metadata: &Metadata,
    report: &mut ReleaseReport,
) -> Result<(), SeedFailure> {
    let registry = domain::parties::registry();
    for code in commands.registered_codes().await? {
        let Ok(country) = domain::values::CountryCode::parse(&code) else {
            continue;
        };
        if registry.party(country.as_str()).is_some() {
            continue;
        }
        let reason = match registry.standing(&country) {
            domain::parties::Standing::NotAParty(other) => other.summary.clone(),
            _ => format!("no country has the code {country}"),
        };
        let retire = domain::authority::RetireAuthority {
            reason: format!("{reason}: the directory holds records of Basel Parties only"),
            steward: None,
        };
        match commands.retire(&country, retire, metadata).await {
            Ok(_) => report.retired += 1,
            Err(CommandError::Rejected(_) | CommandError::Conflict) => {}
            Err(other) => report.failed.push(format!("{country}: {other}")),
        }
    }
    Ok(())
}

/// Whether `state` holds the release contact `new` already: a contact with
/// the same name from one of the same sources.
fn holds(state: &Authority, new: &NewContact) -> bool {
    let name = fold(new.details.ca_name.as_deref().unwrap_or_default());
    state.contacts.iter().any(|c| {
        let same_name = fold(c.details.ca_name.as_deref().unwrap_or_default()) == name;
        let same_source = new.sources.iter().any(|s| {
            c.provenance.source.as_deref() == Some(s.url.as_str())
                || c.sources.iter().any(|own| own.url == s.url)
        });
        same_name && same_source
    })
}

async fn count_authority_events(backend: &Backend) -> Result<i64, StoreError> {
    const SQL: &str = "SELECT COUNT(*) FROM events WHERE aggregate_type = 'authority'";
    let count = match backend {
        Backend::Postgres(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await,
        Backend::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await,
    };
    count.map_err(StoreError::Database)
}
