//! `basel key revoke EMAIL` and `basel forget EMAIL`: what an operator does
//! for one person's key and data.
//!
//! Both return only once the change is in force for every serving process:
//! the `api_keys` projection has applied it (this process projects the
//! events table itself in embedded mode; in server mode it waits for the
//! JetStream consumers), and then twice the time a serving process takes to
//! hear of a step another process made (`projections::runner::POLL`), so
//! no process still accepts the key from its cache.

use std::io::Write;
use std::time::Duration;

use anyhow::{anyhow, bail, Context};

use commands::api_key::ApiKeyCommands;
use commands::identity::{erase, AddressBook};
use commands::CommandError;
use domain::api_key::ApiKeyError;
use domain::metadata::Actor;
use domain::values::Email;
use projections::registry::Projection;

use super::metadata::cli_metadata;
use crate::node::runtime::Runtime;

/// How long server mode waits for the projection to apply a revocation.
const SETTLE: Duration = Duration::from_secs(10);

/// An address an operator names: read with the rules addresses were
/// accepted under, so an address registered long ago can still be named.
fn address(text: &str) -> anyhow::Result<Email> {
    Email::parse_stored(text).map_err(|_| anyhow!("EMAIL: {text:?} is not an e-mail address"))
}

/// Revokes the active key of `email`.
///
/// # Errors
/// No active key for the address; the store failing.
pub async fn revoke(
    runtime: &Runtime,
    email: &str,
    reason: &str,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let email = address(email)?;
    let committed = ApiKeyCommands::new(&runtime.backend, runtime.secret.clone())
        .revoke(&email, reason, &cli_metadata(Actor::Admin))
        .await
        .map_err(|e| match e {
            CommandError::Rejected(ApiKeyError::NotActive) => {
                anyhow!("this address holds no active API key; nothing was revoked")
            }
            other => anyhow!("cannot revoke the key: {other}"),
        })?;
    settle(runtime, &[(Projection::ApiKeys, committed.position)]).await?;
    writeln!(
        out,
        "Revoked the API key of that address; it is refused from now on, and registering again issues a new key."
    )?;
    Ok(())
}

/// Forgets the person with address `email` (`commands::identity::erase`).
///
/// # Errors
/// The store failing; the database file not compacting.
pub async fn forget(runtime: &Runtime, email: &str, out: &mut impl Write) -> anyhow::Result<()> {
    let email = address(email)?;
    // First, so that the compaction erasure ends with also drops their bytes.
    let evidence = commands::console::ConsoleStore::new(&runtime.backend, Default::default())
        .forget_mentions(&email.normalized())
        .await
        .context("cannot delete the evidence files that mention the address")?;
    let book = AddressBook::new(&runtime.backend, &runtime.secret);
    let erasure = erase::forget(&book, &runtime.secret, &email, &cli_metadata(Actor::Admin))
        .await
        .context("cannot forget the address")?;
    settle(
        runtime,
        &[
            (Projection::ApiKeys, erasure.api_key_position),
            (Projection::Stewards, erasure.steward_position),
        ],
    )
    .await?;
    if evidence > 0 {
        writeln!(
            out,
            "Deleted {evidence} e-mail file(s) of check evidence that mention the address."
        )?;
    }
    if !erasure.registrant
        && erasure.stewards.is_empty()
        && erasure.keys_destroyed == 0
        && evidence == 0
    {
        writeln!(
            out,
            "No registration or steward holds that address; nothing to forget."
        )?;
        return Ok(());
    }
    if erasure.registrant {
        writeln!(out, "Forgot the registrant: their API key is revoked.")?;
    }
    for id in &erasure.stewards {
        writeln!(
            out,
            "Forgot steward {id}: suspended; their id and name stay in the history."
        )?;
    }
    writeln!(
        out,
        "Destroyed {} key(s): the address can no longer be read from any event or log message.",
        erasure.keys_destroyed
    )?;
    Ok(())
}

/// Waits until each projection named has applied its position (0: nothing
/// to wait for) and the read caches have seen it (module docs).
async fn settle(runtime: &Runtime, positions: &[(Projection, i64)]) -> anyhow::Result<()> {
    if positions.iter().all(|(_, position)| *position == 0) {
        return Ok(());
    }
    runtime.wake.notify_one();
    if runtime.log.is_some() {
        for (projection, position) in positions.iter().filter(|(_, p)| *p > 0) {
            if !runtime
                .projector
                .wait_for(*projection, *position, SETTLE)
                .await
            {
                let name = projection.name();
                bail!("the change is recorded, but the {name} projection did not apply it within {} s; is a projector running?", SETTLE.as_secs());
            }
        }
    } else {
        runtime.catch_up().await?;
    }
    tokio::time::sleep(projections::runner::POLL * 2).await;
    Ok(())
}
