//! python: scope and import rules → edges.
//!
//! Modules are nodes of a tree built from file paths (`pkg/sub/mod.py`,
//! `pkg/__init__.py`, namespace directories), so absolute imports are
//! resolved from the import roots pyright uses (the repository root, `src/`,
//! the importing file's directory) plus the package roots found by
//! [`module_key`], and relative imports from the importing file's
//! directory. A name is looked up in a module the way Python binds it:
//! definitions, then imports (followed through re-exports), variables, star
//! imports and finally submodules. Expressions are evaluated to values
//! (a module, a class, an instance, a function) along their [`Chain`] so
//! `self.gw.refund()`, `make().m()` and `pkg.mod.f()` land on the right
//! definition; a member on a receiver of unknown type falls back to every
//! method of that name (`Member{k}`).

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

use super::{
    FileIdx, FileResolution, Layout, ResolvedEdge, Strategy, SymId, Unresolved, World,
    MAX_CANDIDATES,
};
use crate::extract::python::{
    BinOp, Chain, Cont, Func, Import, ImportKind, Op, Operand, Refs, Root, Scope, Src, TypeRef,
    Var, CLS_PATH, FIXTURE, LITERAL_PATH, OVERLOAD, PROPERTY, SELF_PATH, SELF_TYPED, TUPLE_PATH,
    UNION_PATH, UNKNOWN_PATH,
};
use crate::extract::{Family, LangScope};
use crate::graph::{EdgeKind, NodeKind, Pos};

/// Indexes built once per world.
pub struct Index<'w> {
    mods: Vec<Module<'w>>,
    mod_by_path: HashMap<&'w str, u32>,
    /// Module-level bindings of each world file (empty for other
    /// languages), computed when first needed ([`Ctx::names`]).
    names: Vec<OnceLock<HashMap<&'w str, Vec<Binding>>>>,
    /// Per file: where its classes and functions are in its scope, and
    /// its classes' members; computed when first needed ([`Ctx::tables`]).
    tables: Vec<OnceLock<Tables<'w>>>,
    /// Per file, per class of its `Scope::classes`: the resolved bases
    /// (`None`: not an in-repo class), computed for a whole file when one
    /// of its classes is first looked at ([`Ctx::bases`]).
    bases: Vec<OnceLock<Vec<Vec<Option<SymId>>>>>,
    /// Every method by name, for receivers of unknown type (empty when
    /// the world's source answers: [`World::source`]).
    methods: HashMap<&'w str, Vec<SymId>>,
    /// How many classes have a data attribute of that name (likewise).
    attr_counts: HashMap<&'w str, u32>,
    /// Import roots after the repository root and `src/`, by the names of
    /// their children (an import is only tried at roots holding its first
    /// segment: a tree of many roots, like ansible's collections, would
    /// otherwise try every root for every unknown import).
    extra_roots: HashMap<&'w str, Vec<u32>>,
    /// Directory → its `conftest.py`.
    conftests: HashMap<&'w str, FileIdx>,
    /// Submodules their package's `__init__` imports: `pkg.sub` works as
    /// an attribute anywhere.
    visible_subs: HashSet<u32>,
    /// Per file: the modules its `import a.b.c` statements load (with
    /// their packages), which makes `a.b.c` work as attributes there;
    /// computed when first needed ([`Ctx::file_imports`]).
    file_imports: Vec<OnceLock<Vec<u32>>>,
}

/// One file's classes and functions, indexed.
#[derive(Default)]
struct Tables<'w> {
    /// Class def → its index in the file's `Scope::classes`.
    class_idx: HashMap<u32, u32>,
    /// Function def → its index in the file's `Scope::funcs`.
    func_idx: HashMap<u32, u32>,
    /// Class def → member name → child defs.
    members: HashMap<u32, HashMap<&'w str, Vec<u32>>>,
}

fn file_tables<'w>(world: &World<'w>, f: FileIdx) -> Tables<'w> {
    let mut t = Tables::default();
    let Some(scope) = py_scope(world, f) else {
        return t;
    };
    let defs = world.defs(f);
    for (d, def) in defs.iter().enumerate().skip(1) {
        let parent = def.parent.unwrap_or(0);
        if defs[parent as usize].kind == NodeKind::Class {
            t.members
                .entry(parent)
                .or_default()
                .entry(def.name.as_str())
                .or_default()
                .push(d as u32);
        }
    }
    for (k, c) in scope.classes.iter().enumerate() {
        t.class_idx.insert(c.def, k as u32);
    }
    for (k, fun) in scope.funcs.iter().enumerate() {
        t.func_idx.insert(fun.def, k as u32);
    }
    t
}

/// The data attribute names of a file's classes, each with how many of
/// them it counts (what the store keeps for [`crate::resolve::FactSource`]),
/// sorted.
pub fn class_attrs(scope: &Scope) -> Vec<(String, u32)> {
    let mut counts: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
    for c in &scope.classes {
        for a in &c.attrs {
            *counts.entry(a.name.as_str()).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// A module: a file stem (`src/shop/payments/gateway`) or a directory.
struct Module<'w> {
    /// `.pyi` first, then `.py`: a stub beside a module is what type
    /// checkers (and pyright) read for it.
    files: Vec<FileIdx>,
    children: HashMap<&'w str, u32>,
    parent: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
enum Binding {
    Def(u32),
    Import(u32),
    Var(u32),
}

fn py_scope<'a>(world: &World<'a>, f: FileIdx) -> Option<&'a Scope> {
    if world.file(f).lang.family() != Family::Python {
        return None;
    }
    match world.scope(f) {
        LangScope::Python(s) => Some(s),
        _ => None,
    }
}

/// `a/b/c.py` → `a/b/c`; `a/b/__init__.py` → `a/b`.
fn stem(path: &str) -> &str {
    let s = path
        .strip_suffix(".pyi")
        .or_else(|| path.strip_suffix(".py"))
        .unwrap_or(path);
    if s == "__init__" {
        ""
    } else {
        s.strip_suffix("/__init__").unwrap_or(s)
    }
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// The first `n` `/`-separated components of `path` (`leading("a/b/c", 2)`
/// is `a/b`).
fn leading(path: &str, n: usize) -> &str {
    if n == 0 {
        return "";
    }
    let mut seen = 0;
    for (i, b) in path.bytes().enumerate() {
        if b == b'/' {
            seen += 1;
            if seen == n {
                return &path[..i];
            }
        }
    }
    path
}

/// Attributes every object or class has (`self.__dict__.items()` is a
/// dict's): builtin, unless a class in the repository defines them.
const OBJECT_ATTRS: &[&str] = &[
    "__dict__",
    "__class__",
    "__doc__",
    "__module__",
    "__qualname__",
    "__annotations__",
    "__mro__",
    "__bases__",
    "__weakref__",
];

/// Methods a receiver of unknown type calls on a builtin far more often
/// than on an in-repo class: `d.items()`, `xs.append(x)`, `s.strip()`. A
/// guess by name there is mostly wrong (networkx: `nx.clustering(G).values()`
/// had been guessed at `Config.values`, 267 of 283 refuted edges); the site is
/// kept unresolved, for the language server to answer. Sorted; each is in
/// [`BUILTIN_METHODS`] too.
const COMMON_BUILTIN_METHODS: &[&str] = &[
    "append",
    "decode",
    "encode",
    "endswith",
    "extend",
    "get",
    "insert",
    "items",
    "join",
    "keys",
    "lower",
    "lstrip",
    "popitem",
    "replace",
    "reverse",
    "rsplit",
    "rstrip",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "upper",
    "values",
];

/// Methods of the builtin types (`str`, `bytes`, `list`, `dict`, `set`,
/// numbers, files): a receiver of unknown type calling one of these may
/// well be a builtin.
const BUILTIN_METHODS: &[&str] = &[
    "add",
    "append",
    "capitalize",
    "casefold",
    "center",
    "clear",
    "close",
    "copy",
    "count",
    "decode",
    "difference",
    "discard",
    "encode",
    "endswith",
    "expandtabs",
    "extend",
    "find",
    "flush",
    "format",
    "format_map",
    "fromkeys",
    "get",
    "index",
    "insert",
    "intersection",
    "isalnum",
    "isalpha",
    "isdigit",
    "isdisjoint",
    "islower",
    "isspace",
    "issubset",
    "issuperset",
    "istitle",
    "isupper",
    "items",
    "join",
    "keys",
    "ljust",
    "lower",
    "lstrip",
    "partition",
    "pop",
    "popitem",
    "read",
    "readline",
    "readlines",
    "remove",
    "removeprefix",
    "removesuffix",
    "replace",
    "reverse",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "seek",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "tell",
    "title",
    "translate",
    "truncate",
    "union",
    "update",
    "upper",
    "values",
    "write",
    "writelines",
    "zfill",
    "group",
    "groups",
    "groupdict",
    "span",
    "start",
    "end",
    "match",
    "search",
    "sub",
    "fullmatch",
    "finditer",
    "findall",
];

/// Top-level standard library modules: an import of one of these is never
/// resolved through a local directory or a guessed package root. Sorted
/// (looked up by binary search, for every import of every file).
const STDLIB: &[&str] = &[
    "__future__",
    "abc",
    "argparse",
    "array",
    "ast",
    "asyncio",
    "atexit",
    "base64",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "calendar",
    "cmath",
    "codecs",
    "collections",
    "colorsys",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "csv",
    "ctypes",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "dis",
    "email",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "functools",
    "gc",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "imaplib",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "multiprocessing",
    "netrc",
    "numbers",
    "operator",
    "optparse",
    "os",
    "pathlib",
    "pdb",
    "pickle",
    "pkgutil",
    "platform",
    "plistlib",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "queue",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtplib",
    "socket",
    "socketserver",
    "sqlite3",
    "ssl",
    "stat",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sys",
    "sysconfig",
    "tarfile",
    "tempfile",
    "termios",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "wsgiref",
    "xml",
    "xmlrpc",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// A file's top-level bindings by name: definitions, imports, variables.
fn file_names<'w>(world: &World<'w>, f: FileIdx) -> HashMap<&'w str, Vec<Binding>> {
    let mut names: HashMap<&'w str, Vec<Binding>> = HashMap::new();
    let Some(scope) = py_scope(world, f) else {
        return names;
    };
    for (d, def) in world.defs(f).iter().enumerate().skip(1) {
        if def.parent.unwrap_or(0) == 0 {
            names
                .entry(def.name.as_str())
                .or_default()
                .push(Binding::Def(d as u32));
        }
    }
    for (k, imp) in scope.imports.iter().enumerate() {
        if imp.scope == 0 {
            if let Some(b) = imp.bound_name() {
                if !b.is_empty() {
                    names.entry(b).or_default().push(Binding::Import(k as u32));
                }
            }
        }
    }
    for (k, v) in scope.vars.iter().enumerate() {
        names
            .entry(v.name.as_str())
            .or_default()
            .push(Binding::Var(k as u32));
    }
    names
}

impl<'w> Index<'w> {
    fn node(&mut self, path: &'w str) -> u32 {
        if let Some(&m) = self.mod_by_path.get(path) {
            return m;
        }
        let id = self.mods.len() as u32;
        self.mods.push(Module {
            files: Vec::new(),
            children: HashMap::new(),
            parent: None,
        });
        self.mod_by_path.insert(path, id);
        if !path.is_empty() {
            let (dir, last) = path.rsplit_once('/').unwrap_or(("", path));
            let p = self.node(dir);
            self.mods[p as usize].children.insert(last, id);
            self.mods[id as usize].parent = Some(p);
        }
        id
    }
}

pub fn prepare<'w>(world: &World<'w>) -> Index<'w> {
    let mut ix = Index {
        mods: Vec::new(),
        mod_by_path: HashMap::new(),
        names: (0..world.files.len()).map(|_| OnceLock::new()).collect(),
        tables: (0..world.files.len()).map(|_| OnceLock::new()).collect(),
        bases: (0..world.files.len()).map(|_| OnceLock::new()).collect(),
        methods: HashMap::new(),
        attr_counts: HashMap::new(),
        extra_roots: HashMap::new(),
        conftests: HashMap::new(),
        visible_subs: HashSet::new(),
        file_imports: Vec::new(),
    };
    ix.node("");
    let mut roots = std::collections::BTreeSet::new();
    let mut last_root = None;
    for (i, wf) in world.files.iter().enumerate() {
        let f = FileIdx(i as u32);
        if wf.lang.family() != Family::Python {
            continue;
        }
        let st = stem(wf.path);
        let m = ix.node(st);
        ix.mods[m as usize].files.push(f);
        // The package root the module key was computed from (counted in
        // bytes: this runs for every file of the tree on every update).
        let count = |s: &str, c: u8| s.bytes().filter(|b| *b == c).count();
        let segs = count(&wf.module_key, b'.') + 1;
        let comps = if st.is_empty() {
            0
        } else {
            count(st, b'/') + 1
        };
        if comps >= segs {
            // (Files come in path order: a root repeats in runs.)
            let root = leading(st, comps - segs);
            if last_root != Some(root) {
                roots.insert(root);
                last_root = Some(root);
            }
        }
        if wf.path == "conftest.py" || wf.path.ends_with("/conftest.py") {
            ix.conftests.insert(parent_dir(wf.path), f);
        }
    }
    // Members by name need every file; a world read on demand asks its
    // source instead ([`Resolver::guess`]).
    if world.source().is_none() {
        for (i, wf) in world.files.iter().enumerate() {
            let f = FileIdx(i as u32);
            if wf.lang.family() != Family::Python {
                continue;
            }
            for (d, def) in world.defs(f).iter().enumerate().skip(1) {
                if def.kind == NodeKind::Method {
                    ix.methods
                        .entry(def.name.as_str())
                        .or_default()
                        .push(SymId {
                            file: f,
                            def: d as u32,
                        });
                }
            }
            for c in py_scope(world, f).map_or(&[][..], |s| &s.classes[..]) {
                for a in &c.attrs {
                    *ix.attr_counts.entry(a.name.as_str()).or_default() += 1;
                }
            }
        }
    }
    for m in &mut ix.mods {
        m.files
            .sort_by_key(|f| !world.file(*f).path.ends_with(".pyi"));
    }
    for r in roots {
        if r.is_empty() || r == "src" {
            continue;
        }
        if let Some(&m) = ix.mod_by_path.get(r) {
            for child in ix.mods[m as usize].children.keys() {
                ix.extra_roots.entry(child).or_default().push(m);
            }
        }
    }
    // Which submodules are reachable as attributes (pyright's rule: the
    // package imports them, or the accessing file does). What a package's
    // `__init__` imports is needed everywhere; what another file imports
    // only when that file is looked at, so it is computed then
    // ([`Ctx::file_imports`]): an update resolving ten files of a large
    // tree does not resolve every import of every file.
    let mut visible = HashSet::new();
    {
        let ctx = Ctx {
            world,
            ix: &ix,
            stage: Stage::Visible,
            tuples: RefCell::new(Vec::new()),
            unions: RefCell::new(Vec::new()),
        };
        for (i, wf) in world.files.iter().enumerate() {
            let f = FileIdx(i as u32);
            let is_init = wf.path.ends_with("__init__.py") || wf.path.ends_with("__init__.pyi");
            // An empty `__init__` imports nothing (most of a large tree's:
            // not read at all on an update that reads facts on demand).
            if !is_init || wf.empty {
                continue;
            }
            let Some(scope) = py_scope(world, f) else {
                continue;
            };
            let pkg = ix.mod_by_path.get(stem(wf.path)).copied();
            for imp in scope.imports.iter().filter(|imp| imp.scope == 0) {
                let Some(r) = ctx.import_module(f, imp) else {
                    continue;
                };
                let mut targets = vec![r];
                if let ImportKind::From { name, .. } = &imp.kind {
                    if let Some(&c) = ix.mods[r as usize].children.get(name.as_str()) {
                        targets.push(c);
                    }
                }
                for t in targets {
                    let mut x = t;
                    while let Some(p) = ix.mods[x as usize].parent {
                        if Some(p) == pkg {
                            visible.insert(x);
                            break;
                        }
                        x = p;
                    }
                }
            }
        }
    }
    ix.visible_subs = visible;
    ix.file_imports = (0..world.files.len()).map(|_| OnceLock::new()).collect();
    ix
}

