//! How a presented credential is read and hashed, the same way at every edge
//! (REST, MCP) and on the write side: keys and tokens are stored and compared
//! only as their SHA-256, never as themselves.

use sha2::{Digest, Sha256};

/// The longest key or token read from a request; longer ones are refused
/// before any hashing.
pub const MAX_CREDENTIAL_CHARS: usize = 200;

/// SHA-256 of a secret, hex: what tables and events store.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(secret_digest(secret))
}

/// SHA-256 of a secret, as bytes (what caches key on: no allocation).
pub fn secret_digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// The token of an `Authorization: Bearer TOKEN` header value: scheme
/// case-insensitive, token trimmed, not empty, at most
/// [`MAX_CREDENTIAL_CHARS`].
pub fn bearer_token(authorization: &str) -> Option<&str> {
    let (scheme, token) = authorization.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && usable(token)).then_some(token)
}

/// The API key a request presents: its `X-API-Key` value when it has one,
/// else (where the edge accepts it, `authorization` given) a bearer token.
pub fn presented_api_key<'a>(
    x_api_key: Option<&'a str>,
    authorization: Option<&'a str>,
) -> Option<&'a str> {
    match x_api_key.map(str::trim).filter(|key| !key.is_empty()) {
        Some(key) => usable(key).then_some(key),
        None => authorization.and_then(bearer_token),
    }
}

/// Why a request's API key was refused: the same words and header on the
/// REST API and the MCP server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRefusal {
    /// No key was sent (or an unreadable one).
    Missing,
    /// A key was sent but is unknown or revoked.
    NotActive,
}

impl KeyRefusal {
    /// Where to get a key.
    pub const HELP: &'static str = "Get a free API key at /register";

    /// The answer's `error`.
    pub fn error(self) -> &'static str {
        match self {
            Self::Missing => "API key required",
            Self::NotActive => "API key not accepted",
        }
    }

    /// The answer's `message`: what to do.
    pub fn message(self) -> &'static str {
        match self {
            Self::Missing => {
                "Send your API key in the X-API-Key header or as Authorization: Bearer KEY."
            }
            Self::NotActive => {
                "The API key sent is unknown or revoked; get an active one at /register."
            }
        }
    }

    /// The `WWW-Authenticate` value of the 401 (RFC 6750's `invalid_token`
    /// for a key that was sent).
    pub fn www_authenticate(self) -> &'static str {
        match self {
            Self::Missing => "Bearer realm=\"basel\"",
            Self::NotActive => "Bearer realm=\"basel\", error=\"invalid_token\"",
        }
    }
}

fn usable(credential: &str) -> bool {
    !credential.is_empty() && credential.chars().count() <= MAX_CREDENTIAL_CHARS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_non_empty_bearer_token_is_read() {
        assert_eq!(bearer_token("Bearer bst_abc"), Some("bst_abc"));
        assert_eq!(bearer_token("bearer   bst_abc "), Some("bst_abc"));
        assert_eq!(bearer_token("Basic dXNlcjpwYXNz"), None);
        assert_eq!(bearer_token("Bearer "), None);
        assert_eq!(bearer_token("bst_abc"), None);
        assert_eq!(bearer_token(&format!("Bearer {}", "x".repeat(201))), None);
    }

    #[test]
    fn an_api_key_comes_from_its_header_first_then_a_bearer_token() {
        assert_eq!(
            presented_api_key(Some(" k1 "), Some("Bearer k2")),
            Some("k1")
        );
        assert_eq!(presented_api_key(None, Some("Bearer k2")), Some("k2"));
        assert_eq!(presented_api_key(Some(""), Some("Bearer k2")), Some("k2"));
        assert_eq!(presented_api_key(None, None), None);
        assert_eq!(presented_api_key(Some(&"k".repeat(201)), None), None);
    }

    #[test]
    fn a_hash_is_hex_sha256() {
        assert_eq!(
            hash_secret("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
