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

/// Manual check on a real crate: `REFGRAPH_RUST_DIR=… cargo test --test it
/// rust_lang::real_crate -- --ignored --nocapture` prints counts and timing.
#[test]
#[ignore]
fn real_crate() {
    let Ok(dir) = std::env::var("REFGRAPH_RUST_DIR") else {
        eprintln!("REFGRAPH_RUST_DIR not set");
        return;
    };
    let t = std::time::Instant::now();
    let out = refgraph::index::render(Path::new(&dir));
    let elapsed = t.elapsed();
    let count = |p: &str| out.lines().filter(|l| l.starts_with(p)).count();
    eprintln!(
        "nodes {} edges {} unresolved {} diagnostics {} in {:?}",
        count("N "),
        count("E "),
        count("U "),
        count("D "),
        elapsed
    );
    if let Ok(dump) = std::env::var("REFGRAPH_DUMP") {
        std::fs::write(dump, &out).unwrap();
    }
}
