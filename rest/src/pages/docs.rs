//! `GET /docs`: the API reference, rendered by the service from its own
//! OpenAPI document (the one `/api/v1/openapi.json` serves), so it cannot
//! drift from it and needs nothing from outside: no script, no CDN, no
//! vendored renderer. One section per tag with every operation (method,
//! path, what it does, authentication, parameters, request body,
//! responses), then every schema with its properties. Anchors link
//! operations to the schemas they use.

use std::fmt::Write;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::pages::page::{document, escape};
use web::page::respond;
use web::state::Shared;

/// Extra style for tables and method badges (inline, as the page CSP allows).
const STYLE: &str = "<style>main{max-width:60rem}table{border-collapse:collapse;width:100%;margin:.5rem 0}\
th,td{border:1px solid #bbb;padding:.3rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}\
.method{font-weight:700;font-family:monospace}nav ul{columns:24rem;column-gap:2rem;padding-left:1.2rem}\
nav li{break-inside:avoid;overflow-wrap:anywhere}h3,code{overflow-wrap:anywhere}\
section.op{border-top:1px solid #ccc;margin-top:1.5rem}</style>";

/// The HTTP methods an OpenAPI path item may hold, in display order.
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// `GET /docs`.
#[utoipa::path(get, path = "/docs", tag = "ops",
    responses((status = 200, description = "The API reference (HTML), rendered from this document", content_type = "text/html")))]
pub async fn docs(State(state): State<Shared>, headers: HeaderMap) -> Response {
    let base = state.base_url(&headers);
    respond(StatusCode::OK, page(&base), false)
}

/// Where the base URL goes in the page rendered once ([`page`]): no URL
/// contains it, and escaping leaves it as it is.
const BASE_MARK: &str = "BASEL-BASE-URL-MARK";

/// The reference page for `base_url`: rendered once per process with a mark
/// where the base URL goes (rendering costs as much as ~130 lookups; it
/// depends on nothing else), then the escaped URL put in its place.
fn page(base_url: &str) -> String {
    static PAGE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PAGE.get_or_init(|| {
        let doc = crate::openapi::served(BASE_MARK);
        document("API reference — basel", &render(&doc))
    })
    .replace(BASE_MARK, &escape(base_url))
}

/// The reference's HTML (the inside of `<main>`).
pub fn render(doc: &Value) -> String {
    let mut out = String::from(STYLE);
    let title = doc["info"]["title"].as_str().unwrap_or("API");
    let _ = write!(
        out,
        "<h1>{} API reference</h1><p>{}</p><p>Base URL: <code>{}</code>. Machine-readable: \
<a href=\"/api/v1/openapi.json\">the OpenAPI document</a>. Get a key at <a href=\"/register\">/register</a>; \
back to <a href=\"/\">the start page</a>.</p>",
        escape(title),
        text(doc["info"]["description"].as_str().unwrap_or_default()),
        escape(doc["servers"][0]["url"].as_str().unwrap_or("/")),
    );
    let operations = operations(doc);
    out.push_str("<nav aria-labelledby=\"toc\"><h2 id=\"toc\">Operations</h2><ul>");
    for op in &operations {
        let _ = write!(
            out,
            "<li><a href=\"#{}\"><span class=\"method\">{}</span> {}</a></li>",
            op.anchor,
            op.method.to_uppercase(),
            escape(op.path)
        );
    }
    out.push_str("</ul></nav><h2 id=\"operations\">Operations in detail</h2>");
    for op in &operations {
        render_operation(op, &mut out);
    }
    render_schemas(doc, &mut out);
    out
}

struct Operation<'a> {
    method: &'a str,
    path: &'a str,
    anchor: String,
    item: &'a Value,
}

fn operations(doc: &Value) -> Vec<Operation<'_>> {
    let mut all = Vec::new();
    let Some(paths) = doc["paths"].as_object() else {
        return all;
    };
    for (path, item) in paths {
        for method in METHODS {
            if let Some(op) = item.get(method) {
                all.push(Operation {
                    method,
                    path,
                    anchor: anchor(method, path),
                    item: op,
                });
            }
        }
    }
    all
}

fn anchor(method: &str, path: &str) -> String {
    let slug: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("op-{method}{slug}")
}

