//! Event ids a client can resume from, on `/mcp` event streams.
//!
//! rmcp's `LocalSessionManager` numbers the events of a stream from 0, and
//! rmcp opens every standalone `GET /mcp` stream with a priming event whose id
//! is also `0`: the opening event and the first notification both carried
//! `id: 0`. And it answers `Last-Event-ID: N` by replaying from event N
//! itself, where SSE means "the last event I saw was N": the client got N
//! twice.
//!
//! [`NumberedEvents`] wraps the session manager (rmcp's, behind
//! [`crate::dormant::Dormant`]) and adds one to the number of
//! every event it streams (`3` → `4`, `3/7` → `4/7` for the stream of
//! request 7), and passes `Last-Event-ID` through unchanged. The priming
//! event keeps `0`; the first real event is `1`; and `Last-Event-ID: N`
//! (our N, rmcp's N - 1) asks rmcp to replay from its N, which is the event
//! after the one the client saw.

use std::sync::Arc;

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};

use crate::dormant::Dormant;

/// The session manager, with event ids numbered from 1 (see the module).
pub(crate) struct NumberedEvents(pub(crate) Arc<Dormant>);

type Error = <Dormant as SessionManager>::Error;
type Transport = <Dormant as SessionManager>::Transport;

impl SessionManager for NumberedEvents {
    type Error = Error;
    type Transport = Transport;

    async fn create_session(&self) -> Result<(SessionId, Transport), Error> {
        self.0.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Error> {
        self.0.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Error> {
        self.0.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Error> {
        self.0.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        Ok(self.0.create_stream(id, message).await?.map(numbered))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Error> {
        self.0.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        Ok(self.0.create_standalone_stream(id).await?.map(numbered))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        Ok(self.0.resume(id, last_event_id).await?.map(numbered))
    }

    async fn restore_session(&self, id: SessionId) -> Result<RestoreOutcome<Transport>, Error> {
        self.0.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.0.event_store()
    }
}

/// `event` with its id counted from 1.
fn numbered(mut event: ServerSseMessage) -> ServerSseMessage {
    event.event_id = event.event_id.as_deref().map(plus_one);
    event
}

/// `N` → `N+1`, `N/R` → `N+1/R`; anything else unchanged.
fn plus_one(id: &str) -> String {
    let (index, rest) = id.split_once('/').map_or((id, None), |(i, r)| (i, Some(r)));
    match (index.parse::<u64>(), rest) {
        (Ok(n), None) => (n + 1).to_string(),
        (Ok(n), Some(rest)) => format!("{}/{rest}", n + 1),
        (Err(_), _) => id.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_numbers_start_after_the_priming_event() {
        assert_eq!(plus_one("0"), "1");
        assert_eq!(plus_one("41"), "42");
        assert_eq!(plus_one("0/7"), "1/7");
        assert_eq!(plus_one("x"), "x");
    }
}
