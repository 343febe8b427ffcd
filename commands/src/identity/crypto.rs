//! The one AEAD basel uses for personal data: XChaCha20-Poly1305 (RustCrypto
//! `chacha20poly1305`), with a random 192-bit nonce per message (large
//! enough that random nonces never repeat) and the key id as associated
//! data, so a ciphertext cannot be moved under another key's name.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use rand::RngCore;

/// Bytes of an XChaCha20 nonce.
const NONCE: usize = 24;

/// Seals `plaintext` under `key`, bound to `aad`: hex of nonce + ciphertext.
pub(crate) fn seal(key: &[u8; 32], aad: &[u8], plaintext: &[u8]) -> String {
    let mut nonce = [0u8; NONCE];
    rand::thread_rng().fill_bytes(&mut nonce);
    let cipher = XChaCha20Poly1305::new(key.into());
    let sealed = cipher
        .encrypt(
            XNonce::from_slice(&nonce),
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .unwrap_or_else(|_| unreachable!("XChaCha20-Poly1305 seals any message this size"));
    let mut out = Vec::with_capacity(NONCE + sealed.len());
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&sealed);
    hex::encode(out)
}

/// Opens what [`seal`] made: `None` when it is not hex, too short, or does
/// not authenticate under `key` and `aad`.
pub(crate) fn open(key: &[u8; 32], aad: &[u8], sealed_hex: &str) -> Option<Vec<u8>> {
    let bytes = hex::decode(sealed_hex).ok()?;
    if bytes.len() < NONCE {
        return None;
    }
    let (nonce, ciphertext) = bytes.split_at(NONCE);
    XChaCha20Poly1305::new(key.into())
        .decrypt(
            XNonce::from_slice(nonce),
            Payload {
                msg: ciphertext,
                aad,
            },
        )
        .ok()
}

/// A fresh random 256-bit key.
pub(crate) fn new_key() -> [u8; 32] {
    let mut key = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut key);
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_sealed_opens_only_with_its_key_and_id() {
        let key = new_key();
        let sealed = seal(&key, b"k1", b"ana@example.org");
        assert!(!sealed.contains(&hex::encode("ana@example.org")));
        assert_eq!(
            open(&key, b"k1", &sealed).as_deref(),
            Some(&b"ana@example.org"[..])
        );
        assert_eq!(open(&key, b"k2", &sealed), None);
        assert_eq!(open(&new_key(), b"k1", &sealed), None);
        assert_eq!(open(&key, b"k1", "zz"), None);
        assert_ne!(
            seal(&key, b"k1", b"ana@example.org"),
            sealed,
            "nonces differ"
        );
    }
}
