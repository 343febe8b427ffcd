//! The legal rules, as data: one entry per rule, each citing its article
//! and deciding from the facts of the route alone. [`RULES`] is read in
//! order; every rule in force on the day asked (`data/rules.json`: its
//! `in_force_from`, `in_force_until`, article and source) that applies adds
//! a [`Finding`]. The prohibitions and the regime follow from the findings
//! (see `super::decide`). The EU rules are in `eu.rs`, the import
//! restrictions in `bans.rs`.
//!
//! Texts quoted or paraphrased: the Basel Convention (Articles 1, 4, 4A, 6,
//! 7, 11), OECD Council Decision C(2001)107/FINAL (as the Article 11
//! arrangement for recovery among OECD members) and Regulation (EU)
//! 2024/1157 on shipments of waste (Articles 4 to 18, 37, 39).

use std::sync::OnceLock;

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agreements::{self, Agreement};
pub(crate) use super::case::say;
pub use super::case::{Case, Effect, Outcome};
use super::{bans, eu, Operation, WasteKind};
use domain::parties::BanAcceptance;

/// Which rule a finding comes from (see `RULES` for each one's article).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    /// The same State at both ends.
    Domestic,
    /// Article 4(6): no disposal south of 60° S.
    Antarctica,
    /// Regulation (EU) 2024/1157, Article 48: no export from the Union to the Antarctic.
    EuAntarctic,
    /// Waste leaving the Antarctic: removal under the Madrid Protocol, Annex III.
    AntarcticRemoval,
    /// Article 4A: the Ban Amendment.
    BanAmendment,
    /// Article 4(5) with Article 11: a Party and a State that is not one.
    NonParty,
    /// Neither State is a Party.
    NotCovered,
    /// Union law before 21 May 2026 (Regulation (EC) No 1013/2006), not held.
    EuEarlierLaw,
    /// Regulation (EU) 2024/1157, Article 37: exports from the EU for disposal.
    EuExportDisposal,
    /// Regulation (EU) 2024/1157, Article 39: exports of hazardous waste for
    /// recovery to States the OECD Decision does not cover.
    EuExportRecovery,
    /// Regulation (EU) 2024/1157, Article 39(1)(c): Annex V, Part 2 wastes
    /// (Y46 to Y49) to States outside the OECD Decision.
    EuAnnexVPart2,
    /// Regulation (EU) 2024/1157, Article 39(1)(d): plastic waste B3011 to
    /// States outside the OECD Decision, from 21 November 2026.
    EuPlasticExport,
    /// Regulation (EU) 2024/1157, Article 40(3)(b): B3011 to States outside
    /// the OECD Decision needs notification and consent (until 20 November 2026).
    EuB3011Notification,
    /// Regulation (EC) No 1418/2007: the destination's answer for green
    /// waste, until 20 May 2027.
    #[serde(rename = "eu_green_1418")]
    EuGreen1418,
    /// Regulation (EU) 2024/1157, Articles 40 and 41: green waste only to
    /// listed States, from 21 May 2027.
    EuGreenList,
    /// Regulation (EU) 2024/1157, Article 44(1)(c): B3011 to OECD States
    /// needs notification and consent.
    EuExportOecd,
    /// Articles 4(1)(b) and 4(2)(e): the State of import's import restrictions.
    ImportBan,
    /// Regulation (EU) 2024/1157 between EU member States.
    EuWsr,
    /// Regulation (EU) 2024/1157, Title V: imports into the Union.
    EuImport,
    /// The EEA Agreement: Iceland, Liechtenstein and Norway apply the Regulation.
    Eea,
    /// The OECD Decision among OECD members, for recovery.
    OecdDecision,
    /// Article 11: a bilateral or regional agreement governs the movement.
    Agreement,
    /// Articles 6 and 7: the Basel procedure between Parties.
    BaselPic,
    /// Annex IX (green) waste outside the OECD and EU procedures.
    NotControlled,
}

string_enum_schema!(
    RuleId,
    "RuleId",
    "the rule (docs/shipments.md lists each with its article)",
    [
        "domestic",
        "antarctica",
        "eu_antarctic",
        "antarctic_removal",
        "ban_amendment",
        "non_party",
        "not_covered",
        "eu_earlier_law",
        "eu_export_disposal",
        "eu_export_recovery",
        "eu_annex_v_part2",
        "eu_plastic_export",
        "eu_b3011_notification",
        "eu_green_1418",
        "eu_green_list",
        "eu_export_oecd",
        "import_ban",
        "eu_wsr",
        "eu_import",
        "eea",
        "oecd_decision",
        "agreement",
        "basel_pic",
        "not_controlled"
    ]
);

