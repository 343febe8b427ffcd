use super::rules::{Effect, RuleId};
use super::*;
use domain::parties::registry;
use domain::values::CountryCode;

fn facts(cc: &str) -> StateFacts {
    StateFacts::of(&CountryCode::parse(cc).unwrap()).unwrap()
}

fn run(from: &str, via: &[&str], to: &str, waste: WasteKind, op: Option<Operation>) -> RoutePlan {
    let (o, d) = (facts(from), facts(to));
    let t: Vec<StateFacts> = via.iter().map(|c| facts(c)).collect();
    plan(
        Route {
            origin: &o,
            transit: &t,
            destination: &d,
        },
        waste.into(),
        op,
        day(),
    )
}

/// The day the tests ask for (after the EU plastic export ban).
fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
}

fn effects(p: &RoutePlan, effect: Effect) -> Vec<RuleId> {
    p.rules
        .iter()
        .filter(|f| f.effect == effect)
        .map(|f| f.rule)
        .collect()
}

#[test]
fn the_agreements_file_parses_and_names_a_source_for_every_agreement_found() {
    let data = agreements::data();
    assert!(data.agreements.len() >= 9);
    for a in data.agreements.iter().filter(|a| a.found) {
        assert!(
            a.source.as_deref().is_some_and(|s| !s.is_empty()),
            "{}",
            a.id
        );
    }
    assert!(
        data.national_import_bans.is_empty(),
        "the reference has none"
    );
}

#[test]
fn an_annex_vii_party_that_accepted_the_ban_may_not_export_hazardous_waste_to_a_non_party() {
    let p = run(
        "DE",
        &[],
        "HT",
        WasteKind::Hazardous,
        Some(Operation::Recovery),
    );
    assert_eq!(p.prohibited, Prohibited::Yes);
    let prohibits = effects(&p, Effect::Prohibits);
    assert!(prohibits.contains(&RuleId::BanAmendment), "{prohibits:?}");
    assert!(prohibits.contains(&RuleId::NonParty), "{prohibits:?}");
    assert!(p.steps.is_empty(), "no steps for a prohibited movement");
    assert!(!p.to_permit.is_empty());
    assert!(p.summary.starts_with("Prohibited:"), "{}", p.summary);
    assert!(!p.summary.contains("Prohibited: Prohibited"));
}

#[test]
fn japan_has_not_accepted_the_ban_so_the_basel_procedure_applies() {
    // Kenya: a Party outside Annex VII whose law, as researched, has no
    // import ban (Viet Nam's scrap rules would make it unknown).
    let p = run(
        "JP",
        &[],
        "KE",
        WasteKind::Hazardous,
        Some(Operation::Recovery),
    );
    assert_eq!(p.prohibited, Prohibited::No);
    assert_eq!(p.regime, Regime::BaselPic);
    let ban = p
        .rules
        .iter()
        .find(|f| f.rule == RuleId::BanAmendment)
        .unwrap();
    assert_eq!(ban.effect, Effect::Note);
    assert!(ban.evidence.is_some());
    assert!(p
        .steps
        .iter()
        .any(|s| s.article == "Basel Convention, Article 6(9)"));
}

#[test]
fn an_unknown_ban_status_makes_the_answer_unknown_and_names_the_evidence() {
    let p = run(
        "MX",
        &[],
        "GH",
        WasteKind::Hazardous,
        Some(Operation::Disposal),
    );
    assert_eq!(p.prohibited, Prohibited::Unknown);
    let ban = p
        .rules
        .iter()
        .find(|f| f.rule == RuleId::BanAmendment)
        .unwrap();
    assert_eq!(ban.effect, Effect::MayProhibit);
    assert!(ban.text.contains("unknown"));
    assert!(ban
        .evidence
        .as_deref()
        .is_some_and(|e| e.contains("ECOLEX")));
}

#[test]
fn disposal_is_outside_the_oecd_decision() {
    let recovery = run(
        "DE",
        &[],
        "US",
        WasteKind::Hazardous,
        Some(Operation::Recovery),
    );
    assert_eq!(recovery.prohibited, Prohibited::No);
    assert_eq!(recovery.regime, Regime::OecdDecision);
    let disposal = run(
        "DE",
        &[],
        "US",
        WasteKind::Hazardous,
        Some(Operation::Disposal),
    );
    assert_eq!(disposal.prohibited, Prohibited::Yes);
    let unknown = run("DE", &[], "US", WasteKind::Hazardous, None);
    assert_eq!(unknown.prohibited, Prohibited::Unknown);
    assert_eq!(unknown.by_operation.len(), 2);
    assert_eq!(unknown.by_operation[0].prohibited, Prohibited::No);
    assert_eq!(unknown.by_operation[1].prohibited, Prohibited::Yes);
    let prohibits: Vec<_> = unknown
        .rules
        .iter()
        .filter(|f| f.effect == Effect::Prohibits)
        .collect();
    assert!(!prohibits.is_empty());
    assert!(prohibits
        .iter()
        .all(|f| f.only_for == Some(Operation::Disposal)));
    assert!(unknown
        .rules
        .iter()
        .any(|f| f.rule == RuleId::ImportBan && f.only_for.is_none()));
}

