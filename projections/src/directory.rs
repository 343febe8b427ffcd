//! The authority directory: one row per country, as clients read it.
//!
//! The row keeps the Party's whole state (`state`, the domain's
//! [`Authority`] as JSON: every contact with its scope and provenance), folded
//! with the domain's own `apply`, and beside it the first release's columns,
//! which describe the **primary competent authority** (null when none is
//! known; never a focal point's data).

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use domain::authority::{Authority, AuthorityEvent};
use domain::Aggregate;

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
    /// The Party's whole state: its contacts.
    pub state: Authority,
}

const COLUMNS: &str =
    "country_code, country_name, ca_name, email, phone, address, notes, verified, last_checked, \
    source, source_method, source_steward, source_note, version, position, updated_at, state";

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
        "state",
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
    if current.is_none() && !matches!(decoded, AuthorityEvent::AuthorityRegistered(_)) {
        // The guard lets a non-first event through only after the first.
        return Err(event.undecodable("a change to a record never registered".into()));
    }
    let mut state = current.map(|r| r.state.clone()).unwrap_or_default();
    state.apply(decoded);
    Ok(Some(AuthorityRow::of(
        state,
        event.sequence,
        event.position,
        event.meta("recorded_at"),
    )))
}

impl AuthorityRow {
    /// The row for a Party's state after the event at `version`/`position`:
    /// the first release's columns from the primary competent authority.
    pub fn of(state: Authority, version: i64, position: i64, updated_at: String) -> Self {
        let primary = state.primary_contact();
        let p = primary.map(|c| &c.provenance);
        let text = |v: Option<&domain::values::Email>| v.map(|e| e.as_str().to_owned());
        Self {
            country_code: state
                .country
                .as_ref()
                .map(|c| c.as_str().to_owned())
                .unwrap_or_default(),
            country_name: state.country_name.clone(),
            ca_name: primary.and_then(|c| c.details.ca_name.clone()),
            email: primary.and_then(|c| text(c.details.email.as_ref())),
            phone: primary.and_then(|c| c.details.phone.as_ref().map(|v| v.as_str().to_owned())),
            address: primary.and_then(|c| c.details.address.clone()),
            notes: match primary {
                // Source notes describe the unchecked origin: not shown once verified.
                Some(c) if c.provenance.verified => None,
                Some(c) => c.details.notes.clone(),
                None => state.notes.clone(),
            },
            verified: p.is_some_and(|p| p.verified),
            last_checked: p.and_then(|p| p.last_checked).map(|d| d.to_string()),
            source: match p {
                Some(p) => p.source.clone(),
                None => state.source.clone(),
            },
            source_method: p.and_then(|p| p.method).map(|m| m.as_str().to_owned()),
            source_steward: state.last_steward.as_ref().map(|s| s.as_str().to_owned()),
            source_note: p.and_then(|p| p.steward_note.clone()),
            version,
            position,
            updated_at,
            state,
        }
    }
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
        serde_json::to_string(&row.state).unwrap_or_default().into(),
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

    /// Every record but the retired ones (created in error), sorted by
    /// country code.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn all(&self) -> Result<Vec<AuthorityRow>, ProjectionError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM directory ORDER BY country_code"
        ))
        .fetch_all(&self.db)
        .await?;
        let rows: Vec<AuthorityRow> = rows.iter().map(from_row).collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .filter(|r| r.state.retired.is_none())
            .collect())
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
        state: serde_json::from_str(&row.try_get::<String, _>("state")?)
            .map_err(|e| ProjectionError::Corrupt(format!("directory state: {e}")))?,
    })
}
