//! The connection edge shared by both listeners (REST and MCP): how
//! sockets are accepted, how long a client may take, and what every error
//! answer looks like on the wire.
//!
//! - [`settings`]: the limits ([`ConnSettings`], flags and `BASEL_*`
//!   variables with documented defaults);
//! - [`accept`]: the accept loop: a global and a per-peer cap on open
//!   connections, a header-read timeout, an inactivity timeout, graceful
//!   drain ([`serve`]);
//! - [`front`]: the service hyper calls for every request: the access line
//!   and request id, then the guard, then the listener's router ([`Front`]);
//! - [`guard`]: the HTTP checks in front of every route: URI and header
//!   size (414/431), `Content-Length` over the limit (413 before reading),
//!   the body-read deadline (408), `X-Content-Type-Options: nosniff`, and a
//!   JSON body on every error answer a router or extractor made without one;
//! - [`wire`]: the socket wrapper that gives hyper's own parse-error answers
//!   (400, 414, 431 sent before any route runs) a JSON body, and records
//!   when bytes last moved;
//! - [`fdlimit`]: raises the open-file soft limit to the hard limit at start.

pub mod accept;
pub mod fdlimit;
pub mod front;
pub mod guard;
pub mod settings;
pub mod wire;

pub use accept::serve;
pub use fdlimit::{fit_connection_cap, raise_open_file_limit};
pub use front::Front;
pub use guard::BodyLimit;
pub use settings::ConnSettings;
