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
