//! What a process tells its operator and its clients about where it is:
//! the public URL (`BASEL_PUBLIC_URL`, else derived from the REST listen
//! address), and where its data lives (the data directory, or the
//! PostgreSQL host without user or password) for the start-up lines.

use std::net::SocketAddr;
use std::path::Path;

/// `http://` and `addr`, with a wildcard address (`0.0.0.0`, `::`) shown as
/// `127.0.0.1`: the URL the operator can open on this machine.
pub fn url_of(addr: SocketAddr) -> String {
    let ip = addr.ip();
    match (ip.is_unspecified(), ip) {
        (true, _) => format!("http://127.0.0.1:{}", addr.port()),
        (false, std::net::IpAddr::V6(v6)) => format!("http://[{v6}]:{}", addr.port()),
        (false, std::net::IpAddr::V4(v4)) => format!("http://{v4}:{}", addr.port()),
    }
}

/// Where the data lives, for the start-up line: `PostgreSQL at
/// host:port/database` (never the user or password) or `embedded SQLite in
/// <absolute data dir>`.
pub fn data_location(database_url: Option<&str>, data_dir: &Path) -> String {
    match database_url {
        Some(url) => format!("PostgreSQL at {}", postgres_target(url)),
        None => {
            let dir = data_dir
                .canonicalize()
                .unwrap_or_else(|_| data_dir.to_path_buf());
            format!("embedded SQLite in {}", dir.display())
        }
    }
}

/// `host:port/database` of a PostgreSQL URL, without user or password.
pub fn postgres_target(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let database = path.split(['?', '#']).next().unwrap_or_default();
    if database.is_empty() {
        host.to_owned()
    } else {
        format!("{host}/{database}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_addresses_become_loopback_urls() {
        assert_eq!(
            url_of("0.0.0.0:8080".parse().unwrap()),
            "http://127.0.0.1:8080"
        );
        assert_eq!(url_of("[::1]:9".parse().unwrap()), "http://[::1]:9");
    }

    #[test]
    fn the_database_target_never_shows_the_password() {
        assert_eq!(
            postgres_target("postgres://basel:s3cret@db.example.org:5432/basel?sslmode=require"),
            "db.example.org:5432/basel"
        );
        assert_eq!(postgres_target("postgresql://localhost"), "localhost");
    }
}

/// The addresses a process's listeners are bound to.
#[derive(Debug, Default, Clone, Copy)]
pub struct Bound {
    /// The REST listener.
    pub rest: Option<SocketAddr>,
    /// The MCP listener.
    pub mcp: Option<SocketAddr>,
    /// The ops listener (processes without REST).
    pub ops: Option<SocketAddr>,
}

/// The start-up lines: where to reach each listener, where to get a key,
/// where the data lives.
pub fn announce(
    bound: &Bound,
    settings: &crate::node::settings::ServeSettings,
    store: &crate::node::settings::StoreSettings,
) {
    let rest = bound
        .rest
        .map(|addr| settings.public_url.clone().unwrap_or_else(|| url_of(addr)));
    if let Some(url) = &rest {
        tracing::info!(
            url = %url,
            "REST API at {url} (API reference {url}/docs, OpenAPI {url}/api/v1/openapi.json)"
        );
    }
    if let Some(addr) = bound.mcp {
        let url = url_of(addr);
        tracing::info!(
            url = %url,
            "MCP server at {url}/mcp (streamable HTTP) and {url}/sse (legacy SSE); clients send the API key as `Authorization: Bearer KEY` or `X-API-Key: KEY`"
        );
    }
    if let Some(addr) = bound.ops {
        let url = url_of(addr);
        tracing::info!(url = %url, "health at {url}/healthz, readiness at {url}/readyz, metrics at {url}/metrics");
    }
    tracing::info!(
        "data: {}",
        data_location(store.database_url.as_deref(), &store.data_dir)
    );
    if let Some(url) = rest.or_else(|| settings.public_url.clone()) {
        tracing::info!("get an API key at {url}/register");
    }
}
