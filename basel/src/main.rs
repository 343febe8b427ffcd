//! The `basel` binary: parses the command line and runs one subcommand.

use std::process::ExitCode;

use telemetry::LogFormat;

/// jemalloc serves the whole process, SQLite's `malloc` included. Under
/// glibc's allocator the soak's RSS kept growing (~2 MiB a minute, no
/// plateau in 10 minutes) while the live heap stayed flat (`malloc_stats`:
/// the same bytes in use, more held by the arenas of the SQLite connection
/// threads): memory freed under steady writes and reads was kept, not
/// reused or returned. With jemalloc the same soak levels off after a few
/// minutes (BENCHMARKS.md, "Soak").
///
/// Its options are built in (`JEMALLOC_SYS_WITH_MALLOC_CONF` in
/// `.cargo/config.toml`: two arenas, freed pages returned within a second);
/// `MALLOC_CONF` in the environment overrides them.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = basel::cli::args::parse();
    let format = cli.log_format;
    let traces = basel::cli::args::traces(&cli);
    let log = match telemetry::init(format, traces.as_ref()) {
        Ok(guard) => guard,
        Err(error) => {
            eprintln!("error: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    let result = basel::cli::run(cli).await;
    if let (Err(error), LogFormat::Json) = (&result, format) {
        // Every stderr line stays one JSON object.
        if !is_broken_pipe(error) {
            let message = basel::cli::report::one_line(error);
            tracing::error!(target: "basel", "{message}");
        }
    }
    // The last spans are sent, and the log lines written so far reach
    // stderr, before anything below.
    drop(log);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            if format == LogFormat::Text {
                // A list (an import's problems) keeps one item per line.
                eprintln!("error: {}", basel::cli::report::for_terminal(&error));
            }
            ExitCode::FAILURE
        }
    }
}

/// `basel export | head` closes the pipe early: that is the reader's choice, not an error.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause.downcast_ref::<csv::Error>().is_some_and(|e| matches!(e.kind(), csv::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe))
            || cause.downcast_ref::<serde_json::Error>().is_some_and(|e| e.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}
