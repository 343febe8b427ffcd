//! The HTTP answers the MCP edge writes itself (outside JSON-RPC), the
//! caller a checked request carries, and its client address.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::state::MAX_BODY_BYTES;

/// Who is calling: the hash of the API key a request was let in with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Caller(pub(crate) String);

impl Caller {
    /// The key's hash, the caller's identity for the rate limiter.
    pub(crate) fn id(&self) -> &str {
        &self.0
    }
}

/// The client address of a request (see [`web::throttle::client_address`]):
/// its connection's peer, when the server recorded it (`ConnectInfo`).
pub(crate) fn peer(request: &Request) -> Option<std::net::IpAddr> {
    request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| web::throttle::client_address(info.0.ip()))
}

/// 413 for a body over [`MAX_BODY_BYTES`].
pub(crate) fn too_large() -> Response {
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        &format!("Request bodies are limited to {MAX_BODY_BYTES} bytes."),
    )
}

/// A JSON error: `{error, message, code}`.
pub(crate) fn error(status: StatusCode, code: &str, message: &str) -> Response {
    let title = status.canonical_reason().unwrap_or("error").to_lowercase();
    let body: Value = json!({ "error": title, "message": message, "code": code });
    (status, Json(body)).into_response()
}
