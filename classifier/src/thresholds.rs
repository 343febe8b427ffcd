//! Amounts compared with what the entries state:
//!
//! | facet | rule | source |
//! |---|---|---|
//! | PCB/PCT/PCN/PBB | ≥ 50 mg/kg → A3180; below or not detected → A3180 does not apply | A3180 "at a concentration level of 50 mg/kg or more" |
//! | pH | ≤ 2 or ≥ 11.5 → corrosive (H8), A4090; in between → B2120 for acid/basic solutions | B2120 "pH greater than 2 and less than 11.5", A4090 |
//! | Annex I metals (Pb, Cd, Hg, As, Sb, Be, Se, Te, Tl) | ≥ 0.1 % → hazard signal for the metal's entry; below or not detected → the metal is not a hazard signal | no annex threshold: 0.1 % is a screening level, Annex III testing decides |
//!
//! One mechanism: each measure either supports an entry (adds it with the
//! criterion in words) or rules a constituent out (its terms stop counting
//! as hazard signals and the entries that rest on them alone are dropped).

use super::evidence::{Candidate, Evidence, Extra};
use super::facets::{Measure, Subject};

/// A3180's threshold, mg/kg.
const PCB_LIMIT: f64 = 50.0;
/// Screening level for Annex I metals, mg/kg (0.1 %).
const METAL_SCREEN: f64 = 1000.0;

/// Words (folded) of the curated terms that name each metal.
fn metal_words(symbol: &str) -> &'static [&'static str] {
    match symbol {
        "Pb" => &["lead", "pb", "litharge"],
        "Cd" => &["cadmium", "cd"],
        "Hg" => &["mercury", "hg", "mercuric", "mercurous"],
        "As" => &["arsenic", "arsenate", "arsenite"],
        "Cr" => &["chromium", "cr", "chromate", "dichromate", "chromic"],
        "Sb" => &["antimony", "sb"],
        "Be" => &["beryllium"],
        "Se" => &["selenium"],
        "Te" => &["tellurium"],
        "Tl" => &["thallium"],
        "Ni" => &["nickel"],
        "Cu" => &["copper", "cupric"],
        "Zn" => &["zinc"],
        _ => &[],
    }
}

fn metal_entry(symbol: &str) -> Option<&'static str> {
    match symbol {
        "Pb" | "Cd" | "Sb" | "Be" | "Se" | "Te" => Some("A1020"),
        "Hg" | "As" | "Tl" => Some("A1030"),
        _ => None,
    }
}

fn fmt_mgkg(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{} %", trim(v / 10_000.0))
    } else {
        format!("{} mg/kg", trim(v))
    }
}

fn trim(v: f64) -> String {
    // A whole number prints as its digits ("13.000" trimmed is "13").
    if v.fract() == 0.0 && v.is_sign_positive() && v < 1e15 {
        return (v as u64).to_string();
    }
    let mut s = format!("{v:.3}");
    let kept = s.trim_end_matches('0').trim_end_matches('.').len();
    s.truncate(kept);
    s
}

/// Applies every measure to the evidence.
///
/// A long description often states the same amount many times ("PCB below
/// 5 mg/kg" in every lot); each statement changes the evidence as before,
/// but the texts it writes are formatted once ([`Texts`]) and a
/// constituent is ruled out once ([`rule_out`] a second time with the
/// same words removes nothing: see [`Texts::rule_out_once`]).
pub fn apply(ev: &mut Evidence, measures: &[Measure]) {
    let mut texts = Texts::default();
    for m in measures {
        match m.subject {
            Subject::Pcb => pcb(ev, m, &mut texts),
            Subject::Ph => ph(ev, m, &mut texts),
            Subject::Metal(sym) => metal(ev, m, sym, &mut texts),
        }
    }
}

/// Which text of which measure: (subject, value's bits, below, which text).
type TextKey = (Subject, Option<u64>, bool, u8);

/// The texts already written for a measure, and the constituents already
/// ruled out, within one [`apply`].
#[derive(Default)]
struct Texts {
    /// The texts written, by [`TextKey`].
    written: Vec<(TextKey, String)>,
    /// The subjects whose words were ruled out.
    ruled_out: Vec<Subject>,
}

