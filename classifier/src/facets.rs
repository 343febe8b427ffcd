//! Facets read from the text beyond words: amounts of contaminants with
//! their units ("PCB 62 mg/kg", "Pb 3.8 %", "loodgehalte < 0,1 %"), pH,
//! and "not detected" statements ("Cr(VI) n.d.", "below detection").
//!
//! Amounts are converted to mg/kg (ppm, g/t and mg/l taken as mg/kg; % ×
//! 10,000; ppb and µg/kg ÷ 1,000), so they can be compared with the
//! thresholds the entries state (see [`super::thresholds`]).

use super::normalize::{Token, CLAUSE};
use super::vocab::{Vocab, UNKNOWN};

/// What an amount is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// PCB, PCT, PCN, PBB (A3180 names them together).
    Pcb,
    /// The pH of a solution.
    Ph,
    /// A metal or metalloid by its symbol, e.g. "Pb".
    Metal(&'static str),
}

/// One statement about an amount.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// What it is of.
    pub subject: Subject,
    /// mg/kg, or the pH value; `None` when stated as not detected.
    pub value: Option<f64>,
    /// The amount is an upper bound ("<", "below").
    pub below: bool,
    /// Byte span of the statement in the description.
    pub span: (usize, usize),
}

/// The metal or metalloid symbol (as used in criteria) a folded word
/// names, by name or symbol; matched on the bytes, so that the many words
/// that name none are told apart by their length and first bytes.
fn metal(word: &[u8]) -> Option<&'static str> {
    Some(match word {
        b"pb" | b"lead" => "Pb",
        b"cd" | b"cadmium" => "Cd",
        b"hg" | b"mercury" => "Hg",
        b"as" | b"arsenic" => "As",
        b"cr" | b"chromium" => "Cr",
        b"sb" | b"antimony" => "Sb",
        b"be" | b"beryllium" => "Be",
        b"se" | b"selenium" => "Se",
        b"te" | b"tellurium" => "Te",
        b"tl" | b"thallium" => "Tl",
        b"ni" | b"nickel" => "Ni",
        b"cu" | b"copper" => "Cu",
        b"zn" | b"zinc" => "Zn",
        _ => return None,
    })
}

/// Words between a subject and its amount that change nothing.
const FILLER: [&str; 18] = [
    "content",
    "concentration",
    "level",
    "lab",
    "total",
    "approx",
    "approximately",
    "ca",
    "about",
    "sum",
    "of",
    "congener",
    "is",
    "at",
    "w",
    "vi",
    "measured",
    "analysis",
];

/// In [`Roles`]: the word may start a subject ([`subject`] reads it).
const SUBJECT_WORD: u8 = 1;
/// In [`Roles`]: a [`FILLER`] word.
const FILLER_WORD: u8 = 2;

/// What each vocabulary word can be in an amount statement, by id, so
/// that the many words that are neither a subject's nor a filler are
/// passed over without comparing their text; words outside the
/// vocabulary are read by their text (same answers).
pub struct Roles {
    by_id: Vec<u8>,
}

impl Roles {
    /// The roles of every word of `vocab`.
    pub fn new(vocab: &Vocab) -> Self {
        Self {
            by_id: vocab.words().map(|(_, w)| role_of(w)).collect(),
        }
    }

    /// The role of token `t` ([`SUBJECT_WORD`], [`FILLER_WORD`] or 0).
    fn of(&self, t: &Token) -> u8 {
        if t.id == UNKNOWN {
            return role_of(t.word());
        }
        self.by_id
            .get(t.id as usize)
            .copied()
            .unwrap_or_else(|| role_of(t.word()))
    }
}

/// The role of the folded word `w`, by its text.
fn role_of(w: &str) -> u8 {
    // Every subject and filler word starts with a lower-case ASCII letter
    // (numbers, the commonest words outside the vocabulary, do not).
    if !w.as_bytes().first().is_some_and(u8::is_ascii_lowercase) {
        return 0;
    }
    let subject = named(w.as_bytes()).is_some();
    let filler = FILLER.contains(&w);
    (u8::from(subject) * SUBJECT_WORD) | (u8::from(filler) * FILLER_WORD)
}

