//! `basel serve`: migrate, seed on first start, project, and answer HTTP until
//! SIGINT or SIGTERM.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chrono::Utc;
use tokio::net::TcpListener;
use tokio::sync::watch;

use commands::relay::Relay;
use domain::classifier::Classifier;

use crate::app::{self, AppState};
use crate::runtime::Runtime;
use crate::settings::{Role, ServeSettings, StoreSettings};

/// How often projections look for writes made by other processes.
const POLL: Duration = Duration::from_millis(250);

/// How often the relay looks for unpublished events (besides LISTEN/NOTIFY),
/// and a standby relay for the lock.
const RELAY_POLL: Duration = Duration::from_millis(500);

/// Runs the service until a shutdown signal.
///
/// # Errors
/// When start-up fails (store unreachable, port taken, …) or the server fails.
pub async fn serve(store: &StoreSettings, settings: &ServeSettings) -> anyhow::Result<()> {
    let signalled = shutdown_signal()?;
    let runtime = Runtime::open(store).await?;
    let role = &settings.role;
    let runs = |part: Role| settings.runs(part);
    if runs(Role::Rest) {
        // The first start seeds; read-only and background roles never write.
        let now = Utc::now();
        let seeded = commands::seed::seed_if_empty(&runtime.backend, now, now.date_naive())
            .await
            .context("cannot seed the store")?;
        if seeded > 0 {
            tracing::info!(
                seed.records = seeded,
                "seeded the directory from the bundled dataset"
            );
        }
    }
    let (stop, stopped) = watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    if let Some(log) = &runtime.log {
        if let Err(error) = commands::relay::ensure_stream(&log.context, &log.settings).await {
            tracing::warn!(error = %error, "the JetStream stream is not reachable yet; retrying in the background");
        }
    }
    if runs(Role::Relay) {
        match (&runtime.log, runtime.backend.pg_pool()) {
            (Some(log), Some(pool)) => {
                let relay = Relay::new(pool.clone(), log.context.clone(), log.settings.clone());
                let shutdown = wait(stopped.clone());
                tasks.spawn(async move {
                    relay.run(RELAY_POLL, shutdown).await;
                    Ok(())
                });
            }
            _ if role.contains(&Role::Relay) => {
                anyhow::bail!(
                    "--role relay needs server mode (BASEL_DATABASE_URL and BASEL_NATS_URL)"
                )
            }
            _ => {}
        }
    }
    if runs(Role::Projector) {
        let shutdown = wait(stopped.clone());
        match &runtime.log {
            Some(log) => {
                let projector = runtime.projector.clone().run_stream(log.source(), shutdown);
                tasks.spawn(async move {
                    projector.await;
                    Ok(())
                });
            }
            None => {
                if let Err(error) = runtime.catch_up().await {
                    tracing::error!(error = %format!("{error:#}"), "projections did not catch up at start");
                }
                let projector = runtime
                    .projector
                    .clone()
                    .run(runtime.wake.clone(), POLL, shutdown);
                tasks.spawn(async move {
                    projector.await;
                    Ok(())
                });
            }
        }
    }
    let classifier =
        Arc::new(Classifier::bundled().context("the bundled classifier data does not load")?);
    if runs(Role::Rest) {
        let listener = TcpListener::bind(settings.listen)
            .await
            .with_context(|| format!("cannot listen on {}", settings.listen))?;
        tracing::info!(addr = %listener.local_addr()?, backend = runtime.backend.name(), role = ?role, "REST API listening");
        let state = AppState {
            runtime: runtime.clone(),
            classifier: classifier.clone(),
            stale_after_days: settings.stale_after_days,
        };
        let shutdown = wait(stopped.clone());
        tasks.spawn(async move {
            app::run(listener, state, shutdown)
                .await
                .context("REST server failed")
        });
    }
    if runs(Role::Mcp) {
        let listener = TcpListener::bind(settings.mcp_listen)
            .await
            .with_context(|| format!("cannot listen on {}", settings.mcp_listen))?;
        tracing::info!(mcp_addr = %listener.local_addr()?, "MCP server listening");
        let router = mcp::router_until(
            mcp::McpState {
                read_db: runtime.read_db.clone(),
                secret: runtime.secret.clone(),
                classifier: classifier.clone(),
                stale_after_days: settings.stale_after_days,
                allowed_origins: settings.mcp_allowed_origins.clone(),
                allowed_hosts: settings.mcp_allowed_hosts.clone(),
            },
            wait(stopped.clone()),
        );
        let shutdown = wait(stopped.clone());
        tasks.spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(shutdown)
                .await
                .context("MCP server failed")
        });
    }
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

async fn wait(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

/// Registers the SIGINT and SIGTERM handlers now (before anything serves, so
/// a signal that arrives as soon as `/healthz` answers is never the default
/// kill) and returns a future that resolves on the first of them.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
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
