//! The MCP record has the same shape as REST's: a Party whose only known
//! contact is its focal point has no `ca_name`; once a steward adds a
//! competent authority with a scope, the record lists both and names the
//! authority as `ca_name`.

use chrono::Utc;
use serde_json::{json, Value};

use commands::authority::AuthorityCommands;
use domain::authority::{AddContact, ContactInput, NewContact, RegisterAuthority, Role};
use domain::metadata::{Actor, Metadata};
use domain::values::Slug;

use crate::support::{call, client, code, spawn, structured};

fn metadata(actor: Actor) -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor,
        request_id: "test".into(),
        client_request_id: None,
        idempotency: None,
    }
}

#[tokio::test]
async fn a_focal_point_is_a_contact_and_an_added_authority_becomes_ca_name() {
    let app = spawn().await;
    let commands = AuthorityCommands::new(&app.backend);
    let today = Utc::now().date_naive();
    let register = RegisterAuthority {
        country: code("GB"),
        country_name: "United Kingdom".into(),
        contact: ContactInput::default(),
        verified: false,
        last_checked: None,
        source: None,
        contacts: vec![NewContact {
            role: Some(Role::FocalPoint),
            details: ContactInput {
                ca_name: Some("DEFRA, Waste Policy Division".into()),
                ..ContactInput::default()
            },
            ..NewContact::default()
        }],
        steward: None,
        today,
    };
    commands
        .register(register, &metadata(Actor::Seed))
        .await
        .expect("registered");
    app.projector.catch_up().await.expect("catch up");
    let mcp = client(&app).await;
    let before = structured(
        &call(
            &mcp,
            "get_competent_authority",
            json!({"country_code": "GB"}),
        )
        .await,
    );
    assert_eq!(before["ca_name"], Value::Null);
    assert_eq!(before["contacts"][0]["role"], "focal_point");

    let ana = Slug::parse("ana").expect("slug");
    let add = AddContact {
        max_contacts: domain::authority::DEFAULT_MAX_CONTACTS,
        contact: NewContact {
            details: ContactInput {
                ca_name: Some("Environment Agency".into()),
                area: Some("England".into()),
                movements: Some("export".into()),
                ..ContactInput::default()
            },
            // An area-limited authority becomes primary only when asked.
            primary: true,
            ..NewContact::default()
        },
        steward: Some(ana.clone()),
        today,
    };
    commands
        .add_contact(&code("GB"), add, &metadata(Actor::Steward(ana)))
        .await
        .expect("added");
    app.projector.catch_up().await.expect("catch up");
    let after = structured(
        &call(
            &mcp,
            "get_competent_authority",
            json!({"country_code": "GB"}),
        )
        .await,
    );
    assert_eq!(after["ca_name"], "Environment Agency");
    assert_eq!(after["provenance"]["steward"], "ana");
    let contacts = after["contacts"].as_array().expect("contacts");
    assert_eq!(contacts.len(), 2);
    assert_eq!(contacts[0]["role"], "competent_authority");
    assert_eq!(contacts[0]["primary"], true);
    assert_eq!(
        contacts[0]["scope"],
        json!({"area": "England", "wastes": null, "movements": ["export"]})
    );
    assert_eq!(contacts[1]["role"], "focal_point");
}

#[tokio::test]
async fn the_coverage_resource_counts_the_parties() {
    let app = spawn().await;
    let mcp = client(&app).await;
    let result = mcp
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "basel://coverage",
        ))
        .await
        .expect("resources/read");
    let text = match &result.contents[0] {
        rmcp::model::ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("not text: {other:?}"),
    };
    let coverage: Value = serde_json::from_str(&text).expect("JSON");
    // The harness registers DE, FR, KR with an authority and NG, CI, KP
    // without; DE is verified today by a steward.
    for (key, value) in [
        ("parties", 6),
        ("with_competent_authority", 3),
        ("focal_point_only", 0),
        ("no_contact", 3),
        ("verified", 1),
        ("stale", 5),
        ("checked_last_365_days", 1),
        ("with_traced_contact", 0),
    ] {
        assert_eq!(coverage[key], value, "{key}: {coverage}");
    }
    assert_eq!(coverage["contacts"]["total"], 3, "{coverage}");
    assert_eq!(coverage["contacts"]["by_source_kind"]["unknown"], 3);
    assert_eq!(
        coverage["parties_by_age_band"]["unknown"], 3,
        "no contact: unknown age"
    );
}
