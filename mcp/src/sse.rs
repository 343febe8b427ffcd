//! The legacy HTTP+SSE transport (protocol revision 2024-11-05), which rmcp
//! 3.x no longer ships.
//!
//! `GET /sse` opens a session: an event stream whose first event is
//! `endpoint` with the URL to post to (`/message?sessionId=<id>`), followed
//! by every JSON-RPC message of the server as a `message` event.
//! `POST /message?sessionId=<id>` hands one client message (or a batch) to
//! the session and answers 202; the reply arrives on the stream. Each
//! message is checked as on `/mcp` (`jsonrpc`): a refused request's JSON-RPC
//! error also arrives on the stream, so the client's pending request gets
//! its answer; a body that is not JSON, or a refused message without a
//! usable id, is a 400 with the JSON-RPC error. An unknown or closed session,
//! or one opened with another API key, is 404; sessions count against the
//! caps of `sessions`.
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

use crate::answer::{self, Caller};
use crate::handler::Basel;
use crate::jsonrpc;
use crate::sessions::{Closer, Holder, Registry};
use crate::state::MAX_BODY_BYTES;

/// Client messages a session buffers before `POST /message` waits.
const BUFFER: usize = 32;

/// The two directions of one open session.
#[derive(Clone)]
struct Link {
    /// The key hash of the caller that opened the session.
    owner: String,
    /// Client messages, to the session's rmcp service.
    to_server: mpsc::Sender<ClientJsonRpcMessage>,
    /// Server messages, to the session's event stream.
    to_client: mpsc::Sender<ServerJsonRpcMessage>,
}

/// The open SSE sessions.
#[derive(Clone)]
pub(crate) struct Sessions {
    handler: Basel,
    registry: Arc<Registry>,
    shutdown: CancellationToken,
    open: Arc<Mutex<HashMap<String, Link>>>,
}

impl Sessions {
    /// No sessions yet; all of them end when `shutdown` is cancelled.
    /// Each session gets [`Basel::for_caller`] of `handler`.
    pub(crate) fn new(
        handler: Basel,
        registry: Arc<Registry>,
        shutdown: CancellationToken,
    ) -> Self {
        Self {
            handler,
            registry,
            shutdown,
            open: Arc::default(),
        }
    }

    fn with_open<T>(&self, f: impl FnOnce(&mut HashMap<String, Link>) -> T) -> T {
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
        self.sessions.registry.remove(&self.id);
        tracing::debug!(mcp.session = %self.id, "legacy SSE session closed");
    }
}

/// `GET /sse`: opens a session, bound to the caller's key, and streams its
/// messages.
pub(crate) async fn open(
    State(sessions): State<Sessions>,
    caller: Option<Extension<Caller>>,
    request: Request,
) -> Response {
    let address = answer::peer(&request);
    if let Err(refused) = sessions.registry.admit() {
        return refused.response();
    }
    let caller = caller.map(|Extension(c)| c).unwrap_or_default();
    let id = uuid::Uuid::new_v4().simple().to_string();
    let stop = sessions.shutdown.child_token();
    let holder = Holder {
        owner: caller.id(),
        address,
    };
    if let Err(refused) = sessions
        .registry
        .insert(&id, &holder, Closer::Sse(stop.clone()))
    {
        return refused.response();
    }
    let busy = sessions.registry.stream(&id);
    let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(BUFFER);
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(BUFFER);
    let link = Link {
        owner: caller.id().to_owned(),
        to_server,
        to_client: to_client.clone(),
    };
    sessions.with_open(|open| open.insert(id.clone(), link));
    let handler = sessions.handler.for_caller(caller);
    let ended = stop.clone();
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
        .take_until(ended.cancelled_owned())
        .map(move |event| {
            let _keep = (&closing, &busy);
            Ok::<_, Infallible>(event)
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// `POST /message?sessionId=…`: one client message (or a batch) for a session.
pub(crate) async fn message(
    State(sessions): State<Sessions>,
    caller: Option<Extension<Caller>>,
    request: Request,
) -> Response {
    let caller = caller.map(|Extension(c)| c).unwrap_or_default();
    let id = request.uri().query().and_then(|query| {
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(name, _)| *name == "sessionId" || *name == "session_id")
            .map(|(_, value)| value.to_owned())
    });
    let Some(id) = id.filter(|id| !id.is_empty()) else {
        return answer::error(
            StatusCode::BAD_REQUEST,
            "session_required",
            "Pass the sessionId from the endpoint event: POST /message?sessionId=<id>.",
        );
    };
    let Ok(body) = axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES).await else {
        return answer::too_large();
    };
    let link = sessions.with_open(|open| open.get(&id).cloned());
    let Some(mut link) = link.filter(|link| link.owner == caller.id()) else {
        return unknown_session();
    };
    sessions.registry.touch(&id, caller.id());
    let items = match jsonrpc::parse(&body) {
        Err(refusal) => return *refusal,
        Ok(Value::Array(items)) if items.is_empty() => {
            return jsonrpc::error_response(
                StatusCode::BAD_REQUEST,
                None,
                rmcp::ErrorData::invalid_request("Invalid request: an empty batch", None),
            )
        }
        Ok(Value::Array(items)) => items,
        Ok(single) => vec![single],
    };
    for item in items {
        let sent = match jsonrpc::check(item) {
            Ok(checked) => match serde_json::from_value::<ClientJsonRpcMessage>(checked) {
                Ok(message) => link.to_server.send(message).await.is_ok(),
                Err(_) => return jsonrpc::parse_error(),
            },
            Err(refused) if refused.has_id() => {
                match serde_json::from_value::<ServerJsonRpcMessage>(refused.to_value()) {
                    Ok(answer) => link.to_client.send(answer).await.is_ok(),
                    Err(_) => return refused.into_response(),
                }
            }
            Err(refused) => return refused.into_response(),
        };
        if !sent {
            return unknown_session();
        }
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}

fn unknown_session() -> Response {
    answer::error(
        StatusCode::NOT_FOUND,
        "session_not_found",
        "No such session (it may have closed): open a new one with GET /sse.",
    )
}
