//! The command line: `basel [serve flags]` or `basel SUBCOMMAND`, parsed once
//! by clap (flags with environment fallbacks).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::node::settings::{ServeSettings, StoreSettings};

/// `basel`: the Basel Convention competent-authority directory and waste classifier.
#[derive(Debug, Parser)]
#[command(name = "basel", version, about)]
pub struct Cli {
    /// Where the data lives.
    #[command(flatten)]
    pub store: StoreSettings,
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the service (the default).
    Serve(ServeSettings),
    /// Administer data stewards.
    #[command(subcommand)]
    Steward(StewardCommand),
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
    /// Print a country's audit trail (from the history projection).
    History {
        /// ISO 3166-1 alpha-2 code.
        country_code: String,
        /// Print JSON (as the REST history endpoint returns its items).
        #[arg(long)]
        json: bool,
    },
    /// Print the steward worklist: Parties ordered by need, with the reason
    /// and where to look.
    Worklist {
        /// Print JSON (as `GET /api/v1/stewardship/worklist` returns it).
        #[arg(long)]
        json: bool,
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

/// `basel import`.
#[derive(Debug, Args)]
pub struct ImportSettings {
    /// The file to import (`.json` or `.csv`).
    pub file: PathBuf,
    /// The steward the import is attributed to.
    #[arg(long)]
    pub steward: String,
    /// The file's format (default: from its extension).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

/// `basel export`.
#[derive(Debug, Args)]
pub struct ExportSettings {
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
}

/// A transfer format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A JSON array of records.
    Json,
    /// CSV with a header row.
    Csv,
}
