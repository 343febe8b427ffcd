//! Runs one command against one aggregate: load its events, let the domain
//! decide, append the new events with an optimistic lock, and report where
//! they landed in the log.
//!
//! This is what `cqrs_es::CqrsFramework::execute_with_metadata` does, minus
//! queries, plus one thing it cannot do: it returns the committed sequence and
//! log position, which read-your-writes needs. Nothing is published from here;
//! the log is read from the store (embedded) or by the relay (server mode).

use cqrs_es::persist::PersistedEventStore;
use cqrs_es::{AggregateContext, AggregateError, EventStore};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

use domain::metadata::Metadata;

use crate::adapter::{Agg, Ev};
use crate::store::{AnyEventRepository, Backend};
use crate::CommandError;

/// Where a command's events landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The aggregate's id.
    pub aggregate_id: String,
    /// The sequence of its last new event.
    pub sequence: usize,
    /// The log position of that event.
    pub position: i64,
    /// How many events were appended.
    pub events: usize,
}

/// Executes commands for aggregates of type `A`.
pub struct Executor<A>
where
    Agg<A>: cqrs_es::Aggregate,
{
    backend: Backend,
    store: PersistedEventStore<AnyEventRepository, Agg<A>>,
}

impl<A> Executor<A>
where
    A: domain::Aggregate + Serialize + DeserializeOwned + Send + Sync,
    A::Command: Send + Sync,
    A::Event: Serialize + DeserializeOwned + Clone + PartialEq + Debug + Send + Sync,
    A::Error: Send + Sync,
{
    /// An executor writing to `backend`.
    pub fn new(backend: &Backend) -> Self {
        Self {
            backend: backend.clone(),
            store: backend.event_store::<Agg<A>>(),
        }
    }

    /// The aggregate's current state, rebuilt from its events.
    ///
    /// # Errors
    /// [`CommandError::Infrastructure`] when the store cannot be read.
    pub async fn load(&self, aggregate_id: &str) -> Result<A, CommandError<A::Error>> {
        let mut context = self
            .store
            .load_aggregate(aggregate_id)
            .await
            .map_err(from_aggregate_error)?;
        Ok(std::mem::take(&mut context.aggregate().0))
    }

    /// Decides and appends. Either every event of the decision is committed or
    /// none is.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the domain refuses, [`CommandError::Conflict`]
    /// when another command appended first, [`CommandError::Infrastructure`]
    /// when the store fails.
    pub async fn execute(
        &self,
        aggregate_id: &str,
        command: &A::Command,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<A::Error>> {
        self.execute_at(aggregate_id, command, metadata, None).await
    }

    /// Like [`Executor::execute`], but only if the aggregate is at sequence
    /// `expected` (its version as the caller last saw it). The check and the
    /// commit are one optimistic step: if another command commits between the
    /// load and the append, the append fails; so a stale version never
    /// slips through, whichever process wrote in between.
    ///
    /// # Errors
    /// As [`Executor::execute`]; [`CommandError::Conflict`] also when the
    /// aggregate is not at `expected`.
    pub async fn execute_at(
        &self,
        aggregate_id: &str,
        command: &A::Command,
        metadata: &Metadata,
        expected: Option<usize>,
    ) -> Result<Committed, CommandError<A::Error>> {
        let mut context = self
            .store
            .load_aggregate(aggregate_id)
            .await
            .map_err(from_aggregate_error)?;
        if expected.is_some_and(|expected| expected != context.current_sequence) {
            return Err(CommandError::Conflict);
        }
        let events = context
            .aggregate()
            .0
            .decide(command)
            .map_err(CommandError::Rejected)?;
        let count = events.len();
        let envelopes = self
            .store
            .commit(
                events.into_iter().map(Ev).collect(),
                context,
                metadata.to_map(),
            )
            .await
            .map_err(from_aggregate_error)?;
        let sequence = envelopes.last().map(|e| e.sequence).unwrap_or_default();
        let position = self
            .backend
            .position_of(A::TYPE, aggregate_id, sequence)
            .await
            .map_err(|e| CommandError::Infrastructure(e.to_string()))?
            .unwrap_or_default();
        Ok(Committed {
            aggregate_id: aggregate_id.to_owned(),
            sequence,
            position,
            events: count,
        })
    }
}

fn from_aggregate_error<E: std::error::Error>(error: AggregateError<E>) -> CommandError<E> {
    match error {
        AggregateError::UserError(e) => CommandError::Rejected(e),
        AggregateError::AggregateConflict => CommandError::Conflict,
        AggregateError::DatabaseConnectionError(e) => CommandError::Infrastructure(e.to_string()),
        AggregateError::DeserializationError(e) => {
            CommandError::Infrastructure(format!("stored event does not decode: {e}"))
        }
        AggregateError::UnexpectedError(e) => CommandError::Infrastructure(e.to_string()),
    }
}
