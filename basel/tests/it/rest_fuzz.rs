//! Properties of the request parsers, against the real app (embedded store):
//! whatever the country code, query string or JSON body, the answer is never
//! a 5xx, and every error answer is JSON.

use proptest::prelude::*;
use serde_json::Value;

use crate::inproc::App;
use crate::support::Mode;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    app: App,
    key: String,
    token: String,
}

fn fixture() -> Fixture {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (app, key, token) = runtime.block_on(async {
        let app = App::start(Mode::Embedded).await;
        let token = app.enrol("fuzz").await;
        app.add_country(&token, "DE", "Germany").await;
        let key = app.key().await;
        (app, key, token)
    });
    Fixture {
        runtime,
        app,
        key,
        token,
    }
}

impl Fixture {
    fn check(&self, request: reqwest::RequestBuilder) -> Result<(), TestCaseError> {
        let answer = self.runtime.block_on(self.app.send(request));
        prop_assert!(answer.status < 500, "{} {}", answer.status, answer.text);
        let html = answer
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/html"));
        if answer.status >= 400 && !html {
            prop_assert!(answer.body["error"].is_string(), "{}", answer.text);
            prop_assert!(answer.body["message"].is_string(), "{}", answer.text);
        }
        Ok(())
    }
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2025-01-01"),
            Just("email"),
            Just("+41-22-917-8218"),
            Just("a@b.org"),
            Just("DE")
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-z_]{1,16}",
                    Just("verified".to_owned()),
                    Just("checked_on".to_owned()),
                    Just("method".to_owned()),
                    Just("source".to_owned()),
                    Just("changes".to_owned()),
                    Just("email".to_owned()),
                    Just("expected_version".to_owned()),
                    Just("country_code".to_owned()),
                    Just("description".to_owned()),
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn no_path_query_or_body_produces_a_5xx() {
    let f = fixture();
    let config = ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let app = &f.app;
    proptest!(config, |(code in "\\PC{0,5}", query in "[ -~]{0,40}", body in json_value(), raw in prop::collection::vec(any::<u8>(), 0..64))| {
        let code = percent_encode(&code);
        let client = app.client();
        f.check(client.get(app.url(&format!("/api/v1/ca/{code}?{query}"))).header("x-api-key", &f.key))?;
        f.check(client.get(app.url(&format!("/api/v1/ca/{code}/history"))).header("x-api-key", &f.key))?;
        f.check(client.get(app.url(&format!("/api/v1/ca?{query}"))).header("x-api-key", &f.key))?;
        f.check(client.get(app.url(&format!("/api/v1/changes?{query}"))).header("x-api-key", &f.key))?;
        f.check(client.post(app.url(&format!("/api/v1/ca/{code}/verifications"))).bearer_auth(&f.token).json(&body))?;
        f.check(client.post(app.url("/api/v1/ca/DE/verifications")).bearer_auth(&f.token).json(&body))?;
        f.check(client.post(app.url("/api/v1/ca")).bearer_auth(&f.token).json(&body))?;
        f.check(client.post(app.url("/api/v1/classify")).header("x-api-key", &f.key).json(&body))?;
        f.check(client.post(app.url("/register")).json(&body))?;
        f.check(client.post(app.url("/register")).header("content-type", "application/x-www-form-urlencoded").body(raw.clone()))?;
        f.check(client.post(app.url("/api/v1/ca/DE/verifications")).bearer_auth(&f.token).header("content-type", "application/json").body(raw))?;
    });
}
