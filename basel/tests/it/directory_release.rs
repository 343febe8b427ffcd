//! The directory data release, the Party registry and scope-aware lookup,
//! over REST in both storage modes: 191 Parties, at least 100 with a traced
//! contact, every served contact with its provenance and an honest age,
//! non-Parties answered as such, authorities chosen by area and movement,
//! and a release that appends nothing when applied again.

use chrono::Utc;
use serde_json::Value;

use crate::inproc::App;
use crate::support::{both_modes, count_all_events, Mode};

/// Every record of the directory, read one by one as a client would.
async fn every_record(app: &App, key: &str) -> Vec<Value> {
    let list = app.get("/api/v1/ca?perPage=500", key).await;
    assert_eq!(list.status, 200, "{}", list.text);
    let mut records = Vec::new();
    for item in list.body["items"].as_array().expect("items") {
        let code = item["country_code"].as_str().expect("code");
        let record = app.get(&format!("/api/v1/ca/{code}"), key).await;
        assert_eq!(record.status, 200, "{code}: {}", record.text);
        records.push(record.body);
    }
    records
}

async fn the_release_serves_100_parties_with_traced_unverified_contacts(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let records = every_record(&app, &key).await;
    assert_eq!(records.len(), 191, "190 States and the EU");
    let mut traced = 0;
    for record in &records {
        let code = record["country_code"].as_str().unwrap_or_default();
        assert!(record["party"].is_object(), "{code}: served with its Party");
        let contacts = record["contacts"].as_array().expect("contacts");
        if contacts
            .iter()
            .any(|c| c["provenance"]["source_url"].is_string())
        {
            traced += 1;
        }
        for c in contacts {
            let p = &c["provenance"];
            assert!(
                p["source"].as_str().is_some_and(|s| !s.is_empty())
                    && p["source_url"].as_str().is_some_and(|s| !s.is_empty()),
                "{code}: {c}"
            );
            assert!(
                p["source_kind"].as_str().is_some_and(|k| k != "unknown"),
                "{code}"
            );
            assert!(
                p["source_date"].is_string() || p["age"]["band"] == "unknown",
                "{code}: a date, or an explicit unknown age"
            );
            assert_eq!(p["verified"], false, "{code}: the release verifies nothing");
            assert_eq!(
                p["last_checked"],
                Value::Null,
                "{code}: a release is no check"
            );
        }
    }
    assert!(traced >= 100, "{traced} Parties with a traced contact");
    let coverage = app.get("/api/v1/coverage", &key).await.body;
    assert_eq!(coverage["with_traced_contact"], traced);
    assert_eq!(coverage["parties"], 191);
}

async fn non_parties_are_answered_as_such_and_names_are_the_un_forms(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    for (code, expected) in [
        ("US", "not_a_party"),
        ("HT", "not_a_party"),
        ("TW", "not_a_party"),
        ("ZZ", "country_not_found"),
    ] {
        let answer = app.get(&format!("/api/v1/ca/{code}"), &key).await;
        assert_eq!(answer.status, 404, "{code}");
        assert_eq!(answer.code(), expected, "{code}");
    }
    let eu = app.get("/api/v1/ca/EU", &key).await;
    assert_eq!(eu.status, 200, "the EU is a Party");
    assert_eq!(eu.body["party"]["annex_vii"], true);
    let kr = app.get("/api/v1/ca/KR", &key).await.body;
    assert_eq!(kr["country_name"], "Republic of Korea");
    let no = app.get("/api/v1/ca/NO", &key).await.body;
    assert_eq!(no["party"]["ban_amendment"]["status"], "accepted");
    for (query, code) in [("South Korea", "KR"), ("Vietnam", "VN"), ("Türkiye", "TR")] {
        let found = app
            .get(&format!("/api/v1/ca?q={}", query.replace(' ', "%20")), &key)
            .await;
        assert_eq!(
            found.body["items"][0]["country_code"], code,
            "{query}: {}",
            found.text
        );
    }
}

