//! JSON Schemas of the shapes clients see, generated from the Rust types
//! themselves (schemars), so the REST API's OpenAPI document and the MCP
//! server's tool output schemas cannot drift from the JSON they describe.
//!
//! Schemas describe what is *serialised* (an `Option` field is always
//! present, possibly `null`). Nullable values are written as
//! `anyOf: [{…}, {"type": "null"}]` rather than type arrays: strict clients
//! (MCP Inspector) warn on type arrays, and OpenAPI 3.1 tools read both.

use schemars::generate::SchemaSettings;
use schemars::transform::{RecursiveTransform, Transform};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// Keys that describe the value itself and stay beside `anyOf` when a type
/// array is split; every other key constrains the non-null branch.
const ANNOTATIONS: [&str; 5] = ["description", "title", "default", "examples", "deprecated"];

/// The self-contained schema of `T` (definitions inline under `$defs`), as
/// MCP tools publish it.
pub fn json_schema<T: JsonSchema>() -> Map<String, Value> {
    let mut schema = generator("/$defs").into_root_schema_for::<T>();
    schema.remove("$schema");
    into_map(schema.to_value())
}

/// A schema generated elsewhere (rmcp generates the MCP tools' schemas from
/// their types) with the rewrites [`json_schema`] makes: nullable values as
/// `anyOf`, documented constants as one `enum`, only JSON Schema's own
/// formats; and without `$schema` (2020-12 is the default where it is used).
pub fn tidy(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut schema = Schema::from(schema.clone());
    RecursiveTransform(NullableAsAnyOf).transform(&mut schema);
    RecursiveTransform(ConstsAsEnum).transform(&mut schema);
    RecursiveTransform(StandardFormats).transform(&mut schema);
    schema.remove("$schema");
    into_map(schema.to_value())
}

/// Schemas of the named types for an OpenAPI document: each under its type
/// name, with references to `#/components/schemas/…` for the types it uses.
/// Returns the named schemas and every definition they refer to.
pub struct Components {
    generator: SchemaGenerator,
    named: Map<String, Value>,
}

impl Default for Components {
    fn default() -> Self {
        Self {
            generator: generator("/components/schemas"),
            named: Map::new(),
        }
    }
}

impl Components {
    /// Adds `T` under `name` (the name OpenAPI paths refer to).
    pub fn add<T: JsonSchema>(&mut self, name: &str) -> &mut Self {
        let mut schema = self.generator.root_schema_for::<T>();
        schema.remove("$schema");
        schema.remove("$defs");
        // The generator also copies every definition so far under the
        // definitions path (`components/schemas`) inside the root: they are
        // all in `finish`'s map already.
        schema.remove("components");
        self.named.insert(name.to_owned(), schema.to_value());
        self
    }

    /// Every schema: the named ones and the definitions they refer to.
    pub fn finish(mut self) -> Map<String, Value> {
        let mut all = self.generator.take_definitions(true);
        all.append(&mut self.named);
        all
    }
}

fn generator(definitions_path: &str) -> SchemaGenerator {
    let path = definitions_path.to_owned();
    SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|settings| settings.definitions_path = path.into())
        .with_transform(RecursiveTransform(NullableAsAnyOf))
        .with_transform(RecursiveTransform(ConstsAsEnum))
        .with_transform(RecursiveTransform(StandardFormats))
        .into_generator()
}

fn into_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Rewrites a `oneOf` of documented string constants (what schemars makes of
/// an enum whose variants have doc comments) as one `enum`, with each
/// variant's description folded into the schema's: the form code generators
/// and validators read most widely.
#[derive(Clone, Copy)]
struct ConstsAsEnum;

impl Transform for ConstsAsEnum {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(Value::Array(branches)) = schema.get("oneOf") else {
            return;
        };
        let mut values = Vec::new();
        let mut notes = Vec::new();
        for branch in branches {
            let Some(Value::String(value)) = branch.get("const") else {
                return;
            };
            if let Some(Value::String(note)) = branch.get("description") {
                notes.push(format!("`{value}`: {note}"));
            }
            values.push(Value::String(value.clone()));
        }
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        object.remove("oneOf");
        object.insert("type".into(), Value::from("string"));
        object.insert("enum".into(), Value::Array(values));
        if !notes.is_empty() {
            let lead = object
                .get("description")
                .and_then(Value::as_str)
                .map(|d| format!("{d} "))
                .unwrap_or_default();
            object.insert(
                "description".into(),
                Value::from(format!("{lead}{}", notes.join(" "))),
            );
        }
    }
}

