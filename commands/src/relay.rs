//! The outbox relay: publishes committed events from the PostgreSQL `events`
//! table to the JetStream log (server mode).
//!
//! A command commits its events to PostgreSQL and is acknowledged; nothing
//! on that path talks to NATS, so a NATS outage never fails a write. The relay
//! then publishes every row with `published_at IS NULL`, in `position` order,
//! one at a time, awaiting each acknowledgement before the next (so the
//! stream holds events in commit order, per aggregate and overall), and marks
//! the rows published. A crash between the ack and the mark re-publishes the
//! row with the same `Nats-Msg-Id`, which JetStream drops as a duplicate.
//!
//! Exactly one relay is active: it holds a session-level PostgreSQL advisory
//! lock on its own connection. When its process dies the connection closes,
//! the lock is released and a standby takes over within a poll interval.
//!
//! Must not: publish from a cqrs-es `Query` (those run after the commit and
//! cannot fail it); publish out of position order.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, stream};
use async_nats::HeaderMap;
use bytes::Bytes;
use domain::envelope::Envelope;
use futures::StreamExt;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgListener, PgPool};
use sqlx::{Postgres, Row};

use crate::nats::NatsAccess;
use crate::store::events::COLUMNS;
use crate::store::NOTIFY_CHANNEL;

/// The advisory-lock key the active relay holds (distinct from the position lock).
pub const RELAY_LOCK_KEY: i64 = 0x6261_7365_6c72_6c79; // "baselrly"

/// Header carrying the event's log position, so consumers can report it.
pub const POSITION_HEADER: &str = "Basel-Position";

/// Header carrying the event's leaf hash in the verifiable log (hex of
/// `SHA-256(0x00 || message body)`, `crate::audit::leaf`), so the stream is
/// checked against the same tree as the store.
pub const LEAF_HASH_HEADER: &str = "Basel-Leaf-Hash";

/// Header carrying the W3C trace context of the relay's publish span (the
/// event's trace, continued), for consumers that trace.
pub const TRACEPARENT_HEADER: &str = "traceparent";

/// How many rows one pass reads.
const BATCH: i64 = 500;

/// How long to wait for one publish acknowledgement.
const ACK_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the log lives on NATS.
#[derive(Debug, Clone)]
pub struct LogSettings {
    /// The NATS server URLs, comma-separated (`nats://a:4222,nats://b:4222`).
    pub url: String,
    /// The stream's name (`BASEL_EVENTS`).
    pub stream: String,
    /// Subject prefix (`basel.events`).
    pub subject_prefix: String,
    /// Replicas when the stream is created.
    pub replicas: usize,
}

/// Why the relay could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// NATS refused or did not answer.
    #[error("NATS: {0}")]
    Nats(String),
    /// PostgreSQL failed.
    #[error("PostgreSQL: {0}")]
    Database(#[from] sqlx::Error),
}

fn nats(error: impl std::fmt::Display) -> RelayError {
    RelayError::Nats(error.to_string())
}

/// Connects to NATS without credentials or TLS of the operator's own
/// ([`connect_with`]).
///
/// # Errors
/// [`RelayError::Nats`] when the URL is unusable.
pub async fn connect(settings: &LogSettings) -> Result<jetstream::Context, RelayError> {
    connect_with(settings, &NatsAccess::default()).await
}

/// Connects to NATS at the comma-separated URLs of `settings` with `access`
/// (retrying in the background while every server is down; see
/// [`crate::nats::connect`]) and returns a JetStream context whose requests
/// time out after [`ACK_TIMEOUT`].
///
/// # Errors
/// [`RelayError::Nats`] when the URLs or `access` are unusable.
pub async fn connect_with(
    settings: &LogSettings,
    access: &NatsAccess,
) -> Result<jetstream::Context, RelayError> {
    let client = crate::nats::connect(&settings.url, access).await?;
    let mut context = jetstream::new(client);
    context.set_timeout(ACK_TIMEOUT);
    Ok(context)
}

/// The stream's configuration: every basel subject, file storage, kept
/// forever (it is the audit log), a ten-minute de-duplication window, and no
/// message can be deleted or purged (`deny_delete`, `deny_purge`).
pub fn stream_config(settings: &LogSettings) -> stream::Config {
    stream::Config {
        name: settings.stream.clone(),
        subjects: vec![format!("{}.>", settings.subject_prefix)],
        storage: stream::StorageType::File,
        retention: stream::RetentionPolicy::Limits,
        max_age: Duration::ZERO,
        duplicate_window: Duration::from_secs(600),
        num_replicas: settings.replicas.max(1),
        deny_delete: true,
        deny_purge: true,
        ..stream::Config::default()
    }
}

