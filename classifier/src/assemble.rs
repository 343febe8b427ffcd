//! Turns scored evidence into a [`Classification`]: ranks candidates, picks
//! the deciding list, adds the related Y/H/UN codes, computes confidences and
//! writes the explanation and warnings.
//!
//! Confidence of a code with score `s`: `1 - e^(-1.7 s)` (one full-weight
//! term ≈ 0.82). Overall confidence: the best code's confidence, lowered by
//! the runner-up's share of the score, by conflicting qualifiers and by a
//! Green result under a hazard qualifier.

use std::borrow::Cow;

use super::annexes::{borrowed_code, CodeStatus};
use super::evidence::{words_once, Candidate, Evidence, Extra, HazardState};
use super::kb::KnowledgeBase;
use super::result::{Classification, CodeMatch, Explanation, ListType, WarningCode, DISCLAIMER};

/// What the assembler needs besides the evidence.
pub struct Context<'a> {
    /// The description as written (explanations quote it).
    pub text: &'a str,
    /// The classifier version string.
    pub version: &'static str,
}

/// An A-code alternative this close to a best B-code decides instead
/// (precaution: in doubt, the controlled answer).
const A_OVER_B_SHARE: f64 = 0.75;

/// Annex IX entries that name equipment themselves (so e-waste close behind
/// them does not take over).
const EQUIPMENT_ENTRIES: [&str; 1] = ["B1040"];

/// Below this best score a description is too vague to classify.
const VAGUE_SCORE: f64 = 0.3;
/// Candidates of other lists are shown when they reach this share of the best score.
const ALTERNATIVE_SHARE: f64 = 0.6;

/// The warning for a description that names no waste the classifier knows.
pub const VAGUE_WARNING: &str = "The description is too vague to classify: say what the waste is \
(material or article, e.g. lead-acid batteries, copper scrap, waste oil, PET flakes), where it comes \
from (process or source), and whether it contains or is contaminated with hazardous constituents \
(e.g. lead, mercury, PCB, asbestos, solvents). Treat it as requiring PIC until classified.";

/// Confidence for a score.
pub fn confidence(score: f64) -> f64 {
    round((1.0 - (-1.7 * score).exp()).clamp(0.0, 0.97))
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn list_of(code: &str) -> ListType {
    match code.as_bytes().first() {
        Some(b'A') => ListType::Amber,
        Some(b'B') => ListType::Green,
        _ => {
            let n: u32 = code[1..].parse().unwrap_or(0);
            if n >= 46 {
                ListType::AnnexII
            } else {
                ListType::AnnexI
            }
        }
    }
}

/// Tie-break between equal scores: A before Y before B (precaution).
fn precedence(code: &str) -> u8 {
    match code.as_bytes().first() {
        Some(b'A') => 0,
        Some(b'Y') => 1,
        _ => 2,
    }
}

/// Builds the classification. The matched terms of
/// the codes returned are moved out of `ev` into the explanations.
pub fn build(kb: &KnowledgeBase, ev: &mut Evidence<'_>, cx: &Context<'_>) -> Classification {
    let version = cx.version;
    let mut ranked: Vec<(&str, f64)> = ev
        .candidates
        .iter()
        .filter(|(c, _)| kb.annexes.in_force(c).is_some())
        .map(|(c, cand)| (*c, cand.score()))
        .filter(|(_, s)| *s > 0.0)
        .collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(precedence(a.0).cmp(&precedence(b.0)))
            .then(a.0.cmp(b.0))
    });
    let mut out = empty(version, std::mem::take(&mut ev.warnings));
    let vague = ranked.first().is_none_or(|b| b.1 < VAGUE_SCORE);
    if vague {
        out.warnings.insert(0, VAGUE_WARNING.to_owned());
        out.warning_codes.push(WarningCode::Vague);
        return out;
    }
    precaution(&mut ranked);
    let Some(&(best, _)) = ranked.first() else {
        return out;
    };
    let list_type = list_of(best);
    let state = ev.state();
    out.list_type = list_type;
    codes(kb, ev, &ranked, &mut out, cx);
    companions(kb, ev, best, &mut out, cx);
    out.pic_required =
        list_type != ListType::Green || state == HazardState::Hazard || !out.a_codes.is_empty();
    out.overall_confidence = overall(ev, &ranked, list_type);
    explain_decision(kb, ev, best, &mut out);
    drop_set_aside_assumptions(&mut out);
    warn(ev, list_type, &mut out);
    out
}

