//! Rules over the evidence: mirror groups move a waste between its hazardous
//! (A), non-hazardous (B) and "other waste" (Y) forms; a B-code without a
//! mirror is weakened when a hazard qualifier applies.
//!
//! Mirror choice, in order: a hazard signal → the A member; mixed and not
//! sorted → the group's `mixed` member (else Y); a clean or sorted signal →
//! B (else Y for clean); no qualifier → the group's `default`, else the
//! best-scoring member. The chosen member takes the pooled score (best + 0.3
//! × the others) and every matched term of the group.

use std::borrow::Cow;

use super::evidence::{words_once, Candidate, Evidence, HazardState, Once};
use super::kb::KnowledgeBase;

/// Factor applied to a B-code with no A mirror when a hazard signal applies.
const UNMIRRORED_GREEN_UNDER_HAZARD: f64 = 0.45;

/// Applies the mirror groups and the hazard penalty.
pub fn apply<'a>(kb: &'a KnowledgeBase, ev: &mut Evidence<'a>) {
    // The groups in the order their first member comes in the candidates
    // as they are now (resolving a group changes the candidates).
    let mut groups: Vec<usize> = Vec::new();
    for code in ev.candidates.keys() {
        if let Some((i, _)) = kb.mirror(code) {
            if !groups.contains(&i) {
                groups.push(i);
            }
        }
    }
    for i in groups {
        resolve_group(kb, ev, i);
    }
    if ev.state() == HazardState::Hazard {
        for (code, cand) in ev.candidates.iter_mut() {
            if code.starts_with('B') && kb.mirror(code).and_then(|(_, m)| m.a.as_ref()).is_none() {
                let words = ev.hazard_joined.get_or_init(|| words_once(&ev.hazard));
                cand.factor *= UNMIRRORED_GREEN_UNDER_HAZARD;
                cand.reasons.push(
                    [
                        "less likely: the description has words of hazard (",
                        words,
                        ") and this Annex IX entry has no hazardous counterpart in Annex VIII",
                    ]
                    .concat(),
                );
            }
        }
    }
}

fn resolve_group<'a>(kb: &'a KnowledgeBase, ev: &mut Evidence<'a>, group: usize) {
    let Some(m) = kb.curated.mirrors.get(group) else {
        return;
    };
    // The members with a candidate (a group has at most three members).
    let mut present = [""; 3];
    let mut count = 0;
    for c in m.members().filter(|c| ev.candidates.contains_key(*c)) {
        if let Some(slot) = present.get_mut(count) {
            *slot = c;
            count += 1;
        }
    }
    let present = &present[..count];
    let (target, why) = choose(ev, m, present);
    let why_text = why.text(ev);
    let Some(target) = target else {
        return;
    };
    let (mut merged, moved_from) = pool_members(ev, m, target);
    if Some(target) == m.a.as_deref() && ev.state() == HazardState::Hazard && !merged.origin_only {
        support_by_hazard(m, &mut merged, &ev.hazard_terms);
    }
    if present.len() > 1 || m.members().count() > 1 {
        merged
            .criteria
            .push([target, " is the form of this waste that fits: ", &why_text].concat());
    }
    for &from in &moved_from {
        ev.considered
            .push((from, [target, " fits instead: ", &*why_text].concat()));
    }
    if !moved_from.is_empty() {
        merged.reasons.push(
            [
                "moved from ",
                &moved_from.join("/"),
                " to ",
                target,
                ": ",
                &why_text,
                " (the entries name one waste in its hazardous and other forms; ",
                &m.src,
                ")",
            ]
            .concat(),
        );
    } else if present.len() == 1 && why != Why::Best {
        merged
            .reasons
            .push([&*why_text, " confirms ", target].concat());
    }
    if matches!(why, Why::Default | Why::Best) && m.members().count() > 1 {
        ev.warnings.push(assumption(m, target));
    }
    ev.candidates.insert(target, merged);
}

/// The candidates of `m`'s members taken out of `ev` and pooled: terms
/// once each (in member order), reasons, spans and criteria in member
/// order; with the members other than `target` that had one. The first
/// member's candidate is the base, so that one member moves without
/// copying.
fn pool_members<'a>(
    ev: &mut Evidence<'a>,
    m: &'a super::curated::Mirror,
    target: &str,
) -> (Candidate, Vec<&'a str>) {
    let mut merged: Option<Candidate> = None;
    let mut moved_from: Vec<&str> = Vec::new();
    for code in m.members() {
        if let Some(c) = ev.candidates.remove(code) {
            if code != target {
                moved_from.push(code);
            }
            let Some(into) = merged.as_mut() else {
                merged = Some(pool_base(c));
                continue;
            };
            for (t, w) in c.terms {
                if !into.terms.iter().any(|(x, _)| *x == t) {
                    into.terms.push((t, w));
                }
            }
            into.origin_only &= c.origin_only;
            into.reasons.extend(c.reasons);
            into.spans.extend(c.spans);
            into.criteria.extend(c.criteria);
        }
    }
    let merged = merged.unwrap_or_else(|| Candidate {
        factor: 1.0,
        ..Candidate::default()
    });
    (merged, moved_from)
}

