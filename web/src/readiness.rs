//! Readiness per role: what `/readyz` asks of a process depends on what it
//! runs ([`Policy`]), and what it has seen of the projections over time
//! ([`Progress`]).
//!
//! - A process that **serves reads** (REST, MCP) is ready while every
//!   projection's oldest unapplied event has been waiting less than
//!   `BASEL_READY_MAX_LAG`: a relay, projector or NATS fault leaves it
//!   ready for that long (its reads are that stale at most), and a
//!   projection that halted takes it out once the events it misses are
//!   older than that.
//! - A **projector** is ready while NATS is connected (server mode) and no
//!   projection halted, is more than one batch behind, or sits still while
//!   behind for [`STALL`] (a projection keeping up with a steady load is
//!   always a little behind; one that does not move is stuck).
//! - A **relay** is ready while NATS is connected; the answer says whether
//!   it is the active relay or a standby.
//!
//! How long an event has waited is measured here, not read from the store:
//! the heads each look saw are kept until the projection passes them, so
//! the age is that of the oldest head seen and not yet applied (as fine as
//! the probes are frequent; unknown, so zero, at the first look).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a projection may sit still while behind and still be ready.
pub const STALL: Duration = Duration::from_secs(2);

/// The default of `BASEL_READY_MAX_LAG`.
pub const DEFAULT_MAX_LAG: Duration = Duration::from_secs(60);

/// What `/readyz` checks in this process.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// REST or MCP: the projections' lag, against [`Policy::max_lag`].
    pub serves_reads: bool,
    /// The projections: halted, stuck, NATS.
    pub projects: bool,
    /// The relay: NATS.
    pub relays: bool,
    /// How long an event may wait for a projection while a reader is
    /// still ready (`BASEL_READY_MAX_LAG`).
    pub max_lag: Duration,
}

impl Default for Policy {
    /// Everything in one process (tests, `--role all`).
    fn default() -> Self {
        Self {
            serves_reads: true,
            projects: true,
            relays: true,
            max_lag: DEFAULT_MAX_LAG,
        }
    }
}

/// What one look at a projection found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// Caught up, or its checkpoint moved within [`STALL`] (never when
    /// behind at its first sight).
    pub moving: bool,
    /// How long the oldest event it has not applied has been waiting.
    pub behind_for: Duration,
}

#[derive(Debug)]
struct Seen {
    position: i64,
    since: Instant,
    /// Heads seen and not yet applied, oldest first, with when.
    heads: VecDeque<(i64, Instant)>,
}

/// Heads kept per projection, at most (the oldest stays: it is the age).
const HEADS: usize = 64;

/// The checks of this process and what it saw of each projection.
#[derive(Debug, Default)]
pub struct Progress {
    seen: Mutex<HashMap<String, Seen>>,
    /// What this process answers for.
    pub policy: Policy,
}

impl Progress {
    /// Readiness under `policy`.
    pub fn with(policy: Policy) -> Self {
        Self {
            seen: Mutex::default(),
            policy,
        }
    }

    /// Records that `name` stands at `position` with the last event it
    /// reads at `head`, and answers what that means.
    pub fn look(&self, name: &str, position: i64, head: i64) -> Look {
        self.look_at(name, position, head, Instant::now())
    }

    fn look_at(&self, name: &str, position: i64, head: i64, now: Instant) -> Look {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let behind = head > position;
        let entry = seen.entry(name.to_owned());
        let first = matches!(entry, std::collections::hash_map::Entry::Vacant(_));
        let seen = entry.or_insert_with(|| Seen {
            position,
            since: now,
            heads: VecDeque::new(),
        });
        let moving = if first {
            !behind
        } else if seen.position == position {
            !behind || now.duration_since(seen.since) < STALL
        } else {
            seen.position = position;
            seen.since = now;
            true
        };
        while seen.heads.front().is_some_and(|(h, _)| *h <= position) {
            seen.heads.pop_front();
        }
        if behind && seen.heads.back().is_none_or(|(h, _)| *h < head) {
            if seen.heads.len() == HEADS {
                seen.heads.remove(1);
            }
            seen.heads.push_back((head, now));
        }
        let behind_for = seen
            .heads
            .front()
            .map_or(Duration::ZERO, |(_, at)| now.duration_since(*at));
        Look { moving, behind_for }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behind_and_still_is_not_moving_behind_and_moving_is() {
        let progress = Progress::default();
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_millis(s);
        assert!(
            !progress.look_at("directory", 10, 15, start).moving,
            "first sight, behind"
        );
        assert!(progress.look_at("directory", 12, 15, at(100)).moving);
        assert!(progress.look_at("directory", 12, 15, at(1000)).moving);
        assert!(
            !progress.look_at("directory", 12, 15, at(3000)).moving,
            "stalled"
        );
        assert!(progress.look_at("directory", 15, 15, at(4000)).moving);
        assert!(
            progress.look_at("directory", 15, 15, at(60_000)).moving,
            "caught up"
        );
        assert!(
            progress.look_at("keys", 7, 7, start).moving,
            "caught up at first sight"
        );
    }

    #[test]
    fn the_lag_is_the_age_of_the_oldest_head_not_yet_applied() {
        let progress = Progress::default();
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let look = |p, h, s| progress.look_at("history", p, h, at(s)).behind_for;
        assert_eq!(look(10, 10, 0), Duration::ZERO, "caught up");
        assert_eq!(look(10, 20, 1), Duration::ZERO, "first seen behind");
        assert_eq!(look(10, 30, 5), Duration::from_secs(4), "still before 20");
        assert_eq!(
            look(25, 40, 8),
            Duration::from_secs(3),
            "20 applied, 30 not"
        );
        assert_eq!(look(40, 40, 9), Duration::ZERO, "caught up again");
        // Steadily a little behind: never old.
        for s in 10..20 {
            assert!(look(s * 10, s * 10 + 5, s as u64) <= Duration::from_secs(1));
        }
    }
}
