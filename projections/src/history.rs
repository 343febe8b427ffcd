//! The authority history: one row per event, for auditors.

use crate::views::HistoryItem;
use serde_json::{json, Value};
use sqlx::{Any, Row, Transaction};

use domain::authority::AuthorityEvent;
use domain::Aggregate;

use chrono::{DateTime, Utc};

use crate::directory::AuthorityRow;
use crate::log::StoredEvent;
use crate::rows::{upsert, Cell, Table};
use crate::sequence::{guard, Guard};
use crate::{ProjectionError, ReadDb};

/// The projection's name.
pub const NAME: &str = "history";

/// One entry of a record's history.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HistoryRow {
    /// The event's sequence within the country's record.
    pub sequence: i64,
    /// `AuthorityRegistered`, `ContactDetailsChanged` or `VerificationRecorded`.
    pub event_type: String,
    /// When it was recorded (RFC 3339).
    pub recorded_at: String,
    /// Who caused it (`steward:<id>`, `system:seed`, …).
    pub actor: String,
    /// The request that carried it.
    pub request_id: String,
    /// Its log position.
    pub position: i64,
    /// The change or verification it recorded.
    pub details: Value,
}

/// The history table.
pub const TABLE: Table = Table {
    name: "authority_history",
    columns: &[
        "country_code",
        "sequence",
        "event_type",
        "recorded_at",
        "actor",
        "request_id",
        "position",
        "details",
    ],
    key: &["country_code", "sequence"],
};

/// The history row `event` adds, given the country's last recorded sequence:
/// `None` when it was recorded already.
///
/// # Errors
/// Decode or gap errors.
pub(crate) fn fold(
    last: Option<i64>,
    event: &StoredEvent,
) -> Result<Option<Vec<Cell>>, ProjectionError> {
    let decoded = event.decode::<AuthorityEvent>()?;
    if let Guard::Skip = guard(last, event)? {
        return Ok(None);
    }
    // The event as read today (first-release events upcast): its own fields.
    let details = match serde_json::to_value(&decoded) {
        Ok(Value::Object(mut tagged)) => tagged.remove(&event.event_type).unwrap_or(Value::Null),
        Ok(_) | Err(_) => return Err(event.undecodable("the event does not serialise".into())),
    };
    Ok(Some(vec![
        event.aggregate_id.clone().into(),
        event.sequence.into(),
        event.event_type.clone().into(),
        event.meta("recorded_at").into(),
        event.meta("actor").into(),
        event.meta("request_id").into(),
        event.position.into(),
        details.to_string().into(),
    ]))
}

/// Applies one authority event; applying it twice changes nothing.
///
/// # Errors
/// Decode, gap or database errors.
pub async fn apply(
    tx: &mut Transaction<'_, Any>,
    event: &StoredEvent,
) -> Result<(), ProjectionError> {
    let last: Option<i64> =
        sqlx::query_scalar("SELECT MAX(sequence) FROM authority_history WHERE country_code = $1")
            .bind(&event.aggregate_id)
            .fetch_one(&mut **tx)
            .await?;
    if let Some(row) = fold(last, event)? {
        upsert(tx, &TABLE, row).await?;
    }
    Ok(())
}

const COLUMNS: &str =
    "country_code, sequence, event_type, recorded_at, actor, request_id, position, details";

/// A country's history, oldest first.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn of(db: &ReadDb, code: &str) -> Result<Vec<HistoryRow>, ProjectionError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM authority_history WHERE country_code = $1 ORDER BY sequence"
    ))
    .bind(code)
    .fetch_all(db)
    .await?;
    rows.iter().map(|row| Ok(from_row(row)?.1)).collect()
}

/// Entries on a history page unless the client asks for fewer or more.
pub const DEFAULT_PAGE_LIMIT: i64 = 100;
/// The most entries a history page holds.
pub const MAX_PAGE_LIMIT: i64 = 1000;

/// One page of a country's history for clients: the entries after sequence
/// `after`, oldest first, at most `limit`, and whether more follow.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn page(
    db: &ReadDb,
    code: &str,
    after: i64,
    limit: i64,
) -> Result<(Vec<HistoryItem>, bool), ProjectionError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM authority_history WHERE country_code = $1 AND sequence > $2 \
         ORDER BY sequence LIMIT $3"
    ))
    .bind(code)
    .bind(after)
    .bind(limit.saturating_add(1))
    .fetch_all(db)
    .await?;
    let mut rows: Vec<HistoryRow> = rows
        .iter()
        .map(|row| Ok(from_row(row)?.1))
        .collect::<Result<_, ProjectionError>>()?;
    let more = rows.len() as i64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    Ok((named(db, &rows).await?, more))
}

