//! Which control procedure applies to a movement from `origin` to
//! `destination`, given the classification's list type: the shipment
//! engine's answer (`crate::plan`, the one `plan_shipment` and
//! `POST /api/v1/shipments/plan` give) with the operation unknown, in the
//! classification's short form. The two cannot disagree: one set of rules,
//! one Party registry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use classifier::{Classification, Classifier, ListType};
use domain::values::CountryCode;

use crate::{Consent, NaiveDate, Prohibited, Route, StateFacts, Waste, WasteKind};

/// The regime that governs a movement.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// Regulation (EU) 2024/1157 between EU member States (and for exports
    /// from the Union).
    EuWsr,
    /// OECD Council Decision C(2001)107/FINAL between OECD members: Green
    /// control (no notification) or Amber control (notification and consent).
    OecdDecision,
    /// Basel Prior Informed Consent (Articles 6 and 7) between Parties.
    BaselPic,
    /// A Party and a non-Party: only under an Article 11 agreement.
    Article11Agreement,
    /// Neither country is a Party: the Convention does not apply.
    NotCovered,
    /// A green (Annex IX) waste: no Basel procedure.
    NotControlled,
    /// Origin and destination are the same country.
    Domestic,
    /// Removal of waste from the Antarctic (Madrid Protocol, Annex III).
    AntarcticRemoval,
    /// A country code is unknown; the regime cannot be determined.
    Undetermined,
}

/// The control procedure for one movement.
///
/// Shape (JSON):
/// ```json
/// {"origin":"DE","destination":"NG","regime":"basel_pic","prohibited":true,
///  "notification_required":true,
///  "summary":"Prohibited: hazardous waste from an Annex VII country ...",
///  "articles":["Basel Article 4A (Ban Amendment)"],"notes":["..."]}
/// ```
/// `prohibited` is `null` when the answer depends on facts the reference data
/// does not hold (a Ban Amendment status, whether an Article 11 agreement
/// exists) or on the operation (recovery or disposal), which a
/// classification does not know: `notes` then say what changes with each.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct Procedure {
    /// Country of export (ISO alpha-2).
    pub origin: String,
    /// Country of import (ISO alpha-2).
    pub destination: String,
    /// The day whose law applies.
    pub as_of: String,
    /// The governing regime.
    pub regime: Regime,
    /// Whether the movement is prohibited; null when it depends on facts not known.
    pub prohibited: Option<bool>,
    /// Whether prior written notification (and consent) is required.
    pub notification_required: bool,
    /// What applies, in one or two sentences.
    pub summary: String,
    /// The provisions relied on.
    pub articles: Vec<String>,
    /// Caveats and context.
    pub notes: Vec<String>,
}

/// A classification with, when the route is known, the control procedure
/// for it: the answer of `POST /api/v1/classify` and MCP `classify_waste`.
/// The classification's fields come first, as they always have.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct Classified {
    /// What the waste is under the Basel Convention.
    #[serde(flatten)]
    pub classification: Classification,
    /// The control procedure for the movement, when both origin and
    /// destination are given.
    pub procedure: Option<Procedure>,
}

/// Classifies `description` and, with both `origin` and `destination`,
/// adds the procedure for that route by the law in force on `as_of` (its
/// warnings join the classification's).
pub fn classify_route(
    classifier: &Classifier,
    description: &str,
    origin: Option<&CountryCode>,
    destination: Option<&CountryCode>,
    as_of: NaiveDate,
) -> Classified {
    let mut classification = classifier.classify(description);
    let procedure = match (origin, destination) {
        (Some(o), Some(d)) => {
            let code = classification.best_code().map(str::to_owned);
            let (procedure, warnings) =
                decide(o, d, classification.list_type, code.as_deref(), as_of);
            classification.warnings.extend(warnings);
            Some(procedure)
        }
        _ => None,
    };
    Classified {
        classification,
        procedure,
    }
}

