//! Query parameters, read one by one: a malformed query string, a repeated
//! parameter, a bad value or a parameter the route does not know is a 400
//! JSON error naming it.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::rest::http::error::ApiError;

/// The query string's parameters, percent-decoded.
#[derive(Debug, Default)]
pub struct Params {
    pairs: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        Ok(Self::parse(parts.uri.query().unwrap_or_default()))
    }
}

/// A 400 about a query parameter.
pub fn bad(message: impl Into<String>) -> ApiError {
    ApiError::BadRequest {
        code: "invalid_parameter",
        message: message.into(),
    }
}

impl Params {
    /// Parses a query string (`a=1&b=x%20y`); never fails (undecodable bytes
    /// become U+FFFD, which no parameter accepts).
    pub fn parse(query: &str) -> Self {
        let pairs = query
            .split('&')
            .filter(|part| !part.is_empty())
            .map(|part| {
                let (name, value) = part.split_once('=').unwrap_or((part, ""));
                (decode(name), decode(value))
            })
            .collect();
        Self { pairs }
    }

    /// Removes and returns the value of `name` (or of one of its `aliases`).
    ///
    /// # Errors
    /// 400 when it is given more than once.
    pub fn take_any(&mut self, names: &[&str]) -> Result<Option<String>, ApiError> {
        let (found, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pairs)
            .into_iter()
            .partition(|(name, _)| names.contains(&name.as_str()));
        self.pairs = rest;
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.into_iter().next().map(|(_, value)| value)),
            _ => Err(bad(format!("{} is given more than once", names[0]))),
        }
    }

    /// Removes and returns the value of `name`.
    ///
    /// # Errors
    /// 400 when it is given more than once.
    pub fn take(&mut self, name: &str) -> Result<Option<String>, ApiError> {
        self.take_any(&[name])
    }

    /// An integer parameter within `min..=max`, or `default`.
    ///
    /// # Errors
    /// 400 naming the parameter and its range.
    pub fn integer(
        &mut self,
        names: &[&str],
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<i64, ApiError> {
        let Some(text) = self.take_any(names)? else {
            return Ok(default);
        };
        match text.trim().parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(bad(format!(
                "{} must be an integer from {min} to {max}",
                names[0]
            ))),
        }
    }

    /// A `true`/`false` parameter.
    ///
    /// # Errors
    /// 400 for any other value.
    pub fn flag(&mut self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.take(name)?.as_deref().map(str::trim) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(_) => Err(bad(format!("{name} must be true or false"))),
        }
    }

    /// `Ok` when every parameter was taken.
    ///
    /// # Errors
    /// 400 naming the first parameter the route does not know.
    pub fn finish(self) -> Result<(), ApiError> {
        match self.pairs.first() {
            None => Ok(()),
            Some((name, _)) => Err(ApiError::BadRequest {
                code: "unknown_parameter",
                message: format!(
                    "unknown query parameter {:?}",
                    name.chars().take(50).collect::<String>()
                ),
            }),
        }
    }
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

    #[test]
    fn values_are_decoded_and_repeats_refused() {
        let mut params = Params::parse("q=c%C3%B4te+d%27ivoire&page=2&page=3&x");
        assert_eq!(
            params.take("q").ok().flatten().as_deref(),
            Some("côte d'ivoire")
        );
        assert!(params.take("page").is_err());
        assert!(params.finish().is_err(), "x is unknown");
    }

    #[test]
    fn broken_escapes_are_kept_literally() {
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("%ff"), "\u{fffd}");
    }

    #[test]
    fn integers_are_range_checked() {
        let mut params = Params::parse("perPage=501&page=0");
        assert!(params.integer(&["perPage"], 200, 1, 500).is_err());
        assert!(params.integer(&["page"], 1, 1, i64::MAX).is_err());
        let mut none = Params::parse("");
        assert_eq!(none.integer(&["page"], 1, 1, 9).ok(), Some(1));
    }
}
