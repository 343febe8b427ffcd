//! `basel audit verify [--checkpoint FILE] [--key VKEY]`: recomputes the
//! Merkle tree from the events table (and, in server mode, checks the
//! JetStream copy), checks every stored checkpoint's signature and root,
//! compares with a checkpoint an auditor saved, and checks that every
//! projection equals a rebuild. Exits 1 naming the first bad position.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use commands::audit::verify::{verify as verify_store, Finding, Kind};
use commands::audit::NoteVerifier;

use crate::node::runtime::Runtime;
use crate::node::settings::StoreSettings;

/// Runs the verification (see the module documentation).
///
/// # Errors
/// When the store cannot be read, or anything does not verify (the message
/// names the first bad position and what is wrong).
pub async fn verify(
    store: &StoreSettings,
    checkpoint: Option<&Path>,
    vkey: Option<&str>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let runtime = Runtime::open_existing(store).await?;
    let verifier = match vkey {
        Some(vkey) => NoteVerifier::from_vkey(vkey).context("--key is not a verifier key")?,
        None => crate::node::audit::signer(store, &runtime.secret)?.verifier(),
    };
    let saved = match checkpoint {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
        ),
        None => None,
    };
    let report = verify_store(&runtime.backend, &verifier, saved.as_deref())
        .await
        .context("cannot read the store")?;
    writeln!(
        out,
        "events: {}, leaves: {}, stored checkpoints: {}, verified up to tree size {}, root {}",
        report.events,
        report.tree_size,
        report.checkpoints,
        report.verified_size,
        STANDARD.encode(report.root)
    )?;
    writeln!(out, "key: {}", verifier.vkey())?;
    let mut findings = report.findings.clone();
    if let Some(log) = &runtime.log {
        let stream = commands::audit::stream::verify_stream(
            &log.context,
            &log.settings.stream,
            &report.leaf_by_position,
        )
        .await
        .context("cannot read the JetStream stream")?;
        writeln!(
            out,
            "stream {}: {} messages",
            log.settings.stream, stream.messages
        )?;
        findings.extend(stream.findings);
    }
    if findings.is_empty() {
        let mut replayed = Vec::new();
        if let Err(error) = super::log::replay(&runtime, true, &mut replayed).await {
            out.write_all(&replayed)?;
            findings.push(Finding {
                kind: Kind::Projection,
                position: None,
                detail: format!("{error:#}"),
            });
        } else {
            writeln!(out, "projections: equal to a rebuild")?;
        }
    }
    for finding in &findings {
        writeln!(out, "FAILED {finding}")?;
    }
    match findings.first() {
        None => {
            writeln!(out, "ok: the log verifies")?;
            Ok(())
        }
        Some(first) => bail!("the audit log does not verify: {first}"),
    }
}