/// The first member's candidate as the base of the pool: factor 1, no
/// bonus, its terms once each (first occurrence kept, in place).
fn pool_base(mut base: Candidate) -> Candidate {
    base.factor = 1.0;
    base.bonus = 0.0;
    let mut k = 0;
    while k < base.terms.len() {
        if base.terms[..k].iter().any(|(x, _)| *x == base.terms[k].0) {
            base.terms.remove(k);
        } else {
            k += 1;
        }
    }
    base
}

/// The hazardous constituents not among `merged`'s terms that support
/// the group's A member (`m.a_supported_by`: all when absent) add to its
/// bonus (0.3 × their weight), each once, with a reason.
fn support_by_hazard(
    m: &super::curated::Mirror,
    merged: &mut Candidate,
    hazard_terms: &[(Cow<'_, str>, f64, &[String])],
) {
    let supports = |y: &[String]| {
        m.a_supported_by
            .as_ref()
            .is_none_or(|by| y.iter().any(|c| by.contains(c)))
    };
    let mut once = Once::new(hazard_terms.len());
    for (t, w, y) in hazard_terms {
        if !once.first(t) || !supports(y) || merged.terms.iter().any(|(x, _)| x == t) {
            continue;
        }
        merged.bonus += 0.3 * w;
        merged
            .reasons
            .push(["supported by hazardous constituent '", t, "'"].concat());
    }
}

/// Why a group's member was chosen (in words: [`Why::text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// "hazard qualifier (...)": the hazard words.
    Hazard,
    /// "mixed/unsorted (...)": the mixed words.
    Mixed,
    /// "clean qualifier (...)": the clean words.
    Clean,
    /// "sorted (...)": the sorted words.
    Sorted,
    /// "no qualifier: the group's default member".
    Default,
    /// "best-scoring member".
    Best,
}

impl Why {
    /// The reason in words, with the qualifier words of `ev`, each once
    /// (the hazard words joined once per classification).
    fn text(self, ev: &Evidence<'_>) -> Cow<'static, str> {
        let (label, words) = match self {
            Why::Hazard => ("the description says it is hazardous (", Cow::Borrowed(ev.hazard_words())),
            Why::Mixed => ("the description says it is mixed or unsorted (", Cow::Owned(words_once(&ev.mixed))),
            Why::Clean => ("the description says it is clean (", Cow::Owned(words_once(&ev.clean))),
            Why::Sorted => ("the description says it is sorted (", Cow::Owned(words_once(&ev.sorted))),
            Why::Default => return Cow::Borrowed("nothing says whether it is hazardous, clean or mixed, so its usual form was assumed"),
            Why::Best => return Cow::Borrowed("the description's words fit this entry best"),
        };
        let mut out = String::with_capacity(label.len() + words.len() + 1);
        out.push_str(label);
        out.push_str(&words);
        out.push(')');
        Cow::Owned(out)
    }
}

fn choose<'a>(
    ev: &Evidence<'_>,
    m: &'a super::curated::Mirror,
    present: &[&'a str],
) -> (Option<&'a str>, Why) {
    let a = m.a.as_deref();
    let b = m.b.as_deref();
    let y = m.y.as_deref();
    let state = ev.state();
    if state == HazardState::Hazard && a.is_some() {
        return (a, Why::Hazard);
    }
    if ev.is_mixed() {
        if let Some(t) = m.mixed.as_deref().or(y) {
            return (Some(t), Why::Mixed);
        }
    }
    if state == HazardState::Clean {
        if let Some(t) = b.or(y) {
            return (Some(t), Why::Clean);
        }
    }
    if !ev.sorted.is_empty() {
        if let Some(t) = b {
            return (Some(t), Why::Sorted);
        }
    }
    if let Some(d) = m.default.as_deref() {
        return (Some(d), Why::Default);
    }
    let best = present
        .iter()
        .copied()
        .max_by(|x, y| ev.score(x).total_cmp(&ev.score(y)));
    (best, Why::Best)
}

fn assumption(m: &super::curated::Mirror, target: &str) -> String {
    let others: Vec<&str> = m.members().filter(|c| *c != target).collect();
    // One allocation of the exact size (`format!` grew its buffer).
    [
        "Nothing in the description says whether the waste is hazardous, mixed or clean: ",
        target,
        " was assumed; ",
        &others.join(" or "),
        " may apply instead (hazardous: contains Annex I constituents with Annex III characteristics; clean, sorted or mixed otherwise).",
    ]
    .concat()
}
