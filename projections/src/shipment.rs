//! `plan_shipment` (MCP) and `POST /api/v1/shipments/plan` (REST): one
//! engine answering "may I move this waste from A to B (through C), and if
//! so, who does what?". It reads the countries (codes or any name the Party
//! registry knows), classifies the description (or looks the code up),
//! lets `domain::shipment` decide by its rules, and adds the competent
//! authorities of every State chosen by area and movement
//! ([`crate::scope`]), each with its provenance and age. Both edges call
//! [`plan`] and serialise [`ShipmentPlan`] unchanged, so they give the same
//! answer.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use classifier::{Classifier, CodeStatus, ListType, DISCLAIMER};
use domain::parties::{fold, registry};
use domain::values::CountryCode;
use law::rules::Finding;
use law::{
    self, Operation, OperationAnswer, Prohibited, Regime, Route, RouteState, StateFacts, Step,
    WasteKind,
};

use crate::contacts::{views, ContactView};
use crate::directory::{AuthorityRow, Reader};
use crate::search::{self, Resolution};
use crate::{ProjectionError, ReadDb};

/// The most transit States on one route.
pub const MAX_TRANSIT: usize = 10;
/// The longest country or area argument, in characters.
pub const MAX_NAME_CHARS: usize = 100;

/// Names people use that are in neither the registry nor the directory
/// (folded, see [`fold`]), with the code they stand for.
const ALIASES: [(&str, &str); 5] = [
    ("usa", "US"),
    ("u s a", "US"),
    ("u s", "US"),
    ("united states of america", "US"),
    ("america", "US"),
];

/// What is asked: the waste, the route and the operation. The body of
/// `POST /api/v1/shipments/plan` and the arguments of `plan_shipment`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanRequest {
    /// The waste in plain words (give this or code).
    #[serde(default)]
    pub description: Option<String>,
    /// A Basel code such as A1160 or B1010 (give this or description).
    #[serde(default)]
    pub code: Option<String>,
    /// The State of export: ISO 3166-1 alpha-2 code or country name.
    pub origin: String,
    /// The State of import: code or name.
    pub destination: String,
    /// States of transit in order: codes or names (at most 10).
    #[serde(default)]
    pub transit: Option<Vec<String>>,
    /// recovery, disposal, an Annex IV code (R1 to R13, D1 to D15), or unknown (the default: the answer gives both).
    #[serde(default)]
    pub operation: Option<String>,
    /// An area of the State of export (a Land, a province) to pick its competent authority.
    #[serde(default)]
    pub origin_area: Option<String>,
    /// An area of the State of import to pick its competent authority.
    #[serde(default)]
    pub destination_area: Option<String>,
    /// The day whose law applies, YYYY-MM-DD, not before 1992-05-05 (default: today).
    #[serde(default)]
    pub as_of: Option<String>,
}

/// Why a request cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A field the caller can correct.
    #[error("{field}: {message}")]
    Invalid {
        /// The field (`origin`, `transit`, `code`, …).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// No country has this code or name.
    #[error("{field}: {message}")]
    CountryNotFound {
        /// The field (`origin`, `destination`, `transit`).
        field: String,
        /// What was not found.
        message: String,
    },
    /// The directory could not be read.
    #[error(transparent)]
    Read(#[from] ProjectionError),
}

/// The waste as the plan treats it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WasteAnswer {
    /// The code that decides (the given code, or the classification's best).
    pub code: Option<String>,
    /// That code's title, when known.
    pub title: Option<String>,
    /// The list that decides: Amber (Annex VIII), Green (Annex IX), Annex I, Annex II.
    pub list_type: ListType,
    /// How the rules treat it.
    pub kind: WasteKind,
    /// The classifier's confidence (0 to 1), when a description was classified.
    #[schemars(schema_with = "nullable_number")]
    pub confidence: Option<f64>,
}

