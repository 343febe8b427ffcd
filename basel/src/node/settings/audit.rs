//! The verifiable log's settings (`BASEL_SIGNING_KEY`, `BASEL_AUDIT_ORIGIN`,
//! checkpoint cadence), read by every subcommand.

use clap::Args;

/// The verifiable log's settings.
#[derive(Debug, Clone, Args)]
pub struct AuditSettings {
    /// Ed25519 key signing checkpoints: 32 bytes, hex or base64. Absent:
    /// `<data-dir>/signing.key` (generated, 0600) in embedded mode, derived
    /// from BASEL_SECRET in server mode.
    #[arg(long, env = "BASEL_SIGNING_KEY", hide_env_values = true, global = true)]
    pub signing_key: Option<String>,
    /// The log's origin: the first line of every checkpoint and the key's name.
    #[arg(
        long,
        env = "BASEL_AUDIT_ORIGIN",
        default_value = "basel.local/audit",
        global = true
    )]
    pub audit_origin: String,
    /// A checkpoint is signed after this many new events…
    #[arg(
        long,
        env = "BASEL_CHECKPOINT_EVERY",
        default_value_t = 100,
        global = true
    )]
    pub checkpoint_every: u64,
    /// …or this many seconds after the last one, if the log grew.
    #[arg(
        long,
        env = "BASEL_CHECKPOINT_INTERVAL",
        default_value_t = 60,
        global = true
    )]
    pub checkpoint_interval: u64,
}
