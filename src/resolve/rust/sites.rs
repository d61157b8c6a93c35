//! One file's sites → edges, with the tables of [`super::index`].

use super::index::{scope_of, ConstRef, FirstLookup, HashMap, How, Index, Ns, Res, TyRes, PRELUDE};
use crate::extract::rust::{
    std_macro, ArgTy, Recv, Refs, Role, Scope, Site, SiteKind, Ty, NONE, SELF_RECV, UNKNOWN_ARGS,
};
use crate::extract::Def;
use crate::graph::{EdgeKind, NodeKind, Pos};
use crate::resolve::{
    FileIdx, FileResolution, ResolvedEdge, Strategy, SymId, Unresolved, World, MAX_CANDIDATES,
};

/// Methods of std types and traits so common that a call on a receiver of
/// unknown type says nothing about which in-repo method (if any) it reaches.
pub(super) const COMMON_METHODS: &[&str] = &[
    "all",
    "and",
    "and_then",
    "any",
    "as_bytes",
    "as_deref",
    "as_mut",
    "as_mut_ptr",
    "as_mut_slice",
    "as_os_str",
    "as_path",
    "as_ptr",
    "as_ref",
    "as_slice",
    "as_str",
    "binary_search",
    "borrow",
    "borrow_mut",
    "bytes",
    "capacity",
    "chain",
    "chars",
    "checked_add",
    "checked_sub",
    "chunks",
    "clear",
    "clone",
    "cloned",
    "cmp",
    "collect",
    "compare_exchange",
    "compare_exchange_weak",
    "contains",
    "contains_key",
    "copied",
    "copied_from",
    "copy_from_slice",
    "count",
    "dedup",
    "default",
    "deref",
    "deref_mut",
    "display",
    "downgrade",
    "drain",
    "drain_filter",
    "drop",
    "elapsed",
    "ends_with",
    "entry",
    "enumerate",
    "eq",
    "err",
    "exists",
    "expect",
    "expect_err",
    "extend",
    "extend_from_slice",
    "extension",
    "fetch_add",
    "fetch_sub",
    "file_name",
    "fill",
    "filter",
    "filter_map",
    "find",
    "first",
    "first_mut",
    "flat_map",
    "flatten",
    "flush",
    "fmt",
    "fold",
    "for_each",
    "from",
    "ge",
    "get",
    "get_mut",
    "get_or_insert_with",
    "get_ref",
    "get_unchecked",
    "gt",
    "hash",
    "insert",
    "inspect",
    "into",
    "into_boxed_slice",
    "into_inner",
    "into_iter",
    "is_ascii",
    "is_dir",
    "is_empty",
    "is_err",
    "is_file",
    "is_none",
    "is_ok",
    "is_some",
    "iter",
    "iter_mut",
    "join",
    "join_all",
    "keys",
    "last",
    "last_mut",
    "le",
    "len",
    "len_utf8",
    "lines",
    "load",
    "lock",
    "lt",
    "map",
    "map_err",
    "map_or",
    "map_or_else",
    "max",
    "max_by_key",
    "metadata",
    "min",
    "min_by_key",
    "ne",
    "next",
    "not",
    "notify_all",
    "notify_one",
    "ok",
    "ok_or",
    "ok_or_else",
    "or",
    "or_else",
    "or_insert",
    "or_insert_with",
    "partial_cmp",
    "path",
    "peekable",
    "poll",
    "poll_next",
    "pop",
    "pop_back",
    "pop_front",
    "position",
    "push",
    "push_back",
    "push_front",
    "push_str",
    "read",
    "read_to_string",
    "recv",
    "remove",
    "replace",
    "reserve",
    "resize",
    "retain",
    "rev",
    "reverse",
    "rsplit_once",
    "saturating_add",
    "saturating_sub",
    "send",
    "set",
    "set_len",
    "shrink_to_fit",
    "skip",
    "skip_while",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "split",
    "split_at",
    "split_off",
    "split_once",
    "starts_with",
    "step_by",
    "store",
    "strip_prefix",
    "strip_suffix",
    "sum",
    "swap",
    "swap_remove",
    "take",
    "take_while",
    "then",
    "then_some",
    "to_lowercase",
    "to_owned",
    "to_path_buf",
    "to_str",
    "to_string",
    "to_string_lossy",
    "to_uppercase",
    "to_vec",
    "trim",
    "trim_end",
    "trim_start",
    "truncate",
    "try_from",
    "try_into",
    "unwrap",
    "unwrap_err",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "upgrade",
    "values",
    "values_mut",
    "wait",
    "windows",
    "with",
    "wrapping_add",
    "write",
    "write_all",
    "xor",
    "zip",
];

/// The methods std's float types have of their own (inherent): on an `f32`
/// they are std's, whatever in-repo trait implemented for it has one of the
/// name (libm's `x.to_bits()` on an `f32` is `f32::to_bits`, not its
/// `Float::to_bits`). Sorted.
pub(super) const FLOAT_METHODS: &[&str] = &[
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "clamp",
    "classify",
    "copysign",
    "cos",
    "cosh",
    "div_euclid",
    "exp",
    "exp2",
    "exp_m1",
    "floor",
    "fract",
    "from_be_bytes",
    "from_bits",
    "from_le_bytes",
    "from_ne_bytes",
    "hypot",
    "is_finite",
    "is_infinite",
    "is_nan",
    "is_normal",
    "is_sign_negative",
    "is_sign_positive",
    "is_subnormal",
    "ln",
    "ln_1p",
    "log",
    "log10",
    "log2",
    "max",
    "min",
    "mul_add",
    "powf",
    "powi",
    "recip",
    "rem_euclid",
    "round",
    "round_ties_even",
    "signum",
    "sin",
    "sin_cos",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "to_be_bytes",
    "to_bits",
    "to_degrees",
    "to_int_unchecked",
    "to_le_bytes",
    "to_ne_bytes",
    "to_radians",
    "total_cmp",
    "trunc",
];

/// The methods std's integer types have of their own (see
/// [`FLOAT_METHODS`]; an `i32` has no `to_bits`, aho-corasick's `I32` trait
/// gives it one). Sorted.
pub(super) const INT_METHODS: &[&str] = &[
    "abs",
    "abs_diff",
    "checked_abs",
    "checked_add",
    "checked_add_signed",
    "checked_div",
    "checked_div_euclid",
    "checked_ilog",
    "checked_ilog10",
    "checked_ilog2",
    "checked_mul",
    "checked_neg",
    "checked_next_multiple_of",
    "checked_next_power_of_two",
    "checked_pow",
    "checked_rem",
    "checked_rem_euclid",
    "checked_shl",
    "checked_shr",
    "checked_sub",
    "clamp",
    "count_ones",
    "count_zeros",
    "div_ceil",
    "div_euclid",
    "from_be",
    "from_be_bytes",
    "from_le",
    "from_le_bytes",
    "from_ne_bytes",
    "from_str_radix",
    "ilog",
    "ilog10",
    "ilog2",
    "is_negative",
    "is_positive",
    "is_power_of_two",
    "isqrt",
    "leading_ones",
    "leading_zeros",
    "max",
    "min",
    "next_multiple_of",
    "next_power_of_two",
    "overflowing_abs",
    "overflowing_add",
    "overflowing_div",
    "overflowing_mul",
    "overflowing_neg",
    "overflowing_pow",
    "overflowing_rem",
    "overflowing_shl",
    "overflowing_shr",
    "overflowing_sub",
    "pow",
    "rem_euclid",
    "reverse_bits",
    "rotate_left",
    "rotate_right",
    "saturating_abs",
    "saturating_add",
    "saturating_div",
    "saturating_mul",
    "saturating_neg",
    "saturating_pow",
    "saturating_sub",
    "signum",
    "swap_bytes",
    "to_be",
    "to_be_bytes",
    "to_le",
    "to_le_bytes",
    "to_ne_bytes",
    "trailing_ones",
    "trailing_zeros",
    "unsigned_abs",
    "wrapping_abs",
    "wrapping_add",
    "wrapping_add_signed",
    "wrapping_div",
    "wrapping_div_euclid",
    "wrapping_mul",
    "wrapping_neg",
    "wrapping_pow",
    "wrapping_rem",
    "wrapping_rem_euclid",
    "wrapping_shl",
    "wrapping_shr",
    "wrapping_sub",
];

/// Names of [`COMMON_METHODS`] that are std types' own (inherent), of no
/// std trait: an in-repo type implementing an outside trait does not get
/// them (tracing-subscriber's `EnabledSubscriber.with(filter)` is its
/// `SubscriberExt::with`, not `LocalKey::with`). Sorted.
pub(super) const INHERENT_METHODS: &[&str] = &[
    "contains_key",
    "entry",
    "is_err",
    "is_none",
    "is_ok",
    "is_some",
    "map_err",
    "ok_or",
    "ok_or_else",
    "or_else",
    "or_insert",
    "or_insert_with",
    "pop",
    "push",
    "push_back",
    "push_front",
    "push_str",
    "set",
    "then",
    "then_some",
    "unwrap",
    "unwrap_err",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "upgrade",
    "with",
];

/// Names of [`COMMON_METHODS`] that a std iterator has: those of std's
/// iterator traits, of traits every type or every iterator has (`clone`,
/// `into`, `into_iter`), and std iterators' own (`as_slice`). Any other
/// common name called on an iterator is an iterator extension's
/// (itertools' `v.iter().dedup()`, `.get(1..4)`, `.join(", ")`). Sorted.
pub(super) const ITERATOR_METHODS: &[&str] = &[
    "all",
    "any",
    "as_mut_slice",
    "as_path",
    "as_slice",
    "as_str",
    "borrow",
    "borrow_mut",
    "chain",
    "clone",
    "cloned",
    "cmp",
    "collect",
    "copied",
    "count",
    "enumerate",
    "eq",
    "filter",
    "filter_map",
    "find",
    "flat_map",
    "flatten",
    "fmt",
    "fold",
    "for_each",
    "from",
    "ge",
    "gt",
    "hash",
    "inspect",
    "into",
    "into_iter",
    "is_empty",
    "last",
    "le",
    "len",
    "lt",
    "map",
    "max",
    "max_by_key",
    "min",
    "min_by_key",
    "ne",
    "next",
    "partial_cmp",
    "peekable",
    "position",
    "rev",
    "skip",
    "skip_while",
    "step_by",
    "sum",
    "take",
    "take_while",
    "to_owned",
    "try_from",
    "try_into",
    "zip",
];

/// Methods std gives every fn item and closure (of `Clone`, the `Fn*`
/// traits and std's blanket impls). Sorted.
pub(super) const FN_STD_METHODS: &[&str] = &[
    "borrow",
    "borrow_mut",
    "call",
    "call_mut",
    "call_once",
    "clone",
    "clone_from",
    "into",
    "to_owned",
    "try_into",
    "type_id",
];

/// What an extension trait's method is called on (see [`Cx::ext_method`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExtOn {
    /// A value of an outside type.
    Outside,
    /// An outside collection (not an iterator over one).
    Collection,
    /// An in-repo type that implements some outside trait, and no
    /// `Deref`.
    InRepo,
    /// An iterator: an outside one (`v.iter()`, a value declared
    /// `impl Iterator`), or an in-repo type without `Deref` that implements
    /// std's `Iterator` (`in_repo`).
    Iterator { in_repo: bool },
}

/// Element `i` of a tuple's element types (unknown past its end).
fn tuple_elem(mut elems: Vec<TyRes>, i: Option<usize>) -> TyRes {
    match i {
        Some(i) if i < elems.len() => elems.swap_remove(i),
        _ => TyRes::Unknown,
    }
}

