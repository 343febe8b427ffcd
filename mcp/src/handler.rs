//! The rmcp `ServerHandler` both transports serve: server info and
//! instructions, the tools, the resources. Stateless apart from the shared
//! [`McpState`] and the rate limiter; one clone per session.
//!
//! Only what `get_info` advertises is answered: prompts, completions and
//! logging are -32601 (rmcp would answer an empty list or completion). On
//! protocol revision 2026-07-28 and later every result carries the server's
//! identity in `_meta["io.modelcontextprotocol/serverInfo"]`, as that
//! revision asks servers to.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, ErrorCode, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, MetaObject, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::answer::Caller;
use crate::live::{self, Subscriptions};
use crate::rate::Limiter;
use crate::records::Records;
use crate::resources;
use crate::state::{bounded, McpConfig, McpState};
use crate::tools;

/// The `_meta` key of the server's identity on 2026-07-28 results.
const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// What the server tells the model about itself at connection time.
/// What the server's instructions say before the tools and resources.
const INTRODUCTION: &str = "\
basel answers questions about the Basel Convention on the Control of Transboundary Movements of \
Hazardous Wastes. It is read-only.

Data: one record per Party (ISO 3166-1 alpha-2 code or any name the country goes by): the Party's \
standing (how and when it joined, Annex VII and OECD membership, Ban Amendment acceptance) and its \
contacts (competent authorities with their scope, the focal point), each value with the source it \
was taken from, how old it is and whether a steward has verified it. Most contacts come from \
historic public sources and are unverified: tell the user to confirm contact details before relying \
on them. Every change is kept: get_authority_history shows the audit trail.";

/// What the server's instructions say after them.
const DISCLAIMER: &str = "\
Disclaimer: classifications and shipment plans are informational only, generated automatically; \
they are not a legal determination. The classification of a waste and the procedure for its \
movement must be checked with the competent authorities of the countries of export, transit and \
import.";

