//! Writing read rows: one upsert for the live projections, multi-row inserts
//! for a rebuild. Every read column is text or a 64-bit integer, so one SQL
//! text serves SQLite and PostgreSQL.

use sqlx::any::AnyArguments;
use sqlx::query::Query;
use sqlx::Any;

use crate::ProjectionError;

/// One column value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell {
    /// Text or NULL.
    Text(Option<String>),
    /// An integer.
    Int(i64),
}

impl From<String> for Cell {
    fn from(value: String) -> Self {
        Self::Text(Some(value))
    }
}

impl From<&str> for Cell {
    fn from(value: &str) -> Self {
        Self::Text(Some(value.to_owned()))
    }
}

impl From<Option<String>> for Cell {
    fn from(value: Option<String>) -> Self {
        Self::Text(value)
    }
}

impl From<i64> for Cell {
    fn from(value: i64) -> Self {
        Self::Int(value)
    }
}

/// A read table: its name, columns and primary key.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// The table's name.
    pub name: &'static str,
    /// Every column, in the order rows are given.
    pub columns: &'static [&'static str],
    /// The primary-key columns.
    pub key: &'static [&'static str],
}

fn bind<'q>(
    mut query: Query<'q, Any, AnyArguments<'q>>,
    cells: Vec<Cell>,
) -> Query<'q, Any, AnyArguments<'q>> {
    for cell in cells {
        query = match cell {
            Cell::Text(text) => query.bind(text),
            Cell::Int(int) => query.bind(int),
        };
    }
    query
}

/// `($1, $2, …)` for PostgreSQL; `(?, ?, …)` for SQLite, whose driver looks
/// every `$N` up by name on each execution (a cost that grows with the square
/// of the parameter count: 4 000-parameter inserts spent most of a replay there).
fn placeholders(conn: &sqlx::AnyConnection, from: usize, count: usize) -> String {
    let sqlite = conn.backend_name().eq_ignore_ascii_case("sqlite");
    let list: Vec<String> = (from..from + count)
        .map(|i| {
            if sqlite {
                "?".to_owned()
            } else {
                format!("${i}")
            }
        })
        .collect();
    format!("({})", list.join(", "))
}

/// Inserts `row`, or replaces every column of the row with the same key.
pub(crate) async fn upsert(
    conn: &mut sqlx::AnyConnection,
    table: &Table,
    row: Vec<Cell>,
) -> Result<(), ProjectionError> {
    let updates: Vec<String> = table
        .columns
        .iter()
        .filter(|c| !table.key.contains(c))
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    let sql = format!(
        "INSERT INTO {} ({}) VALUES {} ON CONFLICT ({}) DO UPDATE SET {}",
        table.name,
        table.columns.join(", "),
        placeholders(conn, 1, table.columns.len()),
        table.key.join(", "),
        updates.join(", "),
    );
    bind(sqlx::query(&sql), row).execute(conn).await?;
    Ok(())
}

/// Inserts `rows` (into an empty table), many per statement.
pub(crate) async fn insert_many(
    conn: &mut sqlx::AnyConnection,
    table: &Table,
    rows: Vec<Vec<Cell>>,
) -> Result<(), ProjectionError> {
    let width = table.columns.len();
    let per_statement = (4000 / width).max(1);
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let chunk: Vec<Vec<Cell>> = rows.by_ref().take(per_statement).collect();
        let values: Vec<String> = (0..chunk.len())
            .map(|i| placeholders(conn, i * width + 1, width))
            .collect();
        let sql = format!(
            "INSERT INTO {} ({}) VALUES {}",
            table.name,
            table.columns.join(", "),
            values.join(", ")
        );
        bind(sqlx::query(&sql), chunk.into_iter().flatten().collect())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
