//! `plan_shipment`: the same engine and answer as
//! `POST /api/v1/shipments/plan` (`projections::shipment`); the arguments
//! are that route's body (`PlanRequest`), checked here as tool errors.

use chrono::Utc;
use rmcp::ErrorData;

use domain::shipment::Operation;
use projections::shipment::{PlanError, PlanRequest, MAX_NAME_CHARS, MAX_TRANSIT};

use super::{args::Args, done, internal, Outcome, ToolError, MAX_DESCRIPTION_CHARS};
use crate::McpState;

/// `plan_shipment`: a waste and a route → procedure per State, who notifies
/// whom, and every State's record.
pub(crate) async fn plan(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let request = match read(&args) {
        Ok(request) => request,
        Err(refusal) => return Ok(refusal.into()),
    };
    let today = Utc::now().date_naive();
    match projections::shipment::plan(
        &state.classifier,
        &state.read_db,
        &request,
        today,
        state.stale_after_days,
    )
    .await
    {
        Ok(plan) => done(plan),
        Err(PlanError::Invalid { field, message }) => {
            Ok(ToolError::invalid(format!("`{field}`: {message}")).into())
        }
        Err(PlanError::CountryNotFound { field, message }) => {
            Ok(ToolError::country_not_found(format!("`{field}`: {message}")).into())
        }
        Err(PlanError::Read(cause)) => Err(internal("planning a shipment", &cause)),
    }
}

fn read(args: &Args) -> Result<PlanRequest, ToolError> {
    args.only(&[
        "description",
        "code",
        "origin",
        "destination",
        "transit",
        "operation",
        "origin_area",
        "destination_area",
    ])?;
    let description = args.string("description")?;
    let code = args.string("code")?;
    if description.is_some() == code.is_some() {
        return Err(ToolError::invalid(
            "give either `description` (the waste in words) or `code` (e.g. A1160), not both",
        ));
    }
    if description
        .as_ref()
        .is_some_and(|d| d.is_empty() || d.chars().count() > MAX_DESCRIPTION_CHARS)
    {
        return Err(ToolError::invalid(format!(
            "`description` must be 1 to {MAX_DESCRIPTION_CHARS} characters"
        )));
    }
    let operation = args.string("operation")?;
    if let Some(Err(message)) = operation.as_deref().map(Operation::parse) {
        return Err(ToolError::invalid(format!("`operation` {message}")));
    }
    let mut areas = [
        args.string("origin_area")?,
        args.string("destination_area")?,
    ];
    for (name, area) in ["origin_area", "destination_area"].iter().zip(&mut areas) {
        if area
            .as_ref()
            .is_some_and(|a| a.chars().count() > MAX_NAME_CHARS)
        {
            return Err(ToolError::invalid(format!(
                "`{name}` must be at most {MAX_NAME_CHARS} characters"
            )));
        }
    }
    let [origin_area, destination_area] = areas;
    let transit = args.strings("transit", MAX_TRANSIT)?;
    Ok(PlanRequest {
        description,
        code,
        origin: args.required("origin", MAX_NAME_CHARS)?,
        destination: args.required("destination", MAX_NAME_CHARS)?,
        transit: (!transit.is_empty()).then_some(transit),
        operation,
        origin_area,
        destination_area,
    })
}
