//! The trade-description evaluation set (`trade_cases.json`): realistic waste
//! descriptions as traders, customs brokers and recyclers write them (many
//! languages, typos, trade jargon, HS headings, thresholds and negations),
//! each with the Basel entry that decides it.
//!
//! Three checks:
//! * the composition of the set (size, languages, misspellings, unique ids,
//!   every code known to the annex data, every `why` citing a code);
//! * safety and coherence of every answer (no missed PIC, list type agrees
//!   with the codes);
//! * the same metrics as `shared/eval/score_classifier.py`, with the overall
//!   score at or above [`MIN_SCORE`].
//!
//! Run with `cargo test -p classifier trade_cases -- --nocapture` to see the
//! metric lines and every `MISS` line.

use std::collections::{BTreeMap, HashSet};

use classifier::{Classification, Classifier, CodeMatch, ListType};
use domain::values::CountryCode;
use serde::Deserialize;

const CASES: &str = include_str!("trade_cases.json");

/// The overall score (mean of the applicable metrics) the classifier must reach.
const MIN_SCORE: f64 = 0.90;
/// Composition floor: number of cases.
const MIN_CASES: usize = 400;
/// Composition floor: cases tagged with a `lang:` tag other than `lang:en`.
const MIN_NON_ENGLISH: usize = 100;
/// Composition floor: cases tagged `misspelling`.
const MIN_MISSPELT: usize = 40;

/// The metrics of `score_classifier.py`, in its order.
const METRICS: [&str; 9] = [
    "list_type",
    "pic_required",
    "top1",
    "codes_any",
    "y_any",
    "h_any",
    "un_any",
    "no_forbidden",
    "schema",
];

#[derive(Deserialize)]
struct CaseFile {
    about: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    description: String,
    expect: Expect,
    why: String,
    tags: Vec<String>,
    #[serde(default)]
    origin: Option<String>,
    #[serde(default)]
    destination: Option<String>,
}

#[derive(Deserialize)]
struct Expect {
    list_type: Vec<String>,
    pic_required: bool,
    top_any: Vec<String>,
    codes_any: Vec<String>,
    forbid: Vec<String>,
    #[serde(default)]
    y_any: Option<Vec<String>>,
    #[serde(default)]
    h_any: Option<Vec<String>>,
    #[serde(default)]
    un_any: Option<Vec<String>>,
}

fn load() -> CaseFile {
    serde_json::from_str(CASES).expect("trade_cases.json parses")
}

fn classifier() -> Classifier {
    Classifier::bundled().expect("the embedded knowledge base builds")
}

fn codes(list: &[CodeMatch]) -> Vec<String> {
    list.iter().map(|c| c.code.trim().to_uppercase()).collect()
}

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// Basel-code-shaped words in a text: Y1–Y49, A/B + four digits, H1–H13
/// (with an optional `.n`).
fn code_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            let mut chars = w.chars();
            let head = chars.next();
            let rest: String = chars.collect();
            let digits_ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
            match head {
                Some('Y') => digits_ok(&rest),
                Some('A' | 'B') => rest.len() == 4 && digits_ok(&rest),
                Some('H') => {
                    let mut parts = rest.splitn(2, '.');
                    let main = parts.next().unwrap_or("");
                    digits_ok(main) && parts.next().is_none_or(digits_ok)
                }
                _ => false,
            }
        })
        .map(str::to_owned)
        .collect()
}

fn schema_ok(r: &Classification) -> bool {
    let Ok(v) = serde_json::to_value(r) else {
        return false;
    };
    [
        "y_codes",
        "a_codes",
        "b_codes",
        "h_codes",
        "un_codes",
        "list_type",
        "pic_required",
        "overall_confidence",
        "disclaimer",
    ]
    .iter()
    .all(|k| v.get(*k).is_some())
        && (0.0..=1.0).contains(&r.overall_confidence)
        && !r.disclaimer.is_empty()
}

/// One case's answer and the metrics it passed or failed.
struct Scored {
    id: String,
    description: String,
    expect_pic: bool,
    answer: Classification,
    results: Vec<(&'static str, bool)>,
}

impl Scored {
    fn failed(&self) -> Vec<&'static str> {
        self.results
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(k, _)| *k)
            .collect()
    }

    fn answer_line(&self) -> String {
        let r = &self.answer;
        format!(
            "list_type={} pic={} A={:?} B={:?} Y={:?} H={:?} UN={:?}",
            r.list_type.as_str(),
            r.pic_required,
            codes(&r.a_codes),
            codes(&r.b_codes),
            codes(&r.y_codes),
            codes(&r.h_codes),
            r.un_codes
        )
    }

    fn miss_line(&self) -> String {
        format!(
            "MISS {} {:?}: {:?} -> {}",
            self.id,
            self.failed(),
            self.description,
            self.answer_line()
        )
    }
}

