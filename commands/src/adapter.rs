//! Adapts `domain` aggregates to cqrs-es.
//!
//! `domain` cannot depend on cqrs-es (it pulls in tokio), and the orphan rule
//! forbids implementing cqrs-es traits for its types here, so two transparent
//! wrappers carry them: [`Agg`] for the state and [`Ev`] for events. Both
//! serialise exactly as the wrapped value, so the stored payloads are the
//! domain's own JSON.

use cqrs_es::event_sink::EventSink;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// A domain aggregate seen by cqrs-es.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Agg<A>(pub A);

/// A domain event seen by cqrs-es.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Ev<E>(pub E);

impl<E> cqrs_es::DomainEvent for Ev<E>
where
    E: domain::DomainEvent + Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync,
{
    fn event_type(&self) -> String {
        self.0.event_type().to_owned()
    }

    fn event_version(&self) -> String {
        self.0.event_version().to_owned()
    }
}

impl<A> cqrs_es::Aggregate for Agg<A>
where
    A: domain::Aggregate + Serialize + DeserializeOwned + Send + Sync,
    A::Command: Send + Sync,
    A::Event: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync,
    A::Error: Send + Sync,
{
    const TYPE: &'static str = A::TYPE;
    type Command = A::Command;
    type Event = Ev<A::Event>;
    type Error = A::Error;
    type Services = ();

    async fn handle(
        &mut self,
        command: A::Command,
        _: &(),
        sink: &EventSink<Self>,
    ) -> Result<(), A::Error> {
        for event in self.0.decide(&command)? {
            sink.write(Ev(event), self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Ev<A::Event>) {
        self.0.apply(event.0);
    }
}
