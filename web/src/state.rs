//! What every REST handler can reach, made explicit: the write side, the read
//! side, the classifier, and the two pieces of state the edge keeps for
//! itself (the read cache and the request metrics). Built once per server by
//! `node` from its runtime; nothing here is process-wide.

use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use classifier::Classifier;
use commands::audit::NoteVerifier;
use commands::secrets::ServerSecret;
use commands::store::Backend;
use projections::runner::Projector;
use projections::ReadDb;

use crate::counters::RequestMetrics;
use crate::register_limit::{RegisterRate, RegistrationLimit};
use projections::cache::ReadCache;

/// The state as handlers get it: one allocation shared by every request
/// (cloning the parts per request showed up in profiles).
pub type Shared = Arc<AppState>;

/// The parts of a process the REST edge uses.
#[derive(Clone)]
pub struct Wiring {
    /// The event store (command services write through it).
    pub store: Backend,
    /// The read tables.
    pub read_db: ReadDb,
    /// The projections over them (read-your-writes waits, lag for `/readyz`).
    pub projector: Projector,
    /// Rung after a local commit so this process's projections apply it now.
    pub wake: Arc<Notify>,
    /// The secret API keys are derived under.
    pub secret: ServerSecret,
    /// The most contacts a Party may hold (`BASEL_MAX_CONTACTS_PER_PARTY`).
    pub max_contacts: usize,
    /// Whether a relay publishes the log to JetStream (server mode): then
    /// `/metrics` reports the relay backlog.
    pub relayed: bool,
    /// The JetStream side, in server mode: what `/metrics` reports of it.
    pub log: Option<LogState>,
}

/// What `/metrics` reports of the JetStream side (server mode).
#[derive(Clone)]
pub struct LogState {
    /// Whether this process's relay is the active one.
    pub relay: commands::relay::RelayStatus,
    /// The NATS connection (its state).
    pub nats: async_nats::Client,
}

/// What every handler can reach.
pub struct AppState {
    /// The write side, the read side and the projections.
    pub wiring: Wiring,
    /// The waste classifier, built once at start.
    pub classifier: Arc<Classifier>,
    /// Days after which a record's last check is reported `stale`.
    pub stale_after_days: i64,
    /// Active keys and records, remembered until the read tables change.
    pub cache: Arc<ReadCache>,
    /// Request counts and latencies for `/metrics`.
    pub requests: RequestMetrics,
    /// The absolute URL clients reach this API at (`BASEL_PUBLIC_URL`, or
    /// derived from the listen address); `None`: from the request's `Host`.
    pub public_url: Option<String>,
    /// The absolute URL of the MCP server, for the landing page
    /// (`BASEL_MCP_PUBLIC_URL`, or derived from its listen address).
    pub mcp_url: Option<String>,
    /// New registrations per client (`BASEL_REGISTER_RATE`).
    pub registrations: RegistrationLimit,
    /// Failed authentications per client address (`BASEL_AUTH_FAILURE_RATE`;
    /// the same buckets as the MCP listener's in a process serving both).
    pub failed_auth: Arc<crate::throttle::FailedAuth>,
    /// Whether `/register` shows the key or mails it (`BASEL_KEY_DELIVERY`).
    pub key_delivery: KeyDelivery,
    /// Whether projections that are behind are moving (`/readyz`).
    pub readiness: crate::readiness::Progress,
    /// The verifiable log's key and the outcome of its check at start
    /// (`None`: the audit routes answer 503).
    pub audit: Option<AuditState>,
    /// Whether the steward console's checks need another steward's
    /// approval (`BASEL_REVIEW=required`).
    pub review: bool,
    /// Every body and query type's schema, built at start.
    pub schemas: Arc<crate::schemas::Schemas>,
    /// Whether this listener serves `/metrics`, and with which token
    /// (`BASEL_METRICS`, `BASEL_METRICS_TOKEN`).
    pub metrics: crate::counters::MetricsAccess,
}

impl AppState {
    /// The absolute URL of this API: `BASEL_PUBLIC_URL` (or the one derived from
    /// the listen address), else `http://` and the request's `Host`.
    pub fn base_url(&self, headers: &axum::http::HeaderMap) -> String {
        if let Some(url) = &self.public_url {
            return url.clone();
        }
        let host = headers
            .get(axum::http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .filter(|h| {
                !h.is_empty()
                    && h.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
            })
            .unwrap_or("localhost");
        format!("http://{host}")
    }

    /// The state of one REST server over `wiring`, reading through `cache`
    /// (from `ReadCache::watching` over the same projector; a process that
    /// also serves MCP shares it with the MCP server).
    pub fn new(
        wiring: Wiring,
        classifier: Arc<Classifier>,
        stale_after_days: i64,
        cache: Arc<ReadCache>,
    ) -> Self {
        Self {
            wiring,
            classifier,
            stale_after_days,
            cache,
            requests: RequestMetrics::default(),
            public_url: None,
            mcp_url: None,
            registrations: RegistrationLimit::new(RegisterRate::default()),
            failed_auth: Arc::default(),
            key_delivery: Default::default(),
            readiness: crate::readiness::Progress::default(),
            audit: None,
            review: false,
            metrics: crate::counters::MetricsAccess::open(),
            schemas: Arc::default(),
        }
    }

    /// The same state serving the verifiable log of `audit`.
    #[must_use]
    pub fn with_audit(mut self, audit: AuditState) -> Self {
        self.audit = Some(audit);
        self
    }

    /// The same state with another limit on new registrations per client.
    #[must_use]
    pub fn with_register_rate(mut self, rate: RegisterRate) -> Self {
        self.registrations = RegistrationLimit::new(rate);
        self
    }

    /// The read tables.
    pub fn read_db(&self) -> &ReadDb {
        &self.wiring.read_db
    }

    /// Rings the projector of this process so it applies a commit now. The
    /// read cache forgets what the commit changes when the projector applies
    /// it (or hears it applied), before any waiter hears of it.
    pub fn committed(&self) {
        self.wiring.wake.notify_one();
        self.wiring.wake.notify_waiters();
    }
}

/// How a registration hands out the key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeyDelivery {
    /// Shown at once on the page and in the JSON answer (the default).
    #[default]
    Page,
    /// Mailed to the address, never shown.
    Email,
}

/// What the audit routes and `/readyz` need: the public key, and what the
/// check of the log's tail at start found wrong, if anything.
#[derive(Debug, Clone)]
pub struct AuditState {
    /// Checks the service's signed notes.
    pub verifier: NoteVerifier,
    problem: Arc<Mutex<Option<String>>>,
}

impl AuditState {
    /// The state of a service whose checkpoints `verifier` checks.
    pub fn new(verifier: NoteVerifier) -> Self {
        Self {
            verifier,
            problem: Arc::default(),
        }
    }

    /// Records that the log does not verify: `/readyz` answers 503 with it.
    pub fn fail(&self, reason: String) {
        if let Ok(mut problem) = self.problem.lock() {
            *problem = Some(reason);
        }
    }

    /// What the log's check at start found wrong.
    pub fn problem(&self) -> Option<String> {
        self.problem.lock().ok().and_then(|p| p.clone())
    }
}
