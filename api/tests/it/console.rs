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
struct Page {
    status: u16,
    headers: reqwest::header::HeaderMap,
    text: String,
}

impl Page {
    fn location(&self) -> &str {
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
    fn cookie_line(&self, name: &str) -> Option<String> {
        self.set_cookies()
            .into_iter()
            .find(|c| c.starts_with(&format!("{name}=")))
    }

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

fn value_of(line: &str) -> String {
    line.split(';')
        .next()
        .and_then(|kv| kv.split_once('='))
        .map(|(_, v)| v.to_owned())
        .unwrap_or_default()
}

/// A browser without JavaScript: no redirects followed, cookies by hand.
struct Browser<'a> {
    app: &'a App,
    client: reqwest::Client,
    session: Option<String>,
}

impl<'a> Browser<'a> {
    fn new(app: &'a App) -> Self {
        Self {
            app,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            session: None,
        }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Page {
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

    async fn get(&self, path: &str) -> Page {
        self.send(self.client.get(self.app.url(path))).await
    }

    async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        self.send(self.client.post(self.app.url(path)).form(form))
            .await
    }

    /// Submits the sign-in form with `token`; keeps the session cookie.
    async fn sign_in(&mut self, token: &str) -> Page {
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

async fn with_contact(app: &App, token: &str) {
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
