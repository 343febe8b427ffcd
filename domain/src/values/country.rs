use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// An ISO 3166-1 alpha-2 country code: two ASCII letters, accepted in any case
/// and stored in upper case. It says nothing about whether the country exists;
/// the directory answers that.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CountryCode(String);

impl CountryCode {
    /// Parses a code, ignoring surrounding white space and case.
    ///
    /// # Errors
    /// [`ValueError::CountryCode`] when the input is not exactly two ASCII letters.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let trimmed = input.trim();
        if trimmed.len() == 2 && trimmed.bytes().all(|b| b.is_ascii_alphabetic()) {
            Ok(Self(trimmed.to_ascii_uppercase()))
        } else {
            Err(ValueError::CountryCode(input.to_owned()))
        }
    }

    /// The upper-case code, e.g. `"DE"`.
    pub fn as_str(&self) -> &str {
        &self.0
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
        value.0
    }
}

impl fmt::Display for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
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
