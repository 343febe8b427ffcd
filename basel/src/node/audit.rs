//! The verifiable log in a process: its settings, the signing
//! key, the check of the log's tail at start, and the notary task.
//!
//! The key comes from `BASEL_SIGNING_KEY` (32 bytes, hex or base64); else,
//! in embedded mode, from `<data-dir>/signing.key`, generated once with
//! owner-only permissions; else, in server mode, it is derived from
//! `BASEL_SECRET` (every replica holds the secret, so all sign with the same
//! key).

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use commands::audit::note::{generate_signing_key, parse_signing_key};
use commands::audit::verify::check_tail;
use commands::audit::{Cadence, Notary, Signer};
use commands::secrets::ServerSecret;
use ed25519_dalek::SigningKey;

use web::state::AuditState;

use super::runtime::Runtime;
use super::settings::StoreSettings;

/// How many of the last leaves the start-up check compares with their events.
pub const TAIL: u64 = 1000;

/// How often the notary looks for new events.
const NOTARY_POLL: Duration = Duration::from_millis(250);

/// File name of the generated signing key in the data directory.
pub const KEY_FILE: &str = "signing.key";

/// The checkpoint signer of these settings (see the module documentation).
///
/// # Errors
/// When the configured key is malformed or the key file cannot be made.
pub fn signer(settings: &StoreSettings, secret: &ServerSecret) -> anyhow::Result<Signer> {
    let audit = &settings.audit;
    let key = match (&audit.signing_key, &settings.database_url) {
        (Some(text), _) => parse_signing_key(text).context("BASEL_SIGNING_KEY")?,
        (None, Some(_)) => SigningKey::from_bytes(&secret.derive_key("basel audit signing key")),
        (None, None) => key_file(&settings.data_dir)?,
    };
    Ok(Signer::new(&audit.audit_origin, key))
}

fn key_file(data_dir: &Path) -> anyhow::Result<SigningKey> {
    let path = data_dir.join(KEY_FILE);
    if !path.exists() {
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("cannot create {}", data_dir.display()))?;
        super::runtime::write_private(&path, &generate_signing_key())?;
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    parse_signing_key(&text).with_context(|| format!("{} holds no key", path.display()))
}

/// Checks the tail of the log, then (when it verifies and `notarise`)
/// starts the notary; returns what the REST edge serves and `/readyz`
/// reports. A log that does not verify is logged and makes the process
/// not ready; the tree is then not extended over it.
///
/// # Errors
/// When the key cannot be loaded or the store cannot be read.
pub async fn start(
    runtime: &Runtime,
    settings: &StoreSettings,
    notarise: bool,
) -> anyhow::Result<(AuditState, Option<Notary>)> {
    let signer = signer(settings, &runtime.secret)?;
    let state = AuditState::new(signer.verifier());
    let finding = check_tail(&runtime.backend, &state.verifier, TAIL)
        .await
        .context("cannot check the audit log")?;
    if let Some(finding) = finding {
        tracing::error!(finding = %finding, "the audit log does not verify; not ready (run `basel audit verify`)");
        state.fail(finding.to_string());
        return Ok((state, None));
    }
    if !notarise {
        return Ok((state, None));
    }
    let cadence = Cadence {
        every: settings.audit.checkpoint_every.max(1),
        interval: Duration::from_secs(settings.audit.checkpoint_interval.max(1)),
    };
    let notary = Notary::open(runtime.backend.clone(), signer, cadence)
        .await
        .context("cannot open the audit log")?;
    Ok((state, Some(notary)))
}

/// How often the notary polls.
pub fn poll() -> Duration {
    NOTARY_POLL
}
