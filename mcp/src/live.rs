//! Live updates: `resources/subscribe` on `basel://ca/{country_code}`, then
//! `notifications/resources/updated` whenever the directory projection
//! applies a change for that country.
//!
//! The server learns of changes from a `tokio::sync::broadcast` channel of
//! changed country codes (ISO 3166-1 alpha-2, any case) handed in through
//! [`McpConfig::changes`](crate::McpConfig): whoever applies directory
//! changes sends on it, and the subscribe capability is advertised only
//! when it is set. Each session keeps its own set of subscribed URIs and,
//! from its first subscription on, one task that turns changed codes into
//! notifications for the URIs in that set. The task ends when the channel
//! closes or the session's transport is gone. A session that falls behind
//! the channel (lagged) is told every one of its URIs changed.
//!
//! Revision 2026-07-28 has no `resources/subscribe`: a client opens
//! `subscriptions/listen` with `resourceSubscriptions`; the record URIs among
//! them are accepted and [`listen`] sends their updates on that stream until
//! the client cancels it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionContext};
use rmcp::{ErrorData, RoleServer};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// The URI prefix of a record that can be subscribed to.
const CA_PREFIX: &str = "basel://ca/";
/// How often a waiting task checks that its session is still there.
const SESSION_CHECK: Duration = Duration::from_secs(30);

/// One session's subscriptions.
#[derive(Default)]
pub(crate) struct Subscriptions {
    uris: Mutex<HashSet<String>>,
    watching: AtomicBool,
}

/// The canonical `basel://ca/XX` of a subscribable URI.
///
/// # Errors
/// Invalid params for any other URI.
pub(crate) fn record_uri(uri: &str) -> Result<String, ErrorData> {
    let code = uri
        .strip_prefix(CA_PREFIX)
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()));
    code.map(|c| format!("{CA_PREFIX}{c}")).ok_or_else(|| {
        ErrorData::invalid_params(
            "only competent-authority records can be subscribed to: basel://ca/{country_code}",
            None,
        )
    })
}

impl Subscriptions {
    fn with_uris<T>(&self, f: impl FnOnce(&mut HashSet<String>) -> T) -> T {
        f(&mut self.uris.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Adds `uri` (canonical) and, the first time, starts telling `peer`
    /// about changes from `changes`.
    pub(crate) fn add(
        self: &Arc<Self>,
        uri: String,
        changes: &broadcast::Sender<String>,
        peer: Peer<RoleServer>,
    ) {
        self.with_uris(|uris| uris.insert(uri));
        if !self.watching.swap(true, Ordering::AcqRel) {
            tokio::spawn(watch(self.clone(), changes.subscribe(), peer));
        }
    }

    /// Removes `uri` (canonical): how many subscriptions are left.
    pub(crate) fn remove(&self, uri: &str) -> usize {
        self.with_uris(|uris| {
            uris.remove(uri);
            uris.len()
        })
    }

    /// The subscribed URIs among those of `changed` (None: all of them).
    fn affected(&self, changed: Option<&str>) -> Vec<String> {
        self.with_uris(|uris| match changed {
            Some(code) => {
                let uri = format!("{CA_PREFIX}{}", code.trim().to_ascii_uppercase());
                uris.contains(&uri).then_some(uri).into_iter().collect()
            }
            None => uris.iter().cloned().collect(),
        })
    }
}

async fn watch(
    subscriptions: Arc<Subscriptions>,
    mut changes: broadcast::Receiver<String>,
    peer: Peer<RoleServer>,
) {
    loop {
        let received = tokio::select! {
            received = changes.recv() => received,
            () = tokio::time::sleep(SESSION_CHECK) => {
                if peer.is_transport_closed() {
                    return;
                }
                continue;
            }
        };
        let uris = match received {
            Ok(code) => subscriptions.affected(Some(&code)),
            Err(broadcast::error::RecvError::Lagged(_)) => subscriptions.affected(None),
            Err(broadcast::error::RecvError::Closed) => return,
        };
        for uri in uris {
            let sent = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await;
            if sent.is_err() {
                return;
            }
        }
    }
}

/// The part of a `subscriptions/listen` filter served here: its record URIs.
/// Sends `notifications/resources/list_changed` to `peer` for every country
/// added, until its transport closes or its session's service ends.
pub(crate) async fn announce_additions(
    mut added: broadcast::Receiver<String>,
    peer: Peer<RoleServer>,
    ended: CancellationToken,
) {
    loop {
        let received = tokio::select! {
            received = added.recv() => received,
            () = ended.cancelled() => return,
        };
        match received {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => return,
        }
        if peer.is_transport_closed() || peer.notify_resource_list_changed().await.is_err() {
            return;
        }
    }
}

pub(crate) fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let uris = requested
        .resource_subscriptions
        .iter()
        .flatten()
        .filter(|uri| record_uri(uri).is_ok())
        .cloned();
    SubscriptionFilter::builder()
        .resource_subscriptions(uris)
        .build()
}

/// Runs one `subscriptions/listen` stream (2026-07-28) until it is cancelled
/// or the channel closes.
///
/// # Errors
/// None today; the signature is rmcp's.
pub(crate) async fn listen(
    context: SubscriptionContext,
    mut changes: broadcast::Receiver<String>,
) -> Result<(), ErrorData> {
    let accepted: Vec<(String, String)> = context
        .accepted()
        .resource_subscriptions
        .iter()
        .flatten()
        .filter_map(|uri| Some((record_uri(uri).ok()?, uri.clone())))
        .collect();
    loop {
        let received = tokio::select! {
            () = context.cancelled() => return Ok(()),
            received = changes.recv() => received,
        };
        let changed = match received {
            Ok(code) => Some(format!("{CA_PREFIX}{}", code.trim().to_ascii_uppercase())),
            Err(broadcast::error::RecvError::Lagged(_)) => None,
            Err(broadcast::error::RecvError::Closed) => return Ok(()),
        };
        let due = accepted
            .iter()
            .filter(|(canonical, _)| changed.as_ref().is_none_or(|c| c == canonical));
        for (_, uri) in due {
            let sent = context.sink().notify_resource_updated(uri.clone()).await;
            if sent.is_err() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_record_uris_can_be_subscribed_to() {
        assert_eq!(record_uri("basel://ca/de").unwrap(), "basel://ca/DE");
        assert!(record_uri("basel://ca/DEU").is_err());
        assert!(record_uri("basel://codes/Y31").is_err());
        let subscriptions = Subscriptions::default();
        subscriptions.with_uris(|u| u.insert("basel://ca/DE".into()));
        assert_eq!(subscriptions.affected(Some("de")), ["basel://ca/DE"]);
        assert!(subscriptions.affected(Some("FR")).is_empty());
        assert_eq!(subscriptions.affected(None).len(), 1);
    }
}
