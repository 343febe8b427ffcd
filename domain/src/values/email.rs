use serde::{Deserialize, Serialize};
use std::fmt;

use super::ValueError;

/// An e-mail address, trimmed. The domain part is lower-cased; the local part
/// keeps its case as given (it is the owner's), but [`Email::normalized`]
/// gives the fully lower-cased form used to recognise the same address again.
///
/// New input goes through [`Email::parse`] (strict). A value read back from a
/// stored event goes through the rules that were in force when it was
/// written ([`Email::parse_stored`]), so an address accepted once stays
/// readable forever.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

/// Characters that render as nothing or reorder text: an address holding one
/// looks like another address (zero-width spaces and joiners, bidi controls,
/// the soft hyphen, the byte-order mark, invisible operators).
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Characters that mean something in HTML, scripts or headers, and that no
/// address a person types needs.
fn is_markup(c: char) -> bool {
    matches!(
        c,
        '<' | '>' | '"' | '\'' | '`' | '&' | '\\' | '(' | ')' | '[' | ']' | ',' | ';' | ':'
    )
}

impl Email {
    /// Parses an address a person typed, strictly: one `@`; a local part of
    /// letters, digits and `.!#$%*+-/=?^_{|}~` (no leading, trailing or
    /// doubled dot, at most 64 bytes); a dotted domain of letters, digits and
    /// hyphens (no label starting or ending with a hyphen); at most 254
    /// bytes; no white space, control, invisible (zero-width, bidi) or markup
    /// character anywhere.
    ///
    /// # Errors
    /// [`ValueError::Email`] with one sentence saying which rule was broken.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let trimmed = input.trim();
        let refuse = |reason: &str| Err(ValueError::Email(reason.to_owned()));
        if trimmed.is_empty() {
            return refuse("the e-mail address is empty");
        }
        if trimmed.len() > 254 {
            return refuse("the e-mail address is longer than 254 characters");
        }
        if let Some(c) = trimmed.chars().find(|c| c.is_control() || is_invisible(*c)) {
            return Err(ValueError::Email(format!(
                "the e-mail address contains an invisible or control character (U+{:04X}); type it again instead of pasting it",
                u32::from(c)
            )));
        }
        if trimmed.chars().any(char::is_whitespace) {
            return refuse("the e-mail address contains a space");
        }
        if let Some(c) = trimmed.chars().find(|c| is_markup(*c)) {
            return Err(ValueError::Email(format!(
                "the e-mail address contains the character {c}, which an address cannot hold"
            )));
        }
        let Some((local, domain)) = trimmed.split_once('@') else {
            return refuse("the e-mail address needs an @ between the name and the domain");
        };
        if domain.contains('@') {
            return refuse("the e-mail address has more than one @");
        }
        if !local_ok(local) {
            return refuse("the part before the @ must be 1 to 64 letters, digits or .!#$%*+-/=?^_{|}~, without a dot at either end or two dots in a row");
        }
        if !domain_ok(domain) {
            return refuse("the part after the @ must be a domain such as example.org");
        }
        Ok(Self(format!("{local}@{}", domain.to_lowercase())))
    }

    /// Reads an address back from storage with the rules in force before
    /// [`Email::parse`] became strict: one `@`, a non-empty local part, a
    /// dotted domain, no white space or control character, at most 254
    /// characters. Never use it for input.
    ///
    /// # Errors
    /// [`ValueError::Email`] when even those rules are broken.
    pub fn parse_stored(input: &str) -> Result<Self, ValueError> {
        let trimmed = input.trim();
        let refuse = || ValueError::Email("the stored e-mail address is not valid".to_owned());
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

fn local_ok(local: &str) -> bool {
    !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| c.is_alphanumeric() || ".!#$%*+-/=?^_{|}~".contains(c))
}

fn domain_ok(domain: &str) -> bool {
    domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

impl TryFrom<String> for Email {
    type Error = ValueError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse_stored(&value)
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
            ".a@b.org",
            "a.@b.org",
            "a..b@b.org",
            "a@-b.org",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn invisible_control_bidi_and_markup_characters_are_refused() {
        for bad in [
            "an\u{200B}a@example.org",
            "ana@exam\u{200D}ple.org",
            "\u{FEFF}ana@example.org",
            "ana\u{202E}gro.elpmaxe@x.org",
            "ana\u{2066}@example.org",
            "ana\u{00AD}@example.org",
            "an\u{0007}a@example.org",
            "<script>@example.org",
            "ana\"@example.org",
            "a'b@example.org",
            "a&b@example.org",
            "a`b@example.org",
            "a(b)@example.org",
        ] {
            let error = Email::parse(bad).expect_err(bad);
            let message = error.to_string();
            assert!(!message.contains(bad.trim()), "{message} echoes the input");
            assert_eq!(message.matches(". ").count(), 0, "one sentence: {message}");
        }
    }

    #[test]
    fn ordinary_and_international_addresses_are_accepted() {
        for good in [
            "ana@example.org",
            "ana.lopez+basel@mail.example.co.uk",
            "o_brien-2@x-y.example",
            "josé@correo.example.es",
        ] {
            assert!(Email::parse(good).is_ok(), "{good:?} was refused");
        }
    }

    #[test]
    fn stored_addresses_keep_the_rules_they_were_written_under() {
        let old = "\"a'b@example.org\"";
        let email: Email = serde_json::from_str(old).expect("a stored address still reads");
        assert_eq!(email.as_str(), "a'b@example.org");
    }
}
