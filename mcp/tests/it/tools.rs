//! Every tool through the rmcp client over streamable HTTP: listing,
//! annotations, schemas, structured results, and tool errors.

use chrono::Utc;
use rmcp::model::{ErrorCode, Tool};
use rmcp::ServiceError;
use serde_json::{json, Value};

use classifier::Classifier;
use projections::directory::Reader;
use projections::views::Record;

use crate::schema::violations;
use crate::support::{call, client, refusal, spawn, structured, verify_germany, Client};

/// Every tool, in the order `tools/list` gives them (by name).
const TOOLS: [&str; 7] = [
    "classify_waste",
    "get_authority_history",
    "get_competent_authority",
    "list_competent_authorities",
    "lookup_basel_code",
    "plan_shipment",
    "search_competent_authorities",
];

async fn tool(client: &Client, name: &str) -> Tool {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .find(|t| t.name == name)
        .expect("tool listed")
}

/// Calls a tool and checks the result against its output schema.
async fn checked(client: &Client, name: &str, arguments: Value) -> Value {
    let value = structured(&call(client, name, arguments).await);
    let schema = Value::Object(
        tool(client, name)
            .await
            .output_schema
            .expect("output schema")
            .as_ref()
            .clone(),
    );
    let problems = violations(&schema, &value);
    assert!(problems.is_empty(), "{name}: {problems:#?}");
    value
}

fn codes(items: &Value) -> Vec<String> {
    items
        .as_array()
        .expect("array")
        .iter()
        .map(|i| i["country_code"].as_str().expect("code").to_owned())
        .collect()
}

#[tokio::test]
async fn every_tool_is_listed_with_a_title_read_only_annotations_and_both_schemas() {
    let app = spawn().await;
    let client = client(&app).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    for tool in &tools {
        assert!(
            tool.title.as_deref().is_some_and(|t| !t.is_empty()),
            "{}",
            tool.name
        );
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 40),
            "{}",
            tool.name
        );
        let a = tool.annotations.as_ref().expect("annotations");
        assert_eq!(a.read_only_hint, Some(true), "{}", tool.name);
        assert_eq!(a.destructive_hint, Some(false), "{}", tool.name);
        assert_eq!(a.idempotent_hint, Some(true), "{}", tool.name);
        assert_eq!(a.open_world_hint, Some(false), "{}", tool.name);
        assert_eq!(a.title, tool.title, "{}", tool.name);
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        let output = tool.output_schema.as_ref().expect("output schema");
        assert_eq!(output["type"], "object", "{}", tool.name);
        assert!(output["required"].as_array().is_some_and(|r| !r.is_empty()));
    }
    let get = tool(&client, "get_competent_authority").await;
    assert_eq!(get.input_schema["required"], json!(["country_code"]));
    let classify = tool(&client, "classify_waste").await;
    assert_eq!(classify.input_schema["required"], json!(["description"]));
    assert_eq!(
        classify.input_schema["properties"]["description"]["maxLength"],
        5000
    );
}

/// Every string under a `description` key, and every `format` value.
fn descriptions_and_formats(value: &Value, into: &mut (Vec<String>, Vec<String>)) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner) {
                    ("description", Value::String(text)) => into.0.push(text.clone()),
                    ("format", Value::String(format)) => into.1.push(format.clone()),
                    _ => descriptions_and_formats(inner, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| descriptions_and_formats(i, into)),
        _ => {}
    }
}

#[tokio::test]
async fn tool_schemas_use_json_schema_formats_and_plain_words() {
    let app = spawn().await;
    let client = client(&app).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let listed = serde_json::to_value(&tools).expect("json");
    let mut found = (Vec::new(), Vec::new());
    descriptions_and_formats(&listed, &mut found);
    let (descriptions, formats) = found;
    // Every tool and every argument is described (output schemas carry no
    // prose: what a field means is said once, in the tool's description).
    for tool in &tools {
        for (name, argument) in tool.input_schema["properties"]
            .as_object()
            .expect("properties")
        {
            assert!(
                argument["description"]
                    .as_str()
                    .is_some_and(|d| d.len() > 10),
                "{}: {name}",
                tool.name
            );
        }
    }
    assert!(
        descriptions.len() > 25,
        "{} descriptions",
        descriptions.len()
    );
    // JSON Schema 2020-12's own format vocabulary (what validators know).
    for format in &formats {
        assert!(
            ["date-time", "date", "email", "uri", "uuid"].contains(&format.as_str()),
            "format {format:?} is not JSON Schema's"
        );
    }
    // No Rust notation: intra-doc links, paths, `None`/`Some`, type names.
    for text in &descriptions {
        for notation in ["[`", "::", "`None`", "`Some", "Option<", "Vec<", "&str"] {
            assert!(!text.contains(notation), "{notation} in: {text}");
        }
    }
}

