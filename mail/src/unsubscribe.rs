//! The one-click unsubscribe link's token: the registrant's `api_key`
//! aggregate id (a keyed hash of the address, never the address) and a tag
//! only this server can make, so nobody can unsubscribe someone else.

use commands::secrets::ServerSecret;
use subtle::ConstantTimeEq;

/// The token for the registrant whose key aggregate is `key_id`.
pub fn token(secret: &ServerSecret, key_id: &str) -> String {
    format!("{key_id}.{}", secret.unsubscribe_tag(key_id))
}

/// The key aggregate id a token was made for, when this server made it.
pub fn verify(secret: &ServerSecret, token: &str) -> Option<String> {
    let (key_id, tag) = token.split_once('.')?;
    let well_formed = key_id.len() == 64 && key_id.bytes().all(|b| b.is_ascii_hexdigit());
    if !well_formed {
        return None;
    }
    let expected = secret.unsubscribe_tag(key_id);
    bool::from(expected.as_bytes().ct_eq(tag.as_bytes())).then(|| key_id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::SecretString;

    fn secret(text: &str) -> ServerSecret {
        ServerSecret::new(SecretString::from(text.to_owned()))
    }

    #[test]
    fn a_token_verifies_only_under_the_secret_that_made_it() {
        let key_id = secret("a".repeat(40).as_str()).api_key_id("ana@example.org");
        let made = token(&secret(&"a".repeat(40)), &key_id);
        assert!(!made.contains('@'));
        assert_eq!(
            verify(&secret(&"a".repeat(40)), &made),
            Some(key_id.clone())
        );
        assert_eq!(verify(&secret(&"b".repeat(40)), &made), None);
        assert_eq!(
            verify(&secret(&"a".repeat(40)), &format!("{key_id}.00")),
            None
        );
        assert_eq!(verify(&secret(&"a".repeat(40)), "ana@example.org"), None);
    }
}
