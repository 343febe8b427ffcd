//! The benchmark's baseline: a minimal axum server that answers
//! `GET /api/v1/ca/{country_code}` with fixed bytes (a record as basel
//! serves it) and `POST /api/v1/classify` with other fixed bytes (a
//! classification as basel serves it, the request body read and dropped), so
//! `scripts/bench-http` can compare basel's throughput with what axum alone
//! does on the same machine.
//!
//! Usage: `bench_baseline BODY_FILE ADDR [CLASSIFY_FILE]` (e.g.
//! `record.json 127.0.0.1:18093 classified.json`).

use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::routing::{get, post};
use axum::Router;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: bench_baseline BODY_FILE ADDR [CLASSIFY_FILE]"))?;
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:0".into());
    let body: &'static [u8] = Vec::leak(std::fs::read(&file)?);
    let classified: &'static [u8] = match args.next() {
        Some(file) => Vec::leak(std::fs::read(file)?),
        None => b"{}",
    };
    let app = Router::new()
        .route(
            "/api/v1/ca/{country_code}",
            get(move || async move { ([(CONTENT_TYPE, "application/json")], body) }),
        )
        .route(
            "/api/v1/classify",
            post(move |request: Bytes| async move {
                drop(request);
                ([(CONTENT_TYPE, "application/json")], classified)
            }),
        );
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("addr={}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