/// The whole `tools/list` answer stays within 20 KB (19,833 bytes when
/// written): clients (the MCP Python SDK 1.x) compile every schema again on
/// each call, so its size is latency.
#[tokio::test]
async fn tools_list_fits_in_20_kb() {
    let app = spawn().await;
    let client = client(&app).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let sizes: Vec<(String, usize, usize)> = tools
        .iter()
        .map(|tool| {
            let size = |schema: &serde_json::Map<String, Value>| {
                serde_json::to_string(schema).expect("JSON").len()
            };
            let output = tool.output_schema.as_deref().map_or(0, size);
            (tool.name.to_string(), size(&tool.input_schema), output)
        })
        .collect();
    let listed = serde_json::to_string(&json!({ "tools": tools })).expect("JSON");
    assert!(
        listed.len() <= 20 * 1024,
        "tools/list is {} bytes; input and output schema bytes per tool: {sizes:?}",
        listed.len()
    );
}

#[tokio::test]
async fn get_competent_authority_returns_the_rest_record_by_code_or_by_name() {
    let app = spawn().await;
    let client = client(&app).await;
    let by_code = checked(
        &client,
        "get_competent_authority",
        json!({"country_code": "de"}),
    )
    .await;
    let by_name = checked(
        &client,
        "get_competent_authority",
        json!({"country_code": "Germany"}),
    )
    .await;
    assert_eq!(by_code, by_name);
    let row = Reader::new(app.db.clone())
        .get("DE")
        .await
        .expect("read")
        .expect("row");
    let rest = serde_json::to_value(Record::new(row, Utc::now().date_naive(), 365)).expect("json");
    assert_eq!(by_code, rest, "MCP and REST share one record shape");
    assert_eq!(by_code["verified"], true);
    assert_eq!(by_code["email"], "ca@bmuv.example.de");
    assert_eq!(by_code["provenance"]["method"], "phone");
    assert_eq!(by_code["provenance"]["steward"], "ana");
    assert_eq!(by_code["stale"], false);
    let nigeria = checked(
        &client,
        "get_competent_authority",
        json!({"country_code": "NG"}),
    )
    .await;
    assert_eq!(nigeria["stale"], true, "checked 3000 days ago");
    assert_eq!(nigeria["ca_name"], Value::Null);
    let ivory = checked(
        &client,
        "get_competent_authority",
        json!({"country_code": "cote d'ivoire"}),
    )
    .await;
    assert_eq!(ivory["country_code"], "CI");
}

#[tokio::test]
async fn unknown_countries_and_bad_arguments_are_tool_errors() {
    let app = spawn().await;
    let client = client(&app).await;
    for (arguments, expected) in [
        (json!({"country_code": "Atlantis"}), "country_not_found"),
        (json!({"country_code": "US"}), "not_a_party"),
        (json!({"country_code": "United States"}), "not_a_party"),
        (
            json!({"country_code": "DE", "movement": "smuggling"}),
            "invalid_argument",
        ),
        (
            json!({"country_code": "DE", "area": "Atlantis"}),
            "invalid_argument",
        ),
        (json!({"country_code": "Korea"}), "ambiguous"),
        (json!({}), "invalid_argument"),
        (json!({"country_code": 5}), "invalid_argument"),
        (json!({"country_code": "  "}), "invalid_argument"),
        (json!({"country_code": "x".repeat(101)}), "invalid_argument"),
        (
            json!({"country_code": "DE", "extra": 1}),
            "invalid_argument",
        ),
    ] {
        let result = call(&client, "get_competent_authority", arguments.clone()).await;
        assert_eq!(refusal(&result), expected, "{arguments}");
    }
    let history = call(
        &client,
        "get_authority_history",
        json!({"country_code": "ZZ"}),
    )
    .await;
    assert_eq!(refusal(&history), "country_not_found");
}

