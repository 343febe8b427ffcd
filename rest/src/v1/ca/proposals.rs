//! Four-eyes review over REST (`BASEL_REVIEW=required`). With it on, every
//! steward write of a Party's record (a check, adding, withdrawing or
//! making primary a contact, retiring) answers **202** `proposed` with the
//! proposal and a `Location` to it instead of applying ([`propose`]);
//! another steward decides it here, with the same commands as the console:
//!
//! - `GET /ca/{cc}/proposals`: the Party's open proposals, each kind with
//!   its diff;
//! - `GET /ca/{cc}/proposals/{id}`: one;
//! - `POST /ca/{cc}/proposals/{id}/approve`: the change is recorded,
//!   attributed to its author, after `ProposalApproved` naming the
//!   approver (409 `own_proposal`, `stale_proposal`; 404
//!   `proposal_not_found`);
//! - `POST /ca/{cc}/proposals/{id}/reject` (`{reason}`).
//!
//! Registering a Party (`POST /ca`) stays direct: there is no record yet
//! to review a change of.

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use schemars::JsonSchema;
use serde::Serialize;
use utoipa::IntoParams;

use commands::authority::AuthorityCommands;
use domain::authority::{AuthorityCommand, Proposal, ReviewCommand};
use domain::values::CountryCode;
use projections::directory::Reader;

use super::contacts::RemovalBody;
use web::auth::Steward;
use web::body::Valid;
use web::error::ApiError;
use web::state::{AppState, Shared};
use web::write;

/// An open proposal as clients read it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProposalView {
    /// Its id.
    pub id: String,
    /// `check`, `add_contact`, `remove_contact`, `designate_primary`,
    /// `retire` or `batch` (several, from an import).
    pub kind: &'static str,
    /// Its author (a steward's id).
    pub proposer: String,
    /// What it does, in one line.
    pub summary: String,
    /// The field changes it would make, old → new, as of when proposed.
    pub changes: Vec<FieldChangeView>,
    /// The change itself, under its kind's key (as the event stores it).
    pub change: serde_json::Value,
    /// Whether the record changed since (it can then only be rejected).
    pub stale: bool,
    /// Where it is read.
    pub location: String,
}
web::schemars_schema!(ProposalView, "Proposal");

/// One field's old and new value.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldChangeView {
    /// The field (`email`, `ca_name`, …).
    pub field: &'static str,
    /// Before (`null`: empty).
    pub old: Option<String>,
    /// After (`null`: empty).
    pub new: Option<String>,
}

/// 202 under four-eyes review: the write is a proposal, nothing changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Proposed {
    /// `proposed`.
    pub status: &'static str,
    /// What happened and what comes next.
    pub message: &'static str,
    /// The Party.
    pub country_code: String,
    /// The proposal (also at `Location`).
    pub proposal: ProposalView,
}

/// What a steward write may answer with 202: committed but not yet in the
/// directory (`accepted`), or, under four-eyes review, `proposed`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Deferred {
    /// Committed; the directory shows it shortly.
    Accepted(crate::v1::written::Accepted),
    /// A proposal awaiting another steward.
    Proposed(Proposed),
}
web::schemars_schema!(Deferred, "Deferred");

/// A Party's open proposals.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Proposals {
    /// The Party.
    pub country_code: String,
    /// Open proposals, oldest first.
    pub proposals: Vec<ProposalView>,
}
web::schemars_schema!(Proposals, "Proposals");

/// Where a proposal is read.
pub fn location(country: &CountryCode, id: &str) -> String {
    format!("/api/v1/ca/{country}/proposals/{id}")
}

fn view(country: &CountryCode, p: &Proposal) -> ProposalView {
    ProposalView {
        id: p.id.clone(),
        kind: p.change.kind(),
        proposer: p.proposer.as_str().to_owned(),
        summary: p.change.summary(),
        changes: p
            .changes
            .iter()
            .map(|c| FieldChangeView {
                field: c.field.name(),
                old: c.old.clone(),
                new: c.new.clone(),
            })
            .collect(),
        change: serde_json::to_value(&p.change).unwrap_or_default(),
        stale: p.stale,
        location: location(country, &p.id),
    }
}

