//! `POST /api/v1/shipments/plan`: the question an assistant is asked —
//! "May I export used lead-acid batteries from Germany to Viet Nam, through
//! Singapore?" — answered with the verdict and its rules, and every State's
//! competent authorities as the directory picks them. The route table on
//! both edges is in `shipment_routes`.

use serde_json::{json, Value};

use crate::inproc::{Answer, App};
use crate::support::{both_modes, Mode};

async fn plan(app: &App, key: &str, body: &Value) -> Answer {
    app.send(
        app.client()
            .post(app.url("/api/v1/shipments/plan"))
            .header("x-api-key", key)
            .json(body),
    )
    .await
}

fn roles(plan: &Value) -> Vec<(String, String, String)> {
    plan["route"]
        .as_array()
        .expect("route")
        .iter()
        .map(|s| {
            let text = |k: &str| s[k].as_str().unwrap_or_default().to_owned();
            (text("country_code"), text("role"), text("consent"))
        })
        .collect()
}

async fn germany_to_viet_nam_through_singapore_is_prohibited_and_names_every_state(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let body = json!({
        "description": "used lead-acid batteries from cars",
        "origin": "Germany",
        "destination": "viet nam",
        "transit": ["Singapore"],
        "operation": "recovery",
    });
    let answer = plan(&app, &key, &body).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let plan = &answer.body;
    assert_eq!(plan["waste"]["code"], "A1160");
    assert_eq!(plan["waste"]["kind"], "hazardous");
    assert_eq!(
        plan["prohibited"], true,
        "Ban Amendment: DE accepted it, VN is not in Annex VII"
    );
    assert!(plan["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .any(|r| r["rule"] == "ban_amendment" && r["effect"] == "prohibits"));
    assert_eq!(
        plan["steps"],
        json!([]),
        "no procedure for a prohibited movement"
    );
    assert!(!plan["to_permit"].as_array().expect("to_permit").is_empty());
    assert_eq!(
        roles(plan)
            .into_iter()
            .map(|(c, r, _)| (c, r))
            .collect::<Vec<_>>(),
        [
            ("DE".into(), "export".into()),
            ("SG".into(), "transit".into()),
            ("VN".into(), "import".into()),
        ]
    );
    for (state, name) in
        plan["route"]
            .as_array()
            .expect("route")
            .iter()
            .zip(["Germany", "Singapore", "Viet Nam"])
    {
        assert_eq!(state["name"], name);
        let record = app
            .get(
                &format!(
                    "/api/v1/ca/{}?movement={}",
                    state["country_code"].as_str().expect("code"),
                    state["role"].as_str().expect("role")
                ),
                &key,
            )
            .await;
        let competent: Vec<&Value> = record.body["competent"]
            .as_array()
            .map(|c| c.iter().map(|a| &a["contact_id"]).collect())
            .unwrap_or_default();
        let listed: Vec<&Value> = state["authorities"]
            .as_array()
            .expect("authorities")
            .iter()
            .map(|a| &a["contact_id"])
            .collect();
        assert_eq!(
            listed, competent,
            "the authorities GET /ca/{{cc}}?movement= picks"
        );
    }
    assert!(plan["disclaimer"].as_str().is_some_and(|d| !d.is_empty()));
    let by_code = plan_by_code(&app, &key).await;
    assert_eq!(
        by_code["prohibited"], plan["prohibited"],
        "a code gives the same answer"
    );
    assert_eq!(by_code["rules"], plan["rules"]);
    assert_eq!(roles(&by_code), roles(plan));
}

async fn plan_by_code(app: &App, key: &str) -> Value {
    let answer = plan(
        app,
        key,
        &json!({"code": "a1160", "origin": "DE", "destination": "VN", "transit": ["SG"], "operation": "R4"}),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["waste"]["code"], "A1160");
    assert_eq!(answer.body["operation_code"], "R4");
    answer.body
}

async fn green_waste_inside_the_eu_needs_the_annex_vii_document_for_recovery_only(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let answer = plan(
        &app,
        &key,
        &json!({"code": "B3020", "origin": "FR", "destination": "DE"}),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let body = &answer.body;
    assert_eq!(body["prohibited"], false);
    assert_eq!(body["regime"], "eu_wsr");
    assert!(body["operation"].is_null());
    let each: Vec<(Value, Value)> = body["by_operation"]
        .as_array()
        .expect("by_operation")
        .iter()
        .map(|o| (o["operation"].clone(), o["prohibited"].clone()))
        .collect();
    assert_eq!(
        each,
        [
            (json!("recovery"), json!(false)),
            (json!("disposal"), json!(false))
        ]
    );
    let recovery = plan(
        &app,
        &key,
        &json!({"code": "B3020", "origin": "FR", "destination": "DE", "operation": "recovery"}),
    )
    .await
    .body;
    assert_eq!(recovery["route"][1]["consent"], "not_required");
    assert!(recovery["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .any(|s| s["what"]
            .as_str()
            .is_some_and(|w| w.contains("Annex VII document"))));
    assert_eq!(
        body["route"][1]["consent"], "written",
        "for disposal (the stricter case) the destination consents"
    );
}

async fn bad_plans_are_422_naming_the_field(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    for (body, field) in [
        (
            json!({"code": "A1160", "origin": "DE", "destination": "VN", "operation": "R99"}),
            "operation",
        ),
        (
            json!({"code": "A1180", "origin": "DE", "destination": "VN"}),
            "code",
        ),
        (json!({"origin": "DE", "destination": "VN"}), "description"),
        (
            json!({"code": "A1160", "description": "batteries", "origin": "DE", "destination": "VN"}),
            "description",
        ),
        (json!({"code": "A1160", "origin": "DE"}), "destination"),
        (
            json!({"code": "A1160", "origin": "DE", "destination": "VN", "via": []}),
            "via",
        ),
    ] {
        let answer = plan(&app, &key, &body).await;
        assert_eq!(answer.status, 422, "{body}: {}", answer.text);
        assert_eq!(answer.code(), "validation_failed");
        assert!(
            answer.body["errors"]
                .as_array()
                .expect("errors")
                .iter()
                .any(|e| e["field"] == field),
            "{body}: {}",
            answer.text
        );
    }
}

both_modes!(
    germany_to_viet_nam_through_singapore_is_prohibited_and_names_every_state,
    green_waste_inside_the_eu_needs_the_annex_vii_document_for_recovery_only,
    bad_plans_are_422_naming_the_field,
);
