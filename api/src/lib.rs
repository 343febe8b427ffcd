//! basel's edges and composition root.
//!
//! The REST API (axum), the operational endpoints, and the `basel` binary's
//! subcommands. Handlers hold no business rules: they parse, call a command
//! service or a projection reader, and shape the answer.
//!
//! Layout:
//! - [`settings`]: flags and environment (clap), one struct per subcommand;
//! - [`runtime`]: store, read database, projector and secret, wired once;
//! - [`app`]: router and the `run(listener, state, shutdown)` entry point;
//! - [`ops`]: `/healthz`, `/readyz`;
//! - [`error`], [`extract`]: the one JSON error shape and the JSON body extractor;
//! - [`auth`]: the `X-API-Key` check;
//! - [`cache`]: active keys and records remembered until the read tables change;
//! - [`register`], [`page`]: `/register` (the HTML form and page, and JSON);
//! - [`classify`]: `POST /api/v1/classify`;
//! - [`changes`]: the changes feed `/api/v1/changes`;
//! - [`metrics`]: `/metrics` (Prometheus text) and the middleware that counts requests;
//! - [`openapi`]: `/api/v1/openapi.json` (utoipa) and the schemas it documents;
//! - [`ca`]: the directory routes `/api/v1/ca…` (reads and steward writes);
//! - [`steward_auth`], [`write`]: steward bearer tokens, and what every
//!   steward write shares (metadata, errors, read-your-writes);
//! - [`fields`], [`params`]: reading JSON body fields and query parameters
//!   into 422/400 errors that name them;
//! - [`serve`]: `basel serve`;
//! - [`cli`]: `basel steward`, `basel import`, `basel export`.

pub mod app;
pub mod auth;
pub mod ca;
pub mod cache;
pub mod changes;
pub mod classify;
pub mod cli;
pub mod error;
pub mod extract;
pub mod fields;
pub mod metrics;
pub mod openapi;
pub mod ops;
pub mod page;
pub mod params;
pub mod register;
pub mod runtime;
pub mod serve;
pub mod settings;
pub mod steward_auth;
pub mod write;
