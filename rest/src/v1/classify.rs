//! `POST /api/v1/classify`: a waste description → Basel codes.

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;

use domain::values::CountryCode;
use law::procedure::{classify_route, Classified};

use web::body::{Body, Problems, Valid};
use web::error::ApiError;
use web::state::Shared;

/// The longest description accepted, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 5000;

/// The longest country (code or name) accepted, in characters.
pub const MAX_COUNTRY_CHARS: usize = 100;

/// Classifies `{description, origin?, destination?}`.
///
/// # Errors
/// 422 naming the field when `description` is missing, not a string, empty
/// after trimming or over 5 000 characters, or a country is neither a code
/// nor a name the Party registry knows.
#[utoipa::path(post, path = "/api/v1/classify", tag = "classifier", security(("api_key" = [])),
    request_body = ClassifyBody,
    responses(
        (status = 200, description = "Basel signals for the description", body = crate::schema::Classification),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
        (status = 422, description = "Invalid fields, each named", body = web::error::ErrorBody)
    ))]
pub async fn classify(
    State(state): State<Shared>,
    Valid(body): Valid<ClassifyBody>,
) -> Result<Response, ApiError> {
    let origin = body.origin.as_deref().and_then(country);
    let destination = body.destination.as_deref().and_then(country);
    // The edge takes the default day from the server's clock; `check` has
    // already refused an `as_of` that is not a date.
    let as_of = body
        .as_of
        .as_deref()
        .and_then(|t| law::parse_as_of(t).ok())
        .unwrap_or_else(|| chrono::Utc::now().date_naive());
    answer(&classify_route(
        &state.classifier,
        body.description.trim(),
        origin.as_ref(),
        destination.as_ref(),
        as_of,
    ))
}

/// Room for a typical answer (4–6 KiB) from the start: axum's `Json` begins
/// with 128 bytes and grows, copying, several times per classification.
const ANSWER_CAPACITY: usize = 8 * 1024;

/// The classification as a JSON answer.
fn answer(classification: &Classified) -> Result<Response, ApiError> {
    let mut bytes = Vec::with_capacity(ANSWER_CAPACITY);
    serde_json::to_writer(&mut bytes, classification)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((
        [(CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        bytes,
    )
        .into_response())
}

/// `POST /api/v1/classify`: a waste description, and the route when the
/// answer should say which control procedure applies.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassifyBody {
    /// The waste in plain language (1–5,000 characters): material, origin,
    /// form, hazardous constituents and amounts.
    #[schema(min_length = 1, max_length = 5000, pattern = "\\S")]
    pub description: String,
    /// Country of export, by ISO 3166-1 alpha-2 code or name (`DE`,
    /// `Germany`): with `destination`, the answer says which control
    /// procedure applies.
    #[schema(min_length = 1, max_length = 100, pattern = "\\S")]
    pub origin: Option<String>,
    /// Country of import, by code or name.
    #[schema(min_length = 1, max_length = 100, pattern = "\\S")]
    pub destination: Option<String>,
    /// The day whose law the procedure applies: `YYYY-MM-DD`, not before
    /// 1992-05-05; default: today by the server's clock.
    #[schema(format = Date, pattern = "^\\s*\\d{4}-\\d{2}-\\d{2}\\s*$")]
    pub as_of: Option<String>,
}

impl Body for ClassifyBody {
    fn check(&self, problems: &mut Problems) {
        for (field, text) in [("origin", &self.origin), ("destination", &self.destination)] {
            if text.as_deref().is_some_and(|t| country(t).is_none()) {
                problems.add(
                    field,
                    "must name a country: an ISO 3166-1 alpha-2 code or a name, e.g. DE or Germany",
                );
            }
        }
        if let Some(Err(message)) = self.as_of.as_deref().map(law::parse_as_of) {
            problems.add("as_of", message);
        }
    }
}

/// A country by code or name, as the shipment planner and the MCP tools
/// read them.
fn country(text: &str) -> Option<CountryCode> {
    domain::parties::registry().code_of(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_states_the_bounds_the_constants_name() {
        let schema =
            serde_json::to_value(<ClassifyBody as utoipa::PartialSchema>::schema()).expect("JSON");
        let description = &schema["properties"]["description"];
        assert_eq!(description["maxLength"], MAX_DESCRIPTION_CHARS);
        assert_eq!(description["pattern"], web::body::NOT_BLANK);
        assert_eq!(
            schema["properties"]["origin"]["maxLength"],
            MAX_COUNTRY_CHARS
        );
        assert_eq!(schema["additionalProperties"], false);
    }
}
