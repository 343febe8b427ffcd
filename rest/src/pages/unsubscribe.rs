//! `/unsubscribe?token=…`: the link in every notice's `List-Unsubscribe`
//! header and footer. The token names the registrant by their key aggregate
//! id (never the address) with a tag only this server makes.
//!
//! - `POST` (RFC 8058 one-click: mail clients send `List-Unsubscribe=One-Click`;
//!   any body is accepted): records `NoticesUnsubscribed` and answers a page
//!   saying so; again for the same registrant changes nothing.
//! - `GET`: a page with a button that posts, so link scanners that open
//!   every URL in a mail do not unsubscribe anyone.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde::Deserialize;
use utoipa::IntoParams;

use commands::mailing::MailingCommands;
use commands::CommandError;
use domain::metadata::{Actor, Metadata};

use crate::pages::page::{self, escape};
use web::error::ApiError;
use web::params::{Query, QueryParams};
use web::state::Shared;

/// The parameter of `/unsubscribe`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TokenQuery {
    /// The token from the notice's link (without it: 400 `invalid_token`).
    #[param(required = true)]
    pub token: Option<String>,
}

impl QueryParams for TokenQuery {}

fn registrant(state: &Shared, query: TokenQuery) -> Result<(String, String), ApiError> {
    let token = query.token.ok_or_else(|| ApiError::BadRequest {
        code: "invalid_token",
        message: "the unsubscribe link has no token; copy the whole link from the mail".into(),
    })?;
    // A token this server did not make names no subscription: 404.
    let key_id = mail::unsubscribe::verify(&state.wiring.secret, &token).ok_or_else(|| {
        ApiError::NotFound {
            code: "unknown_token",
            message: "this unsubscribe link is damaged or was not made by this server; copy the whole link from the mail".into(),
        }
    })?;
    Ok((token, key_id))
}

/// `GET /unsubscribe?token=…`: the confirmation page.
///
/// # Errors
/// 400 `invalid_token` without a token; 404 `unknown_token` for a damaged
/// or forged one.
#[utoipa::path(get, path = "/unsubscribe", tag = "keys",
    params(TokenQuery),
    responses(
        (status = 200, description = "A page with a button that unsubscribes", content_type = "text/html"),
        (status = 400, description = "No token (`invalid_token`)", body = web::error::ErrorBody),
        (status = 404, description = "A damaged or forged token (`unknown_token`)", body = web::error::ErrorBody)))]
pub async fn confirm(
    State(state): State<Shared>,
    Query(query): Query<TokenQuery>,
) -> Result<Response, ApiError> {
    let (token, _) = registrant(&state, query)?;
    let body = format!(
        "<h1>Unsubscribe from basel notices</h1>\
<p>Notices announce changes to the API and the service. Your API key keeps working either way.</p>\
<form method=\"post\" action=\"/unsubscribe?token={token}\">\
<input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
<button type=\"submit\">Send me no more notices</button></form>",
        token = escape(&token),
    );
    Ok(web::page::respond(
        StatusCode::OK,
        page::document("Unsubscribe — basel", &body),
        true,
    ))
}

/// `POST /unsubscribe?token=…`: one click, recorded as an event.
///
/// # Errors
/// 400 `invalid_token` without a token; 404 `unknown_token` for a damaged
/// or forged one; 503 when the store fails.
#[utoipa::path(post, path = "/unsubscribe", tag = "keys",
    params(TokenQuery),
    request_body(description = "`List-Unsubscribe=One-Click` (RFC 8058); any body is accepted", content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "Unsubscribed (also when it was already)", content_type = "text/html"),
        (status = 400, description = "No token (`invalid_token`)", body = web::error::ErrorBody),
        (status = 404, description = "A damaged or forged token (`unknown_token`)", body = web::error::ErrorBody),
        (status = 503, description = "The store is unavailable", body = web::error::ErrorBody)))]
pub async fn one_click(
    State(state): State<Shared>,
    Query(query): Query<TokenQuery>,
) -> Result<Response, ApiError> {
    let (_, key_id) = registrant(&state, query)?;
    let metadata = Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Registrant,
        request_id: uuid::Uuid::new_v4().to_string(),
        client_request_id: None,
        idempotency: None,
    };
    MailingCommands::new(&state.wiring.store, state.wiring.secret.clone())
        .unsubscribe(&key_id, &metadata)
        .await
        .map_err(|e| match e {
            CommandError::Rejected(refusal) => {
                ApiError::Internal(format!("unsubscribe refused: {refusal}"))
            }
            CommandError::Conflict
            | CommandError::VersionMismatch { .. }
            | CommandError::IdempotencyKeyReused => ApiError::Conflict,
            CommandError::Infrastructure(cause) => ApiError::Unavailable(cause),
        })?;
    let body = "<h1>Unsubscribed</h1>\
<p role=\"status\">This address will receive no more notices from basel. Your API key keeps working.</p>";
    Ok(web::page::respond(
        StatusCode::OK,
        page::document("Unsubscribed — basel", body),
        true,
    )
    .into_response())
}
