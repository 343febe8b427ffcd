//! The shipment law: planning a transboundary movement of waste, whether it
//! is prohibited, by which rules, and, when it is not, the procedure on the
//! route (export, any transit States, import): who does what, in order.
//! Pure: the caller supplies the States' facts ([`StateFacts::of`]) and the
//! waste's kind; the edges add each State's competent authorities.
//!
//! **Boundary:** no sqlx, async-nats, axum, rmcp, tokio or hyper (CI checks
//! with `cargo tree`); no clock: the edges say which day's law applies
//! (`as_of`), and every answer states it.
//!
//! Layout:
//! - [`rules`]: the legal rules as data, each citing its article
//!   ([`rules::RULES`]); this module combines their findings;
//! - [`agreements`]: Article 11 agreements
//!   (`data/article_11_agreements.json`, with sources);
//! - [`bans`]: the State of import's import restrictions
//!   (`data/import_restrictions.json`, with sources and trust);
//! - [`eu`]: Regulation (EU) 2024/1157; [`eu1418`]: the answers under
//!   Regulation (EC) No 1418/2007 (`data/eu_1418_2007.json`);
//! - [`facts`]: what the rules know of a State (Party, OECD, EU, Annex VII,
//!   Ban Amendment status and its evidence);
//! - [`steps`]: each State's consent and duty, and the steps in order;
//! - [`procedure`]: the short form a classification carries for one route
//!   ([`procedure::classify_route`]).
//!
//! The answer's `prohibited` is `true` when a rule prohibits the movement,
//! `unknown` when none does but one depends on a fact not known (a Ban
//! Amendment status, an agreement named but not found, or the operation),
//! and `false` otherwise.

/// A plain string enum's schema: its values and one description, without a
/// branch per value (keeps the MCP tool's output schema small). A test
/// checks that the values are the serde names.
macro_rules! string_enum_schema {
    ($t:ty, $name:literal, $description:literal, [$($value:literal),* $(,)?]) => {
        impl schemars::JsonSchema for $t {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "enum": [$($value),*],
                    "description": $description,
                })
            }
        }
    };
}

pub mod agreements;
pub mod bans;
pub mod case;
pub mod eu;
pub mod eu1418;
pub mod facts;
pub mod procedure;
pub mod rules;
pub mod steps;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

pub use chrono::NaiveDate;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize, Serializer};

use classifier::ListType;
pub use facts::StateFacts;
use rules::{Case, Effect, Finding, RuleId};
pub use steps::Step;

/// What is done with the waste at its destination: recovery (Annex IV B,
/// R1 to R13) or disposal (Annex IV A, D1 to D15).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    /// Recovery (Annex IV B, R1 to R13).
    Recovery,
    /// Disposal (Annex IV A, D1 to D15).
    Disposal,
}

string_enum_schema!(
    Operation,
    "Operation",
    "recovery (R1 to R13) or disposal (D1 to D15)",
    ["recovery", "disposal"]
);
string_enum_schema!(
    WasteKind,
    "WasteKind",
    "hazardous (Annex VIII, or Annex I), other (Annex II) or green (Annex IX)",
    ["hazardous", "other", "green"]
);
string_enum_schema!(Regime, "Regime", "what sets the procedure: the EU Regulation, the OECD Decision, an Article 11 agreement, the Basel procedure, none (green waste), national law, Antarctic removal", ["domestic", "eu_wsr", "oecd_decision", "article_11_agreement", "basel_pic", "not_controlled", "not_covered", "antarctic_removal"]);
string_enum_schema!(
    Role,
    "Role",
    "the State's role on the route",
    ["export", "transit", "import"]
);
string_enum_schema!(Consent, "Consent", "how the State consents: written, tacit allowed (no objection within the period), national law (a transit State not a Party), per agreement, not required, not applicable (the State of export)", ["written", "tacit_allowed", "national_law", "per_agreement", "not_required", "not_applicable"]);