/// An assumed form of a waste ("… B2050 was assumed; …") that a later rule
/// set aside (the answer holds another entry) is no warning: it would
/// contradict the answer. The explanation says why that entry was set aside.
fn drop_set_aside_assumptions(out: &mut Classification) {
    let answer: Vec<String> = out
        .a_codes
        .iter()
        .chain(&out.b_codes)
        .chain(&out.y_codes)
        .map(|m| m.code.to_string())
        .collect();
    out.warnings.retain(|w| {
        let Some(rest) = w.strip_prefix(ASSUMED) else {
            return true;
        };
        rest.split_once(" was assumed")
            .is_none_or(|(code, _)| answer.iter().any(|a| a == code))
    });
}

/// How the warning of an assumed form starts (see `rules::assumption`).
const ASSUMED: &str =
    "Nothing in the description says whether the waste is hazardous, mixed or clean: ";

/// The most entries the deciding explanation names as considered.
const CONSIDERED: usize = 3;

/// Completes the deciding explanation: why its list gives this answer, and
/// which other entries the description also pointed to and why they were
/// not chosen (at most [`CONSIDERED`], best first).
fn explain_decision(kb: &KnowledgeBase, ev: &Evidence<'_>, best: &str, out: &mut Classification) {
    let listed = |c: &str| {
        out.a_codes
            .iter()
            .chain(&out.b_codes)
            .chain(&out.y_codes)
            .any(|m| m.code == c)
    };
    let mut text = String::new();
    text.push_str(list_sentence(out.list_type, out.pic_required));
    let mut named: Vec<&str> = Vec::with_capacity(CONSIDERED);
    // First the entries a rule set aside, with the rule's words.
    for (code, why) in &ev.considered {
        if named.len() == CONSIDERED || *code == best || listed(code) || named.contains(code) {
            continue;
        }
        push_considered(kb, &mut text, named.is_empty(), code, why);
        named.push(code);
    }
    // Then the entries the description points to less strongly.
    let mut others: Vec<(&str, f64, &Candidate)> = ev
        .candidates
        .iter()
        .filter(|(c, cand)| {
            !c.starts_with('Y')
                && **c != best
                && !cand.terms.is_empty()
                && kb.annexes.in_force(c).is_some()
                && !listed(c)
                && !named.contains(c)
        })
        .map(|(c, cand)| (*c, cand.score(), cand))
        .collect();
    others.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    for (code, score, cand) in others.iter().take(CONSIDERED - named.len()) {
        let mut terms: Vec<String> = Vec::with_capacity(cand.terms.len());
        for (t, _) in &cand.terms {
            if !terms.contains(t) {
                terms.push(t.clone());
            }
        }
        let mut why = String::from("the description names ");
        push_quoted(&mut why, &terms);
        why.push_str(", but ");
        match cand.reasons.first() {
            Some(r) if *score <= 0.0 => why.push_str(r),
            _ if *score <= 0.0 => why.push_str("the rest of the description rules it out"),
            _ => {
                why.push_str("it fits the description less well than ");
                why.push_str(best);
            }
        }
        push_considered(kb, &mut text, named.is_empty(), code, &why);
        named.push(code);
    }
    if let Some(e) = out.explanation.first_mut() {
        e.reason.push_str(&text);
    }
}

/// "Also considered: CODE “title” — not chosen: why" (`first`), or "; CODE
/// …" after another.
fn push_considered(kb: &KnowledgeBase, text: &mut String, first: bool, code: &str, why: &str) {
    text.push_str(if first { ". Also considered: " } else { "; " });
    let (code_text, name) = kb.annexes.code_and_name(code);
    text.push_str(&code_text);
    text.push_str(" \u{201c}");
    text.push_str(&shortened(&name, 90));
    text.push_str("\u{201d}, not chosen: ");
    text.push_str(why);
}

