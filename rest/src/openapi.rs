//! `GET /api/v1/openapi.json`: the OpenAPI 3.1 document. Paths come from the
//! handlers' `#[utoipa::path]` annotations, collected where the routes are
//! registered ([`crate::routes::api`]); every schema comes from the Rust
//! type the handler really serialises or reads: the request bodies' own
//! `ToSchema` (with their bounds), and the answers' schemars schemas
//! (`projections::views`, the classifier's `Classification`, the error
//! bodies: [`crate::schema`]), the generator the MCP tool schemas use
//! too. The answers every route shares are declared once
//! ([`SharedAnswers`]). The router and the document come from the same
//! registration, so every route is documented.

use axum::Json;
use serde_json::Value;
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi, PartialSchema, ToSchema};

use web::error::{ApiKeyErrorBody, ErrorBody};
use web::extract::BODY_LIMIT;

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "basel",
        description = "Basel Convention competent-authority directory and waste classifier. \
Reads need an API key (`X-API-Key`, free at `/register`); directory writes need a steward's bearer \
token (`basel steward enrol`), never an API key. Every error is JSON with `error`, `message` and a \
stable `code`, except the API-key 401, which is exactly `{error, message, help}`.",
    ),
    modifiers(&AuthSchemes),
    tags(
        (name = "directory", description = "Competent-authority records"),
        (name = "stewards", description = "Directory writes by data stewards"),
        (name = "classifier", description = "Waste description → Basel codes"),
        (name = "keys", description = "Free API keys"),
        (name = "ops", description = "Health, readiness, metrics, this document"),
        (name = "audit", description = "The verifiable log: signed checkpoints, inclusion and consistency proofs (README, \"For auditors\")"),
    )
)]
pub struct ApiDoc;

/// Adds the two auth schemes: `api_key` (`X-API-Key` header) and
/// `steward_token` (HTTP bearer).
pub struct AuthSchemes;

impl Modify for AuthSchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "A free key from `/register`. Missing or invalid: 401 `{error, message, help}`.",
            ))),
        );
        components.add_security_scheme(
            "steward_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A steward's token from `basel steward enrol` (`Authorization: Bearer TOKEN`). \
API keys are refused. Missing or wrong: 401 `steward_token_required`; suspended steward: 403.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The document as JSON.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "ops",
    responses((status = 200, description = "This OpenAPI 3.1 document", content_type = "application/json")))]
pub async fn openapi_json(
    axum::extract::State(state): axum::extract::State<web::state::Shared>,
    headers: axum::http::HeaderMap,
) -> Json<Value> {
    Json(served(&state.base_url(&headers)))
}

/// The document as served: [`document`] with `servers` naming `base_url`
/// (`BASEL_PUBLIC_URL`, or derived from the listen address). The document
/// is generated once per process (it depends on nothing else); each answer
/// is a copy with its `servers`.
pub fn served(base_url: &str) -> Value {
    static DOCUMENT: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let mut doc = DOCUMENT.get_or_init(document).clone();
    doc["servers"] = serde_json::json!([{ "url": base_url, "description": "this deployment" }]);
    doc
}

/// The whole document: paths from the annotations, schemas from the types,
/// the answers every route shares ([`SharedAnswers`]).
pub fn document() -> Value {
    let mut openapi = crate::routes::api(None).into_openapi();
    SharedAnswers.modify(&mut openapi);
    serde_json::to_value(openapi).unwrap_or_default()
}

/// The answers any route can give, declared here once instead of on every
/// handler: those of the connection edge and the request deadline (400,
/// 414, 431, 429, 503; with a body 408, 413, 415), and those of the
/// route's credential (the API-key 401; the steward 401 and 403). A
/// handler's own description of one of them wins.
pub struct SharedAnswers;

