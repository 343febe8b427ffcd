//! The request series of one server (counts and latency histograms by
//! route template, method and status), recorded by the route layer
//! (`rest::http::observe`) and the fallbacks, rendered by `GET /metrics`;
//! and who may read `/metrics` on a listener.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

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
            return Err(Box::new(crate::rest::http::error::ApiError::NotFound {
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

#[derive(Debug, Default, Clone)]
struct Series {
    count: u64,
    sum: f64,
    buckets: [u64; BUCKETS.len()],
}

/// Route template → (method, status) → series.
type Registry = BTreeMap<String, BTreeMap<(&'static str, u16), Series>>;

/// How many parts the request series are kept in (see [`RequestMetrics`]).
const SHARDS: usize = 16;

thread_local! {
    /// The part this thread records into, taken at its first record.
    static SHARD: Cell<Option<usize>> = const { Cell::new(None) };
}

/// One part of the series, on cache lines of its own.
#[derive(Default)]
#[repr(align(128))]
struct Shard(Mutex<Registry>);

/// One server's request series, shared by its handlers.
///
/// Kept in parts, one per recording thread (threads take parts in the
/// order they first record, so the runtime's worker threads each have
/// their own): with one shared registry, every request on one core took
/// the lock and wrote the counters the other core had just written, and
/// waited for that memory to come over (BENCHMARKS.md, the lookup path).
/// `/metrics` adds the parts up.
#[derive(Clone, Default)]
pub struct RequestMetrics(Arc<Shards>);

#[derive(Default)]
struct Shards {
    parts: [Shard; SHARDS],
    /// The part the next thread that records for the first time takes.
    next: AtomicUsize,
}

impl RequestMetrics {
    /// Counts one answer of `route` (a template) with its latency.
    pub fn record(&self, route: &str, method: &'static str, status: u16, seconds: f64) {
        let shard = SHARD.with(|shard| {
            shard.get().unwrap_or_else(|| {
                let taken = self.0.next.fetch_add(1, Ordering::Relaxed) % SHARDS;
                shard.set(Some(taken));
                taken
            })
        });
        let Ok(mut requests) = self.0.parts[shard].0.lock() else {
            return;
        };
        let by_answer = match requests.get_mut(route) {
            Some(by_answer) => by_answer,
            None => requests.entry(route.to_owned()).or_default(),
        };
        let series = by_answer.entry((method, status)).or_default();
        series.count += 1;
        series.sum += seconds;
        for (bucket, bound) in series.buckets.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *bucket += 1;
            }
        }
    }

    /// All parts added up.
    fn snapshot(&self) -> Registry {
        let mut all = Registry::new();
        for shard in &self.0.parts {
            let part = match shard.0.lock() {
                Ok(part) => part,
                Err(poisoned) => poisoned.into_inner(),
            };
            for (route, by_answer) in part.iter() {
                let merged = all.entry(route.clone()).or_default();
                for (answer, series) in by_answer {
                    merged.entry(*answer).or_default().add(series);
                }
            }
        }
        all
    }
}

impl Series {
    fn add(&mut self, other: &Series) {
        self.count += other.count;
        self.sum += other.sum;
        for (bucket, more) in self.buckets.iter_mut().zip(other.buckets) {
            *bucket += more;
        }
    }
}

impl RequestMetrics {
    /// The series as Prometheus text, all parts added up.
    pub fn render(&self, out: &mut String) {
        render_requests(&self.snapshot(), out);
    }
}

fn flatten(requests: &Registry) -> impl Iterator<Item = (&str, &str, u16, &Series)> {
    requests.iter().flat_map(|(route, by_answer)| {
        by_answer
            .iter()
            .map(move |((method, status), series)| (route.as_str(), *method, *status, series))
    })
}

fn render_requests(requests: &Registry, out: &mut String) {
    out.push_str("# HELP basel_http_requests_total HTTP requests answered, by route template, method and status.\n# TYPE basel_http_requests_total counter\n");
    for (route, method, status, series) in flatten(requests) {
        let _ = writeln!(out, "basel_http_requests_total{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}} {}", series.count);
    }
    out.push_str("# HELP basel_http_request_duration_seconds Time to answer, by route template, method and status.\n# TYPE basel_http_request_duration_seconds histogram\n");
    for (route, method, status, series) in flatten(requests) {
        let labels = format!("route=\"{route}\",method=\"{method}\",status=\"{status}\"");
        for (bound, count) in BUCKETS.iter().zip(series.buckets) {
            let _ = writeln!(
                out,
                "basel_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {count}"
            );
        }
        let _ = writeln!(
            out,
            "basel_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
            series.count
        );
        let _ = writeln!(
            out,
            "basel_http_request_duration_seconds_sum{{{labels}}} {}",
            series.sum
        );
        let _ = writeln!(
            out,
            "basel_http_request_duration_seconds_count{{{labels}}} {}",
            series.count
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_lands_in_its_buckets_and_the_text_names_its_route() {
        let requests = RequestMetrics::default();
        requests.record("/test/{id}", "GET", 200, 0.003);
        let mut out = String::new();
        render_requests(&requests.snapshot(), &mut out);
        assert!(out.contains(
            "basel_http_requests_total{route=\"/test/{id}\",method=\"GET\",status=\"200\"}"
        ));
        assert!(out.contains("basel_http_request_duration_seconds_bucket{route=\"/test/{id}\",method=\"GET\",status=\"200\",le=\"0.005\"}"));
        assert!(out.contains("basel_http_request_duration_seconds_bucket{route=\"/test/{id}\",method=\"GET\",status=\"200\",le=\"0.0025\"} 0\n"));
    }

    #[test]
    fn series_recorded_on_several_threads_are_added_up() {
        let requests = RequestMetrics::default();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..250 {
                        requests.record("/a", "GET", 200, 0.003);
                    }
                });
            }
        });
        requests.record("/a", "GET", 404, 0.2);
        let all = requests.snapshot();
        let series = &all["/a"][&("GET", 200)];
        assert_eq!(series.count, 1_000);
        assert!((series.sum - 3.0).abs() < 1e-9);
        assert_eq!(BUCKETS[3], 0.005);
        assert_eq!(series.buckets[3], 1_000, "all within 5 ms");
        assert_eq!(series.buckets[2], 0, "none within 2.5 ms");
        assert_eq!(all["/a"][&("GET", 404)].count, 1);
    }
}
