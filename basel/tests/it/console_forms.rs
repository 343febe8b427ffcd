//! The console's contact forms (`/steward/party/{cc}/contacts/…`, issue
//! #28) over HTTP: add, make primary and withdraw a contact, each from form
//! to preview to the record (as the REST call would change it) and the
//! timeline; CSRF, field errors next to their fields, version conflicts;
//! and imports: a file's dry run row by row, then applied once.

use regex::Regex;
use serde_json::{json, Value};

use crate::inproc::App;
use crate::support::{both_modes, count_events, Mode};

/// An HTML answer (redirects not followed).
struct Page {
    status: u16,
    location: String,
    text: String,
}

impl Page {
    /// The CSRF token of the form posting to `action`.
    fn csrf_of(&self, action: &str) -> String {
        let pattern = format!(
            r#"action="{}"[^>]*><input type="hidden" name="csrf" value="([0-9a-f]+)""#,
            regex::escape(action)
        );
        Regex::new(&pattern)
            .expect("regex")
            .captures(&self.text)
            .unwrap_or_else(|| panic!("no form posting to {action} in:\n{}", self.text))[1]
            .to_owned()
    }
}

/// A browser without JavaScript, signed in as a steward.
struct Browser<'a> {
    app: &'a App,
    client: reqwest::Client,
    session: String,
}

impl<'a> Browser<'a> {
    async fn signed_in(app: &'a App, token: &str) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let form = client
            .get(app.url("/steward/sign-in"))
            .send()
            .await
            .expect("sign-in form");
        let pre = cookie(&form, "basel_console_sign_in");
        let text = form.text().await.expect("body");
        let page = Page {
            status: 200,
            location: String::new(),
            text,
        };
        let csrf = page.csrf_of("/steward/sign-in");
        let signed = client
            .post(app.url("/steward/sign-in"))
            .header("cookie", format!("basel_console_sign_in={pre}"))
            .form(&[("csrf", csrf.as_str()), ("token", token)])
            .send()
            .await
            .expect("sign in");
        assert_eq!(signed.status().as_u16(), 303);
        let session = cookie(&signed, "basel_console");
        Self {
            app,
            client,
            session,
        }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Page {
        let response = request
            .header("cookie", format!("basel_console={}", self.session))
            .send()
            .await
            .expect("response");
        Page {
            status: response.status().as_u16(),
            location: response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned(),
            text: response.text().await.expect("body"),
        }
    }

    async fn upload(&self, csrf: &str, name: &str, text: &str) -> Page {
        let (content_type, body) =
            crate::console::multipart(&[("csrf", csrf)], &[("file", name, text.as_bytes())]);
        self.send(
            self.client
                .post(self.app.url("/steward/import/preview"))
                .header("content-type", content_type)
                .body(body),
        )
        .await
    }

    async fn get(&self, path: &str) -> Page {
        self.send(self.client.get(self.app.url(path))).await
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        self.send(self.client.post(self.app.url(path)).form(form))
            .await
    }

    /// Opens `form_path`, previews `fields` with its token, and returns the
    /// preview page.
    async fn preview(&self, form_path: &str, action: &str, fields: &[(&str, &str)]) -> Page {
        let form = self.get(form_path).await;
        assert_eq!(form.status, 200, "{}", form.text);
        let csrf = form.csrf_of(&format!("{action}/preview"));
        let mut sent = fields.to_vec();
        sent.push(("csrf", &csrf));
        self.post(&format!("{action}/preview"), &sent).await
    }

    /// Confirms a preview: posts its confirmation form as the page holds it.
    async fn confirm(&self, preview: &Page, action: &str) -> Page {
        let csrf = preview.csrf_of(action);
        let pattern = format!(
            r#"(?s)action="{}"[^>]*>(.*?)</form>"#,
            regex::escape(action)
        );
        let inner = Regex::new(&pattern)
            .expect("regex")
            .captures(&preview.text)
            .expect("form")[1]
            .to_owned();
        let hidden = Regex::new(r#"<input type="hidden" name="([a-z0-9_]+)" value="([^"]*)""#)
            .expect("regex");
        let mut fields: Vec<(String, String)> = hidden
            .captures_iter(&inner)
            .filter(|c| &c[1] != "csrf")
            .map(|c| (c[1].to_owned(), c[2].replace("&amp;", "&")))
            .collect();
        fields.push(("csrf".into(), csrf));
        self.send(self.client.post(self.app.url(action)).form(&fields))
            .await
    }
}

fn cookie(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|line| line.strip_prefix(&format!("{name}=")))
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("no cookie {name}"))
        .to_owned()
}

