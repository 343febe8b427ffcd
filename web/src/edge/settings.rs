//! The connection limits of both listeners, as flags with `BASEL_*`
//! environment fallbacks (flattened into `basel serve`'s settings).

use std::time::Duration;

use clap::Args;

/// The default of `BASEL_MAX_CONNECTIONS`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;

/// How long clients may take and how many connections they may hold. Each
/// listener (REST, MCP) applies them on its own.
#[derive(Debug, Clone, Args)]
pub struct ConnSettings {
    /// Time a client has to send a complete request head, counted from the
    /// connection's start or, on a kept-alive HTTP/1 connection, from the
    /// end of the previous answer (so it is also the keep-alive idle limit).
    #[arg(long, env = "BASEL_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// A connection on which no byte moves either way for this long is
    /// closed, within a quarter more (open event streams send a keep-alive
    /// comment every 15 s).
    #[arg(long, env = "BASEL_IDLE_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Time a client has to send a whole request body once its head is in
    /// (408 past it).
    #[arg(long, env = "BASEL_BODY_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub body_timeout: Duration,
    /// Open connections per listener; past it new ones get a 503 and are
    /// closed. The default is lowered, without a warning, to what the
    /// process's open-file limit leaves room for.
    #[arg(long, env = "BASEL_MAX_CONNECTIONS", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Open connections per client address per listener; past it new ones get
    /// a 429 and are closed (raise it behind a proxy or load balancer, whose
    /// connections all come from its own address).
    #[arg(long, env = "BASEL_MAX_CONNECTIONS_PER_PEER", default_value_t = 256)]
    pub max_connections_per_peer: usize,
}

impl Default for ConnSettings {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(10),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_peer: 256,
        }
    }
}

/// `500ms`, `10s`, `5m`, or a bare number of seconds.
///
/// # Errors
/// When the text is not one of those, or is zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration such as 500ms, 10s or 5m"))?;
    let duration = match unit {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        _ => return Err(format!("`{text}`: the unit must be ms, s or m")),
    };
    if duration.is_zero() {
        return Err("a duration must be more than zero".into());
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_and_without_a_unit() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("10h").is_err());
        assert!(parse_duration("ten").is_err());
    }
}
