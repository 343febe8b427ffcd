//! Warnings a compliance officer can act on, each with a stable
//! [`WarningCode`], and the precaution invariant applied last:
//!
//! - `pic_required` is false only for a Green answer with no Annex VIII
//!   code, no hazard signal and no claim only a lab can settle;
//! - the list type always agrees with the deciding code (an Annex VIII code
//!   never rides in a Green answer).

use super::assemble::{push_quoted, quoted_len};
use super::result::{set_green_aside, Classification, ListType, WarningCode};
use super::signals::Signals;

/// `'a', 'b'`: each word quoted, joined with ", ", in one allocation.
fn quoted(words: &[String]) -> String {
    let mut out = String::with_capacity(quoted_len(words));
    push_quoted(&mut out, words);
    out
}

fn text(code: WarningCode, words: &[String], out: &Classification) -> Option<String> {
    let w = quoted(words);
    Some(match code {
        WarningCode::ReuseClaim => format!(
            "Reuse or repair is claimed ({w}): used equipment is waste unless each item is tested and \
working, documented, and protected against damage in transport (Basel technical guidelines on \
e-waste, paragraph 32); equipment sent for repair or failure analysis may be exempted only under \
conditions the countries concerned accept. Untested equipment is classified as waste here."
        ),
        WarningCode::PossiblyNotWaste => format!(
            "The goods may not be waste ({w}): a product or by-product that is not discarded is \
outside the Convention. This answer assumes it is a waste; the competent authorities decide \
whether it is."
        ),
        WarningCode::ShipRecycling => format!(
            "Ship or floating structure ({w}): a ship sent for dismantling is waste under the Basel \
Convention, and the Hong Kong International Convention for the Safe and Environmentally Sound \
Recycling of Ships (in force since 26 June 2025) applies to ships of 500 GT or more: check the \
Inventory of Hazardous Materials (asbestos, PCB, oils, heavy metals, ozone-depleting substances)."
        ),
        WarningCode::WholeObject if out.list_type != ListType::Green => format!(
            "Whole object ({w}): classified by the hazardous components it still contains; removing \
them (depollution) can change the answer."
        ),
        WarningCode::LabAnalysis => format!(
            "Lab analysis needed ({w}): whether the waste holds Annex I constituents at levels with \
Annex III characteristics is not established, so the controlled answer is given until an analysis \
shows otherwise."
        ),
        WarningCode::LanguageNotCovered => "The description seems to be in a language the \
classifier does not cover (covered: English, Spanish, Portuguese, French, German, Italian, Dutch, \
and common trade terms in Polish, Turkish, Chinese and Vietnamese); the answer may miss what the text says. Please \
add an English description."
            .to_owned(),
        _ => return None,
    })
}

/// Adds the situation warnings and corrections, then enforces the
/// precaution invariant.
pub fn add(out: &mut Classification, found: &Signals, corrections: &[(String, String)]) {
    for (code, words) in &found.found {
        if let Some(t) = text(*code, words, out) {
            out.warnings.push(t);
            out.warning_codes.push(*code);
        }
    }
    if !corrections.is_empty() {
        // "Read 'a' as 'b', 'c' as 'd' (spelling); ...", written in one string.
        const HEAD: &str = "Read ";
        const TAIL: &str = " (spelling); check the answer if that is wrong.";
        let parts: usize = corrections
            .iter()
            .map(|(a, b)| a.len() + b.len() + 10)
            .sum();
        let mut read = String::with_capacity(HEAD.len() + parts + TAIL.len());
        read.push_str(HEAD);
        for (k, (a, b)) in corrections.iter().enumerate() {
            if k > 0 {
                read.push_str(", ");
            }
            for part in ["'", a, "' as '", b, "'"] {
                read.push_str(part);
            }
        }
        read.push_str(TAIL);
        out.warnings.push(read);
        out.warning_codes.push(WarningCode::SpellingCorrected);
    }
    if out.warnings.iter().any(|w| w.contains(" is not in force")) {
        out.warning_codes.push(WarningCode::DeletedCode);
    }
    if out
        .warnings
        .iter()
        .any(|w| w.starts_with("Nothing in the description says whether"))
    {
        out.warning_codes.push(WarningCode::AssumedForm);
    }
    enforce(out, found.get(WarningCode::LabAnalysis).is_some());
}

/// The precaution invariant (see the module doc).
pub fn enforce(out: &mut Classification, lab_needed: bool) {
    if out.list_type == ListType::Green && !out.a_codes.is_empty() {
        out.list_type = ListType::Amber;
        let a = out.a_codes.remove(0);
        out.a_codes.insert(0, a);
    }
    if out.list_type == ListType::Green && out.b_codes.is_empty() {
        out.list_type = ListType::Amber;
    }
    if out.list_type != ListType::Green || !out.a_codes.is_empty() || lab_needed {
        out.pic_required = true;
    }
    if out.list_type == ListType::Green && out.pic_required {
        set_green_aside(
            out,
            "words of hazard or a claim only a lab can settle stand beside it",
        );
    }
}
