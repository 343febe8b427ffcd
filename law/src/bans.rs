//! The State of import's own restrictions on importing waste
//! (`data/import_restrictions.json`, read from the reference by
//! `data/import_restrictions.py`): national bans and permit regimes, and the
//! bans that membership of Bamako, Waigani or the Central American agreement
//! obliges. Basel Articles 4(1)(b) and 4(2)(e) bind the exporting Party to
//! respect them.
//!
//! A ban in force on the day, covering the waste, the operation and the
//! State of export, prohibits when its text was read in an official source
//! or a copy of one; it makes the answer `unknown` (never `false`) when it
//! is known only from treaty membership, only from secondary sources, or
//! its operative text was not read. A State the data does not cover is
//! answered as the Convention answers, saying that its import restrictions
//! were not checked and where to check them.

use std::collections::HashMap;
use std::sync::OnceLock;

use chrono::NaiveDate;
use serde::Deserialize;

use super::case::{Case, Effect, Outcome};
use super::{Operation, StateFacts, WasteKind};

const JSON: &str = include_str!("../data/import_restrictions.json");

/// Ban or permit.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The import is banned.
    Ban,
    /// The import needs a permit or approval.
    Permit,
    /// The reference found no restriction.
    None,
}

/// What a measure covers: waste kinds, or Basel codes.
#[derive(Debug, Clone, Deserialize)]
pub struct Covers {
    /// Kinds covered whole.
    pub kinds: Vec<WasteKind>,
    /// Codes covered.
    pub codes: Vec<String>,
}

/// One source.
#[derive(Debug, Clone, Deserialize)]
pub struct Source {
    /// Where.
    pub url: String,
    /// `official`, `copy_of_official_text` or `secondary`.
    pub tier: String,
}

/// One measure of one State.
#[derive(Debug, Clone, Deserialize)]
pub struct Measure {
    /// ISO 3166-1 alpha-2.
    pub state: String,
    /// Ban, permit or none.
    pub kind: Kind,
    /// What it does, in the reference's words.
    pub what: String,
    /// The instrument.
    pub instrument: String,
    /// What it covers.
    pub covers: Covers,
    /// The operations it covers (absent: both).
    pub operations: Option<Vec<Operation>>,
    /// From which States: `any`, `annex_vii`, `annex_vii_or_non_basel_parties`,
    /// `outside_basel_waigani_oecd`, `non_members:<regime>`.
    pub from_states: String,
    /// First day in force.
    pub in_force_from: NaiveDate,
    /// Last day in force.
    pub in_force_until: Option<NaiveDate>,
    /// Known only as the State's obligation under a regional treaty.
    pub derived_from_treaty_membership: bool,
    /// Whether the reference read its operative text.
    pub text_read: bool,
    /// The best tier of its sources.
    pub trust: String,
    /// Its sources.
    pub sources: Vec<Source>,
}

/// A regional regime's members.
#[derive(Debug, Clone, Deserialize)]
pub struct Regime {
    /// Its name.
    pub name: String,
    /// Its Parties (ISO codes).
    pub members: Vec<String>,
}

/// The data file.
#[derive(Debug, Deserialize)]
pub struct File {
    /// Where the data comes from.
    pub about: String,
    /// Where to check a State's restrictions.
    pub where_to_check: String,
    /// The States whose national law was researched.
    pub researched: Vec<String>,
    /// Bamako, Waigani, the Central American agreement.
    pub regimes: HashMap<String, Regime>,
    /// The measures.
    pub measures: Vec<Measure>,
}

/// The bundled data (parsed once; a test reads it).
pub fn data() -> &'static File {
    static DATA: OnceLock<File> = OnceLock::new();
    DATA.get_or_init(|| serde_json::from_str(JSON).unwrap_or_else(|e| panic!("bundled data: {e}")))
}

impl Measure {
    fn in_force(&self, day: NaiveDate) -> bool {
        self.in_force_from <= day && self.in_force_until.is_none_or(|u| day <= u)
    }

    fn covers(&self, waste: WasteKind, code: Option<&str>) -> bool {
        self.covers.kinds.contains(&waste)
            || code.is_some_and(|c| self.covers.codes.iter().any(|k| k.eq_ignore_ascii_case(c)))
    }

    fn from(&self, origin: &StateFacts) -> bool {
        if origin.code == "AQ" {
            return self.from_states == "any";
        }
        let member = |regime: &str| {
            data()
                .regimes
                .get(regime)
                .is_some_and(|r| r.members.contains(&origin.code))
        };
        match self.from_states.as_str() {
            "annex_vii" => origin.annex_vii,
            "annex_vii_or_non_basel_parties" => origin.annex_vii || !origin.party,
            "outside_basel_waigani_oecd" => !(origin.party || origin.oecd || member("waigani")),
            other => match other.strip_prefix("non_members:") {
                Some(regime) => !member(regime),
                None => true,
            },
        }
    }

