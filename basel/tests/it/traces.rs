//! Traces over OTLP: `basel serve` with `BASEL_OTLP_ENDPOINT`
//! pointing at a small OTLP/HTTP receiver of the test's own (protobuf,
//! `POST /v1/traces`), one steward write with a client's `traceparent`, and
//! every span of it — the REST request, the command, the relay's publish
//! (server mode) and each projection's apply — under that one trace id.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use prost::Message as _;

use crate::process::{update, Basel};
use crate::support::{both_modes, eventually_some, Mode};

/// The shared NATS server of the test machine (the deployment gets a
/// stream of its own on it).
const NATS: &str = "nats://127.0.0.1:4222";

/// One span as the receiver got it.
#[derive(Debug, Clone)]
struct Received {
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    name: String,
    /// `service.name` of the resource it came with.
    service: String,
    /// `basel.role` of the resource it came with.
    role: String,
    attributes: Vec<(String, String)>,
}

/// An OTLP/HTTP receiver on 127.0.0.1:0 that keeps every span sent to it.
struct Receiver {
    url: String,
    spans: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("the receiver binds");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let spans = Arc::new(Mutex::new(Vec::new()));
        let kept = spans.clone();
        let app = axum::Router::new().route(
            "/v1/traces",
            post(move |body: Bytes| {
                let kept = kept.clone();
                async move {
                    let request = ExportTraceServiceRequest::decode(body)
                        .expect("the exporter sends OTLP protobuf");
                    kept.lock().expect("spans").extend(received(request));
                    (
                        [("content-type", "application/x-protobuf")],
                        ExportTraceServiceResponse::default().encode_to_vec(),
                    )
                }
            }),
        );
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("the receiver serves");
        });
        Self { url, spans, task }
    }

    fn of_trace(&self, trace_id: &str) -> Vec<Received> {
        let spans = self.spans.lock().expect("spans");
        spans
            .iter()
            .filter(|s| s.trace_id == trace_id)
            .cloned()
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn text(value: &KeyValue) -> String {
    match value.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(AnyValue::StringValue(s)) => s.clone(),
        Some(AnyValue::IntValue(i)) => i.to_string(),
        Some(AnyValue::BoolValue(b)) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn received(request: ExportTraceServiceRequest) -> Vec<Received> {
    let mut out = Vec::new();
    for resource_spans in request.resource_spans {
        let resource: Vec<KeyValue> = resource_spans
            .resource
            .map(|r| r.attributes)
            .unwrap_or_default();
        let named = |key: &str| {
            resource
                .iter()
                .find(|a| a.key == key)
                .map(text)
                .unwrap_or_default()
        };
        let (service, role) = (named("service.name"), named("basel.role"));
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                out.push(Received {
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent_span_id: hex::encode(&span.parent_span_id),
                    name: span.name,
                    service: service.clone(),
                    role: role.clone(),
                    attributes: span
                        .attributes
                        .iter()
                        .map(|a| (a.key.clone(), text(a)))
                        .collect(),
                });
            }
        }
    }
    out
}

fn fresh_hex(bytes: usize) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    id[..bytes * 2].to_owned()
}