async fn tuvalu(app: &App, token: &str) {
    let body = json!({
        "country_code": "TV", "country_name": "Tuvalu", "ca_name": "Ministry of Environment",
        "email": "ca@example.org", "phone": "+688-2010-0100", "address": "Funafuti",
        "verified": false, "source": "factsheet 2019",
    });
    let created = app.post_as("/api/v1/ca", token, &body).await;
    assert_eq!(created.status, 201, "{}", created.text);
}

fn contact<'v>(record: &'v Value, id: &str) -> Option<&'v Value> {
    record["contacts"]
        .as_array()
        .and_then(|all| all.iter().find(|c| c["id"] == id))
}

const ADD: &str = "/steward/party/TV/contacts/add";
const PRIMARY: &str = "/steward/party/TV/contacts/primary";
const WITHDRAW: &str = "/steward/party/TV/contacts/withdraw";

async fn each_contact_form_previews_then_changes_the_record_as_rest_would(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    tuvalu(&app, &token).await;
    let key = app.key().await;
    let browser = Browser::signed_in(&app, &token).await;
    let party = browser.get("/steward/party/TV").await;
    assert!(
        party.text.contains(&format!("href=\"{ADD}\"")),
        "{}",
        party.text
    );

    // Add: the preview lists the event and writes nothing.
    let before = count_events(&app.store, "authority").await;
    let preview = browser
        .preview(
            ADD,
            ADD,
            &[
                ("role", "competent_authority"),
                ("ca_name", "Department of Waste"),
                ("contact_person", "Mele Tupou"),
                ("email", "waste@example.org"),
                ("phone", "+688-2010-0200"),
                ("fax", ""),
                ("website", ""),
                ("address", "Vaiaku, Funafuti"),
                ("area", ""),
                ("wastes", ""),
                ("movements", "import, export"),
                ("source", "letter of 3 March"),
                ("primary", "no"),
                ("expected_version", "1"),
            ],
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("ContactAdded"), "{}", preview.text);
    assert!(preview.text.contains("Department of Waste"));
    assert_eq!(
        count_events(&app.store, "authority").await,
        before,
        "a preview writes nothing"
    );
    let added = browser.confirm(&preview, ADD).await;
    assert_eq!(added.status, 303, "{}", added.text);
    assert_eq!(added.location, "/steward/party/TV#history");
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    let c2 = contact(&record, "c2").expect("c2 added");
    assert_eq!(c2["email"], "waste@example.org");
    assert_eq!(c2["contact_person"], "Mele Tupou");
    assert_eq!(c2["scope"]["movements"], json!(["export", "import"]));
    assert_eq!(c2["provenance"]["steward"], "ana");
    assert_eq!(c2["primary"], false);

    // Make it primary.
    let preview = browser
        .preview(
            &format!("{PRIMARY}?contact=c2"),
            PRIMARY,
            &[("contact", "c2"), ("expected_version", "2")],
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(
        preview.text.contains("PrimaryDesignated"),
        "{}",
        preview.text
    );
    assert_eq!(browser.confirm(&preview, PRIMARY).await.status, 303);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert_eq!(contact(&record, "c2").expect("c2")["primary"], true);
    assert_eq!(record["ca_name"], "Department of Waste");

    // Withdraw the first one, with a reason.
    let preview = browser
        .preview(
            &format!("{WITHDRAW}?contact=c1"),
            WITHDRAW,
            &[
                ("contact", "c1"),
                ("reason", "merged into the Department of Waste"),
                ("expected_version", "3"),
            ],
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("ContactRemoved"), "{}", preview.text);
    assert_eq!(browser.confirm(&preview, WITHDRAW).await.status, 303);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert!(contact(&record, "c1").is_none(), "withdrawn: {record}");
    assert_eq!(app.get("/api/v1/ca/TV/contacts/c1", &key).await.status, 404);
    assert_eq!(count_events(&app.store, "authority").await, before + 3);

    // The timeline shows all three, by the steward.
    let party = browser.get("/steward/party/TV").await;
    assert!(
        party
            .text
            .contains("Contact c2 added (competent_authority): Department of Waste"),
        "{}",
        party.text
    );
    assert!(party
        .text
        .contains("Contact c2 became the primary competent authority."));
    assert!(party
        .text
        .contains("Contact c1 withdrawn: merged into the Department of Waste."));
    assert!(party.text.contains("By steward:ana"), "{}", party.text);
}

async fn contact_forms_refuse_missing_tokens_and_show_problems_next_to_fields(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ben").await;
    tuvalu(&app, &token).await;
    let browser = Browser::signed_in(&app, &token).await;
    let before = count_events(&app.store, "authority").await;

    let fields = [
        ("role", "competent_authority"),
        ("ca_name", "Department of Waste"),
        ("email", "not an address"),
        ("phone", "+688-2010-0200"),
        ("address", "Vaiaku"),
        ("primary", "no"),
        ("expected_version", "1"),
    ];
    let no_token = browser.post(&format!("{ADD}/preview"), &fields).await;
    assert_eq!(no_token.status, 403, "{}", no_token.text);
    let no_token = browser
        .post(
            WITHDRAW,
            &[
                ("contact", "c1"),
                ("reason", "gone"),
                ("expected_version", "1"),
            ],
        )
        .await;
    assert_eq!(no_token.status, 403, "a confirmation without a token");

    let bad = browser.preview(ADD, ADD, &fields).await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.text.contains("id=\"email-error\""), "{}", bad.text);
    assert!(bad.text.contains("value=\"not an address\""), "kept");
    assert!(bad.text.contains("value=\"Department of Waste\""), "kept");

    let no_reason = browser
        .preview(
            WITHDRAW,
            WITHDRAW,
            &[
                ("contact", "c1"),
                ("reason", " "),
                ("expected_version", "1"),
            ],
        )
        .await;
    assert_eq!(no_reason.status, 422, "{}", no_reason.text);
    assert!(
        no_reason.text.contains("id=\"reason-error\""),
        "{}",
        no_reason.text
    );

    let primary_already = browser
        .preview(
            PRIMARY,
            PRIMARY,
            &[("contact", "c1"), ("expected_version", "1")],
        )
        .await;
    assert_eq!(primary_already.status, 422, "{}", primary_already.text);
    assert!(primary_already
        .text
        .contains("is already the primary competent authority"));
    assert!(primary_already.text.contains("id=\"contact-error\""));
    assert_eq!(
        count_events(&app.store, "authority").await,
        before,
        "nothing written"
    );
}