/// Why the deciding entry's list gives the answer's list type.
fn list_sentence(list: ListType, pic: bool) -> &'static str {
    match (list, pic) {
        (ListType::Amber, _) => {
            ". It is an Annex VIII (list A) entry: a hazardous waste under the Convention, \
so it moves under prior informed consent (Amber)"
        }
        (ListType::Green, false) => {
            ". It is an Annex IX (list B) entry: not a hazardous waste under the Convention \
unless it contains Annex I material to an extent that it shows an Annex III characteristic, \
so it moves without prior informed consent (Green)"
        }
        (ListType::Green, true) => {
            ". It is an Annex IX (list B) entry, but the description names a hazardous \
constituent or characteristic, so prior informed consent is required until that is ruled out"
        }
        (ListType::AnnexI, _) => {
            ". It is an Annex I category: waste of this category is hazardous under the \
Convention unless it shows no Annex III characteristic, so prior informed consent applies"
        }
        (ListType::AnnexII, _) => {
            ". It is an Annex II category (other wastes): prior informed consent applies"
        }
    }
}

/// `text` cut at a word boundary to at most `max` bytes, with "…" when cut.
fn shortened(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text[..end].rfind(' ').unwrap_or(end);
    Cow::Owned(format!(
        "{}\u{2026}",
        text[..cut].trim_end_matches([',', ';'])
    ))
}

/// A best B-code with an A-code (or Y49: equipment whose parts' metals
/// make the B-code) close behind: that code decides (precaution: in doubt,
/// the controlled answer); otherwise A-codes far
/// behind a B-code are left out of a Green answer, which never carries an
/// Annex VIII code.
fn precaution(ranked: &mut Vec<(&str, f64)>) {
    let Some(&best) = ranked.first() else {
        return;
    };
    if !best.0.starts_with('B') {
        return;
    }
    let close_a = ranked.iter().position(|(c, s)| {
        let equipment_over_material = *c == "Y49" && !EQUIPMENT_ENTRIES.contains(&best.0);
        (c.starts_with('A') || equipment_over_material) && *s >= A_OVER_B_SHARE * best.1
    });
    if let Some(i) = close_a {
        let a = ranked.remove(i);
        ranked.insert(0, a);
    } else {
        ranked.retain(|(c, _)| !c.starts_with('A'));
    }
}

fn empty(version: &'static str, warnings: Vec<String>) -> Classification {
    Classification {
        y_codes: Vec::new(),
        a_codes: Vec::new(),
        b_codes: Vec::new(),
        h_codes: Vec::new(),
        un_codes: Vec::new(),
        list_type: ListType::Amber,
        pic_required: true,
        overall_confidence: 0.1,
        disclaimer: Cow::Borrowed(DISCLAIMER),
        explanation: Vec::new(),
        warnings,
        classifier_version: Cow::Borrowed(version),
        warning_codes: Vec::new(),
        languages: Vec::new(),
        questions: Vec::new(),
    }
}

fn codes(
    kb: &KnowledgeBase,
    ev: &mut Evidence<'_>,
    ranked: &[(&str, f64)],
    out: &mut Classification,
    cx: &Context<'_>,
) {
    let best_score = ranked.first().map_or(0.0, |r| r.1);
    let decides = out.list_type;
    out.explanation.reserve(ranked.len());
    for (i, &(code, score)) in ranked.iter().enumerate() {
        let same_list = list_of(code) == decides
            || (matches!(decides, ListType::AnnexI | ListType::AnnexII) && code.starts_with('Y'));
        if !same_list && score < ALTERNATIVE_SHARE * best_score {
            continue;
        }
        let (code_text, name) = kb.annexes.code_and_name(code);
        let m = CodeMatch {
            code: code_text.clone(),
            name,
            confidence: confidence(score),
        };
        match code.as_bytes().first() {
            Some(b'A') => out.a_codes.push(m),
            Some(b'B') => out.b_codes.push(m),
            _ => out.y_codes.push(m),
        }
        let terms = take_terms(ev, code);
        let cand = ev.candidates.get(code);
        let notes: &[String] = if i == 0 { &ev.notes } else { &[] };
        out.explanation.push(Explanation {
            code: code_text,
            reason: reason_text(i == 0, same_list, &terms, cand),
            criterion: criterion_text(i == 0, code, &terms, cand, notes),
            matched_terms: terms,
            supporting_text: supporting(cx.text, cand.map(|c| c.spans.as_slice())),
            quote: quote(kb, code),
        });
    }
}

