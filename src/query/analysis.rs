//! Whole-graph analyses: untested code, hubs, bridges, cycles, dead code,
//! communities. Each counts only edges at or above `min_confidence` and
//! says how many it left out.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{QueryError, Session};
use crate::api::{
    Analysis, Communities, Community, Crossing, Cycle, DeadItem, ScoredSymbol, Symbol,
};
use crate::graph::algo::Digraph;
use crate::graph::{node_file, EdgeKind, NodeKind};
use crate::store::NodeRow;

/// Use edges: what makes one definition depend on another.
const USE_KINDS: [EdgeKind; 4] = [
    EdgeKind::Calls,
    EdgeKind::References,
    EdgeKind::Extends,
    EdgeKind::Implements,
];

/// Exact betweenness up to this many nodes; sampled above.
pub const EXACT_BETWEENNESS_MAX: usize = 5_000;
/// Sources sampled for betweenness on larger graphs.
pub const BETWEENNESS_SAMPLE: usize = 500;

fn is_code(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::Function | NodeKind::Method | NodeKind::Class
    )
}

struct Loaded {
    nodes: HashMap<i64, NodeRow>,
    graph: Digraph,
    left_out: usize,
}

impl Session {
    /// Nodes, and the use graph over edges ≥ `min` between definitions
    /// (module-level uses and imports excluded).
    fn load_use_graph(&self, min: f64) -> Result<Loaded, QueryError> {
        let nodes = self.store.nodes_by_id()?;
        let mut left_out = 0;
        let mut pairs = Vec::new();
        for (src, dst, _kind, conf) in self.store.edge_list(&USE_KINDS)? {
            let ok = nodes.get(&src).is_some_and(|n| n.kind != NodeKind::Module)
                && nodes.get(&dst).is_some_and(|n| n.kind != NodeKind::Module);
            if !ok {
                continue;
            }
            if conf < min {
                left_out += 1;
                continue;
            }
            pairs.push((src, dst));
        }
        Ok(Loaded {
            nodes,
            graph: Digraph::from_edges(pairs),
            left_out,
        })
    }

    fn analysis<T>(
        &self,
        mut results: Vec<T>,
        limit: usize,
        min: f64,
        left_out: usize,
        sampled: Option<usize>,
    ) -> Analysis<T> {
        let total = results.len();
        results.truncate(limit);
        Analysis {
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            min_confidence: min,
            edges_left_out: left_out,
            sampled,
            index: self.index.clone(),
        }
    }

