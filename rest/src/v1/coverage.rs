//! `GET /api/v1/coverage`: how much of the directory is known, as integer
//! counts (the same figures as the `basel_coverage_*` gauges of `/metrics`
//! and the MCP resource `basel://coverage`).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;

use projections::coverage::Coverage;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use web::error::ApiError;
use web::state::{AppState, Shared};

/// The coverage of the directory today.
///
/// # Errors
/// 401 (key), 503 when the read side is unavailable.
#[utoipa::path(get, path = "/api/v1/coverage", tag = "directory", security(("api_key" = [])),
    responses(
        (status = 200, description = "Counts over every Party", body = crate::schema::Coverage),
    ))]
pub async fn coverage(State(state): State<Shared>) -> Result<Response, ApiError> {
    Ok(Json(now(&state).await?).into_response())
}

async fn now(state: &AppState) -> Result<Coverage, ApiError> {
    Ok(projections::coverage::now(
        state.read_db(),
        Utc::now().date_naive(),
        state.stale_after_days,
    )
    .await?)
}

/// The coverage as Prometheus gauges (`basel_coverage_<count>`) in a
/// `/metrics` scrape; none when the directory cannot be read.
pub async fn register(state: &AppState, registry: &mut Registry) {
    let Ok(c) = now(state).await else { return };
    for (name, value, help) in [
        ("parties", c.parties, "Parties in the directory"),
        (
            "with_competent_authority",
            c.with_competent_authority,
            "Parties with a competent authority",
        ),
        (
            "focal_point_only",
            c.focal_point_only,
            "Parties whose only known contact is the focal point",
        ),
        ("no_contact", c.no_contact, "Parties with no contact at all"),
        (
            "verified",
            c.verified,
            "Parties whose primary competent authority is verified",
        ),
        ("stale", c.stale, "Parties whose record is stale"),
        (
            "checked_last_365_days",
            c.checked_last_365_days,
            "Parties with a contact a steward's check reached in the last 365 days",
        ),
    ] {
        let gauge: Gauge = Gauge::default();
        gauge.set(value);
        registry.register(format!("basel_coverage_{name}"), help, gauge);
    }
}