/// What a word that may start a subject names, before the words after it
/// are read (the one list of such words, for [`subject`] and [`role_of`]).
#[derive(Clone, Copy)]
enum Named {
    /// PCB, PCT, PCN, PBB.
    Pcb,
    /// pH.
    Ph,
    /// "polychlorinated" or "polybrominated": PCB before "biphenyl…" or
    /// "terphenyl…".
    Poly,
    /// A metal or metalloid, by name or symbol.
    Metal(&'static str),
}

/// What the folded word `word` may start a subject as.
fn named(word: &[u8]) -> Option<Named> {
    match word {
        b"pcb" | b"pct" | b"pcn" | b"pbb" => Some(Named::Pcb),
        b"ph" => Some(Named::Ph),
        b"polychlorinated" | b"polybrominated" => Some(Named::Poly),
        _ => metal(word).map(Named::Metal),
    }
}

fn subject(tokens: &[Token], i: usize) -> Option<(Subject, usize)> {
    let t = tokens.get(i)?.word();
    let symbol = match named(t.as_bytes())? {
        Named::Pcb => return Some((Subject::Pcb, i + 1)),
        Named::Ph => return Some((Subject::Ph, i + 1)),
        Named::Poly => {
            let biphenyl = tokens
                .get(i + 1)
                .is_some_and(|n| n.text.starts_with("biphenyl") || n.text.starts_with("terphenyl"));
            return biphenyl.then_some((Subject::Pcb, i + 2));
        }
        Named::Metal(symbol) => symbol,
    };
    // "as" and "be" are English words: only as symbols right before a number.
    if matches!(t, "as" | "be")
        && !tokens
            .get(i + 1)
            .is_some_and(|n| n.text.starts_with(|c: char| c.is_ascii_digit()))
    {
        return None;
    }
    Some((Subject::Metal(symbol), i + 1))
}

/// Reads every amount statement: "subject [filler] [comparator] number
/// unit", "subject and subject n.d.", and "lab 21 000 mg/kg" after a
/// subject named earlier in the clause.
pub fn measures(tokens: &[Token], roles: &Roles) -> Vec<Measure> {
    let mut out = Vec::new();
    let mut last: Option<(Subject, usize)> = None;
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].break_before >= CLAUSE {
            last = None;
        }
        let is_subject = roles.of(&tokens[i]) & SUBJECT_WORD != 0;
        let Some((first, mut j)) = is_subject.then(|| subject(tokens, i)).flatten() else {
            if let Some((s, at)) = last {
                let after_filler = i > 0 && roles.of(&tokens[i - 1]) & FILLER_WORD != 0;
                if after_filler && i < at + 15 {
                    if let Some((m, next)) = amount(tokens, i, s) {
                        push(&mut out, tokens, i, next, m);
                        i = next;
                        continue;
                    }
                }
            }
            i += 1;
            continue;
        };
        // Up to four subjects ("Pb, Cd and Hg n.d."), on the stack.
        let mut subjects = [first; 4];
        let mut count = 1;
        loop {
            while j < tokens.len()
                && roles.of(&tokens[j]) & FILLER_WORD != 0
                && tokens[j].break_before < CLAUSE
                && j < i + 8
            {
                j += 1;
            }
            let joined = matches!(tokens.get(j).map(|t| t.word()), Some("and" | "or"));
            match subject(tokens, j + usize::from(joined)) {
                Some((s, next)) if count < 4 => {
                    subjects[count] = s;
                    count += 1;
                    j = next;
                }
                _ => break,
            }
        }
        last = Some((first, i));
        match amount(tokens, j, first) {
            Some((m, next)) => {
                for &s in &subjects[..count] {
                    push(
                        &mut out,
                        tokens,
                        i,
                        next,
                        Measure {
                            subject: s,
                            ..m.clone()
                        },
                    );
                }
                i = next;
            }
            None => i += 1,
        }
    }
    out
}

fn push(out: &mut Vec<Measure>, tokens: &[Token], from: usize, to: usize, m: Measure) {
    let start = tokens.get(from).map_or(0, |t| t.span.0);
    let end = tokens.get(to.saturating_sub(1)).map_or(start, |t| t.span.1);
    out.push(Measure {
        span: (start, end.max(start)),
        ..m
    });
}

/// An amount (or a "not detected") starting at token `j`; returns the
/// measure and the index after it.
fn amount(tokens: &[Token], mut j: usize, subject: Subject) -> Option<(Measure, usize)> {
    let text = |k: usize| tokens.get(k).map_or("", |t| t.word());
    let nd = |k: usize| -> usize {
        match (text(k), text(k + 1)) {
            ("n", "d") | ("not", "detected") | ("below", "detection") | ("below", "loq") => 2,
            ("nd" | "bdl" | "undetectable", _) => 1,
            ("<", "loq" | "lod" | "dl" | "detection") => 2,
            ("not", "detectable") => 2,
            _ => 0,
        }
    };
    let nd_len = nd(j);
    if nd_len > 0 {
        let m = Measure {
            subject,
            value: None,
            below: true,
            span: (0, 0),
        };
        return Some((m, j + nd_len));
    }
    let mut below = false;
    match text(j) {
        "<" | "below" | "under" | "max" | "maximum" => {
            below = true;
            j += 1;
        }
        "less" if text(j + 1) == "than" => {
            below = true;
            j += 2;
        }
        ">" | "above" | "over" | "min" => j += 1,
        "=" => j += 1,
        _ => {}
    }
    let mut value: f64 = text(j).parse().ok()?;
    j += 1;
    // "21 000 mg/kg": a group of three digits continues the number.
    if text(j).len() == 3 && text(j).bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(more) = text(j).parse::<f64>() {
            value = value * 1000.0 + more;
            j += 1;
        }
    }
    if subject == Subject::Ph {
        let ok = (0.0..=14.0).contains(&value);
        let m = Measure {
            subject,
            value: Some(value),
            below,
            span: (0, 0),
        };
        return ok.then_some((m, j));
    }
    let (factor, used) = match (text(j), text(j + 1)) {
        ("%", _) => (10_000.0, 1),
        ("mg", "kg" | "l") | ("g", "t") => (1.0, 2),
        ("ppm", _) => (1.0, 1),
        ("ppb", _) => (0.001, 1),
        ("ug" | "\u{3bc}g", "kg" | "l") => (0.001, 2),
        ("g", "kg") => (1000.0, 2),
        _ => return None,
    };
    let m = Measure {
        subject,
        value: Some(value * factor),
        below,
        span: (0, 0),
    };
    Some((m, j + used))
}

