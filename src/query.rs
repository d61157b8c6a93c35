//! The query layer: one function per question, each returning an `api`
//! type. The CLI and the MCP server are thin shells over these.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

mod analysis;
mod blast;
mod refs;

pub use blast::{parse_diff, validate_rev, ChangeSpec};

use crate::api::{
    DiagnosticItem, Export, ExportEdge, ExportNode, FindResult, IndexInfo, IndexStatus,
    IndexSummary, Overview, OverviewItem, Site, SkippedFile, Symbol,
};
use crate::graph::NodeKind;
use crate::index::{self, IndexConfig, IndexError, IndexReport};
use crate::store::{NodeRow, OpenNote, Store, Table};

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error("path {path} is outside the repository {root}")]
    OutsideRepo { path: String, root: String },
    #[error("no symbol matches `{query}`{}", did_you_mean(.closest))]
    UnknownSymbol { query: String, closest: Vec<String> },
    #[error("{0}")]
    BadInput(String),
    #[error("file {0} is not in the index (not a Python, TypeScript, JavaScript or Rust source file, ignored, or skipped)")]
    FileNotIndexed(String),
}

fn did_you_mean(closest: &[String]) -> String {
    if closest.is_empty() {
        String::new()
    } else {
        format!("; closest names: {}", closest.join(", "))
    }
}

/// The default `min_confidence` of review queries (DESIGN §3).
pub const DEFAULT_MIN_CONFIDENCE: f64 = 0.7;

/// A symbol argument resolved: one definition, or several to choose from.
pub enum Target {
    One(NodeRow),
    Many(Vec<NodeRow>),
}

/// An open, fresh index of one repository.
pub struct Session {
    pub root: PathBuf,
    pub store: Store,
    pub index: IndexInfo,
    pub report: IndexReport,
    pub config: crate::config::Config,
    /// How the index was updated (walk limits): later updates in this
    /// session (after verification) use the same.
    pub index_config: IndexConfig,
}

/// Open the index of `root` and bring it up to date with the working tree.
pub fn open(root: &Path, cfg: &IndexConfig) -> Result<Session, QueryError> {
    let config = crate::config::load(root).map_err(|e| QueryError::BadInput(e.to_string()))?;
    let (mut store, note) = index::open(root)?;
    let mut report = index::update(root, &mut store, cfg)?;
    report.open_note = Some(note);
    let index = IndexInfo {
        fresh: true,
        head: crate::git::head(root),
        reindexed: report.reindexed(),
    };
    Ok(Session {
        root: root.to_path_buf(),
        store,
        index,
        report,
        config,
        index_config: IndexConfig {
            progress: false,
            ..cfg.clone()
        },
    })
}

