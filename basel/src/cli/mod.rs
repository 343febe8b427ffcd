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

use crate::node::runtime::Runtime;
use crate::node::settings::{Role, ServeSettings};
use args::{AuditCommand, Cli, Command, KeyCommand, NoticeCommand, PartyCommand, StewardCommand};

/// Runs the command `cli` names (`serve` when it names none).
///
/// # Errors
/// Whatever the subcommand fails with, with context for the operator.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match cli.command.unwrap_or(Command::Serve(Box::new(cli.serve))) {
        Command::Serve(settings) => crate::node::serve(&cli.store, &settings).await,
        Command::Steward(StewardCommand::Enrol { name, email, id }) => {
            steward::enrol(
                &Runtime::open_existing(&cli.store).await?,
                &name,
                &email,
                id.as_deref(),
                &mut stdout,
            )
            .await
        }
        Command::Steward(StewardCommand::Suspend { id, reason }) => {
            steward::suspend(
                &Runtime::open_existing(&cli.store).await?,
                &id,
                &reason,
                &mut stdout,
            )
            .await
        }
        Command::Key(KeyCommand::Revoke { email, reason }) => {
            identity::revoke(
                &Runtime::open_existing(&cli.store).await?,
                &email,
                &reason,
                &mut stdout,
            )
            .await
        }
        Command::Audit(AuditCommand::Verify { checkpoint, key }) => {
            audit::verify(
                &cli.store,
                checkpoint.as_deref(),
                key.as_deref(),
                &mut stdout,
            )
            .await
        }
        Command::Forget { email } => {
            identity::forget(
                &Runtime::open_existing(&cli.store).await?,
                &email,
                &mut stdout,
            )
            .await
        }
        Command::Import(settings) => {
            let rows = transfer::read(&settings.file, settings.format)?;
            let runtime = Runtime::open_existing(&cli.store).await?;
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
                &mut stdout,
                &mut std::io::stderr().lock(),
            )
            .await
        }
        Command::Relay {
            republish_from: Some(position),
        } => {
            log::republish(
                &Runtime::open_existing(&cli.store).await?,
                position,
                &mut stdout,
            )
            .await
        }
        Command::Relay {
            republish_from: None,
        } => {
            let settings = ServeSettings {
                role: vec![Role::Relay],
                ..ServeSettings::from_env()
            };
            crate::node::serve(&cli.store, &settings).await
        }
        Command::Notice(NoticeCommand::Send { subject, body_file }) => {
            notice::send(
                &Runtime::open_existing(&cli.store).await?,
                &subject,
                &body_file,
                &mut stdout,
            )
            .await
        }
        Command::Notice(NoticeCommand::List) => {
            notice::list(&Runtime::open_existing(&cli.store).await?, &mut stdout).await
        }
        Command::Replay { verify } => {
            log::replay(
                &Runtime::open_existing(&cli.store).await?,
                verify,
                &mut stdout,
            )
            .await
        }
        Command::History { country_code, json } => {
            log::history(
                &Runtime::open_existing(&cli.store).await?,
                &country_code,
                json,
                &mut stdout,
            )
            .await
        }
        Command::Party(PartyCommand::Retire {
            country_code,
            reason,
        }) => {
            let runtime = Runtime::open_existing(&cli.store).await?;
            let country = domain::values::CountryCode::parse(&country_code)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
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
            std::io::Write::write_fmt(
                &mut stdout,
                format_args!("Retired the record of {country}.\n"),
            )?;
            Ok(())
        }
        Command::Worklist { json } => {
            worklist::print(
                &Runtime::open_existing(&cli.store).await?,
                json,
                &mut stdout,
            )
            .await
        }
        Command::Export(settings) => {
            transfer::export(
                &Runtime::open_existing(&cli.store).await?.stores(),
                settings.format,
                &mut stdout,
            )
            .await
        }
    }
}
