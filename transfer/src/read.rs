//! Reading a transfer file into [`Line`]s: the cells each row states, as
//! text, before any rule is checked. A column that is absent (from the CSV
//! header, or a JSON object's keys) states nothing; a present empty cell (or
//! `null`) states "empty".

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::{bail, Context};
use serde_json::{Map, Value};

use domain::values::CountryCode;

use super::record::{CONTACT_COLUMNS, PARTY_COLUMNS};
use crate::Format;

/// The cells one row states: column → text (`None` when empty or `null`).
///
/// Kept compactly (a file of 200,000 rows holds 5 million cells): the
/// texts one after another in one string, and per stated cell its column
/// and where its text is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cells {
    text: String,
    cells: Vec<Cell>,
}

/// One stated cell: its column (index into the known columns) and its
/// text's place in [`Cells::text`] (`None`: empty or `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cell {
    column: u8,
    span: Option<(u32, u32)>,
}

impl Cells {
    /// What the row states for `column`: `None` when it states nothing,
    /// `Some(None)` when the cell is empty or `null`.
    pub fn get(&self, column: &str) -> Option<Option<&str>> {
        let index = column_index(column)?;
        let cell = self.cells.iter().find(|c| c.column == index)?;
        Some(
            cell.span
                .map(|(start, end)| &self.text[start as usize..end as usize]),
        )
    }

    /// Whether the row states `column` at all.
    pub fn contains_key(&self, column: &str) -> bool {
        self.get(column).is_some()
    }

    /// States `value` for `column` (replacing what was stated); an unknown
    /// column is ignored.
    pub fn insert(&mut self, column: &str, value: Option<&str>) {
        let Some(index) = column_index(column) else {
            return;
        };
        self.cells.retain(|c| c.column != index);
        let span = value.map(|text| {
            let start = self.text.len();
            self.text.push_str(text);
            (offset(start), offset(self.text.len()))
        });
        self.cells.push(Cell {
            column: index,
            span,
        });
    }

    /// States every cell of `other` too (its cells win).
    pub fn extend(&mut self, other: &Cells) {
        for cell in &other.cells {
            let column = ALL_COLUMNS[usize::from(cell.column)];
            let value = cell
                .span
                .map(|(start, end)| &other.text[start as usize..end as usize]);
            self.insert(column, value);
        }
    }
}

/// A text offset within one row's cells (a row is far below 4 GiB: the
/// file is read whole, and cells are bounded by the domain long before).
fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Every known column, Party columns first.
const ALL_COLUMNS: [&str; PARTY_COLUMNS.len() + CONTACT_COLUMNS.len()] = {
    let mut all = [""; PARTY_COLUMNS.len() + CONTACT_COLUMNS.len()];
    let mut i = 0;
    while i < PARTY_COLUMNS.len() {
        all[i] = PARTY_COLUMNS[i];
        i += 1;
    }
    let mut j = 0;
    while j < CONTACT_COLUMNS.len() {
        all[i + j] = CONTACT_COLUMNS[j];
        j += 1;
    }
    all
};

fn column_index(name: &str) -> Option<u8> {
    ALL_COLUMNS
        .iter()
        .position(|c| *c == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// One row of a file: a CSV row, a JSON Party without contacts, one contact
/// of a JSON Party, or a JSON object in the first release's flat shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based: the CSV data row, or the JSON array element.
    pub row: usize,
    /// Where a contact's cells sit within the row (`contacts[1].` in JSON),
    /// put before a field's name in messages.
    pub prefix: String,
    /// What the row states.
    pub cells: Cells,
}

impl Line {
    /// The text of `column`, trimmed, `None` when absent or empty.
    pub fn text(&self, column: &str) -> Option<&str> {
        self.cells
            .get(column)
            .flatten()
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }

    /// Whether the row states `column` at all.
    pub fn states(&self, column: &str) -> bool {
        self.cells.contains_key(column)
    }
}

/// The known column named `name`.
fn column(name: &str) -> Option<&'static str> {
    ALL_COLUMNS.into_iter().find(|c| *c == name)
}

fn all_columns() -> String {
    ALL_COLUMNS.join(", ")
}

