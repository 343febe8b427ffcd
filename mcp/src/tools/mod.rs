//! The seven tools: definitions (title, description, input and output schema,
//! read-only annotations) and dispatch.
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

mod args;
mod codes;
mod country;
mod directory;
mod shipment;

use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use rmcp::ErrorData;
use serde::Serialize;
use serde_json::Value;

use crate::McpState;
use crate::{bounded, cursor, schemas};
pub(crate) use args::Args;

/// Records per page of `list_competent_authorities` unless asked otherwise.
pub(crate) const DEFAULT_PAGE_SIZE: u64 = 50;
/// The largest page `list_competent_authorities` serves.
pub(crate) const MAX_PAGE_SIZE: u64 = 200;
/// The longest search query accepted, in characters.
pub(crate) const MAX_QUERY_CHARS: usize = 200;
/// The longest waste description accepted, in characters (as on REST).
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 5000;

/// A failure the caller can act on: becomes an `isError` result.
#[derive(Debug)]
pub(crate) struct ToolError {
    /// Stable machine code: `invalid_argument`, `invalid_cursor`,
    /// `not_found`, `country_not_found`, `not_a_party`, `ambiguous`.
    pub(crate) code: &'static str,
    /// What went wrong and what to do, for the model to read.
    pub(crate) message: String,
}

impl ToolError {
    /// A bad argument.
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: "invalid_argument",
            message: message.into(),
        }
    }

    /// No country has this code or name (the same code as REST).
    pub(crate) fn country_not_found(message: impl Into<String>) -> Self {
        Self {
            code: "country_not_found",
            message: message.into(),
        }
    }

    /// Nothing matches.
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self {
            code: "not_found",
            message: message.into(),
        }
    }
}

/// What a tool body answers: a result, a tool error, or a protocol error.
pub(crate) enum Outcome {
    /// The JSON result.
    Done(Value),
    /// The caller can fix it.
    Refused(ToolError),
}

impl From<ToolError> for Outcome {
    fn from(error: ToolError) -> Self {
        Self::Refused(error)
    }
}

