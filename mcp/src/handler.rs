//! The rmcp `ServerHandler` both transports serve: server info and
//! instructions, the tools, the resources. Stateless apart from the shared
//! [`McpState`]; one clone per session.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::tools::{self, Args};
use crate::{resources, McpState};

/// What the server tells the model about itself at connection time.
const INSTRUCTIONS: &str = "\
basel answers questions about the Basel Convention on the Control of Transboundary Movements of \
Hazardous Wastes. It is read-only.

Data: one competent-authority (CA) record per Party (ISO 3166-1 alpha-2): the authority's name, \
e-mail, phone, address, whether the record is verified, when it was last checked, and its \
provenance (who checked it, how, against which source). Records seeded from historic public \
sources (2002-2006 Secretariat fact sheets) are unverified; `stale: true` means the last check is \
missing or old, so tell the user to confirm contact details before relying on them. Every change \
is kept: get_authority_history shows the audit trail.

Tools: get_competent_authority (code or country name), list_competent_authorities (pages; pass \
nextCursor back), search_competent_authorities, get_authority_history, classify_waste (plain-language \
description, optional origin/destination codes), lookup_basel_code (Y/A/B/H codes, including \
deleted ones). Resources: basel://ca/{country_code}, basel://codes/{code}.

Disclaimer: classifications are informational only, generated automatically from a description; \
they are not a legal determination. The classification of a waste and the procedure for its \
movement must be checked with the competent authorities of the countries of export, transit and \
import.";

/// The MCP server: tools and resources over the read side.
#[derive(Clone)]
pub(crate) struct Basel {
    state: Arc<McpState>,
    tools: Arc<Vec<Tool>>,
}

impl Basel {
    /// A handler over `state`.
    pub(crate) fn new(state: Arc<McpState>) -> Self {
        Self {
            state,
            tools: Arc::new(tools::definitions()),
        }
    }
}

impl ServerHandler for Basel {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("basel", env!("CARGO_PKG_VERSION"))
                .with_title("Basel Convention competent authorities and waste classifier"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        tools::call(&self.state, &request.name, Args::new(request.arguments))
            .await
            .map(CallToolResponse::from)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        resources::list(&self.state, cursor.as_deref()).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(&self.state, &request.uri)
            .await
            .map(ReadResourceResponse::from)
    }
}
