//! The in-process harness: the REST app in this process, with the real
//! router, runtime, projector and store (embedded SQLite or a fresh
//! PostgreSQL database, by [`Mode`]), on port 0, with typed request helpers.
//! Each test gets a store of its own. Run a body in both modes with
//! `both_modes!` (from `commands::store::testing`, re-exported by
//! [`crate::support`]).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use chrono::Utc;
use clap::Parser;
use secrecy::ExposeSecret;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use basel::cli::args::Cli;
use basel::node::runtime::Runtime;
use classifier::Classifier;
use commands::steward::StewardCommands;
use domain::metadata::{Actor, Metadata};
use domain::values::{Email, Slug};
use web::AppState;

use crate::support::{Mode, Store};

/// An answer: status, headers, body as JSON (`Null` when it is not JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or_default()
    }
}

/// A running app.
pub struct App {
    pub base: String,
    pub runtime: Runtime,
    pub store: Store,
    client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
}

fn classifier() -> Arc<Classifier> {
    static CLASSIFIER: OnceLock<Arc<Classifier>> = OnceLock::new();
    CLASSIFIER
        .get_or_init(|| Arc::new(Classifier::bundled().expect("bundled classifier")))
        .clone()
}

impl App {
    /// An app on an empty store.
    pub async fn start(mode: Mode) -> Self {
        let store = Store::of(mode).await;
        let runtime = Runtime::open(&store_settings(&store))
            .await
            .expect("runtime opens");
        Self::serve(store, runtime).await
    }

    /// An app on a store seeded with the bundled dataset (191 records).
    pub async fn seeded(mode: Mode) -> Self {
        let app = Self::start(mode).await;
        let now = Utc::now();
        commands::seed::seed_if_empty(&app.runtime.backend, now, now.date_naive())
            .await
            .expect("seed");
        app.settle().await;
        app
    }

    /// An app on an empty store whose projections only move when the test
    /// calls `runtime.catch_up()` (a projector that is far behind).
    pub async fn start_stalled(mode: Mode) -> Self {
        let store = Store::of(mode).await;
        let runtime = Runtime::open(&store_settings(&store))
            .await
            .expect("runtime opens");
        Self::serve_with(store, runtime, false).await
    }

    /// Serves `runtime` (which may be wired by hand, e.g. to a broken store).
    pub async fn serve(store: Store, runtime: Runtime) -> Self {
        Self::serve_with(store, runtime, true).await
    }

    /// An app on an empty store with these connection limits.
    pub async fn start_limited(mode: Mode, limits: web::edge::ConnSettings) -> Self {
        let store = Store::of(mode).await;
        let runtime = Runtime::open(&store_settings(&store))
            .await
            .expect("runtime opens");
        Self::serve_limited(store, runtime, true, limits).await
    }

    async fn serve_with(store: Store, runtime: Runtime, project: bool) -> Self {
        Self::serve_limited(store, runtime, project, web::edge::ConnSettings::default()).await
    }

    /// An app on an empty store with four-eyes review on (`BASEL_REVIEW=required`).
    pub async fn start_reviewed(mode: Mode) -> Self {
        let store = Store::of(mode).await;
        let runtime = Runtime::open(&store_settings(&store))
            .await
            .expect("runtime opens");
        Self::serve_configured(
            store,
            runtime,
            true,
            web::edge::ConnSettings::default(),
            true,
        )
        .await
    }

    /// An app on an empty store whose console mails sign-in links through
    /// `smtp_url` (as `BASEL_SMTP_URL`), with its public URL set.
    pub async fn start_mailing(mode: Mode, smtp_url: &str, from: &str) -> Self {
        let store = Store::of(mode).await;
        let runtime = Runtime::open(&store_settings(&store))
            .await
            .expect("runtime opens");
        let mail = console::LinkMail {
            transport: mail::smtp::SmtpUrl::parse(smtp_url)
                .expect("smtp url")
                .transport()
                .expect("transport"),
            from: mail::smtp::parse_from(from).expect("from"),
        };
        Self::serve_full(
            store,
            runtime,
            true,
            web::edge::ConnSettings::default(),
            false,
            Some(mail),
        )
        .await
    }

    async fn serve_limited(
        store: Store,
        runtime: Runtime,
        project: bool,
        limits: web::edge::ConnSettings,
    ) -> Self {
        Self::serve_configured(store, runtime, project, limits, false).await
    }

    async fn serve_configured(
        store: Store,
        runtime: Runtime,
        project: bool,
        limits: web::edge::ConnSettings,
        review: bool,
    ) -> Self {
        Self::serve_full(store, runtime, project, limits, review, None).await
    }