/// A file's rows, and the problems found reading them (a row that is not
/// an object, an unknown field…), which [`super::check`] lists with its own.
///
/// A file on disk is not held: reading it notes where each row starts and
/// its country code, and [`Rows::lines`] reads a Party's rows again when it
/// is checked, so an import holds one Party at a time (200,000
/// rows held whole took 358 MiB). Uploads (at most 1 MiB) are held whole.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    held: Held,
    /// `FILE: row N (CC): field: message`, one per problem.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone)]
enum Held {
    /// Every readable line.
    Lines(Vec<Line>),
    /// A CSV file on disk, with its header's columns and where each
    /// readable row starts.
    Csv {
        file: OnDisk,
        header: Vec<&'static str>,
        starts: Vec<Start<csv::Position>>,
    },
    /// A JSON file on disk: for each line, the byte offset of its array
    /// element (at or before its first byte, past the previous element: a
    /// `,` and white space may come first) and its place among the
    /// element's lines.
    Json {
        file: OnDisk,
        starts: Vec<Start<(u64, usize)>>,
    },
}

impl Default for Held {
    fn default() -> Self {
        Self::Lines(Vec::new())
    }
}

/// A file read again a Party at a time: its path and its name in messages.
#[derive(Debug, Clone)]
struct OnDisk {
    path: PathBuf,
    name: String,
}

impl OnDisk {
    fn open(&self) -> anyhow::Result<std::fs::File> {
        std::fs::File::open(&self.path)
            .with_context(|| format!("{}: cannot read the file", self.name))
    }

    fn changed(&self) -> anyhow::Error {
        anyhow::anyhow!("{}: the file changed while it was imported", self.name)
    }
}

/// Where a readable line starts (`at`), its row and its country code.
#[derive(Debug, Clone)]
struct Start<At> {
    row: usize,
    code: Option<CountryCode>,
    at: At,
}

impl<At> Start<At> {
    /// `line`, when it is still the line this start was noted for.
    fn check(&self, line: Line, file: &OnDisk) -> anyhow::Result<Line> {
        if line.row == self.row && code_of(&line) == self.code {
            Ok(line)
        } else {
            Err(file.changed())
        }
    }
}

impl Rows {
    /// Rows held whole.
    pub fn held(lines: Vec<Line>, problems: Vec<String>) -> Self {
        Self {
            held: Held::Lines(lines),
            problems,
        }
    }

    /// The lines of each Party (indices for [`Rows::lines`]), in the order
    /// of their first rows, a Party's later rows found by its code. A line
    /// whose code does not parse is a group of its own (and checking it
    /// names its problem).
    pub fn groups(&self) -> Vec<Vec<usize>> {
        let codes: Vec<Option<CountryCode>> = match &self.held {
            Held::Lines(lines) => lines.iter().map(code_of).collect(),
            Held::Csv { starts, .. } => starts.iter().map(|s| s.code.clone()).collect(),
            Held::Json { starts, .. } => starts.iter().map(|s| s.code.clone()).collect(),
        };
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut index: HashMap<CountryCode, usize> = HashMap::new();
        for (i, code) in codes.into_iter().enumerate() {
            match code {
                Some(code) => match index.entry(code) {
                    Entry::Occupied(at) => groups[*at.get()].push(i),
                    Entry::Vacant(at) => {
                        at.insert(groups.len());
                        groups.push(vec![i]);
                    }
                },
                None => groups.push(vec![i]),
            }
        }
        groups
    }

