//! A node's configuration: where the data lives and what this process
//! serves (flags with environment fallbacks, parsed by clap in `cli`).

pub mod audit;
pub mod mail;
pub mod readiness;

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};

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
    /// NATS URLs, comma-separated (`nats://a:4222,nats://b:4222`: every
    /// server is tried, reconnects go to any); absent = the embedded log
    /// (the events table). Needs `BASEL_DATABASE_URL` (server mode). A
    /// password in a URL is shown redacted.
    #[arg(long, env = "BASEL_NATS_URL", hide_env_values = true, global = true)]
    pub nats_url: Option<String>,
    /// The most contacts a Party's record may hold; one more is refused
    /// (422), by steward writes and imports alike.
    #[arg(
        long,
        env = "BASEL_MAX_CONTACTS_PER_PARTY",
        default_value_t = domain::authority::DEFAULT_MAX_CONTACTS,
        global = true
    )]
    pub max_contacts_per_party: usize,
    /// The JetStream stream holding the log (server mode).
    #[arg(
        long,
        env = "BASEL_NATS_STREAM",
        default_value = "BASEL_EVENTS",
        global = true
    )]
    pub nats_stream: String,
    /// Subject prefix: events go to `<prefix>.<aggregate_type>.<aggregate_id>`.
    #[arg(
        long,
        env = "BASEL_NATS_SUBJECT_PREFIX",
        default_value = "basel.events",
        global = true
    )]
    pub nats_subject_prefix: String,
    /// Replicas of the stream when basel creates it (1 for a single server).
    #[arg(long, env = "BASEL_NATS_REPLICAS", default_value_t = 1, global = true)]
    pub nats_replicas: usize,
    /// Secret under which API keys are derived (at least 32 characters).
    /// Required in server mode (`BASEL_DATABASE_URL`); absent in embedded
    /// mode: generated once and kept in `<data-dir>/server.secret` (0600).
    #[arg(long, env = "BASEL_SECRET", hide_env_values = true, global = true)]
    pub secret: Option<String>,
    /// The verifiable log: signing key, origin, checkpoint cadence.
    #[command(flatten)]
    pub audit: audit::AuditSettings,
    /// NATS credentials and TLS (server mode).
    #[command(flatten)]
    pub nats_access: crate::node::nats::NatsAccessSettings,
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
    /// Not a setting: REST and MCP listen apart, each on an address. Given,
    /// it is refused with the flags to use instead.
    #[arg(long, hide = true, value_parser = no_port)]
    pub port: Option<String>,
    /// What this process runs: everything, or parts of a scaled-out deployment
    /// (comma-separated, e.g. `relay,projector`).
    #[arg(
        long,
        env = "BASEL_ROLE",
        value_enum,
        value_delimiter = ',',
        default_value = "all"
    )]
    pub role: Vec<Role>,
    /// A record whose last check is older than this many days is reported `stale`.
    #[arg(long, env = "BASEL_STALE_AFTER_DAYS", default_value_t = 365)]
    pub stale_after_days: i64,
    /// Browser origins allowed to call the MCP server (comma-separated); requests
    /// without an `Origin` header are always allowed.
    #[arg(long, env = "BASEL_MCP_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub mcp_allowed_origins: Vec<String>,
    /// `Host` values the MCP server answers to (comma-separated; default loopback).
    #[arg(
        long,
        env = "BASEL_MCP_ALLOWED_HOSTS",
        value_delimiter = ',',
        default_value = "localhost,127.0.0.1,::1"
    )]
    pub mcp_allowed_hosts: Vec<String>,
    /// MCP tool calls and resource reads per API key: `RATE[/BURST]` per
    /// second (e.g. `20/100`: 20 a second, bursts of 100).
    #[arg(long, env = "BASEL_MCP_RATE", default_value = "20/100", value_parser = mcp::RateLimit::parse)]
    pub mcp_rate: mcp::RateLimit,
    /// Address of `/healthz`, `/readyz` and `/metrics` in a process without
    /// a REST listener (e.g. `--role relay,projector` or `--role mcp`).
    #[arg(long, env = "BASEL_OPS_LISTEN", default_value = "127.0.0.1:8082")]
    pub ops_listen: SocketAddr,
    /// The absolute URL clients reach the REST API at (e.g.
    /// `https://basel.example.org`), for links, examples and the OpenAPI
    /// `servers`; default: `http://` and the REST listen address.
    #[arg(long, env = "BASEL_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,
    /// The absolute URL clients reach the MCP server at, for the landing
    /// page; default: `http://` and the MCP listen address.
    #[arg(long, env = "BASEL_MCP_PUBLIC_URL", value_parser = parse_public_url)]
    pub mcp_public_url: Option<String>,
    /// New API-key registrations per client address: `RATE[/BURST]` per
    /// hour (e.g. `20/10`: bursts of 10, then 20 an hour). Repeats of an
    /// address that holds a key are not counted.
    #[arg(long, env = "BASEL_REGISTER_RATE", default_value = "20/10", value_parser = web::register_limit::RegisterRate::parse)]
    pub register_rate: web::register_limit::RegisterRate,
    /// Failed authentications (401) per client address, over REST and MCP
    /// together: `RATE[/BURST]` per second; past the burst, requests from
    /// the address that present a key or token get 429 until it refills.
    #[arg(long, env = "BASEL_AUTH_FAILURE_RATE", default_value = "10/100", value_parser = mcp::RateLimit::parse)]
    pub auth_failure_rate: mcp::RateLimit,
    /// Where `/metrics` is served: `public` (the REST listener, and the ops
    /// listener of a process without one), `ops` (only the ops listener,
    /// `BASEL_OPS_LISTEN`, which a process with a REST listener then opens
    /// too) or `off`.
    #[arg(long, env = "BASEL_METRICS", value_enum, default_value = "public")]
    pub metrics: web::counters::MetricsListener,
    /// A token `/metrics` asks for, wherever it is served, as
    /// `Authorization: Bearer TOKEN` (at least 32 characters); unset: none.
    #[arg(long, env = "BASEL_METRICS_TOKEN", hide_env_values = true, value_parser = parse_metrics_token)]
    pub metrics_token: Option<String>,
    /// Four-eyes review.
    #[command(flatten)]
    pub review: Review,
    /// Where spans go: an OpenTelemetry collector's OTLP/HTTP base URL
    /// (e.g. `http://127.0.0.1:4318`; spans are sent as protobuf to
    /// `/v1/traces` below it); unset: no tracing exporter.
    #[arg(long, env = "BASEL_OTLP_ENDPOINT", value_parser = telemetry::otlp::parse_endpoint)]
    pub otlp_endpoint: Option<String>,
    /// E-mail: SMTP server, sender, key delivery.
    #[command(flatten)]
    pub mail: mail::MailSettings,
    /// Connection limits of both listeners (timeouts and caps).
    #[command(flatten)]
    pub conn: web::edge::ConnSettings,
    /// MCP sessions (caps per key and in all, idle expiry).
    #[command(flatten)]
    pub mcp_sessions: McpSessionSettings,
    /// What `/readyz` allows (`BASEL_READY_MAX_LAG`).
    #[command(flatten)]
    pub readiness: readiness::ReadinessSettings,
}