impl SharedAnswers {
    fn answers(operation: &Operation) -> Vec<(&'static str, String, bool)> {
        let mut answers = vec![
            ("400", "The request could not be parsed (request line, a header, a parameter or the JSON)".to_owned(), false),
            ("414", "The request URI is over 8 KiB (`uri_too_long`)".to_owned(), false),
            ("431", "Over 100 headers or 32 KiB of headers (`headers_too_large`)".to_owned(), false),
            ("429", "Too many requests or open connections from this address (`too_many_connections_from_peer`), or too many of its requests failed authentication (`too_many_failed_attempts`); `Retry-After`".to_owned(), false),
            ("503", "The service is unavailable: the store did not answer within 4 s, or the server holds its maximum of connections (`Retry-After`)".to_owned(), false),
        ];
        if operation.request_body.is_some() {
            answers.extend([
                ("408", "The request body did not arrive within the body deadline (`body_timeout`)".to_owned(), false),
                ("413", format!("The body is over {BODY_LIMIT} bytes (`payload_too_large`), refused before it is read"), false),
                ("415", "The body is not `application/json` (or, for `/register`, a form)".to_owned(), false),
            ]);
        }
        let schemes = serde_json::to_string(&operation.security).unwrap_or_default();
        if schemes.contains("\"api_key\"") {
            answers.push((
                "401",
                "Missing or invalid API key: exactly `{error, message, help}`".to_owned(),
                true,
            ));
        }
        if schemes.contains("\"steward_token\"") {
            answers.push((
                "401",
                "Missing or wrong steward token (API keys are refused); `WWW-Authenticate: Bearer`"
                    .to_owned(),
                false,
            ));
            answers.push(("403", "The steward is suspended".to_owned(), false));
        }
        answers
    }
}

impl Modify for SharedAnswers {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut schemas = vec![
            (ErrorBody::name().into_owned(), ErrorBody::schema()),
            (
                ApiKeyErrorBody::name().into_owned(),
                ApiKeyErrorBody::schema(),
            ),
        ];
        ErrorBody::schemas(&mut schemas);
        ApiKeyErrorBody::schemas(&mut schemas);
        let components = openapi.components.get_or_insert_with(Default::default);
        for (name, schema) in schemas {
            components.schemas.entry(name).or_insert(schema);
        }
        for item in openapi.paths.paths.values_mut() {
            for operation in operations(item) {
                for (status, description, api_key) in Self::answers(operation) {
                    let body = if api_key {
                        ApiKeyErrorBody::name()
                    } else {
                        ErrorBody::name()
                    };
                    let answer = ResponseBuilder::new()
                        .description(description)
                        .content(
                            "application/json",
                            ContentBuilder::new()
                                .schema(Some(Ref::from_schema_name(body)))
                                .build(),
                        )
                        .build();
                    operation
                        .responses
                        .responses
                        .entry(status.to_owned())
                        .or_insert(RefOr::T(answer));
                }
            }
        }
    }
}

fn operations(item: &mut PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        &mut item.get,
        &mut item.put,
        &mut item.post,
        &mut item.delete,
        &mut item.options,
        &mut item.head,
        &mut item.patch,
        &mut item.trace,
    ]
    .into_iter()
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    out.push(target.clone());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_schema_a_path_or_schema_refers_to_is_generated() {
        let doc = document();
        let mut found = Vec::new();
        refs(&doc, &mut found);
        assert!(found.len() > 20, "{found:?}");
        for target in found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} is not a component"));
            let schema = &doc["components"]["schemas"][name];
            assert!(
                schema.is_object() && schema.get("$ref").is_none(),
                "{name}: {schema}"
            );
        }
        let record = &doc["components"]["schemas"]["Record"];
        assert_eq!(record["properties"]["ca_name"]["anyOf"][1]["type"], "null");
        assert!(record["required"]
            .as_array()
            .is_some_and(|r| r.contains(&Value::from("provenance"))));
    }

    #[test]
    fn parameters_and_bodies_state_their_bounds() {
        use crate::v1::{ca::list, classify};
        use serde_json::json;

        let doc = document();
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
        for (path, name) in [
            ("/api/v1/audit/entries/{position}", "position"),
            ("/api/v1/audit/checkpoint/{tree_size}", "tree_size"),
        ] {
            let parameter = &doc["paths"][path]["get"]["parameters"][0];
            assert_eq!(parameter["name"], name);
            assert_eq!(parameter["schema"]["minimum"], 1, "{name}");
            assert_eq!(parameter["schema"]["maximum"], i64::MAX, "{name}");
        }
        let as_of = &get["parameters"][1];
        assert_eq!(as_of["name"], "as_of");
        assert_eq!(
            as_of["schema"],
            json!({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]})
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
}
