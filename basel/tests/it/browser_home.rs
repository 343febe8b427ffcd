//! The landing page and the API reference in headless Chromium (over
//! ChromeDriver, as in `rest_browser`): the content is there, every link on
//! the page leads somewhere (in-page anchors to an element, others to a 200),
//! the browser console stays free of errors (a blocked style or resource
//! would show there), and keyboard focus is visible (Tab moves it to a link
//! that gets an outline).

use std::time::Duration;

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

use crate::inproc::App;
use crate::rest_browser::{start_driver, CHROMIUM};
use crate::support::Mode;

/// ChromeDriver's browser log (`goog:loggingPrefs`), read and emptied.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": "browser" }).to_string()),
        )
    }
}

async fn console_errors(browser: &Client) -> Vec<String> {
    let entries = browser
        .issue_cmd(BrowserLog)
        .await
        .expect("the browser log");
    entries
        .as_array()
        .expect("log entries")
        .iter()
        .filter(|e| e["level"] == "SEVERE" || e["level"] == "WARNING")
        .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
        .collect()
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
    capabilities.insert("goog:loggingPrefs".into(), json!({ "browser": "ALL" }));
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(driver_url)
        .await
        .expect("a WebDriver session with headless Chromium")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_landing_page_and_the_api_reference_work_in_a_browser() {
    let app = App::seeded(Mode::Embedded).await;
    let driver = start_driver();
    let profile = tempfile::tempdir().expect("profile dir");
    let browser = browser(&driver.url, profile.path()).await;
    let outcome = check_pages(&browser, &app).await;
    let _ = browser.close().await;
    outcome.expect("the pages in the browser");
}

async fn check_pages(browser: &Client, app: &App) -> Result<(), String> {
    let fail = |what: &'static str| move |e: fantoccini::error::CmdError| format!("{what}: {e}");
    browser.goto(&app.url("/")).await.map_err(fail("open /"))?;
    let heading = browser
        .find(Locator::Css("h1"))
        .await
        .map_err(fail("h1"))?
        .text()
        .await
        .map_err(fail("h1 text"))?;
    assert_eq!(heading.trim(), "basel");
    let records = browser
        .find(Locator::Id("coverage-records"))
        .await
        .map_err(fail("coverage"))?
        .text()
        .await
        .map_err(fail("coverage text"))?;
    assert_eq!(records.trim(), "191", "one record per Party in the seed");
    let body = browser
        .find(Locator::Css("main"))
        .await
        .map_err(fail("main"))?
        .text()
        .await
        .map_err(fail("main text"))?;
    for needle in [
        "/mcp",
        "/sse",
        "Authorization: Bearer",
        "X-API-Key",
        "Get a free API key",
        "API reference",
        "Steward console",
    ] {
        assert!(body.contains(needle), "the landing page lacks {needle}");
    }
    check_links(browser, app).await?;
    focus_is_visible(browser).await?;
    let errors = console_errors(browser).await;
    assert!(errors.is_empty(), "console errors on /: {errors:?}");

    browser
        .goto(&app.url("/docs"))
        .await
        .map_err(fail("open /docs"))?;
    let body = browser
        .find(Locator::Css("main"))
        .await
        .map_err(fail("main"))?
        .text()
        .await
        .map_err(fail("main text"))?;
    for needle in [
        "GET /api/v1/ca/{country_code}",
        "POST /api/v1/classify",
        "Schemas",
        "X-API-Key",
    ] {
        assert!(body.contains(needle), "the reference lacks {needle}");
    }
    check_links(browser, app).await?;
    focus_is_visible(browser).await?;
    let errors = console_errors(browser).await;
    assert!(errors.is_empty(), "console errors on /docs: {errors:?}");
    for (width, height) in [(1280, 900), (390, 844)] {
        for page in ["/", "/docs"] {
            fits_the_width(browser, app, page, width, height).await?;
        }
    }
    // The log reader does see errors: a page that 404s logs one.
    browser
        .goto(&app.url("/no-such-page"))
        .await
        .map_err(fail("open a 404"))?;
    let errors = console_errors(browser).await;
    assert!(
        !errors.is_empty(),
        "the browser log reader saw no error on a 404"
    );
    Ok(())
}

/// Every `href` of the page: `#x` must name an element, others must answer 200.
async fn check_links(browser: &Client, app: &App) -> Result<(), String> {
    let hrefs = browser
        .execute("return Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))", vec![])
        .await
        .map_err(|e| format!("links: {e}"))?;
    let hrefs: Vec<String> = serde_json::from_value(hrefs).map_err(|e| e.to_string())?;
    assert!(hrefs.len() >= 5, "{hrefs:?}");
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| e.to_string())?;
    for href in hrefs {
        if let Some(id) = href.strip_prefix('#') {
            let found: Value = browser
                .execute(
                    "return document.getElementById(arguments[0]) !== null",
                    vec![json!(id)],
                )
                .await
                .map_err(|e| format!("anchor: {e}"))?;
            assert_eq!(found, json!(true), "#{id} leads nowhere");
        } else {
            assert!(href.starts_with('/'), "an external link: {href}");
            let status = http
                .get(app.url(&href))
                .send()
                .await
                .map_err(|e| e.to_string())?
                .status();
            assert_eq!(status.as_u16(), 200, "{href}");
        }
    }
    Ok(())
}

/// Tab from the top of the page: the focused element is a link with an outline.
async fn focus_is_visible(browser: &Client) -> Result<(), String> {
    let body = browser
        .find(Locator::Css("body"))
        .await
        .map_err(|e| e.to_string())?;
    body.send_keys("\u{E004}")
        .await
        .map_err(|e| format!("Tab: {e}"))?;
    let focus: Value = browser
        .execute(
            "const e = document.activeElement; const s = getComputedStyle(e); \
             return [e.tagName, s.outlineStyle, parseFloat(s.outlineWidth)]",
            vec![],
        )
        .await
        .map_err(|e| format!("focus: {e}"))?;
    assert_eq!(focus[0], "A", "Tab reaches a link first: {focus}");
    assert_ne!(focus[1], "none", "focus has no outline: {focus}");
    assert!(
        focus[2].as_f64().unwrap_or_default() >= 2.0,
        "focus outline too thin: {focus}"
    );
    Ok(())
}

/// At a window `width` wide, `page` scrolls only down: nothing is wider than
/// the viewport (a long path in a column, a table, a code block).
async fn fits_the_width(
    browser: &Client,
    app: &App,
    page: &str,
    width: u32,
    height: u32,
) -> Result<(), String> {
    browser
        .set_window_size(width, height)
        .await
        .map_err(|e| format!("window size: {e}"))?;
    browser
        .goto(&app.url(page))
        .await
        .map_err(|e| format!("open {page}: {e}"))?;
    let sizes: Value = browser
        .execute(
            "const d = document.documentElement; \
             const wide = Array.from(document.querySelectorAll('main *')) \
               .filter(e => e.getBoundingClientRect().right > d.clientWidth + 1) \
               .slice(0, 3).map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40)); \
             return [d.scrollWidth, d.clientWidth, wide]",
            vec![],
        )
        .await
        .map_err(|e| format!("sizes: {e}"))?;
    let (scroll, client) = (
        sizes[0].as_f64().unwrap_or(0.0),
        sizes[1].as_f64().unwrap_or(0.0),
    );
    assert!(
        client > 0.0 && scroll <= client,
        "{page} at {width} px scrolls sideways: {scroll} px of content in {client} px ({})",
        sizes[2]
    );
    Ok(())
}