/// The type of `m` called on collection `c` of `elem`s: iterators keep the
/// elements, accessors give one (maybe), the rest is std's.
fn collection_method(c: TyRes, elem: TyRes, m: &str) -> TyRes {
    match m {
        "iter" | "iter_mut" | "into_iter" | "drain" | "filter" | "rev" | "skip" | "take"
        | "chain" | "cloned" | "copied" | "peekable" | "skip_while" | "take_while" | "inspect"
        | "by_ref" | "step_by" | "as_slice" | "as_mut_slice" | "to_vec" | "clone" | "as_ref"
        | "as_mut" | "borrow" | "borrow_mut" | "into_sorted_vec" => c,
        "first" | "last" | "get" | "get_mut" | "pop" | "pop_front" | "pop_back" | "next"
        | "next_back" | "find" | "max" | "min" | "max_by_key" | "min_by_key" | "max_by"
        | "min_by" | "nth" | "peek" | "first_mut" | "last_mut" | "front" | "back" => {
            TyRes::Wrap(Box::new(elem))
        }
        "remove" | "swap_remove" => elem,
        // Pairs: the index (or the other iterator's element) first.
        "enumerate" => TyRes::Container(Box::new(TyRes::Tuple(vec![TyRes::External, elem]))),
        "zip" => TyRes::Container(Box::new(TyRes::Tuple(vec![elem, TyRes::Unknown]))),
        _ => TyRes::External,
    }
}

/// Methods of external types that may return an in-repo element type.
const ELEMENT_ACCESSORS: &[&str] = &[
    "borrow",
    "borrow_mut",
    "expect",
    "find",
    "first",
    "get",
    "get_mut",
    "into_inner",
    "last",
    "lock",
    "next",
    "peek",
    "pop",
    "pop_back",
    "pop_front",
    "read",
    "recv",
    "remove",
    "take",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "write",
];

/// Receivers of unknown type get a `Member` edge only when one method of
/// that name (callable there, with that many arguments) exists: Rust calls
/// are statically dispatched, so a guess among several is mostly wrong;
/// such sites are left unresolved for the language server.
const MAX_MEMBER_CANDIDATES: u32 = 1;

/// Beyond this many same-named methods in the repository, an unknown
/// receiver is not worth filtering them: the site stays unresolved.
const MAX_MEMBER_SCAN: usize = 64;

/// What an argument is, or what an impl's trait takes (`impl From<A>`),
/// as far as telling same-named associated fns apart goes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape<'a> {
    Def(SymId),
    /// An outside type or a primitive, by name (`String`, `Vec`, `str`).
    Named(&'a str),
    Slice,
    /// A type parameter of the impl: what no other impl takes.
    Param,
    Unknown,
}

/// Std conversions whose value is a known outside type, by method name.
const CONVERSIONS: [(&str, &str); 5] = [
    ("into_boxed_slice", "Box"),
    ("into_boxed_str", "Box"),
    ("into_bytes", "Vec"),
    ("to_string", "String"),
    ("to_vec", "Vec"),
];

/// What a path call's arguments tell (see [`Refs::call_args`] and
/// [`Refs::self_args`]).
#[derive(Clone, Copy)]
struct CallArgs<'a> {
    one: Option<&'a ArgTy>,
    first: Option<u32>,
}

struct Cx<'a, 'w> {
    world: &'a World<'w>,
    ix: &'a Index,
    file: FileIdx,
    scope: &'a Scope,
    refs: &'a Refs,
    g: &'a [u32],
    defs: &'a [Def],
    /// Module id of the file.
    fm: u32,
    /// (fn def, name) → item defined in the fn's body.
    local_items: HashMap<(u32, u32), u32>,
    /// (fn, name) → the `macro_rules!` of that name in its body, in
    /// source order (a later one shadows an earlier one below it).
    local_macros: HashMap<(u32, u32), super::index::Few<u32>>,
    /// (fn def, name) → `use`s in the fn's body.
    local_uses: HashMap<(u32, u32), Vec<u32>>,
    local_globs: HashMap<u32, Vec<u32>>,
    /// Method def → its impl.
    method_impl: HashMap<u32, u32>,
    /// Name → the `macro_rules!` of that name at module level in this
    /// file, as (def, module id), in text order.
    file_macros: HashMap<u32, Vec<(u32, u32)>>,
    out: FileResolution,
}

pub fn resolve(world: &World, ix: &Index, file: FileIdx, refs: &Refs) -> FileResolution {
    let Some(scope) = scope_of(world, file) else {
        return FileResolution::default();
    };
    let fm = ix.file_mod.get(file.0 as usize).copied().unwrap_or(NONE);
    if fm == NONE {
        return FileResolution::default();
    }
    // Decoded for this resolution only: a first index resolves each file
    // once (1.5M definitions in rust-large).
    let defs = world.defs_once(file);
    let defs = &defs[..];
    let mut cx = Cx {
        world,
        ix,
        file,
        scope,
        refs,
        g: &ix.gnames[file.0 as usize],
        defs,
        fm,
        local_items: HashMap::default(),
        local_macros: HashMap::default(),
        local_uses: HashMap::default(),
        local_globs: HashMap::default(),
        method_impl: HashMap::default(),
        file_macros: HashMap::default(),
        out: FileResolution::default(),
    };
    cx.tables();
    // (The call arguments are in site order.)
    let mut call_args = refs.call_args.iter().peekable();
    let mut self_args = refs.self_args.iter().peekable();
    for (i, site) in refs.sites.iter().enumerate() {
        let arg = call_args.next_if(|c| c.site == i as u32).map(|c| &c.arg);
        let first = self_args.next_if(|c| c.site == i as u32).map(|c| c.recv);
        match &site.kind {
            SiteKind::Path { segs, role, hidden } => {
                let args = CallArgs { one: arg, first };
                cx.path_site(site, segs, *role, *hidden, args)
            }
            SiteKind::Method {
                recv,
                name,
                pos,
                args,
            } => cx.method_site(site, *recv, *name, *pos, *args),
        }
    }
    for u in 0..scope.uses.len() {
        cx.use_edges(u as u32);
    }
    cx.impl_method_edges();
    cx.out
}

pub(super) fn is_fn(kind: NodeKind) -> bool {
    matches!(kind, NodeKind::Function | NodeKind::Method | NodeKind::Test)
}

fn strategy(how: How) -> Strategy {
    match how {
        How::Local => Strategy::Local,
        How::Import => Strategy::Import,
        How::ReExport => Strategy::ReExport,
        How::Path => Strategy::Path,
        How::Candidates(k) => Strategy::Member { k: u32::from(k) },
    }
}

impl Cx<'_, '_> {
    fn tables(&mut self) {
        for (d, def) in self.defs.iter().enumerate().skip(1) {
            let Some(p) = def.parent.filter(|&p| p != 0) else {
                continue;
            };
            if def.kind != NodeKind::Method
                && is_fn(self.defs[p as usize].kind)
                && !self.scope.local_macros.contains(&(d as u32))
            {
                if let Some(n) = self.ix.gname(&def.name) {
                    // Of same-named items, the first likely compiled in
                    // (`#[cfg(not(feature = "x"))] fn imp()` before the
                    // `#[cfg(feature = "x")] fn imp()` of a default
                    // feature), as in a module (`Index::off`).
                    let off = |d: u32| {
                        self.ix.off.contains(&SymId {
                            file: self.file,
                            def: d,
                        })
                    };
                    let d = d as u32;
                    self.local_items
                        .entry((p, n))
                        .and_modify(|first| {
                            if off(*first) && !off(d) {
                                *first = d;
                            }
                        })
                        .or_insert(d);
                }
            }
        }
        for &d in &self.scope.local_macros {
            let def = &self.defs[d as usize];
            if let (Some(p), Some(n)) = (def.parent, self.ix.gname(&def.name)) {
                self.local_macros.entry((p, n)).or_default().push(d);
            }
        }
        for (u, us) in self.scope.uses.iter().enumerate() {
            if us.scope_fn == 0 {
                continue;
            }
            if us.glob {
                self.local_globs
                    .entry(us.scope_fn)
                    .or_default()
                    .push(u as u32);
            } else if let Some(b) = us.binding() {
                self.local_uses
                    .entry((us.scope_fn, self.g[b as usize]))
                    .or_default()
                    .push(u as u32);
            }
        }
        for (i, imp) in self.scope.impls.iter().enumerate() {
            for &m in &imp.methods {
                self.method_impl.insert(m, i as u32);
            }
        }
        for item in &self.scope.items {
            if item.is_macro {
                let name = &self.defs[item.def as usize].name;
                // `#[cfg(target_arch = "wasm32")] macro_rules! println`:
                // where it is compiled out, std's is the one in scope.
                if self.off(item.def) && std_macro(name).is_some() {
                    continue;
                }
                if let Some(n) = self.ix.gname(name) {
                    let same = self.file_macros.entry(n).or_default();
                    same.push((item.def, item.module));
                }
            }
        }
    }

    fn off(&self, def: u32) -> bool {
        self.ix.off.contains(&self.sym(def))
    }

    /// The file's `macro_rules!` named `name` that a bare `name!` in
    /// module `module` at `pos` calls. Textual scope: a definition counts
    /// from where it is written, in its module and the modules inside it
    /// (and on in the parent after a `#[macro_use] mod`), and a later one
    /// shadows an earlier one (`mod complete { macro_rules! assert_parse …
    /// } mod partial { macro_rules! assert_parse … }`: each module's calls
    /// take its own). Failing that, the first one written before the site
    /// in another module. A definition compiled out yields to one compiled
    /// in, first among those in textual scope (in a module compiled out,
    /// its own macros, also compiled out, are still the ones it calls).
    /// None written before the site: what the module's own names, the
    /// crate's or std's give (see `crate_macro`).
    fn file_macro(&self, name: u32, module: u32, pos: Pos) -> Option<u32> {
        let mods = &self.scope.mods;
        // The module until whose end a definition in `m` stays in scope
        // (an inline module's parent is written before it: its id is
        // smaller, so this ends).
        let scope_of = |mut m: u32| {
            while let Some(im) = m.checked_sub(1).map(|i| &mods[i as usize]) {
                if !im.macro_use {
                    break;
                }
                m = im.parent;
            }
            m
        };
        let encloses = |outer: u32| self.ix.within(self.fm + module, self.fm + outer);
        let before: Vec<(u32, bool)> = self
            .file_macros
            .get(&name)?
            .iter()
            .filter(|&&(d, _)| self.defs[d as usize].pos < pos)
            .map(|&(d, m)| (d, encloses(scope_of(m))))
            .collect();
        let on = |&&(d, _): &&(u32, bool)| !self.off(d);
        let textual = |&&(_, t): &&(u32, bool)| t;
        let pick = before
            .iter()
            .filter(on)
            .rfind(textual)
            .or_else(|| before.iter().rfind(textual))
            .or_else(|| before.iter().find(on))
            .or_else(|| before.first());
        pick.map(|&(d, _)| d)
    }

    fn sym(&self, def: u32) -> SymId {
        SymId {
            file: self.file,
            def,
        }
    }

    fn gstr(&self, local: u32) -> &str {
        &self.scope.names[local as usize]
    }

    /// The index knows every Rust definition's name: no store is asked,
    /// even when the world is read on demand.
    fn in_repo(&self, name: &str) -> bool {
        self.ix.def_named(name)
    }

