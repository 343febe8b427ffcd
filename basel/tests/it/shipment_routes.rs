//! The shipment planner judged route by route, as a compliance officer
//! would: each case states whether the movement is prohibited and which
//! rules (with their articles) decide it, and is asked of both edges of the
//! running binary, `POST /api/v1/shipments/plan` and the MCP tool
//! `plan_shipment`, which must give the same answer.

use serde_json::{json, Value};

use crate::mcp::{api_key, call, rmcp_client, structured, Client};
use crate::process::{Basel, Node};

/// Hazardous (Annex VIII): lead-acid batteries.
const HAZARDOUS: &str = "A1160";
/// Green (Annex IX): copper and other metal scrap in non-dispersible form.
const GREEN: &str = "B1010";
/// Annex II "other wastes": household waste.
const OTHER: &str = "Y46";

/// One route: the question and the expected answer.
struct Case {
    from: &'static str,
    via: &'static [&'static str],
    to: &'static str,
    code: &'static str,
    operation: Option<&'static str>,
    prohibited: Value,
    regime: &'static str,
    /// Deciding rules: the rule id and a part of its article.
    deciding: &'static [(&'static str, &'static str)],
}

const fn case(
    from: &'static str,
    to: &'static str,
    code: &'static str,
    operation: Option<&'static str>,
    regime: &'static str,
    deciding: &'static [(&'static str, &'static str)],
) -> Case {
    Case {
        from,
        via: &[],
        to,
        code,
        operation,
        prohibited: Value::Null,
        regime,
        deciding,
    }
}

const BAN: (&str, &str) = ("ban_amendment", "Article 4A");
const NON_PARTY: (&str, &str) = ("non_party", "Articles 4(5) and 11");
const PIC: (&str, &str) = ("basel_pic", "Articles 6 and 7");
const OECD: (&str, &str) = ("oecd_decision", "C(2001)107/FINAL");
const WSR: (&str, &str) = ("eu_wsr", "2024/1157");
const AGREEMENT: (&str, &str) = ("agreement", "Article 11");
const EU_DISPOSAL: (&str, &str) = ("eu_export_disposal", "Article 37");
const EU_RECOVERY: (&str, &str) = ("eu_export_recovery", "Article 39");
const EU_ANNEX_V: (&str, &str) = ("eu_annex_v_part2", "Article 39(1)(c)");
const IMPORT_BAN: (&str, &str) = ("import_ban", "4(1)(b)");