/// A competent authority (or the focal point) as the route needs it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AuthorityAnswer {
    /// Its contact id in the record (`GET /api/v1/ca/{cc}` has the rest).
    pub contact_id: String,
    /// Its name.
    pub name: Option<String>,
    /// Why it is the one: its scope.
    pub reason: String,
    /// E-mail.
    pub email: Option<String>,
    /// Phone.
    pub phone: Option<String>,
    /// Website.
    pub website: Option<String>,
    /// Postal address.
    pub address: Option<String>,
    /// The source its details come from.
    pub source: Option<String>,
    /// The kind of that source.
    pub source_kind: String,
    /// The day its details are known to hold as of.
    pub as_of: Option<String>,
    /// Whole years since then.
    #[schemars(schema_with = "nullable_integer")]
    pub age_years: Option<i64>,
    /// Over five years old: historic, confirm before use.
    pub historic: bool,
    /// Whether a steward's check confirmed it.
    pub verified: bool,
}

/// One State on the route with the authorities to deal with.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StateOnRoute {
    /// Its role, standing, consent and duty.
    #[serde(flatten)]
    pub state: RouteState,
    /// Its competent authorities for its role (and the area asked), the most specific first.
    pub authorities: Vec<AuthorityAnswer>,
    /// Its focal point, when the record has one.
    pub focal_point: Option<AuthorityAnswer>,
    /// What the directory lacks for this State, and whom to ask.
    pub gap: Option<String>,
}

/// The answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShipmentPlan {
    /// Whether the movement is prohibited.
    pub prohibited: Prohibited,
    /// The day whose law applies.
    pub as_of: String,
    /// The answer in one or two sentences.
    pub summary: String,
    /// The operation asked about (absent: unknown).
    pub operation: Option<Operation>,
    /// The Annex IV code given, if one was.
    pub operation_code: Option<String>,
    /// The regime that sets the procedure.
    pub regime: Regime,
    /// Every rule that applies, with its article.
    pub rules: Vec<Finding>,
    /// When the operation is unknown: the answer for recovery and for disposal.
    pub by_operation: Vec<OperationAnswer>,
    /// When prohibited: what would have to change.
    pub to_permit: Vec<String>,
    /// The steps in order (none when prohibited).
    pub steps: Vec<Step>,
    /// Every State, export first, import last.
    pub route: Vec<StateOnRoute>,
    /// The waste.
    pub waste: WasteAnswer,
    /// What to check before relying on this answer.
    pub warnings: Vec<String>,
    /// Informational only; confirm with the competent authorities.
    pub disclaimer: String,
}

/// A number or null, without a `format` (JSON Schema has none for numbers).
fn nullable_number(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["number", "null"]})
}

/// An integer or null, without a `format`.
fn nullable_integer(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": ["integer", "null"]})
}

/// Plans `request` by the law in force on its `as_of` (default `today`),
/// judging contacts' age against `today`.
///
/// # Errors
/// [`PlanError::Invalid`] for a field the caller can correct,
/// [`PlanError::CountryNotFound`] for a country no code or name matches,
/// [`PlanError::Read`] when the directory cannot be read.
pub async fn plan(
    classifier: &Classifier,
    db: &ReadDb,
    request: &PlanRequest,
    today: NaiveDate,
    stale_after_days: i64,
) -> Result<ShipmentPlan, PlanError> {
    let (operation, operation_code) = operation(request.operation.as_deref())?;
    let as_of = match request.as_of.as_deref() {
        Some(text) => law::parse_as_of(text).map_err(|m| invalid("as_of", m))?,
        None => today,
    };
    let rows = Reader::new(db.clone()).all().await?;
    let origin = country(&rows, &request.origin, "origin")?;
    let destination = country(&rows, &request.destination, "destination")?;
    let transit_input = request.transit.clone().unwrap_or_default();
    if transit_input.len() > MAX_TRANSIT {
        return Err(invalid("transit", format!("at most {MAX_TRANSIT} States")));
    }
    let transit = transit_input
        .iter()
        .map(|t| country(&rows, t, "transit"))
        .collect::<Result<Vec<_>, _>>()?;
    let (waste, mut warnings) = waste(classifier, request)?;
    let route = law::plan(
        Route {
            origin: &origin,
            transit: &transit,
            destination: &destination,
        },
        law::Waste {
            kind: waste.kind,
            code: waste.code.as_deref(),
        },
        operation,
        as_of,
    );
    let areas = [
        request.origin_area.as_deref(),
        request.destination_area.as_deref(),
    ];
    let last = route.states.len() - 1;
    let mut states = Vec::new();
    for (i, state) in route.states.into_iter().enumerate() {
        let (area, field) = match i {
            0 => (areas[0], "origin_area"),
            i if i == last => (areas[1], "destination_area"),
            _ => (None, ""),
        };
        let on_route = with_authorities(&rows, state, area, field, today, stale_after_days)?;
        warnings.extend(age_warnings(&on_route));
        states.push(on_route);
    }
    Ok(ShipmentPlan {
        prohibited: route.prohibited,
        as_of: route.as_of,
        summary: route.summary,
        operation: route.operation,
        operation_code,
        regime: route.regime,
        rules: route.rules,
        by_operation: route.by_operation,
        to_permit: route.to_permit,
        steps: route.steps,
        route: states,
        waste,
        warnings,
        disclaimer: DISCLAIMER.to_owned(),
    })
}

