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

use projections::directory::Reader;

use crate::cli::args::Format;
use crate::node::runtime::Runtime;
pub use read::read;
use record::{PartyRecord, CONTACT_COLUMNS, PARTY_COLUMNS};
pub use run::{import, Import};

/// Writes the whole directory to `out`.
///
/// # Errors
/// When projections cannot catch up or the output cannot be written.
pub async fn export(runtime: &Runtime, format: Format, out: &mut impl Write) -> anyhow::Result<()> {
    runtime.catch_up().await?;
    let parties: Vec<PartyRecord> = Reader::new(runtime.read_db.clone())
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