    async fn serve_full(
        store: Store,
        runtime: Runtime,
        project: bool,
        limits: web::edge::ConnSettings,
        review: bool,
        console_mail: Option<console::LinkMail>,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (stop, stopped) = oneshot::channel::<()>();
        let (stop_projector, projector_stopped) = tokio::sync::watch::channel(false);
        let projector = runtime.projector.clone().run(
            runtime.wake.clone(),
            Duration::from_millis(250),
            async move {
                let mut stopped = projector_stopped;
                let _ = stopped.wait_for(|s| *s).await;
            },
        );
        if project {
            tokio::spawn(projector);
        }
        let cache = projections::cache::ReadCache::watching(&runtime.projector);
        let mut state = AppState::new(runtime.wiring(), classifier(), 365, cache);
        state.schemas = Arc::new(rest::routes::schemas());
        state.review = review;
        if console_mail.is_some() {
            state.public_url = Some(base.clone());
        }
        let console = console::Settings { mail: console_mail };
        tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
                let _ = stop_projector.send(true);
            };
            let _ = basel::node::http::serve_rest(listener, state, console, limits, shutdown).await;
        });
        Self {
            base,
            runtime,
            store,
            client: reqwest::Client::new(),
            stop: Some(stop),
        }
    }

    /// Waits until every projection has applied the whole log.
    pub async fn settle(&self) {
        let head = projections::log::head(&self.runtime.read_db)
            .await
            .expect("head");
        self.runtime.wake.notify_one();
        for projection in projections::registry::Projection::ALL {
            assert!(
                self.runtime
                    .projector
                    .wait_for(projection, head, Duration::from_secs(20))
                    .await,
                "projection {} did not reach {head}",
                projection.name()
            );
        }
    }

    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.send().await.expect("response");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Answer {
            status,
            headers,
            body,
            text,
        }
    }

    /// `GET path` with an API key.
    pub async fn get(&self, path: &str, key: &str) -> Answer {
        self.send(self.client.get(self.url(path)).header("x-api-key", key))
            .await
    }

    /// `GET path` with no credentials.
    pub async fn get_anonymous(&self, path: &str) -> Answer {
        self.send(self.client.get(self.url(path))).await
    }

    /// `POST path` with a JSON body and a steward's bearer token.
    pub async fn post_as(&self, path: &str, token: &str, body: &Value) -> Answer {
        self.send(
            self.client
                .post(self.url(path))
                .bearer_auth(token)
                .json(body),
        )
        .await
    }

    /// A fresh API key (through `POST /register`).
    pub async fn key(&self) -> String {
        let email = format!("k{:08x}@example.org", rand_u32());
        let answer = self
            .send(
                self.client
                    .post(self.url("/register"))
                    .json(&json!({ "email": email })),
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer.body["api_key"].as_str().expect("key").to_owned()
    }

    /// A fresh API key on an app whose projector is stalled: registers
    /// (waiting out the 2 s bound), then applies the log by hand.
    pub async fn key_after_catch_up(&self) -> String {
        let key = self.key().await;
        self.runtime.catch_up().await.expect("catch up");
        key
    }

    /// Enrols a steward as `basel steward enrol` does; returns the token.
    pub async fn enrol(&self, id: &str) -> String {
        let enrolment = StewardCommands::new(&self.runtime.backend)
            .enrol(
                Slug::parse(id).expect("slug"),
                &format!("Steward {id}"),
                Email::parse(&format!("{id}@stewards.example.org")).expect("email"),
                &self.runtime.secret,
                &admin(),
            )
            .await
            .expect("enrol");
        self.runtime.wake.notify_one();
        enrolment.token.expose_secret().to_owned()
    }

    /// Suspends a steward as `basel steward suspend` does.
    pub async fn suspend(&self, id: &str) {
        StewardCommands::new(&self.runtime.backend)
            .suspend(&Slug::parse(id).expect("slug"), "test", &admin())
            .await
            .expect("suspend");
    }

    /// Registers a minimal record for `code` through the API, as steward `token`.
    pub async fn add_country(&self, token: &str, code: &str, name: &str) -> Answer {
        let answer = self
            .post_as(
                "/api/v1/ca",
                token,
                &json!({ "country_code": code, "country_name": name }),
            )
            .await;
        assert_eq!(answer.status, 201, "{}", answer.text);
        answer
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Today's date, `YYYY-MM-DD`.
pub fn today() -> String {
    Utc::now().date_naive().to_string()
}

/// An unverified steward check from the ministry's website, today, with
/// these `changes`.
pub fn verification(changes: Value) -> Value {
    json!({"verified": false, "checked_on": today(), "method": "website",
           "source": "ministry website", "changes": changes})
}

fn admin() -> Metadata {
    Metadata {
        recorded_at: Utc::now(),
        actor: Actor::Admin,
        request_id: "test".into(),
        client_request_id: None,
        idempotency: None,
    }
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    hasher.finish() as u32
}

/// The settings `basel` would get for `store`.
pub fn store_settings(store: &Store) -> basel::node::settings::StoreSettings {
    let data_dir = store.data_dir().display().to_string();
    let mut args = vec![
        "basel".to_owned(),
        "--data-dir".into(),
        data_dir,
        "--secret".into(),
        "test-secret-test-secret-test-secret-0123".into(),
    ];
    if let Some(url) = &store.database_url {
        args.extend(["--database-url".into(), url.clone()]);
    }
    Cli::try_parse_from(args).expect("settings").store
}
