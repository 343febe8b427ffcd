//! The `basel` binary's library: the composition root. It reads the
//! settings, opens the stores ([`node::runtime::Runtime`]), starts the roles
//! a process was given (relay, projector, REST, MCP, mail) and runs the
//! subcommands ([`cli`]).
//!
//! **Boundary:** no business rule and no route of its own: it wires the
//! crates that hold them (`web`, `rest`, `console`, `mcp`, `transfer`,
//! `commands`, `projections`, `mail`) and passes each its settings as
//! values.
//!
//! - [`cli`]: the `basel` subcommands (`serve` by default, `steward`,
//!   `import`, `export`, `relay`, `replay`, `history`, …);
//! - [`node`]: one process: settings, the runtime, one small function per
//!   role and a shared shutdown.

pub mod cli;
pub mod node;
