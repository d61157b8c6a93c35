//! TypeScript / JavaScript: scope and import rules → edges.
//!
//! The extractor bound every site's name by the file's own scopes into an
//! [`Expr`]; this module evaluates those expressions across files:
//! module specifiers ([`modules`]), named/default/namespace imports,
//! `export { a as b } from` and `export * from` chains (barrels),
//! CommonJS `module.exports`, class members and base classes, field,
//! variable and return types. A member call on a receiver of unknown type
//! falls back to the in-repo methods of that name (`Member { k }`), except
//! for names so common on builtins (`map`, `push`, `then`, …) that a guess
//! would mostly be wrong.

mod declmap;
mod modules;
pub use modules::{built_outputs, source_conditions};

use std::collections::HashMap;

use rayon::prelude::*;

use super::{
    grade, FileIdx, FileResolution, ResolvedEdge, Strategy, SymId, Unresolved, World,
    MAX_CANDIDATES,
};
use crate::extract::typescript::{
    callback_alias, callback_param, Export, Expr, Field, Imported, Refs, Scope, SiteKind,
    AT_PROPERTY, CJS_PROPERTY, DEFAULT, DESTRUCTURED, EXPORT_EQUALS, NS_ANY, NS_TYPE, NS_VALUE,
    SIGNATURE,
};
use crate::extract::{Family, Lang, LangScope};
use crate::graph::{EdgeKind, NodeKind, Pos};
pub use modules::Target;

/// Method names of builtins (arrays, strings, promises, maps, events,
/// streams): on a receiver of unknown type they are not guessed.
const COMMON_METHODS: &[&str] = &[
    "add",
    "all",
    "apply",
    "assign",
    "at",
    "bind",
    "call",
    "catch",
    "charAt",
    "clear",
    "close",
    "concat",
    "create",
    "debug",
    "delete",
    "emit",
    "end",
    "endsWith",
    "entries",
    "error",
    "every",
    "exec",
    "fill",
    "filter",
    "finally",
    "find",
    "findIndex",
    "flat",
    "flatMap",
    "forEach",
    "from",
    "get",
    "has",
    "includes",
    "indexOf",
    "info",
    "join",
    "json",
    "keys",
    "lastIndexOf",
    "length",
    "log",
    "map",
    "match",
    "next",
    "of",
    "off",
    "on",
    "once",
    "open",
    "parse",
    "pipe",
    "pop",
    "push",
    "read",
    "reduce",
    "reject",
    "replace",
    "resolve",
    "reverse",
    "send",
    "set",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "split",
    "startsWith",
    "stringify",
    "substring",
    "test",
    "then",
    "toLowerCase",
    "toString",
    "toUpperCase",
    "trim",
    "unshift",
    "values",
    "valueOf",
    "warn",
    "write",
];

const MAX_DEPTH: u32 = 24;

/// Array methods whose callback takes an element first.
const ELEMENT_CALLBACKS: &[&str] = &[
    "forEach",
    "map",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "some",
    "every",
    "flatMap",
];

/// Array and map methods whose result is one element (a map's value).
const ELEMENT_RESULTS: &[&str] = &["at", "find", "findLast", "get", "pop", "shift"];

/// Array methods whose result has the same elements.
const KEEP_ELEMENTS: &[&str] = &[
    "filter",
    "slice",
    "concat",
    "reverse",
    "sort",
    "toSorted",
    "toReversed",
];

/// Indexes built once per world.
pub struct Index {
    /// Per file: each specifier's target.
    specs: Vec<Vec<Target>>,
    /// Per file: (class-like parent, child) pairs, sorted.
    children: Vec<Vec<(u32, u32)>>,
    /// Ambient modules by name (`declare module 'x' { … }`): the first
    /// declaring file and the module's index in its `Scope::ambient`.
    ambient: HashMap<String, (FileIdx, u32)>,
    /// Global declarations by name (see `Scope::globals`), in file order:
    /// a namespace may be declared (merged) in several files.
    globals: HashMap<String, Vec<SymId>>,
    /// Declarations of a `.d.ts` built with a declaration map → the ones
    /// they were built from (see [`declmap`]).
    mapped: HashMap<SymId, SymId>,
}