/// The server's instructions, naming every tool and resource the server
/// offers (from their definitions, so the list cannot fall behind them).
fn instructions(tools: &[Tool]) -> String {
    let tools = tools
        .iter()
        .map(|tool| match tool.title.as_deref() {
            Some(title) => format!("{} ({})", tool.name, title.to_lowercase()),
            None => tool.name.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let resources = resources::uris().join(", ");
    format!("{INTRODUCTION}\n\nTools: {tools}. Resources: {resources}.\n\n{DISCLAIMER}")
}

/// The MCP server: tools and resources over the read side.
#[derive(Clone)]
pub(crate) struct Basel {
    state: Arc<McpState>,
    /// Every tool's route (`tools::router`).
    router: Arc<ToolRouter<Basel>>,
    /// The tools as `tools/list` shows them.
    tools: Arc<Vec<Tool>>,
    /// The instructions, made once from the tools.
    instructions: Arc<str>,
    limiter: Arc<Limiter>,
    /// The key of a legacy SSE session (streamable HTTP requests carry
    /// theirs in the request's extensions).
    caller: Option<Caller>,
    /// Changed country codes, when live updates are on.
    changes: Option<tokio::sync::broadcast::Sender<String>>,
    /// Added country codes, when list-change notices are on.
    added: Option<tokio::sync::broadcast::Sender<String>>,
    /// This session's `resources/subscribe`s.
    subscriptions: Arc<Subscriptions>,
    /// The streamable sessions, pinned awake while they have subscriptions.
    records: Arc<Records>,
    /// Cancelled when this session's handler is dropped (its service ended:
    /// closed, or put to sleep), ending the tasks it started.
    ended: CancellationToken,
    _ending: Arc<DropGuard>,
    /// Whether `notifications/initialized` was handled.
    initialized: Arc<AtomicBool>,
}

impl Basel {
    /// A handler over `state`, limited by `config.rate`.
    pub(crate) fn new(state: Arc<McpState>, config: &McpConfig, records: Arc<Records>) -> Self {
        let router = tools::router();
        let definitions = tools::published(&router);
        let ended = CancellationToken::new();
        Self {
            records,
            _ending: Arc::new(ended.clone().drop_guard()),
            ended,
            initialized: Arc::default(),
            state,
            instructions: instructions(&definitions).into(),
            router: Arc::new(router),
            tools: Arc::new(definitions),
            limiter: Arc::new(Limiter::new(config.rate)),
            caller: None,
            changes: config.changes.clone(),
            added: config.added.clone(),
            subscriptions: Arc::default(),
        }
    }

    /// This handler for one new session: no subscriptions yet.
    pub(crate) fn session(&self) -> Self {
        let ended = CancellationToken::new();
        Self {
            subscriptions: Arc::default(),
            _ending: Arc::new(ended.clone().drop_guard()),
            ended,
            initialized: Arc::default(),
            ..self.clone()
        }
    }

    /// This handler for one legacy SSE session opened with `caller`'s key.
    pub(crate) fn for_caller(&self, caller: Caller) -> Self {
        Self {
            caller: Some(caller),
            ..self.session()
        }
    }

    /// What the tools read.
    pub(crate) fn state(&self) -> &McpState {
        &self.state
    }

    fn identity() -> Implementation {
        Implementation::new("basel", env!("CARGO_PKG_VERSION"))
            .with_title("Basel Convention competent authorities and waste classifier")
    }

    /// Takes one call from the caller's allowance.
    fn admit(&self, context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let caller = self.caller.as_ref().or_else(|| {
            context
                .extensions
                .get::<Parts>()
                .and_then(|parts| parts.extensions.get::<Caller>())
        });
        self.limiter
            .take(caller.map(Caller::id).unwrap_or_default())
    }
}

/// Adds the server's identity to a result's `_meta` on 2026-07-28 and later.
fn sign(context: &RequestContext<RoleServer>, meta: &mut Option<MetaObject>) {
    let modern = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if !modern {
        return;
    }
    if let Ok(info) = serde_json::to_value(Basel::identity()) {
        meta.get_or_insert_default()
            .0
            .insert(SERVER_INFO_META_KEY.to_owned(), info);
    }
}

impl ServerHandler for Basel {
    /// Once a session is initialised, it hears of every country added to
    /// the directory (`notifications/resources/list_changed`).
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if self.initialized.swap(true, Ordering::AcqRel) {
            return;
        }
        if let Some(added) = &self.added {
            tokio::spawn(live::announce_additions(
                added.subscribe(),
                context.peer,
                self.ended.clone(),
            ));
        }
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources();
        let capabilities = match (self.changes.is_some(), self.added.is_some()) {
            (true, true) => capabilities
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .build(),
            (true, false) => capabilities.enable_resources_subscribe().build(),
            (false, true) => capabilities.enable_resources_list_changed().build(),
            (false, false) => capabilities.build(),
        };
        ServerConfig::new(capabilities)
            .with_server_info(Self::identity())
            .with_instructions(self.instructions.to_string())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(self.tools.as_ref().clone());
        sign(&context, &mut result.meta);
        Ok(result)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Err(not_offered("prompts/list"))
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Err(not_offered("completion/complete"))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.changes.as_ref().map(|_| live::accepted(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        match &self.changes {
            Some(changes) => live::listen(context, changes.subscribe()).await,
            None => {
                context.cancelled().await;
                Ok(())
            }
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(changes) = &self.changes else {
            return Err(not_offered("resources/subscribe"));
        };
        let uri = live::record_uri(&request.uri)?;
        if let Some(id) = session_id(&context) {
            self.records.pin(id, true);
        }
        self.subscriptions.add(uri, changes, context.peer);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.changes.is_none() {
            return Err(not_offered("resources/unsubscribe"));
        }
        let left = self.subscriptions.remove(&live::record_uri(&request.uri)?);
        if let (0, Some(id)) = (left, session_id(&context)) {
            self.records.pin(id, false);
        }
        Ok(())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: {}", bounded(&request.method)),
            None,
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.admit(&context)?;
        if !self.router.has_route(&request.name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; call tools/list for the tools this server has",
                    bounded(&request.name)
                ),
                None,
            ));
        }
        let mut meta = None;
        sign(&context, &mut meta);
        let response = self
            .router
            .call(ToolCallContext::new(self, request, context))
            .await?;
        Ok(match response {
            CallToolResponse::Complete(mut result) => {
                tools::argument_error(&mut result);
                result.meta = meta;
                CallToolResponse::Complete(result)
            }
            other => other,
        })
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        let mut result = resources::list(&self.state, cursor.as_deref()).await?;
        sign(&context, &mut result.meta);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut result = resources::templates();
        sign(&context, &mut result.meta);
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.admit(&context)?;
        let mut result = resources::read(&self.state, &request.uri).await?;
        sign(&context, &mut result.meta);
        Ok(ReadResourceResponse::from(result))
    }
}

/// The streamable HTTP session a request came in (its `Mcp-Session-Id`).
fn session_id(context: &RequestContext<RoleServer>) -> Option<&str> {
    context
        .extensions
        .get::<Parts>()?
        .headers
        .get("mcp-session-id")?
        .to_str()
        .ok()
}

/// -32601 for a method of a capability this server does not advertise.
fn not_offered(method: &'static str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("method not found: {method} (this server does not offer it)"),
        None,
    )
}
