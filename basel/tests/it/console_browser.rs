//! The steward console in headless Chromium (over ChromeDriver, as in
//! `rest_browser`), with the keyboard-free and script-free pages as a
//! steward uses them: sign in, find the Party on the worklist, record a
//! `changed` check with a PDF attached (form, preview, record), see it in
//! the timeline with its diff and the attachment, sign out; then, with
//! `BASEL_REVIEW=required`, one steward proposes a correction that she
//! cannot approve and another approves. axe-core (`clients/node_modules/axe-core`, injected over
//! WebDriver) finds no serious or critical violation on the worklist, the
//! Party page, the check form, its preview and the review queue.

use std::path::PathBuf;

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::inproc::App;
use crate::rest_browser::{start_driver, CHROMIUM};
use crate::support::Mode;

fn axe_source() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../clients/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; the accessibility check needs axe-core: npm ci --prefix clients (.ci/run does)",
            path.display()
        )
    })
}

async fn browser(driver_url: &str, profile: &std::path::Path) -> Client {
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     format!("--user-data-dir={}", profile.display())],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(driver_url)
        .await
        .expect("a WebDriver session with headless Chromium")
}

/// The serious and critical axe-core violations of the current page.
async fn serious_violations(browser: &Client, axe: &str) -> Result<Vec<Value>, String> {
    browser
        .execute(axe, vec![])
        .await
        .map_err(|e| format!("inject axe-core: {e}"))?;
    let found = browser
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             axe.run(document).then(r => done(r.violations\
               .filter(v => v.impact === 'serious' || v.impact === 'critical')\
               .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.html)}))),\
               e => done([{id: 'axe failed', error: String(e)}]));",
            vec![],
        )
        .await
        .map_err(|e| format!("run axe-core: {e}"))?;
    Ok(found.as_array().cloned().unwrap_or_default())
}

async fn text_of(browser: &Client, css: &str) -> Result<String, String> {
    browser
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?
        .text()
        .await
        .map_err(|e| format!("{css} text: {e}"))
}

async fn click(browser: &Client, css: &str) -> Result<(), String> {
    browser
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?
        .click()
        .await
        .map_err(|e| format!("click {css}: {e}"))
}

