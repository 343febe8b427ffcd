//! The route layer around every REST route (and the ops listener's): it
//! times the route, cuts it off at [`REQUEST_DEADLINE`] (503 JSON: a store
//! that stopped answering must not hang clients), records it in the
//! server's request metrics under the route's template, puts that template
//! on the answer for the access line, and, on API-key routes, checks the
//! key first (so a 401 is timed and counted like any answer).
//!
//! It is a hand-written tower layer rather than an `axum::middleware`
//! function: a middleware function clones the route behind it (a boxed
//! service) and boxes its own future on every request. This one calls the
//! route directly when the key is already known to the read cache (every
//! lookup after a client's first) and boxes only the rare answers that need
//! the key table or outlive their first poll (the deadline's timer).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use pin_project_lite::pin_project;
use tower::{Layer, Service};

use crate::auth;
use crate::error::ApiError;
use crate::state::Shared;

/// No request takes longer: past it the answer is a 503 JSON (a store that
/// stopped answering must not hang clients; pools give up after 5 s).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(4);

/// The layer: [`Observe::open`] for routes without a key, [`Observe::with_api_key`]
/// for `X-API-Key` routes.
#[derive(Clone)]
pub struct Observe {
    state: Shared,
    api_key: bool,
}

impl Observe {
    /// For open routes and steward routes (whose handlers read the token).
    pub fn open(state: Shared) -> Self {
        Self {
            state,
            api_key: false,
        }
    }

    /// For routes that need an active `X-API-Key`.
    pub fn with_api_key(state: Shared) -> Self {
        Self {
            state,
            api_key: true,
        }
    }
}

impl<S> Layer<S> for Observe {
    type Service = Observed<S>;

    fn layer(&self, inner: S) -> Observed<S> {
        Observed {
            state: self.state.clone(),
            api_key: self.api_key,
            inner,
        }
    }
}

/// A route behind [`Observe`].
#[derive(Clone)]
pub struct Observed<S> {
    state: Shared,
    api_key: bool,
    inner: S,
}

impl<S> Service<Request> for Observed<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Observing<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let started = Instant::now();
        let meta = Meta {
            state: self.state.clone(),
            route: request.extensions().get::<MatchedPath>().cloned(),
            method: method_label(request.method()),
        };
        let answer = if !self.api_key || auth::known_api_key(&self.state, request.headers()) {
            Answer::Direct {
                future: self.inner.call(request),
            }
        } else {
            Answer::Checked {
                future: Box::pin(checked(self.state.clone(), self.inner.clone(), request)),
            }
        };
        Observing {
            answer,
            started,
            end: started + REQUEST_DEADLINE,
            deadline: None,
            meta: Some(meta),
        }
    }
}

/// The key check the read cache could not answer, then the route.
async fn checked<S>(state: Shared, mut inner: S, request: Request) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let peer = crate::auth_throttle::peer(request.extensions());
    if let Err(held) = crate::auth_throttle::not_held_back(&state, peer) {
        return held.into_response();
    }
    if let Err(refusal) = auth::check_api_key(&state, request.headers()).await {
        return crate::auth_throttle::failed(&state, peer, refusal).into_response();
    }
    match inner.call(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// What the answer is recorded under.
struct Meta {
    state: Shared,
    route: Option<MatchedPath>,
    method: &'static str,
}

impl Meta {
    fn finish(self, mut response: Response, started: Instant) -> Response {
        let route = self.route.as_ref().map_or("unmatched", MatchedPath::as_str);
        self.state.requests.record(
            route,
            self.method,
            response.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
        crate::access::tag(&mut response, self.route);
        response
    }
}

pin_project! {
    #[project = AnswerProj]
    enum Answer<F> {
        Direct { #[pin] future: F },
        Checked { future: Pin<Box<dyn Future<Output = Response> + Send>> },
    }
}

impl<F: Future<Output = Result<Response, Infallible>>> Future for Answer<F> {
    type Output = Response;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
        match self.project() {
            AnswerProj::Direct { future } => future.poll(cx).map(|answered| match answered {
                Ok(response) => response,
                Err(never) => match never {},
            }),
            AnswerProj::Checked { future } => future.as_mut().poll(cx),
        }
    }
}

pin_project! {
    /// The future of an observed route.
    pub struct Observing<F> {
        #[pin]
        answer: Answer<F>,
        started: Instant,
        end: Instant,
        // Armed only when the first poll leaves the answer pending: an
        // answer from the read cache finishes in that poll and costs no timer.
        deadline: Option<Pin<Box<tokio::time::Sleep>>>,
        meta: Option<Meta>,
    }
}

impl<F: Future<Output = Result<Response, Infallible>>> Future for Observing<F> {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.answer.poll(cx) {
            Poll::Ready(response) => response,
            Poll::Pending => {
                let end = *this.end;
                let deadline = this
                    .deadline
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(end.into())));
                if deadline.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                ApiError::Unavailable(format!(
                    "request did not finish within {REQUEST_DEADLINE:?}"
                ))
                .into_response()
            }
        };
        Poll::Ready(Ok(match this.meta.take() {
            Some(meta) => meta.finish(response, *this.started),
            None => response,
        }))
    }
}

/// The method as a metrics label.
pub fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn bare<F>(future: F, end: Instant) -> Observing<F> {
        Observing {
            answer: Answer::Direct { future },
            started: Instant::now(),
            end,
            deadline: None,
            meta: None,
        }
    }

    async fn answer_after(delay: Duration) -> Result<Response, Infallible> {
        tokio::time::sleep(delay).await;
        Ok(Response::new(axum::body::Body::from("late")))
    }

    #[tokio::test]
    async fn an_answer_finished_in_its_first_poll_is_given_even_past_the_deadline() {
        let past = Instant::now() - Duration::from_secs(1);
        let ready = std::future::ready(Ok(Response::new(axum::body::Body::empty())));
        let response = bare(ready, past).await.unwrap();
        assert_eq!(response.status(), axum::http::StatusCode::OK);
    }

    #[tokio::test]
    async fn a_pending_answer_gets_the_rest_of_its_time_and_no_more() {
        let soon = Instant::now() + Duration::from_millis(200);
        let response = bare(answer_after(Duration::from_millis(10)), soon)
            .await
            .unwrap();
        assert_eq!(response.status(), axum::http::StatusCode::OK);
        let soon = Instant::now() + Duration::from_millis(20);
        let response = bare(answer_after(Duration::from_secs(30)), soon)
            .await
            .unwrap();
        assert_eq!(
            response.status(),
            axum::http::StatusCode::SERVICE_UNAVAILABLE
        );
    }
}