fn cases() -> Vec<Case> {
    let yes = |c: Case| Case {
        prohibited: json!(true),
        ..c
    };
    let no = |c: Case| Case {
        prohibited: json!(false),
        ..c
    };
    let unknown = |c: Case| Case {
        prohibited: json!("unknown"),
        ..c
    };
    let r = Some("recovery");
    let d = Some("disposal");
    vec![
        // Article 4A and 4(5): Germany accepted the Ban; Haiti is neither in
        // Annex VII nor a Party.
        yes(case(
            "DE",
            "HT",
            HAZARDOUS,
            r,
            "basel_pic",
            &[BAN, NON_PARTY],
        )),
        yes(case(
            "DE",
            "Haiti",
            HAZARDOUS,
            d,
            "basel_pic",
            &[BAN, NON_PARTY],
        )),
        yes(case(
            "Germany",
            "HT",
            HAZARDOUS,
            None,
            "basel_pic",
            &[BAN, NON_PARTY],
        )),
        // Norway and Switzerland accepted the Ban.
        yes(case("NO", "GH", HAZARDOUS, r, "basel_pic", &[BAN])),
        yes(case("CH", "GH", HAZARDOUS, d, "basel_pic", &[BAN])),
        yes(case(
            "DE",
            "IN",
            HAZARDOUS,
            r,
            "basel_pic",
            &[BAN, EU_RECOVERY],
        )),
        yes(case(
            "FR",
            "NG",
            HAZARDOUS,
            d,
            "basel_pic",
            &[BAN, EU_DISPOSAL],
        )),
        // Annex VII Parties that did not accept the Ban: the Basel
        // procedure, unless the State of import bans the import: Viet Nam's
        // and Indonesia's bans are known from secondary sources only
        // (unknown), Egypt's from its Law 4 of 1994 (prohibited).
        unknown(case("JP", "VN", HAZARDOUS, r, "basel_pic", &[IMPORT_BAN])),
        unknown(case("CA", "VN", HAZARDOUS, r, "basel_pic", &[IMPORT_BAN])),
        unknown(case("AU", "ID", HAZARDOUS, d, "basel_pic", &[IMPORT_BAN])),
        yes(case("IL", "EG", HAZARDOUS, d, "basel_pic", &[IMPORT_BAN])),
        no(case("JP", "KE", HAZARDOUS, r, "basel_pic", &[PIC])),
        // Annex VII Parties whose acceptance is unknown.
        unknown(case(
            "KR",
            "VN",
            HAZARDOUS,
            r,
            "basel_pic",
            &[("ban_amendment", "Article 4A")],
        )),
        unknown(case(
            "MX",
            "GH",
            HAZARDOUS,
            d,
            "basel_pic",
            &[("ban_amendment", "Article 4A")],
        )),
        unknown(case(
            "NZ",
            "WS",
            HAZARDOUS,
            r,
            "basel_pic",
            &[("ban_amendment", "Article 4A")],
        )),
        // OECD Decision: recovery only.
        yes(case(
            "DE",
            "US",
            HAZARDOUS,
            d,
            "basel_pic",
            &[NON_PARTY, EU_DISPOSAL],
        )),
        no(case(
            "DE",
            "United States",
            HAZARDOUS,
            r,
            "oecd_decision",
            &[OECD, NON_PARTY],
        )),
        unknown(case("DE", "USA", HAZARDOUS, None, "oecd_decision", &[])),
        no(case("JP", "US", HAZARDOUS, r, "oecd_decision", &[OECD])),
        yes(case("JP", "US", HAZARDOUS, d, "basel_pic", &[NON_PARTY])),
        no(case("DE", "TR", HAZARDOUS, r, "oecd_decision", &[OECD])),
        no(case("KR", "JP", HAZARDOUS, r, "oecd_decision", &[OECD])),
        no(case("FR", "CH", GREEN, r, "oecd_decision", &[OECD])),
        // Article 11 agreements with the United States.
        no(case(
            "US",
            "MX",
            HAZARDOUS,
            d,
            "article_11_agreement",
            &[AGREEMENT, NON_PARTY],
        )),
        no(case("US", "MX", HAZARDOUS, r, "oecd_decision", &[OECD])),
        no(case(
            "MX",
            "US",
            HAZARDOUS,
            d,
            "article_11_agreement",
            &[AGREEMENT],
        )),
        no(case(
            "CA",
            "US",
            HAZARDOUS,
            d,
            "article_11_agreement",
            &[AGREEMENT],
        )),
        no(case(
            "US",
            "CA",
            OTHER,
            d,
            "article_11_agreement",
            &[AGREEMENT],
        )),
        no(case(
            "MY",
            "US",
            HAZARDOUS,
            d,
            "article_11_agreement",
            &[AGREEMENT],
        )),
        no(case(
            "PH",
            "US",
            HAZARDOUS,
            d,
            "article_11_agreement",
            &[AGREEMENT],
        )),
        yes(case("US", "MY", HAZARDOUS, r, "basel_pic", &[NON_PARTY])),
        yes(case("US", "PH", HAZARDOUS, d, "basel_pic", &[NON_PARTY])),
        // Named in the reference but not found: unknown.
        // The US–Costa Rica exchange of notes (1997) is found; Costa Rica's
        // import ban from States outside the Central American agreement is
        // known only from its membership: unknown.
        unknown(case(
            "US",
            "CR",
            HAZARDOUS,
            d,
            "article_11_agreement",
            &[IMPORT_BAN],
        )),
        // Costa Rica's Central American import ban (membership only).
        unknown(case(
            "US",
            "CR",
            HAZARDOUS,
            r,
            "oecd_decision",
            &[IMPORT_BAN],
        )),
        // EU Waste Shipment Regulation inside the EU.
        no(case("DE", "FR", GREEN, r, "eu_wsr", &[WSR])),
        no(case("DE", "FR", GREEN, d, "eu_wsr", &[WSR])),
        no(case("DE", "FR", HAZARDOUS, r, "eu_wsr", &[WSR])),
        no(case("IT", "AT", OTHER, d, "eu_wsr", &[WSR])),
        // Exports from the EU for disposal: only to an EFTA Party.
        // Norway applies the EU Regulation through the EEA.
        no(case("DE", "NO", HAZARDOUS, d, "eu_wsr", &[WSR])),
        no(case("AT", "CH", OTHER, d, "basel_pic", &[PIC])),
        yes(case("DE", "US", GREEN, d, "not_controlled", &[EU_DISPOSAL])),
        // Between Parties outside Annex VII: the Basel procedure.
        // Nigeria's Decree 42 of 1988: its operative text was not read.
        unknown(case("GH", "NG", HAZARDOUS, d, "basel_pic", &[IMPORT_BAN])),
        no(case("SG", "MY", HAZARDOUS, r, "basel_pic", &[PIC])),
        // Norway (EEA) exports as the Union does: Article 39(1)(c).
        yes(case("NO", "GH", OTHER, r, "basel_pic", &[EU_ANNEX_V])),
        no(case("NO", "DE", HAZARDOUS, d, "eu_wsr", &[WSR])),
        yes(case("GH", "HT", HAZARDOUS, d, "basel_pic", &[NON_PARTY])),
        // Green waste outside the OECD and the EU: no Basel control.
        no(case("GH", "IN", GREEN, r, "not_controlled", &[])),
        // Viet Nam admits only listed scrap (secondary sources): unknown.
        unknown(case("JP", "VN", GREEN, r, "not_controlled", &[IMPORT_BAN])),
        // Neither a Party: the Convention binds neither.
        no(case("HT", "US", HAZARDOUS, r, "not_covered", &[])),
        // Antarctica: no disposal south of 60° S.
        yes(case(
            "DE",
            "AQ",
            HAZARDOUS,
            d,
            "basel_pic",
            &[
                ("antarctica", "Article 4(6)"),
                ("eu_antarctic", "Article 48"),
            ],
        )),
        // The same State at both ends.
        no(case("DE", "DE", HAZARDOUS, d, "domestic", &[])),
        // Exports of other wastes from the EU outside the OECD: not checked.
        yes(case("DE", "VN", OTHER, r, "basel_pic", &[EU_ANNEX_V])),
    ]
}

