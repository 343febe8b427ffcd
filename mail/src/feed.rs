//! Events → outbox rows. Reads the events table after the feed's position
//! (positions follow commit order on both backends) and, in the same
//! transaction as the new position, queues:
//!
//! - for `KeyMailRequested`: one key mail, Message-ID `key.<key id>.<sequence>`;
//! - for `NoticePublished`: one mail per registrant with an active key and no
//!   opt-out as the log stood just before the notice, Message-ID
//!   `notice.<notice id>.<key id>`.
//!
//! A crash before the commit feeds the same events again; the Message-IDs
//! make that queue nothing twice.

use chrono::Utc;
use domain::api_key::{ApiKey, ApiKeyEvent};
use domain::notice::{Notice, NoticeEvent};
use domain::Aggregate;
use projections::log::StoredEvent;

use crate::outbox::{self, Kind, NewMessage};
use crate::{registrants, MailError};

/// Events read per pass.
const BATCH: i64 = 500;

/// Reads one batch of events after the feed's position and queues their
/// mail. Returns how many events it read (0: no event after the feed's
/// position is one the outbox mails about).
///
/// # Errors
/// Database errors, or an event of the mail's aggregates that does not decode.
pub async fn feed_once(db: &projections::ReadDb) -> Result<usize, MailError> {
    if !outbox::anything_to_feed(db).await? {
        // Nothing to mail about: no write (the feed's transaction locks
        // and writes).
        return Ok(0);
    }
    let mut tx = db.begin().await?;
    let after = outbox::feed_position(&mut tx).await?;
    let events = projections::log::read_after(&mut *tx, after, BATCH).await?;
    let now = Utc::now();
    for event in &events {
        for message in messages(&mut tx, event).await? {
            outbox::enqueue(&mut tx, &message, now).await?;
        }
    }
    if let Some(last) = events.last() {
        outbox::set_feed_position(&mut tx, last.position).await?;
    }
    tx.commit().await?;
    Ok(events.len())
}

fn undecodable(event: &StoredEvent, error: impl std::fmt::Display) -> MailError {
    MailError::Decode {
        position: event.position,
        reason: error.to_string(),
    }
}

async fn messages(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    event: &StoredEvent,
) -> Result<Vec<NewMessage>, MailError> {
    if event.aggregate_type == ApiKey::TYPE && event.event_type == "KeyMailRequested" {
        let ApiKeyEvent::KeyMailRequested { generation, .. } =
            event.decode().map_err(|e| undecodable(event, e))?
        else {
            return Err(undecodable(event, "not a KeyMailRequested payload"));
        };
        return Ok(vec![NewMessage {
            message_id: format!("key.{}.{}", event.aggregate_id, event.sequence),
            kind: Kind::Key,
            recipient: event.aggregate_id.clone(),
            reference: generation.to_string(),
            position: event.position,
        }]);
    }
    if event.aggregate_type == Notice::TYPE {
        let NoticeEvent::NoticePublished { .. } =
            event.decode().map_err(|e| undecodable(event, e))?;
        let recipients = registrants::receiving_notices_before(&mut **tx, event.position).await?;
        return Ok(recipients
            .into_iter()
            .map(|key_id| NewMessage {
                message_id: format!("notice.{}.{key_id}", event.aggregate_id),
                kind: Kind::Notice,
                recipient: key_id,
                reference: event.aggregate_id.clone(),
                position: event.position,
            })
            .collect());
    }
    Ok(Vec::new())
}
