//! The legal rules, as data: one entry per rule, each citing its article
//! and deciding from the facts of the route alone. [`RULES`] is read in
//! order; every rule that applies adds a [`Finding`]. The prohibitions and
//! the regime follow from the findings (see `super::decide`).
//!
//! Texts quoted or paraphrased: the Basel Convention (Articles 1, 4, 4A, 6,
//! 7, 11), OECD Council Decision C(2001)107/FINAL (as the Article 11
//! arrangement for recovery among OECD members) and Regulation (EU)
//! 2024/1157 on shipments of waste (Articles 4 to 18, 37, 39).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::agreements::{self, Agreement};
use super::facts::StateFacts;
use super::{Operation, WasteKind};
use domain::parties::BanAcceptance;

/// Which rule a finding comes from (see `RULES` for each one's article).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RuleId {
    /// The same State at both ends.
    Domestic,
    /// Article 4(6): no disposal south of 60° S.
    Antarctica,
    /// Article 4A: the Ban Amendment.
    BanAmendment,
    /// Article 4(5) with Article 11: a Party and a State that is not one.
    NonParty,
    /// Neither State is a Party.
    NotCovered,
    /// Regulation (EU) 2024/1157, Article 37: exports from the EU for disposal.
    EuExportDisposal,
    /// Regulation (EU) 2024/1157, Article 39: exports of hazardous waste for
    /// recovery to States the OECD Decision does not cover.
    EuExportRecovery,
    /// Article 4(1): a national import ban of the State of import.
    ImportBan,
    /// Regulation (EU) 2024/1157 between EU member States.
    EuWsr,
    /// The OECD Decision among OECD members, for recovery.
    OecdDecision,
    /// Article 11: a bilateral or regional agreement governs the movement.
    Agreement,
    /// Articles 6 and 7: the Basel procedure between Parties.
    BaselPic,
    /// Annex IX (green) waste outside the OECD and EU procedures.
    NotControlled,
}

/// What a finding does to the movement: prohibits it, may prohibit it (a
/// fact it depends on is unknown), permits it (naming the instrument), sets
/// the procedure, or is a note that does not decide.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// It prohibits the movement.
    Prohibits,
    /// It may prohibit it: a fact it depends on is unknown.
    MayProhibit,
    /// It allows it, naming the instrument that does.
    Permits,
    /// It sets the procedure to follow.
    Procedure,
    /// Context: it does not decide.
    Note,
}

string_enum_schema!(
    RuleId,
    "RuleId",
    "the rule (docs/shipments.md lists each with its article)",
    [
        "domestic",
        "antarctica",
        "ban_amendment",
        "non_party",
        "not_covered",
        "eu_export_disposal",
        "eu_export_recovery",
        "import_ban",
        "eu_wsr",
        "oecd_decision",
        "agreement",
        "basel_pic",
        "not_controlled"
    ]
);
string_enum_schema!(Effect, "Effect", "prohibits; may_prohibit (a fact it depends on is unknown); permits; procedure (sets it); note (does not decide)", ["prohibits", "may_prohibit", "permits", "procedure", "note"]);

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
    /// When the operation was not given: the one operation this finding
    /// holds for (absent when it holds for both, or the operation was given).
    pub only_for: Option<super::Operation>,
}

/// The facts a rule decides from.
#[derive(Debug, Clone, Copy)]
pub struct Case<'a> {
    /// The State of export.
    pub origin: &'a StateFacts,
    /// The State of import.
    pub destination: &'a StateFacts,
    /// The States of transit, in order.
    pub transit: &'a [StateFacts],
    /// The waste's kind.
    pub waste: WasteKind,
    /// Recovery or disposal.
    pub operation: Operation,
}

impl Case<'_> {
    fn eu_internal(&self) -> bool {
        self.origin.eu && self.destination.eu
    }

    fn oecd_recovery(&self) -> bool {
        self.operation == Operation::Recovery
            && self.origin.oecd
            && self.destination.oecd
            && self.transit.iter().all(|t| t.oecd)
    }

    fn controlled(&self) -> bool {
        self.waste != WasteKind::Green
    }

    fn domestic(&self) -> bool {
        self.origin.code == self.destination.code
    }
}

