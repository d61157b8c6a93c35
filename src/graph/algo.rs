//! Graph algorithms over a compact adjacency structure: reachability,
//! strongly connected components (Tarjan, via petgraph), betweenness
//! (Brandes, exact or sampled) and communities (Louvain). Pure and
//! deterministic: the same graph gives the same answer.

use std::collections::{HashMap, VecDeque};

/// A directed graph over dense indices `0..n`, with the original ids.
#[derive(Clone, Debug, Default)]
pub struct Digraph {
    pub ids: Vec<i64>,
    pub index: HashMap<i64, u32>,
    pub out: Vec<Vec<u32>>,
    pub inc: Vec<Vec<u32>>,
}

impl Digraph {
    /// Build from `(src, dst)` id pairs; ids are numbered in sorted order so
    /// results do not depend on edge order. Parallel edges are merged;
    /// self-loops are kept.
    pub fn from_edges(edges: impl IntoIterator<Item = (i64, i64)>) -> Digraph {
        let mut pairs: Vec<(i64, i64)> = edges.into_iter().collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut ids: Vec<i64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let index: HashMap<i64, u32> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i as u32))
            .collect();
        let mut out = vec![Vec::new(); ids.len()];
        let mut inc = vec![Vec::new(); ids.len()];
        for (a, b) in pairs {
            let (a, b) = (index[&a], index[&b]);
            out[a as usize].push(b);
            inc[b as usize].push(a);
        }
        Digraph {
            ids,
            index,
            out,
            inc,
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Every node reachable from `starts` following `out` edges (starts included).
    pub fn reach(&self, starts: impl IntoIterator<Item = u32>) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut queue: VecDeque<u32> = VecDeque::new();
        for s in starts {
            if !seen[s as usize] {
                seen[s as usize] = true;
                queue.push_back(s);
            }
        }
        while let Some(v) = queue.pop_front() {
            for &w in &self.out[v as usize] {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    queue.push_back(w);
                }
            }
        }
        seen
    }

    /// Strongly connected components with more than one node, or a self-loop;
    /// each sorted, the list sorted by size (largest first) then first id.
    pub fn cycles(&self) -> Vec<Vec<i64>> {
        let mut g = petgraph::graph::DiGraph::<(), ()>::with_capacity(self.len(), 0);
        let nodes: Vec<_> = (0..self.len()).map(|_| g.add_node(())).collect();
        for (a, outs) in self.out.iter().enumerate() {
            for &b in outs {
                g.add_edge(nodes[a], nodes[b as usize], ());
            }
        }
        let mut out: Vec<Vec<i64>> = petgraph::algo::tarjan_scc(&g)
            .into_iter()
            .filter(|c| c.len() > 1 || self.out[c[0].index()].contains(&(c[0].index() as u32)))
            .map(|c| {
                let mut ids: Vec<i64> = c.iter().map(|n| self.ids[n.index()]).collect();
                ids.sort_unstable();
                ids
            })
            .collect();
        out.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        out
    }

    /// Betweenness centrality (Brandes), treating edges as directed. With
    /// `sample = Some(k)` and k < n, only k evenly spaced sources are used
    /// and the scores are scaled by n / k (an unbiased estimate).
    pub fn betweenness(&self, sample: Option<usize>) -> Vec<f64> {
        let n = self.len();
        let mut score = vec![0.0f64; n];
        let sources: Vec<usize> = match sample {
            Some(k) if k < n && k > 0 => (0..k).map(|i| i * n / k).collect(),
            _ => (0..n).collect(),
        };
        let scale = n as f64 / sources.len().max(1) as f64;
        let mut stack = Vec::with_capacity(n);
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut sigma = vec![0.0f64; n];
        let mut dist = vec![-1i64; n];
        let mut delta = vec![0.0f64; n];
        let mut queue = VecDeque::new();
        for s in sources {
            stack.clear();
            for v in 0..n {
                preds[v].clear();
                sigma[v] = 0.0;
                dist[v] = -1;
                delta[v] = 0.0;
            }
            sigma[s] = 1.0;
            dist[s] = 0;
            queue.push_back(s as u32);
            while let Some(v) = queue.pop_front() {
                stack.push(v);
                for &w in &self.out[v as usize] {
                    let (v, w) = (v as usize, w as usize);
                    if dist[w] < 0 {
                        dist[w] = dist[v] + 1;
                        queue.push_back(w as u32);
                    }
                    if dist[w] == dist[v] + 1 {
                        sigma[w] += sigma[v];
                        preds[w].push(v as u32);
                    }
                }
            }
            while let Some(w) = stack.pop() {
                let w = w as usize;
                for &v in &preds[w] {
                    let v = v as usize;
                    delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
                }
                if w != s {
                    score[w] += delta[w];
                }
            }
        }
        score.iter_mut().for_each(|x| *x *= scale);
        score
    }

    /// Louvain communities on the undirected version of the graph (edge
    /// weight = number of directed edges between the pair). Returns the
    /// community of each node (numbered by first member) and the modularity.
    pub fn louvain(&self) -> (Vec<usize>, f64) {
        let n = self.len();
        let mut adj: Vec<HashMap<u32, f64>> = vec![HashMap::new(); n];
        for (a, outs) in self.out.iter().enumerate() {
            for &b in outs {
                if a as u32 == b {
                    continue;
                }
                *adj[a].entry(b).or_insert(0.0) += 1.0;
                *adj[b as usize].entry(a as u32).or_insert(0.0) += 1.0;
            }
        }
        let mut membership: Vec<usize> = (0..n).collect();
        let mut level: Vec<Vec<(u32, f64)>> = adj
            .iter()
            .map(|m| {
                let mut v: Vec<(u32, f64)> = m.iter().map(|(&k, &w)| (k, w)).collect();
                v.sort_by_key(|e| e.0);
                v
            })
            .collect();
        let mut self_w = vec![0.0f64; n];
        loop {
            let (comm, moved) = one_level(&level, &self_w);
            if !moved {
                break;
            }
            // Renumber communities densely in order of first appearance.
            let mut renum: HashMap<usize, usize> = HashMap::new();
            for &c in &comm {
                let next = renum.len();
                renum.entry(c).or_insert(next);
            }
            for m in membership.iter_mut() {
                *m = renum[&comm[*m]];
            }
            // Aggregate.
            let k = renum.len();
            let mut agg: Vec<HashMap<u32, f64>> = vec![HashMap::new(); k];
            let mut agg_self = vec![0.0f64; k];
            for (v, edges) in level.iter().enumerate() {
                let cv = renum[&comm[v]];
                agg_self[cv] += self_w[v];
                for &(w, wt) in edges {
                    let cw = renum[&comm[w as usize]];
                    if cv == cw {
                        agg_self[cv] += wt;
                    } else {
                        *agg[cv].entry(cw as u32).or_insert(0.0) += wt;
                    }
                }
            }
            level = agg
                .into_iter()
                .map(|m| {
                    let mut v: Vec<(u32, f64)> = m.into_iter().collect();
                    v.sort_by_key(|e| e.0);
                    v
                })
                .collect();
            self_w = agg_self;
            if k == 1 {
                break;
            }
        }
        let q = modularity(&adj, &membership);
        (membership, q)
    }
}

