//! The command line: `basel [serve flags]` or `basel SUBCOMMAND`, parsed once
//! by clap (flags with environment fallbacks).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::node::settings::{ServeSettings, StoreSettings};
use transfer::Format;

/// `basel`: the Basel Convention competent-authority directory and waste classifier.
#[derive(Debug, Parser)]
#[command(name = "basel", version, about)]
pub struct Cli {
    /// Where the data lives.
    #[command(flatten)]
    pub store: StoreSettings,
    /// `serve`'s flags, accepted without the word `serve` (`basel --listen …`).
    #[command(flatten)]
    pub serve: ServeSettings,
    /// Log lines as text (default) or one JSON object per line.
    #[arg(
        long,
        env = "BASEL_LOG_FORMAT",
        value_enum,
        default_value = "text",
        global = true
    )]
    pub log_format: telemetry::LogFormat,
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Parses the process's command line: [`Cli`], refusing a `serve` flag given
/// before another subcommand (`basel --listen A export` would otherwise
/// ignore it). Store flags (`--data-dir`, …) go anywhere.
pub fn parse() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    if let Some((name, _)) = matches.subcommand().filter(|(name, _)| *name != "serve") {
        let serve = ServeSettings::augment_args(clap::Command::new("serve"));
        for arg in serve.get_arguments() {
            let id = arg.get_id().as_str();
            if matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine) {
                let flag = arg.get_long().unwrap_or(id);
                Cli::command()
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!(
                            "--{flag} is a flag of `basel serve`; `basel {name}` does not take it"
                        ),
                    )
                    .exit();
            }
        }
    }
    Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
}

/// Where the process exports its spans: `BASEL_OTLP_ENDPOINT` of the
/// serving command (`basel`, `basel serve`, `basel relay`), with its roles;
/// `None` for every other subcommand and when unset.
pub fn traces(cli: &Cli) -> Option<telemetry::otlp::Traces> {
    let relay;
    let settings = match &cli.command {
        None => &cli.serve,
        Some(Command::Serve(settings)) => settings,
        Some(Command::Relay {
            republish_from: None,
        }) => {
            relay = ServeSettings {
                role: vec![crate::node::settings::Role::Relay],
                ..ServeSettings::from_env()
            };
            &relay
        }
        Some(_) => return None,
    };
    Some(telemetry::otlp::Traces {
        endpoint: settings.otlp_endpoint.clone()?,
        role: crate::node::roles(settings),
    })
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the service (the default).
    Serve(Box<ServeSettings>),
    /// Administer data stewards.
    #[command(subcommand)]
    Steward(StewardCommand),
    /// Administer API keys.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Verify the log: the Merkle tree, signed checkpoints, the stream, the projections.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Erase a person (registrant or steward): destroy the key their address
    /// is sealed under, revoke their API key, suspend them as a steward.
    Forget {
        /// Their e-mail address.
        email: String,
    },
    /// Bulk-load directory records from a JSON or CSV file (through commands).
    Import(ImportSettings),
    /// Dump the directory as JSON or CSV to stdout (from the read side).
    Export(ExportSettings),
    /// Run the outbox relay alone, or re-publish a range of the log (server mode).
    Relay {
        /// Re-publish every event from this log position on (JetStream drops
        /// the ones it still has), then exit.
        #[arg(long)]
        republish_from: Option<i64>,
    },
    /// Rebuild every projection from the log into scratch tables.
    Replay {
        /// Compare each rebuilt table with the live one; exit 1 naming the
        /// rows that differ.
        #[arg(long)]
        verify: bool,
    },
    /// Notices mailed to every registrant.
    #[command(subcommand)]
    Notice(NoticeCommand),
    /// Print a country's audit trail (from the history projection).
    History {
        /// ISO 3166-1 alpha-2 code.
        country_code: String,
        /// Print JSON (as the REST history endpoint returns its items).
        #[arg(long)]
        json: bool,
    },
    /// Administer the directory's Party records.
    #[command(subcommand)]
    Party(PartyCommand),
    /// Print the steward worklist: Parties ordered by need, with the reason
    /// and where to look.
    Worklist {
        /// Print JSON (as `GET /api/v1/stewardship/worklist` returns it).
        #[arg(long)]
        json: bool,
    },
}

