//! `POST /register` with a JSON body: a free API key bound to an e-mail
//! address. Registering the same address again (case and surrounding spaces
//! ignored) returns the same key with `created: false`. The answer waits
//! (bounded) until the key table holds the key, so it works on the very next
//! request.

use std::time::Duration;

use axum::extract::State;
use axum::Json;
use chrono::Utc;
use secrecy::ExposeSecret;
use serde_json::{json, Value};

use commands::api_key::ApiKeyCommands;
use commands::CommandError;
use domain::metadata::{Actor, Metadata};
use domain::values::Email;

use crate::app::AppState;
use crate::error::ApiError;
use crate::extract::{object, JsonBody};

/// How long a registration waits for the key table to catch up.
const READ_YOUR_WRITES: Duration = Duration::from_secs(2);

/// Registers an address and answers `{api_key, email, created}`.
///
/// # Errors
/// 422 for a missing or invalid e-mail; 409 when concurrent registrations of
/// the same address kept racing; 503 when the store fails.
pub async fn register_json(
    State(state): State<AppState>,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
    object(&body)?;
    let email = match body.get("email") {
        Some(Value::String(text)) => {
            Email::parse(text).map_err(|e| ApiError::invalid("email", e.to_string()))?
        }
        None | Some(Value::Null) => return Err(ApiError::invalid("email", "is required")),
        Some(_) => return Err(ApiError::invalid("email", "must be a string")),
    };
    let runtime = &state.runtime;
    let metadata = Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Registrant,
        request_id: uuid::Uuid::new_v4().to_string(),
    };
    let registration = ApiKeyCommands::new(&runtime.backend, runtime.secret.clone())
        .register(&email, &metadata)
        .await
        .map_err(|e| match e {
            CommandError::Rejected(refusal) => {
                ApiError::Internal(format!("registration refused: {refusal}"))
            }
            CommandError::Conflict => ApiError::Conflict,
            CommandError::Infrastructure(cause) => ApiError::Unavailable(cause),
        })?;
    runtime.wake.notify_one();
    let position = registration.committed.position;
    if !runtime
        .projector
        .wait_for(projections::api_keys::NAME, position, READ_YOUR_WRITES)
        .await
    {
        tracing::warn!(
            event.position = position,
            "api_keys projection did not reach a registration within the bound"
        );
    }
    Ok(Json(json!({
        "api_key": registration.api_key.expose_secret(),
        "email": email.as_str(),
        "created": registration.created,
    })))
}
