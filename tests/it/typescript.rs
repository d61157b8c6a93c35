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
    let start = std::time::Instant::now();
    let text = refgraph::index::render(Path::new(&dir));
    eprintln!("rendered {dir} in {:?}", start.elapsed());
    std::fs::write(out, text).unwrap();
}
