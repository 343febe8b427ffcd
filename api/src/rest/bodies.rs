//! The JSON bodies of the REST edge that are not read-model views: what
//! clients send (read by the strict [`crate::rest::fields::Fields`] reader,
//! which refuses unknown fields with a 422) and the few answers that are
//! the edge's own. Their schemas in the OpenAPI document are generated from
//! these types; a test checks that every documented request field is one the
//! handler reads, so the documentation cannot promise a field that is
//! refused.

use schemars::JsonSchema;
use serde::Serialize;

/// `POST /api/v1/classify`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ClassifyBody {
    /// The waste in plain language (1–5,000 characters): material, origin,
    /// form, hazardous constituents and amounts.
    pub description: String,
    /// Country of export, by ISO 3166-1 alpha-2 code or name (`DE`,
    /// `Germany`): with `destination`, the answer says which control
    /// procedure applies.
    pub origin: Option<String>,
    /// Country of import, by code or name.
    pub destination: Option<String>,
}

/// `POST /register` (JSON, or the form field `email`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct RegisterBody {
    /// The address the key is bound to.
    pub email: String,
}

/// The answer to a JSON registration.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RegisterAnswer {
    /// The key: send it as `X-API-Key`.
    pub api_key: String,
    /// The address as given (trimmed).
    pub email: String,
    /// `false` when the address already had this key.
    pub created: bool,
}

/// `POST /api/v1/ca/{country_code}/verifications`: a steward's check.
#[derive(Debug, Serialize, JsonSchema)]
pub struct VerificationBody {
    /// Whether the contact details were confirmed.
    pub verified: bool,
    /// When the check was made, `YYYY-MM-DD`: not in the future, not before
    /// the record's previous check.
    #[schemars(extend("format" = "date", "examples" = ["2025-06-30"]))]
    pub checked_on: String,
    /// How: `email`, `phone`, `website`, `official_notification` or `other`.
    pub method: domain::authority::VerificationMethod,
    /// What the check relied on (a letter, a page, a call).
    pub source: String,
    /// What the check found: `confirmed`, `changed` (with corrections),
    /// `no_answer` (reached nobody: `last_checked` does not move, the day is
    /// `last_attempt`) or `defunct` (the channels are retired). Default:
    /// `changed` when `changes` differ from the record, else `confirmed`.
    pub outcome: Option<domain::authority::CheckOutcome>,
    /// The steward's note.
    pub note: Option<String>,
    /// Corrections: contact field → new text, or `null` to clear it.
    pub changes: Option<Corrections>,
    /// The `version` the steward last read: a record that moved on since
    /// answers 409 `version_mismatch` instead of being overwritten.
    #[schemars(range(min = 1))]
    pub expected_version: Option<i64>,
}

/// Contact fields: those a verification corrects (each optional; `null`
/// clears) and those a new record starts with.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContactChanges {
    /// The competent authority's name.
    pub ca_name: Option<String>,
    /// Its e-mail address.
    pub email: Option<String>,
    /// Its phone number, `+CC-…`.
    pub phone: Option<String>,
    /// Its postal address.
    pub address: Option<String>,
    /// Notes shown with the record.
    pub notes: Option<String>,
}

/// Corrections a check brings to the contact it concerns (each optional;
/// `null` clears).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Corrections {
    /// The contact fields of a new record.
    #[serde(flatten)]
    pub contact: ContactChanges,
    /// The person to address.
    pub contact_person: Option<String>,
    /// Fax, `+CC-…`.
    pub fax: Option<String>,
    /// Website, `http(s)://…`.
    pub website: Option<String>,
    /// Scope: the geographical area.
    pub area: Option<String>,
    /// Scope: the wastes handled, in words.
    pub wastes: Option<String>,
    /// Scope: `import`, `export`, `transit`, comma-separated.
    pub movements: Option<String>,
}

/// `POST /api/v1/ca`: a steward adds a country.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CreateBody {
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    /// The country's name.
    pub country_name: String,
    /// The contact fields.
    #[serde(flatten)]
    pub contact: ContactChanges,
    /// Whether the details were verified (default false).
    pub verified: Option<bool>,
    /// Date of the last check, `YYYY-MM-DD`.
    #[schemars(extend("format" = "date"))]
    pub last_checked: Option<String>,
    /// What the record relies on.
    pub source: Option<String>,
}

/// `POST /api/v1/shipments/plan`: the waste (a description or a code), the
/// route (codes or names), the operation and the areas; the same type is
/// the MCP tool's arguments.
pub type ShipmentBody = projections::shipment::PlanRequest;

/// A steward write committed but not yet in the directory (202).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Accepted {
    /// `accepted`.
    pub status: &'static str,
    /// What happened and where to look.
    pub message: &'static str,
    /// The record written.
    pub country_code: String,
    /// Its new version.
    pub version: i64,
    /// The write's position in the log.
    pub position: i64,
    /// Where the record will show it (also the `Location` header).
    pub location: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    use crate::rest::error::ApiError;

    /// A body naming every documented field with a value of no type any
    /// field accepts.
    fn every_field_wrong<T: JsonSchema>() -> (Vec<String>, Value) {
        let schema = projections::schema::json_schema::<T>();
        let names: Vec<String> = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let body: Map<String, Value> = names
            .iter()
            .map(|n| (n.clone(), serde_json::json!([1])))
            .collect();
        (names, Value::Object(body))
    }

    fn problems(result: Result<impl std::fmt::Debug, ApiError>) -> Vec<(String, String)> {
        match result {
            Err(ApiError::Invalid(problems)) => {
                problems.into_iter().map(|p| (p.field, p.message)).collect()
            }
            other => panic!("expected 422, got {other:?}"),
        }
    }

    /// Every documented field is read by the parser (a wrong value is
    /// refused for its type, never as an unknown field), and a field that is
    /// not documented is refused as unknown.
    fn documented_fields_are_read<T: JsonSchema, R: std::fmt::Debug>(
        parse: impl Fn(&Value) -> Result<R, ApiError>,
    ) {
        let (names, body) = every_field_wrong::<T>();
        let found = problems(parse(&body));
        for name in &names {
            assert!(
                found
                    .iter()
                    .any(|(f, m)| f == name && m != "is not a known field"),
                "{name} is documented but not read: {found:?}"
            );
        }
        assert!(
            !found.iter().any(|(_, m)| m == "is not a known field"),
            "{found:?}"
        );
        let mut body = body;
        body["colour"] = Value::from("red");
        assert!(problems(parse(&body)).contains(&("colour".into(), "is not a known field".into())));
    }

    #[test]
    fn the_documented_bodies_are_the_bodies_the_handlers_read() {
        documented_fields_are_read::<ClassifyBody, _>(crate::rest::classify::parse);
        documented_fields_are_read::<RegisterBody, _>(crate::rest::register::parse);
        documented_fields_are_read::<CreateBody, _>(crate::rest::ca::create::parse);
        documented_fields_are_read::<VerificationBody, _>(crate::rest::ca::verify::parse);
        documented_fields_are_read::<ShipmentBody, _>(crate::rest::shipments::parse);
        documented_fields_are_read::<crate::rest::ca::contacts::bodies::ContactBody, _>(
            crate::rest::ca::contacts::parse_add,
        );
        documented_fields_are_read::<crate::rest::ca::contacts::bodies::RemovalBody, _>(
            crate::rest::ca::contacts::parse_removal,
        );
    }
}
