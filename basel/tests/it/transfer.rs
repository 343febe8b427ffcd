//! `basel import` / `basel export` with Parties and their contacts (issue
//! 13, item 3), in both storage modes (embedded SQLite; PostgreSQL with
//! NATS JetStream): export → import into the same store appends nothing;
//! into a fresh store (which the CLI never seeds) it gives the same export
//! byte for byte; a changed row is one check dated today; `--dry-run`
//! writes nothing.

use std::process::Output;
use std::time::Duration;

use serde_json::{json, Value};

use crate::process::{Basel, Node};
use crate::running::Running;
use crate::support::{both_modes, count_events, eventually, stderr, stdout, Mode};

const NATS: &str = "127.0.0.1:4222";
const FORMATS: [&str; 2] = ["json", "csv"];

fn today() -> String {
    chrono::Utc::now().date_naive().to_string()
}

/// A deployment of `mode`: embedded, or PostgreSQL with NATS JetStream and
/// a relay and projector process (which, unlike `serve`, never seeds).
struct Deployment {
    basel: Basel,
    projector: Option<Running>,
}

impl Deployment {
    async fn new(mode: Mode) -> Self {
        let basel = match mode {
            Mode::Embedded => Basel::embedded(),
            Mode::Postgres => {
                assert!(
                    std::net::TcpStream::connect(NATS).is_ok(),
                    "NATS JetStream is not reachable at {NATS}: start it with `nats-server -js`"
                );
                Basel::postgres().await.with_nats(&format!("nats://{NATS}"))
            }
        };
        let mut deployment = Self {
            basel,
            projector: None,
        };
        deployment.start_projector(mode);
        deployment
    }

    fn start_projector(&mut self, mode: Mode) {
        if mode == Mode::Postgres {
            self.projector = Some(Running::start(
                &self.basel,
                &["--role", "relay,projector"],
                &[("BASEL_OPS_LISTEN", "127.0.0.1:0")],
                &["ops_addr"],
            ));
        }
    }

    /// Waits (bounded) until every projection has applied the whole log
    /// (server mode; the embedded CLI applies it itself).
    async fn settle(&self) {
        let Some(projector) = &self.projector else {
            return;
        };
        let url = format!("{}/readyz", projector.url("ops_addr"));
        let settled = eventually(Duration::from_secs(30), || async {
            let Ok(response) = reqwest::get(&url).await else {
                return false;
            };
            let body: Value = response.json().await.unwrap_or(Value::Null);
            let lags = body["projections"]
                .as_array()
                .or_else(|| body["details"]["projections"].as_array())
                .cloned()
                .unwrap_or_default();
            !lags.is_empty() && lags.iter().all(|p| p["lag"] == 0)
        })
        .await;
        assert!(
            settled.is_some(),
            "projections did not reach the log's head within 30 s"
        );
    }
}

/// A seeded store (the first `basel serve` seeds it) where a steward added
/// a competent authority with a scope to AF, checked it (`confirmed`,
/// verified) and reached nobody at AF's focal point (`no_answer`).
async fn seeded_with_contacts(mode: Mode) -> Deployment {
    let mut deployment = Deployment::new(mode).await;
    deployment.projector = None;
    let basel = &deployment.basel;
    let token = basel.enrol("Ana", "ana@example.org");
    let node = basel.serve().await;
    // Steward writes read the directory: wait until the seed is in it.
    let ready = eventually(Duration::from_secs(60), || async {
        node.get("/readyz").await.map(|(status, _)| status) == Some(200)
    })
    .await;
    assert!(ready.is_some(), "basel serve was not ready within 60 s");
    // AF has no contact in the data release: a focal point (`c1`) and a
    // primary authority with a scope (`c2`) are the steward's.
    post(
        &node,
        &token,
        "/api/v1/ca/AF/contacts",
        json!({"name": "Ministry of Environment", "role": "focal_point"}),
    )
    .await;
    post(
        &node,
        &token,
        "/api/v1/ca/AF/contacts",
        json!({
            "primary": true,
            "name": "Landesdirektion Sachsen, Referat Abfall",
            "email": "abfall@lds.sachsen.de",
            "phone": "+49-371-532-0",
            "scope": {"area": "Saxony", "movements": ["import", "export"]},
            "source": "https://www.lds.sachsen.de",
        }),
    )
    .await;
    let check = |outcome: &str, verified: bool| {
        json!({"verified": verified, "checked_on": today(), "method": "phone",
               "source": "call to the office", "outcome": outcome})
    };
    post(
        &node,
        &token,
        "/api/v1/ca/AF/contacts/c2/verifications",
        check("confirmed", true),
    )
    .await;
    post(
        &node,
        &token,
        "/api/v1/ca/AF/contacts/c1/verifications",
        check("no_answer", false),
    )
    .await;
    node.stop();
    deployment.start_projector(mode);
    deployment.basel.enrol("Importer", "importer@example.org");
    deployment.settle().await;
    deployment
}

