//! Resolution rules for Python, on small in-memory repositories.

use super::*;
use crate::extract::{self, Lang};
use crate::index::{analyze, Analyzed};
use crate::resolve::grade;

/// Every edge (except `contains`/`tests`) and unresolved site, one per line:
/// `calls a.f -> b.g @3:5 Import`.
fn edges(files: &[(&str, &str)]) -> Vec<String> {
    let analyzed: Vec<Analyzed> = files
        .iter()
        .map(|(p, s)| Analyzed {
            path: p.to_string(),
            lang: Lang::Python,
            facts: extract::extract(Lang::Python, p, s.as_bytes()),
        })
        .collect();
    let mut layout = Layout::default();
    for (p, _) in files {
        layout.files.insert(p.to_string());
    }
    let res = analyze(&analyzed, &layout);
    let world = World::new(
        analyzed
            .iter()
            .map(|a| crate::resolve::world_input(&a.path, a.lang, &a.facts))
            .collect(),
        &layout,
    );
    let mut out = Vec::new();
    for (fi, r) in res.iter().enumerate() {
        for e in &r.edges {
            if matches!(e.kind, EdgeKind::Contains | EdgeKind::Tests) {
                continue;
            }
            let site = e.site.unwrap();
            let _ = grade(e.strategy);
            out.push(format!(
                "{} {} -> {} @{}:{}:{} {:?}",
                e.kind.as_str(),
                world.key(e.src),
                world.key(e.dst),
                files[fi].0,
                site.line,
                site.column,
                e.strategy
            ));
        }
        for u in &r.unresolved {
            out.push(format!(
                "U {} {} @{}:{}:{} ({})",
                u.kind.as_str(),
                u.name,
                files[fi].0,
                u.site.line,
                u.site.column,
                u.reason
            ));
        }
    }
    out.sort();
    out
}

fn has(out: &[String], line: &str) -> bool {
    out.iter().any(|l| l == line)
}

#[track_caller]
fn assert_has(out: &[String], line: &str) {
    assert!(has(out, line), "missing `{line}` in:\n{}", out.join("\n"));
}

#[track_caller]
fn assert_none_to(out: &[String], needle: &str) {
    assert!(
        !out.iter().any(|l| l.contains(needle)),
        "unexpected `{needle}` in:\n{}",
        out.join("\n")
    );
}

#[test]
fn module_keys() {
    let mut layout = Layout::default();
    for f in [
        "src/shop/__init__.py",
        "src/shop/x.py",
        "src/shop/sub/__init__.pyi",
        "src/shop/sub/y.py",
        "tests/test_a.py",
        "a.py",
        "ns/pkg/__init__.py",
        "ns/pkg/m.py",
        "src/flask/__init__.py",
        "src/flask/sansio/app.py",
        "src/flask/sansio/deeper/x.py",
    ] {
        layout.files.insert(f.to_string());
    }
    assert_eq!(module_key("src/shop/x.py", &layout), "shop.x");
    assert_eq!(module_key("src/shop/__init__.py", &layout), "shop");
    assert_eq!(module_key("src/shop/sub/y.py", &layout), "shop.sub.y");
    assert_eq!(module_key("src/shop/sub/__init__.pyi", &layout), "shop.sub");
    assert_eq!(module_key("tests/test_a.py", &layout), "test_a");
    assert_eq!(module_key("a.py", &layout), "a");
    assert_eq!(module_key("a.pyi", &layout), "a");
    assert_eq!(module_key("ns/pkg/m.py", &layout), "pkg.m");
    // A directory without `__init__.py` inside a package is a namespace
    // package of it (flask 3.1's `flask/sansio/` was keyed `app`).
    assert_eq!(
        module_key("src/flask/sansio/app.py", &layout),
        "flask.sansio.app"
    );
    assert_eq!(
        module_key("src/flask/sansio/deeper/x.py", &layout),
        "flask.sansio.deeper.x"
    );
}

#[test]
fn bare_names_never_cross_modules_without_an_import() {
    let out = edges(&[
        ("a.py", "def helper(): ...\n"),
        ("b.py", "def run():\n    helper()\n"),
    ]);
    assert_none_to(&out, "a.helper");
}

#[test]
fn locals_shadow_and_class_bodies_do_not_leak() {
    let out = edges(&[(
        "m.py",
        "\
def validate(): ...
class S:
    def validate(self): ...
    def run(self, check):
        validate()
        self.validate()
    def other(self, validate):
        validate()
",
    )]);
    assert_has(&out, "calls m.S.run -> m.validate @m.py:5:9 Local");
    assert_has(&out, "calls m.S.run -> m.S.validate @m.py:6:14 SelfMember");
    assert_none_to(&out, "@m.py:8:9");
}

#[test]
fn imports_aliases_and_reexports() {
    let out = edges(&[
        ("shop/__init__.py", "from .pay.gw import Gateway\n"),
        ("shop/pay/__init__.py", ""),
        (
            "shop/pay/gw.py",
            "class Gateway:\n    def charge(self): ...\ndef make() -> Gateway: ...\n",
        ),
        (
            "app.py",
            "\
import shop.pay.gw
import shop.pay.gw as g2
from shop import Gateway
from shop.pay import gw as g3
shop.pay.gw.make()
g2.make().charge()
Gateway().charge()
g3.Gateway
",
        ),
    ]);
    assert_has(&out, "imports app -> shop.pay.gw @app.py:1:17 Import");
    assert_has(
        &out,
        "references app -> shop.pay.gw.Gateway @app.py:3:18 ReExport",
    );
    assert_has(&out, "imports app -> shop.pay.gw @app.py:4:22 Import");
    assert_has(&out, "calls app -> shop.pay.gw.make @app.py:5:13 Path");
    assert_has(&out, "calls app -> shop.pay.gw.make @app.py:6:4 Path");
    assert_has(
        &out,
        "calls app -> shop.pay.gw.Gateway.charge @app.py:6:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app -> shop.pay.gw.Gateway @app.py:7:1 ReExport",
    );
    assert_has(
        &out,
        "references app -> shop.pay.gw.Gateway @app.py:8:4 Path",
    );
    assert_has(
        &out,
        "references shop -> shop.pay.gw.Gateway @shop/__init__.py:1:21 Import",
    );
}

#[test]
fn relative_and_star_imports() {
    let out = edges(&[
        ("p/__init__.py", ""),
        ("p/a.py", "__all__ = ['f']\ndef f(): ...\ndef g(): ...\n"),
        ("p/sub/__init__.py", ""),
        (
            "p/sub/b.py",
            "from ..a import *\nfrom .. import a\nfrom . import c\nf()\ng()\na.g()\n",
        ),
        ("p/sub/c.py", ""),
    ]);
    assert_has(&out, "calls p.sub.b -> p.a.f @p/sub/b.py:4:1 Import");
    assert_none_to(&out, "@p/sub/b.py:5:1");
    assert_has(&out, "calls p.sub.b -> p.a.g @p/sub/b.py:6:3 Path");
    assert_has(&out, "imports p.sub.b -> p.a @p/sub/b.py:2:16 Import");
    assert_has(&out, "imports p.sub.b -> p.sub.c @p/sub/b.py:3:15 Import");
}

#[test]
fn receivers_typed_by_annotations_attributes_and_returns() {
    let out = edges(&[(
        "m.py",
        "\
from typing import Optional
class Base:
    def refund(self): ...
    def __enter__(self) -> 'Base': ...
class A(Base):
    def charge(self): ...
class B(Base):
    def charge(self): ...
    def refund(self):
        return super().refund()
def make():
    return B()
class Svc:
    def __init__(self, gw: Optional[A]):
        self.gw = gw
        self.other = make()
    def run(self, x: 'B'):
        self.gw.refund()
        self.other.charge()
        x.charge()
        y = A()
        y.charge()
        with B() as z:
            z.refund()
",
    )]);
    assert_has(
        &out,
        "calls m.B.refund -> m.Base.refund @m.py:10:24 SelfMember",
    );
    assert_has(
        &out,
        "calls m.Svc.run -> m.Base.refund @m.py:18:17 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Svc.run -> m.B.charge @m.py:19:20 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Svc.run -> m.B.charge @m.py:20:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Svc.run -> m.A.charge @m.py:22:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Svc.run -> m.Base.refund @m.py:24:15 TypedReceiver",
    );
    assert_has(&out, "extends m.A -> m.Base @m.py:5:9 Local");
}

#[test]
fn unknown_receivers_fall_back_to_member_candidates() {
    let mut methods = String::new();
    for i in 0..6 {
        methods.push_str(&format!("class C{i}:\n    def many(self): ...\n"));
    }
    methods.push_str("class D:\n    def twice(self): ...\nclass E:\n    def twice(self): ...\n");
    let out = edges(&[
        ("lib.py", &methods),
        (
            "use.py",
            "def f(x):\n    x.twice()\n    x.many()\n    x.nothing()\n",
        ),
    ]);
    assert_has(
        &out,
        "calls use.f -> lib.D.twice @use.py:2:7 Member { k: 2 }",
    );
    assert_has(
        &out,
        "calls use.f -> lib.E.twice @use.py:2:7 Member { k: 2 }",
    );
    assert_has(&out, "U calls many @use.py:3:7 (6 candidates)");
    assert_none_to(&out, "nothing");
}

#[test]
fn external_receivers_are_not_guessed() {
    let out = edges(&[
        ("lib.py", "class D:\n    def join(self): ...\n    def get(self): ...\n"),
        (
            "use.py",
            "import os\ndef f():\n    os.path.join('a')\n    ', '.join([])\n    d = {}\n    d.get(1)\n",
        ),
    ]);
    assert_none_to(&out, "lib.D");
}

#[test]
fn conditional_definitions_take_the_reachable_branch() {
    let out = edges(&[
        (
            "c.py",
            "import sys\nif sys.version_info >= (3, 8):\n    def f(): ...\nelse:\n    def f(): ...\n",
        ),
        ("u.py", "from c import f\nf()\n"),
    ]);
    assert_has(&out, "calls u -> c.f @u.py:2:1 Import");
    assert_none_to(&out, "c.f#2");
}

#[test]
fn a_star_import_in_reachable_code_comes_before_a_dead_one() {
    // trio's `_run.py`: after an `elif` pyright takes as true, the next
    // `elif`'s star import is dead, though it comes last.
    let src = "import sys\nif sys.platform == 'win32':\n    from w import *\nelif sys.platform == 'linux' or hasattr(sys, 'x'):\n    from e import *\nelif hasattr(sys, 'y'):\n    from k import *\n";
    let out = edges(&[
        ("w.py", "def wait(): ...\n"),
        ("e.py", "def wait(): ...\n"),
        ("k.py", "def wait(): ...\n"),
        ("run.py", src),
        ("u.py", "from run import wait\nwait()\n"),
    ]);
    assert_has(&out, "calls u -> e.wait @u.py:2:1 ReExport");
    assert_none_to(&out, "k.wait");
    assert_none_to(&out, "w.wait");
}

#[test]
fn a_read_of_an_unknown_receiver_is_no_method_where_classes_hold_that_attribute() {
    // sqlglot: `self._prev.text` is a `Token`'s attribute, not
    // `Expression.text()`; a call still guesses the method, and a property
    // stays a candidate for a read.
    let out = edges(&[
        (
            "m.py",
            "class Expression:\n    def text(self, key): ...\n    @property\n    def name(self): ...\n    @name.setter\n    def name(self, v): ...\nclass Token:\n    def __init__(self):\n        self.text = ''\n        self.name = ''\n",
        ),
        (
            "u.py",
            "def f(tok, e):\n    a = tok.text\n    b = e.text('x')\n    c = tok.name\n",
        ),
    ]);
    assert_none_to(&out, "m.Expression.text @u.py:2:");
    assert_has(
        &out,
        "calls u.f -> m.Expression.text @u.py:3:11 Member { k: 2 }",
    );
    assert_has(
        &out,
        "references u.f -> m.Expression.name @u.py:4:13 Member { k: 3 }",
    );
    assert_has(
        &out,
        "references u.f -> m.Expression.name#2 @u.py:4:13 Member { k: 3 }",
    );
}

