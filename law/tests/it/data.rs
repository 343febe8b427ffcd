//! The law as dated data: every rule and every import measure has its
//! source and the day it is in force from, and the engine applies only the
//! rules in force on the day asked.

use law::rules::{meta, metas, RULES};
use law::{bans, eu1418, NaiveDate};

#[test]
fn every_rule_has_an_article_a_source_and_in_force_from() {
    for rule in RULES {
        let m = meta(rule.id).unwrap_or_else(|| panic!("{:?} has no entry in rules.json", rule.id));
        assert!(!m.article.trim().is_empty(), "{:?}", rule.id);
        assert!(!m.source.trim().is_empty(), "{:?}: no source", rule.id);
        assert!(!m.trust.trim().is_empty(), "{:?}: no trust", rule.id);
        assert!(m.in_force_from >= law::CONVENTION_IN_FORCE, "{:?}", rule.id);
        if let Some(until) = m.in_force_until {
            assert!(until >= m.in_force_from, "{:?}", rule.id);
        }
    }
    assert_eq!(metas().len(), RULES.len(), "one entry per rule, no more");
}

#[test]
fn the_rules_file_fails_to_parse_without_in_force_from_or_source() {
    // The file is read with serde: a missing field is an error, not a default.
    let without_date = r#"{"rules":[{"id":"domestic","article":"a","in_force_until":null,"source":"s","trust":"t"}]}"#;
    let without_source = r#"{"rules":[{"id":"domestic","article":"a","in_force_from":"1992-05-05","in_force_until":null,"trust":"t"}]}"#;
    for text in [without_date, without_source] {
        assert!(law::rules::parse_metas(text).is_err(), "{text}");
    }
}

#[test]
fn every_import_measure_has_a_source_a_tier_and_in_force_from() {
    let data = bans::data();
    assert!(data.measures.len() >= 60, "{}", data.measures.len());
    for m in &data.measures {
        assert!(!m.sources.is_empty(), "{} {}", m.state, m.instrument);
        assert!(m
            .sources
            .iter()
            .all(|s| !s.url.is_empty() && !s.tier.is_empty()));
        assert!(["official", "copy_of_official_text", "secondary"].contains(&m.trust.as_str()));
        assert!(m.in_force_until.is_none_or(|u| u >= m.in_force_from));
        assert!(
            !m.covers.kinds.is_empty() || !m.covers.codes.is_empty(),
            "{}",
            m.state
        );
    }
    for (key, regime) in &data.regimes {
        assert!(!regime.members.is_empty(), "{key}");
    }
}

#[test]
fn the_1418_answers_parse_and_name_where_to_verify() {
    let data = eu1418::data();
    assert_eq!(data.countries.len(), 20);
    for c in data
        .countries
        .iter()
        .filter(|c| c.answers.as_ref().is_some_and(|a| !a.is_empty()))
    {
        assert!(c.verify_at.is_some(), "{}", c.iso2);
    }
}

#[test]
fn as_of_is_a_date_not_before_the_convention() {
    assert!(law::parse_as_of("2026-11-22").is_ok());
    assert!(law::parse_as_of("1992-05-05").is_ok());
    for bad in ["1992-05-04", "tomorrow", "2026-13-01", "22/11/2026", ""] {
        assert!(law::parse_as_of(bad).is_err(), "{bad}");
    }
    assert_eq!(
        law::parse_as_of(" 2026-11-21 ").ok(),
        NaiveDate::from_ymd_opt(2026, 11, 21)
    );
}
