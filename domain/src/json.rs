//! Request bodies read as JSON with every object's keys unique.
//!
//! `serde_json` keeps the last of two equal keys (`{"email": "a",
//! "email": "b"}` reads as `b`), so a client, a proxy and basel could each
//! see a different body. The edges (REST, MCP) read bodies with [`parse`]
//! and refuse a repeated key, naming where it is.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;
use serde_json::{Map, Number, Value};

/// Why a body is not a JSON document with unique keys.
#[derive(Debug)]
pub enum JsonError {
    /// Not JSON (or not one JSON value), as `serde_json` says.
    Syntax(serde_json::Error),
    /// An object names a key twice: the key's path, e.g. `contact.email` or
    /// `params.arguments.country_code` (`[2]` for an array element).
    DuplicateKey(String),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(e) => write!(f, "{e}"),
            Self::DuplicateKey(path) => {
                let path = crate::echo::loggable(path, crate::echo::MAX_ECHOED_CHARS);
                write!(
                    f,
                    "the key `{path}` appears twice in one object; each key may appear once"
                )
            }
        }
    }
}

/// Parses `bytes` as one JSON value whose objects name each key once.
///
/// # Errors
/// [`JsonError::Syntax`] when it is not JSON, [`JsonError::DuplicateKey`]
/// naming the first repeated key.
pub fn parse(bytes: &[u8]) -> Result<Value, JsonError> {
    let found = Cell::new(None);
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let seed = Unique {
        at: None,
        found: &found,
    };
    let value = seed
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match (value, found.take()) {
        (Ok(value), _) => Ok(value),
        (Err(_), Some(path)) => Err(JsonError::DuplicateKey(path)),
        (Err(e), None) => Err(JsonError::Syntax(e)),
    }
}

/// One step of the path to a value: an object's key or an array's index.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Where a value sits: its step and its parent's (borrowed from the
/// enclosing visit, so building a path costs nothing until it is needed).
struct Crumb<'a> {
    parent: Option<&'a Crumb<'a>>,
    step: Step<'a>,
}

fn path(at: Option<&Crumb<'_>>, key: &str) -> String {
    let mut crumbs = Vec::new();
    let mut next = at;
    while let Some(crumb) = next {
        crumbs.push(crumb);
        next = crumb.parent;
    }
    let mut text = String::new();
    for crumb in crumbs.iter().rev() {
        push_step(&mut text, &crumb.step);
    }
    push_step(&mut text, &Step::Key(key));
    text
}

fn push_step(text: &mut String, step: &Step<'_>) {
    match step {
        Step::Key(key) => {
            if !text.is_empty() {
                text.push('.');
            }
            text.push_str(key);
        }
        Step::Index(i) => {
            text.push('[');
            text.push_str(&i.to_string());
            text.push(']');
        }
    }
}

/// Reads one value, refusing a repeated key (recorded in `found`).
#[derive(Clone, Copy)]
struct Unique<'a> {
    at: Option<&'a Crumb<'a>>,
    found: &'a Cell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let crumb = Crumb {
                parent: self.at,
                step: Step::Index(items.len()),
            };
            let seed = Unique {
                at: Some(&crumb),
                found: self.found,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                self.found.set(Some(path(self.at, &key)));
                return Err(A::Error::custom(format!("duplicate key `{key}`")));
            }
            let crumb = Crumb {
                parent: self.at,
                step: Step::Key(&key),
            };
            let seed = Unique {
                at: Some(&crumb),
                found: self.found,
            };
            let value = map.next_value_seed(seed)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(text: &str) -> Option<String> {
        match parse(text.as_bytes()) {
            Err(JsonError::DuplicateKey(path)) => Some(path),
            _ => None,
        }
    }

    #[test]
    fn a_repeated_key_is_refused_with_its_path() {
        assert_eq!(
            duplicate(r#"{"email": "a", "email": "b"}"#).as_deref(),
            Some("email")
        );
        let nested = r#"{"params": {"arguments": {"cc": "DE", "x": 1, "cc": "FR"}}}"#;
        assert_eq!(duplicate(nested).as_deref(), Some("params.arguments.cc"));
        let listed = r#"[{"a": 1}, {"b": [{"c": 1, "c": 2}]}]"#;
        assert_eq!(duplicate(listed).as_deref(), Some("[1].b[0].c"));
    }

    #[test]
    fn unique_keys_read_as_serde_json_reads_them() {
        let text = r#"{"a": [1, -2, 3.5, true, null, "x\u00e9"], "b": {"a": {}}, "c": 18446744073709551615}"#;
        let strict = parse(text.as_bytes()).expect("valid");
        let plain: Value = serde_json::from_str(text).expect("valid");
        assert_eq!(strict, plain);
    }

    #[test]
    fn what_is_not_json_is_a_syntax_error() {
        for text in ["", "{", "{\"a\": 1} x", "[1,]", "{\"a\" 1}"] {
            assert!(
                matches!(parse(text.as_bytes()), Err(JsonError::Syntax(_))),
                "{text}"
            );
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(matches!(parse(deep.as_bytes()), Err(JsonError::Syntax(_))));
    }
}
