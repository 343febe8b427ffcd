//! `plan_shipment` (MCP) and `POST /api/v1/shipments/plan` (REST): one
//! engine answering "who do I notify to move this waste from A to B (through
//! C)?". It classifies the description (or looks the code up), decides the
//! procedure between origin and destination, plans the route with
//! `domain::shipment`, and adds the directory record of every State on it,
//! so both edges give the same answer.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;

use domain::classifier::{
    Classification, Classifier, CodeInfo, CodeStatus, ListType, Procedure, DISCLAIMER,
};
use domain::shipment::{self, RouteState, Waste};
use domain::values::CountryCode;

use crate::directory::{AuthorityRow, Reader};
use crate::search::{self, Resolution};
use crate::views::Record;
use crate::{ProjectionError, ReadDb};

/// The most transit States on one route.
pub const MAX_TRANSIT: usize = 10;

/// What is asked: the waste (a description or a code) and the route, each
/// country as an ISO code or a name.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    /// The waste in plain language (classified as `POST /api/v1/classify` does).
    pub description: Option<String>,
    /// Or a Basel code (A, B or Y).
    pub code: Option<String>,
    /// The State of export.
    pub origin: String,
    /// The State of import.
    pub destination: String,
    /// States of transit, in order.
    pub transit: Vec<String>,
}

/// Why a request cannot be planned: the field and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A field the caller can correct.
    #[error("{field}: {message}")]
    Invalid {
        /// The field (`origin`, `transit[1]`, `code`, …).
        field: String,
        /// What is wrong.
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
    /// The list that decides.
    pub list_type: ListType,
    /// Whether Prior Informed Consent (or OECD Amber control) applies.
    pub pic_required: bool,
    /// The classification of the description (when one was given).
    pub classification: Option<Classification>,
    /// The entry of the given code (when one was given).
    pub entry: Option<CodeInfo>,
}

/// One State on the route with its directory record.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StateOnRoute {
    /// Its role, standing, consent and duty.
    #[serde(flatten)]
    pub state: RouteState,
    /// Its name as the directory knows it.
    pub country_name: Option<String>,
    /// Its competent-authority record, as `GET /api/v1/ca/{cc}` returns it
    /// (`null` when the directory has none).
    pub record: Option<Record>,
}

/// The answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ShipmentPlan {
    /// The waste: its deciding code, list type and whether PIC applies.
    pub waste: WasteAnswer,
    /// The regime between the State of export and the State of import.
    pub procedure: Procedure,
    /// Every State on the route, export first, import last.
    pub route: Vec<StateOnRoute>,
    /// Who notifies whom, and whose consent is awaited.
    pub notification: shipment::Notification,
    /// What to check before relying on this answer.
    pub warnings: Vec<String>,
    /// Informational only; confirm with the competent authorities.
    pub disclaimer: String,
}

