//! Replay and verification: rebuild every projection from the log into
//! scratch tables and compare them, row by row, with the live tables.
//!
//! The rebuild folds the whole log in memory with the same pure `fold`
//! functions the live projections use, then writes each scratch table with
//! multi-row inserts; so it is fast, and it exercises the same rules.
//!
//! Scratch tables live beside the live ones but never touch them: on
//! PostgreSQL in a fresh schema (`basel_replay_<random>`, tables created
//! `LIKE` the live ones), on SQLite in a temporary database file with the
//! live tables' DDL. Both are removed afterwards.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use async_nats::jetstream::consumer::pull;
use futures::StreamExt;
use sha2::{Digest, Sha256};
use sqlx::any::AnyRow;
use sqlx::{Column, Row};

use crate::directory::AuthorityRow;
use crate::log::{read_after, StoredEvent};
use crate::registry::{AggregateKind, Projection};
use crate::rows::{insert_many, Cell, Table};
use crate::stewards::StoredSteward;
use crate::stream::{decode, LogSource};
use crate::{api_keys, directory, history, stewards, ProjectionError, ReadDb};

/// Where a replay reads the log.
pub enum Source<'a> {
    /// The events table (embedded mode).
    Table(&'a ReadDb),
    /// The JetStream stream (server mode).
    Stream(&'a LogSource),
}

/// Every projection rebuilt in memory: what [`Projection::fold`] folds into.
#[derive(Default)]
pub struct Rebuilt {
    pub(crate) directory: BTreeMap<String, AuthorityRow>,
    pub(crate) history: Vec<Vec<Cell>>,
    pub(crate) history_last: HashMap<String, i64>,
    pub(crate) keys: BTreeMap<String, (Option<i64>, Vec<api_keys::KeyRow>)>,
    pub(crate) stewards: BTreeMap<String, StoredSteward>,
    /// The last position applied by each projection.
    pub positions: BTreeMap<&'static str, i64>,
    /// How many events were read.
    pub events: usize,
}

impl Rebuilt {
    /// Applies one event to every projection that reads its aggregate.
    ///
    /// # Errors
    /// Decode (including an unknown aggregate type) or gap errors: a complete
    /// log has neither.
    pub fn apply(&mut self, event: &StoredEvent) -> Result<(), ProjectionError> {
        self.events += 1;
        let kind = AggregateKind::of(event)?;
        for projection in Projection::ALL.into_iter().filter(|p| p.reads() == kind) {
            self.fold(projection, event)?;
            self.positions.insert(projection.name(), event.position);
        }
        Ok(())
    }

    /// Writes every rebuilt table into `db` (whose tables are empty).
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn write(mut self, db: &ReadDb) -> Result<(), ProjectionError> {
        let mut tx = db.begin().await?;
        for projection in Projection::ALL {
            for (table, rows) in self.take_rows(projection) {
                insert_many(&mut tx, &table, rows).await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    /// Takes `projection`'s rebuilt rows out: for each of its tables (read
    /// table first, then bookkeeping), the rows to insert.
    fn take_rows(&mut self, projection: Projection) -> Vec<(Table, Vec<Vec<Cell>>)> {
        let table = projection.table();
        match projection {
            Projection::Directory => {
                let rows = std::mem::take(&mut self.directory);
                vec![(table, rows.into_values().map(directory::cells).collect())]
            }
            Projection::History => vec![(table, std::mem::take(&mut self.history))],
            Projection::ApiKeys => {
                let mut key_rows = Vec::new();
                let mut versions = Vec::new();
                for (key_id, (version, rows)) in std::mem::take(&mut self.keys) {
                    key_rows.extend(rows.into_iter().map(api_keys::cells));
                    if let Some(version) = version {
                        versions.push(vec![
                            Cell::from(projection.name()),
                            Cell::from(key_id),
                            Cell::from(version),
                        ]);
                    }
                }
                vec![(table, key_rows), (api_keys::VERSIONS, versions)]
            }
            Projection::Stewards => {
                let rows = std::mem::take(&mut self.stewards);
                vec![(table, rows.into_values().map(stewards::cells).collect())]
            }
        }
    }

    /// Folds one event into `projection`'s in-memory rebuild,
    /// with the same pure `fold` the live [`Projection::apply`] uses.
    ///
    /// # Errors
    /// Decode or gap errors.
    fn fold(&mut self, projection: Projection, event: &StoredEvent) -> Result<(), ProjectionError> {
        let rebuilt = self;
        let id = &event.aggregate_id;
        match projection {
            Projection::Directory => {
                if let Some(row) = directory::fold(rebuilt.directory.get(id), event)? {
                    rebuilt.directory.insert(id.clone(), row);
                }
            }
            Projection::History => {
                let last = rebuilt.history_last.get(id).copied();
                if let Some(row) = history::fold(last, event)? {
                    rebuilt.history_last.insert(id.clone(), event.sequence);
                    rebuilt.history.push(row);
                }
            }
            Projection::ApiKeys => {
                let (version, rows) = rebuilt.keys.entry(id.clone()).or_default();
                if api_keys::fold(*version, rows, event)? {
                    *version = Some(event.sequence);
                }
            }
            Projection::Stewards => {
                if let Some(next) = stewards::fold(rebuilt.stewards.get(id), event)? {
                    rebuilt.stewards.insert(id.clone(), next);
                }
            }
        }
        Ok(())
    }
}

/// What a rebuild read and how long it took.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Events read from the log.
    pub events: usize,
    /// Reading and folding.
    pub fold: Duration,
    /// Writing the scratch tables.
    pub write: Duration,
}

/// Reads the whole log from `source` and folds it.
///
/// # Errors
/// Decode, gap, database or NATS failures.
pub async fn fold_log(source: Source<'_>) -> Result<Rebuilt, ProjectionError> {
    let mut rebuilt = Rebuilt::default();
    match source {
        Source::Table(db) => {
            let mut after = 0;
            loop {
                let events = read_after(db, after, 5_000).await?;
                let Some(last) = events.last() else { break };
                after = last.position;
                for event in &events {
                    rebuilt.apply(event)?;
                }
            }
        }
        Source::Stream(source) => {
            let nats = |e: &dyn std::fmt::Display| ProjectionError::Log(e.to_string());
            let mut stream = source
                .context
                .get_stream(&source.stream)
                .await
                .map_err(|e| nats(&e))?;
            let last = stream
                .info()
                .await
                .map_err(|e| nats(&e))?
                .state
                .last_sequence;
            if last == 0 {
                return Ok(rebuilt);
            }
            let consumer = stream
                .create_consumer(pull::OrderedConfig {
                    filter_subject: format!("{}.>", source.subject_prefix),
                    ..pull::OrderedConfig::default()
                })
                .await
                .map_err(|e| nats(&e))?;
            let mut messages = consumer.messages().await.map_err(|e| nats(&e))?;
            while let Some(message) = messages.next().await {
                let message = message.map_err(|e| nats(&e))?;
                let sequence = message.info().map(|i| i.stream_sequence).unwrap_or(last);
                let event = decode(&message).map_err(|reason| {
                    ProjectionError::Log(format!(
                        "message on subject {} at stream sequence {sequence} does not decode: {reason}",
                        message.subject
                    ))
                })?;
                rebuilt.apply(&event)?;
                if sequence >= last {
                    break;
                }
            }
        }
    }
    Ok(rebuilt)
}

/// Rebuilds every projection from `source` into `scratch`.
///
/// # Errors
/// As [`fold_log`] and [`Rebuilt::write`].
pub async fn rebuild(
    source: Source<'_>,
    scratch: &ReadDb,
) -> Result<(Timing, BTreeMap<&'static str, i64>), ProjectionError> {
    let started = Instant::now();
    let rebuilt = fold_log(source).await?;
    let fold = started.elapsed();
    let events = rebuilt.events;
    let positions = rebuilt.positions.clone();
    let started = Instant::now();
    rebuilt.write(scratch).await?;
    Ok((
        Timing {
            events,
            fold,
            write: started.elapsed(),
        },
        positions,
    ))
}

/// Scratch copies of the read tables, removed by [`Scratch::drop_all`].
pub struct Scratch {
    /// The database holding the scratch tables (its default schema is theirs).
    pub db: ReadDb,
    live: ReadDb,
    schema: Option<String>,
    _dir: Option<tempfile::TempDir>,
}

impl Scratch {
    /// Creates empty scratch tables shaped like the live ones of `live`
    /// (reached at `url`).
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn create(live: &ReadDb, url: &str) -> Result<Self, ProjectionError> {
        let mut names: Vec<&'static str> = Vec::new();
        for projection in Projection::ALL {
            for table in
                std::iter::once(projection.table()).chain(projection.bookkeeping().iter().copied())
            {
                if !names.contains(&table.name) {
                    names.push(table.name);
                }
            }
        }
        if url.starts_with("postgres") {
            let schema = format!("basel_replay_{}", uuid::Uuid::new_v4().simple());
            let live_schema: String = sqlx::query_scalar("SELECT CAST(current_schema() AS TEXT)")
                .fetch_one(live)
                .await?;
            sqlx::query(&format!("CREATE SCHEMA {schema}"))
                .execute(live)
                .await?;
            for table in names {
                sqlx::query(&format!(
                    "CREATE TABLE {schema}.{table} (LIKE {live_schema}.{table} INCLUDING ALL)"
                ))
                .execute(live)
                .await?;
            }
            let path = schema.clone();
            let db = sqlx::any::AnyPoolOptions::new()
                .max_connections(2)
                .after_connect(move |conn, _| {
                    let sql = format!("SET search_path TO {path}");
                    Box::pin(async move {
                        sqlx::Executor::execute(conn, sql.as_str()).await?;
                        Ok(())
                    })
                })
                .connect(url)
                .await?;
            Ok(Self {
                db,
                live: live.clone(),
                schema: Some(schema),
                _dir: None,
            })
        } else {
            let dir = tempfile::tempdir().map_err(|e| ProjectionError::Log(e.to_string()))?;
            let db = crate::connect(&format!(
                "sqlite://{}?mode=rwc",
                dir.path().join("scratch.db").display()
            ))
            .await?;
            for table in names {
                let ddl: String = sqlx::query_scalar(
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = $1",
                )
                .bind(table)
                .fetch_one(live)
                .await?;
                sqlx::query(&ddl).execute(&db).await?;
            }
            Ok(Self {
                db,
                live: live.clone(),
                schema: None,
                _dir: Some(dir),
            })
        }
    }

    /// Removes the scratch tables.
    ///
    /// # Errors
    /// [`ProjectionError::Database`] on failure.
    pub async fn drop_all(self) -> Result<(), ProjectionError> {
        self.db.close().await;
        if let Some(schema) = &self.schema {
            sqlx::query(&format!("DROP SCHEMA {schema} CASCADE"))
                .execute(&self.live)
                .await?;
        }
        Ok(())
    }
}

/// How one projection's live table compares with its rebuild.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// The projection.
    pub projection: &'static str,
    /// The table.
    pub table: &'static str,
    /// Rows in the live table.
    pub live_rows: usize,
    /// Rows in the rebuilt table.
    pub rebuilt_rows: usize,
    /// SHA-256 over the live table's rows in key order.
    pub live_checksum: String,
    /// The same over the rebuilt table.
    pub rebuilt_checksum: String,
    /// Keys whose rows differ or exist on one side only.
    pub differing: Vec<String>,
}

impl Comparison {
    /// Whether the tables are identical.
    pub fn matches(&self) -> bool {
        self.live_checksum == self.rebuilt_checksum
    }
}

/// Compares every live table with its scratch copy.
///
/// # Errors
/// [`ProjectionError::Database`] on failure.
pub async fn compare(live: &ReadDb, scratch: &ReadDb) -> Result<Vec<Comparison>, ProjectionError> {
    let mut out = Vec::new();
    for projection in Projection::ALL {
        let table = projection.table();
        let live_rows = digest_rows(live, &table).await?;
        let rebuilt_rows = digest_rows(scratch, &table).await?;
        let mut differing: Vec<String> = live_rows
            .iter()
            .filter(|(key, digest)| rebuilt_rows.get(*key) != Some(digest))
            .map(|(key, _)| key.clone())
            .chain(
                rebuilt_rows
                    .keys()
                    .filter(|key| !live_rows.contains_key(*key))
                    .cloned(),
            )
            .collect();
        differing.sort();
        out.push(Comparison {
            projection: projection.name(),
            table: table.name,
            live_checksum: checksum(&live_rows),
            rebuilt_checksum: checksum(&rebuilt_rows),
            live_rows: live_rows.len(),
            rebuilt_rows: rebuilt_rows.len(),
            differing,
        });
    }
    Ok(out)
}

fn checksum(rows: &BTreeMap<String, String>) -> String {
    let mut hasher = Sha256::new();
    for (key, digest) in rows {
        hasher.update(key.as_bytes());
        hasher.update([0x1e]);
        hasher.update(digest.as_bytes());
        hasher.update([0x1f]);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Each row of `table`: its key (`/`-joined) → a digest of every column.
async fn digest_rows(
    db: &ReadDb,
    table: &Table,
) -> Result<BTreeMap<String, String>, ProjectionError> {
    let sql = format!(
        "SELECT {} FROM {} ORDER BY {}",
        table.columns.join(", "),
        table.name,
        table.key.join(", ")
    );
    let rows = sqlx::query(&sql).fetch_all(db).await?;
    let mut out = BTreeMap::new();
    for row in &rows {
        let key: Vec<String> = table
            .key
            .iter()
            .map(|c| cell_text(row, c))
            .collect::<Result<_, _>>()?;
        let mut hasher = Sha256::new();
        for column in row.columns() {
            hasher.update(cell_text(row, column.name())?.as_bytes());
            hasher.update([0x1f]);
        }
        out.insert(key.join("/"), hex(&hasher.finalize()));
    }
    Ok(out)
}

/// One cell as text: the value, or `\0NULL` for NULL.
fn cell_text(row: &AnyRow, column: &str) -> Result<String, ProjectionError> {
    if let Ok(text) = row.try_get::<Option<String>, _>(column) {
        return Ok(text.unwrap_or_else(|| "\0NULL".into()));
    }
    let int: Option<i64> = row.try_get(column)?;
    Ok(int.map_or_else(|| "\0NULL".into(), |i| i.to_string()))
}
