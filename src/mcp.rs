//! `refgraph mcp`: the Model Context Protocol server over stdio (rmcp).
//!
//! Tools are thin calls into [`crate::query`]: every call opens a fresh
//! [`Session`] (which first brings the index up to date with the working
//! tree), runs one query on a blocking thread, and answers with the `api`
//! type as structured content plus a compact text rendering.
//!
//! Failures the model should read (unknown symbol, ambiguous name, bad diff
//! or commit, file not indexed, path outside the repository, bad arguments)
//! are tool results with `isError: true`; only protocol misuse and server
//! bugs are MCP errors. stdout is the protocol channel: logs go to stderr.
//!
//! Guessed edges below a call's `min_confidence` are verified with language
//! servers kept warm between calls: on the spot within a budget
//! (`find_referencing_symbols`, `verify_edges`), and whatever is left —
//! also the guesses behind `find_callers*`, `find_callees` and
//! `blast_radius` answers — in the background ([`background`]).
//!
//! Tools declare no `outputSchema`: the shapes are the `api` types (DESIGN
//! §6), and declaring them would make `tools/list` 46 KB instead of 10 KB,
//! paid in every agent's context by clients that forward it.

mod background;
mod params;
mod render;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use serde::Serialize;

use crate::api::{BlastRadius, CallsResult, Verification, VerifyEdgesResult};
use crate::index::IndexConfig;
use crate::query::{self, ChangeSpec, QueryError, Session};

use background::{Background, SiteKey};
pub use params::*;
use render::Reply;

/// Default `limit`s, the same as the CLI's.
mod limits {
    pub const FIND: usize = 20;
    pub const OVERVIEW: usize = 200;
    pub const REFS: usize = 100;
    pub const CALLS: usize = 100;
    pub const DEPENDENTS: usize = 100;
    pub const BLAST: usize = 15;
    pub const UNTESTED: usize = 50;
    pub const HUBS: usize = 20;
    pub const BRIDGES: usize = 20;
    pub const CYCLES: usize = 20;
    pub const DEAD_CODE: usize = 50;
    pub const COMMUNITIES: usize = 20;
}

/// Default depth of `find_callers_transitive` and `blast_radius`.
const DEFAULT_DEPTH: u32 = 5;

/// Default time `find_referencing_symbols` verifies on the spot.
const REFS_BUDGET: Duration = Duration::from_secs(20);
/// Default time budget of `verify_edges`.
const VERIFY_BUDGET: Duration = Duration::from_secs(60);

/// How `refgraph mcp` serves.
#[derive(Clone, Debug, Default)]
pub struct McpOptions {
    /// Serve only these tools (`--tools a,b`); all when `None`.
    pub tools: Option<String>,
    /// Time budget of on-the-spot verification (`--verify-budget`), for
    /// `find_referencing_symbols` and `verify_edges`; each has its default
    /// when `None`. What the budget leaves is verified in the background.
    pub verify_budget: Option<Duration>,
}

/// What the server says about itself at `initialize`.
const INSTRUCTIONS: &str =
    "refgraph answers structural questions about the code in one repository \
(Python, TypeScript/JavaScript, Rust): who references or calls a symbol, what a change impacts, \
which code no test reaches. Every answer is computed on the code on disk and every edge carries a \
confidence and a status (verified, syntactic, inferred). A `symbol` argument is a key \
(`pkg.mod.Class.method`, `src/a.ts:Class.method`, `crate::m::f`), a key suffix, a bare name or \
`path:line[:column]`; an ambiguous name answers with candidate keys to pick from.";

/// The MCP server of one repository.
#[derive(Clone)]
pub struct Server {
    root: Arc<PathBuf>,
    cfg: Arc<IndexConfig>,
    /// Serializes the freshness update that opens a session within this
    /// process: concurrent calls would otherwise re-index the same files
    /// side by side. Queries themselves run in parallel.
    update_gate: Arc<Mutex<()>>,
    /// Language servers, started on first need and kept warm between calls.
    pool: Arc<tokio::sync::OnceCell<crate::lsp::Pool>>,
    /// Sites left unchecked by calls, verified after them.
    background: Arc<Background>,
    verify_budget: Option<Duration>,
    tool_router: ToolRouter<Server>,
}