/// The day every route is asked for (after the EU plastic export ban).
const AS_OF: &str = "2026-11-22";

async fn both(node: &Node, key: &str, client: &Client, body: &Value) -> Value {
    let mut body = body.clone();
    if body.get("as_of").is_none() {
        body["as_of"] = json!(AS_OF);
    }
    let body = &body;
    let rest = node
        .http
        .post(format!("{}/api/v1/shipments/plan", node.base))
        .header("x-api-key", key)
        .json(body)
        .send()
        .await
        .expect("REST");
    assert_eq!(rest.status().as_u16(), 200, "{body}");
    let rest: Value = rest.json().await.expect("JSON");
    let mcp = structured(&call(client, "plan_shipment", body.clone()).await);
    assert_eq!(mcp, rest, "MCP and REST give the same plan for {body}");
    assert_eq!(rest["as_of"], body["as_of"], "the answer states its day");
    rest
}

fn rule<'a>(plan: &'a Value, id: &str) -> Option<&'a Value> {
    plan["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["rule"] == id)
}

fn check(case: &Case, plan: &Value) {
    let name = format!(
        "{} → {} ({}, {:?})",
        case.from, case.to, case.code, case.operation
    );
    assert_eq!(
        plan["prohibited"], case.prohibited,
        "{name}: {}",
        plan["summary"]
    );
    assert_eq!(plan["regime"], case.regime, "{name}");
    let wanted = match &case.prohibited {
        Value::Bool(true) => vec!["prohibits"],
        Value::Bool(false) => vec!["permits", "procedure"],
        _ => vec!["may_prohibit"],
    };
    for (id, article) in case.deciding {
        let found =
            rule(plan, id).unwrap_or_else(|| panic!("{name}: no rule {id}: {}", plan["rules"]));
        assert!(
            found["article"]
                .as_str()
                .is_some_and(|a| a.contains(article)),
            "{name}: {id} cites {}",
            found["article"]
        );
        assert!(
            wanted.iter().any(|w| found["effect"] == *w),
            "{name}: {id} has effect {} where {wanted:?} decides",
            found["effect"]
        );
    }
    let steps = plan["steps"].as_array().expect("steps");
    match &case.prohibited {
        Value::Bool(true) => {
            assert!(steps.is_empty(), "{name}: no steps when prohibited");
            assert!(
                !plan["to_permit"].as_array().expect("to_permit").is_empty(),
                "{name}"
            );
            assert!(plan["summary"]
                .as_str()
                .is_some_and(|s| s.starts_with("Prohibited: ")));
        }
        _ => assert!(!steps.is_empty(), "{name}: steps"),
    }
    let summary = plan["summary"].as_str().expect("summary");
    assert!(
        !summary.contains("Prohibited: Prohibited"),
        "{name}: {summary}"
    );
}

fn body(case: &Case) -> Value {
    let mut body = json!({
        "code": case.code,
        "origin": case.from,
        "destination": case.to,
    });
    if !case.via.is_empty() {
        body["transit"] = json!(case.via);
    }
    if let Some(op) = case.operation {
        body["operation"] = json!(op);
    }
    body
}