/// Each ranked code once: its terms moved out of its candidate (for the
/// explanation), and its spans put in order (which only the explanation
/// reads).
fn take_terms(ev: &mut Evidence<'_>, code: &str) -> Vec<String> {
    ev.candidates
        .get_mut(code)
        .map(|c| {
            c.spans.sort_unstable();
            c.terms
                .iter_mut()
                .map(|t| std::mem::take(&mut t.0))
                .collect()
        })
        .unwrap_or_default()
}

/// Why a code is in the answer: what the description names (for the
/// deciding code, `first`, or on the same list or another), then the
/// candidate's reasons, joined with "; ".
fn reason_text(first: bool, same_list: bool, terms: &[String], cand: Option<&Candidate>) -> String {
    let lead = if first {
        "Decides the answer: the description names "
    } else if same_list {
        "Also possible: the description names "
    } else {
        "Alternative on another list: the description names "
    };
    let reasons = cand.map_or(&[][..], |c| c.reasons.as_slice());
    let room = lead.len()
        + quoted_len(terms)
        + COVERS.len()
        + reasons.iter().map(|r| r.len() + 2).sum::<usize>();
    let mut reason = String::with_capacity(room);
    reason.push_str(lead);
    push_quoted(&mut reason, terms);
    if first {
        reason.push_str(COVERS);
    }
    if let Some(c) = cand {
        for r in &c.reasons {
            reason.push_str("; ");
            reason.push_str(r);
        }
    }
    reason
}

/// The criteria joined with "; ": the candidate's, then `notes` (the
/// deciding code's); for the deciding code (`first`) with neither, what
/// was named.
fn criterion_text(
    first: bool,
    code: &str,
    terms: &[String],
    cand: Option<&Candidate>,
    notes: &[String],
) -> String {
    let own: &[String] = cand.map_or(&[], |c| c.criteria.as_slice());
    let room = own.iter().chain(notes).map(|c| c.len() + 2).sum::<usize>()
        + if first && own.is_empty() && notes.is_empty() {
            NAMED.iter().map(|p| p.len()).sum::<usize>() + quoted_len(terms) + code.len()
        } else {
            0
        };
    let mut criterion = String::with_capacity(room);
    for (k, c) in own.iter().chain(notes).enumerate() {
        if k > 0 {
            criterion.push_str("; ");
        }
        criterion.push_str(c);
    }
    if first && own.is_empty() && notes.is_empty() {
        let [before, between, after] = NAMED;
        criterion.push_str(before);
        push_quoted(&mut criterion, terms);
        criterion.push_str(between);
        criterion.push_str(code);
        criterion.push_str(after);
    }
    criterion
}

/// What the deciding code's reason ends with.
const COVERS: &str = ", which this entry covers";

/// The deciding code's criterion when nothing else decides: "named:
/// 'terms' is a waste CODE covers".
const NAMED: [&str; 3] = ["named: ", " is a waste ", " covers"];

/// The length of [`push_quoted`]'s text for `terms`.
pub fn quoted_len(terms: &[String]) -> usize {
    terms.iter().map(|t| t.len() + 4).sum()
}

/// `'a', 'b'`: each term quoted, joined with ", ", appended to `out`.
pub fn push_quoted(out: &mut String, terms: &[String]) {
    for (i, t) in terms.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('\'');
        out.push_str(t);
        out.push('\'');
    }
}

/// The description's words at `spans` (in order), as written, each once.
fn supporting(text: &str, spans: Option<&[(usize, usize)]>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &(a, b) in spans.unwrap_or_default() {
        if out.len() == 6 {
            break;
        }
        // Compared before copying: a long description names the same
        // words again and again.
        if let Some(s) = text.get(a..b).map(str::trim) {
            if !s.is_empty() && !out.iter().any(|o| o == s) {
                out.push(s.to_owned());
            }
        }
    }
    out
}

