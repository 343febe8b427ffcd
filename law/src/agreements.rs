//! Agreements under Article 11 and national import bans, as data
//! (`data/article_11_agreements.json`, copied from the reference with its
//! sources). An agreement covers a movement when both States are its
//! parties (or, for the OECD Decision, OECD members), in the one direction it
//! names if it names one, for the operations it names if it names any.

use std::sync::OnceLock;

use serde::Deserialize;

use super::facts::StateFacts;
use super::Operation;

const AGREEMENTS_JSON: &str = include_str!("../data/article_11_agreements.json");

/// One agreement under Article 11.
#[derive(Debug, Clone, Deserialize)]
pub struct Agreement {
    /// A short stable id (`oecd_decision`, `us_mx`, …).
    pub id: String,
    /// Its title as the reference paraphrases it.
    pub name: String,
    /// Its parties (empty for the OECD Decision, see `among`).
    pub parties: Vec<String>,
    /// `oecd_members` for the OECD Decision.
    pub among: Option<String>,
    /// The one State of export it covers, where its title names a direction.
    pub from: Option<String>,
    /// The operations it covers, where the reference says.
    pub operations: Option<Vec<Operation>>,
    /// Whether the reference found it (false: named but not found).
    pub found: bool,
    /// Where it is known from.
    pub source: Option<String>,
    /// Its terms as the reference read them (periods, scope), where it did.
    #[serde(default)]
    pub terms: Option<String>,
    /// Where the terms are known from.
    #[serde(default)]
    pub terms_source: Option<String>,
    /// The day it entered into force, where the reference dates it.
    #[serde(default)]
    pub in_force_from: Option<chrono::NaiveDate>,
}

/// A State's ban on imports, with its source.
#[derive(Debug, Clone, Deserialize)]
pub struct ImportBan {
    /// The State that bans.
    pub state: String,
    /// What it bans, in words.
    pub scope: String,
    /// Where it is known from.
    pub source: String,
}

/// The data file.
#[derive(Debug, Deserialize)]
pub struct AgreementsFile {
    /// What the reference says of how far the list can be trusted.
    pub caveat: String,
    /// The agreements.
    pub agreements: Vec<Agreement>,
    /// National import bans (none in the reference).
    pub national_import_bans: Vec<ImportBan>,
    /// Why the list of bans is what it is.
    pub national_import_bans_note: String,
}

/// The bundled data (parsed once; a test reads it, so it cannot fail at run
/// time).
pub fn data() -> &'static AgreementsFile {
    static DATA: OnceLock<AgreementsFile> = OnceLock::new();
    DATA.get_or_init(|| {
        serde_json::from_str(AGREEMENTS_JSON).unwrap_or_else(|e| panic!("bundled data: {e}"))
    })
}

impl Agreement {
    /// Whether it covers a movement `from → to` for `operation` on `as_of`.
    pub fn covers(
        &self,
        from: &StateFacts,
        to: &StateFacts,
        operation: Operation,
        as_of: chrono::NaiveDate,
    ) -> bool {
        let members = match self.among.as_deref() {
            Some("oecd_members") => from.oecd && to.oecd,
            _ => [&from.code, &to.code]
                .iter()
                .all(|c| self.parties.contains(c)),
        };
        members
            && from.code != to.code
            && self.in_force_from.is_none_or(|d| d <= as_of)
            && self.from.as_ref().is_none_or(|f| *f == from.code)
            && self
                .operations
                .as_ref()
                .is_none_or(|ops| ops.contains(&operation))
    }

    /// Whether the reference names the operations it covers.
    pub fn operations_known(&self) -> bool {
        self.operations.is_some()
    }
}

/// The agreements that cover `from → to` for `operation`, found ones first.
pub fn covering(
    from: &StateFacts,
    to: &StateFacts,
    operation: Operation,
    as_of: chrono::NaiveDate,
) -> Vec<&'static Agreement> {
    let mut found: Vec<&Agreement> = data()
        .agreements
        .iter()
        .filter(|a| a.covers(from, to, operation, as_of))
        .collect();
    found.sort_by_key(|a| !a.found);
    found
}

/// The import bans of `state` known to the data.
pub fn import_bans(state: &str) -> Vec<&'static ImportBan> {
    data()
        .national_import_bans
        .iter()
        .filter(|b| b.state == state)
        .collect()
}
