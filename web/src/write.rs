//! What every steward write shares, over REST and the console: the event
//! metadata, turning command errors into answers, and read-your-writes
//! ([`settle`]: wait, bounded, for the directory and history projections to
//! apply the commit).

use std::time::Duration;

use axum::http::{header, HeaderMap};
use axum::response::Response;
use chrono::Utc;

use commands::executor::Committed;
use commands::CommandError;
use domain::authority::AuthorityError;
use domain::metadata::{Actor, Metadata};
use domain::values::CountryCode;
use projections::registry::Projection;

use crate::auth::Steward;
use crate::error::ApiError;
use crate::state::AppState;

/// How long a write waits for the directory projection to apply it.
pub const READ_YOUR_WRITES: Duration = Duration::from_secs(2);

/// The metadata of a steward's command: now, `steward:<id>`, the request's
/// server-issued id, and the client's `X-Request-Id` beside it when it is a
/// sane one that claims no reserved label.
///
/// With an `Idempotency-Key`, the key (scoped to the steward) and the
/// request's digest go with it ([`crate::consistency`]).
pub fn metadata(steward: &Steward, headers: &HeaderMap) -> Metadata {
    let actor = Actor::Steward(steward.id.clone());
    Metadata {
        recorded_at: Utc::now(),
        idempotency: crate::consistency::idempotency(&actor, headers),
        actor,
        request_id: crate::request_id::of(headers),
        client_request_id: crate::request_id::client_of(headers),
    }
}

/// The answer to a refused or failed authority command.
pub fn from_command(error: CommandError<AuthorityError>) -> ApiError {
    match error {
        CommandError::Rejected(AuthorityError::NotRegistered) => unknown_country(),
        CommandError::Rejected(AuthorityError::AlreadyRegistered(country)) => {
            ApiError::AlreadyExists(format!(
                "the authority of {country} is already registered; submit a verification update instead"
            ))
        }
        CommandError::Rejected(AuthorityError::Invalid(problems)) => ApiError::Invalid(problems),
        CommandError::Rejected(AuthorityError::UnknownContact(id)) => ApiError::NotFound {
            code: "contact_not_found",
            message: format!("this Party has no contact `{id}` (it may have been withdrawn)"),
        },
        CommandError::Rejected(AuthorityError::NoCompetentAuthority) => ApiError::StateConflict {
            code: "no_competent_authority",
            message: "no competent authority is known for this Party (perhaps only its focal point): add one with POST /api/v1/ca/{cc}/contacts, or check a contact by id with POST /api/v1/ca/{cc}/contacts/{id}/verifications".into(),
        },
        CommandError::Rejected(AuthorityError::Retired) => ApiError::StateConflict {
            code: "retired",
            message: "the record is retired (created in error): nothing more can be written to it".into(),
        },
        CommandError::Rejected(AuthorityError::IsAParty(country)) => ApiError::StateConflict {
            code: "is_a_party",
            message: format!("{country} is a Party to the Convention: its record cannot be retired"),
        },
        CommandError::Rejected(AuthorityError::OwnProposal) => ApiError::StateConflict {
            code: "own_proposal",
            message: "a steward cannot approve their own proposal".into(),
        },
        CommandError::Rejected(AuthorityError::StaleProposal) => ApiError::StateConflict {
            code: "stale_proposal",
            message: "the record changed since this proposal was made: reject it and propose the change again".into(),
        },
        CommandError::Rejected(AuthorityError::UnknownProposal(id)) => ApiError::NotFound {
            code: "proposal_not_found",
            message: format!("no open proposal `{id}` (it may have been decided already)"),
        },
        CommandError::VersionMismatch { expected, .. } => ApiError::VersionMismatch { expected },
        CommandError::Conflict => ApiError::Conflict,
        CommandError::IdempotencyKeyReused => idempotency_key_reused(),
        CommandError::Infrastructure(cause) => ApiError::Unavailable(cause),
    }
}

/// 422 when an `Idempotency-Key` is sent again with a different request.
pub fn idempotency_key_reused() -> ApiError {
    ApiError::Unprocessable {
        code: "idempotency_key_reused",
        message: "this Idempotency-Key was used for a different request (method, path or body); use a new key for a new request".into(),
        field: "Idempotency-Key",
    }
}

/// 404 for a well-formed code the directory does not hold.
pub fn unknown_country() -> ApiError {
    ApiError::NotFound {
        code: "country_not_found",
        message: "no competent authority is registered for this country code".into(),
    }
}

/// 404 for a code the directory holds no record of, saying why: a State
/// that is not a Party (`not_a_party`, with its status), a code no country
/// has, or a Party whose record is not there (`country_not_found`).
pub fn missing(country: &CountryCode) -> ApiError {
    use domain::parties::{registry, Standing};
    match registry().standing(country) {
        Standing::NotAParty(other) => ApiError::NotFound {
            code: "not_a_party",
            message: format!(
                "{}: the directory holds records of Basel Parties only",
                other.summary
            ),
        },
        Standing::Unknown => ApiError::NotFound {
            code: "country_not_found",
            message: format!("no country has the code {country} (ISO 3166-1 alpha-2)"),
        },
        Standing::Party(party) => ApiError::NotFound {
            code: "country_not_found",
            message: format!("the directory holds no record of {} yet", party.name),
        },
    }
}

/// 422 when a write would create a record of a code that is not a Party.
///
/// # Errors
/// `not_a_party` for a State that is not a Party, `country_not_found` for
/// a code no country has.
pub fn require_party(country: &CountryCode) -> Result<(), ApiError> {
    use domain::parties::{registry, Standing};
    match registry().standing(country) {
        Standing::Party(_) => Ok(()),
        Standing::NotAParty(other) => Err(ApiError::Unprocessable {
            code: "not_a_party",
            message: format!(
                "{}: only Parties have records in the directory",
                other.summary
            ),
            field: "country_code",
        }),
        Standing::Unknown => Err(ApiError::Unprocessable {
            code: "country_not_found",
            message: format!("no country has the code {country} (ISO 3166-1 alpha-2)"),
            field: "country_code",
        }),
    }
}

/// Where a country's record is read.
pub fn location(country: &CountryCode) -> String {
    format!("/api/v1/ca/{country}")
}

/// After a commit at `position`: rings the projector and waits (bounded by
/// [`READ_YOUR_WRITES`]) for the directory, then the history, to apply it.
/// Whether the directory shows it.
pub async fn settle(state: &AppState, position: i64) -> bool {
    let projector = &state.wiring.projector;
    state.committed();
    let deadline = tokio::time::Instant::now() + READ_YOUR_WRITES;
    let shown = projector
        .wait_for(Projection::Directory, position, READ_YOUR_WRITES)
        .await;
    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
    if shown
        && !projector
            .wait_for(Projection::History, position, left)
            .await
    {
        tracing::warn!(
            event.position = position,
            "history projection did not reach a steward write within the bound"
        );
    }
    shown
}

/// Adds `X-Basel-Position` (and `Idempotent-Replayed` for a replay) to the
/// answer to `committed`.
pub fn mark(response: &mut Response, committed: &Committed) {
    use crate::consistency::{POSITION, REPLAYED};
    let headers = response.headers_mut();
    if committed.position > 0 {
        headers.insert(POSITION, header::HeaderValue::from(committed.position));
    }
    if committed.replayed {
        headers.insert(REPLAYED, header::HeaderValue::from_static("true"));
    }
}
