//! [`Query<T>`]: a route's query parameters read into their type.
//!
//! A query type says everything about itself, as a body type does
//! ([`crate::body`]): its parameters and their types (serde),
//! their bounds (its `IntoParams` attributes `minimum`, `maximum`,
//! `max_length` and enums, which are what the OpenAPI document states too)
//! and the other names a parameter is read under ([`QueryParams::ALIASES`]).
//! A malformed query string, a repeated parameter, a bad value, a value
//! outside the bounds or a parameter the route does not know is a 400 JSON
//! error naming it.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use utoipa::IntoParams;

use crate::error::ApiError;
use crate::schemas::{Declared, Schemas};
use crate::Shared;

/// A route's query parameters: a struct deriving `Deserialize` and
/// `IntoParams` with `#[into_params(parameter_in = Query)]`, named in the
/// route's `#[utoipa::path(params(..))]`.
pub trait QueryParams: DeserializeOwned + IntoParams + 'static {
    /// Other names parameters are read under, as `(alias, name)`.
    const ALIASES: &'static [(&'static str, &'static str)] = &[];

    /// The code of the 400 for a value of `name` outside its schema
    /// (`invalid_parameter` unless the type says otherwise).
    fn code(_name: &str) -> &'static str {
        "invalid_parameter"
    }
}

/// Query parameters read into `T` and checked ([`read`]).
pub struct Query<T>(pub T);

impl<T: QueryParams> FromRequestParts<Shared> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        read(&state.schemas, parts.uri.query().unwrap_or_default()).map(Self)
    }
}

/// A 400 about a query parameter.
pub fn bad(message: impl Into<String>) -> ApiError {
    ApiError::BadRequest {
        code: "invalid_parameter",
        message: message.into(),
    }
}

/// Reads the query string `query` into `T`.
///
/// # Errors
/// 400 `invalid_parameter` (or the type's [`QueryParams::code`]) naming
/// the first declared parameter that is repeated, malformed or outside its
/// bounds; else 400 `unknown_parameter` naming the first parameter `T`
/// does not declare; else 400 `invalid_parameter` naming a required one
/// that is missing.
pub fn read<T: QueryParams>(schemas: &Schemas, query: &str) -> Result<T, ApiError> {
    let given = canonical::<T>(pairs(query));
    let values = values::<T>(schemas, &given)?;
    if let Some((name, _)) = given.iter().find(|(n, _)| !values.contains_key(n)) {
        return Err(ApiError::BadRequest {
            code: "unknown_parameter",
            message: format!(
                "unknown query parameter {:?}",
                name.chars().take(50).collect::<String>()
            ),
        });
    }
    serde_path_to_error::deserialize(Value::Object(values)).map_err(|error| {
        let text = error.inner().to_string();
        match text
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split('`').next())
        {
            Some(missing) => bad(format!("{missing} is required")),
            None => bad(format!("{} is malformed", error.path())),
        }
    })
}

/// `given` with each alias replaced by the name it stands for.
fn canonical<T: QueryParams>(mut given: Vec<(String, String)>) -> Vec<(String, String)> {
    for (name, _) in &mut given {
        if let Some((_, canonical)) = T::ALIASES.iter().find(|(alias, _)| alias == name) {
            *name = (*canonical).to_owned();
        }
    }
    given
}

/// The JSON value of each parameter `T` declares that is `given`, in the
/// order `T` declares them.
fn values<T: QueryParams>(
    schemas: &Schemas,
    given: &[(String, String)],
) -> Result<Map<String, Value>, ApiError> {
    let mut values = Map::new();
    for (name, schema) in &schemas.query_of::<T>().0 {
        let mut found = given.iter().filter(|(n, _)| n == name).map(|(_, v)| v);
        let Some(text) = found.next() else { continue };
        if found.next().is_some() {
            return Err(bad(format!("{name} is given more than once")));
        }
        let value = typed(schema, name, text).map_err(|message| ApiError::BadRequest {
            code: T::code(name),
            message,
        })?;
        values.insert(name.clone(), value);
    }
    Ok(values)
}