/// One rule: its id, its article, and when it applies.
pub struct Rule {
    /// Which rule.
    pub id: RuleId,
    /// The provision, as cited in every finding.
    pub article: &'static str,
    /// Its finding on `case`, if it applies: the effect, the text, the evidence.
    pub applies: fn(&Case<'_>) -> Outcome,
}

/// Every rule, in the order they are read.
pub const RULES: &[Rule] = &[
    Rule {
        id: RuleId::Domestic,
        article: "Basel Convention, Article 2(3)",
        applies: domestic,
    },
    Rule {
        id: RuleId::Antarctica,
        article: "Basel Convention, Article 4(6)",
        applies: antarctica,
    },
    Rule {
        id: RuleId::BanAmendment,
        article: "Basel Convention, Article 4A (Ban Amendment)",
        applies: ban_amendment,
    },
    Rule {
        id: RuleId::NonParty,
        article: "Basel Convention, Articles 4(5) and 11",
        applies: non_party,
    },
    Rule {
        id: RuleId::EuExportDisposal,
        article: "Regulation (EU) 2024/1157, Article 37",
        applies: eu_export_disposal,
    },
    Rule {
        id: RuleId::EuExportRecovery,
        article: "Regulation (EU) 2024/1157, Article 39",
        applies: eu_export_recovery,
    },
    Rule {
        id: RuleId::ImportBan,
        article: "Basel Convention, Article 4(1)",
        applies: import_ban,
    },
    Rule {
        id: RuleId::NotCovered,
        article: "Basel Convention, Article 4(5)",
        applies: not_covered,
    },
    Rule {
        id: RuleId::EuWsr,
        article: "Regulation (EU) 2024/1157, Articles 4 to 18",
        applies: eu_wsr,
    },
    Rule {
        id: RuleId::OecdDecision,
        article: "OECD Council Decision C(2001)107/FINAL (an arrangement under Basel Article 11)",
        applies: oecd_decision,
    },
    Rule {
        id: RuleId::Agreement,
        article: "Basel Convention, Article 11",
        applies: agreement,
    },
    Rule {
        id: RuleId::BaselPic,
        article: "Basel Convention, Articles 6 and 7",
        applies: basel_pic,
    },
    Rule {
        id: RuleId::NotControlled,
        article: "Basel Convention, Article 1(1)",
        applies: not_controlled,
    },
];

/// A rule's finding before it is named: the effect, the text, the evidence.
pub type Outcome = Option<(Effect, String, Option<String>)>;

fn say(effect: Effect, text: String) -> Outcome {
    Some((effect, text, None))
}

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
    if c.destination.code != "AQ" || c.operation != Operation::Disposal || !c.controlled() {
        return None;
    }
    say(Effect::Prohibits, "The Parties agree not to allow the export of hazardous or other wastes for disposal within the area south of 60° South latitude.".into())
}

