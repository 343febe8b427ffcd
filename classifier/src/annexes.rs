//! The official entries: Y-codes (Annexes I and II), H-codes (Annex III),
//! A-codes (Annex VIII) and B-codes (Annex IX), parsed from the embedded
//! reference JSON in `classifier/data/`. Deleted entries are kept for
//! [`lookup`](super::Classifier::lookup) only.

use std::borrow::Cow;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::KnowledgeBaseError;

const ANNEX_I_II: &str = include_str!("../data/basel_annex_i_ii.json");
const ANNEX_III: &str = include_str!("../data/basel_annex_iii.json");
const ANNEX_VIII: &str = include_str!("../data/basel_annex_viii.json");
const ANNEX_IX: &str = include_str!("../data/basel_annex_ix.json");

/// Whether an entry can appear in a classification.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodeStatus {
    /// In force on 2025-01-01.
    InForce,
    /// Deleted (or never adopted); never returned by `classify`.
    Deleted,
}

/// What the knowledge base knows about one code (the answer of a code
/// lookup).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct CodeInfo {
    /// The code in canonical case, e.g. `"A1160"`, `"H4.1"`.
    pub code: String,
    /// The official title (first clause where the entry is long).
    pub name: String,
    /// The annex: `"I"`, `"II"`, `"III"`, `"VIII"` or `"IX"`.
    pub annex: String,
    /// `in_force` or `deleted`.
    pub status: CodeStatus,
    /// For deleted entries, the entries that replace them, if any.
    pub replaced_by: Option<Vec<String>>,
    /// Status notes: UN class, sub-items, the date of a deletion.
    pub note: Option<String>,
}

#[derive(Deserialize)]
struct AnnexFile {
    entries: Vec<RawEntry>,
    #[serde(default)]
    deleted_or_not_in_force: Vec<RawEntry>,
}

#[derive(Deserialize)]
struct RawEntry {
    code: String,
    title: String,
    #[serde(default)]
    annex: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    un_class: Option<String>,
    #[serde(default)]
    sub_items: Vec<String>,
    #[serde(default)]
    replaced_by: Option<serde_json::Value>,
    #[serde(default)]
    deleted_effective: Option<String>,
}

/// Every official code, keyed by upper-case code.
#[derive(Debug, Clone)]
pub struct Annexes {
    codes: FxHashMap<String, CodeInfo>,
    quotes: FxHashMap<String, String>,
    /// Lower-case official text (title and sub-items) per code.
    texts: FxHashMap<String, String>,
}

/// The embedded annexes, parsed once per process: every classifier reads
/// the same official text, and results borrow their codes, titles and
/// quotes from it instead of copying them.
static BUNDLED: OnceLock<Result<Annexes, KnowledgeBaseError>> = OnceLock::new();

