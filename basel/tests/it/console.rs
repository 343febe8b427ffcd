//! The steward console (`/steward/…`, issue #28) over HTTP, in process:
//! sign-in and its cookie, session fixation, CSRF tokens spent once,
//! suspended stewards, rate-limited sign-in, HTML escaping, the worklist,
//! and a check from form to preview to the timeline (with a version
//! conflict and field errors).

use regex::Regex;
use serde_json::{json, Value};

use crate::inproc::{today, App};
use crate::support::{both_modes, count_events, Mode};

/// An HTTP answer of the console (HTML, redirects not followed).
pub(crate) struct Page {
    pub(crate) status: u16,
    pub(crate) headers: reqwest::header::HeaderMap,
    pub(crate) text: String,
}

impl Page {
    pub(crate) fn location(&self) -> &str {
        self.headers
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    fn set_cookies(&self) -> Vec<String> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_owned))
            .collect()
    }

    /// The `Set-Cookie` line of cookie `name`.
    pub(crate) fn cookie_line(&self, name: &str) -> Option<String> {
        self.set_cookies()
            .into_iter()
            .find(|c| c.starts_with(&format!("{name}=")))
    }

    /// The CSRF token of the form posting to `action`.
    pub(crate) fn csrf_of(&self, action: &str) -> String {
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

pub(crate) fn value_of(line: &str) -> String {
    line.split(';')
        .next()
        .and_then(|kv| kv.split_once('='))
        .map(|(_, v)| v.to_owned())
        .unwrap_or_default()
}

/// A browser without JavaScript: no redirects followed, cookies by hand.
pub(crate) struct Browser<'a> {
    pub(crate) app: &'a App,
    pub(crate) client: reqwest::Client,
    pub(crate) session: Option<String>,
}

impl<'a> Browser<'a> {
    pub(crate) fn new(app: &'a App) -> Self {
        Self {
            app,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            session: None,
        }
    }

    pub(crate) async fn send(&self, request: reqwest::RequestBuilder) -> Page {
        let request = match &self.session {
            Some(id) => request.header("cookie", format!("basel_console={id}")),
            None => request,
        };
        let response = request.send().await.expect("response");
        Page {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            text: response.text().await.expect("body"),
        }
    }

    pub(crate) async fn get(&self, path: &str) -> Page {
        self.send(self.client.get(self.app.url(path))).await
    }

    pub(crate) async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        self.send(self.client.post(self.app.url(path)).form(form))
            .await
    }

    /// Submits the sign-in form with `token`; keeps the session cookie.
    pub(crate) async fn sign_in(&mut self, token: &str) -> Page {
        let form = self.get("/steward/sign-in").await;
        assert_eq!(form.status, 200, "{}", form.text);
        let pre = value_of(
            &form
                .cookie_line("basel_console_sign_in")
                .expect("sign-in cookie"),
        );
        let csrf = form.csrf_of("/steward/sign-in");
        let mut request = self
            .client
            .post(self.app.url("/steward/sign-in"))
            .form(&[("csrf", csrf.as_str()), ("token", token)]);
        let mut cookies = format!("basel_console_sign_in={pre}");
        if let Some(id) = &self.session {
            cookies.push_str(&format!("; basel_console={id}"));
        }
        request = request.header("cookie", cookies);
        let response = request.send().await.expect("response");
        let page = Page {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            text: response.text().await.expect("body"),
        };
        if let Some(line) = page.cookie_line("basel_console") {
            self.session = Some(value_of(&line));
        }
        page
    }
}

pub(crate) async fn with_contact(app: &App, token: &str) {
    let body = json!({
        "country_code": "TV", "country_name": "Tuvalu", "ca_name": "Ministry of Environment",
        "email": "ca@example.org", "phone": "+688-2010-0100", "address": "Funafuti",
        "verified": false, "source": "factsheet 2019",
    });
    let created = app.post_as("/api/v1/ca", token, &body).await;
    assert_eq!(created.status, 201, "{}", created.text);
}

