//! Validated value types. Each one can only be built through its parser, so a
//! value that exists is a value that passed the rules.

mod address;
mod country;
mod email;
mod phone;
mod slug;

pub use address::{SealedAddress, StoredAddress};
pub use country::CountryCode;
pub use email::Email;
pub use phone::Phone;
pub use slug::Slug;

/// Why a value was refused: which rule it broke, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Not two ASCII letters.
    #[error("country code must be two letters (ISO 3166-1 alpha-2), got {0:?}")]
    CountryCode(String),
    /// Not a usable e-mail address; the text is one sentence (without a
    /// final full stop) saying which rule was broken, never the input itself.
    #[error("{0}")]
    Email(String),
    /// Not an international phone number with hyphens.
    #[error("phone must be in international format with hyphens, like +41-22-917-8218, got {0:?}")]
    Phone(String),
    /// A phone number whose first group is no country calling code.
    #[error("phone must start with a country calling code, and {0:?} does not (is a bracket or space misplaced?)")]
    CallingCode(String),
    /// Not a lower-case slug.
    #[error("id must be lower-case letters, digits and single hyphens, got {0:?}")]
    Slug(String),
}