/// Whether a country has any history (a registered record).
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn exists(db: &ReadDb, code: &str) -> Result<bool, ProjectionError> {
    Ok(first_recorded(db, code).await?.is_some())
}

/// A country's history for clients, oldest first: each entry flattened, with
/// the steward shown by id and name (never e-mail).
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn items(db: &ReadDb, code: &str) -> Result<Vec<HistoryItem>, ProjectionError> {
    named(db, &of(db, code).await?).await
}

/// `rows` for clients, each steward named.
async fn named(db: &ReadDb, rows: &[HistoryRow]) -> Result<Vec<HistoryItem>, ProjectionError> {
    let mut names = std::collections::HashMap::new();
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        let name = match row.details.get("steward").and_then(Value::as_str) {
            Some(id) => {
                if !names.contains_key(id) {
                    let found = crate::stewards::by_id(db, id).await?.map(|s| s.name);
                    names.insert(id.to_owned(), found);
                }
                names.get(id).cloned().flatten()
            }
            None => None,
        };
        items.push(crate::views::history_item(row, name.as_deref()));
    }
    Ok(items)
}

/// Directory changes across every country after log position `after`, in log
/// order, at most `limit`: each a history entry with its `country_code`.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn after(
    db: &ReadDb,
    after: i64,
    limit: i64,
) -> Result<Vec<HistoryItem>, ProjectionError> {
    let rows = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM authority_history WHERE position > $1 ORDER BY position LIMIT $2"
    ))
    .bind(after)
    .bind(limit)
    .fetch_all(db)
    .await?;
    rows.iter()
        .map(|row| {
            let (code, row) = from_row(row)?;
            let mut item = crate::views::history_item(&row, None);
            item.country_code = Some(code);
            Ok(item)
        })
        .collect()
}

/// When a country's first event was recorded (RFC 3339), if it has any.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn first_recorded(db: &ReadDb, code: &str) -> Result<Option<String>, ProjectionError> {
    Ok(sqlx::query_scalar(
        "SELECT recorded_at FROM authority_history WHERE country_code = $1 ORDER BY sequence LIMIT 1",
    )
    .bind(code)
    .fetch_optional(db)
    .await?)
}

/// A country's record as it stood at `at`, rebuilt from its history; `None`
/// when it was not registered yet (or never).
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn directory_as_of(
    db: &ReadDb,
    code: &str,
    at: DateTime<Utc>,
) -> Result<Option<AuthorityRow>, ProjectionError> {
    let mut record: Option<AuthorityRow> = None;
    for row in of(db, code).await? {
        let recorded = DateTime::parse_from_rfc3339(&row.recorded_at)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| {
                ProjectionError::Corrupt(format!("recorded_at of {code}#{}: {e}", row.sequence))
            })?;
        if recorded > at {
            break;
        }
        replay_entry(&mut record, code, &row);
    }
    Ok(record)
}

/// Applies one history entry to the record being rebuilt: the entry holds
/// the event as read today, so the domain's own `apply` folds it.
fn replay_entry(record: &mut Option<AuthorityRow>, code: &str, row: &HistoryRow) {
    let Ok(event) = serde_json::from_value::<AuthorityEvent>(
        json!({ row.event_type.as_str(): row.details.clone() }),
    ) else {
        return;
    };
    if record.is_none() && !matches!(event, AuthorityEvent::AuthorityRegistered(_)) {
        return;
    }
    let mut state = record.take().map(|r| r.state).unwrap_or_default();
    state.apply(event);
    let mut rebuilt = AuthorityRow::of(state, row.sequence, row.position, row.recorded_at.clone());
    if rebuilt.country_code.is_empty() {
        code.clone_into(&mut rebuilt.country_code);
    }
    *record = Some(rebuilt);
}

fn from_row(row: &sqlx::any::AnyRow) -> Result<(String, HistoryRow), ProjectionError> {
    let details: String = row.try_get("details")?;
    Ok((
        row.try_get("country_code")?,
        HistoryRow {
            sequence: row.try_get("sequence")?,
            event_type: row.try_get("event_type")?,
            recorded_at: row.try_get("recorded_at")?,
            actor: row.try_get("actor")?,
            request_id: row.try_get("request_id")?,
            position: row.try_get("position")?,
            details: serde_json::from_str(&details).unwrap_or(Value::Null),
        },
    ))
}
