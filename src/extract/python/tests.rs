//! Extraction rules for Python.

use super::*;

fn facts(src: &str) -> (Vec<Def>, Scope, Refs) {
    facts_at("pkg/m.py", src)
}

fn facts_at(path: &str, src: &str) -> (Vec<Def>, Scope, Refs) {
    let f = extract(path, src.as_bytes());
    let LangScope::Python(s) = f.scope else {
        panic!("not python")
    };
    let LangRefs::Python(r) = f.refs else {
        panic!("not python")
    };
    (f.defs, s, r)
}

fn def<'a>(defs: &'a [Def], local: &str) -> &'a Def {
    defs.iter()
        .find(|d| d.local == local)
        .unwrap_or_else(|| panic!("no def {local}: {defs:#?}"))
}

/// The root of the chain whose root identifier starts at `line:col`.
fn root_at(refs: &Refs, line: u32, column: u32) -> &Root {
    &refs
        .chains
        .iter()
        .find(|c| c.pos == Pos { line, column })
        .unwrap_or_else(|| panic!("no chain at {line}:{column}: {:#?}", refs.chains))
        .root
}

#[test]
fn definitions_kinds_and_positions() {
    let src = "\
import functools

@functools.cache
@other
def top(a, b=1):
    def inner():
        class Local:
            pass
    return inner

class Outer:
    class Nested:
        def m(self): ...
    async def run(self): ...
    def _private(self): ...
    def __eq__(self, o): ...
";
    let (defs, _, _) = facts(src);
    let top = def(&defs, "top");
    assert_eq!(top.kind, NodeKind::Function);
    assert_eq!((top.start_line, top.pos.line, top.pos.column), (3, 5, 5));
    assert_eq!(top.end_line, 9);
    let inner = def(&defs, "top.inner");
    assert_eq!(inner.kind, NodeKind::Function);
    assert!(!inner.exported);
    assert_eq!(def(&defs, "top.inner.Local").kind, NodeKind::Class);
    assert_eq!(def(&defs, "Outer.Nested.m").kind, NodeKind::Method);
    assert_eq!(def(&defs, "Outer.run").kind, NodeKind::Method);
    assert!(!def(&defs, "Outer._private").exported);
    assert!(def(&defs, "Outer.__eq__").exported);
    assert_eq!(defs[0].kind, NodeKind::Module);
}

#[test]
fn tests_only_in_test_files() {
    let src = "\
import unittest

def test_a(): ...
def helper(): ...

class TestThing:
    def test_b(self): ...
    def setup_method(self): ...

class Case(unittest.TestCase):
    def test_c(self): ...

class Plain:
    def test_d(self): ...
";
    let (defs, _, _) = facts_at("tests/test_x.py", src);
    assert_eq!(def(&defs, "test_a").kind, NodeKind::Test);
    assert_eq!(def(&defs, "helper").kind, NodeKind::Function);
    assert_eq!(def(&defs, "TestThing.test_b").kind, NodeKind::Test);
    assert_eq!(def(&defs, "TestThing.setup_method").kind, NodeKind::Method);
    assert_eq!(def(&defs, "Case.test_c").kind, NodeKind::Test);
    assert_eq!(def(&defs, "Plain.test_d").kind, NodeKind::Method);
    let (defs, _, _) = facts_at("pkg/tools.py", src);
    assert_eq!(def(&defs, "test_a").kind, NodeKind::Function);
    assert!(is_test_path("a/test/util.py"));
    assert!(is_test_path("conftest.py"));
    assert!(is_test_path("pkg/x_test.py"));
    assert!(!is_test_path("pkg/testing.py"));
}