/// Proposes `command` (a steward's direct write) instead of making it and
/// answers 202 `proposed` with the proposal and its `Location`.
///
/// # Errors
/// As the direct write would be refused (the domain decides the proposal
/// like the command), 409 when `expected_version` moved on, 503.
pub async fn propose(
    state: &AppState,
    steward: &Steward,
    country: &CountryCode,
    command: AuthorityCommand,
    headers: &HeaderMap,
    expected_version: Option<i64>,
) -> Result<Response, ApiError> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let commands = AuthorityCommands::new(&state.wiring.store);
    let review = ReviewCommand::Propose {
        proposal_id: id.clone(),
        command: Box::new(command),
    };
    let committed = commands
        .review(
            country,
            review,
            &write::metadata(steward, headers),
            expected_version,
        )
        .await
        .map_err(write::from_command)?;
    // A retried Idempotency-Key answers with the proposal its first
    // request made.
    let id = if committed.replayed {
        commands
            .proposal_made_by(country, committed.sequence)
            .await
            .map_err(write::from_command)?
            .unwrap_or(id)
    } else {
        id
    };
    write::settle(state, committed.position).await;
    let record = commands
        .current(country)
        .await
        .map_err(write::from_command)?;
    let proposal = record
        .proposals
        .iter()
        .find(|p| p.id == id)
        .ok_or_else(|| ApiError::Internal("a committed proposal is not in the record".into()))?;
    let body = Proposed {
        status: "proposed",
        message: "four-eyes review is on: nothing changed; another steward approves or rejects this proposal at `proposal.location`",
        country_code: country.as_str().to_owned(),
        proposal: view(country, proposal),
    };
    let at = body.proposal.location.clone();
    let mut response = (StatusCode::ACCEPTED, [(header::LOCATION, at)], Json(body)).into_response();
    write::mark(&mut response, &committed);
    Ok(response)
}

/// `{country_code}` and `{proposal_id}` of the path.
#[derive(Debug, Clone, IntoParams)]
#[into_params(names("country_code", "proposal_id"), parameter_in = Path)]
pub struct ProposalPath(
    /// ISO 3166-1 alpha-2, any case; not two letters: 400 `invalid_country_code`.
    #[param(value_type = String, pattern = r"^\s*[A-Za-z]{2}\s*$")]
    pub CountryCode,
    /// The proposal's id: 1 to 64 ASCII letters and digits.
    #[param(pattern = r"^[A-Za-z0-9]{1,64}$")]
    pub String,
);

impl<S: Send + Sync> FromRequestParts<S> for ProposalPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path((code, id)) = Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map_err(|_| malformed())?;
        let country = CountryCode::parse(&code).map_err(|_| malformed())?;
        if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(ApiError::BadRequest {
                code: "invalid_proposal_id",
                message: "a proposal id is 1 to 64 letters and digits".into(),
            });
        }
        Ok(Self(country, id))
    }
}

fn malformed() -> ApiError {
    ApiError::BadRequest {
        code: "invalid_country_code",
        message: "the country code must be two letters (ISO 3166-1 alpha-2), e.g. DE".into(),
    }
}

async fn open(state: &AppState, country: &CountryCode) -> Result<Vec<ProposalView>, ApiError> {
    let row = Reader::new(state.read_db().clone())
        .get(country.as_str())
        .await?
        .ok_or_else(|| write::missing(country))?;
    Ok(row
        .state
        .proposals
        .iter()
        .map(|p| view(country, p))
        .collect())
}

/// Lists a Party's open proposals.
///
/// # Errors
/// 401/403 (token), 400 (code), 404 (no record), 503.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}/proposals", tag = "stewards", security(("steward_token" = [])),
    params(super::CountryPath),
    responses(
        (status = 200, description = "The Party's open proposals, each kind with its diff", body = crate::v1::ca::proposals::Proposals),
        (status = 400, description = "Malformed country code", body = web::error::ErrorBody),
        (status = 404, description = "No record for this code", body = web::error::ErrorBody),
        (status = 503, description = "The directory is unavailable", body = web::error::ErrorBody)
    ))]
pub async fn list(
    State(state): State<Shared>,
    _steward: Steward,
    super::CountryPath(country): super::CountryPath,
) -> Result<Response, ApiError> {
    let proposals = open(&state, &country).await?;
    let body = Proposals {
        country_code: country.as_str().to_owned(),
        proposals,
    };
    Ok(Json(body).into_response())
}