/// Plans `request`, judging records stale against `today`.
///
/// # Errors
/// [`PlanError::Invalid`] for a field the caller can correct;
/// [`PlanError::Read`] when the directory cannot be read.
pub async fn plan(
    classifier: &Classifier,
    db: &ReadDb,
    request: &PlanRequest,
    today: NaiveDate,
    stale_after_days: i64,
) -> Result<ShipmentPlan, PlanError> {
    let rows = Reader::new(db.clone()).all().await?;
    let origin = country(&rows, &request.origin, "origin")?;
    let destination = country(&rows, &request.destination, "destination")?;
    if request.transit.len() > MAX_TRANSIT {
        return Err(invalid("transit", format!("at most {MAX_TRANSIT} States")));
    }
    let transit = request
        .transit
        .iter()
        .enumerate()
        .map(|(i, t)| country(&rows, t, &format!("transit[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let waste = waste(classifier, request, &origin, &destination)?;
    let (procedure, mut warnings) =
        classifier.procedure(&origin, &destination, waste.list_type, waste.pic_required);
    let transit_stops: Vec<_> = transit.iter().map(|c| stop(classifier, c)).collect();
    let route = shipment::plan(
        Waste {
            controlled: waste.pic_required,
        },
        &procedure,
        stop(classifier, &origin),
        &transit_stops,
        stop(classifier, &destination),
    );
    warnings.extend(route.warnings);
    let states: Vec<StateOnRoute> = route
        .states
        .into_iter()
        .map(|state| with_record(&rows, state, today, stale_after_days))
        .collect();
    warnings.extend(states.iter().filter_map(record_warning));
    if let Some(c) = &waste.classification {
        warnings.extend(c.warnings.iter().cloned());
    }
    Ok(ShipmentPlan {
        waste,
        procedure,
        route: states,
        notification: route.notification,
        warnings,
        disclaimer: DISCLAIMER.to_owned(),
    })
}

fn stop<'a>(classifier: &Classifier, code: &'a CountryCode) -> shipment::Stop<'a> {
    (code.as_str(), classifier.standing(code.as_str()))
}

fn invalid(field: &str, message: impl Into<String>) -> PlanError {
    PlanError::Invalid {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// A country by code (any two letters the reference data or directory
/// knows) or by a name the directory knows.
fn country(rows: &[AuthorityRow], input: &str, field: &str) -> Result<CountryCode, PlanError> {
    let text = input.trim();
    if text.len() == 2 {
        if let Ok(code) = CountryCode::parse(text) {
            return Ok(code);
        }
    }
    match search::resolve(rows, text) {
        Resolution::Found(row) => {
            CountryCode::parse(&row.country_code).map_err(|e| invalid(field, e.to_string()))
        }
        Resolution::Ambiguous(rows) => Err(invalid(
            field,
            format!(
                "'{}' matches several countries: {}; give the ISO code",
                text.chars().take(100).collect::<String>(),
                rows.iter()
                    .map(|r| format!("{} ({})", r.country_name, r.country_code))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
        Resolution::NotFound | Resolution::Empty => Err(invalid(
            field,
            "must be an ISO 3166-1 alpha-2 code or the name of a country in the directory",
        )),
    }
}

fn waste(
    classifier: &Classifier,
    request: &PlanRequest,
    origin: &CountryCode,
    destination: &CountryCode,
) -> Result<WasteAnswer, PlanError> {
    match (&request.description, &request.code) {
        (Some(description), None) => {
            let classification = classifier.classify(description, Some(origin), Some(destination));
            Ok(WasteAnswer {
                code: classification.best_code().map(str::to_owned),
                list_type: classification.list_type,
                pic_required: classification.pic_required,
                classification: Some(classification),
                entry: None,
            })
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
            Ok(WasteAnswer {
                code: Some(entry.code.clone()),
                list_type,
                pic_required: list_type != ListType::Green,
                classification: None,
                entry: Some(entry),
            })
        }
        _ => Err(invalid(
            "description",
            "give either a description of the waste or its code, not both",
        )),
    }
}

fn with_record(
    rows: &[AuthorityRow],
    state: RouteState,
    today: NaiveDate,
    stale_after_days: i64,
) -> StateOnRoute {
    let row = rows.iter().find(|r| r.country_code == state.country_code);
    StateOnRoute {
        country_name: row.map(|r| r.country_name.clone()),
        record: row.map(|r| Record::new(r.clone(), today, stale_after_days)),
        state,
    }
}

fn record_warning(state: &StateOnRoute) -> Option<String> {
    let code = &state.state.country_code;
    match &state.record {
        None => Some(format!("No competent-authority record for {code} in the directory: find its authority through the Basel Secretariat before notifying.")),
        Some(r) if r.ca_name.is_none() && r.email.is_none() => Some(format!("The record of {code} has no contact details: find its competent authority through the Basel Secretariat.")),
        Some(r) if r.stale || !r.verified => Some(format!(
            "The record of {code} is {} (last checked {}): confirm the contact before relying on it.",
            if r.verified { "stale" } else { "not verified" },
            r.last_checked.as_deref().unwrap_or("never")
        )),
        Some(_) => None,
    }
}