/// A steward's `POST`, asserting 200 or 201.
async fn post(node: &Node, token: &str, path: &str, body: Value) {
    let response = node
        .http
        .post(format!("{}{path}", node.base))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    assert!(status == 200 || status == 201, "{path}: {status} {text}");
}

/// `basel export --format FORMAT` once the projections have the whole log.
async fn export(d: &Deployment, format: &str) -> String {
    d.settle().await;
    let output = d.basel.run(&["export", "--format", format]);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

/// `basel import FILE --steward importer [extra]` of `text` written to a file.
async fn import(d: &Deployment, format: &str, text: &str, extra: &[&str]) -> Output {
    d.settle().await;
    let file = d.basel.dir().join(format!("directory.{format}"));
    std::fs::write(&file, text).expect("write the file");
    let path = file.to_str().expect("path");
    let mut args = vec!["import", path, "--steward", "importer"];
    args.extend_from_slice(extra);
    let output = d.basel.run(&args);
    assert!(output.status.success(), "{format}: {}", stderr(&output));
    output
}

async fn events(d: &Deployment) -> i64 {
    count_events(&d.basel.store, "authority").await
}

/// The newest events of AF, newest first: (type, payload).
async fn newest_de_events(d: &Deployment, n: i64) -> Vec<(String, Value)> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT event_type, CAST(payload AS TEXT) FROM events \
         WHERE aggregate_type = 'authority' AND aggregate_id = 'AF' \
         ORDER BY sequence DESC LIMIT $1",
    )
    .bind(n)
    .fetch_all(&d.basel.db().await)
    .await
    .expect("events");
    rows.into_iter()
        .map(|(kind, payload)| {
            let payload: Value = serde_json::from_str(&payload).expect("payload");
            let body = payload.get(&kind).cloned().unwrap_or(payload);
            (kind, body)
        })
        .collect()
}

/// An export of `format` with AF's `c2` phone changed.
fn with_new_phone(text: &str, format: &str, phone: &str) -> String {
    if format == "json" {
        let mut parties: Value = serde_json::from_str(text).expect("json");
        let de = parties
            .as_array_mut()
            .and_then(|all| all.iter_mut().find(|p| p["country_code"] == "AF"))
            .expect("AF");
        de["contacts"][1]["phone"] = json!(phone);
        return serde_json::to_string_pretty(&parties).expect("json");
    }
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("header").clone();
    let at = |name: &str| header.iter().position(|c| c == name).expect(name);
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).expect("header");
    for record in reader.records() {
        let mut cells: Vec<String> = record.expect("row").iter().map(str::to_owned).collect();
        if cells[at("country_code")] == "AF" && cells[at("contact_id")] == "c2" {
            cells[at("phone")] = phone.to_owned();
        }
        writer.write_record(&cells).expect("row");
    }
    String::from_utf8(writer.into_inner().expect("csv")).expect("utf-8")
}

/// The Party `code` of an export, to change it.
fn party_mut<'a>(parties: &'a mut Value, code: &str) -> &'a mut Value {
    parties
        .as_array_mut()
        .and_then(|all| all.iter_mut().find(|p| p["country_code"] == code))
        .unwrap_or_else(|| panic!("no {code} in the export"))
}

