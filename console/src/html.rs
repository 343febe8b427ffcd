//! The console's page layout and answers. Templates are maud: markup is
//! Rust, and every value spliced into it is escaped at compile time, so a
//! contact named `<script>` is shown as text. Every page has the strict
//! headers of the other pages (`web::page::respond`: a CSP with no script
//! at all, `nosniff`, no referrer) and is never cached (`no-store`: pages
//! show records and carry CSRF tokens).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use maud::{html, Markup, PreEscaped, DOCTYPE};

const STYLE: &str = "body{font:1rem/1.5 system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:0 1rem;color:#1a1a1a}\
header{display:flex;gap:1.5rem;align-items:center;border-bottom:2px solid #555;padding:.5rem 0;flex-wrap:wrap}\
header form{margin-left:auto}a{color:#0b4f9c}label{display:block;font-weight:600;margin-top:.75rem}\
input,select,textarea{font:inherit;padding:.4rem;border:2px solid #555;max-width:100%}\
input[aria-invalid=true],select[aria-invalid=true],textarea[aria-invalid=true]{border-color:#b00020}\
button{font:inherit;padding:.4rem 1rem;margin-top:.75rem}table{border-collapse:collapse;width:100%}\
th,td{border:1px solid #999;padding:.3rem .5rem;text-align:left;vertical-align:top}\
.error{color:#b00020;font-weight:600}.old{text-decoration:line-through;color:#6b0000}.new{color:#0a5c0a;font-weight:600}\
.notice{border:2px solid #0b4f9c;padding:.5rem 1rem}.filters{display:flex;gap:1rem;flex-wrap:wrap;align-items:end}\
:focus{outline:3px solid #1a5fb4;outline-offset:2px}";

/// Who is signed in, for the page header (and the sign-out form's token).
pub struct Chrome<'a> {
    /// The steward's name.
    pub name: &'a str,
    /// A CSRF token for the sign-out form.
    pub csrf: &'a str,
}

impl<'a> Chrome<'a> {
    /// The header of `signed`'s pages, with `csrf` for its sign-out form.
    pub fn of(signed: &'a crate::session::Signed, csrf: &'a str) -> Self {
        Self {
            name: &signed.steward.name,
            csrf,
        }
    }
}

/// A whole page: title, header (when signed in), `body` inside `<main>`.
pub fn page(title: &str, chrome: Option<&Chrome<'_>>, body: &Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " — basel steward console" }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    strong { "basel steward console" }
                    @if let Some(chrome) = chrome {
                        nav aria-label="Console" {
                            a href="/steward/worklist" { "Worklist" }
                            " "
                            a href="/steward/reviews" { "Review queue" }
                            " "
                            a href="/steward/import" { "Import" }
                        }
                        form method="post" action="/steward/sign-out" {
                            input type="hidden" name="csrf" value=(chrome.csrf);
                            span { "Signed in as " (chrome.name) " " }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main { (body) }
            }
        }
    }
}

/// `markup` as an answer with `status` and the pages' strict headers.
pub fn respond(status: StatusCode, markup: Markup) -> Response {
    let mut response = web::page::respond(status, markup.into_string(), true);
    response
        .headers_mut()
        .insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// A page that only says something (a refusal, an ended session), with a
/// link onwards.
pub fn message(status: StatusCode, title: &str, text: &str, onwards: (&str, &str)) -> Response {
    respond(
        status,
        page(
            title,
            None,
            &html! {
                h1 { (title) }
                p role="alert" { (text) }
                p { a href=(onwards.0) { (onwards.1) } }
            },
        ),
    )
}

/// A labelled text input, its error next to it (announced, linked with
/// `aria-describedby`), its value kept.
pub fn field(name: &str, label: &str, value: &str, error: Option<&str>) -> Markup {
    let error_id = format!("{name}-error");
    html! {
        label for=(name) { (label) }
        @if let Some(error) = error {
            input id=(name) name=(name) type="text" value=(value) aria-invalid="true" aria-describedby=(error_id);
            p id=(error_id) class="error" role="alert" { (error) }
        } @else {
            input id=(name) name=(name) type="text" value=(value);
        }
    }
}

/// A labelled select of `(value, label)` options with `selected` chosen.
pub fn select(
    name: &str,
    label: &str,
    options: &[(&str, &str)],
    selected: &str,
    error: Option<&str>,
) -> Markup {
    let error_id = format!("{name}-error");
    html! {
        label for=(name) { (label) }
        select id=(name) name=(name) aria-invalid=[error.map(|_| "true")] aria-describedby=[error.map(|_| error_id.as_str())] {
            @for (value, text) in options {
                option value=(value) selected[*value == selected] { (text) }
            }
        }
        @if let Some(error) = error {
            p id=(error_id) class="error" role="alert" { (error) }
        }
    }
}