/// The entry's official title, quoted (see `Annexes::quote`).
pub fn quote(kb: &KnowledgeBase, code: &str) -> Cow<'static, str> {
    kb.annexes.quote(code)
}

/// Word stems that name each constituent category of Annex I (Y19–Y45).
fn constituent_stems(y: &str) -> Option<&'static [&'static str]> {
    Some(match y {
        "Y19" => &["carbonyl"],
        "Y20" => &["berylli"],
        "Y21" => &["chrom"],
        "Y22" => &["copper", "cupr"],
        "Y23" => &["zinc"],
        "Y24" => &["arsen"],
        "Y25" => &["selen"],
        "Y26" => &["cadmi"],
        "Y27" => &["antimon"],
        "Y28" => &["tellur"],
        "Y29" => &["mercur", "amalgam"],
        "Y30" => &["thalli"],
        "Y31" => &[
            "lead", "plomb", "plomo", "blei", "piombo", "lood", "chumbo", "铅", "chì",
        ],
        "Y32" => &["fluor"],
        "Y33" => &["cyanid"],
        "Y34" => &["acid", "ácid", "säure", "zuur", "酸", "axit"],
        "Y35" => &["basic", "base", "alkal", "caustic", "lye", "hydroxide"],
        "Y36" => &["asbest", "amiant"],
        "Y37" => &["phosph"],
        "Y38" => &["cyanid", "nitrile"],
        "Y39" => &["phenol"],
        "Y40" => &["ether"],
        "Y41" => &["halogen", "chlor", "brom"],
        "Y42" => &["solvent", "thinner", "spirit"],
        "Y43" => &["furan"],
        "Y44" => &["dioxin"],
        "Y45" => &["halogen", "chlor", "brom", "fluor", "organohalogen"],
        _ => return None,
    })
}

/// `lower` holds the description in lower case once some category needed it.
fn supported(y: &str, entry_text: &str, description: &str, lower: &mut Option<String>) -> bool {
    match constituent_stems(y) {
        None => true,
        Some(stems) => stems.iter().any(|s| {
            entry_text.contains(s)
                || lower
                    .get_or_insert_with(|| description.to_lowercase())
                    .contains(s)
        }),
    }
}

fn companions(
    kb: &KnowledgeBase,
    ev: &Evidence<'_>,
    best: &str,
    out: &mut Classification,
    cx: &Context<'_>,
) {
    if out.list_type == ListType::Green && !out.pic_required {
        return;
    }
    let best_conf = out.deciding().first().map_or(0.5, |c| c.confidence);
    let rel = kb.relation(best);
    // (code, confidence, the term that names it; none: a companion of
    // `best`); the reasons are written for the codes kept only.
    let mut ys: Vec<(&str, f64, Option<&str>)> =
        Vec::with_capacity(rel.map_or(0, |r| r.y.len()) + ev.y.len());
    let mut hs: Vec<(&str, f64, Option<&str>)> =
        Vec::with_capacity(rel.map_or(0, |r| r.h.len()) + ev.h.len());
    let mut why = String::new();
    if let Some(r) = rel {
        why = format!("Typical of the waste {best} names: a constituent or hazardous characteristic such waste usually has");
        ys.extend(r.y.iter().map(|y| (y.as_str(), best_conf * 0.9, None)));
        hs.extend(r.h.iter().map(|h| (h.as_str(), best_conf * 0.8, None)));
        out.un_codes.extend(r.un.iter().cloned());
    }
    // A constituent category (Y19–Y45) from the relation only where the
    // relation is read from the entry's wording (source NL), or the entry's
    // text or the description names the constituent.
    let entry_text = kb.annexes.text(best);
    let from_wording = rel.is_some_and(|r| r.src.split('+').any(|s| s == "NL"));
    let mut lower = None;
    ys.retain(|(y, _, _)| from_wording || supported(y, entry_text, cx.text, &mut lower));
    let kept = |e: &&Extra<'_>| {
        ev.ruled_out.is_empty()
            || !e
                .term
                .split(' ')
                .any(|t| ev.ruled_out.iter().any(|w| t == w))
    };
    // Only a code's first kept entry can be written (`push_unique` passes
    // over a code already there), so a code already listed is not read
    // again: a long description names the same terms (and their codes)
    // again and again.
    for (list, extras) in [(&mut ys, &ev.y), (&mut hs, &ev.h)] {
        for e in extras {
            if !list.iter().any(|l| l.0 == e.code) && kept(&e) {
                list.push(from_term(e));
            }
        }
    }
    for e in &ev.un {
        if !out.un_codes.iter().any(|c| c == e.code) {
            out.un_codes.push(e.code.to_owned());
        }
    }
    let reason = |term: Option<&str>| match term {
        Some(t) => ["The description names '", t, "'"].concat(),
        None => why.clone(),
    };
    for (code, conf, term) in ys {
        push_unique(
            kb,
            &mut out.y_codes,
            &mut out.explanation,
            code,
            conf,
            || reason(term),
        );
    }
    for (code, conf, term) in hs {
        push_unique(
            kb,
            &mut out.h_codes,
            &mut out.explanation,
            code,
            conf,
            || reason(term),
        );
    }
}