/// Answers computed whole (so every unchecked site is seen), then cut to
/// `limit`, whose `verification` says what was left to the background.
trait Verified {
    fn verification_mut(&mut self) -> &mut Verification;
    fn truncate(&mut self, limit: usize);
}

impl Verified for CallsResult {
    fn verification_mut(&mut self) -> &mut Verification {
        &mut self.verification
    }
    fn truncate(&mut self, limit: usize) {
        self.results.truncate(limit);
        self.shown = self.results.len();
        self.truncated = self.total > self.shown;
    }
}

impl Verified for BlastRadius {
    fn verification_mut(&mut self) -> &mut Verification {
        &mut self.verification
    }
    fn truncate(&mut self, limit: usize) {
        self.impacted.truncate(limit);
        self.shown = self.impacted.len();
        self.truncated = self.total > self.shown;
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("root", &self.root).finish()
    }
}

/// Names of every tool, sorted.
pub fn tool_names() -> Vec<String> {
    Server::tool_router()
        .list_all()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

impl Server {
    /// A server for `root` (an existing directory) serving `tools` (all
    /// when `None`). Unknown tool names are an error naming them.
    pub fn new(root: &Path, cfg: IndexConfig, tools: Option<&[String]>) -> Result<Server> {
        let mut tool_router = Server::tool_router();
        if let Some(wanted) = tools {
            let all = tool_names();
            let unknown: Vec<&str> = wanted
                .iter()
                .filter(|w| !all.contains(w))
                .map(String::as_str)
                .collect();
            if !unknown.is_empty() {
                bail!(
                    "unknown tool{} {} in --tools; valid tools: {}",
                    if unknown.len() > 1 { "s" } else { "" },
                    unknown.join(", "),
                    all.join(", ")
                );
            }
            if wanted.is_empty() {
                bail!("--tools names no tool; valid tools: {}", all.join(", "));
            }
            for name in all.iter().filter(|n| !wanted.contains(n)) {
                tool_router.remove_route(name);
            }
        }
        Ok(Server {
            root: Arc::new(root.to_path_buf()),
            cfg: Arc::new(cfg),
            update_gate: Arc::new(Mutex::new(())),
            pool: Arc::new(tokio::sync::OnceCell::new()),
            background: Arc::new(Background::default()),
            verify_budget: None,
            tool_router,
        })
    }

    /// Open a fresh session: bring the index up to date with the working tree.
    fn open(&self) -> Result<Session, QueryError> {
        let _gate = self.update_gate.lock().unwrap_or_else(|e| e.into_inner());
        query::open(&self.root, &self.cfg)
    }

    /// Run one query on a blocking thread and turn its answer into a tool
    /// result: structured content (the `api` type) plus `render`'s text.
    async fn answer<T, Q, R>(
        &self,
        tool: &'static str,
        q: Q,
        render: R,
    ) -> Result<CallToolResult, ErrorData>
    where
        T: Serialize + Send + 'static,
        Q: FnOnce(&Session) -> Result<T, QueryError> + Send + 'static,
        R: FnOnce(&T) -> Reply + Send + 'static,
    {
        let this = self.clone();
        let started = Instant::now();
        let out = tokio::task::spawn_blocking(move || -> Result<CallToolResult, QueryError> {
            let session = this.open()?;
            let value = q(&session)?;
            let reply = render(&value);
            tool_result(&value, reply)
        })
        .await
        .map_err(|e| {
            tracing::error!(tool, "tool call failed: {e}");
            ErrorData::internal_error(format!("{tool} failed: {e}"), None)
        })?;
        tracing::debug!(
            tool,
            elapsed_ms = started.elapsed().as_millis() as u64,
            ok = out.is_ok()
        );
        Ok(out.unwrap_or_else(|e| tool_error(render::query_error(&e))))
    }

    /// Like [`Server::answer`] for a query run without a limit: the
    /// unchecked sites `sites` picks from the whole answer go to background
    /// verification, the answer says how many and is cut to `limit`.
    async fn answer_queued<T, Q, S, R>(
        &self,
        tool: &'static str,
        q: Q,
        sites: S,
        limit: usize,
        render: R,
    ) -> Result<CallToolResult, ErrorData>
    where
        T: Serialize + Verified + Send + 'static,
        Q: FnOnce(&Session) -> Result<T, QueryError> + Send + 'static,
        S: FnOnce(&Session, &T) -> Result<Vec<SiteKey>, QueryError> + Send + 'static,
        R: FnOnce(&T) -> Reply + Send + 'static,
    {
        let this = self.clone();
        let started = Instant::now();
        let out = tokio::task::spawn_blocking(move || {
            let session = this.open()?;
            let mut value = q(&session)?;
            let sites = background::unchecked(&session, sites(&session, &value)?)?;
            value.truncate(limit);
            let lsp = (!sites.is_empty()).then(|| crate::verify::lsp_config(&session));
            Ok::<_, QueryError>((value, sites, lsp))
        })
        .await
        .map_err(|e| {
            tracing::error!(tool, "tool call failed: {e}");
            ErrorData::internal_error(format!("{tool} failed: {e}"), None)
        })?;
        let answer = match out {
            Ok((mut value, sites, lsp)) => {
                if let Some(lsp) = lsp {
                    self.queue(value.verification_mut(), sites, lsp).await;
                }
                let reply = render(&value);
                tool_result(&value, reply)
            }
            Err(e) => Err(e),
        };
        tracing::debug!(
            tool,
            elapsed_ms = started.elapsed().as_millis() as u64,
            ok = answer.is_ok()
        );
        Ok(answer.unwrap_or_else(|e| tool_error(render::query_error(&e))))
    }

    /// Queue `sites` for background verification (those a language server
    /// is installed for) and say so in `v`.
    async fn queue(
        &self,
        v: &mut Verification,
        sites: Vec<SiteKey>,
        lsp: Result<crate::lsp::LspConfig, QueryError>,
    ) {
        let Ok(pool) = self.pool(lsp).await else {
            return;
        };
        let mut servable: std::collections::HashMap<crate::extract::Lang, bool> =
            std::collections::HashMap::new();
        let sites: Vec<SiteKey> = sites
            .into_iter()
            .filter(|(path, _, _)| {
                let Some(lang) = crate::extract::Lang::of_path(path) else {
                    return false;
                };
                *servable.entry(lang).or_insert_with(|| {
                    !matches!(
                        pool.state(lang, &self.root),
                        crate::lsp::ServerState::NotInstalled { .. }
                    )
                })
            })
            .collect();
        let n = self.background.enqueue(self, sites);
        v.queued = n;
        if n > 0 {
            v.hint = Some(format!(
                "{} items are below min_confidence and unconfirmed: treat them as inferred; \
                 {n} of their sites are being verified in the background, so a later call may confirm them",
                v.below_threshold
            ));
        }
    }

    /// The language servers, started on first need and kept warm. `lsp` is
    /// the session's configuration (`verify::lsp_config`), taken before
    /// awaiting: a `Session` cannot be shared across threads.
    async fn pool(
        &self,
        lsp: Result<crate::lsp::LspConfig, QueryError>,
    ) -> Result<&crate::lsp::Pool, QueryError> {
        let lsp = lsp?;
        Ok(self
            .pool
            .get_or_init(|| async { crate::lsp::Pool::new(lsp) })
            .await)
    }

    /// Check the arguments before touching the index.
    fn check(&self, min_confidence: Option<f64>) -> Result<(), CallToolResult> {
        match min_confidence {
            Some(m) if !(0.0..=1.0).contains(&m) => Err(tool_error(format!(
                "min_confidence must be between 0 and 1, got {m}"
            ))),
            _ => Ok(()),
        }
    }

    fn check_path(&self, file: &str) -> Result<(), CallToolResult> {
        query::relative_to(&self.root, file)
            .map(|_| ())
            .map_err(|e| tool_error(render::query_error(&e)))
    }
}

/// An answer as a tool result: the `api` value as structured content plus
/// its text rendering.
fn tool_result<T: Serialize>(value: &T, reply: Reply) -> Result<CallToolResult, QueryError> {
    let json = serde_json::to_value(value)
        .map_err(|e| QueryError::BadInput(format!("cannot serialize the answer: {e}")))?;
    let mut result = if reply.is_error {
        CallToolResult::structured_error(json)
    } else {
        CallToolResult::structured(json)
    };
    result.content = vec![ContentBlock::text(reply.text)];
    Ok(result)
}

/// A tool result with `isError: true` and a message for the model.
fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// The change `blast_radius` is asked about; errors name the bad argument.
fn change_spec(root: &Path, p: &BlastParams) -> Result<ChangeSpec, String> {
    let given: Vec<&str> = [
        ("commit", p.commit.is_some()),
        ("range", p.range.is_some()),
        ("diff", p.diff.is_some()),
        ("staged", p.staged),
    ]
    .into_iter()
    .filter(|(_, set)| *set)
    .map(|(name, _)| name)
    .collect();
    if given.len() > 1 {
        return Err(format!(
            "pass at most one of commit, range, diff, staged (got {})",
            given.join(", ")
        ));
    }
    if let Some(c) = &p.commit {
        query::validate_rev(c)?;
        return Ok(ChangeSpec::Commit(c.clone()));
    }
    if let Some(r) = &p.range {
        return Ok(ChangeSpec::Range(r.clone()));
    }
    if let Some(d) = &p.diff {
        // The diff is text; its paths must still name files inside the repository.
        let files = query::parse_diff(d).map_err(|e| format!("malformed diff: {e}"))?;
        for path in files
            .iter()
            .flat_map(|f| f.old_path.iter().chain(f.new_path.iter()))
        {
            query::relative_to(root, path).map_err(|e| format!("diff names a file {e}"))?;
        }
        return Ok(ChangeSpec::Diff(d.clone()));
    }
    Ok(if p.staged {
        ChangeSpec::Staged
    } else {
        ChangeSpec::WorkingTree
    })
}

macro_rules! checked {
    ($e:expr) => {
        if let Err(r) = $e {
            return Ok(r);
        }
    };
}

#[tool_router]
impl Server {
    #[tool(
        description = "Find symbols by key, key suffix, bare name, `path:line[:column]`, or words of a name (full-text). Returns keys to pass as `symbol` to the other tools.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_symbol(
        &self,
        Parameters(p): Parameters<FindParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let limit = p.limit.unwrap_or(limits::FIND);
        self.answer(
            "find_symbol",
            move |s| s.find(&p.query, limit),
            render::find,
        )
        .await
    }

    #[tool(
        description = "A file's definitions (classes, functions, methods, tests) with kinds, lines and nesting, in source order.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_symbols_overview(
        &self,
        Parameters(p): Parameters<OverviewParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check_path(&p.file));
        let limit = p.limit.unwrap_or(limits::OVERVIEW);
        self.answer(
            "get_symbols_overview",
            move |s| s.overview(&p.file, limit),
            render::overview,
        )
        .await
    }

    #[tool(
        description = "Every site that references a symbol (calls, type uses, imports, inheritance), with the enclosing symbol, confidence and status of each. Sites below `min_confidence` are checked with a language server; those time did not allow are checked in the background for a later call.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_referencing_symbols(
        &self,
        Parameters(p): Parameters<SymbolParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::REFS);
        // Sites below min_confidence are verified on the spot with the warm
        // servers within the budget; what is left stays labelled, and is
        // verified in the background.
        let this = self.clone();
        let session = tokio::task::spawn_blocking(move || this.open())
            .await
            .map_err(|e| {
                ErrorData::internal_error(format!("find_referencing_symbols failed: {e}"), None)
            })?;
        let mut session = match session {
            Ok(s) => s,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        let pool = match self.pool(crate::verify::lsp_config(&session)).await {
            Ok(p) => p,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        let budget = self.verify_budget.unwrap_or(REFS_BUDGET);
        let answer = {
            let _first = self.background.foreground();
            crate::verify::refs(
                &mut session,
                pool,
                &p.symbol,
                p.min_confidence,
                limit,
                budget,
            )
            .await
        };
        let mut answer = match answer {
            Ok(a) => a,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        // The sites the budget left, in the whole answer (not only the
        // first `limit`).
        if let Some(s) = answer
            .symbol
            .clone()
            .filter(|_| answer.verification.below_threshold > 0)
        {
            let min = answer.verification.min_confidence;
            let left = session
                .refs(&s.key, Some(min), usize::MAX)
                .and_then(|all| background::unchecked(&session, background::refs_sites(&all)));
            match left {
                Ok(sites) if !sites.is_empty() => {
                    let lsp = crate::verify::lsp_config(&session);
                    self.queue(&mut answer.verification, sites, lsp).await;
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("cannot queue background verification: {e}"),
            }
        }
        let answer = tool_result(&answer, render::refs(&answer));
        Ok(answer.unwrap_or_else(|e| tool_error(render::query_error(&e))))
    }

    #[tool(
        description = "The direct callers of a function or method (one hop).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_callers(
        &self,
        Parameters(p): Parameters<SymbolParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::CALLS);
        self.answer_queued(
            "find_callers",
            move |s| s.callers(&p.symbol, 1, p.min_confidence, usize::MAX),
            background::call_sites,
            limit,
            render::calls,
        )
        .await
    }

    #[tool(
        description = "All callers of a function or method up to `depth` hops (default 5), each with its depth and the call path that reaches it.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_callers_transitive(
        &self,
        Parameters(p): Parameters<TransitiveParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::CALLS);
        let depth = p.depth.unwrap_or(DEFAULT_DEPTH);
        self.answer_queued(
            "find_callers_transitive",
            move |s| s.callers(&p.symbol, depth, p.min_confidence, usize::MAX),
            background::call_sites,
            limit,
            render::calls,
        )
        .await
    }

    #[tool(
        description = "What a function or method calls (one hop).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_callees(
        &self,
        Parameters(p): Parameters<SymbolParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::CALLS);
        self.answer_queued(
            "find_callees",
            move |s| s.callees(&p.symbol, p.min_confidence, usize::MAX),
            background::call_sites,
            limit,
            render::calls,
        )
        .await
    }

    #[tool(
        description = "Files that import a file or use what it defines, with the number of sites in each.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_dependents(
        &self,
        Parameters(p): Parameters<FileParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        checked!(self.check_path(&p.file));
        let limit = p.limit.unwrap_or(limits::DEPENDENTS);
        self.answer(
            "find_dependents",
            move |s| s.dependents(&p.file, p.min_confidence, limit),
            render::dependents,
        )
        .await
    }

    #[tool(
        description = "What a change impacts: changed symbols, their transitive dependents ranked by risk, the tests reaching them, and untested impact. The change is a commit, a range, a unified diff (text), the staged change, or by default the working tree vs HEAD.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn blast_radius(
        &self,
        Parameters(p): Parameters<BlastParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let spec = match change_spec(&self.root, &p) {
            Ok(s) => s,
            Err(e) => return Ok(tool_error(e)),
        };
        let limit = p.limit.unwrap_or(limits::BLAST);
        let depth = p.depth.unwrap_or(DEFAULT_DEPTH);
        self.answer_queued(
            "blast_radius",
            move |s| s.blast_radius(&spec, depth, p.min_confidence, usize::MAX),
            background::blast_sites,
            limit,
            render::blast,
        )
        .await
    }

    #[tool(
        description = "Functions and methods that no test reaches through calls or references (min_confidence default 0.7).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_untested(
        &self,
        Parameters(p): Parameters<UntestedParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::UNTESTED);
        self.answer(
            "find_untested",
            move |s| s.untested(p.min_confidence, limit),
            render::untested,
        )
        .await
    }

    #[tool(
        description = "The most connected symbols, by fan-in plus fan-out (min_confidence default 0.5).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_hubs(
        &self,
        Parameters(p): Parameters<HubsParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::HUBS);
        self.answer(
            "find_hubs",
            move |s| s.hubs(p.min_confidence, limit),
            render::hubs,
        )
        .await
    }

    #[tool(
        description = "Symbols that most paths between other symbols go through (betweenness centrality; min_confidence default 0.5).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_bridges(
        &self,
        Parameters(p): Parameters<BridgesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::BRIDGES);
        self.answer(
            "find_bridges",
            move |s| s.bridges(p.min_confidence, limit),
            render::bridges,
        )
        .await
    }

    #[tool(
        description = "Dependency cycles (strongly connected components) between functions, or between files with `files: true` (min_confidence default 0.5).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_cycles(
        &self,
        Parameters(p): Parameters<CyclesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::CYCLES);
        self.answer(
            "find_cycles",
            move |s| s.cycles(p.files, p.min_confidence, limit),
            render::cycles,
        )
        .await
    }

    #[tool(
        description = "Definitions no entry point reaches: `dead`, or `unknown` where only unconfirmed or unresolved references could reach them (min_confidence default 0.9).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn detect_dead_code(
        &self,
        Parameters(p): Parameters<DeadCodeParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::DEAD_CODE);
        self.answer(
            "detect_dead_code",
            move |s| s.dead_code(p.min_confidence, limit),
            render::dead_code,
        )
        .await
    }

    #[tool(
        description = "Clusters of densely connected symbols (Louvain) and the edges that cross between them (min_confidence default 0.5).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn find_communities(
        &self,
        Parameters(p): Parameters<CommunitiesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        let limit = p.limit.unwrap_or(limits::COMMUNITIES);
        self.answer(
            "find_communities",
            move |s| s.communities(p.min_confidence, limit),
            render::communities,
        )
        .await
    }

    #[tool(
        description = "Confirm guessed edges through the language servers (pyright, typescript-language-server, rust-analyzer) within a 60 s budget, then go on in the background; reports per language what was confirmed, retargeted, refuted and discovered. Servers stay warm between calls.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn verify_edges(
        &self,
        Parameters(p): Parameters<VerifyParams>,
    ) -> Result<CallToolResult, ErrorData> {
        checked!(self.check(p.min_confidence));
        for path in p.paths.iter().flatten() {
            checked!(self.check_path(path));
        }
        let this = self.clone();
        let session = tokio::task::spawn_blocking(move || this.open())
            .await
            .map_err(|e| ErrorData::internal_error(format!("verify_edges failed: {e}"), None))?;
        let mut session = match session {
            Ok(s) => s,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        let pool = match self.pool(crate::verify::lsp_config(&session)).await {
            Ok(p) => p,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        let paths: Vec<String> = match p
            .paths
            .iter()
            .flatten()
            .map(|f| session.relative(f))
            .collect::<Result<_, _>>()
        {
            Ok(p) => p,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        let min = p.min_confidence.unwrap_or(query::DEFAULT_MIN_CONFIDENCE);
        let opts = crate::verify::VerifyOptions {
            min_confidence: min,
            budget: self.verify_budget.unwrap_or(VERIFY_BUDGET),
            paths: paths.clone(),
            limit: p.limit.unwrap_or(20),
            ..crate::verify::VerifyOptions::default()
        };
        let report = {
            let _first = self.background.foreground();
            crate::verify::verify(&mut session, pool, &opts).await
        };
        let report = match report {
            Ok(r) => r,
            Err(e) => return Ok(tool_error(render::query_error(&e))),
        };
        // What the budget left goes to the background.
        let mut queued = 0;
        if report.languages.values().any(|l| l.unchecked > 0) {
            let left = background::sweep_sites(&session, min, &paths)
                .and_then(|sites| background::unchecked(&session, sites));
            match left {
                Ok(sites) => {
                    let mut v = session.verification(Some(min), None, 0);
                    let lsp = crate::verify::lsp_config(&session);
                    self.queue(&mut v, sites, lsp).await;
                    queued = v.queued;
                }
                Err(e) => tracing::warn!("cannot queue background verification: {e}"),
            }
        }
        let answer = VerifyEdgesResult { report, queued };
        let reply = render::verify(&answer);
        Ok(tool_result(&answer, reply).unwrap_or_else(|e| tool_error(render::query_error(&e))))
    }

    #[tool(
        description = "The index: files per language, nodes and edges by kind and status, unresolved sites, skipped files, freshness and HEAD.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn index_status(&self) -> Result<CallToolResult, ErrorData> {
        let background = self.background.clone();
        self.answer(
            "index_status",
            move |s| {
                let mut status = s.status()?;
                status.background = Some(background.status());
                Ok(status)
            },
            render::status,
        )
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("refgraph", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Split `--tools a,b,c` into names.
pub fn parse_tools(arg: &str) -> Vec<String> {
    arg.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Serve `root` over stdio until the client closes the connection.
pub fn serve(root: &Path, cfg: IndexConfig, opts: &McpOptions) -> Result<()> {
    let root = root
        .canonicalize()
        .with_context(|| format!("cannot resolve the repository path {}", root.display()))?;
    let tools = opts.tools.as_deref().map(parse_tools);
    let mut server = Server::new(&root, cfg, tools.as_deref())?;
    server.verify_budget = opts.verify_budget;
    // Queries, on-the-spot and background verification run side by side
    // and do blocking SQLite work: more workers than the 2 of a small machine.
    let workers = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .max(4);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        // Bring the index up to date in the background, so the first call
        // is fast; calls wait for it through the update gate.
        let warm = server.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = warm.open() {
                tracing::warn!("initial index update failed: {e}");
            }
        });
        tracing::info!(root = %root.display(), "serving MCP on stdio");
        let background = server.background.clone();
        let pool = server.pool.clone();
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .context("MCP initialization failed")?;
        let ended = service.waiting().await.context("MCP server task failed");
        // Stop background verification, then end the language servers
        // with shutdown/exit (those still shared are killed on drop).
        background.shutdown().await;
        match Arc::into_inner(pool) {
            Some(cell) => {
                if let Some(pool) = cell.into_inner() {
                    pool.shutdown().await;
                    tracing::debug!("language servers shut down");
                }
            }
            None => tracing::debug!("language servers still in use: killed on drop"),
        }
        ended?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_lists_parse_and_unknown_names_are_refused() {
        assert_eq!(parse_tools(" a, b,,c "), ["a", "b", "c"]);
        let root = std::env::temp_dir();
        let cfg = IndexConfig::default();
        let e = Server::new(
            &root,
            cfg.clone(),
            Some(&["find_symbol".into(), "x".into()]),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("unknown tool x in --tools; valid tools: blast_radius,"),
            "{e}"
        );
        let s = Server::new(&root, cfg, Some(&["index_status".into()])).unwrap();
        let names: Vec<_> = s
            .tool_router
            .list_all()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["index_status"]);
        assert_eq!(tool_names().len(), 16);
    }

    #[test]
    fn changes_are_one_of_commit_range_diff_staged() {
        let root = Path::new("/repo");
        let p = |v: serde_json::Value| -> BlastParams { serde_json::from_value(v).unwrap() };
        assert!(matches!(
            change_spec(root, &p(serde_json::json!({}))),
            Ok(ChangeSpec::WorkingTree)
        ));
        assert!(matches!(
            change_spec(root, &p(serde_json::json!({"staged": true}))),
            Ok(ChangeSpec::Staged)
        ));
        let e = change_spec(
            root,
            &p(serde_json::json!({"commit": "HEAD", "range": "a..b"})),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "pass at most one of commit, range, diff, staged (got commit, range)"
        );
        let escape =
            "diff --git a/../x.py b/../x.py\n--- a/../x.py\n+++ b/../x.py\n@@ -1 +1 @@\n-a\n+b\n";
        let e = change_spec(root, &p(serde_json::json!({"diff": escape}))).unwrap_err();
        assert!(e.contains("outside the repository"), "{e}");
    }
}
