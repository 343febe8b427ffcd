//! What the OpenAPI document states beyond the handlers' annotations: the
//! bounds the service enforces on parameters and bodies, and the answers
//! any route can give because of the connection edge (`crate::edge`) and
//! the request deadline. Applied to the generated document by
//! [`crate::rest::openapi::document`]; the numbers are the constants the
//! handlers check against, so the document cannot drift from them.

use serde_json::{json, Map, Value};

use crate::rest::{ca::list, changes, classify, BODY_LIMIT};

/// An ISO 3166-1 alpha-2 code as the routes accept it (any case).
const COUNTRY_PATTERN: &str = "^[A-Za-z]{2}$";

/// Adds the enforced bounds and the edge's answers to `doc`.
pub fn apply(doc: &mut Value) {
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for operation in item.values_mut().filter_map(Value::as_object_mut) {
                bound_parameters(operation);
                add_edge_answers(operation);
            }
        }
    }
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        bound_bodies(schemas);
    }
}

fn bound_parameters(operation: &mut Map<String, Value>) {
    let Some(parameters) = operation.get_mut("parameters").and_then(Value::as_array_mut) else {
        return;
    };
    for parameter in parameters {
        let name = parameter["name"].as_str().unwrap_or_default().to_owned();
        let bound = match name.as_str() {
            "page" => json!({"type": "integer", "minimum": 1, "maximum": list::MAX_PAGE, "default": 1}),
            "perPage" => json!({"type": "integer", "minimum": 1, "maximum": list::MAX_PER_PAGE, "default": list::DEFAULT_PER_PAGE}),
            "limit" => json!({"type": "integer", "minimum": 1, "maximum": changes::MAX_LIMIT, "default": changes::DEFAULT_LIMIT}),
            "after" => json!({"type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0}),
            "q" => json!({"type": "string", "maxLength": projections::search::MAX_QUERY_CHARS}),
            "country_code" => json!({"type": "string", "pattern": COUNTRY_PATTERN}),
            _ => continue,
        };
        parameter["schema"] = bound;
    }
}

/// Answers every route can give: a request the edge refuses before the
/// route (400 unparsable, 414, 431, 429/503 connection caps), and for routes
/// with a body, 408 (body deadline) and 413 (size).
fn add_edge_answers(operation: &mut Map<String, Value>) {
    let has_body = operation.contains_key("requestBody");
    let responses = operation
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    let Some(responses) = responses else {
        return;
    };
    let mut add = |status: &str, description: &str| {
        responses.entry(status.to_owned()).or_insert_with(|| {
            json!({
                "description": description,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
            })
        });
    };
    add("400", "The request could not be parsed (request line, a header, or a parameter)");
    add("414", "The request URI is over 8 KiB (`uri_too_long`)");
    add("431", "Over 100 headers or 32 KiB of headers (`headers_too_large`)");
    add("429", "Too many requests or open connections from this address (`too_many_connections_from_peer`; `Retry-After`)");
    add("503", "The service is unavailable: the store did not answer within 4 s, or the server holds its maximum of connections (`Retry-After`)");
    if has_body {
        add("408", "The request body did not arrive within the body deadline (`body_timeout`)");
        add("413", &format!("The body is over {BODY_LIMIT} bytes (`payload_too_large`), refused before it is read"));
        add("415", "The body is not `application/json` (or, for `/register`, a form)");
    }
}

fn bound_bodies(schemas: &mut Map<String, Value>) {
    if let Some(description) = schemas
        .get_mut("ClassifyBody")
        .and_then(|s| s.pointer_mut("/properties/description"))
    {
        description["minLength"] = json!(1);
        description["maxLength"] = json!(classify::MAX_DESCRIPTION_CHARS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_and_bodies_state_their_bounds() {
        let doc = crate::rest::openapi::document();
        let list = &doc["paths"]["/api/v1/ca"]["get"];
        let per_page = list["parameters"]
            .as_array()
            .and_then(|p| p.iter().find(|p| p["name"] == "perPage"))
            .expect("perPage");
        assert_eq!(per_page["schema"]["maximum"], list::MAX_PER_PAGE);
        let get = &doc["paths"]["/api/v1/ca/{country_code}"]["get"];
        assert_eq!(get["parameters"][0]["schema"]["pattern"], COUNTRY_PATTERN);
        let classify = &doc["components"]["schemas"]["ClassifyBody"]["properties"]["description"];
        assert_eq!(classify["maxLength"], classify::MAX_DESCRIPTION_CHARS);
        let post = &doc["paths"]["/api/v1/classify"]["post"]["responses"];
        for status in ["400", "408", "413", "414", "415", "429", "431", "503"] {
            assert!(post.get(status).is_some(), "classify lacks {status}");
        }
        let health = &doc["paths"]["/healthz"]["get"]["responses"];
        assert!(health.get("413").is_none(), "no body, no 413");
        assert!(health.get("431").is_some());
    }
}