    fn edge(
        &mut self,
        src: SymId,
        dst: SymId,
        kind: EdgeKind,
        strategy: Strategy,
        site: Option<Pos>,
    ) {
        self.out.edges.push(ResolvedEdge {
            src,
            dst,
            kind,
            strategy,
            site,
        });
    }

    fn unresolved(&mut self, src: u32, name: &str, kind: EdgeKind, site: Pos, reason: &str) {
        if !self.in_repo(name) {
            return;
        }
        self.out.unresolved.push(Unresolved {
            src,
            name: name.to_string(),
            kind,
            site,
            reason: reason.to_string(),
        });
    }

    /// The `macro_rules!` named `name` a use at `at` in the fn bodies
    /// enclosing `src` expands: the last one defined above it (lewton's
    /// `inverse_mdct` defines `d!` and `e!` again in each of its blocks).
    fn local_macro(&self, src: u32, name: u32, at: Pos) -> Option<(Res, How)> {
        let mut d = src;
        while d != 0 {
            let def = &self.defs[d as usize];
            if is_fn(def.kind) {
                let above = self
                    .local_macros
                    .get(&(d, name))
                    .and_then(|ms| ms.iter().rev().find(|&&m| self.defs[m as usize].pos < at));
                if let Some(&m) = above {
                    return Some((Res::Def(self.sym(m)), How::Local));
                }
            }
            d = def.parent.unwrap_or(0);
        }
        None
    }

    /// The exported macro `name` of a crate its root brings into every
    /// module of module `m`'s crate with `#[macro_use] extern crate x;`
    /// (approx's tests: `#[macro_use] extern crate approx;`, then
    /// `assert_abs_diff_eq!(…)` in any module). Looked at after textual
    /// and path scopes, as rustc does.
    fn macro_use_prelude(&self, m: u32, name: u32) -> Option<SymId> {
        let root = self.ix.mods.get(m as usize)?.root;
        let file = self.ix.mods.get(root as usize)?.file;
        let scope = scope_of(self.world, file)?;
        let g = &self.ix.gnames[file.0 as usize];
        scope.macro_use_crates.iter().find_map(|&c| {
            let krate = *self.ix.crates.get(&g[c as usize])?;
            match self
                .ix
                .lookup(self.world, krate, name, Ns::Macro, 0, None)?
            {
                (Res::Def(d), _) => Some(d),
                _ => None,
            }
        })
    }

    /// A name in the fn bodies enclosing `src`: items, then `use`s.
    fn local_lookup(&self, src: u32, name: u32, ns: Ns) -> Option<(Res, How)> {
        let mut d = src;
        while d != 0 {
            let def = &self.defs[d as usize];
            if is_fn(def.kind) {
                // (A `macro_rules!` of the body is in scope only below its
                // definition: `local_macro`, which knows the call's place.)
                let item = (ns != Ns::Macro)
                    .then(|| self.local_items.get(&(d, name)))
                    .flatten();
                if let Some(&x) = item {
                    return Some((Res::Def(self.sym(x)), How::Local));
                }
                if let Some(us) = self.local_uses.get(&(d, name)) {
                    for &u in us {
                        if let Some((r, _)) = self.ix.resolve_use(self.world, (self.file, u), ns, 1)
                        {
                            return Some((r, How::Import));
                        }
                    }
                }
                if let Some(gs) = self.local_globs.get(&d) {
                    for &u in gs {
                        let target = self.ix.resolve_use(self.world, (self.file, u), Ns::Any, 1);
                        match target {
                            Some((Res::Mod(t), _)) => {
                                if let Some((r, _)) =
                                    self.ix.lookup(self.world, t, name, ns, 1, None)
                                {
                                    return Some((r, How::Import));
                                }
                            }
                            // `use Kind::*` in a fn body: its variants.
                            Some((Res::Def(e), _)) if self.ix.variants.contains(&(e, name)) => {
                                return Some((Res::Ext, How::Import));
                            }
                            _ => {}
                        }
                    }
                }
            }
            d = def.parent.unwrap_or(0);
        }
        None
    }

    /// `arg`: what the argument of a one-argument call is.
    fn path_site(
        &mut self,
        site: &Site,
        segs: &[(u32, Pos)],
        role: Role,
        hidden: u8,
        args: CallArgs<'_>,
    ) {
        let names: Vec<u32> = segs.iter().map(|s| self.g[s.0 as usize]).collect();
        let ns = match role {
            Role::Macro => Ns::Macro,
            Role::Call | Role::Value | Role::MacroValue => Ns::Value,
            _ => Ns::Any,
        };
        let m = self.fm + site.module;
        let src = site.src;
        let at = segs[0].1;
        let first = |n: u32, ns: Ns| match ns {
            Ns::Macro => self
                .local_macro(src, n, at)
                .or_else(|| self.local_lookup(src, n, ns))
                .or_else(|| {
                    let d = self.file_macro(n, site.module, at)?;
                    Some((Res::Def(self.sym(d)), How::Local))
                }),
            _ => self.local_lookup(src, n, ns),
        };
        let mut w = self
            .ix
            .walk_from(self.world, self.file, m, &names, ns, 0, None, Some(&first));
        if let ([n], Role::Macro, []) = (&names[..], role, &w.hits[..]) {
            if let Some(d) = self.macro_use_prelude(m, *n) {
                w.hits.push((Res::Def(d), How::Import));
            }
        }
        let last_kind = match role {
            Role::Call | Role::Macro => EdgeKind::Calls,
            Role::Ref | Role::Value | Role::MacroValue => EdgeKind::References,
            Role::ImplTrait(_) => EdgeKind::Implements,
            Role::Extends(_) => EdgeKind::Extends,
        };
        if role == Role::MacroValue {
            // A fn or a type (serde_derive's unit `struct private;` in
            // `quote!(#private)`, windows-sys's `type alljoyn_aboutdata =
            // isize;` in `link!(… -> alljoyn_aboutdata)`), or else nothing:
            // not even an unresolved site. Not the fn the macro is in: a
            // name the macro builds a path from (memchr's `defraw!(One,
            // count_raw, …)` in `fn count_raw`).
            if let [(Res::Def(d), how)] = w.hits[..] {
                let kind = self.world.head(d).kind;
                if matches!(kind, NodeKind::Function | NodeKind::Class) && d != self.sym(src) {
                    let pos = Some(segs[0].1);
                    self.edge(self.sym(src), d, last_kind, strategy(how), pos);
                }
            }
            // A trait and a method of it named among a macro's arguments
            // (see `member_pairs`): that method.
            if let [(Res::Def(tr), _), (Res::Def(d), _)] = w.hits[..] {
                if self.ix.traits.contains(&tr) && self.world.head(d).kind == NodeKind::Method {
                    self.edge(
                        self.sym(src),
                        d,
                        last_kind,
                        Strategy::Member { k: 1 },
                        Some(segs[1].1),
                    );
                }
            }
            return;
        }
        let hits = w.hits.clone();
        for (i, (res, how)) in hits.iter().enumerate() {
            if i < hidden as usize {
                continue;
            }
            let Res::Def(d) = *res else {
                continue;
            };
            let last = i + 1 == names.len();
            let strat = match (i, how) {
                (0, h) => strategy(*h),
                (_, How::ReExport) => Strategy::ReExport,
                (_, How::Candidates(k)) => Strategy::Member { k: u32::from(*k) },
                _ => Strategy::Path,
            };
            let pos = segs[i].1;
            if !last {
                if self.world.head(d).kind == NodeKind::Class {
                    self.edge(self.sym(src), d, EdgeKind::References, strat, Some(pos));
                }
                continue;
            }
            match role {
                Role::ImplTrait(imp) => match self.ix.impl_self.get(&(self.file, imp)) {
                    Some(&t) => self.edge(t, d, EdgeKind::Implements, strat, Some(pos)),
                    None => self.edge(self.sym(src), d, EdgeKind::References, strat, Some(pos)),
                },
                Role::Extends(def) => {
                    self.edge(self.sym(def), d, EdgeKind::Extends, strat, Some(pos))
                }
                // `T::from(x)` with several `impl From<_> for T`: every
                // candidate, each as a guess (which one depends on `x`);
                // beyond MAX_CANDIDATES, the site is left to the server.
                _ if matches!(how, How::Candidates(_)) && i > 0 => {
                    let Res::Def(t) = hits[i - 1].0 else {
                        continue;
                    };
                    let t = self.ix.unalias(self.world, t);
                    let cands: Vec<SymId> = self
                        .ix
                        .assoc(self.world, t, names[i])
                        .into_iter()
                        .filter(|&c| !self.ix.is_off(c))
                        .collect();
                    // `Bytes::from(v)` with `v: Vec<u8>`: the impl of
                    // `From<Vec<u8>>`, when the argument tells.
                    if let Some(arg) = args.one.filter(|_| last && role == Role::Call) {
                        if let Some(d) = self.pick_by_arg(site, arg, &cands) {
                            let s = Strategy::TypedReceiver;
                            self.edge(self.sym(src), d, last_kind, s, Some(pos));
                            continue;
                        }
                    }
                    if cands.len() > MAX_CANDIDATES as usize {
                        let name = self.gstr(segs[i].0).to_string();
                        let reason = format!("{} candidates", cands.len());
                        self.unresolved(src, &name, last_kind, pos, &reason);
                        continue;
                    }
                    for c in cands {
                        self.edge(self.sym(src), c, last_kind, strat, Some(pos));
                    }
                }
                // `Trait::f(&g, …)` with `g` of an in-repo type: the
                // impl's `f`, as `g.f(…)` would be.
                _ if let Some(r) = args.first.filter(|_| role == Role::Call && i > 0)
                    && let Some(m) = self.trait_call_impl(site, hits[i - 1].0, d, names[i], r) =>
                {
                    let s = Strategy::TypedReceiver;
                    self.edge(self.sym(src), m, last_kind, s, Some(pos))
                }
                _ => self.edge(self.sym(src), d, last_kind, strat, Some(pos)),
            }
        }
        if hits.len() == names.len() {
            return;
        }
        let i = hits.len();
        if i < hidden as usize {
            return;
        }
        let (name_l, pos) = segs[i];
        let name = self.gstr(name_l).to_string();
        let kind = if i + 1 == names.len() {
            match last_kind {
                EdgeKind::Calls => EdgeKind::Calls,
                _ => EdgeKind::References,
            }
        } else {
            EdgeKind::References
        };
        if i == 0 {
            if role == Role::Macro && names.len() == 1 {
                self.crate_macro(src, m, names[0], &name, pos);
            } else if names.len() == 1 && !PRELUDE.contains(&name.as_str()) && !w.bound_outside {
                self.unresolved(src, &name, kind, pos, "no definition in scope");
            }
            return;
        }
        if w.external {
            return;
        }
        match hits[i - 1].0 {
            Res::Ext => {}
            Res::Mod(_) => self.unresolved(src, &name, kind, pos, "not found in module"),
            Res::Def(_) => {
                if self.ix.methods_by_name.contains_key(&names[i]) {
                    self.unresolved(src, &name, kind, pos, "no associated item");
                }
            }
        }
    }

