//! One process of basel: connect the stores, then run the roles this process
//! was given (relay, projector, REST listener, MCP listener) until SIGINT or
//! SIGTERM, and drain.
//!
//! - [`settings`]: where the data lives and what this process serves;
//! - [`runtime`]: the stores, the read tables, the projector and the secret,
//!   connected once and shared by `serve` and every subcommand;
//! - [`serve`] (here): one small function per role, all stopped by one
//!   shutdown signal.

pub mod audit;
pub mod files;
pub mod http;
pub mod listeners;
pub mod mail;
pub mod nats;
pub mod ops;
pub mod preflight;
pub mod public;
pub mod runtime;
pub mod settings;
pub mod tasks;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chrono::Utc;
use tokio::net::TcpListener;
use tokio::sync::watch;

use classifier::Classifier;
use commands::relay::Relay;
use projections::cache::ReadCache;

use listeners::Listeners;
use runtime::Runtime;
use settings::{Role, ServeSettings, StoreSettings};
use tasks::{background, wait, Tasks};

/// How often projections look for writes made by other processes.
const POLL: Duration = projections::runner::POLL;

/// How often the relay looks for unpublished events (besides LISTEN/NOTIFY),
/// and a standby relay for the lock.
const RELAY_POLL: Duration = Duration::from_millis(500);

/// Changed country codes the MCP server's subscribers may lag behind by.
const CHANGES: usize = 256;

/// What both listeners of a process read through.
struct Readers {
    /// The waste classifier, built once.
    classifier: Arc<Classifier>,
    /// Active keys, records and the directory, until the read tables change.
    cache: Arc<ReadCache>,
    /// The verifiable log's key and start-up check.
    audit: web::state::AuditState,
    /// Failed authentications per client address, one budget for both
    /// listeners (`BASEL_AUTH_FAILURE_RATE`).
    failed_auth: Arc<mcp::FailedAuth>,
    /// The request series of this process's REST and ops listeners (one
    /// set, so the ops listener's `/metrics` counts the REST requests).
    requests: web::counters::RequestMetrics,
    /// Every body and query type's schema, built once.
    schemas: Arc<web::schemas::Schemas>,
    /// The MCP server's URL, for the start page (`BASEL_MCP_PUBLIC_URL`,
    /// else the MCP listener's address).
    mcp_url: Option<String>,
}

/// Runs the service until a shutdown signal.
///
/// # Errors
/// When start-up fails (store unreachable, port taken, …) or a server fails.
pub async fn serve(store: &StoreSettings, settings: &ServeSettings) -> anyhow::Result<()> {
    let signalled = shutdown_signal()?;
    let mail = settings.mail.check()?;
    let (soft, _) = web::edge::raise_open_file_limit();
    let settings = &fit_to_open_files(settings, soft)?;
    let mut listeners = Listeners::bind(settings).await?;
    let runtime = Runtime::open(store).await?;
    let (stop, stopped) = watch::channel(false);
    let mut tasks = Tasks::new();
    if settings.runs(Role::Rest) {
        seed(&runtime).await?;
    }
    ensure_stream(&runtime).await;
    let (audit, notary) = audit::start(&runtime, store, settings.runs(Role::Relay)).await?;
    if let Some(notary) = notary {
        background(&mut tasks, notary.run(audit::poll(), wait(stopped.clone())));
    }
    if settings.runs(Role::Relay) {
        start_relay(&runtime, settings, &stopped, &mut tasks)?;
    }
    if settings.runs(Role::Projector) {
        start_projector(&runtime, &stopped, &mut tasks).await;
    } else if runtime.read_url.starts_with("postgres") {
        // Another process projects: hear of its steps by notification.
        let follow = runtime
            .projector
            .clone()
            .follow(runtime.read_url.clone(), wait(stopped.clone()));
        background(&mut tasks, follow);
    }
    if settings.runs(Role::Mail) {
        mail::start_mail(&runtime, settings, &mail, &stopped, &mut tasks)?;
    }
    let readers = Readers {
        classifier: Arc::new(
            Classifier::bundled().context("the bundled classifier data does not load")?,
        ),
        // One cache for both listeners of this process.
        cache: ReadCache::watching(&runtime.projector),
        audit,
        failed_auth: Arc::new(mcp::FailedAuth::new(settings.auth_failure_rate)),
        requests: web::counters::RequestMetrics::default(),
        schemas: Arc::new(rest::routes::schemas()),
        mcp_url: listeners.mcp_url(settings)?,
    };
    let mut bound = public::Bound::default();
    if let Some(listener) = listeners.rest.take() {
        let rest = start_rest(
            listener, &runtime, settings, &readers, &mail, &stopped, &mut tasks,
        );
        bound.rest = Some(rest.await?);
    }
    if let Some(listener) = listeners.ops.take() {
        let ops = start_ops(listener, &runtime, settings, &readers, &stopped, &mut tasks);
        bound.ops = Some(ops.await?);
    }
    if let Some(listener) = listeners.mcp.take() {
        let mcp = start_mcp(listener, &runtime, settings, &readers, &stopped, &mut tasks);
        bound.mcp = Some(mcp.await?);
    }
    public::announce(&bound, settings, store);
    tokio::spawn(async move {
        signalled.await;
        tracing::info!("shutting down");
        let _ = stop.send(true);
    });
    while let Some(joined) = tasks.join_next().await {
        joined.context("a server task panicked")??;
    }
    Ok(())
}

