//! The directory routes under `/api/v1/ca`: one file per use case.
//!
//! - [`get`]: `GET /ca/{country_code}` (the record, optionally `as_of`);
//! - [`list`]: `GET /ca` (pages, `verified`, `q`);
//! - [`history`]: `GET /ca/{country_code}/history`;
//! - [`create`]: `POST /ca` (a steward adds a country);
//! - [`verify`]: `POST /ca/{country_code}/verifications` (a steward's check);
//! - [`contacts`]: a Party's contacts (add, read, check, make primary, withdraw);
//! - [`retire`]: `DELETE /ca/{country_code}` (a record created in error);
//! - [`proposals`]: four-eyes review (`BASEL_REVIEW=required`): the writes
//!   above but `create` answer 202 with a proposal; list, approve, reject;
//! - [`verified`]: the rule of a body sent with `verified: true`, stated in
//!   its schema.
//!
//! Reads come from the `directory` projection only; writes go through
//! `commands::authority::AuthorityCommands`.

pub mod contacts;
pub mod create;
pub mod get;
pub mod history;
pub mod list;
pub mod proposals;
pub mod retire;
pub mod verified;
pub mod verify;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use chrono::Utc;
use utoipa::IntoParams;

use domain::values::CountryCode;
use projections::directory::Reader;
use projections::views::Record;

use web::error::ApiError;
use web::state::AppState;

/// The `{country_code}` of the path: two ASCII letters in any case, else 400.
#[derive(Debug, Clone, IntoParams)]
#[into_params(names("country_code"), parameter_in = Path)]
pub struct CountryPath(
    /// ISO 3166-1 alpha-2, any case; not two letters: 400 `invalid_country_code`.
    #[param(value_type = String, pattern = r"^\s*[A-Za-z]{2}\s*$")]
    pub CountryCode,
);

impl<S: Send + Sync> FromRequestParts<S> for CountryPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        // The raw (percent-decoded) parameter: no deserializer, no allocation.
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|_| malformed())?;
        let raw = params
            .iter()
            .find_map(|(name, value)| (name == "country_code").then_some(value))
            .ok_or_else(malformed)?;
        CountryCode::parse(raw).map(Self).map_err(|_| malformed())
    }
}

fn malformed() -> ApiError {
    ApiError::BadRequest {
        code: "invalid_country_code",
        message: "the country code must be two letters (ISO 3166-1 alpha-2), e.g. DE".into(),
    }
}

/// A country's record as the directory shows it now.
///
/// # Errors
/// [`ApiError::Unavailable`] when the read table cannot be read.
pub async fn record(state: &AppState, country: &CountryCode) -> Result<Option<Record>, ApiError> {
    let row = Reader::new(state.read_db().clone())
        .get(country.as_str())
        .await?;
    let today = Utc::now().date_naive();
    Ok(row
        .filter(|row| row.state.retired.is_none())
        .map(|row| Record::new(row, today, state.stale_after_days)))
}