/// One rule applied to the route.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
pub struct Finding {
    /// The rule.
    pub rule: RuleId,
    /// The provision it rests on.
    pub article: String,
    /// What it does to the movement.
    pub effect: Effect,
    /// What it says of this route.
    pub text: String,
    /// The evidence for a fact it relies on, when there is one to name.
    pub evidence: Option<String>,
    /// First day in force (the last, where it ends, is in docs/shipments.md).
    pub in_force_from: String,
    /// Source and trust.
    pub source: String,
    /// When the operation was not given: the one operation this finding
    /// holds for (absent when it holds for both, or the operation was given).
    pub only_for: Option<super::Operation>,
}

/// One rule: its id and when it applies (its article, dates and source
/// are data: [`meta`]).
pub struct Rule {
    /// Which rule.
    pub id: RuleId,
    /// Its finding on `case`, if it applies: the effect, the text, the evidence.
    pub applies: fn(&Case<'_>) -> Outcome,
}

const RULES_JSON: &str = include_str!("../data/rules.json");

/// A rule's article, the days it is in force and its source.
#[derive(Debug, Clone, Deserialize)]
pub struct RuleMeta {
    /// Which rule.
    pub id: RuleId,
    /// The provision, as cited in every finding.
    pub article: String,
    /// The first day it is in force.
    pub in_force_from: NaiveDate,
    /// Its last day in force, where it ends.
    pub in_force_until: Option<NaiveDate>,
    /// Where it is known from.
    pub source: String,
    /// How far to trust that source.
    pub trust: String,
}

impl RuleMeta {
    /// Whether the rule is in force on `day`.
    pub fn in_force(&self, day: NaiveDate) -> bool {
        self.in_force_from <= day && self.in_force_until.is_none_or(|u| day <= u)
    }
}

#[derive(Deserialize)]
struct RulesFile {
    rules: Vec<RuleMeta>,
}

/// Reads a rules file: every field is required (no defaults), so a rule
/// without `in_force_from` or `source` is an error.
///
/// # Errors
/// The parse error.
pub fn parse_metas(text: &str) -> Result<Vec<RuleMeta>, serde_json::Error> {
    serde_json::from_str::<RulesFile>(text).map(|f| f.rules)
}

/// Every rule's dates and source (`data/rules.json`; a test reads it, so it
/// cannot fail at run time).
pub fn metas() -> &'static [RuleMeta] {
    static DATA: OnceLock<Vec<RuleMeta>> = OnceLock::new();
    DATA.get_or_init(|| parse_metas(RULES_JSON).unwrap_or_else(|e| panic!("bundled rules: {e}")))
}

/// The dates and source of `id` (a test checks every rule has them).
pub fn meta(id: RuleId) -> Option<&'static RuleMeta> {
    metas().iter().find(|m| m.id == id)
}

/// Every rule, in the order they are read.
pub const RULES: &[Rule] = &[
    Rule {
        id: RuleId::Domestic,
        applies: domestic,
    },
    Rule {
        id: RuleId::Antarctica,
        applies: antarctica,
    },
    Rule {
        id: RuleId::EuAntarctic,
        applies: eu::antarctic,
    },
    Rule {
        id: RuleId::AntarcticRemoval,
        applies: antarctic_removal,
    },
    Rule {
        id: RuleId::BanAmendment,
        applies: ban_amendment,
    },
    Rule {
        id: RuleId::NonParty,
        applies: non_party,
    },
    Rule {
        id: RuleId::EuEarlierLaw,
        applies: eu::earlier_law,
    },
    Rule {
        id: RuleId::EuExportDisposal,
        applies: eu::export_disposal,
    },
    Rule {
        id: RuleId::EuExportRecovery,
        applies: eu::export_recovery,
    },
    Rule {
        id: RuleId::EuAnnexVPart2,
        applies: eu::annex_v_part2,
    },
    Rule {
        id: RuleId::EuPlasticExport,
        applies: eu::plastic_export,
    },
    Rule {
        id: RuleId::EuB3011Notification,
        applies: eu::b3011_notification,
    },
    Rule {
        id: RuleId::EuGreen1418,
        applies: eu::green_1418,
    },
    Rule {
        id: RuleId::EuGreenList,
        applies: eu::green_list,
    },
    Rule {
        id: RuleId::EuExportOecd,
        applies: eu::export_oecd,
    },
    Rule {
        id: RuleId::ImportBan,
        applies: bans::import_ban,
    },
    Rule {
        id: RuleId::NotCovered,
        applies: not_covered,
    },
    Rule {
        id: RuleId::EuWsr,
        applies: eu::internal,
    },
    Rule {
        id: RuleId::EuImport,
        applies: eu::import,
    },
    Rule {
        id: RuleId::Eea,
        applies: eu::eea,
    },
    Rule {
        id: RuleId::OecdDecision,
        applies: oecd_decision,
    },
    Rule {
        id: RuleId::Agreement,
        applies: agreement,
    },
    Rule {
        id: RuleId::BaselPic,
        applies: basel_pic,
    },
    Rule {
        id: RuleId::NotControlled,
        applies: not_controlled,
    },
];

