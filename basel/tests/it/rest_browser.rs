//! A person registering in a real browser: headless Chromium (Debian
//! `chromium`), driven over WebDriver (`chromedriver`, Debian
//! `chromium-driver`) with fantoccini, opens `/register`, fills in the
//! labelled field, submits the form (no JavaScript on the page), reads the key
//! from the page, and calls the API with it.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{ClientBuilder, Locator};
use serde_json::json;

use crate::inproc::App;
use crate::support::{free_port, listening, Mode};

pub const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// `chromedriver` on a free port, killed when dropped.
pub struct Driver {
    child: Child,
    pub url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start_driver() -> Driver {
    for binary in [CHROMIUM, CHROMEDRIVER] {
        assert!(
            Path::new(binary).exists(),
            "{binary} is missing: the browser test needs Debian's chromium and chromium-driver \
             (apt-get install -y chromium chromium-driver; .ci/run installs them)"
        );
    }
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    assert!(
        listening(port, Duration::from_secs(20)),
        "chromedriver did not listen within 20 s"
    );
    driver
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_registers_in_a_browser_and_the_key_from_the_page_works() {
    let app = App::seeded(Mode::Embedded).await;
    let driver = start_driver();
    let profile = tempfile::tempdir().expect("profile dir");
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     format!("--user-data-dir={}", profile.path().display())],
        }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let browser = ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("a WebDriver session with headless Chromium");
    let outcome = register_in(&browser, &app.url("/register")).await;
    let _ = browser.close().await;
    let key = outcome.expect("the registration flow in the browser");
    assert!(key.starts_with("bsl_"), "{key}");
    let answer = app.get("/api/v1/ca/DE", &key).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["country_code"], "DE");
}

async fn register_in(browser: &fantoccini::Client, url: &str) -> Result<String, String> {
    let fail = |what: &str| {
        let what = what.to_owned();
        move |e: fantoccini::error::CmdError| format!("{what}: {e}")
    };
    browser.goto(url).await.map_err(fail("open /register"))?;
    let label = browser
        .find(Locator::Css("label[for=email]"))
        .await
        .map_err(fail("the field's label"))?
        .text()
        .await
        .map_err(fail("label text"))?;
    if label.trim().is_empty() {
        return Err("the e-mail field has an empty label".into());
    }
    let field = browser
        .find(Locator::Id("email"))
        .await
        .map_err(fail("the e-mail field"))?;
    field
        .send_keys("browser.user@example.org")
        .await
        .map_err(fail("typing the address"))?;
    browser
        .find(Locator::Css("form button[type=submit]"))
        .await
        .map_err(fail("the submit button"))?
        .click()
        .await
        .map_err(fail("submitting"))?;
    let key = browser
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#api-key code"))
        .await
        .map_err(fail("the key on the result page"))?
        .text()
        .await
        .map_err(fail("the key's text"))?;
    Ok(key.trim().to_owned())
}