/// Decides the procedure for a waste of `list_type` (and `code`, when
/// known) on `as_of`; returns it with warnings about the country codes.
pub fn decide(
    origin: &CountryCode,
    destination: &CountryCode,
    list_type: ListType,
    code: Option<&str>,
    as_of: NaiveDate,
) -> (Procedure, Vec<String>) {
    let facts = [origin, destination].map(StateFacts::of);
    let mut warnings = Vec::new();
    for (code, known) in [origin, destination].iter().zip(&facts) {
        match known {
            None => warnings.push(format!(
                "Country code {code} is not a known Basel Party or known non-Party; the procedure could not be fully determined."
            )),
            Some(f) if !f.party && f.code != "AQ" => {
                warnings.push(format!("{code} is not a Party to the Basel Convention."));
            }
            Some(_) => {}
        }
    }
    let [Some(o), Some(d)] = &facts else {
        return (undetermined(origin, destination, as_of), warnings);
    };
    let route = Route {
        origin: o,
        transit: &[],
        destination: d,
    };
    let waste = Waste {
        kind: WasteKind::from(list_type),
        code,
    };
    let plan = crate::plan(route, waste, None, as_of);
    (from_plan(origin, destination, &plan), warnings)
}

/// The classification's short form of a route plan.
fn from_plan(
    origin: &CountryCode,
    destination: &CountryCode,
    plan: &crate::RoutePlan,
) -> Procedure {
    let mut articles: Vec<String> = Vec::new();
    for finding in &plan.rules {
        if !articles.contains(&finding.article) {
            articles.push(finding.article.clone());
        }
    }
    let mut notes: Vec<String> = plan
        .by_operation
        .iter()
        .map(|answer| {
            let verdict = match answer.prohibited {
                Prohibited::Yes => "prohibited",
                Prohibited::No => "not prohibited",
                Prohibited::Unknown => "prohibited or not depending on facts not known",
            };
            format!("For {}: {verdict}.", answer.operation.as_str())
        })
        .collect();
    notes.push("For the operation (recovery or disposal, R1–R13 or D1–D15), transit States and each State's competent authorities, plan the shipment (POST /api/v1/shipments/plan, MCP plan_shipment).".into());
    Procedure {
        origin: origin.as_str().to_owned(),
        destination: destination.as_str().to_owned(),
        as_of: plan.as_of.clone(),
        regime: regime(plan.regime),
        prohibited: match plan.prohibited {
            Prohibited::Yes => Some(true),
            Prohibited::No => Some(false),
            Prohibited::Unknown => None,
        },
        notification_required: plan.prohibited != Prohibited::Yes
            && plan
                .states
                .iter()
                .any(|s| !matches!(s.consent, Consent::NotRequired | Consent::NotApplicable)),
        summary: plan.summary.clone(),
        articles,
        notes,
    }
}

fn regime(regime: crate::Regime) -> Regime {
    match regime {
        crate::Regime::Domestic => Regime::Domestic,
        crate::Regime::EuWsr => Regime::EuWsr,
        crate::Regime::OecdDecision => Regime::OecdDecision,
        crate::Regime::Article11Agreement => Regime::Article11Agreement,
        crate::Regime::BaselPic => Regime::BaselPic,
        crate::Regime::NotControlled => Regime::NotControlled,
        crate::Regime::NotCovered => Regime::NotCovered,
        crate::Regime::AntarcticRemoval => Regime::AntarcticRemoval,
    }
}

fn undetermined(origin: &CountryCode, destination: &CountryCode, as_of: NaiveDate) -> Procedure {
    Procedure {
        origin: origin.as_str().to_owned(),
        destination: destination.as_str().to_owned(),
        as_of: as_of.to_string(),
        regime: Regime::Undetermined,
        prohibited: None,
        notification_required: true,
        summary: "The procedure could not be determined because a country code is unknown; treat the movement as controlled until the competent authorities confirm.".into(),
        articles: Vec::new(),
        notes: Vec::new(),
    }
}
