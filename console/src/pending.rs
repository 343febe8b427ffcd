//! Import files previewed in the console and awaiting their confirmation,
//! held in memory by session for at most [`HOLD`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use domain::credentials::hash_secret;

/// How long a previewed file waits for its confirmation.
pub const HOLD: Duration = Duration::from_secs(60 * 60);

/// A previewed file waiting for its confirmation.
pub(crate) struct Held {
    pub(crate) file_name: String,
    pub(crate) text: String,
    pub(crate) digest: String,
    pub(crate) since: Instant,
}

/// Files previewed and not yet confirmed, by the SHA-256 of the session id.
#[derive(Default)]
pub struct Pending(Mutex<HashMap<String, Held>>);

impl Pending {
    pub(crate) fn hold(&self, session: &str, held: Held) {
        if let Ok(mut map) = self.0.lock() {
            map.retain(|_, h| h.since.elapsed() < HOLD);
            map.insert(hash_secret(session), held);
        }
    }

    /// The session's held file if it is the one previewed (`digest`),
    /// taken out: a second confirmation finds nothing.
    pub(crate) fn take(&self, session: &str, digest: &str) -> Option<Held> {
        let mut map = self.0.lock().ok()?;
        let key = hash_secret(session);
        let fresh = map
            .get(&key)
            .is_some_and(|h| h.digest == digest && h.since.elapsed() < HOLD);
        if fresh {
            map.remove(&key)
        } else {
            None
        }
    }
}