    /// The lines at `indices` (a group from [`Rows::groups`]), in order;
    /// a file's are read from it again.
    ///
    /// # Errors
    /// When the file cannot be read again, or no longer holds what it held
    /// when it was first read.
    pub fn lines(&self, indices: &[usize]) -> anyhow::Result<Vec<Line>> {
        let mut lines = Vec::with_capacity(indices.len());
        match &self.held {
            Held::Lines(held) => {
                lines.extend(indices.iter().filter_map(|i| held.get(*i).cloned()));
            }
            Held::Csv {
                file,
                header,
                starts,
            } => {
                let mut reader = csv::Reader::from_reader(file.open()?);
                let mut record = csv::StringRecord::new();
                for start in indices.iter().filter_map(|i| starts.get(*i)) {
                    // No seek when the row follows the last one read.
                    reader.seek(start.at.clone()).map_err(|_| file.changed())?;
                    if !matches!(reader.read_record(&mut record), Ok(true)) {
                        return Err(file.changed());
                    }
                    lines.push(start.check(csv_line(header, &record, start.row), file)?);
                }
            }
            Held::Json { file, starts } => {
                let mut reader = std::io::BufReader::new(file.open()?);
                // One element (a Party object) parsed once for its lines.
                let mut element: Option<(u64, Vec<Line>)> = None;
                for start in indices.iter().filter_map(|i| starts.get(*i)) {
                    let (offset, nth) = start.at;
                    if element.as_ref().is_none_or(|(at, _)| *at != offset) {
                        let item =
                            json_element_at(&mut reader, offset).ok_or_else(|| file.changed())?;
                        let found = element_lines(&file.name, start.row, &item, &mut Vec::new());
                        element = Some((offset, found));
                    }
                    let line = element
                        .as_ref()
                        .and_then(|(_, found)| found.get(nth))
                        .ok_or_else(|| file.changed())?;
                    lines.push(start.check(line.clone(), file)?);
                }
            }
        }
        Ok(lines)
    }
}

/// The JSON value of the array element at or after `offset` (past a `,`
/// and white space), read from there; `None` when there is none.
fn json_element_at(reader: &mut std::io::BufReader<std::fs::File>, offset: u64) -> Option<Value> {
    use std::io::{BufRead, Seek, SeekFrom};
    reader.seek(SeekFrom::Start(offset)).ok()?;
    loop {
        let first = *reader.fill_buf().ok()?.first()?;
        if first.is_ascii_whitespace() || first == b',' {
            reader.consume(1);
        } else {
            break;
        }
    }
    serde_json::Deserializer::from_reader(reader)
        .into_iter::<Value>()
        .next()?
        .ok()
}

/// A line's country code, when it states one that parses.
fn code_of(line: &Line) -> Option<CountryCode> {
    line.text("country_code")
        .and_then(|cc| CountryCode::parse(cc).ok())
}

/// Reads a transfer file, format from `format` or the file's extension.
///
/// # Errors
/// Unreadable file, unknown format, a CSV header with unknown columns, or
/// JSON that does not parse (naming the file, and the row where it can).
pub fn read(path: &Path, format: Option<Format>) -> anyhow::Result<Rows> {
    let file = OnDisk {
        path: path.to_owned(),
        name: path.display().to_string(),
    };
    let name = file.name.as_str();
    let Some(format) = format.or_else(|| format_of(path)) else {
        bail!("{name}: cannot tell the format from the extension; pass --format json|csv");
    };
    let mut problems = Vec::new();
    let held = match format {
        Format::Csv => {
            let mut reader = csv::Reader::from_reader(file.open()?);
            let header = check_header(name, &mut reader)?;
            let mut starts = Vec::new();
            let mut record = csv::StringRecord::new();
            for row in 1.. {
                let at = reader.position().clone();
                match next_record(name, &mut reader, &mut record, row, &mut problems)? {
                    Next::End => break,
                    Next::Unreadable => {}
                    Next::Row => {
                        let code = code_of(&csv_line(&header, &record, row));
                        starts.push(Start { row, code, at });
                    }
                }
            }
            Held::Csv {
                file,
                header,
                starts,
            }
        }
        Format::Json => {
            let mut starts = Vec::new();
            json_elements(name, file.open()?, &mut problems, |offset, row, lines| {
                for (nth, line) in lines.iter().enumerate() {
                    let code = code_of(line);
                    starts.push(Start {
                        row,
                        code,
                        at: (offset, nth),
                    });
                }
            })?;
            Held::Json { file, starts }
        }
    };
    Ok(Rows { held, problems })
}