/// A value an expression evaluates to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Module(u32),
    /// The class object itself.
    Class(SymId),
    /// An instance of the class.
    Inst(SymId),
    /// `super()` in a method of the class.
    Super(SymId),
    /// A function or method; `recv` is the receiver's class for a method.
    Func {
        sym: SymId,
        recv: Option<SymId>,
    },
    /// A sequence (or iterable) of instances of the class.
    Seq(SymId),
    /// A mapping whose values are instances of the class.
    Map(SymId),
    /// `mapping.items()`: pairs whose second part is an instance.
    Items(SymId),
    /// A method of a builtin container and the class of its elements.
    ContMethod(ContMethod, SymId),
    /// A fixed-size tuple: its parts' values are [`Ctx::tuples`] entry `n`.
    Tuple(u32),
    /// A sequence of such tuples.
    TupleSeq(u32),
    /// A method of a sequence of tuples that returns one (`pop`).
    TupleMethod(u32),
    /// A callable declared to return an instance of the class
    /// (`factory: Callable[..., TestClient]`).
    Maker(SymId),
    /// A value of one of two or more types (`A | B`): [`Ctx::unions`]
    /// entry `n`, each part an instance (or other value) of its own.
    Union(u32),
    /// A sequence (or iterable) of such values (`list[NL]` with `NL =
    /// Union[Node, Leaf]`).
    UnionSeq(u32),
    /// A mapping whose values are such values.
    UnionMap(u32),
    /// Outside the repository (a builtin, a literal, an external package).
    External,
    Unknown,
}

/// What calling a container's method gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ContMethod {
    Elem,
    Seq,
    Map,
    Items,
}

/// How the value was reached, weakest last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum How {
    Syn,
    ReExp,
    SelfM,
    Typed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct V {
    val: Val,
    how: How,
}

impl V {
    fn new(val: Val, how: How) -> V {
        V { val, how }
    }
}

#[derive(Clone, Copy, Debug)]
enum Found {
    Def(SymId),
    Mod(u32),
    /// A module-level variable: the file and its name's first `Var` entry.
    Var(FileIdx, u32),
    External,
}

#[derive(Clone, Copy, Debug)]
struct Hit {
    found: Found,
    /// Imports followed to get there (0: defined in the module itself).
    hops: u32,
}

/// What an attribute of a value is.
enum Member {
    Def(SymId, u32),
    Value(Val),
    NotFound,
    Unknown,
    External,
}

const MAX_DEPTH: u32 = 12;

/// Lookups shared by `prepare` and `resolve_file`.
struct Ctx<'a, 'w> {
    world: &'a World<'w>,
    ix: &'a Index<'w>,
    stage: Stage,
    /// The parts of the tuple values met ([`Val::Tuple`]), each once.
    tuples: RefCell<Vec<Vec<Val>>>,
    unions: RefCell<Vec<Vec<Val>>>,
}

/// What a lookup may consult. The submodules packages make visible are
/// computed first, knowing nothing else; classes' bases, knowing those
/// and the modules a file imports (`class V(pkg.views.View)` after
/// `import pkg.views`) but no bases; sites, knowing everything. Bases are
/// computed when first needed, in their own stage, so the answers do not
/// depend on which file asked first (and a base never waits on its own
/// computation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Bases,
    Visible,
    Resolve,
}

impl Ctx<'_, '_> {
    fn scope(&self, f: FileIdx) -> Option<&Scope> {
        py_scope(self.world, f)
    }

    fn walk(&self, mut m: u32, segs: &[&str]) -> Option<u32> {
        for s in segs {
            m = *self.ix.mods[m as usize].children.get(*s)?;
        }
        Some(m)
    }

    /// An absolute module name, as imported from file `from`.
    fn resolve_abs(&self, dotted: &str, from: FileIdx) -> Option<u32> {
        let segs: Vec<&str> = dotted.split('.').filter(|s| !s.is_empty()).collect();
        if segs.is_empty() {
            return None;
        }
        let mut namespace = None;
        let mut try_root = |root: u32| -> Option<u32> {
            let m = self.walk(root, &segs)?;
            if !self.ix.mods[m as usize].files.is_empty() {
                return Some(m);
            }
            namespace.get_or_insert(m);
            None
        };
        if let Some(m) = try_root(0) {
            return Some(m);
        }
        if let Some(&src) = self.ix.mod_by_path.get("src") {
            if let Some(m) = try_root(src) {
                return Some(m);
            }
        }
        if STDLIB.binary_search(&segs[0]).is_ok() {
            return None;
        }
        let dir = parent_dir(self.world.file(from).path);
        if let Some(&d) = self.ix.mod_by_path.get(dir) {
            if d != 0 {
                if let Some(m) = try_root(d) {
                    return Some(m);
                }
            }
        }
        for &r in self.ix.extra_roots.get(segs[0]).into_iter().flatten() {
            if let Some(m) = try_root(r) {
                return Some(m);
            }
        }
        namespace
    }

    /// The module an import statement names.
    fn import_module(&self, f: FileIdx, imp: &Import) -> Option<u32> {
        if imp.level == 0 {
            return self.resolve_abs(&imp.module, f);
        }
        let mut dir = parent_dir(self.world.file(f).path);
        for _ in 1..imp.level {
            if dir.is_empty() {
                return None;
            }
            dir = parent_dir(dir);
        }
        let base = *self.ix.mod_by_path.get(dir)?;
        let segs: Vec<&str> = imp.module.split('.').filter(|s| !s.is_empty()).collect();
        self.walk(base, &segs)
    }

    /// What an import binds its name to.
    fn import_target(&self, f: FileIdx, imp: &Import, depth: u32) -> Option<Hit> {
        match &imp.kind {
            ImportKind::Plain => {
                let first = imp.module.split('.').next()?;
                let m = if imp.level == 0 {
                    self.resolve_abs(first, f)
                } else {
                    None
                };
                Some(Hit {
                    found: m.map(Found::Mod).unwrap_or(Found::External),
                    hops: 0,
                })
            }
            ImportKind::Alias(_) => Some(Hit {
                found: self
                    .import_module(f, imp)
                    .map(Found::Mod)
                    .unwrap_or(Found::External),
                hops: 0,
            }),
            ImportKind::From { name, .. } => match self.import_module(f, imp) {
                None => Some(Hit {
                    found: Found::External,
                    hops: 0,
                }),
                Some(m) => self.lookup_mod(m, name, depth + 1, true),
            },
            ImportKind::Star => None,
        }
    }

