//! Which directory records changed, and which countries were added, as they
//! reach the read table: the feed behind MCP resource subscriptions
//! (`notifications/resources/updated`) and `notifications/resources/list_changed`.
//!
//! It follows the `directory` projection's checkpoint, not the writes, so a
//! change is announced when a reader would see it, whichever process wrote
//! it and whichever process projects (in server mode, another one: the
//! checkpoint is then polled, as read-your-writes does).

use std::future::Future;
use std::time::Duration;

use tokio::sync::broadcast;

use std::collections::HashSet;

use crate::directory::Reader;
use crate::runner::Projector;
use crate::{directory, ProjectionError, ReadDb};

/// Where the feed sends what it sees.
#[derive(Clone)]
pub struct Feed {
    /// The code of every record that changed (added ones included).
    pub changed: broadcast::Sender<String>,
    /// The code of every country added to the directory.
    pub added: broadcast::Sender<String>,
}

/// How long one wait for the checkpoint lasts before it is asked again.
const WAIT: Duration = Duration::from_millis(250);

/// Sends the country code of every directory record the projection changes
/// from now on (and, on `feed.added`, of every country that was not in the
/// directory when it started), until `shutdown` resolves. A lagging receiver
/// misses codes (the channel says so); the feed itself never blocks the
/// projection.
pub async fn follow_directory(
    projector: Projector,
    db: ReadDb,
    feed: Feed,
    shutdown: impl Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let mut seen = None;
    let mut known = HashSet::new();
    loop {
        let Some(at) = seen else {
            seen = start(&projector, &db, &mut known).await.ok();
            if seen.is_none() {
                tokio::select! {
                    () = &mut shutdown => return,
                    () = tokio::time::sleep(WAIT) => continue,
                }
            }
            continue;
        };
        tokio::select! {
            () = &mut shutdown => return,
            reached = projector.wait_for(crate::registry::Projection::Directory, at + 1, WAIT) => if !reached { continue },
        }
        match announce(&projector, &db, &feed, &mut known, at).await {
            Ok(now) => seen = Some(now),
            Err(error) => {
                tracing::warn!(error = %error, "directory change feed: read failed; retrying");
                tokio::time::sleep(WAIT).await;
            }
        }
    }
}

/// Sends the codes of the records changed after position `after`, up to
/// the checkpoint; returns the checkpoint.
async fn announce(
    projector: &Projector,
    db: &ReadDb,
    feed: &Feed,
    known: &mut HashSet<String>,
    after: i64,
) -> Result<i64, ProjectionError> {
    let upto = checkpoint(projector).await?;
    for code in directory::changed_between(db, after, upto).await? {
        // No receiver yet is fine: nobody is subscribed.
        if known.insert(code.clone()) {
            let _ = feed.added.send(code.clone());
        }
        let _ = feed.changed.send(code);
    }
    Ok(upto)
}

/// The checkpoint to follow from, and the countries already there.
async fn start(
    projector: &Projector,
    db: &ReadDb,
    known: &mut HashSet<String>,
) -> Result<i64, ProjectionError> {
    let at = checkpoint(projector).await?;
    let rows = Reader::new(db.clone()).all().await?;
    known.extend(rows.into_iter().map(|row| row.country_code));
    Ok(at)
}

async fn checkpoint(projector: &Projector) -> Result<i64, ProjectionError> {
    Ok(projector
        .status()
        .await?
        .into_iter()
        .find(|s| s.name == directory::NAME)
        .map_or(0, |s| s.position))
}