/// One pass of local moves; returns the community of each node and whether
/// anything moved. Node order is fixed (0..n), so the result is deterministic.
fn one_level(adj: &[Vec<(u32, f64)>], self_w: &[f64]) -> (Vec<usize>, bool) {
    let n = adj.len();
    let degree: Vec<f64> = (0..n)
        .map(|v| adj[v].iter().map(|e| e.1).sum::<f64>() + self_w[v])
        .collect();
    let m2: f64 = degree.iter().sum();
    let mut comm: Vec<usize> = (0..n).collect();
    if m2 == 0.0 {
        return (comm, false);
    }
    let mut tot: Vec<f64> = degree.clone();
    let mut moved_any = false;
    for _round in 0..32 {
        let mut moved = false;
        for v in 0..n {
            let cv = comm[v];
            let mut links: HashMap<usize, f64> = HashMap::new();
            for &(w, wt) in &adj[v] {
                *links.entry(comm[w as usize]).or_insert(0.0) += wt;
            }
            tot[cv] -= degree[v];
            let gain = |c: usize, k_in: f64| k_in - tot[c] * degree[v] / m2;
            let mut best = cv;
            let mut best_gain = gain(cv, links.get(&cv).copied().unwrap_or(0.0));
            let mut cands: Vec<(&usize, &f64)> = links.iter().collect();
            cands.sort_by_key(|(c, _)| **c);
            for (&c, &k_in) in cands {
                let g = gain(c, k_in);
                if g > best_gain + 1e-12 {
                    best = c;
                    best_gain = g;
                }
            }
            tot[best] += degree[v];
            if best != cv {
                comm[v] = best;
                moved = true;
                moved_any = true;
            }
        }
        if !moved {
            break;
        }
    }
    (comm, moved_any)
}