    /// A module-level name of file `f`, seen from inside the file.
    fn lookup_file(&self, f: FileIdx, name: &str, depth: u32) -> Option<Hit> {
        self.lookup_name(f, name, depth, Reader::Inside)
    }

    /// A module-level name of file `f`, as `reader` sees it. Another
    /// module passes over declarations in `except` clauses when there are
    /// others, as pyright: an import of the name (`try: from functools
    /// import cached_property` / `except ImportError: class
    /// cached_property` is the import) and an attribute of the module
    /// alike, except that an attribute takes a definition in an `except`
    /// clause over an import outside one (httpx's `try: from ._main import
    /// main` / `except ImportError: def main()`: `httpx.main` is the def).
    fn lookup_name(&self, f: FileIdx, name: &str, depth: u32, reader: Reader) -> Option<Hit> {
        if depth > MAX_DEPTH {
            return None;
        }
        let scope = self.scope(f)?;
        if let Some(bs) = self.names(f).get(name) {
            let in_except = |b: &Binding| match b {
                Binding::Def(d) => scope.except_defs.contains(d),
                Binding::Import(i) => scope.except_imports.contains(i),
                Binding::Var(_) => false,
            };
            // Whether a live binding outside `except` clauses, a def or
            // (`imports` true) an import, is there.
            let other_live = |imports: bool| {
                reader != Reader::Inside
                    && bs.iter().any(|b| {
                        !in_except(b)
                            && match b {
                                Binding::Def(d) => !scope.dead_defs.contains(d),
                                Binding::Import(i) => imports && !scope.imports[*i as usize].dead,
                                Binding::Var(_) => false,
                            }
                    })
            };
            let skip_except = other_live(true);
            let skip_except_defs = other_live(reader == Reader::Import);
            // Conditional definitions: the last reachable one, as pyright.
            let live = |b: &&Binding| match b {
                Binding::Def(d) => {
                    let passed_over = skip_except_defs && in_except(b);
                    !scope.dead_defs.contains(d) && !passed_over
                }
                _ => false,
            };
            if let Some(Binding::Def(d)) = bs.iter().rev().find(live) {
                return Some(Hit {
                    found: Found::Def(SymId { file: f, def: *d }),
                    hops: 0,
                });
            }
            // Live imports before unreachable definitions.
            for b in bs.iter().rev() {
                if let Binding::Import(i) = b {
                    let imp = &scope.imports[*i as usize];
                    if imp.dead || (skip_except && in_except(b)) {
                        continue;
                    }
                    if let Some(h) = self.import_target(f, imp, depth + 1) {
                        return Some(Hit {
                            found: h.found,
                            hops: h.hops + 1,
                        });
                    }
                }
            }
            // A reachable assignment before unreachable definitions (`if
            // TYPE_CHECKING: Json = Annotated[…]` / `else: class Json`).
            let live_var = bs.iter().find(|b| match b {
                Binding::Var(v) => scope.vars.get(*v as usize).is_some_and(|x| !x.dead),
                _ => false,
            });
            if let Some(Binding::Var(v)) = live_var {
                return Some(Hit {
                    found: Found::Var(f, *v),
                    hops: 0,
                });
            }
            if let Some(Binding::Def(d)) = bs.iter().rev().find(|b| matches!(b, Binding::Def(_))) {
                return Some(Hit {
                    found: Found::Def(SymId { file: f, def: *d }),
                    hops: 0,
                });
            }
            if let Some(Binding::Var(v)) = bs.iter().find(|b| matches!(b, Binding::Var(_))) {
                return Some(Hit {
                    found: Found::Var(f, *v),
                    hops: 0,
                });
            }
        }
        // The last star import binding the name, one in code pyright
        // takes as reachable first (trio's `elif sys.platform == "linux"`
        // epoll import, not the kqueue one in the dead `elif` after it).
        for dead in [false, true] {
            for imp in scope.imports.iter().rev() {
                if imp.scope != 0 || imp.kind != ImportKind::Star || imp.dead != dead {
                    continue;
                }
                let Some(m) = self.import_module(f, imp) else {
                    continue;
                };
                if !self.module_exports(m, name) {
                    continue;
                }
                if let Some(h) = self.lookup_mod(m, name, depth + 1, false) {
                    return Some(Hit {
                        found: h.found,
                        hops: h.hops + 1,
                    });
                }
            }
        }
        None
    }

    /// Does `from m import *` bind `name`? Those `__all__` lists (a
    /// private name too: networkx's `__all__ = ["_dispatchable"]`), else
    /// every public name.
    fn module_exports(&self, m: u32, name: &str) -> bool {
        for f in &self.ix.mods[m as usize].files {
            if let Some(all) = self.scope(*f).and_then(|s| s.all.as_ref()) {
                return all.iter().any(|a| a == name);
            }
        }
        !name.starts_with('_')
    }

    /// A name in module `m`: in one of its files, else a submodule.
    fn lookup_mod(&self, m: u32, name: &str, depth: u32, submodules: bool) -> Option<Hit> {
        self.lookup_mod_as(m, name, depth, submodules, Reader::Import)
    }

    /// [`Self::lookup_mod`] as `reader` sees the module's names.
    fn lookup_mod_as(
        &self,
        m: u32,
        name: &str,
        depth: u32,
        submodules: bool,
        reader: Reader,
    ) -> Option<Hit> {
        let module = &self.ix.mods[m as usize];
        for f in &module.files {
            if let Some(h) = self.lookup_name(*f, name, depth, reader) {
                return Some(h);
            }
        }
        if submodules {
            if let Some(&c) = module.children.get(name) {
                return Some(Hit {
                    found: Found::Mod(c),
                    hops: 0,
                });
            }
        }
        None
    }

    fn def_val(&self, sym: SymId, recv: Option<SymId>, depth: u32) -> Val {
        match self.world.def(sym).kind {
            NodeKind::Class => Val::Class(sym),
            NodeKind::Module => Val::Unknown,
            _ => {
                if self.func_flags(sym) & PROPERTY != 0 {
                    self.returns(sym, recv, depth + 1)
                } else if let Some(c) = self.decorated(sym, depth + 1) {
                    Val::Inst(c)
                } else {
                    Val::Func { sym, recv }
                }
            }
        }
    }

    /// The class of what a function's decorators make of it
    /// (`@click.group()` makes a `Group`, `@cli.command()` a `Command`):
    /// the class its topmost decorator returns, passing over decorators
    /// that return the type they are given (`@click.option(…)`).
    fn decorated(&self, sym: SymId, depth: u32) -> Option<SymId> {
        if depth > MAX_DEPTH {
            return None;
        }
        let &i = self.tables(sym.file).func_idx.get(&sym.def)?;
        let func = &self.scope(sym.file)?.funcs[i as usize];
        for deco in &func.decos {
            if deco.path.is_empty() {
                return None;
            }
            let f = sym.file;
            let Val::Func { sym: d, .. } = self.eval_path(f, &deco.path, None, depth + 1) else {
                return None;
            };
            match self.result_class(d, depth + 1)? {
                (Some(c), false) => return Some(c),
                // `cls=AliasedGroup` is what a TypeVar there stands for.
                (c, true) if !deco.cls.is_empty() => {
                    match self.eval_path(f, &deco.cls, None, depth + 1) {
                        Val::Class(k) => return Some(k),
                        _ => return c,
                    }
                }
                (Some(c), true) => return Some(c),
                (None, _) => continue,
            }
        }
        None
    }

    /// The class a decorator returns an instance of, directly or through
    /// the callable it returns (`-> Group`, `-> Callable[[F], Group]`),
    /// when its declared returns (every `@overload`'s) name one class,
    /// with whether some return a TypeVar instead (what the decorator is
    /// given, or a class chosen by an argument); `(None, true)` when all
    /// do. `None` when anything else is declared, or nothing.
    fn result_class(&self, d: SymId, depth: u32) -> Option<(Option<SymId>, bool)> {
        let set = self.overloads(d).unwrap_or_else(|| vec![d]);
        let mut class = None;
        let mut typevar = false;
        for o in set {
            let &i = self.tables(o.file).func_idx.get(&o.def)?;
            let t = self.scope(o.file)?.funcs[i as usize].ret.as_ref()?;
            if t.call || !matches!(t.cont, Cont::One | Cont::Returns) {
                return None;
            }
            if !t.path.contains('.') && self.is_typevar(o.file, &t.path, depth) {
                typevar = true;
                continue;
            }
            match self.eval_path(o.file, &t.path, None, depth + 1) {
                Val::Class(c) if class.is_none_or(|k| k == c) => class = Some(c),
                _ => return None,
            }
        }
        Some((class, typevar))
    }

    fn func_flags(&self, sym: SymId) -> u8 {
        self.func(sym).map_or(0, |f| f.flags)
    }

    /// What the extractor recorded of function `sym`'s signature, if any.
    fn func(&self, sym: SymId) -> Option<&Func> {
        let &i = self.tables(sym.file).func_idx.get(&sym.def)?;
        self.scope(sym.file)?.funcs.get(i as usize)
    }

    fn hit_val(&self, h: Hit, depth: u32) -> Val {
        match h.found {
            Found::Def(s) => self.def_val(s, None, depth),
            Found::Mod(m) => Val::Module(m),
            Found::External => Val::External,
            Found::Var(f, v) => self.var_val(f, v, depth),
        }
    }

    /// A module variable's value, as another file or a function sees it:
    /// what its assignments agree on, or the union of the classes they
    /// make (as [`Resolver::combine`] has it for this file's own uses).
    fn var_val(&self, f: FileIdx, v: u32, depth: u32) -> Val {
        let Some(scope) = self.scope(f) else {
            return Val::Unknown;
        };
        let name = &scope.vars[v as usize].name;
        let Some(bindings) = self.names(f).get(name.as_str()) else {
            return Val::Unknown;
        };
        let mut vals: Vec<Val> = Vec::new();
        let vars = bindings.iter().filter_map(|b| match b {
            Binding::Var(i) => scope.vars.get(*i as usize),
            _ => None,
        });
        for var in vars {
            let val = match &var.ty {
                Some(t) => self.eval_typeref(f, t, None, depth + 1),
                None => Val::Unknown,
            };
            if val == Val::Unknown {
                return val;
            }
            if !vals.contains(&val) {
                vals.push(val);
            }
        }
        match vals[..] {
            [] => Val::Unknown,
            [v] => v,
            _ if vals
                .iter()
                .all(|v| matches!(v, Val::Inst(_) | Val::External)) =>
            {
                self.union(vals)
            }
            _ => Val::Unknown,
        }
    }

    /// A dotted path in the module scope of file `f` (`@self.x`: an
    /// attribute of the class `self_cls`).
    fn eval_path(&self, f: FileIdx, path: &str, self_cls: Option<SymId>, depth: u32) -> Val {
        if depth > MAX_DEPTH {
            return Val::Unknown;
        }
        let mut segs = path.split('.');
        let Some(first) = segs.next() else {
            return Val::Unknown;
        };
        let mut v = match (first, self_cls) {
            (SELF_PATH, Some(c)) => Val::Inst(c),
            (CLS_PATH, Some(c)) => Val::Class(c),
            (SELF_PATH | CLS_PATH, None) => Val::Unknown,
            _ => match self.lookup_file(f, first, depth + 1) {
                Some(h) => self.hit_val(h, depth + 1),
                None => Val::External,
            },
        };
        for s in segs {
            v = match self.member(v, s, f, depth + 1) {
                Member::Def(sym, _) => self.def_val(sym, member_recv(v), depth + 1),
                Member::Value(x) => x,
                Member::NotFound | Member::Unknown => Val::Unknown,
                Member::External => Val::External,
            };
        }
        v
    }

