//! `DELETE /api/v1/ca/{country_code}`: a steward retires a record created in
//! error (of a code that is not a Party to the Convention). It leaves lists,
//! coverage and MCP; its history stays. A Party's record cannot be retired.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use commands::authority::AuthorityCommands;
use domain::authority::{AuthorityCommand, RetireAuthority};
use projections::registry::Projection;

use super::contacts::RemovalBody;
use super::{proposals, CountryPath};
use web::auth::Steward;
use web::body::Valid;
use web::error::ApiError;
use web::state::Shared;
use web::write;

/// Retires a record with a reason, attributed to the steward.
///
/// # Errors
/// 401/403 (token), 404 (no record), 409 (a Party's record, or already
/// retired), 422 (no reason), 503 (store).
#[utoipa::path(delete, path = "/api/v1/ca/{country_code}", tag = "stewards", security(("steward_token" = [])),
    params(CountryPath),
    request_body = RemovalBody,
    responses(
        (status = 200, description = "Retired: `{country_code, retired}` (the reason); lookups no longer serve it"),
        (status = 202, description = "Committed, not yet in the directory: `{country_code, retired}`; or, with four-eyes review on (`BASEL_REVIEW=required`), `proposed`: nothing changed, the proposal awaits another steward at Location", body = crate::v1::ca::proposals::Deferred),
        (status = 400, description = "Malformed path or JSON", body = web::error::ErrorBody),
        (status = 404, description = "No record for this code", body = web::error::ErrorBody),
        (status = 409, description = "`is_a_party`: a Party's record cannot be retired; `retired`: it is already", body = web::error::ErrorBody),
        (status = 422, description = "`reason` missing or invalid", body = web::error::ErrorBody),
    ))]
pub async fn retire(
    State(state): State<Shared>,
    steward: Steward,
    CountryPath(country): CountryPath,
    headers: HeaderMap,
    Valid(RemovalBody { reason }): Valid<RemovalBody>,
) -> Result<Response, ApiError> {
    let command = RetireAuthority {
        reason: reason.clone(),
        steward: Some(steward.id.clone()),
    };
    if state.review {
        let command = AuthorityCommand::Retire(command);
        return proposals::propose(&state, &steward, &country, command, &headers, None).await;
    }
    let committed = AuthorityCommands::new(&state.wiring.store)
        .retire(&country, command, &write::metadata(&steward, &headers))
        .await
        .map_err(write::from_command)?;
    state.committed();
    let projector = &state.wiring.projector;
    let deadline = tokio::time::Instant::now() + write::READ_YOUR_WRITES;
    let shown = projector
        .wait_for(
            Projection::Directory,
            committed.position,
            write::READ_YOUR_WRITES,
        )
        .await;
    // The history shows the retirement too, within what is left of the bound.
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    let shown = shown
        && projector
            .wait_for(Projection::History, committed.position, left)
            .await;
    let status = if shown {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    let body = json!({"country_code": country.as_str(), "retired": reason});
    Ok((status, Json(body)).into_response())
}
