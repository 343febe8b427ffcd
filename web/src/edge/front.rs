//! The front service of every listener: what runs for every request, before
//! and after the router, in one place.
//!
//! hyper hands each request to [`Front::handle`], which runs, outermost
//! first: the access line and request id (`crate::access`), the
//! guard (`super::guard`: sizes, body deadline, `nosniff`, JSON errors), then
//! the router. These used to be router layers; a router layer wraps every
//! route in one more boxed service, which axum clones for every request at
//! every level (most of the lookup path's allocations). Here they are plain
//! async functions around one router, which clones as a reference count.

use axum::extract::Request;
use axum::response::Response;
use axum::Router;
use tower::ServiceExt;

use super::guard::{self, BodyLimit};
use crate::access;

/// A listener's router with what runs around it.
#[derive(Clone)]
pub struct Front {
    listener: &'static str,
    router: Router,
    limit: BodyLimit,
}

impl Front {
    /// `router` behind the access line (naming `listener`: `rest`, `mcp`
    /// or `ops`) and the guard with the listener's body `limit`.
    pub fn new(listener: &'static str, router: Router, limit: BodyLimit) -> Self {
        Self {
            listener,
            router,
            limit,
        }
    }

    /// The answer to `request`.
    pub async fn handle(&self, request: Request) -> Response {
        access::around(self.listener, request, |request| {
            guard::around(self.limit, request, |request| self.route(request))
        })
        .await
    }

    async fn route(&self, request: Request) -> Response {
        match self.router.clone().oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }
}
