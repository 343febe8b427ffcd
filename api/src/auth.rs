//! API-key authentication for `/api/v1/*`.
//!
//! The presented key is hashed (SHA-256) and looked up by hash in the
//! `api_keys` projection, so no stored secret is ever compared byte by byte
//! and the lookup takes the same path for every wrong key. Missing and
//! invalid keys get the same 401 body. Active keys are remembered in the
//! [`ReadCache`] until the read tables change.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::app::Shared;
use crate::cache::ReadCache;
use crate::error::ApiError;

/// The header carrying the key.
pub const API_KEY_HEADER: &str = "x-api-key";

/// Middleware: lets the request through only with an active key.
///
/// # Errors
/// [`ApiError::ApiKeyRequired`], or [`ApiError::Unavailable`] when the key
/// table cannot be read.
pub async fn require_api_key(
    State(state): State<Shared>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let presented = request
        .headers()
        .get(API_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .unwrap_or_default();
    if presented.is_empty() || presented.len() > 200 {
        return Err(ApiError::ApiKeyRequired);
    }
    let hash = commands::secrets::hash_secret(presented);
    let cache = ReadCache::of(&state.runtime);
    if cache.key_is_active(&hash) {
        return Ok(next.run(request).await);
    }
    let generation = cache.generation();
    if projections::api_keys::is_active(&state.runtime.read_db, &hash).await? {
        cache.remember_key(&hash, generation);
        Ok(next.run(request).await)
    } else {
        Err(ApiError::ApiKeyRequired)
    }
}