both_modes!(
    each_contact_form_previews_then_changes_the_record_as_rest_would,
    contact_forms_refuse_missing_tokens_and_show_problems_next_to_fields,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_contact_form_confirmed_after_the_record_changed_shows_both_and_writes_nothing() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("eva").await;
    tuvalu(&app, &token).await;
    let browser = Browser::signed_in(&app, &token).await;
    let preview = browser
        .preview(
            WITHDRAW,
            WITHDRAW,
            &[
                ("contact", "c1"),
                ("reason", "defunct"),
                ("expected_version", "1"),
            ],
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    // Meanwhile another steward adds a contact over REST.
    let other = app
        .post_as(
            "/api/v1/ca/TV/contacts",
            &token,
            &json!({"role": "focal_point", "name": "Focal point of Tuvalu", "email": "fp@example.org"}),
        )
        .await;
    assert_eq!(other.status, 201, "{}", other.text);
    let before = count_events(&app.store, "authority").await;
    let late = browser.confirm(&preview, WITHDRAW).await;
    assert_eq!(late.status, 409, "{}", late.text);
    assert!(late.text.contains("changed meanwhile"));
    assert!(
        late.text.contains("Focal point of Tuvalu"),
        "the record now"
    );
    assert!(late.text.contains("defunct"), "your change");
    assert!(late.text.contains("ContactAdded"), "the events since");
    assert!(
        late.text
            .contains(&format!("action=\"{WITHDRAW}/preview\"")),
        "redo"
    );
    assert_eq!(
        count_events(&app.store, "authority").await,
        before,
        "nothing written"
    );
}

const IMPORT_HEADER: &str =
    "country_code,country_name,contact_id,role,primary,ca_name,email,phone,address,source";
const TUVALU_ROW: &str = "TV,Tuvalu,c1,competent_authority,true,Ministry of Environment,ca@example.org,+688-2010-0999,Funafuti,reply of 3 March";

fn import_file(nauru_email: &str) -> String {
    format!(
        "{IMPORT_HEADER}\n{TUVALU_ROW}\nNR,Nauru,c1,competent_authority,true,Department of Environment,{nauru_email},+674-557-3000,Yaren,factsheet 2024\n"
    )
}

async fn an_import_is_a_dry_run_row_by_row_then_applied_once(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    tuvalu(&app, &token).await;
    let key = app.key().await;
    let browser = Browser::signed_in(&app, &token).await;
    let before = count_events(&app.store, "authority").await;

    let form = browser.get("/steward/import").await;
    assert_eq!(form.status, 200, "{}", form.text);
    let no_token = browser
        .upload("", "directory.csv", &import_file("env@example.org"))
        .await;
    assert_eq!(no_token.status, 403, "{}", no_token.text);

    // A refused row: the dry run says which and why, and offers no import.
    let csrf = form.csrf_of("/steward/import/preview");
    let refused = browser
        .upload(&csrf, "directory.csv", &import_file("not an address"))
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("Refused: 1 problem"),
        "{}",
        refused.text
    );
    assert!(refused.text.contains("row 2 (NR)"), "{}", refused.text);
    assert!(
        !refused.text.contains("action=\"/steward/import\""),
        "no confirmation"
    );

    // A good file: each row's fate, nothing written.
    let csrf = refused.csrf_of("/steward/import/preview");
    let dry = browser
        .upload(&csrf, "directory.csv", &import_file("env@example.org"))
        .await;
    assert_eq!(dry.status, 200, "{}", dry.text);
    assert!(dry.text.contains("would be updated"), "{}", dry.text);
    assert!(dry.text.contains("would be registered"), "{}", dry.text);
    assert_eq!(
        count_events(&app.store, "authority").await,
        before,
        "a dry run writes nothing"
    );
    assert_eq!(app.get("/api/v1/ca/NR", &key).await.status, 404);

    let applied = browser.confirm(&dry, "/steward/import").await;
    assert_eq!(applied.status, 200, "{}", applied.text);
    assert!(
        applied.text.contains("Imported directory.csv"),
        "{}",
        applied.text
    );
    app.settle().await;
    let after = count_events(&app.store, "authority").await;
    assert!(after > before, "the import wrote");
    let nauru = app.get("/api/v1/ca/NR", &key).await;
    assert_eq!(nauru.status, 200, "{}", nauru.text);
    assert_eq!(nauru.body["email"], "env@example.org");
    let tv = app.get("/api/v1/ca/TV", &key).await;
    assert_eq!(tv.body["phone"], "+688-2010-0999");
    let party = browser.get("/steward/party/NR").await;
    assert!(party.text.contains("AuthorityRegistered"), "{}", party.text);

    // Confirming again (the same form, or a fresh token) writes nothing.
    assert_eq!(browser.confirm(&dry, "/steward/import").await.status, 403);
    let fresh = browser
        .get("/steward/import")
        .await
        .csrf_of("/steward/import/preview");
    let digest = Regex::new(r#"name="sha256" value="([0-9a-f]+)""#)
        .expect("regex")
        .captures(&dry.text)
        .expect("digest")[1]
        .to_owned();
    let again = browser
        .post("/steward/import", &[("csrf", &fresh), ("sha256", &digest)])
        .await;
    assert_eq!(again.status, 409, "{}", again.text);
    assert!(again.text.contains("Nothing was written"));
    assert_eq!(
        count_events(&app.store, "authority").await,
        after,
        "applied once"
    );
}

both_modes!(an_import_is_a_dry_run_row_by_row_then_applied_once);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_over_the_size_limit_or_of_another_type_is_refused_next_to_the_file() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("ana").await;
    let browser = Browser::signed_in(&app, &token).await;
    let csrf = browser
        .get("/steward/import")
        .await
        .csrf_of("/steward/import/preview");
    let big = format!("{IMPORT_HEADER}\n{}", "x".repeat(1024 * 1024));
    let refused = browser.upload(&csrf, "directory.csv", &big).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("id=\"file-error\""),
        "{}",
        refused.text
    );
    assert!(refused.text.contains("at most 1048576"), "{}", refused.text);

    let csrf = refused.csrf_of("/steward/import/preview");
    let wrong = browser
        .upload(&csrf, "directory.xlsx", &import_file("env@example.org"))
        .await;
    assert_eq!(wrong.status, 422, "{}", wrong.text);
    assert!(
        wrong.text.contains("must end in .csv or .json"),
        "{}",
        wrong.text
    );
    assert_eq!(count_events(&app.store, "authority").await, 0);
}

