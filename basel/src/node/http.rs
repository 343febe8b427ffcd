//! The REST listener's service: the REST router and the steward console's
//! beside it, behind the connection edge (`web::edge`: connection caps,
//! header and body deadlines, JSON on every error, `nosniff`). Tests serve
//! the same thing through [`serve_rest`].

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;

use web::edge::{BodyLimit, ConnSettings, Front};
use web::AppState;

/// The REST API and the steward console (`/steward/…`) over one state.
pub fn rest_router(state: AppState, console: console::Settings) -> Router {
    let state = Arc::new(state);
    rest::router(state.clone()).merge(console::router(state, console))
}

/// Serves [`rest_router`] on `listener` behind the connection edge until
/// `shutdown` resolves, then drains. Every accepted socket has
/// `TCP_NODELAY` set: small JSON answers leave at once instead of waiting
/// for the client's delayed ACK.
///
/// # Errors
/// When the server fails.
pub async fn serve_rest(
    listener: TcpListener,
    state: AppState,
    console: console::Settings,
    limits: ConnSettings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let body = BodyLimit {
        max_bytes: web::extract::BODY_LIMIT,
        deadline: limits.body_timeout,
        uploads: &console::UPLOADS,
    };
    let front = Front::new("rest", rest_router(state, console), body);
    web::edge::serve(listener, front, limits, shutdown).await
}
