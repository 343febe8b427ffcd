//! The non-serving subcommands. Each writes through command services and
//! reads through projections, exactly like the HTTP edges.

pub mod args;
pub mod audit;
pub mod identity;
pub mod log;
pub mod metadata;
pub mod notice;
pub mod report;
pub mod steward;
pub mod worklist;

use std::io::Write;

use crate::node::runtime::Runtime;
use crate::node::settings::{Role, ServeSettings, StoreSettings};
use args::{
    AuditCommand, Cli, Command, ImportSettings, KeyCommand, NoticeCommand, PartyCommand,
    StewardCommand,
};

/// Runs the command `cli` names (`serve` when it names none).
///
/// # Errors
/// Whatever the subcommand fails with, with context for the operator.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let store = &cli.store;
    match cli.command.unwrap_or(Command::Serve(Box::new(cli.serve))) {
        Command::Serve(settings) => crate::node::serve(store, &settings).await,
        Command::Relay {
            republish_from: None,
        } => {
            let settings = ServeSettings {
                role: vec![Role::Relay],
                ..ServeSettings::from_env()
            };
            crate::node::serve(store, &settings).await
        }
        Command::Audit(AuditCommand::Verify { checkpoint, key }) => {
            audit::verify(store, checkpoint.as_deref(), key.as_deref(), &mut out).await
        }
        // The file is read (and refused) before the store is opened.
        Command::Import(settings) => import(store, &settings, &mut out).await,
        command => on_store(&Runtime::open_existing(store).await?, command, &mut out).await,
    }
}

/// The subcommands that read or write an existing store.
async fn on_store(runtime: &Runtime, command: Command, out: &mut impl Write) -> anyhow::Result<()> {
    match command {
        Command::Steward(StewardCommand::Enrol { name, email, id }) => {
            steward::enrol(runtime, &name, &email, id.as_deref(), out).await
        }
        Command::Steward(StewardCommand::Suspend { id, reason }) => {
            steward::suspend(runtime, &id, &reason, out).await
        }
        Command::Key(KeyCommand::Revoke { email, reason }) => {
            identity::revoke(runtime, &email, &reason, out).await
        }
        Command::Forget { email } => identity::forget(runtime, &email, out).await,
        Command::Relay {
            republish_from: Some(position),
        } => log::republish(runtime, position, out).await,
        Command::Notice(NoticeCommand::Send { subject, body_file }) => {
            notice::send(runtime, &subject, &body_file, out).await
        }
        Command::Notice(NoticeCommand::List) => notice::list(runtime, out).await,
        Command::Replay { verify } => log::replay(runtime, verify, out).await,
        Command::History { country_code, json } => {
            log::history(runtime, &country_code, json, out).await
        }
        Command::Party(PartyCommand::Retire {
            country_code,
            reason,
        }) => retire(runtime, &country_code, reason, out).await,
        Command::Worklist { json } => worklist::print(runtime, json, out).await,
        Command::Export(settings) => {
            transfer::export(&runtime.stores(), settings.format, out).await
        }
        Command::Serve(_) | Command::Relay { .. } | Command::Audit(_) | Command::Import(_) => {
            anyhow::bail!("this subcommand does not run on an open store")
        }
    }
}

/// `basel import`: reads and checks the file, then imports it.
async fn import(
    store: &StoreSettings,
    settings: &ImportSettings,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let rows = transfer::read(&settings.file, settings.format)?;
    let runtime = Runtime::open_existing(store).await?;
    let import = transfer::Import {
        file: &settings.file.display().to_string(),
        steward: &settings.steward,
        dry_run: settings.dry_run,
        review: settings.review.required,
    };
    transfer::import(
        &runtime.stores(),
        &import,
        &rows,
        out,
        &mut std::io::stderr().lock(),
    )
    .await
}

/// `basel party retire`.
async fn retire(
    runtime: &Runtime,
    country_code: &str,
    reason: String,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let country =
        domain::values::CountryCode::parse(country_code).map_err(|e| anyhow::anyhow!("{e}"))?;
    commands::authority::AuthorityCommands::new(&runtime.backend)
        .retire(
            &country,
            domain::authority::RetireAuthority {
                reason,
                steward: None,
            },
            &metadata::cli_metadata(domain::metadata::Actor::Admin),
        )
        .await
        .map_err(|e| anyhow::anyhow!("cannot retire {country}: {e}"))?;
    runtime.wake.notify_one();
    writeln!(out, "Retired the record of {country}.")?;
    Ok(())
}
