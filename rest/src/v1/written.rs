//! The answer to a committed steward write: the record as `GET` now
//! returns it once the directory shows the commit (read-your-writes,
//! `web::write::settle`), else 202 with `Location` (the write is safe in the
//! store either way).

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use schemars::JsonSchema;
use serde::Serialize;

use commands::executor::Committed;
use domain::values::CountryCode;
use web::write::{location, mark, settle};
use web::AppState;

/// A steward write committed but not yet in the directory (202).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Accepted {
    /// `accepted`.
    pub status: &'static str,
    /// What happened and where to look.
    pub message: &'static str,
    /// The record written.
    pub country_code: String,
    /// Its new version.
    pub version: i64,
    /// The write's position in the log.
    pub position: i64,
    /// Where the record will show it (also the `Location` header).
    pub location: String,
}
web::schemars_schema!(Accepted, "Accepted");

/// After a commit: `status` with the record once the directory shows the
/// commit, else 202 with `Location` (the write is safe in the store either way).
pub async fn answer(
    state: &AppState,
    country: &CountryCode,
    committed: &Committed,
    status: StatusCode,
) -> Response {
    answer_at(state, country, committed, status, location(country)).await
}

/// [`answer`] with another `Location` (a contact's, for a new contact).
/// Either way the answer names the commit's log position in
/// `X-Basel-Position` (a read on any replica can ask for it as
/// `min_position`), and an answer to a retried `Idempotency-Key` says
/// `Idempotent-Replayed: true`.
pub async fn answer_at(
    state: &AppState,
    country: &CountryCode,
    committed: &Committed,
    status: StatusCode,
    location: String,
) -> Response {
    let mut response = shown_or_accepted(state, country, committed, status, location).await;
    mark(&mut response, committed);
    response
}

async fn shown_or_accepted(
    state: &AppState,
    country: &CountryCode,
    committed: &Committed,
    status: StatusCode,
    location: String,
) -> Response {
    let shown = settle(state, committed.position).await;
    if shown {
        match crate::v1::ca::record(state, country).await {
            Ok(Some(record)) => {
                return (status, [(header::LOCATION, location)], Json(record)).into_response()
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(error = %error, "record unreadable after a commit"),
        }
    } else {
        tracing::warn!(
            event.position = committed.position,
            "directory projection did not reach a steward write within the bound"
        );
    }
    let body = Accepted {
        status: "accepted",
        message: "the write is committed; the directory will show it shortly at `location`",
        country_code: country.as_str().to_owned(),
        version: committed.sequence,
        position: committed.position,
        location: location.clone(),
    };
    (
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        Json(body),
    )
        .into_response()
}