fn domestic(c: &Case<'_>) -> Outcome {
    c.domestic().then(|| {
        (
            Effect::Note,
            format!("Origin and destination are both {}: no transboundary movement; national law applies.", c.origin.name),
            None,
        )
    })
}

fn antarctica(c: &Case<'_>) -> Outcome {
    if c.destination.code != "AQ" || c.leaves_antarctica() || !c.controlled() {
        return None;
    }
    if c.operation == Operation::Recovery {
        return say(Effect::MayProhibit, "Article 4(6) forbids exports of hazardous or other wastes for disposal within the area south of 60° South latitude; it does not name recovery, and waste in the Antarctic Treaty area is governed by the Madrid Protocol (Annex III), which this service does not hold: confirm with the competent authority of the State of export before shipping.".into());
    }
    say(Effect::Prohibits, "The Parties agree not to allow the export of hazardous or other wastes for disposal within the area south of 60° South latitude.".into())
}

fn antarctic_removal(c: &Case<'_>) -> Outcome {
    if !c.leaves_antarctica() || c.domestic() {
        return None;
    }
    say(Effect::Procedure, format!("Waste leaving the Antarctic Treaty area (south of 60° S) is removal under the Protocol on Environmental Protection to the Antarctic Treaty (Madrid Protocol), Annex III, arranged by the national Antarctic programme or operator and its State: Antarctica is not a State, so this is not an export by a State that is not a Party (Basel Article 4(5) does not apply to it). The import into {} follows its own law and import restrictions.", c.destination.name))
}

fn ban_amendment(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic()
        || c.waste != WasteKind::Hazardous
        || !o.party
        || !o.annex_vii
        || d.annex_vii
        || antarctic(c)
    {
        return None;
    }
    let base = format!(
        "{} is a Party in Annex VII and {} is not in Annex VII: Article 4A prohibits every transboundary movement of hazardous wastes from an Annex VII Party that accepted the Ban Amendment to a State outside Annex VII, for disposal and for recovery alike.",
        o.name, d.name
    );
    let evidence = o.ban_evidence.clone();
    let (effect, text) = match o.ban_amendment {
        BanAcceptance::Accepted => (Effect::Prohibits, format!("{base} {} accepted the Ban Amendment.", o.name)),
        BanAcceptance::NotAccepted => (Effect::Note, format!("{base} {} has not accepted it, so the Ban does not prohibit this movement (other rules still apply).", o.name)),
        BanAcceptance::Unknown => (Effect::MayProhibit, format!("{base} Whether {} has accepted it is unknown: no current complete list of the Amendment's Parties covers it. Treat the movement as prohibited until {}'s acceptance is confirmed with its competent authority or the Secretariat.", o.name, o.name)),
    };
    Some((effect, text, evidence))
}

