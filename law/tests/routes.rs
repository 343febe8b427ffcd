//! The route table (`tests/routes.json`): routes a compliance officer asks,
//! each with the day pinned, and the answer the law gives that day:
//! `prohibited`, the rules that decide it, each State's consent, the regime.
//! The same table is asked of REST and MCP in `basel/tests/it`.

use std::collections::BTreeMap;

use classifier::{Classifier, ListType};
use domain::values::CountryCode;
use law::rules::{Effect, RuleId};
use law::{plan, Operation, Prohibited, Route, RoutePlan, StateFacts, Waste, WasteKind};
use serde::Deserialize;
use serde_json::Value;

const TABLE: &str = include_str!("routes.json");

#[derive(Deserialize)]
struct Table {
    routes: Vec<Row>,
}

#[derive(Deserialize)]
struct Row {
    code: String,
    origin: String,
    #[serde(default)]
    transit: Vec<String>,
    destination: String,
    operation: Option<Operation>,
    as_of: String,
    prohibited: Value,
    deciding: Vec<RuleId>,
    #[serde(default)]
    consent: BTreeMap<String, Value>,
    regime: Option<Value>,
}

fn facts(code: &str) -> StateFacts {
    StateFacts::of(&CountryCode::parse(code).expect("code")).expect(code)
}

fn kind(classifier: &Classifier, code: &str) -> WasteKind {
    let entry = classifier.lookup(code).unwrap_or_else(|| panic!("{code}"));
    match entry.annex.as_str() {
        "VIII" => ListType::Amber,
        "IX" => ListType::Green,
        "I" => ListType::AnnexI,
        "II" => ListType::AnnexII,
        other => panic!("{code}: annex {other}"),
    }
    .into()
}

fn ask(classifier: &Classifier, row: &Row) -> RoutePlan {
    let (o, d) = (facts(&row.origin), facts(&row.destination));
    let t: Vec<StateFacts> = row.transit.iter().map(|c| facts(c)).collect();
    let waste = Waste {
        kind: kind(classifier, &row.code),
        code: Some(&row.code),
    };
    let day = law::parse_as_of(&row.as_of).expect("as_of");
    plan(
        Route {
            origin: &o,
            transit: &t,
            destination: &d,
        },
        waste,
        row.operation,
        day,
    )
}

/// The rules that decide the verdict.
fn deciding(p: &RoutePlan) -> Vec<RuleId> {
    let wanted: &[Effect] = match p.prohibited {
        Prohibited::Yes => &[Effect::Prohibits],
        Prohibited::Unknown => &[Effect::MayProhibit],
        Prohibited::No => &[Effect::Permits, Effect::Procedure],
    };
    p.rules
        .iter()
        .filter(|f| wanted.contains(&f.effect))
        .map(|f| f.rule)
        .collect()
}

/// The finding of `rule` in a plan (the test fails when there is none).
fn finding(p: &RoutePlan, rule: RuleId) -> &law::rules::Finding {
    p.rules
        .iter()
        .find(|f| f.rule == rule)
        .unwrap_or_else(|| panic!("no {rule:?} finding: {}", p.summary))
}

fn check(row: &Row, p: &RoutePlan) -> Vec<String> {
    let mut wrong = Vec::new();
    let answer = serde_json::to_value(p).expect("JSON");
    if answer["prohibited"] != row.prohibited {
        wrong.push(format!(
            "prohibited {} (expected {})",
            answer["prohibited"], row.prohibited
        ));
    }
    if answer["as_of"] != row.as_of.as_str() {
        wrong.push(format!("as_of {}", answer["as_of"]));
    }
    let decided = deciding(p);
    for rule in &row.deciding {
        if !decided.contains(rule) {
            wrong.push(format!("{rule:?} does not decide (deciding: {decided:?})"));
        }
    }
    for (state, consent) in &row.consent {
        let found = answer["states"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["country_code"] == state.as_str()));
        match found {
            Some(s) if &s["consent"] == consent => {}
            Some(s) => wrong.push(format!(
                "{state} consents {} (expected {consent})",
                s["consent"]
            )),
            None => wrong.push(format!("{state} not on the route")),
        }
    }
    if let Some(regime) = &row.regime {
        if &answer["regime"] != regime {
            wrong.push(format!("regime {} (expected {regime})", answer["regime"]));
        }
    }
    if p.prohibited == Prohibited::Yes && p.rules.iter().all(|f| f.effect != Effect::Prohibits) {
        wrong.push("prohibited without a prohibiting rule".into());
    }
    wrong
}