/// Reads the text of a transfer file called `name` (an upload of the
/// steward console, or a file `read` opened) in `format`.
///
/// # Errors
/// As [`read`], once the file is open.
pub fn parse(name: &str, text: &str, format: Format) -> anyhow::Result<Rows> {
    let mut problems = Vec::new();
    let lines = match format {
        Format::Json => {
            let mut all = Vec::new();
            json_elements(name, text.as_bytes(), &mut problems, |_, _, lines| {
                all.extend(lines);
            })?;
            all
        }
        Format::Csv => csv_lines(name, text.as_bytes(), &mut problems)?,
    };
    Ok(Rows::held(lines, problems))
}

fn format_of(path: &Path) -> Option<Format> {
    format_of_name(path.extension()?.to_str()?)
}

/// The format a file extension (`json`, `CSV`) names.
pub fn format_of_name(extension: &str) -> Option<Format> {
    match extension.to_ascii_lowercase().as_str() {
        "json" => Some(Format::Json),
        "csv" => Some(Format::Csv),
        _ => None,
    }
}

fn csv_lines(
    name: &str,
    input: impl Read,
    problems: &mut Vec<String>,
) -> anyhow::Result<Vec<Line>> {
    let mut reader = csv::Reader::from_reader(input);
    let header = check_header(name, &mut reader)?;
    let mut lines = Vec::new();
    let mut record = csv::StringRecord::new();
    for row in 1.. {
        match next_record(name, &mut reader, &mut record, row, problems)? {
            Next::End => break,
            Next::Unreadable => {}
            Next::Row => lines.push(csv_line(&header, &record, row)),
        }
    }
    Ok(lines)
}

/// What [`next_record`] found.
enum Next {
    /// A row, in the record.
    Row,
    /// A row that cannot be read (its problem noted).
    Unreadable,
    /// The end of the file.
    End,
}

/// Reads the next row into `record`; a row that cannot be read is a
/// problem of the file, one the disk refuses an error.
fn next_record(
    name: &str,
    reader: &mut csv::Reader<impl Read>,
    record: &mut csv::StringRecord,
    row: usize,
    problems: &mut Vec<String>,
) -> anyhow::Result<Next> {
    match reader.read_record(record) {
        Ok(true) => Ok(Next::Row),
        Ok(false) => Ok(Next::End),
        Err(e) if e.is_io_error() => bail!("{name}: cannot read the file: {e}"),
        Err(e) => {
            problems.push(format!("{name}: row {row}: {e}"));
            Ok(Next::Unreadable)
        }
    }
}

/// One CSV row's cells, a formula's escaping undone ([`super::formula`]).
fn csv_line(header: &[&'static str], record: &csv::StringRecord, row: usize) -> Line {
    let mut cells = Cells::default();
    for (column, cell) in header.iter().zip(record.iter()) {
        cells.insert(column, Some(super::formula::unescape(cell)));
    }
    Line {
        row,
        prefix: String::new(),
        cells,
    }
}

/// The header's columns; refuses unknown, repeated or missing ones (blaming
/// the header, not the first row).
fn check_header(
    name: &str,
    reader: &mut csv::Reader<impl Read>,
) -> anyhow::Result<Vec<&'static str>> {
    let header = reader
        .headers()
        .with_context(|| format!("{name}: cannot read the header row"))?;
    let unknown: Vec<String> = header
        .iter()
        .filter(|c| column(c.trim()).is_none())
        .map(|c| format!("'{c}'"))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "{name}: the header names unknown column{} {}; the columns are {}",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", "),
            all_columns()
        );
    }
    let columns: Vec<&'static str> = header.iter().filter_map(|c| column(c.trim())).collect();
    for (i, c) in columns.iter().enumerate() {
        if columns[..i].contains(c) {
            bail!("{name}: the header names '{c}' twice");
        }
    }
    for required in ["country_code", "country_name"] {
        if !columns.contains(&required) {
            bail!(
                "{name}: the header lacks '{required}'; the columns are {}",
                all_columns()
            );
        }
    }
    Ok(columns)
}