async fn authorities_are_chosen_by_area_and_movement(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let de = app.get("/api/v1/ca/DE", &key).await.body;
    let primary = de["contacts"]
        .as_array()
        .expect("contacts")
        .iter()
        .find(|c| c["primary"] == true);
    assert!(
        primary.is_none_or(|p| p["scope"]["area"].is_null()),
        "DE's top-level record is never an area-limited authority: {primary:?}"
    );

    let bavaria = app
        .get("/api/v1/ca/DE?area=Bavaria&movement=export", &key)
        .await;
    assert_eq!(bavaria.status, 200, "{}", bavaria.text);
    let competent = bavaria.body["competent"].as_array().expect("competent");
    let first = &competent[0];
    assert!(
        first["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Bayern")),
        "{competent:?}"
    );
    assert!(
        first["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("Regierung von")),
        "the Bavarian authority from the release: {first}"
    );
    assert!(
        competent
            .iter()
            .all(|c| !c["reason"].as_str().unwrap_or_default().contains("Sachsen")),
        "no other Land: {competent:?}"
    );
    let accents = app
        .get("/api/v1/ca/DE?area=bayern&movement=export", &key)
        .await;
    assert_eq!(accents.body["competent"], bavaria.body["competent"]);
    let nrw = app
        .get("/api/v1/ca/DE?area=North%20Rhine-Westphalia", &key)
        .await;
    assert!(nrw.body["competent"]
        .as_array()
        .is_some_and(|c| c.iter().any(|a| a["name"] == "Bezirksregierung Münster")));

    let fr = app.get("/api/v1/ca/FR", &key).await.body;
    let transit = fr["contacts"]
        .as_array()
        .expect("contacts")
        .iter()
        .find(|c| {
            c["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("le ministre"))
        })
        .expect("FR's transit authority");
    assert_eq!(
        transit["scope"]["movements"],
        serde_json::json!(["transit"])
    );
    assert_eq!(transit["primary"], false);
    let fr_export = app.get("/api/v1/ca/FR?movement=export", &key).await.body;
    assert!(fr_export["competent"]
        .as_array()
        .is_some_and(|c| c.iter().all(|a| a["contact_id"] != transit["id"])));

    let unknown = app.get("/api/v1/ca/DE?area=Atlantis", &key).await;
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.code(), "unknown_area");
    assert!(unknown.text.contains("Bayern"), "names the known areas");
    let movement = app.get("/api/v1/ca/DE?movement=smuggling", &key).await;
    assert_eq!(movement.status, 400);
    assert_eq!(movement.code(), "invalid_movement");
}

async fn applying_the_release_again_appends_nothing(mode: Mode) {
    let app = App::seeded(mode).await;
    let before = count_all_events(&app.store).await;
    let now = Utc::now();
    let report = commands::seed::apply_release(&app.runtime.backend, now, now.date_naive())
        .await
        .expect("release");
    assert_eq!((report.registered, report.added, report.retired), (0, 0, 0));
    assert_eq!(count_all_events(&app.store).await, before);
}

both_modes!(
    the_release_serves_100_parties_with_traced_unverified_contacts,
    non_parties_are_answered_as_such_and_names_are_the_un_forms,
    authorities_are_chosen_by_area_and_movement,
    applying_the_release_again_appends_nothing,
);

