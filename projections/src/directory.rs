//! The authority directory: one row per country, as clients read it.

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use domain::authority::AuthorityEvent;

use crate::log::StoredEvent;
use crate::{ProjectionError, ReadDb};

/// The projection's name (its checkpoint key).
pub const NAME: &str = "directory";

/// One country's record as the directory shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuthorityRow {
    /// ISO alpha-2, upper case.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// The authority's name.
    pub ca_name: Option<String>,
    /// Its e-mail.
    pub email: Option<String>,
    /// Its phone.
    pub phone: Option<String>,
    /// Its address.
    pub address: Option<String>,
    /// Notes shown with the record.
    pub notes: Option<String>,
    /// Whether the record is verified.
    pub verified: bool,
    /// The last check, `YYYY-MM-DD`.
    pub last_checked: Option<String>,
    /// What the last check (or the registration) relied on.
    pub source: Option<String>,
    /// How the last check was made.
    pub source_method: Option<String>,
    /// Who made it (steward id).
    pub source_steward: Option<String>,
    /// The steward's note on it.
    pub source_note: Option<String>,
    /// The last applied sequence of the country's aggregate.
    pub version: i64,
    /// The log position of that event.
    pub position: i64,
    /// When that event was recorded (RFC 3339).
    pub updated_at: String,
}

const COLUMNS: &str =
    "country_code, country_name, ca_name, email, phone, address, notes, verified, last_checked, \
    source, source_method, source_steward, source_note, version, position, updated_at";

/// What the per-aggregate sequence guard says of an event.
pub(crate) enum Guard {
    /// It is the next one: apply it.
    Apply,
    /// It was applied already: skip it.
    Skip,
}

/// Checks `sequence` against the version stored for the aggregate.
pub(crate) fn guard(current: Option<i64>, event: &StoredEvent) -> Result<Guard, ProjectionError> {
    let current = current.unwrap_or(0);
    if event.sequence <= current {
        Ok(Guard::Skip)
    } else if event.sequence == current + 1 {
        Ok(Guard::Apply)
    } else {
        Err(ProjectionError::Gap {
            aggregate_id: event.aggregate_id.clone(),
            expected: current + 1,
            got: event.sequence,
        })
    }
}

/// Applies one authority event.
///
/// # Errors
/// Decode, gap or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let decoded: AuthorityEvent = event.decode()?;
    let version: Option<i64> =
        sqlx::query_scalar("SELECT version FROM directory WHERE country_code = $1")
            .bind(&event.aggregate_id)
            .fetch_optional(&mut **tx)
            .await?;
    if let Guard::Skip = guard(version, event)? {
        return Ok(());
    }
    let updated_at = event.meta("recorded_at");
    match decoded {
        AuthorityEvent::AuthorityRegistered(e) => {
            let c = &e.contact;
            sqlx::query(&format!(
                "INSERT INTO directory ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, NULL, $11, $12, $13)"
            ))
            .bind(e.country.as_str())
            .bind(&e.country_name)
            .bind(c.ca_name.clone())
            .bind(c.email.as_ref().map(|v| v.as_str().to_owned()))
            .bind(c.phone.as_ref().map(|v| v.as_str().to_owned()))
            .bind(c.address.clone())
            .bind(c.notes.clone())
            .bind(i64::from(e.verified))
            .bind(e.last_checked.map(|d| d.to_string()))
            .bind(e.source.clone())
            .bind(event.sequence)
            .bind(event.position)
            .bind(&updated_at)
            .execute(&mut **tx)
            .await?;
        }
        AuthorityEvent::ContactDetailsChanged(e) => {
            for change in &e.changes {
                let column = change.field.name();
                sqlx::query(&format!(
                    "UPDATE directory SET {column} = $1 WHERE country_code = $2"
                ))
                .bind(change.new.clone())
                .bind(&event.aggregate_id)
                .execute(&mut **tx)
                .await?;
            }
            bump(tx, event, &updated_at).await?;
        }
        AuthorityEvent::VerificationRecorded(e) => {
            sqlx::query(
                "UPDATE directory SET verified = $1, last_checked = $2, source = $3, source_method = $4, \
                 source_steward = $5, source_note = $6 WHERE country_code = $7",
            )
            .bind(i64::from(e.verified))
            .bind(e.checked_on.to_string())
            .bind(&e.source)
            .bind(e.method.as_str())
            .bind(e.steward.as_ref().map(|s| s.as_str().to_owned()))
            .bind(e.note.clone())
            .bind(&event.aggregate_id)
            .execute(&mut **tx)
            .await?;
            bump(tx, event, &updated_at).await?;
        }
    }
    Ok(())
}

async fn bump(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
    updated_at: &str,
) -> Result<(), ProjectionError> {
    sqlx::query(
        "UPDATE directory SET version = $1, position = $2, updated_at = $3 WHERE country_code = $4",
    )
    .bind(event.sequence)
    .bind(event.position)
    .bind(updated_at)
    .bind(&event.aggregate_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Queries on the directory.
#[derive(Clone)]
pub struct Reader {
    db: ReadDb,
}

impl Reader {
    /// A reader over `db`.
    pub fn new(db: ReadDb) -> Self {
        Self { db }
    }

    /// One country's record (`code` upper case).
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn get(&self, code: &str) -> Result<Option<AuthorityRow>, ProjectionError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM directory WHERE country_code = $1"
        ))
        .bind(code)
        .fetch_optional(&self.db)
        .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// Every record, sorted by country code.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn all(&self) -> Result<Vec<AuthorityRow>, ProjectionError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM directory ORDER BY country_code"
        ))
        .fetch_all(&self.db)
        .await?;
        rows.iter().map(from_row).collect()
    }
}

fn from_row(row: &AnyRow) -> Result<AuthorityRow, ProjectionError> {
    Ok(AuthorityRow {
        country_code: row.try_get("country_code")?,
        country_name: row.try_get("country_name")?,
        ca_name: row.try_get("ca_name")?,
        email: row.try_get("email")?,
        phone: row.try_get("phone")?,
        address: row.try_get("address")?,
        notes: row.try_get("notes")?,
        verified: row.try_get::<i64, _>("verified")? != 0,
        last_checked: row.try_get("last_checked")?,
        source: row.try_get("source")?,
        source_method: row.try_get("source_method")?,
        source_steward: row.try_get("source_steward")?,
        source_note: row.try_get("source_note")?,
        version: row.try_get("version")?,
        position: row.try_get("position")?,
        updated_at: row.try_get("updated_at")?,
    })
}