fn the_party<'a>(parties: &'a Value, code: &str) -> &'a Value {
    parties
        .as_array()
        .and_then(|all| all.iter().find(|p| p["country_code"] == code))
        .unwrap_or_else(|| panic!("no {code} in the export"))
}

async fn export_then_import_into_the_same_store_appends_nothing(mode: Mode) {
    let d = seeded_with_contacts(mode).await;
    let parties: Value = serde_json::from_str(&export(&d, "json").await).expect("json");
    let de = the_party(&parties, "AF");
    let saxony = &de["contacts"][1];
    assert_eq!(saxony["contact_id"], "c2");
    assert_eq!(saxony["role"], "competent_authority");
    assert_eq!(saxony["primary"], true);
    assert_eq!(saxony["area"], "Saxony");
    assert_eq!(saxony["movements"], "export,import");
    assert_eq!(saxony["outcome"], "confirmed");
    assert_eq!(saxony["verified"], true);
    assert_eq!(saxony["last_checked"], today().as_str());
    assert_eq!(de["contacts"][0]["role"], "focal_point");
    assert_eq!(de["contacts"][0]["outcome"], "no_answer");
    assert_eq!(de["contacts"][0]["last_attempt"], today().as_str());

    for format in FORMATS {
        let text = export(&d, format).await;
        let before = events(&d).await;
        let said = stdout(&import(&d, format, &text, &[]).await);
        assert!(
            said.contains(": 0 registered, 0 added, 0 updated, ") && said.contains(" 0 refused."),
            "{format}: every row unchanged: {said}"
        );
        assert_eq!(said.lines().count(), 1, "{format}: no row changes: {said}");
        assert_eq!(events(&d).await, before, "{format}: nothing appended");
        assert_eq!(export(&d, format).await, text, "{format}: the same export");
    }
}

both_modes!(export_then_import_into_the_same_store_appends_nothing);

async fn export_import_into_a_fresh_store_exports_the_same_bytes(mode: Mode) {
    let source = seeded_with_contacts(mode).await;
    for format in FORMATS {
        let first = export(&source, format).await;
        let target = Deployment::new(mode).await;
        target.basel.enrol("Importer", "importer@example.org");
        assert_eq!(events(&target).await, 0, "the CLI never seeds");
        let said = stdout(&import(&target, format, &first, &[]).await);
        assert!(
            said.contains(" 0 unchanged, 0 refused."),
            "{format}: {said}"
        );
        assert_eq!(
            export(&target, format).await,
            first,
            "{format}: byte for byte"
        );
        let again = stdout(&import(&target, format, &first, &[]).await);
        assert!(
            again.contains(": 0 registered, 0 added, 0 updated, "),
            "{again}"
        );
    }
}

both_modes!(export_import_into_a_fresh_store_exports_the_same_bytes);

async fn a_changed_row_appends_one_check_dated_today(mode: Mode) {
    let d = seeded_with_contacts(mode).await;
    for (format, phone) in [("json", "+49-371-532-1000"), ("csv", "+49-371-532-2000")] {
        let text = with_new_phone(&export(&d, format).await, format, phone);
        let before = events(&d).await;
        let said = stdout(&import(&d, format, &text, &[]).await);
        let line = format!("(AF) c2: updated: phone, one check on {}", today());
        assert!(said.contains(&line), "{format}: {said}");
        assert!(said.contains(" 0 added, 1 updated, "), "{format}: {said}");
        assert_eq!(events(&d).await, before + 2, "{format}: changed + checked");
        let newest = newest_de_events(&d, 2).await;
        let (kind, check) = &newest[0];
        assert_eq!(kind, "VerificationRecorded");
        assert_eq!(check["contact_id"], "c2");
        assert_eq!(check["checked_on"], today().as_str());
        assert_eq!(check["steward"], "importer");
        assert_eq!(check["verified"], true, "the row keeps it verified");
        let (kind, changed) = &newest[1];
        assert_eq!(kind, "ContactDetailsChanged");
        assert_eq!(changed["changes"][0]["field"], "phone");
        assert_eq!(changed["changes"][0]["new"], phone);
    }
}