fn non_party(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic() || !c.controlled() || o.party == d.party || antarctic(c) {
        return None;
    }
    let outsider = if o.party { d } else { o };
    let found = agreements::covering(o, d, c.operation, c.as_of);
    let base = format!(
        "{} is not a Party: a Party must not permit hazardous or other wastes to be exported to or imported from a State that is not a Party (Article 4(5)), unless an agreement under Article 11 covers the movement.",
        outsider.name
    );
    match found.first() {
        Some(a) if a.found => Some((
            Effect::Permits,
            format!("{base} {} covers it{}. {}", a.name, operations_note(a), agreements::data().caveat),
            a.source.clone(),
        )),
        Some(a) => Some((
            Effect::MayProhibit,
            format!("{base} An agreement between them ({}) is named in the reference but was not found in its sources: whether one covers the movement is unknown.", a.name),
            None,
        )),
        None => Some((
            Effect::Prohibits,
            format!("{base} No such agreement between {} and {} for {} is known to this service (the known agreements are listed with their sources in docs/shipments.md).", o.name, d.name, c.operation.as_str()),
            None,
        )),
    }
}

fn operations_note(a: &Agreement) -> &'static str {
    if a.operations_known() {
        ""
    } else {
        " (the reference does not say which operations it covers: confirm that it covers this one)"
    }
}

fn not_covered(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic() || !c.controlled() || o.party || d.party || c.oecd_recovery() || antarctic(c) {
        return None;
    }
    say(Effect::Note, format!("Neither {} nor {} is a Party: the Convention binds neither; their national law governs the movement.", o.name, d.name))
}

fn oecd_decision(c: &Case<'_>) -> Outcome {
    if c.domestic() || c.eu_internal() {
        return None;
    }
    if c.origin.oecd && c.destination.oecd && c.operation == Operation::Disposal {
        return say(Effect::Note, "The OECD Decision covers wastes destined for recovery only; for disposal the Basel Convention applies.".into());
    }
    if !c.oecd_recovery() {
        return None;
    }
    let text = if c.controlled() {
        "Among OECD members, for recovery: the Amber control procedure: prior written notification; the authorities of import and transit may object within 30 days, and without objection their consent is tacit."
    } else {
        "Among OECD members, for recovery: Green waste moves under the Green control procedure, subject to no controls beyond those normally applied in commercial transactions."
    };
    say(Effect::Procedure, text.into())
}

fn agreement(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic()
        || !c.controlled()
        || o.party == d.party
        || c.oecd_recovery()
        || c.eu_internal()
        || antarctic(c)
    {
        return None;
    }
    let a = agreements::covering(o, d, c.operation, c.as_of)
        .into_iter()
        .find(|a| a.found)?;
    match &a.terms {
        Some(terms) => Some((
            Effect::Procedure,
            format!("The movement follows the procedure of {}: {terms}", a.name),
            a.terms_source.clone(),
        )),
        None => say(Effect::Procedure, format!("The movement follows the procedure of {}; its terms are not in this service's data: ask the competent authorities for its notification and consent requirements.", a.name)),
    }
}

fn basel_pic(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic()
        || !c.controlled()
        || !o.party
        || !d.party
        || c.oecd_recovery()
        || c.eu_internal()
        || antarctic(c)
    {
        return None;
    }
    say(Effect::Procedure, "Between Parties: the prior informed consent procedure. The State of export notifies (or has the generator or exporter notify) the States of import and transit in writing; the movement waits for the written consent of the State of import and of each transit Party and for confirmation of a contract for environmentally sound management; a movement document goes with it; the disposer confirms receipt and completion.".into())
}

/// Antarctica at either end: not a State, so the rules between States and
/// Parties do not apply (see `antarctica` and `antarctic_removal`).
fn antarctic(c: &Case<'_>) -> bool {
    c.leaves_antarctica() || c.destination.code == "AQ"
}

fn not_controlled(c: &Case<'_>) -> Outcome {
    if c.domestic() || c.controlled() || c.oecd_recovery() || c.eu_internal() || antarctic(c) {
        return None;
    }
    say(Effect::Note, "Annex IX (green) waste is not a hazardous waste under Article 1(1)(a) unless it has an Annex III characteristic: the Basel procedure does not apply; the national rules of the States concerned do.".into())
}

/// Every finding of the rules in force on `case.as_of`, in rule order.
pub fn evaluate(case: &Case<'_>) -> Vec<Finding> {
    RULES
        .iter()
        .filter_map(|rule| {
            let meta = meta(rule.id).filter(|m| m.in_force(case.as_of))?;
            (rule.applies)(case).map(|(effect, text, evidence)| Finding {
                rule: rule.id,
                article: meta.article.clone(),
                effect,
                text,
                evidence,
                in_force_from: meta.in_force_from.to_string(),
                source: format!("{} (trust: {})", meta.source, meta.trust),
                only_for: None,
            })
        })
        .collect()
}
