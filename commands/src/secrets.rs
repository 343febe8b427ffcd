//! Tokens, keys and their hashes. Plaintext secrets exist only in memory on
//! their way to the person they belong to; what is stored is a SHA-256 hash.

use hmac::{Hmac, Mac};
use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

/// The server secret under which API keys are derived. Losing it changes
/// every key; leaking it lets anyone derive keys.
#[derive(Clone)]
pub struct ServerSecret(SecretString);

impl ServerSecret {
    /// Wraps secret text (at least 32 characters, checked by the caller's settings).
    pub fn new(secret: SecretString) -> Self {
        Self(secret)
    }

    /// A fresh random secret (64 hex characters), for a new embedded data dir.
    pub fn generate() -> SecretString {
        SecretString::from(random_hex(32))
    }

    fn mac(&self, purpose: &str, message: &str) -> String {
        hex::encode(self.mac_bytes(purpose, message))
    }

    fn mac_bytes(&self, purpose: &str, message: &str) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(self.0.expose_secret().as_bytes())
            .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
        mac.update(purpose.as_bytes());
        mac.update(b"\0");
        mac.update(message.as_bytes());
        mac.finalize().into_bytes().into()
    }

    /// A 256-bit key derived from the secret for one purpose (never stored):
    /// `commands::identity` wraps the per-person data keys under one.
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        self.mac_bytes("basel derived key v1", purpose)
    }

    /// The verifier a store records of its secret (`store::SecretCheck`):
    /// an HMAC of a constant, from which the secret cannot be recovered.
    pub fn verifier(&self) -> String {
        self.mac("basel secret verifier v1", "")
    }

    /// The subject id of a normalised address: the keyed digest that finds
    /// a person's keys in `subject_keys` without revealing the address.
    pub fn subject_id(&self, normalized_email: &str) -> String {
        self.mac("basel subject v1", normalized_email)
    }

    /// The `ApiKey` aggregate id of a normalised address: keyed, so the id
    /// cannot be reversed by hashing guessed addresses.
    pub fn api_key_id(&self, normalized_email: &str) -> String {
        self.mac("basel api key id v1", normalized_email)
    }

    /// The API key of an address for one generation: the same inputs always
    /// give the same key, so re-registration can return it without storing it.
    pub fn api_key(&self, normalized_email: &str, generation: u32) -> SecretString {
        let mac = self.mac(
            "basel api key v1",
            &format!("{normalized_email}\0{generation}"),
        );
        SecretString::from(format!("bsl_{}", &mac[..48]))
    }

    /// The tag that proves an unsubscribe link was made by this server for
    /// the key aggregate `key_id` (so the link carries no address, and no one
    /// can unsubscribe someone else by guessing).
    pub fn unsubscribe_tag(&self, key_id: &str) -> String {
        self.mac("basel unsubscribe v1", key_id)[..32].to_owned()
    }
}

pub use domain::credentials::hash_secret;

/// The first characters of a key, safe to show in support conversations.
pub fn key_prefix(key: &str) -> String {
    key.chars().take(8).collect()
}

/// A new steward bearer token (`bst_` and 64 hex characters).
pub fn new_steward_token() -> SecretString {
    SecretString::from(format!("bst_{}", random_hex(32)))
}

/// A new random secret of the steward console (a session id or a form's
/// CSRF token: 256 bits, 64 hex characters); only its hash is stored.
pub fn new_console_secret() -> SecretString {
    SecretString::from(random_hex(32))
}

fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut buffer);
    hex::encode(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> ServerSecret {
        ServerSecret::new(SecretString::from("0123456789abcdef0123456789abcdef"))
    }

    #[test]
    fn the_same_address_and_generation_give_the_same_key() {
        let a = secret().api_key("ana@example.org", 1);
        let b = secret().api_key("ana@example.org", 1);
        assert_eq!(a.expose_secret(), b.expose_secret());
        assert_ne!(
            a.expose_secret(),
            secret().api_key("ana@example.org", 2).expose_secret()
        );
        assert!(a.expose_secret().starts_with("bsl_"));
    }

    #[test]
    fn ids_and_keys_differ_under_another_secret() {
        let other = ServerSecret::new(SecretString::from("another secret of enough length!!"));
        assert_ne!(secret().api_key_id("a@b.org"), other.api_key_id("a@b.org"));
        assert_ne!(secret().api_key_id("a@b.org"), hash_secret("a@b.org"));
    }

    #[test]
    fn tokens_are_random_and_hashes_are_not_the_token() {
        let (a, b) = (new_steward_token(), new_steward_token());
        assert_ne!(a.expose_secret(), b.expose_secret());
        assert_eq!(hash_secret(a.expose_secret()).len(), 64);
        assert!(!hash_secret(a.expose_secret()).contains(&a.expose_secret()[4..]));
    }
}