/// Runs every case through the bundled classifier, as score_classifier.py
/// does through the REST endpoint.
fn score_all() -> Vec<Scored> {
    let file = load();
    let c = classifier();
    file.cases
        .iter()
        .map(|case| {
            let r = c.classify(&case.description);
            let e = &case.expect;
            let (a, b, y, h) = (
                codes(&r.a_codes),
                codes(&r.b_codes),
                codes(&r.y_codes),
                codes(&r.h_codes),
            );
            let all: HashSet<&String> = a.iter().chain(&b).chain(&y).collect();
            let lt = r.list_type.as_str();
            let deciding = match lt {
                "Amber" => &a,
                "Green" => &b,
                _ => &y,
            };
            let mut results: Vec<(&'static str, bool)> = vec![
                ("schema", schema_ok(&r)),
                ("list_type", e.list_type.iter().any(|x| x == lt)),
                ("pic_required", r.pic_required == e.pic_required),
                (
                    "top1",
                    deciding.first().is_some_and(|x| e.top_any.contains(x)),
                ),
                ("codes_any", all.iter().any(|x| e.codes_any.contains(x))),
                ("no_forbidden", !all.iter().any(|x| e.forbid.contains(x))),
            ];
            if let Some(want) = &e.y_any {
                results.push(("y_any", y.iter().any(|x| want.contains(x))));
            }
            if let Some(want) = &e.h_any {
                results.push(("h_any", h.iter().any(|x| want.contains(x))));
            }
            if let Some(want) = &e.un_any {
                results.push((
                    "un_any",
                    r.un_codes.iter().any(|u| want.contains(&digits(u))),
                ));
            }
            Scored {
                id: case.id.clone(),
                description: case.description.clone(),
                expect_pic: e.pic_required,
                answer: r,
                results,
            }
        })
        .collect()
}

#[test]
fn trade_cases_composition_meets_the_brief() {
    let file = load();
    let c = classifier();
    assert!(!file.about.trim().is_empty(), "the set says what it is");
    let cases = &file.cases;
    assert!(
        cases.len() >= MIN_CASES,
        "at least {MIN_CASES} cases, found {}",
        cases.len()
    );

    let mut problems = Vec::new();
    let mut ids = HashSet::new();
    let mut langs: BTreeMap<String, usize> = BTreeMap::new();
    let (mut non_english, mut misspelt) = (0usize, 0usize);
    for case in cases {
        if !ids.insert(case.id.as_str()) {
            problems.push(format!("{}: duplicate id", case.id));
        }
        if case.description.trim().is_empty() {
            problems.push(format!("{}: empty description", case.id));
        }
        let case_langs: Vec<&str> = case
            .tags
            .iter()
            .filter_map(|t| t.strip_prefix("lang:"))
            .collect();
        for l in &case_langs {
            *langs.entry((*l).to_owned()).or_default() += 1;
        }
        if case_langs.iter().any(|l| *l != "en") {
            non_english += 1;
        }
        if case.tags.iter().any(|t| t == "misspelling") {
            misspelt += 1;
        }
        let e = &case.expect;
        if e.list_type.is_empty()
            || e.list_type
                .iter()
                .any(|l| !["Amber", "Green", "Annex I", "Annex II"].contains(&l.as_str()))
        {
            problems.push(format!("{}: bad list_type {:?}", case.id, e.list_type));
        }
        if e.top_any.is_empty() || e.codes_any.is_empty() {
            problems.push(format!("{}: empty top_any or codes_any", case.id));
        }
        // A Green-only expectation never needs PIC; Amber, Annex I and
        // Annex II always do.
        let green_only = e.list_type.iter().all(|l| l == "Green");
        if green_only == e.pic_required {
            problems.push(format!(
                "{}: pic_required {} contradicts list_type {:?}",
                case.id, e.pic_required, e.list_type
            ));
        }
        let lists = [
            ("top_any", &e.top_any),
            ("codes_any", &e.codes_any),
            ("forbid", &e.forbid),
        ];
        for (name, list) in lists {
            for code in list.iter() {
                if c.lookup(code).is_none() {
                    problems.push(format!("{}: {name} code {code} is unknown", case.id));
                }
            }
        }
        for (name, list) in [("y_any", &e.y_any), ("h_any", &e.h_any)] {
            for code in list.iter().flatten() {
                if c.lookup(code).is_none() {
                    problems.push(format!("{}: {name} code {code} is unknown", case.id));
                }
            }
        }
        for code in &e.top_any {
            if e.forbid.contains(code) {
                problems.push(format!("{}: {code} both expected and forbidden", case.id));
            }
        }
        let cited = code_words(&case.why);
        if !cited.iter().any(|w| c.lookup(w).is_some()) {
            problems.push(format!(
                "{}: why cites no known code: {:?}",
                case.id, case.why
            ));
        }
        for k in [&case.origin, &case.destination].into_iter().flatten() {
            if CountryCode::parse(k).is_err() {
                problems.push(format!("{}: bad country code {k}", case.id));
            }
        }
    }
    println!(
        "trade_cases: {} cases, {non_english} non-English {langs:?}, {misspelt} misspelt",
        cases.len()
    );
    assert!(
        non_english >= MIN_NON_ENGLISH,
        "at least {MIN_NON_ENGLISH} non-English cases, found {non_english}"
    );
    assert!(
        misspelt >= MIN_MISSPELT,
        "at least {MIN_MISSPELT} misspelt cases, found {misspelt}"
    );
    assert!(
        problems.is_empty(),
        "composition problems:\n{}",
        problems.join("\n")
    );
}

