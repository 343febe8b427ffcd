//! Runs one command against one aggregate: load its events, let the domain
//! decide, append the new events with an optimistic lock, and report where
//! they landed in the log.
//!
//! This is what `cqrs_es::CqrsFramework::execute_with_metadata` does, minus
//! queries, plus one thing it cannot do: it returns the committed sequence and
//! log position, which read-your-writes needs. Nothing is published from here;
//! the log is read from the store (embedded) or by the relay (server mode).
//!
//! # Memory
//!
//! An aggregate is rebuilt by applying its events one at a time as they
//! stream from the store, never by reading its whole history first
//! (cqrs-es's `load_aggregate` holds every row and every decoded event of
//! the aggregate at once before applying one). A Party checked thousands of
//! times so costs a command time, not memory: otherwise the process's
//! memory grew with the longest history loaded, as the allocator keeps the
//! high-water mark of each thread's arena (the soak, BENCHMARKS.md).

use cqrs_es::persist::{
    EventStoreAggregateContext, PersistedEventRepository, PersistedEventStore, PersistenceError,
};
use cqrs_es::{Aggregate as _, AggregateContext, AggregateError, EventStore};
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
    /// The sequence of its last new event: the aggregate's new version.
    pub sequence: i64,
    /// The log position of that event; 0 when the events were committed but
    /// the position could not be read back (the command still succeeded).
    pub position: i64,
    /// How many events were appended.
    pub events: usize,
    /// True when nothing was appended because the command's
    /// `Idempotency-Key` had been committed already: the fields then
    /// describe that earlier commit, and the caller answers as it did.
    pub replayed: bool,
}

/// How often a command without a pinned version is decided again after
/// another command on the same aggregate committed first.
const ATTEMPTS: usize = 4;

