//! Finding countries in the directory the way people and models name them:
//! an ISO code ("de"), the directory's name ("Germany"), a common other name
//! ("Turkey", "Czech Republic", "Viet Nam", "UK"), any case, with or without
//! accents. One implementation serves REST `GET /api/v1/ca?q=` and the MCP
//! search and country arguments, so both answer the same question the same
//! way.

use crate::directory::AuthorityRow;

/// The longest query read, in characters.
pub const MAX_QUERY_CHARS: usize = 200;

/// Other names of countries (normalised, see [`normalise`]) and the code
/// they stand for.
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
    ("vietnam", "VN"),
    ("republic of korea", "KR"),
    ("korea republic of", "KR"),
    ("democratic people s republic of korea", "KP"),
    ("russia", "RU"),
    ("ivory coast", "CI"),
    ("cote d ivoire", "CI"),
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

/// How well a row matches, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// The code, the name or another name of the country, exactly.
    Exact,
    /// The start of the country's name.
    Prefix,
    /// A part of the country's name or of another name.
    Part,
    /// A part of the authority's name.
    Authority,
}

/// The rows matching `query`, best first (then by code). Empty for a query
/// with nothing to search for.
pub fn search<'a>(rows: &'a [AuthorityRow], query: &str) -> Vec<&'a AuthorityRow> {
    let wanted = normalise(query);
    if wanted.is_empty() {
        return Vec::new();
    }
    let code = query.trim().to_ascii_uppercase();
    let mut ranked: Vec<(Rank, &AuthorityRow)> = rows
        .iter()
        .filter_map(|row| rank(row, &wanted, &code).map(|r| (r, row)))
        .collect();
    ranked.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.country_code.cmp(&b.1.country_code))
    });
    ranked.into_iter().map(|(_, row)| row).collect()
}

fn rank(row: &AuthorityRow, wanted: &str, code: &str) -> Option<Rank> {
    let name = normalise(&row.country_name);
    // The registry's names of the Party (its UN form, ISO and older UN
    // names), then the common other names of the alias table.
    let registry: Vec<String> = domain::parties::registry()
        .party(&row.country_code)
        .map(|p| {
            std::iter::once(&p.name)
                .chain(&p.other_names)
                .map(|n| normalise(n))
                .collect()
        })
        .unwrap_or_default();
    let other_names = || {
        registry.iter().map(String::as_str).chain(
            ALIASES
                .iter()
                .filter(move |(_, c)| *c == row.country_code)
                .map(|(alias, _)| *alias),
        )
    };
    if row.country_code == code || name == wanted || other_names().any(|a| a == wanted) {
        return Some(Rank::Exact);
    }
    if name.starts_with(wanted) {
        return Some(Rank::Prefix);
    }
    // Parts shorter than three letters match too much ("a", "de"); other
    // names count whole or as a part, so the official name decides order.
    if wanted.len() < 3 {
        return None;
    }
    if name.contains(wanted) || other_names().any(|a| a.contains(wanted)) {
        return Some(Rank::Part);
    }
    let authority = normalise(row.ca_name.as_deref().unwrap_or_default());
    authority.contains(wanted).then_some(Rank::Authority)
}

/// Which country an input names.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Exactly one: by code, by name or another name, or by the only name
    /// containing the input.
    Found(Box<AuthorityRow>),
    /// Several names contain the input.
    Ambiguous(Vec<AuthorityRow>),
    /// None does.
    NotFound,
    /// The input has nothing to look for (punctuation only).
    Empty,
}

/// The country `input` names among `rows`: a two-letter code in the
/// directory; a name or other name equal after normalising; a name
/// containing the input (three letters at least), if exactly one does.
pub fn resolve(rows: &[AuthorityRow], input: &str) -> Resolution {
    let input = input.trim();
    if input.len() == 2 && input.bytes().all(|b| b.is_ascii_alphabetic()) {
        let code = input.to_ascii_uppercase();
        if let Some(row) = rows.iter().find(|r| r.country_code == code) {
            return Resolution::Found(Box::new(row.clone()));
        }
    }
    let wanted = normalise(input);
    if wanted.is_empty() {
        return Resolution::Empty;
    }
    let alias = ALIASES
        .iter()
        .find(|(name, _)| *name == wanted)
        .map(|(_, code)| *code);
    let exact = rows
        .iter()
        .find(|r| normalise(&r.country_name) == wanted || Some(r.country_code.as_str()) == alias);
    if let Some(row) = exact {
        return Resolution::Found(Box::new(row.clone()));
    }
    let mut partial: Vec<AuthorityRow> = rows
        .iter()
        .filter(|r| wanted.len() >= 3 && normalise(&r.country_name).contains(&wanted))
        .cloned()
        .collect();
    match partial.len() {
        0 => Resolution::NotFound,
        1 => Resolution::Found(Box::new(partial.remove(0))),
        _ => Resolution::Ambiguous(partial),
    }
}

/// Lower case, accents and punctuation folded to plain letters and single
/// spaces, a leading "the" dropped: "The Côte d'Ivoire" → "cote d ivoire".
pub fn normalise(text: &str) -> String {
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

    fn row(code: &str, name: &str, authority: Option<&str>) -> AuthorityRow {
        AuthorityRow {
            country_code: code.into(),
            country_name: name.into(),
            ca_name: authority.map(str::to_owned),
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
            state: domain::authority::Authority::default(),
        }
    }

    fn rows() -> Vec<AuthorityRow> {
        vec![
            row("CI", "Côte d'Ivoire", None),
            row("CZ", "Czechia", None),
            row("DE", "Germany", Some("Umweltbundesamt")),
            row("KP", "North Korea", None),
            row("KR", "South Korea", None),
            row("TR", "Türkiye", None),
            row("GB", "United Kingdom", None),
            row("VN", "Viet Nam", None),
        ]
    }

    fn found(query: &str) -> Vec<String> {
        search(&rows(), query)
            .into_iter()
            .map(|r| r.country_code.clone())
            .collect()
    }

    fn code(input: &str) -> Result<String, String> {
        match resolve(&rows(), input) {
            Resolution::Found(row) => Ok(row.country_code.clone()),
            other => Err(format!("{other:?}").chars().take(9).collect()),
        }
    }

    #[test]
    fn search_knows_other_names_accents_and_authorities() {
        assert_eq!(found("turkey"), ["TR"]);
        assert_eq!(found("cote d'ivoire"), ["CI"]);
        assert_eq!(found("czech republic"), ["CZ"]);
        assert_eq!(found("viet nam"), ["VN"]);
        assert_eq!(found("TURKIYE"), ["TR"]);
        assert_eq!(found("de"), ["DE"]);
        assert_eq!(found("umwelt"), ["DE"]);
        assert_eq!(found("korea"), ["KP", "KR"]);
        assert!(found("--").is_empty());
    }

    #[test]
    fn exact_names_rank_before_parts() {
        let rows = vec![row("NE", "Niger", None), row("NG", "Nigeria", None)];
        let codes: Vec<_> = search(&rows, "niger")
            .iter()
            .map(|r| r.country_code.clone())
            .collect();
        assert_eq!(codes, ["NE", "NG"]);
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
        assert_eq!(code("de"), Ok("DE".into()));
        assert_eq!(code("Korea"), Err("Ambiguous".into()));
        assert_eq!(code("Atlantis"), Err("NotFound".into()));
        assert_eq!(code("--"), Err("Empty".into()));
    }
}
