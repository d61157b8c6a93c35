//! Command-line definitions and the rendering of results as text or JSON:
//! the only code that prints.

pub mod export;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use crate::api;
use crate::index::IndexConfig;
use crate::query::{self, Session};
use crate::walk::WalkConfig;

#[derive(Parser, Debug)]
#[command(
    name = "refgraph",
    version,
    about = "A code graph for Python, TypeScript/JavaScript and Rust that says how sure it is of every edge",
    long_about = None
)]
pub struct Cli {
    /// The repository root (default: the git work tree containing the current directory, else the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Skip source files larger than this many bytes [default: `[index] max_file_size` in .refgraph/config.toml, else 1 MiB].
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build or update the graph in <repo>/.refgraph/graph.db.
    Index {
        /// The repository to index (overrides --repo).
        path: Option<PathBuf>,
        /// Do not draw progress bars.
        #[arg(long)]
        no_progress: bool,
    },
    /// Files, nodes and edges by kind and status, skipped files, freshness.
    Status,
    /// Find symbols by key, key suffix, name, `path:line[:column]`, or words of a name.
    Find {
        query: String,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// A file's symbols with kinds and lines.
    Overview {
        file: String,
        #[arg(long, default_value_t = 200)]
        limit: usize,
    },
    /// Write the whole graph.
    Export {
        #[arg(long, value_enum, default_value_t = ExportFormat::Json)]
        format: ExportFormat,
        /// Write to this file instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    Json,
    Graphml,
    Dot,
}

/// Exit codes: 0 ok, 1 nothing found, 2 error.
pub const EXIT_NOT_FOUND: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

pub fn run(cli: Cli) -> Result<ExitCode> {
    let root = match (&cli.command, &cli.repo) {
        (Command::Index { path: Some(p), .. }, _) => p.clone(),
        (_, Some(r)) => r.clone(),
        _ => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            crate::git::find_root(&cwd).unwrap_or(cwd)
        }
    };
    let indexing = matches!(&cli.command, Command::Index { .. });
    let progress = matches!(
        &cli.command,
        Command::Index {
            no_progress: false,
            ..
        }
    );
    crate::index::check_root(&root)?;
    let config = crate::config::load(&root)?;
    let cfg = IndexConfig {
        walk: WalkConfig {
            max_file_size: cli
                .max_file_size
                .or(config.index.max_file_size)
                .unwrap_or(WalkConfig::default().max_file_size),
            ..WalkConfig::default()
        },
        progress,
    };
    let session = query::open(&root, &cfg)?;
    report_database_note(&session, indexing);
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Index { .. } => {
            let summary = session.summary()?;
            if cli.json {
                print_json(&mut out, &summary)?;
            } else {
                render_summary(&mut out, &summary)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Status => {
            let status = session.status()?;
            if cli.json {
                print_json(&mut out, &status)?;
            } else {
                render_status(&mut out, &status)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Find { query, limit } => {
            let found = session.find(&query, limit)?;
            if cli.json {
                print_json(&mut out, &found)?;
            } else if found.results.is_empty() {
                eprintln!("no symbol matches `{query}`");
            } else {
                for s in &found.results {
                    writeln!(
                        out,
                        "{:<8} {}  {}:{}:{}",
                        s.kind, s.key, s.file, s.line, s.column
                    )?;
                }
                render_footer(&mut out, found.shown, found.total, &found.index)?;
            }
            Ok(exit_found(!found.results.is_empty()))
        }
        Command::Overview { file, limit } => {
            let ov = session.overview(&file, limit)?;
            if cli.json {
                print_json(&mut out, &ov)?;
            } else {
                writeln!(out, "{}", ov.file)?;
                for item in &ov.results {
                    let s = &item.symbol;
                    writeln!(
                        out,
                        "{:indent$}{} {}  {}-{}",
                        "",
                        s.kind,
                        s.name,
                        s.line,
                        s.end_line,
                        indent = 2 + 2 * item.depth as usize
                    )?;
                }
                render_footer(&mut out, ov.shown, ov.total, &ov.index)?;
            }
            Ok(exit_found(ov.total > 0))
        }
        Command::Export { format, output } => {
            let graph = session.export()?;
            let text = match format {
                ExportFormat::Json => serde_json::to_string_pretty(&graph)? + "\n",
                ExportFormat::Graphml => export::graphml(&graph),
                ExportFormat::Dot => export::dot(&graph),
            };
            match output {
                Some(path) => std::fs::write(&path, text)
                    .with_context(|| format!("cannot write {}", path.display()))?,
                None => out.write_all(text.as_bytes())?,
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn exit_found(found: bool) -> ExitCode {
    if found {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOT_FOUND)
    }
}

fn report_database_note(session: &Session, indexing: bool) {
    if let Some(crate::store::OpenNote::Rebuilt(why)) = &session.report.open_note {
        eprintln!(
            "refgraph: rebuilt the database {}: {why}",
            session.store.path()
        );
    }
    if !indexing {
        return;
    }
    for s in &session.report.skipped {
        if !matches!(s.reason, crate::walk::SkipReason::TooLarge) {
            eprintln!(
                "refgraph: skipped {}: {} ({})",
                s.path,
                s.reason.as_str(),
                s.detail
            );
        }
    }
}

fn print_json<T: serde::Serialize>(out: &mut impl Write, v: &T) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, v)?;
    writeln!(out)?;
    Ok(())
}

fn render_footer(
    out: &mut impl Write,
    shown: usize,
    total: usize,
    index: &api::IndexInfo,
) -> Result<()> {
    if shown < total {
        writeln!(out, "(showing {shown} of {total})")?;
    }
    if index.reindexed > 0 {
        writeln!(out, "(re-indexed {} changed files first)", index.reindexed)?;
    }
    Ok(())
}

fn render_summary(out: &mut impl Write, s: &api::IndexSummary) -> Result<()> {
    writeln!(
        out,
        "indexed {}: {} files ({} extracted, {} removed, {} resolved), {} nodes, {} edges in {:.2} s",
        s.root, s.files, s.extracted, s.deleted, s.resolved, s.nodes, s.edges, s.seconds
    )?;
    if let Some(db) = &s.database {
        writeln!(out, "database {db}")?;
    }
    if !s.skipped.is_empty() {
        let parts: Vec<String> = s.skipped.iter().map(|(r, n)| format!("{n} {r}")).collect();
        writeln!(
            out,
            "skipped files: {} (details: refgraph status)",
            parts.join(", ")
        )?;
    }
    if s.skipped_dirs > 0 {
        writeln!(
            out,
            "skipped {} dependency/build folders (node_modules, target, virtualenvs, dist, …)",
            s.skipped_dirs
        )?;
    }
    if !s.diagnostics.is_empty() {
        writeln!(
            out,
            "{} diagnostics (the rest of each file was indexed):",
            s.diagnostics.len()
        )?;
        for d in s.diagnostics.iter().take(20) {
            writeln!(out, "  {}:{}:{} {}", d.file, d.line, d.column, d.message)?;
        }
        if s.diagnostics.len() > 20 {
            writeln!(out, "  … and {} more", s.diagnostics.len() - 20)?;
        }
    }
    Ok(())
}

fn render_status(out: &mut impl Write, s: &api::IndexStatus) -> Result<()> {
    writeln!(out, "repository  {}", s.root)?;
    writeln!(
        out,
        "database    {} (schema {})",
        s.database, s.schema_version
    )?;
    let join = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let files: u64 = s.files.values().sum();
    writeln!(out, "files       {files} ({})", join(&s.files))?;
    let nodes: u64 = s.nodes.values().sum();
    writeln!(out, "nodes       {nodes} ({})", join(&s.nodes))?;
    let edges: u64 = s.edges.values().flat_map(|m| m.values()).sum();
    writeln!(out, "edges       {edges}")?;
    for (kind, by_status) in &s.edges {
        writeln!(out, "  {kind:<11} {}", join(by_status))?;
    }
    writeln!(
        out,
        "unresolved  {} sites (for the language servers)",
        s.unresolved
    )?;
    writeln!(out, "diagnostics {}", s.diagnostics)?;
    if !s.skipped.is_empty() {
        writeln!(out, "skipped     {} files", s.skipped.len())?;
        for f in s.skipped.iter().take(20) {
            writeln!(out, "  {} — {} ({})", f.path, f.reason, f.detail)?;
        }
    }
    writeln!(out, "pending     {} files", s.pending)?;
    match &s.index.head {
        Some(h) => writeln!(out, "head        {h}")?,
        None => writeln!(out, "head        (not a git work tree)")?,
    }
    Ok(())
}
