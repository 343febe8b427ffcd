//! The `basel` binary: parses the command line and runs one subcommand.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use api::cli::{log, steward, transfer};
use api::runtime::Runtime;
use api::settings::{Cli, Command, Role, ServeSettings, StewardCommand};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("BASEL_LOG")
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,async_nats=warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match cli
        .command
        .unwrap_or(Command::Serve(ServeSettings::from_env()))
    {
        Command::Serve(settings) => api::serve::serve(&cli.store, &settings).await,
        Command::Steward(StewardCommand::Enrol { name, email, id }) => {
            steward::enrol(
                &Runtime::open(&cli.store).await?,
                &name,
                &email,
                id.as_deref(),
                &mut stdout,
            )
            .await
        }
        Command::Steward(StewardCommand::Suspend { id, reason }) => {
            steward::suspend(&Runtime::open(&cli.store).await?, &id, &reason, &mut stdout).await
        }
        Command::Import(settings) => {
            let rows = transfer::read(&settings.file, settings.format)?;
            let runtime = Runtime::open(&cli.store).await?;
            transfer::import(
                &runtime,
                &settings.file.display().to_string(),
                rows,
                &settings.steward,
                &mut stdout,
            )
            .await
        }
        Command::Relay {
            republish_from: Some(position),
        } => log::republish(&Runtime::open(&cli.store).await?, position, &mut stdout).await,
        Command::Relay {
            republish_from: None,
        } => {
            let settings = ServeSettings {
                role: vec![Role::Relay],
                ..ServeSettings::from_env()
            };
            api::serve::serve(&cli.store, &settings).await
        }
        Command::Replay { verify } => {
            log::replay(&Runtime::open(&cli.store).await?, verify, &mut stdout).await
        }
        Command::History { country_code, json } => {
            log::history(
                &Runtime::open(&cli.store).await?,
                &country_code,
                json,
                &mut stdout,
            )
            .await
        }
        Command::Export(settings) => {
            transfer::export(
                &Runtime::open(&cli.store).await?,
                settings.format,
                &mut stdout,
            )
            .await
        }
    }
}

/// `basel export | head` closes the pipe early: that is the reader's choice, not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause.downcast_ref::<csv::Error>().is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe))
            || cause.downcast_ref::<serde_json::Error>().is_some_and(|e| e.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}