/// The `format` values JSON Schema 2020-12 defines (its format vocabulary).
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops `format` values outside JSON Schema's own vocabulary (schemars
/// writes `uint`, `int64`, `double` for Rust's number types): validators
/// built on ajv warn on each unknown one. The bounds that matter stay
/// (`minimum: 0` for unsigned integers).
#[derive(Clone, Copy)]
struct StandardFormats;

impl Transform for StandardFormats {
    fn transform(&mut self, schema: &mut Schema) {
        let standard = schema
            .get("format")
            .and_then(Value::as_str)
            .is_none_or(|format| STANDARD_FORMATS.contains(&format));
        if !standard {
            schema.remove("format");
        }
    }
}

/// Rewrites `"type": [T, "null"]` as `anyOf: [{"type": T, …}, {"type": "null"}]`.
#[derive(Clone, Copy)]
struct NullableAsAnyOf;

impl Transform for NullableAsAnyOf {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(Value::Array(types)) = schema.get("type") else {
            return;
        };
        let others: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if others.len() == types.len() {
            return;
        }
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let mut value = Map::new();
        for (key, v) in std::mem::take(object) {
            if ANNOTATIONS.contains(&key.as_str()) {
                object.insert(key, v);
            } else if key != "type" {
                value.insert(key, v);
            }
        }
        value.insert(
            "type".into(),
            match others.as_slice() {
                [one] => one.clone(),
                _ => Value::Array(others),
            },
        );
        object.insert(
            "anyOf".into(),
            Value::Array(vec![
                Value::Object(value),
                serde_json::json!({ "type": "null" }),
            ]),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use serde_json::json;

    /// A thing.
    #[derive(Serialize, JsonSchema)]
    struct Thing {
        /// Its name.
        name: Option<String>,
        /// Its tags.
        tags: Option<Vec<String>>,
        count: i64,
    }

    #[test]
    fn nullable_fields_are_any_of_and_every_field_is_required() {
        let schema = json_schema::<Thing>();
        assert_eq!(
            schema["properties"]["name"],
            json!({"description": "Its name.", "anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(
            schema["properties"]["tags"]["anyOf"][0],
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(schema["required"], json!(["name", "tags", "count"]));
        assert!(!serde_json::to_string(&schema)
            .unwrap()
            .contains("[\"string\",\"null\"]"));
    }

    #[test]
    fn only_json_schema_formats_are_kept() {
        #[derive(Serialize, JsonSchema)]
        struct Numbers {
            small: u32,
            big: i64,
            share: f64,
            when: chrono::DateTime<chrono::Utc>,
        }
        let schema = json_schema::<Numbers>();
        let properties = &schema["properties"];
        for field in ["small", "big", "share"] {
            assert!(
                properties[field].get("format").is_none(),
                "{field}: {}",
                properties[field]
            );
        }
        assert_eq!(properties["small"]["minimum"], 0);
        assert_eq!(properties["when"]["format"], "date-time");
    }

    #[test]
    fn documented_unit_variants_become_an_enum() {
        /// A colour.
        #[derive(Serialize, JsonSchema)]
        enum Colour {
            /// Like the sky.
            Blue,
            /// Like grass.
            #[serde(rename = "green")]
            Green,
        }
        let schema = json_schema::<Colour>();
        assert_eq!(schema["enum"], json!([Colour::Blue, Colour::Green]));
        assert_eq!(schema["type"], "string");
        assert!(schema.get("oneOf").is_none());
        assert_eq!(
            schema["description"],
            "A colour. `Blue`: Like the sky. `green`: Like grass."
        );
    }

    #[test]
    fn components_refer_to_each_other_under_components_schemas() {
        #[derive(Serialize, JsonSchema)]
        struct Outer {
            inner: Thing,
        }
        let mut components = Components::default();
        components.add::<Outer>("Outer");
        let all = components.finish();
        assert!(
            all["Outer"].get("components").is_none(),
            "definitions are listed once, not copied into each schema"
        );
        assert_eq!(
            all["Outer"]["properties"]["inner"]["$ref"],
            "#/components/schemas/Thing"
        );
        assert!(all["Thing"].is_object());
    }
}
