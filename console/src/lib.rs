//! The steward console: server-rendered pages under `/steward/`
//! on the REST listener, for the people who keep the directory true. It
//! reads the projections and writes through the same command services as
//! the REST API (`commands::authority`), so the domain's rules are the same.
//!
//! Layout:
//! - [`state`], [`routes`]: what every handler can reach, and the routes;
//! - [`session`]: sign-in state: the session cookie, the [`session::Signed`]
//!   extractor (idle and absolute expiry, suspended stewards signed out),
//!   CSRF tokens spent once;
//! - [`signin`]: `GET|POST /steward/sign-in`, `POST /steward/sign-out`,
//!   sign-in attempts limited per client;
//! - [`link`]: sign-in by a one-time mailed link (`BASEL_SMTP_URL` set);
//! - [`worklist`]: `GET /steward/worklist` with its filters and paging;
//! - [`party`]: `GET /steward/party/{cc}`: contacts, provenance, age and
//!   the history as a timeline with per-field diffs;
//! - [`check`]: recording a check: form → preview of the exact events →
//!   commit (version conflicts show both versions);
//! - [`contacts`]: add, withdraw, make primary a contact: form → preview
//!   of the exact events → commit, as a check;
//! - [`digest`]: the daily reminder digest the mail role sends;
//! - [`evidence`]: files backing a check: typed by content, stored by
//!   SHA-256, downloaded only by signed-in stewards;
//! - [`imports`]: a `basel import` file uploaded, its dry run row by row,
//!   then applied on confirmation;
//! - [`review`]: four-eyes review (`BASEL_REVIEW=required`): the queue,
//!   approve, reject;
//! - [`html`]: the page layout (maud: every value escaped at compile time)
//!   and the strict headers of every page (no script at all).
//!
//! Boundary: no SQL here (sessions are `commands::console`, reads are
//! `projections`), no business rules (the domain decides, also for the
//! preview).

pub mod check;
pub mod contacts;
pub mod digest;
pub mod evidence;
pub mod html;
pub mod imports;
pub mod link;
pub mod party;
mod pending;
pub mod review;
pub mod routes;
pub mod session;
pub mod signin;
pub mod state;
pub mod worklist;

pub use routes::{router, UPLOADS};
pub use state::{Console, Handle, LinkMail, Settings};