fn not_found(id: &str) -> ApiError {
    ApiError::NotFound {
        code: "proposal_not_found",
        message: format!("no open proposal `{id}` (it may have been decided already)"),
    }
}

/// Reads one open proposal.
///
/// # Errors
/// 401/403 (token), 400 (path), 404 (no record, no such open proposal), 503.
#[utoipa::path(get, path = "/api/v1/ca/{country_code}/proposals/{proposal_id}", tag = "stewards", security(("steward_token" = [])),
    params(ProposalPath),
    responses(
        (status = 200, description = "The open proposal with its diff", body = crate::v1::ca::proposals::ProposalView),
        (status = 400, description = "Malformed path", body = web::error::ErrorBody),
        (status = 404, description = "`proposal_not_found` (decided already, or never made) or no record", body = web::error::ErrorBody),
        (status = 503, description = "The directory is unavailable", body = web::error::ErrorBody)
    ))]
pub async fn get(
    State(state): State<Shared>,
    _steward: Steward,
    ProposalPath(country, id): ProposalPath,
) -> Result<Response, ApiError> {
    let found = open(&state, &country)
        .await?
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(|| not_found(&id))?;
    Ok(Json(found).into_response())
}

/// Approves a proposal: its change is recorded, attributed to its author.
///
/// # Errors
/// 409 `own_proposal` (its author), `stale_proposal` (the record changed
/// since), or the change refused now; 404 `proposal_not_found`; 503.
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/proposals/{proposal_id}/approve", tag = "stewards", security(("steward_token" = [])),
    params(ProposalPath),
    responses(
        (status = 200, description = "Approved and recorded; the record as GET now returns it", body = crate::schema::Record),
        (status = 202, description = "Committed, not yet in the directory", body = crate::v1::written::Accepted),
        (status = 400, description = "Malformed path", body = web::error::ErrorBody),
        (status = 404, description = "`proposal_not_found` or no record", body = web::error::ErrorBody),
        (status = 409, description = "`own_proposal`, `stale_proposal`, or `conflict`", body = web::error::ErrorBody),
    ))]
pub async fn approve(
    State(state): State<Shared>,
    steward: Steward,
    ProposalPath(country, id): ProposalPath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let command = ReviewCommand::Approve {
        proposal_id: id,
        approver: steward.id.clone(),
        today: Utc::now().date_naive(),
    };
    decide(&state, &steward, &country, command, &headers).await
}

/// Rejects a proposal with a reason; nothing of it is recorded.
///
/// # Errors
/// 422 (no reason), 404 `proposal_not_found`, 503.
#[utoipa::path(post, path = "/api/v1/ca/{country_code}/proposals/{proposal_id}/reject", tag = "stewards", security(("steward_token" = [])),
    params(ProposalPath),
    request_body = RemovalBody,
    responses(
        (status = 200, description = "Rejected; the record as GET now returns it (unchanged)", body = crate::schema::Record),
        (status = 202, description = "Committed, not yet in the directory", body = crate::v1::written::Accepted),
        (status = 400, description = "Malformed path or JSON", body = web::error::ErrorBody),
        (status = 404, description = "`proposal_not_found` or no record", body = web::error::ErrorBody),
        (status = 409, description = "A concurrent write won", body = web::error::ErrorBody),
        (status = 422, description = "`reason` missing or invalid", body = web::error::ErrorBody),
    ))]
pub async fn reject(
    State(state): State<Shared>,
    steward: Steward,
    ProposalPath(country, id): ProposalPath,
    headers: HeaderMap,
    Valid(RemovalBody { reason }): Valid<RemovalBody>,
) -> Result<Response, ApiError> {
    let command = ReviewCommand::Reject {
        proposal_id: id,
        reviewer: steward.id.clone(),
        reason,
    };
    decide(&state, &steward, &country, command, &headers).await
}

async fn decide(
    state: &AppState,
    steward: &Steward,
    country: &CountryCode,
    command: ReviewCommand,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let committed = AuthorityCommands::new(&state.wiring.store)
        .review(country, command, &write::metadata(steward, headers), None)
        .await
        .map_err(write::from_command)?;
    Ok(crate::v1::written::answer(state, country, &committed, StatusCode::OK).await)
}
