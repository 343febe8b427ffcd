//! `basel import` and `basel export`: the directory as JSON or CSV.
//!
//! One row per country with the columns `country_code, country_name, ca_name,
//! email, phone, address, notes, verified, last_checked, source` (empty cell
//! or `null` = unknown). Export reads the directory projection; import goes
//! through commands, so nothing bypasses the event log:
//! - a country not in the store is registered with the row's values;
//! - a country already there gets a verification update attributed to the
//!   `--steward`, checked on the row's `last_checked` (required then), with
//!   the row's contact fields as its changes.
//!
//! The whole file is parsed and validated before anything is written: one bad
//! row (unknown column, invalid code, e-mail, phone or date) fails the import
//! with every problem listed by file, row and field, and nothing is imported.
//! Rows refused by the domain while importing (e.g. a check dated before the
//! record's last one) are reported the same way; each row is one command, so
//! a refused row leaves nothing half-written.

use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, bail, Context};
use chrono::{NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use commands::authority::AuthorityCommands;
use commands::CommandError;
use domain::authority::{
    AuthorityError, ContactField, ContactInput, ContactPatch, RegisterAuthority,
    SubmitVerificationUpdate, VerificationMethod,
};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};
use projections::directory::{AuthorityRow, Reader};

use crate::cli::args::Format;
use crate::node::runtime::Runtime;

/// One record in a transfer file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// ISO alpha-2.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// The authority's name.
    #[serde(default)]
    pub ca_name: Option<String>,
    /// Its e-mail.
    #[serde(default)]
    pub email: Option<String>,
    /// Its phone (`+CC-…`).
    #[serde(default)]
    pub phone: Option<String>,
    /// Its address.
    #[serde(default)]
    pub address: Option<String>,
    /// Notes.
    #[serde(default)]
    pub notes: Option<String>,
    /// Whether the record is verified.
    #[serde(default)]
    pub verified: bool,
    /// The last check, `YYYY-MM-DD`.
    #[serde(default)]
    pub last_checked: Option<String>,
    /// What the last check relied on.
    #[serde(default)]
    pub source: Option<String>,
}

impl From<AuthorityRow> for Row {
    fn from(r: AuthorityRow) -> Self {
        Self {
            country_code: r.country_code,
            country_name: r.country_name,
            ca_name: r.ca_name,
            email: r.email,
            phone: r.phone,
            address: r.address,
            notes: r.notes,
            verified: r.verified,
            last_checked: r.last_checked,
            source: r.source,
        }
    }
}

/// Writes the whole directory to `out`.
///
/// # Errors
/// When projections cannot catch up or the output cannot be written.
pub async fn export(runtime: &Runtime, format: Format, out: &mut impl Write) -> anyhow::Result<()> {
    runtime.catch_up().await?;
    let rows: Vec<Row> = Reader::new(runtime.read_db.clone())
        .all()
        .await?
        .into_iter()
        .map(Row::from)
        .collect();
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &rows)?;
            writeln!(out)?;
        }
        Format::Csv => {
            let mut writer = csv::Writer::from_writer(out);
            for row in &rows {
                writer.serialize(row)?;
            }
            writer.flush()?;
        }
    }
    Ok(())
}

/// Reads a transfer file, format from `format` or the file's extension.
///
/// # Errors
/// Unreadable file, unknown format, or rows that do not parse: the message
/// names the file, row and field.
pub fn read(path: &Path, format: Option<Format>) -> anyhow::Result<Vec<Row>> {
    let name = path.display();
    let format = match format.or_else(|| format_of(path)) {
        Some(format) => format,
        None => bail!("{name}: cannot tell the format from the extension; pass --format json|csv"),
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read the file"))?;
    match format {
        Format::Json => {
            if !text.trim_start().starts_with('[') {
                bail!("{name}: expected a JSON array of records ([{{\"country_code\": …}}, …]), one object per country");
            }
            serde_json::from_str(&text)
                .map_err(|e| anyhow!("{name}: row {}: {e}", row_of_json_error(&text, &e)))
        }
        Format::Csv => {
            let mut reader = csv::Reader::from_reader(text.as_bytes());
            check_header(&name.to_string(), &mut reader)?;
            let mut rows = Vec::new();
            for (index, record) in reader.deserialize::<Row>().enumerate() {
                rows.push(record.map_err(|e| anyhow!("{name}: row {}: {e}", index + 1))?);
            }
            Ok(rows)
        }
    }
}

/// The columns a transfer file may have, in export order.
pub const COLUMNS: [&str; 10] = [
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
];

/// Refuses a CSV header naming a column no record has (blaming the header,
/// not the first row).
fn check_header(name: &str, reader: &mut csv::Reader<&[u8]>) -> anyhow::Result<()> {
    let header = reader
        .headers()
        .with_context(|| format!("{name}: cannot read the header row"))?;
    let unknown: Vec<&str> = header
        .iter()
        .filter(|column| !COLUMNS.contains(&column.trim()))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "{name}: the header names unknown column{} {}; the columns are {}",
            if unknown.len() == 1 { "" } else { "s" },
            unknown
                .iter()
                .map(|c| format!("'{c}'"))
                .collect::<Vec<_>>()
                .join(", "),
            COLUMNS.join(", ")
        );
    }
    Ok(())
}

fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "json" => Some(Format::Json),
        "csv" => Some(Format::Csv),
        _ => None,
    }
}

