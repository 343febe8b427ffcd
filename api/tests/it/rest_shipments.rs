//! `POST /api/v1/shipments/plan`: the question an assistant is asked —
//! "Who do I notify to export used lead-acid batteries from Germany to Viet
//! Nam, through Singapore?" — answered with the code, the procedure per
//! State, who notifies whom, and every State's directory record.

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

async fn germany_to_viet_nam_through_singapore_names_every_state_and_who_notifies(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let body = json!({
        "description": "used lead-acid batteries from cars",
        "origin": "Germany",
        "destination": "viet nam",
        "transit": ["Singapore"],
    });
    let answer = plan(&app, &key, &body).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let plan = &answer.body;
    assert_eq!(plan["waste"]["code"], "A1160");
    assert_eq!(plan["waste"]["pic_required"], true);
    assert_eq!(plan["procedure"]["regime"], "basel_pic");
    assert_eq!(
        plan["procedure"]["prohibited"], true,
        "Ban Amendment: DE is Annex VII, VN is not"
    );
    assert_eq!(
        roles(plan),
        [
            ("DE".into(), "export".into(), "not_applicable".into()),
            ("SG".into(), "transit".into(), "written".into()),
            ("VN".into(), "import".into(), "written".into()),
        ]
    );
    let notification = &plan["notification"];
    assert_eq!(notification["required"], true);
    assert_eq!(notification["through"], "DE");
    assert_eq!(notification["to"], json!(["SG", "VN"]));
    assert_eq!(notification["consents_from"], json!(["SG", "VN"]));
    assert!(notification["notifier"]
        .as_str()
        .is_some_and(|n| n.contains("exporter")));
    for (state, name) in
        plan["route"]
            .as_array()
            .expect("route")
            .iter()
            .zip(["Germany", "Singapore", "Viet Nam"])
    {
        assert_eq!(state["country_name"], name);
        assert_eq!(state["record"]["country_code"], state["country_code"]);
        let record = app
            .get(
                &format!(
                    "/api/v1/ca/{}",
                    state["country_code"].as_str().expect("code")
                ),
                &key,
            )
            .await;
        assert_eq!(state["record"], record.body, "the record as GET returns it");
    }
    assert!(plan["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .any(|w| w.as_str().is_some_and(|w| w.contains("prohibited"))));
    assert!(plan["disclaimer"].as_str().is_some_and(|d| !d.is_empty()));
    let by_code = plan_by_code(&app, &key).await;
    assert_eq!(
        by_code["procedure"], plan["procedure"],
        "a code gives the same procedure"
    );
    assert_eq!(roles(&by_code), roles(plan));
}

async fn plan_by_code(app: &App, key: &str) -> Value {
    let answer = plan(
        app,
        key,
        &json!({"code": "a1160", "origin": "DE", "destination": "VN", "transit": ["SG"]}),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["waste"]["entry"]["code"], "A1160");
    answer.body
}

async fn green_waste_inside_the_oecd_needs_no_notification(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    let answer = plan(
        &app,
        &key,
        &json!({"code": "B3020", "origin": "FR", "destination": "DE"}),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["procedure"]["regime"], "oecd_decision");
    assert_eq!(answer.body["notification"]["required"], false);
    assert_eq!(answer.body["notification"]["consents_from"], json!([]));
    assert_eq!(answer.body["route"][1]["consent"], "not_required");
}

async fn bad_plans_are_422_naming_the_field(mode: Mode) {
    let app = App::seeded(mode).await;
    let key = app.key().await;
    for (body, field) in [
        (
            json!({"code": "A1160", "origin": "DE", "destination": "VN", "transit": ["Atlantis"]}),
            "transit[0]",
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
    germany_to_viet_nam_through_singapore_names_every_state_and_who_notifies,
    green_waste_inside_the_oecd_needs_no_notification,
    bad_plans_are_422_naming_the_field,
);
