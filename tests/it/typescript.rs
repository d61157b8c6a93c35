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

/// Render any directory for manual comparison with a language server:
/// `REFGRAPH_RENDER_DIR=/path REFGRAPH_RENDER_OUT=/tmp/g.txt cargo test --test it
/// typescript::render_dir -- --ignored`.
#[test]
#[ignore]
fn render_dir() {
    let (Ok(dir), Ok(out)) = (
        std::env::var("REFGRAPH_RENDER_DIR"),
        std::env::var("REFGRAPH_RENDER_OUT"),
    ) else {
        return;
    };
    let root = Path::new(&dir);
    let start = std::time::Instant::now();
    let w = refgraph::walk::walk(root, &Default::default());
    let (files, _) = refgraph::index::extract_files(root, &w.files);
    let extracted = start.elapsed();
    let layout = refgraph::index::read_layout(root, &w, &files);
    let _ = refgraph::index::analyze(&files, &layout);
    eprintln!(
        "{} files: walk+extract {:?}, resolve {:?}",
        files.len(),
        extracted,
        start.elapsed() - extracted
    );
    let text = refgraph::index::render(root);
    std::fs::write(out, text).unwrap();
}
