//! Signed checkpoints in the C2SP formats: [`tlog-checkpoint`] text signed
//! as a [`signed-note`] with Ed25519.
//!
//! ```text
//! basel.example.org/audit        <- origin
//! 1234                           <- tree size
//! 0G4hN6Dd8W…9s=                 <- root hash, standard base64
//!                                <- blank line
//! — basel.example.org/audit Ab3x…   <- key name, base64(key id || signature)
//! ```
//!
//! The signature covers the note text (the first three lines with their
//! newlines). The key id is the first four bytes of
//! `SHA-256(name || "\n" || 0x01 || public key)`; the verifier key is
//! published as `name+<key id hex>+<base64(0x01 || public key)>`.
//!
//! [`tlog-checkpoint`]: https://c2sp.org/tlog-checkpoint
//! [`signed-note`]: https://c2sp.org/signed-note

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use sha2::{Digest, Sha256};

use super::merkle::Hash;

/// The signature algorithm byte of Ed25519 in signed notes.
const ED25519: u8 = 0x01;

/// A checkpoint's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The log's origin line.
    pub origin: String,
    /// The tree size.
    pub size: u64,
    /// The root hash.
    pub root: Hash,
}

impl Checkpoint {
    /// The note text: origin, size and root, each on a line.
    pub fn text(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            STANDARD.encode(self.root)
        )
    }
}

/// Why a note or a key was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    /// Not a signed note, or not a checkpoint.
    #[error("not a checkpoint: {0}")]
    Malformed(&'static str),
    /// No signature by the expected key verifies.
    #[error("no valid signature by {0}")]
    Signature(String),
    /// The key text is not 32 bytes in hex or base64.
    #[error("the signing key is not 32 bytes in hex or base64")]
    Key,
}

/// The first four bytes of `SHA-256(name || "\n" || 0x01 || public key)`.
fn key_id(name: &str, key: &VerifyingKey) -> [u8; 4] {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update(b"\n");
    hasher.update([ED25519]);
    hasher.update(key.as_bytes());
    let digest = hasher.finalize();
    [digest[0], digest[1], digest[2], digest[3]]
}

/// The service's checkpoint signer: its Ed25519 key under the log's origin
/// as key name.
#[derive(Clone)]
pub struct Signer {
    name: String,
    key: SigningKey,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Signer {
    /// A signer named `origin` with `key`.
    pub fn new(origin: &str, key: SigningKey) -> Self {
        Self {
            name: origin.to_owned(),
            key,
        }
    }

    /// The log's origin (also the key name).
    pub fn origin(&self) -> &str {
        &self.name
    }

    /// The verifier of this signer's notes.
    pub fn verifier(&self) -> NoteVerifier {
        NoteVerifier {
            name: self.name.clone(),
            key: self.key.verifying_key(),
        }
    }

    /// The signed note of a checkpoint of this log.
    pub fn sign(&self, size: u64, root: &Hash) -> String {
        let text = Checkpoint {
            origin: self.name.clone(),
            size,
            root: *root,
        }
        .text();
        let signature = self.key.sign(text.as_bytes());
        let mut blob = key_id(&self.name, &self.key.verifying_key()).to_vec();
        blob.extend_from_slice(&signature.to_bytes());
        format!("{text}\n\u{2014} {} {}\n", self.name, STANDARD.encode(blob))
    }
}

/// A public key that checks notes: the key name and the Ed25519 key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteVerifier {
    name: String,
    key: VerifyingKey,
}

