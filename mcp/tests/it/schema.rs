//! A small JSON Schema checker for the keywords the tools' schemas use
//! (`type` with unions, `properties`, `required`, `items`, `enum`,
//! `minimum`/`maximum`, `additionalProperties: false`), so tests can assert
//! that every structured result matches its tool's output schema.

use serde_json::Value;

/// Every way `value` breaks `schema`, with JSON paths.
pub fn violations(schema: &Value, value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    check(schema, value, "$", &mut found);
    found
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        _ => false,
    }
}

fn check(schema: &Value, value: &Value, path: &str, found: &mut Vec<String>) {
    if let Some(kind) = schema.get("type") {
        let names: Vec<&str> = match kind {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !names.iter().any(|name| type_matches(name, value)) {
            found.push(format!("{path}: {value} is not of type {kind}"));
            return;
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        if !allowed.contains(value) {
            found.push(format!("{path}: {value} is not one of {allowed:?}"));
        }
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if n < min {
            found.push(format!("{path}: {n} < {min}"));
        }
    }
    if let (Some(max), Some(n)) = (
        schema.get("maximum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if n > max {
            found.push(format!("{path}: {n} > {max}"));
        }
    }
    if let Value::Object(map) = value {
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !map.contains_key(name) {
                found.push(format!("{path}: missing required `{name}`"));
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, item) in map {
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => check(sub, item, &format!("{path}.{name}"), found),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    found.push(format!("{path}: unexpected `{name}`"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(sub)) = (value, schema.get("items")) {
        for (index, item) in items.iter().enumerate() {
            check(sub, item, &format!("{path}[{index}]"), found);
        }
    }
}
