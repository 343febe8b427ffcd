//! A tiny aggregate for store tests: a counter whose every event carries the
//! value it produces, so a lost or doubled event shows in the numbers.

use cqrs_es::event_sink::EventSink;
use cqrs_es::{Aggregate, DomainEvent};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Counter {
    pub value: u64,
}

#[derive(Debug)]
pub enum CounterCommand {
    /// Adds one: one event.
    Increment,
    /// Adds `n` one at a time: `n` events in one commit.
    IncrementTimes(u64),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum CounterEvent {
    Incremented { to: u64 },
}

impl DomainEvent for CounterEvent {
    fn event_type(&self) -> String {
        "Incremented".to_string()
    }

    fn event_version(&self) -> String {
        "1".to_string()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("counter refused")]
pub struct CounterError;

impl Aggregate for Counter {
    const TYPE: &'static str = "counter";
    type Command = CounterCommand;
    type Event = CounterEvent;
    type Error = CounterError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        let times = match command {
            CounterCommand::Increment => 1,
            CounterCommand::IncrementTimes(n) => n,
        };
        for _ in 0..times {
            let to = self.value + 1;
            sink.write(CounterEvent::Incremented { to }, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        match event {
            CounterEvent::Incremented { to } => self.value = to,
        }
    }
}
