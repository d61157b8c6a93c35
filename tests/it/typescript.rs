//! Fixture tests for typescript: the exact graph of fixtures/typescript.

use std::path::Path;

fn graph() -> String {
    refgraph::index::render(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/typescript"
    )))
}

#[test]
fn fixture_graph() {
    let out = graph();
    insta::assert_snapshot!(out);
}
