//! The procedure a classification carries for a route: the shipment
//! engine's answer with the operation unknown.

use classifier::{Classifier, ListType};
use domain::values::CountryCode;
use law::procedure::{Classified, Regime};
use law::NaiveDate;

/// The day every answer here is asked for (after the EU plastic export ban).
fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 22).expect("a date")
}

/// [`law::procedure::classify_route`] on [`day`].
fn classify_route(
    c: &Classifier,
    description: &str,
    origin: Option<&CountryCode>,
    destination: Option<&CountryCode>,
) -> Classified {
    law::procedure::classify_route(c, description, origin, destination, day())
}

fn classifier() -> Classifier {
    Classifier::bundled().expect("the embedded knowledge base builds")
}

fn cc(code: &str) -> CountryCode {
    CountryCode::parse(code).expect("valid country code")
}

#[test]
fn a_classified_route_serialises_every_classification_field_and_the_procedure() {
    let c = classifier();
    let r = classify_route(
        &c,
        "used lead-acid car batteries",
        Some(&cc("DE")),
        Some(&cc("NG")),
    );
    let v = serde_json::to_value(&r).expect("serialises");
    for key in [
        "y_codes",
        "a_codes",
        "b_codes",
        "list_type",
        "pic_required",
        "warnings",
        "classifier_version",
        "procedure",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["procedure"]["origin"], "DE");
    let alone = classify_route(&c, "used lead-acid car batteries", None, None);
    assert_eq!(
        serde_json::to_value(&alone).expect("serialises")["procedure"],
        serde_json::Value::Null
    );
}

#[test]
fn oecd_to_oecd_green_needs_no_notification_and_amber_does() {
    let c = classifier();
    // Japan to Korea: both OECD members, neither in the EU.
    let green = classify_route(
        &c,
        "baled corrugated cardboard",
        Some(&cc("JP")),
        Some(&cc("KR")),
    );
    let p = green.procedure.expect("procedure");
    assert!(!p.notification_required, "{p:?}");
    assert_ne!(p.prohibited, Some(true));
    let amber = classify_route(
        &c,
        "waste lead-acid batteries",
        Some(&cc("JP")),
        Some(&cc("KR")),
    );
    let p = amber.procedure.expect("procedure");
    assert!(p.notification_required, "{p:?}");
}

#[test]
fn the_procedure_is_the_shipment_engines_answer_with_the_operation_unknown() {
    use law::{plan, Prohibited, Route, StateFacts, WasteKind};
    let c = classifier();
    for (description, origin, destination) in [
        ("used lead-acid batteries", "DE", "NG"),
        ("spent solvents, toluene and xylene", "JP", "NG"),
        ("mixed plastic waste", "NL", "MY"),
        ("baled corrugated cardboard", "DE", "JP"),
        ("waste lead-acid batteries", "US", "MX"),
        ("waste lead-acid batteries", "KR", "VN"),
        ("clean copper scrap", "IN", "CN"),
    ] {
        let r = classify_route(&c, description, Some(&cc(origin)), Some(&cc(destination)));
        let p = r.procedure.clone().expect("procedure");
        let (o, d) = (
            StateFacts::of(&cc(origin)).expect("origin"),
            StateFacts::of(&cc(destination)).expect("destination"),
        );
        let route = Route {
            origin: &o,
            transit: &[],
            destination: &d,
        };
        let waste = law::Waste {
            kind: WasteKind::from(r.classification.list_type),
            code: r.classification.best_code(),
        };
        let planned = plan(route, waste, None, day());
        let expected = match planned.prohibited {
            Prohibited::Yes => Some(true),
            Prohibited::No => Some(false),
            Prohibited::Unknown => None,
        };
        assert_eq!(p.prohibited, expected, "{origin}→{destination}: {p:?}");
        assert_eq!(p.summary, planned.summary);
        assert!(p.notes.iter().any(|n| n.contains("plan_shipment")), "{p:?}");
    }
}