    /// Whether it applies to `case`.
    pub fn applies(&self, c: &Case<'_>) -> bool {
        self.state == c.destination.code
            && self.in_force(c.as_of)
            && self.covers(c.waste, c.code)
            && self.from(c.origin)
            && self
                .operations
                .as_ref()
                .is_none_or(|ops| ops.contains(&c.operation))
    }

    /// Why a ban only makes the answer unknown, if it does.
    fn doubt(&self) -> Option<String> {
        if self.derived_from_treaty_membership {
            let regime = self.from_states.strip_prefix("non_members:").unwrap_or("");
            let name = data()
                .regimes
                .get(regime)
                .map_or(regime, |r| r.name.as_str());
            return Some(format!("known only from the State's membership of the {name} (membership data to mid-2021), not from its national law"));
        }
        if self.trust == "secondary" {
            return Some("known only from secondary sources (news, law firms, trade press)".into());
        }
        (!self.text_read).then(|| {
            "its operative text was not read (only its title, a heading or an announcement)".into()
        })
    }

    fn effect(&self) -> Effect {
        match (self.kind, self.doubt()) {
            (Kind::Ban, None) => Effect::Prohibits,
            (Kind::Ban, Some(_)) => Effect::MayProhibit,
            _ => Effect::Note,
        }
    }

    fn sentence(&self) -> String {
        let since = format!("in force from {}", self.in_force_from);
        match (self.kind, self.doubt()) {
            (Kind::Ban, None) => format!(
                "It bans the import ({}; {since}; source: {}): {}",
                self.instrument, self.trust, self.what
            ),
            (Kind::Ban, Some(why)) => format!(
                "It may ban the import ({}; {since}), but this is {why}: {}",
                self.instrument, self.what
            ),
            (Kind::Permit, _) => format!(
                "The import needs its permit or approval ({}; {since}; source: {}): {}",
                self.instrument, self.trust, self.what
            ),
            (Kind::None, _) => format!(
                "No import ban was found in its law ({}): {}",
                self.instrument, self.what
            ),
        }
    }
}

/// Whether the data says nothing of `state`'s import restrictions.
pub fn not_checked(state: &str) -> bool {
    !data().researched.iter().any(|s| s == state)
}

/// The rule: the State of import's restrictions that apply to the route.
pub(crate) fn import_ban(c: &Case<'_>) -> Outcome {
    let d = c.destination;
    if c.domestic() || d.code == "AQ" {
        return None;
    }
    let mut found: Vec<&Measure> = data().measures.iter().filter(|m| m.applies(c)).collect();
    found.sort_by_key(|m| match m.effect() {
        Effect::Prohibits => 0,
        Effect::MayProhibit => 1,
        _ => 2,
    });
    let Some(first) = found.first() else {
        return Some((Effect::Note, nothing_found(c), None));
    };
    let effect = first.effect();
    let sentences: Vec<String> = found.iter().map(|m| m.sentence()).collect();
    let lead = match effect {
        Effect::Prohibits => format!("{} prohibits the import of this waste; a Party must not permit exports to a State that has prohibited their import, and must respect its restrictions (Basel Articles 4(1)(b) and 4(2)(e)).", d.name),
        Effect::MayProhibit => format!("{} may prohibit the import of this waste; if it does, a Party must not permit the export (Basel Articles 4(1)(b) and 4(2)(e)). Treat it as prohibited until {}'s competent authority confirms.", d.name, d.name),
        _ => format!("{}'s import restrictions on this waste, as far as this service knows them:", d.name),
    };
    let mut text = format!("{lead} {}", sentences.join(" "));
    if not_checked(&d.code) {
        text.push_str(&format!(
            " {}'s national law was not researched: {}",
            d.name,
            data().where_to_check
        ));
    }
    let evidence: Vec<&str> = first.sources.iter().map(|s| s.url.as_str()).collect();
    Some((effect, text, Some(evidence.join(" ; "))))
}

fn nothing_found(c: &Case<'_>) -> String {
    let d = c.destination;
    if not_checked(&d.code) {
        format!("National import restrictions of {} were not checked: this service holds none of its national law. The Convention's answer stands only if {} does not prohibit or restrict this import; check {}", d.name, d.name, data().where_to_check)
    } else {
        format!("The data on {}'s national import restrictions (researched from the reference, see docs/shipments.md) has none in force on {} for this waste, operation and State of export. It may be incomplete: check {}", d.name, c.as_of, data().where_to_check)
    }
}
