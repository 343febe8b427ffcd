//! What the OpenAPI document states beyond the handlers' annotations: the
//! bounds the service enforces on query parameters (the numbers
//! are the constants the handlers check against), and the rule the domain
//! applies to a body sent with `verified: true`. Applied to the generated
//! document by [`crate::rest::openapi::document`].

use serde_json::{json, Map, Value};

use domain::authority::ContactField;

use crate::rest::v1::{ca::list, changes};

/// Adds the enforced parameter bounds and the `verified` rule to `doc`.
pub fn apply(doc: &mut Value) {
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for operation in item.values_mut().filter_map(Value::as_object_mut) {
                bound_parameters(operation);
            }
        }
    }
    verified_needs(doc);
}

fn bound_parameters(operation: &mut Map<String, Value>) {
    let Some(parameters) = operation
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for parameter in parameters {
        let name = parameter["name"].as_str().unwrap_or_default().to_owned();
        let bound = match name.as_str() {
            "page" => {
                json!({"type": "integer", "minimum": 1, "maximum": list::MAX_PAGE, "default": 1})
            }
            "perPage" => {
                json!({"type": "integer", "minimum": 1, "maximum": list::MAX_PER_PAGE, "default": list::DEFAULT_PER_PAGE})
            }
            "limit" => {
                json!({"type": "integer", "minimum": 1, "maximum": changes::MAX_LIMIT, "default": changes::DEFAULT_LIMIT})
            }
            "after" => json!({"type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0}),
            "q" => json!({"type": "string", "maxLength": projections::search::MAX_QUERY_CHARS}),
            "as_of" => {
                json!({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]})
            }
            "movement" => json!({"type": "string", "enum": projections::scope::MOVEMENTS}),
            "per_page" => json!({"type": "integer", "minimum": 1, "maximum": 200, "default": 50}),
            "reason" => json!({"type": "string", "enum": crate::rest::v1::worklist::NEEDS}),
            "area" => json!({"type": "string", "maxLength": 300}),
            // The audit log's positions and tree sizes count from 1.
            "position" | "tree_size" | "from" | "to" => {
                json!({"type": "integer", "minimum": 1, "maximum": i64::MAX})
            }
            _ => continue,
        };
        parameter["schema"] = bound;
    }
}

/// States the rule the domain applies to a record or contact sent with
/// `verified: true`: its name, e-mail, phone and date of check must be given
/// (`require_verifiable`, `ContactField::REQUIRED_FOR_VERIFIED`). Without
/// it a client (or schemathesis, which learns from the 422 answers) could
/// only guess the rule. Stated on every request body that has a `verified`
/// field, for those of the rule's fields it has.
fn verified_needs(doc: &mut Value) {
    let mut bodies = Vec::new();
    let operations = doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|paths| paths.values());
    for operation in operations
        .filter_map(Value::as_object)
        .flat_map(|item| item.values())
    {
        let content = operation["requestBody"]["content"]
            .as_object()
            .into_iter()
            .flatten();
        for (_, media) in content {
            if let Some(name) = media["schema"]["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                bodies.push(name.to_owned());
            }
        }
    }
    let rule_fields: Vec<&str> = ContactField::REQUIRED_FOR_VERIFIED
        .iter()
        .map(|field| field.name())
        .chain(["last_checked"])
        .collect();
    for name in bodies {
        let Some(schema) = doc["components"]["schemas"].get_mut(&name) else {
            continue;
        };
        let has = |field: &str| schema["properties"].get(field).is_some();
        if !has("verified") {
            continue;
        }
        let fields: Vec<&str> = rule_fields.iter().copied().filter(|f| has(f)).collect();
        if fields.is_empty() || schema.get("if").is_some() {
            continue;
        }
        let properties: Map<String, Value> = fields
            .iter()
            .map(|field| {
                let rule = match *field {
                    "email" => json!({"type": "string", "format": "email"}),
                    "last_checked" => json!({"type": "string", "format": "date"}),
                    _ => json!({"type": "string", "pattern": crate::rest::http::body::NOT_BLANK}),
                };
                ((*field).to_owned(), rule)
            })
            .collect();
        schema["if"] =
            json!({"properties": {"verified": {"const": true}}, "required": ["verified"]});
        schema["then"] = json!({"required": fields, "properties": properties});
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::v1::classify;

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
        assert_eq!(
            get["parameters"][0]["schema"]["pattern"],
            "^\\s*[A-Za-z]{2}\\s*$"
        );
        let classify = &doc["components"]["schemas"]["ClassifyBody"]["properties"]["description"];
        assert_eq!(classify["maxLength"], classify::MAX_DESCRIPTION_CHARS);
        assert_eq!(
            doc["components"]["schemas"]["ClassifyBody"]["additionalProperties"],
            false
        );
        let post = &doc["paths"]["/api/v1/classify"]["post"]["responses"];
        for status in ["400", "408", "413", "414", "415", "429", "431", "503"] {
            assert!(post.get(status).is_some(), "classify lacks {status}");
        }
        let form = &doc["components"]["schemas"]["RegisterForm"];
        assert_eq!(form["required"], json!(["email"]));
        assert!(
            form.get("additionalProperties").is_none(),
            "a browser may add fields"
        );
        let health = &doc["paths"]["/healthz"]["get"]["responses"];
        assert!(health.get("413").is_none(), "no body, no 413");
        assert!(health.get("431").is_some());
    }

    #[test]
    fn a_verified_record_or_contact_states_what_it_needs() {
        let doc = crate::rest::openapi::document();
        let create = &doc["components"]["schemas"]["CreateBody"];
        assert_eq!(create["required"], json!(["country_code", "country_name"]));
        assert_eq!(create["if"]["properties"]["verified"]["const"], true);
        assert_eq!(
            create["then"]["required"],
            json!(["ca_name", "email", "phone", "last_checked"])
        );
        let contact = &doc["components"]["schemas"]["ContactBody"];
        assert_eq!(
            contact["then"]["required"],
            json!(["email", "phone", "last_checked"])
        );
    }
}