/// The 1-based index of the array element a JSON error points into.
fn row_of_json_error(text: &str, error: &serde_json::Error) -> usize {
    let offset: usize = text
        .lines()
        .take(error.line().saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum::<usize>()
        + error.column();
    text[..offset.min(text.len())]
        .matches("\"country_code\"")
        .count()
        .max(1)
}

/// A row checked and ready to become a command.
struct Checked {
    country: CountryCode,
    contact: ContactInput,
    last_checked: Option<NaiveDate>,
    row: Row,
}

/// Validates every row; all problems are reported together.
fn check(name: &str, rows: Vec<Row>) -> anyhow::Result<Vec<Checked>> {
    let mut problems = Vec::new();
    let mut checked = Vec::new();
    for (index, row) in rows.into_iter().enumerate() {
        let at = |field: &str, message: String| {
            format!(
                "{name}: row {} ({}): {field}: {message}",
                index + 1,
                row.country_code
            )
        };
        let country = CountryCode::parse(&row.country_code)
            .map_err(|e| problems.push(at("country_code", e.to_string())))
            .ok();
        let last_checked = match row
            .last_checked
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            None => None,
            Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|_| {
                    problems.push(at(
                        "last_checked",
                        format!("{text:?} is not a YYYY-MM-DD date"),
                    ))
                })
                .ok(),
        };
        let contact = ContactInput {
            ca_name: row.ca_name.clone(),
            email: row.email.clone(),
            phone: row.phone.clone(),
            address: row.address.clone(),
            notes: row.notes.clone(),
            ..ContactInput::default()
        };
        if let Err(found) = contact.validate() {
            problems.extend(found.into_iter().map(|p| at(&p.field, p.message)));
        }
        if let Some(country) = country {
            checked.push(Checked {
                country,
                contact,
                last_checked,
                row,
            });
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        bail!(
            "{} problem(s), nothing imported:\n{}",
            problems.len(),
            problems.join("\n")
        )
    }
}

/// Imports `rows` read from `name`, attributed to `steward`.
///
/// # Errors
/// When a row is invalid (nothing imported), the steward is unknown or
/// suspended, or rows were refused (the others were imported).
pub async fn import(
    runtime: &Runtime,
    name: &str,
    rows: Vec<Row>,
    steward: &str,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let steward = Slug::parse(steward).map_err(|e| anyhow!("--steward: {e}"))?;
    let rows = check(name, rows)?;
    runtime.catch_up().await?;
    match projections::stewards::by_id(&runtime.read_db, steward.as_str()).await? {
        Some(s) if s.status == "active" => {}
        Some(_) => bail!("--steward: steward {steward} is suspended"),
        None => bail!("--steward: no steward {steward} is enrolled (see `basel steward enrol`)"),
    }
    let commands = AuthorityCommands::new(&runtime.backend);
    let request = uuid::Uuid::new_v4();
    let today = Utc::now().date_naive();
    let (mut registered, mut updated, mut refused) = (0, 0, Vec::new());
    for (index, checked) in rows.into_iter().enumerate() {
        let metadata = Metadata {
            recorded_at: Utc::now(),
            actor: Actor::Steward(steward.clone()),
            request_id: format!("import-{request}-row-{}", index + 1),
        };
        let exists = commands
            .current(&checked.country)
            .await
            .map_err(|e| anyhow!("{e}"))?
            .country
            .is_some();
        let result = if exists {
            update(&commands, &checked, name, &steward, today, &metadata)
                .await
                .map(|_| updated += 1)
        } else {
            register(&commands, &checked, &steward, today, &metadata)
                .await
                .map(|_| registered += 1)
        };
        if let Err(error) = result {
            refused.push(format!(
                "{name}: row {} ({}): {error}",
                index + 1,
                checked.country
            ));
        }
    }
    runtime.wake.notify_one();
    writeln!(
        out,
        "Imported {name}: {registered} registered, {updated} updated, {} refused.",
        refused.len()
    )?;
    if !refused.is_empty() {
        bail!("{} row(s) refused:\n{}", refused.len(), refused.join("\n"));
    }
    Ok(())
}

async fn register(
    commands: &AuthorityCommands,
    checked: &Checked,
    steward: &Slug,
    today: NaiveDate,
    metadata: &Metadata,
) -> Result<(), CommandError<AuthorityError>> {
    let command = RegisterAuthority {
        country: checked.country.clone(),
        country_name: checked.row.country_name.clone(),
        contact: checked.contact.clone(),
        verified: checked.row.verified,
        last_checked: checked.last_checked,
        source: checked.row.source.clone(),
        contacts: Vec::new(),
        steward: Some(steward.clone()),
        today,
    };
    commands.register(command, metadata).await.map(|_| ())
}

async fn update(
    commands: &AuthorityCommands,
    checked: &Checked,
    name: &str,
    steward: &Slug,
    today: NaiveDate,
    metadata: &Metadata,
) -> Result<(), CommandError<AuthorityError>> {
    let Some(checked_on) = checked.last_checked else {
        return Err(CommandError::Rejected(AuthorityError::Invalid(vec![
            domain::authority::FieldProblem::new(
                "last_checked",
                "is required to update a record that already exists",
            ),
        ])));
    };
    let c = &checked.contact;
    let changes = ContactPatch::from([
        (ContactField::CaName, c.ca_name.clone()),
        (ContactField::Email, c.email.clone()),
        (ContactField::Phone, c.phone.clone()),
        (ContactField::Address, c.address.clone()),
        (ContactField::Notes, c.notes.clone()),
    ]);
    let command = SubmitVerificationUpdate {
        contact_id: None,
        outcome: None,
        verified: checked.row.verified,
        checked_on,
        method: VerificationMethod::Other,
        source: checked
            .row
            .source
            .clone()
            .unwrap_or_else(|| format!("import of {name}")),
        note: Some(format!("imported from {name}")),
        changes,
        steward: Some(steward.clone()),
        today,
    };
    commands
        .submit_verification(&checked.country, command, metadata)
        .await
        .map(|_| ())
}
