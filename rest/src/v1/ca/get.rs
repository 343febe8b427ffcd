//! `GET /api/v1/ca/{country_code}`: one country's record, now or `as_of` a
//! past moment (rebuilt from the record's history).

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, NaiveTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;

use domain::values::CountryCode;

use projections::views::Record;

use super::CountryPath;
use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::{AppState, Shared};
use web::write::missing;

/// The parameters of `GET /api/v1/ca/{country_code}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GetQuery {
    /// RFC 3339 instant, or a date (the end of that day, UTC): the record
    /// as it stood then.
    #[param(value_type = Option<Instant>, inline)]
    pub as_of: Option<String>,
    /// An area of the Party (a Land, a region; any of its names, any case,
    /// accents optional): `competent` lists the authorities for it; 404
    /// `unknown_area` (naming the Party's areas) when it has none of that
    /// name.
    #[param(max_length = 300)]
    pub area: Option<String>,
    /// export, import or transit: `competent` lists the authorities that
    /// handle it; another value is 400 `invalid_movement`.
    #[param(value_type = Option<Movement>, inline)]
    pub movement: Option<String>,
}

impl QueryParams for GetQuery {
    fn code(name: &str) -> &'static str {
        match name {
            "movement" => "invalid_movement",
            _ => "invalid_parameter",
        }
    }
}

/// The schema of `as_of`: a date or a date-time ([`parse_instant`]).
pub struct Instant;

impl utoipa::PartialSchema for Instant {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{
            AnyOfBuilder, KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type,
        };
        let format = |known| {
            ObjectBuilder::new()
                .schema_type(SchemaType::AnyValue)
                .format(Some(SchemaFormat::KnownFormat(known)))
        };
        AnyOfBuilder::new()
            .schema_type(Type::String)
            .item(format(KnownFormat::Date))
            .item(format(KnownFormat::DateTime))
            .into()
    }
}

impl utoipa::ToSchema for Instant {}

/// The schema of `movement`: one of [`projections::scope::MOVEMENTS`].
pub struct Movement;

impl utoipa::PartialSchema for Movement {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(projections::scope::MOVEMENTS))
            .into()
    }
}

impl utoipa::ToSchema for Movement {}

/// The record of `country_code` (case-insensitive).
///
/// # Errors
/// 400 for a malformed code or `as_of`; 404 `country_not_found` when the
/// country is unknown, `not_yet_recorded` (naming the date of its first
/// record) when `as_of` is before it; 503 when the read side is unavailable.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}", tag = "directory", security(("api_key" = [])),
    params(CountryPath, GetQuery),
    responses(
        (status = 200, description = "The record", body = crate::schema::Record),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
        (status = 404, description = "`not_a_party`: the code is a State that is not a Party (the message names its status); `country_not_found`: no country has this code, or no record is held; `not_yet_recorded`: `as_of` is before the first record (the message names its date)", body = web::error::ErrorBody),
    ))]
pub async fn get(
    State(state): State<Shared>,
    CountryPath(country): CountryPath,
    Query(query): Query<GetQuery>,
) -> Result<Response, ApiError> {
    let GetQuery {
        as_of,
        area,
        movement,
    } = query;
    if area.is_some() || movement.is_some() {
        return scoped(&state, &country, area.as_deref(), movement.as_deref()).await;
    }
    // The reads of the database are boxed: a future holds room for every
    // future it awaits, copied whenever it moves, and the common answer
    // comes from the read cache without any of them.
    match as_of {
        None => current(&state, &country).await,
        Some(text) => Box::pin(as_of_record(&state, &country, &text)).await,
    }
}

