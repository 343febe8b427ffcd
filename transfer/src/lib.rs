//! `basel import` and `basel export`: the directory as JSON or CSV.
//!
//! A file holds Parties and their contacts (the columns are in
//! [`record`]): JSON nests each Party's `contacts`, CSV has one row per
//! contact with the Party's columns repeated (and one row with empty
//! contact columns for a Party without contacts). Export reads the
//! directory projection; import goes through commands, so nothing bypasses
//! the event log, and issues only the commands a row needs ([`plan`]): a
//! row equal to the store appends nothing.
//!
//! CSV cells that a spreadsheet would run as a formula are escaped on
//! export and unescaped on import ([`formula`]).
//!
//! Layout: [`read`] (file → cells), [`check`] (cells → what the file
//! states, every problem listed), [`plan`] and `update` (what each Party
//! needs, decided against a copy of its state), [`run`] (report, write).
//! Everything is checked — the domain's refusals included — before
//! anything is written: one problem and nothing is imported.

pub mod check;
pub mod formula;
pub mod plan;
pub mod read;
pub mod record;
pub mod run;
mod update;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::sync::Notify;

use commands::store::Backend;
use projections::directory::Reader;
use projections::runner::Projector;
use projections::ReadDb;

pub use read::read;
use record::{PartyRecord, CONTACT_COLUMNS, PARTY_COLUMNS};
pub use run::{import, Import};

/// A transfer format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A JSON array of Parties, each with its `contacts`.
    Json,
    /// CSV with a header row, one row per contact.
    Csv,
}

impl Format {
    /// Every format by its name on the command line.
    pub const NAMES: [&'static str; 2] = ["json", "csv"];

    /// The format called `name` (`json`, `csv`).
    ///
    /// # Errors
    /// A message naming the formats when `name` is none of them.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "json" => Ok(Self::Json),
            "csv" => Ok(Self::Csv),
            _ => Err(format!("`{name}` is not a format: use json or csv")),
        }
    }
}

/// What the import/export engine reads and writes through: the event store
/// (every write a command), the read tables (what the store holds now) and
/// how to catch up with the log before reading them.
#[derive(Clone)]
pub struct Stores {
    /// The event store.
    pub backend: Backend,
    /// The read tables.
    pub read_db: ReadDb,
    /// The projections over them.
    pub projector: Projector,
    /// Rung after a local commit so this process's projections apply it now.
    pub wake: Arc<Notify>,
    /// The most contacts a Party may hold (`BASEL_MAX_CONTACTS_PER_PARTY`).
    pub max_contacts: usize,
    /// Whether another process projects the log (server mode with a
    /// JetStream log): then reads wait for its checkpoints instead of
    /// projecting here.
    pub projected_elsewhere: bool,
}

impl Stores {
    /// Brings the read tables up to the log's head: projects what this
    /// process can, or waits (bounded) for the process that projects.
    ///
    /// # Errors
    /// When the checkpoints cannot be read or the projections fail.
    pub async fn catch_up(&self) -> anyhow::Result<()> {
        if self.projected_elsewhere {
            self.projector
                .wait_for_head(Duration::from_secs(2))
                .await
                .context("cannot read the projection checkpoints")?;
            return Ok(());
        }
        self.projector
            .catch_up()
            .await
            .context("projections could not catch up with the log")
    }
}

/// Writes the whole directory to `out`.
///
/// # Errors
/// When projections cannot catch up or the output cannot be written.
pub async fn export(stores: &Stores, format: Format, out: &mut impl Write) -> anyhow::Result<()> {
    stores.catch_up().await?;
    let parties: Vec<PartyRecord> = Reader::new(stores.read_db.clone())
        .all()
        .await?
        .iter()
        .map(|row| PartyRecord::of(&row.state))
        .collect();
    write(&parties, format, out)
}

/// Writes `parties` in `format`.
///
/// # Errors
/// When the output cannot be written.
pub fn write(parties: &[PartyRecord], format: Format, out: &mut impl Write) -> anyhow::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, parties)?;
            writeln!(out)?;
        }
        Format::Csv => {
            let mut writer = csv::Writer::from_writer(out);
            writer.write_record(PARTY_COLUMNS.iter().chain(CONTACT_COLUMNS.iter()))?;
            let safe = |cell: &String| formula::escape(cell).into_owned();
            for party in parties {
                let cells: Vec<String> = party.cells().iter().map(safe).collect();
                if party.contacts.is_empty() {
                    let empty = CONTACT_COLUMNS.map(|_| String::new());
                    writer.write_record(cells.iter().chain(empty.iter()))?;
                }
                for contact in &party.contacts {
                    let contact: Vec<String> = contact.cells().iter().map(safe).collect();
                    writer.write_record(cells.iter().chain(contact.iter()))?;
                }
            }
            writer.flush()?;
        }
    }
    Ok(())
}
