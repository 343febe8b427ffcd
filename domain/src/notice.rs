//! The `Notice` aggregate: an announcement to every registrant (changes to
//! the API, maintenance), mailed once to each address that has an active key
//! and did not unsubscribe.
//!
//! Its id is chosen by the operator's command (a UUID); the event carries
//! the subject and the plain-text body, so the outbox can build every mail
//! from the log alone. Who receives it is decided by the outbox from the
//! `ApiKey` events before the notice in the log.

use serde::{Deserialize, Serialize};

use crate::aggregate::{Aggregate, DomainEvent};

/// The longest subject, in characters.
pub const MAX_SUBJECT: usize = 200;
/// The longest body, in characters.
pub const MAX_BODY: usize = 100_000;

/// A command for the `Notice` aggregate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeCommand {
    /// Publish the notice: it is mailed to every active registrant.
    Publish {
        /// One line.
        subject: String,
        /// Plain text.
        body: String,
    },
}

/// An event of the `Notice` aggregate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoticeEvent {
    /// The notice was published.
    NoticePublished {
        /// One line.
        subject: String,
        /// Plain text.
        body: String,
    },
}

impl DomainEvent for NoticeEvent {
    fn event_type(&self) -> &'static str {
        match self {
            Self::NoticePublished { .. } => "NoticePublished",
        }
    }

    fn event_version(&self) -> &'static str {
        "1"
    }
}

/// Why a notice was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoticeError {
    /// The subject is empty, too long or has a line break.
    #[error("the subject must be one line of 1 to {MAX_SUBJECT} characters")]
    BadSubject,
    /// The body is empty or too long.
    #[error("the body must have 1 to {MAX_BODY} characters")]
    BadBody,
    /// This notice was published already.
    #[error("this notice was published already")]
    AlreadyPublished,
}

/// The state of one notice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    /// Whether it was published.
    pub published: bool,
}

impl Aggregate for Notice {
    const TYPE: &'static str = "notice";
    type Command = NoticeCommand;
    type Event = NoticeEvent;
    type Error = NoticeError;

    fn decide(&self, command: &NoticeCommand) -> Result<Vec<NoticeEvent>, NoticeError> {
        let NoticeCommand::Publish { subject, body } = command;
        if self.published {
            return Err(NoticeError::AlreadyPublished);
        }
        let subject = subject.trim();
        let subject_len = subject.chars().count();
        if subject_len == 0 || subject_len > MAX_SUBJECT || subject.contains(['\r', '\n']) {
            return Err(NoticeError::BadSubject);
        }
        let body_len = body.trim().chars().count();
        if body_len == 0 || body.chars().count() > MAX_BODY {
            return Err(NoticeError::BadBody);
        }
        Ok(vec![NoticeEvent::NoticePublished {
            subject: subject.to_owned(),
            body: body.clone(),
        }])
    }

    fn apply(&mut self, event: NoticeEvent) {
        match event {
            NoticeEvent::NoticePublished { .. } => self.published = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::given;

    fn publish(subject: &str, body: &str) -> NoticeCommand {
        NoticeCommand::Publish {
            subject: subject.into(),
            body: body.into(),
        }
    }

    #[test]
    fn a_notice_is_published_with_its_subject_trimmed() {
        given::<Notice>(vec![])
            .when(publish("  API v2 in June ", "Details.\n"))
            .then_expect(vec![NoticeEvent::NoticePublished {
                subject: "API v2 in June".into(),
                body: "Details.\n".into(),
            }]);
    }

    #[test]
    fn a_notice_is_published_once() {
        let published = NoticeEvent::NoticePublished {
            subject: "s".into(),
            body: "b".into(),
        };
        given::<Notice>(vec![published])
            .when(publish("s", "b"))
            .then_refused(NoticeError::AlreadyPublished);
    }

    #[test]
    fn empty_or_multi_line_subjects_and_empty_bodies_are_refused() {
        given::<Notice>(vec![])
            .when(publish(" ", "b"))
            .then_refused(NoticeError::BadSubject);
        given::<Notice>(vec![])
            .when(publish("a\nBcc: x@example.org", "b"))
            .then_refused(NoticeError::BadSubject);
        given::<Notice>(vec![])
            .when(publish(&"s".repeat(MAX_SUBJECT + 1), "b"))
            .then_refused(NoticeError::BadSubject);
        given::<Notice>(vec![])
            .when(publish("s", " \n"))
            .then_refused(NoticeError::BadBody);
    }
}