impl Annexes {
    /// The four embedded annex files, parsed (once per process).
    ///
    /// # Errors
    /// [`KnowledgeBaseError::Parse`] when a file does not have the expected shape.
    pub fn bundled() -> Result<&'static Self, KnowledgeBaseError> {
        BUNDLED
            .get_or_init(Self::parse)
            .as_ref()
            .map_err(Clone::clone)
    }

    fn parse() -> Result<Self, KnowledgeBaseError> {
        let mut codes: FxHashMap<String, CodeInfo> = FxHashMap::default();
        let mut texts: FxHashMap<String, String> = FxHashMap::default();
        for (file, text, annex) in [
            ("basel_annex_i_ii.json", ANNEX_I_II, None),
            ("basel_annex_iii.json", ANNEX_III, Some("III")),
            ("basel_annex_viii.json", ANNEX_VIII, Some("VIII")),
            ("basel_annex_ix.json", ANNEX_IX, Some("IX")),
        ] {
            let parsed: AnnexFile =
                serde_json::from_str(text).map_err(|e| KnowledgeBaseError::Parse {
                    file,
                    message: e.to_string(),
                })?;
            for raw in parsed
                .entries
                .into_iter()
                .chain(parsed.deleted_or_not_in_force)
            {
                let mut text = raw.title.to_lowercase();
                for s in &raw.sub_items {
                    text.push(' ');
                    text.push_str(&s.to_lowercase());
                }
                let info = to_info(raw, annex);
                let key = info.code.to_ascii_uppercase();
                texts.insert(key.clone(), text);
                codes.insert(key, info);
            }
        }
        let mut quotes: FxHashMap<String, String> = FxHashMap::default();
        for c in codes.values().filter(|c| c.status == CodeStatus::InForce) {
            quotes.insert(c.code.clone(), quote_of(&c.code, &c.name));
        }
        Ok(Self {
            codes,
            quotes,
            texts,
        })
    }

    /// The entry's official text (title and sub-items), lower case.
    pub fn text(&self, code: &str) -> &str {
        self.texts.get(code).map_or("", String::as_str)
    }

    /// The official title of `code`, quoted and cut at 160 characters:
    /// `A1160: “Waste lead-acid batteries, whole or crushed”`.
    pub fn quote(&self, code: &str) -> Cow<'_, str> {
        match self.quotes.get(code) {
            Some(q) => Cow::Borrowed(q.as_str()),
            None => Cow::Owned(code.to_owned()),
        }
    }

    /// The entry for `code` (any case, surrounding spaces ignored).
    pub fn get(&self, code: &str) -> Option<&CodeInfo> {
        self.codes
            .get(code)
            .or_else(|| self.codes.get(&code.trim().to_ascii_uppercase()))
    }

    /// The entry for `code` if it is in force.
    pub fn in_force(&self, code: &str) -> Option<&CodeInfo> {
        self.get(code).filter(|c| c.status == CodeStatus::InForce)
    }

    /// With one look-up: `code` as the annexes write it (borrowed from them
    /// where it is a code of theirs as written, else a copy), and the
    /// official title of an in-force code (else the code itself).
    pub fn code_and_name(&self, code: &str) -> (Cow<'_, str>, Cow<'_, str>) {
        let info = self.get(code);
        let name = match info.filter(|c| c.status == CodeStatus::InForce) {
            Some(c) => Cow::Borrowed(c.name.as_str()),
            None => Cow::Owned(code.to_owned()),
        };
        (borrowed_code(info, code), name)
    }

    /// Every entry.
    pub fn all(&self) -> impl Iterator<Item = &CodeInfo> {
        self.codes.values()
    }
}

/// `code` borrowed from its entry `info` when the entry writes it so, else
/// a copy.
pub fn borrowed_code<'a>(info: Option<&'a CodeInfo>, code: &str) -> Cow<'a, str> {
    match info.filter(|c| c.code == code) {
        Some(c) => Cow::Borrowed(c.code.as_str()),
        None => Cow::Owned(code.to_owned()),
    }
}

fn to_info(raw: RawEntry, annex: Option<&str>) -> CodeInfo {
    let status = match raw.status.as_deref() {
        None | Some("in_force") => CodeStatus::InForce,
        Some(_) => CodeStatus::Deleted,
    };
    let replaced_by = match raw.replaced_by {
        Some(serde_json::Value::String(s)) => Some(vec![s]),
        Some(serde_json::Value::Array(v)) => Some(
            v.into_iter()
                .filter_map(|x| x.as_str().map(str::to_owned))
                .collect(),
        ),
        _ => None,
    };
    let mut notes = Vec::new();
    if let Some(un) = raw.un_class {
        notes.push(format!("UN class {un}"));
    }
    if !raw.sub_items.is_empty() {
        notes.push(format!("Sub-items: {}", raw.sub_items.join("; ")));
    }
    if let Some(date) = raw.deleted_effective {
        notes.push(format!("Deleted with effect from {date}"));
    }
    if status == CodeStatus::Deleted && raw.status.as_deref() != Some("deleted") {
        notes.push("Never adopted as an entry in force; not an Annex IX entry".to_owned());
    }
    // An entry's `notes` in the data file say how its wording was checked
    // against the published copies (an OCR slip, a typo corrected): for the
    // file's maintainers, never served.
    CodeInfo {
        code: raw.code,
        name: raw.title.trim().to_owned(),
        annex: raw.annex.unwrap_or_else(|| annex.unwrap_or("").to_owned()),
        status,
        replaced_by,
        note: (!notes.is_empty()).then(|| notes.join(". ")),
    }
}

fn quote_of(code: &str, name: &str) -> String {
    let cut = match name.char_indices().nth(160) {
        Some((i, _)) => &name[..i],
        None => name,
    };
    if cut.len() < name.len() {
        format!("{code}: \u{201c}{}…\u{201d}", cut.trim_end())
    } else {
        format!("{code}: \u{201c}{cut}\u{201d}")
    }
}
