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

/// `body` asked to become the primary competent authority.
fn primary(mut body: Value) -> Value {
    body["primary"] = json!(true);
    body
}

/// AF has no contact in the data release: its focal point becomes `c1`.
async fn with_focal_point(app: &App, token: &str) {
    let focal = app
        .post_as(
            "/api/v1/ca/AF/contacts",
            token,
            &json!({"name": "Ministry of Environment", "role": "focal_point"}),
        )
        .await;
    assert_eq!(focal.status, 201, "{}", focal.text);
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

fn national() -> Value {
    json!({
        "name": "National Environmental Protection Agency",
        "email": "nepa@example.org",
        "phone": "+93-20-2500-000",
        "source": "https://www.example.org/nepa",
    })
}

async fn a_focal_point_is_listed_apart_and_a_national_authority_becomes_ca_name(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;

    // AF has no contact in the data release: its focal point comes first.
    let focal = app
        .post_as(
            "/api/v1/ca/AF/contacts",
            &token,
            &json!({"name": "Ministry of Environment", "role": "focal_point",
                    "email": "focal.point@example.org"}),
        )
        .await;
    assert_eq!(focal.status, 201, "{}", focal.text);
    let af = app.get("/api/v1/ca/AF", &key).await;
    assert_eq!(af.status, 200, "{}", af.text);
    assert_eq!(
        af.body["ca_name"],
        Value::Null,
        "a focal point is not the CA"
    );
    assert_eq!(af.body["email"], Value::Null);
    assert_eq!(af.body["verified"], false);
    let contacts = af.body["contacts"].as_array().expect("contacts");
    assert_eq!(contacts.len(), 1);
    assert_eq!(contacts[0]["role"], "focal_point");
    assert_eq!(contacts[0]["primary"], false);

    let listed = app.get("/api/v1/ca?q=AF", &key).await;
    let item = &listed.body["items"][0];
    assert_eq!(item["country_code"], "AF");
    assert_eq!(item["contacts_count"], 1);
    assert_eq!(item["has_competent_authority"], false);

    let refused = app
        .post_as(
            "/api/v1/ca/AF/verifications",
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
            "/api/v1/ca/AF/verifications",
            &token,
            &check("no_answer", false),
        )
        .await;
    assert_eq!(attempt.status, 200, "{}", attempt.text);
    assert_eq!(attempt.body["last_attempt"], today());
    assert_eq!(attempt.body["last_checked"], Value::Null);
    assert_eq!(attempt.body["stale"], true);

    let regional = app
        .post_as("/api/v1/ca/AF/contacts", &token, &saxony())
        .await;
    assert_eq!(regional.status, 201, "{}", regional.text);
    assert_eq!(
        regional.body["ca_name"],
        Value::Null,
        "an area-limited authority is not primary by default"
    );
    assert_eq!(contact(&regional.body, "c2")["primary"], false);

    let added = app
        .post_as("/api/v1/ca/AF/contacts", &token, &national())
        .await;
    assert_eq!(added.status, 201, "{}", added.text);
    assert_eq!(added.header("location"), Some("/api/v1/ca/AF/contacts/c3"));
    let record = &added.body;
    assert_eq!(
        record["ca_name"],
        "National Environmental Protection Agency"
    );
    assert_eq!(record["email"], "nepa@example.org");
    assert_eq!(record["provenance"]["steward"], "ana");
    let ca = contact(record, "c3");
    assert_eq!(ca["role"], "competent_authority");
    assert_eq!(ca["primary"], true);
    assert_eq!(ca["scope"]["area"], Value::Null);
    assert_eq!(ca["provenance"]["steward"], "ana");
    assert_eq!(ca["provenance"]["source_kind"], "unknown");
    let saxon = contact(record, "c2");
    assert_eq!(saxon["scope"]["area"], "Saxony");
    assert_eq!(saxon["scope"]["movements"], json!(["export", "import"]));
    assert_eq!(contact(record, "c1")["role"], "focal_point");
    assert_eq!(
        record["contacts"][0]["id"], "c3",
        "the primary authority first"
    );

    let read = app.get("/api/v1/ca/AF", &key).await;
    assert_eq!(read.body, added.body, "the write answers what GET returns");
    let one = app.get("/api/v1/ca/AF/contacts/c3", &key).await;
    assert_eq!(one.status, 200, "{}", one.text);
    assert_eq!(&one.body, ca);
    assert_eq!(
        app.get("/api/v1/ca/AF/contacts/c9", &key).await.code(),
        "contact_not_found"
    );
    let listed = app.get("/api/v1/ca?q=AF", &key).await;
    assert_eq!(listed.body["items"][0]["contacts_count"], 3);
    assert_eq!(listed.body["items"][0]["has_competent_authority"], true);

    let second_focal = app
        .post_as(
            "/api/v1/ca/AF/contacts",
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
    with_focal_point(&app, &token).await;
    app.post_as("/api/v1/ca/AF/contacts", &token, &primary(saxony()))
        .await;
    let path = "/api/v1/ca/AF/contacts/c2/verifications";

    let no_answer = app.post_as(path, &token, &check("no_answer", false)).await;
    assert_eq!(no_answer.status, 200, "{}", no_answer.text);
    let r = &no_answer.body;
    assert_eq!(r["last_checked"], Value::Null, "nobody answered");
    assert_eq!(r["last_attempt"], today());
    assert_eq!(r["stale"], true);
    assert_eq!(contact(r, "c2")["provenance"]["outcome"], "no_answer");
    let cannot_verify = app.post_as(path, &token, &check("no_answer", true)).await;
    assert_eq!(cannot_verify.status, 422, "{}", cannot_verify.text);

    let unverified = app.post_as(path, &token, &check("confirmed", false)).await;
    assert_eq!(unverified.status, 200, "{}", unverified.text);
    let r = &unverified.body;
    assert_eq!(
        r["last_checked"],
        Value::Null,
        "an unverified check is no freshness"
    );
    assert_eq!(r["stale"], true);
    let c = contact(r, "c2");
    assert_eq!(
        c["provenance"]["source"], "https://www.lds.sachsen.de",
        "the source stays"
    );
    assert_eq!(
        c["provenance"]["last_check"]["source"],
        "call to the office"
    );
    assert_eq!(c["provenance"]["last_check"]["verified"], false);

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
    assert_eq!(
        r["ca_name"],
        Value::Null,
        "a defunct authority is not primary"
    );
    assert_eq!(r["email"], Value::Null, "a dead mailbox is not served");
    assert_eq!(r["phone"], Value::Null);
    assert_eq!(r["verified"], false);
    let c = contact(r, "c2");
    assert_eq!(c["primary"], false);
    assert_eq!(
        c["provenance"]["last_checked"],
        today(),
        "the last check that reached it"
    );
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
    with_focal_point(&app, &token).await;
    app.post_as("/api/v1/ca/AF/contacts", &token, &primary(saxony()))
        .await;
    let hesse = json!({"name": "Regierungspräsidium Darmstadt", "scope": {"area": "Hesse"}});
    let added = app.post_as("/api/v1/ca/AF/contacts", &token, &hesse).await;
    assert_eq!(added.header("location"), Some("/api/v1/ca/AF/contacts/c3"));
    assert_eq!(
        added.body["ca_name"],
        "Landesdirektion Sachsen, Referat Abfall"
    );

    let primary = app
        .post_as("/api/v1/ca/AF/contacts/c3/primary", &token, &json!({}))
        .await;
    assert_eq!(primary.status, 200, "{}", primary.text);
    assert_eq!(primary.body["ca_name"], "Regierungspräsidium Darmstadt");
    let focal = app
        .post_as("/api/v1/ca/AF/contacts/c1/primary", &token, &json!({}))
        .await;
    assert_eq!(focal.status, 422, "{}", focal.text);

    let delete = |body: Value| {
        app.client()
            .delete(app.url("/api/v1/ca/AF/contacts/c3"))
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
        removed.body["ca_name"],
        Value::Null,
        "no authority of national scope remains: an area-limited one is not made primary"
    );
    assert_eq!(removed.body["contacts"].as_array().map(Vec::len), Some(2));
    let history = app.get("/api/v1/ca/AF/history", &key).await;
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
            &json!({"country_code": "AF", "country_name": "Afghanistan", "ca_name": "Ministry"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(created.body["provenance"]["steward"], "ben");
    assert_eq!(created.body["contacts"][0]["provenance"]["steward"], "ben");
    assert_eq!(created.body["party"]["code"], "AF");
    let bare = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "AM", "country_name": "Armenia"}),
        )
        .await;
    assert_eq!(bare.status, 201, "{}", bare.text);
    assert_eq!(bare.body["provenance"]["steward"], "ben");
    assert_eq!(bare.body["contacts"], json!([]));
    for (code, name, expected) in [
        ("US", "United States", "not_a_party"),
        ("XK", "Kosovo", "country_not_found"),
        ("QQ", "Nowhere", "country_not_found"),
    ] {
        let refused = app
            .post_as(
                "/api/v1/ca",
                &token,
                &json!({"country_code": code, "country_name": name}),
            )
            .await;
        assert_eq!(refused.status, 422, "{code}: {}", refused.text);
        assert_eq!(refused.code(), expected, "{code}");
    }
    let key = app.key().await;
    let us = app.get("/api/v1/ca/US", &key).await;
    assert_eq!(us.status, 404);
    assert_eq!(us.code(), "not_a_party");
    assert!(us.text.contains("signed"), "{}", us.text);
    let qq = app.get("/api/v1/ca/QQ", &key).await;
    assert_eq!(qq.status, 404);
    assert_eq!(qq.code(), "country_not_found");
}

both_modes!(
    a_focal_point_is_listed_apart_and_a_national_authority_becomes_ca_name,
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
    let n = |v: &Value, k: &str| v[k].as_i64().unwrap_or_default();
    assert_eq!(c["parties"], 191, "190 States and the EU");
    assert!(n(c, "with_traced_contact") >= 100, "{c}");
    let sum = n(c, "with_competent_authority")
        + n(c, "with_area_authorities_only")
        + n(c, "focal_point_only")
        + n(c, "no_contact");
    assert_eq!(sum, 191, "every Party is in exactly one of the four: {c}");
    assert_eq!(c["verified"], 0, "the release verifies nothing");
    assert_eq!(c["contacts"]["verified"], 0);
    assert_eq!(c["checked_last_365_days"], 0);
    let bands: i64 = c["parties_by_age_band"]
        .as_object()
        .expect("bands")
        .values()
        .filter_map(Value::as_i64)
        .sum();
    assert_eq!(bands, 191, "{c}");
    assert!(
        n(&c["contacts"]["by_age_band"], "over_15y") > 50,
        "fact sheets of 2002-2009: {c}"
    );
    assert!(n(&c["contacts"]["by_source_kind"], "secretariat_factsheet") > 50);
    assert_eq!(app.get_anonymous("/api/v1/coverage").await.status, 401);

    let mut verified = national();
    verified["verified"] = json!(true);
    verified["last_checked"] = json!(today());
    let added = app
        .post_as("/api/v1/ca/AF/contacts", &token, &verified)
        .await;
    assert_eq!(added.status, 201, "{}", added.text);
    let after = app.get("/api/v1/coverage", &key).await.body;
    assert_eq!(n(&after, "no_contact"), n(c, "no_contact") - 1);
    assert_eq!(
        n(&after, "with_competent_authority"),
        n(c, "with_competent_authority") + 1
    );
    assert_eq!(after["verified"], 1);
    assert_eq!(n(&after, "stale"), n(c, "stale") - 1);
    assert_eq!(after["checked_last_365_days"], 1);
    assert_eq!(
        after["parties_by_age_band"]["under_1y"],
        n(&c["parties_by_age_band"], "under_1y") + 1
    );
    let metrics = app.get_anonymous("/metrics").await.text;
    assert!(metrics.contains("basel_coverage_parties 191"), "{metrics}");
    assert!(metrics.contains("basel_coverage_verified 1"));
}

both_modes!(coverage_counts_the_seed_and_follows_a_new_authority);

async fn the_worklist_orders_parties_by_need_for_stewards_only(mode: Mode) {
    let app = App::seeded(mode).await;
    let token = app.enrol("ana").await;
    let key = app.key().await;
    let get = |token: &str| {
        app.client()
            .get(app.url("/api/v1/stewardship/worklist?per_page=200"))
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
    assert_eq!(items.len(), 191, "nothing in the seed is verified");
    // Oldest first within a need: unknown age first, then by date.
    for pair in items.windows(2).filter(|w| w[0]["need"] == w[1]["need"]) {
        let (a, b) = (&pair[0]["as_of"], &pair[1]["as_of"]);
        assert!(
            a.is_null() || (!b.is_null() && a.as_str() <= b.as_str()),
            "{a} before {b}"
        );
    }
    let de = items
        .iter()
        .find(|i| i["country_code"] == "DE")
        .expect("DE listed");
    assert_eq!(de["need"], "never_verified");
    assert_eq!(de["look_for"], "Germany (DE)");
    let leads = de["look_at"].as_array().expect("leads");
    assert!(leads.len() > 2, "DE's own sources first: {leads:?}");
    assert!(leads[0]
        .as_str()
        .is_some_and(|u| !u.contains("CountryContacts")));
    assert!(leads
        .last()
        .and_then(Value::as_str)
        .is_some_and(|u| u.contains("CountryContacts")));
    let fr = items
        .iter()
        .find(|i| i["country_code"] == "FR")
        .expect("FR");
    assert_ne!(fr["look_at"], de["look_at"], "each Party its own leads");

    let filtered = app
        .send(
            app.client()
                .get(app.url(
                    "/api/v1/stewardship/worklist?reason=never_verified&source_kind=government_current&per_page=5",
                ))
                .bearer_auth(&token),
        )
        .await;
    assert_eq!(filtered.status, 200, "{}", filtered.text);
    let page = filtered.body["items"].as_array().expect("items");
    assert!(page.len() <= 5 && !page.is_empty());
    assert!(page.iter().all(|i| i["need"] == "never_verified"
        && i["source_kinds"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "government_current"))));
    assert!(filtered.body["total_items"].as_i64().unwrap_or_default() >= page.len() as i64);
    let bad = app
        .send(
            app.client()
                .get(app.url("/api/v1/stewardship/worklist?reason=bored"))
                .bearer_auth(&token),
        )
        .await;
    assert_eq!(bad.status, 400);

    let record = app.get("/api/v1/ca/DE", &key).await.body;
    let authority = record["contacts"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["role"] == "competent_authority"))
        .and_then(|c| c["id"].as_str())
        .expect("a competent authority of DE")
        .to_owned();
    let checked = app
        .post_as(
            &format!("/api/v1/ca/DE/contacts/{authority}/verifications"),
            &token,
            &check("no_answer", false),
        )
        .await;
    assert_eq!(checked.status, 200, "{}", checked.text);
    let list = app.send(get(&token)).await.body;
    let de = list["items"]
        .as_array()
        .and_then(|all| all.iter().find(|i| i["country_code"] == "DE").cloned())
        .expect("DE listed");
    assert_eq!(de["need"], "defunct_or_unanswered");
}

both_modes!(the_worklist_orders_parties_by_need_for_stewards_only);
