//! Sign-in state of the console.
//!
//! - The session cookie `basel_console` holds a random 256-bit id (only its
//!   SHA-256 is stored, `commands::console`), `HttpOnly`, `SameSite=Strict`,
//!   `Path=/steward`, and `Secure` when the console is served over https
//!   (`BASEL_PUBLIC_URL` starts with `https://`, or the proxy says
//!   `X-Forwarded-Proto: https`). A new id is drawn at every sign-in.
//! - [`Signed`]: the extractor of every signed-in page. A missing, unknown,
//!   idle (30 min) or old (12 h) session, or one whose steward is no longer
//!   active (suspended, forgotten), ends: the browser is sent to the
//!   sign-in page with the cookie cleared.
//! - Every form carries a CSRF token ([`Console::form_token`]), spent once
//!   on submission ([`Console::spend`]): missing, foreign or reused tokens
//!   are refused, so a form submitted twice writes once.

use axum::extract::FromRequestParts;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use secrecy::ExposeSecret;

use domain::values::Slug;
use projections::stewards;

use crate::html;
use crate::state::{Console, Handle};
use web::auth::Steward;

/// The session cookie's name.
pub const COOKIE_NAME: &str = "basel_console";

/// The cookie of the sign-in form (a double-submit CSRF token before there
/// is a session).
pub const SIGN_IN_COOKIE: &str = "basel_console_sign_in";

/// A signed-in steward and their session.
#[derive(Debug, Clone)]
pub struct Signed {
    /// The steward (id and name, as writes record them).
    pub steward: Steward,
    /// The session id (the cookie's value).
    pub session: String,
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(key, value)| (key == name).then_some(value))
        .filter(|value| !value.is_empty())
}

/// Whether the console is served over https (then cookies are `Secure`).
pub fn over_https(console: &Console, headers: &HeaderMap) -> bool {
    console
        .app
        .public_url
        .as_deref()
        .is_some_and(|url| url.starts_with("https://"))
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|p| p.eq_ignore_ascii_case("https"))
}

/// A `Set-Cookie` value: `name=value` with the console's attributes
/// (`max_age` 0 clears it).
pub fn set_cookie(name: &str, value: &str, secure: bool, max_age: Option<i64>) -> HeaderValue {
    let mut text = format!("{name}={value}; Path=/steward; HttpOnly; SameSite=Strict");
    if secure {
        text.push_str("; Secure");
    }
    if let Some(age) = max_age {
        text.push_str(&format!("; Max-Age={age}"));
    }
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Now, in Unix seconds (sessions' clock).
pub fn now() -> i64 {
    Utc::now().timestamp()
}

/// To the sign-in page, saying why, with the session cookie cleared.
pub fn to_sign_in(reason: &str, secure: bool) -> Response {
    let mut response = Redirect::to(&format!("/steward/sign-in?ended={reason}")).into_response();
    response
        .headers_mut()
        .append(SET_COOKIE, set_cookie(COOKIE_NAME, "", secure, Some(0)));
    response
}

fn unavailable() -> Response {
    html::message(
        StatusCode::SERVICE_UNAVAILABLE,
        "The store is unavailable",
        "The console cannot reach the store right now; nothing was written. Try again in a moment.",
        ("/steward/worklist", "Back to the worklist"),
    )
}

impl FromRequestParts<Handle> for Signed {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, console: &Handle) -> Result<Self, Response> {
        let secure = over_https(console, &parts.headers);
        let Some(id) = cookie(&parts.headers, COOKIE_NAME) else {
            return Err(to_sign_in("none", secure));
        };
        let row = match console.sessions.touch(id, now()).await {
            Ok(Some(row)) => row,
            Ok(None) => return Err(to_sign_in("expired", secure)),
            Err(error) => {
                tracing::warn!(error = %error, "console session unreadable");
                return Err(unavailable());
            }
        };
        if let Err(error) = web::auth::catch_up(&console.app).await {
            tracing::warn!(error = %error, "stewards projection unreadable");
            return Err(unavailable());
        }
        let steward = match stewards::by_id(console.app.read_db(), &row.steward_id).await {
            Ok(steward) => steward,
            Err(error) => {
                tracing::warn!(error = %error, "stewards projection unreadable");
                return Err(unavailable());
            }
        };
        match steward {
            Some(s) if s.status == "active" => match Slug::parse(&s.id) {
                Ok(slug) => Ok(Self {
                    steward: Steward {
                        id: slug,
                        name: s.name,
                    },
                    session: id.to_owned(),
                }),
                Err(_) => Err(unavailable()),
            },
            _ => {
                // Suspended (or forgotten) since sign-in: the session ends now.
                if let Err(error) = console.sessions.close(id).await {
                    tracing::warn!(error = %error, "console session not closed");
                }
                Err(to_sign_in("suspended", secure))
            }
        }
    }
}

impl Console {
    /// A fresh CSRF token for one form of `signed`'s session.
    ///
    /// # Errors
    /// The 503 page when the store cannot be written.
    pub async fn form_token(&self, signed: &Signed) -> Result<String, Response> {
        match self.sessions.issue_form(&signed.session, now()).await {
            Ok(token) => Ok(token.expose_secret().to_owned()),
            Err(error) => {
                tracing::warn!(error = %error, "console form token not stored");
                Err(unavailable())
            }
        }
    }

    /// `n` fresh CSRF tokens for the forms of one page of `signed`'s session.
    ///
    /// # Errors
    /// The 503 page when the store cannot be written.
    pub async fn form_tokens(&self, signed: &Signed, n: usize) -> Result<Vec<String>, Response> {
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.form_token(signed).await?);
        }
        Ok(out)
    }

    /// Spends the form's CSRF token `presented`.
    ///
    /// # Errors
    /// 403 when it is missing, not this session's, or spent already (a form
    /// submitted twice: the first submission did whatever it did, the second
    /// writes nothing); 503 when the store cannot be written.
    pub async fn spend(&self, signed: &Signed, presented: Option<&str>) -> Result<(), Response> {
        let refused = || {
            html::message(
                StatusCode::FORBIDDEN,
                "This form cannot be submitted again",
                "The form's security token is missing, belongs to another session, or was used already (a form is submitted once). Nothing was written. Open the page again to start afresh.",
                ("/steward/worklist", "Back to the worklist"),
            )
        };
        let Some(token) = presented.filter(|t| !t.is_empty()) else {
            return Err(refused());
        };
        match self
            .sessions
            .spend_form(&signed.session, token, now())
            .await
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(refused()),
            Err(error) => {
                tracing::warn!(error = %error, "console form token unreadable");
                Err(unavailable())
            }
        }
    }
}