    fn eval_typeref(&self, f: FileIdx, t: &TypeRef, self_cls: Option<SymId>, depth: u32) -> Val {
        if depth > MAX_DEPTH {
            return Val::Unknown;
        }
        if t.path == LITERAL_PATH {
            return Val::External;
        }
        if t.path == UNKNOWN_PATH {
            return Val::Unknown;
        }
        let parts = || {
            t.parts
                .iter()
                .map(|p| self.eval_typeref(f, p, self_cls, depth + 1))
                .collect()
        };
        if t.path == UNION_PATH {
            return annotate_as(self.union(parts()), t.cont);
        }
        if t.path == TUPLE_PATH {
            let n = self.tuple(parts());
            return match t.cont {
                Cont::One => Val::Tuple(n),
                Cont::Seq => Val::TupleSeq(n),
                _ => Val::External,
            };
        }
        if t.path == "Self" || t.path.ends_with(".Self") {
            return self_cls.map(Val::Inst).unwrap_or(Val::Unknown);
        }

        let v = self.eval_path(f, &t.path, self_cls, depth + 1);
        if let Cont::Unpacked(i) = t.cont {
            let v = if t.call { self.call(v, depth + 1) } else { v };
            return self.unpacked(v, i);
        }
        if t.call {
            // (Called in a list or dict literal: `Cont::Seq`, `Cont::Map`.)
            match (t.cont, self.call(v, depth + 1)) {
                (Cont::Seq, Val::Inst(x)) => Val::Seq(x),
                (Cont::Map, Val::Inst(x)) => Val::Map(x),
                (Cont::Seq | Cont::Map, _) => Val::External,
                (_, v) => v,
            }
        } else {
            annotate_as(v, t.cont)
        }
    }

    fn is_typevar(&self, f: FileIdx, name: &str, depth: u32) -> bool {
        let Some(Hit {
            found: Found::Var(vf, v),
            ..
        }) = self.lookup_file(f, name, depth + 1)
        else {
            return false;
        };
        self.scope(vf)
            .and_then(|s| s.vars.get(v as usize))
            .and_then(|var| var.ty.as_ref())
            .is_some_and(|ty| ty.call && (ty.path == "TypeVar" || ty.path.ends_with(".TypeVar")))
    }

    /// What calling `sym` returns. A function with `@overload` signatures
    /// returns what the overload pyright picks for the arguments returns:
    /// the one type they all declare, else nothing we know (the
    /// implementation's own return type is never what a caller sees).
    fn returns(&self, sym: SymId, recv: Option<SymId>, depth: u32) -> Val {
        let Some(set) = self.overloads(sym) else {
            return self.declared_return(sym, recv, depth);
        };
        let mut out = None;
        for o in set {
            let v = self.declared_return(o, recv, depth + 1);
            match out {
                None => out = Some(v),
                Some(p) if p == v => {}
                Some(_) => return Val::Unknown,
            }
        }
        out.unwrap_or(Val::Unknown)
    }

    /// The `@overload` signatures of the function set `sym` belongs to
    /// (the definitions of its name in the module or class that holds
    /// it), or `None` when it has none.
    fn overloads(&self, sym: SymId) -> Option<Vec<SymId>> {
        let def = self.world.def(sym);
        let parent = def.parent?;
        let defs: Vec<u32> = if parent == 0 {
            self.names(sym.file)
                .get(def.name.as_str())?
                .iter()
                .filter_map(|b| match b {
                    Binding::Def(d) => Some(*d),
                    _ => None,
                })
                .collect()
        } else {
            self.tables(sym.file)
                .members
                .get(&parent)?
                .get(def.name.as_str())?
                .clone()
        };
        if defs.len() < 2 {
            return None;
        }
        let set: Vec<SymId> = defs
            .into_iter()
            .map(|d| SymId {
                file: sym.file,
                def: d,
            })
            .filter(|s| self.func_flags(*s) & OVERLOAD != 0)
            .collect();
        (!set.is_empty()).then_some(set)
    }

    fn declared_return(&self, sym: SymId, recv: Option<SymId>, depth: u32) -> Val {
        let Some(&i) = self.tables(sym.file).func_idx.get(&sym.def) else {
            return Val::Unknown;
        };
        let Some(scope) = self.scope(sym.file) else {
            return Val::Unknown;
        };
        let func = &scope.funcs[i as usize];
        let owner = self.world.def(sym).parent.map(|p| SymId {
            file: sym.file,
            def: p,
        });
        let owner = owner.filter(|o| self.world.def(*o).kind == NodeKind::Class);
        match &func.ret {
            // `def __enter__(self: T) -> T` with `T = TypeVar("T", …)`;
            // another TypeVar (`-> V` of a generic class, `-> T` solved
            // from an argument) is nothing we know.
            // (`-> dict[K, V]`: a builtin container, whatever V is.)
            Some(t)
                if !t.call
                    && t.cont == Cont::One
                    && !t.path.contains('.')
                    && self.is_typevar(sym.file, &t.path, depth) =>
            {
                if func.flags & SELF_TYPED != 0 {
                    recv.or(owner).map(Val::Inst).unwrap_or(Val::Unknown)
                } else {
                    Val::Unknown
                }
            }
            Some(t) => self.eval_typeref(sym.file, t, recv.or(owner), depth + 1),
            None => Val::Unknown,
        }
    }

    fn call(&self, v: Val, depth: u32) -> Val {
        match v {
            Val::Class(c) => Val::Inst(c),
            // An instance whose class defines `__call__` (a callback
            // protocol, a factory object): what that method returns.
            Val::Inst(c) => match self.member(v, "__call__", c.file, depth + 1) {
                Member::Def(s, _) => self.returns(s, Some(c), depth + 1),
                _ => Val::Unknown,
            },
            Val::Func { sym, recv } => self.returns(sym, recv, depth + 1),
            Val::ContMethod(m, c) => match m {
                ContMethod::Elem => Val::Inst(c),
                ContMethod::Seq => Val::Seq(c),
                ContMethod::Map => Val::Map(c),
                ContMethod::Items => Val::Items(c),
            },
            Val::TupleMethod(n) => Val::Tuple(n),
            Val::Maker(c) => Val::Inst(c),
            Val::External
            | Val::Seq(_)
            | Val::Map(_)
            | Val::UnionSeq(_)
            | Val::UnionMap(_)
            | Val::Items(_)
            | Val::Tuple(_)
            | Val::TupleSeq(_) => Val::External,
            _ => Val::Unknown,
        }
    }

    /// What `await v` gives. A call of an `async def` is what it returns
    /// already; an instance whose class defines `__await__` (aiohttp's
    /// `_RequestContextManager`, a `Coroutine` awaited for the response it
    /// makes) gives what that generator returns, which is not modelled:
    /// unknown, not the awaitable itself.
    fn awaited(&self, v: Val) -> Val {
        let awaitable = |p: Val| {
            matches!(p, Val::Inst(c) if matches!(
                self.member(p, "__await__", c.file, 0),
                Member::Def(..)
            ))
        };
        match v {
            Val::Union(n) if self.union_parts(n).into_iter().any(awaitable) => Val::Unknown,
            v if awaitable(v) => Val::Unknown,
            v => v,
        }
    }

    /// The value of one of `parts`: the part itself when they all agree,
    /// unknown when one is unknown.
    fn union(&self, parts: Vec<Val>) -> Val {
        let mut unique: Vec<Val> = Vec::new();
        for p in parts {
            match p {
                Val::Unknown => return Val::Unknown,
                p if !unique.contains(&p) => unique.push(p),
                _ => {}
            }
        }
        match unique.len() {
            0 => Val::Unknown,
            1 => unique[0],
            _ => {
                let mut us = self.unions.borrow_mut();
                if let Some(n) = us.iter().position(|u| *u == unique) {
                    return Val::Union(n as u32);
                }
                us.push(unique);
                Val::Union((us.len() - 1) as u32)
            }
        }
    }

    fn union_parts(&self, n: u32) -> Vec<Val> {
        self.unions
            .borrow()
            .get(n as usize)
            .cloned()
            .unwrap_or_default()
    }

    /// The tuple value of these parts (the same parts, the same value).
    fn tuple(&self, parts: Vec<Val>) -> u32 {
        let mut ts = self.tuples.borrow_mut();
        if let Some(n) = ts.iter().position(|t| *t == parts) {
            return n as u32;
        }
        ts.push(parts);
        (ts.len() - 1) as u32
    }

    /// Part `i` of tuple `n`; any part (`u32::MAX`, an index not written
    /// as a literal) is known when all parts agree.
    fn tuple_part(&self, n: u32, i: u32) -> Val {
        let ts = self.tuples.borrow();
        let Some(parts) = ts.get(n as usize) else {
            return Val::Unknown;
        };
        match parts.get(i as usize) {
            Some(v) => *v,
            // (Parts that differ are a union we cannot name: a builtin
            // for members, as the whole tuple was before its parts were
            // known, unless some part is unknown.)
            None => match parts.split_first() {
                Some((first, rest)) if rest.iter().all(|p| p == first) => *first,
                _ if parts.contains(&Val::Unknown) => Val::Unknown,
                _ => Val::External,
            },
        }
    }

    /// Part `i` of unpacking a value (`a, b = v`): an element of a
    /// sequence, that part of a tuple; any part of a builtin is a builtin.
    fn unpacked(&self, v: Val, i: u32) -> Val {
        match v {
            Val::Seq(c) => Val::Inst(c),
            Val::UnionSeq(n) => Val::Union(n),
            Val::TupleSeq(n) => Val::Tuple(n),
            Val::Tuple(n) => self.tuple_part(n, i),
            Val::External | Val::Map(_) | Val::UnionMap(_) | Val::Items(_) => Val::External,
            _ => Val::Unknown,
        }
    }

    /// What subscripting a value gives (`item`: with an integer literal).
    fn index(&self, v: Val, item: Option<u32>) -> Val {
        match v {
            Val::Class(x) => Val::Class(x),
            Val::Seq(x) | Val::Map(x) => Val::Inst(x),
            Val::UnionSeq(n) | Val::UnionMap(n) => Val::Union(n),
            Val::TupleSeq(n) => Val::Tuple(n),
            Val::Tuple(n) => self.tuple_part(n, item.unwrap_or(u32::MAX)),
            Val::External => Val::External,
            _ => Val::Unknown,
        }
    }

    /// Classes in method resolution order (depth-first, left to right,
    /// each once), and whether some base is not an in-repo class.
    fn mro(&self, c: SymId) -> (Vec<SymId>, bool) {
        let mut out = Vec::new();
        let mut open = false;
        let mut stack = vec![c];
        while let Some(x) = stack.pop() {
            if out.contains(&x) || out.len() > 64 {
                continue;
            }
            out.push(x);
            if let Some(bs) = self.bases(x) {
                for b in bs.iter().rev() {
                    match b {
                        Some(s) => stack.push(*s),
                        None => open = true,
                    }
                }
            }
        }
        (out, open)
    }

