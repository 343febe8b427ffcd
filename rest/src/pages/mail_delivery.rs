//! `BASEL_KEY_DELIVERY=email`: the key goes to the address by mail and is
//! never shown. A registration (first or repeated) records the key as issued
//! if needed, then asks for it to be mailed (`KeyMailRequested`, at most
//! `KEY_MAILS_PER_DAY` a day per address); the mail outbox sends it. The
//! answer is the same whatever happened (new key, same key, daily limit
//! reached), so it tells nobody whether an address is registered: JSON 202
//! `{email, delivery: "email", message}`, or a page saying where the key went.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use schemars::JsonSchema;
use serde::Serialize;

use commands::mailing::MailingCommands;
use commands::CommandError;
use domain::api_key::KEY_MAILS_PER_DAY;
use domain::metadata::{Actor, Metadata};
use domain::values::Email;

use crate::pages::page::{self, escape};
use crate::pages::register::{issue, Caller};
use web::error::ApiError;
use web::state::AppState;

/// `POST /register` in email mode (202): where the key went.
#[derive(Debug, Serialize, JsonSchema)]
pub struct KeyMailed {
    /// The address the key was mailed to (as given, trimmed).
    pub email: String,
    /// Always `email`.
    pub delivery: String,
    /// What happens next, in one sentence.
    pub message: String,
}
web::schemars_schema!(KeyMailed, "KeyMailed");

fn sentence(email: &Email) -> String {
    format!(
        "The API key was sent to {}. If it does not arrive within a few minutes, check the spam folder or register again (at most {KEY_MAILS_PER_DAY} mails a day).",
        email.as_str()
    )
}

/// Issues the key if needed and asks for it to be mailed.
///
/// # Errors
/// 409 when registrations kept racing; 503 when the store fails.
pub async fn mail_key(state: &AppState, email: &Email, caller: &Caller) -> Result<(), ApiError> {
    issue(state, email.clone(), caller).await?;
    let metadata = Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Registrant,
        request_id: caller.request_id.clone(),
        client_request_id: caller.client_request_id.clone(),
        // A retry under the same Idempotency-Key asks for no second mail.
        idempotency: caller.idempotency.clone(),
    };
    let wiring = &state.wiring;
    MailingCommands::new(&wiring.store, wiring.secret.clone())
        .request_key_mail(email, metadata.recorded_at, &metadata)
        .await
        .map_err(|e| match e {
            CommandError::Rejected(refusal) => {
                ApiError::Internal(format!("key mail refused: {refusal}"))
            }
            CommandError::Conflict | CommandError::VersionMismatch { .. } => ApiError::Conflict,
            CommandError::IdempotencyKeyReused => web::write::idempotency_key_reused(),
            CommandError::Infrastructure(cause) => ApiError::Unavailable(cause),
        })?;
    // Wakes this process's mail task (and projections) at once.
    state.committed();
    Ok(())
}

/// The JSON answer: 202, no key.
pub fn json_answer(email: &Email) -> Response {
    let body = KeyMailed {
        email: email.as_str().to_owned(),
        delivery: "email".to_owned(),
        message: sentence(email),
    };
    (StatusCode::ACCEPTED, Json(body)).into_response()
}

/// The page saying where the key went.
pub fn page_answer(email: &Email) -> Response {
    let body = format!(
        "<h1>Check your mail</h1>\
<p role=\"status\">We sent the API key for <strong>{email}</strong> to that address. It is not shown here: \
only the owner of the address gets it.</p>\
<p>If it does not arrive within a few minutes, check the spam folder, or register again: \
the same key is sent again (at most {KEY_MAILS_PER_DAY} mails a day).</p>\
<p><a href=\"/register\">Register another address</a></p>",
        email = escape(email.as_str()),
    );
    web::page::respond(
        StatusCode::ACCEPTED,
        page::document("Check your mail — basel", &body),
        true,
    )
}

/// The outbox's messages by status for `/metrics`
/// (`basel_mail_messages{status="queued|sent|failed|skipped"}`), read from
/// the shared outbox table, so every REST replica reports the same figures.
pub async fn register_metrics(
    db: &projections::ReadDb,
    registry: &mut prometheus_client::registry::Registry,
) {
    use prometheus_client::metrics::family::Family;
    use prometheus_client::metrics::gauge::Gauge;
    match mail::outbox::counts(db).await {
        Ok(counts) => {
            let messages = Family::<[(&'static str, &'static str); 1], Gauge>::default();
            for (status, n) in counts {
                messages.get_or_create(&[("status", status)]).set(n);
            }
            registry.register("basel_mail_messages", "Mail in the outbox by status: queued (waiting or retrying), sent, failed (given up), skipped (nothing to send any more)", messages);
        }
        Err(error) => tracing::warn!(error = %error, "metrics: mail outbox unreadable"),
    }
}