impl Operation {
    /// `recovery` or `disposal`.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Recovery => "recovery",
            Operation::Disposal => "disposal",
        }
    }

    /// Reads `recovery`, `disposal`, `unknown` (`Ok(None)`) or an Annex IV
    /// code `R1`–`R13`, `D1`–`D15` (any case).
    ///
    /// # Errors
    /// A message saying what is accepted.
    pub fn parse(text: &str) -> Result<Option<Self>, String> {
        let t = text.trim().to_ascii_uppercase();
        let code = |prefix: char, max: u8| {
            t.strip_prefix(prefix)
                .and_then(|n| n.parse::<u8>().ok())
                .is_some_and(|n| (1..=max).contains(&n) && !t[1..].starts_with('0'))
        };
        match t.as_str() {
            "RECOVERY" => Ok(Some(Self::Recovery)),
            "DISPOSAL" => Ok(Some(Self::Disposal)),
            "UNKNOWN" => Ok(None),
            _ if code('R', 13) => Ok(Some(Self::Recovery)),
            _ if code('D', 15) => Ok(Some(Self::Disposal)),
            _ => Err(
                "must be recovery, disposal, unknown, or an Annex IV code R1 to R13 or D1 to D15"
                    .into(),
            ),
        }
    }
}

/// The waste as the rules see it: hazardous (Annex VIII, or Annex I with an
/// Annex III characteristic), other (Annex II), green (Annex IX).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WasteKind {
    /// Hazardous under Article 1(1)(a): Annex VIII, or Annex I with an
    /// Annex III characteristic.
    Hazardous,
    /// "Other wastes" of Annex II (Article 1(2)).
    Other,
    /// Annex IX (green): not hazardous under the Convention.
    Green,
}

impl From<ListType> for WasteKind {
    fn from(list: ListType) -> Self {
        match list {
            ListType::Amber | ListType::AnnexI => WasteKind::Hazardous,
            ListType::AnnexII => WasteKind::Other,
            ListType::Green => WasteKind::Green,
        }
    }
}

/// Whether the movement is prohibited: `true`, `false` or `"unknown"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prohibited {
    /// A rule prohibits it.
    Yes,
    /// No rule prohibits it.
    No,
    /// It depends on a fact that is not known.
    Unknown,
}

impl Serialize for Prohibited {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Prohibited::Yes => s.serialize_bool(true),
            Prohibited::No => s.serialize_bool(false),
            Prohibited::Unknown => s.serialize_str("unknown"),
        }
    }
}

impl JsonSchema for Prohibited {
    fn schema_name() -> Cow<'static, str> {
        "Prohibited".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "enum": [true, false, "unknown"],
            "description": "true: a rule prohibits the movement; false: none does; unknown: it depends on a fact not known (see rules)"
        })
    }
}

/// The regime that sets the procedure: the EU Regulation, the OECD Decision,
/// an Article 11 agreement, the Basel procedure, none for green waste,
/// national law when neither State is a Party or both ends are one State.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// The same State at both ends: national law.
    Domestic,
    /// Regulation (EU) 2024/1157 between EU member States.
    EuWsr,
    /// The OECD Decision among OECD members, for recovery.
    OecdDecision,
    /// A bilateral or regional agreement under Article 11.
    #[serde(rename = "article_11_agreement")]
    Article11Agreement,
    /// The Basel procedure (Articles 6 and 7).
    BaselPic,
    /// Green waste: no Basel procedure.
    NotControlled,
    /// Neither State is a Party: national law.
    NotCovered,
    /// Waste leaving the Antarctic: removal under the Madrid Protocol, Annex III.
    AntarcticRemoval,
}

/// The day the Basel Convention entered into force (Article 25(1)): the
/// earliest day this service answers for.
pub const CONVENTION_IN_FORCE: NaiveDate = match NaiveDate::from_ymd_opt(1992, 5, 5) {
    Some(d) => d,
    None => panic!("a valid date"),
};

/// Reads `as_of`: a date `YYYY-MM-DD`, not before 1992-05-05.
///
/// # Errors
/// A message saying what is accepted.
pub fn parse_as_of(text: &str) -> Result<NaiveDate, String> {
    let day = NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| "must be a date, YYYY-MM-DD".to_owned())?;
    if day < CONVENTION_IN_FORCE {
        return Err(
            "must not be before 1992-05-05, when the Basel Convention entered into force".into(),
        );
    }
    Ok(day)
}

/// The waste as the rules see it: its kind and, when known, its Basel code
/// (some rules name codes: B3011, Y46 to Y49, …).
#[derive(Debug, Clone, Copy)]
pub struct Waste<'a> {
    /// Hazardous, other or green.
    pub kind: WasteKind,
    /// The Basel code, when known.
    pub code: Option<&'a str>,
}

