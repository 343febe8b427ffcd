//! E-mail against a real SMTP server on loopback: aiosmtpd
//! (`scripts/smtp_sink.py`, installed from `scripts/requirements-mail.txt`)
//! writes every message it accepts to a directory the test reads. Covers key
//! delivery (`BASEL_KEY_DELIVERY=email`), re-sending, notices to every
//! registrant exactly once across a kill -9, and the one-click unsubscribe.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::process::{Basel, Node};
use crate::support::{
    all_bytes, both_modes, eventually, eventually_blocking, free_port, stderr, Mode,
};

/// The sender every test configures.
pub(crate) const FROM: &str = "basel <noreply@basel.test>";

/// An aiosmtpd server of the test's own, on a port the OS picked.
pub(crate) struct Sink {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
    auth: Option<(&'static str, &'static str)>,
}

impl Sink {
    /// Starts it; each RCPT TO is answered after `rcpt_delay` seconds; with
    /// `auth`, the server requires AUTH with that user and password.
    pub(crate) fn start(rcpt_delay: f64, auth: Option<(&'static str, &'static str)>) -> Self {
        Self::start_on(0, rcpt_delay, auth)
    }

    /// [`Sink::start`] on `port` (0: the OS picks one).
    fn start_on(port: u16, rcpt_delay: f64, auth: Option<(&'static str, &'static str)>) -> Self {
        Self::spawn(port, rcpt_delay, auth, &[])
    }

    /// The server with more arguments of `smtp_sink.py` (e.g. TLS).
    fn spawn(
        port: u16,
        rcpt_delay: f64,
        auth: Option<(&'static str, &'static str)>,
        extra: &[&str],
    ) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/smtp_sink.py");
        let mut command = Command::new("python3");
        command
            .arg(script)
            .arg("--dir")
            .arg(dir.path())
            .arg("--rcpt-delay")
            .arg(rcpt_delay.to_string())
            .arg("--port")
            .arg(port.to_string())
            .args(extra);
        if let Some((user, password)) = auth {
            command.args(["--user", user, "--password", password]);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs (the SMTP test server needs it)");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        let _ = BufReader::new(stdout).read_line(&mut line);
        let Some(port) = line
            .trim()
            .strip_prefix("port=")
            .and_then(|p| p.parse().ok())
        else {
            let _ = child.kill();
            let output = child.wait_with_output().expect("sink output");
            panic!(
                "the SMTP test server did not start (is aiosmtpd installed? python3 -m pip install -r scripts/requirements-mail.txt; .ci/run does): {}",
                stderr(&output)
            );
        };
        Self {
            child,
            dir,
            port,
            auth,
        }
    }

    /// `BASEL_SMTP_URL` for it (credentials percent-encoded).
    pub(crate) fn url(&self) -> String {
        match self.auth {
            Some((user, password)) => format!(
                "smtp://{user}:{}@127.0.0.1:{}",
                password.replace(' ', "%20"),
                self.port
            ),
            None => format!("smtp://127.0.0.1:{}", self.port),
        }
    }

    fn files(&self, prefix: &str, suffix: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(self.dir.path())
            .expect("sink dir")
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                name.starts_with(prefix) && name.ends_with(suffix)
            })
            .collect();
        files.sort();
        files
    }

    /// Every message accepted so far, in order.
    pub(crate) fn messages(&self) -> Vec<Value> {
        self.files("", ".json")
            .iter()
            .map(|p| serde_json::from_slice(&std::fs::read(p).expect("message")).expect("json"))
            .collect()
    }

    /// RCPT TO commands received so far.
    fn rcpts(&self) -> usize {
        self.files("rcpt-", "").len()
    }

    /// Waits (≤ 60 s) for at least `n` messages.
    pub(crate) fn wait_for(&self, n: usize) -> Vec<Value> {
        let arrived = eventually_blocking(Duration::from_secs(60), || self.messages().len() >= n);
        assert!(
            arrived.is_some(),
            "{n} mails did not arrive within 60 s: {:?}",
            self.messages()
        );
        self.messages()
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `basel` on a fresh store of `mode`, mailing through `sink`.
async fn mailing(mode: Mode, sink: &Sink, delivery: &str) -> Basel {
    Basel::of(mode)
        .await
        .with_secret()
        .with_env("BASEL_SMTP_URL", &sink.url())
        .with_env("BASEL_MAIL_FROM", FROM)
        .with_env("BASEL_KEY_DELIVERY", delivery)
}

fn header<'a>(message: &'a Value, name: &str) -> &'a str {
    message["headers"][name][0].as_str().unwrap_or_default()
}

