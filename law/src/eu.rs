//! The rules of Regulation (EU) 2024/1157 on shipments of waste that the
//! planner answers: shipments within the Union (Title II), exports (Title
//! IV: Articles 37, 39, 40, 41, 44, 48), imports (Title V), and the EEA
//! States that apply it. Each is one entry of the rules table (`rules.rs`); the
//! days each is in force are in `data/rules.json` (Article 39(1)(d) from
//! 2026-11-21, Articles 40 and 41 from 2027-05-21, …).
//!
//! "The Union" here is every State that applies the Regulation: the EU
//! member States and, through the EEA Agreement, Iceland, Liechtenstein and
//! Norway ([`StateFacts::wsr`]).

use super::case::{say, Case, Effect, Outcome};
use super::{Operation, StateFacts, WasteKind};

/// Plastic waste B3011 (Annex IX, as amended from 2021).
const B3011: &[&str] = &["B3011"];

/// An export from the Union to a State that does not apply the Regulation
/// (Antarctica has its own rule).
fn export(c: &Case<'_>) -> bool {
    c.origin.wsr() && !c.destination.wsr() && !c.domestic() && c.destination.code != "AQ"
}

/// An export from the Union for recovery to a State the OECD Decision does
/// not cover.
fn export_recovery_outside_oecd(c: &Case<'_>) -> bool {
    export(c) && c.operation == Operation::Recovery && !c.destination.oecd
}

/// Article 48: no export of waste from the Union to the Antarctic.
pub(crate) fn antarctic(c: &Case<'_>) -> Outcome {
    (c.origin.wsr() && c.destination.code == "AQ").then(|| {
        (
            Effect::Prohibits,
            format!("Exports of waste from the Union to the Antarctic are prohibited (any waste, any operation); {} applies the Regulation.", c.origin.name),
            None,
        )
    })
}

/// Before 21 May 2026 Regulation (EC) No 1013/2006 applied; this service
/// does not hold it, so a movement touching the Union is unknown.
pub(crate) fn earlier_law(c: &Case<'_>) -> Outcome {
    if c.domestic() || !(c.origin.wsr() || c.destination.wsr()) {
        return None;
    }
    say(Effect::MayProhibit, format!("On {} Union law on shipments of waste was Regulation (EC) No 1013/2006 (Regulation (EU) 2024/1157 applies from 21 May 2026); this service does not hold its rules: confirm with the competent authorities of {} and {}.", c.as_of, c.origin.name, c.destination.name))
}

/// Article 37: no export from the Union for disposal, except to an EFTA
/// country that is a Party.
pub(crate) fn export_disposal(c: &Case<'_>) -> Outcome {
    let d = c.destination;
    if !export(c) || c.operation != Operation::Disposal {
        return None;
    }
    if d.efta && d.party {
        return say(Effect::Note, format!("Exports of waste for disposal from the Union are prohibited except to an EFTA country that is a Party to the Basel Convention; {} is one, so the export is allowed under prior written notification and consent (Article 38), unless {} prohibits such imports.", d.name, d.name));
    }
    say(Effect::Prohibits, format!("Exports of waste destined for disposal from the Union are prohibited, except to an EFTA country that is a Party to the Basel Convention; {} is not one.", d.name))
}

/// Article 39(1)(a) and (b): hazardous waste for recovery to States the
/// OECD Decision does not cover.
pub(crate) fn export_recovery(c: &Case<'_>) -> Outcome {
    if !export_recovery_outside_oecd(c) || c.waste != WasteKind::Hazardous {
        return None;
    }
    say(Effect::Prohibits, format!("Exports from the Union of hazardous wastes destined for recovery in countries to which the OECD Decision does not apply are prohibited; {} is not an OECD member.", c.destination.name))
}

/// Article 39(1)(c): the wastes of Annex V, Part 2 (Basel Annex II: Y46 to
/// Y49) for recovery to States the OECD Decision does not cover.
pub(crate) fn annex_v_part2(c: &Case<'_>) -> Outcome {
    if !export_recovery_outside_oecd(c) || c.waste != WasteKind::Other {
        return None;
    }
    say(Effect::Prohibits, format!("Exports from the Union for recovery to countries to which the OECD Decision does not apply of the wastes listed in Part 2 of Annex V (List A: the Basel Annex II wastes Y46 to Y49{}) are prohibited; {} is not an OECD member.", c.code.map(|k| format!(", here {k}")).unwrap_or_default(), c.destination.name))
}

/// Article 39(1)(d): plastic waste B3011 for recovery to States the OECD
/// Decision does not cover, from 21 November 2026.
pub(crate) fn plastic_export(c: &Case<'_>) -> Outcome {
    if !export_recovery_outside_oecd(c) || !c.code_in(B3011) {
        return None;
    }
    say(Effect::Prohibits, format!("From 21 November 2026 the export from the Union of plastic waste classified under entry B3011 destined for recovery in countries to which the OECD Decision does not apply is prohibited; {} is not an OECD member.", c.destination.name))
}

