//! `basel notice send|list`: notices to every registrant. `send` records
//! the notice as an event (nothing is mailed from the command line); the
//! serving process's mail role fans it out to every active registrant and
//! sends each mail once.

use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, Context};

use commands::mailing::MailingCommands;
use domain::metadata::Actor;

use super::metadata::cli_metadata;
use crate::node::runtime::Runtime;

/// Records a notice; prints its id.
///
/// # Errors
/// An unreadable body file; an empty or overlong subject or body; the store failing.
pub async fn send(
    runtime: &Runtime,
    subject: &str,
    body_file: &Path,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let body = std::fs::read_to_string(body_file).with_context(|| {
        format!(
            "--body-file: cannot read {} as UTF-8 text",
            body_file.display()
        )
    })?;
    let id = uuid::Uuid::new_v4().to_string();
    MailingCommands::new(&runtime.backend, runtime.secret.clone())
        .publish_notice(&id, subject, &body, &cli_metadata(Actor::Admin))
        .await
        .map_err(|e| anyhow!("cannot record the notice: {e}"))?;
    writeln!(
        out,
        "Recorded notice {id}; the mail role of `basel serve` sends it to every registrant with an active key who did not unsubscribe (see `basel notice list`)."
    )?;
    Ok(())
}

/// Prints every notice with its delivery counts.
///
/// # Errors
/// The store failing.
pub async fn list(runtime: &Runtime, out: &mut impl Write) -> anyhow::Result<()> {
    let notices = mail::notices::list(&runtime.read_db)
        .await
        .context("cannot read the notices")?;
    if notices.is_empty() {
        writeln!(
            out,
            "No notices yet (send one with `basel notice send --subject S --body-file F`)."
        )?;
    }
    for notice in notices {
        let counts = if notice.fanned_out {
            notice
                .counts
                .iter()
                .map(|(status, n)| format!("{status} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            "not queued yet (no serving process has read it)".to_owned()
        };
        writeln!(
            out,
            "{}  {}  {}  [{counts}]",
            notice.id, notice.recorded_at, notice.subject
        )?;
    }
    Ok(())
}