/// The record now, with the competent authorities for `area` and `movement`.
async fn scoped(
    state: &AppState,
    country: &CountryCode,
    area: Option<&str>,
    movement: Option<&str>,
) -> Result<Response, ApiError> {
    let row = projections::directory::Reader::new(state.read_db().clone())
        .get(country.as_str())
        .await?
        .ok_or_else(|| missing(country))?;
    let competent = projections::scope::competent(&row.state, area, movement).map_err(|e| {
        let message = e.to_string();
        match e {
            projections::scope::ScopeError::Movement(_) => ApiError::BadRequest {
                code: "invalid_movement",
                message,
            },
            // No such area of this Party: a part of the record not found.
            projections::scope::ScopeError::Area { .. } => ApiError::NotFound {
                code: "unknown_area",
                message,
            },
        }
    })?;
    let mut record = Record::new(row, Utc::now().date_naive(), state.stale_after_days);
    record.competent = Some(competent);
    Ok(Json(record).into_response())
}

/// The record as it stood at `text` (an `as_of` value).
async fn as_of_record(
    state: &AppState,
    country: &CountryCode,
    text: &str,
) -> Result<Response, ApiError> {
    let at = parse_instant(text).ok_or_else(|| ApiError::BadRequest {
        code: "invalid_parameter",
        message: "as_of must be an RFC 3339 date-time or a YYYY-MM-DD date".into(),
    })?;
    let found =
        projections::history::directory_as_of(state.read_db(), country.as_str(), at).await?;
    if found.is_none() {
        let first = projections::history::first_recorded(state.read_db(), country.as_str()).await?;
        if let Some(first) = first {
            return Err(not_yet_recorded(country, &first));
        }
    }
    found
        .map(|row| Json(Record::new(row, at.date_naive(), state.stale_after_days)).into_response())
        .ok_or_else(|| missing(country))
}

/// The record as the directory shows it now, from the read cache when it
/// was read in the current generation (and today: `stale` depends on the date).
async fn current(state: &AppState, country: &CountryCode) -> Result<Response, ApiError> {
    let day = today();
    let json = match state.cache.record(country.as_str(), day) {
        Some(json) => json,
        None => Box::pin(read_current(state, country, day)).await?,
    };
    let mut response = Response::new(Body::from(json));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

/// Today (UTC) as days since 1970-01-01: the read cache keeps a record per
/// day, as its `stale` flag depends on the date. (The system clock read and
/// divided: a fifth of what building a calendar date costs.)
fn today() -> i32 {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    i32::try_from(seconds / 86_400).unwrap_or(i32::MAX)
}

/// The record's JSON read from the directory, remembered in the read cache.
async fn read_current(
    state: &AppState,
    country: &CountryCode,
    day: i32,
) -> Result<Bytes, ApiError> {
    let cache = &state.cache;
    let generation = cache.generation();
    let record = super::record(state, country)
        .await?
        .ok_or_else(|| missing(country))?;
    let json =
        Bytes::from(serde_json::to_vec(&record).map_err(|e| ApiError::Internal(e.to_string()))?);
    cache.remember_record(country.as_str(), day, generation, json.clone());
    Ok(json)
}

/// 404 for an `as_of` before the country's first record, naming its date.
fn not_yet_recorded(country: &CountryCode, first: &str) -> ApiError {
    let day = first.get(..10).unwrap_or(first);
    ApiError::NotFound {
        code: "not_yet_recorded",
        message: format!(
            "the directory holds no record of {country} at that moment: its first record dates from {day} ({first}); ask for as_of={day} or later"
        ),
    }
}

/// An RFC 3339 instant, or a date meaning the end of that day (UTC): the
/// record as it stood when that day was over.
pub fn parse_instant(text: &str) -> Option<DateTime<Utc>> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text.trim()) {
        return Some(at.with_timezone(&Utc));
    }
    let day = web::body::parse_date(text)?;
    let end = NaiveTime::from_hms_micro_opt(23, 59, 59, 999_999)?;
    Some(day.and_time(end).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_of_takes_an_instant_or_the_end_of_a_day() {
        assert_eq!(
            parse_instant("2024-05-01T10:00:00+02:00").map(|t| t.to_rfc3339()),
            Some("2024-05-01T08:00:00+00:00".into())
        );
        assert_eq!(
            parse_instant("2024-05-01").map(|t| t.to_rfc3339()),
            Some("2024-05-01T23:59:59.999999+00:00".into())
        );
        assert_eq!(parse_instant("yesterday"), None);
        assert_eq!(parse_instant("2024-05-32"), None);
    }
}