both_modes!(a_changed_row_appends_one_check_dated_today);

async fn a_dry_run_prints_the_change_and_appends_nothing(mode: Mode) {
    let d = seeded_with_contacts(mode).await;
    for format in FORMATS {
        let unchanged = export(&d, format).await;
        let text = with_new_phone(&unchanged, format, "+49-371-532-3000");
        let before = events(&d).await;
        let said = stdout(&import(&d, format, &text, &["--dry-run"]).await);
        let line = format!("(AF) c2: would be updated: phone, one check on {}", today());
        assert!(said.contains(&line), "{format}: {said}");
        assert!(
            said.contains("Dry run of ")
                && said.contains("nothing written: 0 registered, 0 added, 1 updated, "),
            "{format}: {said}"
        );
        assert_eq!(events(&d).await, before, "{format}: nothing appended");
        assert_eq!(export(&d, format).await, unchanged);
    }
}

both_modes!(a_dry_run_prints_the_change_and_appends_nothing);

#[tokio::test]
async fn a_first_release_file_describes_each_partys_primary_competent_authority() {
    let d = seeded_with_contacts(Mode::Embedded).await;
    let before = events(&d).await;
    // The previous release's columns: AF's primary authority (the
    // steward's c2) with a corrected phone, and TV's first authority.
    let old = "country_code,country_name,ca_name,email,phone,address,notes,verified,last_checked,source\n\
        AF,Afghanistan,\"Landesdirektion Sachsen, Referat Abfall\",abfall@lds.sachsen.de,+49-371-532-4000,,,true,,call to the office\n\
        TV,Tuvalu,Agency,ok@example.org,+688-2010-0100,,,false,2026-01-02,letter\n";
    let said = stdout(&import(&d, "csv", old, &[]).await);
    assert!(
        said.contains(": 0 registered, 1 added, 1 updated, 0 unchanged, 0 refused."),
        "{said}"
    );
    assert!(
        said.contains("(AF) primary: updated: phone, one check on "),
        "{said}"
    );
    assert_eq!(
        events(&d).await,
        before + 3,
        "registered; changed + checked"
    );
    let parties: Value = serde_json::from_str(&export(&d, "json").await).expect("json");
    let de = the_party(&parties, "AF");
    assert_eq!(de["contacts"][1]["phone"], "+49-371-532-4000");
    assert_eq!(
        de["contacts"][1]["area"], "Saxony",
        "columns it lacks are kept"
    );
    assert_eq!(de["contacts"].as_array().map(Vec::len), Some(2));
    let tv = &the_party(&parties, "TV")["contacts"][0];
    assert_eq!(tv["primary"], true);
    assert_eq!(tv["last_checked"], "2026-01-02");
    let again = stdout(&import(&d, "csv", old, &[]).await);
    assert!(
        again.contains(": 0 registered, 0 added, 0 updated, 2 unchanged"),
        "{again}"
    );
}

#[tokio::test]
async fn a_row_the_domain_would_refuse_names_its_column_and_nothing_is_written() {
    let d = seeded_with_contacts(Mode::Embedded).await;
    let mut parties: Value = serde_json::from_str(&export(&d, "json").await).expect("json");
    party_mut(&mut parties, "AF")["contacts"][1]["phone"] = json!("+49-371-532-5000");
    party_mut(&mut parties, "CA")["contacts"][0]["last_checked"] = json!("2999-01-01");
    let text = serde_json::to_string(&parties).expect("json");
    let before = events(&d).await;
    d.settle().await;
    let file = d.basel.dir().join("refused.json");
    std::fs::write(&file, text).expect("write");
    let output = d.basel.run(&[
        "import",
        file.to_str().expect("path"),
        "--steward",
        "importer",
    ]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("refused.json: row ")
            && message.contains(" (CA): contacts[0].last_checked: 2999-01-01 is in the future"),
        "{message}"
    );
    assert!(
        stdout(&output).contains("1 updated, "),
        "{}",
        stdout(&output)
    );
    assert!(
        stdout(&output).contains(" 1 refused."),
        "{}",
        stdout(&output)
    );
    assert_eq!(
        events(&d).await,
        before,
        "nothing written, not even AF's change"
    );
}

