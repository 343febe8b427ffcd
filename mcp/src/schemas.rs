//! JSON Schemas (2020-12) of the tools' inputs and outputs.
//!
//! Output schemas describe exactly the JSON the tools return as
//! `structuredContent` (the shared `projections::views` shapes and the
//! classifier's `Classification`), so clients that validate results (the
//! official Python SDK does) accept them. They list the fields clients rely
//! on as `required` and leave `additionalProperties` open, so an additive
//! change to a shared view does not break a client.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{json, Value};

/// Turns a `json!` object into the map rmcp wants.
pub(crate) fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn nullable_string(description: &str) -> Value {
    json!({ "type": ["string", "null"], "description": description })
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

/// One competent-authority record (`GET /api/v1/ca/{cc}`).
pub(crate) fn record() -> Value {
    json!({
        "type": "object",
        "properties": {
            "country_code": { "type": "string", "description": "ISO 3166-1 alpha-2, upper case" },
            "country_name": { "type": "string" },
            "ca_name": nullable_string("the competent authority's name"),
            "email": nullable_string("its e-mail address"),
            "phone": nullable_string("its phone number, international format +CC-..."),
            "address": nullable_string("its postal address"),
            "verified": { "type": "boolean", "description": "whether the contact details were verified" },
            "last_checked": nullable_string("date of the last check, YYYY-MM-DD"),
            "email_primary": nullable_string("the same as email"),
            "last_verified_date": nullable_string("the same as last_checked"),
            "notes": nullable_string("notes shown with the record"),
            "source": nullable_string("what the last check relied on"),
            "provenance": {
                "type": "object",
                "properties": {
                    "method": nullable_string("email, phone, website, official_notification or other"),
                    "steward": nullable_string("id of the steward who made the last check"),
                    "note": nullable_string("the steward's note"),
                    "recorded_at": { "type": "string", "description": "when the record last changed (RFC 3339)" },
                },
                "required": ["method", "steward", "note", "recorded_at"],
            },
            "stale": { "type": "boolean", "description": "the last check is missing or older than the staleness bound" },
            "version": { "type": "integer", "description": "number of changes applied to the record" },
        },
        "required": [
            "country_code", "country_name", "ca_name", "email", "phone", "address", "verified",
            "last_checked", "notes", "source", "provenance", "stale", "version",
        ],
    })
}

/// One entry of a list or search result (`views::ListItem`).
fn list_item() -> Value {
    json!({
        "type": "object",
        "properties": {
            "country_code": { "type": "string" },
            "country_name": { "type": "string" },
            "ca_name": nullable_string("the competent authority's name"),
        },
        "required": ["country_code", "country_name", "ca_name"],
    })
}

/// `list_competent_authorities` input.
pub(crate) fn list_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "cursor": { "type": "string", "description": "nextCursor from the previous page, passed back unchanged" },
            "page_size": { "type": "integer", "minimum": 1, "maximum": crate::tools::MAX_PAGE_SIZE, "default": crate::tools::DEFAULT_PAGE_SIZE },
            "verified": { "type": "boolean", "description": "only verified (true) or only unverified (false) records" },
        },
        "additionalProperties": false,
    })
}

/// `list_competent_authorities` output: one page.
pub(crate) fn list_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "items": { "type": "array", "items": list_item() },
            "total": { "type": "integer", "description": "records matching the filter, over all pages" },
            "nextCursor": { "type": "string", "description": "opaque; absent on the last page" },
        },
        "required": ["items", "total"],
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

/// `search_competent_authorities` output.
pub(crate) fn search_result() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": { "type": "string" },
            "results": { "type": "array", "items": list_item() },
        },
        "required": ["query", "results"],
    })
}

/// `get_authority_history` output: the audit trail, oldest first.
pub(crate) fn history() -> Value {
    json!({
        "type": "object",
        "properties": {
            "country_code": { "type": "string" },
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "sequence": { "type": "integer" },
                        "event_type": { "type": "string", "description": "AuthorityRegistered, ContactDetailsChanged or VerificationRecorded" },
                        "recorded_at": { "type": "string" },
                        "actor": { "type": "string", "description": "steward:<id>, system:seed, system:import, ..." },
                        "request_id": { "type": "string" },
                        "position": { "type": "integer" },
                    },
                    "required": ["sequence", "event_type", "recorded_at", "actor", "request_id", "position"],
                },
            },
        },
        "required": ["country_code", "items"],
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
            "origin": { "type": "string", "pattern": "^[A-Za-z]{2}$", "description": "country of export, ISO 3166-1 alpha-2" },
            "destination": { "type": "string", "pattern": "^[A-Za-z]{2}$", "description": "country of import, ISO 3166-1 alpha-2" },
        },
        "required": ["description"],
        "additionalProperties": false,
    })
}

fn code_matches() -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "code": { "type": "string" },
                "name": { "type": "string" },
                "confidence": { "type": "number", "minimum": 0, "maximum": 1 },
            },
            "required": ["code", "name", "confidence"],
        },
    })
}

fn strings() -> Value {
    json!({ "type": "array", "items": { "type": "string" } })
}

/// `classify_waste` output (`POST /api/v1/classify`).
pub(crate) fn classification() -> Value {
    json!({
        "type": "object",
        "properties": {
            "y_codes": code_matches(),
            "a_codes": code_matches(),
            "b_codes": code_matches(),
            "h_codes": code_matches(),
            "un_codes": strings(),
            "list_type": { "type": "string", "enum": ["Amber", "Green", "Annex I", "Annex II"] },
            "pic_required": { "type": "boolean" },
            "overall_confidence": { "type": "number", "minimum": 0, "maximum": 1 },
            "disclaimer": { "type": "string" },
            "explanation": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "code": { "type": "string" },
                        "matched_terms": strings(),
                        "reason": { "type": "string" },
                    },
                    "required": ["code", "matched_terms", "reason"],
                },
            },
            "warnings": strings(),
            "classifier_version": { "type": "string" },
            "procedure": {
                "type": ["object", "null"],
                "description": "present when origin and destination are both given",
                "properties": {
                    "origin": { "type": "string" },
                    "destination": { "type": "string" },
                    "regime": {
                        "type": "string",
                        "enum": ["oecd_decision", "basel_pic", "article11_agreement", "not_covered", "domestic", "undetermined"],
                    },
                    "prohibited": { "type": ["boolean", "null"], "description": "null when it depends on facts not known" },
                    "notification_required": { "type": "boolean" },
                    "summary": { "type": "string" },
                    "articles": strings(),
                    "notes": strings(),
                },
                "required": ["origin", "destination", "regime", "prohibited", "notification_required", "summary", "articles", "notes"],
            },
        },
        "required": [
            "y_codes", "a_codes", "b_codes", "h_codes", "un_codes", "list_type", "pic_required",
            "overall_confidence", "disclaimer", "explanation", "warnings", "classifier_version", "procedure",
        ],
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

/// `lookup_basel_code` output (`CodeInfo`).
pub(crate) fn code_info() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": { "type": "string" },
            "name": { "type": "string", "description": "the official title" },
            "annex": { "type": "string", "enum": ["I", "II", "III", "VIII", "IX"] },
            "status": { "type": "string", "enum": ["in_force", "deleted"] },
            "replaced_by": { "type": ["array", "null"], "items": { "type": "string" }, "description": "for deleted entries, what replaces them" },
            "note": nullable_string("provenance or status notes"),
        },
        "required": ["code", "name", "annex", "status", "replaced_by", "note"],
    })
}
