//! The `refgraph` binary: parse arguments, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;
use refgraph::cli::{self, Cli};

/// mimalloc for Rust allocations (Tree-sitter's: `memory::setup`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // SAFETY: called first, on the main thread, before any Tree-sitter call.
    unsafe { refgraph::memory::setup() };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("RUST_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { cli::EXIT_ERROR } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("refgraph: {e:#}");
            let not_found = matches!(
                e.downcast_ref::<refgraph::query::QueryError>(),
                Some(refgraph::query::QueryError::UnknownSymbol { .. })
            );
            ExitCode::from(if not_found {
                cli::EXIT_NOT_FOUND
            } else {
                cli::EXIT_ERROR
            })
        }
    }
}
