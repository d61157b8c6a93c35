//! Plain result types shared by the CLI's `--json` and the MCP server's
//! structured output (DESIGN §6). Field names are contracts.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::store::NodeRow;

/// A definition: `{"key","name","kind","file","line","column","end_line"}`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Symbol {
    pub key: String,
    pub name: String,
    pub kind: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
}

impl From<&NodeRow> for Symbol {
    fn from(n: &NodeRow) -> Symbol {
        Symbol {
            key: n.key.clone(),
            name: n.name.clone(),
            kind: n.kind.as_str().to_string(),
            file: n.file.clone(),
            line: n.line,
            column: n.column,
            end_line: n.end_line,
        }
    }
}

/// What an answer was computed on (DESIGN §5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IndexInfo {
    /// The graph matched the working tree when the answer was computed.
    pub fresh: bool,
    /// The commit `HEAD` pointed at, when the repository is a git work tree.
    pub head: Option<String>,
    /// Files re-indexed just before answering.
    pub reindexed: usize,
}

/// `refgraph find` / `find_symbol`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct FindResult {
    pub query: String,
    pub results: Vec<Symbol>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub index: IndexInfo,
}

/// One entry of a file overview: a symbol and its nesting depth.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct OverviewItem {
    #[serde(flatten)]
    pub symbol: Symbol,
    /// 0 for top-level definitions, 1 for their members, …
    pub depth: u32,
}

/// `refgraph overview` / `get_symbols_overview`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Overview {
    pub file: String,
    pub results: Vec<OverviewItem>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub index: IndexInfo,
}

/// A file that was not indexed and why.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
    pub detail: String,
}

/// A place the parser could not read.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DiagnosticItem {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// `refgraph status` / `index_status`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct IndexStatus {
    pub root: String,
    pub database: String,
    pub schema_version: i64,
    /// Files per language.
    pub files: BTreeMap<String, u64>,
    /// Nodes per kind.
    pub nodes: BTreeMap<String, u64>,
    /// Edges per kind, then per status.
    pub edges: BTreeMap<String, BTreeMap<String, u64>>,
    /// Reference sites not resolved to an in-repo definition.
    pub unresolved: u64,
    pub diagnostics: u64,
    pub skipped: Vec<SkippedFile>,
    /// Unix seconds of the last update.
    pub last_update: Option<u64>,
    /// Files whose edges still need computing (0 after a completed update).
    pub pending: usize,
    pub index: IndexInfo,
    /// Background verification of the MCP server answering (absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<BackgroundStatus>,
}

/// The MCP server's background verification queue.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundStatus {
    /// Sites waiting to be asked about.
    pub queued: usize,
    /// Sites of the batch being verified now.
    pub verifying: usize,
    /// Sites a language server answered in the background since the server
    /// started (the answer may be "no definition").
    pub checked: usize,
    /// Sites with no usable answer: no definition found, or a server error.
    pub unanswered: usize,
    /// Sites a batch's time budget left unasked; a later call that meets
    /// them queues them again.
    pub unchecked: usize,
    /// The last batch's error, if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What `refgraph index` did.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct IndexSummary {
    pub root: String,
    pub files: usize,
    pub extracted: usize,
    pub deleted: usize,
    pub resolved: usize,
    pub nodes: u64,
    pub edges: u64,
    pub diagnostics: Vec<DiagnosticItem>,
    /// Skipped files per reason.
    pub skipped: BTreeMap<String, u64>,
    pub skipped_dirs: u64,
    pub seconds: f64,
    /// Set when the database was created or rebuilt, with the reason.
    pub database: Option<String>,
}