async fn sign_in_sets_a_strict_cookie_and_a_new_session_id_every_time(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ana").await;
    let mut browser = Browser::new(&app);
    browser.session = Some("planted-by-an-attacker".into());
    let signed = browser.sign_in(&token).await;
    assert_eq!(signed.status, 303, "{}", signed.text);
    assert_eq!(signed.location(), "/steward/worklist");
    let line = signed.cookie_line("basel_console").expect("session cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/steward"] {
        assert!(line.contains(flag), "{flag} missing: {line}");
    }
    assert!(!line.contains("Secure"), "plain http: not Secure: {line}");
    let first = browser.session.clone().expect("session");
    assert_ne!(
        first, "planted-by-an-attacker",
        "a planted id is never used"
    );
    assert_eq!(first.len(), 64);
    assert_eq!(browser.get("/steward/worklist").await.status, 200);

    // Signing in again (with the first session) draws a new id and ends the old one.
    browser.sign_in(&token).await;
    let second = browser.session.clone().expect("session");
    assert_ne!(first, second, "the id rotates at sign-in");
    let old = Browser {
        session: Some(first.clone()),
        ..Browser::new(&app)
    };
    let ended = old.get("/steward/worklist").await;
    assert_eq!(ended.status, 303);
    assert!(ended.location().starts_with("/steward/sign-in"));

    // Only hashes are stored.
    let db = app.store.db().await;
    let rows: Vec<(String,)> = sqlx::query_as("SELECT session_hash FROM console_sessions")
        .fetch_all(&db)
        .await
        .expect("sessions");
    assert_eq!(rows.len(), 1, "the replaced session is gone");
    assert!(rows.iter().all(|(h,)| h != &second && h != &first));

    // Over https (as a proxy says) the cookie is Secure.
    let form = browser
        .send(
            browser
                .client
                .get(app.url("/steward/sign-in"))
                .header("x-forwarded-proto", "https"),
        )
        .await;
    let line = form.cookie_line("basel_console_sign_in").expect("cookie");
    assert!(line.contains("; Secure"), "{line}");
}

async fn forms_without_or_with_a_spent_csrf_token_are_refused_and_write_once(mode: Mode) {
    let app = App::start(mode).await;
    let token = app.enrol("ben").await;
    with_contact(&app, &token).await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&token).await;
    let form = browser.get("/steward/party/TV/check").await;
    assert_eq!(form.status, 200, "{}", form.text);
    let csrf = form.csrf_of("/steward/party/TV/check/preview");
    let today = today();
    let mut fields = vec![
        ("contact", "c1"),
        ("outcome", "confirmed"),
        ("verified", "no"),
        ("checked_on", today.as_str()),
        ("method", "email"),
        ("source", "reply of the ministry"),
        ("note", ""),
        ("expected_version", "1"),
    ];
    let missing = browser
        .post("/steward/party/TV/check/preview", &fields)
        .await;
    assert_eq!(missing.status, 403, "no token: {}", missing.text);
    let wrong = [fields.clone(), vec![("csrf", "00ff")]].concat();
    assert_eq!(
        browser
            .post("/steward/party/TV/check/preview", &wrong)
            .await
            .status,
        403
    );
    fields.push(("csrf", csrf.as_str()));
    let preview = browser
        .post("/steward/party/TV/check/preview", &fields)
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("VerificationRecorded"));
    let confirm = preview.csrf_of("/steward/party/TV/check");
    let before = count_events(&app.store, "authority").await;
    fields.pop();
    fields.push(("csrf", confirm.as_str()));
    let first = browser.post("/steward/party/TV/check", &fields).await;
    assert_eq!(first.status, 303, "{}", first.text);
    let again = browser.post("/steward/party/TV/check", &fields).await;
    assert_eq!(again.status, 403, "a second submission is refused");
    assert_eq!(
        count_events(&app.store, "authority").await,
        before + 1,
        "the check is recorded once"
    );
    // Another session cannot spend this session's tokens.
    let form = browser.get("/steward/party/TV/check").await;
    let mine = form.csrf_of("/steward/party/TV/check/preview");
    let mut other = Browser::new(&app);
    other.sign_in(&token).await;
    let stolen = [
        fields[..fields.len() - 1].to_vec(),
        vec![("csrf", mine.as_str())],
    ]
    .concat();
    assert_eq!(
        other
            .post("/steward/party/TV/check/preview", &stolen)
            .await
            .status,
        403
    );
}

