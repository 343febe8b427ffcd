//! [`Valid<T>`]: a JSON body read into its type, every problem listed in
//! one 422.
//!
//! A body type says everything about itself: its fields and their types
//! (serde, with `deny_unknown_fields`), its bounds (its `ToSchema`
//! attributes `min_length`, `max_length`, `pattern`, `minimum`,
//! `max_items`, which are what the OpenAPI document states too) and the
//! rules across fields ([`Body::check`]). serde stops at the first bad
//! field; this reader goes on: it names unknown and missing fields first,
//! checks each field against its schema, then lets serde read the rest,
//! dropping each field serde refuses and reading again, so a 422 lists
//! every bad field (in the order the type declares them, unknown fields
//! last), each once.

use axum::extract::{FromRequest, Request};
use chrono::NaiveDate;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use serde_path_to_error::Segment;
use utoipa::openapi::schema::{Object, ObjectBuilder, SchemaType, Type};
use utoipa::ToSchema;

use domain::authority::FieldProblem;

use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::schemas::{BodySchema, Schemas};
use crate::Shared;

/// A request body type: read by [`Valid`], documented by its `ToSchema`.
pub trait Body: DeserializeOwned + ToSchema + 'static {
    /// Adds the problems the schema cannot state (rules across fields, a
    /// name looked up in a registry). Called once every field has parsed.
    fn check(&self, _problems: &mut Problems) {}
}

/// A body read into `T` and checked ([`read`]).
pub struct Valid<T>(pub T);

impl<T: Body> FromRequest<Shared> for Valid<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Shared) -> Result<Self, ApiError> {
        let JsonBody(value) = JsonBody::from_request(request, state).await?;
        read(&state.schemas, value).map(Self)
    }
}

/// The problems found in one body, at most one per field.
#[derive(Debug, Default)]
pub struct Problems(Vec<FieldProblem>);

impl Problems {
    /// Records that `field` (a path such as `changes.email`) is wrong,
    /// unless a problem with it is already recorded.
    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        if !self.0.iter().any(|p| p.field == field) {
            self.0.push(FieldProblem::new(field, message));
        }
    }

    /// Whether `field` has a problem already.
    pub fn has(&self, field: &str) -> bool {
        self.0.iter().any(|p| p.field == field)
    }
}

/// Reads `value` into `T`.
///
/// # Errors
/// 422 naming `body` when it is not an object; else 422 listing every
/// problem: unknown fields, missing ones, values outside the schema's
/// bounds, of the wrong type, and what [`Body::check`] finds.
pub fn read<T: Body>(schemas: &Schemas, value: Value) -> Result<T, ApiError> {
    let Value::Object(mut map) = value else {
        return Err(ApiError::invalid("body", "must be a JSON object"));
    };
    let schema = schemas.body_of::<T>();
    let declared = declared::<T>();
    let mut problems = Problems::default();
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !declared.contains(&k.as_str()))
        .cloned()
        .collect();
    for name in declared {
        let absent = map.get(*name).is_none_or(Value::is_null);
        if absent && schema.requires(name) {
            problems.add(*name, "is required");
            map.remove(*name);
        } else if let Some(value) = map.get(*name) {
            schema.bounds(schemas, &schema.property(name), value, name, &mut problems);
            if problems.has(name) {
                map.remove(*name);
            }
        }
    }
    for name in &unknown {
        problems.add(name.as_str(), "is not a known field");
        map.remove(name);
    }
    if let Some(body) = deserialize::<T>(map, &mut problems) {
        body.check(&mut problems);
        if problems.0.is_empty() {
            return Ok(body);
        }
    }
    Err(ApiError::Invalid(ordered(problems.0, declared)))
}

/// The most times serde reads one body.
const MAX_ROUNDS: usize = 100;

