//! Text normalisation: the same function turns both the user's description
//! and the curated terms into tokens, so they meet half-way.
//!
//! Lower case; every non-alphanumeric character separates tokens (so
//! "lead-acid" and "lead acid" agree); British/American spelling and
//! plural/singular folded by [`fold_token`]. Clause punctuation is kept as a
//! flag on the next token, because negation stops at a clause boundary.

use std::collections::HashMap;

/// One normalised word of a description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The folded word.
    pub text: String,
    /// What precedes it: [`NO_BREAK`], [`COMMA`] or [`CLAUSE`] (`. ; : ! ?`
    /// or a line break). Brackets do not break: "chromium(VI)" is one phrase.
    pub break_before: u8,
}

/// No punctuation before the token.
pub const NO_BREAK: u8 = 0;
/// A comma (or `/`, `&`, `+`) before the token: a list continues.
pub const COMMA: u8 = 1;
/// A clause break before the token.
pub const CLAUSE: u8 = 2;

/// The longest description the classifier reads, in characters. Longer input
/// is cut here (with a warning), which bounds the work per request.
pub const MAX_CHARS: usize = 4000;

/// Splits and folds `text` into tokens, reading at most [`MAX_CHARS`].
pub fn tokenize(text: &str, spellings: &HashMap<String, String>) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut pending_break = NO_BREAK;
    for ch in text.chars().take(MAX_CHARS) {
        if ch.is_alphanumeric() {
            word.extend(ch.to_lowercase());
            continue;
        }
        flush(&mut word, &mut tokens, &mut pending_break, spellings);
        let level = match ch {
            '.' | ';' | ':' | '\n' | '!' | '?' => CLAUSE,
            ',' | '/' | '&' | '+' => COMMA,
            _ => NO_BREAK,
        };
        pending_break = pending_break.max(level);
    }
    flush(&mut word, &mut tokens, &mut pending_break, spellings);
    tokens
}

fn flush(
    word: &mut String,
    tokens: &mut Vec<Token>,
    pending_break: &mut u8,
    spellings: &HashMap<String, String>,
) {
    if word.is_empty() {
        return;
    }
    tokens.push(Token {
        text: fold_token(word, spellings),
        break_before: std::mem::take(pending_break),
    });
    word.clear();
}

/// Folds one lower-case word: spelling variants first (from the curated
/// table), then `-ize` to `-ise`, then a light plural strip.
pub fn fold_token(word: &str, spellings: &HashMap<String, String>) -> String {
    if let Some(canonical) = spellings.get(word) {
        return canonical.clone();
    }
    let folded = singular(&british(word));
    match spellings.get(&folded) {
        Some(canonical) => canonical.clone(),
        None => folded,
    }
}

fn british(word: &str) -> String {
    for (us, gb) in [
        ("ization", "isation"),
        ("izing", "ising"),
        ("ized", "ised"),
        ("izes", "ises"),
        ("ize", "ise"),
        ("izer", "iser"),
    ] {
        if word.len() > us.len() + 2 {
            if let Some(stem) = word.strip_suffix(us) {
                return format!("{stem}{gb}");
            }
        }
    }
    word.to_owned()
}

fn singular(word: &str) -> String {
    let n = word.chars().count();
    if n <= 3 || !word.is_ascii() {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for suffix in ["sses", "xes", "ches", "shes", "zzes"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_owned();
        }
    }
    if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// Normalises a curated phrase into its token texts.
pub fn phrase_tokens(phrase: &str, spellings: &HashMap<String, String>) -> Vec<String> {
    tokenize(phrase, spellings)
        .into_iter()
        .map(|t| t.text)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        phrase_tokens(s, &HashMap::new())
    }

    #[test]
    fn hyphens_case_and_plurals_fold_together() {
        assert_eq!(texts("Lead-Acid Batteries"), texts("lead acid battery"));
        assert_eq!(texts("PCBs"), vec!["pcb"]);
        assert_eq!(texts("galvanized"), texts("galvanised"));
    }

    #[test]
    fn clause_punctuation_marks_the_next_token() {
        let t = tokenize("free of lead, mercury", &HashMap::new());
        assert_eq!(t[3].break_before, COMMA);
        assert_eq!(t[1].break_before, NO_BREAK);
    }
}