/// The MCP session limits, as flags and `BASEL_MCP_*` variables.
#[derive(Debug, Clone, Args)]
pub struct McpSessionSettings {
    /// Open MCP sessions per API key; a new one past it closes the key's
    /// least recently used session.
    #[arg(long, env = "BASEL_MCP_MAX_SESSIONS_PER_KEY", default_value_t = mcp::SessionLimits::default().per_key)]
    pub mcp_max_sessions_per_key: usize,
    /// Open MCP sessions per client address (IPv4 address, IPv6 /64); a new
    /// one past it closes the address's least recently used idle session.
    #[arg(long, env = "BASEL_MCP_MAX_SESSIONS_PER_ADDRESS", default_value_t = mcp::SessionLimits::default().per_address)]
    pub mcp_max_sessions_per_address: usize,
    /// Open MCP sessions in all; a new one past it closes the least recently
    /// used idle session (503 when none is idle).
    #[arg(long, env = "BASEL_MCP_MAX_SESSIONS", default_value_t = mcp::SessionLimits::default().total)]
    pub mcp_max_sessions: usize,
    /// An MCP session unused for this long is closed.
    #[arg(long, env = "BASEL_MCP_SESSION_IDLE", default_value = "5m", value_parser = web::edge::settings::parse_duration)]
    pub mcp_session_idle: std::time::Duration,
}

impl Default for McpSessionSettings {
    fn default() -> Self {
        let limits = mcp::SessionLimits::default();
        Self {
            mcp_max_sessions_per_key: limits.per_key,
            mcp_max_sessions_per_address: limits.per_address,
            mcp_max_sessions: limits.total,
            mcp_session_idle: limits.idle,
        }
    }
}

impl McpSessionSettings {
    /// The limits the MCP server takes.
    pub fn limits(&self) -> mcp::SessionLimits {
        mcp::SessionLimits {
            per_key: self.mcp_max_sessions_per_key.max(1),
            per_address: self.mcp_max_sessions_per_address.max(1),
            total: self.mcp_max_sessions.max(1),
            idle: self.mcp_session_idle,
        }
    }
}

/// `basel` with no subcommand: serve, configured from the environment.
#[derive(Debug, Parser)]
struct ServeFromEnv {
    #[command(flatten)]
    serve: ServeSettings,
}

