//! Who references a symbol, who calls it (one hop or all), what it calls,
//! and which files depend on a file.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use super::{QueryError, Session, Target};
use crate::api::{
    CallItem, CallsResult, DependentItem, DependentsResult, RefItem, RefsResult, Symbol,
};
use crate::extract::Lang;
use crate::graph::{EdgeKind, NodeKind, Status};
use crate::store::{Link, NodeRow};

/// Edge kinds that make a site a reference in `find_referencing_symbols`.
const REF_KINDS: [EdgeKind; 5] = [
    EdgeKind::Calls,
    EdgeKind::References,
    EdgeKind::Imports,
    EdgeKind::Extends,
    EdgeKind::Implements,
];

/// Whether a link counts as a call for callers/callees: a call, or a
/// non-import use of a function from inside another definition (a
/// callback passed on, a method taken as a value).
fn is_call_link(link: &Link, src_kind: NodeKind) -> bool {
    match link.kind {
        EdgeKind::Calls => true,
        EdgeKind::References => src_kind != NodeKind::Module,
        _ => false,
    }
}

fn weaker(a: Status, b: Status) -> Status {
    a.max(b)
}

impl Session {
    /// `find_referencing_symbols`.
    pub fn refs(
        &self,
        symbol: &str,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<RefsResult, QueryError> {
        let node = match self.target(symbol)? {
            Target::One(n) => n,
            Target::Many(c) => {
                return Ok(RefsResult {
                    symbol: None,
                    candidates: Some(c.iter().map(Symbol::from).collect()),
                    results: Vec::new(),
                    total: 0,
                    shown: 0,
                    truncated: false,
                    index: self.index.clone(),
                    verification: self.verification(min_confidence, None, 0),
                })
            }
        };
        let min = self.threshold(min_confidence, &node.file);
        let mut cache = HashMap::new();
        let mut results = Vec::new();
        for link in self.store.links_to(node.id)? {
            if !REF_KINDS.contains(&link.kind) {
                continue;
            }
            let Some((file, line, column)) = link.site.clone() else {
                continue;
            };
            let Some(referrer) = self.node_cached(&mut cache, link.src)? else {
                continue;
            };
            results.push(RefItem {
                file,
                line,
                column,
                referrer: Symbol::from(&referrer),
                confidence: link.confidence,
                status: link.status.as_str().to_string(),
                source: link.source.clone(),
                kind: link.kind.as_str().to_string(),
                note: None,
            });
        }
        // Sites the graph could not pin down may refer here too: never let
        // them read as "no references".
        let family = Lang::of_path(&node.file).map(Lang::family);
        let candidates = self.store.count_named(&node.name)?.max(1);
        for u in self.store.unresolved_named(&node.name)? {
            if Lang::of_path(&u.file).map(Lang::family) != family {
                continue;
            }
            let Some(referrer) = self.node_cached(&mut cache, u.src)? else {
                continue;
            };
            results.push(RefItem {
                file: u.file,
                line: u.line,
                column: u.column,
                referrer: Symbol::from(&referrer),
                confidence: ((0.5 / candidates as f64) * 100.0).round() / 100.0,
                status: Status::Inferred.as_str().to_string(),
                source: "heuristic".into(),
                kind: u.kind.as_str().to_string(),
                note: Some(format!("unresolved: {}", u.reason)),
            });
        }
        results.sort_by(|a, b| {
            (&a.file, a.line, a.column, &a.kind).cmp(&(&b.file, b.line, b.column, &b.kind))
        });
        results.dedup_by(|a, b| {
            (&a.file, a.line, a.column, &a.referrer.key)
                == (&b.file, b.line, b.column, &b.referrer.key)
        });
        let below = results.iter().filter(|r| r.confidence < min).count();
        let total = results.len();
        results.truncate(limit);
        Ok(RefsResult {
            symbol: Some(Symbol::from(&node)),
            candidates: None,
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            index: self.index.clone(),
            verification: self.verification(Some(min), Some(&node.file), below),
        })
    }

    /// `find_callers` (depth 1) and `find_callers_transitive` (depth > 1).
    pub fn callers(
        &self,
        symbol: &str,
        depth: u32,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<CallsResult, QueryError> {
        self.walk_calls(
            symbol,
            depth.max(1),
            min_confidence,
            limit,
            Direction::Callers,
        )
    }

    /// `find_callees`: what a symbol calls (one hop).
    pub fn callees(
        &self,
        symbol: &str,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<CallsResult, QueryError> {
        self.walk_calls(symbol, 1, min_confidence, limit, Direction::Callees)
    }

    fn walk_calls(
        &self,
        symbol: &str,
        depth: u32,
        min_confidence: Option<f64>,
        limit: usize,
        dir: Direction,
    ) -> Result<CallsResult, QueryError> {
        let node = match self.target(symbol)? {
            Target::One(n) => n,
            Target::Many(c) => {
                return Ok(CallsResult {
                    symbol: None,
                    candidates: Some(c.iter().map(Symbol::from).collect()),
                    results: Vec::new(),
                    total: 0,
                    shown: 0,
                    truncated: false,
                    index: self.index.clone(),
                    verification: self.verification(min_confidence, None, 0),
                })
            }
        };
        let min = self.threshold(min_confidence, &node.file);
        let mut cache = HashMap::new();
        // Breadth-first, so each symbol is reported at its shortest depth,
        // with the path that reached it first (cycle-safe: visited set).
        let mut seen: HashSet<i64> = HashSet::from([node.id]);
        let mut queue = VecDeque::from([(
            node.id,
            0u32,
            vec![node.key.clone()],
            1.0f64,
            Status::Verified,
        )]);
        let mut results = Vec::new();
        while let Some((id, d, path, conf, status)) = queue.pop_front() {
            if d >= depth {
                continue;
            }
            let links = match dir {
                Direction::Callers => self.store.links_to(id)?,
                Direction::Callees => self.store.links_from(id)?,
            };
            // The strongest link to each neighbour.
            let mut best: BTreeMap<i64, (f64, Status)> = BTreeMap::new();
            for link in links {
                let other = match dir {
                    Direction::Callers => link.src,
                    Direction::Callees => link.dst,
                };
                let Some(src) = self.node_cached(&mut cache, link.src)? else {
                    continue;
                };
                if !is_call_link(&link, src.kind) {
                    continue;
                }
                let e = best.entry(other).or_insert((0.0, Status::Refuted));
                if link.confidence > e.0 {
                    *e = (link.confidence, link.status);
                }
            }
            for (other, (c, s)) in best {
                if !seen.insert(other) {
                    continue;
                }
                let Some(n) = self.node_cached(&mut cache, other)? else {
                    continue;
                };
                if dir == Direction::Callees && n.kind == NodeKind::Module {
                    continue;
                }
                let mut p = path.clone();
                p.push(n.key.clone());
                let (pc, ps) = (conf.min(c), weaker(status, s));
                results.push(CallItem {
                    symbol: Symbol::from(&n),
                    depth: d + 1,
                    path: p.clone(),
                    confidence: pc,
                    status: ps.as_str().to_string(),
                });
                queue.push_back((other, d + 1, p, pc, ps));
            }
        }
        results.sort_by(|a, b| (a.depth, &a.symbol).cmp(&(b.depth, &b.symbol)));
        let below = results.iter().filter(|r| r.confidence < min).count();
        let total = results.len();
        results.truncate(limit);
        Ok(CallsResult {
            symbol: Some(Symbol::from(&node)),
            candidates: None,
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            index: self.index.clone(),
            verification: self.verification(Some(min), Some(&node.file), below),
        })
    }

    /// `find_dependents`: files that import the file, or use what it defines.
    pub fn dependents(
        &self,
        file: &str,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<DependentsResult, QueryError> {
        let rel = self.relative(file)?;
        let nodes = self
            .store
            .nodes_of_file(&rel)?
            .ok_or_else(|| QueryError::FileNotIndexed(rel.clone()))?;
        let min = self.threshold(min_confidence, &rel);
        let mut by_file: BTreeMap<String, (usize, f64, Status)> = BTreeMap::new();
        for n in &nodes {
            for link in self.store.links_to(n.id)? {
                if !REF_KINDS.contains(&link.kind) {
                    continue;
                }
                let Some((site_file, _, _)) = &link.site else {
                    continue;
                };
                if *site_file == rel {
                    continue;
                }
                let e = by_file
                    .entry(site_file.clone())
                    .or_insert((0, 0.0, Status::Refuted));
                e.0 += 1;
                if link.confidence > e.1 {
                    e.1 = link.confidence;
                    e.2 = link.status;
                }
            }
        }
        let mut results: Vec<DependentItem> = by_file
            .into_iter()
            .map(|(file, (sites, confidence, status))| DependentItem {
                file,
                sites,
                confidence,
                status: status.as_str().to_string(),
            })
            .collect();
        let below = results.iter().filter(|r| r.confidence < min).count();
        let total = results.len();
        results.truncate(limit);
        Ok(DependentsResult {
            file: rel.clone(),
            shown: results.len(),
            truncated: total > results.len(),
            total,
            results,
            index: self.index.clone(),
            verification: self.verification(Some(min), Some(&rel), below),
        })
    }

    pub(crate) fn node_cached(
        &self,
        cache: &mut HashMap<i64, Option<NodeRow>>,
        id: i64,
    ) -> Result<Option<NodeRow>, QueryError> {
        if let Some(n) = cache.get(&id) {
            return Ok(n.clone());
        }
        let n = self.store.node(id)?;
        cache.insert(id, n.clone());
        Ok(n)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Callers,
    Callees,
}
