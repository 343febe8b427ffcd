//! Opaque pagination cursors.
//!
//! A cursor is the hex encoding of `<kind>|<filter>|<position>`: the list it
//! belongs to, the filter it was issued under and where the next page starts.
//! Clients must treat it as opaque; anything that does not decode to a cursor
//! of the same list and filter is an invalid-params error, never a silently
//! restarted listing. The error carries `data: {"reason": "invalid_cursor"}`;
//! `resources/list` answers it as is, `list_competent_authorities` as an
//! `invalid_cursor` tool error the model reads.

use rmcp::ErrorData;
use serde_json::json;

/// The `data.reason` of the invalid-params error for a bad cursor.
const REASON: &str = "invalid_cursor";

/// What a caller is told about a cursor that does not decode.
pub(crate) const INVALID: &str =
    "invalid cursor: pass back a nextCursor exactly as received, with the same filter";

/// Encodes a cursor for `kind` (the list), `filter` and `position`.
pub(crate) fn encode(kind: &str, filter: &str, position: &str) -> String {
    hex::encode(format!("{kind}|{filter}|{position}"))
}

/// Decodes a cursor issued by [`encode`] for the same `kind` and `filter`,
/// returning its position.
///
/// # Errors
/// Invalid params (JSON-RPC -32602) when the cursor is malformed, belongs to
/// another list, or was issued under another filter.
pub(crate) fn decode(cursor: &str, kind: &str, filter: &str) -> Result<String, ErrorData> {
    let invalid = || ErrorData::invalid_params(INVALID, Some(json!({ "reason": REASON })));
    let bytes = hex::decode(cursor.trim()).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    // The kind and the position never hold a `|`; the filter (client text)
    // may, so it is what lies between the first and the last one.
    let parts = text
        .split_once('|')
        .and_then(|(k, rest)| rest.rsplit_once('|').map(|(f, position)| (k, f, position)));
    match parts {
        Some((k, f, position)) if k == kind && f == filter && !position.is_empty() => {
            Ok(position.to_owned())
        }
        _ => Err(invalid()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `error` is the bad-cursor error of [`decode`].
    fn is_invalid(error: &ErrorData) -> bool {
        error.code == rmcp::model::ErrorCode::INVALID_PARAMS
            && error
                .data
                .as_ref()
                .is_some_and(|data| data["reason"] == REASON)
    }

    #[test]
    fn a_cursor_round_trips_only_for_its_own_list_and_filter() {
        let cursor = encode("ca", "verified=true", "DE");
        assert_eq!(decode(&cursor, "ca", "verified=true").unwrap(), "DE");
        assert!(decode(&cursor, "ca", "verified=false").is_err());
        assert!(decode(&cursor, "resources", "verified=true").is_err());
        assert!(decode("not-hex", "ca", "").is_err());
        assert!(decode(&hex::encode("ca||"), "ca", "").is_err());
        assert!(is_invalid(&decode("zz", "ca", "").unwrap_err()));
        assert!(!is_invalid(&ErrorData::invalid_params(INVALID, None)));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Fuzz: any bytes as a cursor decode to an
        /// invalid-params error or to a position, never a panic.
        #[test]
        fn any_bytes_as_a_cursor_decode_or_are_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            let text = String::from_utf8_lossy(&bytes);
            let hexed = hex::encode(&bytes);
            for cursor in [text.as_ref(), hexed.as_str()] {
                if let Err(error) = decode(cursor, "ca", "verified=true") {
                    proptest::prop_assert!(is_invalid(&error));
                }
            }
        }

        #[test]
        fn every_cursor_round_trips(filter in ".{0,40}", position in "[^|]{1,40}") {
            let cursor = encode("ca", &filter, &position);
            proptest::prop_assert_eq!(decode(&cursor, "ca", &filter).ok(), Some(position));
        }
    }
}
