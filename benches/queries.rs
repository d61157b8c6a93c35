//! Query latency on an indexed real project (in process, warm):
//!
//!     cargo bench --bench queries -- bench/work/django
//!
//! Prints a table: `refs` p50/p95 over 200 symbols, `callers --depth 5`,
//! `blast-radius` of a 10-file working-tree change, `bridges` and
//! `communities` on the whole graph, with the graph's size. The project must
//! be a git work tree (bench/run.py makes one) and is left as it was found.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use refgraph::index::IndexConfig;
use refgraph::query::{self, ChangeSpec};

fn pct(mut v: Vec<Duration>, p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn main() {
    let repo: PathBuf = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .expect("usage: cargo bench --bench queries -- <indexed repo>");
    let cfg = IndexConfig::default();
    let t = Instant::now();
    let session = query::open(&repo, &cfg).expect("open the index");
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    let status = session.status().expect("status");
    let edges: u64 = status.edges.values().flat_map(|m| m.values()).sum();
    let nodes: u64 = status.nodes.values().sum();

    // Symbols to ask about: every 50th function or method key.
    let all = session.export().expect("export");
    let keys: Vec<String> = all
        .nodes
        .iter()
        .filter(|n| n.kind == "function" || n.kind == "method")
        .step_by(50)
        .take(200)
        .map(|n| n.key.clone())
        .collect();
    let mut refs = Vec::new();
    let mut callers = Vec::new();
    for k in &keys {
        let t = Instant::now();
        let _ = session.refs(k, Some(0.0), 100);
        refs.push(t.elapsed());
        let t = Instant::now();
        let _ = session.callers(k, 5, Some(0.0), 1000);
        callers.push(t.elapsed());
    }

    // A 10-file change in the working tree: a blank line inserted inside
    // one function of each of 10 files (a real edit of existing code).
    let mut picked: Vec<(String, u32)> = Vec::new();
    for n in all
        .nodes
        .iter()
        .filter(|n| n.kind == "function" || n.kind == "method")
        .step_by(97)
    {
        if picked.len() == 10 {
            break;
        }
        if n.end_line > n.line && !picked.iter().any(|(f, _)| *f == n.file) {
            picked.push((n.file.clone(), n.line));
        }
    }
    let originals: Vec<(PathBuf, Vec<u8>)> = picked
        .iter()
        .map(|(f, _)| (repo.join(f), std::fs::read(repo.join(f)).unwrap()))
        .collect();
    for ((_, line), (p, b)) in picked.iter().zip(&originals) {
        let text = String::from_utf8_lossy(b);
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        lines.insert(*line as usize, "\n");
        std::fs::write(p, lines.concat()).unwrap();
    }
    let session = query::open(&repo, &cfg).expect("reopen after the change");
    let t = Instant::now();
    let blast = session.blast_radius(&ChangeSpec::WorkingTree, 5, Some(0.7), 15);
    let blast_ms = t.elapsed().as_secs_f64() * 1000.0;
    for (p, b) in &originals {
        std::fs::write(p, b).unwrap();
    }
    let blast = blast.expect("blast radius");
    let text_bytes = {
        let mut out = Vec::new();
        let _ = serde_json::to_writer(&mut out, &blast);
        out.len()
    };
    let session = query::open(&repo, &cfg).expect("reopen after restoring");
    let t = Instant::now();
    let bridges = session.bridges(Some(0.0), 20).expect("bridges");
    let bridges_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let comms = session.communities(Some(0.0), 20).expect("communities");
    let comms_s = t.elapsed().as_secs_f64();

    println!(
        "project {} — {} nodes, {} edges; open + freshness check {:.1} ms",
        repo.display(),
        nodes,
        edges,
        open_ms
    );
    println!("| query | result |");
    println!("|---|---|");
    println!(
        "| refs (200 symbols) p50 / p95 | {:.2} ms / {:.2} ms |",
        pct(refs.clone(), 0.5),
        pct(refs, 0.95)
    );
    println!(
        "| callers --depth 5 p50 / p95 | {:.2} ms / {:.2} ms |",
        pct(callers.clone(), 0.5),
        pct(callers, 0.95)
    );
    println!(
        "| blast-radius, 10 changed files ({} changed symbols, {} impacted) | {:.1} ms, JSON {} bytes |",
        blast.changed.len(),
        blast.total,
        blast_ms,
        text_bytes
    );
    println!(
        "| bridges ({}) | {:.2} s |",
        bridges
            .sampled
            .map_or("exact".to_string(), |k| format!("sampled, {k} sources")),
        bridges_s
    );
    println!(
        "| communities ({} found, modularity {}) | {:.2} s |",
        comms.total, comms.modularity, comms_s
    );
}