#[test]
fn one_way_agreements_cover_one_direction_only() {
    let into_us = run(
        "MY",
        &[],
        "US",
        WasteKind::Hazardous,
        Some(Operation::Recovery),
    );
    assert_eq!(into_us.prohibited, Prohibited::No);
    assert_eq!(into_us.regime, Regime::Article11Agreement);
    let out_of_us = run(
        "US",
        &[],
        "MY",
        WasteKind::Hazardous,
        Some(Operation::Recovery),
    );
    assert_eq!(out_of_us.prohibited, Prohibited::Yes);
}

#[test]
fn operations_are_read_from_words_and_annex_iv_codes() {
    assert_eq!(Operation::parse("R4"), Ok(Some(Operation::Recovery)));
    assert_eq!(Operation::parse("d15"), Ok(Some(Operation::Disposal)));
    assert_eq!(
        Operation::parse(" Disposal "),
        Ok(Some(Operation::Disposal))
    );
    assert_eq!(Operation::parse("unknown"), Ok(None));
    for bad in ["R14", "D0", "D16", "R04", "X1", "", "R"] {
        assert!(Operation::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn every_party_pair_with_germany_gets_an_answer_with_a_deciding_rule() {
    for party in registry()
        .parties()
        .filter(|p| p.code != "EU" && p.code != "DE")
    {
        for op in [Operation::Recovery, Operation::Disposal] {
            let p = run("DE", &[], &party.code, WasteKind::Hazardous, Some(op));
            let decides = p.rules.iter().any(|f| f.effect != Effect::Note);
            assert!(decides, "{} {op:?}: {:?}", party.code, p.rules);
            let q = run(&party.code, &[], "DE", WasteKind::Other, Some(op));
            assert!(
                q.rules.iter().any(|f| f.effect != Effect::Note),
                "{} {op:?}",
                party.code
            );
        }
    }
}

fn schema_values<T: schemars::JsonSchema>() -> Vec<serde_json::Value> {
    let schema = schemars::schema_for!(T).to_value();
    schema["enum"].as_array().cloned().unwrap_or_default()
}

fn names<T: serde::Serialize>(all: &[T]) -> Vec<serde_json::Value> {
    all.iter()
        .map(|v| serde_json::to_value(v).unwrap())
        .collect()
}

#[test]
fn the_enum_schemas_list_exactly_the_serialised_names() {
    use Consent as C;
    assert_eq!(
        schema_values::<Operation>(),
        names(&[Operation::Recovery, Operation::Disposal])
    );
    assert_eq!(
        schema_values::<WasteKind>(),
        names(&[WasteKind::Hazardous, WasteKind::Other, WasteKind::Green])
    );
    assert_eq!(
        schema_values::<Regime>(),
        names(&[
            Regime::Domestic,
            Regime::EuWsr,
            Regime::OecdDecision,
            Regime::Article11Agreement,
            Regime::BaselPic,
            Regime::NotControlled,
            Regime::NotCovered,
            Regime::AntarcticRemoval
        ])
    );
    assert_eq!(
        schema_values::<Role>(),
        names(&[Role::Export, Role::Transit, Role::Import])
    );
    assert_eq!(
        schema_values::<Consent>(),
        names(&[
            C::Written,
            C::TacitAllowed,
            C::NationalLaw,
            C::PerAgreement,
            C::NotRequired,
            C::NotApplicable
        ])
    );
    let rules: Vec<RuleId> = rules::RULES.iter().map(|r| r.id).collect();
    let mut listed = schema_values::<RuleId>();
    let mut serialised = names(&rules);
    listed.sort_by_key(|v| v.to_string());
    serialised.sort_by_key(|v| v.to_string());
    assert_eq!(listed, serialised, "every rule is in RULES once");
    assert_eq!(
        schema_values::<Effect>(),
        names(&[
            Effect::Prohibits,
            Effect::MayProhibit,
            Effect::Permits,
            Effect::Procedure,
            Effect::Note
        ])
    );
}