fn render_operation(op: &Operation<'_>, out: &mut String) {
    let item = op.item;
    let _ = write!(
        out,
        "<section class=\"op\" aria-labelledby=\"{a}\"><h3 id=\"{a}\"><span class=\"method\">{}</span> <code>{}</code></h3>",
        op.method.to_uppercase(),
        escape(op.path),
        a = op.anchor,
    );
    for key in ["summary", "description"] {
        if let Some(words) = item[key].as_str() {
            let _ = write!(out, "<p>{}</p>", text(words));
        }
    }
    let _ = write!(
        out,
        "<p><strong>Authentication:</strong> {}</p>",
        auth(item)
    );
    if let Some(params) = item["parameters"].as_array().filter(|p| !p.is_empty()) {
        out.push_str("<table><caption>Parameters</caption><thead><tr><th scope=\"col\">name</th><th scope=\"col\">in</th><th scope=\"col\">type</th><th scope=\"col\">required</th><th scope=\"col\">description</th></tr></thead><tbody>");
        for p in params {
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(p["name"].as_str().unwrap_or_default()),
                escape(p["in"].as_str().unwrap_or_default()),
                type_of(&p["schema"]),
                if p["required"].as_bool() == Some(true) {
                    "yes"
                } else {
                    "no"
                },
                text(p["description"].as_str().unwrap_or_default()),
            );
        }
        out.push_str("</tbody></table>");
    }
    if let Some(content) = item["requestBody"]["content"].as_object() {
        out.push_str("<p><strong>Request body:</strong></p><ul>");
        for (media, body) in content {
            let _ = write!(
                out,
                "<li><code>{}</code>: {}</li>",
                escape(media),
                type_of(&body["schema"])
            );
        }
        out.push_str("</ul>");
    }
    if let Some(responses) = item["responses"].as_object() {
        out.push_str("<table><caption>Responses</caption><thead><tr><th scope=\"col\">status</th><th scope=\"col\">description</th><th scope=\"col\">body</th></tr></thead><tbody>");
        for (status, answer) in responses {
            let bodies: Vec<String> = answer["content"]
                .as_object()
                .map(|content| {
                    content
                        .iter()
                        .map(|(media, body)| {
                            format!(
                                "<code>{}</code> {}",
                                escape(media),
                                type_of(&body["schema"])
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(status),
                text(answer["description"].as_str().unwrap_or_default()),
                bodies.join("<br>"),
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</section>");
}

fn auth(item: &Value) -> String {
    let schemes: Vec<&str> = item["security"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|s| s.as_object())
                .flat_map(|s| s.keys())
                .map(String::as_str)
                .collect()
        })
        .unwrap_or_default();
    match schemes.as_slice() {
        [] => "none".to_owned(),
        list => list
            .iter()
            .map(|scheme| match *scheme {
                "api_key" => "API key in <code>X-API-Key</code>".to_owned(),
                "steward_token" => "steward token in <code>Authorization: Bearer</code>".to_owned(),
                other => escape(other),
            })
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn render_schemas(doc: &Value, out: &mut String) {
    let Some(schemas) = doc["components"]["schemas"].as_object() else {
        return;
    };
    out.push_str("<h2 id=\"schemas\">Schemas</h2>");
    for (name, schema) in schemas {
        let _ = write!(
            out,
            "<section class=\"op\" aria-labelledby=\"schema-{n}\"><h3 id=\"schema-{n}\">{n}</h3>",
            n = escape(name)
        );
        if let Some(words) = schema["description"].as_str() {
            let _ = write!(out, "<p>{}</p>", text(words));
        }
        if let Some(values) = schema["enum"].as_array() {
            let _ = write!(out, "<p>One of: {}</p>", enum_values(values));
        }
        if let Some(props) = schema["properties"].as_object() {
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            out.push_str("<table><thead><tr><th scope=\"col\">field</th><th scope=\"col\">type</th><th scope=\"col\">required</th><th scope=\"col\">description</th></tr></thead><tbody>");
            for (field, prop) in props {
                let _ = write!(
                    out,
                    "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(field),
                    type_of(prop),
                    if required.contains(&field.as_str()) {
                        "yes"
                    } else {
                        "no"
                    },
                    text(prop["description"].as_str().unwrap_or_default()),
                );
            }
            out.push_str("</tbody></table>");
        } else if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
            let _ = write!(out, "<p>Type: {}</p>", type_of(schema));
        }
        out.push_str("</section>");
    }
}

/// A schema's type in words, with links to named schemas.
fn type_of(schema: &Value) -> String {
    if let Some(target) = schema["$ref"].as_str() {
        let name = target.rsplit('/').next().unwrap_or(target);
        return format!("<a href=\"#schema-{n}\">{n}</a>", n = escape(name));
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = schema[key].as_array() {
            let parts: Vec<String> = options.iter().map(type_of).collect();
            return parts.join(" or ");
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        return format!("one of {}", enum_values(values));
    }
    if let Some(value) = schema.get("const") {
        return format!("<code>{}</code>", escape(&value.to_string()));
    }
    let kind = match &schema["type"] {
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_owned(),
    };
    match (kind.as_str(), schema.get("items")) {
        (k, Some(items)) if k.starts_with("array") => {
            format!("array of {}{}", type_of(items), &k[5..])
        }
        _ => escape(&kind),
    }
}

fn enum_values(values: &[Value]) -> String {
    values
        .iter()
        .map(|v| {
            format!(
                "<code>{}</code>",
                escape(&v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Description text: escaped, `code` spans kept, a `# Errors` heading
/// turned into a label, line breaks as spaces.
fn text(words: &str) -> String {
    let words = words.replace("# Errors\n", "Errors: ").replace('\n', " ");
    let mut out = String::new();
    for (i, part) in words.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_and_schema_of_the_document_is_rendered_and_linked() {
        let doc = crate::openapi::served("https://basel.example.org");
        let html = render(&doc);
        let ops = operations(&doc);
        assert!(ops.len() >= 15, "{}", ops.len());
        for op in &ops {
            assert!(
                html.contains(&format!("id=\"{}\"", op.anchor)),
                "{}",
                op.anchor
            );
            assert!(
                html.contains(&format!("href=\"#{}\"", op.anchor)),
                "{}",
                op.anchor
            );
        }
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for name in schemas.keys() {
            assert!(html.contains(&format!("id=\"schema-{name}\"")), "{name}");
        }
        // Every in-page link has its target.
        for link in html.split("href=\"#").skip(1) {
            let target = link.split('"').next().unwrap();
            assert!(
                html.contains(&format!("id=\"{target}\"")),
                "#{target} has no target"
            );
        }
        assert!(html.contains("https://basel.example.org"));
        let first = page("https://one.example.org");
        let second = page("https://two.example.org/<x>");
        assert!(first.contains("https://one.example.org") && !first.contains(BASE_MARK));
        assert!(
            second.contains("https://two.example.org/&lt;x&gt;"),
            "escaped"
        );
        assert!(!second.contains("one.example.org"));
        assert!(!html.contains("<script"));
    }
}