#[test]
fn get_on_an_unknown_receiver_is_no_guess() {
    // `returns.args.get("is_table")`: a dict's `get` far more often than
    // the one in-repo class's (sqlglot's `Dialect.get`, 57 refuted).
    let out = edges(&[
        (
            "d.py",
            "class Dialect:\n    @classmethod\n    def get(cls, key): ...\n",
        ),
        ("u.py", "def f(e):\n    e.args.get('x')\n"),
    ]);
    assert_none_to(&out, "d.Dialect.get");
}

#[test]
fn fixtures_resolve_through_conftest() {
    let out = edges(&[
        (
            "tests/conftest.py",
            "import pytest\n@pytest.fixture\ndef user(): ...\ndef plain(): ...\n",
        ),
        ("tests/unit/test_u.py", "def test_x(user, plain): ...\n"),
    ]);
    assert_has(
        &out,
        "references test_u.test_x -> conftest.user @tests/unit/test_u.py:1:12 NameUnique",
    );
    assert_none_to(&out, "conftest.plain");
}

#[test]
fn aliases_hold_the_object_not_an_instance() {
    let out = edges(&[(
        "m.py",
        "\
class Gateway:
    def charge(self): ...
    @classmethod
    def create(cls) -> 'Gateway': ...
Alias = Gateway
def make():
    return Alias()
def run():
    Alias().charge()
    Alias.create().charge()
    make().charge()
",
    )]);
    assert_has(
        &out,
        "calls m.run -> m.Gateway.charge @m.py:9:13 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.run -> m.Gateway.create @m.py:10:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.run -> m.Gateway.charge @m.py:10:20 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.run -> m.Gateway.charge @m.py:11:12 TypedReceiver",
    );
}

#[test]
fn stdlib_list_is_sorted_for_binary_search() {
    assert!(
        STDLIB.windows(2).all(|w| w[0] < w[1]),
        "STDLIB must stay sorted"
    );
    assert!(STDLIB.binary_search(&"os").is_ok());
    assert!(STDLIB.binary_search(&"shop").is_err());
    assert!(
        COMMON_BUILTIN_METHODS.windows(2).all(|w| w[0] < w[1]),
        "COMMON_BUILTIN_METHODS must stay sorted"
    );
    // Each is a builtin's method too (it counts among a guess's candidates).
    for m in COMMON_BUILTIN_METHODS {
        assert!(BUILTIN_METHODS.contains(m), "{m} is no builtin method");
    }
}

#[test]
fn leading_components_of_a_path() {
    assert_eq!(leading("a/b/c", 0), "");
    assert_eq!(leading("a/b/c", 2), "a/b");
    assert_eq!(leading("a/b/c", 3), "a/b/c");
    assert_eq!(leading("a", 1), "a");
}

#[test]
fn bases_across_files_and_through_packages_resolve_when_first_asked() {
    // Bases are computed per file when a class is first looked at: a base
    // imported through a package `__init__`, and a chain of bases spread
    // over three files, reach the method at the top.
    let out = edges(&[
        ("pkg/__init__.py", "from pkg.base import Base\n"),
        ("pkg/base.py", "class Base:\n    def ping(self):\n        return 1\n"),
        ("pkg/mid.py", "from pkg import Base\n\nclass Mid(Base):\n    pass\n"),
        (
            "app.py",
            "from pkg.mid import Mid\n\nclass Top(Mid):\n    def run(self):\n        return self.ping()\n",
        ),
    ]);
    assert_has(
        &out,
        "calls app.Top.run -> pkg.base.Base.ping @app.py:5:21 SelfMember",
    );
}

#[test]
fn declarations_along_the_mro_come_before_assigned_attributes() {
    // Regression (flask): `self.debug = …` in a subclass hid the base's
    // `debug` property, so no `self.debug` of the subclass had an edge.
    let out = edges(&[(
        "m.py",
        "\
class Base:
    @property
    def debug(self) -> bool: ...
    @debug.setter
    def debug(self, v): ...
    def log(self): ...
class App(Base):
    def run(self):
        self.debug = True
        self.log = None
        return self.debug
    def go(self):
        self.log()
",
    )]);
    assert_has(
        &out,
        "references m.App.run -> m.Base.debug @m.py:11:21 SelfMember",
    );
    assert_has(
        &out,
        "references m.App.run -> m.Base.debug @m.py:9:14 SelfMember",
    );
    assert_has(&out, "calls m.App.go -> m.Base.log @m.py:13:14 SelfMember");
}

