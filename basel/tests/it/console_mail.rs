//! The steward console's mail against a real SMTP server on
//! loopback (aiosmtpd, `scripts/smtp_sink.py`): sign-in by a one-time
//! mailed link, and the daily reminder digest.

use std::time::Duration;

use commands::console::{ConsoleStore, Lifetimes, LINK_SECONDS};
use domain::credentials::hash_secret;

use commands::identity::AddressBook;
use console::digest::Digest;
use console::LinkMail;

use crate::console::{value_of, with_contact, Browser, Page};
use crate::inproc::{today, App};
use crate::mail::{recipient, Sink, FROM};
use crate::support::{both_modes, Mode};

const SENT: &str = "If this address belongs to an active steward, a sign-in link is on its way.";

/// Posts the sign-in page's e-mail form with `email`.
async fn ask_for_link(browser: &Browser<'_>, email: &str) -> Page {
    let form = browser.get("/steward/sign-in").await;
    assert_eq!(form.status, 200, "{}", form.text);
    let pre = value_of(&form.cookie_line("basel_console_sign_in").expect("cookie"));
    let csrf = form.csrf_of("/steward/sign-in/link");
    browser
        .send(
            browser
                .client
                .post(browser.app.url("/steward/sign-in/link"))
                .header("cookie", format!("basel_console_sign_in={pre}"))
                .form(&[("csrf", csrf.as_str()), ("email", email)]),
        )
        .await
}

/// Opens `path` (a link's path) and presses its button, as a browser would.
async fn follow(browser: &Browser<'_>, path: &str) -> Page {
    let page = browser.get(path).await;
    assert_eq!(page.status, 200, "{}", page.text);
    let pre = value_of(&page.cookie_line("basel_console_sign_in").expect("cookie"));
    let csrf = page.csrf_of(path);
    browser
        .send(
            browser
                .client
                .post(browser.app.url(path))
                .header("cookie", format!("basel_console_sign_in={pre}"))
                .form(&[("csrf", csrf.as_str())]),
        )
        .await
}