    /// Attribute `name` of value `v`, accessed from file `from`.
    fn member(&self, v: Val, name: &str, from: FileIdx, depth: u32) -> Member {
        if depth > MAX_DEPTH {
            return Member::Unknown;
        }
        match v {
            Val::Module(m) => match self.lookup_mod_as(m, name, depth + 1, false, Reader::Attr) {
                Some(Hit {
                    found: Found::Def(s),
                    hops,
                }) => Member::Def(s, hops),
                Some(h) => match h.found {
                    Found::External => Member::External,
                    _ => Member::Value(self.hit_val(h, depth + 1)),
                },
                None => match self.ix.mods[m as usize].children.get(name) {
                    Some(&c) if self.submodule_visible(c, from) => Member::Value(Val::Module(c)),
                    // A submodule nobody imported: pyright does not know it.
                    Some(_) => Member::External,
                    None => Member::NotFound,
                },
            },
            Val::Class(c) | Val::Inst(c) | Val::Super(c) => {
                let (mro, open) = self.mro(c);
                let skip = usize::from(matches!(v, Val::Super(_)));
                // pyright looks for a declaration first (a def, an annotated
                // attribute) along the whole MRO, and only then for an
                // attribute that is merely assigned: `self.debug = x` in a
                // subclass is the base's `debug` property, not a new name.
                // (The second pass looks at assigned attributes only: a
                // def would have been found by the first.)
                for declared in [true, false] {
                    for cls in mro.iter().skip(skip) {
                        let def = declared
                            .then(|| {
                                self.tables(cls.file)
                                    .members
                                    .get(&cls.def)
                                    .and_then(|m| m.get(name))
                            })
                            .flatten();
                        // An unreachable def (the `else:` of `if
                        // TYPE_CHECKING:`) yields to a reachable one, and
                        // to an annotation in the reachable branch.
                        let scope = self.scope(cls.file);
                        let dead = |d: &u32| scope.is_some_and(|s| s.dead_defs.contains(d));
                        let def = def.map(|ds| *ds.iter().find(|d| !dead(d)).unwrap_or(&ds[0]));
                        let def = def.filter(|d| {
                            !dead(d)
                                || !self
                                    .class_attrs(*cls)
                                    .iter()
                                    .any(|a| a.name == name && is_declared(a) && !a.dead)
                        });
                        if let Some(d) = def {
                            return Member::Def(
                                SymId {
                                    file: cls.file,
                                    def: d,
                                },
                                0,
                            );
                        }
                        let attr = self
                            .class_attrs(*cls)
                            .iter()
                            .find(|a| a.name == name && (!declared || is_declared(a)));
                        if let Some(a) = attr {
                            return Member::Value(match &a.ty {
                                Some(t) => self.eval_typeref(cls.file, t, Some(c), depth + 1),
                                None => Val::Unknown,
                            });
                        }
                    }
                }
                // `def __getattr__(self, name) -> HookCaller` (pluggy's
                // `HookRelay`): any other attribute of an instance is what
                // it returns.
                // (Not past an outside base: pyright finds the name there.)
                if matches!(v, Val::Inst(_)) && !open && !name.starts_with("__") {
                    let getattr = mro.iter().find_map(|cls| {
                        let ds = self
                            .tables(cls.file)
                            .members
                            .get(&cls.def)?
                            .get("__getattr__")?;
                        Some(SymId {
                            file: cls.file,
                            def: *ds.last()?,
                        })
                    });
                    // Only an in-repo value: `return getattr(self._wrapped,
                    // name)` (django's `ConnectionProxy`) is anything.
                    if let Some(g) = getattr {
                        match self.returns(g, Some(c), depth + 1) {
                            Val::Unknown | Val::External => {}
                            r => return Member::Value(r),
                        }
                    }
                }
                if open || OBJECT_ATTRS.contains(&name) {
                    Member::External
                } else {
                    Member::NotFound
                }
            }
            Val::Seq(_) | Val::Map(_) => container_member(v, name),
            // (Their methods that give an element are not followed.)
            Val::UnionSeq(_) | Val::UnionMap(_) => Member::External,
            Val::TupleSeq(n) if name == "pop" => Member::Value(Val::TupleMethod(n)),
            Val::Func { .. }
            | Val::Maker(_)
            | Val::External
            | Val::Items(_)
            | Val::ContMethod(..)
            | Val::Tuple(_)
            | Val::TupleSeq(_)
            | Val::TupleMethod(_) => Member::External,
            Val::Unknown if OBJECT_ATTRS.contains(&name) => Member::External,
            Val::Unknown => Member::Unknown,
            // One member for all parts, or none known (the resolver's
            // `attr` answers each part's at a site).
            Val::Union(n) => {
                let mut one = None;
                for p in self.union_parts(n) {
                    match self.member(p, name, from, depth + 1) {
                        Member::Def(s, h) if one.is_none_or(|(o, _)| o == s) => {
                            one = Some((s, h));
                        }
                        _ => return Member::Unknown,
                    }
                }
                one.map_or(Member::Unknown, |(s, h)| Member::Def(s, h))
            }
        }
    }
}

impl<'a, 'w> Ctx<'a, 'w> {
    /// The attributes of class `c` (declared and assigned).
    fn class_attrs(&self, c: SymId) -> &[Var] {
        self.tables(c.file)
            .class_idx
            .get(&c.def)
            .and_then(|&ci| {
                Some(
                    self.scope(c.file)?
                        .classes
                        .get(ci as usize)?
                        .attrs
                        .as_slice(),
                )
            })
            .unwrap_or_default()
    }

    fn submodule_visible(&self, m: u32, from: FileIdx) -> bool {
        self.stage != Stage::Visible
            && (self.ix.visible_subs.contains(&m)
                || self.file_imports(from).binary_search(&m).is_ok())
    }

    /// File `f`'s classes and functions, indexed once, when first asked.
    fn tables(&self, f: FileIdx) -> &'a Tables<'w> {
        let ix: &'a Index<'w> = self.ix;
        ix.tables[f.0 as usize].get_or_init(|| file_tables(self.world, f))
    }

    /// File `f`'s module-level bindings, computed once, when first asked.
    fn names(&self, f: FileIdx) -> &'a HashMap<&'w str, Vec<Binding>> {
        let ix: &'a Index<'w> = self.ix;
        ix.names[f.0 as usize].get_or_init(|| file_names(self.world, f))
    }

    /// The resolved bases of class `c` (none while bases are being
    /// resolved: see [`Stage`]). A file's classes are resolved together,
    /// in the scope of that file, the first time one of them is asked for.
    fn bases(&self, c: SymId) -> Option<&'a [Option<SymId>]> {
        if self.stage == Stage::Bases {
            return None;
        }
        let ix: &'a Index<'w> = self.ix;
        let k = *self.tables(c.file).class_idx.get(&c.def)? as usize;
        let all = ix.bases[c.file.0 as usize].get_or_init(|| {
            let ctx = Ctx {
                world: self.world,
                ix,
                stage: Stage::Bases,
                tuples: RefCell::new(Vec::new()),
                unions: RefCell::new(Vec::new()),
            };
            let classes = py_scope(self.world, c.file).map_or(&[][..], |s| &s.classes[..]);
            classes
                .iter()
                .map(|cls| {
                    cls.bases
                        .iter()
                        .filter(|b| b.as_str() != "object")
                        .map(|b| match ctx.eval_path(c.file, b, None, 0) {
                            Val::Class(s) => Some(s),
                            _ => None,
                        })
                        .collect()
                })
                .collect()
        });
        all.get(k).map(Vec::as_slice)
    }

    /// The modules file `f`'s `import a.b.c` and `import a.b.c as d`
    /// statements load, with their packages (sorted). Computed once per
    /// file, when first asked: no index depends on it.
    fn file_imports(&self, f: FileIdx) -> &'a [u32] {
        let ix: &'a Index = self.ix;
        let Some(cell) = ix.file_imports.get(f.0 as usize) else {
            return &[];
        };
        cell.get_or_init(|| {
            let mut imported = Vec::new();
            let Some(scope) = py_scope(self.world, f) else {
                return imported;
            };
            for imp in &scope.imports {
                if !matches!(imp.kind, ImportKind::Plain | ImportKind::Alias(_)) {
                    continue;
                }
                let mut x = self.import_module(f, imp);
                while let Some(m) = x {
                    imported.push(m);
                    x = ix.mods[m as usize].parent;
                }
            }
            imported.sort_unstable();
            imported.dedup();
            imported
        })
    }
}

/// An attribute with a declared type (an annotation), which pyright finds
/// before any attribute that is only assigned.
fn is_declared(a: &Var) -> bool {
    a.ty.as_ref().is_some_and(|t| {
        !t.call && !matches!(t.cont, Cont::Value | Cont::Subscript | Cont::Unpacked(_))
    })
}

/// Who reads a module-level name ([`Ctx::lookup_name`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// Code of the module itself.
    Inside,
    /// An import of the name (`from m import name`, `from m import *`).
    Import,
    /// An attribute of the module (`m.name`).
    Attr,
}

fn member_recv(v: Val) -> Option<SymId> {
    match v {
        Val::Inst(c) | Val::Class(c) | Val::Super(c) => Some(c),
        _ => None,
    }
}

/// The value of a name used as an annotation.
fn annotate(v: Val) -> Val {
    match v {
        Val::Class(c) => Val::Inst(c),
        // (Its parts are annotated already.)
        Val::Union(n) => Val::Union(n),
        Val::External => Val::External,
        _ => Val::Unknown,
    }
}

/// The value of an annotation naming a container of `v`: the container is
/// a builtin, its elements are instances of `v`.
fn annotate_as(v: Val, cont: Cont) -> Val {
    match (cont, v) {
        (Cont::Value, _) => return v,
        (Cont::Class, Val::Class(_) | Val::External) => return v,
        (Cont::Class, _) => return Val::Unknown,
        // What subscripting the object gives (as `Op::Index`).
        (Cont::Subscript, Val::Class(_) | Val::External) => return v,
        (Cont::Subscript, Val::Seq(c) | Val::Map(c)) => return Val::Inst(c),
        (Cont::Subscript, Val::UnionSeq(n) | Val::UnionMap(n)) => return Val::Union(n),
        (Cont::Subscript, Val::TupleSeq(n)) => return Val::Tuple(n),
        (Cont::Subscript, _) => return Val::Unknown,
        _ => {}
    }
    match (cont, annotate(v)) {
        (Cont::One | Cont::Value, x) => x,
        (Cont::Seq, Val::Inst(c)) => Val::Seq(c),
        (Cont::Map, Val::Inst(c)) => Val::Map(c),
        (Cont::Returns, Val::Inst(c)) => Val::Maker(c),
        // A container of a union's values (`List[NL]`, `NL = Union[Node,
        // Leaf]`).
        (Cont::Seq, Val::Union(n)) => Val::UnionSeq(n),
        (Cont::Map, Val::Union(n)) => Val::UnionMap(n),
        (_, Val::Union(_)) => Val::Unknown,
        _ => Val::External,
    }
}

/// A builtin container's attribute.
fn container_member(v: Val, name: &str) -> Member {
    let m = match (v, name) {
        (Val::Seq(c), "pop") | (Val::Map(c), "get" | "pop" | "setdefault") => {
            Some((ContMethod::Elem, c))
        }
        (Val::Seq(c), "copy") | (Val::Map(c), "values") => Some((ContMethod::Seq, c)),
        (Val::Map(c), "copy") => Some((ContMethod::Map, c)),
        (Val::Map(c), "items") => Some((ContMethod::Items, c)),
        _ => None,
    };
    match m {
        Some((m, c)) => Member::Value(Val::ContMethod(m, c)),
        None => Member::External,
    }
}