    /// `Trait::f(x, …)`, whose path found the trait's `f` (`d`), with `x`
    /// (receiver `r`) of an in-repo type whose impl of the trait defines
    /// `f`: that impl's `f`. (An impl that does not define it has the
    /// trait's.)
    fn trait_call_impl(&self, site: &Site, tr: Res, d: SymId, name: u32, r: u32) -> Option<SymId> {
        let Res::Def(tr) = tr else {
            return None;
        };
        if self.ix.trait_methods.get(&(tr, name)) != Some(&d) {
            return None;
        }
        let TyRes::Def(t) = self.eval(site, r, 0) else {
            return None;
        };
        let t = self.ix.unalias(self.world, t);
        // (A generic parameter is its bound: the trait's, as in log's
        // `impl<S: Source> Source for Arc<S>` calling
        // `Source::count(&**self)`.)
        if self.ix.traits.contains(&t) {
            return None;
        }
        let cands = self.ix.trait_impl_methods.get(&(t, name))?;
        cands.iter().copied().find(|&c| {
            let imp = self.ix.impl_of(self.world, c);
            imp.and_then(|(i, _)| self.ix.impl_trait.get(&(c.file, i))) == Some(&tr)
        })
    }

    /// A bare `m!` not in textual or `use` scope: a `macro_rules!` of the
    /// same crate (reached through `#[macro_use]` module order).
    fn crate_macro(&mut self, src: u32, m: u32, name: u32, text: &str, pos: Pos) {
        if std_macro(text).is_some() {
            return;
        }
        let root = self.ix.mods[m as usize].root;
        let cands: Vec<SymId> = self
            .ix
            .macros_by_name
            .get(&name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|d| {
                self.ix
                    .def_module(*d)
                    .is_some_and(|dm| self.ix.in_crate(dm, root))
            })
            .collect();
        // Same-named macros under opposite cfgs: the one compiled in.
        let on: Vec<SymId> = cands
            .iter()
            .copied()
            .filter(|&d| !self.ix.is_off(d))
            .collect();
        let cands = if on.is_empty() { cands } else { on };
        match cands.len() {
            0 => self.unresolved(src, text, EdgeKind::Calls, pos, "macro not in scope"),
            1 => self.edge(
                self.sym(src),
                cands[0],
                EdgeKind::Calls,
                Strategy::Path,
                Some(pos),
            ),
            k if k as u32 <= MAX_CANDIDATES => {
                for d in cands {
                    let s = Strategy::NameAmbiguous { k: k as u32 };
                    self.edge(self.sym(src), d, EdgeKind::Calls, s, Some(pos));
                }
            }
            k => self.unresolved(src, text, EdgeKind::Calls, pos, &format!("{k} candidates")),
        }
    }

