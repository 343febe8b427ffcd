//! `GET /api/v1/ca/{country_code}/history`: every event of a record, oldest
//! first, for auditors. Stewards appear by id and name, never by e-mail.

use axum::extract::State;
use axum::Json;

use projections::views::History;

use super::CountryPath;
use crate::rest::error::ApiError;
use crate::rest::params::Params;
use crate::rest::state::Shared;
use crate::rest::write::missing;

/// `{country_code, items}` for a registered country.
///
/// # Errors
/// 400 malformed code, 404 unknown country, 503 read side unavailable.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}/history", tag = "directory", security(("api_key" = [])),
    params(("country_code" = String, Path, description = "ISO 3166-1 alpha-2, any case; not two letters: 400")),
    responses(
        (status = 200, description = "Every event of the record, oldest first", body = crate::rest::openapi::History),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::openapi::Error),
        (status = 401, description = "Missing or invalid API key: exactly {error, message, help}", body = crate::rest::openapi::ApiKeyError),
        (status = 404, description = "No record for this well-formed code", body = crate::rest::openapi::Error),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = crate::rest::openapi::Error)
    ))]
pub async fn history(
    State(state): State<Shared>,
    CountryPath(country): CountryPath,
    params: Params,
) -> Result<Json<History>, ApiError> {
    params.finish()?;
    let items = projections::history::items(state.read_db(), country.as_str()).await?;
    if items.is_empty() {
        return Err(missing(&country));
    }
    Ok(Json(History {
        country_code: country.as_str().to_owned(),
        items,
    }))
}
