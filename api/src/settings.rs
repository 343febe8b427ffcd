//! Configuration: flags with environment fallbacks, parsed once by clap.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

/// Where the data lives: the same for every subcommand.
#[derive(Debug, Clone, Args)]
pub struct StoreSettings {
    /// Data directory for embedded mode (SQLite files, the generated server secret).
    #[arg(
        long,
        env = "BASEL_DATA_DIR",
        default_value = "./basel-data",
        global = true
    )]
    pub data_dir: PathBuf,
    /// PostgreSQL URL; absent = embedded SQLite in the data directory.
    #[arg(
        long,
        env = "BASEL_DATABASE_URL",
        hide_env_values = true,
        global = true
    )]
    pub database_url: Option<String>,
    /// NATS URL; absent = the embedded log (the events table).
    #[arg(long, env = "BASEL_NATS_URL", global = true)]
    pub nats_url: Option<String>,
    /// Secret under which API keys are derived (at least 32 characters). Absent:
    /// generated once and kept in `<data-dir>/server.secret`.
    #[arg(long, env = "BASEL_SECRET", hide_env_values = true, global = true)]
    pub secret: Option<String>,
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
}

/// `basel serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeSettings {
    /// Address of the REST API.
    #[arg(long, env = "BASEL_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Address of the MCP server.
    #[arg(long, env = "BASEL_MCP_LISTEN", default_value = "127.0.0.1:8081")]
    pub mcp_listen: SocketAddr,
}

impl Default for ServeSettings {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            mcp_listen: SocketAddr::from(([127, 0, 0, 1], 8081)),
        }
    }
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
