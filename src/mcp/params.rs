//! Tool parameters. Names are contracts shared with the CLI (DESIGN §6);
//! doc comments become the descriptions in each tool's input schema.
//! Unknown fields are refused so a misspelt argument is an error, not ignored.
//! Optional arguments are plain types in the schema (not `T | null`): some
//! clients and models handle union types badly; `null` is still accepted.

use schemars::JsonSchema;
use serde::Deserialize;

/// An absent optional argument means "the default", which the description
/// states; `"default": null` would contradict the field's type.
fn no_null_default(schema: &mut schemars::Schema) {
    if schema.get("default").is_some_and(|d| d.is_null()) {
        schema.remove("default");
    }
}

/// `find_symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindParams {
    /// A key, a key suffix, a bare name, `path:line[:column]`, or words of a name.
    pub query: String,
    /// Most results to return (default 20).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `get_symbols_overview`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverviewParams {
    /// A file path relative to the repository root.
    pub file: String,
    /// Most symbols to return (default 200).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_referencing_symbols`, `find_callers`, `find_callees`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolParams {
    /// A key, a key suffix, a bare name, or `path:line[:column]`.
    pub symbol: String,
    /// Items below this confidence (0..1, default 0.7, raised by path policies) are labelled inferred.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 100).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_callers_transitive`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransitiveParams {
    /// A key, a key suffix, a bare name, or `path:line[:column]`.
    pub symbol: String,
    /// Most hops to follow (default 5).
    #[serde(default)]
    #[schemars(with = "u32", transform = no_null_default)]
    pub depth: Option<u32>,
    /// Items below this confidence (0..1, default 0.7, raised by path policies) are labelled inferred.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 100).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_dependents`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileParams {
    /// A file path relative to the repository root.
    pub file: String,
    /// Items below this confidence (0..1, default 0.7) are labelled inferred.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 100).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `blast_radius`. At most one of `commit`, `range`, `diff`, `staged`;
/// none means the working tree against HEAD.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlastParams {
    /// One commit, compared with its first parent.
    #[serde(default)]
    #[schemars(with = "String", transform = no_null_default)]
    pub commit: Option<String>,
    /// A range `A..B` or `A...B`.
    #[serde(default)]
    #[schemars(with = "String", transform = no_null_default)]
    pub range: Option<String>,
    /// A unified diff as text (what `git diff` prints), not a path.
    #[serde(default)]
    #[schemars(with = "String", transform = no_null_default)]
    pub diff: Option<String>,
    /// The staged change against HEAD.
    #[serde(default)]
    pub staged: bool,
    /// Most hops from a changed symbol to follow (default 5).
    #[serde(default)]
    #[schemars(with = "u32", transform = no_null_default)]
    pub depth: Option<u32>,
    /// Edges below this confidence (0..1, default 0.7) are not followed.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most impacted symbols to return (default 15).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_untested`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UntestedParams {
    /// Edges below this confidence (0..1, default 0.7) are not followed.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 50).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_hubs`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HubsParams {
    /// Edges below this confidence (0..1, default 0.5) are not counted.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 20).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_bridges`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BridgesParams {
    /// Edges below this confidence (0..1, default 0.5) are not counted.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 20).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_cycles`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CyclesParams {
    /// Cycles between files instead of between functions.
    #[serde(default)]
    pub files: bool,
    /// Edges below this confidence (0..1, default 0.5) are not counted.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most cycles to return (default 20).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `detect_dead_code`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeadCodeParams {
    /// References below this confidence (0..1, default 0.9) make a verdict `unknown`, not `dead`.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most results to return (default 50).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `find_communities`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunitiesParams {
    /// Edges below this confidence (0..1, default 0.5) are not counted.
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most communities to return (default 20).
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}

/// `verify_edges`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyParams {
    /// Files or folders (relative to the repository root) whose edges to verify; all when absent.
    #[serde(default)]
    #[schemars(with = "Vec<String>", transform = no_null_default)]
    pub paths: Option<Vec<String>>,
    /// Verify edges below this confidence (0..1, default 0.7).
    #[serde(default)]
    #[schemars(with = "f64", transform = no_null_default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_confidence: Option<f64>,
    /// Most findings (sites where the server disagreed with the graph) to list (default 20); all are counted.
    #[serde(default)]
    #[schemars(with = "usize", transform = no_null_default)]
    pub limit: Option<usize>,
}
