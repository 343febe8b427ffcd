//! A classification written as JSON, byte for byte as `serde_json` writes
//! it (compact, fields in declaration order), but faster: strings with
//! nothing to escape (almost all of an answer) are copied in 16-byte
//! steps instead of being looked at one byte at a time.
//!
//! Why: writing the ~4 KiB answer of `POST /api/v1/classify` through
//! `serde_json::to_writer` took about a third of basel's user-space
//! instructions per request, most of it `format_escaped_str` (callgrind on
//! the running binary; BENCHMARKS.md, "Classifier over HTTP").
//!
//! **Invariant:** the bytes equal `serde_json::to_vec(classification)`.
//! The tests check it on every classification of the evaluation sets and
//! on arbitrary strings; a field added to [`Classification`] and not here
//! fails them. Numbers, the procedure and the warning codes are written by
//! `serde_json` itself.

use domain::classifier::{Classification, CodeMatch, Explanation};
use serde::Serialize;

/// `classification` as JSON, appended to `out`.
///
/// # Errors
/// Only what `serde_json` reports for the parts it writes (never, for
/// these types).
pub fn write(out: &mut Vec<u8>, c: &Classification) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"y_codes\":");
    codes(out, &c.y_codes)?;
    out.extend_from_slice(b",\"a_codes\":");
    codes(out, &c.a_codes)?;
    out.extend_from_slice(b",\"b_codes\":");
    codes(out, &c.b_codes)?;
    out.extend_from_slice(b",\"h_codes\":");
    codes(out, &c.h_codes)?;
    out.extend_from_slice(b",\"un_codes\":");
    strings(out, &c.un_codes);
    out.extend_from_slice(b",\"list_type\":");
    string(out, c.list_type.as_str());
    out.extend_from_slice(b",\"pic_required\":");
    out.extend_from_slice(if c.pic_required { b"true" } else { b"false" });
    out.extend_from_slice(b",\"overall_confidence\":");
    value(out, &c.overall_confidence)?;
    out.extend_from_slice(b",\"disclaimer\":");
    string(out, &c.disclaimer);
    out.extend_from_slice(b",\"explanation\":[");
    for (i, e) in c.explanation.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        explanation(out, e);
    }
    out.extend_from_slice(b"],\"warnings\":");
    strings(out, &c.warnings);
    out.extend_from_slice(b",\"classifier_version\":");
    string(out, &c.classifier_version);
    out.extend_from_slice(b",\"procedure\":");
    value(out, &c.procedure)?;
    out.extend_from_slice(b",\"warning_codes\":");
    value(out, &c.warning_codes)?;
    out.extend_from_slice(b",\"languages\":");
    strings(out, &c.languages);
    out.push(b'}');
    Ok(())
}

/// A value `serde_json` writes (numbers, the procedure, warning codes).
fn value<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> Result<(), serde_json::Error> {
    serde_json::to_writer(&mut *out, v)
}

fn codes(out: &mut Vec<u8>, list: &[CodeMatch]) -> Result<(), serde_json::Error> {
    out.push(b'[');
    for (i, m) in list.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"code\":");
        string(out, &m.code);
        out.extend_from_slice(b",\"name\":");
        string(out, &m.name);
        out.extend_from_slice(b",\"confidence\":");
        value(out, &m.confidence)?;
        out.push(b'}');
    }
    out.push(b']');
    Ok(())
}

fn explanation(out: &mut Vec<u8>, e: &Explanation) {
    out.extend_from_slice(b"{\"code\":");
    string(out, &e.code);
    out.extend_from_slice(b",\"matched_terms\":");
    strings(out, &e.matched_terms);
    out.extend_from_slice(b",\"reason\":");
    string(out, &e.reason);
    out.extend_from_slice(b",\"supporting_text\":");
    strings(out, &e.supporting_text);
    out.extend_from_slice(b",\"quote\":");
    string(out, &e.quote);
    out.extend_from_slice(b",\"criterion\":");
    string(out, &e.criterion);
    out.push(b'}');
}

fn strings(out: &mut Vec<u8>, list: &[String]) {
    out.push(b'[');
    for (i, s) in list.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, s);
    }
    out.push(b']');
}

/// Whether `serde_json` escapes the byte: `"`, `\\` and control characters
/// below U+0020 (not DEL, not non-ASCII).
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// How many bytes are checked at once.
const STEP: usize = 8;

/// Whether no byte of the 8 bytes `word` (read little-endian) is
/// [`escaped`], by word arithmetic: a byte below 0x20, or equal to `"` or
/// `\\` (a zero after xor), sets its high bit in one of the three tests
/// (exact for "any byte", which is all that is asked).
fn clean(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let control = below(word, 0x20);
    let quote = below(word ^ (ONES * u64::from(b'"')), 1);
    let backslash = below(word ^ (ONES * u64::from(b'\\')), 1);
    control | quote | backslash == 0
}

