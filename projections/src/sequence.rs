//! The per-aggregate sequence guard every projection applies before it
//! changes a row.
//!
//! Events of one aggregate carry sequences 1, 2, 3… A projection stores the
//! last sequence it applied for each aggregate (in its row, or in
//! `projection_versions`) and lets an event through only when it is the next
//! one. So applying an event twice changes nothing (a redelivery, a replay
//! over live tables), and an event that arrives early is refused as a
//! [`ProjectionError::Gap`] to be retried, never skipped. The rule lives here,
//! once, so every projection and the replay fold judge sequences alike.

use crate::log::StoredEvent;
use crate::ProjectionError;

/// What the sequence guard says of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// It is the next one: apply it.
    Apply,
    /// It was applied already: skip it.
    Skip,
}

/// Checks `event`'s sequence against `current`, the last sequence applied for
/// its aggregate (`None` when nothing was).
///
/// # Errors
/// [`ProjectionError::Gap`] when the event is ahead of the next sequence.
pub(crate) fn guard(current: Option<i64>, event: &StoredEvent) -> Result<Guard, ProjectionError> {
    let current = current.unwrap_or(0);
    if event.sequence <= current {
        Ok(Guard::Skip)
    } else if event.sequence == current + 1 {
        Ok(Guard::Apply)
    } else {
        Err(ProjectionError::Gap {
            aggregate_id: event.aggregate_id.clone(),
            expected: current + 1,
            got: event.sequence,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(sequence: i64) -> StoredEvent {
        StoredEvent {
            position: 1,
            aggregate_type: <domain::authority::Authority as domain::Aggregate>::TYPE.into(),
            aggregate_id: "DE".into(),
            sequence,
            event_type: "AuthorityRegistered".into(),
            event_version: "1".into(),
            payload: "{}".into(),
            metadata: "{}".into(),
        }
    }

    #[test]
    fn the_next_sequence_is_applied() {
        assert_eq!(guard(None, &event(1)).ok(), Some(Guard::Apply));
        assert_eq!(guard(Some(3), &event(4)).ok(), Some(Guard::Apply));
    }

    #[test]
    fn a_sequence_applied_already_is_skipped() {
        assert_eq!(guard(Some(3), &event(3)).ok(), Some(Guard::Skip));
        assert_eq!(guard(Some(3), &event(1)).ok(), Some(Guard::Skip));
    }

    #[test]
    fn a_sequence_ahead_is_a_gap() {
        assert!(matches!(
            guard(Some(3), &event(5)),
            Err(ProjectionError::Gap {
                expected: 4,
                got: 5,
                ..
            })
        ));
    }
}
