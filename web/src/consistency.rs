//! Two promises a client can ask of any replica, kept in one
//! layer around the REST routes:
//!
//! - **Read your writes:** a write answers its log position in
//!   `X-Basel-Position`; a read that sends it back as `min_position` (query)
//!   or `X-Basel-Min-Position` (header) is answered only once this replica's
//!   projections have applied the log that far: it waits at most
//!   [`MIN_POSITION_WAIT`], then answers 503 `not_caught_up` with
//!   `Retry-After`.
//! - **Idempotent writes:** a write that carries `Idempotency-Key` is stored
//!   with the key (scoped to its sender) and a digest of the request, in the
//!   events of its commit; a retry with the same key and the same request
//!   gets the original answer and writes nothing, and the same key with a
//!   different request is 422 `idempotency_key_reused`
//!   ([`commands::executor::Executor::replay`]). This layer computes the
//!   request's digest (it is the only place that sees the raw body) and
//!   hands it to the handler in an internal header, which a client cannot
//!   set.

use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use domain::metadata::{Actor, Idempotency};

use crate::error::ApiError;
use crate::extract::BODY_LIMIT;
use crate::state::Shared;

/// The header a write answers its log position in.
pub const POSITION: HeaderName = HeaderName::from_static("x-basel-position");
/// The header a read names the position it must see in.
pub const MIN_POSITION: HeaderName = HeaderName::from_static("x-basel-min-position");
/// The query parameter that does the same.
pub const MIN_POSITION_PARAM: &str = "min_position";
/// The header of a client's idempotency key.
pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
/// Set by a write answered from an earlier commit of the same key.
pub const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");
/// The internal header carrying the request's digest to the handler.
const REQUEST_DIGEST: HeaderName = HeaderName::from_static("x-basel-internal-request-digest");
/// The longest idempotency key accepted (a UUID is 36).
pub const MAX_KEY_LEN: usize = 255;
/// How long a read waits for its `min_position`.
pub const MIN_POSITION_WAIT: Duration = Duration::from_secs(2);

/// The layer: strips the internal header a client may have sent, then
/// waits for `min_position` (reads) or digests the request (writes with an
/// `Idempotency-Key`).
pub async fn layer(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    parts.headers.remove(REQUEST_DIGEST);
    let read = matches!(parts.method, Method::GET | Method::HEAD);
    if read {
        match min_position(&mut parts.uri, &parts.headers) {
            Err(error) => return error.into_response(),
            Ok(Some(position)) => {
                if let Err(error) = caught_up(&state, position).await {
                    return error.into_response();
                }
            }
            Ok(None) => {}
        }
        return next.run(Request::from_parts(parts, body)).await;
    }
    let Some(key) = parts.headers.get(IDEMPOTENCY_KEY) else {
        return next.run(Request::from_parts(parts, body)).await;
    };
    if let Err(error) = check_key(key) {
        return error.into_response();
    }
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    let mut hasher = Sha256::new();
    hasher.update(parts.method.as_str());
    hasher.update(b"\n");
    hasher.update(parts.uri.path());
    hasher.update(b"\n");
    hasher.update(&bytes);
    let digest = hex::encode(hasher.finalize());
    if let Ok(value) = HeaderValue::from_str(&digest) {
        parts.headers.insert(REQUEST_DIGEST, value);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The idempotency of a write by `actor`: the key scoped to the actor and
/// the request's digest (from [`layer`]); `None` without a key.
pub fn idempotency(actor: &Actor, headers: &HeaderMap) -> Option<Idempotency> {
    let key = headers.get(IDEMPOTENCY_KEY)?;
    let request = headers.get(REQUEST_DIGEST)?.to_str().ok()?.to_owned();
    let mut hasher = Sha256::new();
    hasher.update(actor.to_string());
    hasher.update(b"\n");
    hasher.update(key.as_bytes());
    Some(Idempotency {
        key: hex::encode(hasher.finalize()),
        request,
    })
}

/// A key is 1 to [`MAX_KEY_LEN`] visible ASCII characters.
fn check_key(key: &HeaderValue) -> Result<(), ApiError> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_KEY_LEN || !bytes.iter().all(|b| b.is_ascii_graphic())
    {
        return Err(ApiError::BadRequest {
            code: "invalid_idempotency_key",
            message: format!(
                "Idempotency-Key must be 1 to {MAX_KEY_LEN} visible ASCII characters (a UUID, say)"
            ),
        });
    }
    Ok(())
}

/// The `min_position` a read asks for (query or header; not both), removed
/// from the query so the route's own parameters are read as before.
fn min_position(uri: &mut Uri, headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    let bad = || {
        ApiError::BadRequest {
        code: "invalid_parameter",
        message: format!(
            "{MIN_POSITION_PARAM} (or {MIN_POSITION}) must be one non-negative integer: the X-Basel-Position a write answered"
        ),
    }
    };
    let parse = |text: &str| text.trim().parse::<i64>().ok().filter(|p| *p >= 0);
    let mut from_query = None;
    if let Some(query) = uri.query() {
        let (mine, rest): (Vec<&str>, Vec<&str>) = query.split('&').partition(|pair| {
            pair.split_once('=').map_or(*pair, |(name, _)| name) == MIN_POSITION_PARAM
        });
        if !mine.is_empty() {
            let [pair] = mine.as_slice() else {
                return Err(bad());
            };
            let value = pair.split_once('=').map_or("", |(_, value)| value);
            from_query = Some(parse(value).ok_or_else(bad)?);
            let mut rebuilt = uri.path().to_owned();
            let rest = rest.join("&");
            if !rest.is_empty() {
                rebuilt.push('?');
                rebuilt.push_str(&rest);
            }
            *uri = rebuilt.parse().map_err(|_| bad())?;
        }
    }
    let mut from_header = None;
    let mut values = headers.get_all(MIN_POSITION).iter();
    if let Some(value) = values.next() {
        if values.next().is_some() {
            return Err(bad());
        }
        from_header = Some(value.to_str().ok().and_then(parse).ok_or_else(bad)?);
    }
    match (from_query, from_header) {
        (Some(_), Some(_)) => Err(bad()),
        (found, None) | (None, found) => Ok(found),
    }
}

/// Waits until this replica has applied the log up to `position`.
async fn caught_up(state: &Shared, position: i64) -> Result<(), ApiError> {
    if position == 0 {
        return Ok(());
    }
    match state
        .wiring
        .projector
        .wait_for_position(position, MIN_POSITION_WAIT)
        .await
    {
        // The read cache forgot what the log changed up to `position`
        // before the projector heard of it, or remembers nothing.
        Ok(true) => Ok(()),
        Ok(false) => Err(ApiError::NotCaughtUp { position }),
        Err(error) => Err(ApiError::Unavailable(error.to_string())),
    }
}