/// Reads a JSON array of Parties from `input` an element at a time, never
/// whole: `each` gets, per element, where it starts (a byte offset at or
/// before its first byte, past the previous element), its 1-based row and
/// its lines.
///
/// # Errors
/// When `input` is not a JSON array, does not parse (naming the row being
/// read) or cannot be read.
fn json_elements(
    name: &str,
    input: impl Read,
    problems: &mut Vec<String>,
    each: impl FnMut(u64, usize, Vec<Line>),
) -> anyhow::Result<()> {
    use std::io::BufRead;
    let mut input = std::io::BufReader::new(input);
    let mut skipped = 0;
    loop {
        let buffer = input
            .fill_buf()
            .with_context(|| format!("{name}: cannot read the file"))?;
        let blank = buffer
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let first = buffer.get(blank).copied();
        input.consume(blank);
        skipped += blank as u64;
        match first {
            Some(b'[') => break,
            None if blank > 0 => {}
            _ => bail!("{name}: expected a JSON array of records ([{{\"country_code\": …}}, …]), one object per country"),
        }
    }
    let read = Rc::new(std::cell::Cell::new(skipped));
    let row = Rc::new(std::cell::Cell::new(0));
    let counted = Counting {
        inner: input,
        read: Rc::clone(&read),
    };
    let mut parser = serde_json::Deserializer::from_reader(counted);
    let elements = Elements {
        name,
        read,
        row: Rc::clone(&row),
        problems,
        each,
    };
    serde::Deserializer::deserialize_seq(&mut parser, elements)
        .and_then(|()| parser.end())
        .map_err(|e| match row.get() {
            0 => anyhow::anyhow!("{name}: after the last row: {e}"),
            n => anyhow::anyhow!("{name}: row {n}: {e}"),
        })
}

/// A reader that counts the bytes read through it. `serde_json` reads a
/// byte at a time from it (it sits over the buffer), so the count is
/// exactly what the parser has taken.
struct Counting<R> {
    inner: R,
    read: Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// The array's elements, one at a time ([`json_elements`]).
struct Elements<'a, F> {
    name: &'a str,
    read: Rc<std::cell::Cell<u64>>,
    /// The row being read; 0 once the array has ended.
    row: Rc<std::cell::Cell<usize>>,
    problems: &'a mut Vec<String>,
    each: F,
}

impl<'de, F: FnMut(u64, usize, Vec<Line>)> serde::de::Visitor<'de> for Elements<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON array of records, one object per country")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        for row in 1.. {
            let offset = self.read.get();
            self.row.set(row);
            let Some(item) = seq.next_element::<Value>()? else {
                break;
            };
            let lines = element_lines(self.name, row, &item, self.problems);
            (self.each)(offset, row, lines);
        }
        self.row.set(0);
        Ok(())
    }
}

/// The lines of one array element (row `row`): a Party object's own, or
/// one per contact; a problem when it is not an object.
fn element_lines(name: &str, row: usize, item: &Value, problems: &mut Vec<String>) -> Vec<Line> {
    let at = |field: &str, message: &str| {
        let cc = item
            .get("country_code")
            .and_then(Value::as_str)
            .unwrap_or("");
        format!("{name}: row {row} ({cc}): {field}: {message}")
    };
    let mut lines = Vec::new();
    match item.as_object() {
        Some(object) => json_party(row, object, &at, &mut lines, problems),
        None => problems.push(format!(
            "{name}: row {row}: must be an object with country_code, country_name, …"
        )),
    }
    lines
}

/// One Party object: its own cells, then one line per contact (or one line
/// for the Party when it lists none, or its flat first-release shape).
fn json_party(
    row: usize,
    object: &Map<String, Value>,
    at: &dyn Fn(&str, &str) -> String,
    lines: &mut Vec<Line>,
    problems: &mut Vec<String>,
) {
    let nested = object.get("contacts");
    let allowed = nested.is_some().then_some(&PARTY_COLUMNS[..]);
    let party = cells(object, "", allowed, at, problems);
    let Some(contacts) = nested else {
        lines.push(Line {
            row,
            prefix: String::new(),
            cells: party,
        });
        return;
    };
    let Some(contacts) = contacts.as_array() else {
        problems.push(at("contacts", "must be an array of contact objects"));
        return;
    };
    if contacts.is_empty() {
        let mut cells = party.clone();
        cells.insert("contact_id", None);
        lines.push(Line {
            row,
            prefix: String::new(),
            cells,
        });
    }
    for (i, contact) in contacts.iter().enumerate() {
        let prefix = format!("contacts[{i}].");
        let Some(contact) = contact.as_object() else {
            problems.push(at(&format!("contacts[{i}]"), "must be an object"));
            continue;
        };
        let mut all = party.clone();
        all.insert("contact_id", None);
        all.extend(&cells(
            contact,
            &prefix,
            Some(&CONTACT_COLUMNS),
            at,
            problems,
        ));
        lines.push(Line {
            row,
            prefix,
            cells: all,
        });
    }
}