impl From<WasteKind> for Waste<'_> {
    fn from(kind: WasteKind) -> Self {
        Self { kind, code: None }
    }
}

/// What a State does on the route: export, transit or import.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The State of export.
    Export,
    /// A State of transit.
    Transit,
    /// The State of import.
    Import,
}

impl Role {
    /// `export`, `transit` or `import` (the movement a competent authority handles).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Export => "export",
            Role::Transit => "transit",
            Role::Import => "import",
        }
    }
}

/// Whether and how a State must consent before the movement starts:
/// written, tacit allowed (no objection within the period), national law (a
/// transit State that is not a Party), per agreement, not required, or not
/// applicable (the State of export notifies).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Consent {
    /// Written consent is required.
    Written,
    /// Consent may be tacit: no objection within the period.
    TacitAllowed,
    /// Notified; consent follows its own law (a transit State that is not a Party).
    NationalLaw,
    /// As the Article 11 agreement provides.
    PerAgreement,
    /// No notification or consent is required.
    NotRequired,
    /// The State of export: it notifies, it does not consent.
    NotApplicable,
}

/// One State on the route.
#[derive(Serialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct RouteState {
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    /// Its name.
    pub name: String,
    /// Export, transit or import.
    pub role: Role,
    /// A Party to the Basel Convention.
    pub basel_party: bool,
    /// An OECD member.
    pub oecd_member: bool,
    /// An EU member State.
    pub eu_member: bool,
    /// In Annex VII (OECD, EU, Liechtenstein).
    pub annex_vii: bool,
    /// Its acceptance of the Ban Amendment.
    pub ban_amendment: domain::parties::BanAcceptance,
    /// Whether and how it must consent.
    pub consent: Consent,
    /// What it does, in one sentence.
    pub duty: String,
}

/// The answer for one operation (given when the operation is unknown).
#[derive(Serialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct OperationAnswer {
    /// Recovery or disposal.
    pub operation: Operation,
    /// Whether the movement is prohibited for it.
    pub prohibited: Prohibited,
    /// The regime for it.
    pub regime: Regime,
    /// The rules that decide it.
    pub deciding: Vec<RuleId>,
}

/// The plan for a whole route.
#[derive(Serialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct RoutePlan {
    /// Whether the movement is prohibited.
    pub prohibited: Prohibited,
    /// The day whose law applies.
    pub as_of: String,
    /// The operation asked about (absent: unknown).
    pub operation: Option<Operation>,
    /// The regime that sets the procedure.
    pub regime: Regime,
    /// The answer in one or two sentences.
    pub summary: String,
    /// Every rule that applies, with its article.
    pub rules: Vec<Finding>,
    /// When the operation is unknown: the answer for each.
    pub by_operation: Vec<OperationAnswer>,
    /// Every State on the route, export first, import last.
    pub states: Vec<RouteState>,
    /// The steps in order (none when prohibited).
    pub steps: Vec<Step>,
    /// When prohibited: what would have to change.
    pub to_permit: Vec<String>,
}

/// The route to plan.
#[derive(Debug, Clone, Copy)]
pub struct Route<'a> {
    /// The State of export.
    pub origin: &'a StateFacts,
    /// The States of transit, in order.
    pub transit: &'a [StateFacts],
    /// The State of import.
    pub destination: &'a StateFacts,
}

/// The findings, verdict and regime for one operation.
struct Decision {
    operation: Operation,
    findings: Vec<Finding>,
    prohibited: Prohibited,
    regime: Regime,
}

fn decide(route: Route<'_>, waste: Waste<'_>, operation: Operation, as_of: NaiveDate) -> Decision {
    let case = Case {
        origin: route.origin,
        destination: route.destination,
        transit: route.transit,
        waste: waste.kind,
        operation,
        code: waste.code,
        as_of,
    };
    let findings = rules::evaluate(&case);
    let prohibited = if findings.iter().any(|f| f.effect == Effect::Prohibits) {
        Prohibited::Yes
    } else if findings.iter().any(|f| f.effect == Effect::MayProhibit) {
        Prohibited::Unknown
    } else {
        Prohibited::No
    };
    Decision {
        operation,
        regime: regime(&findings),
        findings,
        prohibited,
    }
}

