//! What a projection step changed, and who hears of it: the read caches of
//! this process ([`Forgets`]), and other processes, told through a
//! PostgreSQL notification sent in the step's own transaction
//! ([`announce`], heard by [`crate::follow`]); and whether this process
//! hears of every step at all ([`Feed`]).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::log::StoredEvent;
use crate::registry::Projection;
use crate::ProjectionError;

/// The PostgreSQL channel checkpoint moves are announced on.
pub const CHANNEL: &str = "basel_checkpoints";

/// PostgreSQL refuses notification payloads of 8,000 bytes or more; a step
/// whose aggregate ids would not fit says [`Changed::Everything`].
const MAX_PAYLOAD: usize = 7_900;

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

/// How a process hears of checkpoint moves.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    /// It runs the projections itself.
    pub(crate) local: AtomicBool,
    /// It follows the notifications of the process that runs them, and is
    /// listening now.
    pub(crate) followed: AtomicBool,
}

impl Feed {
    /// Whether every checkpoint move is heard of in this process.
    pub(crate) fn heard(&self) -> bool {
        self.local.load(Ordering::Acquire) || self.followed.load(Ordering::Acquire)
    }
}

/// What a read cache does when a step changed something it may remember.
pub(crate) trait Forgets: Send + Sync {
    /// Forgets what `projection` feeds it and `changed` may have changed.
    fn forget(&self, projection: Projection, changed: &Changed);
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
