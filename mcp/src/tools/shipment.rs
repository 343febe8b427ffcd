//! `plan_shipment`: the same engine and answer as
//! `POST /api/v1/shipments/plan` (`projections::shipment`); the arguments
//! are that route's body (`PlanRequest`) with their bounds on the types.

use chrono::Utc;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use projections::shipment::{PlanError, PlanRequest, ShipmentPlan, MAX_NAME_CHARS, MAX_TRANSIT};

use super::args::{Few, Text};
use super::{internal, ToolError, MAX_CODE_CHARS, MAX_DESCRIPTION_CHARS};
use crate::handler::Basel;

/// A State or an area by code or name.
type Name = Text<MAX_NAME_CHARS>;

/// The arguments of `plan_shipment`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanShipment {
    /// The waste in words (or code).
    description: Option<Text<MAX_DESCRIPTION_CHARS>>,
    /// A Basel code, e.g. A1160 (or description).
    code: Option<Text<MAX_CODE_CHARS>>,
    /// State of export: ISO code or name.
    origin: Name,
    /// State of import: code or name.
    destination: Name,
    /// Transit States in order.
    transit: Option<Few<Name, MAX_TRANSIT>>,
    /// recovery, disposal, R1 to R13, D1 to D15 or unknown (default).
    operation: Option<Text<MAX_CODE_CHARS>>,
    /// Area of the State of export (Land, province) for its competent authority.
    origin_area: Option<Name>,
    /// Area of the State of import.
    destination_area: Option<Name>,
    /// Law of this day, YYYY-MM-DD (default today).
    as_of: Option<Text<MAX_CODE_CHARS>>,
}

impl PlanShipment {
    /// The request the planner reads.
    ///
    /// # Errors
    /// `invalid_argument` unless exactly one of `description` and `code` is given.
    fn into_request(self) -> Result<PlanRequest, ToolError> {
        if self.description.is_some() == self.code.is_some() {
            return Err(ToolError::invalid(
                "give either `description` (the waste in words) or `code` (e.g. A1160), not both",
            ));
        }
        Ok(PlanRequest {
            description: self.description.map(Text::into_string),
            code: self.code.map(Text::into_string),
            origin: self.origin.into_string(),
            destination: self.destination.into_string(),
            transit: self
                .transit
                .map(|t| t.into_vec().into_iter().map(Text::into_string).collect())
                .filter(|t: &Vec<String>| !t.is_empty()),
            operation: self.operation.map(Text::into_string),
            origin_area: self.origin_area.map(Text::into_string),
            destination_area: self.destination_area.map(Text::into_string),
            as_of: self.as_of.map(Text::into_string),
        })
    }
}

#[tool_router(router = shipment_tools, vis = "pub(crate)")]
impl Basel {
    /// 'May I move this waste from A to B (through C), and who does what?': prohibited (true,
    /// false or unknown) with each deciding rule and article; the steps in order; each
    /// State's consent and authorities. No operation: both answered. as_of: the day's law.
    /// Informational only.
    #[tool(title = "Plan a shipment")]
    async fn plan_shipment(
        &self,
        Parameters(input): Parameters<PlanShipment>,
    ) -> Result<Json<ShipmentPlan>, ToolError> {
        let request = input.into_request()?;
        let state = self.state();
        let today = Utc::now().date_naive();
        projections::shipment::plan(
            &state.classifier,
            &state.read_db,
            &request,
            today,
            state.stale_after_days,
        )
        .await
        .map(Json)
        .map_err(|error| match error {
            PlanError::Invalid { field, message } => {
                ToolError::invalid(format!("`{field}`: {message}"))
            }
            PlanError::CountryNotFound { field, message } => {
                ToolError::country_not_found(format!("`{field}`: {message}"))
            }
            PlanError::Read(cause) => internal("planning a shipment", &cause).into(),
        })
    }
}
