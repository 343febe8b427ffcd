//! Given/when/then for aggregates, in the style of cqrs-es's `TestFramework`
//! but synchronous: this crate has no runtime.

use std::fmt::Debug;

use crate::aggregate::Aggregate;

/// Starts a scenario from past events.
pub fn given<A: Aggregate>(events: Vec<A::Event>) -> Given<A> {
    let mut state = A::default();
    for event in events {
        state.apply(event);
    }
    Given { state }
}

/// An aggregate rebuilt from past events.
pub struct Given<A> {
    state: A,
}

impl<A: Aggregate> Given<A> {
    /// Sends a command to it.
    pub fn when(self, command: A::Command) -> When<A> {
        When {
            result: self.state.decide(&command),
        }
    }
}

/// The decision.
pub struct When<A: Aggregate> {
    result: Result<Vec<A::Event>, A::Error>,
}

impl<A: Aggregate> When<A>
where
    A::Event: Debug + PartialEq,
    A::Error: PartialEq,
{
    /// Asserts the events recorded.
    #[track_caller]
    pub fn then_expect(self, expected: Vec<A::Event>) {
        match self.result {
            Ok(events) => assert_eq!(events, expected),
            Err(error) => panic!("expected events, command was refused: {error}"),
        }
    }

    /// Asserts the refusal.
    #[track_caller]
    pub fn then_refused(self, expected: A::Error) {
        match self.result {
            Ok(events) => panic!("expected a refusal, got events {events:?}"),
            Err(error) => assert_eq!(error, expected),
        }
    }

    /// Gives the result for custom assertions.
    pub fn result(self) -> Result<Vec<A::Event>, A::Error> {
        self.result
    }
}
