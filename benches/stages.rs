//! Where a cold index's time goes, stage by stage, on a real project:
//!
//!     cargo bench --bench stages -- bench/work/django/Django-5.1.4
//!
//! Each row runs from scratch over the files the index would take (the same
//! walk): the walk alone; reading and parsing with Tree-sitter alone (the
//! ceiling no Tree-sitter indexer can pass on this machine); reading,
//! parsing and extracting facts; and that plus resolving every file in
//! memory. Nothing is written: `refgraph index` adds SQLite to the last row.
//! Wall seconds, CPU seconds (user + system, all threads) and files per
//! second of wall time.

use std::path::PathBuf;
use std::time::Instant;

use refgraph::extract;
use refgraph::index::{self, IndexConfig};
use refgraph::walk;

/// CPU seconds used by this process so far (Linux: /proc/self/stat).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields of the whole line, in clock ticks (100 per s).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

struct Row {
    stage: &'static str,
    wall: f64,
    cpu: f64,
}

fn timed(stage: &'static str, rows: &mut Vec<Row>, f: impl FnOnce()) {
    let (t, c) = (Instant::now(), cpu_seconds());
    f();
    rows.push(Row {
        stage,
        wall: t.elapsed().as_secs_f64(),
        cpu: cpu_seconds() - c,
    });
}

/// The binary's allocator, so the stages cost what they cost in
/// `refgraph index` (with glibc malloc and huge pages, as before, the parse
/// row took 3.37 s on rust-vendor and 0.43 s on zod, against 2.98 s and
/// 0.28 s now).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // The binary's memory setup too (huge pages off, Tree-sitter on
    // mimalloc). SAFETY: first, on the main thread.
    unsafe { refgraph::memory::setup() };
    let root: PathBuf = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .expect("usage: cargo bench --bench stages -- <project folder>");
    let cfg = IndexConfig::default();
    let mut rows = Vec::new();
    let mut w = walk::Walk::default();
    timed("walk", &mut rows, || w = walk::walk(&root, &cfg.walk));
    let bytes: usize = w.files.iter().map(|f| f.size as usize).sum();

    timed("read + parse (Tree-sitter only)", &mut rows, || {
        // In the order the index parses (largest first), one parser per
        // worker thread.
        thread_local! {
            static PARSER: std::cell::RefCell<tree_sitter::Parser> =
                std::cell::RefCell::new(tree_sitter::Parser::new());
        }
        let nodes: usize = index::workers().install(|| {
            index::largest_first(
                &w.files,
                |f| f.size,
                |f| {
                    let Ok(src) = std::fs::read(root.join(&f.path)) else {
                        return 0;
                    };
                    PARSER.with_borrow_mut(|parser| {
                        parser
                            .set_language(&extract::grammar(f.lang))
                            .expect("grammar loads");
                        parser
                            .parse(&src, None)
                            .map_or(0, |t| t.root_node().descendant_count())
                    })
                },
            )
            .into_iter()
            .sum()
        });
        assert!(nodes > 0 || w.files.is_empty(), "nothing parsed");
    });

    let mut analyzed = Vec::new();
    timed("read + parse + extract", &mut rows, || {
        analyzed = index::extract_files(&root, &w.files).0;
    });
    drop(analyzed);

    timed("read + parse + extract + resolve", &mut rows, || {
        let (files, _) = index::extract_files(&root, &w.files);
        let layout = index::read_layout(&root, &w, &files);
        let resolved = index::analyze(&files, &layout);
        assert_eq!(resolved.len(), files.len());
    });

    println!(
        "{}: {} files, {:.1} MB, {} workers",
        root.display(),
        w.files.len(),
        bytes as f64 / 1e6,
        index::workers().current_num_threads()
    );
    println!(
        "{:<36} {:>8} {:>8} {:>9}",
        "stage", "wall s", "CPU s", "files/s"
    );
    for r in &rows {
        println!(
            "{:<36} {:>8.2} {:>8.2} {:>9.0}",
            r.stage,
            r.wall,
            r.cpu,
            w.files.len() as f64 / r.wall
        );
    }
}