both_modes!(
    sign_in_sets_a_strict_cookie_and_a_new_session_id_every_time,
    forms_without_or_with_a_spent_csrf_token_are_refused_and_write_once,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_tokens_and_api_keys_do_not_sign_in_and_attempts_are_limited() {
    let app = App::start(Mode::Embedded).await;
    let key = app.key().await;
    let mut browser = Browser::new(&app);
    let wrong = browser.sign_in("bst_0000").await;
    assert_eq!(wrong.status, 401, "{}", wrong.text);
    assert!(wrong.text.contains("aria-invalid=\"true\""));
    assert!(wrong.cookie_line("basel_console").is_none());
    assert_eq!(
        browser.sign_in(&key).await.status,
        401,
        "API keys never sign in"
    );
    let mut statuses = Vec::new();
    for _ in 0..12 {
        statuses.push(browser.sign_in("bst_guess").await.status);
    }
    assert!(statuses.contains(&429), "guessing is limited: {statuses:?}");
    assert!(browser.session.is_none());
    // Without the sign-in cookie the form is refused (CSRF before a session).
    let bare = browser
        .post("/steward/sign-in", &[("csrf", "abc"), ("token", "bst_x")])
        .await;
    assert_eq!(bare.status, 403);
    // Pages need a session.
    let page = Browser::new(&app).get("/steward/worklist").await;
    assert_eq!(page.status, 303);
    assert!(page.location().starts_with("/steward/sign-in"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspended_stewards_session_ends_on_the_next_request() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("cleo").await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&token).await;
    assert_eq!(browser.get("/steward/worklist").await.status, 200);
    app.suspend("cleo").await;
    let next = browser.get("/steward/worklist").await;
    assert_eq!(next.status, 303, "{}", next.text);
    assert_eq!(next.location(), "/steward/sign-in?ended=suspended");
    let cleared = next.cookie_line("basel_console").expect("cleared");
    assert!(cleared.contains("Max-Age=0"), "{cleared}");
    assert_eq!(browser.get("/steward/worklist").await.status, 303);
    let again = Browser::new(&app).sign_in(&token).await;
    assert_eq!(again.status, 403, "a suspended steward cannot sign in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stored_value_is_escaped_in_the_pages() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("dan").await;
    with_contact(&app, &token).await;
    let added = app
        .post_as(
            "/api/v1/ca/TV/contacts",
            &token,
            &json!({"role": "competent_authority", "name": "<script>alert(1)</script>",
                    "scope": {"area": "\"quoted\" & <b>bold</b>"}, "source": "<img src=x onerror=alert(2)>"}),
        )
        .await;
    assert!(added.status < 300, "{}", added.text);
    let mut browser = Browser::new(&app);
    browser.sign_in(&token).await;
    for path in ["/steward/party/TV", "/steward/party/TV/check?contact=c2"] {
        let page = browser.get(path).await;
        assert_eq!(page.status, 200, "{}", page.text);
        assert!(!page.text.contains("<script>alert"), "{path}");
        assert!(!page.text.contains("<img src=x"), "{path}");
        assert!(!page.text.contains("<b>bold"), "{path}");
        assert!(
            page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}"
        );
        let csp = page.headers["content-security-policy"]
            .to_str()
            .expect("csp");
        assert!(csp.starts_with("default-src 'none'"), "{csp}");
        assert_eq!(page.headers["cache-control"], "no-store");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_goes_from_form_to_preview_to_the_timeline_with_its_diff() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("eva").await;
    with_contact(&app, &token).await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&token).await;

    let worklist = browser.get("/steward/worklist").await;
    assert_eq!(worklist.status, 200);
    assert!(
        worklist.text.contains("href=\"/steward/party/TV\""),
        "{}",
        worklist.text
    );
    let filtered = browser
        .get("/steward/worklist?reason=no_contact&region=&older_than=&source_kind=")
        .await;
    assert!(
        !filtered.text.contains("/steward/party/TV\""),
        "TV has a contact"
    );

    let form = browser.get("/steward/party/TV/check").await;
    assert!(form.text.contains("value=\"ca@example.org\""), "prefilled");
    let csrf = form.csrf_of("/steward/party/TV/check/preview");
    let today = today();
    // Field errors: shown next to each field, values kept.
    let bad = browser
        .post(
            "/steward/party/TV/check/preview",
            &[
                ("csrf", csrf.as_str()),
                ("contact", "c1"),
                ("verified", "yes"),
                ("checked_on", "03/01/2026"),
                ("method", "email"),
                ("source", "reply"),
                ("field_email", "not an address"),
                ("expected_version", "1"),
            ],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.text.contains("id=\"checked_on-error\""), "{}", bad.text);
    assert!(bad.text.contains("value=\"03/01/2026\""), "kept");
    assert!(bad.text.contains("value=\"not an address\""), "kept");

    let csrf = bad.csrf_of("/steward/party/TV/check/preview");
    let check = |csrf: String, version: &'static str| {
        vec![
            ("csrf".to_owned(), csrf),
            ("contact".into(), "c1".into()),
            ("outcome".into(), "changed".into()),
            ("verified".into(), "yes".into()),
            ("checked_on".into(), today.clone()),
            ("method".into(), "email".into()),
            ("source".into(), "reply of the ministry, ref 7".into()),
            ("note".into(), String::new()),
            ("field_ca_name".into(), "Ministry of Environment".into()),
            ("field_email".into(), "basel@example.org".into()),
            ("field_phone".into(), "+688-2010-0100".into()),
            ("field_address".into(), "Funafuti".into()),
            ("expected_version".into(), version.into()),
        ]
    };
    let as_refs = |pairs: &[(String, String)]| -> Vec<(String, String)> { pairs.to_vec() };
    let preview = browser
        .send(
            browser
                .client
                .post(app.url("/steward/party/TV/check/preview"))
                .form(&as_refs(&check(csrf, "1"))),
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("ContactDetailsChanged"));
    assert!(
        preview
            .text
            .contains("<td class=\"old\">ca@example.org</td>"),
        "{}",
        preview.text
    );
    assert!(preview
        .text
        .contains("<td class=\"new\">basel@example.org</td>"));
    assert_eq!(
        count_events(&app.store, "authority").await,
        1,
        "a preview writes nothing"
    );

    // Someone else writes meanwhile: the commit shows both versions.
    let other = app
        .post_as(
            "/api/v1/ca/TV/verifications",
            &token,
            &json!({"verified": false, "checked_on": today, "method": "website",
                    "source": "ministry website", "outcome": "confirmed"}),
        )
        .await;
    assert_eq!(other.status, 200, "{}", other.text);
    let confirm = preview.csrf_of("/steward/party/TV/check");
    let stale = browser
        .send(
            browser
                .client
                .post(app.url("/steward/party/TV/check"))
                .form(&check(confirm, "1")),
        )
        .await;
    assert_eq!(stale.status, 409, "{}", stale.text);
    assert!(stale.text.contains("changed meanwhile"));
    assert!(stale.text.contains("ministry website"), "the events since");
    let redo = stale.csrf_of("/steward/party/TV/check/preview");
    let preview = browser
        .send(
            browser
                .client
                .post(app.url("/steward/party/TV/check/preview"))
                .form(&check(redo, "2")),
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    let confirm = preview.csrf_of("/steward/party/TV/check");
    let done = browser
        .send(
            browser
                .client
                .post(app.url("/steward/party/TV/check"))
                .form(&check(confirm, "2")),
        )
        .await;
    assert_eq!(done.status, 303, "{}", done.text);
    assert_eq!(done.location(), "/steward/party/TV#history");

    let party = browser.get("/steward/party/TV").await;
    assert_eq!(party.status, 200);
    assert!(party.text.contains("<td class=\"old\">ca@example.org</td>"));
    assert!(party
        .text
        .contains("<td class=\"new\">basel@example.org</td>"));
    assert!(party.text.contains("steward:eva"));
    assert!(party.text.contains("reply of the ministry, ref 7"));
    let record: Value = app.get("/api/v1/ca/TV", &app.key().await).await.body;
    assert_eq!(record["email"], "basel@example.org");
    assert_eq!(record["version"], 4);
}

/// A `multipart/form-data` body of `fields` and `files` (name, file name,
/// bytes), as a browser sends the check form.
pub(crate) fn multipart(
    fields: &[(&str, &str)],
    files: &[(&str, &str, &[u8])],
) -> (String, Vec<u8>) {
    let boundary = "----basel-console-test-boundary";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                .as_bytes(),
        );
    }
    for (name, file_name, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

const PDF: &[u8] = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";

async fn preview_with_files(
    browser: &Browser<'_>,
    csrf: &str,
    files: &[(&str, &str, &[u8])],
) -> Page {
    let today = today();
    let fields = [
        ("csrf", csrf),
        ("contact", "c1"),
        ("outcome", "confirmed"),
        ("verified", "no"),
        ("checked_on", today.as_str()),
        ("method", "email"),
        ("source", "designation letter"),
        ("expected_version", "1"),
    ];
    let (content_type, body) = multipart(&fields, files);
    browser
        .send(
            browser
                .client
                .post(browser.app.url("/steward/party/TV/check/preview"))
                .header("content-type", content_type)
                .body(body),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checks_pdf_is_stored_by_hash_and_downloaded_only_by_a_signed_in_steward() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("fay").await;
    with_contact(&app, &token).await;
    let key = app.key().await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&token).await;

    // Type by content, not by name; size-limited.
    let form = browser.get("/steward/party/TV/check").await;
    let html = b"<html><script>alert(1)</script></html>";
    let refused = preview_with_files(
        &browser,
        &form.csrf_of("/steward/party/TV/check/preview"),
        &[("evidence_file", "letter.pdf", html)],
    )
    .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.text.contains("id=\"evidence-error\""));
    assert!(
        refused.text.contains("value=\"designation letter\""),
        "values kept"
    );
    let big = [b"%PDF-1.4\n".as_slice(), &vec![b'x'; 4 * 1024 * 1024 + 1]].concat();
    let too_big = preview_with_files(
        &browser,
        &refused.csrf_of("/steward/party/TV/check/preview"),
        &[("evidence_file", "big.pdf", &big)],
    )
    .await;
    assert_eq!(too_big.status, 422, "{}", too_big.text);
    assert!(too_big.text.contains("over the limit"));

    let preview = preview_with_files(
        &browser,
        &too_big.csrf_of("/steward/party/TV/check/preview"),
        &[("evidence_file", "designation.pdf", PDF)],
    )
    .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("EvidenceAttached"));
    let sha = domain::credentials::hash_secret(std::str::from_utf8(PDF).expect("ascii"));
    let reference = format!("{sha}|designation.pdf");
    assert!(preview.text.contains(&reference), "carried to the commit");
    let today = today();
    let done = browser
        .post(
            "/steward/party/TV/check",
            &[
                ("csrf", preview.csrf_of("/steward/party/TV/check").as_str()),
                ("contact", "c1"),
                ("outcome", "confirmed"),
                ("verified", "no"),
                ("checked_on", today.as_str()),
                ("method", "email"),
                ("source", "designation letter"),
                ("expected_version", "1"),
                ("evidence", reference.as_str()),
            ],
        )
        .await;
    assert_eq!(done.status, 303, "{}", done.text);
    assert_eq!(
        count_events(&app.store, "authority").await,
        3,
        "check + file"
    );
    let party = browser.get("/steward/party/TV").await;
    let link = format!("href=\"/steward/evidence/{sha}\"");
    assert!(party.text.contains(&link), "{}", party.text);

    let path = format!("/steward/evidence/{sha}");
    let file = browser.get(&path).await;
    assert_eq!(file.status, 200);
    assert_eq!(file.headers["content-type"], "application/pdf");
    let disposition = file.headers["content-disposition"].to_str().expect("ascii");
    assert!(disposition.starts_with("attachment;"), "{disposition}");
    assert!(file.headers["content-security-policy"]
        .to_str()
        .expect("csp")
        .contains("sandbox"));
    assert_eq!(file.text.as_bytes(), PDF);
    let anonymous = Browser::new(&app);
    let cases = [
        ("no session", anonymous.client.get(app.url(&path))),
        (
            "API key",
            anonymous
                .client
                .get(app.url(&path))
                .header("x-api-key", &key),
        ),
        (
            "API key as bearer",
            anonymous.client.get(app.url(&path)).bearer_auth(&key),
        ),
        (
            "steward token",
            anonymous.client.get(app.url(&path)).bearer_auth(&token),
        ),
    ];
    for (what, request) in cases {
        let answer = anonymous.send(request).await;
        assert_eq!(answer.status, 303, "{what}: never served without a session");
        assert!(answer.location().starts_with("/steward/sign-in"), "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgetting_a_person_deletes_the_mails_of_evidence_that_name_them() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("gus").await;
    with_contact(&app, &token).await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&token).await;
    let mail = b"From: Jo Doe <jo.doe@ministry.example.org>\r\nTo: basel@example.org\r\nSubject: our authority\r\n\r\nThe address is right.\r\n";
    let form = browser.get("/steward/party/TV/check").await;
    let preview = preview_with_files(
        &browser,
        &form.csrf_of("/steward/party/TV/check/preview"),
        &[
            ("evidence_file", "reply.eml", mail),
            ("evidence_file", "letter.pdf", PDF),
        ],
    )
    .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("message/rfc822"), "typed by content");
    let db = app.store.db().await;
    let stored = || async {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM console_evidence")
            .fetch_one(&db)
            .await
            .expect("count")
    };
    assert_eq!(stored().await, 2);
    let mut out = Vec::new();
    basel::cli::identity::forget(&app.runtime, "JO.DOE@ministry.example.org", &mut out)
        .await
        .expect("forget");
    let out = String::from_utf8(out).expect("utf-8");
    assert!(out.contains("Deleted 1 e-mail file"), "{out}");
    assert_eq!(stored().await, 1, "the PDF (not searchable) stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_review_required_another_steward_approves_and_the_author_cannot() {
    let app = App::start_reviewed(Mode::Embedded).await;
    let ana = app.enrol("ana").await;
    let ben = app.enrol("ben").await;
    with_contact(&app, &ana).await;
    let mut author = Browser::new(&app);
    author.sign_in(&ana).await;
    let mut reviewer = Browser::new(&app);
    reviewer.sign_in(&ben).await;

    let proposed = propose(&author, "1", "basel@example.org").await;
    assert_eq!(proposed.status, 303, "{}", proposed.text);
    assert_eq!(proposed.location(), "/steward/reviews");
    let key = app.key().await;
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert_eq!(
        record["email"], "ca@example.org",
        "a proposal changes nothing"
    );

    // The author sees no approve button; forcing it is refused.
    let queue = author.get("/steward/reviews").await;
    assert!(queue
        .text
        .contains("Your proposal: another steward must approve it."));
    let id = Regex::new(r"/steward/party/TV/proposals/([0-9a-f]+)/reject")
        .expect("regex")
        .captures(&queue.text)
        .expect("a proposal")[1]
        .to_owned();
    let approve = format!("/steward/party/TV/proposals/{id}/approve");
    let reject = format!("/steward/party/TV/proposals/{id}/reject");
    let own = author
        .post(&approve, &[("csrf", queue.csrf_of(&reject).as_str())])
        .await;
    assert_eq!(own.status, 403, "{}", own.text);
    assert!(own.text.contains("cannot approve your own proposal"));

    // Another steward sees the diff and approves: both attributed.
    let queue = reviewer.get("/steward/reviews").await;
    assert!(queue
        .text
        .contains("<td class=\"new\">basel@example.org</td>"));
    let approved = reviewer
        .post(&approve, &[("csrf", queue.csrf_of(&approve).as_str())])
        .await;
    assert_eq!(approved.status, 303, "{}", approved.text);
    let record = app.get("/api/v1/ca/TV", &key).await.body;
    assert_eq!(record["email"], "basel@example.org");
    let party = reviewer.get("/steward/party/TV").await;
    assert!(party.text.contains("approved by ben"), "{}", party.text);
    let history = app.get("/api/v1/ca/TV/history", &key).await.body;
    let check = history["items"]
        .as_array()
        .expect("history")
        .iter()
        .rev()
        .find(|h| h["event_type"] == "VerificationRecorded")
        .cloned()
        .expect("the check");
    assert_eq!(check["steward"]["id"], "ana", "the author's check");
    assert_eq!(check["actor"], "steward:ben", "recorded by the approver");

    // A proposal goes stale when the record changes underneath.
    let second = propose(&author, "5", "other@example.org").await;
    assert_eq!(second.status, 303, "{}", second.text);
    // Over REST a steward's write is a proposal too: 202 with the proposal
    // and its Location; another steward approves it over REST, and the
    // record changing makes the console proposal stale.
    let direct = app
        .post_as(
            "/api/v1/ca/TV/verifications",
            &ben,
            &json!({"verified": false, "checked_on": today(), "method": "website",
                    "source": "ministry website", "outcome": "confirmed"}),
        )
        .await;
    assert_eq!(direct.status, 202, "{}", direct.text);
    assert_eq!(direct.body["status"], "proposed");
    assert_eq!(direct.body["proposal"]["kind"], "check");
    assert_eq!(direct.body["proposal"]["proposer"], "ben");
    let at = direct.header("location").expect("Location").to_owned();
    assert_eq!(at, direct.body["proposal"]["location"]);
    let read = app
        .send(app.client().get(app.url(&at)).bearer_auth(&ben))
        .await;
    assert_eq!(read.status, 200, "{}", read.text);
    assert_eq!(read.body["kind"], "check");
    let listed = app
        .send(
            app.client()
                .get(app.url("/api/v1/ca/TV/proposals"))
                .bearer_auth(&ana),
        )
        .await;
    assert_eq!(
        listed.body["proposals"].as_array().map(Vec::len),
        Some(2),
        "{}",
        listed.text
    );
    let own = app
        .post_as(&format!("{at}/approve"), &ben, &json!({}))
        .await;
    assert_eq!(own.status, 409, "{}", own.text);
    assert_eq!(own.body["code"], "own_proposal");
    let approved = app
        .post_as(&format!("{at}/approve"), &ana, &json!({}))
        .await;
    assert_eq!(approved.status, 200, "{}", approved.text);
    let again = app
        .post_as(&format!("{at}/approve"), &ana, &json!({}))
        .await;
    assert_eq!(again.status, 404, "decided once: {}", again.text);
    assert_eq!(again.body["code"], "proposal_not_found");
    let queue = reviewer.get("/steward/reviews").await;
    assert!(queue.text.contains("Stale:"), "{}", queue.text);
    let id = Regex::new(r"/steward/party/TV/proposals/([0-9a-f]+)/reject")
        .expect("regex")
        .captures(&queue.text)
        .expect("a proposal")[1]
        .to_owned();
    let stale = reviewer
        .post(
            &format!("/steward/party/TV/proposals/{id}/approve"),
            &[(
                "csrf",
                queue
                    .csrf_of(&format!("/steward/party/TV/proposals/{id}/reject"))
                    .as_str(),
            )],
        )
        .await;
    assert_eq!(stale.status, 409, "{}", stale.text);
    let queue = reviewer.get("/steward/reviews").await;
    let reject = format!("/steward/party/TV/proposals/{id}/reject");
    let no_reason = reviewer
        .post(
            &reject,
            &[("csrf", queue.csrf_of(&reject).as_str()), ("reason", " ")],
        )
        .await;
    assert_eq!(no_reason.status, 422, "{}", no_reason.text);
    let queue = reviewer.get("/steward/reviews").await;
    let rejected = reviewer
        .post(
            &reject,
            &[
                ("csrf", queue.csrf_of(&reject).as_str()),
                ("reason", "the record moved on"),
            ],
        )
        .await;
    assert_eq!(rejected.status, 303, "{}", rejected.text);
    let queue = reviewer.get("/steward/reviews").await;
    assert!(queue.text.contains("0 proposal(s) await review."));
}

/// Proposes (review on) a `changed` check of TV's c1 setting `email`,
/// against `version`: form, preview, confirm.
async fn propose(browser: &Browser<'_>, version: &str, email: &str) -> Page {
    let form = browser.get("/steward/party/TV/check").await;
    let csrf = form.csrf_of("/steward/party/TV/check/preview");
    let fields = vec![
        ("contact".to_owned(), "c1".to_owned()),
        ("outcome".to_owned(), "changed".to_owned()),
        ("verified".to_owned(), "no".to_owned()),
        ("checked_on".to_owned(), today()),
        ("method".to_owned(), "email".to_owned()),
        ("source".to_owned(), "reply of the ministry".to_owned()),
        ("field_email".to_owned(), email.to_owned()),
        ("expected_version".to_owned(), version.to_owned()),
    ];
    let with = |csrf: String| {
        let mut all = fields.clone();
        all.push(("csrf".into(), csrf));
        all
    };
    let preview = browser
        .send(
            browser
                .client
                .post(browser.app.url("/steward/party/TV/check/preview"))
                .form(&with(csrf)),
        )
        .await;
    assert_eq!(preview.status, 200, "{}", preview.text);
    assert!(preview.text.contains("Propose this check for review"));
    browser
        .send(
            browser
                .client
                .post(browser.app.url("/steward/party/TV/check"))
                .form(&with(preview.csrf_of("/steward/party/TV/check"))),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assign_to_me_is_an_event_others_see_and_no_answer_gets_a_retry_date() {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("hal").await;
    with_contact(&app, &token).await;
    let unanswered = app
        .post_as(
            "/api/v1/ca/TV/verifications",
            &token,
            &json!({"verified": false, "checked_on": today(), "method": "phone",
                    "source": "called the ministry", "outcome": "no_answer"}),
        )
        .await;
    assert_eq!(unanswered.status, 200, "{}", unanswered.text);
    let mut hal = Browser::new(&app);
    hal.sign_in(&token).await;
    let party = hal.get("/steward/party/TV").await;
    assert!(party.text.contains("On it: nobody yet."));
    let before = count_events(&app.store, "authority").await;
    let assigned = hal
        .post(
            "/steward/party/TV/assign",
            &[("csrf", party.csrf_of("/steward/party/TV/assign").as_str())],
        )
        .await;
    assert_eq!(assigned.status, 303, "{}", assigned.text);
    assert_eq!(count_events(&app.store, "authority").await, before + 1);
    let ida = app.enrol("ida").await;
    let mut other = Browser::new(&app);
    other.sign_in(&ida).await;
    let party = other.get("/steward/party/TV").await;
    assert!(party.text.contains("On it: hal."), "{}", party.text);
    assert!(
        party.text.contains("hal took this Party&#39;s work on.")
            || party.text.contains("hal took this Party's work on.")
    );
    let due = (chrono::Utc::now().date_naive() + chrono::Duration::days(14)).to_string();
    let worklist = other
        .get("/steward/worklist?reason=defunct_or_unanswered")
        .await;
    assert!(
        worklist.text.contains(&format!("<td>{due}</td>")),
        "{}",
        worklist.text
    );
    assert!(
        worklist.text.contains("<td>hal</td>"),
        "others see who is on it"
    );
}
