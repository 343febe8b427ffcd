//! `GET /`: the landing page. What the service is, how much of the
//! directory is filled in, where to get a key, the API reference and the
//! OpenAPI document, health, and how to add the MCP server to a client
//! (both transports, the header). Plain HTML in the style of `/register`:
//! no script, no external resource.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use projections::coverage::Coverage;

use crate::pages::page::{document, escape};
use web::error::ApiError;
use web::page::respond;
use web::state::{AppState, Shared};

/// The coverage figures of the directory the read cache holds (the same
/// counts as `GET /api/v1/coverage`).
///
/// # Errors
/// 503 when the read side is unavailable.
pub async fn coverage(state: &AppState) -> Result<Coverage, ApiError> {
    let rows = state.cache.directory(state.read_db()).await?;
    Ok(projections::coverage::of(
        &rows,
        chrono::Utc::now().date_naive(),
        state.stale_after_days,
    ))
}

/// `GET /`.
///
/// # Errors
/// 503 when the directory cannot be read.
#[utoipa::path(get, path = "/", tag = "ops",
    responses(
        (status = 200, description = "The landing page (HTML): what the service is, coverage, links, how to connect an MCP client", content_type = "text/html"),
        (status = 503, description = "The store is unavailable (answered within 4 s)", body = web::error::ErrorBody)))]
pub async fn home(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    let figures = coverage(&state).await?;
    let base = state.base_url(&headers);
    let mcp = state.mcp_url.clone();
    Ok(respond(
        StatusCode::OK,
        document(
            "basel — Basel Convention competent authorities and waste classifier",
            &body(figures, &base, mcp.as_deref()),
        ),
        false,
    ))
}

fn body(figures: Coverage, base: &str, mcp: Option<&str>) -> String {
    let base = escape(base);
    format!(
        "<h1>basel</h1>\
<p>The contact records of the competent authorities of the Parties to the Basel Convention on the \
Control of Transboundary Movements of Hazardous Wastes, with the provenance of every record (who \
checked it, how, against which source), a classifier that turns a plain-language waste description \
into Basel codes, and a shipment planner that says who must be notified. Every change to a record is \
kept, so its whole history can be read.</p>\
{coverage}\
<h2>Start</h2>\
<ul>\
<li><a href=\"/register\">Get a free API key</a> (bound to your e-mail address).</li>\
<li><a href=\"/docs\">API reference</a>: every route, parameter and answer.</li>\
<li><a href=\"/api/v1/openapi.json\">OpenAPI document</a> (OpenAPI 3.1, JSON) for client generators.</li>\
<li><a href=\"/steward/\">Steward console</a>: for the people who keep the records true (sign in with the token <code>basel steward enrol</code> prints).</li>\
<li>Health: <a href=\"/healthz\">liveness</a>, <a href=\"/readyz\">readiness</a>, \
<a href=\"/metrics\">metrics</a> (Prometheus text).</li>\
</ul>\
<p>With a key, look up a record:</p>\
<pre><code>curl -H 'X-API-Key: YOUR_KEY' {base}/api/v1/ca/DE</code></pre>\
{mcp}",
        coverage = coverage_html(&figures),
        mcp = mcp_html(mcp),
    )
}

fn coverage_html(c: &Coverage) -> String {
    let band = |name: &str| {
        c.contacts
            .by_age_band
            .get(name)
            .copied()
            .unwrap_or_default()
    };
    let kind = |name: &str| {
        c.contacts
            .by_source_kind
            .get(name)
            .copied()
            .unwrap_or_default()
    };
    format!(
        "<h2>Coverage</h2>\
<dl class=\"figures\">\
<dt>Parties in the directory</dt><dd id=\"coverage-records\">{}</dd>\
<dt>Parties with a contact traced to a public source</dt><dd id=\"coverage-contact\">{}</dd>\
<dt>Parties with a competent authority of national scope</dt><dd id=\"coverage-authority\">{}</dd>\
<dt>Verified by a data steward</dt><dd id=\"coverage-verified\">{}</dd>\
</dl>\
<p>Of the {} contacts served, {} come from the Basel Secretariat's country fact sheets of 2002–2009 \
and {} from government pages and official texts. {} are over 15 years old, {} between 5 and 15, \
{} under 5, and {} carry no date. None is verified until a steward's check reaches the authority: \
historic records say so, and missing contact data is left empty, never invented.</p>",
        c.parties,
        c.with_traced_contact,
        c.with_competent_authority,
        c.verified,
        c.contacts.total,
        kind("secretariat_factsheet"),
        kind("government_current") + kind("government_dated") + kind("other_official"),
        band("over_15y"),
        band("5_to_15y"),
        band("under_1y") + band("1_to_5y"),
        band("unknown"),
    )
}

fn mcp_html(mcp: Option<&str>) -> String {
    let url = escape(mcp.unwrap_or("http://MCP_HOST:8081"));
    format!(
        "<h2>Use it from an AI assistant (MCP)</h2>\
<p>The same data and classifier are served to AI assistants by a read-only MCP server{where_}. \
It has two transports: <strong>streamable HTTP</strong> at <code>{url}/mcp</code> and the legacy \
<strong>HTTP+SSE</strong> transport at <code>{url}/sse</code>. Every request needs your API key, in \
the header <code>Authorization: Bearer YOUR_KEY</code> or <code>X-API-Key: YOUR_KEY</code>.</p>\
<p>In a client's MCP configuration:</p>\
<pre><code>{{\n  \"mcpServers\": {{\n    \"basel\": {{\n      \"type\": \"http\",\n      \"url\": \"{url}/mcp\",\n      \
\"headers\": {{ \"Authorization\": \"Bearer YOUR_KEY\" }}\n    }},\n    \"basel-legacy-sse\": {{\n      \
\"type\": \"sse\",\n      \"url\": \"{url}/sse\",\n      \"headers\": {{ \"X-API-Key\": \"YOUR_KEY\" }}\n    }}\n  }}\n}}</code></pre>\
<p>With Claude Code:</p>\
<pre><code>claude mcp add --transport http basel {url}/mcp --header \"Authorization: Bearer YOUR_KEY\"\n\
claude mcp add --transport sse basel-sse {url}/sse --header \"X-API-Key: YOUR_KEY\"</code></pre>",
        where_ = if mcp.is_some() { "" } else { " (at the address its operator gives you)" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_the_figures_links_and_both_transports() {
        let figures = Coverage {
            parties: 191,
            with_traced_contact: 150,
            verified: 3,
            ..Coverage::default()
        };
        let html = body(
            figures,
            "https://basel.example.org",
            Some("https://mcp.example.org"),
        );
        for needle in [
            ">191<",
            ">150<",
            ">3<",
            "href=\"/register\"",
            "href=\"/docs\"",
            "href=\"/api/v1/openapi.json\"",
            "href=\"/healthz\"",
            "https://mcp.example.org/mcp",
            "https://mcp.example.org/sse",
            "Authorization: Bearer YOUR_KEY",
            "https://basel.example.org/api/v1/ca/DE",
        ] {
            assert!(html.contains(needle), "{needle} missing");
        }
        assert!(!html.contains("<script"));
    }
}
