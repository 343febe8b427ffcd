//! What `/readyz` checks besides the roles (`BASEL_READY_MAX_LAG`).

use std::time::Duration;

use web::readiness::DEFAULT_MAX_LAG;

/// What `/readyz` checks besides the roles (`BASEL_READY_MAX_LAG`).
#[derive(Debug, Clone, clap::Args)]
pub struct ReadinessSettings {
    /// How long an event may wait for a projection while a REST or MCP
    /// process still answers ready on `/readyz` (e.g. `30s`, `5m`).
    #[arg(long, env = "BASEL_READY_MAX_LAG", default_value = "60s", value_parser = web::edge::settings::parse_duration)]
    pub ready_max_lag: Duration,
}

impl Default for ReadinessSettings {
    fn default() -> Self {
        Self {
            ready_max_lag: DEFAULT_MAX_LAG,
        }
    }
}
