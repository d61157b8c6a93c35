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
use crate::query::{self, ChangeSpec, Session};
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
    /// Every site referencing a symbol, with its enclosing symbol (find_referencing_symbols).
    /// Sites below min_confidence are verified on the spot through the language server;
    /// at 0.95 or more the server's own references are asked too.
    Refs {
        symbol: String,
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
        /// Seconds to spend verifying (0: answer from the graph only).
        #[arg(long, default_value_t = 30)]
        budget: u64,
    },
    /// Who calls a symbol; --depth N for all callers up to N hops, with paths.
    Callers {
        symbol: String,
        #[arg(long, default_value_t = 1)]
        depth: u32,
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// What a symbol calls.
    Callees {
        symbol: String,
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// Files that import a file or use what it defines.
    Dependents {
        file: String,
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// What a change impacts: changed symbols, transitive dependents, the tests reaching them, untested impact.
    BlastRadius {
        /// One commit (against its first parent).
        #[arg(long, conflicts_with_all = ["range", "diff", "staged"])]
        commit: Option<String>,
        /// A range A..B or A...B.
        #[arg(long, conflicts_with_all = ["diff", "staged"])]
        range: Option<String>,
        /// A unified diff file (`-` for stdin).
        #[arg(long, conflicts_with = "staged")]
        diff: Option<PathBuf>,
        /// The staged change.
        #[arg(long)]
        staged: bool,
        #[arg(long, default_value_t = 5)]
        depth: u32,
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 15)]
        limit: usize,
        /// Also write the full JSON answer to this file (for CI).
        #[arg(long)]
        output: Option<PathBuf>,
        /// Exit 3 when an impacted item on a policy path is not verified.
        #[arg(long)]
        strict: bool,
    },
    /// Functions and methods no test reaches.
    Untested {
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// The most connected symbols.
    Hubs {
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Symbols most paths go through (betweenness centrality).
    Bridges {
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Dependency cycles (strongly connected components).
    Cycles {
        /// Between files instead of functions.
        #[arg(long)]
        files: bool,
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Definitions no entry point reaches: `dead`, or `unknown` where the graph cannot know.
    DeadCode {
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Clusters of densely connected symbols and the edges between them.
    Communities {
        #[arg(long)]
        min_confidence: Option<f64>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Confirm guessed edges through the language servers and report the static graph's precision.
    Verify {
        /// Only sites in these files or folders (repository-relative).
        paths: Vec<String>,
        /// Check edges below this confidence (default: every edge not yet verified).
        #[arg(long, default_value_t = 1.0)]
        min_confidence: f64,
        /// Stop asking after this many seconds.
        #[arg(long, default_value_t = 600)]
        budget: u64,
        /// Requests in flight per server.
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
        /// Do not ask for references to find sites the graph missed.
        #[arg(long)]
        no_discover: bool,
        /// Exit 3 when the measured precision of a language is below this ratio.
        #[arg(long)]
        fail_under: Option<f64>,
        /// Exit 3 when any edge on a policy path (.refgraph/config.toml) is left unverified.
        #[arg(long)]
        require_verified: bool,
        /// Most findings (sites where the server disagreed with the graph) to list; all are counted.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Language servers: what is found, where, at which version (`servers install` installs the pinned ones).
    Servers {
        #[command(subcommand)]
        action: Option<ServersAction>,
    },
    /// Serve every query as a tool over the Model Context Protocol (stdio).
    Mcp {
        /// Serve only these tools (comma-separated names).
        #[arg(long, value_name = "NAMES")]
        tools: Option<String>,
        /// Seconds of on-the-spot verification per call (default 20 for
        /// find_referencing_symbols, 60 for verify_edges); the rest is verified in the background.
        #[arg(long, value_name = "SECONDS")]
        verify_budget: Option<f64>,
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

#[derive(Subcommand, Debug)]
pub enum ServersAction {
    /// Install the pinned servers into refgraph's prefix (all, or the named ones); installed ones are kept.
    Install { names: Vec<String> },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    Json,
    Graphml,
    Dot,
}

/// Exit codes: 0 ok, 1 nothing found (or an ambiguous name), 2 error,
/// 3 a gate failed (`--strict`).
pub const EXIT_NOT_FOUND: u8 = 1;
pub const EXIT_ERROR: u8 = 2;
pub const EXIT_STRICT: u8 = 3;

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
        // Commands that end after their update and one query; `mcp` serves
        // on, and `verify` goes on to work with the language servers.
        one_shot: !matches!(cli.command, Command::Mcp { .. } | Command::Verify { .. }),
        on_demand: None,
    };
    if let Command::Servers { action } = &cli.command {
        return servers(&root, action.as_ref(), cli.json);
    }
    if let Command::Mcp {
        tools,
        verify_budget,
    } = &cli.command
    {
        let verify_budget = match verify_budget {
            Some(s) if !(s.is_finite() && *s >= 0.0) => {
                anyhow::bail!("--verify-budget must be a number of seconds >= 0, got {s}")
            }
            Some(s) => Some(std::time::Duration::from_secs_f64(*s)),
            None => None,
        };
        let opts = crate::mcp::McpOptions {
            tools: tools.clone(),
            verify_budget,
        };
        // The server opens a fresh session per tool call.
        crate::mcp::serve(&root, cfg, &opts)?;
        return Ok(ExitCode::SUCCESS);
    }
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
        Command::Refs {
            symbol,
            min_confidence,
            limit,
            budget,
        } => {
            let mut session = session;
            let r = if budget > 0 {
                let (rt, pool) = runtime_pool(&session)?;
                rt.block_on(async {
                    let budget = std::time::Duration::from_secs(budget);
                    let r = crate::verify::refs(
                        &mut session,
                        &pool,
                        &symbol,
                        min_confidence,
                        limit,
                        budget,
                    )
                    .await;
                    pool.shutdown().await;
                    r
                })?
            } else {
                session.refs(&symbol, min_confidence, limit)?
            };
            if cli.json {
                print_json(&mut out, &r)?;
            } else if let Some(c) = &r.candidates {
                render_candidates(&mut out, &symbol, c)?;
            } else {
                let s = r.symbol.as_ref().expect("symbol or candidates");
                writeln!(out, "{} {} ({}:{})", s.kind, s.key, s.file, s.line)?;
                for i in &r.results {
                    let note = i
                        .note
                        .as_deref()
                        .map(|n| format!("  [{n}]"))
                        .unwrap_or_default();
                    writeln!(
                        out,
                        "  {}:{}:{}  {} in {}  {} {:.2}{}{note}",
                        i.file,
                        i.line,
                        i.column,
                        i.kind,
                        i.referrer.key,
                        i.status,
                        i.confidence,
                        label(i.confidence, r.verification.min_confidence)
                    )?;
                }
                if r.results.is_empty() {
                    writeln!(out, "  no references in the repository (none resolved, none unresolved with this name)")?;
                }
                render_footer(&mut out, r.shown, r.total, &r.index)?;
                render_verification(&mut out, &r.verification)?;
            }
            Ok(if r.candidates.is_some() {
                ExitCode::from(EXIT_NOT_FOUND)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Callers {
            symbol,
            depth,
            min_confidence,
            limit,
        } => {
            let r = session.callers(&symbol, depth, min_confidence, limit)?;
            render_calls(&mut out, cli.json, &symbol, &r)
        }
        Command::Callees {
            symbol,
            min_confidence,
            limit,
        } => {
            let r = session.callees(&symbol, min_confidence, limit)?;
            render_calls(&mut out, cli.json, &symbol, &r)
        }
        Command::Dependents {
            file,
            min_confidence,
            limit,
        } => {
            let r = session.dependents(&file, min_confidence, limit)?;
            if cli.json {
                print_json(&mut out, &r)?;
            } else {
                writeln!(out, "{}", r.file)?;
                for d in &r.results {
                    writeln!(
                        out,
                        "  {}  {} sites  {} {:.2}",
                        d.file, d.sites, d.status, d.confidence
                    )?;
                }
                render_footer(&mut out, r.shown, r.total, &r.index)?;
            }
            Ok(exit_found(r.total > 0))
        }
        Command::BlastRadius {
            commit,
            range,
            diff,
            staged,
            depth,
            min_confidence,
            limit,
            output,
            strict,
        } => {
            let spec = if let Some(c) = commit {
                ChangeSpec::Commit(c)
            } else if let Some(r) = range {
                ChangeSpec::Range(r)
            } else if let Some(d) = diff {
                let text = if d.as_os_str() == "-" {
                    let mut t = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)
                        .context("cannot read the diff from stdin")?;
                    t
                } else {
                    std::fs::read_to_string(&d)
                        .with_context(|| format!("cannot read diff file {}", d.display()))?
                };
                ChangeSpec::Diff(text)
            } else if staged {
                ChangeSpec::Staged
            } else {
                ChangeSpec::WorkingTree
            };
            let full = session.blast_radius(&spec, depth, min_confidence, usize::MAX)?;
            if let Some(path) = output {
                std::fs::write(&path, serde_json::to_string_pretty(&full)? + "\n")
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            let unverified_policy = full
                .impacted
                .iter()
                .filter(|i| {
                    i.status != "verified"
                        && session.threshold(None, &i.symbol.file)
                            > crate::query::DEFAULT_MIN_CONFIDENCE
                })
                .count();
            let mut r = full;
            r.shown = r.impacted.len().min(limit);
            r.truncated = r.total > r.shown;
            r.impacted.truncate(limit);
            if cli.json {
                print_json(&mut out, &r)?;
            } else {
                render_blast(&mut out, &r)?;
            }
            if strict && unverified_policy > 0 {
                eprintln!("refgraph: --strict: {unverified_policy} impacted items on policy paths are not verified by a language server");
                return Ok(ExitCode::from(EXIT_STRICT));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Untested {
            min_confidence,
            limit,
        } => {
            let r = session.untested(min_confidence, limit)?;
            render_analysis(&mut out, cli.json, &r, |s| {
                format!("{} {}  {}:{}", s.kind, s.key, s.file, s.line)
            })
        }
        Command::Hubs {
            min_confidence,
            limit,
        } => {
            let r = session.hubs(min_confidence, limit)?;
            render_analysis(&mut out, cli.json, &r, |s| {
                format!(
                    "{:>6}  {} (in {}, out {})  {}:{}",
                    s.score,
                    s.symbol.key,
                    s.fan_in.unwrap_or(0),
                    s.fan_out.unwrap_or(0),
                    s.symbol.file,
                    s.symbol.line
                )
            })
        }
        Command::Bridges {
            min_confidence,
            limit,
        } => {
            let r = session.bridges(min_confidence, limit)?;
            render_analysis(&mut out, cli.json, &r, |s| {
                format!(
                    "{:>10.1}  {}  {}:{}",
                    s.score, s.symbol.key, s.symbol.file, s.symbol.line
                )
            })
        }
        Command::Cycles {
            files,
            min_confidence,
            limit,
        } => {
            let r = session.cycles(files, min_confidence, limit)?;
            render_analysis(&mut out, cli.json, &r, |c| {
                format!("{} members: {}", c.size, c.members.join(" -> "))
            })
        }
        Command::DeadCode {
            min_confidence,
            limit,
        } => {
            let r = session.dead_code(min_confidence, limit)?;
            render_analysis(&mut out, cli.json, &r, |d| {
                format!(
                    "{:<7} {} {}  {}:{}  ({})",
                    d.verdict, d.symbol.kind, d.symbol.key, d.symbol.file, d.symbol.line, d.reason
                )
            })
        }
        Command::Communities {
            min_confidence,
            limit,
        } => {
            let r = session.communities(min_confidence, limit)?;
            if cli.json {
                print_json(&mut out, &r)?;
            } else {
                writeln!(out, "{} communities, modularity {}", r.total, r.modularity)?;
                for c in &r.results {
                    writeln!(
                        out,
                        "  #{} ({} symbols): {}",
                        c.id,
                        c.size,
                        c.top.join(", ")
                    )?;
                    writeln!(out, "      files: {}", c.files.join(", "))?;
                }
                for x in r.crossing.iter().take(10) {
                    writeln!(out, "  #{} -> #{}: {} edges", x.from, x.to, x.edges)?;
                }
                render_footer(&mut out, r.shown, r.total, &r.index)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Mcp { .. } | Command::Servers { .. } => {
            unreachable!("handled before opening a session")
        }
        Command::Verify {
            paths,
            min_confidence,
            budget,
            concurrency,
            no_discover,
            fail_under,
            require_verified,
            limit,
        } => {
            let mut session = session;
            let opts = crate::verify::VerifyOptions {
                min_confidence,
                budget: std::time::Duration::from_secs(budget),
                concurrency,
                discover: !no_discover,
                paths: paths
                    .iter()
                    .map(|p| session.relative(p))
                    .collect::<Result<_, _>>()?,
                sites: None,
                discover_targets: Vec::new(),
                limit,
            };
            let report = run_verify(&mut session, &opts)?;
            if cli.json {
                print_json(&mut out, &report)?;
            } else {
                render_verify(&mut out, &report)?;
            }
            let mut failed = Vec::new();
            if let Some(min) = fail_under {
                for (lang, v) in &report.languages {
                    if v.precision().is_some_and(|p| p < min) {
                        failed.push(format!(
                            "{lang} precision {:.3} < {min}",
                            v.precision().unwrap_or(0.0)
                        ));
                    }
                }
            }
            if require_verified {
                let open = session.unverified_on_policy_paths()?;
                if open > 0 {
                    failed.push(format!("{open} edges on policy paths are not verified"));
                }
            }
            if !failed.is_empty() {
                eprintln!("refgraph: verify gate failed: {}", failed.join("; "));
                return Ok(ExitCode::from(EXIT_STRICT));
            }
            Ok(ExitCode::SUCCESS)
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
        // Expected skips are counted in the summary, not listed one by one.
        if !matches!(
            s.reason,
            crate::walk::SkipReason::TooLarge | crate::walk::SkipReason::Minified
        ) {
            eprintln!(
                "refgraph: skipped {}: {} ({})",
                s.path,
                s.reason.as_str(),
                s.detail
            );
        }
    }
}

fn servers(root: &std::path::Path, action: Option<&ServersAction>, json: bool) -> Result<ExitCode> {
    let config = crate::config::load(root).unwrap_or_default();
    let mut table = toml::Table::new();
    table.insert("servers".into(), toml::Value::Table(config.servers.clone()));
    let cfg = crate::lsp::LspConfig::from_config(&toml::Value::Table(table))?;
    if let Some(ServersAction::Install { names }) = action {
        let events = crate::lsp::install::install(names, &cfg, &mut |e| match e {
            crate::lsp::InstallEvent::Skipped {
                server,
                version,
                path,
            } => {
                eprintln!("{server} {version} already installed at {}", path.display())
            }
            crate::lsp::InstallEvent::Running { server, command } => {
                eprintln!("installing {server}: {command}")
            }
            crate::lsp::InstallEvent::Installed {
                server,
                version,
                path,
            } => {
                eprintln!("installed {server} {version} at {}", path.display())
            }
        })?;
        let _ = events;
    }
    let status = crate::lsp::install::status(&cfg);
    let mut out = std::io::stdout().lock();
    if json {
        let v: Vec<serde_json::Value> = status
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name, "languages": s.languages, "found": s.found,
                    "path": s.path, "version": s.version, "pinned_version": s.pinned_version,
                    "note": s.note, "install": s.install_hint,
                })
            })
            .collect();
        print_json(&mut out, &v)?;
    } else {
        for s in &status {
            let state = if s.found {
                format!(
                    "{} at {}{}",
                    s.version.as_deref().unwrap_or("unknown version"),
                    s.path
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                    if s.at_pinned_version() {
                        ""
                    } else {
                        " (not the pinned version)"
                    }
                )
            } else {
                format!("not found; install: {}", s.install_hint)
            };
            writeln!(out, "{:<28} {:<24} {state}", s.name, s.languages.join(","))?;
            if let Some(n) = &s.note {
                writeln!(out, "{:<28} note: {n}", "")?;
            }
        }
    }
    Ok(if status.iter().all(|s| s.found) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOT_FOUND)
    })
}

pub fn render_verify(out: &mut impl Write, r: &api::VerifyResult) -> Result<()> {
    if r.sites == 0 && r.languages.is_empty() {
        // A second run: the verdicts of the first are kept (with both
        // files' hashes) and were applied, so nothing is left to ask.
        writeln!(
            out,
            "nothing to verify below confidence {}: every such edge already has a language server's verdict, or the server had no answer for it before; verdicts are kept until either file changes (`refgraph status` counts edges by status; delete .refgraph/ to measure again from scratch)",
            r.min_confidence
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "verified {} sites below confidence {} in {:.1} s{}",
        r.sites,
        r.min_confidence,
        r.seconds,
        if r.budget_exhausted {
            " (budget exhausted: the rest stays unconfirmed)"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "{:<11} {:>7} {:>9} {:>10} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>7}",
        "language",
        "checked",
        "confirmed",
        "retargeted",
        "refuted",
        "found",
        "no node",
        "external",
        "discovered",
        "unanswered",
        "precision",
        "recall"
    )?;
    for (lang, v) in &r.languages {
        let pct = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{:.1}%", 100.0 * x));
        writeln!(
            out,
            "{:<11} {:>7} {:>9} {:>10} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9} {:>7}",
            lang,
            v.checked,
            v.confirmed,
            v.retargeted,
            v.refuted,
            v.resolved_unresolved,
            v.unmodelled,
            v.external_unresolved,
            v.discovered,
            v.unanswered + v.unchecked,
            pct(v.precision()),
            pct(v.recall())
        )?;
        if let Some(e) = &v.error {
            writeln!(out, "  {lang}: {e}")?;
        }
    }
    for (lang, state) in &r.servers {
        writeln!(out, "server {lang}: {state}")?;
    }
    if r.roots.len() > 1 || r.roots.iter().any(|x| x.skipped.is_some()) {
        for x in &r.roots {
            match &x.skipped {
                Some(why) => writeln!(
                    out,
                    "  {} root {}: {} sites {why}",
                    x.language, x.root, x.sites
                )?,
                None => writeln!(
                    out,
                    "  {} root {}: {} sites, {} checked, {}",
                    x.language, x.root, x.sites, x.checked, x.server
                )?,
            }
        }
    }
    writeln!(out, "(found: unresolved sites the server resolved in the repository; external: resolved outside it)")?;
    render_findings(out, &r.findings)
}

/// One line per finding: the site, what the graph said, what the server said.
fn render_findings(out: &mut impl Write, f: &api::Findings) -> Result<()> {
    if f.total == 0 {
        return Ok(());
    }
    let more = if f.truncated {
        format!(", the first {} shown", f.shown)
    } else {
        String::new()
    };
    writeln!(
        out,
        "\n{} sites where the server and the graph differ{more}:",
        f.total
    )?;
    let place = |t: &api::FindingTarget| match &t.key {
        Some(k) => format!("{k} ({}:{})", t.file, t.line),
        None => format!("{}:{}:{}", t.file, t.line, t.column),
    };
    let list = |ts: &[api::FindingTarget]| ts.iter().map(place).collect::<Vec<_>>().join(", ");
    for x in &f.results {
        let outcome = match x.outcome.as_str() {
            "resolved_unresolved" => "found",
            o => o,
        };
        let graph = if x.graph.is_empty() {
            "nothing".to_string()
        } else {
            list(&x.graph)
        };
        let server = if !x.server.is_empty() {
            list(&x.server)
        } else if x.external {
            "outside the repository".to_string()
        } else {
            "nothing".to_string()
        };
        writeln!(
            out,
            "  {outcome:<10} {}:{}:{} {}: graph → {graph}; server → {server}",
            x.file, x.line, x.column, x.name
        )?;
    }
    Ok(())
}

/// A runtime and a server pool for one command.
fn runtime_pool(session: &Session) -> Result<(tokio::runtime::Runtime, crate::lsp::Pool)> {
    let lsp = crate::verify::lsp_config(session)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    Ok((rt, crate::lsp::Pool::new(lsp)))
}

/// Verify, then shut the servers down.
fn run_verify(
    session: &mut Session,
    opts: &crate::verify::VerifyOptions,
) -> Result<api::VerifyResult> {
    let (rt, pool) = runtime_pool(session)?;
    Ok(rt.block_on(async {
        let r = crate::verify::verify(session, &pool, opts).await;
        pool.shutdown().await;
        r
    })?)
}

fn label(confidence: f64, min: f64) -> &'static str {
    if confidence < min {
        "  (inferred)"
    } else {
        ""
    }
}

fn render_candidates(out: &mut impl Write, query: &str, c: &[api::Symbol]) -> Result<()> {
    writeln!(out, "`{query}` is ambiguous; pick one of these keys:")?;
    for s in c {
        writeln!(out, "  {:<8} {}  {}:{}", s.kind, s.key, s.file, s.line)?;
    }
    Ok(())
}

fn render_verification(out: &mut impl Write, v: &api::Verification) -> Result<()> {
    if let Some(h) = &v.hint {
        writeln!(out, "note: {h}")?;
    }
    Ok(())
}

fn render_calls(
    out: &mut impl Write,
    json: bool,
    query: &str,
    r: &api::CallsResult,
) -> Result<ExitCode> {
    if json {
        print_json(out, r)?;
    } else if let Some(c) = &r.candidates {
        render_candidates(out, query, c)?;
        return Ok(ExitCode::from(EXIT_NOT_FOUND));
    } else {
        let s = r.symbol.as_ref().expect("symbol or candidates");
        writeln!(out, "{} {} ({}:{})", s.kind, s.key, s.file, s.line)?;
        for i in &r.results {
            writeln!(
                out,
                "{:indent$}{} {}  {}:{}  {} {:.2}{}",
                "",
                i.symbol.kind,
                i.symbol.key,
                i.symbol.file,
                i.symbol.line,
                i.status,
                i.confidence,
                label(i.confidence, r.verification.min_confidence),
                indent = 2 * i.depth as usize
            )?;
        }
        render_footer(out, r.shown, r.total, &r.index)?;
        render_verification(out, &r.verification)?;
    }
    Ok(if r.candidates.is_some() {
        ExitCode::from(EXIT_NOT_FOUND)
    } else {
        exit_found(r.total > 0)
    })
}

fn render_analysis<T: serde::Serialize>(
    out: &mut impl Write,
    json: bool,
    r: &api::Analysis<T>,
    line: impl Fn(&T) -> String,
) -> Result<ExitCode> {
    if json {
        print_json(out, r)?;
    } else {
        for item in &r.results {
            writeln!(out, "{}", line(item))?;
        }
        if r.results.is_empty() {
            writeln!(out, "none")?;
        }
        render_footer(out, r.shown, r.total, &r.index)?;
        if r.edges_left_out > 0 {
            writeln!(
                out,
                "({} edges below min_confidence {} not counted)",
                r.edges_left_out, r.min_confidence
            )?;
        }
        if let Some(k) = r.sampled {
            writeln!(out, "(approximated from {k} sampled sources)")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn render_blast(out: &mut impl Write, r: &api::BlastRadius) -> Result<()> {
    writeln!(out, "blast radius of {}", r.change)?;
    writeln!(out, "changed ({}):", r.changed.len())?;
    for c in r.changed.iter().take(20) {
        writeln!(
            out,
            "  {:<8} {} {}  {}:{}",
            c.change, c.symbol.kind, c.symbol.key, c.symbol.file, c.symbol.line
        )?;
    }
    if r.changed.len() > 20 {
        writeln!(out, "  … and {} more", r.changed.len() - 20)?;
    }
    writeln!(
        out,
        "impacted (showing {} of {}, by risk):",
        r.shown, r.total
    )?;
    for i in &r.impacted {
        writeln!(
            out,
            "  {:>5.2} d{} {}{}  {} {:.2}",
            i.risk,
            i.depth,
            i.symbol.key,
            if i.tested || !matches!(i.symbol.kind.as_str(), "function" | "method" | "class") {
                ""
            } else {
                "  UNTESTED"
            },
            i.status,
            i.confidence
        )?;
    }
    writeln!(out, "tests reaching the change ({}):", r.tests.len())?;
    for t in r.tests.iter().take(10) {
        writeln!(out, "  {}", t.key)?;
    }
    if r.tests.len() > 10 {
        writeln!(out, "  … and {} more", r.tests.len() - 10)?;
    }
    writeln!(out, "untested impact: {} symbols", r.untested.len())?;
    for u in r.untested.iter().take(10) {
        writeln!(out, "  {u}")?;
    }
    if r.untested.len() > 10 {
        writeln!(
            out,
            "  … and {} more (full list: --json or --output)",
            r.untested.len() - 10
        )?;
    }
    if r.edges_left_out > 0 {
        writeln!(
            out,
            "({} edges below min_confidence {} not followed)",
            r.edges_left_out, r.verification.min_confidence
        )?;
    }
    render_verification(out, &r.verification)?;
    Ok(())
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
