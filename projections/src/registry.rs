//! The projection registry: the one list of projections, and for each its
//! name, the aggregate whose events it reads, how it applies an event live,
//! how replay folds it in memory, and the tables it keeps.
//!
//! Why an enum and not a trait: the set of projections is closed and known at
//! compile time, and every part of the read side has to say something about
//! each of them — the live runner, the JetStream consumers, replay, the
//! lag/heads behind `/readyz` and `/metrics`. With an enum each of those is an
//! exhaustive `match` (no `_ =>` arm anywhere), so adding a projection is
//! adding a variant and the compiler lists every place that must learn about
//! it. A trait would need boxed futures for the async `apply` and a list of
//! trait objects, and would still let a caller hold a name that means
//! nothing.
//!
//! Strings only cross this boundary at the edges: a projection's name is its
//! checkpoint key and durable consumer, an aggregate's type string is stored
//! with each event. Both are derived here — names from each module's `NAME`,
//! type strings from [`domain::Aggregate::TYPE`] — and a string read back
//! ([`Projection::named`], [`AggregateKind::of`]) either resolves to a
//! variant or is an error; nothing falls back to a default.

use sqlx::{Any, Transaction};

use domain::api_key::ApiKey;
use domain::authority::Authority;
use domain::notice::Notice;
use domain::steward::Steward;
use domain::Aggregate;

use crate::log::StoredEvent;
use crate::rows::Table;
use crate::{api_keys, directory, history, stewards, ProjectionError};

/// An aggregate whose events the read side reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggregateKind {
    /// [`domain::authority::Authority`]: one per country.
    Authority,
    /// [`domain::api_key::ApiKey`]: one per registered e-mail.
    ApiKey,
    /// [`domain::steward::Steward`]: one per data steward.
    Steward,
    /// [`domain::notice::Notice`]: one per announcement. No projection reads
    /// it: the mail outbox (crate `mail`) does; projections pass it by.
    Notice,
}

impl AggregateKind {
    /// Every aggregate the read side knows.
    pub const ALL: [Self; 4] = [Self::Authority, Self::ApiKey, Self::Steward, Self::Notice];

    /// The type string stored with its events (and used in NATS subjects),
    /// as the aggregate itself declares it.
    pub const fn type_name(self) -> &'static str {
        match self {
            Self::Authority => <Authority as Aggregate>::TYPE,
            Self::ApiKey => <ApiKey as Aggregate>::TYPE,
            Self::Steward => <Steward as Aggregate>::TYPE,
            Self::Notice => <Notice as Aggregate>::TYPE,
        }
    }

    /// The aggregate `event` belongs to.
    ///
    /// # Errors
    /// [`ProjectionError::Decode`] when its type string names no aggregate
    /// the read side knows: such an event halts a projection loudly rather
    /// than being skipped.
    pub fn of(event: &StoredEvent) -> Result<Self, ProjectionError> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.type_name() == event.aggregate_type)
            .ok_or_else(|| {
                event.undecodable(format!("unknown aggregate type {:?}", event.aggregate_type))
            })
    }
}

/// A projection: a consumer of the log that keeps read tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Projection {
    /// [`directory`]: one row per country, as clients read it.
    Directory,
    /// [`history`]: one row per authority event, for auditors.
    History,
    /// [`api_keys`]: key hash → status.
    ApiKeys,
    /// [`stewards`]: token hash → steward.
    Stewards,
}

impl Projection {
    /// Every projection, in the order they are stepped.
    pub const ALL: [Self; 4] = [
        Self::Directory,
        Self::History,
        Self::ApiKeys,
        Self::Stewards,
    ];

    /// Its name: the checkpoint key, the durable consumer's suffix, the
    /// `projection.name` in logs and metrics.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Directory => directory::NAME,
            Self::History => history::NAME,
            Self::ApiKeys => api_keys::NAME,
            Self::Stewards => stewards::NAME,
        }
    }

    /// The projection called `name` (a checkpoint row's key).
    ///
    /// # Errors
    /// [`ProjectionError::Corrupt`] when no projection has that name.
    pub fn named(name: &str) -> Result<Self, ProjectionError> {
        Self::ALL
            .into_iter()
            .find(|projection| projection.name() == name)
            .ok_or_else(|| ProjectionError::Corrupt(format!("unknown projection {name:?}")))
    }

    /// The aggregate whose events it reads; events of other aggregates pass
    /// it by. (One each today; a projection reading several would make this
    /// a slice, and its JetStream filter a list of subjects.)
    pub const fn reads(self) -> AggregateKind {
        match self {
            Self::Directory | Self::History => AggregateKind::Authority,
            Self::ApiKeys => AggregateKind::ApiKey,
            Self::Stewards => AggregateKind::Steward,
        }
    }

    /// The read table clients see: rebuilt by replay and compared by
    /// `basel replay --verify`.
    pub const fn table(self) -> Table {
        match self {
            Self::Directory => directory::TABLE,
            Self::History => history::TABLE,
            Self::ApiKeys => api_keys::TABLE,
            Self::Stewards => stewards::TABLE,
        }
    }

    /// Tables it keeps beside its read table (per-aggregate versions): rebuilt
    /// by replay, not compared.
    pub const fn bookkeeping(self) -> &'static [Table] {
        match self {
            Self::ApiKeys => &[api_keys::VERSIONS],
            Self::Directory | Self::History | Self::Stewards => &[],
        }
    }

    /// Applies one event to its tables inside `tx` (the live projection, in
    /// a span continuing the event's trace: [`crate::trace`]); applying it
    /// twice changes nothing.
    ///
    /// # Errors
    /// Decode (including an unknown aggregate type), gap or database errors.
    pub(crate) async fn apply(
        self,
        tx: &mut Transaction<'_, Any>,
        event: &StoredEvent,
    ) -> Result<(), ProjectionError> {
        if AggregateKind::of(event)? != self.reads() {
            return Ok(());
        }
        let span = crate::trace::apply_span(self.name(), event);
        tracing::Instrument::instrument(self.apply_own(tx, event), span).await
    }

    /// [`Projection::apply`] of an event of the aggregate it reads.
    async fn apply_own(
        self,
        tx: &mut Transaction<'_, Any>,
        event: &StoredEvent,
    ) -> Result<(), ProjectionError> {
        match self {
            Self::Directory => directory::apply(tx, event).await,
            Self::History => history::apply(tx, event).await,
            Self::ApiKeys => api_keys::apply(tx, event).await,
            Self::Stewards => stewards::apply(tx, event).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_their_projection_and_nothing_else_does() {
        for projection in Projection::ALL {
            assert_eq!(Projection::named(projection.name()).ok(), Some(projection));
        }
        assert!(matches!(
            Projection::named("authority"),
            Err(ProjectionError::Corrupt(_))
        ));
    }

    #[test]
    fn an_unknown_aggregate_type_is_a_decode_error() {
        let event = StoredEvent {
            position: 7,
            aggregate_type: "counter".into(),
            aggregate_id: "a".into(),
            sequence: 1,
            event_type: "Incremented".into(),
            event_version: "1".into(),
            payload: "{}".into(),
            metadata: "{}".into(),
        };
        assert!(matches!(
            AggregateKind::of(&event),
            Err(ProjectionError::Decode { position: 7, .. })
        ));
    }

    #[test]
    fn every_aggregate_is_read_by_some_projection() {
        for kind in AggregateKind::ALL {
            // Notices are read by the mail outbox, not by a projection.
            assert!(
                Projection::ALL.iter().any(|p| p.reads() == kind) || kind == AggregateKind::Notice,
                "{kind:?}"
            );
        }
    }
}
