//! JSON Schemas (2020-12) of the tools' inputs and outputs.
//!
//! Output schemas are generated from the types the tools return as
//! `structuredContent` (the shared `projections::views` shapes, the
//! classifier's `Classification` and `CodeInfo`, and the two page shapes
//! below) by `projections::schema`, the same generator the REST OpenAPI
//! document uses: they cannot drift from the JSON. Every serialised field is
//! `required`, nullable values are `anyOf [..., null]`, and
//! `additionalProperties` stays open, so an additive change to a shared view
//! does not break a client. Input schemas are written here: they are the
//! contract the argument checks in `tools::args` enforce.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

use domain::classifier::{Classification, CodeInfo};
use projections::schema::json_schema;
use projections::views::{History, ListItem, Record};

/// Turns a `json!` object into the map rmcp wants.
pub(crate) fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The `country_code` argument of the record tools: a code or a name.
pub(crate) fn country_input(description: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "country_code": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": description,
            }
        },
        "required": ["country_code"],
        "additionalProperties": false,
    })
}

/// `get_competent_authority` input: the country, and optionally the area
/// and movement to pick competent authorities by scope.
pub(crate) fn authority_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "country_code": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": "ISO 3166-1 alpha-2 code (e.g. DE) or country name (e.g. Germany)",
            },
            "area": {
                "type": "string",
                "maxLength": 100,
                "description": "an area of the country (a Land, a region), any of its names: the answer's `competent` lists the authorities for it",
            },
            "movement": {
                "type": "string",
                "enum": ["export", "import", "transit"],
                "description": "the movement: the answer's `competent` lists the authorities that handle it",
            }
        },
        "required": ["country_code"],
        "additionalProperties": false,
    })
}

/// `list_competent_authorities` input.
pub(crate) fn list_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "cursor": { "type": "string", "description": "nextCursor from the previous page, passed back unchanged" },
            "page_size": { "type": "integer", "minimum": 1, "maximum": crate::tools::MAX_PAGE_SIZE, "default": crate::tools::DEFAULT_PAGE_SIZE, "description": "records per page (default 50, at most 200; the directory has about 190)" },
            "verified": { "type": "boolean", "description": "only verified (true) or only unverified (false) records" },
            "has_contact": { "type": "boolean", "description": "only records with (true) or without (false) any contact detail (authority name, e-mail, phone or address)" },
        },
        "additionalProperties": false,
    })
}

/// `search_competent_authorities` input.
pub(crate) fn search_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": crate::tools::MAX_QUERY_CHARS,
                "description": "part of a country name, an ISO code, or part of an authority's name",
            },
        },
        "required": ["query"],
        "additionalProperties": false,
    })
}

/// `classify_waste` input.
pub(crate) fn classify_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "description": {
                "type": "string",
                "minLength": 1,
                "maxLength": crate::tools::MAX_DESCRIPTION_CHARS,
                "description": "the waste in plain language: material, origin, form, hazardous constituents",
            },
            "origin": { "type": "string", "minLength": 1, "maxLength": 100, "description": "country of export: ISO 3166-1 alpha-2 code (DE) or country name (Germany)" },
            "destination": { "type": "string", "minLength": 1, "maxLength": 100, "description": "country of import: code or name" },
        },
        "required": ["description"],
        "additionalProperties": false,
    })
}

/// `plan_shipment` input.
pub(crate) fn shipment_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "description": {
                "type": "string",
                "minLength": 1,
                "maxLength": crate::tools::MAX_DESCRIPTION_CHARS,
                "description": "the waste in plain language (give this or code)",
            },
            "code": { "type": "string", "minLength": 1, "maxLength": 20, "description": "a Basel code such as A1160 or B3020 (give this or description)" },
            "origin": { "type": "string", "minLength": 1, "maxLength": 100, "description": "State of export: ISO 3166-1 alpha-2 code or country name" },
            "destination": { "type": "string", "minLength": 1, "maxLength": 100, "description": "State of import: code or name" },
            "transit": {
                "type": "array",
                "maxItems": projections::shipment::MAX_TRANSIT,
                "items": { "type": "string", "minLength": 1, "maxLength": 100 },
                "description": "States of transit in order: codes or names",
            },
            "operation": { "type": "string", "maxLength": 20, "description": "recovery, disposal, an Annex IV code (R1 to R13, D1 to D15) or unknown (the default: the answer gives both)" },
            "origin_area": { "type": "string", "maxLength": 100, "description": "an area of the State of export (a Land, a province), any of its names, to pick its competent authority" },
            "destination_area": { "type": "string", "maxLength": 100, "description": "an area of the State of import, to pick its competent authority" },
        },
        "required": ["origin", "destination"],
        "additionalProperties": false,
    })
}

/// `lookup_basel_code` input.
pub(crate) fn code_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "minLength": 1,
                "maxLength": 20,
                "description": "a Y, A, B or H code, any case, e.g. A1160, y31, B3020, H6.1",
            },
        },
        "required": ["code"],
        "additionalProperties": false,
    })
}

fn output<T: JsonSchema>() -> Value {
    Value::Object(json_schema::<T>())
}

/// One page of `list_competent_authorities`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListPage {
    /// Records on this page, by country code.
    pub(crate) items: Vec<ListItem>,
    /// Records matching the filter, over all pages.
    pub(crate) total: usize,
    /// Opaque: pass it back as `cursor` for the next page; absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<String>,
}

/// The answer of `search_competent_authorities`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SearchResult {
    /// The query as given.
    pub(crate) query: String,
    /// Matching records, best first.
    pub(crate) results: Vec<ListItem>,
}

pub(crate) fn record() -> Value {
    output::<Record>()
}

pub(crate) fn list_page() -> Value {
    output::<ListPage>()
}

pub(crate) fn search_result() -> Value {
    output::<SearchResult>()
}

pub(crate) fn history() -> Value {
    output::<History>()
}

pub(crate) fn classification() -> Value {
    output::<Classification>()
}

pub(crate) fn shipment_plan() -> Value {
    output::<projections::shipment::ShipmentPlan>()
}

pub(crate) fn code_info() -> Value {
    output::<CodeInfo>()
}