/// `refgraph export --format json`: the reference contract of the graph.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Export {
    pub nodes: Vec<ExportNode>,
    pub edges: Vec<ExportEdge>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ExportNode {
    pub id: i64,
    pub key: String,
    pub name: String,
    pub kind: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ExportEdge {
    pub src: i64,
    pub dst: i64,
    pub kind: String,
    pub confidence: f64,
    pub status: String,
    pub source: String,
    pub site: Option<Site>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Site {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// How far an answer was checked against language servers.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Verification {
    /// The confidence the answer was asked for.
    pub min_confidence: f64,
    /// Items below it (shown labelled, never dropped).
    pub below_threshold: usize,
    /// Items confirmed by a language server for this answer.
    pub verified_now: usize,
    /// State of the language server(s) involved: `ready`, `unavailable`, `not installed`, `not asked`.
    pub server: String,
    /// What to do to get verified answers, when something is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Unchecked sites of this answer queued for verification in the
    /// background (MCP server only); a later call sees the verdicts.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queued: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One reference site.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RefItem {
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The innermost definition enclosing the site.
    pub referrer: Symbol,
    pub confidence: f64,
    pub status: String,
    pub source: String,
    /// `calls`, `references`, `imports`, `extends`, `implements`.
    pub kind: String,
    /// Set on sites the graph could not resolve to one definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `refgraph refs` / `find_referencing_symbols`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RefsResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Symbol>,
    /// Set instead of `symbol` when the name is ambiguous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Symbol>>,
    pub results: Vec<RefItem>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub index: IndexInfo,
    pub verification: Verification,
}

/// A caller or callee with the path that reaches it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct CallItem {
    #[serde(flatten)]
    pub symbol: Symbol,
    pub depth: u32,
    /// Keys from the queried symbol to this one.
    pub path: Vec<String>,
    /// The weakest confidence along the path.
    pub confidence: f64,
    /// The weakest status along the path.
    pub status: String,
}

/// `refgraph callers` / `find_callers`, `find_callers_transitive`; `refgraph callees` / `find_callees`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct CallsResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Symbol>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Symbol>>,
    pub results: Vec<CallItem>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub index: IndexInfo,
    pub verification: Verification,
}

/// A file that depends on the queried one.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DependentItem {
    pub file: String,
    /// Import statements (or uses) in that file pointing at the queried file.
    pub sites: usize,
    pub confidence: f64,
    pub status: String,
}

/// `refgraph dependents` / `find_dependents`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DependentsResult {
    pub file: String,
    pub results: Vec<DependentItem>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub index: IndexInfo,
    pub verification: Verification,
}

/// A changed symbol.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ChangedSymbol {
    #[serde(flatten)]
    pub symbol: Symbol,
    /// `modified`, `added` or `deleted`.
    pub change: String,
}

/// An impacted symbol.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ImpactedSymbol {
    #[serde(flatten)]
    pub symbol: Symbol,
    pub depth: u32,
    pub confidence: f64,
    pub status: String,
    /// Some test reaches it.
    pub tested: bool,
    /// Higher is riskier: fan-in, no test, policy path, closeness to the change.
    pub risk: f64,
}

/// `refgraph blast-radius` / `blast_radius`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct BlastRadius {
    /// What was compared, e.g. `working tree vs HEAD`, `commit abc123`.
    pub change: String,
    pub changed: Vec<ChangedSymbol>,
    pub impacted: Vec<ImpactedSymbol>,
    pub tests: Vec<Symbol>,
    pub untested: Vec<String>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    /// Edges below `min_confidence` not followed.
    pub edges_left_out: usize,
    pub index: IndexInfo,
    pub verification: Verification,
}

/// A symbol with a number (fan-in, betweenness, …).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct ScoredSymbol {
    #[serde(flatten)]
    pub symbol: Symbol,
    pub score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fan_in: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fan_out: Option<usize>,
}

/// Results of a whole-graph analysis.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Analysis<T> {
    pub results: Vec<T>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub min_confidence: f64,
    /// Edges below `min_confidence`, not counted.
    pub edges_left_out: usize,
    /// Set when a sampled approximation was used (betweenness), with the sample size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampled: Option<usize>,
    pub index: IndexInfo,
}

/// A strongly connected component.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Cycle {
    pub size: usize,
    /// Keys (function level) or file paths (file level), sorted.
    pub members: Vec<String>,
}

/// A `detect_dead_code` finding.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct DeadItem {
    #[serde(flatten)]
    pub symbol: Symbol,
    /// `dead`: nothing reaches it and nothing could; `unknown`: only
    /// unconfirmed or unresolved references could reach it.
    pub verdict: String,
    pub reason: String,
}

/// A community of densely connected symbols.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Community {
    pub id: usize,
    pub size: usize,
    /// The most connected members' keys (at most 10).
    pub top: Vec<String>,
    /// Files with members, most first (at most 10).
    pub files: Vec<String>,
}

/// Edges between two communities.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Crossing {
    pub from: usize,
    pub to: usize,
    pub edges: usize,
}

/// `refgraph communities` / `find_communities`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Communities {
    pub results: Vec<Community>,
    pub crossing: Vec<Crossing>,
    pub modularity: f64,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
    pub min_confidence: f64,
    pub edges_left_out: usize,
    pub index: IndexInfo,
}

