//! Metadata stored with every event: when, by whom, on which request.
//! It travels as a string map (the shape cqrs-es stores), so it has a
//! lossless conversion to and from one.
//!
//! The map may carry one key [`Metadata`] does not hold: [`TRACEPARENT`],
//! the W3C trace context of the command that recorded the event, which the
//! executor adds from its span so that the relay and the
//! projections continue the request's trace. It is never part of a
//! decision; events recorded before it, or without tracing, lack it and
//! read as before.

use chrono::{DateTime, SecondsFormat, Utc};
use std::collections::HashMap;
use std::fmt;

use crate::trace::TraceParent;
use crate::values::Slug;

/// The metadata key of the trace context (`traceparent`, W3C Trace Context).
pub const TRACEPARENT: &str = "traceparent";

/// The trace context in an event's metadata as stored JSON text (e.g.
/// `{"actor": "…", "traceparent": "00-…-01"}`), found without parsing the
/// whole object: projections look for it on every event they apply. `None`
/// when absent or not well formed.
pub fn traceparent_in(json: &str) -> Option<TraceParent> {
    let key = format!("\"{TRACEPARENT}\"");
    let after = &json[json.find(&key)? + key.len()..];
    let value = after.trim_start().strip_prefix(':')?.trim_start();
    let value = value.strip_prefix('"')?;
    TraceParent::parse(&value[..value.find('"')?])
}

/// Who caused an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A data steward, by id (`steward:<id>`).
    Steward(Slug),
    /// Someone registering for an API key (`registrant`).
    Registrant,
    /// The bundled seed dataset (`system:seed`).
    Seed,
    /// A data release applied to a store seeded before it (`system:release`).
    Release,
    /// An operator's bulk import with no steward (`system:import`).
    Import,
    /// The command-line operator acting on stewards (`system:admin`).
    Admin,
}

impl Actor {
    /// Parses the stored form.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "registrant" => Some(Self::Registrant),
            "system:seed" => Some(Self::Seed),
            "system:release" => Some(Self::Release),
            "system:import" => Some(Self::Import),
            "system:admin" => Some(Self::Admin),
            other => Slug::parse(other.strip_prefix("steward:")?)
                .ok()
                .map(Self::Steward),
        }
    }
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Steward(id) => write!(f, "steward:{id}"),
            Self::Registrant => f.write_str("registrant"),
            Self::Seed => f.write_str("system:seed"),
            Self::Release => f.write_str("system:release"),
            Self::Import => f.write_str("system:import"),
            Self::Admin => f.write_str("system:admin"),
        }
    }
}

/// The metadata of one command's events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// When the command was accepted (UTC), from the caller's clock.
    pub recorded_at: DateTime<Utc>,
    /// Who asked.
    pub actor: Actor,
    /// The request that carried the command, for tracing across logs: an
    /// id the server issued (a client cannot choose it).
    pub request_id: String,
    /// The `x-request-id` the client sent, kept beside the server's.
    pub client_request_id: Option<String>,
    /// The client's `Idempotency-Key` for this command, when it sent one.
    pub idempotency: Option<Idempotency>,
}

/// A client's `Idempotency-Key`, as stored with the command's events: a
/// retry of the same request under the same key finds them and gets the
/// original answer instead of a second change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idempotency {
    /// SHA-256 (hex) of the key scoped to its sender (the actor), so two
    /// senders' keys never collide and the key itself is not stored.
    pub key: String,
    /// SHA-256 (hex) of the request (method, path and body): a different
    /// request under the same key is refused.
    pub request: String,
}

impl Metadata {
    /// The string map stored beside each event.
    pub fn to_map(&self) -> HashMap<String, String> {
        let mut map = HashMap::from([
            (
                "recorded_at".to_owned(),
                self.recorded_at
                    .to_rfc3339_opts(SecondsFormat::Micros, true),
            ),
            ("actor".to_owned(), self.actor.to_string()),
            ("request_id".to_owned(), self.request_id.clone()),
        ]);
        if let Some(client) = &self.client_request_id {
            map.insert("client_request_id".to_owned(), client.clone());
        }
        if let Some(idempotency) = &self.idempotency {
            map.insert("idempotency_key".to_owned(), idempotency.key.clone());
            map.insert(
                "idempotency_request".to_owned(),
                idempotency.request.clone(),
            );
        }
        map
    }

    /// Reads the map back; `None` when a key is missing or malformed.
    pub fn from_map(map: &HashMap<String, String>) -> Option<Self> {
        Some(Self {
            recorded_at: DateTime::parse_from_rfc3339(map.get("recorded_at")?)
                .ok()?
                .with_timezone(&Utc),
            actor: Actor::parse(map.get("actor")?)?,
            request_id: map.get("request_id")?.clone(),
            client_request_id: map.get("client_request_id").cloned(),
            idempotency: match (map.get("idempotency_key"), map.get("idempotency_request")) {
                (Some(key), Some(request)) => Some(Idempotency {
                    key: key.clone(),
                    request: request.clone(),
                }),
                _ => None,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn metadata_survives_the_string_map() {
        let steward = Slug::parse("ana-lopez").expect("slug");
        for actor in [
            Actor::Steward(steward),
            Actor::Registrant,
            Actor::Seed,
            Actor::Release,
            Actor::Import,
            Actor::Admin,
        ] {
            let metadata = Metadata {
                recorded_at: Utc
                    .with_ymd_and_hms(2026, 3, 4, 5, 6, 7)
                    .single()
                    .expect("date"),
                actor,
                request_id: "req-1".into(),
                client_request_id: None,
                idempotency: None,
            };
            assert_eq!(
                Metadata::from_map(&metadata.to_map()),
                Some(metadata.clone())
            );
            let with_client = Metadata {
                client_request_id: Some("mine-1".into()),
                ..metadata
            };
            assert_eq!(Metadata::from_map(&with_client.to_map()), Some(with_client));
        }
    }

    #[test]
    fn the_trace_context_is_found_in_stored_metadata_and_old_events_lack_it() {
        let value = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        for json in [
            format!(r#"{{"actor":"system:seed","traceparent":"{value}"}}"#),
            format!(r#"{{"actor": "system:seed", "traceparent" : "{value}"}}"#),
        ] {
            assert_eq!(
                traceparent_in(&json).map(|t| t.to_string()).as_deref(),
                Some(value)
            );
        }
        assert_eq!(traceparent_in(r#"{"actor":"system:seed"}"#), None);
        assert_eq!(traceparent_in(r#"{"traceparent":"junk"}"#), None);
        assert_eq!(traceparent_in(r#"{"traceparent":5}"#), None);
        let mut map = HashMap::new();
        map.insert("recorded_at".to_owned(), "2026-03-04T05:06:07Z".to_owned());
        map.insert("actor".to_owned(), "system:seed".to_owned());
        map.insert("request_id".to_owned(), "seed".to_owned());
        let plain = Metadata::from_map(&map).expect("read");
        map.insert(TRACEPARENT.to_owned(), value.to_owned());
        assert_eq!(Metadata::from_map(&map), Some(plain));
    }

    #[test]
    fn unknown_actors_are_not_read() {
        assert_eq!(Actor::parse("someone"), None);
        assert_eq!(Actor::parse("steward:Not A Slug"), None);
    }
}