/// Article 40(3)(b): until 20 November 2026, B3011 to States the OECD
/// Decision does not cover needs prior written notification and consent.
pub(crate) fn b3011_notification(c: &Case<'_>) -> Outcome {
    if !export_recovery_outside_oecd(c) || !c.code_in(B3011) {
        return None;
    }
    say(Effect::Procedure, format!("Exports from the Union of plastic waste B3011 for recovery to {} (outside the OECD Decision) are subject to prior written notification and consent until 20 November 2026; from 21 November 2026 they are prohibited (Article 39(1)(d)).", c.destination.name))
}

/// Green waste (other than B3011) for recovery outside the OECD Decision,
/// until 20 May 2027: the destination's answer under Regulation (EC) No
/// 1418/2007 decides, per code.
pub(crate) fn green_1418(c: &Case<'_>) -> Outcome {
    if !export_recovery_outside_oecd(c) || c.waste != WasteKind::Green || c.code_in(B3011) {
        return None;
    }
    let answer = super::eu1418::answer(&c.destination.code, c.code);
    Some((answer.effect, answer.text, answer.evidence))
}

/// Green waste for recovery outside the OECD Decision from 21 May 2027:
/// only to a State on the Commission's Article 41 list, for the wastes
/// listed for it.
pub(crate) fn green_list(c: &Case<'_>) -> Outcome {
    if !export_recovery_outside_oecd(c) || c.waste != WasteKind::Green || c.code_in(B3011) {
        return None;
    }
    say(Effect::MayProhibit, format!("From 21 May 2027 exports from the Union of non-hazardous waste for recovery to countries to which the OECD Decision does not apply are prohibited unless the country and the waste are on the Commission's list under Article 41, and then only to facilities it names (Article 40). This service does not hold that list: whether {} is on it for this waste is unknown; treat the export as prohibited until the list confirms it.", c.destination.name))
}

/// Article 44(1)(c): B3011 for recovery to an OECD State outside the Union
/// needs prior written notification and consent.
pub(crate) fn export_oecd(c: &Case<'_>) -> Outcome {
    if !export(c) || c.operation != Operation::Recovery || !c.destination.oecd || !c.code_in(B3011)
    {
        return None;
    }
    say(Effect::Procedure, format!("Exports from the Union of plastic waste B3011 for recovery to {} (a country to which the OECD Decision applies) are subject to prior written notification and consent (Article 44(1)(c)), not to the Green control procedure.", c.destination.name))
}

/// Title II: shipments within the Union.
pub(crate) fn internal(c: &Case<'_>) -> Outcome {
    if c.domestic() || !c.eu_internal() {
        return None;
    }
    let text = match (c.waste, c.operation) {
        (WasteKind::Green, Operation::Recovery) => "A shipment within the Union of green-listed waste for recovery: no notification; it is subject to the general information requirements (Article 18): the Annex VII document, signed by the person who arranges the shipment, travels with the waste, and a contract with the consignee for its recovery is in effect when the document is completed. The Regulation applies from 21 May 2026 for most provisions and replaces Regulation (EC) No 1013/2006.",
        (_, Operation::Disposal) => "A shipment within the Union for disposal: prior written notification and consent (Articles 4 to 17); the authorities of dispatch and destination consent only if the conditions of Article 11 hold (among them, the waste cannot be recovered in a technically feasible and economically viable way, nor disposed of in the country where it was generated). Mixed municipal waste (Y46) is always notified.",
        (_, Operation::Recovery) => "A shipment within the Union of waste that is not green-listed, for recovery: prior written notification and consent (Articles 4 to 17); the authorities of dispatch and destination may raise reasoned objections (Article 12). Mixed municipal waste (Y46) is always notified.",
    };
    say(Effect::Procedure, text.to_owned())
}

/// Title V: imports into the Union; the authority of destination consents
/// in writing, only a dispatch authority outside the Union tacitly.
pub(crate) fn import(c: &Case<'_>) -> Outcome {
    let (o, d) = (c.origin, c.destination);
    if c.domestic() || o.wsr() || !d.wsr() {
        return None;
    }
    say(Effect::Note, format!("An import into the Union: where the shipment is notified, the competent authority of destination in {} consents in writing; only a competent authority of dispatch outside the Union may consent tacitly.", d.name))
}

/// The EEA: Iceland, Liechtenstein and Norway apply the Regulation.
pub(crate) fn eea(c: &Case<'_>) -> Outcome {
    let eea: Vec<&StateFacts> = [c.origin, c.destination]
        .into_iter()
        .filter(|s| s.eea)
        .collect();
    if c.domestic() || eea.is_empty() {
        return None;
    }
    let names: Vec<&str> = eea.iter().map(|s| s.name.as_str()).collect();
    say(Effect::Note, format!("{} applies Regulation (EU) 2024/1157 through the EEA Agreement (Annex XX: 'Member State' includes Iceland, Liechtenstein and Norway), so it is treated as a State of the Union here. The EEA decision incorporating Regulation (EU) 2024/1157 was not read: confirm with its competent authority.", names.join(" and ")))
}