/// The link in a mail's body: its path and its token.
fn link_in(message: &serde_json::Value, base: &str) -> (String, String) {
    let body = message["body"].as_str().unwrap_or_default();
    let start = body
        .find(&format!("{base}/steward/link/"))
        .unwrap_or_else(|| panic!("a link to {base} in: {body}"));
    let link: String = body[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let token = link.rsplit('/').next().unwrap_or_default().to_owned();
    (link[base.len()..].to_owned(), token)
}

async fn a_mailed_link_signs_a_steward_in_once_and_unknown_addresses_get_no_mail(mode: Mode) {
    let sink = Sink::start(0.0, None);
    let app = App::start_mailing(mode, &sink.url(), FROM).await;
    app.enrol("ana").await;
    app.settle().await;
    let browser = Browser::new(&app);

    // An unknown address and a steward's get the same answer; only the
    // steward gets mail.
    let unknown = ask_for_link(&browser, "nobody@example.org").await;
    assert_eq!(unknown.status, 200, "{}", unknown.text);
    assert!(unknown.text.contains(SENT), "{}", unknown.text);
    let known = ask_for_link(&browser, "Ana@Stewards.Example.org").await;
    assert_eq!(known.status, unknown.status);
    assert!(known.text.contains(SENT), "{}", known.text);
    let messages = sink.wait_for(1);
    tokio::time::sleep(Duration::from_millis(800)).await;
    let messages = if sink.messages().len() > messages.len() {
        sink.messages()
    } else {
        messages
    };
    assert_eq!(messages.len(), 1, "one mail, to the steward: {messages:?}");
    assert_eq!(
        recipient(&messages[0]).to_ascii_lowercase(),
        "ana@stewards.example.org"
    );
    let (path, token) = link_in(&messages[0], &app.base);
    assert_eq!(token.len(), 64, "{path}");

    // The store keeps only the link's hash.
    let db = app.store.db().await;
    let rows: Vec<(String,)> = sqlx::query_as("SELECT link_hash FROM console_links")
        .fetch_all(&db)
        .await
        .expect("links");
    assert_eq!(rows, vec![(hash_secret(&token),)]);

    // Opening the link spends nothing; its button signs in like the token form.
    let mut signed_browser = Browser::new(&app);
    signed_browser.session = Some("planted-by-an-attacker".into());
    let signed = follow(&signed_browser, &path).await;
    assert_eq!(signed.status, 303, "{}", signed.text);
    assert_eq!(signed.location(), "/steward/worklist");
    let line = signed.cookie_line("basel_console").expect("session cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/steward"] {
        assert!(line.contains(flag), "{flag} missing: {line}");
    }
    let session = value_of(&line);
    assert_eq!(session.len(), 64);
    assert_ne!(session, "planted-by-an-attacker");
    signed_browser.session = Some(session);
    let worklist = signed_browser.get("/steward/worklist").await;
    assert_eq!(worklist.status, 200, "{}", worklist.text);
    assert!(worklist.text.contains("Steward ana"), "{}", worklist.text);

    // Not twice.
    let again = follow(&Browser::new(&app), &path).await;
    assert_eq!(again.status, 401, "{}", again.text);
    assert!(again.text.contains("used already"), "{}", again.text);
    assert!(again.cookie_line("basel_console").is_none());
}

both_modes!(a_mailed_link_signs_a_steward_in_once_and_unknown_addresses_get_no_mail);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_unknown_and_forged_links_are_refused() {
    let sink = Sink::start(0.0, None);
    let app = App::start_mailing(Mode::Embedded, &sink.url(), FROM).await;
    app.enrol("bo").await;
    app.settle().await;
    let store = ConsoleStore::new(&app.runtime.backend, Lifetimes::default());
    let now = chrono::Utc::now().timestamp();
    // Issued 16 minutes ago: past its 15.
    let old = store
        .issue_link("bo", now - LINK_SECONDS - 60)
        .await
        .expect("link");
    let old = secrecy::ExposeSecret::expose_secret(&old).to_owned();
    let expired = follow(&Browser::new(&app), &format!("/steward/link/{old}")).await;
    assert_eq!(expired.status, 401, "{}", expired.text);
    assert!(expired.text.contains("older than 15 minutes"));
    assert!(expired.cookie_line("basel_console").is_none());

    let unknown = follow(
        &Browser::new(&app),
        &format!("/steward/link/{}", "0".repeat(64)),
    )
    .await;
    assert_eq!(unknown.status, 401, "{}", unknown.text);

    // A fresh link followed without the page's CSRF cookie is refused and
    // stays unspent.
    let fresh = store.issue_link("bo", now).await.expect("link");
    let fresh = secrecy::ExposeSecret::expose_secret(&fresh).to_owned();
    let path = format!("/steward/link/{fresh}");
    let browser = Browser::new(&app);
    let forged = browser
        .send(browser.client.post(app.url(&path)).form(&[("csrf", "x")]))
        .await;
    assert_eq!(forged.status, 403, "{}", forged.text);
    assert_eq!(follow(&browser, &path).await.status, 303);

    // A malformed address is answered next to its field, and nothing is mailed.
    let bad = ask_for_link(&browser, "not an address").await;
    assert_eq!(bad.status, 422, "{}", bad.text);
    assert!(bad.text.contains(r#"id="email-error""#), "{}", bad.text);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(sink.messages().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_smtp_the_link_option_is_not_offered_and_refused() {
    let app = App::start(Mode::Embedded).await;
    let browser = Browser::new(&app);
    let form = browser.get("/steward/sign-in").await;
    assert_eq!(form.status, 200);
    assert!(
        !form.text.contains("/steward/sign-in/link"),
        "{}",
        form.text
    );
    let refused = browser
        .post("/steward/sign-in/link", &[("email", "ana@example.org")])
        .await;
    assert_eq!(refused.status, 404, "{}", refused.text);
    assert!(refused.text.contains("BASEL_SMTP_URL is not set"));
    let link = browser
        .get(&format!("/steward/link/{}", "0".repeat(64)))
        .await;
    assert_eq!(link.status, 404);
}

async fn the_digest_mails_a_steward_their_due_parties_once_a_day(mode: Mode) {
    let sink = Sink::start(0.0, None);
    let app = App::start_mailing(mode, &sink.url(), FROM).await;
    let hal = app.enrol("hal").await;
    app.enrol("ida").await;
    with_contact(&app, &hal).await;
    let unanswered = app
        .post_as(
            "/api/v1/ca/TV/verifications",
            &hal,
            &serde_json::json!({"verified": false, "checked_on": today(), "method": "phone",
                    "source": "called the ministry", "outcome": "no_answer"}),
        )
        .await;
    assert_eq!(unanswered.status, 200, "{}", unanswered.text);
    let mut browser = Browser::new(&app);
    browser.sign_in(&hal).await;
    let party = browser.get("/steward/party/TV").await;
    let assigned = browser
        .post(
            "/steward/party/TV/assign",
            &[("csrf", party.csrf_of("/steward/party/TV/assign").as_str())],
        )
        .await;
    assert_eq!(assigned.status, 303, "{}", assigned.text);
    app.settle().await;

    let digest = Digest {
        read_db: app.runtime.read_db.clone(),
        store: ConsoleStore::new(&app.runtime.backend, Lifetimes::default()),
        addresses: AddressBook::new(&app.runtime.backend, &app.runtime.secret),
        mail: LinkMail {
            transport: mail::smtp::SmtpUrl::parse(&sink.url())
                .expect("url")
                .transport()
                .expect("transport"),
            from: mail::smtp::parse_from(FROM).expect("from"),
        },
        public_url: app.base.clone(),
    };
    let today = chrono::Utc::now().date_naive();
    // Not due yet (the retry is 14 days after the attempt): nothing.
    assert_eq!(digest.send_due(today).await.expect("digest"), 0);
    let due_day = today + chrono::Duration::days(14);
    assert_eq!(digest.send_due(due_day).await.expect("digest"), 1);
    let messages = sink.wait_for(1);
    assert_eq!(recipient(&messages[0]), "hal@stewards.example.org");
    let body = messages[0]["body"].as_str().unwrap_or_default();
    assert!(
        body.contains(&format!("{}/steward/party/TV", app.base)),
        "{body}"
    );
    assert!(body.contains("Tuvalu"), "{body}");
    // Not twice the same day; ida (nothing assigned) never.
    assert_eq!(digest.send_due(due_day).await.expect("digest"), 0);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(sink.messages().len(), 1, "{:?}", sink.messages());
    // The next day, still due: one more.
    let next = due_day + chrono::Duration::days(1);
    assert_eq!(digest.send_due(next).await.expect("digest"), 1);
    let messages = sink.wait_for(2);
    assert!(messages
        .iter()
        .all(|m| recipient(m) == "hal@stewards.example.org"));
}

both_modes!(the_digest_mails_a_steward_their_due_parties_once_a_day);