#[test]
fn every_route_in_the_table_gets_the_answer_the_law_gives_that_day() {
    let table: Table = serde_json::from_str(TABLE).expect("the table parses");
    assert!(table.routes.len() >= 60, "{}", table.routes.len());
    let classifier = Classifier::bundled().expect("classifier");
    let mut failures = Vec::new();
    for row in &table.routes {
        let p = ask(&classifier, row);
        let wrong = check(row, &p);
        if !wrong.is_empty() {
            failures.push(format!(
                "{} {}→{} {:?} on {}: {}\n   summary: {}",
                row.code,
                row.origin,
                row.destination,
                row.operation,
                row.as_of,
                wrong.join("; "),
                p.summary
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} routes wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_plastic_export_ban_flips_between_the_20th_and_the_22nd_of_november_2026() {
    let classifier = Classifier::bundled().expect("classifier");
    let row = |as_of: &str| Row {
        code: "B3011".into(),
        origin: "DE".into(),
        transit: Vec::new(),
        destination: "MY".into(),
        operation: Some(Operation::Recovery),
        as_of: as_of.into(),
        prohibited: Value::Null,
        deciding: Vec::new(),
        consent: BTreeMap::new(),
        regime: None,
    };
    let before = ask(&classifier, &row("2026-11-20"));
    let after = ask(&classifier, &row("2026-11-22"));
    assert_eq!(before.prohibited, Prohibited::No, "{}", before.summary);
    assert_eq!(after.prohibited, Prohibited::Yes, "{}", after.summary);
    assert!(deciding(&after).contains(&RuleId::EuPlasticExport));
    assert!(!before
        .rules
        .iter()
        .any(|f| f.rule == RuleId::EuPlasticExport));
    assert_eq!(before.as_of, "2026-11-20");
    assert_eq!(after.as_of, "2026-11-22");
}

#[test]
fn no_route_into_a_state_whose_ban_on_the_waste_is_in_the_data_answers_false() {
    // Every measure that bans: a route from a State it bans imports from,
    // of a waste it covers, on a day it is in force, is never `false`.
    let classifier = Classifier::bundled().expect("classifier");
    for m in law::bans::data()
        .measures
        .iter()
        .filter(|m| m.kind == law::bans::Kind::Ban)
    {
        let origin = match m.from_states.as_str() {
            "any" | "annex_vii" | "annex_vii_or_non_basel_parties" => "JP",
            "outside_basel_waigani_oecd" => "TL",
            _ => "JP",
        };
        let code = m.covers.codes.first().cloned().unwrap_or_else(|| {
            match m.covers.kinds.first() {
                Some(WasteKind::Hazardous) => "A1160",
                Some(WasteKind::Other) => "Y46",
                _ => "B1010",
            }
            .to_owned()
        });
        if StateFacts::of(&CountryCode::parse(&m.state).expect("code")).is_none()
            || classifier.lookup(&code).is_none()
        {
            continue;
        }
        let until = m
            .in_force_until
            .map_or("2026-11-22".to_owned(), |d| d.to_string());
        let row = Row {
            code,
            origin: origin.into(),
            transit: Vec::new(),
            destination: m.state.clone(),
            operation: m.operations.as_ref().and_then(|o| o.first().copied()),
            as_of: until.clone(),
            prohibited: Value::Null,
            deciding: Vec::new(),
            consent: BTreeMap::new(),
            regime: None,
        };
        let p = ask(&classifier, &row);
        assert_ne!(
            p.prohibited,
            Prohibited::No,
            "{} {} → {} on {until}: {}",
            row.code,
            origin,
            m.state,
            p.summary
        );
    }
}

fn simple(code: &str, from: &str, to: &str) -> Row {
    Row {
        code: code.into(),
        origin: from.into(),
        transit: Vec::new(),
        destination: to.into(),
        operation: Some(Operation::Recovery),
        as_of: "2026-11-22".into(),
        prohibited: Value::Null,
        deciding: Vec::new(),
        consent: BTreeMap::new(),
        regime: None,
    }
}

#[test]
fn a_destination_with_no_data_says_its_import_restrictions_were_not_checked_and_where() {
    let classifier = Classifier::bundled().expect("classifier");
    let p = ask(&classifier, &simple("A1160", "JP", "ZM"));
    assert_eq!(p.prohibited, Prohibited::No);
    assert!(
        p.summary.contains("import restrictions were not checked"),
        "{}",
        p.summary
    );
    let ban = finding(&p, RuleId::ImportBan);
    assert!(
        ban.text.contains("were not checked") && ban.text.contains("Article"),
        "{}",
        ban.text
    );
    assert!(ban.text.contains("basel.int"), "{}", ban.text);
}

#[test]
fn a_ban_known_only_from_a_treaty_or_a_secondary_source_is_unknown_with_the_reason() {
    let classifier = Classifier::bundled().expect("classifier");
    for (to, reason) in [
        ("CI", "membership of the Bamako Convention"),
        ("WS", "membership of the Waigani Convention"),
        ("CN", "secondary sources"),
    ] {
        let p = ask(
            &classifier,
            &simple(if to == "CN" { "B1010" } else { "A1160" }, "JP", to),
        );
        assert_eq!(p.prohibited, Prohibited::Unknown, "{to}: {}", p.summary);
        let ban = finding(&p, RuleId::ImportBan);
        assert_eq!(ban.effect, Effect::MayProhibit);
        assert!(ban.text.contains(reason), "{to}: {}", ban.text);
        assert!(ban.evidence.is_some(), "{to}");
    }
    // A ban read in an official source prohibits, naming its instrument.
    let p = ask(&classifier, &simple("A1160", "JP", "EG"));
    assert_eq!(p.prohibited, Prohibited::Yes);
    let ban = finding(&p, RuleId::ImportBan);
    assert!(ban.text.contains("Law No. 4 of 1994"), "{}", ban.text);
    assert!(ban.article.contains("4(1)(b)") && ban.article.contains("4(2)(e)"));
}

#[test]
fn every_answer_states_its_day_and_every_finding_its_dates_and_source() {
    let classifier = Classifier::bundled().expect("classifier");
    let p = ask(&classifier, &simple("A1160", "DE", "NG"));
    assert_eq!(p.as_of, "2026-11-22");
    for f in &p.rules {
        assert!(
            !f.source.is_empty() && !f.in_force_from.is_empty(),
            "{:?}",
            f.rule
        );
    }
}

#[test]
fn the_canada_us_agreement_is_applied_with_its_terms() {
    let classifier = Classifier::bundled().expect("classifier");
    let mut row = simple("A1160", "CA", "US");
    row.operation = Some(Operation::Disposal);
    let p = ask(&classifier, &row);
    let agreement = finding(&p, RuleId::Agreement);
    assert!(
        agreement.text.contains("30 days") && agreement.text.contains("12 months"),
        "{}",
        agreement.text
    );
    assert!(agreement
        .evidence
        .as_deref()
        .is_some_and(|e| e.contains("http")));
    // It is in force from 1986-11-08, so a day in 1993 applies it too.
    row.as_of = "1993-01-01".into();
    assert!(ask(&classifier, &row)
        .rules
        .iter()
        .any(|f| f.rule == RuleId::Agreement));
}