fn invalid(field: &str, message: impl Into<String>) -> PlanError {
    PlanError::Invalid {
        field: field.to_owned(),
        message: message.into(),
    }
}

fn operation(text: Option<&str>) -> Result<(Option<Operation>, Option<String>), PlanError> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok((None, None));
    };
    let op = Operation::parse(text).map_err(|m| invalid("operation", m))?;
    let upper = text.to_ascii_uppercase();
    let code = (upper.starts_with('R') || upper.starts_with('D'))
        .then_some(upper)
        .filter(|u| u != "RECOVERY" && u != "DISPOSAL");
    Ok((op, code))
}

/// A country by code or by any name the Party registry or the directory
/// knows, Party or not.
fn country(rows: &[AuthorityRow], input: &str, field: &str) -> Result<StateFacts, PlanError> {
    let text = input.trim();
    if text.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(
            field,
            format!("at most {MAX_NAME_CHARS} characters"),
        ));
    }
    let folded = fold(text);
    let alias = ALIASES
        .iter()
        .find(|(name, _)| *name == folded)
        .and_then(|(_, code)| CountryCode::parse(code).ok());
    let code = match registry().code_of(text).or(alias) {
        Some(code) => code,
        None => match search::resolve(rows, text) {
            Resolution::Found(row) => {
                CountryCode::parse(&row.country_code).map_err(|e| invalid(field, e.to_string()))?
            }
            Resolution::Ambiguous(rows) => {
                return Err(invalid(
                    field,
                    format!(
                        "'{text}' matches several countries: {}; give the ISO code",
                        rows.iter()
                            .map(|r| format!("{} ({})", r.country_name, r.country_code))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
            Resolution::NotFound | Resolution::Empty => return Err(not_found(field, text)),
        },
    };
    StateFacts::of(&code).ok_or_else(|| not_found(field, text))
}

fn not_found(field: &str, text: &str) -> PlanError {
    PlanError::CountryNotFound {
        field: field.to_owned(),
        message: format!("no country has the code or name '{text}': give an ISO 3166-1 alpha-2 code or a country name"),
    }
}

fn waste(
    classifier: &Classifier,
    request: &PlanRequest,
) -> Result<(WasteAnswer, Vec<String>), PlanError> {
    match (&request.description, &request.code) {
        (Some(description), None) => {
            let c = classifier.classify(description);
            let code = c.best_code().map(str::to_owned);
            let title = code
                .as_deref()
                .and_then(|k| classifier.lookup(k))
                .map(|e| e.name);
            Ok((
                WasteAnswer {
                    code,
                    title,
                    list_type: c.list_type,
                    kind: c.list_type.into(),
                    confidence: Some(c.overall_confidence),
                },
                c.warnings,
            ))
        }
        (None, Some(code)) => {
            let entry = classifier
                .lookup(code.trim())
                .ok_or_else(|| invalid("code", "is not a Basel code (Y, A or B entry)"))?;
            if entry.status == CodeStatus::Deleted {
                return Err(invalid(
                    "code",
                    format!(
                        "{} was deleted from the annexes; use {}",
                        entry.code,
                        entry.replaced_by.clone().unwrap_or_default().join(" or ")
                    ),
                ));
            }
            let list_type = match entry.annex.as_str() {
                "VIII" => ListType::Amber,
                "IX" => ListType::Green,
                "I" => ListType::AnnexI,
                "II" => ListType::AnnexII,
                _ => return Err(invalid(
                    "code",
                    "an Annex III (H) code describes a hazard, not a waste: give a Y, A or B code",
                )),
            };
            Ok((
                WasteAnswer {
                    code: Some(entry.code.clone()),
                    title: Some(entry.name),
                    list_type,
                    kind: list_type.into(),
                    confidence: None,
                },
                Vec::new(),
            ))
        }
        _ => Err(invalid(
            "description",
            "give either a description of the waste or its code, not both",
        )),
    }
}

/// `state` with its competent authorities for its role and `area`.
fn with_authorities(
    rows: &[AuthorityRow],
    state: RouteState,
    area: Option<&str>,
    area_field: &str,
    today: NaiveDate,
    stale_after_days: i64,
) -> Result<StateOnRoute, PlanError> {
    let Some(row) = rows.iter().find(|r| r.country_code == state.country_code) else {
        let gap = if state.basel_party {
            format!("The directory holds no record of {}: ask the Secretariat of the Basel Convention for its competent authority.", state.name)
        } else {
            format!("{} is not a Party: the directory holds Parties' authorities only; ask its government which authority handles waste movements.", state.name)
        };
        return Ok(StateOnRoute {
            state,
            authorities: Vec::new(),
            focal_point: None,
            gap: Some(gap),
        });
    };
    let competent = crate::scope::competent(&row.state, area, Some(state.role.as_str()))
        .map_err(|e| invalid(area_field, e.to_string()))?;
    let contacts = views(&row.state, today, stale_after_days);
    let authorities: Vec<AuthorityAnswer> = competent
        .iter()
        .filter_map(|c| {
            let view = contacts.iter().find(|v| v.id == c.contact_id)?;
            Some(answer(view, c.reason.clone()))
        })
        .collect();
    let focal_point = contacts
        .iter()
        .find(|v| v.role == "focal_point")
        .or_else(|| contacts.iter().find(|v| v.also_focal_point))
        .map(|v| answer(v, "focal point".to_owned()));
    let gap = authorities.is_empty().then(|| {
        let fp = focal_point.as_ref().map_or_else(
            || "no focal point is known either".to_owned(),
            |f| {
                format!(
                    "the focal point is {}{}",
                    f.name.as_deref().unwrap_or("named in the record"),
                    f.email
                        .as_deref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                )
            },
        );
        format!(
            "No competent authority known for {} ({}{}); {fp}; ask the Secretariat of the Basel Convention.",
            state.name,
            state.role.as_str(),
            area.map(|a| format!(", area {a}")).unwrap_or_default()
        )
    });
    Ok(StateOnRoute {
        state,
        authorities,
        focal_point,
        gap,
    })
}

fn answer(view: &ContactView, reason: String) -> AuthorityAnswer {
    let p = &view.provenance;
    AuthorityAnswer {
        contact_id: view.id.clone(),
        name: view.name.clone(),
        reason,
        email: view.channels.email.clone(),
        phone: view.channels.phone.clone(),
        website: view.channels.website.clone(),
        address: view.channels.address.clone(),
        source: p.source_url.clone().or_else(|| p.source.clone()),
        source_kind: p.source_kind.clone(),
        as_of: p.age.as_of.clone(),
        age_years: p.age.years,
        historic: p.age.historic,
        verified: p.verified,
    }
}

fn age_warnings(state: &StateOnRoute) -> Vec<String> {
    state
        .authorities
        .iter()
        .take(1)
        .filter(|a| a.historic || a.as_of.is_none())
        .map(|a| {
            format!(
                "The details of {} ({}) are {}: confirm them before use.",
                a.name.as_deref().unwrap_or(&a.contact_id),
                state.state.name,
                match (&a.as_of, a.age_years) {
                    (Some(day), Some(y)) => format!("historic (as of {day}, {y} years old)"),
                    _ => "of unknown age".to_owned(),
                }
            )
        })
        .collect()
}