#[test]
fn fixtures_and_their_parameters() {
    let src = "\
import pytest

@pytest.fixture(scope=\"session\")
def db(tmp_path): ...

def test_it(db, other=3): ...
";
    let (defs, scope, refs) = facts_at("tests/test_db.py", src);
    let db = defs.iter().position(|d| d.name == "db").unwrap() as u32;
    assert_eq!(scope.fixtures, vec![db]);
    let names: Vec<&str> = refs
        .fixture_params
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    // Fixtures may request fixtures; parameters with defaults are not injected.
    assert_eq!(names, ["tmp_path", "db"]);
    assert_eq!(
        refs.fixture_params[1].pos,
        Pos {
            line: 6,
            column: 13
        }
    );
}

#[test]
fn exported_follows_underscore_and_all() {
    let src = "\
__all__ = [\"_special\"]
__all__ += [\"other\"]
def _special(): ...
def _hidden(): ...
def public(): ...
";
    let (defs, scope, _) = facts(src);
    assert!(def(&defs, "_special").exported);
    assert!(!def(&defs, "_hidden").exported);
    assert!(def(&defs, "public").exported);
    assert_eq!(scope.all, Some(vec!["_special".into(), "other".into()]));
}

#[test]
fn scopes_bind_names_the_python_way() {
    let src = "\
def validate(x): ...
class Service:
    helper = 1
    def helper2(self): ...
    check = helper2
    def run(self, validate):
        validate()
        helper
        helper2
        self.run
    def other(self):
        validate()
        [validate for validate in range(3)]
def f():
    global g
    g = 1
    g
";
    let (defs, _, refs) = facts(src);
    // A parameter shadows the module-level function.
    assert!(matches!(root_at(&refs, 7, 9), Root::Local(_)));
    // Class-body names are not visible inside methods.
    assert_eq!(root_at(&refs, 8, 9), &Root::Global("helper".into()));
    assert_eq!(root_at(&refs, 9, 9), &Root::Global("helper2".into()));
    // ...but they are in the class body.
    let helper2 = defs.iter().position(|d| d.name == "helper2").unwrap() as u32;
    assert_eq!(root_at(&refs, 5, 13), &Root::Def(helper2));
    let service = defs.iter().position(|d| d.name == "Service").unwrap() as u32;
    assert_eq!(
        root_at(&refs, 10, 9),
        &Root::SelfParam {
            class: service,
            cls: false
        }
    );
    assert_eq!(root_at(&refs, 12, 9), &Root::Global("validate".into()));
    // Comprehension variables are local to the comprehension.
    assert!(matches!(root_at(&refs, 13, 10), Root::Local(_)));
    // `global` makes an assigned name module-level.
    assert_eq!(root_at(&refs, 17, 5), &Root::Global("g".into()));
}

#[test]
fn imports_are_recorded_with_their_sites() {
    let src = "\
import a.b.c
import a.b as ab
from ..pkg.mod import y as z, w
from . import sibling
from x import *
def f():
    import inner
";
    let (_, scope, _) = facts(src);
    let imps = &scope.imports;
    assert_eq!(imps.len(), 7);
    assert_eq!(imps[0].kind, ImportKind::Plain);
    assert_eq!(imps[0].bound_name(), Some("a"));
    assert_eq!(
        imps[0].module_pos,
        Pos {
            line: 1,
            column: 12
        }
    );
    assert_eq!(imps[1].bound_name(), Some("ab"));
    assert_eq!((imps[2].level, imps[2].module.as_str()), (2, "pkg.mod"));
    assert_eq!(
        imps[2].kind,
        ImportKind::From {
            name: "y".into(),
            alias: Some("z".into()),
            pos: Pos {
                line: 3,
                column: 23
            },
            same_alias: None,
        }
    );
    assert_eq!(imps[3].bound_name(), Some("w"));
    assert_eq!((imps[4].level, imps[4].module.as_str()), (1, ""));
    assert_eq!(imps[4].bound_name(), Some("sibling"));
    assert_eq!(imps[5].kind, ImportKind::Star);
    assert_eq!(imps[6].scope, 1);
}

#[test]
fn receiver_types_are_recorded() {
    let src = "\
from typing import Optional
class Svc:
    gw: \"Gateway\"
    def __init__(self, backup: Optional[Backup] = None):
        self.primary = make_gateway()
        self.backup = backup
    def me(self):
        return self
def build():
    return Svc()
def gen():
    yield Svc()
def mixed():
    yield Svc()
    yield 1
def setup():
    yield
    return Svc()
def pair():
    return 1, Svc()
";
    let (_, scope, _) = facts(src);
    let class = &scope.classes[0];
    let ty = |n: &str| {
        class
            .attrs
            .iter()
            .find(|a| a.name == n)
            .and_then(|a| a.ty.clone())
    };
    let t = |path: &str, call: bool| {
        Some(TypeRef {
            path: path.into(),
            call,
            cont: Cont::One,
            parts: Vec::new(),
        })
    };
    assert_eq!(ty("gw"), t("Gateway", false));
    assert_eq!(ty("primary"), t("make_gateway", true));
    assert_eq!(ty("backup"), t("Backup", false));
    let rets: Vec<Option<TypeRef>> = scope
        .funcs
        .iter()
        .filter(|f| f.ret.is_some())
        .map(|f| f.ret.clone())
        .collect();
    // `return self` is `Self`; an unannotated `return Svc()` is inferred,
    // `return 1, Svc()` as a tuple of a literal and a Svc; a generator is
    // an iterator of what every `yield` gives (`mixed` and `setup`, whose
    // yields differ or give nothing, are not typed; a generator's
    // `return` is no value its call gives).
    let pair = TypeRef {
        path: TUPLE_PATH.into(),
        call: false,
        cont: Cont::One,
        parts: vec![
            TypeRef {
                path: LITERAL_PATH.into(),
                call: false,
                cont: Cont::Value,
                parts: Vec::new(),
            },
            t("Svc", true).unwrap(),
        ],
    };
    let mut seq = t("Svc", true);
    if let Some(s) = seq.as_mut() {
        s.cont = Cont::Seq;
    }
    assert_eq!(rets, [t("Self", false), t("Svc", true), Some(pair), seq]);
    // A method with an annotated parameter keeps its parameters, for the
    // overrides that inherit their types.
    let init = scope.funcs.iter().find(|f| !f.params.is_empty()).unwrap();
    let params: Vec<(&str, Option<TypeRef>)> = init
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.clone()))
        .collect();
    assert_eq!(params, [("self", None), ("backup", t("Backup", false))]);
}