#[cfg(test)]
mod tests {
    use super::super::normalize::tokenize;
    use super::*;
    use rustc_hash::FxHashMap;

    fn read(s: &str) -> Vec<Measure> {
        let vocab = Vocab::default();
        let roles = Roles::new(&vocab);
        measures(
            &super::super::normalize::tokenize(s, &FxHashMap::default(), &vocab),
            &roles,
        )
    }

    #[test]
    fn roles_by_id_are_the_roles_by_text() {
        let kb = super::super::kb::KnowledgeBase::bundled().expect("knowledge base");
        let roles = Roles::new(&kb.vocab);
        let mut seen = [0usize; 4];
        for (id, w) in kb.vocab.words() {
            let t = Token {
                text: std::borrow::Cow::Borrowed(w),
                id,
                break_before: 0,
                span: (0, 0),
                origin: super::super::normalize::Origin::Written,
            };
            let role = roles.of(&t);
            assert_eq!(role, role_of(w), "{w}");
            let by_text = subject(std::slice::from_ref(&t), 0).is_some()
                || matches!(w, "polychlorinated" | "polybrominated" | "as" | "be");
            assert_eq!(role & SUBJECT_WORD != 0, by_text, "{w}");
            assert_eq!(role & FILLER_WORD != 0, FILLER.contains(&w), "{w}");
            seen[usize::from(role)] += 1;
        }
        for w in ["", "5", "13", "0.1", "<", "%", "µg", "Lead", "x"] {
            assert_eq!(role_of(w), 0, "{w}");
        }
        // The vocabulary holds words of each role.
        assert!(seen[0] > 1000 && seen[1] > 5 && seen[2] > 5, "{seen:?}");
    }

    #[test]
    fn a_vocabulary_reads_amounts_as_the_text_does() {
        let kb = super::super::kb::KnowledgeBase::bundled().expect("knowledge base");
        let roles = Roles::new(&kb.vocab);
        for s in [
            "PCB 62 mg/kg (lab)",
            "lead content < 0,1 %, cadmium and mercury n.d.",
            "pH 1,5; copper concentration 3.8 % and zinc 2 %",
            "polychlorinated biphenyls below 5 ppm, as 12 mg/kg, be 3 mg/kg",
            "PCB content measured by the lab 21 000 mg/kg",
        ] {
            let by_id = measures(&tokenize(s, &kb.curated.spellings, &kb.vocab), &roles);
            assert_eq!(by_id, read(s), "{s}");
            assert!(!by_id.is_empty(), "{s}");
        }
    }

    #[test]
    fn metals_are_named_by_name_or_symbol_only() {
        let names = [
            ("pb", "lead", "Pb"),
            ("cd", "cadmium", "Cd"),
            ("hg", "mercury", "Hg"),
            ("as", "arsenic", "As"),
            ("cr", "chromium", "Cr"),
            ("sb", "antimony", "Sb"),
            ("be", "beryllium", "Be"),
            ("se", "selenium", "Se"),
            ("te", "tellurium", "Te"),
            ("tl", "thallium", "Tl"),
            ("ni", "nickel", "Ni"),
            ("cu", "copper", "Cu"),
            ("zn", "zinc", "Zn"),
        ];
        for (symbol, name, criterion) in names {
            assert_eq!(metal(symbol.as_bytes()), Some(criterion));
            assert_eq!(metal(name.as_bytes()), Some(criterion));
        }
        for other in [
            "", "p", "pbx", "leads", "Lead", "zincs", "oil", "iron", "tin",
        ] {
            assert_eq!(metal(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn amounts_units_and_not_detected_are_read() {
        let m = read("PCB 62 mg/kg (lab)");
        assert_eq!(m[0].subject, Subject::Pcb);
        assert_eq!(m[0].value, Some(62.0));
        let m = read("Pb 3.8 %, Cd n.d.");
        assert_eq!(m[0].value, Some(38_000.0));
        assert_eq!(m[1].value, None);
        let m = read("lead content < 0,1 %");
        assert!(m[0].below);
        assert_eq!(m[0].value, Some(1000.0));
        let m = read("pH 1,5");
        assert_eq!(m[0].value, Some(1.5));
        let m = read("lab 21 000 mg/kg PCB");
        assert!(m.is_empty() || m[0].value == Some(21_000.0));
    }
}
