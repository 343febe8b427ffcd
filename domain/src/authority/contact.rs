//! A competent authority's contact details and the rules for each field.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

use crate::values::{Email, Phone};

/// Field corrections: a field mapped to its new text, or to `None` to clear it.
/// Fields not named keep their value.
pub type ContactPatch = BTreeMap<ContactField, Option<String>>;

/// One field's old and new value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    /// Which field.
    pub field: ContactField,
    /// Its value before.
    pub old: Option<String>,
    /// Its value after.
    pub new: Option<String>,
}

/// The contact details of a competent authority, checked and typed (the
/// text form, the shape edges read and write, is
/// [`ContactInput`](super::ContactInput)). Every field may be unknown
/// (`None`): the directory never invents contact data. Events store this
/// type: its fields and their order stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contact {
    /// The authority's name.
    pub ca_name: Option<String>,
    /// Its e-mail address.
    pub email: Option<Email>,
    /// Its phone number in international format.
    pub phone: Option<Phone>,
    /// Its postal address.
    pub address: Option<String>,
    /// Notes on where the details came from (source notes; a steward's
    /// notes are kept apart, in the contact's provenance).
    pub notes: Option<String>,
    /// The person to address, when the source names one.
    #[serde(default)]
    pub contact_person: Option<String>,
    /// Its fax number in international format.
    #[serde(default)]
    pub fax: Option<Phone>,
    /// Its website (`http://` or `https://`).
    #[serde(default)]
    pub website: Option<String>,
    /// Scope: the geographical area it is competent for (a Land, a province…).
    #[serde(default)]
    pub area: Option<String>,
    /// Scope: the wastes it handles, in words.
    #[serde(default)]
    pub wastes: Option<String>,
    /// Scope: the movements it handles, a sorted comma list of `export`,
    /// `import`, `transit`; `None` for all.
    #[serde(default)]
    pub movements: Option<String>,
}

/// One field of [`Contact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactField {
    /// `ca_name`
    CaName,
    /// `email`
    Email,
    /// `phone`
    Phone,
    /// `address`
    Address,
    /// `notes`
    Notes,
    /// `contact_person`
    ContactPerson,
    /// `fax`
    Fax,
    /// `website`
    Website,
    /// `area` (scope)
    Area,
    /// `wastes` (scope)
    Wastes,
    /// `movements` (scope)
    Movements,
}

impl ContactField {
    /// Every field, in display order.
    pub const ALL: [Self; 11] = [
        Self::CaName,
        Self::Email,
        Self::Phone,
        Self::Address,
        Self::Notes,
        Self::ContactPerson,
        Self::Fax,
        Self::Website,
        Self::Area,
        Self::Wastes,
        Self::Movements,
    ];

    /// The channels a defunct check retires.
    pub const CHANNELS: [Self; 5] = [
        Self::Email,
        Self::Phone,
        Self::Fax,
        Self::Website,
        Self::Address,
    ];

    /// Parses a client-facing name (`name` is accepted for `ca_name`).
    pub fn parse(text: &str) -> Option<Self> {
        if text == "name" {
            return Some(Self::CaName);
        }
        Self::ALL.into_iter().find(|f| f.name() == text)
    }

    /// The field's name as clients see it.
    pub fn name(self) -> &'static str {
        match self {
            Self::CaName => "ca_name",
            Self::Email => "email",
            Self::Phone => "phone",
            Self::Address => "address",
            Self::Notes => "notes",
            Self::ContactPerson => "contact_person",
            Self::Fax => "fax",
            Self::Website => "website",
            Self::Area => "area",
            Self::Wastes => "wastes",
            Self::Movements => "movements",
        }
    }

    /// The longest text the field takes, in characters.
    fn max_chars(self) -> usize {
        match self {
            Self::CaName => 300,
            Self::Email => 254,
            Self::Phone => 40,
            Self::Address => 1000,
            Self::Notes => 4000,
            Self::ContactPerson => 300,
            Self::Fax => 40,
            Self::Website => 500,
            Self::Area => 300,
            Self::Wastes => 1000,
            Self::Movements => 40,
        }
    }

    /// Fields that must be filled before a record may be marked verified.
    pub const REQUIRED_FOR_VERIFIED: [Self; 3] = [Self::CaName, Self::Email, Self::Phone];
}

