//! Who may call: API keys for reads and the classifier, stewards' bearer
//! tokens for directory writes. Both are read by `domain::credentials` (the
//! same reader the MCP edge uses), hashed (SHA-256) and looked up by hash in
//! a projection, so no stored secret is ever compared byte by byte.
//!
//! - [`check_api_key`]: the check on `X-API-Key` routes (made by their route
//!   layer, `web::observe`, after [`known_api_key`], which answers from the
//!   read cache without a table read). Missing and
//!   invalid keys get a 401 of the same shape (saying which) with
//!   `WWW-Authenticate`; active keys are remembered in the
//!   server's `projections::cache::ReadCache` until the read tables change
//!   (the check the MCP server makes too).
//! - [`Steward`]: the extractor of steward routes. API keys are never
//!   accepted: the token is looked up in the `stewards` projection only,
//!   which holds no API-key hash. Before the lookup that projection is brought
//!   up to the log head (bounded), so a steward enrolled or suspended a moment
//!   ago by another process (`basel steward …`) is seen as such.

use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};

use domain::credentials::{
    bearer_token, hash_secret, presented_api_key, secret_digest, KeyRefusal,
};
use domain::values::Slug;
use projections::registry::Projection;
use projections::stewards;

use crate::error::ApiError;
use crate::state::{AppState, Shared};

/// The header carrying the API key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// How long a steward request waits for the `stewards` projection to catch up.
const CATCH_UP: Duration = Duration::from_secs(1);

/// Whether the request's API key (`X-API-Key` or a bearer token) is active (the check of every API-key
/// route, made by the route layer `web::observe`).
///
/// # Errors
/// 401 `{error, message, help}` when the key is missing, unknown or revoked;
/// 503 when the key table cannot be read.
pub async fn check_api_key(state: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(key) = presented(headers) else {
        return Err(ApiError::ApiKey(KeyRefusal::Missing));
    };
    if state
        .cache
        .is_active_key(state.read_db(), secret_digest(key))
        .await?
    {
        Ok(())
    } else {
        Err(ApiError::ApiKey(KeyRefusal::NotActive))
    }
}

/// The API key of a request: `X-API-Key`, else `Authorization: Bearer KEY`
/// (the rule of the MCP server too).
fn presented(headers: &HeaderMap) -> Option<&str> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    presented_api_key(text(API_KEY_HEADER), text(AUTHORIZATION.as_str()))
}

/// Whether the request's `X-API-Key` is known to the read cache as active
/// (no table read: `false` means "ask [`check_api_key`]", not "refused").
pub fn known_api_key(state: &AppState, headers: &HeaderMap) -> bool {
    presented(headers).is_some_and(|key| state.cache.knows_active_key(&secret_digest(key)))
}

/// The steward making a write, from their bearer token.
#[derive(Debug, Clone)]
pub struct Steward {
    /// Their id (what events and provenance record).
    pub id: Slug,
    /// Their name.
    pub name: String,
}

impl FromRequestParts<Shared> for Steward {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        let peer = crate::auth_throttle::peer(&parts.extensions);
        crate::auth_throttle::not_held_back(state, peer)?;
        Self::of_token(parts, state)
            .await
            .map_err(|refusal| crate::auth_throttle::failed(state, peer, refusal))
    }
}

impl Steward {
    /// The steward whose bearer token `parts` carries.
    async fn of_token(parts: &Parts, state: &Shared) -> Result<Self, ApiError> {
        let token = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token)
            .ok_or(ApiError::StewardTokenRequired)?;
        catch_up(state).await?;
        match stewards::by_token_hash(state.read_db(), &hash_secret(token)).await? {
            None => Err(ApiError::StewardTokenRequired),
            Some(row) if row.status == "active" => Ok(Self {
                id: Slug::parse(&row.id)
                    .map_err(|e| ApiError::Internal(format!("stewards table holds {e}")))?,
                name: row.name,
            }),
            Some(_) => Err(ApiError::StewardSuspended),
        }
    }
}

/// Waits (bounded) until the `stewards` projection has applied the log as it
/// is now.
pub async fn catch_up(state: &AppState) -> Result<(), ApiError> {
    let projector = &state.wiring.projector;
    // One statement per steward request (it was the lag of every
    // projection: five).
    if let Some(head) = projector.behind(Projection::Stewards).await? {
        state.wiring.wake.notify_one();
        if !projector
            .wait_for(Projection::Stewards, head, CATCH_UP)
            .await
        {
            tracing::warn!(
                log.head = head,
                "stewards projection behind the log; authenticating against it as it stands"
            );
        }
    }
    Ok(())
}
