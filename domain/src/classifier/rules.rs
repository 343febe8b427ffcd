//! Rules over the evidence: mirror groups move a waste between its hazardous
//! (A), non-hazardous (B) and "other waste" (Y) forms; a B-code without a
//! mirror is weakened when a hazard qualifier applies.
//!
//! Mirror choice, in order: a hazard signal → the A member; mixed and not
//! sorted → the group's `mixed` member (else Y); a clean or sorted signal →
//! B (else Y for clean); no qualifier → the group's `default`, else the
//! best-scoring member. The chosen member takes the pooled score (best + 0.3
//! × the others) and every matched term of the group.

use super::evidence::{Candidate, Evidence, HazardState};
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
        let words = ev.hazard.join(", ");
        for (code, cand) in ev.candidates.iter_mut() {
            if code.starts_with('B') && kb.mirror(code).and_then(|(_, m)| m.a.as_ref()).is_none() {
                cand.factor *= UNMIRRORED_GREEN_UNDER_HAZARD;
                cand.reasons.push(format!(
                    "weakened: hazard qualifier ({words}) but this Annex IX entry has no Annex VIII mirror"
                ));
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
    let Some(target) = target else {
        return;
    };
    // The members' candidates pooled: terms once each (in member order),
    // reasons, spans and criteria in member order. The first member's
    // candidate is the base, so that one member moves without copying.
    let mut merged: Option<Candidate> = None;
    let mut moved_from: Vec<&str> = Vec::new();
    for code in m.members() {
        if let Some(c) = ev.candidates.remove(code) {
            if code != target {
                moved_from.push(code);
            }
            let Some(into) = merged.as_mut() else {
                let mut base = c;
                base.factor = 1.0;
                base.bonus = 0.0;
                // Terms once each, first occurrence kept (in place).
                let mut k = 0;
                while k < base.terms.len() {
                    if base.terms[..k].iter().any(|(x, _)| *x == base.terms[k].0) {
                        base.terms.remove(k);
                    } else {
                        k += 1;
                    }
                }
                merged = Some(base);
                continue;
            };
            for (t, w) in c.terms {
                if !into.terms.iter().any(|(x, _)| *x == t) {
                    into.terms.push((t, w));
                }
            }
            into.reasons.extend(c.reasons);
            into.spans.extend(c.spans);
            into.criteria.extend(c.criteria);
        }
    }
    let mut merged = merged.unwrap_or_else(|| Candidate {
        factor: 1.0,
        ..Candidate::default()
    });
    if Some(target) == m.a.as_deref() && ev.state() == HazardState::Hazard {
        for (t, w) in &ev.hazard_terms {
            if !merged.terms.iter().any(|(x, _)| x == t) {
                merged.bonus += 0.3 * w;
                merged
                    .reasons
                    .push(format!("supported by hazardous constituent '{t}'"));
            }
        }
    }
    if present.len() > 1 || m.members().count() > 1 {
        merged
            .criteria
            .push(format!("{target} chosen in its group: {why}"));
    }
    if !moved_from.is_empty() {
        merged.reasons.push(format!(
            "moved from {} to {target}: {why} (mirror group, {})",
            moved_from.join("/"),
            m.src
        ));
    } else if present.len() == 1 && why != "best-scoring member" {
        merged.reasons.push(format!("{why} confirms {target}"));
    }
    if (why.starts_with("no qualifier") || why == "best-scoring member") && m.members().count() > 1
    {
        ev.warnings.push(assumption(m, target));
    }
    ev.candidates.insert(target, merged);
}

fn choose<'a>(
    ev: &Evidence<'_>,
    m: &'a super::curated::Mirror,
    present: &[&'a str],
) -> (Option<&'a str>, String) {
    let quote = |v: &[std::borrow::Cow<'_, str>]| v.join(", ");
    let a = m.a.as_deref();
    let b = m.b.as_deref();
    let y = m.y.as_deref();
    let state = ev.state();
    if state == HazardState::Hazard && a.is_some() {
        return (a, format!("hazard qualifier ({})", quote(&ev.hazard)));
    }
    if ev.is_mixed() {
        if let Some(t) = m.mixed.as_deref().or(y) {
            return (Some(t), format!("mixed/unsorted ({})", quote(&ev.mixed)));
        }
    }
    if state == HazardState::Clean {
        if let Some(t) = b.or(y) {
            return (Some(t), format!("clean qualifier ({})", quote(&ev.clean)));
        }
    }
    if !ev.sorted.is_empty() {
        if let Some(t) = b {
            return (Some(t), format!("sorted ({})", quote(&ev.sorted)));
        }
    }
    if let Some(d) = m.default.as_deref() {
        return (
            Some(d),
            "no qualifier: the group's default member".to_owned(),
        );
    }
    let best = present
        .iter()
        .copied()
        .max_by(|x, y| ev.score(x).total_cmp(&ev.score(y)));
    (best, "best-scoring member".to_owned())
}

fn assumption(m: &super::curated::Mirror, target: &str) -> String {
    let others: Vec<&str> = m.members().filter(|c| *c != target).collect();
    format!(
        "No qualifier says whether the waste is hazardous, mixed or clean: {target} was assumed; {} may apply instead (hazardous: contains Annex I constituents with Annex III characteristics; clean, sorted or mixed otherwise).",
        others.join(" or ")
    )
}