/// Creates the stream if it is missing. An existing stream with another
/// number of replicas than configured is updated to it (a server that
/// refuses, e.g. a single server asked for three, is logged and the stream
/// kept); settings that JetStream cannot change in place (storage,
/// retention) are logged when they differ. Deletes and purges are denied
/// by the active relay ([`Relay::run`]), after any rewrite that needs a
/// purge.
///
/// # Errors
/// [`RelayError::Nats`] when NATS cannot be reached or refuses.
pub async fn ensure_stream(
    context: &jetstream::Context,
    settings: &LogSettings,
) -> Result<stream::Stream, RelayError> {
    let wanted = stream_config(settings);
    let mut stream = context
        .get_or_create_stream(wanted.clone())
        .await
        .map_err(nats)?;
    let config = stream.info().await.map_err(nats)?.config.clone();
    if config.storage != wanted.storage || config.retention != wanted.retention {
        tracing::warn!(
            stream = %wanted.name,
            storage = %format!("{:?}", config.storage).to_lowercase(),
            retention = %format!("{:?}", config.retention).to_lowercase(),
            "the stream is not file-backed with limits retention as basel creates it; JetStream cannot change that in place: re-create the stream (and republish with `basel relay --republish-from 1`) to change it"
        );
    }
    if config.num_replicas != wanted.num_replicas {
        let replicas = stream::Config {
            num_replicas: wanted.num_replicas,
            ..config.clone()
        };
        match context.update_stream(replicas).await {
            Ok(_) => tracing::info!(
                stream = %wanted.name,
                from = config.num_replicas,
                to = wanted.num_replicas,
                "the stream's replicas now match BASEL_NATS_REPLICAS"
            ),
            Err(error) => tracing::warn!(
                stream = %wanted.name,
                replicas = config.num_replicas,
                wanted = wanted.num_replicas,
                error = %error,
                "cannot change the stream's replicas to BASEL_NATS_REPLICAS; it keeps its own"
            ),
        }
    }
    Ok(stream)
}

/// Makes a stream created before the verifiable log refuse
/// message deletes and purges, as new streams do ([`stream_config`]). A
/// server that refuses the change is logged, never fatal.
async fn deny_deletes(context: &jetstream::Context, config: stream::Config) {
    if config.deny_delete && config.deny_purge {
        return;
    }
    let name = config.name.clone();
    let tightened = stream::Config {
        deny_delete: true,
        deny_purge: true,
        ..config
    };
    match context.update_stream(tightened).await {
        Ok(_) => tracing::info!(stream = %name, "the stream now denies deletes and purges"),
        Err(error) => {
            tracing::warn!(stream = %name, error = %error, "cannot make the stream deny deletes and purges")
        }
    }
}

/// Whether an unpublished event lies before a published one. The relay
/// publishes in position order and marks what it published, so that never
/// happens in the course of relaying: only sealing an old event in place
/// (`identity::legacy`) leaves such a hole, and its copy on the stream is
/// out of date.
///
/// # Errors
/// [`RelayError::Database`] on failure.
pub async fn stream_rewrite_due(conn: &mut PoolConnection<Postgres>) -> Result<bool, RelayError> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM events WHERE published_at IS NULL \
         AND position < (SELECT MAX(position) FROM events WHERE published_at IS NOT NULL))",
    )
    .fetch_one(&mut **conn)
    .await?)
}

/// Events still waiting to be published.
///
/// # Errors
/// [`RelayError::Database`] on failure.
pub async fn backlog(pool: &PgPool) -> Result<i64, RelayError> {
    Ok(
        sqlx::query_scalar("SELECT COUNT(*) FROM events WHERE published_at IS NULL")
            .fetch_one(pool)
            .await?,
    )
}

/// Whether a relay is the active one (holds [`RELAY_LOCK_KEY`]) or a
/// standby, for `/metrics`. Cheap to clone; clones share the state.
#[derive(Debug, Clone, Default)]
pub struct RelayStatus(Arc<AtomicBool>);

impl RelayStatus {
    /// Whether the relay holds the lock and publishes now.
    pub fn is_active(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self, active: bool) {
        self.0.store(active, Ordering::Relaxed);
    }
}

/// The outbox relay.
#[derive(Clone)]
pub struct Relay {
    pool: PgPool,
    context: jetstream::Context,
    settings: LogSettings,
    status: RelayStatus,
}

impl Relay {
    /// A relay from `pool` to the stream in `settings`.
    pub fn new(pool: PgPool, context: jetstream::Context, settings: LogSettings) -> Self {
        Self {
            pool,
            context,
            settings,
            status: RelayStatus::default(),
        }
    }

