//! Whether a projection that is behind is moving: `/readyz` counts a
//! projection behind the head of the events it reads as ready only while
//! its checkpoint moved within [`STALL`] (a projection keeping up with a
//! steady load is always a little behind). One that sits still while
//! behind (after a crash, before its consumer resumes; a stuck consumer)
//! is not ready.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a projection may sit still while behind and still be ready.
pub const STALL: Duration = Duration::from_secs(2);

/// The last checkpoint seen of each projection, and when it changed.
#[derive(Debug, Default)]
pub struct Progress {
    seen: Mutex<HashMap<String, (i64, Instant)>>,
}

impl Progress {
    /// Records `position` of `name` (whose lag is `lag`) and answers whether
    /// it is caught up or moving: never when behind at its first sight or
    /// unchanged for [`STALL`].
    pub fn moving(&self, name: &str, position: i64, lag: i64) -> bool {
        self.moving_at(name, position, lag, Instant::now())
    }

    fn moving_at(&self, name: &str, position: i64, lag: i64, now: Instant) -> bool {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = seen.get(name).copied();
        match entry {
            Some((last, since)) if last == position => {
                lag == 0 || now.duration_since(since) < STALL
            }
            Some(_) => {
                seen.insert(name.to_owned(), (position, now));
                true
            }
            None => {
                seen.insert(name.to_owned(), (position, now));
                lag == 0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behind_and_still_is_not_ready_behind_and_moving_is() {
        let progress = Progress::default();
        let start = Instant::now();
        assert!(
            !progress.moving_at("directory", 10, 5, start),
            "first sight, behind"
        );
        assert!(progress.moving_at("directory", 12, 3, start + Duration::from_millis(100)));
        assert!(progress.moving_at("directory", 12, 3, start + Duration::from_secs(1)));
        assert!(
            !progress.moving_at("directory", 12, 3, start + Duration::from_secs(3)),
            "stalled"
        );
        assert!(progress.moving_at("directory", 15, 0, start + Duration::from_secs(4)));
        assert!(
            progress.moving_at("directory", 15, 0, start + Duration::from_secs(60)),
            "caught up"
        );
        assert!(
            progress.moving_at("keys", 7, 0, start),
            "caught up at first sight"
        );
    }
}
