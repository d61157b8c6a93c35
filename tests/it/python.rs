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