/// The cells of one JSON object; `allowed` lists its columns (`None`: the
/// flat shape, which may hold any column).
fn cells(
    object: &Map<String, Value>,
    prefix: &str,
    allowed: Option<&[&str]>,
    at: &dyn Fn(&str, &str) -> String,
    problems: &mut Vec<String>,
) -> Cells {
    let mut cells = Cells::default();
    for (key, value) in object {
        let field = format!("{prefix}{key}");
        let known = column(key).filter(|c| allowed.is_none_or(|a| a.contains(c)));
        let Some(key) = known else {
            if key != "contacts" {
                problems.push(at(&field, "unknown field"));
            }
            continue;
        };
        match value {
            Value::Null => cells.insert(key, None),
            Value::String(text) => cells.insert(key, Some(text)),
            Value::Bool(flag) => cells.insert(key, Some(if *flag { "true" } else { "false" })),
            // A contact's sources nest in JSON; CSV holds the same JSON text.
            Value::Array(_) if key == "sources" => cells.insert(key, Some(&value.to_string())),
            Value::Number(_) | Value::Array(_) | Value::Object(_) => {
                problems.push(at(&field, "must be text, true, false or null"));
            }
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "country_code,country_name,contact_id,ca_name\n\
                        AF,Afghanistan,c1,Office 1\n\
                        AL,Albania,c1,\"Zyra, \"\"one\"\"\"\n\
                        AF,Afghanistan,c2,'=SUM(1)\n\
                        AF,Afghanistan\n\
                        zz-bad,Nowhere,c1,x\n\
                        AL,Albania,c2,Zyra 2\n";

    fn on_disk(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("file.csv");
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    #[test]
    fn a_csv_file_read_a_party_at_a_time_gives_the_lines_it_would_hold() {
        let (_dir, path) = on_disk(FILE);
        let lazy = read(&path, None).expect("read");
        let name = path.display().to_string();
        let held = parse(&name, FILE, Format::Csv).expect("parse");
        assert_eq!(lazy.problems, held.problems);
        assert_eq!(lazy.problems.len(), 1, "row 4 has too few cells");
        assert!(lazy.problems[0].contains("row 4"), "{:?}", lazy.problems);
        let groups = lazy.groups();
        assert_eq!(groups, held.groups());
        // AF (rows 1, 3), AL (rows 2, 6), and the bad code alone.
        assert_eq!(groups, vec![vec![0, 2], vec![1, 4], vec![3]]);
        for group in &groups {
            assert_eq!(
                lazy.lines(group).expect("lines"),
                held.lines(group).expect("lines")
            );
        }
        let af = lazy.lines(&groups[0]).expect("AF");
        assert_eq!(af[1].row, 3);
        assert_eq!(af[1].text("ca_name"), Some("=SUM(1)"), "escaping undone");
        let al = lazy.lines(&groups[1]).expect("AL");
        assert_eq!(al[0].text("ca_name"), Some("Zyra, \"one\""));
    }

    fn json_file() -> String {
        let parties = serde_json::json!([
            {"country_code": "AF", "country_name": "Afghanistan", "contacts": [
                {"contact_id": "c1", "ca_name": "Office [1], {\"a\"}"},
                {"contact_id": "c2", "ca_name": "Office 2"}]},
            {"country_code": "AL", "country_name": "Albania", "contacts": []},
            "not an object",
            {"country_code": "AF", "country_name": "Afghanistan", "unknown": 1},
            {"country_code": "AL", "country_name": "Albania", "contacts": [
                {"contact_id": "c1", "ca_name": "Zyra, ë"}]},
        ]);
        serde_json::to_string_pretty(&parties).expect("json")
    }

    fn compact(text: &str) -> String {
        let value: Value = serde_json::from_str(text).expect("json");
        value.to_string()
    }

    #[test]
    fn a_json_file_read_a_party_at_a_time_gives_the_lines_it_would_hold() {
        for text in [
            json_file(),
            compact(&json_file()),
            format!("\n\n  {}  \n", json_file()),
        ] {
            let (dir, _) = on_disk("");
            let path = dir.path().join("file.json");
            std::fs::write(&path, &text).expect("write");
            let lazy = read(&path, None).expect("read");
            let name = path.display().to_string();
            let held = parse(&name, &text, Format::Json).expect("parse");
            assert_eq!(lazy.problems, held.problems);
            assert_eq!(lazy.problems.len(), 2, "{:?}", lazy.problems);
            assert!(lazy.problems[0].contains("row 3: must be an object"));
            assert!(lazy.problems[1].contains("row 4 (AF): unknown: unknown field"));
            let groups = lazy.groups();
            assert_eq!(groups, held.groups());
            // AF: row 1's two contacts and row 4; AL: row 2 and row 5.
            assert_eq!(groups, vec![vec![0, 1, 3], vec![2, 4]]);
            for group in &groups {
                assert_eq!(
                    lazy.lines(group).expect("lines"),
                    held.lines(group).expect("lines")
                );
            }
            let af = lazy.lines(&groups[0]).expect("AF");
            assert_eq!(af[0].text("ca_name"), Some("Office [1], {\"a\"}"));
            assert_eq!(af[2].row, 4);
            let al = lazy.lines(&groups[1]).expect("AL");
            assert_eq!(al[1].text("ca_name"), Some("Zyra, ë"));
        }
    }

    #[test]
    fn json_that_does_not_parse_names_the_row_being_read() {
        let text = json_file();
        let broken = text.replacen("\"country_code\": \"AL\"", "\"country_code\" \"AL\"", 1);
        assert_ne!(broken, text);
        let error = parse("f.json", &broken, Format::Json).expect_err("syntax");
        assert!(error.to_string().starts_with("f.json: row 2: "), "{error}");
        let trailing = format!("{text} ]");
        let error = parse("f.json", &trailing, Format::Json).expect_err("trailing");
        assert!(
            error
                .to_string()
                .starts_with("f.json: after the last row: "),
            "{error}"
        );
        for other in ["{}", "", "  ", "\"text\""] {
            let error = parse("f.json", other, Format::Json).expect_err("not an array");
            assert!(
                error.to_string().contains("expected a JSON array"),
                "{other}: {error}"
            );
        }
        let empty = parse("f.json", " [ ] ", Format::Json).expect("an empty array");
        assert!(empty.groups().is_empty());
    }

    #[test]
    fn a_json_file_that_changes_while_it_is_imported_is_refused() {
        let (dir, _) = on_disk("");
        let path = dir.path().join("file.json");
        let text = json_file();
        std::fs::write(&path, &text).expect("write");
        let rows = read(&path, None).expect("read");
        let groups = rows.groups();
        std::fs::write(&path, text.replace("\"AL\"", "\"AD\"")).expect("write");
        let error = rows.lines(&groups[1]).expect_err("AL is AD now");
        assert!(error.to_string().contains("changed while it was imported"));
        std::fs::write(&path, "[]").expect("write");
        assert!(rows.lines(&groups[0]).is_err(), "a shorter file");
    }

    #[test]
    fn a_csv_file_that_changes_while_it_is_imported_is_refused() {
        let (_dir, path) = on_disk(FILE);
        let rows = read(&path, None).expect("read");
        let groups = rows.groups();
        std::fs::write(&path, FILE.replace("AL,Albania,c2", "AF,Albania,c2")).expect("write");
        let error = rows
            .lines(&groups[1])
            .expect_err("AL's second row is AF's now");
        assert!(error.to_string().contains("changed while it was imported"));
        std::fs::write(&path, "country_code,country_name\n").expect("write");
        assert!(rows.lines(&groups[0]).is_err(), "a shorter file");
    }
}
