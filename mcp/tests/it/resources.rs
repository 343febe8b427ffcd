//! Resources through the rmcp client: templates, the paginated list, reads.

use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use rmcp::ServiceError;
use serde_json::{json, Value};

use classifier::Classifier;

use crate::support::{call, client, spawn, structured, Client};

async fn read(client: &Client, uri: &str) -> Result<Value, ServiceError> {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await?;
    assert_eq!(result.contents.len(), 1);
    match &result.contents[0] {
        ResourceContents::TextResourceContents {
            uri: got,
            mime_type,
            text,
            ..
        } => {
            assert_eq!(got, uri);
            assert_eq!(mime_type.as_deref(), Some("application/json"));
            Ok(serde_json::from_str(text).expect("JSON text"))
        }
        other => panic!("expected text contents, got {other:?}"),
    }
}

#[tokio::test]
async fn both_templates_are_listed() {
    let app = spawn().await;
    let client = client(&app).await;
    let templates = client
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list");
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, ["basel://ca/{country_code}", "basel://codes/{code}"]);
    assert!(templates
        .iter()
        .all(|t| t.mime_type.as_deref() == Some("application/json") && t.description.is_some()));
}

#[tokio::test]
async fn every_record_and_code_is_listed_across_pages() {
    let app = spawn().await;
    let client = client(&app).await;
    let first = client.list_resources(None).await.expect("resources/list");
    assert_eq!(first.resources.len(), 100);
    assert!(first.next_cursor.is_some(), "more than one page");
    let all = client.list_all_resources().await.expect("all pages");
    let codes = Classifier::bundled().expect("classifier").codes().len();
    assert_eq!(
        all.len(),
        6 + codes + 1,
        "records, codes and basel://coverage"
    );
    let uris: Vec<&str> = all.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        &uris[..6],
        [
            "basel://ca/CI",
            "basel://ca/DE",
            "basel://ca/FR",
            "basel://ca/KP",
            "basel://ca/KR",
            "basel://ca/NG"
        ]
    );
    assert!(uris.contains(&"basel://codes/A1160"));
    assert!(uris.contains(&"basel://codes/Y46"));
    let mut params = rmcp::model::PaginatedRequestParams::default();
    params.cursor = Some("nope".into());
    match client.list_resources(Some(params)).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS)
        }
        other => panic!("expected invalid params, got {other:?}"),
    }
}

#[tokio::test]
async fn resources_read_the_same_json_as_the_tools() {
    let app = spawn().await;
    let client = client(&app).await;
    let record = read(&client, "basel://ca/DE").await.expect("read");
    let tool = structured(
        &call(
            &client,
            "get_competent_authority",
            json!({"country_code": "DE"}),
        )
        .await,
    );
    assert_eq!(record, tool);
    let lower = read(&client, "basel://ca/de").await.expect("any case");
    assert_eq!(lower, record);
    let code = read(&client, "basel://codes/A1160").await.expect("read");
    let lookup = structured(&call(&client, "lookup_basel_code", json!({"code": "A1160"})).await);
    assert_eq!(code, lookup);
    for uri in [
        "basel://ca/US",
        "basel://ca/",
        "basel://codes/Z1",
        "file:///etc/passwd",
        "basel://other/DE",
    ] {
        match client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
        {
            Err(ServiceError::McpError(error)) => {
                assert_eq!(
                    error.code,
                    rmcp::model::ErrorCode::RESOURCE_NOT_FOUND,
                    "{uri}"
                )
            }
            other => panic!("{uri}: expected resource not found, got {other:?}"),
        }
    }
}