    /// Reports whether it is active to `status` (shared with `/metrics`).
    #[must_use]
    pub fn reporting_to(mut self, status: RelayStatus) -> Self {
        self.status = status;
        self
    }

    /// Runs until `shutdown`: waits to become the active relay, then publishes
    /// whatever is unpublished whenever a commit is notified, and every `poll`.
    /// Failures (NATS or PostgreSQL down) are logged and retried; the relay
    /// never gives up.
    pub async fn run(self, poll: Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => return,
                result = self.lead(poll) => {
                    if let Err(error) = result {
                        tracing::warn!(error = %error, "relay interrupted; retrying");
                    }
                }
            }
            tokio::select! {
                () = &mut shutdown => return,
                () = tokio::time::sleep(poll) => {}
            }
        }
    }

    /// Takes the lock (waiting for it), then relays until an error.
    async fn lead(&self, poll: Duration) -> Result<(), RelayError> {
        let mut lock = self.pool.acquire().await?;
        loop {
            let held: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
                .bind(RELAY_LOCK_KEY)
                .fetch_one(&mut *lock)
                .await?;
            if held {
                break;
            }
            tokio::time::sleep(poll).await;
        }
        tracing::info!(stream = %self.settings.stream, "relay active");
        self.status.set(true);
        let result = self.relay(&mut lock, poll).await;
        self.status.set(false);
        // The lock goes with the session; do not return a locked connection to the pool.
        lock.detach();
        result
    }

    async fn relay(
        &self,
        lock: &mut PoolConnection<Postgres>,
        poll: Duration,
    ) -> Result<(), RelayError> {
        let mut listener = PgListener::connect_with(&self.pool).await?;
        listener.listen(NOTIFY_CHANNEL).await?;
        let mut stream = ensure_stream(&self.context, &self.settings).await?;
        let config = stream.info().await.map_err(nats)?.config.clone();
        if stream_rewrite_due(lock).await? {
            if config.deny_purge {
                // A stream that denies purges was created by this release,
                // after old events were sealed (`Runtime::open` seals them
                // first): it never held their plaintext copies, and the
                // passes below publish the sealed events as usual.
                tracing::info!("events sealed in place are published again; the stream denies purges and holds no older copy");
            } else {
                self.rewrite_stream(lock).await?;
            }
        }
        deny_deletes(&self.context, config).await;
        loop {
            // Each pass runs on the lock's own connection: if that connection
            // is gone, so is the lock, and the relay must stop at once.
            while self.pass(lock).await? == BATCH as usize {}
            tokio::select! {
                notified = listener.recv() => {
                    notified?;
                    // Each event row notifies: one pass serves every
                    // notification already here (a two-event command made
                    // two passes, the second finding nothing).
                    while listener.next_buffered().is_some() {}
                }
                () = tokio::time::sleep(poll) => {}
            }
        }
    }

    /// Publishes one batch of unpublished rows; returns how many it read.
    async fn pass(&self, conn: &mut PoolConnection<Postgres>) -> Result<usize, RelayError> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM events WHERE published_at IS NULL ORDER BY position LIMIT $1"
        ))
        .bind(BATCH)
        .fetch_all(&mut **conn)
        .await?;
        let count = rows.len();
        let mut published = Vec::with_capacity(count);
        let mut failure = None;
        for row in rows {
            let envelope = envelope(&row)?;
            match self.publish(&envelope).await {
                Ok(_) => published.push(envelope.position),
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        if !published.is_empty() {
            sqlx::query("UPDATE events SET published_at = now() WHERE position = ANY($1)")
                .bind(&published)
                .execute(&mut **conn)
                .await?;
        }
        match failure {
            Some(error) => Err(error),
            None => Ok(count),
        }
    }

    async fn publish(
        &self,
        envelope: &Envelope,
    ) -> Result<jetstream::publish::PublishAck, RelayError> {
        self.publish_as(envelope, &envelope.message_id()).await
    }

    /// Publishes `envelope` under `message_id`, in a `relay.publish` span
    /// that continues the trace of the command that recorded it (its
    /// metadata's `traceparent`) and whose own context goes on the message
    /// as its `traceparent` header.
    async fn publish_as(
        &self,
        envelope: &Envelope,
        message_id: &str,
    ) -> Result<jetstream::publish::PublishAck, RelayError> {
        let span = tracing::info_span!(
            "relay.publish",
            otel.kind = "producer",
            event.position = envelope.position,
            event.r#type = %envelope.event_type,
            aggregate.r#type = %envelope.aggregate_type,
        );
        if let Some(parent) = envelope.traceparent() {
            telemetry::trace::follow(&span, &parent);
        }
        let mut headers = HeaderMap::new();
        if let Some(context) = telemetry::trace::of(&span) {
            headers.insert(TRACEPARENT_HEADER, context.as_str());
        }
        tracing::Instrument::instrument(self.send(envelope, message_id, headers), span).await
    }

    async fn send(
        &self,
        envelope: &Envelope,
        message_id: &str,
        mut headers: HeaderMap,
    ) -> Result<jetstream::publish::PublishAck, RelayError> {
        headers.insert("Nats-Msg-Id", message_id);
        headers.insert(POSITION_HEADER, envelope.position.to_string().as_str());
        let body = crate::audit::leaf::leaf_bytes(envelope);
        let leaf = hex::encode(crate::audit::merkle::leaf_hash(&body));
        headers.insert(LEAF_HASH_HEADER, leaf.as_str());
        let payload = Bytes::from(body);
        let ack = self
            .context
            .publish_with_headers(
                envelope.subject(&self.settings.subject_prefix),
                headers,
                payload,
            )
            .await
            .map_err(nats)?;
        ack.await.map_err(nats)
    }

    /// Replaces every message of this deployment on the stream with the
    /// events as stored now, in position order: publishes them all under
    /// fresh message ids (so the de-duplication window drops none), then
    /// purges the deployment's subjects up to the last message from before,
    /// and marks the events published. Run by the active relay, under its
    /// lock, when [`stream_rewrite_due`]: after old events were sealed in
    /// place (`identity::legacy`), the stream's copies of them still held
    /// plaintext addresses. Consumers receive the republished events again
    /// and skip those they applied; a replay from the stream reads the log
    /// in order. Returns how many events were published.
    ///
    /// # Errors
    /// NATS or PostgreSQL failures; the rewrite is then due again.
    pub async fn rewrite_stream(
        &self,
        conn: &mut PoolConnection<Postgres>,
    ) -> Result<usize, RelayError> {
        let mut stream = ensure_stream(&self.context, &self.settings).await?;
        let before = stream.info().await.map_err(nats)?.state.last_sequence;
        let last: Option<i64> = sqlx::query_scalar("SELECT MAX(position) FROM events")
            .fetch_one(&mut **conn)
            .await?;
        let Some(last) = last else { return Ok(0) };
        let mut sent = 0;
        let mut after = 0;
        while after < last {
            let rows = sqlx::query(&format!(
                "SELECT {COLUMNS} FROM events WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3"
            ))
            .bind(after)
            .bind(last)
            .bind(BATCH)
            .fetch_all(&mut **conn)
            .await?;
            let Some(row) = rows.last() else { break };
            after = row.try_get("position")?;
            for row in &rows {
                let envelope = envelope(row)?;
                let id = format!("{}:rewrite-{before}", envelope.message_id());
                self.publish_as(&envelope, &id).await?;
                sent += 1;
            }
        }
        if before > 0 {
            stream
                .purge()
                .filter(format!("{}.>", self.settings.subject_prefix))
                .sequence(before + 1)
                .await
                .map_err(nats)?;
        }
        sqlx::query(
            "UPDATE events SET published_at = now() WHERE position <= $1 AND published_at IS NULL",
        )
        .bind(last)
        .execute(&mut **conn)
        .await?;
        tracing::warn!(
            events = sent,
            purged_up_to = before,
            "rewrote the stream: events sealed in place had older copies on it"
        );
        Ok(sent)
    }

    /// Publishes again every event from `position` on (an operator's repair
    /// after a stream was lost or truncated). Events still inside the
    /// de-duplication window are dropped by JetStream as duplicates; returns
    /// how many the stream stored as new.
    ///
    /// # Errors
    /// NATS or PostgreSQL failures.
    pub async fn republish_from(&self, position: i64) -> Result<(usize, usize), RelayError> {
        ensure_stream(&self.context, &self.settings).await?;
        let sql = format!("SELECT {COLUMNS} FROM events WHERE position >= $1 ORDER BY position");
        let mut rows = sqlx::query(&sql).bind(position).fetch(&self.pool);
        let (mut sent, mut stored) = (0, 0);
        while let Some(row) = rows.next().await {
            let ack = self.publish(&envelope(&row?)?).await?;
            sent += 1;
            if !ack.duplicate {
                stored += 1;
            }
        }
        Ok((sent, stored))
    }
}

fn envelope(row: &sqlx::postgres::PgRow) -> Result<Envelope, RelayError> {
    Ok(crate::store::events::envelope(row)?)
}