pub(crate) fn recipient(message: &Value) -> String {
    message["rcpt_tos"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The `bsl_…` key in a mail's body.
fn key_in(message: &Value) -> String {
    let body = message["body"].as_str().unwrap_or_default();
    let start = body.find("bsl_").expect("a key in the body");
    body[start..start + 52].to_owned()
}

async fn post(node: &Node, path: &str, body: Value) -> (u16, Value) {
    let response = node
        .http
        .post(format!("{}{path}", node.base))
        .json(&body)
        .send()
        .await
        .expect("post");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn post_form(node: &Node, path: &str, body: &str) -> (u16, String) {
    let response = node
        .http
        .post(format!("{}{path}", node.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_owned())
        .send()
        .await
        .expect("post");
    (
        response.status().as_u16(),
        response.text().await.unwrap_or_default(),
    )
}

/// `basel_mail_messages{status=…}` from `/metrics`.
async fn outbox(node: &Node, status: &str) -> Option<i64> {
    let text = node
        .http
        .get(format!("{}/metrics", node.base))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    let prefix = format!("basel_mail_messages{{status=\"{status}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|n| n.trim().parse().ok())
}

/// Waits (≤ 60 s) until the outbox has `sent` messages sent and none queued.
async fn wait_until_sent(node: &Node, sent: i64) {
    let done = eventually(Duration::from_secs(60), || async {
        outbox(node, "queued").await == Some(0) && outbox(node, "sent").await == Some(sent)
    })
    .await;
    assert!(
        done.is_some(),
        "the outbox did not reach sent={sent}, queued=0: sent={:?} queued={:?}",
        outbox(node, "sent").await,
        outbox(node, "queued").await
    );
}

/// `basel notice send` with `body` in a file.
fn send_notice(basel: &Basel, subject: &str, body: &str) {
    let file = basel
        .dir()
        .join(format!("notice-{}.txt", uuid::Uuid::new_v4()));
    std::fs::write(&file, body).expect("body file");
    let output = basel.run(&[
        "notice",
        "send",
        "--subject",
        subject,
        "--body-file",
        file.to_str().expect("path"),
    ]);
    assert!(output.status.success(), "notice send: {}", stderr(&output));
}

async fn events_of_type(basel: &Basel, event_type: &str) -> i64 {
    sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM events WHERE event_type = $1")
        .bind(event_type)
        .fetch_one(&basel.db().await)
        .await
        .expect("count")
}

async fn a_mailed_key_arrives_is_absent_from_the_answer_and_works(mode: Mode) {
    let sink = Sink::start(0.0, Some(("basel", "s3cret pw")));
    let basel = mailing(mode, &sink, "email").await;
    let node = basel.serve().await;

    let (status, body) = post(&node, "/register", json!({"email": "Ana@Example.org"})).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["delivery"], "email");
    let shown = body["email"].as_str().unwrap_or_default().to_lowercase();
    assert_eq!(shown, "ana@example.org", "{body}");
    assert!(
        body.get("api_key").is_none() && !body.to_string().contains("bsl_"),
        "{body}"
    );

    let first = &sink.wait_for(1)[0];
    assert_eq!(recipient(first).to_lowercase(), "ana@example.org");
    assert_eq!(header(first, "from"), FROM);
    assert_eq!(header(first, "subject"), "Your basel API key");
    let key = key_in(first);
    let (status, record) = node
        .get_with_key("/api/v1/ca/DE", &key)
        .await
        .expect("answer");
    assert_eq!(status, 200, "the mailed key does not work: {record}");

    // Registering again re-sends the same key, as a new message.
    let (status, again) = post(&node, "/register", json!({"email": "ana@example.org"})).await;
    assert_eq!(status, 202);
    assert!(!again.to_string().contains(&key));
    let (status, page) = post_form(&node, "/register", "email=ana%40example.org").await;
    assert_eq!(status, 202);
    assert!(
        page.contains("Check your mail") && !page.contains(&key),
        "{page}"
    );
    let mails = sink.wait_for(3);
    assert_eq!(mails.len(), 3);
    assert!(mails.iter().all(|m| key_in(m) == key));
    let mut ids: Vec<&str> = mails.iter().map(|m| header(m, "message-id")).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 3, "each key mail has its own Message-ID");
    wait_until_sent(&node, 3).await;

    // The key is in the mail only: not in a log line, a table or an event.
    assert!(!node.log().contains(&key), "the key is in the log");
    assert!(
        !node.log().to_lowercase().contains("ana@example.org"),
        "the address is in the log"
    );
    let stored = match &basel.store.database_url {
        Some(url) => crate::cli::postgres_dump(url).await.into_bytes(),
        None => all_bytes(&basel.store.data_dir()),
    };
    assert!(!stored.is_empty());
    assert!(
        !stored.windows(key.len()).any(|w| w == key.as_bytes()),
        "the key's plaintext is in the store"
    );
    assert_eq!(events_of_type(&basel, "KeyMailRequested").await, 3);
}

both_modes!(a_mailed_key_arrives_is_absent_from_the_answer_and_works);

#[tokio::test]
async fn email_delivery_without_an_smtp_url_is_refused_at_start() {
    let basel = Basel::embedded().with_env("BASEL_KEY_DELIVERY", "email");
    let mut child = basel
        .basel(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--mcp-listen",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("basel runs");
    let exited = eventually_blocking(Duration::from_secs(30), || {
        matches!(child.try_wait(), Ok(Some(_)))
    });
    if exited.is_none() {
        let _ = child.kill();
    }
    let output = child.wait_with_output().expect("output");
    assert!(
        exited.is_some(),
        "basel served in email mode without BASEL_SMTP_URL"
    );
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("BASEL_KEY_DELIVERY=email needs BASEL_SMTP_URL"),
        "{message}"
    );
}

async fn a_notice_reaches_every_registrant_once_across_a_kill(mode: Mode) {
    // Each RCPT is held for a second, so the kill lands between two mails.
    let sink = Sink::start(1.0, None);
    let basel = mailing(mode, &sink, "page").await;
    let node = basel.serve().await;
    let addresses = [
        "a@example.org",
        "b@example.org",
        "c@example.org",
        "d@example.org",
    ];
    for address in addresses {
        node.register(address).await;
    }
    send_notice(
        &basel,
        "API v2 in June",
        "Version 2 of the API starts on 1 June.\n",
    );

    // The third conversation has begun: two mails were sent and recorded.
    let third = eventually_blocking(Duration::from_secs(60), || sink.rcpts() >= 3);
    assert!(
        third.is_some(),
        "the notice was not being sent: {}",
        node.log()
    );
    node.kill9();
    let before = sink.messages().len();
    assert!((2..4).contains(&before), "{before} mails before the kill");

    let node = basel.serve().await;
    sink.wait_for(4);
    wait_until_sent(&node, 4).await;
    let mails = sink.messages();
    let mut recipients: Vec<String> = mails.iter().map(recipient).collect();
    recipients.sort();
    assert_eq!(recipients, addresses, "every registrant exactly once");
    assert!(mails
        .iter()
        .all(|m| header(m, "subject") == "API v2 in June"));
    assert!(mails.iter().all(|m| m["body"]
        .as_str()
        .unwrap_or_default()
        .contains("Version 2 of the API")));

    let listed = basel.run(&["notice", "list"]);
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("API v2 in June") && listed.contains("sent 4"),
        "{listed}"
    );
    assert_eq!(events_of_type(&basel, "NoticePublished").await, 1);
}

both_modes!(a_notice_reaches_every_registrant_once_across_a_kill);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_click_unsubscribe_is_recorded_and_the_next_notice_skips_it() {
    let sink = Sink::start(0.0, None);
    // Links start with the public URL, not the listen address.
    let basel = mailing(Mode::Embedded, &sink, "page")
        .await
        .with_env("BASEL_PUBLIC_URL", "https://basel.example.org");
    let node = basel.serve().await;
    node.register("ana@example.org").await;
    node.register("bob@example.org").await;
    send_notice(&basel, "First", "One.\n");
    let mails = sink.wait_for(2);
    let bob = mails
        .iter()
        .find(|m| recipient(m) == "bob@example.org")
        .expect("bob's notice");
    assert_eq!(
        header(bob, "list-unsubscribe-post"),
        "List-Unsubscribe=One-Click"
    );
    let link = header(bob, "list-unsubscribe");
    let link = link.trim_start_matches('<').trim_end_matches('>');
    assert!(
        link.starts_with("https://basel.example.org/unsubscribe?token=")
            && !link.contains('@')
            && !link.contains("bob"),
        "{link}"
    );
    assert!(
        bob["body"].as_str().unwrap_or_default().contains(link),
        "the footer has the link"
    );
    let path = &link[link.find("/unsubscribe").expect("path")..];

    // Opening the link changes nothing; the one click (RFC 8058) records it.
    let page = node
        .http
        .get(format!("{}{path}", node.base))
        .send()
        .await
        .expect("get");
    assert_eq!(page.status().as_u16(), 200);
    assert_eq!(events_of_type(&basel, "NoticesUnsubscribed").await, 0);
    let (status, _) = post_form(&node, path, "List-Unsubscribe=One-Click").await;
    assert_eq!(status, 200);
    let (status, _) = post_form(&node, path, "List-Unsubscribe=One-Click").await;
    assert_eq!(status, 200, "a second click is answered the same");
    assert_eq!(events_of_type(&basel, "NoticesUnsubscribed").await, 1);

    let forged = format!("{}{}", &path[..path.len() - 4], "0000");
    let response = node
        .http
        .post(format!("{}{forged}", node.base))
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .expect("post");
    assert_eq!(
        response.status().as_u16(),
        404,
        "a forged token names nobody"
    );
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["code"], "unknown_token");

    send_notice(&basel, "Second", "Two.\n");
    wait_until_sent(&node, 3).await;
    let mails = sink.messages();
    let to = |who: &str| mails.iter().filter(|m| recipient(m) == who).count();
    assert_eq!((to("ana@example.org"), to("bob@example.org")), (2, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_the_server_did_not_take_is_retried_until_it_does() {
    let port = free_port();
    let basel = Basel::embedded()
        .with_secret()
        .with_env("BASEL_SMTP_URL", &format!("smtp://127.0.0.1:{port}"))
        .with_env("BASEL_MAIL_FROM", FROM)
        .with_env("BASEL_KEY_DELIVERY", "email");
    let node = basel.serve().await;
    let (status, _) = post(&node, "/register", json!({"email": "ana@example.org"})).await;
    assert_eq!(status, 202);

    // Nothing listens yet: the attempt fails and the mail stays queued.
    let failed = eventually(Duration::from_secs(30), || async {
        node.log().contains("mail not sent")
    })
    .await;
    assert!(
        failed.is_some(),
        "no failed attempt was logged: {}",
        node.log()
    );
    assert_eq!(outbox(&node, "queued").await, Some(1));
    assert_eq!(outbox(&node, "sent").await, Some(0));

    // The server comes up: the retry (5 s after the first attempt) delivers it.
    let sink = Sink::start_on(port, 0.0, None);
    let mail = &sink.wait_for(1)[0];
    assert_eq!(recipient(mail), "ana@example.org");
    wait_until_sent(&node, 1).await;
    assert_eq!(sink.messages().len(), 1);
}

/// A CA and a certificate it signed for 127.0.0.1 (openssl), in `dir`:
/// returns the paths of the CA certificate, the server certificate and its key.
fn certificates(dir: &Path) -> (String, String, String) {
    let path = |name: &str| dir.join(name).to_str().expect("path").to_owned();
    let run = |args: &[&str]| {
        let output = Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl runs");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            stderr(&output)
        );
    };
    let (ca_key, ca, key, csr, cert, ext) = (
        path("ca.key"),
        path("ca.pem"),
        path("server.key"),
        path("server.csr"),
        path("server.pem"),
        path("server.ext"),
    );
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &ca_key,
        "-out",
        &ca,
        "-days",
        "2",
        "-subj",
        "/CN=basel test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &key,
        "-out",
        &csr,
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(
        &ext,
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
    )
    .expect("ext");
    run(&[
        "x509",
        "-req",
        "-in",
        &csr,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-out",
        &cert,
        "-days",
        "2",
        "-extfile",
        &ext,
    ]);
    (ca, cert, key)
}

/// A key mailed over TLS with AUTH (`tls`: `implicit` for `smtps://`,
/// `starttls` for `smtp://…?tls=required`); without the CA file the
/// server's certificate is refused and nothing is sent.
async fn a_key_is_mailed_over_tls(tls: &str) {
    let certs = tempfile::tempdir().expect("temp dir");
    let (ca, cert, key) = certificates(certs.path());
    let sink = Sink::spawn(
        0,
        0.0,
        Some(("basel", "pw")),
        &["--tls", tls, "--cert", &cert, "--key", &key],
    );
    let url = match tls {
        "implicit" => format!("smtps://basel:pw@127.0.0.1:{}", sink.port),
        _ => format!("smtp://basel:pw@127.0.0.1:{}?tls=required", sink.port),
    };
    let deployment = || {
        Basel::embedded()
            .with_secret()
            .with_env("BASEL_SMTP_URL", &url)
            .with_env("BASEL_MAIL_FROM", FROM)
            .with_env("BASEL_KEY_DELIVERY", "email")
    };

    // Without the CA the certificate is not trusted: the attempt fails.
    let untrusting = deployment();
    let node = untrusting.serve().await;
    let (status, _) = post(&node, "/register", json!({"email": "ana@example.org"})).await;
    assert_eq!(status, 202);
    let failed = eventually(Duration::from_secs(30), || async {
        node.log().contains("mail not sent")
    })
    .await;
    assert!(
        failed.is_some(),
        "an untrusted certificate was accepted: {}",
        node.log()
    );
    assert!(sink.messages().is_empty());
    node.stop();

    let trusting = deployment().with_env("BASEL_SMTP_CA_FILE", &ca);
    let node = trusting.serve().await;
    let (status, _) = post(&node, "/register", json!({"email": "ana@example.org"})).await;
    assert_eq!(status, 202);
    let mail = &sink.wait_for(1)[0];
    let key = key_in(mail);
    let (status, _) = node
        .get_with_key("/api/v1/ca/DE", &key)
        .await
        .expect("answer");
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_mailed_over_implicit_tls_with_auth() {
    a_key_is_mailed_over_tls("implicit").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_mailed_over_starttls_with_auth() {
    a_key_is_mailed_over_tls("starttls").await;
}