impl fmt::Display for ContactField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field that broke a rule, with the rule in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FieldProblem {
    /// The field's client-facing name, e.g. `phone` or `checked_on`.
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl FieldProblem {
    /// A problem with `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl Contact {
    /// The stored text of one field.
    pub fn get(&self, field: ContactField) -> Option<String> {
        match field {
            ContactField::CaName => self.ca_name.clone(),
            ContactField::Email => self.email.as_ref().map(|e| e.as_str().to_owned()),
            ContactField::Phone => self.phone.as_ref().map(|p| p.as_str().to_owned()),
            ContactField::Address => self.address.clone(),
            ContactField::Notes => self.notes.clone(),
            ContactField::ContactPerson => self.contact_person.clone(),
            ContactField::Fax => self.fax.as_ref().map(|p| p.as_str().to_owned()),
            ContactField::Website => self.website.clone(),
            ContactField::Area => self.area.clone(),
            ContactField::Wastes => self.wastes.clone(),
            ContactField::Movements => self.movements.clone(),
        }
    }

    /// Sets one field from text that [`parse_field`] has already accepted.
    /// Text that does not parse leaves the field empty; `apply` cannot fail.
    pub fn set(&mut self, field: ContactField, value: Option<String>) {
        match field {
            ContactField::CaName => self.ca_name = value,
            ContactField::Email => self.email = value.and_then(|v| Email::parse(&v).ok()),
            ContactField::Phone => self.phone = value.and_then(|v| Phone::parse(&v).ok()),
            ContactField::Address => self.address = value,
            ContactField::Notes => self.notes = value,
            ContactField::ContactPerson => self.contact_person = value,
            ContactField::Fax => self.fax = value.and_then(|v| Phone::parse(&v).ok()),
            ContactField::Website => self.website = value,
            ContactField::Area => self.area = value,
            ContactField::Wastes => self.wastes = value,
            ContactField::Movements => self.movements = value,
        }
    }

    /// The required fields that are empty.
    pub fn missing_for_verified(&self) -> Vec<ContactField> {
        ContactField::REQUIRED_FOR_VERIFIED
            .into_iter()
            .filter(|f| self.get(*f).is_none())
            .collect()
    }
}

/// Checks one field's text and returns it in stored form: trimmed, empty text
/// meaning unknown, e-mail and phone normalised by their value types.
///
/// # Errors
/// A [`FieldProblem`] naming the field when the text breaks its rule.
pub fn parse_field(field: ContactField, raw: Option<&str>) -> Result<Option<String>, FieldProblem> {
    let problem = |message: String| FieldProblem::new(field.name(), message);
    // The limit counts the text as sent (what the OpenAPI `maxLength`
    // states), surrounding white space included.
    if raw.is_some_and(|raw| raw.chars().count() > field.max_chars()) {
        return Err(problem(format!(
            "must be at most {} characters",
            field.max_chars()
        )));
    }
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let multiline = matches!(field, ContactField::Address | ContactField::Notes);
    if text
        .chars()
        .any(|c| c.is_control() && !(multiline && c == '\n'))
    {
        return Err(problem("must not contain control characters".into()));
    }
    match field {
        ContactField::Email => Email::parse(text)
            .map(|e| Some(e.into()))
            .map_err(|e| problem(e.to_string())),
        ContactField::Phone | ContactField::Fax => Phone::parse_input(text)
            .map(|p| Some(p.into()))
            .map_err(|e| problem(e.to_string())),
        ContactField::Website => {
            if (text.starts_with("https://") || text.starts_with("http://"))
                && !text.contains(char::is_whitespace)
            {
                Ok(Some(text.to_owned()))
            } else {
                Err(problem("must be an http:// or https:// address".into()))
            }
        }
        ContactField::Movements => parse_movements(text).map(Some).map_err(problem),
        _ => Ok(Some(text.to_owned())),
    }
}

/// `import`, `export`, `transit` in any order, separated by commas or
/// spaces, as a sorted comma list without repeats.
fn parse_movements(text: &str) -> Result<String, String> {
    let mut found = Vec::new();
    for part in text.split([',', ' ']).filter(|p| !p.is_empty()) {
        match part {
            "import" | "export" | "transit" => found.push(part),
            other => {
                return Err(format!(
                    "`{other}` is not a movement: use import, export or transit"
                ))
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    if found.is_empty() {
        return Err("name at least one of import, export, transit".into());
    }
    Ok(found.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_counts_the_text_as_sent_surrounding_white_space_included() {
        let padded = format!("{}+41-22-9178218", " ".repeat(30));
        assert!(parse_field(ContactField::Phone, Some(&padded)).is_err());
        let short = "  +41-22-9178218 ";
        assert_eq!(
            parse_field(ContactField::Phone, Some(short)).ok().flatten(),
            Some("+41-22-9178218".to_owned())
        );
    }
}