impl NoteVerifier {
    /// The key name (the log's origin).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The raw public key.
    pub fn public_key(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// The key id, as 8 hex digits.
    pub fn key_id_hex(&self) -> String {
        hex::encode(key_id(&self.name, &self.key))
    }

    /// The signed-note verifier key: `name+<key id>+<base64(0x01 || key)>`.
    pub fn vkey(&self) -> String {
        let mut blob = vec![ED25519];
        blob.extend_from_slice(self.key.as_bytes());
        format!(
            "{}+{}+{}",
            self.name,
            self.key_id_hex(),
            STANDARD.encode(blob)
        )
    }

    /// Reads a verifier key written by [`Self::vkey`].
    ///
    /// # Errors
    /// [`NoteError::Key`] when it is not one.
    pub fn from_vkey(vkey: &str) -> Result<Self, NoteError> {
        // The key name holds no `+`; the base64 key may.
        let mut parts = vkey.trim().splitn(3, '+');
        let (Some(name), Some(id), Some(blob)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(NoteError::Key);
        };
        let blob = STANDARD.decode(blob).map_err(|_| NoteError::Key)?;
        let Some((&ED25519, raw)) = blob.split_first() else {
            return Err(NoteError::Key);
        };
        let raw: [u8; 32] = raw.try_into().map_err(|_| NoteError::Key)?;
        let key = VerifyingKey::from_bytes(&raw).map_err(|_| NoteError::Key)?;
        let verifier = Self {
            name: name.to_owned(),
            key,
        };
        if verifier.key_id_hex() != id {
            return Err(NoteError::Key);
        }
        Ok(verifier)
    }

    /// The checkpoint in `note`, when a signature line by this key verifies
    /// over its text.
    ///
    /// # Errors
    /// [`NoteError::Malformed`] or [`NoteError::Signature`].
    pub fn open(&self, note: &str) -> Result<Checkpoint, NoteError> {
        let Some(split) = note.find("\n\n") else {
            return Err(NoteError::Malformed("no blank line before the signatures"));
        };
        let (text, signatures) = (&note[..=split], &note[split + 2..]);
        let id = key_id(&self.name, &self.key);
        let signed = signatures.lines().any(|line| {
            let Some(rest) = line.strip_prefix("\u{2014} ") else {
                return false;
            };
            let Some((name, blob)) = rest.split_once(' ') else {
                return false;
            };
            let Ok(blob) = STANDARD.decode(blob) else {
                return false;
            };
            if name != self.name || blob.len() != 68 || blob[..4] != id {
                return false;
            }
            Signature::from_slice(&blob[4..])
                .is_ok_and(|sig| self.key.verify(text.as_bytes(), &sig).is_ok())
        });
        if !signed {
            return Err(NoteError::Signature(self.vkey()));
        }
        parse_text(text)
    }
}

fn parse_text(text: &str) -> Result<Checkpoint, NoteError> {
    let mut lines = text.lines();
    let origin = lines.next().filter(|o| !o.is_empty());
    let size = lines.next().and_then(|s| s.parse::<u64>().ok());
    let root = lines
        .next()
        .and_then(|r| STANDARD.decode(r).ok())
        .and_then(|r| Hash::try_from(r.as_slice()).ok());
    match (origin, size, root) {
        (Some(origin), Some(size), Some(root)) => Ok(Checkpoint {
            origin: origin.to_owned(),
            size,
            root,
        }),
        _ => Err(NoteError::Malformed("origin, size and root lines expected")),
    }
}

/// Reads a signing key: 32 bytes as 64 hex digits or in base64.
///
/// # Errors
/// [`NoteError::Key`] otherwise.
pub fn parse_signing_key(text: &str) -> Result<SigningKey, NoteError> {
    let text = text.trim();
    let bytes = hex::decode(text)
        .ok()
        .or_else(|| STANDARD.decode(text).ok())
        .ok_or(NoteError::Key)?;
    let seed: [u8; 32] = bytes.try_into().map_err(|_| NoteError::Key)?;
    Ok(SigningKey::from_bytes(&seed))
}

/// A fresh signing key, as the hex text [`parse_signing_key`] reads.
pub fn generate_signing_key() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signer() -> Signer {
        Signer::new("example.org/log", SigningKey::from_bytes(&[7u8; 32]))
    }

    #[test]
    fn a_signed_checkpoint_opens_with_its_key_and_not_when_changed() {
        let signer = signer();
        let note = signer.sign(5, &[9u8; 32]);
        assert!(note.starts_with("example.org/log\n5\n"), "{note}");
        assert!(note.contains("\n\n\u{2014} example.org/log "), "{note}");
        let checkpoint = signer.verifier().open(&note).expect("valid");
        assert_eq!(checkpoint.size, 5);
        assert_eq!(checkpoint.root, [9u8; 32]);
        let changed = note.replacen("\n5\n", "\n6\n", 1);
        assert!(signer.verifier().open(&changed).is_err());
        let other = Signer::new("example.org/log", SigningKey::from_bytes(&[8u8; 32]));
        assert!(other.verifier().open(&note).is_err());
    }

    #[test]
    fn verifier_keys_round_trip_and_keys_parse_from_hex_or_base64() {
        let verifier = signer().verifier();
        assert_eq!(
            NoteVerifier::from_vkey(&verifier.vkey()),
            Ok(verifier.clone())
        );
        assert!(NoteVerifier::from_vkey("name+00000000+AQ==").is_err());
        let hex_key = generate_signing_key();
        assert!(parse_signing_key(&hex_key).is_ok());
        assert!(parse_signing_key(&STANDARD.encode([1u8; 32])).is_ok());
        assert!(parse_signing_key("short").is_err());
    }
}
