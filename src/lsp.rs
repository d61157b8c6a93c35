//! Language servers: the only module that knows LSP.
//!
//! refgraph asks real language servers (pyright, typescript-language-server,
//! rust-analyzer) to confirm the edges the static graph had to guess. This module
//! finds, installs, starts and talks to them; callers see refgraph types only
//! ([`Pos`], [`Lang`], paths) — no LSP type crosses this boundary.
//!
//! ```text
//! spec      servers/*.toml → ServerSpec (embedded defaults + [servers.<name>] overrides)
//! install   which → refgraph's prefix; --version probes; pinned npm/cargo installs
//! process   spawn (kill_on_drop), stderr → tracing
//! client    capabilities, answers to server requests, readiness evidence (Router)
//! session   async-lsp main loop; initialize; wait for readiness; didOpen/didChange; requests
//! convert   Pos (1-based, UTF-8 bytes) ⇄ LSP Position (0-based, negotiated encoding)
//! pool      one session per (server, root), started lazily, restarted with backoff
//! ```
//!
//! # Using it
//!
//! ```no_run
//! # async fn f() -> Result<(), refgraph::lsp::LspError> {
//! use refgraph::{extract::Lang, graph::Pos, lsp::{Document, LspConfig, Pool}};
//! let pool = Pool::new(LspConfig::default());
//! let root = std::path::Path::new("/repo");
//! let text = std::fs::read_to_string("/repo/app/main.py").unwrap();
//! let doc = Document { lang: Lang::Python, root, file: "app/main.py".as_ref(), text: &text };
//! let defs = pool.definition(doc, Pos { line: 3, column: 5 }).await?;
//! let source = pool.server_id(Lang::Python); // Some("pyright@1.1.414") → edge source "lsp:pyright@1.1.414"
//! pool.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! - [`Pool::definition`], [`Pool::references`], [`Pool::implementation`] and
//!   [`Pool::incoming_calls`] take a [`Document`] (language, root, file and
//!   the text the graph was built from) and a position in it, and return
//!   absolute [`Location`]s, sorted.
//!   Requests are pipelined: call them concurrently (e.g. `join_all` /
//!   `buffer_unordered`) on a shared `&Pool`.
//! - The first call for a (server, root) starts the server and waits for the
//!   server's own readiness signal (bounded by the spec's startup timeout).
//! - Errors are typed ([`LspError`]); an outage is an error, never an empty list.
//!   [`LspError::is_unavailable`] tells "server could not answer" (keep the edge
//!   `inferred`, `server: unavailable`) from "answered with an error".
//! - [`Pool::state`] reports NotInstalled/NotStarted/Starting/Ready/Crashed/Unavailable.
//! - [`install::status`] / [`install::install`] back `refgraph servers [install]`.
//! - Trust: rust-analyzer runs no build scripts, proc-macros or `cargo check`
//!   unless [`LspConfig::trust`] is set; its `target/` goes under refgraph's cache.
//! - Roots: the session root is the `root` the caller passes. Callers pass each
//!   file's [`ServerSpec::root_for`] (nearest root marker, or the enclosing Cargo
//!   workspace), as `verify` does; at most `max_sessions` sessions per server run
//!   at once (the least recently used one is shut down to start another).
//! - A TypeScript root without `tsconfig.json`/`jsconfig.json` gets its files
//!   declared as one project (the spec's `project_fallback`), so references reach
//!   unopened files; nothing is written into the repository.
//! - [`Pool::stats`] gives a session's requests, time waited and time to ready.

mod client;
pub mod convert;
pub mod install;
mod pool;
mod process;
mod session;
pub mod spec;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

pub use install::{InstallError, InstallEvent, ServerStatus};
pub use pool::Pool;
pub use session::Stats;
pub use spec::{ServerSpec, SpecError};

#[allow(unused_imports)] // for docs
use crate::{extract::Lang, graph::Pos};

/// A place a server pointed at: an absolute path and the range of the name,
/// 1-based lines, 1-based UTF-8 byte columns (`end` exclusive).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub path: PathBuf,
    pub pos: crate::graph::Pos,
    pub end: crate::graph::Pos,
}

/// What a request is about: a file in the workspace at `root`, served by the
/// server for `lang`, and its text (what the graph was built from; sent with
/// didOpen/didChange). `file` may be relative to `root`.
#[derive(Clone, Copy, Debug)]
pub struct Document<'a> {
    pub lang: Lang,
    pub root: &'a std::path::Path,
    pub file: &'a std::path::Path,
    pub text: &'a str,
}

/// What a request found: locations (or callers), or why the server could not say.
pub type Found<T = Location> = Result<Vec<T>, LspError>;

/// One caller found by `callHierarchy/incomingCalls`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IncomingCall {
    /// The caller's name as the server reports it (`run`, `Greeter.greet`, …).
    pub name: String,
    /// The caller's name range.
    pub caller: Location,
    /// The call sites inside the caller, sorted.
    pub sites: Vec<Location>,
}

/// A server's state for one workspace root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerState {
    /// No binary found; `hint` says how to install it.
    NotInstalled {
        hint: String,
    },
    /// Found, not started yet (starts on first need).
    NotStarted,
    Starting,
    Ready,
    /// The last session died; the next request restarts it (after backoff).
    Crashed {
        restarts: u32,
    },
    /// Given up on (too many failures; until [`Pool::reset`]) or no server for the language.
    Unavailable {
        reason: String,
    },
}

