//! A country as a model names it: an ISO code ("de"), the directory's name
//! ("Germany"), a common other name ("Turkey", "Czech Republic", "UK"), any
//! case, with or without accents.
//!
//! Resolution is `projections::search::resolve`, the same the REST edge
//! uses: a two-letter code in the directory; a name or other name equal after
//! normalising; a name containing the input, if exactly one does. Several
//! candidates are an `ambiguous` tool error listing them.

use projections::directory::AuthorityRow;
use projections::search::{self, Resolution};

use super::ToolError;

fn missing(input: &str) -> ToolError {
    ToolError::country_not_found(format!(
        "No competent-authority record for '{input}'. The directory has one record per Party to \
         the Basel Convention; use search_competent_authorities to find a country by part of its \
         name, or an ISO 3166-1 alpha-2 code."
    ))
}

/// The refusal for a State that is not a Party, named by code or name.
fn not_a_party(input: &str) -> Option<ToolError> {
    use domain::parties::{registry, Standing};
    let code = registry().code_of(input)?;
    match registry().standing(&code) {
        Standing::NotAParty(other) => Some(ToolError::refused(
            "not_a_party",
            format!(
                "{}: the directory holds records of Basel Parties only.",
                other.summary
            ),
        )),
        _ => None,
    }
}

/// The record among `rows` that `input` (a code or a name) names.
///
/// # Errors
/// `country_not_found`, `not_a_party`, `ambiguous` or `invalid_argument`
/// (nothing left to search for).
pub(crate) fn by_name(rows: &[AuthorityRow], input: &str) -> Result<AuthorityRow, ToolError> {
    match search::resolve(rows, input) {
        Resolution::Found(row) => Ok(*row),
        Resolution::Empty => Err(ToolError::invalid(
            "`country_code` must be an ISO code or a country name",
        )),
        Resolution::NotFound => Err(not_a_party(input).unwrap_or_else(|| missing(input))),
        Resolution::Ambiguous(rows) => Err(ToolError::refused(
            "ambiguous",
            format!(
                "'{input}' matches several countries: {}. Pass one of these codes.",
                rows.iter()
                    .map(|r| format!("{} ({})", r.country_name, r.country_code))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}
