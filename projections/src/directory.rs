//! The authority directory: one row per country, as clients read it.

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use domain::authority::{AuthorityEvent, ContactField};

use crate::log::StoredEvent;
use crate::rows::{upsert, Cell, Table};
use crate::sequence::{guard, Guard};
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

/// The directory table.
pub const TABLE: Table = Table {
    name: "directory",
    columns: &[
        "country_code",
        "country_name",
        "ca_name",
        "email",
        "phone",
        "address",
        "notes",
        "verified",
        "last_checked",
        "source",
        "source_method",
        "source_steward",
        "source_note",
        "version",
        "position",
        "updated_at",
    ],
    key: &["country_code"],
};

/// The row after `event`, given the row before it: `None` when the event was
/// applied already (a duplicate).
///
/// # Errors
/// Decode or gap errors.
pub fn fold(
    current: Option<&AuthorityRow>,
    event: &StoredEvent,
) -> Result<Option<AuthorityRow>, ProjectionError> {
    let decoded: AuthorityEvent = event.decode()?;
    if let Guard::Skip = guard(current.map(|r| r.version), event)? {
        return Ok(None);
    }
    let updated_at = event.meta("recorded_at");
    let mut row = match (decoded, current) {
        (AuthorityEvent::AuthorityRegistered(e), _) => {
            let c = e.contact;
            AuthorityRow {
                country_code: e.country.as_str().to_owned(),
                country_name: e.country_name,
                ca_name: c.ca_name,
                email: c.email.map(|v| v.as_str().to_owned()),
                phone: c.phone.map(|v| v.as_str().to_owned()),
                address: c.address,
                notes: c.notes,
                verified: e.verified,
                last_checked: e.last_checked.map(|d| d.to_string()),
                source: e.source,
                source_method: None,
                source_steward: None,
                source_note: None,
                version: 0,
                position: 0,
                updated_at: String::new(),
            }
        }
        (AuthorityEvent::ContactDetailsChanged(e), Some(current)) => {
            let mut row = current.clone();
            for change in e.changes {
                let slot = match change.field {
                    ContactField::CaName => &mut row.ca_name,
                    ContactField::Email => &mut row.email,
                    ContactField::Phone => &mut row.phone,
                    ContactField::Address => &mut row.address,
                    ContactField::Notes => &mut row.notes,
                };
                *slot = change.new;
            }
            row
        }
        (AuthorityEvent::VerificationRecorded(e), Some(current)) => AuthorityRow {
            verified: e.verified,
            last_checked: Some(e.checked_on.to_string()),
            source: Some(e.source),
            source_method: Some(e.method.as_str().to_owned()),
            source_steward: e.steward.map(|s| s.as_str().to_owned()),
            source_note: e.note,
            ..current.clone()
        },
        // The guard lets a non-first event through only after the first.
        (_, None) => return Err(event.undecodable("a change to a record never registered".into())),
    };
    row.version = event.sequence;
    row.position = event.position;
    row.updated_at = updated_at;
    Ok(Some(row))
}

/// The row's cells in [`TABLE`] column order.
pub(crate) fn cells(row: AuthorityRow) -> Vec<Cell> {
    vec![
        row.country_code.into(),
        row.country_name.into(),
        row.ca_name.into(),
        row.email.into(),
        row.phone.into(),
        row.address.into(),
        row.notes.into(),
        i64::from(row.verified).into(),
        row.last_checked.into(),
        row.source.into(),
        row.source_method.into(),
        row.source_steward.into(),
        row.source_note.into(),
        row.version.into(),
        row.position.into(),
        row.updated_at.into(),
    ]
}

/// Applies one authority event.
///
/// # Errors
/// Decode, gap or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let current = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM directory WHERE country_code = $1"
    ))
    .bind(&event.aggregate_id)
    .fetch_optional(&mut **tx)
    .await?
    .as_ref()
    .map(from_row)
    .transpose()?;
    if let Some(row) = fold(current.as_ref(), event)? {
        upsert(tx, &TABLE, cells(row)).await?;
    }
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

/// Codes of the records whose last applied event lies in `(after, upto]`,
/// in log order.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn changed_between(
    db: &ReadDb,
    after: i64,
    upto: i64,
) -> Result<Vec<String>, ProjectionError> {
    Ok(sqlx::query_scalar(
        "SELECT country_code FROM directory WHERE position > $1 AND position <= $2 ORDER BY position",
    )
    .bind(after)
    .bind(upto)
    .fetch_all(db)
    .await?)
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
