//! A country as a model names it: an ISO code ("de"), the directory's name
//! ("Germany"), a common other name ("Turkey", "Czech Republic", "UK"), any
//! case, with or without accents.
//!
//! Resolution, in order: a two-letter code in the directory; a name or alias
//! equal after normalising; a name containing the input, if exactly one does.
//! Several candidates are an `ambiguous` tool error listing them.

use projections::directory::{AuthorityRow, Reader};
use rmcp::ErrorData;

use super::{internal, ToolError};
use crate::McpState;

/// Other names in common use, normalised, with their codes. The directory's
/// own names (ISO short names) are matched without this table.
const ALIASES: &[(&str, &str)] = &[
    ("uk", "GB"),
    ("great britain", "GB"),
    ("britain", "GB"),
    ("england", "GB"),
    ("united kingdom of great britain and northern ireland", "GB"),
    ("turkey", "TR"),
    ("czech republic", "CZ"),
    ("swaziland", "SZ"),
    ("holland", "NL"),
    ("viet nam", "VN"),
    ("republic of korea", "KR"),
    ("korea republic of", "KR"),
    ("democratic people s republic of korea", "KP"),
    ("russia", "RU"),
    ("ivory coast", "CI"),
    ("cape verde", "CV"),
    ("burma", "MM"),
    ("macedonia", "MK"),
    ("drc", "CD"),
    ("democratic republic of the congo", "CD"),
    ("republic of the congo", "CG"),
    ("uae", "AE"),
    ("east timor", "TL"),
    ("moldova republic of", "MD"),
    ("republic of moldova", "MD"),
    ("united republic of tanzania", "TZ"),
    ("syrian arab republic", "SY"),
    ("lao people s democratic republic", "LA"),
    ("state of palestine", "PS"),
    ("iran islamic republic of", "IR"),
    ("bolivia plurinational state of", "BO"),
    ("venezuela bolivarian republic of", "VE"),
    ("st kitts and nevis", "KN"),
    ("st lucia", "LC"),
    ("st vincent and the grenadines", "VC"),
    ("european union", "EU"),
];

/// Finds the directory record `input` names.
///
/// # Errors
/// `Ok(Err(..))` is a tool error (`not_found`, `ambiguous`, `invalid_argument`);
/// `Err(..)` means the directory cannot be read.
pub(crate) async fn resolve(
    state: &McpState,
    input: &str,
) -> Result<Result<AuthorityRow, ToolError>, ErrorData> {
    let reader = Reader::new(state.read_db.clone());
    let input = input.trim();
    if input.len() == 2 && input.bytes().all(|b| b.is_ascii_alphabetic()) {
        let code = input.to_ascii_uppercase();
        match reader.get(&code).await {
            Ok(Some(row)) => return Ok(Ok(row)),
            Ok(None) => {}
            Err(e) => return Err(internal("reading a directory record", &e)),
        }
    }
    let rows = reader
        .all()
        .await
        .map_err(|e| internal("reading the directory", &e))?;
    Ok(by_name(rows, input))
}

fn missing(input: &str) -> ToolError {
    ToolError::not_found(format!(
        "No competent-authority record for '{input}'. The directory has one record per Party to \
         the Basel Convention; use search_competent_authorities to find a country by part of its \
         name, or an ISO 3166-1 alpha-2 code."
    ))
}

/// Resolves a name among `rows`.
pub(crate) fn by_name(mut rows: Vec<AuthorityRow>, input: &str) -> Result<AuthorityRow, ToolError> {
    let wanted = normalise(input);
    if wanted.is_empty() {
        return Err(ToolError::invalid(
            "`country_code` must be an ISO code or a country name",
        ));
    }
    let alias = ALIASES
        .iter()
        .find(|(name, _)| *name == wanted)
        .map(|(_, code)| *code);
    let exact = rows.iter().position(|r| {
        normalise(&r.country_name) == wanted || Some(r.country_code.as_str()) == alias
    });
    if let Some(index) = exact {
        return Ok(rows.swap_remove(index));
    }
    let mut partial: Vec<AuthorityRow> = rows
        .into_iter()
        .filter(|r| wanted.len() >= 3 && normalise(&r.country_name).contains(&wanted))
        .collect();
    match partial.len() {
        0 => Err(missing(input)),
        1 => Ok(partial.remove(0)),
        _ => Err(ToolError {
            code: "ambiguous",
            message: format!(
                "'{input}' matches several countries: {}. Pass one of these codes.",
                partial
                    .iter()
                    .map(|r| format!("{} ({})", r.country_name, r.country_code))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// Lower case, common Latin accents folded, anything but letters and digits
/// turned into single spaces, a leading "the" dropped.
pub(crate) fn normalise(text: &str) -> String {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ø' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            'ý' | 'ÿ' => 'y',
            c if c.is_alphanumeric() => c,
            _ => ' ',
        })
        .collect();
    let words: Vec<&str> = folded.split_whitespace().collect();
    let words = match words.split_first() {
        Some((&"the", rest)) if !rest.is_empty() => rest,
        _ => &words[..],
    };
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(code: &str, name: &str) -> AuthorityRow {
        AuthorityRow {
            country_code: code.into(),
            country_name: name.into(),
            ca_name: None,
            email: None,
            phone: None,
            address: None,
            notes: None,
            verified: false,
            last_checked: None,
            source: None,
            source_method: None,
            source_steward: None,
            source_note: None,
            version: 1,
            position: 1,
            updated_at: String::new(),
        }
    }

    fn rows() -> Vec<AuthorityRow> {
        vec![
            row("CI", "Côte d'Ivoire"),
            row("DE", "Germany"),
            row("KP", "North Korea"),
            row("KR", "South Korea"),
            row("TR", "Türkiye"),
            row("GB", "United Kingdom"),
        ]
    }

    fn code(input: &str) -> Result<String, &'static str> {
        by_name(rows(), input)
            .map(|r| r.country_code)
            .map_err(|e| e.code)
    }

    #[test]
    fn names_resolve_by_name_alias_accent_free_spelling_or_unique_part() {
        assert_eq!(code("germany"), Ok("DE".into()));
        assert_eq!(code("  GERMANY "), Ok("DE".into()));
        assert_eq!(code("Cote d'Ivoire"), Ok("CI".into()));
        assert_eq!(code("Turkiye"), Ok("TR".into()));
        assert_eq!(code("Turkey"), Ok("TR".into()));
        assert_eq!(code("the United Kingdom"), Ok("GB".into()));
        assert_eq!(code("UK"), Ok("GB".into()));
        assert_eq!(code("South Korea"), Ok("KR".into()));
        assert_eq!(code("Germ"), Ok("DE".into()));
        assert_eq!(code("Korea"), Err("ambiguous"));
        assert_eq!(code("Atlantis"), Err("not_found"));
        assert_eq!(code("--"), Err("invalid_argument"));
    }
}