/// `settings` with a connection cap per listener that keeps every listener
/// of this process (REST or ops, MCP) under the open-file limit `soft`.
///
/// # Errors
/// When too few connections would fit (see [`web::edge::fit_connection_cap`]).
fn fit_to_open_files(settings: &ServeSettings, soft: Option<u64>) -> anyhow::Result<ServeSettings> {
    let listeners = usize::from(settings.runs(Role::Rest))
        + usize::from(settings.opens_ops_listener())
        + usize::from(settings.runs(Role::Mcp));
    let mut fitted = settings.clone();
    fitted.conn.max_connections =
        web::edge::fit_connection_cap(settings.conn.max_connections, listeners, soft)
            .map_err(anyhow::Error::msg)?;
    Ok(fitted)
}

/// The first start seeds; read-only and background roles never write.
async fn seed(runtime: &Runtime) -> anyhow::Result<()> {
    let now = Utc::now();
    let seeded = commands::seed::seed_if_empty(&runtime.backend, now, now.date_naive())
        .await
        .context("cannot seed the store")?;
    if seeded > 0 {
        tracing::info!(
            seed.records = seeded,
            "seeded the directory from the bundled dataset"
        );
        return Ok(());
    }
    let report = commands::seed::apply_release(&runtime.backend, now, now.date_naive())
        .await
        .context("cannot apply the bundled data release")?;
    if report.registered + report.added + report.retired > 0 {
        tracing::info!(
            release.name = domain::release::RELEASE,
            release.registered = report.registered,
            release.added = report.added,
            release.retired = report.retired,
            "applied the bundled data release"
        );
    }
    for failure in &report.failed {
        tracing::warn!(
            release.name = domain::release::RELEASE,
            error = %failure,
            "the bundled data release could not be applied to a record; the next start tries again"
        );
    }
    Ok(())
}

/// In server mode, creates the JetStream stream if it is missing (the relay
/// retries in the background when NATS is not reachable yet).
async fn ensure_stream(runtime: &Runtime) {
    if let Some(log) = &runtime.log {
        if let Err(error) = commands::relay::ensure_stream(&log.context, &log.settings).await {
            tracing::warn!(error = %error, "the JetStream stream is not reachable yet; retrying in the background");
        }
    }
}

fn start_relay(
    runtime: &Runtime,
    settings: &ServeSettings,
    stopped: &watch::Receiver<bool>,
    tasks: &mut Tasks,
) -> anyhow::Result<()> {
    match (&runtime.log, runtime.backend.pg_pool()) {
        (Some(log), Some(pool)) => {
            let relay = Relay::new(pool.clone(), log.context.clone(), log.settings.clone())
                .reporting_to(log.relay.clone());
            let shutdown = wait(stopped.clone());
            background(tasks, relay.run(RELAY_POLL, shutdown));
            Ok(())
        }
        _ if settings.role.contains(&Role::Relay) => {
            anyhow::bail!("--role relay needs server mode (BASEL_DATABASE_URL and BASEL_NATS_URL)")
        }
        _ => Ok(()),
    }
}

async fn start_projector(runtime: &Runtime, stopped: &watch::Receiver<bool>, tasks: &mut Tasks) {
    let shutdown = wait(stopped.clone());
    let projector = runtime.projector.clone();
    match &runtime.log {
        Some(log) => {
            let run = projector.run_stream(log.source(), shutdown);
            background(tasks, run);
        }
        None => {
            if let Err(error) = runtime.catch_up().await {
                tracing::error!(error = %format!("{error:#}"), "projections did not catch up at start");
            }
            let run = projector.run(runtime.wake.clone(), POLL, shutdown);
            background(tasks, run);
        }
    }
}

async fn start_rest(
    listener: TcpListener,
    runtime: &Runtime,
    settings: &ServeSettings,
    readers: &Readers,
    mail: &mail::MailSetup,
    stopped: &watch::Receiver<bool>,
    tasks: &mut Tasks,
) -> anyhow::Result<std::net::SocketAddr> {
    let addr = listener.local_addr()?;
    tracing::info!(addr = %addr, backend = %runtime.backend.name(), roles = %roles(settings), "REST API listening");
    let mut state = web::AppState::new(
        runtime.wiring(),
        readers.classifier.clone(),
        settings.stale_after_days,
        readers.cache.clone(),
    )
    .with_register_rate(settings.register_rate)
    .with_audit(readers.audit.clone());
    state.requests = readers.requests.clone();
    state.schemas = readers.schemas.clone();
    state.metrics = settings.metrics_access(false);
    state.failed_auth = readers.failed_auth.clone();
    state.readiness = web::readiness::Progress::with(ops::readiness(settings, true));
    state.review = settings.review.required;
    state.mcp_url = readers.mcp_url.clone();
    state.public_url = Some(
        settings
            .public_url
            .clone()
            .unwrap_or_else(|| public::url_of(addr)),
    );
    state.key_delivery = mail.key_delivery;
    let console = console::Settings {
        mail: mail.link_mail()?,
    };
    let shutdown = wait(stopped.clone());
    let limits = settings.conn.clone();
    tasks.spawn(async move {
        http::serve_rest(listener, state, console, limits, shutdown)
            .await
            .context("REST server failed")
    });
    Ok(addr)
}

