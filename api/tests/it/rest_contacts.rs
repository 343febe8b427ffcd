//! A Party's contacts over REST, in both storage modes: the seed's focal
//! points are `focal_point` contacts, never the record's `ca_name`; a
//! steward adds competent authorities with a scope, checks each one with an
//! honest outcome, makes one primary and withdraws one with a reason.

use serde_json::{json, Value};

use crate::inproc::{today, App};
use crate::support::{both_modes, Mode};

fn saxony() -> Value {
    json!({
        "name": "Landesdirektion Sachsen, Referat Abfall",
        "email": "abfall@lds.sachsen.de",
        "phone": "+49-371-532-0",
        "scope": {"area": "Saxony", "movements": ["import", "export"]},
        "source": "https://www.lds.sachsen.de",
    })
}

fn check(outcome: &str, verified: bool) -> Value {
    json!({
        "verified": verified, "checked_on": today(), "method": "phone",
        "source": "call to the office", "outcome": outcome,
    })
}

fn contact<'a>(record: &'a Value, id: &str) -> &'a Value {
    record["contacts"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["id"] == id))
        .unwrap_or_else(|| panic!("no contact {id} in {record}"))
}

async fn de_lists_its_focal_point_apart_and_an_added_authority_becomes_ca_name(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;

    let de = app.get("/api/v1/ca/DE", &key).await;
    assert_eq!(de.status, 200, "{}", de.text);
    assert_eq!(
        de.body["ca_name"],
        Value::Null,
        "a focal point is not the CA"
    );
    assert_eq!(de.body["email"], Value::Null);
    assert_eq!(de.body["phone"], Value::Null);
    assert_eq!(de.body["verified"], false);
    let contacts = de.body["contacts"].as_array().expect("contacts");
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0]["role"], "focal_point");
    assert_eq!(contacts[0]["primary"], false);
    assert_eq!(contacts[0]["email"], "focal.point.basel@uba.de");
    assert!(contacts[0]["name"]
        .as_str()
        .is_some_and(|n| n.starts_with("Umweltbundesamt") && !n.contains("FOCAL")));

    let listed = app.get("/api/v1/ca?q=DE", &key).await;
    let item = &listed.body["items"][0];
    assert_eq!(item["country_code"], "DE");
    assert_eq!(item["contacts_count"], 1);
    assert_eq!(item["has_competent_authority"], false);

    let refused = app
        .post_as(
            "/api/v1/ca/DE/verifications",
            &token,
            &check("confirmed", true),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert_eq!(
        refused.body["errors"][0]["field"], "ca_name",
        "no authority to verify"
    );
    let attempt = app
        .post_as(
            "/api/v1/ca/DE/verifications",
            &token,
            &check("no_answer", false),
        )
        .await;
    assert_eq!(attempt.status, 200, "{}", attempt.text);
    assert_eq!(attempt.body["last_attempt"], today());
    assert_eq!(attempt.body["last_checked"], Value::Null);
    assert_eq!(attempt.body["stale"], true);

    let added = app
        .post_as("/api/v1/ca/DE/contacts", &token, &saxony())
        .await;
    assert_eq!(added.status, 201, "{}", added.text);
    assert_eq!(added.header("location"), Some("/api/v1/ca/DE/contacts/c2"));
    let record = &added.body;
    assert_eq!(record["ca_name"], "Landesdirektion Sachsen, Referat Abfall");
    assert_eq!(record["email"], "abfall@lds.sachsen.de");
    assert_eq!(record["provenance"]["steward"], "ana");
    let ca = contact(record, "c2");
    assert_eq!(ca["role"], "competent_authority");
    assert_eq!(ca["primary"], true);
    assert_eq!(ca["scope"]["area"], "Saxony");
    assert_eq!(ca["scope"]["movements"], json!(["export", "import"]));
    assert_eq!(ca["provenance"]["steward"], "ana");
    assert_eq!(contact(record, "c1")["role"], "focal_point");
    assert_eq!(
        record["contacts"][0]["id"], "c2",
        "the primary authority first"
    );

    let read = app.get("/api/v1/ca/DE", &key).await;
    assert_eq!(read.body, added.body, "the write answers what GET returns");
    let one = app.get("/api/v1/ca/DE/contacts/c2", &key).await;
    assert_eq!(one.status, 200, "{}", one.text);
    assert_eq!(&one.body, ca);
    assert_eq!(
        app.get("/api/v1/ca/DE/contacts/c9", &key).await.code(),
        "contact_not_found"
    );
    let listed = app.get("/api/v1/ca?q=DE", &key).await;
    assert_eq!(listed.body["items"][0]["contacts_count"], 2);
    assert_eq!(listed.body["items"][0]["has_competent_authority"], true);

    let second_focal = app
        .post_as(
            "/api/v1/ca/DE/contacts",
            &token,
            &json!({"name": "Another office", "role": "focal_point"}),
        )
        .await;
    assert_eq!(second_focal.status, 422, "{}", second_focal.text);
    assert_eq!(second_focal.body["errors"][0]["field"], "role");
}