/// serde's reading of what is left, dropping each field it refuses and
/// trying again; `None` when a field it needs is missing.
fn deserialize<T: DeserializeOwned>(
    mut map: Map<String, Value>,
    problems: &mut Problems,
) -> Option<T> {
    // Each round removes a field, so this ends; the bound keeps a body of
    // thousands of bad nested fields from costing thousands of rounds (the
    // 422 lists 20 problems anyway).
    for _ in 0..MAX_ROUNDS {
        let error = match serde_path_to_error::deserialize(Value::Object(map.clone())) {
            Ok(body) => return Some(body),
            Err(error) => error,
        };
        let (path, keys) = located(error.path());
        let text = error.inner().to_string();
        if let Some(missing) = missing_field(&text) {
            let field = if path.is_empty() {
                missing.to_owned()
            } else {
                format!("{path}.{missing}")
            };
            problems.add(field, "is required");
        } else {
            problems.add(
                if path.is_empty() {
                    "body".to_owned()
                } else {
                    path
                },
                message(&text),
            );
        }
        if !remove(&mut map, &keys) {
            return None;
        }
    }
    None
}

/// The name of a problem at `path` (up to its deepest object key) and the
/// object keys leading there.
fn located(path: &serde_path_to_error::Path) -> (String, Vec<String>) {
    let segments: Vec<&Segment> = path.iter().collect();
    let deepest = segments
        .iter()
        .rposition(|s| matches!(s, Segment::Map { .. }))
        .map_or(0, |i| i + 1);
    let mut name = String::new();
    let mut keys = Vec::new();
    for segment in &segments[..deepest] {
        match segment {
            Segment::Map { key } => {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(key);
                keys.push(key.clone());
            }
            Segment::Seq { index } => name.push_str(&format!("[{index}]")),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    (name, keys)
}

/// Removes the field `keys` leads to (through nested objects); `false`
/// when there is none, so nothing more can be learnt.
fn remove(map: &mut Map<String, Value>, keys: &[String]) -> bool {
    match keys {
        [] => false,
        [last] => map.remove(last).is_some(),
        [first, rest @ ..] => match map.get_mut(first) {
            Some(Value::Object(inner)) => remove(inner, rest) || map.remove(first).is_some(),
            _ => map.remove(first).is_some(),
        },
    }
}

fn missing_field(text: &str) -> Option<&str> {
    text.strip_prefix("missing field `")?.split('`').next()
}

/// serde's words as a rule, without the client's value
/// (`invalid type: string "yes", expected a boolean` → `must be a boolean`).
fn message(text: &str) -> String {
    if let Some(rest) = text.strip_prefix("unknown variant `") {
        let expected = rest.split_once("expected ").map_or("", |(_, e)| e);
        return format!("must be {}", expected.replace('`', ""));
    }
    if text.starts_with("unknown field `") {
        return "is not a known field".into();
    }
    match text.split_once(", expected ") {
        Some((_, expected)) => format!("must be {expected}"),
        None => text.chars().take(200).collect(),
    }
}

/// Problems in the order the type declares its fields (nested ones under
/// their field, by name), unknown fields last (by name).
fn ordered(mut problems: Vec<FieldProblem>, declared: &[&str]) -> Vec<FieldProblem> {
    let rank = |p: &FieldProblem| {
        let top = p.field.split(['.', '[']).next().unwrap_or_default();
        let at = declared.iter().position(|d| *d == top);
        (at.unwrap_or(declared.len()), p.field.clone())
    };
    problems.sort_by_key(rank);
    problems
}

/// The field names `T` declares, in order, as serde's derive lists them.
fn declared<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names = names::Names::default();
    let _ = T::deserialize(&mut names);
    names.0.unwrap_or(&[])
}

impl BodySchema {
    fn requires(&self, field: &str) -> bool {
        self.root["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|n| n == field))
    }

    fn property(&self, field: &str) -> Value {
        self.root["properties"][field].clone()
    }

    /// `schema` itself, or the schema its `$ref` names.
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
        {
            Some(name) => self.components.get(name).unwrap_or(&Value::Null),
            None => schema,
        }
    }

    /// Adds a problem when `value` is outside the bounds `schema` states
    /// for a value of its JSON type (a value of another type is serde's to
    /// refuse).
    fn bounds(
        &self,
        schemas: &Schemas,
        schema: &Value,
        value: &Value,
        path: &str,
        problems: &mut Problems,
    ) {
        let schema = self.resolve(schema);
        for alternatives in ["allOf", "anyOf", "oneOf"] {
            for inner in schema[alternatives].as_array().into_iter().flatten() {
                self.bounds(schemas, inner, value, path, problems);
            }
        }
        match value {
            Value::String(text) => text_bounds(schemas, schema, text, path, problems),
            Value::Number(number) => {
                let n = number.as_f64().unwrap_or_default();
                if let Some(min) = schema["minimum"].as_f64().filter(|min| n < *min) {
                    problems.add(path, format!("must be at least {min}"));
                }
                if let Some(max) = schema["maximum"].as_f64().filter(|max| n > *max) {
                    problems.add(path, format!("must be at most {max}"));
                }
            }
            Value::Array(items) => {
                if let Some(max) = schema["maxItems"]
                    .as_u64()
                    .filter(|m| items.len() as u64 > *m)
                {
                    problems.add(path, format!("must have at most {max} items"));
                }
                for item in items {
                    self.bounds(schemas, &schema["items"], item, path, problems);
                }
            }
            Value::Object(fields) => {
                for (key, value) in fields {
                    let inner = format!("{path}.{key}");
                    self.bounds(schemas, &schema["properties"][key], value, &inner, problems);
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
    }
}

fn text_bounds(schemas: &Schemas, schema: &Value, text: &str, path: &str, problems: &mut Problems) {
    let count = text.chars().count() as u64;
    if let Some(min) = schema["minLength"].as_u64().filter(|min| count < *min) {
        problems.add(path, format!("must be at least {min} characters"));
    }
    if let Some(max) = schema["maxLength"].as_u64().filter(|max| count > *max) {
        problems.add(path, format!("must be at most {max} characters"));
    }
    if let Some(pattern) = schema["pattern"].as_str() {
        if !schemas.matches(pattern, text) {
            let rule = if pattern == NOT_BLANK {
                "must not be blank".to_owned()
            } else {
                format!("must match the pattern {pattern}")
            };
            problems.add(path, rule);
        }
    }
}

/// The pattern of a text that must hold something besides spaces.
pub const NOT_BLANK: &str = "\\S";

/// A `YYYY-MM-DD` date, read strictly (`2025-1-1` and date-times are
/// refused). Fields of this type are documented as
/// `#[schema(value_type = String, format = Date)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Day(pub NaiveDate);

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_date(&text)
            .map(Day)
            .ok_or_else(|| serde::de::Error::custom("must be a date as YYYY-MM-DD"))
    }
}

/// A strict `YYYY-MM-DD` date (surrounding spaces allowed).
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    if text.len() != 10 {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// For a field that tells "absent" (no change) from `null` (clear it):
/// `#[serde(default, deserialize_with = "present")]` on an
/// `Option<Option<T>>`.
///
/// # Errors
/// When the value is neither `null` nor a `T`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

/// The string schema of a domain enum (which has no `ToSchema`): its
/// values as its schemars schema lists them. For
/// `#[schema(schema_with = one_of::<T>)]`.
pub fn one_of<T: schemars::JsonSchema>() -> Object {
    values_of::<T>(false)
}

/// [`one_of`], or `null`.
pub fn one_of_or_null<T: schemars::JsonSchema>() -> Object {
    values_of::<T>(true)
}

fn values_of<T: schemars::JsonSchema>(nullable: bool) -> Object {
    let schema = projections::schema::json_schema::<T>();
    let mut values: Vec<Value> = schema
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut types = vec![Type::String];
    if nullable {
        values.push(Value::Null);
        types.push(Type::Null);
    }
    ObjectBuilder::new()
        .schema_type(types.into_iter().collect::<SchemaType>())
        .description(schema.get("description").and_then(Value::as_str))
        .enum_values(Some(values))
        .build()
}

/// A deserializer that only learns the field names of the struct asked for.
mod names {
    use serde::de::{self, Visitor};
    use serde::forward_to_deserialize_any;

    /// The names, once a struct was asked for.
    #[derive(Default)]
    pub struct Names(pub Option<&'static [&'static str]>);

    /// Stops every reading.
    #[derive(Debug)]
    pub struct Stop;

    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("only the field names are read")
        }
    }

    impl std::error::Error for Stop {}

    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }

    impl<'de> de::Deserializer<'de> for &mut Names {
        type Error = Stop;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }

        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A body with every kind of field the reader handles.
    #[derive(Debug, Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        #[schema(max_length = 5, pattern = "\\S")]
        name: String,
        flag: Option<bool>,
        #[schema(minimum = 1)]
        count: Option<i64>,
        #[schema(max_items = 2)]
        items: Option<Vec<String>>,
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[schema(max_length = 2)]
        code: String,
    }

    impl Body for Sample {
        fn check(&self, problems: &mut Problems) {
            if self.flag == Some(true) && self.count.is_none() {
                problems.add("count", "is needed with flag");
            }
        }
    }

    fn fields(value: Value) -> Vec<String> {
        match read::<Sample>(&Schemas::default(), value) {
            Err(ApiError::Invalid(problems)) => problems.into_iter().map(|p| p.field).collect(),
            other => panic!("expected 422, got {other:?}"),
        }
    }

    #[test]
    fn every_problem_is_listed_once_in_declared_order() {
        let body = json!({
            "zebra": 1, "items": ["a", "b", "c"], "count": 0, "flag": "yes",
            "inner": {"code": "toolong", "extra": true}
        });
        assert_eq!(
            fields(body),
            [
                "name",
                "flag",
                "count",
                "items",
                "inner.code",
                "inner.extra",
                "zebra"
            ]
        );
        assert_eq!(fields(json!({"name": "   "})), ["name"]);
        assert_eq!(
            fields(json!({"name": 5, "inner": {}})),
            ["name", "inner.code"]
        );
        assert_eq!(fields(json!({"name": "ok", "flag": true})), ["count"]);
        assert_eq!(fields(json!([1])), ["body"]);
    }

    #[test]
    fn a_good_body_is_read() {
        let body = read::<Sample>(
            &Schemas::default(),
            json!({
                "name": "ok", "count": 2, "items": ["a"], "inner": {"code": "DE"}
            }),
        )
        .expect("valid");
        assert_eq!((body.name.as_str(), body.count), ("ok", Some(2)));
        assert_eq!(body.items, Some(vec!["a".to_owned()]));
        assert_eq!(body.inner.map(|inner| inner.code), Some("DE".to_owned()));
    }

    #[test]
    fn a_body_of_thousands_of_bad_nested_fields_is_refused() {
        let inner: Map<String, Value> = (0..5000).map(|i| (format!("k{i}"), json!(1))).collect();
        let body = json!({"name": "ok", "inner": inner});
        assert!(
            matches!(read::<Sample>(&Schemas::default(), body), Err(ApiError::Invalid(p)) if !p.is_empty())
        );
    }

    #[test]
    fn dates_are_strict() {
        assert!(parse_date("2024-02-29").is_some());
        for bad in [
            "2024-2-29",
            "2023-02-29",
            "20240229",
            "2024-02-29T00:00:00Z",
            "",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn messages_state_the_rule_not_the_value() {
        assert_eq!(
            message("invalid type: string \"secret\", expected a boolean"),
            "must be a boolean"
        );
        assert_eq!(
            message("unknown variant `fax`, expected one of `email`, `phone`"),
            "must be one of email, phone"
        );
    }
}