#[tokio::test]
async fn list_pages_through_every_record_with_an_opaque_cursor() {
    let app = spawn().await;
    let client = client(&app).await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut arguments = json!({"page_size": 2});
        if let Some(c) = &cursor {
            arguments["cursor"] = Value::String(c.clone());
        }
        let page = checked(&client, "list_competent_authorities", arguments).await;
        assert_eq!(page["total"], 6);
        seen.extend(codes(&page["items"]));
        pages += 1;
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) => {
                assert!(
                    !next.contains("DE") && !next.contains('|'),
                    "opaque: {next}"
                );
                cursor = Some(next.to_owned());
            }
            None => break,
        }
        assert!(pages < 10, "pagination must end");
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, ["CI", "DE", "FR", "KP", "KR", "NG"]);
    let all = checked(&client, "list_competent_authorities", json!({})).await;
    assert_eq!(codes(&all["items"]), seen);
    assert!(all.get("nextCursor").is_none());
    let verified = checked(
        &client,
        "list_competent_authorities",
        json!({"verified": true}),
    )
    .await;
    assert_eq!(codes(&verified["items"]), ["DE"]);
    assert_eq!(verified["total"], 1);
    let unverified = checked(
        &client,
        "list_competent_authorities",
        json!({"verified": false}),
    )
    .await;
    assert_eq!(unverified["total"], 5);
    for bad in [
        json!({"page_size": 0}),
        json!({"page_size": 201}),
        json!({"verified": "yes"}),
    ] {
        let result = call(&client, "list_competent_authorities", bad.clone()).await;
        assert_eq!(refusal(&result), "invalid_argument", "{bad}");
    }
}

async fn invalid_params(client: &Client, arguments: Value) {
    let result = call(client, "list_competent_authorities", arguments.clone()).await;
    assert_eq!(refusal(&result), "invalid_cursor", "{arguments}");
}

#[tokio::test]
async fn an_invalid_cursor_is_a_tool_error() {
    let app = spawn().await;
    let client = client(&app).await;
    invalid_params(&client, json!({"cursor": "garbage"})).await;
    invalid_params(&client, json!({"cursor": hex_of("ca|all|")})).await;
    let page = checked(
        &client,
        "list_competent_authorities",
        json!({"page_size": 1, "verified": false}),
    )
    .await;
    let next = page["nextCursor"].as_str().expect("more pages").to_owned();
    invalid_params(&client, json!({"cursor": next.clone()})).await;
    invalid_params(&client, json!({"cursor": next, "verified": true})).await;
    let ok = call(
        &client,
        "list_competent_authorities",
        json!({"cursor": page["nextCursor"], "verified": false, "page_size": 1}),
    )
    .await;
    assert_eq!(codes(&structured(&ok)["items"]), ["FR"]);
}