/// `/healthz`, `/readyz` and `/metrics` of a process without a REST listener
/// (or whose `/metrics` is served there only: `BASEL_METRICS=ops`).
async fn start_ops(
    listener: TcpListener,
    runtime: &Runtime,
    settings: &ServeSettings,
    readers: &Readers,
    stopped: &watch::Receiver<bool>,
    tasks: &mut Tasks,
) -> anyhow::Result<std::net::SocketAddr> {
    let addr = listener.local_addr()?;
    tracing::info!(ops_addr = %addr, backend = %runtime.backend.name(), roles = %roles(settings), "ops endpoints listening");
    let mut state = web::AppState::new(
        runtime.wiring(),
        readers.classifier.clone(),
        settings.stale_after_days,
        readers.cache.clone(),
    )
    .with_audit(readers.audit.clone());
    state.readiness = web::readiness::Progress::with(ops::readiness(settings, false));
    state.requests = readers.requests.clone();
    state.schemas = readers.schemas.clone();
    state.metrics = settings.metrics_access(true);
    let body = web::edge::BodyLimit {
        max_bytes: web::extract::BODY_LIMIT,
        deadline: settings.conn.body_timeout,
        uploads: &[],
    };
    let front = web::edge::Front::new("ops", ops::router(state), body);
    let (shutdown, limits) = (wait(stopped.clone()), settings.conn.clone());
    tasks.spawn(async move {
        web::edge::serve(listener, front, limits, shutdown)
            .await
            .context("ops server failed")
    });
    Ok(addr)
}

async fn start_mcp(
    listener: TcpListener,
    runtime: &Runtime,
    settings: &ServeSettings,
    readers: &Readers,
    stopped: &watch::Receiver<bool>,
    tasks: &mut Tasks,
) -> anyhow::Result<std::net::SocketAddr> {
    let addr = listener.local_addr()?;
    tracing::info!(mcp_addr = %addr, "MCP server listening");
    let state = mcp::McpState {
        read_db: runtime.read_db.clone(),
        cache: readers.cache.clone(),
        classifier: readers.classifier.clone(),
        stale_after_days: settings.stale_after_days,
        allowed_origins: settings.mcp_allowed_origins.clone(),
        allowed_hosts: settings.mcp_allowed_hosts.clone(),
    };
    let (changes, _) = tokio::sync::broadcast::channel(CHANGES);
    let (added, _) = tokio::sync::broadcast::channel(CHANGES);
    let feed = projections::changes::follow_directory(
        runtime.projector.clone(),
        runtime.read_db.clone(),
        projections::changes::Feed {
            changed: changes.clone(),
            added: added.clone(),
        },
        wait(stopped.clone()),
    );
    background(tasks, feed);
    let config = mcp::McpConfig {
        rate: settings.mcp_rate,
        sessions: settings.mcp_sessions.limits(),
        changes: Some(changes),
        added: Some(added),
        failed_auth: readers.failed_auth.clone(),
    };
    let router = mcp::router_with(state, config, wait(stopped.clone()));
    let body = web::edge::BodyLimit {
        max_bytes: mcp::MAX_BODY_BYTES,
        deadline: settings.conn.body_timeout,
        uploads: &[],
    };
    let router = web::access::tag_routes(ops::with_mcp_health(router));
    let front = web::edge::Front::new("mcp", router, body);
    let (shutdown, limits) = (wait(stopped.clone()), settings.conn.clone());
    // The edge sets TCP_NODELAY: Nagle's algorithm held each SSE event until
    // the client's delayed ACK (about 40 ms per tool call from some clients).
    tasks.spawn(async move {
        web::edge::serve(listener, front, limits, shutdown)
            .await
            .context("MCP server failed")
    });
    Ok(addr)
}

/// The roles as the operator wrote them, e.g. `relay,projector`.
pub fn roles(settings: &ServeSettings) -> String {
    settings
        .role
        .iter()
        .map(|role| format!("{role:?}").to_lowercase())
        .collect::<Vec<_>>()
        .join(",")
}

/// Registers the SIGINT and SIGTERM handlers now (before anything serves, so
/// a signal that arrives as soon as `/healthz` answers is never the default
/// kill) and returns a future that resolves on the first of them.
fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
        let mut terminate = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