/// Executes commands for aggregates of type `A`.
pub struct Executor<A>
where
    Agg<A>: cqrs_es::Aggregate,
{
    backend: Backend,
    repository: AnyEventRepository,
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
            repository: backend.repository(),
            store: backend.event_store::<Agg<A>>(),
        }
    }

    /// The aggregate's current state, rebuilt from its events.
    ///
    /// # Errors
    /// [`CommandError::Infrastructure`] when the store cannot be read.
    pub async fn load(&self, aggregate_id: &str) -> Result<A, CommandError<A::Error>> {
        let mut context = self.rebuild(aggregate_id).await?;
        Ok(std::mem::take(&mut context.aggregate().0))
    }

    /// The last value `pick` finds among the aggregate's events up to
    /// `sequence` (streamed, one at a time): e.g. what the commit a retried
    /// `Idempotency-Key` names had added.
    ///
    /// # Errors
    /// [`CommandError::Infrastructure`] when the store cannot be read.
    pub async fn last_up_to<T>(
        &self,
        aggregate_id: &str,
        sequence: i64,
        pick: impl Fn(&A::Event) -> Option<T>,
    ) -> Result<Option<T>, CommandError<A::Error>> {
        let mut events = self
            .repository
            .stream_events::<Agg<A>>(aggregate_id)
            .await
            .map_err(from_persistence_error)?;
        let mut found = None;
        while let Some(envelope) = events.next::<Agg<A>>(&[]).await {
            let envelope = envelope.map_err(from_persistence_error)?;
            if version(envelope.sequence) > sequence {
                break;
            }
            if let Some(value) = pick(&envelope.payload.0) {
                found = Some(value);
            }
        }
        Ok(found)
    }

    /// The aggregate's state and version, its events applied one at a time
    /// as they stream from the store (see the module's "Memory").
    ///
    /// # Errors
    /// [`CommandError::Infrastructure`] when the store cannot be read or a
    /// stored event does not decode.
    async fn rebuild(
        &self,
        aggregate_id: &str,
    ) -> Result<EventStoreAggregateContext<Agg<A>>, CommandError<A::Error>> {
        let mut events = self
            .repository
            .stream_events::<Agg<A>>(aggregate_id)
            .await
            .map_err(from_persistence_error)?;
        let mut context = EventStoreAggregateContext {
            aggregate_id: aggregate_id.to_owned(),
            aggregate: Agg::<A>::default(),
            current_sequence: 0,
            current_snapshot: None,
        };
        while let Some(envelope) = events.next::<Agg<A>>(&[]).await {
            let envelope = envelope.map_err(from_persistence_error)?;
            context.current_sequence = envelope.sequence;
            context.aggregate.apply(envelope.payload);
        }
        Ok(context)
    }

    /// Decides and appends. Either every event of the decision is committed or
    /// none is. When another command on the same aggregate commits between
    /// the load and the append, the command is decided again on the new
    /// state (a few times), as if the two had arrived one after the other.
    ///
    /// # Errors
    /// [`CommandError::Rejected`] when the domain refuses, [`CommandError::Conflict`]
    /// when other commands kept committing first, [`CommandError::Infrastructure`]
    /// when the store fails.
    pub async fn execute(
        &self,
        aggregate_id: &str,
        command: &A::Command,
        metadata: &Metadata,
    ) -> Result<Committed, CommandError<A::Error>> {
        self.execute_at(aggregate_id, command, metadata, None).await
    }

    /// Like [`Executor::execute`], but only if the aggregate is at version
    /// `expected` (as the caller last read it). The check and the commit are
    /// one optimistic step: if another command commits between the load and
    /// the append, the append fails; so a stale version never slips through,
    /// whichever process wrote in between. This is the only place versions
    /// are checked.
    ///
    /// # Errors
    /// As [`Executor::execute`]; [`CommandError::VersionMismatch`] when the
    /// aggregate exists and is not at `expected` (an aggregate with no events
    /// is left to the domain, which refuses commands it cannot take).
    pub async fn execute_at(
        &self,
        aggregate_id: &str,
        command: &A::Command,
        metadata: &Metadata,
        expected: Option<i64>,
    ) -> Result<Committed, CommandError<A::Error>> {
        // The span carries the request id that goes into the event
        // metadata, so a log line and an event can be matched; its trace
        // context goes there too (`traced`), so the relay and the
        // projections continue the caller's trace.
        let span = tracing::info_span!(
            "command",
            aggregate.r#type = A::TYPE,
            aggregate.id = %aggregate_id,
            request.id = %metadata.request_id,
            actor = %metadata.actor,
        );
        tracing::Instrument::instrument(
            self.retrying(aggregate_id, command, metadata, expected),
            span,
        )
        .await
    }

    async fn retrying(
        &self,
        aggregate_id: &str,
        command: &A::Command,
        metadata: &Metadata,
        expected: Option<i64>,
    ) -> Result<Committed, CommandError<A::Error>> {
        let attempts = if expected.is_some() { 1 } else { ATTEMPTS };
        let mut attempt = 1;
        loop {
            match self
                .attempt(aggregate_id, command, metadata, expected)
                .await
            {
                Err(CommandError::Conflict) if attempt < attempts => attempt += 1,
                outcome => return outcome,
            }
        }
    }

    async fn attempt(
        &self,
        aggregate_id: &str,
        command: &A::Command,
        metadata: &Metadata,
        expected: Option<i64>,
    ) -> Result<Committed, CommandError<A::Error>> {
        let mut context = self.rebuild(aggregate_id).await?;
        // Looked up after the state is read, on every attempt: a commit of
        // the same key that the state already holds is found here; one made
        // after the state was read takes the sequence this attempt wants, so
        // this attempt loses the optimistic lock and, decided again, finds it.
        if let Some(earlier) = self.replay(metadata).await? {
            return Ok(earlier);
        }
        let current = version(context.current_sequence);
        if let Some(expected) = expected.filter(|e| current != 0 && *e != current) {
            return Err(CommandError::VersionMismatch { expected, current });
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
                traced(metadata),
            )
            .await
            .map_err(from_aggregate_error)?;
        let sequence = envelopes.last().map(|e| e.sequence).unwrap_or_default();
        let position = self.position_after_commit(aggregate_id, sequence).await;
        Ok(Committed {
            aggregate_id: aggregate_id.to_owned(),
            sequence: version(sequence),
            position,
            events: count,
            replayed: false,
        })
    }

    /// The earlier commit of a command carrying the same `Idempotency-Key`
    /// (scoped to its sender) as `metadata`, if there is one; `None` when
    /// `metadata` carries no key.
    ///
    /// # Errors
    /// [`CommandError::IdempotencyKeyReused`] when that commit was made for
    /// a different request; [`CommandError::Infrastructure`] when the store
    /// cannot be read.
    pub async fn replay(
        &self,
        metadata: &Metadata,
    ) -> Result<Option<Committed>, CommandError<A::Error>> {
        let Some(idempotency) = &metadata.idempotency else {
            return Ok(None);
        };
        let found = self
            .backend
            .find_idempotent(A::TYPE, &idempotency.key)
            .await
            .map_err(|error| CommandError::Infrastructure(error.to_string()))?;
        match found {
            None => Ok(None),
            Some(earlier) if earlier.request != idempotency.request => {
                Err(CommandError::IdempotencyKeyReused)
            }
            Some(earlier) => Ok(Some(Committed {
                aggregate_id: earlier.aggregate_id,
                sequence: earlier.sequence,
                position: earlier.position,
                events: 0,
                replayed: true,
            })),
        }
    }
}

impl<A> Executor<A>
where
    A: domain::Aggregate,
    Agg<A>: cqrs_es::Aggregate,
{
    /// The position of a committed event, read back from the store. The
    /// command is committed already, so a failure here must not fail it (an
    /// error answer invites a retry that writes the change twice, issue
    /// #30): the position is then reported as 0 ("unknown": read-your-writes
    /// does not wait for it) with a warning.
    async fn position_after_commit(&self, aggregate_id: &str, sequence: usize) -> i64 {
        match self
            .backend
            .position_of(A::TYPE, aggregate_id, sequence)
            .await
        {
            Ok(position) => position.unwrap_or_default(),
            Err(error) => {
                tracing::warn!(error = %error, event.sequence = sequence, "committed, but its log position could not be read back");
                0
            }
        }
    }
}

/// The metadata map of a command's events: `metadata`, plus the
/// `traceparent` of the current span (the executor's `command` span) when
/// OpenTelemetry records it.
fn traced(metadata: &Metadata) -> std::collections::HashMap<String, String> {
    let mut map = metadata.to_map();
    if let Some(parent) = telemetry::trace::current() {
        map.insert(domain::metadata::TRACEPARENT.to_owned(), parent.to_string());
    }
    map
}

/// cqrs-es counts sequences in `usize`; basel's versions are `i64`
/// everywhere else (tables, JSON, expected versions).
fn version(sequence: usize) -> i64 {
    i64::try_from(sequence).unwrap_or(i64::MAX)
}

fn from_persistence_error<E: std::error::Error>(error: PersistenceError) -> CommandError<E> {
    from_aggregate_error(AggregateError::from(error))
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
