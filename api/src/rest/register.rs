//! `/register`: a free API key bound to an e-mail address.
//!
//! - `GET /register`: an HTML page with a form (no JavaScript needed);
//! - `POST /register` with a form body: an HTML page showing the key, or the
//!   form again with the error (422);
//! - `POST /register` with a JSON body `{"email"}`: `{api_key, email, created}`.
//!
//! Registering the same address again (case and surrounding spaces ignored)
//! returns the same key with `created: false`. The answer waits (bounded)
//! until the key table holds the key, so it works on the very next request.
//! The key is never logged.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use commands::api_key::ApiKeyCommands;
use commands::CommandError;
use domain::metadata::{Actor, Metadata};
use domain::values::Email;

use crate::rest::bodies::RegisterAnswer;
use crate::rest::error::ApiError;
use crate::rest::extract::JsonBody;
use crate::rest::fields::Fields;
use crate::rest::mail_delivery::{self, KeyDelivery};
use crate::rest::page;
use crate::rest::params::Params;
use crate::rest::{AppState, Shared};

/// How long a registration waits for the key table to catch up.
const READ_YOUR_WRITES: Duration = Duration::from_secs(2);

/// A key just issued (or issued again).
pub struct Issued {
    /// The key, in plaintext on its way to its owner only.
    pub api_key: SecretString,
    /// The address as given (trimmed).
    pub email: Email,
    /// `false` when the address already had this key.
    pub created: bool,
}

/// `GET /register`: the form.
#[utoipa::path(get, path = "/register", tag = "keys",
    responses((status = 200, description = "An HTML page with the registration form", content_type = "text/html")))]
pub async fn form() -> Response {
    page::register_form(None, None)
}

/// `POST /register`: a form body gets HTML, anything else is read as JSON.
///
/// # Errors
/// As [`register_json`] for JSON; a form gets 422 HTML for a bad address.
#[utoipa::path(post, path = "/register", tag = "keys",
    request_body(description = "JSON, or an HTML form body `email=…`", content(
        (crate::rest::openapi::RegisterBody = "application/json"),
        (crate::rest::openapi::RegisterBody = "application/x-www-form-urlencoded"))),
    responses(
        (status = 200, description = "The key (JSON), or a page showing it (form)", content(
            (crate::rest::openapi::RegisterAnswer = "application/json"), ("text/html"))),
        (status = 202, description = "`BASEL_KEY_DELIVERY=email`: the key was mailed to the address and is not in the answer", content(
            (crate::rest::openapi::KeyMailed = "application/json"), ("text/html"))),
        (status = 422, description = "Invalid e-mail: 422 JSON naming `email`, or the form again with the error", content(
            (crate::rest::openapi::ValidationError = "application/json"), ("text/html"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = crate::rest::openapi::Error),
        (status = 413, description = "Body over 64 KiB", body = crate::rest::openapi::Error),
        (status = 415, description = "Body is not application/json", body = crate::rest::openapi::Error),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = crate::rest::openapi::Error)
    ))]
pub async fn register(State(state): State<Shared>, request: Request) -> Response {
    let is_form = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            t.to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        });
    if is_form {
        register_form(state, request).await
    } else {
        match JsonBody::from_request(request, &state).await {
            Ok(body) if state.key_delivery == KeyDelivery::Email => match parse(&body.0) {
                Ok(email) => match mail_delivery::mail_key(&state, &email).await {
                    Ok(()) => mail_delivery::json_answer(&email),
                    Err(error) => error.into_response(),
                },
                Err(error) => error.into_response(),
            },
            Ok(body) => register_json(State(state), body).await.into_response(),
            Err(error) => error.into_response(),
        }
    }
}

async fn register_form(state: Shared, request: Request) -> Response {
    let bytes = match Bytes::from_request(request, &state).await {
        Ok(bytes) => bytes,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    let mut params = Params::parse(&String::from_utf8_lossy(&bytes));
    let raw = params.take("email").ok().flatten().unwrap_or_default();
    let email = match Email::parse(&raw) {
        Ok(email) => email,
        Err(error) => {
            let message = if raw.trim().is_empty() {
                "Enter your e-mail address.".to_owned()
            } else {
                format!("That is not an e-mail address we can use: {error}.")
            };
            return page::register_form(Some(&raw), Some(&message));
        }
    };
    if state.key_delivery == KeyDelivery::Email {
        return match mail_delivery::mail_key(&state, &email).await {
            Ok(()) => mail_delivery::page_answer(&email),
            Err(error) => error.into_response(),
        };
    }
    match issue(&state, email).await {
        Ok(issued) => page::key_page(&issued),
        Err(error) => error.into_response(),
    }
}

/// `POST /register` with JSON: `{api_key, email, created}`.
///
/// # Errors
/// 422 for a missing or invalid e-mail; 409 when concurrent registrations of
/// the same address kept racing; 503 when the store fails.
pub async fn register_json(
    State(state): State<Shared>,
    JsonBody(body): JsonBody,
) -> Result<Json<RegisterAnswer>, ApiError> {
    let issued = issue(&state, parse(&body)?).await?;
    Ok(Json(RegisterAnswer {
        api_key: issued.api_key.expose_secret().to_owned(),
        email: issued.email.as_str().to_owned(),
        created: issued.created,
    }))
}

/// Reads a JSON registration with the strict field reader.
///
/// # Errors
/// 422 for a missing or invalid e-mail, or an unknown field.
pub fn parse(body: &Value) -> Result<Email, ApiError> {
    let mut fields = Fields::of(body)?;
    let email = fields
        .text("email", true)
        .and_then(|text| match Email::parse(&text) {
            Ok(email) => Some(email),
            Err(error) => {
                fields.problem("email", error.to_string());
                None
            }
        });
    fields.finish()?;
    email.ok_or_else(|| ApiError::invalid("email", "is required"))
}

/// Issues (or re-issues) the key of `email` and waits until it works.
///
/// # Errors
/// 409 when registrations kept racing; 503 when the store fails.
pub async fn issue(state: &AppState, email: Email) -> Result<Issued, ApiError> {
    let wiring = &state.wiring;
    let metadata = Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Registrant,
        request_id: uuid::Uuid::new_v4().to_string(),
    };
    let registration = ApiKeyCommands::new(&wiring.store, wiring.secret.clone())
        .register(&email, &metadata)
        .await
        .map_err(|e| match e {
            CommandError::Rejected(refusal) => {
                ApiError::Internal(format!("registration refused: {refusal}"))
            }
            CommandError::Conflict | CommandError::VersionMismatch { .. } => ApiError::Conflict,
            CommandError::Infrastructure(cause) => ApiError::Unavailable(cause),
        })?;
    state.committed();
    let position = registration.committed.position;
    if !wiring
        .projector
        .wait_for(projections::api_keys::NAME, position, READ_YOUR_WRITES)
        .await
    {
        tracing::warn!(
            event.position = position,
            "api_keys projection did not reach a registration within the bound"
        );
    }
    Ok(Issued {
        api_key: registration.api_key,
        email,
        created: registration.created,
    })
}
