//! A new contact as a steward writes it, over REST (`POST
//! /api/v1/ca/{cc}/contacts`) and in the console's contact form: one body
//! type, read with every field problem listed, turned into the domain's
//! [`NewContact`].

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use domain::authority::{Channels, ContactInput, NewContact, Role};

use crate::body::{one_of_or_null, read, Body, Day};
use crate::error::ApiError;
use crate::schemas::Schemas;

/// `POST /api/v1/ca/{cc}/contacts`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContactBody {
    /// An id of your choice (`[a-z0-9-]`, ≤ 40); the next `cN` when absent.
    pub contact_id: Option<String>,
    /// `competent_authority` (default) or `focal_point` (at most one).
    #[schema(schema_with = one_of_or_null::<Role>)]
    pub role: Option<Role>,
    /// The institution's name.
    pub name: String,
    /// The person to address.
    pub contact_person: Option<String>,
    /// E-mail.
    pub email: Option<String>,
    /// Phone, `+CC-…` with hyphens.
    #[schema(
        max_length = 40,
        pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$"
    )]
    pub phone: Option<String>,
    /// Fax, `+CC-…` with hyphens.
    #[schema(
        max_length = 40,
        pattern = r"^\s*$|^\s*\+(?:[17]-[0-9](?:-?[0-9]){5,13}|(?:2[07]|3[0-469]|4[013-9]|5[1-8]|6[0-6]|8[1246]|9[0-58])-[0-9](?:-?[0-9]){4,12}|(?:2[1-689][0-9]|3[578][0-9]|42[0-9]|5[09][0-9]|6[7-9][0-9]|8[035789][0-9]|9[679][0-9])-[0-9](?:-?[0-9]){3,11})\s*$"
    )]
    pub fax: Option<String>,
    /// `http://` or `https://` address.
    pub website: Option<String>,
    /// Postal address.
    pub address: Option<String>,
    /// What it covers.
    pub scope: Option<ScopeBody>,
    /// Notes on where the details come from.
    pub source_notes: Option<String>,
    /// What the details rely on (a URL, a letter…).
    pub source: Option<String>,
    /// Whether they are verified (needs name, e-mail, phone, `last_checked`).
    pub verified: Option<bool>,
    /// When they were last checked, `YYYY-MM-DD`.
    #[schema(value_type = Option<String>, format = Date)]
    pub last_checked: Option<Day>,
    /// Make it the primary competent authority.
    pub primary: Option<bool>,
}

impl Body for ContactBody {}

/// What a contact covers.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopeBody {
    /// The geographical area (a Land, a province…).
    pub area: Option<String>,
    /// The wastes it handles, in words.
    pub wastes: Option<String>,
    /// `import`, `export`, `transit` (all when absent).
    pub movements: Option<Vec<String>>,
}

impl From<ContactBody> for NewContact {
    fn from(body: ContactBody) -> Self {
        let scope = body.scope;
        let (area, wastes, movements) = match scope {
            Some(scope) => (
                scope.area,
                scope.wastes,
                scope.movements.map(|m| m.join(",")),
            ),
            None => (None, None, None),
        };
        Self {
            id: body.contact_id,
            role: body.role,
            details: ContactInput {
                ca_name: Some(body.name),
                channels: Channels {
                    contact_person: body.contact_person,
                    email: body.email,
                    phone: body.phone,
                    fax: body.fax,
                    website: body.website,
                    address: body.address,
                },
                notes: body.source_notes,
                area,
                wastes,
                movements,
            },
            source: body.source,
            verified: body.verified.unwrap_or(false),
            last_checked: body.last_checked.map(|day| day.0),
            primary: body.primary.unwrap_or(false),
            ..Self::default()
        }
    }
}

/// The body of `POST …/contacts` (also what the console's contact form
/// becomes), read into the domain's new contact.
///
/// # Errors
/// 422 listing every field problem.
pub fn parse_add(schemas: &Schemas, body: &Value) -> Result<NewContact, ApiError> {
    read::<ContactBody>(schemas, body.clone()).map(NewContact::from)
}
