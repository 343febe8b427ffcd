//! The shape every aggregate has: it decides on a command by returning events
//! (or a refusal), and it applies events to itself. `decide` is pure; `apply`
//! holds no logic and cannot fail. The write side (`commands`) adapts this to
//! cqrs-es, so this crate needs no async runtime.

/// A consistency boundary that turns commands into events.
pub trait Aggregate: Default {
    /// The aggregate's type string: stored with every event, never changed.
    const TYPE: &'static str;
    /// What may be asked of it.
    type Command;
    /// What it records.
    type Event: DomainEvent;
    /// Why it refuses.
    type Error: std::error::Error;

    /// Decides what happens when `command` meets the current state.
    ///
    /// # Errors
    /// A business refusal: the command breaks a rule given the state.
    fn decide(&self, command: &Self::Command) -> Result<Vec<Self::Event>, Self::Error>;

    /// Moves the state forward by one recorded event.
    fn apply(&mut self, event: Self::Event);
}

/// A recorded fact. Its type and version are stored beside the payload so
/// that readers can decode it and old versions can be upcast.
pub trait DomainEvent {
    /// The event's name, e.g. `VerificationRecorded`; never changed once published.
    fn event_type(&self) -> &'static str;
    /// The payload version; bumped only for changes that are not additive.
    fn event_version(&self) -> &'static str;
}