/// A file a form carried.
#[derive(Debug, Clone)]
pub struct Upload {
    /// Its name as the browser sent it.
    pub file_name: String,
    /// Its bytes.
    pub bytes: axum::body::Bytes,
}

/// A form body (`application/x-www-form-urlencoded`, or
/// `multipart/form-data` with files): name/value pairs and the files.
#[derive(Debug, Default, Clone)]
pub struct FormData {
    /// The fields, in order.
    pub pairs: Vec<(String, String)>,
    /// The files (a file input left empty sends none).
    pub files: Vec<Upload>,
}

impl FormData {
    /// The first value of `name`, if sent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find_map(|(k, v)| (k == name).then_some(v.as_str()))
    }

    /// Every value of `name`, in order.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The value of `name`, trimmed, `""` when absent.
    pub fn text(&self, name: &str) -> String {
        self.get(name).unwrap_or_default().trim().to_owned()
    }

    async fn multipart(mut parts: axum::extract::Multipart) -> Option<Self> {
        let mut form = Self::default();
        while let Some(field) = parts.next_field().await.ok()? {
            let name = field.name().unwrap_or_default().to_owned();
            match field.file_name().map(str::to_owned) {
                Some(file_name) => {
                    let bytes = field.bytes().await.ok()?;
                    if !(file_name.is_empty() && bytes.is_empty()) {
                        form.files.push(Upload { file_name, bytes });
                    }
                }
                None => form.pairs.push((name, field.text().await.ok()?)),
            }
        }
        Some(form)
    }
}

impl<S: Send + Sync> axum::extract::FromRequest<S> for FormData {
    type Rejection = Response;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, Response> {
        let unreadable = || {
            html::message(
                StatusCode::BAD_REQUEST,
                "The form could not be read",
                "The browser sent a form the console cannot read; nothing was written.",
                ("/steward/worklist", "Back to the worklist"),
            )
        };
        let multipart = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("multipart/form-data"));
        if multipart {
            let parts = axum::extract::Multipart::from_request(request, state)
                .await
                .map_err(|_| unreadable())?;
            return Self::multipart(parts).await.ok_or_else(unreadable);
        }
        match axum::Form::<Vec<(String, String)>>::from_request(request, state).await {
            Ok(axum::Form(pairs)) => Ok(Self {
                pairs,
                files: Vec::new(),
            }),
            Err(_) => Err(unreadable()),
        }
    }
}
