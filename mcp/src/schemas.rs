//! The tools' JSON Schemas (2020-12) as `tools/list` publishes them.
//!
//! rmcp generates both schemas of a tool from its signature: the input
//! schema from the `Parameters` type (what it deserialises, bounds
//! included), the output schema from the `Json` type (what it serialises:
//! every field `required`, `additionalProperties` open, so an additive change
//! to a shared view does not break a client). Here they get the rewrites of
//! `projections::schema::tidy` (the REST OpenAPI document's, so both edges
//! describe one shape alike) and are made compact (`tools/list` stays under
//! 20 KB: clients such as the Python SDK 1.x compile every output schema
//! again on each call):
//!
//! - an optional argument is one schema, without a `null` branch (leaving it
//!   out is how a caller says "none");
//! - output schemas keep under `$defs` only the types used more than once
//!   (the others are written where they are used), and no prose: what the
//!   fields mean is said once, in the tool's description and the REST
//!   documentation, not again in every schema that embeds a record;
//! - the answer's own fields are all `required` (each is always present,
//!   `null` when unknown); nested objects do not repeat that list, which
//!   would double the schemas' size for no client's benefit.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::Value;

use projections::schema::tidy;

/// A tool's input schema as published.
pub(crate) fn tidy_input(schema: &JsonObject) -> Arc<JsonObject> {
    let mut schema = tidy(schema);
    let required: Vec<Value> = match schema.get("required") {
        Some(Value::Array(names)) => names.clone(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(&Value::String(name.clone())) {
                without_null(property);
            }
            if let Some(Value::String(text)) = property.get_mut("description") {
                *text = plain(text);
            }
        }
    }
    Arc::new(schema)
}

/// A doc comment as one paragraph: its lines joined by spaces (rmcp and
/// schemars keep the line breaks of the source).
pub(crate) fn plain(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `anyOf: [X, {"type": "null"}]` becomes `X` (annotations kept).
fn without_null(property: &mut Value) {
    let Some(object) = property.as_object_mut() else {
        return;
    };
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return;
    };
    let null = serde_json::json!({"type": "null"});
    let others: Vec<&Value> = branches.iter().filter(|b| **b != null).collect();
    let [Value::Object(only)] = others.as_slice() else {
        return;
    };
    let only = only.clone();
    object.remove("anyOf");
    for (key, value) in only {
        object.entry(key).or_insert(value);
    }
}

/// A tool's output schema as published.
pub(crate) fn tidy_output(schema: &JsonObject) -> Arc<JsonObject> {
    let mut root = tidy(schema);
    let required = root.remove("required");
    let mut value = Value::Object(root);
    without_prose(&mut value);
    let Value::Object(mut root) = value else {
        return Arc::new(JsonObject::new());
    };
    if let Some(required) = required {
        root.insert("required".into(), required);
    }
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => JsonObject::new(),
    };
    let mut uses = HashMap::new();
    count_references(&Value::Object(root.clone()), &mut uses);
    defs.values()
        .for_each(|def| count_references(def, &mut uses));
    let mut value = Value::Object(root);
    inline_once_used(&mut value, &defs, &uses, &mut Vec::new());
    // The definitions still referred to, from the root or from each other.
    let mut kept = JsonObject::new();
    let mut pending = referred(&value);
    while let Some(name) = pending.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        if let Some(def) = defs.get(&name) {
            let mut def = def.clone();
            inline_once_used(&mut def, &defs, &uses, &mut vec![name.clone()]);
            pending.extend(referred(&def));
            kept.insert(name, def);
        }
    }
    let Value::Object(mut root) = value else {
        return Arc::new(JsonObject::new());
    };
    if !kept.is_empty() {
        kept.sort_keys();
        root.insert("$defs".into(), Value::Object(kept));
    }
    Arc::new(root)
}

