//! The open-file limit: every connection is a file descriptor, and the usual
//! soft limit (1,024) is far below what a listener should hold. At start the
//! process raises its soft limit to the hard limit and logs both.

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
                tracing::warn!(soft = ?before.current, hard = ?before.maximum, error = %error, "cannot raise the open-file limit");
            }
        }
        let after = getrlimit(Resource::Nofile);
        tracing::info!(
            open_files.soft = ?after.current,
            open_files.hard = ?after.maximum,
            open_files.soft_before = ?before.current,
            "open-file limit"
        );
        (after.current, after.maximum)
    }
    #[cfg(not(unix))]
    {
        (None, None)
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