/// `basel party …`.
#[derive(Debug, Subcommand)]
pub enum PartyCommand {
    /// Retire a record created in error (of a code that is not a Party to
    /// the Convention): it leaves lists, coverage and MCP; history keeps it.
    Retire {
        /// ISO 3166-1 alpha-2 code.
        country_code: String,
        /// Why.
        #[arg(long)]
        reason: String,
    },
}

/// `basel audit …`.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Recompute the tree from the events table (server mode: and the
    /// stream), check every stored checkpoint and a saved one, and that the
    /// projections equal a rebuild; exit 1 naming the first bad position.
    Verify {
        /// A checkpoint saved earlier (the text of `GET /api/v1/audit/checkpoint`).
        #[arg(long)]
        checkpoint: Option<PathBuf>,
        /// Check signatures with this verifier key (`vkey` of
        /// `GET /api/v1/audit/key`) instead of the configured key.
        #[arg(long)]
        key: Option<String>,
    },
}

/// `basel steward …`.
#[derive(Debug, Subcommand)]
pub enum StewardCommand {
    /// Enrol a steward; prints their bearer token as the last line of stdout.
    Enrol {
        /// The steward's name.
        #[arg(long)]
        name: String,
        /// Their e-mail address.
        #[arg(long)]
        email: String,
        /// Their id (default: a slug of the name).
        #[arg(long)]
        id: Option<String>,
    },
    /// Suspend a steward: their token stops working.
    Suspend {
        /// The steward's id.
        id: String,
        /// Why (kept in the audit trail).
        #[arg(long, default_value = "suspended by an operator")]
        reason: String,
    },
}

/// `basel key …`.
#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Revoke the API key of an address: refused at once by REST and MCP;
    /// registering again issues a new key.
    Revoke {
        /// The address the key was registered with.
        email: String,
        /// Why (kept in the audit trail; do not put the address here).
        #[arg(long, default_value = "revoked by an operator")]
        reason: String,
    },
}

/// `basel notice …`.
#[derive(Debug, Subcommand)]
pub enum NoticeCommand {
    /// Record a notice; the serving process mails it once to every registrant
    /// with an active key who did not unsubscribe.
    Send {
        /// The subject (one line).
        #[arg(long)]
        subject: String,
        /// A UTF-8 text file holding the body.
        #[arg(long)]
        body_file: PathBuf,
    },
    /// List the notices with how many mails were queued, sent, failed and skipped.
    List,
}

/// `basel import`.
#[derive(Debug, Args)]
pub struct ImportSettings {
    /// The file to import (`.json` or `.csv`).
    pub file: PathBuf,
    /// The steward the import is attributed to.
    #[arg(long)]
    pub steward: String,
    /// The file's format (default: from its extension).
    #[arg(long, value_parser = format_parser())]
    pub format: Option<Format>,
    /// Print what would change, row by row, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Four-eyes review, as the server reads it: with `required` each
    /// Party's changes become one proposal that another steward approves
    /// in the console or over REST, instead of being written (a Party not
    /// yet in the store is registered at once).
    #[command(flatten)]
    pub review: crate::node::settings::Review,
}

/// `basel export`.
#[derive(Debug, Args)]
pub struct ExportSettings {
    /// Output format.
    #[arg(long, value_parser = format_parser(), default_value = "json")]
    pub format: Format,
}

/// A transfer format read from the command line, its values listed in `--help`.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Format::NAMES).try_map(|name| Format::parse(&name))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{Cli, Command};

    fn review_of(args: &[&str]) -> Result<bool, clap::Error> {
        let cli = Cli::try_parse_from(args)?;
        Ok(match cli.command {
            Some(Command::Import(import)) => import.review.required,
            _ => cli.serve.review.required,
        })
    }

    #[test]
    fn review_takes_required_or_off_on_serve_and_import() {
        let import = ["basel", "import", "f.csv", "--steward", "ana"];
        assert_eq!(review_of(&import).ok(), Some(false), "off by default");
        for (value, on) in [("required", true), ("off", false)] {
            let mut with = import.to_vec();
            with.extend(["--review", value]);
            assert_eq!(review_of(&with).ok(), Some(on), "import --review {value}");
            assert_eq!(
                review_of(&["basel", "--review", value]).ok(),
                Some(on),
                "--review {value}"
            );
        }
        let error = review_of(&["basel", "--review", "yes"]).expect_err("yes is not a setting");
        assert!(error.to_string().contains("expected `required` or `off`"));
    }
}
