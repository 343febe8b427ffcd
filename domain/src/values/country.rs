use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// An ISO 3166-1 alpha-2 country code: two ASCII letters, accepted in any case
/// and stored in upper case. It says nothing about whether the country exists;
/// the directory answers that.
///
/// Held as its two bytes (no allocation: it is parsed on every lookup).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CountryCode([u8; 2]);

impl CountryCode {
    /// Parses a code, ignoring surrounding white space and case.
    ///
    /// # Errors
    /// [`ValueError::CountryCode`] when the input is not exactly two ASCII letters.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        match <[u8; 2]>::try_from(input.trim().as_bytes()) {
            Ok(code) if code.iter().all(u8::is_ascii_alphabetic) => {
                Ok(Self(code.map(|b| b.to_ascii_uppercase())))
            }
            _ => Err(ValueError::CountryCode(input.to_owned())),
        }
    }

    /// The upper-case code, e.g. `"DE"`.
    pub fn as_str(&self) -> &str {
        // Two ASCII letters are always UTF-8.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl TryFrom<String> for CountryCode {
    type Error = ValueError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<CountryCode> for String {
    fn from(value: CountryCode) -> Self {
        value.as_str().to_owned()
    }
}

impl fmt::Display for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CountryCode").field(&self.as_str()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_case_insensitive_and_stored_upper_case() {
        assert_eq!(
            CountryCode::parse(" de ").map(|c| c.to_string()),
            Ok("DE".into())
        );
    }

    #[test]
    fn anything_but_two_letters_is_refused() {
        for bad in ["", "D", "DEU", "D1", "é1", "  "] {
            assert!(CountryCode::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
