//! The request series of one server (counts and latency histograms by
//! route template, method and status), recorded by the route layer
//! (`web::observe`) and the fallbacks, rendered by `GET /metrics`;
//! and who may read `/metrics` on a listener.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// Where `/metrics` is served (`BASEL_METRICS`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricsListener {
    /// On the REST listener (and the ops listener of a process without one).
    #[default]
    Public,
    /// On the ops listener only (`BASEL_OPS_LISTEN`), which a process with
    /// a REST listener then opens too; the REST listener answers 404.
    Ops,
    /// Nowhere: 404 on every listener.
    Off,
}

/// Whether one listener serves `/metrics`, and the token it asks for.
#[derive(Clone, Default)]
pub struct MetricsAccess {
    /// Whether this listener serves it.
    pub served: bool,
    /// The SHA-256 of `BASEL_METRICS_TOKEN`, when set: then a request must
    /// present the token as `Authorization: Bearer TOKEN`.
    pub token: Option<[u8; 32]>,
}

impl MetricsAccess {
    /// Served, with no token (the default of every listener).
    pub fn open() -> Self {
        Self {
            served: true,
            token: None,
        }
    }

    /// The access of one listener: `ops` says whether it is the ops
    /// listener; `token` is `BASEL_METRICS_TOKEN`.
    pub fn of(listener: MetricsListener, ops: bool, token: Option<&str>) -> Self {
        let served = match listener {
            MetricsListener::Public => true,
            MetricsListener::Ops => ops,
            MetricsListener::Off => false,
        };
        Self {
            served,
            token: token.map(domain::credentials::secret_digest),
        }
    }

    /// `Ok` when this request may read `/metrics`.
    ///
    /// # Errors
    /// The answer instead: 404 `metrics_not_served`, or 401
    /// `metrics_token_required` with `WWW-Authenticate: Bearer`. The tokens
    /// are compared as SHA-256 digests, never logged.
    pub fn admit(&self, headers: &HeaderMap) -> Result<(), Box<Response>> {
        if !self.served {
            return Err(Box::new(crate::error::ApiError::NotFound {
                code: "metrics_not_served",
                message: "/metrics is not served on this listener (BASEL_METRICS): ask the operator for the ops listener".into(),
            }
            .into_response()));
        }
        let Some(wanted) = &self.token else {
            return Ok(());
        };
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(domain::credentials::bearer_token)
            .map(domain::credentials::secret_digest);
        if presented.as_ref() == Some(wanted) {
            return Ok(());
        }
        let body = serde_json::json!({
            "error": "unauthorized",
            "code": "metrics_token_required",
            "message": "/metrics needs the metrics token (BASEL_METRICS_TOKEN)",
            "help": "Send it as Authorization: Bearer TOKEN; the operator who set BASEL_METRICS_TOKEN has it.",
        });
        let mut response = (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"basel metrics\""),
        );
        Err(Box::new(response))
    }
}

/// Upper bounds (seconds) of the latency histogram's buckets.
pub const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// What one answer is counted under.
#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct Answer {
    /// The route's template (`/api/v1/ca/{country_code}`), or `unmatched`.
    route: String,
    method: &'static str,
    status: u16,
}

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// One server's request series, shared by its handlers (clones share the
/// series), kept by `prometheus-client`.
#[derive(Clone)]
pub struct RequestMetrics {
    answered: Family<Answer, Counter>,
    latency: Family<Answer, Histogram, fn() -> Histogram>,
}

impl Default for RequestMetrics {
    fn default() -> Self {
        Self {
            answered: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        }
    }
}

impl RequestMetrics {
    /// Counts one answer of `route` (a template) with its latency.
    pub fn record(&self, route: &str, method: &'static str, status: u16, seconds: f64) {
        let answer = Answer {
            route: route.to_owned(),
            method,
            status,
        };
        self.answered.get_or_create(&answer).inc();
        self.latency.get_or_create(&answer).observe(seconds);
    }

    /// Adds the series to the registry a scrape renders.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "basel_http_requests",
            "HTTP requests answered, by route template, method and status",
            self.answered.clone(),
        );
        registry.register(
            "basel_http_request_duration_seconds",
            "Time to answer, by route template, method and status",
            self.latency.clone(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(requests: &RequestMetrics) -> String {
        let mut registry = Registry::default();
        requests.register(&mut registry);
        let mut out = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut out, &registry).expect("renders");
        out
    }

    #[test]
    fn a_request_lands_in_its_buckets_and_the_text_names_its_route() {
        let requests = RequestMetrics::default();
        requests.record("/test/{id}", "GET", 200, 0.003);
        let out = rendered(&requests);
        assert!(
            out.contains(
                "basel_http_requests_total{route=\"/test/{id}\",method=\"GET\",status=\"200\"} 1\n"
            ),
            "{out}"
        );
        assert!(out.contains("basel_http_request_duration_seconds_bucket{route=\"/test/{id}\",method=\"GET\",status=\"200\",le=\"0.005\"} 1\n"), "{out}");
        assert!(out.contains("basel_http_request_duration_seconds_bucket{route=\"/test/{id}\",method=\"GET\",status=\"200\",le=\"0.0025\"} 0\n"), "{out}");
    }

    #[test]
    fn series_recorded_on_several_threads_are_added_up() {
        let requests = RequestMetrics::default();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                let requests = requests.clone();
                scope.spawn(move || {
                    for _ in 0..250 {
                        requests.record("/a", "GET", 200, 0.003);
                    }
                });
            }
        });
        requests.record("/a", "GET", 404, 0.2);
        let out = rendered(&requests);
        let labels = "route=\"/a\",method=\"GET\",status=\"200\"";
        assert!(
            out.contains(&format!("basel_http_requests_total{{{labels}}} 1000\n")),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "basel_http_request_duration_seconds_bucket{{{labels},le=\"0.005\"}} 1000\n"
            )),
            "all within 5 ms: {out}"
        );
        assert!(
            out.contains(&format!(
                "basel_http_request_duration_seconds_bucket{{{labels},le=\"0.0025\"}} 0\n"
            )),
            "none within 2.5 ms: {out}"
        );
        assert!(
            out.contains(
                "basel_http_requests_total{route=\"/a\",method=\"GET\",status=\"404\"} 1\n"
            ),
            "{out}"
        );
    }
}