/// A companion code a term brings: (code, confidence, the term).
fn from_term<'e>(e: &'e Extra<'_>) -> (&'e str, f64, Option<&'e str>) {
    (e.code, confidence(e.weight) * 0.85, Some(&*e.term))
}

fn push_unique(
    kb: &KnowledgeBase,
    list: &mut Vec<CodeMatch>,
    explanation: &mut Vec<Explanation>,
    code: &str,
    conf: f64,
    why: impl FnOnce() -> String,
) {
    if list.iter().any(|c| c.code == code) {
        return;
    }
    let Some(info) = kb
        .annexes
        .get(code)
        .filter(|c| c.status == CodeStatus::InForce)
    else {
        return;
    };
    let code = borrowed_code(Some(info), code);
    list.push(CodeMatch {
        // In force: its name is the official title (see `Annexes::name`).
        name: Cow::Borrowed(info.name.as_str()),
        code: code.clone(),
        confidence: round(conf),
    });
    explanation.push(Explanation {
        quote: quote(kb, &code),
        code,
        matched_terms: Vec::new(),
        reason: why(),
        supporting_text: Vec::new(),
        criterion: String::new(),
    });
}

fn overall(ev: &Evidence<'_>, ranked: &[(&str, f64)], list_type: ListType) -> f64 {
    let best = ranked.first().map_or(0.0, |r| r.1);
    let second = ranked.get(1).map_or(0.0, |r| r.1);
    let mut c = confidence(best) * (1.0 - 0.4 * (second / best).min(1.0));
    if !ev.hazard.is_empty() && !ev.clean.is_empty() {
        c *= 0.85;
    }
    if list_type == ListType::Green && ev.state() == HazardState::Hazard {
        c *= 0.6;
    }
    round(c.clamp(0.2, 0.97))
}

fn warn(ev: &Evidence<'_>, list_type: ListType, out: &mut Classification) {
    if !ev.hazard.is_empty() && !ev.clean.is_empty() {
        out.warning_codes.push(WarningCode::ConflictingQualifiers);
        out.warnings.push(format!(
            "The description has words of hazard ({}) and of cleanliness ({}); {}",
            ev.hazard_words(),
            words_once(&ev.clean),
            if ev.state() == HazardState::Hazard {
                "the waste is treated as hazardous (precaution)."
            } else if list_type == ListType::Green {
                "the waste is treated as clean; check the hazard words."
            } else {
                "the clean words were weighed, but a controlled entry still decides."
            }
        ));
    }
    if list_type == ListType::Green && ev.state() == HazardState::Hazard {
        out.warning_codes.push(WarningCode::UnresolvedHazard);
        out.warnings.push(format!(
            "Words of hazard ({}) stand beside an Annex IX (Green) entry: the waste may be hazardous (Annex I constituents with Annex III characteristics); PIC is assumed until shown otherwise.",
            ev.hazard_words()
        ));
    }
}