/// Serialises a result for [`Outcome::Done`].
pub(crate) fn done(value: impl Serialize) -> Result<Outcome, ErrorData> {
    serde_json::to_value(value)
        .map(Outcome::Done)
        .map_err(|e| internal("serialising a tool result", &e))
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

fn annotations(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title)
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

fn tool(
    name: &'static str,
    title: &str,
    description: &'static str,
    input: Value,
    output: Value,
) -> Tool {
    Tool::new(name, description, schemas::object(input))
        .with_title(title)
        .with_raw_output_schema(schemas::object(output))
        .with_annotations(annotations(title))
}

/// Every tool, in a stable order.
pub(crate) fn definitions() -> Vec<Tool> {
    vec![
        tool(
            "get_competent_authority",
            "Get a competent authority",
            "The Basel Convention record of one Party: its competent authorities and focal \
             point, each with its scope, its sources (values as printed, and which served \
             values are derived), its age and whether a steward verified it; and the Party \
             itself (how it became one, Annex VII, Ban Amendment acceptance). Accepts an ISO \
             3166-1 alpha-2 code (DE) or a country name (Germany); a State that is not a \
             Party gets not_a_party. With area (a Land, a region) and/or movement (export, \
             import, transit), `competent` lists the authorities for them with the reason. \
             Read it critically: most contacts come from historic public sources (fact \
             sheets of 2002-2009) and none is verified until a steward's check reaches the \
             authority; `stale` and each contact's `age` say how old what is known is. Tell \
             the user when a record is unverified, historic or stale.",
            schemas::authority_input(),
            schemas::record(),
        ),
        tool(
            "list_competent_authorities",
            "List competent authorities",
            "All countries in the directory, sorted by code, one page at a time (page_size, \
             default 50). Pass the returned nextCursor back as cursor for the next page. \
             Filters: verified (true/false) and has_contact (true: only records with any \
             contact detail). To find one country prefer search_competent_authorities or \
             get_competent_authority: listing is for overviews.",
            schemas::list_input(),
            schemas::list_page(),
        ),
        tool(
            "search_competent_authorities",
            "Search competent authorities",
            "Find directory records by ISO code, country name or another name (Turkey, \
             Czech Republic, Viet Nam, Ivory Coast; any case, accents optional), part of a \
             name, or part of an authority's name. Best matches first; the same search as \
             REST ?q=.",
            schemas::search_input(),
            schemas::search_result(),
        ),
        tool(
            "get_authority_history",
            "Get a record's history",
            "The audit trail of one country's record, oldest first: registration, contact \
             changes (old and new values) and every verification, with who made it and when.",
            schemas::country_input("ISO 3166-1 alpha-2 code (e.g. DE) or country name"),
            schemas::history(),
        ),
        tool(
            "classify_waste",
            "Classify a waste",
            "Turns a plain-language waste description (any of English, Spanish, Portuguese, \
             French, German, Italian, Dutch, and common Chinese and Vietnamese trade terms) \
             into Basel Convention signals: Y, A, B and H codes, UN numbers, the list type \
             (Amber, Green, Annex I, Annex II), whether Prior Informed Consent applies, \
             explanations quoting the entries and warnings. With origin and destination \
             (codes or names) it also names the control procedure. To answer 'who do I \
             notify?' for a route, with transit States and the authorities' records, use \
             plan_shipment instead. Informational only.",
            schemas::classify_input(),
            schemas::classification(),
        ),
        tool(
            "plan_shipment",
            "Plan a shipment",
            "Answers 'may I move this waste from A to B (through C), and who does what?': \
             prohibited (true, false or unknown) first, with every rule that decided it and \
             its article (Ban Amendment, Article 4(5) and Article 11 agreements, OECD Decision, \
             EU Waste Shipment Regulation, Article 6); when allowed, the steps in order and \
             who does each; each State's consent and its competent authorities chosen by \
             area and movement, with source and age. Give operation (recovery, disposal or \
             an R/D code): without it the answer gives both. Countries by code or name; an \
             unknown country is country_not_found. Informational only.",
            schemas::shipment_input(),
            schemas::shipment_plan(),
        ),
        tool(
            "lookup_basel_code",
            "Look up a Basel code",
            "Name, annex and status of any Y, A, B or H code: in force, or deleted and by what \
             it was replaced.",
            schemas::code_input(),
            schemas::code_info(),
        ),
    ]
}

/// Runs tool `name` with `args`.
///
/// # Errors
/// Invalid params for an unknown tool or cursor; internal error when the read
/// side cannot answer.
pub(crate) async fn call(
    state: &McpState,
    name: &str,
    args: Args,
) -> Result<CallToolResult, ErrorData> {
    let outcome = match name {
        "get_competent_authority" => directory::get(state, args).await?,
        "list_competent_authorities" => match directory::list(state, args).await {
            Err(error) if cursor::is_invalid(&error) => Outcome::Refused(ToolError {
                code: "invalid_cursor",
                message: cursor::INVALID.to_owned(),
            }),
            other => other?,
        },
        "search_competent_authorities" => directory::search(state, args).await?,
        "get_authority_history" => directory::history(state, args).await?,
        "classify_waste" => codes::classify(state, args).await?,
        "plan_shipment" => shipment::plan(state, args).await?,
        "lookup_basel_code" => codes::lookup(state, args)?,
        other => {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; call tools/list for the tools this server has",
                    bounded(other)
                ),
                None,
            ))
        }
    };
    Ok(match outcome {
        Outcome::Done(value) => CallToolResult::structured(value),
        Outcome::Refused(error) => refused(&error),
    })
}

/// The `isError` result of a refusal: one text block, `<code>: <message>`.
pub(crate) fn refused(error: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {}",
        error.code, error.message
    ))])
}