#[derive(Clone, Copy)]
enum State {
    Todo,
    Busy,
    Done(V),
}

struct Resolver<'a, 'w> {
    cx: Ctx<'a, 'w>,
    file: FileIdx,
    scope: &'a Scope,
    refs: &'a Refs,
    chains: RefCell<Vec<State>>,
    locals: RefCell<Vec<State>>,
    /// Module-level variables of this file: sources by name, and values.
    global_srcs: std::cell::OnceCell<HashMap<&'a str, Vec<Src>>>,
    global_vals: RefCell<HashMap<String, State>>,
    /// Whether a star import of this file comes from outside the repository.
    opaque_star: std::cell::OnceCell<bool>,
    /// Depth of nested chain evaluations.
    nesting: std::cell::Cell<u32>,
    /// Set when an evaluation met a variable that is being evaluated.
    cycle: std::cell::Cell<bool>,
    out: RefCell<FileResolution>,
}

pub fn resolve_file<'w>(
    world: &World<'w>,
    index: &Index<'w>,
    file: FileIdx,
    refs: &Refs,
) -> FileResolution {
    let Some(scope) = py_scope(world, file) else {
        return FileResolution::default();
    };
    let r = Resolver {
        cx: Ctx {
            world,
            ix: index,
            stage: Stage::Resolve,
            tuples: RefCell::new(Vec::new()),
            unions: RefCell::new(Vec::new()),
        },
        file,
        scope,
        refs,
        chains: RefCell::new(vec![State::Todo; refs.chains.len()]),
        locals: RefCell::new(vec![State::Todo; refs.locals.len()]),
        cycle: std::cell::Cell::new(false),
        nesting: std::cell::Cell::new(0),
        opaque_star: std::cell::OnceCell::new(),
        global_srcs: std::cell::OnceCell::new(),
        global_vals: RefCell::new(HashMap::new()),
        out: RefCell::new(FileResolution::default()),
    };
    r.imports();
    r.all_sites();
    for i in 0..refs.chains.len() {
        r.chain(i as u32, true);
    }
    r.fixtures();
    r.out.into_inner()
}

impl Resolver<'_, '_> {
    fn sym(&self, def: u32) -> SymId {
        SymId {
            file: self.file,
            def,
        }
    }

    fn edge(&self, src: u32, dst: SymId, kind: EdgeKind, strategy: Strategy, site: Pos) {
        self.out.borrow_mut().edges.push(ResolvedEdge {
            src: self.sym(src),
            dst,
            kind,
            strategy,
            site: Some(site),
        });
    }

    /// Report a site only when its name is some in-repo Python definition.
    fn unresolved(&self, src: u32, name: &str, kind: EdgeKind, site: Pos, reason: String) {
        if self.cx.world.named(name, Family::Python).is_empty() {
            return;
        }
        self.out.borrow_mut().unresolved.push(Unresolved {
            src,
            name: name.to_string(),
            kind,
            site,
            reason,
        });
    }

    fn module_file(&self, m: u32) -> Option<SymId> {
        self.cx.ix.mods[m as usize]
            .files
            .first()
            .map(|f| SymId { file: *f, def: 0 })
    }

    fn imports(&self) {
        for imp in &self.scope.imports {
            let m = self.cx.import_module(self.file, imp);
            if let Some(dst) = m.and_then(|m| self.module_file(m)) {
                self.edge(
                    imp.scope,
                    dst,
                    EdgeKind::Imports,
                    Strategy::Import,
                    imp.module_pos,
                );
            }
            let (
                Some(m),
                ImportKind::From {
                    name,
                    pos,
                    same_alias,
                    ..
                },
            ) = (m, &imp.kind)
            else {
                continue;
            };
            match self.cx.lookup_mod(m, name, 1, true) {
                Some(Hit {
                    found: Found::Def(s),
                    hops,
                }) => {
                    let strategy = if hops == 0 {
                        Strategy::Import
                    } else {
                        Strategy::ReExport
                    };
                    self.edge(imp.scope, s, EdgeKind::References, strategy, *pos);
                    if let Some(alias) = same_alias {
                        self.edge(imp.scope, s, EdgeKind::References, strategy, *alias);
                    }
                }
                Some(Hit {
                    found: Found::Mod(sub),
                    ..
                }) => {
                    if let Some(dst) = self.module_file(sub) {
                        self.edge(imp.scope, dst, EdgeKind::Imports, Strategy::Import, *pos);
                    }
                }
                Some(_) => {}
                None => self.unresolved(
                    imp.scope,
                    name,
                    EdgeKind::References,
                    *pos,
                    "not found in module".into(),
                ),
            }
        }
    }

    /// `__all__ = ["name", …]`: each entry references the module's name.
    fn all_sites(&self) {
        for (name, pos) in &self.refs.all_sites {
            if let Some(Hit {
                found: Found::Def(s),
                hops,
            }) = self.cx.lookup_file(self.file, name, 0)
            {
                let strategy = match hops {
                    0 => Strategy::Local,
                    1 => Strategy::Import,
                    _ => Strategy::ReExport,
                };
                self.edge(0, s, EdgeKind::References, strategy, *pos);
            }
        }
    }

    /// Does a star import of this file come from outside the repository?
    fn opaque_star(&self) -> bool {
        *self.opaque_star.get_or_init(|| {
            self.scope.imports.iter().any(|i| {
                i.scope == 0
                    && i.kind == ImportKind::Star
                    && self.cx.import_module(self.file, i).is_none()
            })
        })
    }

    /// Evaluate chain `i`; with `emit`, record an edge for each name in it.
    fn chain(&self, i: u32, emit: bool) -> V {
        let idx = i as usize;
        if !emit {
            match self.chains.borrow()[idx] {
                State::Done(v) => return v,
                State::Busy => {
                    // `node = node.next()` met while `node.next()` itself is
                    // evaluated: as cyclic as meeting the variable.
                    self.cycle.set(true);
                    return V::new(Val::Unknown, How::Typed);
                }
                State::Todo => {}
            }
        }
        // Long dependency chains between variables: give up, not overflow.
        if self.nesting.get() > 64 {
            return V::new(Val::Unknown, How::Typed);
        }
        self.chains.borrow_mut()[idx] = State::Busy;
        let c = &self.refs.chains[idx];
        self.nesting.set(self.nesting.get() + 1);
        let v = self.eval(c, emit);
        self.nesting.set(self.nesting.get() - 1);
        self.chains.borrow_mut()[idx] = State::Done(v);
        v
    }

    /// The edge kind of the name followed by op `next`.
    fn kind_at(c: &Chain, next: usize) -> EdgeKind {
        match c.ops.get(next) {
            Some(Op::Call) => EdgeKind::Calls,
            _ => {
                let last_name = !c.ops[next.min(c.ops.len())..]
                    .iter()
                    .any(|o| matches!(o, Op::Attr(..) | Op::Call));
                if c.extends && last_name {
                    EdgeKind::Extends
                } else {
                    EdgeKind::References
                }
            }
        }
    }

    fn eval(&self, c: &Chain, emit: bool) -> V {
        let kind = Self::kind_at(c, 0);
        let mut v = match &c.root {
            Root::Global(name) => match self.cx.lookup_file(self.file, name, 0) {
                Some(h) => {
                    if let (true, Found::Def(s)) = (emit, h.found) {
                        let strategy = match h.hops {
                            0 => Strategy::Local,
                            1 => Strategy::Import,
                            _ => Strategy::ReExport,
                        };
                        self.edge(c.src, s, kind, strategy, c.pos);
                    }
                    match h.found {
                        Found::Var(f, _) if f == self.file => self.global(name),
                        _ => {
                            let how = if h.hops > 1 { How::ReExp } else { How::Syn };
                            V::new(self.cx.hit_val(h, 0), how)
                        }
                    }
                }
                None => {
                    if emit && self.opaque_star() {
                        self.unresolved(c.src, name, kind, c.pos, "no definition in scope".into());
                    }
                    V::new(Val::External, How::Syn)
                }
            },
            Root::Def(d) => {
                let s = self.sym(*d);
                if emit {
                    self.edge(c.src, s, kind, Strategy::Local, c.pos);
                }
                V::new(self.cx.def_val(s, None, 0), How::Syn)
            }
            Root::Import(i) => {
                let imp = &self.scope.imports[*i as usize];
                match self.cx.import_target(self.file, imp, 0) {
                    Some(h) => {
                        if let (true, Found::Def(s)) = (emit, h.found) {
                            let strategy = if h.hops == 0 {
                                Strategy::Import
                            } else {
                                Strategy::ReExport
                            };
                            self.edge(c.src, s, kind, strategy, c.pos);
                        }
                        let how = if h.hops > 0 { How::ReExp } else { How::Syn };
                        V::new(self.cx.hit_val(h, 0), how)
                    }
                    None => V::new(Val::Unknown, How::Syn),
                }
            }
            Root::Local(l) => self.local(*l),
            Root::SelfParam { class, cls } => {
                let s = self.sym(*class);
                V::new(if *cls { Val::Class(s) } else { Val::Inst(s) }, How::SelfM)
            }
            Root::Super { class } => V::new(Val::Super(self.sym(*class)), How::SelfM),
            Root::Narrowed { class, prior } => {
                let to = annotate(self.chain(*class, false).val);
                let before = (*prior != u32::MAX).then(|| (self.local(*prior).val, *prior));
                V::new(self.narrowed(before, to), How::Typed)
            }
            Root::External => V::new(Val::External, How::Syn),
            Root::Binary { left, op, right } => V::new(self.binary(*left, *op, *right), How::Typed),
            Root::Unknown => V::new(Val::Unknown, How::Typed),
        };
        for (k, op) in c.ops.iter().enumerate() {
            v = match op {
                Op::Call => V::new(self.call_at(c, k, v.val), v.how.max(How::Typed)),
                Op::Index => V::new(self.cx.index(v.val, None), v.how),
                Op::Item(i) => V::new(self.cx.index(v.val, Some(*i)), v.how),
                Op::Attr(name, pos) => self.attr(c, v, name, *pos, Self::kind_at(c, k + 1), emit),
                Op::Await => V::new(self.cx.awaited(v.val), v.how),
            };
        }
        v
    }

    /// What the call at `c.ops[k]` of `v` gives: an instance of the class
    /// passed as a `type[T]` argument ([`Self::type_arg_class`]), else
    /// what calling `v` gives.
    fn call_at(&self, c: &Chain, k: usize, v: Val) -> Val {
        if let Val::Func { sym, .. } = v {
            if let Some(class) = self.type_arg_class(c, k, sym) {
                return Val::Inst(class);
            }
        }
        self.cx.call(v, 0)
    }

