//! `POST /api/v1/shipments/plan`: "who do I notify to move this waste from A
//! to B (through C)?" — the classification (or the code's entry), the
//! procedure for the route with each State's consent requirement, who
//! notifies whom, and every State's directory record. The engine is
//! `projections::shipment`, shared with the MCP tool `plan_shipment`.

use axum::extract::State;
use axum::Json;
use chrono::Utc;
use serde_json::Value;

use projections::shipment::{PlanError, PlanRequest, ShipmentPlan};

use crate::rest::classify::MAX_DESCRIPTION_CHARS;
use crate::rest::error::ApiError;
use crate::rest::extract::JsonBody;
use crate::rest::fields::Fields;
use crate::rest::Shared;

/// Plans a shipment.
///
/// # Errors
/// 422 naming each bad field (an unknown country, a deleted code, both or
/// neither of `description` and `code`); 503 when the directory is
/// unavailable.
#[utoipa::path(post, path = "/api/v1/shipments/plan", tag = "classifier", security(("api_key" = [])),
    request_body = crate::rest::openapi::ShipmentBody,
    responses(
        (status = 200, description = "The plan: waste, procedure, route with each State's consent and record, notification, warnings", body = crate::rest::openapi::ShipmentPlan),
        (status = 400, description = "Malformed JSON", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or invalid API key: exactly {error, message, help}", body = crate::rest::openapi::ApiKeyError),
        (status = 413, description = "Body over 64 KiB", body = crate::rest::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::rest::openapi::Error),
        (status = 422, description = "Invalid fields, each named", body = crate::rest::openapi::ValidationError),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = crate::rest::openapi::Error)
    ))]
pub async fn plan(
    State(state): State<Shared>,
    JsonBody(body): JsonBody,
) -> Result<Json<ShipmentPlan>, ApiError> {
    let request = parse(&body)?;
    let today = Utc::now().date_naive();
    projections::shipment::plan(
        &state.classifier,
        state.read_db(),
        &request,
        today,
        state.stale_after_days,
    )
    .await
    .map(Json)
    .map_err(|error| match error {
        PlanError::Invalid { field, message } => ApiError::invalid(&field, message),
        PlanError::Read(cause) => cause.into(),
    })
}

/// Reads a plan request with the strict field reader.
///
/// # Errors
/// 422 listing every problem, unknown fields included.
pub fn parse(body: &Value) -> Result<PlanRequest, ApiError> {
    let mut fields = Fields::of(body)?;
    let description = fields.text("description", false);
    if description
        .as_ref()
        .is_some_and(|d| d.trim().is_empty() || d.chars().count() > MAX_DESCRIPTION_CHARS)
    {
        fields.problem(
            "description",
            format!("must be 1 to {MAX_DESCRIPTION_CHARS} characters"),
        );
    }
    let code = fields.text("code", false);
    let origin = fields.text("origin", true);
    let destination = fields.text("destination", true);
    let transit = fields.strings("transit").unwrap_or_default();
    if description.is_some() == code.is_some() {
        fields.problem("description", "give either a description or a code");
    }
    fields.finish()?;
    Ok(PlanRequest {
        description,
        code,
        origin: origin.unwrap_or_default(),
        destination: destination.unwrap_or_default(),
        transit,
    })
}