#[tokio::test]
async fn a_new_contact_is_added_and_a_new_primary_designated() {
    let d = seeded_with_contacts(Mode::Embedded).await;
    let mut parties: Value = serde_json::from_str(&export(&d, "json").await).expect("json");
    let all = parties.as_array_mut().expect("array");
    let de = all
        .iter_mut()
        .find(|p| p["country_code"] == "AF")
        .expect("AF");
    let mut bavaria = de["contacts"][1].clone();
    bavaria["contact_id"] = json!("bavaria");
    bavaria["ca_name"] = json!("Landesamt für Umwelt Bayern");
    bavaria["area"] = json!("Bavaria");
    bavaria["outcome"] = Value::Null;
    de["contacts"][1]["primary"] = json!(false);
    de["contacts"]
        .as_array_mut()
        .expect("contacts")
        .push(bavaria);
    let text = serde_json::to_string_pretty(&parties).expect("json");
    let before = events(&d).await;
    let said = stdout(&import(&d, "json", &text, &[]).await);
    assert!(
        said.contains("(AF) bavaria: added: a new competent_authority"),
        "{said}"
    );
    assert!(
        said.contains(": 0 registered, 1 added, 0 updated, "),
        "{said}"
    );
    assert_eq!(events(&d).await, before + 1, "one ContactAdded, primary");
    let parties: Value = serde_json::from_str(&export(&d, "json").await).expect("json");
    let contacts = &the_party(&parties, "AF")["contacts"];
    assert_eq!(contacts[2]["contact_id"], "bavaria");
    assert_eq!(contacts[2]["primary"], true);
    assert_eq!(contacts[1]["primary"], false);

    let mut back = parties.clone();
    let de = back
        .as_array_mut()
        .and_then(|all| all.iter_mut().find(|p| p["country_code"] == "AF"))
        .expect("AF");
    de["contacts"][1]["primary"] = json!(true);
    de["contacts"][2]["primary"] = json!(false);
    let said = stdout(&import(&d, "json", &back.to_string(), &["--dry-run"]).await);
    assert!(
        said.contains("(AF) c2: would be updated: made primary"),
        "{said}"
    );
    let said = stdout(&import(&d, "json", &back.to_string(), &[]).await);
    assert!(
        said.contains(": 0 registered, 0 added, 1 updated, "),
        "{said}"
    );
    assert_eq!(events(&d).await, before + 2, "one PrimaryDesignated");
}

/// `basel import` under four-eyes review: each Party's rows become one
/// proposal, attributed to the importer, and nothing else is written.
#[tokio::test]
async fn under_review_an_import_proposes_each_party_once_and_changes_no_record() {
    let d = seeded_with_contacts(Mode::Embedded).await;
    let csv = export(&d, "csv").await;
    let mut parties: Value = serde_json::from_str(&export(&d, "json").await).expect("json");
    let af = party_mut(&mut parties, "AF");
    af["contacts"][1]["phone"] = json!("+49-371-532-999");
    let mut extra = af["contacts"][1].clone();
    extra["contact_id"] = json!("extra");
    extra["primary"] = json!(false);
    extra["outcome"] = Value::Null;
    party_mut(&mut parties, "AL")["contacts"]
        .as_array_mut()
        .expect("contacts")
        .push(extra);
    let text = serde_json::to_string_pretty(&parties).expect("json");
    let before = events(&d).await;
    let said = stdout(&import(&d, "json", &text, &["--review", "required"]).await);
    assert!(said.contains("proposed AF: "), "{said}");
    assert!(said.contains("proposed AL: "), "{said}");
    assert!(
        said.contains("for review (BASEL_REVIEW=required): 2 proposal(s), nothing else written."),
        "{said}"
    );
    assert_eq!(events(&d).await, before + 2, "one ChangeProposed per Party");
    let proposed = newest_de_events(&d, 1).await;
    assert_eq!(proposed[0].0, "ChangeProposed", "{proposed:?}");
    assert_eq!(export(&d, "csv").await, csv, "no record changed");
}