/// `s` as a JSON string, escaped as `serde_json` escapes it.
fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // The clean words at the start (almost always the whole string but
    // for its last few bytes), then byte by byte.
    let mut start = 0;
    for word in bytes.chunks_exact(STEP) {
        let word: [u8; STEP] = word.try_into().unwrap_or([0; STEP]);
        if !clean(u64::from_le_bytes(word)) {
            break;
        }
        start += STEP;
    }
    // `bytes[copied..j]` is copied before each escape (at `j`) and at the end.
    let mut copied = 0;
    for (j, &b) in bytes.iter().enumerate().skip(start) {
        if escaped(b) {
            out.extend_from_slice(bytes.get(copied..j).unwrap_or_default());
            escape(out, b);
            copied = j + 1;
        }
    }
    out.extend_from_slice(bytes.get(copied..).unwrap_or_default());
    out.push(b'"');
}

/// The escape of byte `b` (one [`escaped`] says is), as `serde_json`
/// writes it: short forms where JSON has them, else `\u00XX` in lower case.
fn escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x09 => out.extend_from_slice(b"\\t"),
        0x0A => out.extend_from_slice(b"\\n"),
        0x0C => out.extend_from_slice(b"\\f"),
        0x0D => out.extend_from_slice(b"\\r"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[usize::from(b >> 4)],
            HEX[usize::from(b & 0xF)],
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::classifier::Classifier;
    use domain::values::CountryCode;
    use proptest::prelude::*;

    fn ours(c: &Classification) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, c).expect("writes");
        out
    }

    fn theirs(c: &Classification) -> Vec<u8> {
        serde_json::to_vec(c).expect("serde_json writes")
    }

    /// The descriptions of the evaluation sets and the project's own set.
    fn descriptions() -> Vec<String> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let mut out = Vec::new();
        for file in [
            "domain/tests/it/trade_cases.json",
            "domain/tests/it/classifier_cases.json",
        ] {
            let text = std::fs::read_to_string(format!("{root}/{file}")).expect("cases");
            let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
            let list = cases
                .as_array()
                .or_else(|| cases.get("cases").and_then(|c| c.as_array()))
                .expect("a list of cases");
            for case in list {
                if let Some(d) = case.get("description").and_then(|d| d.as_str()) {
                    out.push(d.to_owned());
                }
            }
        }
        out
    }

    #[test]
    fn every_answer_of_the_case_sets_is_written_as_serde_json_writes_it() {
        let classifier = Classifier::bundled().expect("knowledge base");
        let (de, ng) = (
            CountryCode::parse("DE").expect("DE"),
            CountryCode::parse("NG").expect("NG"),
        );
        let descriptions = descriptions();
        assert!(descriptions.len() > 600, "{}", descriptions.len());
        for (k, d) in descriptions.iter().enumerate() {
            // Every third with a country pair, so the procedure is written too.
            let c = if k % 3 == 0 {
                classifier.classify(d, Some(&de), Some(&ng))
            } else {
                classifier.classify(d, None, None)
            };
            assert_eq!(
                String::from_utf8_lossy(&ours(&c)),
                String::from_utf8_lossy(&theirs(&c)),
                "{d}"
            );
        }
    }

    #[test]
    fn a_word_is_clean_when_no_byte_of_it_is_escaped() {
        // Every byte value in every position, among bytes that are clean.
        for b in 0..=255u8 {
            for at in 0..STEP {
                let mut word = *b"abcdefgh";
                word[at] = b;
                assert_eq!(clean(u64::from_le_bytes(word)), !escaped(b), "{b} at {at}");
            }
        }
        assert!(clean(u64::from_le_bytes(*b"\xc3\xa9t\xc3\xa9 ~\x7f")));
    }

    #[test]
    fn any_strings_are_escaped_as_serde_json_escapes_them() {
        let classifier = Classifier::bundled().expect("knowledge base");
        let base = classifier.classify("spent lead-acid batteries", None, None);
        let strings = ("(?s).{0,80}", "[\\x00-\\x7f\"\\\\]{0,70}", any::<String>());
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&strings, |(reason, warning, term)| {
                let mut c = base.clone();
                c.warnings.push(warning);
                c.languages.push(term.clone());
                if let Some(e) = c.explanation.first_mut() {
                    e.reason = reason;
                    e.matched_terms.push(term);
                }
                prop_assert_eq!(ours(&c), theirs(&c));
                Ok(())
            })
            .expect("same bytes as serde_json");
    }
}
