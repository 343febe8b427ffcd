//! Load generator for the event-log benchmarks (driven by
//! `scripts/bench-log`; results in `BENCHMARKS.md`).
//!
//! - `lag`: in-process steward verification updates through
//!   `AuthorityCommands` against PostgreSQL at a steady rate, each timed from
//!   the command's return ("acknowledged") until the `directory` row shows
//!   its sequence; a separate `basel serve --role relay,projector` relays and
//!   projects. Also splits the lag at `events.published_at` (relay) and
//!   reports the command latency.
//! - `fill`: writes verification updates concurrently (one worker per slice
//!   of countries) until the `events` table holds exactly `--events` rows,
//!   so `basel replay` has a log of known size.
//! - `http`: `POST /api/v1/ca/{cc}/verifications` from N concurrent clients,
//!   each on its own countries; writes/s and latency percentiles.
//! - `wait`: until the relay's backlog is empty and every projection has
//!   reached the log head.
//! - `create-db`, `drop-db`, `drop-stream`: set-up and clean-up without psql
//!   or the nats CLI.
//!
//! This file is the command line only: it parses and dispatches. The
//! benchmarks are in `lag`, `fill` and `http`, the percentiles in `stats`,
//! and the store (connection, set-up, catching up, the updates written) in
//! `store`.

mod fill;
mod http;
mod lag;
mod stats;
mod store;
mod visible;

use clap::{Parser, Subcommand};

use store::Store;

#[derive(Debug, Parser)]
#[command(name = "log_bench", about = "Event-log benchmarks")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Create a PostgreSQL database.
    CreateDb {
        /// A URL of the server's maintenance database.
        #[arg(long)]
        admin_url: String,
        /// The database to create.
        #[arg(long)]
        name: String,
    },
    /// Drop a PostgreSQL database (forcing its connections closed).
    DropDb {
        /// A URL of the server's maintenance database.
        #[arg(long)]
        admin_url: String,
        /// The database to drop.
        #[arg(long)]
        name: String,
    },
    /// Delete a JetStream stream (and its consumers).
    DropStream {
        /// NATS URL.
        #[arg(long)]
        nats_url: String,
        /// The stream.
        #[arg(long)]
        stream: String,
    },
    /// Migrate and seed the store (as the first `basel serve` would).
    Seed(Store),
    /// Write verification updates until the log holds exactly --events events.
    Fill {
        #[command(flatten)]
        store: Store,
        /// Events the `events` table holds at the end (seed included).
        #[arg(long, default_value_t = 100_000)]
        events: i64,
        /// Concurrent writers (each on its own countries).
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
    },
    /// Wait until the relay backlog is empty and every projection is at the log head.
    Wait {
        #[command(flatten)]
        store: Store,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Projection lag in server mode at a steady write rate.
    Lag {
        /// PostgreSQL URL (the relay and projector run in another process).
        #[arg(long)]
        database_url: String,
        /// Verification updates per second.
        #[arg(long, default_value_t = 200.0)]
        rate: f64,
        /// Measured seconds.
        #[arg(long, default_value_t = 30)]
        seconds: u64,
        /// Seconds of writes before the measured ones (not counted).
        #[arg(long, default_value_t = 2)]
        warmup: u64,
        /// How often the directory table is polled, in milliseconds.
        #[arg(long, default_value_t = 1)]
        poll_ms: u64,
    },
    /// Steward verification updates over HTTP from concurrent clients.
    Http {
        /// The REST API, e.g. http://127.0.0.1:8080.
        #[arg(long)]
        base_url: String,
        /// A steward's bearer token (`basel steward enrol`).
        #[arg(long, env = "BENCH_TOKEN", hide_env_values = true)]
        token: String,
        /// Concurrent clients (each on its own countries).
        #[arg(long, default_value_t = 16)]
        clients: usize,
        /// Measured seconds.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// Seconds of load before the measured ones (not counted).
        #[arg(long, default_value_t = 2)]
        warmup: u64,
    },
    /// Write on one REST replica, read on another: time until visible.
    Visible {
        /// The replica written to.
        #[arg(long)]
        write_url: String,
        /// The replica read from.
        #[arg(long)]
        read_url: String,
        /// A steward's bearer token (`basel steward enrol`).
        #[arg(long, env = "BENCH_TOKEN", hide_env_values = true)]
        token: String,
        /// An API key for the reads.
        #[arg(long, env = "BENCH_API_KEY", hide_env_values = true)]
        api_key: String,
        /// How many writes.
        #[arg(long, default_value_t = 500)]
        writes: usize,
        /// Writes per second.
        #[arg(long, default_value_t = 20.0)]
        rate: f64,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Cmd::CreateDb { admin_url, name } => store::create_db(&admin_url, &name).await,
        Cmd::DropDb { admin_url, name } => store::drop_db(&admin_url, &name).await,
        Cmd::DropStream { nats_url, stream } => store::drop_stream(&nats_url, &stream).await,
        Cmd::Seed(store) => store::seed(&store).await,
        Cmd::Fill {
            store,
            events,
            concurrency,
        } => fill::fill(&store, events, concurrency).await,
        Cmd::Wait { store, timeout } => store::wait(&store, timeout).await,
        Cmd::Lag {
            database_url,
            rate,
            seconds,
            warmup,
            poll_ms,
        } => lag::lag(&database_url, rate, seconds, warmup, poll_ms).await,
        Cmd::Http {
            base_url,
            token,
            clients,
            seconds,
            warmup,
        } => http::http(&base_url, &token, clients, seconds, warmup).await,
        Cmd::Visible {
            write_url,
            read_url,
            token,
            api_key,
            writes,
            rate,
        } => {
            visible::visible(&visible::Visible {
                write_url: &write_url,
                read_url: &read_url,
                token: &token,
                api_key: &api_key,
                writes,
                rate,
            })
            .await
        }
    }
}
