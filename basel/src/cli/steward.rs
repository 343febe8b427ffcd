//! `basel steward enrol|suspend`.

use std::io::Write;

use anyhow::{anyhow, Context};
use secrecy::ExposeSecret;

use commands::steward::StewardCommands;
use domain::metadata::Actor;
use domain::values::{Email, Slug};

use super::metadata::cli_metadata;
use crate::node::runtime::Runtime;

/// Enrols a steward and writes their token as the last line of `out`.
///
/// # Errors
/// Invalid name, e-mail or id; the id taken; the store failing.
pub async fn enrol(
    runtime: &Runtime,
    name: &str,
    email: &str,
    id: Option<&str>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let email = Email::parse(email).map_err(|e| anyhow!("--email: {e}"))?;
    let id = match id {
        Some(id) => Slug::parse(id).map_err(|e| anyhow!("--id: {e}"))?,
        None => Slug::from_name(name)
            .map_err(|_| anyhow!("--name: cannot make an id from {name:?}; pass --id"))?,
    };
    let enrolment = StewardCommands::new(&runtime.backend)
        .enrol(
            id,
            name,
            email,
            &runtime.secret,
            &cli_metadata(Actor::Admin),
        )
        .await
        .map_err(|e| anyhow!("cannot enrol the steward: {e}"))?;
    runtime.wake.notify_one();
    writeln!(
        out,
        "Enrolled steward {} (the token below is shown once; only its hash is stored):",
        enrolment.id
    )?;
    writeln!(out, "{}", enrolment.token.expose_secret()).context("cannot write the token")?;
    Ok(())
}

/// Suspends a steward.
///
/// # Errors
/// Unknown or already suspended steward; the store failing.
pub async fn suspend(
    runtime: &Runtime,
    id: &str,
    reason: &str,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let id = Slug::parse(id).map_err(|e| anyhow!("ID: {e}"))?;
    StewardCommands::new(&runtime.backend)
        .suspend(&id, reason, &cli_metadata(Actor::Admin))
        .await
        .map_err(|e| anyhow!("cannot suspend steward {id}: {e}"))?;
    writeln!(out, "Suspended steward {id}.")?;
    Ok(())
}
