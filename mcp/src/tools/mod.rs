//! The seven tools, declared with rmcp's typed router: each tool is one
//! `#[tool]` method of [`Basel`] whose arguments are a `Parameters<T>` over a
//! type deriving `Deserialize + JsonSchema` (bounds on its fields' types, see
//! `args`), and whose answer is `Json<U>` over the type it returns. rmcp
//! derives the name, the input schema and the output schema from that one
//! signature; [`published`] tidies the schemas and adds the annotations every
//! tool shares (all are read-only).
//!
//! Every successful call returns the result as `structuredContent` and the
//! same JSON as text content. Anything the caller can fix (a bad argument, a
//! bad cursor, a country or code that does not exist) is a tool error
//! (`isError: true`) whose only content is one text block
//! `<stable code>: <message>`, e.g. `country_not_found: no competent authority for
//! XX; …`. It carries no `structuredContent`: that would have to match the
//! tool's output schema, and clients that check it (the TypeScript SDK)
//! would turn the refusal into a protocol error the model never reads.
//! Protocol errors are kept for an unknown tool (-32602) and a read side
//! that cannot answer (-32603).
//!
//! A new tool is one method in one of the `#[tool_router]` blocks (or a new
//! block added to [`router`]) plus its argument and answer types.

mod args;
mod codes;
mod country;
mod directory;
mod shipment;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, Tool, ToolAnnotations};
use rmcp::ErrorData;

use crate::handler::Basel;
use crate::schemas;

/// The longest waste description accepted, in characters (as on REST).
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 5000;
/// The longest country argument (a code or a name), in characters.
pub(crate) const MAX_COUNTRY_CHARS: usize = 100;
/// The longest Basel code or operation argument, in characters.
pub(crate) const MAX_CODE_CHARS: usize = 20;

/// Why a tool gave no answer.
#[derive(Debug)]
pub(crate) enum ToolError {
    /// The caller can act on it: an `isError` result `<code>: <message>`.
    Refused {
        /// Stable machine code: `invalid_argument`, `invalid_cursor`,
        /// `not_found`, `country_not_found`, `not_a_party`, `ambiguous`.
        code: &'static str,
        /// What went wrong and what to do, for the model to read.
        message: String,
    },
    /// The read side cannot answer: a protocol error (already logged).
    Unavailable(ErrorData),
}

impl ToolError {
    /// A refusal with `code`.
    pub(crate) fn refused(code: &'static str, message: impl Into<String>) -> Self {
        Self::Refused {
            code,
            message: message.into(),
        }
    }

    /// A bad argument.
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::refused("invalid_argument", message)
    }

    /// No country has this code or name (the same code as REST).
    pub(crate) fn country_not_found(message: impl Into<String>) -> Self {
        Self::refused("country_not_found", message)
    }

    /// Nothing matches.
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::refused("not_found", message)
    }
}

impl From<ErrorData> for ToolError {
    fn from(error: ErrorData) -> Self {
        Self::Unavailable(error)
    }
}

impl IntoCallToolResult for ToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        match self {
            Self::Refused { code, message } => Ok(refusal(code, &message).into()),
            Self::Unavailable(error) => Err(error),
        }
    }
}

/// The protocol error for a read side that cannot answer; the cause is
/// logged here, once, and never sent to the client.
pub(crate) fn internal(context: &str, cause: &dyn std::fmt::Display) -> ErrorData {
    tracing::error!(error = %cause, "MCP: {context}");
    ErrorData::internal_error(
        "the directory cannot be read right now; try again shortly",
        None,
    )
}

/// The `isError` result of a refusal: one text block, `<code>: <message>`.
fn refusal(code: &str, message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("{code}: {message}"))])
}

/// Every tool's route.
pub(crate) fn router() -> ToolRouter<Basel> {
    Basel::directory_tools() + Basel::code_tools() + Basel::shipment_tools()
}

/// The tools as `tools/list` shows them: tidy schemas (see
/// `schemas::tidy_input`, `schemas::tidy_output`) and the annotations of a
/// read-only tool, titled as the tool.
pub(crate) fn published(router: &ToolRouter<Basel>) -> Vec<Tool> {
    router
        .list_all()
        .into_iter()
        .map(|mut tool| {
            tool.description = tool
                .description
                .as_deref()
                .map(|d| schemas::plain(d).into());
            tool.input_schema = schemas::tidy_input(&tool.input_schema);
            tool.output_schema = tool.output_schema.as_deref().map(schemas::tidy_output);
            let title = tool.title.clone().unwrap_or_else(|| tool.name.to_string());
            tool.annotations = Some(
                ToolAnnotations::with_title(title)
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(false),
            );
            tool
        })
        .collect()
}

/// What rmcp writes before the reason when a tool's arguments do not
/// deserialise into its `Parameters` type (it answers a tool error, not a
/// protocol error: the model can correct its call).
const UNREADABLE_ARGUMENTS: &str = "failed to deserialize parameters: ";

/// Restates rmcp's tool error for arguments that do not fit their type in
/// this server's form: `invalid_argument: <reason>`.
pub(crate) fn argument_error(result: &mut CallToolResult) {
    if result.is_error != Some(true) {
        return;
    }
    let [ContentBlock::Text(text)] = result.content.as_mut_slice() else {
        return;
    };
    if let Some(reason) = text.text.strip_prefix(UNREADABLE_ARGUMENTS) {
        text.text = format!("invalid_argument: {reason}");
    }
}
