//! The console's routes, merged beside the REST router by the binary, and
//! the upload routes whose bodies may be larger than the listener's limit.

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::response::Redirect;
use axum::routing::{get, post};
use axum::Router;

use commands::console::{ConsoleStore, Lifetimes};
use web::edge::guard::Upload;
use web::register_limit::RegistrationLimit;
use web::Shared;

use crate::state::{Console, Settings, SIGN_IN_RATE};
use crate::{check, contacts, evidence, imports, link, party, review, signin, worklist};

/// The console's routes that take files, with their body limits (the
/// connection edge reads the whole body before any route runs).
pub const UPLOADS: [Upload; 2] = [
    Upload {
        prefix: "/steward/party/",
        suffix: "/check/preview",
        max_bytes: evidence::MAX_FORM_BYTES,
    },
    Upload {
        prefix: "/steward/import/preview",
        suffix: "",
        max_bytes: imports::IMPORT_FORM_BYTES,
    },
];

/// The console's routes, to merge into the REST router.
pub fn router(app: Shared, settings: Settings) -> Router {
    let console = Arc::new(Console {
        sessions: ConsoleStore::new(&app.wiring.store, Lifetimes::default()),
        sign_ins: RegistrationLimit::new(SIGN_IN_RATE),
        imports: Default::default(),
        mail: settings.mail,
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
