//! `questions`: what the user or the steward must answer to settle a
//! precautionary answer. Every answer that requires PIC carries at least
//! one; each is tied to the words of an entry (the deciding entry's quote,
//! a List of Waste entry and its mirror, an Annex III characteristic) or,
//! for a vague description, asks for what is missing. A Green answer
//! without PIC has none: nothing is left to settle.

use super::codes::{Kind, Mention};
use super::low::LowKind;
use super::result::{Classification, ListType, WarningCode};

/// Adds the questions (see the module doc). Runs last, after the
/// precaution invariant.
pub fn ask(out: &mut Classification, mentions: &[Mention]) {
    for m in mentions {
        list_of_waste(out, m);
    }
    if out.pic_required {
        deciding_entry(out);
        warned(out);
    }
    if out.pic_required && out.questions.is_empty() {
        out.questions.push(
            "What is the waste: its material, its form (solid, liquid, sludge, powder), the \
process it comes from, and which hazardous constituents (Annex I) or characteristics (Annex III) \
it has?"
                .to_owned(),
        );
    }
    let mut seen: Vec<String> = Vec::new();
    out.questions.retain(|q| {
        let new = !seen.contains(q);
        if new {
            seen.push(q.clone());
        }
        new
    });
}

/// A List of Waste code written: its kind decides what to ask.
fn list_of_waste(out: &mut Classification, m: &Mention) {
    let e = m.entry;
    let Some(low) = e.low.as_ref().filter(|_| e.kind == Kind::Ewc) else {
        return;
    };
    let q = match low.kind {
        LowKind::Absolute => format!(
            "The List of Waste entry {} ('{}') is hazardous whatever it contains: which Annex VIII \
entry describes the waste, and which Annex III characteristics does it show?",
            low.label, low.en
        ),
        LowKind::MirrorHazardous => format!(
            "The List of Waste entry {} ('{}') is hazardous because of the substances it names: \
which are present, and at what concentrations?",
            low.label, low.en
        ),
        LowKind::MirrorNonHazardous if out.pic_required => format!(
            "The List of Waste entry {} ('{}') is non-hazardous only when free of the hazardous \
substances of its mirror entry{}: has an analysis shown that?",
            low.label,
            low.en,
            if low.mirror_of.is_empty() {
                String::new()
            } else {
                format!(" ({})", low.mirror_of.join(", "))
            }
        ),
        _ => return,
    };
    out.questions.push(q);
}

/// The deciding entry's own words: does the waste fit them, and is it
/// free of what would make it hazardous?
fn deciding_entry(out: &mut Classification) {
    let Some(best) = out.best_code().map(str::to_owned) else {
        return;
    };
    let quote = out
        .explanation
        .iter()
        .find(|x| x.code == best.as_str())
        .map(|x| x.quote.to_string())
        .filter(|q| !q.is_empty());
    // The quote starts with the code: "A1160: “Waste lead-acid batteries…”".
    let named = quote.unwrap_or_else(|| best.clone());
    let q = match out.list_type {
        ListType::Amber => format!(
            "Does the waste match {named}? It stays controlled unless it is shown to be free \
of Annex I constituents to an extent that it shows no Annex III characteristic."
        ),
        ListType::Green => format!(
            "Does the waste match {named} exactly, free of the hazard words and of any \
contamination or form the entry excludes (liquid, dispersible, contaminated)?"
        ),
        ListType::AnnexI | ListType::AnnexII => format!(
            "The waste is controlled as {named} with no Annex VIII entry found: which \
Annex VIII or Annex IX entry names this material, and which Annex III characteristics does it \
show?"
        ),
    };
    out.questions.push(q);
}

/// The warnings that leave something to settle, as questions.
fn warned(out: &mut Classification) {
    let codes = out.warning_codes.clone();
    for code in codes {
        let q = match code {
            WarningCode::UnresolvedHazard | WarningCode::ConflictingQualifiers => {
                "The description has words of hazard: is the waste free of them (no residues, \
below the entry's threshold), shown by analysis or inspection?"
            }
            WarningCode::LabAnalysis => {
                "Does a lab analysis show Annex I constituents at levels with Annex III \
characteristics?"
            }
            WarningCode::AssumedForm => {
                "Which form is the waste in: the hazardous one (liquid, dispersible, \
contaminated) or the one the Annex IX entry names?"
            }
            WarningCode::CodeConflict => {
                "The code written and the words point to different entries: which is right?"
            }
            WarningCode::ReuseClaim => {
                "Is each item tested, working and protected for transport (reuse), or is it \
waste?"
            }
            WarningCode::Vague => {
                "What is the waste made of, in what form, and from which process?"
            }
            _ => continue,
        };
        out.questions.push(q.to_owned());
    }
}
