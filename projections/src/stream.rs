//! Projections fed by the JetStream log (server mode).
//!
//! Each projection of [`crate::registry`] is a durable pull consumer named
//! `basel_<projection>` ([`LogSource::durable`]) with explicit acks,
//! filtered to the subjects of the aggregate it reads. A restarted process
//! resumes it, unless it cannot deliver everything after the projection's
//! own checkpoint (the checkpoint is the truth, the consumer only a
//! delivery channel): then it is re-created from the stream sequence after
//! the checkpoint ([`durable_consumer`]). A batch of
//! messages is applied in one transaction together with the checkpoint; only
//! after the commit are the messages acknowledged. So a crash anywhere
//! redelivers, and redelivery is harmless (per-aggregate sequence guards).
//!
//! **No silent divergence.** A batch is applied in position order, and
//! whatever events of the projection's aggregate type the stream did not
//! hand over (a delivery lost with a connection, a consumer re-created past
//! it) are read from the event store and applied first ([`crate::fill`]).
//! So the checkpoint's position always means "every event of this type up
//! to here is applied", and its stream sequence never passes a message that
//! was not handled. An event whose aggregate's earlier events are missing
//! from the store too cannot be applied: the projection halts (below).
//!
//! - A message that does not decode, or an event that cannot be applied
//!   (a gap the store cannot fill), halts the projection: everything before
//!   it is committed, it and everything after stay unacked, the reason
//!   (subject and stream sequence, or the event) is stored with the
//!   checkpoint, logged, and reported by `/readyz` and `/metrics`.
//! - A database failure naks the batch (redelivered a second later) and the
//!   consumer is bound again after a pause; so after a lost NATS connection.
//!
//! Several projector processes may bind the same durable consumer (a
//! standby): the server splits the messages between them, and each batch
//! fills from the store what the other process was handed, so both stay
//! correct (the checkpoint row is locked per batch, sequence guards skip
//! what was applied).

use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::context::ConsumerInfoErrorKind;
use async_nats::jetstream::{self, AckKind};
use futures::{FutureExt, StreamExt};
use sqlx::Row;

use domain::envelope::Envelope;

use crate::log::StoredEvent;
use crate::progress::Changed;
use crate::registry::Projection;
use crate::runner::{now, Projector};
use crate::ProjectionError;

/// Messages applied per transaction, at most.
const BATCH: usize = 500;

/// Pause before re-creating a consumer after a failure.
const RETRY: Duration = Duration::from_secs(1);

/// How long a message handed to a consumer may stay unacknowledged before
/// the server hands it out again (a process that died with it, a lost
/// acknowledgement); applying it twice changes nothing.
const ACK_WAIT: Duration = Duration::from_secs(10);

/// Where the log is.
#[derive(Clone)]
pub struct LogSource {
    /// JetStream.
    pub context: jetstream::Context,
    /// The stream's name.
    pub stream: String,
    /// The subject prefix (`basel.events`).
    pub subject_prefix: String,
}

impl LogSource {
    /// The subject filter of `projection`: every subject of the aggregate it
    /// reads (`<prefix>.<aggregate_type>.>`).
    pub fn filter(&self, projection: Projection) -> String {
        format!(
            "{}.{}.>",
            self.subject_prefix,
            projection.reads().type_name()
        )
    }

    /// The name of `projection`'s durable consumer (`basel_<name>`): what
    /// NATS-side monitoring and alerting watch (`nats consumer info`).
    pub fn durable(projection: Projection) -> String {
        format!("basel_{}", projection.name())
    }
}

/// Decodes one message into the event it carries.
///
/// # Errors
/// The reason, when it is not an [`Envelope`].
pub fn decode(message: &async_nats::Message) -> Result<StoredEvent, String> {
    let envelope: Envelope = serde_json::from_slice(&message.payload).map_err(|e| e.to_string())?;
    Ok(StoredEvent {
        position: envelope.position,
        aggregate_type: envelope.aggregate_type,
        aggregate_id: envelope.aggregate_id,
        sequence: envelope.sequence,
        event_type: envelope.event_type,
        event_version: envelope.event_version,
        payload: envelope.payload.to_string(),
        metadata: envelope.metadata.to_string(),
    })
}

enum Stopped {
    Halted,
}

