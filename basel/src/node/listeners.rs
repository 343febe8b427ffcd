//! The listeners of one process, bound before anything else happens: a port
//! in use stops the start before the store is opened or written, and the
//! error names the setting that chose the port.

use std::net::SocketAddr;

use anyhow::Context;
use tokio::net::TcpListener;

use crate::node::public;
use crate::node::settings::{Role, ServeSettings};

/// The sockets this process serves on, by role.
#[derive(Default)]
pub struct Listeners {
    /// The REST API and the steward console (`--listen`).
    pub rest: Option<TcpListener>,
    /// `/healthz`, `/readyz`, `/metrics` without a REST listener (`--ops-listen`).
    pub ops: Option<TcpListener>,
    /// The MCP server (`--mcp-listen`).
    pub mcp: Option<TcpListener>,
}

impl Listeners {
    /// Binds every listener `settings` asks for.
    ///
    /// # Errors
    /// When an address cannot be bound: the error names the address, the
    /// flag and the variable that set it.
    pub async fn bind(settings: &ServeSettings) -> anyhow::Result<Self> {
        let mut bound = Self::default();
        if settings.runs(Role::Rest) {
            bound.rest = Some(bind(settings.listen, "--listen", "BASEL_LISTEN").await?);
        }
        if settings.opens_ops_listener() {
            let ops = bind(settings.ops_listen, "--ops-listen", "BASEL_OPS_LISTEN");
            bound.ops = Some(ops.await?);
        }
        if settings.runs(Role::Mcp) {
            let mcp = bind(settings.mcp_listen, "--mcp-listen", "BASEL_MCP_LISTEN");
            bound.mcp = Some(mcp.await?);
        }
        Ok(bound)
    }

    /// The MCP server's URL for the start page: `BASEL_MCP_PUBLIC_URL`, else
    /// its listener's address when this process serves MCP.
    ///
    /// # Errors
    /// When the bound address cannot be read.
    pub fn mcp_url(&self, settings: &ServeSettings) -> anyhow::Result<Option<String>> {
        match (&settings.mcp_public_url, &self.mcp) {
            (Some(url), _) => Ok(Some(url.clone())),
            (None, Some(listener)) => Ok(Some(public::url_of(listener.local_addr()?))),
            (None, None) => Ok(None),
        }
    }
}

async fn bind(addr: SocketAddr, flag: &str, variable: &str) -> anyhow::Result<TcpListener> {
    TcpListener::bind(addr).await.with_context(|| {
        format!(
            "cannot listen on {addr} (set by {flag} or {variable}; another process may hold it)"
        )
    })
}
