//! One contact shape: a contact's details as text, the form every edge
//! reads and writes them in.
//!
//! [`ContactInput`] is the shape: the name, the [`Channels`] (the person to
//! address and the ways to reach them), the scope and the source notes, in
//! the order the transfer files list them. The views (`ContactView` embeds
//! the channels) and the transfer records (`ContactRecord` embeds the
//! whole input) hold it with `#[serde(flatten)]`, so their JSON is flat as
//! before; the seed, the data release, imports and the REST bodies build
//! it. [`super::Contact`] is the same details checked and typed, as events
//! store them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::contact::{parse_field, Contact, ContactField, FieldProblem};

/// The person to address and the ways to reach a contact, as text, in the
/// order clients see them (`contact_person`, `email`, `phone`, `fax`,
/// `website`, `address`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Channels {
    /// The person to address.
    pub contact_person: Option<String>,
    /// E-mail.
    pub email: Option<String>,
    /// Phone (`+CC-…`).
    pub phone: Option<String>,
    /// Fax (`+CC-…`).
    pub fax: Option<String>,
    /// Website.
    pub website: Option<String>,
    /// Postal address.
    pub address: Option<String>,
}

impl Channels {
    /// The channels of stored details, as text.
    pub fn of(contact: &Contact) -> Self {
        ContactInput::of(contact).channels
    }
}

/// Contact details as text, before validation (what a form, a JSON body or
/// an import row carries, and what an export writes), in the order the
/// transfer files list them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContactInput {
    /// `ca_name`
    pub ca_name: Option<String>,
    /// `contact_person`, `email`, `phone`, `fax`, `website`, `address`
    #[serde(flatten)]
    pub channels: Channels,
    /// `area`
    pub area: Option<String>,
    /// `wastes`
    pub wastes: Option<String>,
    /// `movements`
    pub movements: Option<String>,
    /// `notes`
    pub notes: Option<String>,
}

impl ContactInput {
    /// Every field, in the order of the shape (and of the transfer files'
    /// columns).
    pub const FIELDS: [ContactField; 11] = [
        ContactField::CaName,
        ContactField::ContactPerson,
        ContactField::Email,
        ContactField::Phone,
        ContactField::Fax,
        ContactField::Website,
        ContactField::Address,
        ContactField::Area,
        ContactField::Wastes,
        ContactField::Movements,
        ContactField::Notes,
    ];

    /// The stored details as text.
    pub fn of(contact: &Contact) -> Self {
        let mut input = Self::default();
        for field in Self::FIELDS {
            input.set(field, contact.get(field));
        }
        input
    }

    fn slot(&mut self, field: ContactField) -> &mut Option<String> {
        let channels = &mut self.channels;
        match field {
            ContactField::CaName => &mut self.ca_name,
            ContactField::ContactPerson => &mut channels.contact_person,
            ContactField::Email => &mut channels.email,
            ContactField::Phone => &mut channels.phone,
            ContactField::Fax => &mut channels.fax,
            ContactField::Website => &mut channels.website,
            ContactField::Address => &mut channels.address,
            ContactField::Area => &mut self.area,
            ContactField::Wastes => &mut self.wastes,
            ContactField::Movements => &mut self.movements,
            ContactField::Notes => &mut self.notes,
        }
    }

    /// Sets one field's raw text.
    pub fn set(&mut self, field: ContactField, value: Option<String>) {
        *self.slot(field) = value;
    }

    /// One field's raw text.
    pub fn get(&self, field: ContactField) -> Option<&str> {
        let channels = &self.channels;
        match field {
            ContactField::CaName => self.ca_name.as_deref(),
            ContactField::ContactPerson => channels.contact_person.as_deref(),
            ContactField::Email => channels.email.as_deref(),
            ContactField::Phone => channels.phone.as_deref(),
            ContactField::Fax => channels.fax.as_deref(),
            ContactField::Website => channels.website.as_deref(),
            ContactField::Address => channels.address.as_deref(),
            ContactField::Area => self.area.as_deref(),
            ContactField::Wastes => self.wastes.as_deref(),
            ContactField::Movements => self.movements.as_deref(),
            ContactField::Notes => self.notes.as_deref(),
        }
    }

    /// Validates every field, collecting every problem rather than the first.
    ///
    /// # Errors
    /// The list of problems when any field is invalid.
    pub fn validate(&self) -> Result<Contact, Vec<FieldProblem>> {
        let mut contact = Contact::default();
        let mut problems = Vec::new();
        for field in ContactField::ALL {
            match parse_field(field, self.get(field)) {
                Ok(value) => contact.set(field, value),
                Err(problem) => problems.push(problem),
            }
        }
        if problems.is_empty() {
            Ok(contact)
        } else {
            Err(problems)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_holds_every_field_once_and_reads_back_what_is_set() {
        let mut all = ContactInput::FIELDS.to_vec();
        all.sort();
        let mut expected = ContactField::ALL.to_vec();
        expected.sort();
        assert_eq!(all, expected);
        let mut input = ContactInput::default();
        for field in ContactField::ALL {
            input.set(field, Some(field.name().to_owned()));
        }
        for field in ContactField::ALL {
            assert_eq!(input.get(field), Some(field.name()));
        }
    }

    #[test]
    fn the_text_form_serialises_flat_in_transfer_order() {
        let mut input = ContactInput::default();
        for field in ContactField::ALL {
            input.set(field, Some(String::new()));
        }
        let text = serde_json::to_string(&input).unwrap_or_default();
        let keys: Vec<&str> = ContactInput::FIELDS.iter().map(|f| f.name()).collect();
        let expected = format!(
            "{{{}}}",
            keys.iter()
                .map(|k| format!("\"{k}\":\"\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert_eq!(text, expected);
        let back: ContactInput = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, input);
    }
}
