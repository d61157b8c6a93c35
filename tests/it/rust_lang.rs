//! Fixture tests for rust_lang: the exact graph of fixtures/rust.

use std::path::Path;

fn render() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rust");
    refgraph::index::render(&root)
}

#[test]
fn fixture_graph() {
    let out = render();
    insta::assert_snapshot!(out);
}
