//! Fuzz properties over arbitrary bytes, run with a bounded
//! number of cases in the normal test run: the classifier's input, the
//! strict JSON field reader, and the import parser never panic, and every
//! refusal is an error value, not a crash. (The MCP cursor decoder has its
//! own in `mcp/src/cursor.rs`, where it is private.)
//!
//! Property tests stand in for cargo-fuzz: a nightly toolchain is installed,
//! but a second build of the workspace with sanitizers would double the
//! CI's build time (docs/decisions/0104-fuzzing-is-property-tests.md).

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Map, Value};

use classifier::Classifier;
use transfer::Format;

fn classifier() -> &'static Classifier {
    static C: OnceLock<Classifier> = OnceLock::new();
    C.get_or_init(|| Classifier::bundled().expect("bundled classifier"))
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Field names the reader is asked for, and a few it is not.
const NAMES: &[&str] = &[
    "description",
    "verified",
    "checked_on",
    "changes",
    "phone",
    "email",
    "aliases",
    "x",
    "",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,40}".prop_map(Value::from),
        prop::collection::vec(any::<u8>(), 0..40)
            .prop_map(|bytes| Value::from(String::from_utf8_lossy(&bytes).to_string())),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(NAMES), inner), 0..6).prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(k, v)| ((*k).to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// Reads `body` into every request body type, as the handlers would: the
/// reader answers (a value or a 422), never panics.
fn read_all(body: &Value) {
    use web::body::read;
    static SCHEMAS: std::sync::OnceLock<web::schemas::Schemas> = std::sync::OnceLock::new();
    let schemas = SCHEMAS.get_or_init(rest::routes::schemas);
    let _ = read::<rest::v1::ca::verify::VerificationBody>(schemas, body.clone());
    let _ = read::<rest::v1::ca::create::CreateBody>(schemas, body.clone());
    let _ = read::<rest::v1::ca::contacts::ContactBody>(schemas, body.clone());
    let _ = read::<rest::v1::shipments::ShipmentBody>(schemas, body.clone());
    let _ = read::<rest::v1::classify::ClassifyBody>(schemas, body.clone());
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_classifier_takes_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let text = String::from_utf8_lossy(&bytes);
        let answer = classifier().classify(&text);
        prop_assert!(!answer.disclaimer.is_empty());
    }

    #[test]
    fn the_field_reader_takes_any_json(body in json_value()) {
        read_all(&body);
    }

    #[test]
    fn the_field_reader_takes_whatever_bytes_parse_as_json(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(body) = serde_json::from_slice::<Value>(&bytes) {
            read_all(&body);
        }
    }

    #[test]
    fn the_import_parser_takes_any_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..2048),
        json in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let (name, format) = if json { ("import.json", Format::Json) } else { ("import.csv", Format::Csv) };
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).expect("write");
        if let Err(error) = transfer::read(&path, Some(format)) {
            prop_assert!(error.to_string().contains(name), "{error}");
        }
    }
}