fn hex_of(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn search_finds_records_by_country_code_or_authority_name() {
    let app = spawn().await;
    let client = client(&app).await;
    let korea = checked(
        &client,
        "search_competent_authorities",
        json!({"query": "korea"}),
    )
    .await;
    assert_eq!(codes(&korea["results"]), ["KP", "KR"]);
    assert_eq!(korea["query"], "korea");
    let ministry = checked(
        &client,
        "search_competent_authorities",
        json!({"query": "MINISTRY"}),
    )
    .await;
    assert_eq!(codes(&ministry["results"]), ["DE", "KR"]);
    let accent = checked(
        &client,
        "search_competent_authorities",
        json!({"query": "ecologique"}),
    )
    .await;
    assert_eq!(codes(&accent["results"]), ["FR"]);
    let code = checked(
        &client,
        "search_competent_authorities",
        json!({"query": "ng"}),
    )
    .await;
    assert_eq!(
        codes(&code["results"])[0],
        "NG",
        "an exact code ranks first"
    );
    let none = checked(
        &client,
        "search_competent_authorities",
        json!({"query": "atlantis"}),
    )
    .await;
    assert_eq!(none["results"], json!([]));
    for bad in [
        json!({}),
        json!({"query": ""}),
        json!({"query": "x".repeat(201)}),
    ] {
        let result = call(&client, "search_competent_authorities", bad.clone()).await;
        assert_eq!(refusal(&result), "invalid_argument", "{bad}");
    }
}

#[tokio::test]
async fn history_is_the_audit_trail_as_rest_shows_it() {
    let app = spawn().await;
    let client = client(&app).await;
    let history = checked(
        &client,
        "get_authority_history",
        json!({"country_code": "Germany"}),
    )
    .await;
    assert_eq!(history["country_code"], "DE");
    let types: Vec<&str> = history["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["event_type"].as_str().expect("type"))
        .collect();
    assert_eq!(
        types,
        [
            "AuthorityRegistered",
            "ContactDetailsChanged",
            "VerificationRecorded"
        ]
    );
    assert_eq!(history["items"][2]["actor"], "steward:ana");
    assert_eq!(history["items"][2]["steward"]["id"], "ana");
    let rest = projections::history::items(&app.db, "DE")
        .await
        .expect("items");
    assert_eq!(history["items"], serde_json::to_value(rest).expect("json"));
    assert_eq!(history["has_more"], false);
    // A page at a time, as REST: `limit` entries after `after`.
    let first = checked(
        &client,
        "get_authority_history",
        json!({"country_code": "DE", "limit": 2}),
    )
    .await;
    assert_eq!(first["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(first["has_more"], true);
    let next = first["next"].clone();
    let rest_page = checked(
        &client,
        "get_authority_history",
        json!({"country_code": "DE", "after": next, "limit": 2}),
    )
    .await;
    assert_eq!(rest_page["items"][0], history["items"][2]);
    assert_eq!(rest_page["has_more"], false);
    for bad in [
        json!({"country_code": "DE", "limit": 0}),
        json!({"country_code": "DE", "after": -1}),
    ] {
        let result = call(&client, "get_authority_history", bad.clone()).await;
        assert_eq!(refusal(&result), "invalid_argument", "{bad}");
    }
}

#[tokio::test]
async fn classify_waste_returns_the_same_classification_as_rest() {
    let app = spawn().await;
    let client = client(&app).await;
    let description = "Spent lead-acid car batteries, whole, from garages";
    let result = checked(
        &client,
        "classify_waste",
        json!({"description": description, "origin": "de", "destination": "NG", "as_of": "2026-11-22"}),
    )
    .await;
    let classifier = Classifier::bundled().expect("classifier");
    let expected = law::procedure::classify_route(
        &classifier,
        description,
        Some(&crate::support::code("DE")),
        Some(&crate::support::code("NG")),
        law::NaiveDate::from_ymd_opt(2026, 11, 22).expect("a date"),
    );
    assert_eq!(result["procedure"]["as_of"], "2026-11-22");
    assert_eq!(result, serde_json::to_value(expected).expect("json"));
    assert_eq!(result["list_type"], "Amber");
    assert_eq!(result["a_codes"][0]["code"], "A1160");
    assert_eq!(result["procedure"]["origin"], "DE");
    assert!(result["disclaimer"]
        .as_str()
        .is_some_and(|d| d.starts_with("Informational only")));
    let green = checked(
        &client,
        "classify_waste",
        json!({"description": "Baled OCC from supermarkets, sorted"}),
    )
    .await;
    assert_eq!(green["list_type"], "Green");
    assert_eq!(green["procedure"], Value::Null);
    for bad in [
        json!({}),
        json!({"description": "   "}),
        json!({"description": 42}),
        json!({"description": "x".repeat(5001)}),
        json!({"description": "batteries", "origin": "--"}),
        json!({"description": "batteries", "destination": ""}),
        json!({"description": "batteries", "weight": 3}),
        json!({"description": "batteries", "as_of": "1990-01-01"}),
        json!({"description": "batteries", "as_of": "next tuesday"}),
    ] {
        let result = call(&client, "classify_waste", bad.clone()).await;
        assert_eq!(refusal(&result), "invalid_argument", "{bad}");
    }
    let unknown = call(
        &client,
        "classify_waste",
        json!({"description": "batteries", "origin": "Atlantis"}),
    )
    .await;
    assert_eq!(refusal(&unknown), "country_not_found");
    let longest = call(
        &client,
        "classify_waste",
        json!({"description": "é".repeat(5000)}),
    )
    .await;
    structured(&longest);
}

#[tokio::test]
async fn lookup_basel_code_knows_codes_in_force_and_deleted_ones() {
    let app = spawn().await;
    let client = client(&app).await;
    let battery = checked(&client, "lookup_basel_code", json!({"code": "a1160"})).await;
    assert_eq!(battery["code"], "A1160");
    assert_eq!(battery["annex"], "VIII");
    assert_eq!(battery["status"], "in_force");
    let deleted = checked(&client, "lookup_basel_code", json!({"code": "A1180"})).await;
    assert_eq!(deleted["status"], "deleted");
    assert!(
        deleted["replaced_by"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{deleted}"
    );
    let y = checked(&client, "lookup_basel_code", json!({"code": "Y46"})).await;
    assert_eq!(y["annex"], "II");
    for (bad, expected) in [
        (json!({"code": "Z99"}), "not_found"),
        (json!({"code": ""}), "invalid_argument"),
        (json!({"code": "A".repeat(21)}), "invalid_argument"),
    ] {
        let result = call(&client, "lookup_basel_code", bad.clone()).await;
        assert_eq!(refusal(&result), expected, "{bad}");
    }
}

#[tokio::test]
async fn an_unknown_tool_is_an_invalid_params_error() {
    let app = spawn().await;
    let client = client(&app).await;
    let params = rmcp::model::CallToolRequestParams::new("delete_everything");
    match client.call_tool(params).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected invalid params, got {other:?}"),
    }
}

#[tokio::test]
async fn a_change_is_visible_to_the_next_call_once_projected() {
    let app = spawn().await;
    let client = client(&app).await;
    let before = checked(
        &client,
        "get_competent_authority",
        json!({"country_code": "DE"}),
    )
    .await;
    verify_germany(&app.backend, "new@bmuv.example.de").await;
    app.projector.catch_up().await.expect("catch up");
    let after = checked(
        &client,
        "get_competent_authority",
        json!({"country_code": "DE"}),
    )
    .await;
    assert_eq!(after["email"], "new@bmuv.example.de");
    assert!(after["version"].as_i64() > before["version"].as_i64());
}

/// `plan_shipment`'s answers match its output schema, whatever the verdict
/// (prohibited, allowed, unknown, a State with no record), and the schema
/// stays small enough for `tools/list`.
#[tokio::test]
async fn plan_shipment_answers_match_the_output_schema() {
    let app = spawn().await;
    let client = client(&app).await;
    for (arguments, prohibited) in [
        (
            json!({"code": "B1010", "origin": "DE", "destination": "FR", "operation": "recovery"}),
            json!(false),
        ),
        (
            json!({"code": "A1160", "origin": "Germany", "destination": "Haiti", "operation": "D1"}),
            json!(true),
        ),
        (
            json!({"code": "A1160", "origin": "DE", "destination": "USA"}),
            json!("unknown"),
        ),
        (
            json!({"code": "A1160", "origin": "KR", "destination": "NG", "transit": ["FR"], "operation": "R4"}),
            json!("unknown"),
        ),
    ] {
        let plan = checked(&client, "plan_shipment", arguments.clone()).await;
        assert_eq!(plan["prohibited"], prohibited, "{arguments}");
    }
    let haiti = checked(
        &client,
        "plan_shipment",
        json!({"code": "A1160", "origin": "DE", "destination": "HT"}),
    )
    .await;
    assert!(haiti["route"][1]["gap"]
        .as_str()
        .is_some_and(|g| g.contains("not a Party")));
    let schema = tool(&client, "plan_shipment")
        .await
        .output_schema
        .expect("schema");
    let size = serde_json::to_string(schema.as_ref()).expect("JSON").len();
    assert!(
        size < 12_000,
        "plan_shipment's output schema is {size} bytes"
    );
    let text = serde_json::to_string(schema.as_ref()).expect("JSON");
    for rust in ["None", "\"uint", "\"int64", "\"double", "\"float"] {
        assert!(!text.contains(rust), "{rust} in the schema");
    }
    let nowhere = call(
        &client,
        "plan_shipment",
        json!({"code": "A1160", "origin": "DE", "destination": "Atlantis"}),
    )
    .await;
    assert_eq!(nowhere.is_error, Some(true));
    let text = nowhere.content[0].as_text().expect("text").text.clone();
    assert!(text.starts_with("country_not_found: "), "{text}");
    let dated = checked(
        &client,
        "plan_shipment",
        json!({"code": "B3011", "origin": "DE", "destination": "MY", "operation": "R3", "as_of": "2026-11-20"}),
    )
    .await;
    assert_eq!(dated["as_of"], "2026-11-20");
    assert_eq!(dated["prohibited"], json!(false), "{dated}");
    for as_of in ["1992-05-04", "2026-02-30", "soon"] {
        let bad = call(
            &client,
            "plan_shipment",
            json!({"code": "B3011", "origin": "DE", "destination": "MY", "as_of": as_of}),
        )
        .await;
        assert_eq!(bad.is_error, Some(true), "{as_of}");
        let text = bad.content[0].as_text().expect("text").text.clone();
        assert!(
            text.starts_with("invalid_argument: ") && text.contains("as_of"),
            "{text}"
        );
    }
}