/// A store of an earlier release: one Party registered by hand, and a
/// record of a code that is not a Party. The release brings the rest, the
/// non-Party is retired, and a second run appends nothing.
#[tokio::test]
async fn the_release_upgrades_an_older_store_in_place() {
    let app = App::start(Mode::Embedded).await;
    register_as_an_older_release(&app, &[("JP", "Japan"), ("XK", "Kosovo")]).await;
    let now = Utc::now();
    let report = commands::seed::apply_release(&app.runtime.backend, now, now.date_naive())
        .await
        .expect("release");
    assert_eq!(report.registered, 190, "every other Party");
    assert!(report.added > 0, "JP's release contacts");
    assert_eq!(report.retired, 1, "XK");
    let after = count_all_events(&app.store).await;
    let again = commands::seed::apply_release(&app.runtime.backend, now, now.date_naive())
        .await
        .expect("release");
    assert_eq!((again.registered, again.added, again.retired), (0, 0, 0));
    assert_eq!(count_all_events(&app.store).await, after);
    app.settle().await;
    let key = app.key().await;
    let xk = app.get("/api/v1/ca/XK", &key).await;
    assert_eq!(xk.status, 404);
    let list = app.get("/api/v1/ca?perPage=500", &key).await;
    assert_eq!(list.body["totalItems"], 191);
}

/// A steward retires a record created in error; a Party's record cannot be
/// retired, and a retirement needs a reason.
#[tokio::test]
async fn a_steward_retires_a_record_created_in_error_and_never_a_partys() {
    let app = App::start(Mode::Embedded).await;
    register_as_an_older_release(&app, &[("AF", "Afghanistan"), ("XK", "Kosovo")]).await;
    app.settle().await;
    let token = app.enrol("ana").await;
    let key = app.key().await;
    let delete = |path: &str, body: Value| {
        app.client()
            .delete(app.url(path))
            .bearer_auth(&token)
            .json(&body)
    };
    let party = app
        .send(delete(
            "/api/v1/ca/AF",
            serde_json::json!({"reason": "oops"}),
        ))
        .await;
    assert_eq!(party.status, 409, "{}", party.text);
    assert_eq!(party.code(), "is_a_party");
    let no_reason = app
        .send(delete("/api/v1/ca/XK", serde_json::json!({})))
        .await;
    assert_eq!(no_reason.status, 422, "{}", no_reason.text);
    let retired = app
        .send(delete(
            "/api/v1/ca/XK",
            serde_json::json!({"reason": "not a Party: registered in error"}),
        ))
        .await;
    assert_eq!(retired.status, 200, "{}", retired.text);
    assert_eq!(retired.body["retired"], "not a Party: registered in error");
    assert_eq!(app.get("/api/v1/ca/XK", &key).await.status, 404);
    let listed = app.get("/api/v1/ca?perPage=500", &key).await;
    assert!(listed.body["items"]
        .as_array()
        .is_some_and(|items| items.iter().all(|i| i["country_code"] != "XK")));
    let history = app.get("/api/v1/ca/XK/history", &key).await;
    let last = history.body["items"]
        .as_array()
        .and_then(|items| items.last())
        .cloned()
        .expect("history keeps it");
    assert_eq!(last["event_type"], "AuthorityRetired");
    assert_eq!(last["steward"]["id"], "ana");
    let again = app
        .send(delete(
            "/api/v1/ca/XK",
            serde_json::json!({"reason": "again"}),
        ))
        .await;
    assert_eq!(again.status, 409);
    assert_eq!(again.code(), "retired");
}

/// Registers `parties` straight through the commands, as an earlier release
/// (which accepted any two letters) did.
async fn register_as_an_older_release(app: &App, parties: &[(&str, &str)]) {
    let commands = commands::authority::AuthorityCommands::new(&app.runtime.backend);
    let now = Utc::now();
    let metadata = domain::metadata::Metadata {
        recorded_at: now,
        actor: domain::metadata::Actor::Import,
        request_id: "older".into(),
        client_request_id: None,
        idempotency: None,
    };
    for (code, name) in parties {
        let register = domain::authority::RegisterAuthority {
            country: domain::values::CountryCode::parse(code).expect("code"),
            country_name: (*name).into(),
            contact: domain::authority::ContactInput::default(),
            verified: false,
            last_checked: None,
            source: None,
            contacts: Vec::new(),
            steward: None,
            today: now.date_naive(),
        };
        commands
            .register(register, &metadata)
            .await
            .expect("registered");
    }
}
