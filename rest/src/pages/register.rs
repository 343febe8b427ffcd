//! `/register`: a free API key bound to an e-mail address.
//!
//! - `GET /register`: an HTML page with a form (no JavaScript needed);
//! - `POST /register` with a form body: an HTML page showing the key, or the
//!   form again with the error (422);
//! - `POST /register` with a JSON body `{"email"}`: `{api_key, email, created}`.
//!
//! Registering the same address again (case and surrounding spaces ignored)
//! returns the same key with `created: false`, answered from the `api_keys`
//! projection (one indexed read, nothing recorded), so repeats cost the same
//! however many there were. New registrations are limited per client
//! ([`web::register_limit`]; 429 with `Retry-After`). The answer
//! waits (bounded) until the key table holds the key, so it works on the
//! very next request. The key is never logged.
//!
//! In page mode (the key shown in the answer) whoever knows an address can
//! retrieve its key: that is the product's documented trade-off, closed by
//! delivering keys by e-mail instead.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::Utc;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use commands::api_key::ApiKeyCommands;
use commands::secrets::hash_secret;
use commands::CommandError;
use domain::metadata::{Actor, Metadata};
use domain::values::Email;

use crate::pages::mail_delivery;
use crate::pages::page;
use web::body::{Body, Problems};
use web::error::ApiError;
use web::extract::JsonBody;
use web::params::pairs;
use web::schemas::Schemas;
use web::state::KeyDelivery;
use web::state::{AppState, Shared};

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
    /// What was recorded (or, for a retried `Idempotency-Key`, what was
    /// recorded the first time); `None` when nothing was.
    pub committed: Option<commands::executor::Committed>,
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
        (RegisterBody = "application/json"),
        (RegisterForm = "application/x-www-form-urlencoded"))),
    responses(
        (status = 200, description = "The key (JSON), or a page showing it (form)", content(
            (RegisterAnswer = "application/json"), ("text/html"))),
        (status = 202, description = "`BASEL_KEY_DELIVERY=email`: the key was mailed to the address and is not in the answer", content(
            (crate::pages::mail_delivery::KeyMailed = "application/json"), ("text/html"))),
        (status = 422, description = "Invalid e-mail: 422 JSON naming `email`, or the form again with the error", content(
            (web::error::ErrorBody = "application/json"), ("text/html"))),
        (status = 400, description = "Malformed country code, parameter or JSON", body = web::error::ErrorBody),
        (status = 429, description = "Too many new registrations from this client; `Retry-After` gives the seconds to wait", body = web::error::ErrorBody),
    ))]
pub async fn register(State(state): State<Shared>, request: Request) -> Response {
    let caller = Caller::of(&request);
    let is_form = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            t.to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        });
    if is_form {
        register_form(state, request, &caller).await
    } else {
        match JsonBody::from_request(request, &state).await {
            Ok(body) if state.key_delivery == KeyDelivery::Email => {
                match parse(&state.schemas, body.0) {
                    Ok(email) => match mail_delivery::mail_key(&state, &email, &caller).await {
                        Ok(()) => mail_delivery::json_answer(&email),
                        Err(error) => error.into_response(),
                    },
                    Err(error) => error.into_response(),
                }
            }
            Ok(body) => register_json(&state, body, &caller).await.into_response(),
            Err(error) => error.into_response(),
        }
    }
}

/// Who registers: the client's address (whose bucket a new registration
/// spends) and the request's id (for the metadata of what it records).
pub struct Caller {
    /// The peer address of the connection, when the request came over one.
    pub peer: Option<IpAddr>,
    /// The request's `x-request-id` (set by the access layer).
    pub request_id: String,
    /// The id the client sent, when sane and not reserved.
    pub client_request_id: Option<String>,
    /// Its `Idempotency-Key`, scoped to registrants, with the request's digest.
    pub idempotency: Option<domain::metadata::Idempotency>,
}

impl Caller {
    /// The caller of `request`.
    pub fn of(request: &Request) -> Self {
        Self {
            peer: request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map(|info| info.0.ip()),
            request_id: web::request_id::of(request.headers()),
            client_request_id: web::request_id::client_of(request.headers()),
            idempotency: web::consistency::idempotency(&Actor::Registrant, request.headers()),
        }
    }
}

