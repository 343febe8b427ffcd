//! `GET|POST /steward/sign-in` and `POST /steward/sign-out`.
//!
//! A steward signs in with their token (the one `basel steward enrol`
//! printed). Before there is a session the form's CSRF token is a
//! double-submit cookie (`basel_console_sign_in`, `SameSite=Strict`) that
//! must equal the form's hidden field. Each attempt spends a token of the
//! client's bucket ([`super::SIGN_IN_RATE`]), so guessing tokens is slow
//! (429 with `Retry-After` beyond). On success a new session id is drawn and
//! any session the browser presented ends (no fixation).

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Query, State};
use axum::http::header::{RETRY_AFTER, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use secrecy::ExposeSecret;

use domain::credentials::hash_secret;
use projections::stewards;

use super::html::{page, respond};
use super::session::{
    cookie, now, over_https, set_cookie, to_sign_in, FormData, Signed, COOKIE_NAME, SIGN_IN_COOKIE,
};
use crate::state::Handle;

/// Why the browser was sent here (`?ended=`).
#[derive(Debug, serde::Deserialize)]
pub struct Ended {
    ended: Option<String>,
}

fn reason(ended: Option<&str>) -> Option<&'static str> {
    match ended? {
        "expired" => Some("Your session ended (idle too long, or too old). Please sign in again."),
        "suspended" => Some("Your steward account is suspended: you were signed out."),
        "signed_out" => Some("You are signed out."),
        _ => None,
    }
}

/// The sign-in form, with a fresh sign-in CSRF cookie.
pub async fn form(
    State(console): State<Handle>,
    headers: HeaderMap,
    Query(ended): Query<Ended>,
) -> Response {
    render(
        &console,
        &headers,
        StatusCode::OK,
        reason(ended.ended.as_deref()),
        None,
    )
}

/// Whether the sign-in form's CSRF field equals the browser's sign-in
/// cookie (the double-submit check of every form before a session).
pub fn sign_in_csrf_ok(headers: &HeaderMap, form: &FormData) -> bool {
    let expected = cookie(headers, SIGN_IN_COOKIE).map(hash_secret);
    let presented = form.get("csrf").map(hash_secret);
    expected.is_some() && expected == presented
}

/// Spends one sign-in attempt of the client's bucket: `None` when allowed,
/// else the sign-in page with 429 and `Retry-After` (beyond the limit).
pub fn spend_attempt(
    console: &crate::state::Console,
    extensions: &axum::http::Extensions,
    headers: &HeaderMap,
) -> Option<Response> {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
    let Err(wait) = console.sign_ins.try_register(peer) else {
        return None;
    };
    let mut response = render(
        console,
        headers,
        StatusCode::TOO_MANY_REQUESTS,
        None,
        Some("Too many sign-in attempts from this address; wait a minute and try again."),
    );
    if let Ok(value) = HeaderValue::from_str(&wait.as_secs().max(1).to_string()) {
        response.headers_mut().insert(RETRY_AFTER, value);
    }
    Some(response)
}

fn render(
    console: &crate::state::Console,
    headers: &HeaderMap,
    status: StatusCode,
    notice: Option<&str>,
    error: Option<&str>,
) -> Response {
    render_page(console, headers, status, notice, error, None)
}

