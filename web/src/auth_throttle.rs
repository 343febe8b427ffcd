//! Failed authentication, throttled per client address: every
//! 401 (a missing, unknown or revoked API key; a missing, unknown or
//! suspended steward token) spends a token of the address's bucket in
//! [`mcp::FailedAuth`] (the same buckets as the MCP listener's). The failure
//! that empties the bucket, and every later request from the address that
//! presents a credential until it refills, is answered 429
//! `too_many_failed_attempts` with `Retry-After`, before any lookup.
//!
//! The address is the connection's peer (`ConnectInfo`); a request without
//! one (a router served without the edge) is not throttled.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::Extensions;

use crate::error::ApiError;
use crate::AppState;

/// The client address of a request, when the server recorded it.
pub fn peer(extensions: &Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}

/// 429 when `peer` is held back after too many failures.
///
/// # Errors
/// [`ApiError::TooManyFailedAttempts`].
pub fn not_held_back(state: &AppState, peer: Option<IpAddr>) -> Result<(), ApiError> {
    match peer.and_then(|peer| state.failed_auth.held_back(peer)) {
        Some(wait) => Err(ApiError::TooManyFailedAttempts {
            retry_after_secs: crate::throttle::retry_after_secs(wait),
        }),
        None => Ok(()),
    }
}

/// The answer to a refused credential: `refusal` itself, or a 429 when this
/// failure emptied `peer`'s bucket.
pub fn failed(state: &AppState, peer: Option<IpAddr>, refusal: ApiError) -> ApiError {
    let counted = matches!(
        refusal,
        ApiError::ApiKey(_) | ApiError::StewardTokenRequired | ApiError::StewardSuspended
    );
    match peer
        .filter(|_| counted)
        .map(|peer| state.failed_auth.failed(peer))
    {
        Some(Err(wait)) => ApiError::TooManyFailedAttempts {
            retry_after_secs: crate::throttle::retry_after_secs(wait),
        },
        _ => refusal,
    }
}
