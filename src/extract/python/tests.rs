//! Extraction rules for Python.

use super::*;

fn facts(src: &str) -> (Vec<Def>, Scope, Refs) {
    let f = extract("pkg/m.py", src.as_bytes());
    let LangScope::Python(s) = f.scope else { panic!() };
    let LangRefs::Python(r) = f.refs else { panic!() };
    (f.defs, s, r)
}

#[test]
fn smoke() {
    let (defs, _s, _r) = facts("def f():\n    pass\n");
    assert_eq!(defs.len(), 2);
}

#[test]
#[ignore]
fn debug_dump() {
    let src = std::fs::read_to_string(std::env::var("PYFILE").unwrap()).unwrap();
    let (defs, s, r) = facts(&src);
    eprintln!("{defs:#?}\n{s:#?}\n{r:#?}");
}

#[test]
#[ignore]
fn debug_tree() {
    let src = std::env::var("PYSRC").unwrap();
    let tree = parse(src.as_bytes()).unwrap();
    eprintln!("{}", tree.root_node().to_sexp());
}