fn modularity(adj: &[HashMap<u32, f64>], comm: &[usize]) -> f64 {
    let degree: Vec<f64> = adj.iter().map(|m| m.values().sum()).collect();
    let m2: f64 = degree.iter().sum();
    if m2 == 0.0 {
        return 0.0;
    }
    let mut inside: HashMap<usize, f64> = HashMap::new();
    let mut tot: HashMap<usize, f64> = HashMap::new();
    for (v, m) in adj.iter().enumerate() {
        *tot.entry(comm[v]).or_insert(0.0) += degree[v];
        for (&w, &wt) in m {
            if comm[w as usize] == comm[v] {
                *inside.entry(comm[v]).or_insert(0.0) += wt;
            }
        }
    }
    tot.iter()
        .map(|(c, t)| inside.get(c).copied().unwrap_or(0.0) / m2 - (t / m2).powi(2))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_found_and_sorted() {
        let g = Digraph::from_edges([(1, 2), (2, 3), (3, 1), (3, 4), (5, 5), (6, 7)]);
        assert_eq!(g.cycles(), vec![vec![1, 2, 3], vec![5]]);
    }

    #[test]
    fn betweenness_of_a_path() {
        // 1 -> 2 -> 3: only 2 lies between.
        let g = Digraph::from_edges([(1, 2), (2, 3)]);
        assert_eq!(g.betweenness(None), vec![0.0, 1.0, 0.0]);
        // A sample of every source equals the exact answer.
        assert_eq!(g.betweenness(Some(3)), vec![0.0, 1.0, 0.0]);
    }

    #[test]
    fn louvain_splits_two_cliques() {
        let mut e = Vec::new();
        for a in 0..4 {
            for b in 0..4 {
                if a != b {
                    e.push((a, b));
                    e.push((10 + a, 10 + b));
                }
            }
        }
        e.push((0, 10));
        let g = Digraph::from_edges(e);
        let (comm, q) = g.louvain();
        assert!(comm[..4].iter().all(|&c| c == comm[0]));
        assert!(comm[4..].iter().all(|&c| c == comm[4]));
        assert_ne!(comm[0], comm[4]);
        assert!(q > 0.4, "{q}");
        // Deterministic.
        assert_eq!(g.louvain().0, comm);
    }

    #[test]
    fn reach_follows_out_edges() {
        let g = Digraph::from_edges([(1, 2), (2, 3), (4, 1)]);
        let r = g.reach([g.index[&1]]);
        assert_eq!(r, vec![true, true, true, false]);
    }
}