/// Per-language counts of a verification run: the measured precision and
/// recall of the static graph against the language server.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct LangVerification {
    /// Sites the server answered.
    pub checked: usize,
    /// The server resolved the site to the graph's target.
    pub confirmed: usize,
    /// The server resolved it to another in-repo definition (the edge moves).
    pub retargeted: usize,
    /// The server resolved it outside the repository, or to something that
    /// is not a definition node: the in-repo edge was wrong.
    pub refuted: usize,
    /// Unresolved sites the server resolved to an in-repo definition.
    pub resolved_unresolved: usize,
    /// Unresolved sites the server resolved outside the repository.
    pub external_unresolved: usize,
    /// Unresolved sites the server resolved in the repository but at no
    /// definition node of the graph (a variable, a derived impl's
    /// attribute): no edge could stand there, so neither recall nor
    /// precision counts them.
    #[serde(default)]
    pub unmodelled: usize,
    /// References the server found that the graph did not have.
    pub discovered: usize,
    /// No answer, or an error.
    pub unanswered: usize,
    /// Not asked: the time budget ran out, or the site is under a workspace
    /// root beyond the server's session cap (see `roots`).
    pub unchecked: usize,
    /// Discovery: definitions whose references were not asked (budget or cap).
    #[serde(default)]
    pub targets_unasked: usize,
    /// The first error a server gave, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl LangVerification {
    /// confirmed / (confirmed + retargeted + refuted): how often a static
    /// edge the server could judge was right.
    pub fn precision(&self) -> Option<f64> {
        let judged = self.confirmed + self.retargeted + self.refuted;
        (judged > 0).then(|| self.confirmed as f64 / judged as f64)
    }

    /// Of the references the server knows (confirmed + retargeted +
    /// resolved_unresolved + discovered), the share the graph had right.
    pub fn recall(&self) -> Option<f64> {
        let known = self.confirmed + self.retargeted + self.resolved_unresolved + self.discovered;
        (known > 0).then(|| self.confirmed as f64 / known as f64)
    }
}

/// `refgraph verify` / `verify_edges`.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct VerifyResult {
    pub min_confidence: f64,
    /// Sites selected for checking.
    pub sites: usize,
    pub languages: BTreeMap<String, LangVerification>,
    /// Server state per language after the run.
    pub servers: BTreeMap<String, String>,
    pub seconds: f64,
    pub budget_exhausted: bool,
    /// One entry per (language, server workspace root), most sites first.
    #[serde(default)]
    pub roots: Vec<RootVerification>,
    /// The sites where the server disagreed with the graph or found what it
    /// missed (everything but `confirmed`), worst first.
    #[serde(default)]
    pub findings: Findings,
    pub index: IndexInfo,
}

/// [`VerifyFinding`]s, at most `limit` of them.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct Findings {
    pub results: Vec<VerifyFinding>,
    pub total: usize,
    pub shown: usize,
    pub truncated: bool,
}

/// One site where the server's answer was not the graph's.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct VerifyFinding {
    /// `refuted`, `retargeted`, `resolved_unresolved` or `discovered`, as
    /// the counts of [`LangVerification`] name them.
    pub outcome: String,
    pub language: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The identifier at the site.
    pub name: String,
    /// The targets the graph gave the site (empty: it had none).
    pub graph: Vec<FindingTarget>,
    /// The server's targets in the repository (empty with `external`, or
    /// for a discovered site: the definition it was found as a reference of).
    pub server: Vec<FindingTarget>,
    /// The server resolved the site outside the repository.
    pub external: bool,
}

/// A definition a finding names: where its name is, and its key when the
/// graph has a node there.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct FindingTarget {
    pub file: String,
    pub line: u32,
    pub column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `verify_edges` (MCP): the report, plus the sites the budget left that
/// the server goes on verifying in the background.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct VerifyEdgesResult {
    #[serde(flatten)]
    pub report: VerifyResult,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub queued: usize,
}

/// The sites one language server session (a workspace root) was asked about.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct RootVerification {
    pub language: String,
    /// Repository-relative folder the server ran in (`.` for the repository root).
    pub root: String,
    /// Sites under this root.
    pub sites: usize,
    /// Sites the server answered.
    pub checked: usize,
    /// The server's state after the run.
    pub server: String,
    /// Server start to its readiness signal, when it started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready_seconds: Option<f64>,
    /// Requests answered or timed out, and the time spent waiting for them
    /// (sent → answer), summed over requests in flight.
    pub requests: u64,
    pub server_seconds: f64,
    /// Wall time of this root's requests, its server's start included.
    pub seconds: f64,
    /// Why this root was not checked at all (its sites count as `unchecked`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}