/// `text` as the JSON value `schema` describes, or the rule it breaks.
fn typed(schema: &Value, name: &str, text: &str) -> Result<Value, String> {
    match schema["type"].as_str() {
        Some("integer") => {
            let (min, max) = (schema["minimum"].as_i64(), schema["maximum"].as_i64());
            match text.trim().parse::<i64>() {
                Ok(n) if min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m) => Ok(n.into()),
                _ => Err(format!(
                    "{name} must be an integer from {} to {}",
                    min.unwrap_or(i64::MIN),
                    max.unwrap_or(i64::MAX)
                )),
            }
        }
        Some("boolean") => match text.trim() {
            "true" => Ok(true.into()),
            "false" => Ok(false.into()),
            _ => Err(format!("{name} must be true or false")),
        },
        _ => {
            if let Some(allowed) = schema["enum"].as_array() {
                if !allowed.iter().any(|a| a == text) {
                    let names: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
                    return Err(format!(
                        "{name} `{text}` is not one of {}",
                        names.join(", ")
                    ));
                }
            }
            if let Some(max) = schema["maxLength"].as_u64() {
                if text.chars().count() as u64 > max {
                    return Err(format!("{name} must be at most {max} characters"));
                }
            }
            Ok(text.into())
        }
    }
}

/// The schema of each of `T`'s parameters, by name: for the tests that
/// tie a query type's attributes to the constants they state.
#[doc(hidden)]
pub fn schemas<T: IntoParams + 'static>() -> Value {
    Value::Object(Declared::of::<T>().0.into_iter().collect())
}

/// The pairs of a query string or form body (`a=1&b=x%20y`), decoded;
/// never fails (undecodable bytes become U+FFFD, which no parameter
/// accepts).
pub fn pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (name, value) = part.split_once('=').unwrap_or((part, ""));
            (decode(name), decode(value))
        })
        .collect()
}

/// Percent-decoding with `+` as space, as in HTML forms.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(hi), Some(lo)) => {
                    out.push(hi * 16 + lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(byte: u8) -> Option<u8> {
    (byte as char)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// A query with every kind of parameter the reader handles.
    #[derive(Debug, Deserialize, IntoParams)]
    #[into_params(parameter_in = Query)]
    struct Sample {
        #[param(minimum = 1, maximum = 9)]
        page: Option<i64>,
        #[serde(rename = "perPage")]
        #[param(minimum = 1, maximum = 500)]
        per_page: Option<i64>,
        flag: Option<bool>,
        #[param(max_length = 5)]
        q: Option<String>,
        #[param(inline)]
        colour: Option<Colour>,
    }

    #[derive(Debug, PartialEq, Deserialize, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    enum Colour {
        Red,
        Green,
    }

    impl QueryParams for Sample {
        const ALIASES: &'static [(&'static str, &'static str)] = &[("per_page", "perPage")];
    }

    fn refusal(query: &str) -> (&'static str, String) {
        match read::<Sample>(&Schemas::default(), query) {
            Err(ApiError::BadRequest { code, message }) => (code, message),
            other => panic!("{query}: expected 400, got {other:?}"),
        }
    }

    #[test]
    fn values_are_decoded_typed_and_aliases_read() {
        let sample = read::<Sample>(
            &Schemas::default(),
            "q=c%C3%B4te&page=+2&per_page=50&flag=true&colour=green",
        )
        .expect("valid");
        assert_eq!(sample.q.as_deref(), Some("côte"));
        assert_eq!((sample.page, sample.per_page), (Some(2), Some(50)));
        assert_eq!(
            (sample.flag, sample.colour),
            (Some(true), Some(Colour::Green))
        );
        assert!(read::<Sample>(&Schemas::default(), "").is_ok_and(|s| s.page.is_none()));
    }

    #[test]
    fn every_bad_parameter_is_named() {
        let cases = [
            ("page=0", "page must be an integer from 1 to 9"),
            ("page=x", "page must be an integer from 1 to 9"),
            ("perPage=501", "perPage must be an integer from 1 to 500"),
            ("page=1&page=2", "page is given more than once"),
            ("perPage=1&per_page=2", "perPage is given more than once"),
            ("flag=1", "flag must be true or false"),
            ("q=toolong", "q must be at most 5 characters"),
            ("colour=blue", "colour `blue` is not one of red, green"),
        ];
        for (query, message) in cases {
            assert_eq!(
                refusal(query),
                ("invalid_parameter", message.into()),
                "{query}"
            );
        }
        assert_eq!(
            refusal("page=1&x=%41"),
            ("unknown_parameter", "unknown query parameter \"x\"".into())
        );
    }

    #[test]
    fn broken_escapes_are_kept_literally() {
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%ff"), "\u{fffd}");
    }
}