fn ban_amendment(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic() || c.waste != WasteKind::Hazardous || !o.party || !o.annex_vii || d.annex_vii {
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
    if c.domestic() || !c.controlled() || o.party == d.party {
        return None;
    }
    let outsider = if o.party { d } else { o };
    let found = agreements::covering(o, d, c.operation);
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

fn eu_export_disposal(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if !o.eu || d.eu || c.domestic() || c.operation != Operation::Disposal {
        return None;
    }
    if d.efta && d.party {
        return say(Effect::Note, format!("Exports of waste for disposal from the Union are prohibited except to an EFTA country that is a Party to the Basel Convention; {} is one, so the export is allowed under prior written notification and consent (Article 38), unless {} prohibits such imports.", d.name, d.name));
    }
    say(Effect::Prohibits, format!("Exports of waste destined for disposal from the Union are prohibited, except to an EFTA country that is a Party to the Basel Convention; {} is not one.", d.name))
}

fn eu_export_recovery(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if !o.eu || d.eu || c.operation != Operation::Recovery || d.oecd {
        return None;
    }
    match c.waste {
        WasteKind::Hazardous => say(Effect::Prohibits, format!("Exports from the Union of hazardous wastes destined for recovery in countries to which the OECD Decision does not apply are prohibited; {} is not an OECD member.", d.name)),
        WasteKind::Other => say(Effect::MayProhibit, format!("Article 39 also prohibits exports for recovery to countries outside the OECD Decision of some wastes that are not hazardous under the Convention (those in Part 2 of Annex V to the Regulation, certain plastic wastes); this service does not check which: confirm with the competent authority of dispatch in {} before shipping to {}.", o.name, d.name)),
        WasteKind::Green => say(Effect::Note, format!("Exports from the Union of green-listed waste for recovery to a country outside the OECD Decision follow the procedure that country has declared to the Union under Title IV, Chapter 2 of the Regulation (it may require notification, or ban the import); this service does not hold those declarations: check {}'s.", d.name)),
    }
}

fn import_ban(c: &Case<'_>) -> Outcome {
    if c.domestic() || !c.controlled() {
        return None;
    }
    let bans = agreements::import_bans(&c.destination.code);
    match bans.first() {
        Some(ban) => Some((
            Effect::Prohibits,
            format!("{} prohibits imports: {}. A Party must not permit exports to a Party that has prohibited their import (Article 4(1)(b)).", c.destination.name, ban.scope),
            Some(ban.source.clone()),
        )),
        None => say(Effect::Note, format!("No import ban of {} is in this service's data. {}", c.destination.name, agreements::data().national_import_bans_note)),
    }
}

fn not_covered(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic() || !c.controlled() || o.party || d.party || c.oecd_recovery() {
        return None;
    }
    say(Effect::Note, format!("Neither {} nor {} is a Party: the Convention binds neither; their national law governs the movement.", o.name, d.name))
}

fn eu_wsr(c: &Case<'_>) -> Outcome {
    if c.domestic() || !c.eu_internal() {
        return None;
    }
    let text = match (c.waste, c.operation) {
        (WasteKind::Green, Operation::Recovery) => "A shipment between EU member States of green-listed waste for recovery: no notification; it is subject to the general information requirements (Article 18): the Annex VII document, signed by the person who arranges the shipment, travels with the waste, and a contract with the consignee for its recovery is in effect when the document is completed. The Regulation applies from 21 May 2026 for most provisions and replaces Regulation (EC) No 1013/2006.".to_owned(),
        (_, Operation::Disposal) => "A shipment between EU member States for disposal: prior written notification and consent (Articles 4 to 17); the authorities of dispatch and destination consent only if the conditions of Article 11 hold (among them, the waste cannot be recovered in a technically feasible and economically viable way, nor disposed of in the country where it was generated).".to_owned(),
        (_, Operation::Recovery) => "A shipment between EU member States of waste that is not green-listed, for recovery: prior written notification and consent (Articles 4 to 17); the authorities of dispatch and destination may raise reasoned objections (Article 12).".to_owned(),
    };
    say(Effect::Procedure, text)
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
    if c.domestic() || !c.controlled() || o.party == d.party || c.oecd_recovery() || c.eu_internal()
    {
        return None;
    }
    let a = agreements::covering(o, d, c.operation)
        .into_iter()
        .find(|a| a.found)?;
    say(Effect::Procedure, format!("The movement follows the procedure of {}; its terms are not in this service's data: ask the competent authorities for its notification and consent requirements.", a.name))
}

fn basel_pic(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic()
        || !c.controlled()
        || !o.party
        || !d.party
        || c.oecd_recovery()
        || c.eu_internal()
    {
        return None;
    }
    say(Effect::Procedure, "Between Parties: the prior informed consent procedure. The State of export notifies (or has the generator or exporter notify) the States of import and transit in writing; the movement waits for the written consent of the State of import and of each transit Party and for confirmation of a contract for environmentally sound management; a movement document goes with it; the disposer confirms receipt and completion.".into())
}

fn not_controlled(c: &Case<'_>) -> Outcome {
    if c.domestic() || c.controlled() || c.oecd_recovery() || c.eu_internal() {
        return None;
    }
    say(Effect::Note, "Annex IX (green) waste is not a hazardous waste under Article 1(1)(a) unless it has an Annex III characteristic: the Basel procedure does not apply; the national rules of the States concerned do.".into())
}

/// Every finding of the rules on `case`, in rule order.
pub fn evaluate(case: &Case<'_>) -> Vec<Finding> {
    RULES
        .iter()
        .filter_map(|rule| {
            (rule.applies)(case).map(|(effect, text, evidence)| Finding {
                rule: rule.id,
                article: rule.article.to_owned(),
                effect,
                text,
                evidence,
                only_for: None,
            })
        })
        .collect()
}
