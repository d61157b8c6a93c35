//! Fixture tests for python: the exact graph of fixtures/python.

use std::path::Path;

fn graph() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python");
    refgraph::index::render(&root)
}

#[test]
fn fixture_graph() {
    let out = graph();
    insta::assert_snapshot!(out);
}

/// Render any directory: `REFGRAPH_PY_DIR=/path cargo test --test it
/// python::dump -- --ignored`; writes `$REFGRAPH_PY_DIR.graph.txt`.
#[test]
#[ignore]
fn dump() {
    let Ok(dir) = std::env::var("REFGRAPH_PY_DIR") else {
        return;
    };
    let start = std::time::Instant::now();
    let out = refgraph::index::render(Path::new(&dir));
    eprintln!("rendered in {:?}", start.elapsed());
    std::fs::write(format!("{dir}.graph.txt"), out).unwrap();
}
