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
//! - [`register`]: `POST /register` (JSON);
//! - [`classify`]: `POST /api/v1/classify`;
//! - [`serve`]: `basel serve`;
//! - [`cli`]: `basel steward`, `basel import`, `basel export`.

pub mod app;
pub mod auth;
pub mod classify;
pub mod cli;
pub mod error;
pub mod extract;
pub mod ops;
pub mod register;
pub mod runtime;
pub mod serve;
pub mod settings;