async fn each_check_outcome_moves_only_what_it_found(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    app.post_as("/api/v1/ca/DE/contacts", &token, &saxony())
        .await;
    let path = "/api/v1/ca/DE/contacts/c2/verifications";

    let no_answer = app.post_as(path, &token, &check("no_answer", false)).await;
    assert_eq!(no_answer.status, 200, "{}", no_answer.text);
    let r = &no_answer.body;
    assert_eq!(r["last_checked"], Value::Null, "nobody answered");
    assert_eq!(r["last_attempt"], today());
    assert_eq!(r["stale"], true);
    assert_eq!(contact(r, "c2")["provenance"]["outcome"], "no_answer");
    let cannot_verify = app.post_as(path, &token, &check("no_answer", true)).await;
    assert_eq!(cannot_verify.status, 422, "{}", cannot_verify.text);

    let confirmed = app.post_as(path, &token, &check("confirmed", true)).await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.text);
    let r = &confirmed.body;
    assert_eq!(r["last_checked"], today());
    assert_eq!(r["verified"], true);
    assert_eq!(r["stale"], false);
    assert_eq!(contact(r, "c2")["provenance"]["outcome"], "confirmed");

    let mut changed = check("changed", true);
    changed["changes"] = json!({"phone": "+49-371-532-1"});
    let changed = app.post_as(path, &token, &changed).await;
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(changed.body["phone"], "+49-371-532-1");
    assert_eq!(
        contact(&changed.body, "c2")["provenance"]["outcome"],
        "changed"
    );
    let nothing_changed = app.post_as(path, &token, &check("changed", true)).await;
    assert_eq!(nothing_changed.status, 422, "{}", nothing_changed.text);

    let defunct = app.post_as(path, &token, &check("defunct", false)).await;
    assert_eq!(defunct.status, 200, "{}", defunct.text);
    let r = &defunct.body;
    assert_eq!(r["email"], Value::Null, "a dead mailbox is not served");
    assert_eq!(r["phone"], Value::Null);
    assert_eq!(r["verified"], false);
    assert_eq!(r["last_checked"], today(), "the last check that reached it");
    let c = contact(r, "c2");
    assert_eq!(c["provenance"]["outcome"], "defunct");
    let retired: Vec<&str> = c["retired"]
        .as_array()
        .expect("retired")
        .iter()
        .filter_map(|x| x["field"].as_str())
        .collect();
    assert_eq!(retired, ["email", "phone"]);
    assert!(!r.to_string().contains("abfall@lds.sachsen.de"));
}

async fn a_steward_makes_an_authority_primary_and_withdraws_one_with_a_reason(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;
    app.post_as("/api/v1/ca/DE/contacts", &token, &saxony())
        .await;
    let hesse = json!({"name": "Regierungspräsidium Darmstadt", "scope": {"area": "Hesse"}});
    let added = app.post_as("/api/v1/ca/DE/contacts", &token, &hesse).await;
    assert_eq!(added.header("location"), Some("/api/v1/ca/DE/contacts/c3"));
    assert_eq!(
        added.body["ca_name"],
        "Landesdirektion Sachsen, Referat Abfall"
    );

    let primary = app
        .post_as("/api/v1/ca/DE/contacts/c3/primary", &token, &json!({}))
        .await;
    assert_eq!(primary.status, 200, "{}", primary.text);
    assert_eq!(primary.body["ca_name"], "Regierungspräsidium Darmstadt");
    let focal = app
        .post_as("/api/v1/ca/DE/contacts/c1/primary", &token, &json!({}))
        .await;
    assert_eq!(focal.status, 422, "{}", focal.text);

    let delete = |body: Value| {
        app.client()
            .delete(app.url("/api/v1/ca/DE/contacts/c3"))
            .bearer_auth(&token)
            .json(&body)
    };
    let without_reason = app.send(delete(json!({}))).await;
    assert_eq!(without_reason.status, 422, "{}", without_reason.text);
    let removed = app
        .send(delete(json!({"reason": "merged into the Land office"})))
        .await;
    assert_eq!(removed.status, 200, "{}", removed.text);
    assert_eq!(
        removed.body["ca_name"], "Landesdirektion Sachsen, Referat Abfall",
        "the remaining authority is primary again"
    );
    assert_eq!(removed.body["contacts"].as_array().map(Vec::len), Some(2));
    let history = app.get("/api/v1/ca/DE/history", &key).await;
    let last = history.body["items"]
        .as_array()
        .and_then(|items| items.last())
        .cloned()
        .expect("history");
    assert_eq!(last["event_type"], "ContactRemoved");
    assert_eq!(last["reason"], "merged into the Land office");
    assert_eq!(last["steward"]["id"], "ana");
    assert_eq!(last["actor"], "steward:ana");
    let gone = app.send(delete(json!({"reason": "again"}))).await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.code(), "contact_not_found");
}

