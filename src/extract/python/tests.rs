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
