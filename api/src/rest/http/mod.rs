//! The HTTP plumbing every REST route shares: what a handler can reach
//! ([`state`]), the one JSON error shape ([`error`]), the readers of JSON
//! bodies ([`extract`], and [`body`] for typed bodies) and of query
//! parameters ([`params`]), the route layer ([`observe`]), credentials
//! ([`auth`], [`auth_throttle`]), `min_position` reads and idempotent
//! writes ([`consistency`]), the request series ([`counters`]), the
//! registration limit ([`register_limit`]) and the answer types documented
//! from their schemars schemas ([`schema`]). Nothing here imports a
//! handler.

pub mod auth;
pub mod auth_throttle;
pub mod body;
pub mod consistency;
pub mod counters;
pub mod error;
pub mod extract;
pub mod observe;
pub mod params;
pub mod register_limit;
pub mod schema;
pub mod state;
