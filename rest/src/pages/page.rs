//! The HTML of `/register`: plain, server-rendered pages that work without
//! JavaScript, with labelled fields, errors announced to screen readers
//! (`role="alert"`, `aria-invalid`, `aria-describedby`), and strict headers
//! (no scripts at all, no caching of the page that shows a key).

use axum::http::StatusCode;
use axum::response::Response;
use secrecy::ExposeSecret;

use web::page::respond;

use crate::pages::register::Issued;

const STYLE: &str = "body{font:1rem/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}\
label{display:block;font-weight:600;margin-top:1rem}input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;border:2px solid #555}\
input[aria-invalid=true]{border-color:#b00020}button{font:inherit;margin-top:1rem;padding:.5rem 1.25rem}\
.error{color:#b00020;font-weight:600}code,pre{background:#f2f2f2;padding:.2rem .35rem;word-break:break-all;white-space:pre-wrap}\
:focus{outline:3px solid #1a5fb4;outline-offset:2px}";

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page: `title`, the shared style, `body` inside `<main>`.
pub(crate) fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{title}</title><style>{STYLE}</style></head>\
<body><main>{body}</main></body></html>\n",
        title = escape(title),
    )
}

/// The registration form, with the address typed and the error, if any
/// (then the status is 422).
pub fn register_form(email: Option<&str>, error: Option<&str>) -> Response {
    let value = escape(email.unwrap_or_default().trim());
    let (invalid, described, error_html) = match error {
        Some(message) => (
            " aria-invalid=\"true\"",
            "email-error email-hint",
            format!(
                "<p id=\"email-error\" class=\"error\" role=\"alert\">{}</p>",
                escape(message)
            ),
        ),
        None => ("", "email-hint", String::new()),
    };
    let body = format!(
        "<h1>Get a free API key</h1>\
<p>The key lets you read the Basel Convention competent-authority directory and use the waste \
classifier through the REST API (<code>X-API-Key</code> header) and the MCP server.</p>\
<form method=\"post\" action=\"/register\" novalidate>\
<label for=\"email\">E-mail address</label>\
<p id=\"email-hint\">We bind the key to this address. Registering the same address again shows the same key.</p>\
<p><strong>Please note:</strong> this service shows the key on this page, so anyone who knows an address can \
retrieve its key here. Deployments that deliver keys by e-mail close that gap.</p>\
{error_html}\
<input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"email\" required maxlength=\"254\" \
value=\"{value}\" aria-describedby=\"{described}\"{invalid}>\
<button type=\"submit\">Get my API key</button></form>"
    );
    let status = if error.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    respond(status, document("Get a free API key — basel", &body), false)
}

/// The page showing a key (never cached).
pub fn key_page(issued: &Issued, base_url: &str) -> Response {
    let key = escape(issued.api_key.expose_secret());
    let intro = if issued.created {
        "Your API key is ready"
    } else {
        "This address already has a key; here it is again"
    };
    let body = format!(
        "<h1>Your API key</h1>\
<p role=\"status\">{intro} for <strong>{email}</strong>. Keep it secret: anyone with it can use the API as you.</p>\
<p><label for=\"api-key\">API key</label>\
<output id=\"api-key\" for=\"email\"><code>{key}</code></output></p>\
<p>Send it in the <code>X-API-Key</code> header, for example:</p>\
<pre><code>curl -H 'X-API-Key: {key}' {base}/api/v1/ca/DE</code></pre>\
<p><a href=\"/register\">Register another address</a></p>",
        email = escape(issued.email.as_str()),
        base = escape(base_url),
    );
    respond(
        StatusCode::OK,
        document("Your API key — basel", &body),
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_everywhere_it_is_echoed() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
