//! The classifier tools: `classify_waste` (the same checks and result as
//! `POST /api/v1/classify`) and `lookup_basel_code`.

use domain::values::CountryCode;
use rmcp::ErrorData;

use super::{args::Args, done, Outcome, ToolError, MAX_DESCRIPTION_CHARS};
use crate::McpState;

/// `classify_waste`: a description (and optionally a country pair, by code
/// or name) → codes.
pub(crate) async fn classify(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let description = match args
        .only(&["description", "origin", "destination"])
        .and_then(|()| args.required("description", MAX_DESCRIPTION_CHARS))
    {
        Ok(description) => description,
        Err(refusal) => return Ok(refusal.into()),
    };
    let origin = match country(state, &args, "origin").await? {
        Ok(code) => code,
        Err(refusal) => return Ok(refusal.into()),
    };
    let destination = match country(state, &args, "destination").await? {
        Ok(code) => code,
        Err(refusal) => return Ok(refusal.into()),
    };
    done(
        state
            .classifier
            .classify(&description, origin.as_ref(), destination.as_ref()),
    )
}

/// A country argument: a two-letter code, or a name the directory knows
/// (resolved as `get_competent_authority` resolves it).
async fn country(
    state: &McpState,
    args: &Args,
    name: &str,
) -> Result<Result<Option<CountryCode>, ToolError>, ErrorData> {
    let text = match args.string(name) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Ok(None)),
        Err(refusal) => return Ok(Err(refusal)),
    };
    if text.len() == 2 {
        if let Ok(code) = CountryCode::parse(&text) {
            return Ok(Ok(Some(code)));
        }
    }
    Ok(super::country::resolve(state, &text)
        .await?
        .and_then(|row| {
            CountryCode::parse(&row.country_code)
                .map(Some)
                .map_err(|e| ToolError::invalid(format!("`{name}`: {e}")))
        }))
}

/// `lookup_basel_code`: what the knowledge base knows of one code.
pub(crate) fn lookup(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let code = match args
        .only(&["code"])
        .and_then(|()| args.required("code", 20))
    {
        Ok(code) => code,
        Err(refusal) => return Ok(refusal.into()),
    };
    match state.classifier.lookup(&code) {
        Some(info) => done(info),
        None => Ok(ToolError::not_found(format!(
            "'{code}' is not a Basel code. Codes look like Y31 (Annexes I/II), A1160 (Annex VIII), \
             B3020 (Annex IX) or H6.1 (Annex III)."
        ))
        .into()),
    }
}
