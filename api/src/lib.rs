//! basel's edges and composition root, in three parts with a one-way
//! dependency `cli → node → rest`:
//!
//! - [`rest`]: the REST edge (axum): routes, extractors, handlers, the one
//!   JSON error shape, the OpenAPI document, `/register`, ops endpoints, and
//!   an explicit [`rest::AppState`] holding the readers, the read cache and
//!   the request metrics. Handlers hold no business rules: they parse, call a
//!   command service or a projection reader, and shape the answer.
//! - [`node`]: the wiring of one process: connect the stores
//!   ([`node::runtime::Runtime`]), then one small function per role (relay,
//!   projector, REST listener, MCP listener) and a shared shutdown.
//! - [`edge`]: the connection edge of both listeners: connection caps,
//!   header, idle and body deadlines, a JSON body on every error, the
//!   open-file limit.
//! - [`cli`]: the `basel` subcommands (`serve` by default, `steward`,
//!   `import`, `export`, `relay`, `replay`, `history`).
//!
//! - [`console`]: the steward console (issue #28), HTML pages under
//!   `/steward/` that the REST router mounts: sessions, worklist, Party
//!   pages with their history, checks with a preview.
//! - [`telemetry`]: log format and levels, request ids, one access line
//!   per request on every listener.
//!
//! `main` only parses the command line, sets up logging, and dispatches to
//! [`cli::run`].

pub mod cli;
pub mod console;
pub mod edge;
pub mod node;
pub mod rest;
pub mod telemetry;