impl Projector {
    /// Runs every projection as a JetStream consumer until `shutdown`.
    pub async fn run_stream(
        self,
        source: LogSource,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) {
        self.run_here();
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let mut tasks = tokio::task::JoinSet::new();
        for projection in Projection::ALL {
            let projector = self.clone();
            let source = source.clone();
            let mut stopped = stopped.clone();
            tasks.spawn(async move {
                tokio::select! {
                    () = projector.consume(projection, &source) => {}
                    _ = stopped.wait_for(|s| *s) => {}
                }
            });
        }
        shutdown.await;
        let _ = stop.send(true);
        while tasks.join_next().await.is_some() {}
    }

    /// One projection's consumer, re-created after failures, parked once halted.
    async fn consume(&self, projection: Projection, source: &LogSource) {
        loop {
            match self.consume_once(projection, source).await {
                Ok(Stopped::Halted) => return std::future::pending().await,
                Err(error) => {
                    tracing::warn!(projection.name = projection.name(), error = %error, "projection consumer interrupted; retrying");
                    tokio::time::sleep(RETRY).await;
                }
            }
        }
    }

    async fn consume_once(
        &self,
        projection: Projection,
        source: &LogSource,
    ) -> Result<Stopped, String> {
        let name = projection.name();
        let row = sqlx::query(
            "SELECT position, stream_sequence, halted FROM projection_checkpoints WHERE name = $1",
        )
        .bind(name)
        .fetch_one(&self.db)
        .await
        .map_err(|e| e.to_string())?;
        let position: i64 = row.try_get("position").map_err(|e| e.to_string())?;
        self.record(name, position);
        if row
            .try_get::<Option<String>, _>("halted")
            .map_err(|e| e.to_string())?
            .is_some()
        {
            return Ok(Stopped::Halted);
        }
        let applied: i64 = row.try_get("stream_sequence").map_err(|e| e.to_string())?;
        let stream = source
            .context
            .get_stream(&source.stream)
            .await
            .map_err(|e| format!("stream {}: {e}", source.stream))?;
        let consumer = durable_consumer(&stream, source, projection, applied).await?;
        let mut messages = consumer
            .stream()
            .max_messages_per_batch(BATCH)
            .heartbeat(Duration::from_secs(2))
            .expires(Duration::from_secs(10))
            .messages()
            .await
            .map_err(|e| e.to_string())?;
        loop {
            let first = match messages.next().await {
                Some(Ok(message)) => message,
                Some(Err(error)) => return Err(error.to_string()),
                None => return Err("the message stream ended".into()),
            };
            let mut batch = vec![first];
            while batch.len() < BATCH {
                match messages.next().now_or_never() {
                    Some(Some(Ok(message))) => batch.push(message),
                    _ => break,
                }
            }
            if let Some(stopped) = self.apply_messages(projection, batch).await? {
                return Ok(stopped);
            }
        }
    }

    /// Applies a batch in one transaction, then acks what was handled.
    async fn apply_messages(
        &self,
        projection: Projection,
        batch: Vec<jetstream::Message>,
    ) -> Result<Option<Stopped>, String> {
        let name = projection.name();
        match self.commit_batch(projection, &batch).await {
            Ok(outcome) => {
                for message in &batch[..outcome.handled] {
                    if let Err(error) = message.ack_with(AckKind::Ack).await {
                        tracing::debug!(error = %error, "ack failed; the message will be redelivered and skipped");
                    }
                }
                if outcome.filled > 0 {
                    tracing::warn!(
                        projection.name = name,
                        events = outcome.filled,
                        "the stream skipped events of this projection; applied them from the event store"
                    );
                    self.count_filled(name, outcome.filled);
                }
                self.advance(projection, outcome.position, &outcome.changed);
                match outcome.halt {
                    Some(reason) => {
                        tracing::error!(projection.name = name, reason = %reason, "projection halted");
                        Ok(Some(Stopped::Halted))
                    }
                    None => Ok(None),
                }
            }
            Err(error) => {
                for message in &batch {
                    let _ = message
                        .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                        .await;
                }
                Err(error.to_string())
            }
        }
    }

