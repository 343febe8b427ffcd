//! `POST /api/v1/shipments/plan`: "may I move this waste from A to B
//! (through C), and who does what?" — whether it is prohibited and by which
//! rules, the steps in order, and each State's competent authorities chosen
//! by area and movement. The engine is `projections::shipment`, shared with
//! the MCP tool `plan_shipment`; this edge only reads the body and maps
//! errors.

use axum::extract::State;
use axum::Json;
use chrono::Utc;
use serde::Deserialize;
use utoipa::ToSchema;

use law::Operation;
use projections::shipment::{PlanError, PlanRequest, ShipmentPlan};

use web::body::{Body, Problems, Valid};
use web::error::ApiError;
use web::state::Shared;

/// Plans a shipment.
///
/// # Errors
/// 422 naming each bad field (a deleted code, both or neither of
/// `description` and `code`, an unknown operation or area), with code
/// `country_not_found` for a country no code or name matches; 503 when the
/// directory is unavailable.
#[utoipa::path(post, path = "/api/v1/shipments/plan", tag = "classifier", security(("api_key" = [])),
    request_body = ShipmentBody,
    responses(
        (status = 200, description = "The plan: prohibited (true, false or unknown) with the deciding rules and their articles, the steps in order, each State's consent and competent authorities", body = crate::schema::ShipmentPlan),
        (status = 400, description = "Malformed JSON", body = web::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named; `country_not_found` when no country has the code or name given", body = web::error::ErrorBody),
    ))]
pub async fn plan(
    State(state): State<Shared>,
    Valid(body): Valid<ShipmentBody>,
) -> Result<Json<ShipmentPlan>, ApiError> {
    let request = PlanRequest::from(body);
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

/// `POST /api/v1/shipments/plan`: the waste (a description or a code), the
/// route (codes or names), the operation and the areas. Read into the MCP
/// tool's arguments (`projections::shipment::PlanRequest`), which the
/// planner takes.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShipmentBody {
    /// The waste in plain words, 1–5,000 characters (give this or `code`).
    #[schema(min_length = 1, max_length = 5000, pattern = "\\S")]
    pub description: Option<String>,
    /// A Basel code such as A1160 or B1010 (give this or `description`).
    pub code: Option<String>,
    /// The State of export: ISO 3166-1 alpha-2 code or country name.
    pub origin: String,
    /// The State of import: code or name.
    pub destination: String,
    /// States of transit in order: codes or names (at most 10).
    #[schema(max_items = 10)]
    pub transit: Option<Vec<String>>,
    /// `recovery`, `disposal`, an Annex IV code (R1 to R13, D1 to D15), or
    /// `unknown` (the default: the answer gives both); any case.
    #[schema(
        pattern = "^\\s*([Rr](1[0-3]|[1-9])|[Dd](1[0-5]|[1-9])|[Rr][Ee][Cc][Oo][Vv][Ee][Rr][Yy]|[Dd][Ii][Ss][Pp][Oo][Ss][Aa][Ll]|[Uu][Nn][Kk][Nn][Oo][Ww][Nn])\\s*$"
    )]
    pub operation: Option<String>,
    /// An area of the State of export (a Land, a province) to pick its
    /// competent authority (at most 100 characters).
    #[schema(max_length = 100)]
    pub origin_area: Option<String>,
    /// An area of the State of import to pick its competent authority.
    #[schema(max_length = 100)]
    pub destination_area: Option<String>,
    /// The day whose law applies: a date `YYYY-MM-DD`, not before
    /// 1992-05-05 (the Convention's entry into force); default: today by
    /// the server's clock. The answer states it.
    #[schema(format = Date, pattern = "^\\s*\\d{4}-\\d{2}-\\d{2}\\s*$")]
    pub as_of: Option<String>,
}

impl Body for ShipmentBody {
    fn check(&self, problems: &mut Problems) {
        if self.description.is_some() == self.code.is_some() {
            problems.add("description", "give either a description or a code");
        }
        if let Some(Err(message)) = self.operation.as_deref().map(Operation::parse) {
            problems.add("operation", message);
        }
        if let Some(Err(message)) = self.as_of.as_deref().map(law::parse_as_of) {
            problems.add("as_of", message);
        }
    }
}

impl From<ShipmentBody> for PlanRequest {
    fn from(body: ShipmentBody) -> Self {
        Self {
            description: body.description,
            code: body.code,
            origin: body.origin,
            destination: body.destination,
            transit: body.transit,
            operation: body.operation,
            origin_area: body.origin_area,
            destination_area: body.destination_area,
            as_of: body.as_of,
        }
    }
}

/// The field named in a `country_not_found` answer.
fn country_field(field: &str) -> &'static str {
    match field {
        "origin" => "origin",
        "destination" => "destination",
        _ => "transit",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::classify::MAX_DESCRIPTION_CHARS;
    use projections::shipment::MAX_NAME_CHARS;

    #[test]
    fn the_schema_states_the_bounds_the_planner_checks() {
        let schema =
            serde_json::to_value(<ShipmentBody as utoipa::PartialSchema>::schema()).expect("JSON");
        let properties = &schema["properties"];
        assert_eq!(
            properties["description"]["maxLength"],
            MAX_DESCRIPTION_CHARS
        );
        assert_eq!(
            properties["transit"]["maxItems"],
            projections::shipment::MAX_TRANSIT
        );
        assert_eq!(properties["origin_area"]["maxLength"], MAX_NAME_CHARS);
        assert_eq!(properties["destination_area"]["maxLength"], MAX_NAME_CHARS);
        let operation = properties["operation"]["pattern"]
            .as_str()
            .expect("pattern");
        for text in [
            "R1", "r13", " D15 ", "Recovery", "unknown", "R14", "D0", "R01", "burn",
        ] {
            let server = Operation::parse(text).is_ok();
            assert_eq!(web::schemas::matches(operation, text), server, "{text}");
        }
    }

    #[test]
    fn as_of_and_operation_are_refused_naming_the_field() {
        let schemas = crate::routes::schemas();
        let body = |extra: serde_json::Value| {
            let mut b = serde_json::json!({"code": "B3011", "origin": "DE", "destination": "MY"});
            for (k, v) in extra.as_object().expect("object") {
                b[k] = v.clone();
            }
            web::body::read::<ShipmentBody>(&schemas, b)
        };
        for (extra, field) in [
            (serde_json::json!({"as_of": "1992-05-04"}), "as_of"),
            (serde_json::json!({"as_of": "2026-02-30"}), "as_of"),
            (serde_json::json!({"as_of": "tomorrow"}), "as_of"),
            (serde_json::json!({"as_of": 20261122}), "as_of"),
            (serde_json::json!({"operation": "R14"}), "operation"),
            (serde_json::json!({"operation": "D16"}), "operation"),
        ] {
            let Err(web::error::ApiError::Invalid(problems)) = body(extra.clone()) else {
                panic!("{extra} was accepted");
            };
            let text = format!("{problems:?}");
            assert!(text.contains(&format!("\"{field}\"")), "{extra}: {text}");
        }
        let good =
            body(serde_json::json!({"as_of": "2026-11-22", "operation": "R3"})).expect("accepted");
        assert_eq!(good.as_of.as_deref(), Some("2026-11-22"));
    }
}
