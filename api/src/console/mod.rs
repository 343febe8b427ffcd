//! The steward console (issue #28): server-rendered pages under `/steward/`
//! on the REST listener, for the people who keep the directory true. It
//! reads the projections and writes through the same command services as
//! the REST API (`commands::authority`), so the domain's rules are the same.
//!
//! Layout:
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
pub mod review;
pub mod session;
pub mod signin;
pub mod worklist;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::response::Redirect;
use axum::routing::{get, post};
use axum::Router;

use commands::console::{ConsoleStore, Lifetimes};

use crate::rest::http::register_limit::{RegisterRate, RegistrationLimit};
use crate::rest::Shared;

/// Sign-in attempts per client: 60 an hour, 10 at once.
pub const SIGN_IN_RATE: RegisterRate = RegisterRate {
    per_hour: 60.0,
    burst: 10.0,
};

/// What every console handler can reach.
pub struct Console {
    /// The REST edge's state (store, read tables, projector, cache).
    pub app: Shared,
    /// Sessions and form tokens.
    pub sessions: ConsoleStore,
    /// Sign-in attempts per client.
    pub sign_ins: RegistrationLimit,
    /// Import files previewed and awaiting confirmation, by session.
    pub imports: imports::Pending,
}

/// The console's state as handlers get it.
pub type Handle = Arc<Console>;

/// The console's routes, to merge into the REST router.
pub fn router(app: Shared) -> Router {
    let console = Arc::new(Console {
        sessions: ConsoleStore::new(&app.wiring.store, Lifetimes::default()),
        sign_ins: RegistrationLimit::new(SIGN_IN_RATE),
        imports: imports::Pending::default(),
        app,
    });
    Router::new()
        .route(
            "/steward",
            get(|| async { Redirect::to("/steward/worklist") }),
        )
        .route(
            "/steward/",
            get(|| async { Redirect::to("/steward/worklist") }),
        )
        .route("/steward/sign-in", get(signin::form).post(signin::sign_in))
        .route("/steward/sign-in/link", post(link::request))
        .route("/steward/link/{token}", get(link::show).post(link::follow))
        .route("/steward/sign-out", post(signin::sign_out))
        .route("/steward/worklist", get(worklist::show))
        .route("/steward/party/{country_code}", get(party::show))
        .route(
            "/steward/party/{country_code}/check",
            get(check::form).post(check::commit),
        )
        .route(
            "/steward/party/{country_code}/check/preview",
            post(check::preview).layer(DefaultBodyLimit::max(evidence::MAX_FORM_BYTES)),
        )
        .route(
            "/steward/party/{country_code}/contacts/{action}",
            get(contacts::form).post(contacts::commit),
        )
        .route(
            "/steward/party/{country_code}/contacts/{action}/preview",
            post(contacts::preview),
        )
        .route("/steward/import", get(imports::form).post(imports::commit))
        .route(
            "/steward/import/preview",
            post(imports::preview).layer(DefaultBodyLimit::max(imports::IMPORT_FORM_BYTES)),
        )
        .route("/steward/evidence/{sha256}", get(evidence::download))
        .route("/steward/reviews", get(review::queue))
        .route("/steward/party/{country_code}/assign", post(party::assign))
        .route(
            "/steward/party/{country_code}/proposals/{proposal_id}/approve",
            post(review::approve),
        )
        .route(
            "/steward/party/{country_code}/proposals/{proposal_id}/reject",
            post(review::reject),
        )
        .with_state(console)
}