async fn register_form(state: Shared, request: Request, caller: &Caller) -> Response {
    let base = state.base_url(request.headers());
    let bytes = match Bytes::from_request(request, &state).await {
        Ok(bytes) => bytes,
        Err(_) => return ApiError::PayloadTooLarge.into_response(),
    };
    let form = RegisterForm::parse(&bytes);
    let raw = form.email;
    let email = match Email::parse(&raw) {
        Ok(email) => email,
        Err(error) => {
            let message = if raw.trim().is_empty() {
                "Enter your e-mail address.".to_owned()
            } else {
                sentence(&error.to_string())
            };
            return page::register_form(Some(&raw), Some(&message));
        }
    };
    if state.key_delivery == KeyDelivery::Email {
        return match mail_delivery::mail_key(&state, &email, caller).await {
            Ok(()) => mail_delivery::page_answer(&email),
            Err(error) => error.into_response(),
        };
    }
    match issue(&state, email, caller).await {
        Ok(issued) => page::key_page(&issued, &base),
        Err(error) => error.into_response(),
    }
}

/// `POST /register` with JSON: `{api_key, email, created}`.
///
/// # Errors
/// 422 for a missing or invalid e-mail; 409 when concurrent registrations of
/// the same address kept racing; 503 when the store fails.
pub async fn register_json(
    state: &AppState,
    JsonBody(body): JsonBody,
    caller: &Caller,
) -> Result<Response, ApiError> {
    let issued = issue(state, parse(&state.schemas, body)?, caller).await?;
    let mut response = Json(RegisterAnswer {
        api_key: issued.api_key.expose_secret().to_owned(),
        email: issued.email.as_str().to_owned(),
        created: issued.created,
    })
    .into_response();
    if let Some(committed) = &issued.committed {
        web::write::mark(&mut response, committed);
    }
    Ok(response)
}

/// `POST /register` (JSON, or the form field `email`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterBody {
    /// The address the key is bound to.
    #[schema(format = Email, max_length = 254)]
    pub email: String,
}

impl Body for RegisterBody {
    fn check(&self, problems: &mut Problems) {
        if let Err(error) = Email::parse(&self.email) {
            problems.add("email", error.to_string());
        }
    }
}

/// `POST /register` as the page's form (`email=…`), read leniently: fields
/// other than `email` are ignored (a browser may add its own), and a
/// missing or repeated `email` is answered with the form again.
#[derive(Debug, Default, ToSchema)]
pub struct RegisterForm {
    /// The address the key is bound to.
    #[schema(format = Email, max_length = 254, required = true)]
    pub email: String,
}

impl RegisterForm {
    /// The form of a `application/x-www-form-urlencoded` body.
    pub fn parse(bytes: &[u8]) -> Self {
        let pairs = pairs(&String::from_utf8_lossy(bytes));
        let mut emails = pairs.into_iter().filter(|(name, _)| name == "email");
        // A repeated `email` is as good as none: the form again.
        let email = match (emails.next(), emails.next()) {
            (Some((_, email)), None) => email,
            _ => String::new(),
        };
        Self { email }
    }
}

/// The answer to a JSON registration.
#[derive(Debug, Serialize, ToSchema)]
pub struct RegisterAnswer {
    /// The key: send it as `X-API-Key`.
    pub api_key: String,
    /// The address as given (trimmed).
    pub email: String,
    /// `false` when the address already had this key.
    pub created: bool,
}

/// Reads a JSON registration ([`RegisterBody`]).
///
/// # Errors
/// 422 for a missing or invalid e-mail, or an unknown field.
pub fn parse(schemas: &Schemas, body: Value) -> Result<Email, ApiError> {
    let body: RegisterBody = web::body::read(schemas, body)?;
    Email::parse(&body.email).map_err(|error| ApiError::invalid("email", error.to_string()))
}

/// A refusal as the page shows it: one sentence, capitalised, with its stop.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    format!("{}{}.", first.unwrap_or_default(), chars.as_str())
}