/// One steward write with a `traceparent`: the answer continues the trace,
/// and the request, command, relay (server mode) and projection spans all
/// reach the receiver under its trace id, each a child of the one before.
async fn one_steward_write_is_one_trace_from_rest_to_the_projection(mode: Mode) {
    let receiver = Receiver::start().await;
    let deployment = Basel::of(mode).await.with_secret();
    let deployment = match mode {
        Mode::Embedded => deployment,
        Mode::Postgres => deployment.with_nats(NATS),
    }
    .with_env("BASEL_OTLP_ENDPOINT", &receiver.url)
    .with_env("OTEL_BSP_SCHEDULE_DELAY", "100");
    let token = deployment.enrol("Trace Steward", "trace.steward@example.org");
    let node = deployment.serve().await;

    let (trace_id, client_span) = (fresh_hex(16), fresh_hex(8));
    let answer = node
        .http
        .post(format!("{}/api/v1/ca/FR/verifications", node.base))
        .bearer_auth(&token)
        .header("traceparent", format!("00-{trace_id}-{client_span}-01"))
        .json(&update("traced write"))
        .send()
        .await
        .expect("the write is answered");
    assert!(
        [200, 202].contains(&answer.status().as_u16()),
        "{}",
        answer.status()
    );
    let echoed = answer
        .headers()
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .and_then(domain::trace::TraceParent::parse)
        .expect("the answer carries a well-formed traceparent");
    assert_eq!(
        echoed.trace_id(),
        trace_id,
        "the answer continues the client's trace"
    );
    assert_ne!(
        echoed.parent_id(),
        client_span,
        "it names the server's span"
    );

    let wanted: &[&str] = match mode {
        Mode::Embedded => &["command", "projection.apply"],
        Mode::Postgres => &["command", "relay.publish", "projection.apply"],
    };
    let spans = eventually_some(Duration::from_secs(30), || async {
        let spans = receiver.of_trace(&trace_id);
        let server = spans.iter().any(|s| s.name == "POST /api/v1/ca/{country_code}/verifications");
        // Both projections of the authority (directory, history) applied it.
        let applied = spans.iter().filter(|s| s.name == "projection.apply").count() >= 2;
        let all = wanted.iter().all(|name| spans.iter().any(|s| s.name == *name));
        (server && applied && all).then_some(spans)
    })
    .await
    .unwrap_or_else(|| {
        panic!(
            "spans of trace {trace_id} ({wanted:?} and the request) within 30 s; got {:#?}\nlog:\n{}",
            receiver.spans.lock().expect("spans").iter().map(|s| (&s.name, &s.trace_id)).collect::<Vec<_>>(),
            node.log()
        )
    });

    let one = |name: &str| {
        spans
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("a {name} span"))
    };
    let request = one("POST /api/v1/ca/{country_code}/verifications");
    assert_eq!(
        request.parent_span_id, client_span,
        "the request continues the client's span"
    );
    assert_eq!(request.span_id, echoed.parent_id());
    assert!(
        request.attributes.contains(&(
            "http.response.status_code".into(),
            answer.status().as_u16().to_string()
        )),
        "{request:?}"
    );
    let command = one("command");
    assert_eq!(
        command.parent_span_id, request.span_id,
        "the command runs in the request"
    );
    // The relay and the projections continue the command's span, from the
    // events' metadata.
    for later in spans
        .iter()
        .filter(|s| s.name == "relay.publish" || s.name == "projection.apply")
    {
        assert_eq!(later.parent_span_id, command.span_id, "{later:?}");
    }
    if mode == Mode::Postgres {
        // The message on the stream carries the relay's span.
        let context = async_nats::jetstream::new(async_nats::connect(NATS).await.expect("nats"));
        let message = context
            .get_stream(&deployment.stream)
            .await
            .expect("the deployment's stream")
            .get_last_raw_message_by_subject(&format!("{}.authority.FR", deployment.prefix))
            .await
            .expect("the write is on the stream");
        let header = message
            .headers
            .get("traceparent")
            .and_then(|v| domain::trace::TraceParent::parse(v.as_str()))
            .expect("the message carries a traceparent");
        assert_eq!(header.trace_id(), trace_id);
        assert!(
            spans
                .iter()
                .any(|s| s.name == "relay.publish" && s.span_id == header.parent_id()),
            "the header names a relay.publish span: {header}"
        );
    }
    for span in &spans {
        assert_eq!(span.service, "basel", "{span:?}");
        assert_eq!(span.role, "all", "{span:?}");
        for (key, value) in &span.attributes {
            assert!(
                !value.contains(&token) && !value.contains("trace.steward@example.org"),
                "{key} carries a secret: {span:?}"
            );
        }
    }

    // A traceparent that is not well formed is ignored: served, a trace of its own.
    let answer = node
        .http
        .get(format!("{}/healthz", node.base))
        .header("traceparent", format!("00-{trace_id}-zz-01"))
        .send()
        .await
        .expect("the read is answered");
    assert_eq!(answer.status().as_u16(), 200);
    let fresh = answer
        .headers()
        .get("traceparent")
        .and_then(|v| v.to_str().ok())
        .and_then(domain::trace::TraceParent::parse)
        .expect("the answer carries its own traceparent");
    assert_ne!(fresh.trace_id(), trace_id);
    node.stop();
}

both_modes!(one_steward_write_is_one_trace_from_rest_to_the_projection);