    /// `find_untested`: functions and methods no test reaches.
    pub fn untested(
        &self,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<Analysis<Symbol>, QueryError> {
        let min = min_confidence.unwrap_or(super::DEFAULT_MIN_CONFIDENCE);
        let l = self.load_use_graph(min)?;
        let tests: Vec<u32> = l
            .graph
            .ids
            .iter()
            .enumerate()
            .filter(|(_, id)| l.nodes.get(id).is_some_and(|n| n.kind == NodeKind::Test))
            .map(|(i, _)| i as u32)
            .collect();
        let reached = l.graph.reach(tests);
        let mut out: Vec<Symbol> = l
            .nodes
            .values()
            .filter(|n| matches!(n.kind, NodeKind::Function | NodeKind::Method))
            .filter(|n| !is_test_path(&n.file) && !is_declaration_file(&n.file))
            .filter(|n| {
                l.graph
                    .index
                    .get(&n.id)
                    .is_none_or(|&i| !reached[i as usize])
            })
            .map(Symbol::from)
            .collect();
        out.sort();
        Ok(self.analysis(out, limit, min, l.left_out, None))
    }

    /// `find_hubs`: the most connected definitions (fan-in + fan-out).
    pub fn hubs(
        &self,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<Analysis<ScoredSymbol>, QueryError> {
        let min = min_confidence.unwrap_or(0.5);
        let l = self.load_use_graph(min)?;
        let mut out: Vec<ScoredSymbol> = (0..l.graph.len())
            .filter_map(|i| {
                let n = l.nodes.get(&l.graph.ids[i])?;
                let (fi, fo) = (l.graph.inc[i].len(), l.graph.out[i].len());
                Some(ScoredSymbol {
                    symbol: Symbol::from(n),
                    score: (fi + fo) as f64,
                    fan_in: Some(fi),
                    fan_out: Some(fo),
                })
            })
            .collect();
        out.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.symbol.cmp(&b.symbol))
        });
        Ok(self.analysis(out, limit, min, l.left_out, None))
    }

    /// `find_bridges`: betweenness centrality, exact up to
    /// [`EXACT_BETWEENNESS_MAX`] nodes, sampled above.
    pub fn bridges(
        &self,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<Analysis<ScoredSymbol>, QueryError> {
        let min = min_confidence.unwrap_or(0.5);
        let l = self.load_use_graph(min)?;
        let sample = (l.graph.len() > EXACT_BETWEENNESS_MAX).then_some(BETWEENNESS_SAMPLE);
        let scores = l.graph.betweenness(sample);
        let mut out: Vec<ScoredSymbol> = scores
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0.0)
            .filter_map(|(i, s)| {
                let n = l.nodes.get(&l.graph.ids[i])?;
                Some(ScoredSymbol {
                    symbol: Symbol::from(n),
                    score: (s * 100.0).round() / 100.0,
                    fan_in: Some(l.graph.inc[i].len()),
                    fan_out: Some(l.graph.out[i].len()),
                })
            })
            .collect();
        out.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.symbol.cmp(&b.symbol))
        });
        Ok(self.analysis(out, limit, min, l.left_out, sample))
    }

    /// `find_cycles`: strongly connected components, at function level
    /// (calls and references between definitions) or file level (imports
    /// and cross-file uses).
    pub fn cycles(
        &self,
        file_level: bool,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<Analysis<Cycle>, QueryError> {
        let min = min_confidence.unwrap_or(0.5);
        let out = if file_level {
            let nodes = self.store.nodes_by_id()?;
            let mut left_out = 0;
            let mut pairs = Vec::new();
            let kinds = [
                EdgeKind::Imports,
                EdgeKind::Calls,
                EdgeKind::References,
                EdgeKind::Extends,
                EdgeKind::Implements,
            ];
            for (src, dst, _, conf) in self.store.edge_list(&kinds)? {
                let (a, b) = (node_file(src), node_file(dst));
                if a == b {
                    continue;
                }
                if conf < min {
                    left_out += 1;
                    continue;
                }
                pairs.push((a, b));
            }
            let files: HashMap<i64, String> = nodes
                .values()
                .filter(|n| n.kind == NodeKind::Module)
                .map(|n| (node_file(n.id), n.file.clone()))
                .collect();
            let g = Digraph::from_edges(pairs);
            let cycles = g
                .cycles()
                .into_iter()
                .map(|c| {
                    let mut members: Vec<String> =
                        c.iter().filter_map(|f| files.get(f).cloned()).collect();
                    members.sort();
                    Cycle {
                        size: members.len(),
                        members,
                    }
                })
                .collect();
            (cycles, left_out)
        } else {
            let l = self.load_use_graph(min)?;
            let cycles = l
                .graph
                .cycles()
                .into_iter()
                .map(|c| {
                    let mut members: Vec<String> = c
                        .iter()
                        .filter_map(|id| l.nodes.get(id).map(|n| n.key.clone()))
                        .collect();
                    members.sort();
                    Cycle {
                        size: members.len(),
                        members,
                    }
                })
                .collect();
            (cycles, l.left_out)
        };
        Ok(self.analysis(out.0, limit, min, out.1, None))
    }

    /// `detect_dead_code`: definitions no entry point reaches. `dead` only
    /// when nothing could reach them; `unknown` when an unconfirmed edge, an
    /// unresolved site, a decorator or dynamic dispatch might.
    pub fn dead_code(
        &self,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<Analysis<DeadItem>, QueryError> {
        let min = min_confidence.unwrap_or(0.9);
        let nodes = self.store.nodes_by_id()?;
        let all = self.store.edge_list(&USE_KINDS)?;
        let mut left_out = 0;
        let mut pairs = Vec::new();
        let mut any_incoming: HashSet<i64> = HashSet::new();
        let mut dispatching: HashSet<i64> = HashSet::new();
        for &(src, dst, kind, conf) in &all {
            if src != dst {
                any_incoming.insert(dst);
            }
            if matches!(kind, EdgeKind::Extends | EdgeKind::Implements) {
                dispatching.insert(src);
            }
            if conf < min {
                left_out += 1;
                continue;
            }
            pairs.push((src, dst));
        }
        // Module-level code runs on import: what it uses is reachable.
        let g = Digraph::from_edges(pairs);
        let entries: Vec<u32> = g
            .ids
            .iter()
            .enumerate()
            .filter(|(_, id)| nodes.get(id).is_some_and(is_entry))
            .map(|(i, _)| i as u32)
            .collect();
        let reached = g.reach(entries);
        let parent_of = |n: &NodeRow| -> Option<i64> {
            nodes
                .values()
                .filter(|p| {
                    p.kind == NodeKind::Class
                        && node_file(p.id) == node_file(n.id)
                        && p.start_line <= n.start_line
                        && n.end_line <= p.end_line
                        && p.id != n.id
                })
                .min_by_key(|p| p.end_line - p.start_line)
                .map(|p| p.id)
        };
        let mut out = Vec::new();
        for n in nodes.values() {
            if !is_code(n.kind) || is_entry(n) || is_declaration_file(&n.file) {
                continue;
            }
            if g.index.get(&n.id).is_some_and(|&i| reached[i as usize]) {
                continue;
            }
            let mentions = self.store.files_mentioning(&n.name)?;
            let (verdict, reason) = if n.start_line < n.line {
                (
                    "unknown",
                    "decorated or attributed: may be registered by a framework".to_string(),
                )
            } else if n.kind == NodeKind::Method
                && parent_of(n).is_some_and(|p| dispatching.contains(&p))
            {
                (
                    "unknown",
                    "method of a class that extends or implements: may be called through dispatch"
                        .to_string(),
                )
            } else if any_incoming.contains(&n.id) {
                (
                    "unknown",
                    format!("only references below confidence {min} reach it"),
                )
            } else if mentions > 0 {
                (
                    "unknown",
                    format!("its name appears in unresolved references in {mentions} files"),
                )
            } else {
                (
                    "dead",
                    "no reference to it anywhere in the repository".to_string(),
                )
            };
            out.push(DeadItem {
                symbol: Symbol::from(n),
                verdict: verdict.to_string(),
                reason,
            });
        }
        out.sort_by(|a, b| (a.verdict != "dead", &a.symbol).cmp(&(b.verdict != "dead", &b.symbol)));
        Ok(self.analysis(out, limit, min, left_out, None))
    }

    /// `find_communities`: Louvain clusters of the use graph, with the
    /// edges that cross them.
    pub fn communities(
        &self,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<Communities, QueryError> {
        let min = min_confidence.unwrap_or(0.5);
        let l = self.load_use_graph(min)?;
        let (membership, modularity) = l.graph.louvain();
        let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, &c) in membership.iter().enumerate() {
            members.entry(c).or_default().push(i);
        }
        let mut comms: Vec<(usize, Vec<usize>)> =
            members.into_iter().filter(|(_, m)| m.len() > 1).collect();
        comms.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        let renum: HashMap<usize, usize> = comms
            .iter()
            .enumerate()
            .map(|(i, (c, _))| (*c, i + 1))
            .collect();
        let degree = |i: usize| l.graph.inc[i].len() + l.graph.out[i].len();
        let results: Vec<Community> = comms
            .iter()
            .map(|(c, m)| {
                let mut by_degree = m.clone();
                by_degree.sort_by(|a, b| degree(*b).cmp(&degree(*a)).then(a.cmp(b)));
                let top = by_degree
                    .iter()
                    .take(10)
                    .filter_map(|i| l.nodes.get(&l.graph.ids[*i]).map(|n| n.key.clone()))
                    .collect();
                let mut files: BTreeMap<String, usize> = BTreeMap::new();
                for i in m {
                    if let Some(n) = l.nodes.get(&l.graph.ids[*i]) {
                        *files.entry(n.file.clone()).or_insert(0) += 1;
                    }
                }
                let mut files: Vec<(String, usize)> = files.into_iter().collect();
                files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                Community {
                    id: renum[c],
                    size: m.len(),
                    top,
                    files: files.into_iter().take(10).map(|f| f.0).collect(),
                }
            })
            .collect();
        let mut crossing: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for (a, outs) in l.graph.out.iter().enumerate() {
            for &b in outs {
                let (ca, cb) = (
                    renum.get(&membership[a]),
                    renum.get(&membership[b as usize]),
                );
                if let (Some(&ca), Some(&cb)) = (ca, cb) {
                    if ca != cb {
                        *crossing.entry((ca, cb)).or_insert(0) += 1;
                    }
                }
            }
        }
        let mut crossing: Vec<Crossing> = crossing
            .into_iter()
            .map(|((from, to), edges)| Crossing { from, to, edges })
            .collect();
        crossing.sort_by(|a, b| {
            b.edges
                .cmp(&a.edges)
                .then((a.from, a.to).cmp(&(b.from, b.to)))
        });
        crossing.truncate(50);
        let total = results.len();
        let mut results = results;
        results.truncate(limit);
        Ok(Communities {
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            crossing,
            modularity: (modularity * 1000.0).round() / 1000.0,
            min_confidence: min,
            edges_left_out: l.left_out,
            index: self.index.clone(),
        })
    }
}

/// Entry points: tests, `main`, public API, dunder methods, modules.
fn is_entry(n: &NodeRow) -> bool {
    n.kind == NodeKind::Test
        || n.kind == NodeKind::Module
        || n.name == "main"
        || n.exported
        || (n.name.starts_with("__") && n.name.ends_with("__"))
}

/// `.d.ts` and `.pyi` files declare what exists elsewhere: never dead, never untested.
fn is_declaration_file(path: &str) -> bool {
    path.ends_with(".d.ts")
        || path.ends_with(".d.mts")
        || path.ends_with(".d.cts")
        || path.ends_with(".pyi")
}

pub(crate) fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    path.split('/')
        .any(|s| matches!(s, "tests" | "test" | "__tests__"))
        || file.starts_with("test_")
        || file.ends_with("_test.py")
        || file.contains(".test.")
        || file.contains(".spec.")
        || file == "conftest.py"
}