fn regime(findings: &[Finding]) -> Regime {
    let has = |id: RuleId| findings.iter().any(|f| f.rule == id);
    let procedure = |id: RuleId| {
        findings
            .iter()
            .any(|f| f.rule == id && f.effect == Effect::Procedure)
    };
    if has(RuleId::Domestic) {
        Regime::Domestic
    } else if has(RuleId::AntarcticRemoval) {
        Regime::AntarcticRemoval
    } else if procedure(RuleId::EuWsr) || eu_notified(findings) {
        Regime::EuWsr
    } else if procedure(RuleId::OecdDecision) {
        Regime::OecdDecision
    } else if procedure(RuleId::Agreement) {
        Regime::Article11Agreement
    } else if procedure(RuleId::BaselPic) {
        Regime::BaselPic
    } else if has(RuleId::NotCovered) {
        Regime::NotCovered
    } else if has(RuleId::NotControlled) {
        Regime::NotControlled
    } else {
        // A Party and a State that is not one, with no agreement: the
        // movement is prohibited; the Basel procedure is what would apply.
        Regime::BaselPic
    }
}

/// Whether an EU rule asks for prior written notification and consent of
/// an export the other regimes would leave uncontrolled (B3011, a green
/// waste a country answered (b) for).
fn eu_notified(findings: &[Finding]) -> bool {
    findings.iter().any(|f| {
        f.effect == Effect::Procedure
            && matches!(
                f.rule,
                RuleId::EuExportOecd | RuleId::EuB3011Notification | RuleId::EuGreen1418
            )
    })
}

/// The rules that decide a verdict: those that prohibit (or may), else
/// those that permit or set the procedure.
fn deciding(findings: &[Finding], prohibited: Prohibited) -> Vec<RuleId> {
    let wanted: &[Effect] = match prohibited {
        Prohibited::Yes => &[Effect::Prohibits],
        Prohibited::Unknown => &[Effect::MayProhibit],
        Prohibited::No => &[Effect::Permits, Effect::Procedure],
    };
    findings
        .iter()
        .filter(|f| wanted.contains(&f.effect))
        .map(|f| f.rule)
        .collect()
}

/// Plans `route` for `waste` and `operation` (`None`: unknown, then both
/// are decided and the answer says what changes with each), by the rules
/// in force on `as_of`.
pub fn plan(
    route: Route<'_>,
    waste: Waste<'_>,
    operation: Option<Operation>,
    as_of: NaiveDate,
) -> RoutePlan {
    let decisions: Vec<Decision> = match operation {
        Some(op) => vec![decide(route, waste, op, as_of)],
        None => vec![
            decide(route, waste, Operation::Recovery, as_of),
            decide(route, waste, Operation::Disposal, as_of),
        ],
    };
    let prohibited = combine(decisions.iter().map(|d| d.prohibited));
    // The decision the steps follow: the one asked about; when unknown, the
    // stricter one that is still allowed (disposal unless only recovery is).
    let primary = decisions
        .iter()
        .rev()
        .find(|d| d.prohibited != Prohibited::Yes)
        .unwrap_or(&decisions[decisions.len() - 1]);
    let mut findings: Vec<Finding> = Vec::new();
    for d in &decisions {
        let in_all = |f: &Finding| decisions.iter().all(|x| x.findings.contains(f));
        for f in &d.findings {
            let mut f = f.clone();
            if !in_all(&f) {
                f.only_for = Some(d.operation);
            }
            if !findings.contains(&f) {
                findings.push(f);
            }
        }
    }
    let basis = steps::Basis {
        regime: primary.regime,
        waste: waste.kind,
        operation: primary.operation,
        eu_notified: eu_notified(&primary.findings),
    };
    let states = steps::states(route, &basis);
    let steps = if prohibited == Prohibited::Yes {
        Vec::new()
    } else {
        steps::steps(route, &basis, prohibited)
    };
    let by_operation = if operation.is_none() {
        decisions
            .iter()
            .map(|d| OperationAnswer {
                operation: d.operation,
                prohibited: d.prohibited,
                regime: d.regime,
                deciding: deciding(&d.findings, d.prohibited),
            })
            .collect()
    } else {
        Vec::new()
    };
    RoutePlan {
        summary: summary(route, prohibited, &decisions, primary, &findings),
        to_permit: if prohibited == Prohibited::Yes {
            to_permit(&findings)
        } else {
            Vec::new()
        },
        prohibited,
        as_of: as_of.to_string(),
        operation,
        regime: primary.regime,
        rules: findings,
        by_operation,
        states,
        steps,
    }
}

