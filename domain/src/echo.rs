//! Client-supplied text quoted in a log line or an error message (a `Host`
//! header, a method, an `Origin`, a JSON-RPC method name): control
//! characters escaped, so one value is one line and cannot forge another;
//! long values cut, with `…`, so a client cannot write kilobytes into the
//! log.
//!
//! Escaped: every control character (C0, DEL, C1: `\r`, `\n`, `\t`, else
//! `\u{..}`), the characters that reorder or break text (line and paragraph
//! separators, bidirectional overrides and isolates), and `\` itself, so an
//! escaped value reads back unambiguously.

use std::borrow::Cow;

/// The most characters of a client-supplied value that go into a log line
/// or an error message, escapes counted.
pub const MAX_ECHOED_CHARS: usize = 120;

/// `text` as it may be logged: escaped, and cut to `max_chars` characters
/// (escapes counted) with `…` after it when cut.
pub fn loggable(text: &str, max_chars: usize) -> Cow<'_, str> {
    if !text.chars().any(escaped) && text.chars().nth(max_chars).is_none() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(joined(text.chars().map(piece), max_chars))
}

/// Raw header bytes as [`loggable`] text: a byte that is not part of UTF-8
/// text becomes `\x..`.
pub fn loggable_bytes(bytes: &[u8], max_chars: usize) -> String {
    let pieces = bytes.utf8_chunks().flat_map(|chunk| {
        let text = chunk.valid().chars().map(piece);
        let invalid = chunk.invalid().iter().map(|b| format!("\\x{b:02x}"));
        text.chain(invalid)
    });
    joined(pieces, max_chars)
}

/// One character as logged.
fn piece(c: char) -> String {
    if escaped(c) {
        c.escape_default().to_string()
    } else {
        c.to_string()
    }
}

/// `pieces` joined up to `max_chars` characters; a piece that does not fit
/// whole is left out, and `…` marks the cut.
fn joined(pieces: impl Iterator<Item = String>, max_chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for piece in pieces {
        let len = piece.chars().count();
        if count + len > max_chars {
            out.push('…');
            break;
        }
        out.push_str(&piece);
        count += len;
    }
    out
}

fn escaped(c: char) -> bool {
    c.is_control()
        || c == '\\'
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_with_cr_lf_and_five_thousand_characters_is_escaped_and_cut() {
        let host = format!("evil.example\r\nX-Forged: 1\t{}", "a".repeat(5_000));
        let logged = loggable(&host, MAX_ECHOED_CHARS);
        assert!(
            logged.starts_with("evil.example\\r\\nX-Forged: 1\\t"),
            "{logged}"
        );
        assert!(!logged.contains(['\r', '\n', '\t']), "{logged}");
        assert!(logged.ends_with('…'), "{logged}");
        assert_eq!(logged.chars().count(), MAX_ECHOED_CHARS + 1);
    }

    #[test]
    fn plain_short_text_is_kept_as_it_is() {
        assert!(matches!(loggable("GET", 16), Cow::Borrowed("GET")));
        assert_eq!(loggable("Zürich", 16), "Zürich");
    }

    #[test]
    fn escapes_are_never_cut_in_half_and_backslashes_are_escaped() {
        assert_eq!(loggable("ab\u{1b}[31m", 3), "ab…");
        assert_eq!(loggable("a\\b", 10), "a\\\\b");
        assert_eq!(loggable("x\u{202e}y", 20), "x\\u{202e}y");
        assert_eq!(loggable_bytes(b"h\xffst", 20), "h\\xffst");
    }
}