    /// Applies the decodable prefix of `batch` in position order, with every
    /// event of the projection's aggregate type the stream skipped filled in
    /// from the store ([`crate::fill`]), and moves the checkpoint in the same
    /// transaction. The checkpoint's position then covers every event of that
    /// type up to it; its stream sequence (where a re-created consumer starts)
    /// covers only messages handled here.
    async fn commit_batch(
        &self,
        projection: Projection,
        batch: &[jetstream::Message],
    ) -> Result<BatchOutcome, ProjectionError> {
        let name = projection.name();
        let mut tx = self.db.begin().await?;
        // The write comes first: it locks the checkpoint row for the batch.
        let row = sqlx::query(
            "UPDATE projection_checkpoints SET updated_at = $1 WHERE name = $2 \
             RETURNING position, stream_sequence",
        )
        .bind(now())
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        let mut position: i64 = row.try_get("position")?;
        // Another process moved the checkpoint past what this one applied:
        // what it changed is not known here.
        let moved_elsewhere = position > self.position(name);
        let mut stream_sequence: i64 = row.try_get("stream_sequence")?;
        let mut outcome = BatchOutcome::default();
        let (mut events, mut handled_up_to) = decoded(batch, stream_sequence, &mut outcome);
        events.retain(|e| e.position > position);
        events.sort_by_key(|e| e.position);
        events.dedup_by_key(|e| e.position);
        outcome.filled = crate::fill::complete(
            &mut tx,
            projection.reads().type_name(),
            position,
            &mut events,
        )
        .await?;
        for event in &events {
            match self.apply_filling(&mut tx, projection, event).await {
                Ok(filled) => {
                    outcome.filled += filled;
                    position = event.position;
                }
                Err(error @ (ProjectionError::Gap { .. } | ProjectionError::Decode { .. })) => {
                    outcome.halt = Some(format!(
                        "event at position {} ({}:{}:{}) cannot be applied: {error}",
                        event.position, event.aggregate_type, event.aggregate_id, event.sequence
                    ));
                    // Nothing after the last applied event counts as handled.
                    handled_up_to = stream_sequence;
                    outcome.handled = 0;
                    break;
                }
                Err(other) => return Err(other),
            }
        }
        stream_sequence = handled_up_to;
        save_checkpoint(
            &mut tx,
            name,
            position,
            stream_sequence,
            outcome.halt.as_deref(),
        )
        .await?;
        outcome.changed = if moved_elsewhere {
            Changed::Everything
        } else {
            Changed::of(&events)
        };
        crate::progress::announce(&mut tx, projection, position, &outcome.changed).await?;
        tx.commit().await?;
        outcome.position = position;
        Ok(outcome)
    }

    /// Applies `event`; when its aggregate's earlier events are missing from
    /// the projection, applies them from the store first. Returns how many it
    /// filled in.
    ///
    /// # Errors
    /// [`ProjectionError::Gap`] when the store lacks them too (the projection
    /// must halt), or the error of applying.
    async fn apply_filling(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        projection: Projection,
        event: &StoredEvent,
    ) -> Result<usize, ProjectionError> {
        let (aggregate_id, expected, got) = match projection.apply(tx, event).await {
            Err(ProjectionError::Gap {
                aggregate_id,
                expected,
                got,
            }) => (aggregate_id, expected, got),
            other => return other.map(|()| 0),
        };
        let earlier =
            crate::fill::sequences(tx, &event.aggregate_type, &aggregate_id, expected, got).await?;
        if i64::try_from(earlier.len()).ok() != Some(got - expected) {
            return Err(ProjectionError::Gap {
                aggregate_id,
                expected,
                got,
            });
        }
        for missing in &earlier {
            projection.apply(tx, missing).await?;
        }
        projection.apply(tx, event).await?;
        Ok(earlier.len())
    }
}

#[derive(Default)]
struct BatchOutcome {
    /// How many messages of the batch were handled (applied or skipped as
    /// applied already); they are acknowledged.
    handled: usize,
    /// Events applied from the store because the stream had not delivered them.
    filled: usize,
    /// Why the projection halts.
    halt: Option<String>,
    /// The checkpoint's position after the batch.
    position: i64,
    /// What the batch changed, for the read caches.
    changed: Changed,
}