/// Every route of the table, on both edges.
#[tokio::test]
async fn every_route_of_the_table_gets_its_answer_on_both_edges() {
    let basel = Basel::embedded();
    let node = basel.serve().await;
    let key = api_key(&node).await;
    let client = rmcp_client(&node, &key).await;
    let cases = cases();
    assert!(cases.len() >= 40, "{} routes", cases.len());
    for case in &cases {
        let plan = both(&node, &key, &client, &body(case)).await;
        check(case, &plan);
    }
    specific_answers(&node, &key, &client).await;
    refusals(&node, &key, &client).await;
    law_table(&node, &key, &client).await;
}

/// The law crate's route table (`law/tests/routes.json`), on both edges:
/// the verdict, the deciding rules and each State's consent.
async fn law_table(node: &Node, key: &str, client: &Client) {
    let table: Value = serde_json::from_str(include_str!("../../../law/tests/routes.json"))
        .expect("the table parses");
    for row in table["routes"].as_array().expect("routes") {
        let mut body = json!({
            "code": row["code"],
            "origin": row["origin"],
            "destination": row["destination"],
            "as_of": row["as_of"],
        });
        for field in ["operation", "transit"] {
            if !row[field].is_null() {
                body[field] = row[field].clone();
            }
        }
        let plan = both(node, key, client, &body).await;
        assert_eq!(
            plan["prohibited"], row["prohibited"],
            "{body}: {}",
            plan["summary"]
        );
        let wanted = match &row["prohibited"] {
            Value::Bool(true) => vec!["prohibits"],
            Value::Bool(false) => vec!["permits", "procedure"],
            _ => vec!["may_prohibit"],
        };
        for id in row["deciding"].as_array().expect("deciding") {
            let found = plan["rules"]
                .as_array()
                .expect("rules")
                .iter()
                .any(|r| r["rule"] == *id && wanted.iter().any(|w| r["effect"] == *w));
            assert!(found, "{body}: {id} does not decide: {}", plan["rules"]);
        }
        for (state, consent) in row["consent"].as_object().into_iter().flatten() {
            let on_route = plan["route"]
                .as_array()
                .expect("route")
                .iter()
                .find(|s| s["country_code"] == state.as_str())
                .unwrap_or_else(|| panic!("{body}: {state} not on the route"));
            assert_eq!(on_route["consent"], *consent, "{body}: {state}");
        }
    }
}

