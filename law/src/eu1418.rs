//! The answers countries outside the OECD Decision gave under Commission
//! Regulation (EC) No 1418/2007 (`data/eu_1418_2007.json`): per Annex IX
//! (green) code, (a) prohibited, (b) prior written notification and consent,
//! (c) no control, (d) the country's own procedure. Until 20 May 2027 they
//! decide exports of green waste from the Union to those countries.
//!
//! Only answers whose table is attributed to the country with `high`
//! confidence decide; every other answer (or none) makes the finding
//! `may_prohibit`, naming what to check and where.

use std::sync::OnceLock;

use serde::Deserialize;

use super::case::Effect;

const JSON: &str = include_str!("../data/eu_1418_2007.json");

/// One cell: the codes (a code, a range `B1030 — B1040`, or a code with a
/// qualifier `B1010: iron and steel scrap`) and the column.
#[derive(Debug, Clone, Deserialize)]
pub struct Cell {
    /// The codes as printed.
    pub codes: String,
    /// `a`, `b`, `c` or `d`.
    pub column: String,
}

/// One country's answers.
#[derive(Debug, Clone, Deserialize)]
pub struct Country {
    /// ISO 3166-1 alpha-2.
    pub iso2: String,
    /// How sure the reference is that the table is this country's.
    pub attribution_confidence: String,
    /// Where to check it.
    pub verify_at: Option<String>,
    /// The cells (none when the table was not identified).
    pub answers: Option<Vec<Cell>>,
}

/// The data file.
#[derive(Debug, Deserialize)]
pub struct File {
    /// Where it comes from.
    pub about: String,
    /// The countries.
    pub countries: Vec<Country>,
}

/// The bundled data (parsed once; a test reads it).
pub fn data() -> &'static File {
    static DATA: OnceLock<File> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(JSON).unwrap_or_else(|e| panic!("bundled data: {e}")))
}

/// What the answer means for the finding.
pub struct Answer {
    /// The finding's effect.
    pub effect: Effect,
    /// What it says.
    pub text: String,
    /// Where to check it.
    pub evidence: Option<String>,
}

/// Whether `part` (one code or a range, no qualifier) covers `code`.
fn covers(part: &str, code: &str) -> bool {
    let part = part.trim();
    match part.split_once('—') {
        Some((a, b)) => {
            let (a, b) = (a.trim(), b.trim());
            a.len() == code.len() && a.get(..1) == code.get(..1) && a <= code && code <= b
        }
        None => part.eq_ignore_ascii_case(code),
    }
}

/// The cells that name `code`; the flag says whether any is qualified
/// (it covers only part of the code's wastes).
fn cells_for<'a>(country: &'a Country, code: &str) -> Vec<(&'a Cell, bool)> {
    let mut out = Vec::new();
    for cell in country.answers.iter().flatten() {
        if cell.codes.starts_with("Mix") {
            continue;
        }
        let (head, qualified) = match cell.codes.split_once(':') {
            Some((h, _)) => (h, true),
            None => (cell.codes.as_str(), false),
        };
        if head.split(';').any(|p| covers(p, code)) {
            out.push((cell, qualified));
        }
    }
    out
}

fn column_words(column: &str) -> &'static str {
    match column {
        "a" => "(a) export prohibited",
        "b" => "(b) prior written notification and consent",
        "c" => "(c) no control in the country of destination (the Annex VII document applies)",
        _ => "(d) the control procedure of the country's own law",
    }
}

/// The answer of `country` for `code` (`None`: the code is not known).
pub fn answer(country: &str, code: Option<&str>) -> Answer {
    const LAW: &str = "Until 20 May 2027 exports from the Union of green-listed waste for recovery to a country outside the OECD Decision follow that country's answer under Regulation (EC) No 1418/2007, per code (Article 37 of Regulation (EC) No 1013/2006, kept by Article 85(b) of Regulation (EU) 2024/1157).";
    let unknown = |why: String, evidence: Option<String>| {
        Answer {
        effect: Effect::MayProhibit,
        text: format!("{LAW} {why} Until checked on EUR-Lex, treat it as possibly prohibited (a); where the country gave no answer for the code, prior written notification and consent (b) applies."),
        evidence,
    }
    };
    let Some(c) = data().countries.iter().find(|c| c.iso2 == country) else {
        return unknown(
            format!(
                "This service holds the answers of {} countries only, not {country}'s.",
                data().countries.len()
            ),
            None,
        );
    };
    let verify = c.verify_at.clone();
    let Some(code) = code else {
        return unknown(
            "The waste's code is not known, and the answer is per code.".into(),
            verify,
        );
    };
    if c.attribution_confidence != "high" {
        return unknown(format!("The table this service holds for {country} is attributed to it with {} confidence only.", c.attribution_confidence), verify);
    }
    let cells = cells_for(c, code);
    match cells.as_slice() {
        [] => Answer { effect: Effect::Procedure, text: format!("{LAW} {country} gave no answer for {code}: prior written notification and consent (b) applies."), evidence: verify },
        [(cell, false)] => {
            let effect = match cell.column.as_str() {
                "a" => Effect::Prohibits,
                "b" => Effect::Procedure,
                _ => Effect::Note,
            };
            Answer { effect, text: format!("{LAW} {country}'s answer for {code}: {}.", column_words(&cell.column)), evidence: verify }
        }
        several => {
            let each: Vec<String> = several.iter().map(|(cell, _)| format!("{}: {}", cell.codes, column_words(&cell.column))).collect();
            unknown(format!("{country} answered per kind of {code}: {}; which applies depends on the waste.", each.join("; ")), verify)
        }
    }
}
