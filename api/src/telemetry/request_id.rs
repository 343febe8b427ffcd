//! The id of a request: kept from the client's `x-request-id` when it is a
//! sane one (1–100 characters of letters, digits and `-_.:`), else a fresh
//! UUID. The access layer sets it on the request's and the response's
//! `x-request-id`, so the access line, the spans, the answer and the metadata
//! of the events the request records (read from the request by [`of`]) all
//! carry the same id.

use axum::http::{HeaderMap, HeaderName, HeaderValue};

/// The header carrying it (a constant name: inserting a header by a `&str`
/// name that is not a standard one allocates the name every time).
pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The client's id when it is a sane one (the header's own value: no copy).
pub fn presented(headers: &HeaderMap) -> Option<HeaderValue> {
    let value = headers.get(HEADER)?;
    let id = value.to_str().ok()?;
    let trimmed = id.trim();
    let sane = !trimmed.is_empty()
        && trimmed.len() <= 100
        && trimmed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
    if !sane {
        return None;
    }
    if trimmed.len() == id.len() {
        Some(value.clone())
    } else {
        HeaderValue::from_str(trimmed).ok()
    }
}

/// The client's id when sane, else a fresh UUID.
pub fn from_headers(headers: &HeaderMap) -> HeaderValue {
    presented(headers).unwrap_or_else(fresh)
}

/// A fresh id: a version-4 UUID. uuid's `fast-rng` feature draws it from a
/// thread-local generator seeded from the system (rand's `ThreadRng`), not
/// from a `getrandom` system call per request.
pub fn fresh() -> HeaderValue {
    let mut buffer = uuid::Uuid::encode_buffer();
    let text = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buffer);
    HeaderValue::from_str(text).unwrap_or_else(|_| HeaderValue::from_static("unknown"))
}

/// The id of the request with these headers, as text: the one the access
/// layer set, or a fresh one for a request that did not pass it.
pub fn of(headers: &HeaderMap) -> String {
    from_headers(headers)
        .to_str()
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sane_id_is_kept_and_anything_else_replaced() {
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, HeaderValue::from_static("abc-123.x:y_z"));
        assert_eq!(from_headers(&headers), "abc-123.x:y_z");
        headers.insert(HEADER, HeaderValue::from_static(" abc-123 "));
        assert_eq!(from_headers(&headers), "abc-123");
        headers.insert(HEADER, HeaderValue::from_static("has space"));
        assert_ne!(from_headers(&headers), "has space");
        assert_eq!(from_headers(&headers).len(), 36);
        headers.insert(HEADER, HeaderValue::from_str(&"a".repeat(101)).unwrap());
        assert_eq!(from_headers(&headers).len(), 36);
    }

    #[test]
    fn fresh_ids_are_version_four_uuids_that_do_not_repeat() {
        let ids: std::collections::HashSet<String> = (0..10_000)
            .map(|_| fresh().to_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids.len(), 10_000);
        for id in ids.iter().take(100) {
            let parsed = uuid::Uuid::parse_str(id).expect("a UUID");
            assert_eq!(parsed.get_version_num(), 4, "{id}");
            assert_eq!(parsed.to_string(), *id);
        }
    }

    #[test]
    fn the_id_of_a_request_is_its_header_or_a_fresh_one() {
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, HeaderValue::from_static("req-1"));
        assert_eq!(of(&headers), "req-1");
        let fresh = of(&HeaderMap::new());
        assert_eq!(fresh.len(), 36);
        assert_ne!(fresh, of(&HeaderMap::new()));
    }
}
