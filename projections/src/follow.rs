//! How a process that does not run the projections hears of their progress
//! (server mode: REST replicas beside a projector process).
//!
//! Every step that moves a checkpoint on PostgreSQL also sends, in the same
//! transaction, a notification on [`CHANNEL`] naming the projection, its new
//! position and the aggregates whose events it applied
//! ([`crate::progress::announce`]).
//! PostgreSQL delivers it when the step commits, so a listener never hears
//! of a change it cannot read yet. [`Projector::follow`] listens: each
//! notification makes the read caches of the process forget the records of
//! those aggregates (and only those), then wakes whoever waits for that
//! position (a `min_position` read, a write waiting to show its change).
//!
//! While the listener is not connected the process hears nothing: its
//! caches forget everything and remember nothing, and waiters read the
//! checkpoints table every few milliseconds, as every replica did before.
//! On reconnecting it reads every checkpoint again.

use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlx::postgres::PgListener;

use crate::progress::{parse, Changed, CHANNEL};
use crate::registry::Projection;
use crate::runner::Projector;
use crate::ProjectionError;

/// How long the listener waits before connecting again after a failure.
const RECONNECT: Duration = Duration::from_secs(1);

impl Projector {
    /// Follows the checkpoint moves announced on PostgreSQL at
    /// `database_url` until `shutdown` resolves: for a process that serves
    /// reads while another one runs the projections. See the module
    /// documentation.
    pub async fn follow(
        self,
        database_url: String,
        shutdown: impl std::future::Future<Output = ()>,
    ) {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                ended = self.listen(&database_url) => {
                    if let Err(error) = ended {
                        tracing::warn!(error = %error, "not hearing of projection progress; reading checkpoints until reconnected");
                    }
                }
            }
            self.deaf();
            tokio::select! {
                () = &mut shutdown => break,
                () = tokio::time::sleep(RECONNECT) => {}
            }
        }
        self.deaf();
    }

    /// One connection: listens, reads every checkpoint, then applies each
    /// notification until the connection is lost.
    async fn listen(&self, database_url: &str) -> Result<(), ProjectionError> {
        let mut listener = PgListener::connect(database_url).await?;
        listener.listen(CHANNEL).await?;
        // Listening first: a move committed after this read is heard.
        for status in self.status().await? {
            if let Ok(projection) = Projection::named(&status.name) {
                self.advance(projection, status.position, &Changed::Everything);
            }
        }
        self.feed.followed.store(true, Ordering::Release);
        tracing::debug!("following projection progress");
        while let Some(notification) = listener.try_recv().await? {
            match parse(notification.payload()) {
                Some((projection, position, changed)) => {
                    self.advance(projection, position, &changed);
                }
                None => {
                    tracing::warn!(
                        payload = notification.payload(),
                        "a checkpoint notification that does not parse; forgetting every cached value"
                    );
                    Projection::ALL
                        .into_iter()
                        .for_each(|projection| self.forget_everywhere(projection));
                }
            }
        }
        Ok(())
    }

    /// Stops trusting what this process hears: caches forget everything
    /// (and remember nothing until it follows again).
    fn deaf(&self) {
        self.feed.followed.store(false, Ordering::Release);
        for projection in Projection::ALL {
            self.forget_everywhere(projection);
        }
    }
}
