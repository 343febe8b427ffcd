//! The tasks of one process: each role runs as one, and each ends when the
//! shutdown signal is given.

use std::future::Future;

use tokio::sync::watch;
use tokio::task::JoinSet;

/// The tasks of one process; each ends when the shutdown signal is given.
pub type Tasks = JoinSet<anyhow::Result<()>>;

/// Runs `task` as one of this process's tasks; it ends on the shutdown
/// signal.
pub fn background(tasks: &mut Tasks, task: impl Future<Output = ()> + Send + 'static) {
    tasks.spawn(async move {
        task.await;
        Ok(())
    });
}

/// Resolves once the shutdown signal `stopped` is given.
pub async fn wait(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}