fn sequence_of(message: &jetstream::Message) -> i64 {
    message
        .info()
        .map(|info| i64::try_from(info.stream_sequence).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Why the durable consumer as it stands cannot serve the checkpoint at
/// `applied` (its stream sequence); `None` when it can be resumed.
fn stale_reason(info: &jetstream::consumer::Info, filter: &str, applied: u64) -> Option<String> {
    let config = &info.config;
    if config.filter_subject != filter || config.ack_policy != AckPolicy::Explicit {
        return Some(format!(
            "its filter {:?} or ack policy {:?} is not this version's",
            config.filter_subject, config.ack_policy
        ));
    }
    if info.ack_floor.stream_sequence > applied {
        // Acknowledged past the checkpoint (checkpoints reset for a
        // rebuild, a restored database): it would never hand those over.
        return Some(format!(
            "it acknowledged up to stream sequence {}, past the checkpoint at {applied}",
            info.ack_floor.stream_sequence
        ));
    }
    if info.delivered.stream_sequence > applied && info.num_ack_pending > 0 && info.num_waiting == 0
    {
        // Messages past the checkpoint are out with a process that is gone
        // (nobody pulls): re-created, they come at once instead of after
        // the ack wait.
        return Some(format!(
            "{} messages past the checkpoint are out with no process pulling",
            info.num_ack_pending
        ));
    }
    None
}

/// `projection`'s durable consumer, resumed when it delivers everything
/// after the checkpoint's stream sequence `applied` (unacknowledged
/// messages come again, later ones go on), else re-created from there
/// (logged with the reason).
///
/// # Errors
/// The reason, when NATS does not answer or refuses.
async fn durable_consumer(
    stream: &jetstream::stream::Stream,
    source: &LogSource,
    projection: Projection,
    applied: i64,
) -> Result<PullConsumer, String> {
    let durable = LogSource::durable(projection);
    let filter = source.filter(projection);
    let applied = u64::try_from(applied).unwrap_or(0);
    match stream.consumer_info(&durable).await {
        Ok(info) => match stale_reason(&info, &filter, applied) {
            None => {
                return stream
                    .get_consumer(&durable)
                    .await
                    .map_err(|e| format!("consumer {durable}: {e}"))
            }
            Some(reason) => {
                tracing::info!(projection.name = projection.name(), consumer = %durable, reason = %reason, "re-creating the durable consumer from the checkpoint");
                stream
                    .delete_consumer(&durable)
                    .await
                    .map_err(|e| format!("cannot delete consumer {durable}: {e}"))?;
            }
        },
        Err(error) if error.kind() == ConsumerInfoErrorKind::NotFound => {}
        Err(error) => return Err(format!("consumer {durable}: {error}")),
    }
    stream
        .create_consumer(pull::Config {
            durable_name: Some(durable.clone()),
            name: Some(durable.clone()),
            description: Some(format!("basel projection {}", projection.name())),
            filter_subject: filter,
            ack_policy: AckPolicy::Explicit,
            ack_wait: ACK_WAIT,
            max_ack_pending: 20_000,
            deliver_policy: match applied {
                0 => DeliverPolicy::All,
                applied => DeliverPolicy::ByStartSequence {
                    start_sequence: applied + 1,
                },
            },
            ..pull::Config::default()
        })
        .await
        .map_err(|e| format!("cannot create consumer {durable}: {e}"))
}

/// The decodable prefix of `batch` as events, and the last stream sequence
/// handled (from `from`); a message that does not decode halts the
/// projection (`outcome.halt`), and it and what follows are not handled.
fn decoded(
    batch: &[jetstream::Message],
    from: i64,
    outcome: &mut BatchOutcome,
) -> (Vec<StoredEvent>, i64) {
    let mut events = Vec::with_capacity(batch.len());
    let mut handled_up_to = from;
    for message in batch {
        let sequence = sequence_of(message);
        match decode(message) {
            Ok(event) => events.push(event),
            Err(reason) => {
                outcome.halt = Some(format!(
                    "message on subject {} at stream sequence {sequence} does not decode: {reason}",
                    message.subject
                ));
                // After the cause is fixed the consumer must read it again.
                handled_up_to = handled_up_to.min(sequence - 1);
                break;
            }
        }
        handled_up_to = handled_up_to.max(sequence);
        outcome.handled += 1;
    }
    (events, handled_up_to)
}

/// Moves `name`'s checkpoint to `position` and `stream_sequence` in `tx`,
/// halting it with `halt` when given.
async fn save_checkpoint(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    name: &str,
    position: i64,
    stream_sequence: i64,
    halt: Option<&str>,
) -> Result<(), ProjectionError> {
    if let Some(reason) = halt {
        sqlx::query("UPDATE projection_checkpoints SET halted = $1 WHERE name = $2")
            .bind(reason)
            .bind(name)
            .execute(&mut **tx)
            .await?;
    }
    sqlx::query(
        "UPDATE projection_checkpoints SET position = $1, stream_sequence = $2 WHERE name = $3",
    )
    .bind(position)
    .bind(stream_sequence)
    .bind(name)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