    fn method_site(&mut self, site: &Site, recv: u32, name_l: u32, pos: Pos, args: u8) {
        let name = self.g[name_l as usize];
        let text = self.gstr(name_l).to_string();
        let src = site.src;
        let ty = self.eval(site, recv, 0);
        match &ty {
            &TyRes::Def(t) => {
                let t = self.ix.unalias(self.world, t);
                let cands = self
                    .ix
                    .assoc_from(self.world, t, name, self.fm + site.module);
                let strat = if recv == 1 {
                    Strategy::SelfMember
                } else {
                    Strategy::TypedReceiver
                };
                match cands
                    .first()
                    .copied()
                    .or_else(|| self.ix.blanket_method(t, name))
                    .or_else(|| self.other_bound_method(site, t, name))
                {
                    Some(d) => self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos)),
                    // An extension trait's method, when the type
                    // implements some outside trait (`impl Iterator for
                    // PutBack`) and one such method is in scope.
                    None if let Some(d) = self.outside_trait_ext(site, t, name, &text, args) => {
                        let strat = Strategy::Member { k: 1 };
                        self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos));
                    }
                    None => {
                        if self.ix.methods_by_name.contains_key(&name) {
                            self.unresolved(
                                src,
                                &text,
                                EdgeKind::Calls,
                                pos,
                                "no such method on receiver type",
                            );
                        }
                    }
                }
            }
            // A callable: the method of an in-repo trait implemented for
            // every `Fn*` (`be_u8.map(…)`). (Such traits that have it, none
            // or several in scope: which is meant is not told.) Else as on
            // a value of unknown type: a trait's blanket impl may cover
            // callables through an in-repo bound (bevy's `impl<F:
            // SystemParamFunction<M>> IntoSystem for F`, whose bound a
            // macro implements for every `FnMut`).
            TyRes::Fn => match self.fn_method(site, name, args) {
                Ok(d) => {
                    let strat = Strategy::TypedReceiver;
                    self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos));
                }
                Err(0) if FN_STD_METHODS.binary_search(&text.as_str()).is_ok() => {}
                Err(0) => self.untyped_method(site, recv, name_l, pos, args),
                Err(k) => {
                    let why = format!("{k} traits for callables have it, not one in scope");
                    self.unresolved(src, &text, EdgeKind::Calls, pos, &why);
                }
            },
            // A collection itself has inherent methods an extension trait
            // may share (`Vec::concat`, `Itertools::concat`); an iterator
            // over it (`v.iter()`) has not.
            // (One an in-repo trait is implemented for does: `impl BufMut
            // for Vec<u8>`.)
            // A number's own method (`x.to_bits()` on an `f32`): std's.
            TyRes::External if self.numbers_own(name, &text) => {}
            TyRes::External | TyRes::Container(_) | TyRes::Map(..) | TyRes::Tuple(_) => {
                let on = if self.iterator_value(recv, 0) {
                    ExtOn::Iterator { in_repo: false }
                } else if matches!(ty, TyRes::Container(_) | TyRes::Map(..)) {
                    ExtOn::Collection
                } else {
                    ExtOn::Outside
                };
                let strat = Strategy::Member { k: 1 };
                match self.ext_method(site, name, &text, args, on) {
                    Ok(d) => self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos)),
                    Err(0) => {}
                    // Several in-repo traits' impls for outside types have
                    // the method: the one for the receiver's type, when it
                    // is named.
                    Err(_) if let Some(d) = self.outside_impl_method(site, recv, name, args) => {
                        self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos));
                    }
                    Err(k) => {
                        let why = format!("{k} candidates");
                        self.unresolved(src, &text, EdgeKind::Calls, pos, &why);
                    }
                }
            }
            TyRes::Wrap(_) => {}
            // Some type with trait `t`, maybe with others: `t`'s method
            // (see `trait_own_method`), else as if nothing were known.
            &TyRes::Impls(t) => match self.trait_own_method(site, t, name) {
                Some(d) => {
                    let strat = Strategy::TypedReceiver;
                    self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos));
                }
                None => self.untyped_method(site, recv, name_l, pos, args),
            },
            TyRes::Unknown => self.untyped_method(site, recv, name_l, pos, args),
        }
    }

    /// `recv.name(…)` on a receiver of unknown type: `self`'s in an impl
    /// for an outside type (see `outside_self_method`), else a guess
    /// among the in-repo methods of that name callable here.
    fn untyped_method(&mut self, site: &Site, recv: u32, name_l: u32, pos: Pos, args: u8) {
        let name = self.g[name_l as usize];
        let text = self.gstr(name_l).to_string();
        let src = site.src;
        if recv == SELF_RECV {
            if let Some(d) = self.outside_self_method(src, &text) {
                let strat = Strategy::SelfMember;
                self.edge(self.sym(src), d, EdgeKind::Calls, strat, Some(pos));
                return;
            }
        }
        let all = self.ix.methods_by_name.get(&name).map_or(0, Vec::len);
        if all > MAX_MEMBER_SCAN {
            let reason = format!("{all} candidates");
            self.unresolved(src, &text, EdgeKind::Calls, pos, &reason);
            return;
        }
        // Only methods callable here with this many arguments.
        let m = self.fm + site.module;
        let around = self.outside_trait_method_around(src);
        let cands: Vec<SymId> = self
            .ix
            .methods_by_name
            .get(&name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&c| self.method_takes(c, args))
            .filter(|c| {
                self.world.head(*c).exported
                    || self
                        .ix
                        .method_module(*c)
                        .is_none_or(|cm| self.ix.within(m, cm))
            })
            // Not from a crate this one cannot use.
            .filter(|c| self.ix.may_depend(self.file, c.file))
            .collect();
        if cands.is_empty() {
            return;
        }
        // `inner.read_exact(buf)` in the `read_exact` of `impl Read
        // for Either<L, R>`: a delegation to whatever the inner
        // value is, not a call of the method itself nor of another
        // in-repo type's impl of the same outside trait.
        if around.is_some_and(|a| cands.contains(&a)) {
            let reason = "unknown receiver, delegating to the same method";
            self.unresolved(src, &text, EdgeKind::Calls, pos, reason);
            return;
        }
        let k = cands.len() as u32;
        if COMMON_METHODS.binary_search(&text.as_str()).is_ok() {
            self.unresolved(
                src,
                &text,
                EdgeKind::Calls,
                pos,
                "unknown receiver, common method name",
            );
        } else if k > MAX_CANDIDATES.min(MAX_MEMBER_CANDIDATES) {
            self.unresolved(src, &text, EdgeKind::Calls, pos, &format!("{k} candidates"));
        } else {
            for d in cands {
                self.edge(
                    self.sym(src),
                    d,
                    EdgeKind::Calls,
                    Strategy::Member { k },
                    Some(pos),
                );
            }
        }
    }

    /// Method `name` (a global name id) of trait `t` or a supertrait, as
    /// called on some type with `t` ([`TyRes::Impls`]): the trait's own,
    /// unless some impl of the declaring trait defines the method (a
    /// required one always), which the unknown type's may be.
    fn trait_own_method(&self, site: &Site, t: SymId, name: u32) -> Option<SymId> {
        let found = self
            .ix
            .assoc_from(self.world, t, name, self.fm + site.module);
        let d = found.first().copied()?;
        let tr = self.world.head(d).parent.map(|p| SymId {
            file: d.file,
            def: p,
        })?;
        (!self.ix.impl_defines(self.world, tr, name)).then_some(d)
    }

    /// Method `name` of trait `t` is missing: when a generic parameter of
    /// a fn around the site is bounded by `t` and other traits (`I:
    /// Slice<…> + InputLength`, typed as `Slice`), the first of the others
    /// that has it.
    fn other_bound_method(&self, site: &Site, t: SymId, name: u32) -> Option<SymId> {
        if self.refs.bound_sets.is_empty() || !self.ix.traits.contains(&t) {
            return None;
        }
        let m = self.fm + site.module;
        let src = site.src;
        let first = |n: u32, ns: Ns| self.local_lookup(src, n, ns);
        let trait_of = |p: &[u32]| match self.ix.path_ty(self.world, self.file, m, p, Some(&first))
        {
            TyRes::Def(d) if self.ix.traits.contains(&d) => Some(d),
            _ => None,
        };
        let mut d = src;
        while d != 0 {
            for set in self.refs.bound_sets.iter().filter(|b| b.owner == d) {
                let Some((head, rest)) = set.bounds.split_first() else {
                    continue;
                };
                if trait_of(head) != Some(t) {
                    continue;
                }
                for other in rest {
                    let found = trait_of(other)
                        .and_then(|o| self.ix.assoc(self.world, o, name).first().copied());
                    if found.is_some() {
                        return found;
                    }
                }
            }
            d = self.defs[d as usize].parent.unwrap_or(0);
        }
        None
    }

    /// The method around `src`, when it is in an impl of a trait from
    /// outside the repository (`impl Read for Either<L, R>`).
    fn outside_trait_method_around(&self, src: u32) -> Option<SymId> {
        let (d, imp) = self.impl_method_around(src)?;
        let outside = !self.scope.impls[imp as usize].tr.is_empty()
            && !self.ix.impl_trait.contains_key(&(self.file, imp));
        outside.then(|| self.sym(d))
    }

    /// The method `src` is in (not through a nested fn), when it is in an
    /// impl block: (its def, the impl's index in `Scope::impls`).
    fn impl_method_around(&self, src: u32) -> Option<(u32, u32)> {
        let mut d = src;
        while d != 0 {
            let def = &self.defs[d as usize];
            if def.kind == NodeKind::Method {
                return self.method_impl.get(&d).map(|&imp| (d, imp));
            }
            if is_fn(def.kind) {
                return None;
            }
            d = def.parent.unwrap_or(0);
        }
        None
    }

    /// `self.name()` in a method of an impl of an in-repo trait for an
    /// outside type (`impl BufMut for &mut [u8]`): the impl's own method,
    /// else the trait's. A name std types commonly have is left alone (an
    /// inherent method of the outside type comes first).
    fn outside_self_method(&self, src: u32, text: &str) -> Option<SymId> {
        if COMMON_METHODS.binary_search(&text).is_ok() {
            return None;
        }
        let (_, imp) = self.impl_method_around(src)?;
        if !self.ix.outside_impls.contains(&(self.file, imp)) {
            return None;
        }
        let own = self.scope.impls[imp as usize]
            .methods
            .iter()
            .find(|&&md| self.defs[md as usize].name == text);
        if let Some(&md) = own {
            return Some(self.sym(md));
        }
        let tr = *self.ix.impl_trait.get(&(self.file, imp))?;
        let name = self.ix.gname(text)?;
        self.ix.trait_methods.get(&(tr, name)).copied()
    }

    /// Whether receiver `r` is a collection's iterator (`v.iter()`,
    /// `m.values().rev()`), not the collection.
    fn is_iterator(&self, r: u32) -> bool {
        let Some(Recv::Method(_, name)) = self.refs.recvs.get(r as usize) else {
            return false;
        };
        matches!(
            self.gstr(*name),
            "iter"
                | "iter_mut"
                | "into_iter"
                | "drain"
                | "filter"
                | "rev"
                | "skip"
                | "take"
                | "chain"
                | "cloned"
                | "copied"
                | "peekable"
                | "skip_while"
                | "take_while"
                | "inspect"
                | "by_ref"
                | "step_by"
                | "keys"
                | "values"
                | "values_mut"
                | "into_keys"
                | "into_values"
        )
    }

    /// Whether receiver `r` is an iterator as far as an extension's method
    /// is concerned: a collection's ([`Self::is_iterator`]), the same value
    /// again (`it.clone()`), or a value declared one of std's iterators (a
    /// generic bounded by one, `I: ExactSizeIterator`, which the extractor
    /// writes as its bound; `impl Iterator<Item = T>`).
    fn iterator_value(&self, r: u32, depth: u8) -> bool {
        match self.refs.recvs.get(r as usize) {
            Some(Recv::Method(inner, name)) if self.gstr(*name) == "clone" => {
                depth < 8 && self.iterator_value(*inner, depth + 1)
            }
            Some(Recv::Ty(Ty::Path(p) | Ty::Generic(p, _))) => p
                .last()
                .is_some_and(|&n| super::index::std_iterator_trait(self.gstr(n))),
            _ => self.is_iterator(r),
        }
    }

    /// Whether `x.name()` on an outside value is std's: the in-repo impls
    /// for outside types that have a method `name` (global id) are all for
    /// numbers (libm's `impl Float for f32`), each of which has a method of
    /// the name of its own (see [`FLOAT_METHODS`]), which is the one called.
    fn numbers_own(&self, name: u32, text: &str) -> bool {
        let Some(impls) = self.ix.outside_impls_by_name.get(&name) else {
            return false;
        };
        impls.iter().all(|&(f, i)| {
            let imp = scope_of(self.world, f).and_then(|s| s.impls.get(i as usize));
            let Some(imp) = imp.filter(|imp| imp.ty == Ty::External) else {
                return false;
            };
            // The type's name leads its methods' local names (`f32::to_bits`).
            let ty = imp.methods.first().and_then(|&m| {
                let local = &self.world.def(SymId { file: f, def: m }).local;
                local
                    .rsplit_once("::")
                    .map(|(ty, _)| ty.rsplit("::").next().unwrap_or(ty))
            });
            let own = match ty {
                Some("f32" | "f64") => FLOAT_METHODS,
                Some(
                    "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
                    | "u128" | "usize",
                ) => INT_METHODS,
                _ => return false,
            };
            own.binary_search(&text).is_ok()
        })
    }

    /// The one extension-trait method (see [`Self::ext_method`]) that
    /// `x.name(…)` reaches on an in-repo type `t` without such a method of
    /// its own, when `t` implements some outside trait (which the
    /// extension's blanket impl may be bounded by: `impl<T: Iterator>
    /// Itertools for T`).
    fn outside_trait_ext(
        &self,
        site: &Site,
        t: SymId,
        name: u32,
        text: &str,
        args: u8,
    ) -> Option<SymId> {
        if !self.ix.outside_trait_types.contains(&t) || self.ix.blanket_method(t, name).is_some() {
            return None;
        }
        // (Through a `Deref` it has a std type's own methods too:
        // tokio's `CachePadded<T>`.)
        let on = if self.has_deref(t) {
            ExtOn::Outside
        } else if self.ix.iter_types.contains(&t) {
            ExtOn::Iterator { in_repo: true }
        } else {
            ExtOn::InRepo
        };
        self.ext_method(site, name, text, args, on).ok()
    }

    /// The one method of an extension trait in scope at `site` (see
    /// `Index::ext_methods`) that `x.name(…)` with `args` arguments on an
    /// outside type `x` can reach; else how many there are. A name std
    /// types have themselves is theirs, not an extension's; on an in-repo
    /// type without `Deref` (`on`), which has no std type's own methods,
    /// only a name some std trait has is. On an iterator, a common name no
    /// iterator has is one of an extension of iterators (see
    /// [`ITERATOR_METHODS`]). On a collection, only traits implemented for
    /// an outside type by name or for every type, not under a bound (a
    /// `Vec` is no `Iterator`).
    fn ext_method(
        &self,
        site: &Site,
        name: u32,
        text: &str,
        args: u8,
        on: ExtOn,
    ) -> Result<SymId, usize> {
        let Some(all) = self.ix.ext_methods.get(&name) else {
            return Err(0);
        };
        let std_own = matches!(on, ExtOn::InRepo | ExtOn::Iterator { in_repo: true })
            && INHERENT_METHODS.binary_search(&text).is_ok();
        // A common name no iterator has, called on one: only an extension
        // of iterators has it.
        let iter_only =
            matches!(on, ExtOn::Iterator { .. }) && ITERATOR_METHODS.binary_search(&text).is_err();
        let common = COMMON_METHODS.binary_search(&text).is_ok() && !std_own;
        if common && !iter_only {
            return Err(0);
        }
        let explicit = on == ExtOn::Collection;
        let cands: Vec<SymId> = all
            .iter()
            .filter(|&&(c, _)| self.method_takes(c, args))
            .filter(|&&(_, tr)| {
                !explicit
                    || self.ix.ext_self_traits.contains(&tr)
                    || self.ix.unbounded_traits.contains(&tr)
            })
            .filter(|&&(_, tr)| !common || self.ix.iter_ext_traits.contains(&tr))
            .filter(|&&(_, tr)| self.trait_in_scope(site, tr))
            .map(|&(c, _)| c)
            .collect();
        match cands.as_slice() {
            [d] => Ok(*d),
            _ => Err(cands.len()),
        }
    }

    /// The method `x.name(…)` with `args` arguments reaches on a callable
    /// `x` (a fn item, a closure, an `impl FnMut(I) -> R`): that of the
    /// one in-repo trait in scope with a blanket impl for every `Fn*`
    /// that has it, the impl's own, else the trait's (winnow's `impl<F:
    /// FnMut(&mut I) -> PResult<O, E>> Parser<I, O, E> for F`: its
    /// `parse_next`, and `Parser::map`). Else how many such traits have
    /// it, in scope or not.
    fn fn_method(&self, site: &Site, name: u32, args: u8) -> Result<SymId, usize> {
        let m = self.fm + site.module;
        let mut all: Vec<(SymId, SymId)> = Vec::new();
        for (&tr, &(f, i)) in &self.ix.fn_ext_traits {
            let Some(imp) = scope_of(self.world, f).and_then(|s| s.impls.get(i as usize)) else {
                continue;
            };
            let own = self.ix.own_method(f, imp, name);
            let d = own.or_else(|| self.ix.assoc_from(self.world, tr, name, m).first().copied());
            if let Some(d) = d.filter(|&d| self.method_takes(d, args)) {
                all.push((d, tr));
            }
        }
        let mut found = all.iter().filter(|&&(_, tr)| self.trait_in_scope(site, tr));
        match (found.next(), found.next()) {
            (Some(&(d, _)), None) => Ok(d),
            _ => Err(all.len()),
        }
    }

    /// Whether `x.m(…)` with `args` arguments can call method `m` (one
    /// taking `self`, with as many other parameters; any, unknown).
    fn method_takes(&self, m: SymId, args: u8) -> bool {
        match self.ix.sig(m) {
            Some((params, has_self)) => has_self && (args == UNKNOWN_ARGS || params == args),
            None => true,
        }
    }

    /// Whether trait `tr` is in scope at `site`: defined or imported in
    /// the module or the enclosing fns, or imported under another name.
    fn trait_in_scope(&self, site: &Site, tr: SymId) -> bool {
        let Some(tn) = self.ix.def_gname(self.world, tr) else {
            return false;
        };
        let m = self.fm + site.module;
        let found = self
            .local_lookup(site.src, tn, Ns::Any)
            .map(|(r, _)| r)
            .or_else(|| {
                self.ix
                    .lookup(self.world, m, tn, Ns::Any, 0, None)
                    .map(|(r, _)| r)
            });
        found == Some(Res::Def(tr)) || self.ix.renamed_in(self.world, m, tr)
    }

    /// `x.name(…)` where in-repo traits in scope are implemented for
    /// several outside types (bytes' `Buf` for `&[u8]`, `VecDeque<u8>`,
    /// `Cursor<T>`): the method of the impl for the type receiver `recv`
    /// is named as (`let b: VecDeque<u8>`, `Vec::with_capacity(64)`), its
    /// own or else the trait's. `None` unless exactly one method is.
    fn outside_impl_method(&self, site: &Site, recv: u32, name: u32, args: u8) -> Option<SymId> {
        // (A method call reaches a slice's impls from an array too, which
        // an argument of a `From<&[T]>` impl would not.)
        let shape = match self.refs.recvs.get(recv as usize) {
            Some(Recv::Ty(Ty::Slice(_))) => Shape::Slice,
            // `T::f(…)` is a `T` only for a constructor: not
            // `String::from_utf8_lossy(b)`, a `Cow<str>`.
            Some(Recv::Call(p))
                if p.last().is_none_or(|&l| {
                    !matches!(self.gstr(l), "new" | "with_capacity" | "default")
                }) =>
            {
                return None;
            }
            _ => self.recv_shape(site, recv, 0),
        };
        // (`Pin::new(&mut x).poll_read(…)` calls `x`'s `poll_read`, whose
        // `self: Pin<&mut Self>` is the receiver: not tokio's `impl
        // AsyncRead for Pin<P>`.)
        if !matches!(shape, Shape::Named(_) | Shape::Slice) || shape == Shape::Named("Pin") {
            return None;
        }
        let mut found = None;
        for &(f, i) in self
            .ix
            .outside_impls_by_name
            .get(&name)
            .into_iter()
            .flatten()
        {
            let Some(&tr) = self.ix.impl_trait.get(&(f, i)) else {
                continue;
            };
            let Some(&default) = self.ix.trait_methods.get(&(tr, name)) else {
                continue;
            };
            let Some(imp) = scope_of(self.world, f).map(|s| &s.impls[i as usize]) else {
                continue;
            };
            let m = self.ix.file_mod[f.0 as usize] + imp.module;
            if self.ty_shape(f, m, &imp.ty) != shape || !self.trait_in_scope(site, tr) {
                continue;
            }
            let d = self.ix.own_method(f, imp, name).unwrap_or(default);
            if !self.method_takes(d, args) || found.is_some_and(|x| x != d) {
                return None;
            }
            found = Some(d);
        }
        found
    }

    /// What calling the one extension-trait method `x.name()` reaches
    /// (local name id `name`, written `text`) returns: its declared type,
    /// where a trait (`Self` in the trait: the outside receiver's type) is
    /// an outside type. `None` without exactly one such method.
    fn ext_ret(&self, site: &Site, name: u32, text: &str) -> Option<TyRes> {
        let d = self
            .ext_method(
                site,
                self.g[name as usize],
                text,
                UNKNOWN_ARGS,
                ExtOn::Outside,
            )
            .ok()?;
        Some(self.ext_ret_of(d))
    }

    /// The declared type extension-trait method `d` returns.
    fn ext_ret_of(&self, d: SymId) -> TyRes {
        match self.ix.ret_ty(self.world, d) {
            TyRes::Def(t) if self.ix.traits.contains(&t) => TyRes::External,
            other => other,
        }
    }

    /// The declared return type of fn `d`; for a fn of this file, names
    /// local to the fns around it come first.
    fn ret_of(&self, d: SymId) -> TyRes {
        if d.file != self.file {
            return self.ix.ret_ty(self.world, d);
        }
        // (Items in its own body are not in scope in its signature.)
        let around = self.defs[d.def as usize].parent.unwrap_or(0);
        let first = |n: u32, ns: Ns| self.local_lookup(around, n, ns);
        self.ix.ret_ty_with(self.world, d, Some(&first))
    }

    /// What `name` returns on an outside type whose own methods return
    /// outside types: an in-repo extension trait's declared type when one
    /// has a method of that name, else an outside type.
    fn ext_or_external(&self, site: &Site, name: u32, text: &str) -> TyRes {
        match self.ext_method(
            site,
            self.g[name as usize],
            text,
            UNKNOWN_ARGS,
            ExtOn::Outside,
        ) {
            Ok(d) => self.ext_ret_of(d),
            Err(0) => TyRes::External,
            Err(_) => TyRes::Unknown,
        }
    }

    /// What `t[i]` is for in-repo type `t`: what its `Index` impls'
    /// `index` fns return, when they agree (`Index<&str>` and
    /// `Index<usize>` for the same `Output`).
    fn index_output(&self, t: SymId) -> TyRes {
        let t = self.ix.unalias(self.world, t);
        let Some(fns) = self.ix.index_fns.get(&t) else {
            return TyRes::Unknown;
        };
        let mut out = None;
        for &d in fns {
            let ty = self.ret_of(d);
            if ty == TyRes::Unknown || out.as_ref().is_some_and(|o| *o != ty) {
                return TyRes::Unknown;
            }
            out = Some(ty);
        }
        out.unwrap_or(TyRes::Unknown)
    }

    /// The method `name` (local id: `add`, `bitand`, …) of in-repo type
    /// `t`'s impl of the std operator trait that has it (`impl BitAnd for
    /// &Set`): what `a & b` calls. Never an inherent method or another
    /// trait's of the name: an operator calls only its trait's.
    fn operator_method(&self, t: SymId, name: u32) -> Option<SymId> {
        let tr = crate::extract::rust::operator_trait(self.gstr(name))?;
        let t = self.ix.unalias(self.world, t);
        let methods = self
            .ix
            .trait_impl_methods
            .get(&(t, self.g[name as usize]))?;
        methods.iter().copied().find(|&m| {
            let (Some((_, imp)), Some(scope)) =
                (self.ix.impl_of(self.world, m), scope_of(self.world, m.file))
            else {
                return false;
            };
            imp.tr
                .last()
                .is_some_and(|&l| &scope.names[l as usize] == tr)
        })
    }

    /// Whether in-repo type `t` implements `Deref` (has a `deref` method).
    fn has_deref(&self, t: SymId) -> bool {
        self.ix
            .gname("deref")
            .is_some_and(|d| !self.ix.assoc(self.world, t, d).is_empty())
    }

    /// Argument `i` of the self type of the impl whose method encloses
    /// `src` (`impl<T: Buf> Buf for Take<T>`: argument 0 is `Buf`).
    fn self_arg(&self, src: u32, i: usize) -> TyRes {
        let mut d = src;
        while d != 0 {
            let def = &self.defs[d as usize];
            if def.kind == NodeKind::Method {
                let Some(&imp) = self.method_impl.get(&d) else {
                    return TyRes::Unknown;
                };
                let imp = &self.scope.impls[imp as usize];
                let m = self.fm + imp.module;
                return match &imp.ty {
                    // Through an alias the arguments are the alias's, in
                    // its order (`type Rev<F, I> = By<I, F>`), not the
                    // struct's: unknown.
                    Ty::Generic(p, _)
                        if matches!(
                            self.ix.path_ty(self.world, self.file, m, p, None),
                            TyRes::Def(d) if self.ix.aliases.contains_key(&d)
                        ) =>
                    {
                        TyRes::Unknown
                    }
                    Ty::Generic(_, args) => match args.get(i) {
                        Some(a) => self.ix.resolve_ty_with(self.world, self.file, m, a, None),
                        None => TyRes::Unknown,
                    },
                    _ => TyRes::Unknown,
                };
            }
            if is_fn(def.kind) {
                return TyRes::Unknown;
            }
            d = def.parent.unwrap_or(0);
        }
        TyRes::Unknown
    }

    /// The type of `self` in the fn enclosing `src`.
    fn self_ty(&self, src: u32) -> TyRes {
        let mut d = src;
        while d != 0 {
            let def = &self.defs[d as usize];
            if def.kind == NodeKind::Method {
                if let Some(&imp) = self.method_impl.get(&d) {
                    return match self.ix.impl_self.get(&(self.file, imp)) {
                        Some(&t) => TyRes::Def(t),
                        None => TyRes::Unknown,
                    };
                }
                let p = def.parent.unwrap_or(0);
                let tr = self.sym(p);
                if self.ix.traits.contains(&tr) {
                    return TyRes::Def(tr);
                }
                return TyRes::Unknown;
            }
            if is_fn(def.kind) {
                return TyRes::Unknown;
            }
            d = def.parent.unwrap_or(0);
        }
        TyRes::Unknown
    }

    /// Walk a receiver's path (a called function's, a variant's) from
    /// module `m`, the site's locals first; with the path's last segment.
    fn walk_recv_path(
        &self,
        m: u32,
        path: &[u32],
        ns: Ns,
        first: super::index::FirstLookup,
    ) -> (super::index::PathWalk, &str) {
        let names: Vec<u32> = path.iter().map(|&n| self.g[n as usize]).collect();
        let w = self
            .ix
            .walk_from(self.world, self.file, m, &names, ns, 0, None, Some(first));
        let last = path.last().map(|&l| self.gstr(l)).unwrap_or("");
        (w, last)
    }

    /// The type of receiver expression `r` at `site`.
    fn eval(&self, site: &Site, r: u32, depth: u32) -> TyRes {
        if depth > 16 {
            return TyRes::Unknown;
        }
        let Some(recv) = self.refs.recvs.get(r as usize) else {
            return TyRes::Unknown;
        };
        let src = site.src;
        let first = |n: u32, ns: Ns| self.local_lookup(src, n, ns);
        let m = self.fm + site.module;
        match recv {
            Recv::Unknown => TyRes::Unknown,
            Recv::SelfValue => self.self_ty(src),
            Recv::Ty(ty) => self
                .ix
                .resolve_ty_with(self.world, self.file, m, ty, Some(&first)),
            Recv::Field(base, name) => match self.eval(site, *base, depth + 1) {
                TyRes::Def(t) => {
                    let t = self.ix.unalias(self.world, t);
                    let name = self.g[*name as usize];
                    // `self.inner` typed `T` (or `Option<T>`) in `impl<T:
                    // Buf> Buf for Take<T>`: what the impl's self type puts
                    // there; unknown through any other base.
                    let param = |i: usize| self.self_arg(src, i);
                    let param: Option<&dyn Fn(usize) -> TyRes> =
                        (*base == SELF_RECV).then_some(&param);
                    self.ix.field_ty_with(self.world, t, name, param)
                }
                TyRes::External => TyRes::External,
                TyRes::Tuple(elems) => tuple_elem(elems, self.gstr(*name).parse().ok()),
                _ => TyRes::Unknown,
            },
            Recv::TupleElem(base, i) => match self.eval(site, *base, depth + 1) {
                TyRes::Tuple(elems) => tuple_elem(elems, Some(*i as usize)),
                _ => TyRes::Unknown,
            },
            Recv::TupleElemBack(base, k) => match self.eval(site, *base, depth + 1) {
                TyRes::Tuple(elems) => {
                    let i = elems.len().checked_sub(1 + *k as usize);
                    tuple_elem(elems, i)
                }
                _ => TyRes::Unknown,
            },
            Recv::Call(path) => {
                let (w, last) = self.walk_recv_path(m, path, Ns::Value, &first);
                if w.external {
                    // (`make()` bound nowhere may be a fn a macro defines.)
                    let name0 = path.first().map_or("", |&n| self.gstr(n));
                    return self.ix.outside_ty(self.world, m, &w, name0, path.len());
                }
                let callee = w.last_def().filter(|&d| {
                    w.hits.len() == path.len()
                        && !matches!(self.world.head(d).kind, NodeKind::Class | NodeKind::Module)
                });
                // `LookSet::default()` with `#[derive(Default)]` (no fn of
                // the graph): `Default::default` returns `Self`.
                let derived = || {
                    let (&l, _) = path.split_last()?;
                    if self.gstr(l) != "default" || w.hits.len() + 1 != path.len() {
                        return None;
                    }
                    let t = w.last_def()?;
                    (self.world.head(t).kind == NodeKind::Class).then_some(TyRes::Def(t))
                };
                match callee {
                    // A fn's return type (`ret_of`: with the items local to
                    // the fns around one of this file).
                    Some(d) => self.ret_of(d),
                    None => derived().unwrap_or_else(|| {
                        self.ix.value_ty(self.world, &w, path.len(), last, true)
                    }),
                }
            }
            Recv::Method(base_r, name) => {
                let base = self.eval(site, *base_r, depth + 1);
                let text = self.gstr(*name);
                match (base, text) {
                    // An extension trait's method on an iterator over a
                    // collection (`v.iter().tuple_windows()`): its return
                    // type. (Not a name of std's that such a trait shares,
                    // combine's `Parser::skip`: `hirs.iter().skip(1)`
                    // keeps its elements.)
                    (TyRes::Container(_), m)
                        if self.is_iterator(*base_r)
                            && self.ix.ext_methods.contains_key(&self.g[*name as usize])
                            && let Some(t) = self.ext_ret(site, *name, m) =>
                    {
                        t
                    }
                    (TyRes::Container(x), m) => {
                        match collection_method(TyRes::Container(x.clone()), *x, m) {
                            // Not a collection's own method: maybe an
                            // in-repo extension trait's (`v.par_iter()`).
                            TyRes::External => self.ext_or_external(site, *name, m),
                            t => t,
                        }
                    }
                    (TyRes::Map(k, v), m) => match m {
                        "get" | "get_mut" | "remove" => TyRes::Wrap(v),
                        "iter" | "iter_mut" | "into_iter" | "drain" => {
                            TyRes::Container(Box::new(TyRes::Tuple(vec![*k, *v])))
                        }
                        "values" | "values_mut" | "into_values" => TyRes::Container(v),
                        "keys" | "into_keys" => TyRes::Container(k),
                        "clone" | "as_ref" | "as_mut" | "borrow" | "borrow_mut" => TyRes::Map(k, v),
                        _ => self.ext_or_external(site, *name, m),
                    },
                    (
                        TyRes::Wrap(x),
                        "lock" | "read" | "write" | "as_ref" | "as_mut" | "clone" | "as_deref",
                    ) => TyRes::Wrap(x),
                    (
                        TyRes::Wrap(x),
                        "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
                        | "borrow" | "borrow_mut" | "get_mut" | "into_inner" | "unwrap_unchecked",
                    ) => *x,
                    // A conversion of an in-repo type is what its impl
                    // returns (`impl AsRef<[u8]> for Value`), not the type;
                    // only `borrow` has std's blanket `Borrow<T> for T`
                    // (not for a trait's `Self: BorrowMut<[usize]>`). With
                    // no impl of its own and no `Deref`, `as_mut`/`as_ref`
                    // is a wrapper's the value is in, not seen here: `Pin`'s
                    // after `pin!(fut)` (tokio-util's `fut.as_mut().poll(cx)`),
                    // `Box`'s; the same type.
                    (
                        TyRes::Def(t),
                        m @ ("as_ref" | "as_mut" | "borrow" | "borrow_mut" | "deref"),
                    ) => {
                        let t = self.ix.unalias(self.world, t);
                        match self.ix.assoc(self.world, t, self.g[*name as usize]).first() {
                            Some(&d) => self.ret_of(d),
                            None if m.starts_with("borrow") && !self.ix.has_ext_super(t, 0) => {
                                TyRes::Def(t)
                            }
                            None if m.starts_with("as_")
                                && !self.ix.traits.contains(&t)
                                && !self.has_deref(t) =>
                            {
                                TyRes::Def(t)
                            }
                            None => TyRes::Unknown,
                        }
                    }
                    (
                        t,
                        "clone" | "to_owned" | "as_ref" | "as_mut" | "borrow" | "borrow_mut"
                        | "deref",
                    ) => t,
                    (TyRes::Def(t), _) => {
                        let t = self.ix.unalias(self.world, t);
                        let name = self.g[*name as usize];
                        let found = self.ix.assoc_from(self.world, t, name, m).first().copied();
                        match found.or_else(|| self.other_bound_method(site, t, name)) {
                            // A trait's default method returning
                            // `Self::Offset` on a concrete type: the impl's
                            // type, not tracked here.
                            Some(d)
                                if !self.ix.traits.contains(&t)
                                    && self.ix.returns_projection(self.world, d) =>
                            {
                                TyRes::Unknown
                            }
                            Some(d) => self.ret_of(d),
                            // `self.enumerate()` in `trait Itertools: Iterator`:
                            // the outside supertrait's method, returning its type.
                            None if self.ix.blanket_method(t, name).is_none()
                                && self.ix.has_ext_super(t, 0) =>
                            {
                                TyRes::External
                            }
                            None => match self.outside_trait_ext(site, t, name, text, UNKNOWN_ARGS)
                            {
                                Some(d) => self.ext_ret_of(d),
                                None => TyRes::Unknown,
                            },
                        }
                    }
                    // (A method found on some type with trait `t` returns
                    // what `t` declares; `Self::Offset` there is the
                    // unknown type's own.)
                    (TyRes::Impls(t), _) => {
                        match self.trait_own_method(site, t, self.g[*name as usize]) {
                            Some(d) if !self.ix.returns_projection(self.world, d) => self.ret_of(d),
                            _ => TyRes::Unknown,
                        }
                    }
                    // A callable's method of an in-repo trait implemented
                    // for every `Fn*`: its declared type (`Map<Self, G>`).
                    (TyRes::Fn, _) => {
                        match self.fn_method(site, self.g[*name as usize], UNKNOWN_ARGS) {
                            Ok(d) => self.ret_of(d),
                            Err(_) => TyRes::Unknown,
                        }
                    }
                    // An extension trait's method returns its declared
                    // type (`Self` there is the outside receiver's type);
                    // methods of std/dependency types return their own
                    // types, except accessors of what a container holds.
                    (TyRes::External | TyRes::Tuple(_), m) => match self.ext_ret(site, *name, m) {
                        Some(t) => t,
                        // Several in-repo traits' impls for outside types
                        // have it: the one for the type the receiver is
                        // named as (`(0..n).into_par_iter()`: rayon's
                        // `Range<T>` impl, whose `Iter` is an in-repo type).
                        None if let Some(d) = self.outside_impl_method(
                            site,
                            *base_r,
                            self.g[*name as usize],
                            UNKNOWN_ARGS,
                        ) =>
                        {
                            self.ext_ret_of(d)
                        }
                        None if !ELEMENT_ACCESSORS.contains(&m) => TyRes::External,
                        None => TyRes::Unknown,
                    },
                    _ => TyRes::Unknown,
                }
            }
            Recv::Try(base) => match self.eval(site, *base, depth + 1) {
                TyRes::Wrap(x) => *x,
                _ => TyRes::Unknown,
            },
            Recv::Deref(base) => match self.eval(site, *base, depth + 1) {
                TyRes::Def(t) if self.has_deref(t) => TyRes::Unknown,
                other => other,
            },
            Recv::Tuple(elems) => TyRes::Tuple(
                elems
                    .iter()
                    .map(|e| self.eval(site, *e, depth + 1))
                    .collect(),
            ),
            Recv::Elem(base) => match self.eval(site, *base, depth + 1) {
                TyRes::Container(x) | TyRes::Wrap(x) => *x,
                // `for (k, v) in &map`
                TyRes::Map(k, v) => TyRes::Tuple(vec![*k, *v]),
                _ => TyRes::Unknown,
            },
            Recv::Index(base) => match self.eval(site, *base, depth + 1) {
                TyRes::Container(x) | TyRes::Wrap(x) => *x,
                TyRes::Map(_, v) => *v,
                TyRes::Def(t) => self.index_output(t),
                _ => TyRes::Unknown,
            },
            // `v[1..]` is a slice of what `v` holds; `s[..n]` of a `str` is a
            // `str`. An in-repo type's `Index<Range…>` is not told apart
            // from its other `Index` impls.
            Recv::Slice(base) => match self.eval(site, *base, depth + 1) {
                t @ (TyRes::Container(_) | TyRes::External) => t,
                _ => TyRes::Unknown,
            },
            // `a & b` on an in-repo type: what its operator impl's method
            // returns (`Self` there is that type). Otherwise unknown, as
            // before: a number's is a number, an outside type's its own.
            Recv::BinOp(lhs, name) => match self.eval(site, *lhs, depth + 1) {
                TyRes::Def(t) => match self.operator_method(t, *name) {
                    Some(d) => self.ret_of(d),
                    None => TyRes::Unknown,
                },
                // An outside type's operator gives an outside type, unless
                // an in-repo impl of the operator for an outside type may
                // give an in-repo one (`2.0 * v`).
                TyRes::External
                    if crate::extract::rust::operator_trait(self.gstr(*name))
                        .is_some_and(|op| !self.ix.outside_operators.contains(op)) =>
                {
                    TyRes::External
                }
                _ => TyRes::Unknown,
            },
            Recv::Turbofish(call, ty) => {
                let t = self.eval(site, *call, depth + 1);
                let Some(Recv::Method(base, name)) = self.refs.recvs.get(*call as usize) else {
                    return t;
                };
                let is_trait = |t: &TyRes| matches!(t, TyRes::Def(d) if self.ix.traits.contains(d));
                let (wrapped, std_method) = match self.gstr(*name) {
                    "parse" | "downcast_ref" | "downcast_mut" => (true, true),
                    "collect" => (false, true),
                    _ => (matches!(&t, TyRes::Wrap(x) if is_trait(x)), false),
                };
                // Std's methods on an outside receiver, where the method's
                // own value says nothing more.
                let std = std_method
                    && matches!(t, TyRes::External | TyRes::Unknown)
                    && matches!(
                        self.eval(site, *base, depth + 1),
                        TyRes::External | TyRes::Container(_) | TyRes::Map(..)
                    );
                // A method whose value is typed by its parameter's bound, a
                // trait, which the turbofish names: rayon's `collect<C:
                // FromParallelIterator<…>>`, ttf-parser's `fn read<T:
                // FromData>(&mut self) -> Option<T>` (`s.read::<Offset32>()?`).
                let bound = match &t {
                    TyRes::Wrap(x) => wrapped && is_trait(x),
                    t => !wrapped && is_trait(t),
                };
                if !std && !bound {
                    return t;
                }
                let arg = self
                    .ix
                    .resolve_ty_with(self.world, self.file, m, ty, Some(&first));
                // (A turbofish of no type we know, `::<4>`: the bound says more.)
                if bound && arg == TyRes::Unknown {
                    return t;
                }
                if wrapped {
                    TyRes::Wrap(Box::new(arg))
                } else {
                    arg
                }
            }
            // `.running(|root| …)` with `fn running<F: Fn(&mut Table)>(&mut
            // self, func: F)`: what the method passes its closure.
            Recv::MethodClosure(base, name, arg, param) => {
                let TyRes::Def(t) = self.eval(site, *base, depth + 1) else {
                    return TyRes::Unknown;
                };
                let t = self.ix.unalias(self.world, t);
                let name = self.g[*name as usize];
                match self.ix.assoc_from(self.world, t, name, m).first() {
                    Some(&d) => self.ix.closure_param_ty(self.world, d, *arg, *param),
                    None => TyRes::Unknown,
                }
            }
            Recv::CallClosure(path, arg, param) => {
                let (w, _) = self.walk_recv_path(m, path, Ns::Value, &first);
                if w.external || w.hits.len() != path.len() {
                    return TyRes::Unknown;
                }
                let Some(d) = w.last_def() else {
                    return TyRes::Unknown;
                };
                // `Type::method(&recv, |x| …)`: the receiver is argument 0.
                let arg = match self.ix.sig(d) {
                    Some((_, true)) => match arg.checked_sub(1) {
                        Some(a) => a,
                        None => return TyRes::Unknown,
                    },
                    _ => *arg,
                };
                self.ix.closure_param_ty(self.world, d, arg, *param)
            }
            // A fn item (not a tuple struct's constructor, written as a
            // type is, nor a const). (A longer path that names none is read
            // as a type's, as before there was this kind of receiver.)
            Recv::Item(path) => {
                let (w, _) = self.walk_recv_path(m, path, Ns::Value, &first);
                let callable = w.hits.len() == path.len()
                    && w.last_def().is_some_and(|d| {
                        matches!(
                            self.world.head(d).kind,
                            NodeKind::Function | NodeKind::Method | NodeKind::Test
                        )
                    });
                if callable {
                    TyRes::Fn
                } else if path.len() > 1 {
                    let ty = Ty::Path(path.iter().copied().collect());
                    self.ix
                        .resolve_ty_with(self.world, self.file, m, &ty, Some(&first))
                } else {
                    TyRes::Unknown
                }
            }
            // (The extractor writes this only of std's macros of outside
            // values and of calls given no names.)
            Recv::MacroCall(name) => {
                let text = self.gstr(*name);
                // (A proc macro is a fn of the name.)
                if self.ix.def_named(text) {
                    TyRes::Unknown
                } else {
                    TyRes::External
                }
            }
            Recv::Const(path) => match self.const_recv(site, m, path, &first) {
                Some(t) => t,
                // Not a const found: an enum variant, a unit struct.
                None if path.len() > 1 => {
                    let ty = Ty::Path(path.iter().copied().collect());
                    self.ix
                        .resolve_ty_with(self.world, self.file, m, &ty, Some(&first))
                }
                None => TyRes::Unknown,
            },
            Recv::Variant(path, field) => {
                let (w, last) = self.walk_recv_path(m, path, Ns::Any, &first);
                // A dependency's enum (`Option::Some(x)`) may hold anything.
                if w.external {
                    return TyRes::Unknown;
                }
                // Every segment an item (`Pair { a }`, `m::Wrap(x)`): the
                // last is a struct, not a variant, and its field is `a`,
                // `0`, not the `Pair::a` the pattern wrote.
                let name = match self.gstr(*field).split_once("::") {
                    Some((_, own)) if w.hits.len() == path.len() => match self.ix.gname(own) {
                        Some(g) => g,
                        None => return TyRes::Unknown,
                    },
                    _ => self.g[*field as usize],
                };
                match self.ix.value_ty(self.world, &w, path.len(), last, false) {
                    TyRes::Def(e) => self.ix.field_ty(self.world, e, name),
                    _ => TyRes::Unknown,
                }
            }
        }
    }

    /// The declared type of the const or static that `path` (see
    /// [`Recv::Const`]) names at `site` in module `m`: one declared in the
    /// fns around the site, else in scope in the module
    /// ([`Index::module_scope_const`]); `Type::NAME` or `module::NAME` one
    /// of what the prefix names ([`Index::const_of`]).
    fn const_recv(&self, site: &Site, m: u32, path: &[u32], first: FirstLookup) -> Option<TyRes> {
        let (&last, prefix) = path.split_last()?;
        let name = self.g[last as usize];
        let found = if prefix.is_empty() {
            self.fn_const_around(site.src, name)
                .or_else(|| self.ix.module_scope_const(self.world, m, name))
        } else {
            let (w, _) = self.walk_recv_path(m, prefix, Ns::Any, first);
            if w.external || w.hits.len() != prefix.len() {
                return None;
            }
            self.ix.const_of(self.world, w.hits.last()?.0, name)
        };
        Some(self.ix.const_ty(self.world, found?))
    }

    /// Const `name` declared in the body of the fn around `src` or of a fn
    /// around that one (a block's items are in scope in the fns nested in
    /// it), as [`Cx::local_lookup`] walks them.
    fn fn_const_around(&self, src: u32, name: u32) -> Option<ConstRef> {
        let mut d = src;
        while d != 0 {
            let def = &self.defs[d as usize];
            if is_fn(def.kind) {
                if let Some(c) = self.ix.fn_const(self.world, self.file, d, name) {
                    return Some(c);
                }
            }
            d = def.parent.unwrap_or(0);
        }
        None
    }

    /// Of the same-named associated fns `cands` (`T::from` of several
    /// `impl From<_> for T`), the one whose trait takes what the call's
    /// one argument is: the only one taking exactly that, else the only
    /// generic one when every other takes a known, different type.
    fn pick_by_arg(&self, site: &Site, arg: &ArgTy, cands: &[SymId]) -> Option<SymId> {
        let arg = self.arg_shape(site, arg);
        if matches!(arg, Shape::Unknown | Shape::Param) {
            return None;
        }
        let shapes: Vec<Shape> = cands.iter().map(|&c| self.impl_arg_shape(c)).collect();
        let only = |want: &dyn Fn(&Shape) -> bool| {
            let mut hits = cands.iter().zip(&shapes).filter(|(_, s)| want(s));
            match (hits.next(), hits.next()) {
                (Some((&c, _)), None) => Some(c),
                _ => None,
            }
        };
        if let Some(c) = only(&|s| *s == arg) {
            return Some(c);
        }
        if shapes.iter().any(|s| *s == arg || *s == Shape::Unknown) {
            return None;
        }
        only(&|s| *s == Shape::Param)
    }

    /// What a call's argument is.
    fn arg_shape(&self, site: &Site, arg: &ArgTy) -> Shape<'_> {
        match arg {
            ArgTy::Named(n) => Shape::Named(self.gstr(*n)),
            ArgTy::Slice => Shape::Slice,
            ArgTy::Recv(r) => self.recv_shape(site, *r, 0),
        }
    }

    /// What receiver expression `r` is, as [`Cx::arg_shape`] tells.
    fn recv_shape(&self, site: &Site, r: u32, depth: u32) -> Shape<'_> {
        if depth > 4 {
            return Shape::Unknown;
        }
        if let TyRes::Def(t) = self.eval(site, r, 0) {
            return Shape::Def(self.ix.unalias(self.world, t));
        }
        let src = site.src;
        let first = |n: u32, ns: Ns| self.local_lookup(src, n, ns);
        let m = self.fm + site.module;
        // The type a path names: the value's declared type (`v: Vec<u8>`),
        // or the type of `String::from(…)`.
        let named = |p: &[u32]| self.path_shape(self.file, m, p, Some(&first));
        match self.refs.recvs.get(r as usize) {
            Some(Recv::Ty(Ty::Path(p) | Ty::Generic(p, _))) => named(p),
            Some(Recv::Call(p)) if p.len() > 1 => named(&p[..p.len() - 1]),
            Some(Recv::Method(base, name)) => {
                let name = self.gstr(*name);
                // (What this tells is never `str` or a slice, whose
                // `to_owned` is another type.)
                if matches!(name, "clone" | "to_owned") {
                    return self.recv_shape(site, *base, depth + 1);
                }
                CONVERSIONS
                    .iter()
                    .find(|(m, _)| *m == name)
                    .map_or(Shape::Unknown, |(_, ty)| Shape::Named(ty))
            }
            _ => Shape::Unknown,
        }
    }

    /// What the trait of method `c`'s impl takes: `impl From<A> for T`'s `A`.
    fn impl_arg_shape(&self, c: SymId) -> Shape<'_> {
        let Some((_, imp)) = self.ix.impl_of(self.world, c) else {
            return Shape::Unknown;
        };
        let m = self.ix.file_mod[c.file.0 as usize] + imp.module;
        self.ty_shape(c.file, m, &imp.tr_arg)
    }

    /// What type `ty`, written in module `m` of file `f`, is as a [`Shape`].
    fn ty_shape(&self, f: FileIdx, m: u32, ty: &Ty) -> Shape<'_> {
        match ty {
            Ty::Path(p) | Ty::Generic(p, _) => self.path_shape(f, m, p, None),
            Ty::Slice(_) => Shape::Slice,
            Ty::Param(_) | Ty::BoundParam(..) => Shape::Param,
            _ => Shape::Unknown,
        }
    }

    /// What the type path `p` (local names of file `f`) written in module
    /// `m` names: an in-repo type (a trait: a parameter replaced by its
    /// bound), or an outside type by its last name (`Vec`, `str`).
    fn path_shape(&self, f: FileIdx, m: u32, p: &[u32], first: Option<FirstLookup>) -> Shape<'_> {
        match self.ix.path_ty(self.world, f, m, p, first) {
            TyRes::Def(d) if self.ix.traits.contains(&d) => Shape::Param,
            TyRes::Def(d) => Shape::Def(self.ix.unalias(self.world, d)),
            TyRes::External => match (scope_of(self.world, f), p.last()) {
                (Some(s), Some(&l)) => Shape::Named(&s.names[l as usize]),
                _ => Shape::Unknown,
            },
            _ => Shape::Unknown,
        }
    }

    /// Edges of one `use`: `imports` to the deepest module of its path,
    /// `references` to the items it names.
    fn use_edges(&mut self, u: u32) {
        let us = &self.scope.uses[u as usize];
        let names: Vec<u32> = us.segs.iter().map(|&n| self.g[n as usize]).collect();
        let m = self.ix.use_start(self.file, self.fm + us.module, &names);
        let me = Some((self.file, u));
        let mut w = self
            .ix
            .walk_from(self.world, self.file, m, &names, Ns::Any, 0, me, None);
        if w.hits.len() + 1 == names.len() {
            let wm = self
                .ix
                .walk_from(self.world, self.file, m, &names, Ns::Macro, 0, me, None);
            if wm.hits.len() == names.len() {
                w = wm;
            }
        }
        let src = self.sym(us.scope_fn);
        let pos = us.pos.clone();
        let mut deepest = None;
        for (i, (res, how)) in w.hits.iter().enumerate() {
            match *res {
                Res::Mod(mm) => deepest = Some((mm, i)),
                Res::Ext => {}
                Res::Def(d) => {
                    let strat = match (i, how) {
                        (0, h) => strategy(*h),
                        (_, How::ReExport) => Strategy::ReExport,
                        (_, How::Candidates(k)) => Strategy::Member { k: u32::from(*k) },
                        _ => Strategy::Import,
                    };
                    self.edge(src, d, EdgeKind::References, strat, Some(pos[i]));
                }
            }
        }
        if let Some((mm, mut i)) = deepest {
            let mf = self.ix.mods[mm as usize].file;
            // An inline `mod m { … }` is no node: the edge is the file's,
            // at the segment naming that file (`parser` of
            // `crate::parser::prelude::*`), where the server answers the file.
            if self.ix.mods[mm as usize].inline != 0 {
                let file_seg = w.hits[..i].iter().rposition(|(r, _)| {
                    matches!(*r, Res::Mod(p) if self.ix.mods[p as usize].inline == 0
                        && self.ix.mods[p as usize].file == mf)
                });
                if let Some(j) = file_seg {
                    i = j;
                }
            }
            if mf != self.file {
                let strat = if w.hits[..=i].iter().any(|(_, h)| *h == How::ReExport) {
                    Strategy::ReExport
                } else {
                    Strategy::Import
                };
                let dst = SymId { file: mf, def: 0 };
                self.edge(self.sym(0), dst, EdgeKind::Imports, strat, Some(pos[i]));
            }
        }
        if w.hits.len() < names.len() && !w.external {
            let i = w.hits.len();
            let name = self.gstr(us.segs[i]).to_string();
            self.unresolved(
                us.scope_fn,
                &name,
                EdgeKind::References,
                pos[i],
                "not found in module",
            );
        }
    }

    /// `implements` from each method of `impl Trait for T` to the trait's method.
    fn impl_method_edges(&mut self) {
        for (i, imp) in self.scope.impls.iter().enumerate() {
            let Some(&tr) = self.ix.impl_trait.get(&(self.file, i as u32)) else {
                continue;
            };
            for &md in &imp.methods {
                let Some(name) = self.ix.gname(&self.defs[md as usize].name) else {
                    continue;
                };
                if let Some(tm) = self.ix.trait_method(tr, name, 0) {
                    self.out.edges.push(ResolvedEdge {
                        src: self.sym(md),
                        dst: tm,
                        kind: EdgeKind::Implements,
                        strategy: Strategy::Path,
                        site: None,
                    });
                }
            }
        }
    }
}
