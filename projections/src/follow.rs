//! How a process that does not run the projections hears of their progress
//! (server mode: REST replicas beside a projector process).
//!
//! Every step that moves a checkpoint on PostgreSQL also sends, in the same
//! transaction, a notification on [`CHANNEL`] naming the projection, its new
//! position and the aggregates whose events it applied ([`announce`]).
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

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlx::postgres::PgListener;

use crate::log::StoredEvent;
use crate::registry::Projection;
use crate::runner::Projector;
use crate::ProjectionError;

/// The PostgreSQL channel checkpoint moves are announced on.
pub const CHANNEL: &str = "basel_checkpoints";

/// PostgreSQL refuses notification payloads of 8,000 bytes or more; a step
/// whose aggregate ids would not fit says [`Changed::Everything`].
const MAX_PAYLOAD: usize = 7_900;

/// How long the listener waits before connecting again after a failure.
const RECONNECT: Duration = Duration::from_secs(1);

/// What a projection's step changed, for the read caches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// The events of these aggregates (their ids as stored), nothing else.
    Aggregates(BTreeSet<String>),
    /// Not known: anything may have changed.
    Everything,
}

impl Default for Changed {
    /// Nothing changed.
    fn default() -> Self {
        Self::Aggregates(BTreeSet::new())
    }
}

impl Changed {
    /// The aggregates of `events`.
    pub fn of(events: &[StoredEvent]) -> Self {
        Self::Aggregates(events.iter().map(|e| e.aggregate_id.clone()).collect())
    }

    /// Whether the records of `aggregate` may have changed.
    pub fn touches(&self, aggregate: &str) -> bool {
        match self {
            Self::Aggregates(ids) => ids.contains(aggregate),
            Self::Everything => true,
        }
    }
}

/// One notification: `<projection> <position>` then the aggregate ids,
/// separated by spaces, or `*` for [`Changed::Everything`] (also when an id
/// holds white space or the ids would not fit).
pub(crate) fn payload(projection: Projection, position: i64, changed: &Changed) -> String {
    let mut text = format!("{} {position}", projection.name());
    let everything = |mut text: String| {
        text.push_str(" *");
        text
    };
    match changed {
        Changed::Everything => everything(text),
        Changed::Aggregates(ids) => {
            let fits = ids.iter().map(|id| id.len() + 1).sum::<usize>() + text.len() <= MAX_PAYLOAD;
            if !fits
                || ids
                    .iter()
                    .any(|id| id.is_empty() || id.contains(char::is_whitespace))
            {
                return everything(text);
            }
            for id in ids {
                text.push(' ');
                text.push_str(id);
            }
            text
        }
    }
}

/// Reads a notification [`payload`]; `None` when it is not one.
pub(crate) fn parse(payload: &str) -> Option<(Projection, i64, Changed)> {
    let mut words = payload.split(' ');
    let projection = Projection::named(words.next()?).ok()?;
    let position = words.next()?.parse().ok()?;
    let rest: Vec<&str> = words.collect();
    let changed = if rest == ["*"] {
        Changed::Everything
    } else {
        Changed::Aggregates(rest.into_iter().map(str::to_owned).collect())
    };
    Some((projection, position, changed))
}

/// Announces, inside the step's transaction `tx`, that `projection` moved
/// to `position` changing what `changed` says. Only PostgreSQL has
/// notifications; on SQLite (one process) this does nothing.
///
/// # Errors
/// [`ProjectionError::Database`] when the notification cannot be queued.
pub(crate) async fn announce(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    projection: Projection,
    position: i64,
    changed: &Changed,
) -> Result<(), ProjectionError> {
    if tx.backend_name() != "PostgreSQL" {
        return Ok(());
    }
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(payload(projection, position, changed))
        .execute(&mut **tx)
        .await?;
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Changed {
        Changed::Aggregates(list.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn a_payload_reads_back_as_written() {
        for changed in [ids(&["DE", "FR"]), ids(&[]), Changed::Everything] {
            let text = payload(Projection::Directory, 42, &changed);
            assert_eq!(
                parse(&text),
                Some((Projection::Directory, 42, changed.clone())),
                "{text}"
            );
        }
        assert_eq!(
            payload(Projection::Directory, 7, &ids(&["DE", "FR"])),
            "directory 7 DE FR"
        );
    }

    #[test]
    fn ids_that_do_not_fit_or_hold_spaces_say_everything() {
        let many: Vec<String> = (0..2_000).map(|i| format!("key-{i:05}")).collect();
        let many = Changed::Aggregates(many.into_iter().collect());
        let text = payload(Projection::ApiKeys, 9, &many);
        assert!(text.len() < 8_000);
        assert_eq!(parse(&text).map(|p| p.2), Some(Changed::Everything));
        let spaced = payload(Projection::Directory, 9, &ids(&["a b"]));
        assert_eq!(parse(&spaced).map(|p| p.2), Some(Changed::Everything));
    }

    #[test]
    fn what_is_not_a_payload_is_refused() {
        for text in ["", "nothing 1 DE", "directory x DE", "directory"] {
            assert_eq!(parse(text), None, "{text}");
        }
    }

    #[test]
    fn a_change_touches_only_its_aggregates() {
        assert!(ids(&["DE"]).touches("DE"));
        assert!(!ids(&["DE"]).touches("FR"));
        assert!(Changed::Everything.touches("FR"));
    }
}