    /// A function (or one of its overloads) whose parameter is `type[T]`
    /// and which returns `T`, a TypeVar, called at `c.ops[k]` with a class
    /// there: that class (textual's `app.query_one(TextArea)`, pyright's
    /// solved TypeVar).
    fn type_arg_class(&self, c: &Chain, k: usize, sym: SymId) -> Option<SymId> {
        // (Most calls with a name argument are of functions with no such
        // parameter and no overloads: no overload set is gathered for them.)
        let f = self.cx.func(sym)?;
        if (f.type_args.is_empty() && f.flags & OVERLOAD == 0)
            || !c.args.iter().any(|a| a.0 as usize == k)
        {
            return None;
        }
        let set = self.cx.overloads(sym).unwrap_or_else(|| vec![sym]);
        set.into_iter().find_map(|o| {
            let f = self.cx.func(o)?;
            let ret = f.ret.as_ref()?;
            if f.type_args.is_empty() || !self.cx.is_typevar(o.file, &ret.path, 0) {
                return None;
            }
            f.type_args.iter().find_map(|&at| {
                let &(_, _, arg) = c.args.iter().find(|a| a.0 as usize == k && a.1 == at)?;
                match self.chain(arg, false).val {
                    Val::Class(class) => Some(class),
                    _ => None,
                }
            })
        })
    }

    /// What a binary operator gives: the return value of the left
    /// operand's dunder method (`__truediv__`), else of the right one's
    /// reflected method (`__rtruediv__`). Between builtins (`tmp_path /
    /// "x"`, `name + suffix`) it is a builtin, unless the right operand is
    /// an instance whose class may reflect it.
    fn binary(&self, left: Operand, op: BinOp, right: Operand) -> Val {
        let val = |o: Operand| match o {
            Operand::Chain(c) => self.chain(c, false).val,
            Operand::Literal => Val::External,
            Operand::Other => Val::Unknown,
        };
        let (dunder, reflected) = op.dunders();
        // The right operand's reflected method: `None` when it is no
        // instance or its class has no such method.
        let reflect = || match val(right) {
            r @ Val::Inst(c) => match self.cx.member(r, reflected, self.file, 0) {
                Member::Def(s, _) => Some(self.cx.returns(s, Some(c), 0)),
                Member::NotFound => None,
                _ => Some(Val::Unknown),
            },
            _ => None,
        };
        let l = val(left);
        match l {
            Val::Inst(c) => match self.cx.member(l, dunder, self.file, 0) {
                Member::Def(s, _) => self.cx.returns(s, Some(c), 0),
                Member::NotFound => reflect().unwrap_or(Val::Unknown),
                _ => Val::Unknown,
            },
            // `items + more`: still a sequence of the same class when both
            // are.
            Val::Seq(c) if op == BinOp::Add => match val(right) {
                Val::Seq(d) if d == c => Val::Seq(c),
                _ => Val::Unknown,
            },
            Val::External => reflect().unwrap_or(Val::External),
            _ => Val::Unknown,
        }
    }

    fn attr(&self, c: &Chain, v: V, name: &str, pos: Pos, kind: EdgeKind, emit: bool) -> V {
        if let Val::Union(n) = v.val {
            return self.union_attr(c, n, name, pos, kind, emit);
        }
        match self.cx.member(v.val, name, self.file, 0) {
            Member::Def(s, hops) => {
                let (strategy, how) = match v.val {
                    Val::Module(_) => {
                        if v.how == How::Typed {
                            (Strategy::TypedReceiver, How::Typed)
                        } else if hops > 0 {
                            (Strategy::ReExport, v.how.max(How::ReExp))
                        } else {
                            (Strategy::Path, v.how)
                        }
                    }
                    Val::Class(_) => (
                        match v.how {
                            How::Syn => Strategy::Path,
                            How::ReExp => Strategy::ReExport,
                            How::SelfM => Strategy::SelfMember,
                            How::Typed => Strategy::TypedReceiver,
                        },
                        v.how,
                    ),
                    Val::Super(_) => (Strategy::SelfMember, How::SelfM),
                    _ => {
                        if v.how == How::SelfM {
                            (Strategy::SelfMember, How::SelfM)
                        } else {
                            (Strategy::TypedReceiver, How::Typed)
                        }
                    }
                };
                if emit {
                    self.edge(c.src, s, kind, strategy, pos);
                }
                V::new(self.cx.def_val(s, member_recv(v.val), 0), how)
            }
            // A submodule is as certain as its package; data is inferred.
            Member::Value(x @ Val::Module(_)) => V::new(x, v.how),
            Member::Value(x) => V::new(x, v.how.max(How::Typed)),
            Member::External => V::new(Val::External, v.how),
            Member::NotFound => {
                if emit {
                    let reason = match v.val {
                        Val::Module(_) => "not found in module",
                        _ => "not found on type",
                    };
                    self.unresolved(c.src, name, kind, pos, reason.into());
                }
                V::new(Val::Unknown, How::Typed)
            }
            Member::Unknown => {
                if emit {
                    self.guess(c.src, name, kind, pos);
                }
                V::new(Val::Unknown, How::Typed)
            }
        }
    }

    /// A member of a union's value (`x: A | B`, `x.m()`): each part's, as
    /// pyright answers it; a part without it (a `str`'s) adds nothing. A
    /// part of unknown type makes it a guess.
    fn union_attr(&self, c: &Chain, n: u32, name: &str, pos: Pos, kind: EdgeKind, emit: bool) -> V {
        let mut defs: Vec<SymId> = Vec::new();
        let mut vals = Vec::new();
        let mut outside = false;
        for p in self.cx.union_parts(n) {
            match self.cx.member(p, name, self.file, 0) {
                Member::Def(s, _) => {
                    if !defs.contains(&s) {
                        defs.push(s);
                    }
                    vals.push(self.cx.def_val(s, member_recv(p), 0));
                }
                Member::Value(x) => vals.push(x),
                Member::External => outside = true,
                Member::NotFound => {}
                Member::Unknown => {
                    if emit {
                        self.guess(c.src, name, kind, pos);
                    }
                    return V::new(Val::Unknown, How::Typed);
                }
            }
        }
        if emit {
            for &s in &defs {
                self.edge(c.src, s, kind, Strategy::TypedReceiver, pos);
            }
            if defs.is_empty() && vals.is_empty() && !outside {
                self.unresolved(c.src, name, kind, pos, "not found on type".into());
            }
        }
        if outside {
            vals.push(Val::External);
        }
        V::new(self.cx.union(vals), How::Typed)
    }

    /// A member of a receiver of unknown type: every method of that name.
    /// Data attributes of that name and methods of the builtin types count
    /// as candidates too (they get no edge, but lower the confidence).
    fn guess(&self, src: u32, name: &str, kind: EdgeKind, pos: Pos) {
        let (cands, attrs): (Cow<[SymId]>, u32) = match self.cx.world.source() {
            Some(s) => (
                Cow::Owned(s.python_methods(name)),
                s.python_class_attrs(name),
            ),
            None => (
                Cow::Borrowed(self.cx.ix.methods.get(name).map_or(&[][..], Vec::as_slice)),
                self.cx.ix.attr_counts.get(name).copied().unwrap_or(0),
            ),
        };
        let others = attrs + u32::from(BUILTIN_METHODS.contains(&name));
        let k = cands.len() as u32 + others;
        // A read that is no call (`self._prev.text`) where classes hold a
        // data attribute of that name is likelier that attribute than a
        // method taken as a value: only properties stay candidates (with
        // their setters, `@debug.setter`, defs of the same class).
        let cands: Cow<[SymId]> = if kind != EdgeKind::Calls && attrs > 0 {
            let class = |c: SymId| self.cx.world.head(c).parent.map(|p| (c.file, p));
            let props: Vec<_> = cands
                .iter()
                .filter(|&&c| self.cx.func_flags(c) & PROPERTY != 0)
                .map(|&c| class(c))
                .collect();
            cands
                .iter()
                .copied()
                .filter(|&c| props.contains(&class(c)))
                .collect()
        } else {
            cands
        };
        // A class written inside a test function stays there: its methods
        // are no guess for a receiver outside that test (but still say
        // how common the name is). Asked only when edges would be made:
        // it reads each candidate's file.
        let cands: Cow<[SymId]> =
            if k <= MAX_CANDIDATES && COMMON_BUILTIN_METHODS.binary_search(&name).is_err() {
                cands
                    .iter()
                    .copied()
                    .filter(|&c| !self.in_other_test(src, c))
                    .collect()
            } else {
                cands
            };
        if cands.is_empty() {
            self.unresolved(src, name, kind, pos, "unknown receiver".into());
        } else if COMMON_BUILTIN_METHODS.binary_search(&name).is_ok() {
            let reason = "unknown receiver, common method name";
            self.unresolved(src, name, kind, pos, reason.into());
        } else if k > MAX_CANDIDATES {
            self.unresolved(src, name, kind, pos, format!("{k} candidates"));
        } else {
            for s in cands.iter() {
                self.edge(src, *s, kind, Strategy::Member { k }, pos);
            }
        }
    }

    /// Whether method `m` is of a class defined in a test function that
    /// does not enclose `src` (a def of this file).
    fn in_other_test(&self, src: u32, m: SymId) -> bool {
        let heads = self.cx.world.heads(m.file);
        let Some(test) = heads
            .get(m.def as usize)
            .and_then(|h| h.parent)
            .and_then(|class| heads.enclosing_test(class))
        else {
            return false;
        };
        m.file != self.file || heads.up_to(src, |d, _| d == test).is_none()
    }

    /// What `isinstance(x, C)` leaves `x`, an instance of in-repo class
    /// `S` before (`before`: that value and the local): still an `S` when
    /// `S` is a `C` already, or when `C` is no in-repo class and `x` was
    /// assigned an `S` (pyright: `MultiDict` after `isinstance(md, dict)`,
    /// werkzeug's tests; not an annotation's `S`, which may stand for a
    /// union whose other members the check picks), else a `C`.
    fn narrowed(&self, before: Option<(Val, u32)>, to: Val) -> Val {
        match (before, to) {
            (Some((Val::Inst(s), l)), Val::External) => {
                let assigned = self.refs.locals[l as usize].iter().all(|s| {
                    !matches!(
                        s,
                        Src::Annot(..) | Src::Param | Src::Inherited(..) | Src::Unknown
                    )
                });
                if assigned {
                    Val::Inst(s)
                } else {
                    to
                }
            }
            (Some((Val::Inst(s), _)), Val::Inst(c)) if self.cx.mro(s).0.contains(&c) => {
                Val::Inst(s)
            }
            // `x: A | B` then `isinstance(x, A)`: the parts that are `A`s.
            (Some((Val::Union(n), _)), Val::Inst(c)) => {
                let parts: Vec<Val> = self
                    .cx
                    .union_parts(n)
                    .into_iter()
                    .filter(|p| matches!(p, Val::Inst(s) if self.cx.mro(*s).0.contains(&c)))
                    .collect();
                if parts.is_empty() {
                    to
                } else {
                    self.cx.union(parts)
                }
            }
            _ => to,
        }
    }

    /// A local variable's value: its annotation, else its assignments when
    /// they agree (literals only count when nothing else is assigned).
    fn local(&self, l: u32) -> V {
        let idx = l as usize;
        match self.locals.borrow()[idx] {
            State::Done(v) => return v,
            State::Busy => {
                self.cycle.set(true);
                return V::new(Val::Unknown, How::Typed);
            }
            State::Todo => {}
        }
        self.locals.borrow_mut()[idx] = State::Busy;
        let v = V::new(self.combine(&self.refs.locals[idx]), How::Typed);
        self.locals.borrow_mut()[idx] = State::Done(v);
        v
    }