/// The proposal id a confirmation under review redirects to.
fn proposal_of(page: &Page) -> String {
    assert_eq!(page.status, 303, "{}", page.text);
    page.location
        .strip_prefix("/steward/reviews#proposal-")
        .unwrap_or_else(|| panic!("to the review queue: {}", page.location))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_review_contact_forms_propose_and_another_steward_approves() {
    let app = App::start_reviewed(Mode::Embedded).await;
    let ana = app.enrol("ana").await;
    let ben = app.enrol("ben").await;
    tuvalu(&app, &ana).await;
    let key = app.key().await;
    let author = Browser::signed_in(&app, &ana).await;
    let reviewer = Browser::signed_in(&app, &ben).await;

    // Add: the preview says it becomes a proposal; confirming changes nothing.
    let preview = author
        .preview(
            ADD,
            ADD,
            &[
                ("role", "competent_authority"),
                ("ca_name", "Department of Waste"),
                ("email", "waste@example.org"),
                ("phone", "+688-2010-0200"),
                ("address", "Vaiaku, Funafuti"),
                ("source", "letter of 3 March"),
                ("primary", "no"),
                ("expected_version", "1"),
            ],
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(
        preview
            .text
            .contains("confirming makes this change a proposal"),
        "{}",
        preview.text
    );
    let add = proposal_of(&author.confirm(&preview, ADD).await);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert!(contact(&record, "c2").is_none(), "a proposal adds nothing");

    // Withdraw and make primary: proposals too (each a new version).
    let preview = author
        .preview(
            WITHDRAW,
            WITHDRAW,
            &[
                ("contact", "c1"),
                ("reason", "merged"),
                ("expected_version", "2"),
            ],
        )
        .await;
    let withdraw = proposal_of(&author.confirm(&preview, WITHDRAW).await);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert!(
        contact(&record, "c1").is_some(),
        "a proposal withdraws nothing"
    );

    // The queue shows each kind with its diff; the Party page lists them.
    let queue = reviewer.get("/steward/reviews").await;
    assert!(
        queue.text.contains("add contact c2 by ana"),
        "{}",
        queue.text
    );
    assert!(queue.text.contains("withdraw contact c1 by ana"));
    assert!(queue
        .text
        .contains("<td class=\"new\">waste@example.org</td>"));
    assert!(queue.text.contains("<td class=\"old\">ca@example.org</td>"));
    let party = reviewer.get("/steward/party/TV").await;
    assert!(party.text.contains("Open proposals"), "{}", party.text);
    assert!(party.text.contains("awaiting review"), "the timeline");

    // The author cannot approve; another steward approves the addition,
    // recorded as the author's; the withdrawal is stale then.
    let approve = |id: &str| format!("/steward/party/TV/proposals/{id}/approve");
    let mine = author.get("/steward/reviews").await;
    assert!(mine
        .text
        .contains("Your proposal: another steward must approve it."));
    let token = mine.csrf_of(&format!("/steward/party/TV/proposals/{add}/reject"));
    let own = author
        .post(&approve(&add), &[("csrf", token.as_str())])
        .await;
    assert_eq!(own.status, 403, "{}", own.text);
    let queue = reviewer.get("/steward/reviews").await;
    let approved = reviewer
        .post(
            &approve(&add),
            &[("csrf", queue.csrf_of(&approve(&add)).as_str())],
        )
        .await;
    assert_eq!(approved.status, 303, "{}", approved.text);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    let c2 = contact(&record, "c2").expect("c2 added on approval");
    assert_eq!(c2["provenance"]["steward"], "ana");
    let queue = reviewer.get("/steward/reviews").await;
    assert!(queue.text.contains("Stale:"), "{}", queue.text);
    assert!(
        !queue
            .text
            .contains(&format!("action=\"{}\"", approve(&withdraw))),
        "a stale proposal offers no approval"
    );
    let stale = reviewer
        .post(
            &approve(&withdraw),
            &[(
                "csrf",
                queue
                    .csrf_of(&format!("/steward/party/TV/proposals/{withdraw}/reject"))
                    .as_str(),
            )],
        )
        .await;
    assert_eq!(stale.status, 409, "{}", stale.text);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert!(
        contact(&record, "c1").is_some(),
        "the stale withdrawal did nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_review_an_import_proposes_each_partys_rows_as_one_proposal() {
    let app = App::start_reviewed(Mode::Embedded).await;
    let ana = app.enrol("ana").await;
    let ben = app.enrol("ben").await;
    tuvalu(&app, &ana).await;
    let key = app.key().await;
    let author = Browser::signed_in(&app, &ana).await;
    let reviewer = Browser::signed_in(&app, &ben).await;

    let csrf = author
        .get("/steward/import")
        .await
        .csrf_of("/steward/import/preview");
    let dry = author
        .upload(&csrf, "directory.csv", &import_file("env@example.org"))
        .await;
    assert_eq!(dry.status, 200, "{}", dry.text);
    assert!(
        dry.text.contains("Propose the import of directory.csv"),
        "{}",
        dry.text
    );
    let proposed = author.confirm(&dry, "/steward/import").await;
    assert_eq!(proposed.status, 200, "{}", proposed.text);
    assert!(
        proposed.text.contains("1 proposal(s) made, one per Party"),
        "{}",
        proposed.text
    );
    assert!(proposed.text.contains("href=\"/steward/reviews\""));
    app.settle().await;
    // Tuvalu's correction awaits review; Nauru, new, is registered at once.
    let tv = app.get("/api/v1/ca/TV", &key).await;
    assert_eq!(tv.body["phone"], "+688-2010-0100", "nothing applied yet");
    assert_eq!(app.get("/api/v1/ca/NR", &key).await.status, 200);

    let queue = reviewer.get("/steward/reviews").await;
    assert!(
        queue.text.contains("<td class=\"new\">+688-2010-0999</td>"),
        "{}",
        queue.text
    );
    let id = Regex::new(r"/steward/party/TV/proposals/([0-9a-f]+)/approve")
        .expect("regex")
        .captures(&queue.text)
        .expect("Tuvalu's proposal")[1]
        .to_owned();
    let approve = format!("/steward/party/TV/proposals/{id}/approve");
    let approved = reviewer
        .post(&approve, &[("csrf", queue.csrf_of(&approve).as_str())])
        .await;
    assert_eq!(approved.status, 303, "{}", approved.text);
    let tv = app.get("/api/v1/ca/TV", &key).await;
    assert_eq!(tv.body["phone"], "+688-2010-0999", "applied on approval");
}