impl ServeSettings {
    /// The settings `basel serve` would get with no flags (environment and defaults).
    pub fn from_env() -> Self {
        ServeFromEnv::parse_from(["basel"]).serve
    }
}

impl Default for ServeSettings {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            mcp_listen: SocketAddr::from(([127, 0, 0, 1], 8081)),
            port: None,
            role: vec![Role::All],
            stale_after_days: 365,
            mcp_allowed_origins: Vec::new(),
            mcp_allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            mcp_rate: mcp::RateLimit::default(),
            ops_listen: SocketAddr::from(([127, 0, 0, 1], 8082)),
            public_url: None,
            mcp_public_url: None,
            register_rate: web::register_limit::RegisterRate::default(),
            auth_failure_rate: mcp::FailedAuth::default_rate(),
            metrics: web::counters::MetricsListener::default(),
            metrics_token: None,
            review: Review::default(),
            otlp_endpoint: None,
            mail: mail::MailSettings::default(),
            conn: web::edge::ConnSettings::default(),
            mcp_sessions: McpSessionSettings::default(),
            readiness: readiness::ReadinessSettings::default(),
        }
    }
}

/// `BASEL_METRICS_TOKEN`: at least 32 characters, none of them white space
/// (a guessable token would make the setting moot).
fn parse_metrics_token(text: &str) -> Result<String, String> {
    if text.chars().count() < 32 || text.chars().any(char::is_whitespace) {
        return Err("BASEL_METRICS_TOKEN must be at least 32 characters without white space (e.g. `openssl rand -hex 32`)".into());
    }
    Ok(text.to_owned())
}

impl ServeSettings {
    /// Whether `/metrics` is served on the REST listener (`false`) or the
    /// ops listener (`true`), with `BASEL_METRICS_TOKEN`.
    pub fn metrics_access(&self, ops: bool) -> web::counters::MetricsAccess {
        web::counters::MetricsAccess::of(self.metrics, ops, self.metrics_token.as_deref())
    }

    /// Whether this process opens the ops listener: when it has no REST
    /// listener, or when `/metrics` is served there only.
    pub fn opens_ops_listener(&self) -> bool {
        !self.runs(Role::Rest) || self.metrics == web::counters::MetricsListener::Ops
    }

    /// Whether this process runs `part`.
    pub fn runs(&self, part: Role) -> bool {
        self.role.iter().any(|r| *r == Role::All || *r == part)
    }
}

/// What a `basel serve` process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Role {
    /// REST, MCP, relay and projections in one process.
    All,
    /// The REST API only (reads projections others maintain).
    Rest,
    /// The MCP server only.
    Mcp,
    /// The outbox relay only (events table → JetStream).
    Relay,
    /// The projections only.
    Projector,
    /// The mail outbox only (feeds it from the log and sends).
    Mail,
}

/// Four-eyes review (`BASEL_REVIEW`), read the same by `basel serve` and
/// `basel import`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
pub struct Review {
    /// Four-eyes review: `required` (every steward change, over the
    /// console, REST or an import, is a proposal until another steward
    /// approves it) or `off`.
    #[arg(long = "review", env = "BASEL_REVIEW", default_value = "off", action = clap::ArgAction::Set, value_parser = parse_review)]
    pub required: bool,
}

/// Refuses `--port`, naming the flags that set the ports.
///
/// # Errors
/// Always.
fn no_port(text: &str) -> Result<String, String> {
    Err(format!(
        "basel listens on two addresses, not one port: use --listen 127.0.0.1:{text} for the REST API and the console, and --mcp-listen for the MCP server"
    ))
}

/// Reads `BASEL_REVIEW`: `required` or `off`.
///
/// # Errors
/// A sentence naming the two values.
pub fn parse_review(text: &str) -> Result<bool, String> {
    match text.trim() {
        "required" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("expected `required` or `off`, got {other:?}")),
    }
}

/// Checks `BASEL_PUBLIC_URL`: an absolute `http://` or `https://` URL with a
/// host; a trailing `/` is dropped.
///
/// # Errors
/// One sentence saying what an acceptable value looks like.
pub fn parse_public_url(text: &str) -> Result<String, String> {
    let url = text.trim().trim_end_matches('/');
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(char::is_whitespace) => {
            Ok(url.to_owned())
        }
        _ => Err(format!(
            "'{text}' is not an absolute http:// or https:// URL; write e.g. https://basel.example.org"
        )),
    }
}

#[cfg(test)]
mod url_tests {
    use super::*;

    #[test]
    fn public_urls_must_be_absolute() {
        assert_eq!(
            parse_public_url("https://basel.example.org/").as_deref(),
            Ok("https://basel.example.org")
        );
        assert!(parse_public_url("basel.example.org").is_err());
        assert!(parse_public_url("ftp://x").is_err());
        assert!(parse_public_url("http://").is_err());
    }
}