async fn type_into(browser: &Client, id: &str, text: &str) -> Result<(), String> {
    let field = browser
        .find(Locator::Id(id))
        .await
        .map_err(|e| format!("#{id}: {e}"))?;
    field
        .clear()
        .await
        .map_err(|e| format!("clear #{id}: {e}"))?;
    field
        .send_keys(text)
        .await
        .map_err(|e| format!("type into #{id}: {e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stewards_sign_in_record_a_check_with_a_pdf_see_its_diff_and_review_each_other_in_a_browser(
) {
    let app = App::start(Mode::Embedded).await;
    let token = app.enrol("ana").await;
    let created = app
        .post_as(
            "/api/v1/ca",
            &token,
            &json!({"country_code": "TV", "country_name": "Tuvalu", "ca_name": "Ministry of Environment",
                    "email": "ca@example.org", "phone": "+688-2010-0100", "address": "Funafuti",
                    "verified": false, "source": "factsheet 2019"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let axe = axe_source();
    let driver = start_driver();
    let profile = tempfile::tempdir().expect("profile dir");
    let browser = browser(&driver.url, profile.path()).await;
    let outcome = steward_session(&browser, &app, &token, &axe).await;
    let outcome = match outcome {
        Ok(()) => review_session(&browser, &axe).await,
        Err(e) => Err(e),
    };
    let _ = browser.close().await;
    outcome.expect("the console in the browser");
}

async fn sign_in(browser: &Client, app: &App, token: &str) -> Result<(), String> {
    browser
        .goto(&app.url("/steward/sign-in"))
        .await
        .map_err(|e| format!("sign-in page: {e}"))?;
    type_into(browser, "token", token).await?;
    click(browser, "main form button[type=submit]").await?;
    wait_for(browser, "nav[aria-label='Console']").await?;
    Ok(())
}

async fn wait_for(browser: &Client, css: &str) -> Result<(), String> {
    browser
        .wait()
        .at_most(std::time::Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .map(|_| ())
        .map_err(|e| format!("waiting for {css}: {e}"))
}

/// With `BASEL_REVIEW=required`: ana proposes a correction, cannot approve
/// it herself, ben approves it, and the record shows it, both attributed.
async fn review_session(browser: &Client, axe: &str) -> Result<(), String> {
    let app = App::start_reviewed(Mode::Embedded).await;
    let ana = app.enrol("ana").await;
    let ben = app.enrol("ben").await;
    let created = app
        .post_as(
            "/api/v1/ca",
            &ana,
            &json!({"country_code": "TV", "country_name": "Tuvalu", "ca_name": "Ministry of Environment",
                    "email": "ca@example.org", "phone": "+688-2010-0100", "address": "Funafuti",
                    "verified": false, "source": "factsheet 2019"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    sign_in(browser, &app, &ana).await?;
    browser
        .goto(&app.url("/steward/party/TV/check?contact=c1"))
        .await
        .map_err(|e| format!("check form: {e}"))?;
    type_into(browser, "source", "reply of the ministry, ref 8").await?;
    type_into(browser, "field_phone", "+688-2010-0199").await?;
    click(browser, "main form button[type=submit]").await?;
    wait_for(browser, "form[action='/steward/party/TV/check'] button").await?;
    click(browser, "form[action='/steward/party/TV/check'] button").await?;
    wait_for(browser, "form[action$='/reject']").await?;
    assert_eq!(text_of(browser, "h1").await?, "Review queue");
    let queue = text_of(browser, "main").await?;
    assert!(
        queue.contains("Your proposal: another steward must approve it."),
        "{queue}"
    );
    assert!(
        browser
            .find(Locator::Css("form[action$='/approve']"))
            .await
            .is_err(),
        "the author has no approve button"
    );
    let mut violations = serious_violations(browser, axe).await?;
    click(browser, "header form button").await?;
    wait_for(browser, "#token").await?;

    sign_in(browser, &app, &ben).await?;
    browser
        .goto(&app.url("/steward/reviews"))
        .await
        .map_err(|e| format!("queue: {e}"))?;
    let queue = text_of(browser, "main").await?;
    assert!(queue.contains("+688-2010-0199"), "{queue}");
    click(browser, "form[action$='/approve'] button").await?;
    wait_for(browser, "ol[aria-label^='History']").await?;
    let history = text_of(browser, "ol[aria-label^='History']").await?;
    assert!(history.contains("approved by ben"), "{history}");
    assert!(history.contains("+688-2010-0199"), "{history}");
    violations.extend(serious_violations(browser, axe).await?);
    click(browser, "header form button").await?;
    wait_for(browser, "#token").await?;
    assert!(
        violations.is_empty(),
        "serious accessibility violations: {}",
        serde_json::to_string_pretty(&violations).unwrap_or_default()
    );
    Ok(())
}

async fn steward_session(
    browser: &Client,
    app: &App,
    token: &str,
    axe: &str,
) -> Result<(), String> {
    let fail = |what: &'static str| move |e: fantoccini::error::CmdError| format!("{what}: {e}");
    browser
        .goto(&app.url("/steward/"))
        .await
        .map_err(fail("open /steward/"))?;
    assert_eq!(text_of(browser, "h1").await?, "Sign in", "sent to sign in");
    type_into(browser, "token", token).await?;
    click(browser, "main form button[type=submit]").await?;
    wait_for(browser, "table").await?;
    assert_eq!(text_of(browser, "h1").await?, "Worklist");
    let mut violations = serious_violations(browser, axe).await?;
    click(browser, "a[href='/steward/party/TV']").await?;
    wait_for(browser, "section[aria-labelledby='contact-c1']").await?;
    assert_eq!(text_of(browser, "h1").await?, "Tuvalu (TV)");
    violations.extend(serious_violations(browser, axe).await?);

    click(browser, "a[href='/steward/party/TV/check?contact=c1']").await?;
    wait_for(browser, "#field_email").await?;
    violations.extend(serious_violations(browser, axe).await?);
    type_into(browser, "source", "reply of the ministry, ref 7").await?;
    type_into(browser, "field_email", "basel@example.org").await?;
    let pdf = tempfile::Builder::new()
        .suffix(".pdf")
        .tempfile()
        .map_err(|e| e.to_string())?;
    std::fs::write(
        pdf.path(),
        b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n",
    )
    .map_err(|e| e.to_string())?;
    browser
        .find(Locator::Id("evidence"))
        .await
        .map_err(fail("file input"))?
        .send_keys(&pdf.path().display().to_string())
        .await
        .map_err(fail("choose the PDF"))?;
    click(browser, "main form button[type=submit]").await?;
    wait_for(browser, "form[action='/steward/party/TV/check'] button").await?;
    let preview = text_of(browser, "main").await?;
    assert!(preview.contains("ContactDetailsChanged"), "{preview}");
    assert!(preview.contains("basel@example.org"), "{preview}");
    assert!(preview.contains("EvidenceAttached"), "{preview}");
    violations.extend(serious_violations(browser, axe).await?);
    click(browser, "form[action='/steward/party/TV/check'] button").await?;
    wait_for(browser, "ol[aria-label^='History']").await?;

    let history = match text_of(browser, "ol[aria-label^='History']").await {
        Ok(history) => history,
        Err(e) => {
            return Err(format!(
                "{e}; the page: {}",
                text_of(browser, "body").await?
            ))
        }
    };
    assert!(history.contains("steward:ana"), "{history}");
    assert!(
        history.contains("reply of the ministry, ref 7"),
        "{history}"
    );
    let old = text_of(browser, "ol[aria-label^='History'] td.old").await?;
    let new = text_of(browser, "ol[aria-label^='History'] td.new").await?;
    assert_eq!(
        (old.as_str(), new.as_str()),
        ("ca@example.org", "basel@example.org")
    );
    let attachment = browser
        .find(Locator::Css(
            "ol[aria-label^='History'] a[href^='/steward/evidence/']",
        ))
        .await
        .map_err(fail("the attachment in the timeline"))?;
    let name = attachment.text().await.map_err(fail("attachment name"))?;
    assert!(name.ends_with(".pdf"), "{name}");

    click(browser, "header form button").await?;
    wait_for(browser, "#token").await?;
    assert_eq!(text_of(browser, "h1").await?, "Sign in");
    assert!(text_of(browser, "main")
        .await?
        .contains("You are signed out"));
    browser
        .goto(&app.url("/steward/worklist"))
        .await
        .map_err(fail("worklist after sign-out"))?;
    assert_eq!(
        text_of(browser, "h1").await?,
        "Sign in",
        "the session ended"
    );
    assert!(
        violations.is_empty(),
        "serious accessibility violations: {}",
        serde_json::to_string_pretty(&violations).unwrap_or_default()
    );
    Ok(())
}
