use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// An e-mail address, trimmed. The domain part is lower-cased; the local part
/// keeps its case as given (it is the owner's), but [`Email::normalized`]
/// gives the fully lower-cased form used to recognise the same address again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

impl Email {
    /// Parses an address: one `@`, a non-empty local part, a dotted domain, no
    /// white space, at most 254 characters.
    ///
    /// # Errors
    /// [`ValueError::Email`] when the address breaks one of those rules.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let trimmed = input.trim();
        let refuse = || ValueError::Email(input.to_owned());
        if trimmed.len() > 254 || trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(refuse());
        }
        let (local, domain) = trimmed.split_once('@').ok_or_else(refuse)?;
        let domain_ok = domain.contains('.')
            && !domain.contains('@')
            && domain.split('.').all(|label| {
                !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '-')
            });
        if local.is_empty() || local.len() > 64 || !domain_ok {
            return Err(refuse());
        }
        Ok(Self(format!("{local}@{}", domain.to_lowercase())))
    }

    /// The address as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The address lower-cased: two registrations that differ only in case or
    /// surrounding spaces are the same registrant.
    pub fn normalized(&self) -> String {
        self.0.to_lowercase()
    }
}

impl TryFrom<String> for Email {
    type Error = ValueError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Email> for String {
    fn from(value: Email) -> Self {
        value.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_trimmed_and_normalised_for_comparison() {
        let email = Email::parse("  Ana.Lopez@Example.ORG ").expect("valid");
        assert_eq!(email.as_str(), "Ana.Lopez@example.org");
        assert_eq!(email.normalized(), "ana.lopez@example.org");
    }

    #[test]
    fn malformed_addresses_are_refused() {
        for bad in [
            "",
            "plain",
            "@example.org",
            "a@",
            "a@b",
            "a b@example.org",
            "a@exa mple.org",
            "a@@b.org",
            "a@b..org",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
