//! basel's HTTP base, shared by every front end (the REST API, the steward
//! console, the MCP server and the ops listener): how connections are
//! accepted and bounded, what a request may cost, the one JSON error shape,
//! who may call, and the page frame.
//!
//! **Boundary:** no route of its own and no business rule: front ends
//! register routes and call command services or projection readers; limits
//! that belong to a front end (an upload's size) arrive as values.
//!
//! Layout:
//! - [`edge`]: the connection edge of every listener: connection caps,
//!   header, idle and body deadlines, a JSON body on every error;
//! - [`access`], [`request_id`]: one access line per request and the id the
//!   request, its spans and its events carry;
//! - [`state`]: what every handler can reach ([`AppState`]);
//! - [`error`]: the one JSON error shape ([`error::ApiError`]);
//! - [`extract`], [`body`], [`params`], [`schemas`]: JSON bodies and query
//!   parameters read into their types, every problem listed, against the
//!   schemas built at start;
//! - [`observe`], [`counters`]: the route layer (deadline, request series)
//!   and the series it records;
//! - [`auth`], [`auth_throttle`]: API keys and steward tokens, failed
//!   authentication throttled per client;
//! - [`throttle`], [`register_limit`]: the token buckets (per key,
//!   per client address);
//! - [`consistency`]: `min_position` reads and idempotent writes;
//! - [`contact`]: a new contact as REST and the console take it;
//! - [`write`]: what every steward write shares (metadata, read-your-writes);
//! - [`readiness`]: what `/readyz` asks of a process;
//! - [`page`]: the headers of every HTML page;
//! - [`schema`]: answer types documented by their schemars schemas.

pub mod access;
pub mod auth;
pub mod auth_throttle;
pub mod body;
pub mod consistency;
pub mod contact;
pub mod counters;
pub mod edge;
pub mod error;
pub mod extract;
pub mod observe;
pub mod page;
pub mod params;
pub mod readiness;
pub mod register_limit;
pub mod request_id;
pub mod schema;
pub mod schemas;
pub mod state;
pub mod throttle;
pub mod write;

pub use state::{AppState, Shared, Wiring};
