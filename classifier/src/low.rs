//! The full European List of Waste (`classifier/data/eu_list_of_waste.json`,
//! a compact copy of `shared/reference/eu_list_of_waste.json`, sources in
//! `classifier/data/LIST_OF_WASTE_SOURCES.md`): all 842 six-digit entries
//! with their hazard kind (absolute, mirror hazardous, mirror non-hazardous,
//! non-hazardous), mirror partners and English, German, French and Dutch
//! texts.
//!
//! A code the curated table (`classifier_codes.json`) does not read is read
//! as the English words of its own entry, cut before the entry's
//! cross-reference ("other than those mentioned in …"): the entry's text is
//! vocabulary. Whatever the words give, an asterisked entry is hazardous:
//! the answer is never Green and always needs PIC (`codes::apply`).

use serde::Deserialize;

use super::error::KnowledgeBaseError;

const LOW: &str = include_str!("../data/eu_list_of_waste.json");

/// How the List of Waste marks an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LowKind {
    /// Hazardous whatever it contains ("absolute entry", asterisk).
    Absolute,
    /// Hazardous because it contains hazardous substances (asterisk); a
    /// non-hazardous mirror entry exists.
    MirrorHazardous,
    /// Non-hazardous only when free of the substances of its mirror entry.
    MirrorNonHazardous,
    /// Non-hazardous, no mirror.
    NonHazardous,
}

impl LowKind {
    fn parse(s: &str) -> Result<Self, KnowledgeBaseError> {
        Ok(match s {
            "a" => LowKind::Absolute,
            "mh" => LowKind::MirrorHazardous,
            "mn" => LowKind::MirrorNonHazardous,
            "n" => LowKind::NonHazardous,
            other => return Err(parse_error(format!("unknown kind '{other}'"))),
        })
    }
}

/// One List of Waste entry.
#[derive(Debug, Clone)]
pub struct LowEntry {
    /// As printed, "16 06 01*".
    pub label: String,
    pub kind: LowKind,
    /// The six digits of the mirror entries the text names.
    pub mirror_of: Vec<String>,
    /// English text (DEFRA list). The German, French and (pre-2015) Dutch
    /// texts stay in the data file for the lexicon's future use.
    pub en: String,
}

impl LowEntry {
    /// Hazardous in the list itself (the asterisk).
    pub fn hazardous(&self) -> bool {
        self.label.ends_with('*')
    }

    /// The six digits.
    pub fn digits(&self) -> String {
        self.label.chars().filter(char::is_ascii_digit).collect()
    }

    /// The English words read instead of the code: the entry's text cut
    /// before its cross-reference, without codes.
    pub fn reading(&self) -> String {
        let lower = self.en.to_lowercase();
        let cut = [
            "other than",
            "except",
            "not mentioned",
            "(see",
            "mentioned in",
        ]
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        .unwrap_or(lower.len());
        lower[..cut]
            .chars()
            .map(|c| {
                if c.is_ascii_digit() || c == '*' {
                    ' '
                } else {
                    c
                }
            })
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_end_matches([',', ' ', '('])
            .to_owned()
    }
}

type Row = (
    String,
    String,
    Vec<String>,
    String,
    String,
    String,
    Option<String>,
);

#[derive(Deserialize)]
struct LowFile {
    entries: Vec<Row>,
}

fn parse_error(message: String) -> KnowledgeBaseError {
    KnowledgeBaseError::Parse {
        file: "eu_list_of_waste.json",
        message,
    }
}

/// Every entry of the embedded list, in the list's order.
///
/// # Errors
/// [`KnowledgeBaseError::Parse`] when the file does not have the expected shape.
pub fn entries() -> Result<Vec<LowEntry>, KnowledgeBaseError> {
    let file: LowFile = serde_json::from_str(LOW).map_err(|e| parse_error(e.to_string()))?;
    file.entries
        .into_iter()
        .map(|(label, kind, mirror_of, en, de, fr, _nl)| {
            if de.is_empty() || fr.is_empty() {
                return Err(parse_error(format!(
                    "{label} lacks its German or French text"
                )));
            }
            Ok(LowEntry {
                label,
                kind: LowKind::parse(&kind)?,
                mirror_of,
                en,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_has_842_entries_408_hazardous_and_kinds_agree_with_the_asterisk() {
        let all = entries().expect("the list parses");
        assert_eq!(all.len(), 842);
        assert_eq!(all.iter().filter(|e| e.hazardous()).count(), 408);
        for e in &all {
            let starred_kind = matches!(e.kind, LowKind::Absolute | LowKind::MirrorHazardous);
            assert_eq!(e.hazardous(), starred_kind, "{}", e.label);
            assert_eq!(e.digits().len(), 6);
        }
    }

    #[test]
    fn a_reading_stops_before_the_cross_reference() {
        let all = entries().expect("the list parses");
        let e = all
            .iter()
            .find(|e| e.en.contains("other than") && !e.hazardous())
            .expect("a mirror entry");
        let r = e.reading();
        assert!(!r.contains("other than") && !r.chars().any(|c| c.is_ascii_digit()));
        assert!(!r.is_empty());
    }
}