/// The sign-in page: the token form and, when the console can mail links,
/// the e-mail form; `error` next to the token, `email_error` next to the
/// address.
pub fn render_page(
    console: &crate::state::Console,
    headers: &HeaderMap,
    status: StatusCode,
    notice: Option<&str>,
    error: Option<&str>,
    email_error: Option<&str>,
) -> Response {
    let mails_links = super::link::offered(console);
    let csrf = commands::secrets::new_console_secret();
    let csrf = csrf.expose_secret();
    let body = html! {
        h1 { "Sign in" }
        @if let Some(notice) = notice {
            p class="notice" role="status" { (notice) }
        }
        p { "Sign in with the steward token your operator gave you (" code { "basel steward enrol" } " prints it once)." }
        form method="post" action="/steward/sign-in" {
            input type="hidden" name="csrf" value=(csrf);
            label for="token" { "Steward token" }
            @if let Some(error) = error {
                input id="token" name="token" type="password" autocomplete="current-password" required aria-invalid="true" aria-describedby="token-error";
                p id="token-error" class="error" role="alert" { (error) }
            } @else {
                input id="token" name="token" type="password" autocomplete="current-password" required;
            }
            button type="submit" { "Sign in" }
        }
        @if mails_links {
            h2 { "Or get a sign-in link by e-mail" }
            p { "Enter the address you are enrolled with: if it is an active steward's, a link that signs you in once, within 15 minutes, is mailed to it." }
            form method="post" action="/steward/sign-in/link" {
                input type="hidden" name="csrf" value=(csrf);
                label for="email" { "E-mail address" }
                @if let Some(error) = email_error {
                    input id="email" name="email" type="email" autocomplete="email" required aria-invalid="true" aria-describedby="email-error";
                    p id="email-error" class="error" role="alert" { (error) }
                } @else {
                    input id="email" name="email" type="email" autocomplete="email" required;
                }
                button type="submit" { "Mail me a sign-in link" }
            }
        }
    };
    let mut response = respond(status, page("Sign in", None, &body));
    response.headers_mut().append(
        SET_COOKIE,
        set_cookie(SIGN_IN_COOKIE, csrf, over_https(console, headers), None),
    );
    response
}

/// Signs a steward in: a new session, its cookie, on to the worklist.
pub async fn sign_in(
    State(console): State<Handle>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    if !sign_in_csrf_ok(&headers, &form) {
        return render(
            &console,
            &headers,
            StatusCode::FORBIDDEN,
            None,
            Some("This sign-in form expired or was not sent by this browser; please try again."),
        );
    }
    if let Some(refused) = spend_attempt(&console, &extensions, &headers) {
        return refused;
    }
    let token = form.text("token");
    if let Err(error) = web::auth::catch_up(&console.app).await {
        tracing::warn!(error = %error, "stewards projection unreadable");
    }
    let steward = match stewards::by_token_hash(console.app.read_db(), &hash_secret(&token)).await {
        Ok(steward) => steward,
        Err(error) => {
            tracing::warn!(error = %error, "stewards projection unreadable");
            return super::html::message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store is unavailable",
                "Sign-in cannot be checked right now. Try again in a moment.",
                ("/steward/sign-in", "Sign in"),
            );
        }
    };
    let steward = match steward {
        Some(s) if s.status == "active" => s,
        Some(_) => {
            return render(
                &console,
                &headers,
                StatusCode::FORBIDDEN,
                None,
                Some("This steward is suspended and cannot sign in."),
            )
        }
        None => {
            return render(
                &console,
                &headers,
                StatusCode::UNAUTHORIZED,
                None,
                Some("This token is not a steward's token (API keys do not sign in here)."),
            )
        }
    };
    open_session(&console, &headers, &steward.id).await
}

/// Opens a new session for `steward_id` (ending any the browser
/// presented), sets its cookie, clears the sign-in cookie and goes on to
/// the worklist: the end of every way of signing in.
pub async fn open_session(
    console: &crate::state::Console,
    headers: &HeaderMap,
    steward_id: &str,
) -> Response {
    let secure = over_https(console, headers);
    let replacing = cookie(headers, COOKIE_NAME);
    match console.sessions.open(steward_id, now(), replacing).await {
        Ok(id) => {
            let mut response = Redirect::to("/steward/worklist").into_response();
            let headers = response.headers_mut();
            headers.append(
                SET_COOKIE,
                set_cookie(COOKIE_NAME, id.expose_secret(), secure, None),
            );
            headers.append(SET_COOKIE, set_cookie(SIGN_IN_COOKIE, "", secure, Some(0)));
            response
        }
        Err(error) => {
            tracing::warn!(error = %error, "console session not stored");
            super::html::message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store is unavailable",
                "You could not be signed in right now. Try again in a moment.",
                ("/steward/sign-in", "Sign in"),
            )
        }
    }
}

/// Ends the session (the form's CSRF token must be this session's).
pub async fn sign_out(
    State(console): State<Handle>,
    signed: Signed,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    if let Err(refused) = console.spend(&signed, form.get("csrf")).await {
        return refused;
    }
    if let Err(error) = console.sessions.close(&signed.session).await {
        tracing::warn!(error = %error, "console session not closed");
    }
    to_sign_in("signed_out", over_https(&console, &headers))
}