/// The active key of `email`, from the `api_keys` projection: `None` when
/// there is none (or the stored hash is not the key the secret derives,
/// which only a changed secret can cause; the command path decides then).
///
/// # Errors
/// 503 when the read table cannot be read.
async fn active_key(state: &AppState, email: &Email) -> Result<Option<SecretString>, ApiError> {
    let wiring = &state.wiring;
    let id = wiring.secret.api_key_id(&email.normalized());
    let active = projections::api_keys::active_key(state.read_db(), &id)
        .await
        .map_err(|e| ApiError::Unavailable(e.to_string()))?;
    Ok(active.and_then(|(generation, key_hash)| {
        let generation = u32::try_from(generation).ok()?;
        let key = wiring.secret.api_key(&email.normalized(), generation);
        (hash_secret(key.expose_secret()) == key_hash).then_some(key)
    }))
}

/// Issues (or re-issues) the key of `email` and waits until it works. An
/// active key is answered from the projection without recording anything;
/// a new one spends a token of the caller's registration bucket first.
///
/// # Errors
/// 429 past the client's limit of new registrations; 409 when
/// registrations kept racing; 503 when the store fails.
pub async fn issue(state: &AppState, email: Email, caller: &Caller) -> Result<Issued, ApiError> {
    let client = caller.peer.unwrap_or(IpAddr::from([0, 0, 0, 0]));
    // Past the limit every address is refused alike, registered or not.
    if let Some(wait) = state.registrations.held_back(client) {
        return Err(ApiError::TooManyRegistrations {
            retry_after_secs: web::register_limit::retry_after_secs(wait),
        });
    }
    let metadata = Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Registrant,
        request_id: caller.request_id.clone(),
        client_request_id: caller.client_request_id.clone(),
        idempotency: caller.idempotency.clone(),
    };
    let commands = ApiKeyCommands::new(&state.wiring.store, state.wiring.secret.clone());
    // A retry under the same Idempotency-Key gets the original answer.
    if let Some(replayed) = commands
        .replayed(&email, &metadata)
        .await
        .map_err(refused)?
    {
        return Ok(Issued {
            api_key: replayed.api_key,
            email,
            created: true,
            committed: Some(replayed.committed),
        });
    }
    if let Some(api_key) = active_key(state, &email).await? {
        return Ok(Issued {
            api_key,
            email,
            created: false,
            committed: None,
        });
    }
    if let Err(wait) = state.registrations.try_register(client) {
        return Err(ApiError::TooManyRegistrations {
            retry_after_secs: web::register_limit::retry_after_secs(wait),
        });
    }
    let registration = commands
        .register(&email, &metadata)
        .await
        .map_err(refused)?;
    if registration.committed.events == 0 {
        return Ok(Issued {
            api_key: registration.api_key,
            email,
            created: registration.created,
            committed: registration
                .committed
                .replayed
                .then_some(registration.committed),
        });
    }
    settle(state, registration.committed.position).await;
    Ok(Issued {
        api_key: registration.api_key,
        email,
        created: registration.created,
        committed: Some(registration.committed),
    })
}

/// Rings the projector and waits (bounded) until the new key works: a
/// registration answers with a key that already works.
async fn settle(state: &AppState, position: i64) {
    state.committed();
    let applied = state
        .wiring
        .projector
        .wait_for(
            projections::registry::Projection::ApiKeys,
            position,
            READ_YOUR_WRITES,
        )
        .await;
    if !applied {
        tracing::warn!(
            event.position = position,
            "api_keys projection did not reach a registration within the bound"
        );
    }
}

/// The answer to a failed registration command.
fn refused(error: CommandError<domain::api_key::ApiKeyError>) -> ApiError {
    match error {
        CommandError::Rejected(refusal) => {
            ApiError::Internal(format!("registration refused: {refusal}"))
        }
        CommandError::Conflict | CommandError::VersionMismatch { .. } => ApiError::Conflict,
        CommandError::IdempotencyKeyReused => web::write::idempotency_key_reused(),
        CommandError::Infrastructure(cause) => ApiError::Unavailable(cause),
    }
}