/// Everything the pool needs; no boolean parameters elsewhere.
#[derive(Clone, Debug)]
pub struct LspConfig {
    /// Server specs by name.
    pub specs: BTreeMap<String, ServerSpec>,
    /// refgraph's install prefix (`$REFGRAPH_HOME/servers`).
    pub prefix: PathBuf,
    /// Cache directory for server output kept out of repositories
    /// (rust-analyzer's `cargo.targetDir`).
    pub cache_dir: PathBuf,
    /// Let servers run the repository's code (build scripts, proc-macros).
    pub trust: bool,
    /// Consecutive start failures/crashes before a server is `Unavailable`.
    pub max_restarts: u32,
    /// Backoff before restart attempt n is `backoff_base * 2^(n-1)`, at most `backoff_max`.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// How long `shutdown` waits for a server to exit before killing it.
    pub shutdown_grace: Duration,
    /// Absolute folders the repository's own Python packages are imported
    /// from (`src/` for `src/flask/`): a server rooted in a sub-project
    /// (`examples/tutorial/`, its own `pyproject.toml` depending on `flask`)
    /// is told them (its spec's `import_roots_setting`), as an editable
    /// install of the repository would, instead of finding an installed copy.
    pub import_roots: Vec<PathBuf>,
}

impl Default for LspConfig {
    fn default() -> Self {
        LspConfig {
            specs: spec::defaults(),
            prefix: install::default_prefix(),
            cache_dir: install::home_dir().join("cache"),
            trust: false,
            max_restarts: 3,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(3),
            import_roots: Vec::new(),
        }
    }
}

impl LspConfig {
    /// Defaults with a parsed `.refgraph/config.toml` applied: `[servers.<name>]`
    /// tables merge over the built-in specs; a top-level `trust = true` trusts.
    pub fn from_config(config: &toml::Value) -> Result<LspConfig, SpecError> {
        Ok(LspConfig {
            specs: spec::with_overrides(config)?,
            trust: config
                .get("trust")
                .and_then(toml::Value::as_bool)
                .unwrap_or(false),
            ..LspConfig::default()
        })
    }

    /// The spec serving `lang`, if any.
    pub fn spec_for(&self, lang: Lang) -> Option<&ServerSpec> {
        self.specs.values().find(|s| s.serves(lang))
    }
}

/// Why a server could not answer. Messages name the server.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum LspError {
    #[error("no language server is configured for {lang}")]
    NoServer { lang: String },
    #[error("{server} is not installed: {hint}")]
    NotInstalled { server: String, hint: String },
    #[error("{server} failed to start: {reason}")]
    StartFailed { server: String, reason: String },
    #[error("{server} was not ready within {secs}s (waiting for {waiting_for})")]
    StartTimeout {
        server: String,
        secs: f64,
        waiting_for: String,
    },
    #[error("{server} did not answer {method} within {secs}s")]
    Timeout {
        server: String,
        method: String,
        secs: f64,
    },
    #[error("{server} exited during {during}: {reason}")]
    ServerExited {
        server: String,
        during: String,
        reason: String,
    },
    #[error("{server} is unavailable: {reason}")]
    Unavailable { server: String, reason: String },
    #[error("{server} does not support {method}")]
    Unsupported { server: String, method: String },
    #[error("{server} answered {method} with error {code}: {message}")]
    ServerError {
        server: String,
        method: String,
        code: i32,
        message: String,
    },
    #[error("{server} answered {method} with an unreadable result: {reason}")]
    BadResponse {
        server: String,
        method: String,
        reason: String,
    },
    #[error("position {line}:{column} is outside {path}")]
    Position {
        path: PathBuf,
        line: u32,
        column: u32,
    },
    #[error("bad path {path}: {reason}")]
    Path { path: PathBuf, reason: String },
}

impl LspError {
    /// The server could not answer (not installed, starting failed, crashed, hung,
    /// timed out): the question is still open, as opposed to an answer.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            LspError::NoServer { .. }
                | LspError::NotInstalled { .. }
                | LspError::StartFailed { .. }
                | LspError::StartTimeout { .. }
                | LspError::Timeout { .. }
                | LspError::ServerExited { .. }
                | LspError::Unavailable { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_sets_trust_and_overrides() {
        let cfg: toml::Value =
            toml::from_str("trust = true\n[servers.pyright]\ncommand = \"/x/pyright\"\n").unwrap();
        let c = LspConfig::from_config(&cfg).unwrap();
        assert!(c.trust);
        assert_eq!(c.specs["pyright"].command, "/x/pyright");
        assert_eq!(
            c.spec_for(Lang::Tsx).unwrap().name,
            "typescript-language-server"
        );
        assert!(
            !LspConfig::from_config(&toml::Value::Table(Default::default()))
                .unwrap()
                .trust
        );
    }

    #[test]
    fn unavailable_is_not_an_answer() {
        let t = LspError::Timeout {
            server: "s".into(),
            method: "m".into(),
            secs: 1.0,
        };
        assert!(t.is_unavailable());
        let u = LspError::Unsupported {
            server: "s".into(),
            method: "m".into(),
        };
        assert!(!u.is_unavailable());
    }
}