async fn a_country_added_over_rest_names_its_steward_in_provenance(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ben").await;
    let created = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "XK", "country_name": "Kosovo", "ca_name": "Ministry"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(created.body["provenance"]["steward"], "ben");
    assert_eq!(created.body["contacts"][0]["provenance"]["steward"], "ben");
    let bare = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "XA", "country_name": "Nowhere"}),
        )
        .await;
    assert_eq!(bare.status, 201, "{}", bare.text);
    assert_eq!(bare.body["provenance"]["steward"], "ben");
    assert_eq!(bare.body["contacts"], json!([]));
}

both_modes!(
    de_lists_its_focal_point_apart_and_an_added_authority_becomes_ca_name,
    each_check_outcome_moves_only_what_it_found,
    a_steward_makes_an_authority_primary_and_withdraws_one_with_a_reason,
    a_country_added_over_rest_names_its_steward_in_provenance,
);

async fn coverage_counts_the_seed_and_follows_a_new_authority(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;
    let before = app.get("/api/v1/coverage", &key).await;
    assert_eq!(before.status, 200, "{}", before.text);
    let c = &before.body;
    assert_eq!(c["parties"], 190);
    let sum = c["with_competent_authority"].as_i64().unwrap_or_default()
        + c["focal_point_only"].as_i64().unwrap_or_default()
        + c["no_contact"].as_i64().unwrap_or_default();
    assert_eq!(sum, 190, "every Party is in exactly one of the three: {c}");
    assert_eq!(c["focal_point_only"], 2, "DE and GB: {c}");
    assert_eq!(c["verified"], 0);
    assert_eq!(c["stale"], 190);
    assert_eq!(c["checked_last_365_days"], 0);
    assert_eq!(app.get_anonymous("/api/v1/coverage").await.status, 401);

    let mut verified = saxony();
    verified["verified"] = json!(true);
    verified["last_checked"] = json!(today());
    app.post_as("/api/v1/ca/DE/contacts", &token, &verified)
        .await;
    let after = app.get("/api/v1/coverage", &key).await.body;
    assert_eq!(after["focal_point_only"], 1);
    assert_eq!(
        after["with_competent_authority"].as_i64(),
        c["with_competent_authority"].as_i64().map(|n| n + 1)
    );
    assert_eq!(after["verified"], 1);
    assert_eq!(after["stale"], 189);
    assert_eq!(after["checked_last_365_days"], 1);
    let metrics = app.get_anonymous("/metrics").await.text;
    assert!(metrics.contains("basel_coverage_parties 190"), "{metrics}");
    assert!(metrics.contains("basel_coverage_focal_point_only 1"));
    assert!(metrics.contains("basel_coverage_verified 1"));
}

both_modes!(coverage_counts_the_seed_and_follows_a_new_authority);

async fn the_worklist_orders_parties_by_need_for_stewards_only(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;
    let get = |token: &str| {
        app.client()
            .get(app.url("/api/v1/stewardship/worklist"))
            .bearer_auth(token)
    };
    assert_eq!(
        app.send(get(&key)).await.status,
        401,
        "API keys are refused"
    );
    let list = app.send(get(&token)).await;
    assert_eq!(list.status, 200, "{}", list.text);
    let items = list.body["items"].as_array().expect("items").clone();
    let needs: Vec<&str> = items.iter().filter_map(|i| i["need"].as_str()).collect();
    let rank = |n: &str| {
        [
            "no_contact",
            "focal_point_only",
            "defunct_or_unanswered",
            "never_verified",
            "stale",
        ]
        .iter()
        .position(|x| *x == n)
        .expect("a known need")
    };
    assert!(
        needs.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
        "{needs:?}"
    );
    assert_eq!(items.len(), 190, "nothing in the seed is verified");
    let de = items
        .iter()
        .find(|i| i["country_code"] == "DE")
        .expect("DE listed");
    assert_eq!(de["need"], "focal_point_only");
    assert_eq!(de["look_for"], "Germany (DE)");
    assert!(de["look_at"]
        .as_str()
        .is_some_and(|u| u.contains("CountryContacts")));

    app.post_as("/api/v1/ca/DE/contacts", &token, &saxony())
        .await;
    app.post_as(
        "/api/v1/ca/DE/contacts/c2/verifications",
        &token,
        &check("no_answer", false),
    )
    .await;
    let list = app.send(get(&token)).await.body;
    let de = list["items"]
        .as_array()
        .and_then(|all| all.iter().find(|i| i["country_code"] == "DE").cloned())
        .expect("DE listed");
    assert_eq!(de["need"], "defunct_or_unanswered");
}

both_modes!(the_worklist_orders_parties_by_need_for_stewards_only);