#[test]
fn hazardous_waste_from_an_eu_state_to_a_non_annex_vii_state_is_prohibited() {
    let c = classifier();
    let r = classify_route(
        &c,
        "used lead-acid batteries",
        Some(&cc("DE")),
        Some(&cc("NG")),
    );
    let p = r.procedure.expect("procedure");
    assert_eq!(p.prohibited, Some(true));
    assert!(p.articles.iter().any(|a| a.contains("4A")), "{p:?}");
}

#[test]
fn hazardous_waste_from_an_annex_vii_party_that_has_not_accepted_the_ban_needs_pic() {
    let c = classifier();
    // Japan has not accepted the Ban Amendment (the Party registry); Kenya's
    // law, as researched, bans no import (Nigeria's would make it unknown).
    let r = classify_route(
        &c,
        "spent solvents, toluene and xylene",
        Some(&cc("JP")),
        Some(&cc("KE")),
    );
    let p = r.procedure.expect("procedure");
    assert_eq!(p.regime, Regime::BaselPic);
    assert_eq!(p.prohibited, Some(false));
    assert!(p.notification_required);
}

#[test]
fn annex_ii_wastes_from_the_eu_to_a_non_oecd_state_are_prohibited_for_either_operation() {
    let c = classifier();
    for (description, origin, destination) in [
        (
            "non-hazardous e-waste: small household appliances without batteries",
            "DE",
            "GH",
        ),
        ("mixed plastic waste", "NL", "MY"),
    ] {
        let r = classify_route(&c, description, Some(&cc(origin)), Some(&cc(destination)));
        assert_eq!(
            r.classification.list_type,
            ListType::AnnexII,
            "{description}"
        );
        let p = r.procedure.expect("procedure");
        // Not banned by Article 4A (Annex II is outside it); the EU
        // Regulation prohibits both: Article 39(1)(c) (Annex V, Part 2) for
        // recovery, Article 37 for disposal.
        assert!(!p.articles.iter().any(|a| a.contains("4A")), "{p:?}");
        assert_eq!(p.prohibited, Some(true), "{p:?}");
        assert!(p.articles.iter().any(|a| a.contains("39(1)(c)")), "{p:?}");
        assert!(p.articles.iter().any(|a| a.contains("Article 37")), "{p:?}");
        assert!(
            p.notes.iter().any(|n| n.starts_with("For recovery")),
            "{p:?}"
        );
        assert!(
            p.notes.iter().any(|n| n.starts_with("For disposal")),
            "{p:?}"
        );
    }
}

#[test]
fn a_movement_between_a_party_and_the_united_states_needs_an_article_11_agreement() {
    let c = classifier();
    // The United States is not a Party: a movement with Mexico goes under
    // their bilateral agreement.
    let r = classify_route(
        &c,
        "waste lead-acid batteries",
        Some(&cc("US")),
        Some(&cc("MX")),
    );
    let p = r.procedure.expect("procedure");
    assert_eq!(p.regime, Regime::Article11Agreement, "{p:?}");
    assert!(p.notification_required);
    assert!(r.classification.warnings.iter().any(|w| w.contains("US")));
}

#[test]
fn an_unknown_country_code_is_named_in_a_warning() {
    let c = classifier();
    let r = classify_route(
        &c,
        "waste lead-acid batteries",
        Some(&cc("XX")),
        Some(&cc("ZZ")),
    );
    let p = r.procedure.expect("procedure");
    assert_eq!(p.regime, Regime::Undetermined);
    assert!(r.classification.warnings.iter().any(|w| w.contains("XX")));
    assert!(r.classification.warnings.iter().any(|w| w.contains("ZZ")));
}

#[test]
fn green_waste_between_basel_parties_outside_the_oecd_is_not_controlled() {
    let c = classifier();
    let r = classify_route(&c, "clean copper scrap", Some(&cc("IN")), Some(&cc("CN")));
    let p = r.procedure.expect("procedure");
    assert_eq!(p.regime, Regime::NotControlled);
    assert!(!p.notification_required);
}

#[test]
fn no_procedure_without_both_countries() {
    let c = classifier();
    assert!(classify_route(&c, "copper scrap", Some(&cc("DE")), None)
        .procedure
        .is_none());
}
