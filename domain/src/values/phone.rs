use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// The two-digit country calling codes of ITU-T E.164 (zones 2 to 9; every
/// other code is one digit, 1 or 7, or three digits).
const TWO_DIGIT_CODES: [&str; 44] = [
    "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47",
    "48", "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65",
    "66", "81", "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
];

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

    /// Parses a number a person or a file gives: the house format, with a
    /// country calling code that ITU-T E.164 assigns.
    ///
    /// # Errors
    /// [`ValueError::Phone`] as [`Phone::parse`];
    /// [`ValueError::CallingCode`] when the first group cannot be a calling code.
    pub fn parse_input(input: &str) -> Result<Self, ValueError> {
        let phone = Self::parse(input)?;
        if phone.has_assigned_calling_code() {
            Ok(phone)
        } else {
            Err(ValueError::CallingCode(phone.0))
        }
    }

    /// Whether the first group can be an E.164 country calling code.
    /// Calling codes are a prefix code: no code begins with another. So a
    /// first group that extends an assigned shorter code (`+861-0-…`, where
    /// `86` is China's; `+12-…`, where `1` is North America's) is a misprint,
    /// not a number. Checked against the one-digit codes (1, 7) and the
    /// complete list of two-digit codes; any other three-digit group passes.
    pub fn has_assigned_calling_code(&self) -> bool {
        let code = self.0[1..].split('-').next().unwrap_or_default();
        let zone_one_or_seven = code.starts_with(['1', '7']);
        match code.len() {
            1 => zone_one_or_seven,
            2 => TWO_DIGIT_CODES.contains(&code),
            _ => !zone_one_or_seven && !TWO_DIGIT_CODES.contains(&&code[..2]),
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
        Self::parse(&format!("+{}", groups.join("-")))
            .ok()
            .filter(Self::has_assigned_calling_code)
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
    fn a_first_group_that_extends_an_assigned_code_is_no_calling_code() {
        for good in [
            "+1-613-555-0100",
            "+7-495-123-4567",
            "+86-10-6615-4547",
            "+234-9-123-4567",
            "+679-331-2345",
        ] {
            assert!(Phone::parse_input(good).is_ok(), "{good:?} was refused");
        }
        for bad in [
            "+861-0-66-55-62-56",
            "+12-613-555-0100",
            "+4-22-917-8218",
            "+21-555-1234",
            "+491-30-1234567",
        ] {
            assert!(Phone::parse(bad).is_ok(), "{bad:?} has the house shape");
            assert!(
                matches!(Phone::parse_input(bad), Err(ValueError::CallingCode(_))),
                "{bad:?} was accepted"
            );
        }
    }

    #[test]
    fn a_misprinted_fact_sheet_number_is_not_converted() {
        assert_eq!(
            Phone::from_fact_sheet("(861 0) 66 55 62 56/65 18/62 57"),
            None
        );
        assert_eq!(
            Phone::from_fact_sheet("(86-10) 6615-4547")
                .map(String::from)
                .as_deref(),
            Some("+86-10-6615-4547")
        );
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