/// The definition a `$ref` names, if `value` is a schema holding one.
fn reference(value: &Value) -> Option<&str> {
    value.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// Counts the references to each definition in `value`.
fn count_references(value: &Value, into: &mut HashMap<String, usize>) {
    if let Some(name) = reference(value) {
        *into.entry(name.to_owned()).or_default() += 1;
    }
    match value {
        Value::Object(map) => map.values().for_each(|v| count_references(v, into)),
        Value::Array(items) => items.iter().for_each(|v| count_references(v, into)),
        _ => {}
    }
}

/// The definitions `value` refers to.
fn referred(value: &Value) -> Vec<String> {
    let mut found = HashMap::new();
    count_references(value, &mut found);
    found.into_keys().collect()
}

/// Replaces each reference to a definition used once by the definition
/// itself (`inlining` guards against a cycle of such definitions).
fn inline_once_used(
    value: &mut Value,
    defs: &JsonObject,
    uses: &HashMap<String, usize>,
    inlining: &mut Vec<String>,
) {
    let only_a_reference = value.as_object().is_some_and(|map| map.len() == 1);
    if let Some(name) = reference(value)
        .filter(|_| only_a_reference)
        .map(str::to_owned)
    {
        let once = uses.get(&name).is_some_and(|n| *n == 1);
        if let Some(def) = defs
            .get(&name)
            .filter(|_| once && !inlining.contains(&name))
        {
            *value = def.clone();
            inlining.push(name);
            inline_once_used(value, defs, uses, inlining);
            inlining.pop();
            return;
        }
    }
    match value {
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| inline_once_used(v, defs, uses, inlining)),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| inline_once_used(v, defs, uses, inlining)),
        _ => {}
    }
}

/// Removes the annotations (`description`, `title`, `default`, `examples`)
/// and `required` everywhere in `value`, but not properties that happen to
/// be called so.
fn without_prose(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if key == "properties" || key == "$defs" {
                    if let Value::Object(named) = inner {
                        named.values_mut().for_each(without_prose);
                    }
                } else {
                    without_prose(inner);
                }
            }
            for keyword in ["description", "title", "default", "examples", "required"] {
                map.remove(keyword);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_prose),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn optional_arguments_have_no_null_branch_and_required_ones_stay() {
        let input = object(json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"], "maxLength": 3, "description": "A\nthing."},
                "b": {"type": "string"},
            },
            "required": ["b"],
        }));
        let tidy = tidy_input(&input);
        assert_eq!(
            tidy["properties"]["a"],
            json!({"type": "string", "maxLength": 3, "description": "A thing."})
        );
        assert_eq!(tidy["properties"]["b"], json!({"type": "string"}));
    }

    #[test]
    fn output_schemas_keep_shared_definitions_and_lose_prose() {
        let output = object(json!({
            "type": "object",
            "description": "A thing.",
            "properties": {
                "description": {"type": "string", "description": "Its description."},
                "title": {"$ref": "#/$defs/Title"},
                "parts": {"type": "array", "items": {"$ref": "#/$defs/Part"}},
                "main": {"anyOf": [{"$ref": "#/$defs/Part"}, {"type": "null"}]},
            },
            "required": ["description", "title", "parts", "main"],
            "$defs": {
                "Title": {"type": "string", "title": "Title", "format": "uint"},
                "Part": {
                    "type": "object",
                    "properties": {"kind": {"$ref": "#/$defs/Kind"}},
                    "required": ["kind"],
                },
                "Kind": {"type": "string", "enum": ["a", "b"], "default": "a"},
            },
        }));
        let tidy = tidy_output(&output);
        assert_eq!(
            Value::Object(tidy.as_ref().clone()),
            json!({
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "title": {"type": "string"},
                    "parts": {"type": "array", "items": {"$ref": "#/$defs/Part"}},
                    "main": {"anyOf": [{"$ref": "#/$defs/Part"}, {"type": "null"}]},
                },
                "required": ["description", "title", "parts", "main"],
                "$defs": {
                    "Part": {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "enum": ["a", "b"]}},
                    },
                },
            })
        );
    }
}