#[test]
fn strings_in_type_expressions_outside_annotations_are_names() {
    // Regression (httpx, rich, click): forward references in type aliases,
    // `TypeVar(bound=…)` and `cast(…)` had no edges.
    let out = edges(&[(
        "m.py",
        "\
import typing as t
from typing import Union, TypeVar, cast, Literal
class Client:
    def send(self): ...
class URL: ...
URLTypes = Union[\"URL\", str]
T = TypeVar(\"T\", bound=\"Client\")
Mode = Literal[\"URL\"]
Pair = t.Dict[\"URL\", t.Callable[[\"Client\"], None]]
def f(x):
    c = cast(\"Client\", x)
    c.send()
    d = t.cast(Client, x)
    d.send()
",
    )]);
    assert_has(&out, "references m -> m.URL @m.py:6:19 Local");
    assert_has(&out, "references m -> m.Client @m.py:7:25 Local");
    assert_has(&out, "references m -> m.URL @m.py:9:16 Local");
    assert_has(&out, "references m -> m.Client @m.py:9:35 Local");
    assert_has(&out, "references m.f -> m.Client @m.py:11:15 Local");
    assert_has(&out, "calls m.f -> m.Client.send @m.py:12:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Client.send @m.py:14:7 TypedReceiver");
    assert_none_to(&out, "@m.py:8:");
}

#[test]
fn type_expressions_in_strings_name_every_name() {
    // Regression (click, attrs): `"ProgressBar[V]"`, `"Optional['Ctx']"`.
    let out = edges(&[(
        "m.py",
        "\
from typing import Generic, Literal, Optional, TypeVar
V = TypeVar(\"V\")
class Bar(Generic[V]):
    def update(self): ...
class Ctx: ...
def make() -> \"Bar[V]\": ...
def get(c: \"Optional['Ctx']\", m: \"Literal['Ctx']\"): ...
def run():
    make().update()
",
    )]);
    assert_has(&out, "references m.make -> m.Bar @m.py:6:16 Local");
    assert_has(&out, "references m.get -> m.Ctx @m.py:7:23 Local");
    assert_has(&out, "calls m.run -> m.Bar.update @m.py:9:12 TypedReceiver");
    assert_none_to(&out, "@m.py:7:43");
}

#[test]
fn literals_and_object_attributes_are_builtins() {
    // Regression (httpx, rich, flask): `self.__dict__.items()`,
    // `self.VARIANTS.get(…)` on a class-level dict and `.keys()` of an
    // imported module-level dict were guessed as in-repo methods.
    let out = edges(&[
        ("a.py", "DECODERS = {\"gzip\": 1}\n"),
        (
            "m.py",
            "\
from a import DECODERS
class Box:
    VARIANTS = {\"text\": 1}
    def __init__(self):
        self.inner = None
        self.inner = Box()
    def get(self): ...
    def keys(self): ...
    def items(self): ...
    def run(self):
        self.__dict__.items()
        self.VARIANTS.get(\"text\")
        DECODERS.keys()
        self.inner.get()
",
        ),
    ]);
    assert_none_to(&out, "@m.py:11:");
    assert_none_to(&out, "@m.py:12:");
    assert_none_to(&out, "@m.py:13:");
    // A literal first, an instance later: the instance's type.
    assert_has(
        &out,
        "calls m.Box.run -> m.Box.get @m.py:14:20 TypedReceiver",
    );
}

#[test]
fn attributes_assigned_from_a_member_of_an_annotated_parameter() {
    // Regression (jinja2): `self.stream = environment._tokenize(…)` with
    // `environment: "Environment"` left `self.stream` untyped, and every
    // `self.stream.current` was guessed as `Cycler.current`, a property.
    let out = edges(&[(
        "m.py",
        "\
class Stream:
    def __init__(self):
        self.current = 1
    def skip(self): ...
class Cycler:
    @property
    def current(self): ...
class Env:
    def tokenize(self) -> Stream: ...
class Parser:
    def __init__(self, env: \"Env\"):
        self.stream = env.tokenize()
    def parse(self):
        self.stream.skip()
        return self.stream.current
",
    )]);
    assert_has(
        &out,
        "calls m.Parser.parse -> m.Stream.skip @m.py:14:21 TypedReceiver",
    );
    assert_none_to(&out, "-> m.Cycler.current");
}

#[test]
fn comments_in_a_parameter_list_are_not_parameters() {
    // Regression (werkzeug): `def update(  # type: ignore[override]` made
    // the comment the first parameter, so `self` was an ordinary
    // parameter of unknown type and `self.add(…)` a guess among every
    // `add` (9 candidates: unresolved).
    let out = edges(&[(
        "m.py",
        "\
class Multi:
    def add(self): ...
    def update(  # type: ignore[override]
        self,
        other,
    ):
        self.add()
class Other:
    def add(self): ...
    def gone(self): ...
class Sub(  # a comment among the bases is no base
    Multi,
):
    def run(self):
        self.gone()
",
    )]);
    assert_has(
        &out,
        "calls m.Multi.update -> m.Multi.add @m.py:7:14 SelfMember",
    );
    assert_none_to(&out, "-> m.Other.add");
    // Every base is in the repository: `gone` is on no class of the MRO.
    assert_has(&out, "U calls gone @m.py:15:14 (not found on type)");
}

#[test]
fn class_body_names_bound_later_in_the_class_read_the_enclosing_scope() {
    // Regression (werkzeug): `json_module = json` above the class's own
    // `def json` is the imported module, and `set[str]` in a method
    // signature above the class's `def set` is the builtin; both were
    // syntactic edges to the class's members.
    let out = edges(&[
        ("helpers.py", "def check(): ...\n"),
        (
            "m.py",
            "\
import helpers
from helpers import check
class Request:
    mod = helpers
    def add(self, items: set[str], f=check) -> None: ...
    def set(self): ...
    def helpers(self): ...
    def check(self): ...
    again = check
    def prop(self): ...
    @prop.setter
    def prop(self, v): ...
",
        ),
    ]);
    assert_none_to(&out, "-> m.Request.helpers");
    assert_none_to(&out, "-> m.Request.set");
    assert_has(
        &out,
        "references m.Request.add -> helpers.check @m.py:5:38 Import",
    );
    // After the binding, the class's own name.
    assert_has(
        &out,
        "references m.Request -> m.Request.check @m.py:9:13 Local",
    );
    assert_has(
        &out,
        "references m.Request.prop#2 -> m.Request.prop @m.py:11:6 Local",
    );
}

#[test]
fn conditional_and_or_values_type_a_variable_when_they_agree() {
    // Regression (starlette): `self.routes = [] if routes is None else
    // list(routes)` left the attribute untyped, and `self.routes.append`
    // was guessed as an in-repo `append`.
    let out = edges(&[(
        "m.py",
        "\
class Multi:
    def append(self): ...
    def run(self): ...
class Other:
    def run(self): ...
class Router:
    def __init__(self, routes, m, n):
        self.routes = [] if routes is None else list(routes)
        self.multi = m or Multi()
        self.mixed = Multi() if m else Other()
    def go(self, flag):
        self.routes.append(1)
        self.multi.run()
        self.mixed.run()
        local = Multi() if flag else None
        local.run()
        paren = (
            Multi() if flag else None
        )
        paren.run()
",
    )]);
    assert_none_to(&out, "@m.py:12:");
    // `m` is of unknown type and `Multi()` a Multi: no agreement, a guess.
    assert_has(
        &out,
        "calls m.Router.go -> m.Multi.run @m.py:13:20 Member { k: 2 }",
    );
    assert_has(
        &out,
        "calls m.Router.go -> m.Other.run @m.py:14:20 Member { k: 2 }",
    );
    assert_has(
        &out,
        "calls m.Router.go -> m.Multi.run @m.py:16:15 TypedReceiver",
    );
    assert_none_to(&out, "-> m.Other.run @m.py:16:");
    // The same in parentheses (written over several lines).
    assert_has(
        &out,
        "calls m.Router.go -> m.Multi.run @m.py:20:15 TypedReceiver",
    );
    assert_none_to(&out, "-> m.Other.run @m.py:20:");
}

#[test]
fn unpacking_a_literal_sequence_types_each_target() {
    // `a, b = (A(), B())` made both targets external (a tuple's parts),
    // and `a, b = A(), B()` left them unknown.
    let out = edges(&[(
        "m.py",
        "\
class A:
    def run(self): ...
class B:
    def run(self): ...
def f():
    a, b = (A(), B())
    a.run()
    c, d = A(), B()
    d.run()
    [e, g] = [B(), A()]
    g.run()
    h, *rest = A(), B()
    h.run()
",
    )]);
    assert_has(&out, "calls m.f -> m.A.run @m.py:7:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.B.run @m.py:9:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.A.run @m.py:11:7 TypedReceiver");
    assert_none_to(&out, "-> m.B.run @m.py:7:");
    assert_none_to(&out, "-> m.A.run @m.py:9:");
    // A starred target: not item by item (a guess between the two).
    assert_has(&out, "calls m.f -> m.B.run @m.py:13:7 Member { k: 2 }");
}

#[test]
fn subscripted_type_aliases_hold_the_type_they_name() {
    // Regression (starlette): `Scope = typing.MutableMapping[str,
    // typing.Any]` in `types.py` left every `scope: Scope` parameter
    // untyped, and `scope.update(…)` was guessed as an in-repo `update`.
    let out = edges(&[
        (
            "types.py",
            "\
import typing
from typing import Optional
from node import Node
Scope = typing.MutableMapping[str, typing.Any]
MaybeNode = Optional[Node]
IntNode = Node[int]
NODES: list[Node] = []
FIRST = NODES[0]
",
        ),
        (
            "node.py",
            "\
class Node:
    def update(self): ...
    def run(self): ...
",
        ),
        (
            "app.py",
            "\
from types import Scope, MaybeNode, IntNode, FIRST
def handle(scope: Scope, n: MaybeNode, g: IntNode):
    scope.update()
    n.run()
    g.run()
    FIRST.run()
",
        ),
    ]);
    assert_none_to(&out, "@app.py:3:");
    assert_has(
        &out,
        "calls app.handle -> node.Node.run @app.py:4:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app.handle -> node.Node.run @app.py:5:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app.handle -> node.Node.run @app.py:6:11 TypedReceiver",
    );
}

#[test]
fn type_comments_name_their_types() {
    // Regression (marshmallow): `opts = None  # type: SchemaOpts` and
    // `self.fields = {}  # type: dict[str, ma_fields.Field]` are
    // references pyright reports (PEP 484 type comments).
    let out = edges(&[
        ("fields.py", "class Field: ...\n"),
        (
            "m.py",
            "\
import fields as ma_fields
class Opts: ...
class Schema:
    opts = None  # type: Opts
    def __init__(self):
        self.fields = {}  # type: dict[str, ma_fields.Field]
        self.other = 1  # type: ignore[assignment]
        self.last = []  # type: list[Opts]
x = 1 # type:Opts
",
        ),
    ]);
    assert_has(&out, "references m.Schema -> m.Opts @m.py:4:26 Local");
    assert_has(
        &out,
        "references m.Schema.__init__ -> fields.Field @m.py:6:55 Path",
    );
    assert_has(
        &out,
        "references m.Schema.__init__ -> m.Opts @m.py:8:38 Local",
    );
    assert_has(&out, "references m -> m.Opts @m.py:9:14 Local");
}

#[test]
fn builtin_copies_of_a_typed_sequence_keep_its_elements() {
    // Regression (starlette): `self.routes = [] if routes is None else
    // list(routes)` with `routes: Sequence[BaseRoute] | None` holds
    // BaseRoutes; `for route in self.routes: route.matches()` is
    // BaseRoute.matches.
    let out = edges(&[(
        "m.py",
        "\
import typing
class BaseRoute:
    def matches(self): ...
class Other:
    def matches(self): ...
class Router:
    def __init__(self, routes: typing.Sequence[BaseRoute] | None = None):
        self.routes = [] if routes is None else list(routes)
    def go(self):
        for route in self.routes:
            route.matches()
",
    )]);
    assert_has(
        &out,
        "calls m.Router.go -> m.BaseRoute.matches @m.py:11:19 TypedReceiver",
    );
    assert_none_to(&out, "-> m.Other.matches");
}

#[test]
fn importers_pass_over_declarations_in_except_clauses() {
    // Regression (starlette): `_compat.md5_hexdigest` is defined in a
    // `try:` body and again in its `except TypeError:`; an importer's
    // name is the first (pyright skips declarations in except clauses
    // when there are others). With `try: from functools import
    // cached_property` / `except ImportError: class cached_property`, the
    // import wins: no in-repo edge.
    let out = edges(&[
        (
            "compat.py",
            "\
try:
    def md5(data): ...
except TypeError:
    def md5(data): ...
try:
    from functools import cached_property
except ImportError:
    class cached_property: ...
try:
    import simplejson
except ImportError:
    def only_fallback(): ...
md5(1)
",
        ),
        (
            "app.py",
            "\
from compat import md5, cached_property, only_fallback
import compat
md5(1)
cached_property()
only_fallback()
compat.md5(2)
",
        ),
    ]);
    assert_has(&out, "calls app -> compat.md5 @app.py:3:1 Import");
    assert_has(&out, "calls app -> compat.md5 @app.py:6:8 Path");
    assert_none_to(&out, "-> compat.md5#2 @app.py");
    assert_none_to(&out, "-> compat.cached_property");
    assert_has(&out, "calls app -> compat.only_fallback @app.py:5:1 Import");
    // Inside the module, code flow reaches both: the last one, as before.
    assert_has(&out, "calls compat -> compat.md5#2 @compat.py:13:1 Local");
}

#[test]
fn a_module_attribute_is_a_fallback_definition_over_an_import_in_try() {
    // Regression (httpx): `try: from ._main import main` / `except
    // ImportError: def main()`. pyright's `httpx.main` is the def (11
    // sites retargeted), while `from httpx import main` is still the
    // import; two defs still give the one outside the except clause.
    let out = edges(&[
        ("pkg/_m.py", "def main(): ...\nclass Cached: ...\n"),
        (
            "pkg/__init__.py",
            "\
try:
    from ._m import main
except ImportError:
    def main(): ...
try:
    from ._m import Cached
except ImportError:
    class Cached: ...
try:
    def md5(data): ...
except TypeError:
    def md5(data): ...
",
        ),
        (
            "app.py",
            "\
import pkg
from pkg import main
pkg.main()
main()
pkg.Cached()
pkg.md5(1)
",
        ),
    ]);
    assert_has(&out, "calls app -> pkg.main @app.py:3:5 Path");
    assert_has(&out, "calls app -> pkg._m.main @app.py:4:1 ReExport");
    assert_has(&out, "calls app -> pkg.Cached @app.py:5:5 Path");
    assert_none_to(&out, "-> pkg._m.Cached @app.py");
    assert_has(&out, "calls app -> pkg.md5 @app.py:6:5 Path");
}

#[test]
fn unpacked_parts_of_a_tuple_are_builtins_and_of_a_sequence_its_elements() {
    // Regression (starlette): `self.path_regex, self.path_format,
    // self.param_convertors = compile_path(path)` with `compile_path`
    // returning `tuple[Pattern[str], str, dict[str, Convertor]]` left the
    // attributes untyped; `self.param_convertors.keys()` and
    // `matched_params.items()` were guessed as in-repo methods.
    let out = edges(&[(
        "m.py",
        "\
import typing
class Headers:
    def keys(self): ...
    def items(self): ...
    def run(self): ...
def compile_path(p) -> tuple[typing.Pattern[str], str, dict[str, int]]: ...
def many() -> list[Headers]: ...
class Route:
    def __init__(self, path):
        self.regex, self.fmt, self.convertors = compile_path(path)
    def go(self):
        self.convertors.keys()
        a, b = compile_path(1)
        b.items()
        first, second = many()
        first.run()
",
    )]);
    assert_none_to(&out, "@m.py:12:");
    assert_none_to(&out, "@m.py:14:");
    assert_has(
        &out,
        "calls m.Route.go -> m.Headers.run @m.py:16:15 TypedReceiver",
    );
}

#[test]
fn a_variable_assigned_from_itself_keeps_its_other_sources_type() {
    // Regression (werkzeug `_find_common_roots`): `node = root` (a dict),
    // then `node = node.setdefault(chunk, {})` in a loop. Evaluating the
    // site `node.setdefault` first met the variable through the site's
    // own chain, which did not count as a cycle: `node` became unknown
    // and `node.clear()` a guess among in-repo `clear` methods.
    let out = edges(&[(
        "m.py",
        "\
import typing as t
class D:
    def clear(self): ...
    def child(self) -> \"D\": ...
def f(paths):
    root: dict[str, dict[str, t.Any]] = {}
    for chunks in paths:
        node = root
        for chunk in chunks:
            node = node.setdefault(chunk, {})
        node.clear()
    tree = D()
    while tree:
        tree = tree.child()
    tree.clear()
",
    )]);
    assert_none_to(&out, "@m.py:11:");
    assert_has(&out, "calls m.f -> m.D.clear @m.py:15:10 TypedReceiver");
}

#[test]
fn only_a_typevar_the_receiver_is_annotated_with_is_the_receiver() {
    // Regression (werkzeug): `ImmutableDict.copy(self) -> dict[K, V]`
    // with `V = TypeVar("V")` was taken for `-> Self`, so
    // `self.converters = self.default_converters.copy()` was an
    // ImmutableDict and `self.converters.update(…)` a wrong 0.8 edge.
    let out = edges(&[(
        "m.py",
        "\
import typing as t
K = t.TypeVar(\"K\")
V = t.TypeVar(\"V\")
T = t.TypeVar(\"T\", bound=\"Box\")
class Box(dict[K, V]):
    def copy(self) -> dict[K, V]: ...
    def first(self) -> V: ...
    def __enter__(self: T) -> T: ...
    @classmethod
    def make(cls: type[T]) -> T: ...
    def update(self): ...
def run(b: Box):
    b.copy().update()
    b.first().update()
    b.__enter__().update()
    Box.make().update()
",
    )]);
    // A builtin dict: nothing to guess.
    assert_none_to(&out, "@m.py:13:14");
    // V is whatever the box holds: a guess, not the box itself.
    assert_has(
        &out,
        "calls m.run -> m.Box.update @m.py:14:15 Member { k: 2 }",
    );
    assert_has(
        &out,
        "calls m.run -> m.Box.update @m.py:15:19 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.run -> m.Box.update @m.py:16:16 TypedReceiver",
    );
}

#[test]
fn unions_with_builtins_are_their_one_other_part() {
    // Regression (werkzeug, starlette): `value: ContentRange | str | None`
    // then `value.to_header()` is ContentRange.to_header for pyright (a
    // str has no such member), and `src: bytes | bytearray` is a builtin;
    // both were untyped: unresolved among 11 candidates, and a wrong
    // guess of `WebSocketEndpoint.decode`.
    let out = edges(&[(
        "m.py",
        "\
import typing as t
class ContentRange:
    def to_header(self): ...
class Endpoint:
    def decode(self): ...
class Other:
    def to_header(self): ...
def set_range(value: ContentRange | str | None, src: bytes | bytearray):
    value.to_header()
    src.decode()
def both(a: ContentRange | Other, b: t.Union[int, ContentRange, None]):
    a.to_header()
    b.to_header()
",
    )]);
    assert_has(
        &out,
        "calls m.set_range -> m.ContentRange.to_header @m.py:9:11 TypedReceiver",
    );
    assert_none_to(&out, "@m.py:10:");
    // Two in-repo classes: each one's, as pyright answers (see
    // `unions_of_classes_answer_each_part`).
    for class in ["ContentRange", "Other"] {
        assert_has(
            &out,
            &format!("calls m.both -> m.{class}.to_header @m.py:12:7 TypedReceiver"),
        );
    }
    assert_has(
        &out,
        "calls m.both -> m.ContentRange.to_header @m.py:13:7 TypedReceiver",
    );
}

#[test]
fn elif_and_else_branches_know_the_conditions_above_were_false() {
    // Regression (starlette schemas.py): after `elif not isinstance(route,
    // Route) or not route.include_in_schema: continue`, the next `elif`
    // and the `else` read members of a Route; `route` stayed a BaseRoute
    // ('not found on type').
    let out = edges(&[(
        "m.py",
        "\
class BaseRoute: ...
class Route(BaseRoute):
    def run(self): ...
class Mount(BaseRoute):
    def run(self): ...
def f(route: BaseRoute, flag):
    if flag:
        pass
    elif not isinstance(route, Route) or not flag:
        pass
    elif flag:
        route.run()
    else:
        route.run()
    if isinstance(route, Mount):
        pass
    else:
        route.run()
    if not isinstance(route, Mount):
        pass
    else:
        route.run()
",
    )]);
    assert_has(&out, "calls m.f -> m.Mount.run @m.py:22:15 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Route.run @m.py:12:15 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Route.run @m.py:14:15 TypedReceiver");
    // `not a Mount` says nothing we can use: still a BaseRoute.
    assert_has(&out, "U calls run @m.py:18:15 (not found on type)");
}

#[test]
fn narrowing_reaches_into_comprehensions() {
    // Regression (httpx Headers.__init__): `elif isinstance(headers,
    // Mapping): [… for k, v in headers.items()]` is a Mapping's `items`
    // inside the comprehension too; the comprehension saw the parameter's
    // annotated type (Headers) and made a wrong 0.8 edge.
    let out = edges(&[(
        "m.py",
        "\
from typing import Mapping
class Headers:
    def items(self): ...
def f(headers: Headers | None, rows):
    if isinstance(headers, Mapping):
        a = [k for k, v in headers.items()]
        b = [headers.items() for headers in rows]
",
    )]);
    assert_none_to(&out, "@m.py:6:36");
    // The comprehension's own `headers` is another variable: not narrowed
    // (a receiver of unknown type, where `items` is a builtin's name).
    assert_has(
        &out,
        "U calls items @m.py:7:22 (unknown receiver, common method name)",
    );
}

#[test]
fn overloaded_functions_return_what_their_overloads_agree_on() {
    // Regression (tomlkit tests): `item(v)` has an `@overload` per
    // argument type (`-> Integer`, `-> Array`, …) and an implementation
    // `-> Item`; `item(34).as_string()` was Item.as_string at 0.8, where
    // pyright picks the overload (Integer.as_string): 80 retargeted sites.
    // Callers never see the implementation's signature.
    let out = edges(&[(
        "m.py",
        "\
from typing import overload
import typing as t
class Item:
    def as_string(self): ...
class Integer(Item):
    def as_string(self): ...
class Array(Item):
    def as_string(self): ...
@overload
def item(value: int) -> Integer: ...
@overload
def item(value: list) -> Array: ...
def item(value) -> Item: ...
@t.overload
def same(value: int) -> Item: ...
@t.overload
def same(value: str) -> Item: ...
def same(value): ...
class Group:
    @overload
    def get(self, k: int) -> Integer: ...
    @overload
    def get(self, k: str) -> Array: ...
    def get(self, k) -> Item: ...
def run(g: Group):
    item(34).as_string()
    same(1).as_string()
    g.get(1).as_string()
",
    )]);
    // Overloads that disagree: not the implementation's Item.
    assert_none_to(&out, "-> m.Item.as_string @m.py:26:14 TypedReceiver");
    assert_none_to(&out, "-> m.Item.as_string @m.py:28:14 TypedReceiver");
    assert_has(
        &out,
        "calls m.run -> m.Integer.as_string @m.py:26:14 Member { k: 3 }",
    );
    assert_has(
        &out,
        "calls m.run -> m.Array.as_string @m.py:28:14 Member { k: 3 }",
    );
    // Overloads that agree: their type.
    assert_has(
        &out,
        "calls m.run -> m.Item.as_string @m.py:27:13 TypedReceiver",
    );
}

#[test]
fn enumerate_and_zip_unpack_to_the_elements_of_their_arguments() {
    // Regression (rich table.py): `for _range, column in
    // zip(width_ranges, columns)` and `for index, column in
    // enumerate(columns)` with `columns: list[Column]` left `column` a
    // builtin: `column.flexible` had no edge (pyright: Column.flexible).
    let out = edges(&[(
        "m.py",
        "\
from typing import Dict, List
class Column:
    def flexible(self): ...
class Row:
    def flexible(self): ...
def f(columns: List[Column], rows: List[Row], named: Dict[str, Column]):
    for index, column in enumerate(columns):
        column.flexible()
    for row, column in zip(rows, columns):
        row.flexible()
        column.flexible()
    a = [c.flexible() for _, c in enumerate(columns)]
    for i, (name, col) in enumerate(named.items()):
        col.flexible()
    for i, x in enumerate([1, 2]):
        x.flexible()
",
    )]);
    assert_has(
        &out,
        "calls m.f -> m.Column.flexible @m.py:8:16 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Row.flexible @m.py:10:13 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Column.flexible @m.py:11:16 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Column.flexible @m.py:12:12 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Column.flexible @m.py:14:13 TypedReceiver",
    );
    // A literal's elements are builtins.
    assert_none_to(&out, "@m.py:16:");
}

#[test]
fn the_right_operand_of_and_or_knows_the_left_ones_isinstance() {
    // Regression (tomlkit container.py): `return isinstance(item, AoT) and
    // not item.body` and `isinstance(previous_item, Table) and
    // previous_item.is_super_table()` read members of the narrowed class;
    // the item stayed an Item ('not found on type').
    let out = edges(&[(
        "m.py",
        "\
class Item: ...
class AoT(Item):
    def body(self): ...
class Table(Item):
    def is_super(self): ...
def f(item: Item, other: Item):
    a = isinstance(item, AoT) and item.body()
    if isinstance(other, Table) and other.is_super():
        pass
    b = not isinstance(item, Table) or item.is_super()
    c = isinstance(item, Table) or item.is_super()
    d = item.is_super() if isinstance(item, Table) else other.is_super()
    print(item.is_super() if isinstance(item, Table) else None)
",
    )]);
    assert_has(&out, "calls m.f -> m.AoT.body @m.py:7:40 TypedReceiver");
    assert_has(
        &out,
        "calls m.f -> m.Table.is_super @m.py:8:43 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Table.is_super @m.py:10:45 TypedReceiver",
    );
    // `or` after a true isinstance: the item is no Table there.
    assert_has(&out, "U calls is_super @m.py:11:41 (not found on type)");
    // `x if isinstance(…) else y`.
    assert_has(
        &out,
        "calls m.f -> m.Table.is_super @m.py:12:14 TypedReceiver",
    );
    assert_has(&out, "U calls is_super @m.py:12:63 (not found on type)");
    assert_has(
        &out,
        "calls m.f -> m.Table.is_super @m.py:13:16 TypedReceiver",
    );
}

#[test]
fn fixed_size_tuples_keep_the_type_of_each_part() {
    // Regression (tomlkit container.py): `self._body: list[tuple[Key |
    // None, Item]]`, then `for k, v in self._body: k.is_dotted()`,
    // `self._body[i][1].trivia` and `def body(self) -> list[tuple[…]]`
    // left every part a builtin (the tuple's): 60 sites pyright knows had
    // no edge.
    let out = edges(&[(
        "m.py",
        "\
from typing import Tuple
class Key:
    def is_dotted(self): ...
class Item:
    def trivia(self): ...
def pair() -> Tuple[Key, Item]: ...
class Container:
    def __init__(self):
        self._body: list[tuple[Key | None, Item]] = []
    @property
    def body(self) -> list[tuple[Key | None, Item]]:
        return self._body
    def run(self, c: \"Container\"):
        for k, v in self._body:
            k.is_dotted()
            v.trivia()
        self._body[0][1].trivia()
        for i, (k2, v2) in enumerate(c.body):
            v2.trivia()
        a, b = pair()
        a.is_dotted()
        b.trivia()
        pair()[1].trivia()
        for kv in self._body:
            kv[0].is_dotted()
        stack: list[tuple[int, Key]] = []
        _, top = stack.pop()
        top.is_dotted()
        got = c.get()
        assert isinstance(got, Key)
        got.is_dotted()
    def get(self) -> Item: ...
",
    )]);
    assert_has(
        &out,
        "calls m.Container.run -> m.Key.is_dotted @m.py:15:15 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Item.trivia @m.py:16:15 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Item.trivia @m.py:17:26 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Item.trivia @m.py:19:16 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Key.is_dotted @m.py:21:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Item.trivia @m.py:22:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Item.trivia @m.py:23:19 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Container.run -> m.Key.is_dotted @m.py:25:19 TypedReceiver",
    );
    // A local annotated with a tuple type.
    assert_has(
        &out,
        "calls m.Container.run -> m.Key.is_dotted @m.py:28:13 TypedReceiver",
    );
    // `assert isinstance(x, C)` narrows below.
    assert_has(
        &out,
        "calls m.Container.run -> m.Key.is_dotted @m.py:31:13 TypedReceiver",
    );
}

#[test]
fn type_checking_through_a_module_alias_is_a_static_condition() {
    // Regression (click types.py): `if t.TYPE_CHECKING: class InfoDict(…)
    // else: class InfoDict(…)` with `import typing as t`; the `else` was
    // taken for reachable and its definition (`InfoDict#2`) named by the
    // annotations below, where pyright names the first.
    let out = edges(&[(
        "m.py",
        "\
import typing as t
if t.TYPE_CHECKING:
    class InfoDict: ...
else:
    class InfoDict: ...
def info() -> InfoDict: ...
",
    )]);
    assert_has(&out, "references m.info -> m.InfoDict @m.py:6:15 Local");
    assert_none_to(&out, "-> m.InfoDict#2");
}

#[test]
fn a_stub_beside_a_module_is_what_its_importers_reach() {
    let out = edges(&[
        ("pkg/_impl.py", "def define(cls):\n    return cls\n"),
        ("pkg/__init__.py", "from ._impl import define\n"),
        ("pkg/__init__.pyi", "def define(cls): ...\n"),
        (
            "app.py",
            "import pkg\nfrom pkg import define\n\n@pkg.define\nclass A: ...\n\ndefine(A)\n",
        ),
    ]);
    assert_has(&out, "references app.A -> pkg.define @app.py:4:6 Path");
    assert_has(&out, "references app -> pkg.define @app.py:2:17 Import");
    assert_has(&out, "calls app -> pkg.define @app.py:7:1 Import");
    assert_none_to(&out, "pkg._impl.define @app.py");
}

#[test]
fn a_decorated_function_is_what_its_decorators_make_of_it() {
    // click: `@click.group()` makes `cli` a `Group` (the overload pyright
    // picks returns `Callable[[F], Group]`, another `Group` itself), and
    // `@cli.command()` a `Command`; `@click.option(…)` gives back what it
    // is given (`Callable[[FC], FC]`), so the decorator above it decides.
    // A decorator declaring nothing leaves the function a function.
    let out = edges(&[
        (
            "pkg/core.py",
            "import typing as t
F = t.TypeVar(\"F\")
G = t.TypeVar(\"G\", bound=\"Group\")
class Command:
    def invoke(self): pass
class Group(Command):
    @t.overload
    def command(self, __func: t.Callable[..., t.Any]) -> Command: ...
    @t.overload
    def command(self, *args: t.Any) -> t.Callable[[t.Callable[..., t.Any]], Command]: ...
    def command(self, *args):
        pass
    def add_command(self, cmd): pass
@t.overload
def group(name: t.Callable) -> Group: ...
@t.overload
def group(name: str, cls: t.Type[G]) -> t.Callable[[F], G]: ...
@t.overload
def group(name: str = None) -> t.Callable[[F], Group]: ...
def group(name=None, cls=None):
    pass
def option(*decls: str) -> t.Callable[[F], F]:
    pass
def plain(f):
    return f
",
        ),
        (
            "app.py",
            "from pkg import core
@core.group()
def cli():
    pass
@cli.command()
@core.option(\"--n\")
def run(n):
    pass
@core.plain
def other():
    pass
cli.add_command(run)
run.invoke()
other.invoke()
def test_nested():
    @core.group()
    def local():
        pass
    @local.command()
    def sub():
        pass
    local.add_command(sub)
    sub.invoke()
class Aliased(core.Group):
    def resolve(self): pass
@core.group(cls=Aliased)
def custom():
    pass
custom.resolve()
",
        ),
    ]);
    assert_has(
        &out,
        "calls app.run -> core.Group.command @app.py:5:6 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app -> core.Group.add_command @app.py:12:5 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app -> core.Command.invoke @app.py:13:5 TypedReceiver",
    );
    assert_has(&out, "references app -> app.run @app.py:12:17 Local");
    assert_none_to(&out, "@app.py:14:7");
    // In a function body too; `@local.command()` under a local `local` is
    // not looked up in the module, so `sub` stays a function.
    assert_has(
        &out,
        "calls app.test_nested.sub -> core.Group.command @app.py:19:12 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app.test_nested -> core.Group.add_command @app.py:22:11 TypedReceiver",
    );
    assert_none_to(&out, "@app.py:23:9");
    // `cls=` is the class a TypeVar return (`-> Callable[[F], G]`) stands for.
    assert_has(
        &out,
        "calls app -> app.Aliased.resolve @app.py:29:8 TypedReceiver",
    );
}

#[test]
fn type_annotations_hold_the_class_and_called_instances_return_what_call_returns() {
    let out = edges(&[(
        "m.py",
        "\
from typing import Protocol, Type
class Store:
    def getlist(self): ...
    @classmethod
    def build(cls): ...
class Client:
    def get(self): ...
class Factory(Protocol):
    def __call__(self, app: str) -> Client: ...
class Plain:
    pass
class Tests:
    storage_class: type[Store]
    def test(self, make: Factory, plain: Plain, other: Type[Store], many: type[Store | Client]):
        md = self.storage_class()
        md.getlist()
        self.storage_class.build()
        make('a').get()
        plain().get()
        other().getlist()
        many().getlist()
",
    )]);
    assert_has(
        &out,
        "calls m.Tests.test -> m.Store.getlist @m.py:16:12 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Tests.test -> m.Store.build @m.py:17:28 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Tests.test -> m.Client.get @m.py:18:19 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Tests.test -> m.Store.getlist @m.py:20:17 TypedReceiver",
    );
    // An instance of a class without `__call__`, and `type[A | B]`, make
    // nothing known: the member is guessed by name, as before.
    assert!(
        !has(
            &out,
            "calls m.Tests.test -> m.Client.get @m.py:19:17 TypedReceiver"
        ),
        "{out:#?}"
    );
    assert!(
        !has(
            &out,
            "calls m.Tests.test -> m.Store.getlist @m.py:21:16 TypedReceiver"
        ),
        "{out:#?}"
    );
}

#[test]
fn unannotated_parameters_of_an_override_take_the_base_methods_annotations() {
    let out = edges(&[
        (
            "base.py",
            "\
class Parser:
    def parse_expression(self): ...
class Extension:
    def parse(self, parser: 'Parser', *, strict: bool = False): ...
    def other(self, parser: Parser): ...
",
        ),
        (
            "ext.py",
            "\
from base import Extension
class Cache(Extension):
    def parse(self, parser, *, strict=False):
        parser.parse_expression()
    def other(self, p):
        p.parse_expression()
class Deeper(Cache):
    def parse(self, parser, *, strict=False):
        parser.parse_expression()
",
        ),
    ]);
    // Same names and kinds: `parser` is a `Parser`.
    assert_has(
        &out,
        "calls ext.Cache.parse -> base.Parser.parse_expression @ext.py:4:16 TypedReceiver",
    );
    // A parameter renamed (`p`) matches nothing, and `Deeper.parse`
    // overrides `Cache.parse`, whose `parser` has no annotation: pyright
    // 1.1.414 has no type for either, and they stay guesses by name.
    for line in [
        "calls ext.Cache.other -> base.Parser.parse_expression @ext.py:6:11 TypedReceiver",
        "calls ext.Deeper.parse -> base.Parser.parse_expression @ext.py:9:16 TypedReceiver",
    ] {
        assert!(!has(&out, line), "{line} in {out:#?}");
    }
}

#[test]
fn a_declaration_under_type_checking_comes_before_the_else_branch_defs() {
    // pydantic: `if TYPE_CHECKING: Json = Annotated[…]` / `else: class
    // Json`, and a `ClassVar` annotation beside a property in the `else:`.
    // pyright takes `TYPE_CHECKING` as true: the names are the variable and
    // the annotated attribute, which are no nodes.
    let out = edges(&[
        (
            "types.py",
            "\
from typing import TYPE_CHECKING, Annotated, Any, ClassVar
if TYPE_CHECKING:
    Json = Annotated[Any, ...]
else:
    class Json:
        pass
class Model:
    if TYPE_CHECKING:
        fields: ClassVar[dict]
    else:
        @property
        def fields(self): ...
    def other(self): ...
if TYPE_CHECKING:
    pass
else:
    def only(): ...
",
        ),
        (
            "u.py",
            "\
from types import Json, Model, only
x: Json
Model().fields
Model().other()
only()
",
        ),
    ]);
    assert_none_to(&out, "-> types.Json");
    assert_none_to(&out, "-> types.Model.fields");
    assert_has(&out, "calls u -> types.Model.other @u.py:4:9 TypedReceiver");
    // With no reachable declaration, the def in the `else:` still stands.
    assert_has(&out, "calls u -> types.only @u.py:5:1 Import");
}

#[test]
fn a_binary_operator_gives_what_its_dunder_method_returns() {
    let out = edges(&[(
        "m.py",
        "\
import pathlib
class Path:
    def mkdir(self): ...
    def read_text(self): ...
class Vec:
    def __add__(self, other) -> \"Vec\": ...
    def norm(self): ...
class Money:
    def __radd__(self, other) -> \"Money\": ...
    def cents(self): ...
def f(tmp: pathlib.Path, name, v: Vec, w: Vec, m: Money, p: Path):
    sub = tmp / \"sub\"
    sub.mkdir()
    (tmp / name).read_text()
    (v + w).norm()
    (1 + m).cents()
    u = v - w
    u.norm()
    (p + m).cents()
",
    )]);
    // A builtin divided by a string is a builtin: nothing to guess.
    assert_none_to(&out, "m.Path.mkdir");
    assert_none_to(&out, "m.Path.read_text");
    // An in-repo class's operator method says what the result is.
    assert_has(&out, "calls m.f -> m.Vec.norm @m.py:15:13 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Money.cents @m.py:16:13 TypedReceiver");
    // `Vec` has no `__sub__`: the result is unknown, the member guessed.
    assert_has(&out, "calls m.f -> m.Vec.norm @m.py:18:7 Member { k: 1 }");
    // `Path` has no `__add__`: `Money.__radd__` decides.
    assert_has(&out, "calls m.f -> m.Money.cents @m.py:19:13 TypedReceiver");
}

#[test]
fn async_with_binds_what_aenter_returns_under_an_outside_base() {
    // anyio: `class Listener(Generic[T], AsyncResource)`, whose
    // `__aenter__(self: T) -> T` is in-repo; `__enter__` is not found (an
    // outside base may have it), which must not hide `__aenter__`.
    let out = edges(&[(
        "m.py",
        "\
from typing import TypeVar, Generic
T = TypeVar(\"T\")
class AsyncResource:
    async def __aenter__(self: T) -> T: ...
class Listener(Generic[T], AsyncResource):
    def extra(self): ...
def make() -> Listener[int]: ...
async def use():
    async with make() as multi:
        multi.extra()
    with make() as plain:
        plain.extra()
",
    )]);
    assert_has(
        &out,
        "calls m.use -> m.Listener.extra @m.py:10:15 TypedReceiver",
    );
    // A plain `with` takes `__enter__`, which only an outside base may have.
    assert!(
        !has(
            &out,
            "calls m.use -> m.Listener.extra @m.py:12:15 TypedReceiver"
        ),
        "{out:#?}"
    );
}

/// `converter: Final = Converter()` (cattrs): a bare `Final` leaves the
/// type to the value, as pyright infers it.
#[test]
fn a_bare_final_annotation_takes_the_values_type() {
    let out = edges(&[
        (
            "conv.py",
            "from typing import Final\nclass Converter:\n    def structure(self): ...\nclass Other:\n    def structure(self): ...\nconverter: Final = Converter()\nlimit: Final[int] = 3\nstructure = converter.structure\n",
        ),
    ]);
    assert_has(
        &out,
        "references conv -> conv.Converter.structure @conv.py:8:23 TypedReceiver",
    );
    assert_none_to(&out, "Other.structure");
}

/// `Context = Union[Dict[str, Any], Dict[Any, Any]]` (structlog): an
/// alias of a builtin container, whose `update` is dict's, not a guess at
/// an in-repo `update`.
#[test]
fn a_union_alias_of_builtin_containers_is_outside_the_repository() {
    let out = edges(&[
        (
            "typ.py",
            "from typing import Any, Dict, List, Union\nContext = Union[Dict[str, Any], Dict[Any, Any]]\nItems = Union[List[int], List[str], None]\n",
        ),
        ("other.py", "class Class:\n    def update(self): ...\n    def append(self): ...\n"),
        (
            "app.py",
            "from typ import Context, Items\ndef f(a: Context, b: Items):\n    a.update()\n    b.append()\n",
        ),
    ]);
    assert_none_to(&out, "other.Class");
}

/// `def __getattr__(self, name) -> HookCaller` (pluggy's `HookRelay`):
/// an attribute the class does not define is what `__getattr__` returns.
#[test]
fn getattr_types_the_attributes_a_class_does_not_define() {
    let out = edges(&[(
        "hooks.py",
        "\
from typing import Final
class HookCaller:
    def spec(self): ...
class Subset(HookCaller):
    @property
    def spec(self): ...
class Relay:
    def __getattr__(self, name: str) -> HookCaller: ...
class Manager:
    def __init__(self):
        self.hook: Final = Relay()
def f(pm: Manager):
    return pm.hook.myhook.spec()
class Proxy:
    def __getattr__(self, item):
        return getattr(self._target, item)
def g(p: Proxy):
    return p.editor().spec()
",
    )]);
    assert_has(
        &out,
        "calls hooks.f -> hooks.HookCaller.spec @hooks.py:13:27 TypedReceiver",
    );
    assert_none_to(&out, "hooks.f -> hooks.Subset.spec");
    // `return getattr(…)` is anything, not an outside value: the call is
    // guessed by name, as without `__getattr__`.
    assert_has(
        &out,
        "calls hooks.g -> hooks.Subset.spec @hooks.py:18:23 Member { k: 2 }",
    );
}

/// `self.conn = {CLIENT: Connection(CLIENT), SERVER: Connection(SERVER)}`
/// (h11's tests): a dict (or list) literal of calls of one class holds its
/// instances; of anything else, it is a builtin.
#[test]
fn literal_containers_of_one_class_hold_its_instances() {
    let out = edges(&[(
        "conn.py",
        "\
class Connection:
    def send(self): ...
class Other:
    def send(self): ...
def make(): ...
class Pair:
    def __init__(self):
        self.conn = {1: Connection(1), 2: Connection(2)}
        self.mixed = {1: Connection(1), 2: make()}
    def go(self, role):
        self.conn[role].send()
        self.mixed[role].send()
        conns = [Connection(1), Connection(2)]
        for c in conns:
            c.send()
    def other(self, t):
        self.cats = [t.copy()] if t else [{}]
        for cat in self.cats:
            cat.send()
",
    )]);
    assert_has(
        &out,
        "calls conn.Pair.go -> conn.Connection.send @conn.py:11:25 TypedReceiver",
    );
    assert_has(
        &out,
        "calls conn.Pair.go -> conn.Connection.send @conn.py:15:15 TypedReceiver",
    );
    assert_none_to(&out, "@conn.py:12:");
    // A list of other calls, or an empty one, is a builtin, as a literal is.
    assert_none_to(&out, "@conn.py:19:");
}

/// `*args` is a tuple and `**kwargs` a dict, whatever they hold: their
/// methods are the builtins' (pyparsing's `kwargs.items()` beside
/// `ParseResults.items`); annotated, their elements have the type.
#[test]
fn star_parameters_are_a_tuple_and_a_dict() {
    let out = edges(&[
        (
            "res.py",
            "class Results:\n    def items(self): ...\n    def index(self): ...\n    def name(self): ...\n",
        ),
        (
            "app.py",
            "from res import Results\ndef f(*args, **kwargs):\n    kwargs.items()\n    args.index(1)\ndef g(*rs: Results, **named: Results):\n    for r in rs:\n        r.name()\n    named['x'].name()\n",
        ),
    ]);
    assert_none_to(&out, "calls app.f -> res.Results");
    assert_has(
        &out,
        "calls app.g -> res.Results.name @app.py:7:11 TypedReceiver",
    );
    assert_has(
        &out,
        "calls app.g -> res.Results.name @app.py:8:16 TypedReceiver",
    );
}

/// `x.values()` on a receiver of unknown type is a builtin's far more often
/// than the one in-repo class's of that name: kept unresolved, not guessed.
/// A rarer name is still guessed, and a typed receiver still resolves.
#[test]
fn common_builtin_method_names_on_unknown_receivers_are_not_guessed() {
    let out = edges(&[
        (
            "conf.py",
            "class Config:\n    def values(self): ...\n    def reload(self): ...\n",
        ),
        (
            "app.py",
            "from conf import Config\ndef f(g, c: Config):\n    g().values()\n    g().reload()\n    c.values()\n",
        ),
    ]);
    assert_has(
        &out,
        "U calls values @app.py:3:9 (unknown receiver, common method name)",
    );
    assert_has(
        &out,
        "calls app.f -> conf.Config.reload @app.py:4:9 Member { k: 1 }",
    );
    assert_has(
        &out,
        "calls app.f -> conf.Config.values @app.py:5:7 TypedReceiver",
    );
}

#[test]
fn an_elif_after_a_statically_true_condition_is_unreachable() {
    // trio: `if sys.platform == "win32": from ._io_windows import … elif
    // sys.platform == "linux" or …: from ._io_epoll import … elif
    // TYPE_CHECKING or …: from ._io_kqueue import …`. pyright (on Linux)
    // takes the epoll branch; the kqueue one after it never runs.
    let out = edges(&[
        ("io_windows.py", "def wait(): ...\n"),
        ("io_epoll.py", "def wait(): ...\n"),
        ("io_kqueue.py", "def wait(): ...\n"),
        (
            "run.py",
            "\
import sys
from typing import TYPE_CHECKING
if sys.platform == \"win32\":
    from io_windows import wait
elif sys.platform == \"linux\" or (not TYPE_CHECKING and hasattr(sys, \"x\")):
    from io_epoll import wait
elif TYPE_CHECKING or hasattr(sys, \"y\"):
    from io_kqueue import wait
else:
    raise NotImplementedError
wait()
",
        ),
    ]);
    assert_has(&out, "calls run -> io_epoll.wait @run.py:11:1 Import");
    assert!(!out
        .iter()
        .any(|e| e.starts_with("calls run -> io_kqueue.wait")));
    assert!(!out
        .iter()
        .any(|e| e.starts_with("calls run -> io_windows.wait")));
    // The imports in the branches not taken are still references, as
    // pyright's find-references lists them.
    assert_has(&out, "references run -> io_kqueue.wait @run.py:8:27 Import");
    assert_has(&out, "imports run -> io_windows @run.py:4:10 Import");
}

#[test]
fn with_gives_what_a_context_manager_type_enters() {
    // trio: `async with trio.open_nursery() as nursery:` with
    // `open_nursery() -> AbstractAsyncContextManager[Nursery]`; and a
    // `@contextmanager` generator annotated `Iterator[Nursery]`.
    let out = edges(&[(
        "m.py",
        "\
from contextlib import contextmanager, asynccontextmanager, AbstractAsyncContextManager
from typing import Iterator, AsyncIterator, ContextManager
class Nursery:
    def start_soon(self): ...
class Other:
    def start_soon(self): ...
@contextmanager
def a() -> Iterator[Nursery]:
    yield Nursery()
@asynccontextmanager
async def b() -> AsyncIterator[Nursery]:
    yield Nursery()
def c() -> AbstractAsyncContextManager[Nursery]: ...
def d() -> ContextManager[Nursery]: ...
with a() as n:
    n.start_soon()
async def f():
    async with b() as n:
        n.start_soon()
    async with c() as n:
        n.start_soon()
    with d() as n:
        n.start_soon()
",
    )]);
    assert_has(
        &out,
        "calls m -> m.Nursery.start_soon @m.py:16:7 TypedReceiver",
    );
    for line in [19, 21, 23] {
        assert_has(
            &out,
            &format!("calls m.f -> m.Nursery.start_soon @m.py:{line}:11 TypedReceiver"),
        );
    }
}

#[test]
fn unannotated_generators_and_tuple_returns_are_typed() {
    // scrapy's tests: a `@contextmanager` method of a base class that
    // makes a middleware and yields it, entered by a subclass's test; a
    // helper returning `defaults, spider, Mw.from_crawler(crawler)`,
    // unpacked. Without annotations pyright infers both.
    let out = edges(&[(
        "m.py",
        "\
from contextlib import contextmanager
class Mw:
    @classmethod
    def from_crawler(cls, c):
        return cls()
    def process_request(self): ...
class Other:
    def process_request(self): ...
class Base:
    @contextmanager
    def _middleware(self):
        mw = Mw()
        try:
            yield mw
        finally:
            pass
    def mixed(self):
        yield Mw()
        yield Other()
    def helper(self):
        return {}, 1, Mw.from_crawler(None)
class Sub(Base):
    def test_a(self):
        with self._middleware() as mw:
            mw.process_request()
        for x in self.mixed():
            x.process_request()
        d, s, mw = self.helper()
        mw.process_request()
",
    )]);
    assert_has(
        &out,
        "calls m.Sub.test_a -> m.Mw.process_request @m.py:25:16 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.Sub.test_a -> m.Mw.process_request @m.py:29:12 TypedReceiver",
    );
    // Yields of two classes give no one type: the candidates, as before.
    assert!(!has(
        &out,
        "calls m.Sub.test_a -> m.Mw.process_request @m.py:27:11 TypedReceiver"
    ));
}

#[test]
fn containers_of_a_union_hold_each_part() {
    // black's blib2to3: `children: list[NL]` with `NL = Union["Node",
    // "Leaf"]`, then `node.children[0].prefix`: pyright lists the
    // property of both classes.
    let out = edges(&[(
        "m.py",
        "\
from typing import Optional, Union
NL = Union[\"Node\", \"Leaf\"]
class Node:
    children: list[NL]
    both: Optional[dict[str, Node | Leaf]]
    def prefix(self): ...
class Leaf:
    def prefix(self): ...
class Other:
    def prefix(self): ...
def f(node: Node, xs: list[Union[Node, Leaf]]):
    node.children[0].prefix()
    for ch in node.children:
        ch.prefix()
    node.both[\"a\"].prefix()
    xs[0].prefix()
",
    )]);
    for (line, col) in [(12, 22), (14, 12), (15, 20), (16, 11)] {
        for class in ["Node", "Leaf"] {
            assert_has(
                &out,
                &format!("calls m.f -> m.{class}.prefix @m.py:{line}:{col} TypedReceiver"),
            );
        }
        assert_none_to(&out, &format!("m.Other.prefix @m.py:{line}:"));
    }
}

#[test]
fn a_callable_declared_to_return_a_class_makes_its_instances() {
    // starlette's tests: `test_client_factory: typing.Callable[...,
    // TestClient]`, then `client = test_client_factory(app)`; rich's
    // `get_console_width: Optional[Callable[[…], "Measurement"]]`. The call
    // was taken for a builtin's and its methods had no edge.
    let out = edges(&[(
        "m.py",
        "\
import typing
from typing import Callable, Optional
class Client:
    def get(self): ...
def f(factory: typing.Callable[..., Client], g: Optional[Callable[[int], \"Client\"]]):
    client = factory(1)
    client.get()
    g(2).get()
",
    )]);
    assert_has(&out, "calls m.f -> m.Client.get @m.py:7:12 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Client.get @m.py:8:10 TypedReceiver");
}

#[test]
fn an_unannotated_parameter_is_what_is_assigned_to_it() {
    // requests: `hooks = hooks or {}` then `hooks.get(key)` is dict's
    // (pyright narrows the parameter to what is assigned); django's `if
    // time_keeper is None: time_keeper = NullTimeKeeper()`. The parameter
    // alone stays unknown (a guess by name).
    let out = edges(&[(
        "m.py",
        "\
class Jar:
    def get(self, k): ...
class Null:
    def get(self, k): ...
def f(hooks, keeper=None, other=None):
    hooks = hooks or {}
    hooks.get(1)
    if keeper is None:
        keeper = Null()
    keeper.get(2)
    other.get(3)
",
    )]);
    assert_none_to(&out, "@m.py:7:");
    assert_has(&out, "calls m.f -> m.Null.get @m.py:10:12 TypedReceiver");
    assert!(
        !out.iter().any(|l| l.contains("m.Jar.get @m.py:10:")),
        "{out:?}"
    );
    assert!(out.iter().any(|l| l.contains("@m.py:11:11")), "{out:?}");
}

#[test]
fn review2_a_parameter_used_before_it_is_reassigned_stays_unknown() {
    // `x.m()` runs before `x = Foo()`: pyright has the parameter there
    // (unknown, no definition); the flow-insensitive Src::Param gave Foo.
    let out = edges(&[(
        "m.py",
        "\
class Foo:
    def m(self): ...
class Bar:
    def m(self): ...
def f(x):
    x.m()
    x = Foo()
    x.m()
def g(y):
    ms = [y.m() for _ in range(2)]
    y = Foo()
",
    )]);
    // (A name guess there, of either class, is as before Src::Param.)
    assert!(
        !out.iter()
            .any(|l| (l.contains("@m.py:6:") || l.contains("@m.py:10:"))
                && l.ends_with("TypedReceiver")),
        "{out:?}"
    );
    assert_has(&out, "calls m.f -> m.Foo.m @m.py:8:7 TypedReceiver");
}

/// flask's tests: `class Index(flask.views.View)` after `import
/// flask.views`, then `Index.as_view(…)`. The base was resolved for the
/// `extends` edge but not for member lookups, which knew no submodule a
/// file imports.
#[test]
fn a_base_written_through_an_imported_submodule_gives_its_members() {
    let out = edges(&[
        ("pkg/__init__.py", ""),
        (
            "pkg/views.py",
            "class View:\n    @classmethod\n    def as_view(cls, name):\n        pass\n    def run(self): pass\n",
        ),
        (
            "tests/test_x.py",
            "import pkg.views\nclass Top(pkg.views.View):\n    pass\nTop.as_view('a')\ndef test_a():\n    class Index(pkg.views.View):\n        pass\n    Index.as_view('j')\n    Index().run()\n",
        ),
    ]);
    assert_has(
        &out,
        "calls test_x -> pkg.views.View.as_view @tests/test_x.py:4:5 Path",
    );
    assert_has(
        &out,
        "calls test_x.test_a -> pkg.views.View.as_view @tests/test_x.py:8:11 Path",
    );
    assert_has(
        &out,
        "calls test_x.test_a -> pkg.views.View.run @tests/test_x.py:9:13 TypedReceiver",
    );
}

/// flask's `rv.close()` (a werkzeug response) was guessed to be the
/// `close` of a `Wrapper` class written inside another test.
#[test]
fn a_class_inside_a_test_is_no_guess_outside_it() {
    let out = edges(&[
        (
            "tests/test_x.py",
            "class TestA:\n    def test_a(self, rv):\n        class W:\n            def close(self): pass\n        W().close()\n        rv.close()\n    def test_b(self, rv):\n        rv.close()\n",
        ),
        ("tests/test_y.py", "def test_c(rv):\n    rv.close()\n"),
    ]);
    assert_has(&out, "calls test_x.TestA.test_a -> test_x.TestA.test_a.W.close @tests/test_x.py:5:13 TypedReceiver");
    // Inside the test that defines it, a guess still (files have `close`).
    assert_has(&out, "calls test_x.TestA.test_a -> test_x.TestA.test_a.W.close @tests/test_x.py:6:12 Member { k: 2 }");
    assert_has(
        &out,
        "U calls close @tests/test_x.py:8:12 (unknown receiver)",
    );
    assert_has(
        &out,
        "U calls close @tests/test_y.py:2:8 (unknown receiver)",
    );
}

/// An update reads other files' facts only as resolution reaches them
/// ([`crate::resolve::FactSource`]). A guess with more candidates than
/// are ever linked (`x.frobnicate()`, 8 methods: "8 candidates") named
/// them from the store's index alone; the filter for classes inside tests
/// now reads the head of every candidate first, so one such call in a
/// changed file loads every file with a method of that name (hundreds
/// for `save` or `get` in a large tree).
#[test]
fn review3_a_guess_past_max_candidates_reads_no_candidate_files() {
    use crate::resolve::{Defs, FactSource, Facts, FactsRef, WorldInput};
    use std::sync::{Mutex, OnceLock};
    struct Src<'a> {
        facts: &'a [crate::extract::FileFacts],
        methods: Vec<SymId>,
        loaded: Mutex<Vec<u32>>,
    }
    impl FactSource for Src<'_> {
        fn load(&self, idx: FileIdx) -> Facts {
            self.loaded.lock().unwrap().push(idx.0);
            let f = &self.facts[idx.0 as usize];
            Facts {
                defs: Defs::decoded(f.defs.clone()),
                scope: Box::new(f.scope.clone()),
            }
        }
        fn named(&self, name: &str, _: Family) -> Vec<SymId> {
            self.python_methods(name)
        }
        fn python_methods(&self, name: &str) -> Vec<SymId> {
            if name == "frobnicate" {
                self.methods.clone()
            } else {
                Vec::new()
            }
        }
        fn python_class_attrs(&self, _: &str) -> u32 {
            0
        }
        fn failed(&self) -> bool {
            false
        }
    }
    let mut paths = vec!["m.py".to_string()];
    let mut texts = vec!["def f(x):\n    x.frobnicate()\n".to_string()];
    for i in 0..8 {
        paths.push(format!("c{i}.py"));
        texts.push("class C:\n    def frobnicate(self): pass\n".to_string());
    }
    let facts: Vec<_> = paths
        .iter()
        .zip(&texts)
        .map(|(p, t)| extract::extract(Lang::Python, p, t.as_bytes()))
        .collect();
    let method = facts[1]
        .defs
        .iter()
        .position(|d| d.name == "frobnicate")
        .unwrap() as u32;
    let src = Src {
        facts: &facts,
        methods: (1..=8)
            .map(|f| SymId {
                file: FileIdx(f),
                def: method,
            })
            .collect(),
        loaded: Mutex::new(Vec::new()),
    };
    let cells: Vec<OnceLock<Facts>> = (0..paths.len()).map(|_| OnceLock::new()).collect();
    let mut layout = Layout::default();
    for p in &paths {
        layout.files.insert(p.clone());
    }
    let inputs = paths
        .iter()
        .enumerate()
        .map(|(i, p)| WorldInput {
            path: p,
            lang: Lang::Python,
            facts: if i == 0 {
                FactsRef::Given {
                    defs: &facts[0].defs,
                    scope: &facts[0].scope,
                }
            } else {
                FactsRef::Cell(&cells[i])
            },
            module_key: None,
            empty: false,
        })
        .collect();
    let world = World::with_source(inputs, &layout, &src);
    let prepared = crate::resolve::prepare(&world);
    let res = crate::resolve::resolve_file(&world, &prepared, FileIdx(0), &facts[0].refs);
    assert!(
        res.unresolved.iter().any(|u| u.reason == "8 candidates"),
        "{:?}",
        res.unresolved
    );
    assert_eq!(*src.loaded.lock().unwrap(), Vec::<u32>::new());
}

#[test]
fn isinstance_keeps_a_type_that_already_is_the_class() {
    // Regression (werkzeug tests): `md = self.storage_class()` (annotated
    // `type[MultiDict]`), then `assert isinstance(md, dict)`: pyright keeps
    // `MultiDict`, a dict already, and `md.getlist` is its method; the
    // graph had made `md` a dict, outside the repository, and said nothing.
    let out = edges(&[(
        "m.py",
        "\
class Conv(dict):
    def get(self, k): ...
class Multi(Conv):
    def getlist(self, k): ...
class T:
    storage_class: type[Multi]
    def test_a(self):
        md = self.storage_class()
        assert isinstance(md, dict)
        md.getlist(1)
def f(d: Multi, e: Conv):
    assert isinstance(d, Conv)
    d.getlist(2)
    assert isinstance(e, Multi)
    e.getlist(3)
class Other:
    def getlist(self, k): ...
def g():
    x = Multi()
    assert isinstance(x, dict)
    x = Other()
    x.getlist(4)
def h(y: Multi):
    if isinstance(y, Multi):
        return
    if isinstance(y, dict):
        y.getlist(5)
",
    )]);
    assert_has(
        &out,
        "calls m.T.test_a -> m.Multi.getlist @m.py:10:12 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Multi.getlist @m.py:13:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Multi.getlist @m.py:15:7 TypedReceiver",
    );
    // An assignment ends the narrowing: `x` is no dict after it (it was,
    // and `x.getlist` no site at all), but what the assignment made.
    assert_has(
        &out,
        "calls m.g -> m.Other.getlist @m.py:22:7 TypedReceiver",
    );
    assert_none_to(&out, "calls m.g -> m.Multi.getlist");
    // After `if isinstance(y, Multi): return`, `y` is no Multi, and in an
    // `isinstance(y, dict)` branch it is a dict (httpx's `elif
    // isinstance(headers, Mapping)` after an `isinstance(headers, Headers)`
    // branch): nothing in the repository.
    assert_none_to(&out, "calls m.h -> m.Multi.getlist");
}

#[test]
fn copy_and_deepcopy_give_their_argument_s_type() {
    // werkzeug's tests: `c = copy(md)`, `c = deepcopy(md)` then
    // `c.getlist(…)`; typeshed's `def copy(x: T) -> T`.
    let out = edges(&[(
        "m.py",
        "\
import copy as cp
from copy import copy, deepcopy as dc
class Multi:
    def getlist(self, k): ...
class Other:
    def getlist(self, k): ...
def f(md: Multi):
    a = copy(md)
    a.getlist(1)
    b = dc(md)
    b.getlist(2)
    c = cp.deepcopy(md)
    c.getlist(3)
",
    )]);
    assert_has(&out, "calls m.f -> m.Multi.getlist @m.py:9:7 TypedReceiver");
    assert_has(
        &out,
        "calls m.f -> m.Multi.getlist @m.py:11:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.f -> m.Multi.getlist @m.py:13:7 TypedReceiver",
    );
    assert_none_to(&out, "m.Other.getlist");
}

/// anyio: `AnyByteReceiveStream = Union[ObjectReceiveStream[bytes],
/// ByteReceiveStream]` types a dataclass field, and `x: A | B` a
/// parameter; pyright answers a member of such a value with each part's
/// declaration (one, when both inherit it); a builtin part, or one bound
/// nowhere, adds nothing; `isinstance` keeps the parts it admits.
#[test]
fn unions_of_classes_answer_each_part() {
    let out = edges(&[
        (
            "streams.py",
            "\
from typing import Generic, Optional, TypeVar, Union
T = TypeVar(\"T\")
class Resource:
    async def aclose(self): ...
class ObjectStream(Resource, Generic[T]):
    async def receive(self): ...
class ByteStream(Resource):
    async def receive(self, n: int = 1): ...
    def extra(self): ...
AnyStream = Union[ObjectStream[bytes], ByteStream]
",
        ),
        (
            "buffered.py",
            "\
from dataclasses import dataclass
from typing import List, Optional, Union
from streams import AnyStream, ByteStream, ObjectStream, Resource
@dataclass
class Buffered:
    stream: AnyStream
    async def aclose(self):
        await self.stream.aclose()
        await self.stream.receive()
def f(s: Optional[Union[ObjectStream, ByteStream]], t: ByteStream | str, u: ByteStream | Mystery):
    s.extra()
    t.extra()
    return u.extra()
def h(streams: List[AnyStream]):
    for s in streams:
        s.extra()
def g(s: Union[ObjectStream, ByteStream]):
    if isinstance(s, ByteStream):
        s.receive()
    if isinstance(s, Resource):
        s.receive()
",
        ),
    ]);
    assert_has(
        &out,
        "calls buffered.Buffered.aclose -> streams.Resource.aclose @buffered.py:8:27 TypedReceiver",
    );
    for class in ["ObjectStream", "ByteStream"] {
        assert_has(
            &out,
            &format!("calls buffered.Buffered.aclose -> streams.{class}.receive @buffered.py:9:27 TypedReceiver"),
        );
    }
    // `extra` only on ByteStream: its one declaration.
    assert_has(
        &out,
        "calls buffered.f -> streams.ByteStream.extra @buffered.py:11:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls buffered.f -> streams.ByteStream.extra @buffered.py:12:7 TypedReceiver",
    );
    // A list of a union's values: its elements are the union's.
    assert_has(
        &out,
        "calls buffered.h -> streams.ByteStream.extra @buffered.py:16:11 TypedReceiver",
    );
    // Narrowed by `isinstance`: the parts that are instances of the class.
    assert_has(
        &out,
        "calls buffered.g -> streams.ByteStream.receive @buffered.py:19:11 TypedReceiver",
    );
    assert!(
        !out.iter()
            .any(|e| e.contains("ObjectStream.receive @buffered.py:19:")),
        "{out:?}"
    );
    for class in ["ObjectStream", "ByteStream"] {
        assert_has(
            &out,
            &format!(
                "calls buffered.g -> streams.{class}.receive @buffered.py:21:11 TypedReceiver"
            ),
        );
    }
    // A part bound nowhere (`Mystery`) is outside: it adds nothing.
    assert_has(
        &out,
        "calls buffered.f -> streams.ByteStream.extra @buffered.py:13:14 TypedReceiver",
    );
}

/// anyio's `BufferedByteReceiveStream.receive`: `elif
/// isinstance(self.receive_stream, ByteReceiveStream): return await
/// self.receive_stream.receive(max_bytes)`. pyright narrows a name's
/// attribute as it narrows a name, until it is assigned; the attribute is
/// still named there (httpx's `client.headers`, a property).
#[test]
fn isinstance_narrows_an_attribute_of_a_name() {
    let out = edges(&[(
        "m.py",
        "\
from typing import Union
class A:
    def run(self): ...
class B:
    def run(self): ...
class Holder:
    s: Union[A, B]
    @property
    def p(self) -> Union[A, B]: ...
    def go(self, other: 'Holder'):
        if isinstance(self.s, B):
            self.s.run()
            other.s.run()
        self.s.run()
        if isinstance(self.p, A):
            self.p.run()
        if isinstance(self.s, A):
            self.s = B()
            self.s.run()
",
    )]);
    for (at, class) in [("12:20", "B"), ("16:20", "A")] {
        assert_has(
            &out,
            &format!("calls m.Holder.go -> m.{class}.run @m.py:{at} TypedReceiver"),
        );
    }
    assert!(
        !out.iter()
            .any(|e| e.contains("m.A.run @m.py:12:") || e.contains("m.B.run @m.py:16:")),
        "{out:?}"
    );
    assert_has(
        &out,
        "references m.Holder.go -> m.Holder.p @m.py:16:18 SelfMember",
    );
    // Another name's attribute, or after the block: the union's parts.
    // (After `self.s = B()`, pyright has a `B`; the graph, the union: the
    // assignment only ends the narrowing.)
    for at in ["13:21", "14:16", "19:20"] {
        for class in ["A", "B"] {
            assert_has(
                &out,
                &format!("calls m.Holder.go -> m.{class}.run @m.py:{at} TypedReceiver"),
            );
        }
    }
}

#[test]
fn a_private_name_in_all_is_star_imported() {
    // networkx: `networkx/utils/__init__.py` star-imports `backends`, whose
    // `__all__ = ["_dispatchable"]`; `from networkx.utils import
    // _dispatchable` is that one. A private name not in `__all__`, or in
    // a module without one, is not star-imported.
    let out = edges(&[
        (
            "p/__init__.py",
            "from p.utils import _disp, _hidden, _bare\n",
        ),
        (
            "p/utils/__init__.py",
            "from p.utils.back import *\nfrom p.utils.misc import *\n",
        ),
        (
            "p/utils/back.py",
            "__all__ = ['_disp']\ndef _disp(): ...\ndef _hidden(): ...\n",
        ),
        ("p/utils/misc.py", "def _bare(): ...\n"),
    ]);
    assert_has(
        &out,
        "references p -> p.utils.back._disp @p/__init__.py:1:21 ReExport",
    );
    assert_none_to(&out, "-> p.utils.back._hidden");
    assert_none_to(&out, "-> p.utils.misc._bare");
}

#[test]
fn cls_attributes_set_in_a_classmethod_type_their_reads() {
    // pytest's `setup_class(cls)`: `cls.graph = Graph()` is a class
    // attribute, read as `cls.graph` and `self.graph`.
    let out = edges(&[(
        "m.py",
        "\
class Graph:
    def add_edge(self): ...
class TestG:
    @classmethod
    def setup_class(cls):
        cls.graph = Graph()
        cls.graph.add_edge()
    def test_a(self):
        self.graph.add_edge()
",
    )]);
    assert_has(
        &out,
        "calls m.TestG.setup_class -> m.Graph.add_edge @m.py:7:19 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.TestG.test_a -> m.Graph.add_edge @m.py:9:20 TypedReceiver",
    );
}

#[test]
fn a_reassigned_local_is_what_its_last_assignment_made() {
    // networkx's `z_support = nx.MultiGraph()` … `z_support =
    // nx.Graph(z_support)`: each use is the assignment before it, as
    // pyright's code flow has it. After an assignment in a branch or a
    // loop, or in a nested function (which runs later), either class (a
    // union, as pyright's declared type; not a guess among every method of
    // the name: `Third` has one too).
    let out = edges(&[(
        "m.py",
        "\
class Multi:
    def edges(self): ...
    def grow(self): ...
class Single:
    def edges(self): ...
    def __init__(self, g=None): ...
class Third:
    def edges(self): ...
def f(c):
    g = Multi()
    g.edges()
    g = Single(g)
    g.edges()
    if c:
        g = Multi()
    g.edges()
    def later():
        g.edges()
    g = Multi()
    g.grow()
    if isinstance(g, Multi) and any(g.grow() for _ in []):
        pass
def h(p: Single):
    p = Multi() if p else p
    p.edges()
",
    )]);
    assert_has(&out, "calls m.f -> m.Multi.edges @m.py:11:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Single.edges @m.py:13:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Multi.edges @m.py:16:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Single.edges @m.py:16:7 TypedReceiver");
    assert_has(
        &out,
        "calls m.f.later -> m.Single.edges @m.py:18:11 TypedReceiver",
    );
    assert_none_to(&out, "m.Third.edges");
    assert_has(&out, "calls m.f -> m.Multi.grow @m.py:20:7 TypedReceiver");
    // A comprehension runs where it is: the last assignment's.
    assert_has(&out, "calls m.f -> m.Multi.grow @m.py:21:39 TypedReceiver");
    // A declared type is what every use reads (httpx's `proxy: ProxyTypes |
    // None` parameter, reassigned).
    assert_has(&out, "calls m.h -> m.Single.edges @m.py:25:7 TypedReceiver");
}

#[test]
fn a_reassigned_module_variable_is_what_its_last_assignment_made() {
    // networkx's example scripts: `G = nx.Graph()` … `G = nx.DiGraph()` at
    // the top of the module. A use there reads the assignment before it;
    // a function (which runs later) and another file read either class.
    let out = edges(&[
        (
            "m.py",
            "\
class Multi:
    def edges(self): ...
class Single:
    def edges(self): ...
g = Multi()
g.edges()
g = Single()
g.edges()
if g:
    g = Multi()
g.edges()
[g.edges() for _ in []]
def later():
    g.edges()
",
        ),
        ("user.py", "from m import g\ng.edges()\n"),
    ]);
    assert_has(&out, "calls m -> m.Multi.edges @m.py:6:3 TypedReceiver");
    assert_has(&out, "calls m -> m.Single.edges @m.py:8:3 TypedReceiver");
    assert!(!out
        .iter()
        .any(|l| l.starts_with("calls m -> m.Multi.edges @m.py:8:3")));
    assert_has(&out, "calls m -> m.Multi.edges @m.py:11:3 TypedReceiver");
    assert_has(&out, "calls m -> m.Single.edges @m.py:11:3 TypedReceiver");
    assert_has(&out, "calls m -> m.Multi.edges @m.py:12:4 TypedReceiver");
    assert_has(&out, "calls m -> m.Single.edges @m.py:12:4 TypedReceiver");
    assert_has(
        &out,
        "calls m.later -> m.Single.edges @m.py:14:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls m.later -> m.Multi.edges @m.py:14:7 TypedReceiver",
    );
    assert_has(
        &out,
        "calls user -> m.Multi.edges @user.py:2:3 TypedReceiver",
    );
    assert_has(
        &out,
        "calls user -> m.Single.edges @user.py:2:3 TypedReceiver",
    );
}

#[test]
fn awaiting_an_awaitable_instance_is_not_the_instance() {
    // aiohttp's `resp = await client.ws_connect("/")`: `ws_connect` returns
    // a `_BaseRequestContextManager`, whose `__await__` makes the response;
    // `resp.close()` is the response's, not the manager's. An `async def`'s
    // call is what it returns, awaited or not.
    let out = edges(&[(
        "m.py",
        "\
class Resp:
    def text(self): ...
class Manager:
    def __await__(self): ...
    def close(self): ...
def get() -> Manager: ...
async def make() -> Resp: ...
async def f():
    r = await get()
    r.close()
    s = await make()
    s.text()
    (await make()).text()
    get().close()
",
    )]);
    assert!(
        !out.iter()
            .any(|l| l.starts_with("calls m.f -> m.Manager.close @m.py:10:")
                && l.ends_with("TypedReceiver")),
        "{}",
        out.join("\n")
    );
    assert_has(&out, "calls m.f -> m.Resp.text @m.py:12:7 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Resp.text @m.py:13:20 TypedReceiver");
    assert_has(
        &out,
        "calls m.f -> m.Manager.close @m.py:14:11 TypedReceiver",
    );
}

#[test]
fn a_class_passed_as_type_t_makes_the_t_returned() {
    // textual's `app.query_one(TextArea)`, overloaded `(selector:
    // type[QueryType]) -> QueryType` and `(selector: str, expect_type:
    // type[QueryType]) -> QueryType`: pyright solves the TypeVar from the
    // class passed, an instance of it.
    let out = edges(&[(
        "m.py",
        "\
from typing import TypeVar, overload
Q = TypeVar(\"Q\")
class Widget:
    def text(self): ...
class Area(Widget):
    def text(self): ...
class Other:
    def text(self): ...
class App:
    @overload
    def query_one(self, selector: str) -> Widget: ...
    @overload
    def query_one(self, selector: type[Q]) -> Q: ...
    @overload
    def query_one(self, selector: str, expect_type: type[Q]) -> Q: ...
    def query_one(self, selector, expect_type=None): ...
def make(kind: type[Q], *, name: str = \"\") -> Q: ...
def f(app: App):
    app.query_one(Area).text()
    app.query_one(\"#a\", Area).text()
    make(Other).text()
",
    )]);
    assert_has(&out, "calls m.f -> m.Area.text @m.py:19:25 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Area.text @m.py:20:31 TypedReceiver");
    assert_has(&out, "calls m.f -> m.Other.text @m.py:21:17 TypedReceiver");
    assert_none_to(&out, "m.Widget.text");
}

#[test]
fn another_file_reads_a_value_made_from_a_reassigned_module_variable_as_before() {
    // pydantic's `GenericTypesCache = WeakValueDictionary[…]` / `else:
    // GenericTypesCache = WeakValueDictionary`, then `_GENERIC_TYPES_CACHE
    // = GenericTypesCache()`: another file's `_GENERIC_TYPES_CACHE.clear()`
    // is an outside class's method, no guess among the repository's.
    let out = edges(&[
        (
            "gen.py",
            "\
import sys
from weakref import WeakValueDictionary
if sys.version_info >= (3, 9):
    Cache = WeakValueDictionary[str, int]
else:
    Cache = WeakValueDictionary
class Deep:
    def clear(self): ...
CACHE = Cache()
",
        ),
        ("t.py", "from gen import CACHE\nCACHE.clear()\n"),
    ]);
    assert_none_to(&out, "gen.Deep.clear");
}