impl Texts {
    /// Text number `which` for measure `m`: `make()` the first time, a
    /// copy after (the texts depend on the subject, value and bound only).
    fn get(&mut self, m: &Measure, which: u8, make: impl FnOnce() -> String) -> String {
        let key = (m.subject, m.value.map(f64::to_bits), m.below, which);
        if let Some((_, t)) = self.written.iter().find(|(k, _)| *k == key) {
            return t.clone();
        }
        let t = make();
        self.written.push((key, t.clone()));
        t
    }

    /// [`rule_out`] for `subject`, unless already done in this [`apply`]:
    /// doing it again would remove nothing, since what is added in between
    /// (the terms "PCB 62 mg/kg", "Pb 3.8 %", "pH 13" of the amounts) never
    /// names a ruled-out word (those are lower case: "pcb", "lead", "pb"),
    /// and `ruled_out` holds each word once.
    fn rule_out_once(
        &mut self,
        ev: &mut Evidence,
        subject: Subject,
        words: &[&str],
        codes: &[&'static str],
    ) {
        if self.ruled_out.contains(&subject) {
            return;
        }
        self.ruled_out.push(subject);
        rule_out(ev, words, codes);
    }
}

fn pcb(ev: &mut Evidence, m: &Measure, texts: &mut Texts) {
    let words = [
        "pcb",
        "pcbs",
        "pct",
        "pcn",
        "pbb",
        "polychlorinated biphenyl",
    ];
    match m.value {
        Some(v) if !m.below && v >= PCB_LIMIT => {
            let term = texts.get(m, 0, || format!("PCB {}", fmt_mgkg(v)));
            let text = texts.get(m, 1, || format!("{term} ≥ 50 mg/kg (A3180 threshold)"));
            add(ev, "A3180", &term, 1.5, m, text);
            ev.hazard.push(term.into());
        }
        v => {
            let said = || {
                v.map_or("not detected".to_owned(), |v| {
                    format!("{}{}", if m.below { "< " } else { "" }, fmt_mgkg(v))
                })
            };
            texts.rule_out_once(ev, Subject::Pcb, &words, &["A3180"]);
            let clean = texts.get(m, 0, || format!("PCB {}", said()));
            let note = texts.get(m, 1, || {
                format!("{clean} is below the 50 mg/kg of A3180, so A3180 does not apply")
            });
            ev.clean.push(clean.into());
            ev.notes.push(note);
        }
    }
}

fn ph(ev: &mut Evidence, m: &Measure, texts: &mut Texts) {
    let Some(v) = m.value else {
        return;
    };
    // "pH < 1" is at most 1: corrosive; "pH > 12" likewise.
    let corrosive = v <= 2.0 || (v >= 11.5 && !m.below);
    if corrosive {
        let bound = if v <= 2.0 { "≤ 2" } else { "≥ 11.5" };
        let term = texts.get(m, 0, || format!("pH {}", trim(v)));
        let text = texts.get(m, 1, || {
            format!("{term} {bound}: corrosive (H8); B2120 covers only pH above 2 and below 11.5")
        });
        add(ev, "A4090", &term, 0.8, m, text);
        ev.hazard.push(term.clone().into());
        ev.h.push(Extra {
            code: "H8",
            weight: 0.9,
            term: std::borrow::Cow::Owned(term),
        });
        return;
    }
    if let Some(acid) = ev.candidates.remove("A4090") {
        let text = format!("pH {} is above 2 and below 11.5 (B2120)", trim(v));
        ev.considered.push(("A4090", text.clone()));
        let words: Vec<String> = acid.terms.iter().map(|t| t.0.clone()).collect();
        ev.hazard.retain(|h| !words.iter().any(|w| *w == **h));
        let cand = ev.candidates.entry("B2120").or_default();
        merge(cand, acid);
        cand.criteria.push(text);
        ev.clean.push(format!("pH {}", trim(v)).into());
    }
}

fn metal(ev: &mut Evidence, m: &Measure, sym: &'static str, texts: &mut Texts) {
    let words = metal_words(sym);
    match m.value {
        Some(v) if !m.below && v >= METAL_SCREEN => {
            let Some(code) = metal_entry(sym) else {
                return;
            };
            let term = texts.get(m, 0, || format!("{sym} {}", fmt_mgkg(v)));
            let text = texts.get(m, 1, || format!(
                "{term} ≥ 0.1 %: an Annex I constituent in a significant amount ({code}); Annex III testing decides"
            ));
            add(ev, code, &term, 0.5, m, text);
            ev.hazard.push(term.into());
        }
        Some(v) if !m.below => {
            let note = texts.get(m, 0, || {
                format!("{sym} {} is below the 0.1 % screening level", fmt_mgkg(v))
            });
            ev.notes.push(note);
        }
        v => {
            let codes = ["A1010", "A1020", "A1030", "A1040"];
            texts.rule_out_once(ev, m.subject, words, &codes);
            let clean = texts.get(m, 0, || {
                let said = v.map_or("not detected".to_owned(), |v| format!("< {}", fmt_mgkg(v)));
                format!("{sym} {said}")
            });
            ev.clean.push(clean.into());
        }
    }
}

/// The constituent's words stop being hazard signals; the listed entries
/// lose the terms that name it (and go when nothing else supports them).
fn rule_out(ev: &mut Evidence, words: &[&str], codes: &[&'static str]) {
    let names = |t: &str| names_any(t, words);
    ev.hazard.retain(|h| !names(h));
    ev.hazard_terms.retain(|(h, _, _)| !names(h));
    for code in codes {
        if let Some(c) = ev.candidates.get_mut(*code) {
            c.terms.retain(|(t, _)| !names(t));
            if c.terms.is_empty() {
                ev.candidates.remove(*code);
                ev.considered.push((
                    *code,
                    "the amount written is below its limit or not detected".to_owned(),
                ));
            }
        }
    }
    for w in words {
        if !ev.ruled_out.iter().any(|r| r == w) {
            ev.ruled_out.push((*w).to_owned());
        }
    }
}

/// Whether a word of `t` (split at spaces) is one of `words`.
fn names_any(t: &str, words: &[&str]) -> bool {
    let mut start = 0;
    for (i, b) in t.bytes().enumerate() {
        if b == b' ' {
            if t.get(start..i).is_some_and(|w| words.contains(&w)) {
                return true;
            }
            start = i + 1;
        }
    }
    t.get(start..).is_some_and(|w| words.contains(&w))
}

/// Adds `term` to the candidate `code` with the amount's span and the
/// criterion's text (moved in: the caller has no further use for it).
fn add(
    ev: &mut Evidence<'_>,
    code: &'static str,
    term: &str,
    weight: f64,
    m: &Measure,
    criterion: String,
) {
    let c = ev.candidates.entry(code).or_default();
    c.add(term, weight);
    c.spans.push(m.span);
    c.criteria.push(criterion);
}

fn merge(into: &mut Candidate, from: Candidate) {
    if into.factor == 0.0 {
        into.factor = 1.0;
    }
    for (t, w) in from.terms {
        into.add(&t, w);
    }
    into.spans.extend(from.spans);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_print_as_formatting_to_three_places_did() {
        let old = |v: f64| {
            let mut s = format!("{v:.3}");
            let kept = s.trim_end_matches('0').trim_end_matches('.').len();
            s.truncate(kept);
            s
        };
        for v in [
            0.0, -0.0, 1.0, 5.0, 13.0, 50.0, 1000.0, 21_000.0, 38_000.0, 1e14, 1e15, 1e16, 0.3,
            1.5, 2.05, 11.5,
        ] {
            assert_eq!(trim(v), old(v), "{v}");
        }
    }

    #[test]
    fn names_any_splits_at_spaces() {
        let words = ["pcb", "lead"];
        for t in [
            "pcb",
            "PCB 62 mg/kg",
            "lead acid battery",
            "leaded",
            "",
            " ",
            "a  lead",
            "pcbs",
            "x pcb",
        ] {
            assert_eq!(
                names_any(t, &words),
                t.split(' ').any(|w| words.contains(&w)),
                "{t}"
            );
        }
    }
}
