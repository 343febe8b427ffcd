//! An e-mail address of a person, as an event stores it.
//!
//! Events are kept forever, people's addresses must be erasable: so an event
//! holds a person's address only sealed (encrypted) under a key of that
//! person's own, kept outside the log. Destroying the key erases the address
//! from every event and every copy of the log at once (crypto-shredding).
//! Sealing and opening happen in `commands::identity` (the domain draws no
//! random nonce and holds no key); here is only the stored shape.

use serde::{Deserialize, Serialize};

use super::Email;

/// An address sealed under a subject key: `key` names the key (a random id,
/// not derived from the address), `sealed` is hex of nonce and ciphertext.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SealedAddress {
    /// The id of the subject key that sealed it.
    pub key: String,
    /// Hex of the 24-byte nonce followed by the ciphertext and its tag.
    pub sealed: String,
}

/// An address field of an event: sealed (every event written since
/// addresses are sealed, `event_version` 2), or plaintext in an event written
/// before (`event_version` 1). Both decode; the plaintext form is upcast by
/// sealing it in place (`commands::identity`), so it does not outlive the
/// first start of a version that seals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StoredAddress {
    /// Encrypted under the subject's key.
    Sealed(SealedAddress),
    /// Plaintext, from an event written before sealing.
    Plain(Email),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_stored_shapes_decode() {
        let plain: StoredAddress =
            serde_json::from_str("\"ana@example.org\"").expect("a legacy address");
        assert!(matches!(plain, StoredAddress::Plain(e) if e.as_str() == "ana@example.org"));
        let sealed: StoredAddress =
            serde_json::from_str(r#"{"key":"k1","sealed":"00ff"}"#).expect("a sealed address");
        assert_eq!(
            sealed,
            StoredAddress::Sealed(SealedAddress {
                key: "k1".into(),
                sealed: "00ff".into()
            })
        );
        assert!(serde_json::from_str::<StoredAddress>(r#"{"key":"k1"}"#).is_err());
    }
}