fn combine(verdicts: impl Iterator<Item = Prohibited>) -> Prohibited {
    let all: Vec<Prohibited> = verdicts.collect();
    match all.as_slice() {
        [one] => *one,
        _ if all.iter().all(|p| *p == Prohibited::Yes) => Prohibited::Yes,
        _ if all.iter().all(|p| *p == Prohibited::No) => Prohibited::No,
        _ => Prohibited::Unknown,
    }
}

fn summary(
    route: Route<'_>,
    prohibited: Prohibited,
    decisions: &[Decision],
    primary: &Decision,
    findings: &[Finding],
) -> String {
    let (o, d) = (&route.origin.name, &route.destination.name);
    let cite = |effects: &[Effect]| {
        let mut articles: Vec<&str> = Vec::new();
        for f in findings.iter().filter(|f| effects.contains(&f.effect)) {
            if !articles.contains(&f.article.as_str()) {
                articles.push(&f.article);
            }
        }
        articles.join("; ")
    };
    match prohibited {
        Prohibited::Yes => format!("Prohibited: {o} to {d} ({}).", cite(&[Effect::Prohibits])),
        Prohibited::Unknown
            if decisions.len() == 2
                && decisions
                    .iter()
                    .any(|x| x.prohibited != primary.prohibited || x.regime != primary.regime) =>
        {
            let each: Vec<String> = decisions
                .iter()
                .map(|x| {
                    format!(
                        "for {}: {}",
                        x.operation.as_str(),
                        verdict_words(x.prohibited)
                    )
                })
                .collect();
            format!("It depends on the operation, which is not given: {}. Give the operation (recovery or disposal) for one answer.", each.join("; "))
        }
        Prohibited::Unknown => format!(
            "Not known whether it is prohibited: {} (treat it as prohibited until confirmed).",
            cite(&[Effect::MayProhibit])
        ),
        Prohibited::No => {
            format!(
                "Not prohibited: {o} to {d}; the procedure is set by {}.{}",
                cite(&[Effect::Permits, Effect::Procedure]).if_empty("national law"),
                if bans::not_checked(&route.destination.code)
                    && route.destination.code != route.origin.code
                {
                    format!(" {d}'s national import restrictions were not checked (see rules, import_ban).")
                } else {
                    String::new()
                }
            )
        }
    }
}

trait IfEmpty {
    fn if_empty(self, other: &str) -> String;
}

impl IfEmpty for String {
    fn if_empty(self, other: &str) -> String {
        if self.is_empty() {
            other.to_owned()
        } else {
            self
        }
    }
}

fn verdict_words(p: Prohibited) -> &'static str {
    match p {
        Prohibited::Yes => "prohibited",
        Prohibited::No => "not prohibited",
        Prohibited::Unknown => "not known",
    }
}

/// What would have to change for a prohibited movement to be allowed, one
/// line per prohibiting rule.
fn to_permit(findings: &[Finding]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in findings.iter().filter(|f| f.effect == Effect::Prohibits) {
        let line = match f.rule {
            RuleId::Antarctica => "A destination outside the area south of 60° S, or recovery instead of disposal.",
            RuleId::BanAmendment => "A State of import in Annex VII (OECD, EU, Liechtenstein), or a waste that is not hazardous under Article 1(1)(a).",
            RuleId::NonParty => "An agreement under Article 11 between the two States covering this waste and operation, or a State of import (or export) that is a Party.",
            RuleId::EuExportDisposal => "Recovery instead of disposal, or a State of import that is an EFTA country and a Party (Iceland, Liechtenstein, Norway, Switzerland).",
            RuleId::EuExportRecovery | RuleId::EuAnnexVPart2 | RuleId::EuPlasticExport => "A State of import to which the OECD Decision applies (Regulation (EU) 2024/1157, Article 39).",
            RuleId::EuGreen1418 => "A State of import whose answer under Regulation (EC) No 1418/2007 allows this waste.",
            RuleId::EuAntarctic => "A destination outside the Antarctic: no waste may be exported from the Union to it.",
            RuleId::ImportBan => "A State of import that does not ban this waste.",
            _ => continue,
        };
        if !out.iter().any(|l| l == line) {
            out.push(line.to_owned());
        }
    }
    out
}