/// Whether a file name is a declaration map (`index.d.ts.map`), which the
/// layout reads beside the manifests.
pub fn is_declaration_map(name: &str) -> bool {
    [".d.ts.map", ".d.mts.map", ".d.cts.map"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// What each declaration of the repository's `.d.ts` files that have a
/// declaration map was built from: the definition whose name starts where
/// the map says the declaration's name was written.
fn declaration_maps(world: &World) -> HashMap<SymId, SymId> {
    let mut out = HashMap::new();
    for (map_path, text) in &world.layout.manifests {
        let Some(dts) = map_path.strip_suffix(".map") else {
            continue;
        };
        if !is_declaration_map(map_path) {
            continue;
        }
        let Some(&file) = world.by_path.get(dts) else {
            continue;
        };
        let Some(map) = declmap::decode(text) else {
            continue;
        };
        let dir = dts.rsplit_once('/').map_or("", |(d, _)| d);
        // Each source's definitions by where their names start.
        type ByPos = HashMap<(u32, u32), u32>;
        let mut sources: HashMap<&str, Option<(FileIdx, ByPos)>> = HashMap::new();
        for (i, d) in world.defs(file).iter().enumerate().skip(1) {
            let at = (d.pos.line.saturating_sub(1), d.pos.column.saturating_sub(1));
            let Some((src, line, col)) = map.lookup(at.0, at.1) else {
                continue;
            };
            let source = sources.entry(src).or_insert_with(|| {
                let path = modules::join(dir, src);
                let &f = world.by_path.get(path.as_str())?;
                (f != file && world.file(f).lang.family() == Family::Script).then(|| {
                    let at = world.defs(f).iter().enumerate().skip(1);
                    (
                        f,
                        at.map(|(j, d)| ((d.pos.line, d.pos.column), j as u32))
                            .collect(),
                    )
                })
            });
            if let Some((f, at)) = source {
                if let Some(&j) = at.get(&(line + 1, col + 1)) {
                    out.insert(
                        SymId {
                            file,
                            def: i as u32,
                        },
                        SymId { file: *f, def: j },
                    );
                }
            }
        }
    }
    out
}

pub fn prepare(world: &World) -> Index {
    let mods = modules::Modules::new(world.layout);
    type PerFile = (Vec<Target>, Vec<(u32, u32)>);
    let per_file: Vec<PerFile> = world
        .files
        .par_iter()
        .enumerate()
        .map(|(i, f)| {
            if f.lang.family() != Family::Script {
                return (Vec::new(), Vec::new());
            }
            let idx = FileIdx(i as u32);
            let LangScope::Script(scope) = world.scope(idx) else {
                return (Vec::new(), Vec::new());
            };
            let defs = world.defs(idx);
            let specs = scope
                .specs
                .iter()
                .map(|s| {
                    if s.require {
                        mods.resolve_require(&world.by_path, f.path, &s.text)
                    } else {
                        mods.resolve(&world.by_path, f.path, &s.text)
                    }
                })
                .collect();
            let mut children: Vec<(u32, u32)> = defs
                .iter()
                .enumerate()
                .skip(1)
                .filter_map(|(i, d)| {
                    let p = d.parent?;
                    (p != 0 && defs[p as usize].kind == NodeKind::Class).then_some((p, i as u32))
                })
                .collect();
            children.sort_unstable();
            (specs, children)
        })
        .collect();
    let (specs, children) = per_file.into_iter().unzip();
    let mut ambient = HashMap::new();
    let mut globals: HashMap<String, Vec<SymId>> = HashMap::new();
    for (i, f) in world.files.iter().enumerate() {
        if f.lang.family() != Family::Script {
            continue;
        }
        let idx = FileIdx(i as u32);
        if let LangScope::Script(scope) = world.scope(idx) {
            for (m, a) in scope.ambient.iter().enumerate() {
                ambient.entry(a.spec.clone()).or_insert((idx, m as u32));
            }
            for &(name, def) in &scope.globals {
                let sym = SymId { file: idx, def };
                globals
                    .entry(scope.name(name).to_string())
                    .or_default()
                    .push(sym);
            }
        }
    }
    Index {
        specs,
        children,
        ambient,
        globals,
        mapped: declaration_maps(world),
    }
}

pub fn resolve_file(world: &World, index: &Index, file: FileIdx, refs: &Refs) -> FileResolution {
    let ev = Eval { world, index };
    let mut res = FileResolution::default();
    if ev.scope(file).is_none() {
        return res;
    }
    for (pos, spec) in &refs.modules {
        if let Some(Target::File(f)) = index.specs[file.0 as usize].get(*spec as usize) {
            res.edges.push(ResolvedEdge {
                src: SymId { file, def: 0 },
                dst: SymId { file: *f, def: 0 },
                kind: EdgeKind::Imports,
                strategy: Strategy::Path,
                site: Some(*pos),
            });
        }
    }
    for site in &refs.sites {
        let kind = match site.kind {
            SiteKind::Call => EdgeKind::Calls,
            SiteKind::Ref => EdgeKind::References,
            SiteKind::Extends => EdgeKind::Extends,
            SiteKind::Implements => EdgeKind::Implements,
        };
        let src = SymId {
            file,
            def: site.src,
        };
        let (val, strategy) = match &site.target {
            Expr::Member(recv, n) if !matches!(**recv, Expr::Free(_)) => {
                let (rv, rs) = ev.eval(file, recv, object_ns(site.ns), 0);
                let name = ev.name(file, *n);
                if matches!(rv, Val::Unknown) {
                    if site.kind == SiteKind::Call {
                        ev.guess_member(src, name, site.pos, &mut res);
                    }
                    continue;
                }
                ev.member(rv, rs, name, site.ns, 0)
            }
            t => ev.eval(file, t, site.ns, 0),
        };
        let dst = match val {
            Val::Sym(dst) => dst,
            Val::CallOnly(dst)
                if site.kind == SiteKind::Call && ev.kind(dst) == NodeKind::Function =>
            {
                dst
            }
            _ => continue,
        };
        {
            if dst.def == 0 {
                continue;
            }
            // What tsserver answers: the declaration a generated one was
            // built from.
            let dst = index.mapped.get(&dst).copied().unwrap_or(dst);
            res.edges.push(ResolvedEdge {
                src,
                dst,
                kind,
                strategy,
                site: Some(site.pos),
            });
        }
    }
    res
}

/// What an expression evaluates to across files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    /// An in-repo definition itself (a function, a class, a method).
    Sym(SymId),
    /// A definition reached through a variable or property holding it
    /// (`const string = ZodString.create`): usable as a receiver, but the
    /// language server defines such a name at the variable, so a site
    /// naming it gets no edge.
    Alias(SymId),
    /// A property of a CommonJS `module.exports = { … }` object: a call to
    /// it is a call of the function, any other use names the property.
    CallOnly(SymId),
    /// An instance of an in-repo class or interface.
    Inst(SymId),
    /// A module namespace (`import * as ns`).
    Module(FileIdx),
    /// An ambient module's namespace: the declaring file and the module's
    /// index in its `Scope::ambient`.
    Ambient(FileIdx, u32),
    /// The object literal held by a variable of the file (`const o = { … }`).
    Obj(FileIdx, u32),
    /// The function of a known type held by a variable of the file
    /// (`const succeed: <A>(a: A) => Effect<A> = …`).
    Fn(FileIdx, u32),
    /// Known not to be in the repository (or not findable there).
    External,
    /// Nothing known.
    Unknown,
}

impl Val {
    fn unalias(self) -> Val {
        match self {
            Val::Alias(s) | Val::CallOnly(s) => Val::Sym(s),
            v => v,
        }
    }
}

/// The one answer every overload gives (`None` when they differ or none
/// answers), with the strategy of the first.
fn agreed<T: PartialEq>(mut answers: impl Iterator<Item = (T, Strategy)>) -> Option<(T, Strategy)> {
    let first = answers.next()?;
    answers.all(|(t, _)| t == first.0).then_some(first)
}

fn alias(v: Val) -> Val {
    match v {
        Val::Sym(s) => Val::Alias(s),
        v => v,
    }
}

struct Eval<'a, 'w> {
    world: &'a World<'w>,
    index: &'a Index,
}

/// The weaker of an earlier step's strategy and this step's; on a tie the
/// step names it.
fn combine(prev: Strategy, step: Strategy) -> Strategy {
    if grade(prev).1 < grade(step).1 {
        prev
    } else {
        step
    }
}

impl<'a, 'w> Eval<'a, 'w> {
    fn scope(&self, f: FileIdx) -> Option<&'w Scope> {
        if self.world.file(f).lang.family() != Family::Script {
            return None;
        }
        match self.world.scope(f) {
            LangScope::Script(s) => Some(s),
            _ => None,
        }
    }

    fn name(&self, f: FileIdx, n: u32) -> &'w str {
        self.scope(f).map(|s| s.name(n)).unwrap_or("")
    }

    fn kind(&self, s: SymId) -> NodeKind {
        self.world.def(s).kind
    }

    fn eval(&self, f: FileIdx, e: &Expr, ns: u8, depth: u32) -> (Val, Strategy) {
        let local = Strategy::Local;
        if depth > MAX_DEPTH {
            return (Val::Unknown, local);
        }
        let Some(s) = self.scope(f) else {
            return (Val::Unknown, local);
        };
        match e {
            Expr::Unknown => (Val::Unknown, local),
            Expr::Global => (Val::External, local),
            // A global declaration of the repository, the first of its name.
            Expr::Free(n) => match self.index.globals.get(s.name(*n)).and_then(|g| g.first()) {
                Some(&g) => (Val::Sym(g), Strategy::Path),
                None => (Val::External, local),
            },
            // A member of a global namespace merged from several files
            // (`App.Error` beside `App.Locals`): the first that has it.
            Expr::Member(obj, n) if let Expr::Free(g) = &**obj => {
                let globals = self
                    .index
                    .globals
                    .get(s.name(*g))
                    .map_or(&[][..], |v| &v[..]);
                let name = s.name(*n);
                globals
                    .iter()
                    .map(|&g| self.member(Val::Sym(g), Strategy::Path, name, ns, depth + 1))
                    .find(|(v, _)| matches!(v, Val::Sym(_)))
                    .unwrap_or((Val::External, local))
            }
            // The module's own definition: CommonJS `exports` / `module.exports`.
            Expr::Def(0) => (Val::Module(f), local),
            Expr::Def(d) => (Val::Sym(SymId { file: f, def: *d }), local),
            Expr::Import(i) => self.import(f, s, *i, ns, depth),
            Expr::Var(v) => match s.vars.get(*v as usize) {
                Some(Expr::Object(_)) => (Val::Obj(f, *v), Strategy::TypedReceiver),
                Some(Expr::Returns(_)) => (Val::Fn(f, *v), Strategy::TypedReceiver),
                Some(e) => {
                    let (val, st) = self.eval(f, e, ns, depth + 1);
                    (alias(val), combine(st, Strategy::TypedReceiver))
                }
                None => (Val::Unknown, local),
            },
            Expr::This(c) => (Val::Inst(SymId { file: f, def: *c }), Strategy::SelfMember),
            Expr::Super(c) => {
                let Some(info) = class_info(s, *c) else {
                    return (Val::External, local);
                };
                match info.bases.first() {
                    Some(b) => {
                        let (v, _) = self.eval(f, b, NS_ANY, depth + 1);
                        match v.unalias() {
                            Val::Sym(b) if self.kind(b) == NodeKind::Class => {
                                (Val::Sym(b), Strategy::SelfMember)
                            }
                            _ => (Val::External, local),
                        }
                    }
                    None => (Val::External, local),
                }
            }
            Expr::Require(spec) if let Some((t, m)) = self.ambient_for(f, *spec) => {
                (Val::Ambient(t, m), Strategy::Import)
            }
            Expr::Require(spec) => match self.index.specs[f.0 as usize].get(*spec as usize) {
                Some(Target::File(t)) => {
                    let (v, st) = self.module_value(*t, depth);
                    (v, combine(st, Strategy::Import))
                }
                _ => (Val::External, Strategy::Import),
            },
            Expr::Member(obj, n) => {
                let (rv, rs) = self.eval(f, obj, object_ns(ns), depth + 1);
                self.member(rv, rs, s.name(*n), ns, depth + 1)
            }
            Expr::Call(callee) => {
                // One element of an array or map (`m.get(k)`, `xs.at(0)`).
                if let Expr::Member(xs, n) = &**callee {
                    if ELEMENT_RESULTS.contains(&s.name(*n)) {
                        if let Some((ef, e)) = self.elements_of(f, xs, depth + 1) {
                            let (v, st) = self.eval(ef, e, NS_VALUE, depth + 1);
                            return (alias(v), combine(st, Strategy::TypedReceiver));
                        }
                    }
                }
                // The receiver of a method call is kept for a `this` return.
                let (recv, (v, st)) = self.callee(f, callee, depth);
                let Some((rf, r)) = self.result_of(v) else {
                    return match v.unalias() {
                        Val::External => (Val::External, st),
                        _ => (Val::Unknown, st),
                    };
                };
                // `this` returned through a receiver is the receiver
                // (`z.string().min(1)` is a ZodString).
                if let (Expr::This(_), Some((rv, rst))) = (r, recv) {
                    if let v @ Val::Inst(_) = rv.unalias() {
                        let st = combine(combine(st, rst), Strategy::TypedReceiver);
                        return (v, st);
                    }
                }
                let (rv, rst) = self.eval(rf, r, NS_VALUE, depth + 1);
                (rv, combine(combine(st, rst), Strategy::TypedReceiver))
            }
            // Only reachable through a variable ([`Val::Obj`], [`Val::Fn`]).
            Expr::Object(_) | Expr::Returns(_) => (Val::External, local),
            // An array: its own members are the builtin's (its elements are
            // read by [`Eval::elements_of`]).
            Expr::Elements(_) => (Val::External, local),
            // Only reachable as a base ([`Eval::member_lookup`]).
            Expr::Union(_) => (Val::Unknown, local),
            Expr::Param(callee, arg, param) => {
                // The element a callback of an array's `forEach`, `map`, …
                // (or `for … of`) takes first.
                if let (Expr::Member(xs, n), 0, p) = (&**callee, *arg, *param) {
                    let name = s.name(*n);
                    let takes = match p {
                        0 => ELEMENT_CALLBACKS.contains(&name),
                        // `reduce((acc, x) => …)`: the accumulator first.
                        1 => matches!(name, "reduce" | "reduceRight"),
                        _ => false,
                    };
                    if takes {
                        if let Some((ef, e)) = self.elements_of(f, xs, depth + 1) {
                            let (v, st) = self.eval(ef, e, NS_VALUE, depth + 1);
                            return (alias(v), combine(st, Strategy::TypedReceiver));
                        }
                    }
                }
                let (v, st) = self.eval(f, callee, NS_VALUE, depth + 1);
                // A function or method, or a value of an interface with call
                // signatures (`get: RouteShorthandMethod`).
                let (Val::Sym(sym) | Val::Inst(sym)) = v.unalias() else {
                    return (Val::Unknown, st);
                };
                match self.callback_param_type(sym, *arg, *param, depth + 1) {
                    Some((v, pst)) => {
                        (alias(v), combine(combine(st, pst), Strategy::TypedReceiver))
                    }
                    None => (Val::Unknown, st),
                }
            }
            Expr::Arg(callee, arg) => {
                let (v, st) = self.eval(f, callee, NS_VALUE, depth + 1);
                let (Val::Sym(sym) | Val::Inst(sym)) = v.unalias() else {
                    return (Val::Unknown, st);
                };
                match self.declared_arg(sym, *arg, depth + 1) {
                    Some((c, ast)) => (
                        Val::Inst(c),
                        combine(combine(st, ast), Strategy::TypedReceiver),
                    ),
                    None => (Val::Unknown, st),
                }
            }
            // A type guard's result: a boolean.
            Expr::Guard(..) => (Val::External, local),
            Expr::Narrowed(callee, arg, before) => {
                let (st, guard) = self.guard(f, callee, *arg, depth);
                let Some((gf, ty)) = guard else {
                    return self.eval(f, before, ns, depth + 1);
                };
                let (v, gst) = self.eval(gf, ty, ns, depth + 1);
                // A guard for a base of what the local is declared
                // (`isBase(d)` with `d: Derived`) keeps it what it was.
                if let Val::Inst(g) = v.unalias() {
                    let (bv, bst) = self.eval(f, before, ns, depth + 1);
                    if let Val::Inst(c) = bv.unalias() {
                        if self.derives_from(c, g, depth + 1) {
                            return (bv, bst);
                        }
                    }
                }
                (alias(v), combine(combine(st, gst), Strategy::TypedReceiver))
            }
            Expr::Instance(t) => {
                let (v, st) = self.eval(f, t, NS_TYPE, depth + 1);
                match v.unalias() {
                    Val::Sym(c) if self.kind(c) == NodeKind::Class => match self.typeof_alias(c) {
                        // `const f: Fastify` with `type Fastify = typeof
                        // fastify`: the variable holds that value.
                        Some(value) => {
                            let (v, vst) = self.eval(c.file, value, NS_VALUE, depth + 1);
                            (alias(v), combine(st, vst))
                        }
                        None => (Val::Inst(c), st),
                    },
                    Val::External => (Val::External, st),
                    _ => (Val::Unknown, st),
                }
            }
        }
    }

    /// The element type of the array `x` (written in file `f`) and the
    /// file it is written in: an `Elements` value reached through
    /// variables, a field of a known instance, or an array method that
    /// keeps the elements (`xs.filter(…)`).
    fn elements_of<'e>(&self, f: FileIdx, x: &'e Expr, depth: u32) -> Option<(FileIdx, &'e Expr)>
    where
        'w: 'e,
    {
        if depth > MAX_DEPTH {
            return None;
        }
        let s = self.scope(f)?;
        match x {
            Expr::Elements(e) => Some((f, e)),
            Expr::Var(v) => self.elements_of(f, s.vars.get(*v as usize)?, depth + 1),
            // A local where a call of it was found true: its elements are
            // the guard's type's, else what they were.
            Expr::Narrowed(callee, arg, before) => match self.guard(f, callee, *arg, depth).1 {
                Some((gf, ty)) => self.elements_of(gf, ty, depth + 1),
                None => self.elements_of(f, before, depth + 1),
            },
            Expr::Member(recv, n) => {
                let (rv, rs) = self.eval(f, recv, NS_VALUE, depth + 1);
                let name = s.name(*n);
                if let Val::Inst(c) = rv.unalias() {
                    if let Some(fl) = self.field(c, name) {
                        return self.elements_of(c.file, &fl.value, depth + 1);
                    }
                }
                // A getter's declared result (`get children(): Pos[]`).
                let (v, _) = self.member(rv, rs, name, NS_VALUE, depth + 1);
                let Val::Sym(g) = v.unalias() else {
                    return None;
                };
                self.elements_of(g.file, self.getter_result(g)?, depth + 1)
            }
            Expr::Call(callee) => {
                if let Expr::Member(xs, n) = &**callee {
                    if KEEP_ELEMENTS.contains(&s.name(*n)) {
                        return self.elements_of(f, xs, depth + 1);
                    }
                }
                // What a function or method declares it returns (`all(): Pos[]`).
                let (_, (v, _)) = self.callee(f, callee, depth);
                match v.unalias() {
                    Val::Sym(m)
                        if matches!(self.kind(m), NodeKind::Function | NodeKind::Method) =>
                    {
                        self.elements_of(m.file, self.returns(m)?, depth + 1)
                    }
                    _ => None,
                }
            }
            // A value of an alias of an array type (`type Opts = Opt[]`),
            // which records the array as its one base.
            _ => {
                let (v, _) = self.eval(f, x, NS_VALUE, depth + 1);
                let Val::Inst(c) = v.unalias() else {
                    return None;
                };
                match class_info(self.scope(c.file)?, c.def)?.bases.as_slice() {
                    [Expr::Elements(e)] => Some((c.file, e)),
                    _ => None,
                }
            }
        }
    }

    /// The type `callee` (written in file `f`) says its argument `arg`
    /// holds when a call of it is true, if it is a type guard for that
    /// argument: (file the type is written in, the type).
    fn guard(
        &self,
        f: FileIdx,
        callee: &Expr,
        arg: u16,
        depth: u32,
    ) -> (Strategy, Option<(FileIdx, &'w Expr)>) {
        let (v, st) = self.eval(f, callee, NS_VALUE, depth + 1);
        match self.result_of(v) {
            Some((gf, Expr::Guard(k, ty))) if *k == arg => (st, Some((gf, &**ty))),
            _ => (st, None),
        }
    }

    /// What a call of the callable value `v` gives, as declared: a
    /// function's or method's return (or that of a class-like merged with
    /// function signatures: `declare function fastify(…): FastifyInstance`
    /// beside `declare namespace fastify`), or what a variable of a
    /// function type returns; with the file it is written in.
    fn result_of(&self, v: Val) -> Option<(FileIdx, &'w Expr)> {
        match v.unalias() {
            Val::Sym(sym)
                if matches!(
                    self.kind(sym),
                    NodeKind::Function | NodeKind::Method | NodeKind::Class
                ) =>
            {
                self.returns(sym).map(|r| (sym.file, r))
            }
            Val::Fn(file, var) => match self.scope(file)?.vars.get(var as usize)? {
                Expr::Returns(r) => Some((file, &**r)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether class `c` is `base` or extends it, along its bases.
    fn derives_from(&self, c: SymId, base: SymId, depth: u32) -> bool {
        if c == base {
            return true;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(info) = self.scope(c.file).and_then(|s| class_info(s, c.def)) else {
            return false;
        };
        info.bases.iter().any(|b| {
            !matches!(b, Expr::Union(_))
                && match self.eval(c.file, b, NS_ANY, depth + 1).0.unalias() {
                    Val::Sym(b) | Val::Inst(b) if b != c => self.derives_from(b, base, depth + 1),
                    _ => false,
                }
        })
    }

    fn returns(&self, sym: SymId) -> Option<&'w Expr> {
        let s = self.scope(sym.file)?;
        let i = s.returns.binary_search_by_key(&sym.def, |r| r.0).ok()?;
        Some(&s.returns[i].1)
    }

    /// The declared result of `sym` when it is a getter (`get view(): View`).
    fn getter_result(&self, sym: SymId) -> Option<&'w Expr> {
        self.scope(sym.file)?.getters.binary_search(&sym.def).ok()?;
        self.returns(sym)
    }

    /// The type a callback passed as argument `arg` to `sym` (a function,
    /// a method, an interface's call signatures) declares for its parameter
    /// `param`: written out (`cb: (a: A) => void`), or through a named
    /// function type (`handler: RouteHandlerMethod<…>`, an alias of an
    /// alias). Overloads that name different types for it leave it unknown.
    fn callback_param_type(
        &self,
        sym: SymId,
        arg: u16,
        param: u16,
        depth: u32,
    ) -> Option<(Val, Strategy)> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(fl) = self.field(sym, &callback_param(arg, param)) {
            return Some(self.eval(sym.file, &fl.value, NS_VALUE, depth + 1));
        }
        agreed(self.fields(sym, &callback_alias(arg)).filter_map(|fl| {
            let (a, _) = self.eval(sym.file, &fl.value, NS_TYPE, depth + 1);
            let Val::Sym(a) = a.unalias() else {
                return None;
            };
            self.callback_param_type(a, SIGNATURE, param, depth + 1)
        }))
    }

    /// The class or interface `sym` (a function, a method, an interface's
    /// call signatures) declares its argument `arg` to be: the one every
    /// overload naming a class-like type there agrees on.
    fn declared_arg(&self, sym: SymId, arg: u16, depth: u32) -> Option<(SymId, Strategy)> {
        agreed(self.fields(sym, &callback_alias(arg)).filter_map(|fl| {
            let (t, st) = self.eval(sym.file, &fl.value, NS_TYPE, depth + 1);
            match t.unalias() {
                Val::Sym(t) if self.kind(t) == NodeKind::Class => Some((t, st)),
                _ => None,
            }
        }))
    }

    /// Every field of `c` named `name` (a name an overload set repeats).
    fn fields<'n>(&self, c: SymId, name: &'n str) -> impl Iterator<Item = &'w Field> + 'n
    where
        'w: 'n,
    {
        let s = self.scope(c.file);
        let all: &'w [Field] = s.map_or(&[], |s| {
            let lo = s.fields.partition_point(|fl| fl.class < c.def);
            &s.fields[lo..]
        });
        all.iter()
            .take_while(move |fl| fl.class == c.def)
            .filter(move |fl| s.is_some_and(|s| s.name(fl.name) == name))
    }

    /// The field (or recorded parameter type) `name` of class-like `c`.
    fn field(&self, c: SymId, name: &str) -> Option<&'w Field> {
        self.fields(c, name).next()
    }

    /// What the callee of a call is, with the evaluated receiver of a
    /// method call (`a.m()`: `a`, then `a.m`).
    fn callee(
        &self,
        f: FileIdx,
        callee: &Expr,
        depth: u32,
    ) -> (Option<(Val, Strategy)>, (Val, Strategy)) {
        match callee {
            Expr::Member(obj, n) => {
                let (rv, rs) = self.eval(f, obj, NS_VALUE, depth + 1);
                let name = self.scope(f).map_or("", |s| s.name(*n));
                let m = self.member(rv, rs, name, NS_VALUE, depth + 1);
                (Some((rv, rs)), m)
            }
            c => (None, self.eval(f, c, NS_VALUE, depth + 1)),
        }
    }

    fn import(&self, f: FileIdx, s: &'w Scope, i: u32, ns: u8, depth: u32) -> (Val, Strategy) {
        let Some(imp) = s.imports.get(i as usize) else {
            return (Val::Unknown, Strategy::Import);
        };
        if let Some((t, m)) = self.ambient_for(f, imp.spec) {
            let name = match imp.what {
                Imported::Namespace | Imported::Module => {
                    return (Val::Ambient(t, m), Strategy::Import);
                }
                Imported::Default => DEFAULT,
                Imported::Named(n) => s.name(n),
            };
            return match self.ambient_export(t, m, name, ns, depth + 1) {
                Some((v, st)) => (v, combine(st, Strategy::Import)),
                None => (Val::External, Strategy::Import),
            };
        }
        let Some(Target::File(t)) = self.index.specs[f.0 as usize].get(imp.spec as usize) else {
            return (Val::External, Strategy::Import);
        };
        let t = *t;
        let found = match imp.what {
            Imported::Namespace => return (Val::Module(t), Strategy::Import),
            Imported::Module => {
                let (v, st) = self.module_value(t, depth);
                return (v, combine(st, Strategy::Import));
            }
            Imported::Default => self.export(t, DEFAULT, ns, depth + 1).or_else(|| {
                let (v, st, re) = self.export(t, EXPORT_EQUALS, ns, depth + 1)?;
                // Interop: a `default` the `export =` value declares is the
                // default import (fastify's namespace exports its function
                // `as default`); else the value itself is.
                if ns & NS_VALUE != 0 {
                    let (d, dst) = self.member(v, st, DEFAULT, NS_VALUE, depth + 1);
                    if let Val::Sym(_) | Val::Alias(_) | Val::CallOnly(_) = d {
                        return Some((d, dst, re));
                    }
                }
                Some((v, st, re))
            }),
            Imported::Named(n) => {
                let name = s.name(n);
                self.export(t, name, ns, depth + 1).or_else(|| {
                    // CommonJS interop: `import { a } from './cjs'` with
                    // `module.exports = obj` (a member of it, destructured
                    // or not, is where it is defined).
                    let (v, st, re) = self.export(t, EXPORT_EQUALS, NS_ANY, depth + 1)?;
                    let (mv, mst) = self.member(v, st, name, ns & !DESTRUCTURED, depth + 1);
                    Some((mv, mst, re))
                })
            }
        };
        match found {
            Some((v, st, re)) => {
                let step = if re {
                    Strategy::ReExport
                } else {
                    Strategy::Import
                };
                (v, combine(st, step))
            }
            None => (Val::External, Strategy::Import),
        }
    }

    /// The ambient module specifier `spec` of file `f` names: a bare name
    /// (not a path) no file of the repository is the module of, or whose
    /// file is the one declaring it (svelte-kit's `types/index.d.ts`, which
    /// `exports` names, is `declare module '@sveltejs/kit' { … }`).
    fn ambient_for(&self, f: FileIdx, spec: u32) -> Option<(FileIdx, u32)> {
        if self.index.ambient.is_empty() {
            return None;
        }
        let text = &self.scope(f)?.specs.get(spec as usize)?.text;
        if text.starts_with('.') || text.starts_with('/') {
            return None;
        }
        let &(t, m) = self.index.ambient.get(text.as_str())?;
        match self.index.specs[f.0 as usize].get(spec as usize) {
            Some(Target::File(file)) => {
                let own = self
                    .scope(*file)?
                    .ambient
                    .iter()
                    .position(|a| a.spec == *text)?;
                Some((*file, own as u32))
            }
            _ => Some((t, m)),
        }
    }

    /// Export `name` of ambient module `m` of file `t`.
    fn ambient_export(
        &self,
        t: FileIdx,
        m: u32,
        name: &str,
        ns: u8,
        depth: u32,
    ) -> Option<(Val, Strategy)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let s = self.scope(t)?;
        let range = named(s, &s.ambient.get(m as usize)?.exports, name);
        let e = range
            .iter()
            .find(|e| e.ns & ns & !DESTRUCTURED != 0)
            .or_else(|| range.first())?;
        Some(self.eval(t, &e.target, ns & !DESTRUCTURED, depth + 1))
    }

    /// `require(t)`: its `module.exports = X`, else the module itself.
    fn module_value(&self, t: FileIdx, depth: u32) -> (Val, Strategy) {
        match self.export(t, EXPORT_EQUALS, NS_ANY, depth + 1) {
            Some((v, st, _)) => (v, st),
            None => (Val::Module(t), Strategy::Path),
        }
    }

    /// A module's export `name`: its value, how it was found, and whether a
    /// re-export was followed.
    fn export(&self, t: FileIdx, name: &str, ns: u8, depth: u32) -> Option<(Val, Strategy, bool)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let destructured = ns & DESTRUCTURED;
        let ns = ns & !DESTRUCTURED;
        let s = self.scope(t)?;
        let range = named(s, &s.exports, name);
        // A qualifier (`Scope.Closeable` in a type) names a namespace: a
        // type-side declaration before a same-named constant.
        let qualifier = (ns & QUALIFIER != 0)
            .then(|| range.iter().find(|e| e.ns & NS_TYPE != 0))
            .flatten();
        let pick = qualifier
            .or_else(|| range.iter().find(|e| e.ns & ns != 0))
            .or_else(|| range.first());
        // A name both a value and a type declare (`const Mode = {…} as
        // const` beside `type Mode = …`), looked up in both spaces (an
        // import specifier, `export { Mode }`): tsserver answers every
        // declaration, so the one that is a definition node stands for it.
        let pick = match pick {
            Some(p) if ns == NS_ANY && range.len() > 1 => {
                let is_def =
                    |e: &Export| matches!(self.eval(t, &e.target, ns, depth + 1).0, Val::Sym(_));
                if is_def(p) {
                    Some(p)
                } else {
                    range.iter().find(|e| is_def(e)).or(Some(p))
                }
            }
            p => p,
        };
        if let Some(e) = pick {
            let (mut v, st) = self.eval(t, &e.target, ns, depth + 1);
            if e.ns & CJS_PROPERTY != 0 {
                if let Val::Sym(s) = v {
                    v = Val::CallOnly(s);
                }
            }
            // A destructured name is defined at the property: only a
            // definition made there is named.
            if destructured != 0 && e.ns & AT_PROPERTY == 0 {
                v = alias(v);
            }
            let re = matches!(e.target, Expr::Import(_));
            return Some((v, st, re));
        }
        if name == DEFAULT || name == EXPORT_EQUALS {
            return None;
        }
        for (i, spec) in s.specs.iter().enumerate() {
            if !spec.star {
                continue;
            }
            if let Some(Target::File(st)) = self.index.specs[t.0 as usize].get(i) {
                if let Some((v, strat, _)) = self.export(*st, name, ns | destructured, depth + 1) {
                    return Some((v, strat, true));
                }
            }
        }
        None
    }

    /// What reading `sym` gives, when it is a getter with a known result
    /// (`get view(): View`); `None` for anything else.
    fn getter_value(&self, sym: SymId, depth: u32) -> Option<(Val, Strategy)> {
        let r = self.getter_result(sym)?;
        let (v, st) = self.eval(sym.file, r, NS_VALUE, depth + 1);
        Some((alias(v), combine(st, Strategy::TypedReceiver)))
    }

    /// `recv.name` for an evaluated receiver.
    fn member(&self, rv: Val, rs: Strategy, name: &str, ns: u8, depth: u32) -> (Val, Strategy) {
        if depth > MAX_DEPTH {
            return (Val::Unknown, rs);
        }
        // A getter read is its result (`editor.view.dispatch`).
        if let Val::Sym(g) = rv.unalias() {
            if self.kind(g) == NodeKind::Method {
                if let Some((v, st)) = self.getter_value(g, depth) {
                    return self.member(v, combine(rs, st), name, ns, depth + 1);
                }
            }
        }
        match rv.unalias() {
            Val::Ambient(t, m) => match self.ambient_export(t, m, name, ns, depth + 1) {
                Some((v, st)) => (v, combine(combine(rs, st), Strategy::Path)),
                None => (Val::External, rs),
            },
            Val::Module(m) => match self.export(m, name, ns, depth + 1) {
                Some((v, st, re)) => {
                    let step = if re {
                        Strategy::ReExport
                    } else {
                        Strategy::Path
                    };
                    (v, combine(combine(rs, st), step))
                }
                None => (Val::External, rs),
            },
            // `C.prototype` is an instance of `C`.
            Val::Sym(sym) if self.kind(sym) == NodeKind::Class && name == "prototype" => {
                (Val::Inst(sym), combine(rs, Strategy::Path))
            }
            // JavaScript: a static assigned on the class (`C.set = …`) is
            // no node, even beside a prototype method `set`.
            Val::Sym(sym) if self.kind(sym) == NodeKind::Class && self.is_static(sym, name) => {
                (Val::External, rs)
            }
            Val::Sym(sym) if self.kind(sym) == NodeKind::Class => {
                let (mut v, mut st) = self.member_lookup(sym, name, depth + 1);
                if v == Val::External {
                    (v, st) = self.inherited_static(sym, name, depth + 1);
                }
                (v, combine(combine(rs, st), Strategy::Path))
            }
            Val::Inst(c) => {
                let (v, st) = self.member_lookup(c, name, depth + 1);
                let step = if rs == Strategy::SelfMember {
                    Strategy::SelfMember
                } else {
                    Strategy::TypedReceiver
                };
                (v, combine(combine(rs, st), step))
            }
            // tsserver defines `o.name` at the property: the value is a
            // receiver, the site names no node.
            Val::Obj(file, v) => {
                let Some(Expr::Object(lit)) = self.scope(file).and_then(|s| s.vars.get(v as usize))
                else {
                    return (Val::Unknown, rs);
                };
                let s = self.scope(file).expect("a script file");
                match lit.props.iter().rev().find(|(n, _)| s.name(*n) == name) {
                    Some((_, e)) => {
                        let (v, st) = self.eval(file, e, NS_VALUE, depth + 1);
                        (alias(v), combine(rs, st))
                    }
                    None if lit.open => (Val::Unknown, rs),
                    None => (Val::External, rs),
                }
            }
            Val::Unknown => (Val::Unknown, rs),
            _ => (Val::External, rs),
        }
    }

    /// The value whose type the alias `c` names (`type F = typeof f`).
    fn typeof_alias(&self, c: SymId) -> Option<&'w Expr> {
        let s = self.scope(c.file)?;
        let i = s.typeofs.binary_search_by_key(&c.def, |e| e.0).ok()?;
        Some(&s.typeofs[i].1)
    }

    /// Whether `name` is assigned on class `c` itself in its JavaScript
    /// file ([`Scope::statics`]).
    fn is_static(&self, c: SymId, name: &str) -> bool {
        let Some(s) = self.scope(c.file) else {
            return false;
        };
        let lo = s.statics.partition_point(|&(d, _)| d < c.def);
        s.statics[lo..]
            .iter()
            .take_while(|&&(d, _)| d == c.def)
            .any(|&(_, n)| s.name(n) == name)
    }

    /// A member of an in-repo class or interface, own or inherited.
    fn member_lookup(&self, c: SymId, name: &str, depth: u32) -> (Val, Strategy) {
        if depth > MAX_DEPTH {
            return (Val::Unknown, Strategy::Local);
        }
        let children = &self.index.children[c.file.0 as usize];
        let lo = children.partition_point(|p| p.0 < c.def);
        for &(p, child) in &children[lo..] {
            if p != c.def {
                break;
            }
            let sym = SymId {
                file: c.file,
                def: child,
            };
            if self.world.def(sym).name == name {
                return (Val::Sym(sym), Strategy::Local);
            }
        }
        let Some(s) = self.scope(c.file) else {
            return (Val::External, Strategy::Local);
        };
        let lo = s.ns_exports.partition_point(|e| e.0 < c.def);
        let renamed = s.ns_exports[lo..]
            .iter()
            .take_while(|e| e.0 == c.def)
            .find(|e| s.name(e.1) == name);
        if let Some((_, _, target)) = renamed {
            return self.eval(c.file, target, NS_ANY, depth + 1);
        }
        if let Some(fl) = self.field(c, name) {
            let (v, st) = self.eval(c.file, &fl.value, NS_VALUE, depth + 1);
            return (alias(v), combine(st, Strategy::TypedReceiver));
        }
        if let Some(info) = class_info(s, c.def) {
            for b in &info.bases {
                if let Expr::Union(parts) = b {
                    let v = self.union_member(c, parts, name, depth + 1);
                    if v.0 != Val::External {
                        return v;
                    }
                    continue;
                }
                let (bv, _) = self.eval(c.file, b, NS_ANY, depth + 1);
                if let Val::Sym(base) = bv.unalias() {
                    if self.kind(base) == NodeKind::Class && base != c {
                        let (v, st) = self.member_lookup(base, name, depth + 1);
                        if v != Val::External {
                            return (v, st);
                        }
                    }
                }
            }
        }
        (Val::External, Strategy::Local)
    }

    /// A static member a class inherits from a base that is a value of an
    /// in-repo type (`class Int extends make<number>(ast) {}` with
    /// `make(): SchemaClass<A>`: `Int.pipe` is the interface's), along its
    /// chain of class bases. Instances of such a class are not modelled:
    /// their members come from the type's construct signature.
    fn inherited_static(&self, c: SymId, name: &str, depth: u32) -> (Val, Strategy) {
        if depth > MAX_DEPTH {
            return (Val::Unknown, Strategy::Local);
        }
        let Some(info) = self.scope(c.file).and_then(|s| class_info(s, c.def)) else {
            return (Val::External, Strategy::Local);
        };
        for b in &info.bases {
            if matches!(b, Expr::Union(_)) {
                continue;
            }
            let (bv, bst) = self.eval(c.file, b, NS_ANY, depth + 1);
            let (v, st) = match bv.unalias() {
                Val::Inst(t) => {
                    let (v, st) = self.member_lookup(t, name, depth + 1);
                    (v, combine(combine(bst, st), Strategy::TypedReceiver))
                }
                Val::Sym(base) if self.kind(base) == NodeKind::Class && base != c => {
                    self.inherited_static(base, name, depth + 1)
                }
                _ => continue,
            };
            if v != Val::External {
                return (v, st);
            }
        }
        (Val::External, Strategy::Local)
    }

    /// `name` on a value of one of the types `parts` (written in `c`'s
    /// file): tsserver defines it at the declaration every constituent
    /// shares (`Option<A> = None<A> | Some<A>`, both `Pipeable`, share
    /// `pipe`); constituents with different declarations give no one
    /// target, and none with the member leaves it outside the repository.
    fn union_member(&self, c: SymId, parts: &[Expr], name: &str, depth: u32) -> (Val, Strategy) {
        let mut found: Option<(Val, Strategy)> = None;
        for p in parts {
            let (pv, _) = self.eval(c.file, p, NS_TYPE, depth + 1);
            let (v, st) = match pv.unalias() {
                Val::Sym(t) if self.kind(t) == NodeKind::Class && t != c => {
                    self.member_lookup(t, name, depth + 1)
                }
                _ => return (Val::Unknown, Strategy::Local),
            };
            let v = match v.unalias() {
                Val::Sym(m) => Val::Sym(m),
                _ => return (Val::Unknown, Strategy::Local),
            };
            match found {
                None => found = Some((v, st)),
                Some((f, fst)) if f == v => found = Some((f, combine(fst, st))),
                Some(_) => return (Val::Unknown, Strategy::Local),
            }
        }
        found.unwrap_or((Val::External, Strategy::Local))
    }

    /// A `private`/`#` member seen from outside its file cannot be the
    /// target of a call there (members of exported classes are exported
    /// unless private).
    fn is_private(&self, m: SymId, from: SymId) -> bool {
        if m.file == from.file {
            return false;
        }
        let d = self.world.def(m);
        let parent = d.parent.map(|p| {
            self.world.def(SymId {
                file: m.file,
                def: p,
            })
        });
        !d.exported && parent.is_some_and(|p| p.exported)
    }

    /// `x.name()` on a receiver of unknown type: the in-repo methods so named.
    ///
    /// Measured against tsserver, name guesses are poor: in JavaScript an
    /// unknown receiver is mostly `any` to tsserver too (it answers
    /// nothing: 4 of 80 sampled unique-name guesses on eslint were
    /// confirmed), and in TypeScript a receiver we cannot type is usually
    /// contextually typed, where 2–3 candidates were right a third of the
    /// time (zod). So only a unique method name in a TypeScript file
    /// becomes an edge (`Member { k: 1 }`); everything else is left
    /// unresolved, with its candidate count, for the language server.
    fn guess_member(&self, src: SymId, name: &str, site: Pos, res: &mut FileResolution) {
        if COMMON_METHODS.contains(&name) {
            return;
        }
        let cands: Vec<SymId> = self
            .world
            .named(name, Family::Script)
            .iter()
            .copied()
            .filter(|s| self.kind(*s) == NodeKind::Method && !self.is_private(*s, src))
            .collect();
        if cands.is_empty() {
            return;
        }
        let k = cands.len() as u32;
        let typed_file = self.world.file(src.file).lang != Lang::JavaScript;
        if k > 1 || !typed_file {
            let reason = if k > MAX_CANDIDATES {
                format!("{k} candidates")
            } else {
                format!(
                    "unknown receiver, {k} candidate{}",
                    if k == 1 { "" } else { "s" }
                )
            };
            res.unresolved.push(Unresolved {
                src: src.def,
                name: name.to_string(),
                kind: EdgeKind::Calls,
                site,
                reason,
            });
            return;
        }
        for dst in cands {
            res.edges.push(ResolvedEdge {
                src,
                dst,
                kind: EdgeKind::Calls,
                strategy: Strategy::Member { k },
                site: Some(site),
            });
        }
    }
}

/// Lookup flag (beside the namespace bits): the name qualifies a type name
/// (`A` in `A.B` in a type), so it is a namespace.
const QUALIFIER: u8 = 8;

/// The namespace the object of `a.b` is looked up in: a value, unless
/// `a.b` is a type or a qualifier (then `a` is a namespace: a value or a
/// type, namespaces first).
/// The exports named `name` among `exports` (sorted by name text).
fn named<'e>(s: &Scope, exports: &'e [Export], name: &str) -> &'e [Export] {
    let lo = exports.partition_point(|e| s.name(e.name) < name);
    let hi = lo + exports[lo..].partition_point(|e| s.name(e.name) == name);
    &exports[lo..hi]
}

fn object_ns(ns: u8) -> u8 {
    if ns == NS_TYPE || ns & QUALIFIER != 0 {
        NS_ANY | QUALIFIER
    } else {
        NS_VALUE
    }
}

fn class_info(s: &Scope, def: u32) -> Option<&crate::extract::typescript::ClassInfo> {
    let i = s.classes.binary_search_by_key(&def, |c| c.def).ok()?;
    Some(&s.classes[i])
}

#[cfg(test)]
mod tests;
