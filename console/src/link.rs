//! Sign-in by a one-time mailed link (`BASEL_SMTP_URL` set).
//!
//! - `POST /steward/sign-in/link`: the sign-in page's e-mail form (the same
//!   double-submit CSRF cookie and per-client attempts as the token form).
//!   The answer is the same whether or not the address is an active
//!   steward's: the look-up, the link and the mail happen after it, in the
//!   background. The link `BASEL_PUBLIC_URL/steward/link/<token>` carries a
//!   random 256-bit token; the store keeps its SHA-256 only
//!   (`commands::console::ConsoleStore::issue_link`), for 15 minutes.
//! - `GET /steward/link/{token}`: a page with one button (so a mail
//!   scanner that fetches links does not spend it);
//! - `POST /steward/link/{token}`: spends the link (once) and signs in
//!   exactly like the token form ([`super::signin::open_session`]).
//!
//! The mail is sent at once, not through the outbox: an outbox row would
//! have to keep the link. A lost mail is asked for again.

use axum::extract::{Path, State};
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use maud::html;
use secrecy::ExposeSecret;

use commands::identity::AddressBook;
use domain::values::Email;
use projections::stewards;

use super::html::{page, respond};
use super::session::{now, over_https, set_cookie, FormData, SIGN_IN_COOKIE};
use super::signin::{open_session, render_page, sign_in_csrf_ok, spend_attempt};
use crate::state::{Console, Handle};

/// Whether sign-in by mailed link is offered: SMTP is set and the public
/// URL (never the request's `Host`) is known.
pub fn offered(console: &Console) -> bool {
    console.mail.is_some() && console.app.public_url.is_some()
}

fn not_offered() -> Response {
    super::html::message(
        StatusCode::NOT_FOUND,
        "Sign-in by e-mail is not available",
        "This installation sends no mail (BASEL_SMTP_URL is not set): sign in with your steward token.",
        ("/steward/sign-in", "Sign in"),
    )
}

/// What the page says after a request, known address or not.
const SENT: &str = "If this address belongs to an active steward, a sign-in link is on its way. It works once, within 15 minutes.";

/// Mails a link to `email` if it is an active steward's.
pub async fn request(
    State(console): State<Handle>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    form: FormData,
) -> Response {
    if !offered(&console) {
        return not_offered();
    }
    if !sign_in_csrf_ok(&headers, &form) {
        return render_page(
            &console,
            &headers,
            StatusCode::FORBIDDEN,
            None,
            None,
            Some("This sign-in form expired or was not sent by this browser; please try again."),
        );
    }
    if let Some(refused) = spend_attempt(&console, &extensions, &headers) {
        return refused;
    }
    let Ok(email) = Email::parse(&form.text("email")) else {
        return render_page(
            &console,
            &headers,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            None,
            Some("This is not an e-mail address (e.g. name@example.org)."),
        );
    };
    let background = console.clone();
    tokio::spawn(async move {
        if let Err(error) = mail_link(&background, &email).await {
            tracing::warn!(error = %error, "console sign-in link not mailed");
        }
    });
    render_page(&console, &headers, StatusCode::OK, Some(SENT), None, None)
}

/// Issues and mails a link to each active steward enrolled with `email`
/// (none: nothing at all).
async fn mail_link(console: &Console, email: &Email) -> anyhow::Result<()> {
    let (Some(mailer), Some(public_url)) = (&console.mail, &console.app.public_url) else {
        return Ok(());
    };
    let book = AddressBook::new(&console.app.wiring.store, &console.app.wiring.secret);
    web::auth::catch_up(&console.app)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    for id in book.stewards_with(email).await? {
        let active = stewards::by_id(console.app.read_db(), &id)
            .await?
            .is_some_and(|s| s.status == "active");
        if !active {
            continue;
        }
        let token = console.sessions.issue_link(&id, now()).await?;
        let link = format!(
            "{}/steward/link/{}",
            public_url.trim_end_matches('/'),
            token.expose_secret()
        );
        mail::compose::send_sign_in_link(&mailer.transport, &mailer.from, email.as_str(), &link)
            .await?;
        tracing::info!(steward = %id, "console sign-in link mailed");
    }
    Ok(())
}

/// The link's page: one button that signs in (a fetch alone spends nothing).
pub async fn show(
    State(console): State<Handle>,
    headers: HeaderMap,
    Path(token): Path<String>,
) -> Response {
    if !offered(&console) {
        return not_offered();
    }
    let csrf = commands::secrets::new_console_secret();
    let csrf = csrf.expose_secret();
    let action = format!("/steward/link/{token}");
    let body = html! {
        h1 { "Sign in" }
        p { "This link signs you in once, within 15 minutes of being mailed." }
        form method="post" action=(action) {
            input type="hidden" name="csrf" value=(csrf);
            button type="submit" { "Sign in to the console" }
        }
    };
    let mut response = respond(StatusCode::OK, page("Sign in", None, &body));
    response.headers_mut().append(
        SET_COOKIE,
        set_cookie(SIGN_IN_COOKIE, csrf, over_https(&console, &headers), None),
    );
    response
}

/// Spends the link and signs its steward in.
pub async fn follow(
    State(console): State<Handle>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    Path(token): Path<String>,
    form: FormData,
) -> Response {
    if !offered(&console) {
        return not_offered();
    }
    let refused =
        |status, text: &str| render_page(&console, &headers, status, None, None, Some(text));
    if !sign_in_csrf_ok(&headers, &form) {
        return refused(
            StatusCode::FORBIDDEN,
            "This sign-in form expired or was not sent by this browser; open the link again.",
        );
    }
    if let Some(limited) = spend_attempt(&console, &extensions, &headers) {
        return limited;
    }
    let steward_id = match console.sessions.redeem_link(&token, now()).await {
        Ok(Some(id)) => id,
        Ok(None) => {
            return refused(
                StatusCode::UNAUTHORIZED,
                "This sign-in link is unknown, used already or older than 15 minutes; ask for a new one.",
            )
        }
        Err(error) => {
            tracing::warn!(error = %error, "console sign-in link unreadable");
            return super::html::message(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store is unavailable",
                "Sign-in cannot be checked right now. Try again in a moment.",
                ("/steward/sign-in", "Sign in"),
            );
        }
    };
    if let Err(error) = web::auth::catch_up(&console.app).await {
        tracing::warn!(error = %error, "stewards projection unreadable");
    }
    let active = matches!(
        stewards::by_id(console.app.read_db(), &steward_id).await,
        Ok(Some(s)) if s.status == "active"
    );
    if !active {
        return refused(
            StatusCode::FORBIDDEN,
            "This steward is suspended and cannot sign in.",
        );
    }
    open_session(&console, &headers, &steward_id).await
}