impl Session {
    /// The summary of the update that opened this session.
    pub fn summary(&self) -> Result<IndexSummary, QueryError> {
        let r = &self.report;
        let mut skipped = BTreeMap::new();
        for s in &r.skipped {
            *skipped.entry(s.reason.as_str().to_string()).or_insert(0) += 1;
        }
        let diagnostics = if r.extracted > 0 {
            self.store
                .diagnostics()?
                .into_iter()
                .map(|(file, line, column, message)| DiagnosticItem {
                    file,
                    line,
                    column,
                    message,
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(IndexSummary {
            root: self.root.display().to_string(),
            files: r.files,
            extracted: r.extracted,
            deleted: r.deleted,
            resolved: r.resolved,
            nodes: self.store.count(Table::Nodes)?,
            edges: self.store.count(Table::Edges)?,
            diagnostics,
            skipped,
            skipped_dirs: r.skipped_dirs,
            seconds: r.elapsed.as_secs_f64(),
            database: match &r.open_note {
                Some(OpenNote::Created) => Some("created".into()),
                Some(OpenNote::Rebuilt(why)) => Some(format!("rebuilt: {why}")),
                _ => None,
            },
        })
    }

    /// Symbols by key, key suffix, bare name or `path:line[:column]`;
    /// full-text search when nothing matches exactly.
    pub fn find(&self, query: &str, limit: usize) -> Result<FindResult, QueryError> {
        let mut rows = self.lookup(query)?;
        if rows.is_empty() {
            rows = self.store.nodes_search(query, 200)?;
            rows.retain(|n| n.kind != NodeKind::Module || n.key.contains(query));
        }
        let mut results: Vec<Symbol> = rows.iter().map(Symbol::from).collect();
        results.dedup();
        let total = results.len();
        results.truncate(limit);
        Ok(FindResult {
            query: query.to_string(),
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            index: self.index.clone(),
        })
    }

    /// Exact lookups only: a key, a suffix on a `.`/`::`/`:` boundary, a
    /// bare name, or `path:line[:column]` (the innermost definition there).
    pub fn lookup(&self, query: &str) -> Result<Vec<NodeRow>, QueryError> {
        if let Some((file, line, column)) = parse_location(query) {
            let rel = self.relative(file)?;
            if let Some(nodes) = self.store.nodes_of_file(&rel)? {
                let hit = nodes
                    .iter()
                    .filter(|n| n.kind != NodeKind::Module)
                    .filter(|n| {
                        n.line == line && column.is_none_or(|c| c >= n.column)
                            || (n.start_line <= line && line <= n.end_line && column.is_none())
                    })
                    .min_by_key(|n| (n.line != line, n.end_line - n.start_line));
                return Ok(hit.cloned().into_iter().collect());
            }
        }
        // A full key is answered from the index; names and suffixes scan.
        let exact = self.store.nodes_by_key(query)?;
        if !exact.is_empty() {
            return Ok(exact);
        }
        let rows = self.store.nodes_exact(query)?;
        // A full key match wins over name and suffix matches.
        let exact: Vec<NodeRow> = rows.iter().filter(|n| n.key == query).cloned().collect();
        if !exact.is_empty() {
            return Ok(exact);
        }
        Ok(rows)
    }

    /// Resolve a symbol argument; an unknown one is an error listing the
    /// closest names.
    pub fn target(&self, query: &str) -> Result<Target, QueryError> {
        let mut rows = self.lookup(query)?;
        // Prefer definitions over the module of the same name.
        if rows.len() > 1 && rows.iter().any(|n| n.kind != NodeKind::Module) {
            rows.retain(|n| n.kind != NodeKind::Module);
        }
        match rows.len() {
            0 => Err(QueryError::UnknownSymbol {
                query: query.to_string(),
                closest: self.closest(query)?,
            }),
            1 => Ok(Target::One(rows.pop().expect("one row"))),
            _ => Ok(Target::Many(rows)),
        }
    }

    /// Up to five names nearest to `query` by edit distance.
    fn closest(&self, query: &str) -> Result<Vec<String>, QueryError> {
        let last = query
            .rsplit(['.', ':'])
            .next()
            .unwrap_or(query)
            .to_lowercase();
        let mut scored: Vec<(usize, String)> = self
            .store
            .all_names()?
            .into_iter()
            .map(|n| (edit_distance(&last, &n.to_lowercase()), n))
            .filter(|(d, n)| *d <= (n.len().max(last.len()) / 2).max(1))
            .collect();
        scored.sort();
        Ok(scored.into_iter().take(5).map(|(_, n)| n).collect())
    }

    /// The confidence an answer about `file` must reach: the one asked
    /// for (default 0.7), raised by any matching path policy.
    pub fn threshold(&self, requested: Option<f64>, file: &str) -> f64 {
        let mut t = requested.unwrap_or(DEFAULT_MIN_CONFIDENCE);
        for p in &self.config.policy {
            let hit = p.paths.iter().any(|g| {
                globset::Glob::new(g)
                    .map(|g| g.compile_matcher().is_match(file))
                    .unwrap_or(false)
            });
            if hit {
                t = t.max(p.min_confidence);
            }
        }
        t
    }

    /// The verification block of an answer. Language-server verification is
    /// not wired into queries yet: say so rather than imply it happened.
    pub fn verification(
        &self,
        min: Option<f64>,
        _file: Option<&str>,
        below: usize,
    ) -> crate::api::Verification {
        crate::api::Verification {
            min_confidence: min.unwrap_or(DEFAULT_MIN_CONFIDENCE),
            below_threshold: below,
            verified_now: 0,
            server: "not asked".into(),
            hint: (below > 0).then(|| {
                format!("{below} items are below min_confidence and unconfirmed: treat them as inferred")
            }),
            queued: 0,
        }
    }

    /// Edges on policy paths (site or target) that are not verified.
    pub fn unverified_on_policy_paths(&self) -> Result<usize, QueryError> {
        if self.config.policy.is_empty() {
            return Ok(0);
        }
        let nodes = self.store.nodes_by_id()?;
        let mut n = 0;
        for e in self.store.all_edges()? {
            if e.status == crate::graph::Status::Verified
                || matches!(
                    e.kind,
                    crate::graph::EdgeKind::Contains | crate::graph::EdgeKind::Tests
                )
            {
                continue;
            }
            let site = e.site.as_ref().map(|s| s.0.as_str()).unwrap_or("");
            let target = nodes.get(&e.dst).map(|t| t.file.as_str()).unwrap_or("");
            if self.threshold(Some(0.0), site) > 0.0 || self.threshold(Some(0.0), target) > 0.0 {
                n += 1;
            }
        }
        Ok(n)
    }

    /// A file's definitions in source order, with nesting depth.
    pub fn overview(&self, file: &str, limit: usize) -> Result<Overview, QueryError> {
        let rel = self.relative(file)?;
        let nodes = self
            .store
            .nodes_of_file(&rel)?
            .ok_or_else(|| QueryError::FileNotIndexed(rel.clone()))?;
        let mut results = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        for n in nodes.iter().filter(|n| n.kind != NodeKind::Module) {
            while let Some(&end) = stack.last() {
                if n.start_line > end {
                    stack.pop();
                } else {
                    break;
                }
            }
            results.push(OverviewItem {
                symbol: Symbol::from(n),
                depth: stack.len() as u32,
            });
            stack.push(n.end_line);
        }
        let total = results.len();
        results.truncate(limit);
        Ok(Overview {
            file: rel,
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            index: self.index.clone(),
        })
    }

    pub fn status(&self) -> Result<IndexStatus, QueryError> {
        let mut edges: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        for (kind, status, n) in self.store.edge_counts()? {
            edges.entry(kind).or_default().insert(status, n);
        }
        let pending = self.store.files()?.iter().filter(|f| !f.resolved).count();
        Ok(IndexStatus {
            root: self.root.display().to_string(),
            database: self.store.path().to_string(),
            schema_version: crate::store::schema::SCHEMA_VERSION,
            files: self.store.file_counts()?.into_iter().collect(),
            nodes: self.store.node_counts()?.into_iter().collect(),
            edges,
            unresolved: self.store.count(Table::Unresolved)?,
            diagnostics: self.store.count(Table::Diagnostics)?,
            skipped: self
                .store
                .skipped()?
                .into_iter()
                .map(|(path, reason, detail)| SkippedFile {
                    path,
                    reason,
                    detail,
                })
                .collect(),
            last_update: self.store.meta("last_update")?.and_then(|v| v.parse().ok()),
            pending,
            index: self.index.clone(),
            background: None,
        })
    }

    /// The whole graph (refuted edges excluded), sorted.
    pub fn export(&self) -> Result<Export, QueryError> {
        let nodes = self
            .store
            .all_nodes()?
            .into_iter()
            .map(|n| ExportNode {
                id: n.id,
                key: n.key,
                name: n.name,
                kind: n.kind.as_str().to_string(),
                file: n.file,
                line: n.line,
                column: n.column,
                end_line: n.end_line,
            })
            .collect();
        let edges = self
            .store
            .all_edges()?
            .into_iter()
            .map(|e| ExportEdge {
                src: e.src,
                dst: e.dst,
                kind: e.kind.as_str().to_string(),
                confidence: e.confidence,
                status: e.status.as_str().to_string(),
                source: e.source,
                site: e
                    .site
                    .map(|(file, line, column)| Site { file, line, column }),
            })
            .collect();
        Ok(Export { nodes, edges })
    }

    /// A user-given path as a repository-relative one; never outside the root.
    pub fn relative(&self, file: &str) -> Result<String, QueryError> {
        relative_to(&self.root, file)
    }
}

/// `file` (relative to `root`, or absolute inside it) as a normalized
/// repository-relative path with `/`. `..` that leaves the root is refused.
pub fn relative_to(root: &Path, file: &str) -> Result<String, QueryError> {
    let outside = || QueryError::OutsideRepo {
        path: file.to_string(),
        root: root.display().to_string(),
    };
    let p = Path::new(file);
    let rel: PathBuf = if p.is_absolute() {
        let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let stripped = p
            .strip_prefix(&canon_root)
            .or_else(|_| p.strip_prefix(root))
            .map_err(|_| outside())?;
        stripped.to_path_buf()
    } else {
        p.to_path_buf()
    };
    let mut parts: Vec<String> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop().ok_or_else(outside)?;
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside()),
        }
    }
    Ok(parts.join("/"))
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `path:line` or `path:line:column`, where path has a source extension.
fn parse_location(q: &str) -> Option<(&str, u32, Option<u32>)> {
    let mut parts = q.rsplitn(3, ':');
    let last = parts.next()?;
    let mid = parts.next()?;
    match parts.next() {
        Some(file) if crate::extract::Lang::of_path(file).is_some() => {
            Some((file, mid.parse().ok()?, Some(last.parse().ok()?)))
        }
        _ if crate::extract::Lang::of_path(mid).is_some() => Some((mid, last.parse().ok()?, None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse() {
        assert_eq!(parse_location("a/b.py:12"), Some(("a/b.py", 12, None)));
        assert_eq!(parse_location("a/b.rs:12:5"), Some(("a/b.rs", 12, Some(5))));
        assert_eq!(parse_location("src/a.ts:Foo.bar"), None);
        assert_eq!(parse_location("shop::pay::f"), None);
    }

    #[test]
    fn paths_stay_inside_the_root() {
        let root = Path::new("/repo");
        assert_eq!(relative_to(root, "./a/../b.py").unwrap(), "b.py");
        assert_eq!(relative_to(root, "/repo/x/y.rs").unwrap(), "x/y.rs");
        assert!(relative_to(root, "../../etc/passwd").is_err());
        assert!(relative_to(root, "/etc/passwd").is_err());
        assert!(relative_to(root, "a/../../b").is_err());
    }
}
