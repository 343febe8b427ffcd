//! Projections fed by the JetStream log (server mode).
//!
//! Each projection of [`crate::registry`] is a durable pull consumer
//! (`basel_<name>`) with explicit acks, filtered to the subjects of the
//! aggregate it reads. A batch of
//! messages is applied in one transaction together with the checkpoint; only
//! after the commit are the messages acknowledged. So a crash anywhere
//! redelivers, and redelivery is harmless (per-aggregate sequence guards).
//!
//! - A gap (an aggregate's sequence ahead of the last applied + 1) is
//!   negatively acknowledged with a delay: retried, never skipped.
//! - A message that does not decode halts the projection: everything before
//!   it in the batch is committed, it and everything after stay unacked, the
//!   reason (subject and stream sequence) is stored with the checkpoint,
//!   logged, and reported by `/readyz` and `/metrics`.
//! - A database failure naks the batch (redelivered a second later) and the
//!   consumer is re-created after a pause; so is a lost NATS connection.

use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::{self, AckKind};
use futures::{FutureExt, StreamExt};
use sqlx::Row;

use domain::envelope::Envelope;

use crate::log::StoredEvent;
use crate::registry::Projection;
use crate::runner::{now, Projector};
use crate::ProjectionError;

/// Messages applied per transaction, at most.
const BATCH: usize = 500;

/// Pause before re-creating a consumer after a failure.
const RETRY: Duration = Duration::from_secs(1);

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

    /// The durable consumer's name for `projection` (`basel_<name>`).
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
        let durable = LogSource::durable(projection);
        if applied == 0 {
            // Nothing applied (a new store, or a read model a migration
            // emptied to rebuild): a consumer left from before would resume
            // where it stopped, so it starts over from the stream's first message.
            match stream.delete_consumer(&durable).await {
                Ok(_) => {
                    tracing::info!(projection.name = name, "consumer restarted from the start")
                }
                Err(error) => {
                    tracing::debug!(projection.name = name, %error, "no consumer to restart")
                }
            }
        }
        let consumer: PullConsumer = stream
            .get_or_create_consumer(
                &durable,
                pull::Config {
                    durable_name: Some(durable.clone()),
                    filter_subject: source.filter(projection),
                    ack_policy: AckPolicy::Explicit,
                    ack_wait: Duration::from_secs(30),
                    max_ack_pending: 20_000,
                    deliver_policy: match u64::try_from(applied) {
                        Ok(applied) if applied > 0 => DeliverPolicy::ByStartSequence {
                            start_sequence: applied + 1,
                        },
                        _ => DeliverPolicy::All,
                    },
                    ..pull::Config::default()
                },
            )
            .await
            .map_err(|e| format!("consumer {durable}: {e}"))?;
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

    /// Applies a batch in one transaction, then acks what was applied.
    async fn apply_messages(
        &self,
        projection: Projection,
        batch: Vec<jetstream::Message>,
    ) -> Result<Option<Stopped>, String> {
        let name = projection.name();
        match self.commit_batch(projection, &batch).await {
            Ok(outcome) => {
                for message in &batch[..outcome.handled] {
                    let kind = if outcome.retry.contains(&sequence_of(message)) {
                        AckKind::Nak(Some(Duration::from_millis(250)))
                    } else {
                        AckKind::Ack
                    };
                    if let Err(error) = message.ack_with(kind).await {
                        tracing::debug!(error = %error, "ack failed; the message will be redelivered and skipped");
                    }
                }
                self.record(name, outcome.position);
                match outcome.poison {
                    Some(reason) => {
                        tracing::error!(projection.name = name, reason = %reason, "projection halted on a message it cannot decode");
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

    async fn commit_batch(
        &self,
        projection: Projection,
        batch: &[jetstream::Message],
    ) -> Result<BatchOutcome, ProjectionError> {
        let name = projection.name();
        let mut tx = self.db.begin().await?;
        sqlx::query("UPDATE projection_checkpoints SET updated_at = $1 WHERE name = $2")
            .bind(now())
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(
            "SELECT position, stream_sequence FROM projection_checkpoints WHERE name = $1",
        )
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        let mut position: i64 = row.try_get("position")?;
        let mut stream_sequence: i64 = row.try_get("stream_sequence")?;
        let mut outcome = BatchOutcome::default();
        let mut contiguous = true;
        for message in batch {
            let sequence = sequence_of(message);
            let result = match decode(message) {
                Ok(event) => projection
                    .apply(&mut tx, &event)
                    .await
                    .map(|()| event.position),
                Err(reason) => Err(ProjectionError::Decode {
                    position: 0,
                    event_type: String::new(),
                    reason,
                }),
            };
            match result {
                Ok(event_position) => {
                    if contiguous {
                        position = position.max(event_position);
                        stream_sequence = stream_sequence.max(sequence);
                    }
                }
                Err(ProjectionError::Gap { .. }) => {
                    contiguous = false;
                    outcome.retry.push(sequence);
                }
                Err(ProjectionError::Decode { reason, .. }) => {
                    let reason = format!(
                        "message on subject {} at stream sequence {sequence} does not decode: {reason}",
                        message.subject
                    );
                    sqlx::query("UPDATE projection_checkpoints SET halted = $1 WHERE name = $2")
                        .bind(&reason)
                        .bind(name)
                        .execute(&mut *tx)
                        .await?;
                    outcome.poison = Some(reason);
                    break;
                }
                Err(other) => return Err(other),
            }
            outcome.handled += 1;
        }
        sqlx::query(
            "UPDATE projection_checkpoints SET position = $1, stream_sequence = $2 WHERE name = $3",
        )
        .bind(position)
        .bind(stream_sequence)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        outcome.position = position;
        Ok(outcome)
    }
}

#[derive(Default)]
struct BatchOutcome {
    /// How many messages of the batch were handled (applied, skipped or to retry).
    handled: usize,
    /// Stream sequences to retry (gaps).
    retry: Vec<i64>,
    /// Why the projection halts.
    poison: Option<String>,
    /// The checkpoint's position after the batch.
    position: i64,
}

fn sequence_of(message: &jetstream::Message) -> i64 {
    message
        .info()
        .map(|info| i64::try_from(info.stream_sequence).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
