//! Steward authentication for directory writes: `Authorization: Bearer TOKEN`
//! with a token from `basel steward enrol`. API keys are never accepted: the
//! presented token is hashed (SHA-256) and looked up in the `stewards`
//! projection only, which holds no API-key hash.
//!
//! Before the lookup the `stewards` projection is brought up to the log head
//! (bounded), so a steward enrolled or suspended a moment ago by another
//! process (`basel steward …`) is seen as such on their next request.

use std::time::Duration;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::HeaderMap;

use domain::values::Slug;
use projections::stewards;

use crate::app::Shared;
use crate::error::ApiError;
use crate::runtime::Runtime;

/// How long a steward write waits for the `stewards` projection to reach the log head.
const CATCH_UP: Duration = Duration::from_secs(1);

/// The longest token looked up (real ones are 68 characters).
const MAX_TOKEN_CHARS: usize = 200;

/// An authenticated, active steward.
#[derive(Debug, Clone)]
pub struct Steward {
    /// Their id (`steward:<id>` in event metadata).
    pub id: Slug,
    /// Their name.
    pub name: String,
}

impl FromRequestParts<Shared> for Steward {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        let token = bearer(&parts.headers).ok_or(ApiError::StewardTokenRequired)?;
        let runtime = &state.runtime;
        catch_up(runtime).await?;
        let hash = commands::secrets::hash_secret(token);
        match stewards::by_token_hash(&runtime.read_db, &hash).await? {
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

/// The token of an `Authorization: Bearer TOKEN` header (scheme in any case).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && token.len() <= MAX_TOKEN_CHARS)
        .then_some(token)
}

/// Brings the `stewards` projection up to the last steward event, at most [`CATCH_UP`].
async fn catch_up(runtime: &Runtime) -> Result<(), ApiError> {
    let behind = runtime
        .projector
        .lag()
        .await?
        .into_iter()
        .find(|l| l.name == stewards::NAME && l.lag > 0);
    if let Some(lag) = behind {
        crate::write::wake(runtime);
        if !runtime
            .projector
            .wait_for(stewards::NAME, lag.head, CATCH_UP)
            .await
        {
            tracing::warn!(
                log.head = lag.head,
                "stewards projection behind the log; authenticating against it as it stands"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_str(value).expect("header"));
        headers
    }

    #[test]
    fn only_a_non_empty_bearer_token_is_read() {
        assert_eq!(bearer(&headers("Bearer bst_abc")), Some("bst_abc"));
        assert_eq!(bearer(&headers("bearer   bst_abc ")), Some("bst_abc"));
        assert_eq!(bearer(&headers("Basic dXNlcjpwYXNz")), None);
        assert_eq!(bearer(&headers("Bearer ")), None);
        assert_eq!(bearer(&headers("bst_abc")), None);
        assert_eq!(bearer(&HeaderMap::new()), None);
        assert_eq!(
            bearer(&headers(&format!("Bearer {}", "x".repeat(201)))),
            None
        );
    }
}
