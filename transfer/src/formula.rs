//! CSV cells a spreadsheet would read as a formula (OWASP "CSV injection"):
//! on export a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage
//! return gets a leading `'`, which spreadsheets show as text and hide; so
//! does a cell that already starts with `'`, so the escaping can be undone
//! exactly. On import a cell starting with `'` followed by one of those
//! characters loses that one `'`, and nothing else changes: a file exported
//! by basel reads back to the values it held (phones in `+CC-…` form
//! included), and a cell written by hand with a single leading `'` before
//! ordinary text is kept as it is.

use std::borrow::Cow;

/// The first characters that make a spreadsheet evaluate a cell, and `'`
/// itself (escaped so that unescaping is exact).
const TRIGGERS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// `cell` as written to a CSV file: with a leading `'` when it starts with
/// a trigger.
pub fn escape(cell: &str) -> Cow<'_, str> {
    match cell.chars().next() {
        Some(first) if TRIGGERS.contains(&first) => Cow::Owned(format!("'{cell}")),
        _ => Cow::Borrowed(cell),
    }
}

/// `cell` as read from a CSV file: [`escape`] undone.
pub fn unescape(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(TRIGGERS) => rest,
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_escaped_and_read_back_unchanged() {
        for value in [
            "=HYPERLINK(\"http://x\",\"y\")",
            "=cmd|' /C calc'!A0",
            "@SUM(1+1)",
            "+49-228-99305-0",
            "-1",
            "\tTab",
            "\rCR",
            "'quoted",
            "''twice",
            "'=already",
            "Federal Ministry",
            "",
        ] {
            let written = escape(value);
            if let Some(first) = value.chars().next().filter(|c| TRIGGERS.contains(c)) {
                assert_eq!(written, format!("'{value}"), "{first:?}");
            } else {
                assert_eq!(written, value);
            }
            assert_eq!(unescape(&written), value);
        }
    }

    #[test]
    fn a_hand_written_leading_apostrophe_before_text_is_kept() {
        assert_eq!(unescape("'Ndjamena"), "'Ndjamena");
        assert_eq!(unescape("'"), "'");
    }
}
