use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// A steward id: lower-case ASCII letters and digits joined by single hyphens,
/// 1 to 64 characters.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Slug(String);

impl Slug {
    /// Parses an id that is already a slug.
    ///
    /// # Errors
    /// [`ValueError::Slug`] when it has other characters, leading, trailing or
    /// doubled hyphens, or is empty or longer than 64.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let ok = !input.is_empty()
            && input.len() <= 64
            && input.split('-').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if ok {
            Ok(Self(input.to_owned()))
        } else {
            Err(ValueError::Slug(input.to_owned()))
        }
    }

    /// Makes a slug from a person's name: transliterated to ASCII
    /// (`López` → `lopez`, `Ærø` → `aero`, `李` → `li`), letters and digits
    /// kept and lower-cased, every other run of characters becomes one hyphen.
    ///
    /// # Errors
    /// [`ValueError::Slug`] when nothing usable is left (e.g. a name with no
    /// ASCII letters or digits).
    pub fn from_name(name: &str) -> Result<Self, ValueError> {
        let mut slug = String::new();
        for c in deunicode::deunicode(name).chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.is_empty() && !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug = slug.trim_end_matches('-');
        let cut: String = slug.chars().take(64).collect();
        Self::parse(cut.trim_end_matches('-')).map_err(|_| ValueError::Slug(name.to_owned()))
    }

    /// The id.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Slug {
    type Error = ValueError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Slug> for String {
    fn from(value: Slug) -> Self {
        value.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_slugs() {
        assert_eq!(
            Slug::from_name("Ana  López-Ruiz").map(String::from),
            Ok("ana-lopez-ruiz".into())
        );
        assert_eq!(
            Slug::from_name("Ana López").map(String::from),
            Ok("ana-lopez".into())
        );
        assert_eq!(
            Slug::from_name("Søren Ærø").map(String::from),
            Ok("soren-aero".into())
        );
        assert_eq!(Slug::from_name("李").map(String::from), Ok("li".into()));
        assert_eq!(
            Slug::from_name("  Jo Bloggs 2 ").map(String::from),
            Ok("jo-bloggs-2".into())
        );
    }

    #[test]
    fn names_without_letters_or_digits_are_refused() {
        assert!(Slug::from_name("!!! ---").is_err());
        assert!(Slug::parse("Bad Slug").is_err());
        assert!(Slug::parse("-a").is_err());
    }
}