#[test]
fn unreachable_code_is_marked() {
    let src = "\
import sys
if sys.platform == \"win32\":
    def f(): ...
    import winreg
    f()
else:
    def f(): ...
    f()
if TYPE_CHECKING:
    g()
else:
    h()
raise ImportError
import k
";
    let (defs, scope, _) = facts(src);
    let first_f = defs.iter().position(|d| d.name == "f").unwrap() as u32;
    assert_eq!(scope.dead_defs, vec![first_f]);
    let dead: Vec<bool> = scope.imports.iter().map(|i| i.dead).collect();
    assert_eq!(dead, [false, true, true]);
}

#[test]
fn syntax_errors_keep_the_rest_of_the_file() {
    let src = "\
def ok(x):
    return helper(x)

def broken(:
    pass

class Fine:
    def m(self) -> int:
        return ok(1 +)
";
    let f = extract("pkg/broken.py", src.as_bytes());
    assert!(!f.diagnostics.is_empty());
    assert!(f.defs.iter().any(|d| d.name == "ok"));
    assert!(f.defs.iter().any(|d| d.name == "Fine"));
    assert!(f.ref_names.contains(&"helper".to_string()));
    // Garbage does not panic either.
    for junk in [
        "def",
        "class (",
        "import",
        "from . import",
        "@",
        "x = [",
        "\u{0}\u{1}",
    ] {
        let _ = extract("j.py", junk.as_bytes());
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let mut src = String::from("x = f(");
    src.push_str(&"1 + ".repeat(20_000));
    src.push_str("1)\ny = ");
    src.push_str(&"[".repeat(3_000));
    src.push_str(&"]".repeat(3_000));
    src.push_str("\ng()\n");
    let (_, _, refs) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || facts(&src))
        .unwrap()
        .join()
        .unwrap();
    assert!(refs
        .chains
        .iter()
        .any(|c| c.root == Root::Global("g".into())));
}

#[test]
fn columns_are_utf8_bytes() {
    let src = "s = \"héllo wörld\"; f()\nclass Café:\n    def naïve(self): g()\n";
    let (defs, _, refs) = facts(src);
    // `f` follows 2 two-byte characters: byte column 22, char column 20.
    assert!(refs.chains.iter().any(|c| c.pos
        == Pos {
            line: 1,
            column: 22
        }));
    assert_eq!(def(&defs, "Café").pos, Pos { line: 2, column: 7 });
    let m = def(&defs, "Café.naïve");
    assert_eq!(m.pos, Pos { line: 3, column: 9 });
    assert!(refs.chains.iter().any(|c| c.pos
        == Pos {
            line: 3,
            column: 23
        }));
}

#[test]
fn string_annotations_are_references() {
    let src = "def f(g: \"pkg.Gateway\") -> 'Result': ...\n";
    let (_, _, refs) = facts(src);
    let c = refs
        .chains
        .iter()
        .find(|c| c.root == Root::Global("pkg".into()))
        .unwrap();
    assert_eq!(
        c.pos,
        Pos {
            line: 1,
            column: 11
        }
    );
    assert_eq!(
        c.ops,
        [Op::Attr(
            "Gateway".into(),
            Pos {
                line: 1,
                column: 15
            }
        )]
    );
    assert!(refs
        .chains
        .iter()
        .any(|c| c.root == Root::Global("Result".into()) && c.pos.column == 29));
}

/// Parse vs. extraction time on a directory: `PYDIR=… cargo test --lib
/// extract::python::tests::timing -- --ignored --nocapture`.
#[test]
#[ignore]
fn timing() {
    let Ok(dir) = std::env::var("PYDIR") else {
        return;
    };
    let mut srcs = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "py") {
                srcs.push(std::fs::read(&p).unwrap());
            }
        }
    }
    let t = std::time::Instant::now();
    for s in &srcs {
        let _ = parse(s);
    }
    let parse_t = t.elapsed();
    let t = std::time::Instant::now();
    for s in &srcs {
        let _ = extract("x.py", s);
    }
    eprintln!(
        "{} files: parse {parse_t:?}, extract {:?}",
        srcs.len(),
        t.elapsed()
    );
}
