//! The classifier tools: `classify_waste` (the same checks and result as
//! `POST /api/v1/classify`) and `lookup_basel_code`.

use domain::values::CountryCode;
use rmcp::ErrorData;

use super::{args::Args, done, Outcome, ToolError, MAX_DESCRIPTION_CHARS};
use crate::McpState;

/// `classify_waste`: a description (and optionally a country pair) → codes.
pub(crate) fn classify(state: &McpState, args: Args) -> Result<Outcome, ErrorData> {
    let parsed = args
        .only(&["description", "origin", "destination"])
        .and_then(|()| {
            Ok((
                args.required("description", MAX_DESCRIPTION_CHARS)?,
                country(&args, "origin")?,
                country(&args, "destination")?,
            ))
        });
    match parsed {
        Ok((description, origin, destination)) => done(state.classifier.classify(
            &description,
            origin.as_ref(),
            destination.as_ref(),
        )),
        Err(refusal) => Ok(refusal.into()),
    }
}

fn country(args: &Args, name: &str) -> Result<Option<CountryCode>, ToolError> {
    args.string(name)?
        .map(|code| {
            CountryCode::parse(&code).map_err(|_| {
                ToolError::invalid(format!(
                    "`{name}` must be an ISO 3166-1 alpha-2 country code such as DE or NG"
                ))
            })
        })
        .transpose()
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
