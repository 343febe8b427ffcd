//! The legacy HTTP+SSE transport (protocol revision 2024-11-05), which rmcp
//! 3.x no longer ships.
//!
//! `GET /sse` opens a session: an event stream whose first event is
//! `endpoint` with the URL to post to (`/message?sessionId=<id>`), followed
//! by every JSON-RPC message of the server as a `message` event.
//! `POST /message?sessionId=<id>` hands one client message (or a batch) to
//! the session and answers 202; the reply arrives on the stream. An unknown
//! or closed session is 404.
//!
//! Each session runs the same handler as `/mcp` through rmcp's
//! `serve_server` over a pair of channels. The session ends when the client
//! drops the stream (the channels close, the service stops) or when the
//! server shuts down.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::serve_server_with_ct;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::guard::{self, Caller};
use crate::handler::Basel;
use crate::{jsonrpc, MAX_BODY_BYTES};

/// Client messages a session buffers before `POST /message` waits.
const BUFFER: usize = 32;

/// The open SSE sessions.
#[derive(Clone)]
pub(crate) struct Sessions {
    handler: Basel,
    shutdown: CancellationToken,
    open: Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>,
}

impl Sessions {
    /// No sessions yet; all of them end when `shutdown` is cancelled.
    /// Each session gets [`Basel::for_caller`] of `handler`.
    pub(crate) fn new(handler: Basel, shutdown: CancellationToken) -> Self {
        Self {
            handler,
            shutdown,
            open: Arc::default(),
        }
    }

    fn with_open<T>(
        &self,
        f: impl FnOnce(&mut HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>) -> T,
    ) -> T {
        f(&mut self.open.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Removes its session when the event stream is dropped.
struct Closing {
    sessions: Sessions,
    id: String,
}

impl Drop for Closing {
    fn drop(&mut self) {
        self.sessions.with_open(|open| open.remove(&self.id));
        tracing::debug!(mcp.session = %self.id, "legacy SSE session closed");
    }
}

/// `GET /sse`: opens a session, bound to the caller's key, and streams its
/// messages.
pub(crate) async fn open(
    State(sessions): State<Sessions>,
    caller: Option<Extension<Caller>>,
) -> Response {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(BUFFER);
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(BUFFER);
    sessions.with_open(|open| open.insert(id.clone(), to_server));
    let handler = sessions
        .handler
        .for_caller(caller.map(|Extension(c)| c).unwrap_or_default());
    let stop = sessions.shutdown.child_token();
    let session = id.clone();
    tokio::spawn(async move {
        match serve_server_with_ct(handler, (to_client, from_client), stop).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => {
                tracing::debug!(mcp.session = %session, error = %error, "legacy SSE session ended before initialising");
            }
        }
    });
    let endpoint = Event::default()
        .event("endpoint")
        .data(format!("/message?sessionId={id}"));
    let closing = Closing {
        sessions: sessions.clone(),
        id,
    };
    let messages = from_server.filter_map(|message| async move {
        match Event::default().event("message").json_data(&message) {
            Ok(event) => Some(event),
            Err(error) => {
                tracing::error!(error = %error, "MCP: a server message does not serialise");
                None
            }
        }
    });
    let stream = futures::stream::once(async { endpoint })
        .chain(messages)
        .take_until(sessions.shutdown.clone().cancelled_owned())
        .map(move |event| {
            let _keep = &closing;
            Ok::<_, Infallible>(event)
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// `POST /message?sessionId=…`: one client message (or a batch) for a session.
pub(crate) async fn message(State(sessions): State<Sessions>, request: Request) -> Response {
    let id = request.uri().query().and_then(|query| {
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(name, _)| *name == "sessionId" || *name == "session_id")
            .map(|(_, value)| value.to_owned())
    });
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return guard::error(
            StatusCode::BAD_REQUEST,
            "session_required",
            "Pass the sessionId from the endpoint event: POST /message?sessionId=<id>.",
        );
    };
    let Ok(body) = axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES).await else {
        return guard::too_large();
    };
    let Some(mut sender) = sessions.with_open(|open| open.get(&id).cloned()) else {
        return unknown_session();
    };
    let messages = match parse(&body) {
        Ok(messages) => messages,
        Err(refusal) => return *refusal,
    };
    for message in messages {
        if sender.send(message).await.is_err() {
            return unknown_session();
        }
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}

fn unknown_session() -> Response {
    guard::error(
        StatusCode::NOT_FOUND,
        "session_not_found",
        "No such session (it may have closed): open a new one with GET /sse.",
    )
}

/// One JSON-RPC message, or a batch of them, each checked as on `/mcp`.
fn parse(body: &[u8]) -> Result<Vec<ClientJsonRpcMessage>, Box<Response>> {
    let items = match jsonrpc::parse(body).ok_or_else(|| Box::new(jsonrpc::parse_error()))? {
        Value::Array(items) if !items.is_empty() => items,
        Value::Array(_) => {
            return Err(Box::new(jsonrpc::error_response(
                StatusCode::BAD_REQUEST,
                None,
                rmcp::ErrorData::invalid_request("Invalid request: an empty batch", None),
            )))
        }
        single => vec![single],
    };
    items
        .into_iter()
        .map(|item| {
            let checked = jsonrpc::check(item).map_err(|r| Box::new(r.into_response()))?;
            serde_json::from_value(checked).map_err(|_| Box::new(jsonrpc::parse_error()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_parse_alone_or_in_a_batch_and_garbage_does_not() {
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(parse(ping).unwrap().len(), 1);
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
        assert_eq!(parse(batch).unwrap().len(), 2);
        assert!(parse(b"[]").is_err());
        assert!(parse(b"{nope").is_err());
        assert!(parse(br#"{"hello":"world"}"#).is_err());
    }
}