    /// A module-level variable of this file, from all its assignments.
    fn global(&self, name: &str) -> V {
        if let Some(state) = self.global_vals.borrow().get(name) {
            match *state {
                State::Done(v) => return v,
                State::Busy => {
                    self.cycle.set(true);
                    return V::new(Val::Unknown, How::Typed);
                }
                State::Todo => {}
            }
        }
        self.global_vals
            .borrow_mut()
            .insert(name.to_string(), State::Busy);
        let index = self.global_srcs.get_or_init(|| {
            let mut m: HashMap<&str, Vec<Src>> = HashMap::new();
            for (n, s) in &self.refs.globals {
                m.entry(n.as_str()).or_default().push(*s);
            }
            m
        });
        let srcs = index.get(name).map(Vec::as_slice).unwrap_or(&[]);
        let v = V::new(self.combine(srcs), How::Typed);
        self.global_vals
            .borrow_mut()
            .insert(name.to_string(), State::Done(v));
        v
    }

    /// A variable's value from its sources: its annotation, else its
    /// assignments when they agree, or the union of the instances they
    /// make (literals only count when nothing else is assigned).
    fn combine(&self, srcs: &[Src]) -> Val {
        let inherited = || {
            srcs.iter().find_map(|s| match *s {
                Src::Inherited(m, i) => Some(self.inherited(m, i)).filter(|v| *v != Val::Unknown),
                _ => None,
            })
        };
        if let Some(Src::Annot(c, k)) = srcs.iter().find(|s| matches!(s, Src::Annot(..))) {
            self.annotated(*c, *k)
        } else if let Some(v) = inherited() {
            v
        } else {
            let mut vals: Vec<Val> = Vec::new();
            let mut external = false;
            for s in srcs {
                let outer = self.cycle.replace(false);
                let val = match s {
                    Src::Value(c) => self.chain(*c, false).val,
                    Src::External => {
                        external = true;
                        continue;
                    }
                    // Counted only when nothing else is assigned.
                    Src::Param => continue,
                    Src::Iter(c) => match self.chain(*c, false).val {
                        Val::Seq(x) => Val::Inst(x),
                        Val::UnionSeq(n) => Val::Union(n),
                        Val::TupleSeq(n) => Val::Tuple(n),
                        Val::Tuple(n) => self.cx.tuple_part(n, u32::MAX),
                        Val::External | Val::Map(_) | Val::UnionMap(_) | Val::Items(_) => {
                            Val::External
                        }
                        _ => Val::Unknown,
                    },
                    Src::IterPart(c, i) => match self.chain(*c, false).val {
                        Val::Items(x) if *i == 1 => Val::Inst(x),
                        Val::TupleSeq(n) => self.cx.tuple_part(n, *i),
                        Val::Tuple(n) => self.cx.unpacked(self.cx.tuple_part(n, u32::MAX), *i),
                        Val::External | Val::Map(_) | Val::Items(_) => Val::External,
                        _ => Val::Unknown,
                    },
                    Src::Enter(c, is_async) => self.enter(self.chain(*c, false).val, *is_async),
                    Src::Part(c, i) => self.cx.unpacked(self.chain(*c, false).val, *i),
                    Src::LitOf(c, map) => match (map, self.chain(*c, false).val) {
                        (false, Val::Inst(x)) => Val::Seq(x),
                        (true, Val::Inst(x)) => Val::Map(x),
                        _ => Val::External,
                    },
                    Src::SeqOf(c) => match self.chain(*c, false).val {
                        Val::Seq(x) => Val::Seq(x),
                        Val::TupleSeq(n) => Val::TupleSeq(n),
                        _ => Val::External,
                    },
                    Src::Either(a, b) => {
                        let a = self.chain(*a, false).val;
                        if a == self.chain(*b, false).val {
                            a
                        } else {
                            Val::Unknown
                        }
                    }
                    Src::Annot(..) | Src::Inherited(..) | Src::Unknown => Val::Unknown,
                };
                // `x = x.next()`: a source that depends on the variable
                // itself says nothing new about its type.
                let cyclic = self.cycle.replace(outer);
                if cyclic && val == Val::Unknown {
                    continue;
                }
                if !vals.contains(&val) {
                    vals.push(val);
                }
            }
            match vals[..] {
                [] if external => Val::External,
                [] => Val::Unknown,
                [v] => v,
                // Instances of different classes (`if directed: g =
                // nx.DiGraph()` / `else: g = nx.Graph()`): one of them,
                // as pyright's declared type.
                _ if vals
                    .iter()
                    .all(|v| matches!(v, Val::Inst(_) | Val::External)) =>
                {
                    self.cx.union(vals)
                }
                _ => Val::Unknown,
            }
        }
    }

    /// An unannotated parameter `i` of method `Refs::method_sigs[m]`: the
    /// annotation of the same parameter of the method it overrides, the
    /// first along the MRO past its class, when that is one function whose
    /// parameters have the same names and kinds (pyright's rule).
    fn inherited(&self, m: u32, i: u32) -> Val {
        let Some(sig) = self.refs.method_sigs.get(m as usize) else {
            return Val::Unknown;
        };
        let method = self.sym(sig.def);
        let def = self.cx.world.def(method);
        let Some(class) = def.parent.filter(|&p| p != 0).map(|p| self.sym(p)) else {
            return Val::Unknown;
        };
        let Member::Def(base, _) = self.cx.member(Val::Super(class), &def.name, self.file, 0)
        else {
            return Val::Unknown;
        };
        if self.cx.overloads(base).is_some() {
            return Val::Unknown;
        }
        let params = self
            .cx
            .tables(base.file)
            .func_idx
            .get(&base.def)
            .and_then(|&fi| self.cx.scope(base.file)?.funcs.get(fi as usize))
            .map(|f| f.params.as_slice())
            .unwrap_or_default();
        let same = params.len() == sig.params.len()
            && params
                .iter()
                .zip(&sig.params)
                .all(|(a, b)| a.name == b.name && a.kind == b.kind);
        match params.get(i as usize).and_then(|p| p.ty.as_ref()) {
            Some(t) if same => self.cx.eval_typeref(base.file, t, Some(class), 0),
            _ => Val::Unknown,
        }
    }

    /// What an annotation declares, whose principal type chain is `c`: a
    /// fixed-size tuple (or a sequence of them) has a value per part.
    fn annotated(&self, c: u32, k: Cont) -> Val {
        if let Ok(i) = self.refs.unions.binary_search_by_key(&c, |(u, _)| *u) {
            if matches!(k, Cont::One | Cont::Seq | Cont::Map) {
                let parts = self.refs.unions[i]
                    .1
                    .iter()
                    .map(|&(pc, pk)| self.annotated(pc, pk))
                    .collect();
                // (`list[A | B]`: a sequence of the union.)
                return annotate_as(self.cx.union(parts), k);
            }
        }
        let tuple = self
            .refs
            .tuples
            .binary_search_by_key(&c, |(t, _)| *t)
            .ok()
            .map(|i| &self.refs.tuples[i].1)
            .filter(|_| matches!(k, Cont::One | Cont::Seq));
        let Some(parts) = tuple else {
            return annotate_as(self.chain(c, false).val, k);
        };
        let vals = parts
            .iter()
            .map(|p| match p {
                Some((pc, pk)) => self.annotated(*pc, *pk),
                None => Val::Unknown,
            })
            .collect();
        let n = self.cx.tuple(vals);
        if k == Cont::Seq {
            Val::TupleSeq(n)
        } else {
            Val::Tuple(n)
        }
    }

    /// What `with v as x` binds: `__enter__`'s return value (`async with`:
    /// `__aenter__`'s).
    fn enter(&self, v: Val, is_async: bool) -> Val {
        match v {
            Val::Inst(c) => {
                let name = if is_async { "__aenter__" } else { "__enter__" };
                match self.cx.member(v, name, self.file, 0) {
                    Member::Def(s, _) => self.cx.returns(s, Some(c), 0),
                    Member::External => Val::External,
                    _ => Val::Unknown,
                }
            }
            Val::External | Val::Tuple(_) => Val::External,
            // A `@contextmanager` function's `Iterator[X]` (or
            // `Iterator[tuple[…]]`), and a `ContextManager[X]` (read as a
            // sequence of X): no sequence is entered otherwise.
            Val::Seq(c) => Val::Inst(c),
            Val::UnionSeq(n) => Val::Union(n),
            Val::TupleSeq(n) => Val::Tuple(n),
            _ => Val::Unknown,
        }
    }

    /// Test and fixture parameters named like a visible fixture. pytest
    /// injects them by name: a rule the language server does not know, so
    /// these are `NameUnique` guesses, not syntactic edges.
    fn fixtures(&self) {
        for p in &self.refs.fixture_params {
            if let Some((s, strategy)) = self.fixture(&p.name) {
                self.edge(p.def, s, EdgeKind::References, strategy, p.pos);
            }
        }
    }

    fn fixture(&self, name: &str) -> Option<(SymId, Strategy)> {
        let is_fixture = |s: SymId| self.cx.func_flags(s) & FIXTURE != 0;
        if let Some(h) = self.cx.lookup_file(self.file, name, 0) {
            if let Found::Def(s) = h.found {
                if is_fixture(s) {
                    return Some((s, Strategy::NameUnique));
                }
            }
        }
        let mut dir = parent_dir(self.cx.world.file(self.file).path);
        loop {
            if let Some(&f) = self.cx.ix.conftests.get(dir) {
                if f != self.file {
                    if let Some(Hit {
                        found: Found::Def(s),
                        ..
                    }) = self.cx.lookup_file(f, name, 0)
                    {
                        if is_fixture(s) {
                            return Some((s, Strategy::NameUnique));
                        }
                    }
                }
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent_dir(dir);
        }
    }
}

/// The path components that name a Python file's module, its import
/// root still in front: `src/flask/app.py` gives `src`, `flask`, `app`; a
/// package's `__init__.py` is named by its folder (the flag says so).
pub fn module_path(path: &str) -> (Vec<&str>, bool) {
    let s = path
        .strip_suffix(".pyi")
        .or_else(|| path.strip_suffix(".py"))
        .unwrap_or(path);
    let mut parts: Vec<&str> = s.split('/').collect();
    let is_init = parts.last() == Some(&"__init__");
    if is_init {
        parts.pop();
    }
    (parts, is_init)
}

/// `pkg/sub/mod.py` → `pkg.sub.mod`, rooted at the first directory upward
/// without an `__init__.py` that no package holds; `pkg/__init__.py` →
/// `pkg`. A directory without one inside a package is a namespace package
/// of it (`flask/sansio/app.py` under `flask/__init__.py` is
/// `flask.sansio.app`: Python finds `sansio` on `flask.__path__`).
pub fn module_key(path: &str, layout: &Layout) -> String {
    let (parts, is_init) = module_path(path);
    if is_init && parts.is_empty() {
        return "__init__".to_string();
    }
    // Components of the directory that contains the module.
    let dir_len = if is_init {
        parts.len()
    } else {
        parts.len() - 1
    };
    let is_package = |n: usize| {
        let dir = parts[..n].join("/");
        layout.files.contains(&format!("{dir}/__init__.py"))
            || layout.files.contains(&format!("{dir}/__init__.pyi"))
    };
    let mut start = dir_len;
    while start > 0 {
        if !is_package(start) && !(1..start).any(is_package) {
            break;
        }
        start -= 1;
    }
    if is_init && start == dir_len {
        // An `__init__.py` the layout does not list: its own directory.
        start = dir_len - 1;
    }
    parts[start..].join(".")
}

#[cfg(test)]
mod tests;
