use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// A phone number in international format: `+`, the country calling code,
/// then groups of digits separated by single hyphens (`+41-22-917-8218`).
/// At most 15 digits in all, as E.164 allows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Phone(String);

impl Phone {
    /// Parses a number that is already in the house format.
    ///
    /// # Errors
    /// [`ValueError::Phone`] when the number is not `+CC-...` with hyphens.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let trimmed = input.trim();
        let refuse = || ValueError::Phone(input.to_owned());
        let rest = trimmed.strip_prefix('+').ok_or_else(refuse)?;
        let groups: Vec<&str> = rest.split('-').collect();
        let digits: usize = groups.iter().map(|g| g.len()).sum();
        let well_formed = groups.len() >= 2
            && groups
                .iter()
                .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()))
            && groups[0].len() <= 3
            && !groups[0].starts_with('0')
            && (7..=15).contains(&digits);
        if well_formed {
            Ok(Self(trimmed.to_owned()))
        } else {
            Err(refuse())
        }
    }

    /// Converts a number as printed in the Basel Secretariat's fact sheets,
    /// where the calling code stands in brackets (`(81-3) 5501-3157`), into the
    /// house format (`+81-3-5501-3157`). Only the first number is taken; the
    /// digits are never changed, only regrouped by the source's own separators.
    /// Returns `None` when the text has no bracketed calling code.
    pub fn from_fact_sheet(printed: &str) -> Option<Self> {
        let first = printed.split([',', ';', '/']).next()?.trim();
        let open = first.strip_prefix('(')?;
        let (prefix, rest) = open.split_once(')')?;
        let groups: Vec<&str> = prefix
            .split(['-', ' '])
            .chain(rest.split(|c: char| c == '-' || c.is_whitespace()))
            .filter(|g| !g.is_empty())
            .collect();
        Self::parse(&format!("+{}", groups.join("-"))).ok()
    }

    /// The number as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Phone {
    type Error = ValueError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Phone> for String {
    fn from(value: Phone) -> Self {
        value.0
    }
}

impl fmt::Display for Phone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn international_numbers_with_hyphens_are_accepted() {
        for good in ["+41-22-917-8218", "+1-613-555-0100", "+65-6731-9654"] {
            assert!(Phone::parse(good).is_ok(), "{good:?} was refused");
        }
    }

    #[test]
    fn other_notations_are_refused() {
        for bad in [
            "",
            "0041 22 917 82 18",
            "+41 22 917 8218",
            "+4122917821",
            "+41--22-917",
            "(41) 22-917",
            "+41-22-917-8218-99999999",
            "+0-22-917-8218",
        ] {
            assert!(Phone::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn fact_sheet_numbers_are_regrouped_without_changing_digits() {
        let cases = [
            ("(81-3) 5501-3157", "+81-3-5501-3157"),
            ("(65) 67 31 96 54", "+65-67-31-96-54"),
            ("(60-3) 8885-8200", "+60-3-8885-8200"),
        ];
        for (printed, expected) in cases {
            assert_eq!(
                Phone::from_fact_sheet(printed).map(String::from),
                Some(expected.to_owned())
            );
        }
        assert_eq!(Phone::from_fact_sheet("5501-3157"), None);
    }
}
