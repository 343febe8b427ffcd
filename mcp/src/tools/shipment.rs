//! `plan_shipment`: the same engine and answer as
//! `POST /api/v1/shipments/plan` (`projections::shipment`).

use chrono::Utc;
use rmcp::ErrorData;

use projections::shipment::{PlanError, PlanRequest, MAX_TRANSIT};

use super::{args::Args, done, internal, Outcome, ToolError, MAX_DESCRIPTION_CHARS};
use crate::McpState;

/// The longest country argument, in characters.
const MAX_COUNTRY_CHARS: usize = 100;

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
        Err(PlanError::Read(cause)) => Err(internal("planning a shipment", &cause)),
    }
}

fn read(args: &Args) -> Result<PlanRequest, ToolError> {
    args.only(&["description", "code", "origin", "destination", "transit"])?;
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
    Ok(PlanRequest {
        description,
        code,
        origin: args.required("origin", MAX_COUNTRY_CHARS)?,
        destination: args.required("destination", MAX_COUNTRY_CHARS)?,
        transit: args.strings("transit", MAX_TRANSIT)?,
    })
}
