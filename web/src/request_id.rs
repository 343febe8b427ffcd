//! The id of a request: always issued by the server (a fresh UUID), so a
//! client cannot make a change look like part of the seed or an import. The
//! id the client sent in `x-request-id`, when it is a sane one (1–100
//! characters of letters, digits and `-_.:`) and claims no reserved label
//! ([`RESERVED`]), is kept beside it as `x-client-request-id`. The access
//! layer sets both on the request (where handlers read them: [`of`],
//! [`client_of`]) and on the answer, so the access line, the spans, the
//! answer and the metadata of the events the request records carry the
//! same ids.

use axum::http::{HeaderMap, HeaderName, HeaderValue};

/// The header carrying it (a constant name: inserting a header by a `&str`
/// name that is not a standard one allocates the name every time).
pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The header carrying the client's own id beside the server's.
pub const CLIENT_HEADER: HeaderName = HeaderName::from_static("x-client-request-id");

/// Labels the service's own writes use as request ids (`seed`, `cli-…`,
/// `import-…`, …): a client's id that is one, or starts with one and a
/// separator (`-_.:`), in any case, is dropped.
pub const RESERVED: [&str; 6] = ["seed", "system", "cli", "import", "basel", "admin"];

fn reserved(id: &str) -> bool {
    let id = id.to_ascii_lowercase();
    RESERVED.iter().any(|label| {
        id.strip_prefix(label)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', '.', ':']))
    })
}

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

/// The client's id when sane and not reserved, for `x-client-request-id`.
pub fn client(headers: &HeaderMap) -> Option<HeaderValue> {
    presented(headers).filter(|id| !id.to_str().is_ok_and(reserved))
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
/// layer issued (a UUID), or a fresh one for a request that did not pass it;
/// never an id of the client's choosing.
pub fn of(headers: &HeaderMap) -> String {
    headers
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|id| uuid::Uuid::parse_str(id).is_ok_and(|u| u.get_version_num() == 4))
        .map_or_else(
            || fresh().to_str().unwrap_or_default().to_owned(),
            str::to_owned,
        )
}

/// The client's own id of the request (from `x-client-request-id`, which
/// the access layer sets from the client's `x-request-id`), when sane and
/// not reserved.
pub fn client_of(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CLIENT_HEADER)?;
    let mut one = HeaderMap::new();
    one.insert(HEADER, value.clone());
    client(&one).and_then(|v| v.to_str().ok().map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sane_client_id_is_kept_beside_and_reserved_or_insane_ones_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, HeaderValue::from_static("abc-123.x:y_z"));
        assert_eq!(client(&headers).expect("kept"), "abc-123.x:y_z");
        headers.insert(HEADER, HeaderValue::from_static(" abc-123 "));
        assert_eq!(client(&headers).expect("kept"), "abc-123");
        for refused in [
            "has space",
            "seed",
            "SEED",
            "system:seed",
            "cli-1",
            "import-2-row-3",
        ] {
            headers.insert(HEADER, HeaderValue::from_str(refused).unwrap());
            assert_eq!(client(&headers), None, "{refused}");
        }
        headers.insert(HEADER, HeaderValue::from_str(&"a".repeat(101)).unwrap());
        assert_eq!(client(&headers), None);
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
    fn the_id_of_a_request_is_the_servers_never_the_clients() {
        let issued = fresh();
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, issued.clone());
        assert_eq!(of(&headers), issued.to_str().unwrap());
        headers.insert(HEADER, HeaderValue::from_static("seed"));
        let id = of(&headers);
        assert_ne!(id, "seed");
        assert_eq!(id.len(), 36);
        assert_ne!(of(&HeaderMap::new()), of(&HeaderMap::new()));
        headers.insert(CLIENT_HEADER, HeaderValue::from_static("seed"));
        assert_eq!(client_of(&headers), None);
        headers.insert(CLIENT_HEADER, HeaderValue::from_static("mine-1"));
        assert_eq!(client_of(&headers).as_deref(), Some("mine-1"));
    }
}