async fn specific_answers(node: &Node, key: &str, client: &Client) {
    // Japan has not accepted the Ban: named as such, with its evidence.
    let jp = both(
        node,
        key,
        client,
        &json!({"code": HAZARDOUS, "origin": "JP", "destination": "VN", "operation": "R4"}),
    )
    .await;
    let ban = rule(&jp, "ban_amendment").expect("ban rule");
    assert_eq!(ban["effect"], "note");
    assert!(ban["evidence"].as_str().is_some_and(|e| !e.is_empty()));
    assert_eq!(jp["operation_code"], "R4");
    assert_eq!(jp["route"][1]["consent"], "written");

    // The unknown Ban status says so and why.
    let mx = both(
        node,
        key,
        client,
        &json!({"code": HAZARDOUS, "origin": "Mexico", "destination": "GH", "operation": "D1"}),
    )
    .await;
    let ban = rule(&mx, "ban_amendment").expect("ban rule");
    assert!(ban["text"].as_str().is_some_and(|t| t.contains("unknown")));
    assert!(ban["evidence"]
        .as_str()
        .is_some_and(|e| e.contains("ECOLEX")));
    assert!(mx["summary"]
        .as_str()
        .is_some_and(|s| s.contains("Article 4A")));

    // Germany → France, green copper scrap for recovery: the Annex VII
    // document, no notification, and no notification duty for Germany.
    let green = both(
        node,
        key,
        client,
        &json!({"code": GREEN, "origin": "DE", "destination": "FR", "operation": "recovery"}),
    )
    .await;
    assert!(
        rule(&green, "oecd_decision").is_none(),
        "the EU Regulation, not the OECD Decision"
    );
    assert!(green["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .all(|s| s["article"] == "Regulation (EU) 2024/1157, Article 18"));
    assert!(green["steps"][1]["what"]
        .as_str()
        .is_some_and(|w| w.contains("Annex VII document")));
    for state in green["route"].as_array().expect("route") {
        assert!(
            state["duty"]
                .as_str()
                .is_some_and(|d| d.starts_with("No notification")),
            "{state}"
        );
    }
    assert_eq!(green["route"][1]["consent"], "not_required");

    // Germany (Bayern) → Viet Nam through Singapore: Bavaria's authority
    // exports; Singapore transits.
    let bavaria = both(node, key, client, &json!({"code": HAZARDOUS, "origin": "DE", "origin_area": "Bayern", "transit": ["Singapore"], "destination": "Viet Nam", "operation": "recovery"})).await;
    assert_eq!(bavaria["prohibited"], true);
    let export = &bavaria["route"][0]["authorities"][0];
    assert!(
        export["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Bayern")),
        "{export}"
    );
    assert!(
        export["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("Regierung von")),
        "{export}"
    );
    assert!(export["source_kind"]
        .as_str()
        .is_some_and(|k| !k.is_empty()));
    assert!(export.get("age_years").is_some() && export.get("historic").is_some());
    let codes: Vec<&str> = bavaria["route"]
        .as_array()
        .expect("route")
        .iter()
        .map(|s| s["country_code"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(codes, ["DE", "SG", "VN"]);
    assert_eq!(bavaria["route"][1]["role"], "transit");
    let by_other_name = both(node, key, client, &json!({"code": OTHER, "origin": "DE", "origin_area": "Bavaria", "transit": ["SG"], "destination": "VN", "operation": "disposal"})).await;
    assert_eq!(
        by_other_name["route"][0]["authorities"][0], *export,
        "the same authority by its other name"
    );
    // Every State either has authorities or names its gap.
    for state in bavaria["route"].as_array().expect("route") {
        let has = state["authorities"]
            .as_array()
            .is_some_and(|a| !a.is_empty());
        assert!(
            has || state["gap"]
                .as_str()
                .is_some_and(|g| g.contains("Secretariat")),
            "{state}"
        );
    }

    // Operation unknown: the answer for each.
    let us = both(
        node,
        key,
        client,
        &json!({"code": HAZARDOUS, "origin": "DE", "destination": "US"}),
    )
    .await;
    let each: Vec<(Value, Value)> = us["by_operation"]
        .as_array()
        .expect("by_operation")
        .iter()
        .map(|o| (o["operation"].clone(), o["prohibited"].clone()))
        .collect();
    assert_eq!(
        each,
        [
            (json!("recovery"), json!(false)),
            (json!("disposal"), json!(true))
        ]
    );
    assert!(us["operation"].is_null());
}

async fn refusals(node: &Node, key: &str, client: &Client) {
    for (body, field) in [
        (
            json!({"code": HAZARDOUS, "origin": "Atlantis", "destination": "VN"}),
            "origin",
        ),
        (
            json!({"code": HAZARDOUS, "origin": "DE", "destination": "QQ"}),
            "destination",
        ),
        (
            json!({"code": HAZARDOUS, "origin": "DE", "destination": "VN", "transit": ["Narnia"]}),
            "transit",
        ),
    ] {
        let rest = node
            .http
            .post(format!("{}/api/v1/shipments/plan", node.base))
            .header("x-api-key", key)
            .json(&body)
            .send()
            .await
            .expect("REST");
        assert_eq!(rest.status().as_u16(), 422, "{body}");
        let rest: Value = rest.json().await.expect("JSON");
        assert_eq!(rest["code"], "country_not_found", "{body}: {rest}");
        assert_eq!(rest["errors"][0]["field"], field);
        let mcp = call(client, "plan_shipment", body.clone()).await;
        assert_eq!(mcp.is_error, Some(true), "{body}");
        let text = mcp.content[0].as_text().expect("text").text.clone();
        assert!(text.starts_with("country_not_found: "), "{text}");
    }
    for body in [
        json!({"code": HAZARDOUS, "origin": "DE", "destination": "VN", "operation": "R14"}),
        json!({"code": HAZARDOUS, "origin": "DE", "destination": "VN", "origin_area": "Atlantis"}),
        json!({"code": HAZARDOUS, "origin": "DE", "destination": "VN", "as_of": "1992-05-04"}),
        json!({"code": HAZARDOUS, "origin": "DE", "destination": "VN", "as_of": "someday"}),
    ] {
        let rest = node
            .http
            .post(format!("{}/api/v1/shipments/plan", node.base))
            .header("x-api-key", key)
            .json(&body)
            .send()
            .await
            .expect("REST");
        assert_eq!(rest.status().as_u16(), 422, "{body}");
        let mcp = call(client, "plan_shipment", body.clone()).await;
        assert_eq!(mcp.is_error, Some(true), "{body}");
        let text = mcp.content[0].as_text().expect("text").text.clone();
        assert!(text.starts_with("invalid_argument: "), "{text}");
    }
}
