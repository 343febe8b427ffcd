//! The open-file limit: every connection is a file descriptor, and the usual
//! soft limit (1,024) is far below what a listener should hold. At start the
//! process raises its soft limit to the hard limit and logs both, then
//! checks that the listeners' connection caps fit under it
//! ([`fit_connection_cap`]): with caps above the limit, accept fails with
//! "Too many open files" and clients time out instead of getting the
//! listener's 503.

/// The soft and hard limits on open files after raising the soft one to the
/// hard one (`None` = unlimited). Logs both; a limit that cannot be raised is
/// a warning, not a failure.
pub fn raise_open_file_limit() -> (Option<u64>, Option<u64>) {
    #[cfg(unix)]
    {
        use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
        let before = getrlimit(Resource::Nofile);
        if before.current != before.maximum {
            let raised = Rlimit {
                current: before.maximum,
                maximum: before.maximum,
            };
            if let Err(error) = setrlimit(Resource::Nofile, raised) {
                tracing::warn!(soft = %limit(before.current), hard = %limit(before.maximum), error = %error, "cannot raise the open-file limit");
            }
        }
        let after = getrlimit(Resource::Nofile);
        tracing::info!(
            open_files.soft = %limit(after.current),
            open_files.hard = %limit(after.maximum),
            open_files.soft_before = %limit(before.current),
            "open-file limit"
        );
        (after.current, after.maximum)
    }
    #[cfg(not(unix))]
    {
        (None, None)
    }
}

/// Descriptors kept for everything but client connections: the listeners,
/// database pools, NATS, the log and data files.
pub const RESERVED_DESCRIPTORS: u64 = 256;

/// The fewest connections per listener worth serving: below it the process
/// refuses to start.
const MIN_CONNECTIONS: u64 = 64;

/// The connection cap per listener that keeps `listeners` listeners and
/// [`RESERVED_DESCRIPTORS`] under the soft open-file limit `soft` (`None`:
/// unlimited): `cap` when it fits, else the largest that does (with a
/// warning naming `BASEL_MAX_CONNECTIONS`).
///
/// # Errors
/// A sentence naming `BASEL_MAX_CONNECTIONS` and the limit when fewer than
/// 64 connections per listener would fit.
pub fn fit_connection_cap(
    cap: usize,
    listeners: usize,
    soft: Option<u64>,
) -> Result<usize, String> {
    let Some(soft) = soft else {
        return Ok(cap);
    };
    let listeners = u64::try_from(listeners.max(1)).unwrap_or(u64::MAX);
    let wanted = u64::try_from(cap).unwrap_or(u64::MAX);
    let room = soft.saturating_sub(RESERVED_DESCRIPTORS) / listeners;
    if wanted <= room {
        return Ok(cap);
    }
    if room < MIN_CONNECTIONS {
        return Err(format!(
            "the open-file limit ({soft}) leaves room for {room} connections per listener ({listeners} listeners, {RESERVED_DESCRIPTORS} descriptors kept for the rest): raise it (ulimit -n, LimitNOFILE=) above {}, or lower BASEL_MAX_CONNECTIONS",
            RESERVED_DESCRIPTORS + listeners * MIN_CONNECTIONS
        ));
    }
    if cap == super::settings::DEFAULT_MAX_CONNECTIONS {
        // The default asks for as many as fit: nothing to warn about.
        tracing::info!(
            open_files.soft = soft,
            connections.cap = room,
            "{room} connections per listener (the open-file limit of {soft} leaves room for that many)"
        );
    } else {
        tracing::warn!(
            open_files.soft = soft,
            connections.wanted = wanted,
            connections.cap = room,
            "BASEL_MAX_CONNECTIONS lowered to {room} per listener: {listeners} listeners of {wanted} and {RESERVED_DESCRIPTORS} other descriptors would pass the open-file limit of {soft}"
        );
    }
    Ok(usize::try_from(room).unwrap_or(cap))
}

/// A limit as a log line shows it: the number, or `unlimited`.
fn limit(value: Option<u64>) -> String {
    value.map_or_else(|| "unlimited".to_owned(), |n| n.to_string())
}

#[cfg(test)]
mod fit_tests {
    use super::fit_connection_cap;

    #[test]
    fn caps_that_pass_the_open_file_limit_are_lowered_or_refused() {
        assert_eq!(fit_connection_cap(10_000, 2, None), Ok(10_000));
        assert_eq!(fit_connection_cap(10_000, 2, Some(1_048_576)), Ok(10_000));
        assert_eq!(fit_connection_cap(10_000, 2, Some(20_000)), Ok(9_872));
        assert_eq!(fit_connection_cap(100, 2, Some(1_024)), Ok(100));
        let refused = fit_connection_cap(10_000, 2, Some(300)).expect_err("no room");
        assert!(refused.contains("BASEL_MAX_CONNECTIONS"), "{refused}");
    }
}

#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn the_soft_limit_ends_at_the_hard_limit() {
        let (soft, hard) = super::raise_open_file_limit();
        assert_eq!(soft, hard);
    }
}
