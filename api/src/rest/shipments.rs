//! `POST /api/v1/shipments/plan`: "may I move this waste from A to B
//! (through C), and who does what?" — whether it is prohibited and by which
//! rules, the steps in order, and each State's competent authorities chosen
//! by area and movement. The engine is `projections::shipment`, shared with
//! the MCP tool `plan_shipment`; this edge only reads the body and maps
//! errors.

use axum::extract::State;
use axum::Json;
use chrono::Utc;
use serde_json::Value;

use domain::shipment::Operation;
use projections::shipment::{PlanError, PlanRequest, ShipmentPlan, MAX_NAME_CHARS};

use crate::rest::classify::MAX_DESCRIPTION_CHARS;
use crate::rest::error::ApiError;
use crate::rest::extract::JsonBody;
use crate::rest::fields::Fields;
use crate::rest::state::Shared;

/// Plans a shipment.
///
/// # Errors
/// 422 naming each bad field (a deleted code, both or neither of
/// `description` and `code`, an unknown operation or area), with code
/// `country_not_found` for a country no code or name matches; 503 when the
/// directory is unavailable.
#[utoipa::path(post, path = "/api/v1/shipments/plan", tag = "classifier", security(("api_key" = [])),
    request_body = crate::rest::openapi::ShipmentBody,
    responses(
        (status = 200, description = "The plan: prohibited (true, false or unknown) with the deciding rules and their articles, the steps in order, each State's consent and competent authorities", body = crate::rest::openapi::ShipmentPlan),
        (status = 400, description = "Malformed JSON", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or invalid API key: exactly {error, message, help}", body = crate::rest::openapi::ApiKeyError),
        (status = 413, description = "Body over 64 KiB", body = crate::rest::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::rest::openapi::Error),
        (status = 422, description = "Invalid fields, each named; `country_not_found` when no country has the code or name given", body = crate::rest::openapi::ValidationError),
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
        PlanError::CountryNotFound { field, message } => ApiError::Unprocessable {
            code: "country_not_found",
            message,
            field: country_field(&field),
        },
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
    let transit = fields.strings("transit");
    let operation = fields.text("operation", false);
    let origin_area = fields.text("origin_area", false);
    let destination_area = fields.text("destination_area", false);
    if description.is_some() == code.is_some() {
        fields.problem("description", "give either a description or a code");
    }
    if let Err(message) = operation.as_deref().map(Operation::parse).transpose() {
        fields.problem("operation", message);
    }
    for (name, value) in [
        ("origin_area", &origin_area),
        ("destination_area", &destination_area),
    ] {
        if value
            .as_ref()
            .is_some_and(|v| v.chars().count() > MAX_NAME_CHARS)
        {
            fields.problem(name, format!("at most {MAX_NAME_CHARS} characters"));
        }
    }
    fields.finish()?;
    Ok(PlanRequest {
        description,
        code,
        origin: origin.unwrap_or_default(),
        destination: destination.unwrap_or_default(),
        transit,
        operation,
        origin_area,
        destination_area,
    })
}

/// The field named in a `country_not_found` answer.
fn country_field(field: &str) -> &'static str {
    match field {
        "origin" => "origin",
        "destination" => "destination",
        _ => "transit",
    }
}