#[test]
fn trade_cases_never_miss_pic_and_answers_are_coherent() {
    let scored = score_all();
    let mut missed_pic = Vec::new();
    let mut incoherent = Vec::new();
    for s in &scored {
        let r = &s.answer;
        if s.expect_pic && !r.pic_required {
            missed_pic.push(format!(
                "PIC MISSED {}: {:?} -> {}",
                s.id,
                s.description,
                s.answer_line()
            ));
        }
        let a = codes(&r.a_codes);
        let b = codes(&r.b_codes);
        let why = match r.list_type {
            ListType::Amber if !a.first().is_some_and(|c| c.starts_with('A')) => {
                Some("Amber without an A code first in a_codes")
            }
            ListType::Green if b.is_empty() => Some("Green without a B code"),
            ListType::Green if !a.is_empty() => Some("Green with an A code"),
            ListType::Amber | ListType::AnnexI | ListType::AnnexII if !r.pic_required => {
                Some("Amber/Annex I/Annex II without PIC")
            }
            _ => None,
        };
        if let Some(why) = why {
            incoherent.push(format!(
                "INCOHERENT {} ({why}): {:?} -> {}",
                s.id,
                s.description,
                s.answer_line()
            ));
        }
    }
    for line in missed_pic.iter().chain(&incoherent) {
        println!("{line}");
    }
    assert!(
        missed_pic.is_empty() && incoherent.is_empty(),
        "{} cases miss a required PIC, {} answers are incoherent:\n{}",
        missed_pic.len(),
        incoherent.len(),
        missed_pic
            .iter()
            .chain(&incoherent)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn trade_cases_score_reaches_the_threshold() {
    let scored = score_all();
    let mut m: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for s in &scored {
        for (k, ok) in &s.results {
            let slot = m.entry(k).or_default();
            slot.0 += usize::from(*ok);
            slot.1 += 1;
        }
        if !s.failed().is_empty() {
            misses.push(s.miss_line());
        }
    }
    for line in &misses {
        println!("{line}");
    }
    let mut rates = Vec::new();
    for k in METRICS {
        if let Some(&(hit, n)) = m.get(k) {
            if n > 0 {
                let rate = hit as f64 / n as f64;
                println!("{k}: {hit}/{n} = {rate:.2}");
                rates.push(rate);
            }
        }
    }
    let score = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
    println!(
        "score: {score:.2} (exactly {score:.4}; {} of {} cases fully right)",
        scored.len() - misses.len(),
        scored.len()
    );
    assert!(
        score >= MIN_SCORE,
        "trade_cases score {score:.3} is below {MIN_SCORE}; {} cases missed at least one metric:\n{}",
        misses.len(),
        misses.join("\n")
    );
}
