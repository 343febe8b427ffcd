//! `basel serve`: migrate, seed on first start, project, and answer HTTP until
//! SIGINT or SIGTERM.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chrono::Utc;
use tokio::net::TcpListener;
use tokio::sync::watch;

use domain::classifier::Classifier;

use crate::app::{self, AppState};
use crate::runtime::Runtime;
use crate::settings::{ServeSettings, StoreSettings};

/// How often projections look for writes made by other processes.
const POLL: Duration = Duration::from_millis(250);

/// Runs the service until a shutdown signal.
///
/// # Errors
/// When start-up fails (store unreachable, port taken, …) or the server fails.
pub async fn serve(store: &StoreSettings, settings: &ServeSettings) -> anyhow::Result<()> {
    let runtime = Runtime::open(store).await?;
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
    if let Err(error) = runtime.catch_up().await {
        tracing::error!(error = %format!("{error:#}"), "projections did not catch up at start");
    }
    let (stop, stopped) = watch::channel(false);
    let projector =
        runtime
            .projector
            .clone()
            .run(runtime.wake.clone(), POLL, wait(stopped.clone()));
    let projector = tokio::spawn(projector);
    let listener = TcpListener::bind(settings.listen)
        .await
        .with_context(|| format!("cannot listen on {}", settings.listen))?;
    tracing::info!(addr = %listener.local_addr()?, backend = runtime.backend.name(), "REST API listening");
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("shutting down");
        let _ = stop.send(true);
    });
    let classifier =
        Arc::new(Classifier::bundled().context("the bundled classifier data does not load")?);
    app::run(
        listener,
        AppState {
            runtime,
            classifier,
        },
        wait(stopped),
    )
    .await
    .context("REST server failed")?;
    projector.await.context("projector task failed")?;
    Ok(())
}

async fn wait(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(signal) => signal,
                Err(_) => return std::future::pending().await,
            };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
