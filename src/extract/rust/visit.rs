//! The one tree walk of a Rust file: definitions, scope facts and sites.

use tree_sitter::Node;

use crate::extract::syntax::Syntax;

use super::{
    Alias, ArgTy, BoundSet, CallArg, CfgFeature, CfgMacro, ClosureSig, Const, DeclCfg, Field, Impl,
    InlineMod, Item, MacroBlock, ModPath, Recv, Refs, Ret, Role, Scope, Segs, SelfArg, Sig, Site,
    SiteKind, Super, Ty, Use, GLOBAL_PATH, NONE, SELF_RECV, UNKNOWN_ARGS,
};
use crate::extract::Def;
use crate::graph::{NodeKind, Pos};
use foldhash::HashMap;

mod exprs;
mod items;

pub use items::{cfg_on, feature_cfg_off};
mod types;

/// A node's named children, comments left out (a comment is a named
/// node wherever it sits: between parameters, arguments, attribute tokens).
fn named_code_children(n: Node) -> Vec<Node> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor)
        .filter(|k| !k.kind_name().ends_with("comment"))
        .collect()
}

/// Type suffixes of number literals (`1u8`, `2.0f32`); longest first.
const NUMBER_SUFFIXES: [&str; 14] = [
    "usize", "isize", "u128", "i128", "u16", "u32", "u64", "i16", "i32", "i64", "f32", "f64", "u8",
    "i8",
];

/// Attribute names (last path segment) that make a function a test.
const TEST_ATTRS: [&str; 4] = ["test", "rstest", "test_case", "quickcheck"];

/// The std range types, as `V::range_recv` numbers them.
const RANGES: [&str; 6] = [
    "Range",
    "RangeInclusive",
    "RangeFrom",
    "RangeTo",
    "RangeToInclusive",
    "RangeFull",
];

/// Std's macros that never return.
const DIVERGING_MACROS: [&str; 4] = ["panic", "todo", "unimplemented", "unreachable"];

/// Std's macros whose value is of an outside type whatever they are given.
const OUTSIDE_VALUE_MACROS: [&str; 10] = [
    "column",
    "concat",
    "env",
    "file",
    "format",
    "include_bytes",
    "include_str",
    "line",
    "matches",
    "stringify",
];

/// Whether a macro call's tokens hold a name (a path, a local), not only
/// literals and punctuation.
fn names_in(n: Node) -> bool {
    let mut cursor = n.walk();
    let kids: Vec<Node> = n.named_children(&mut cursor).collect();
    kids.into_iter()
        .filter(|k| k.kind_name() == "token_tree")
        .any(|t| tokens_name(t))
}

/// Whether tokens (or an expression of them) hold a name: anything but
/// literals, punctuation and the trees or arrays around them.
fn tokens_name(t: Node) -> bool {
    let mut cursor = t.walk();
    let kids: Vec<Node> = t.named_children(&mut cursor).collect();
    kids.into_iter().any(|k| match k.kind_name() {
        "token_tree" | "array_expression" => tokens_name(k),
        kind => !kind.ends_with("_literal") && kind != "escape_sequence",
    })
}

/// Std traits that say little about which methods a generic type has: a
/// bound list's first other trait is used for method calls.
const STD_TRAITS: [&str; 28] = [
    "AsMut",
    "AsRef",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Deserialize",
    "Display",
    "Eq",
    "Error",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Future",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Send",
    "Serialize",
    "Sized",
    "Sync",
    "ToString",
    "Unpin",
];

/// Iterator, collection, `Option` and `Result` methods whose closure
/// argument takes an element (the `Some`/`Ok` value) first.
const ELEM_CLOSURE_METHODS: [&str; 26] = [
    "all",
    "and_then",
    "any",
    "filter",
    "filter_map",
    "find",
    "find_map",
    "flat_map",
    "for_each",
    "inspect",
    "is_none_or",
    "is_ok_and",
    "is_some_and",
    "map",
    "map_or",
    "map_while",
    "max_by_key",
    "min_by_key",
    "partition",
    "position",
    "retain",
    "skip_while",
    "sort_by_key",
    "sort_unstable_by_key",
    "take_while",
    "try_for_each",
];

/// Methods whose closure takes two elements (`sort_by(|a, b| …)`).
const ELEM_PAIR_CLOSURE_METHODS: [&str; 7] = [
    "dedup_by",
    "is_sorted_by",
    "max_by",
    "min_by",
    "reduce",
    "sort_by",
    "sort_unstable_by",
];

/// The type arguments kept of a generic type (`P<A, B, C>`): the maps'
/// two, and a struct's own parameters by position (`impl<I, J, F> Iterator
/// for MergeBy<I, J, F>` says what a field typed `F` is).
const MAX_TYPE_ARGS: usize = 8;

/// Deeper expressions are skipped (a stack overflow would kill the indexer).
const MAX_NESTING: u32 = 256;

/// The attributes seen before an item.
#[derive(Clone, Default)]
struct Pending {
    /// First line of the first attribute.
    start: u32,
    test: bool,
    export: bool,
    /// `#[macro_use]` (on an inline `mod`: see `InlineMod::macro_use`).
    macro_use: bool,
    /// A cfg likely off.
    off: bool,
    /// `cfg(feature = "x")` (name, on).
    feature: Option<(u32, bool)>,
    /// `#[path = "…"]`, as written.
    path: Option<String>,
}

/// The associated-item context of the walk.
#[derive(Clone)]
enum Assoc {
    /// In `impl` number `.0`, whose self type is named `.1`.
    Impl(u32, String, bool),
    /// In the body of trait def `.0`, named `.1`.
    Trait(u32, String),
}

struct V<'s> {
    src: &'s [u8],
    defs: Vec<Def>,
    scope: Scope,
    refs: Refs,
    intern: HashMap<Box<str>, u32>,
    module: u32,
    prefix: String,
    /// Innermost def enclosing the walk (for sites).
    cur: u32,
    /// Innermost function def (0: none).
    cur_fn: u32,
    assoc: Option<Assoc>,
    /// Local variables of the function being walked → receiver id.
    locals: Vec<HashMap<u32, u32>>,
    /// What each binding in the innermost function replaced (name, old
    /// receiver), so that a block, an arm, a loop or a closure gives its
    /// names back when it ends ([`Self::scope_end`]).
    undo: Vec<(u32, Option<u32>)>,
    /// Generic parameters in scope with their first trait bound.
    generics: Vec<(u32, Option<Segs>)>,
    /// Associated types a generic's bound fixes (`T: TimeZone<Offset =
    /// Fixed>`): (index in `generics`, the associated type's name).
    /// `T::Offset` is then that type, not a value of the trait's bound.
    bound_bindings: Vec<(usize, u32)>,
    /// Generic parameters in scope bounded by a closure trait (`F:
    /// Fn(&mut Table)`), with its parameter types.
    closure_bounds: Vec<(u32, Vec<Ty>)>,
    /// While a fn's generics are read: each bounded parameter's trait
    /// bounds that are not common std traits (see [`BoundSet`]); `None`
    /// elsewhere.
    fn_bounds: Option<Vec<(u32, Vec<Vec<u32>>)>>,
    /// While an impl's generics are read: its parameters with a closure
    /// trait among their bounds, with that trait's path (`F: FnMut(&mut
    /// I) -> R + Clone`: `FnMut`); `None` elsewhere.
    impl_callables: Option<Vec<(u32, Segs)>>,
    /// Typing a fn's return type, as its callers see it: a generic
    /// parameter bounded only by common std traits (`-> T` of `impl<T:
    /// Debug> LocalResult<T>`) is whatever the caller's type argument is,
    /// not an outside type.
    caller_view: bool,
    /// The generic parameters of the struct whose fields are being read,
    /// in order (`NONE` for a lifetime or const): see [`Ty::Param`].
    adt_params: Vec<u32>,
    /// The path `Self` stands for.
    self_path: Option<Segs>,
    /// `Self` is a trait's type parameter (not a reference to the trait).
    self_is_trait: bool,
    /// The associated types of the impl being walked (`type Error = E;`):
    /// `Self::Error` in its body is `E`.
    assoc_tys: Vec<(u32, Ty)>,
    classes: HashMap<String, u32>,
    /// Leading segments of the last path that name the self type of a
    /// qualified path `<T as Trait>::f` (their site is recorded by the type).
    qhidden: u8,
    /// Nesting of [`V::node`] calls.
    depth: u32,
    /// Walking the tokens of a macro whose arguments may name fns as
    /// values (see [`Role::MacroValue`]).
    macro_values: bool,
    /// The names the tokens of that macro bind (see [`V::token_bindings`]).
    macro_bound: Vec<u32>,
    /// Attributes right before the item being walked: (first line, is a
    /// test, `#[macro_export]`, under a cfg that is likely off).
    attrs: Option<Pending>,
    /// The cfg flag of the last [`V::attrs`] call, for the def it makes.
    cfg_off: bool,
    /// The feature cfg of the last [`V::attrs`] call: (name, on).
    cfg_feature: Option<(u32, bool)>,
    /// The `#[path = "…"]` of the last [`V::attrs`] call.
    attr_path: Option<String>,
    /// Inside an `impl`, inline `mod` or item macro whose cfg is likely off.
    block_off: bool,
    /// Inside an `impl`, inline `mod` or item macro under a feature cfg.
    block_feature: Option<(u32, bool)>,
    /// Methods whose parent is the class named by the string, if in this file.
    pending_parents: Vec<(u32, String)>,
    /// The receiver ids of a value of an outside type (a literal, a range)
    /// and of a `Vec` of unknown elements (`vec![…]`, `[a, b]`), once made.
    outside_recv: Option<u32>,
    vec_recv: Option<u32>,
    /// `vec![…]`'s: a `Vec` by name.
    vec_macro_recv: Option<u32>,
    /// An array of literals' (`["a", "b"]`): its elements are outside.
    literals_recv: Option<u32>,
    /// A range expression's, by kind (see [`RANGES`]).
    range_recvs: [Option<u32>; 6],
    /// Walking the items of `thread_local!`/`task_local!`, whose statics
    /// are `LocalKey`s of their declared type, not values of it.
    local_keys: bool,
}

pub(super) fn run(module: Def, src: &[u8], root: Node) -> (Vec<Def>, Scope, Refs) {
    let mut v = V {
        src,
        defs: vec![module],
        scope: Scope::default(),
        refs: Refs {
            sites: Vec::new(),
            recvs: vec![Recv::Unknown, Recv::SelfValue],
            call_args: Vec::new(),
            self_args: Vec::new(),
            bound_sets: Vec::new(),
        },
        intern: HashMap::default(),
        module: 0,
        prefix: String::new(),
        cur: 0,
        cur_fn: 0,
        assoc: None,
        local_keys: false,
        locals: Vec::new(),
        undo: Vec::new(),
        generics: Vec::new(),
        bound_bindings: Vec::new(),
        closure_bounds: Vec::new(),
        fn_bounds: None,
        impl_callables: None,
        caller_view: false,
        adt_params: Vec::new(),
        self_path: None,
        self_is_trait: false,
        assoc_tys: Vec::new(),
        classes: HashMap::default(),
        qhidden: 0,
        depth: 0,
        macro_values: false,
        macro_bound: Vec::new(),
        attrs: None,
        cfg_off: false,
        cfg_feature: None,
        attr_path: None,
        block_off: false,
        block_feature: None,
        pending_parents: Vec::new(),
        outside_recv: None,
        vec_recv: None,
        vec_macro_recv: None,
        literals_recv: None,
        range_recvs: [None; 6],
    };
    v.children(root);
    // An inner call's argument is recorded before the outer call's.
    v.refs.call_args.sort_by_key(|c| c.site);
    v.refs.self_args.sort_by_key(|c| c.site);
    for (def, owner) in std::mem::take(&mut v.pending_parents) {
        if let Some(&c) = v.classes.get(&owner) {
            v.defs[def as usize].parent = Some(c);
        }
    }
    (v.defs, v.scope, v.refs)
}

fn pos(n: Node) -> Pos {
    Pos::from_ts(n.start_position())
}

fn line(row: usize) -> u32 {
    row as u32 + 1
}

fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_uppercase())
}

fn is_type_kind(kind: &str) -> bool {
    matches!(
        kind,
        "type_identifier"
            | "scoped_type_identifier"
            | "generic_type"
            | "reference_type"
            | "pointer_type"
            | "dynamic_type"
            | "abstract_type"
            | "bounded_type"
            | "tuple_type"
            | "array_type"
            | "function_type"
            | "primitive_type"
            | "unit_type"
            | "never_type"
            | "qualified_type"
            | "bracketed_type"
            | "higher_ranked_trait_bound"
            | "removed_trait_bound"
            | "type_arguments"
            | "trait_bounds"
    )
}

impl<'s> V<'s> {
    fn text(&self, n: Node) -> &'s str {
        std::str::from_utf8(&self.src[n.byte_range()]).unwrap_or("")
    }

    fn name(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.intern.get(s) {
            return i;
        }
        let i = self.scope.names.len() as u32;
        self.scope.names.push(s);
        self.intern.insert(s.into(), i);
        i
    }

    fn node_name(&mut self, n: Node) -> u32 {
        let t = self.text(n);
        self.name(t)
    }

    fn str_of(&self, name: u32) -> &str {
        &self.scope.names[name as usize]
    }

    /// Whether `ty` is written as a Rust type is named (`NaiveDate`,
    /// `LazyLock<Foo>`), or an array, not as a C alias of a primitive is
    /// (`c_int`, `HRESULT`, `tcflag_t`): the only consts kept. Generated
    /// bindings hold a hundred thousand consts of the second kind
    /// (windows-sys, libc), which cost the index time and memory.
    fn type_like_ty(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Path(p) | Ty::Generic(p, _) => {
                p.last().is_some_and(|&l| super::type_like(self.str_of(l)))
            }
            // (An array or slice: its elements may be anything; a tuple:
            // one of its elements may be an in-repo type, `BOUNDS.0`.)
            Ty::Slice(_) => true,
            Ty::Tuple(parts) => parts.iter().any(|t| self.type_like_ty(t)),
            _ => false,
        }
    }

    fn recv(&mut self, r: Recv) -> u32 {
        match r {
            Recv::Unknown => 0,
            Recv::SelfValue => SELF_RECV,
            r => {
                self.refs.recvs.push(r);
                self.refs.recvs.len() as u32 - 1
            }
        }
    }

    fn outside_recv(&mut self) -> u32 {
        self.made_recv(|v| &mut v.outside_recv, |_| Recv::Ty(Ty::External))
    }

    fn vec_recv(&mut self) -> u32 {
        self.made_recv(
            |v| &mut v.vec_recv,
            |_| Recv::Ty(Ty::Slice(Box::new(Ty::Unknown))),
        )
    }

    /// The receiver of a call of the macro named by `m` (an identifier),
    /// given tokens that hold a name or not (`named`): see
    /// [`Recv::MacroCall`]; none for a macro that never returns (no
    /// match arm's value), nor for one given names that is not std's of
    /// an outside type.
    fn macro_recv(&mut self, m: Node, named: bool) -> u32 {
        let text = self.text(m);
        if DIVERGING_MACROS.contains(&text) || (named && !OUTSIDE_VALUE_MACROS.contains(&text)) {
            return 0;
        }
        let name = self.node_name(m);
        self.recv(Recv::MacroCall(name))
    }

    fn literals_recv(&mut self) -> u32 {
        self.made_recv(
            |v| &mut v.literals_recv,
            |_| Recv::Ty(Ty::Slice(Box::new(Ty::External))),
        )
    }

    /// `vec![…]`: a `Vec` (an array literal is only some collection).
    fn vec_macro_recv(&mut self) -> u32 {
        self.made_recv(
            |v| &mut v.vec_macro_recv,
            |v| Recv::Ty(Ty::Generic(smallvec::smallvec![v.name("Vec")], Vec::new())),
        )
    }

    /// A range expression: the std range type it makes, by its path from
    /// the global root (`::std::ops::Range`), so that an in-repo trait's
    /// impl for that type is told from its impls for other outside types
    /// (rayon's `(0..n).into_par_iter()`).
    fn range_recv(&mut self, n: Node) -> u32 {
        let mut cursor = n.walk();
        let (mut start, mut end, mut inclusive) = (false, false, false);
        for k in n.children(&mut cursor) {
            match k.kind_name() {
                "..=" | "..." => inclusive = true,
                ".." => {}
                _ if !k.is_named() => {}
                _ if k.start_byte() > n.start_byte() => end = true,
                _ => start = true,
            }
        }
        let kind = match (start, end, inclusive) {
            (true, true, false) => 0,
            (true, true, true) => 1,
            (true, false, _) => 2,
            (false, true, false) => 3,
            (false, true, true) => 4,
            (false, false, _) => 5,
        };
        if let Some(id) = self.range_recvs[kind] {
            return id;
        }
        let path = [GLOBAL_PATH, "std", "ops", RANGES[kind]].map(|s| self.name(s));
        let id = self.recv(Recv::Ty(Ty::Generic(
            path.into_iter().collect(),
            Vec::new(),
        )));
        self.range_recvs[kind] = Some(id);
        id
    }

    /// A receiver made once per file and kept in `slot`.
    fn made_recv(
        &mut self,
        slot: fn(&mut Self) -> &mut Option<u32>,
        r: fn(&mut Self) -> Recv,
    ) -> u32 {
        if let Some(id) = *slot(self) {
            return id;
        }
        let r = r(self);
        let id = self.recv(r);
        *slot(self) = Some(id);
        id
    }

    fn local(&self, name: u32) -> Option<u32> {
        self.locals.last().and_then(|m| m.get(&name).copied())
    }

    fn bind(&mut self, name: u32, r: u32) {
        if let Some(m) = self.locals.last_mut() {
            let old = m.insert(name, r);
            self.undo.push((name, old));
        }
    }

    /// Where a scope of local names starts.
    fn scope_start(&self) -> usize {
        self.undo.len()
    }

    /// The end of the scope started at `mark`: its bindings are undone
    /// (`|key| …` in `.map(|key| …)` names nothing after the closure).
    fn scope_end(&mut self, mark: usize) {
        let Some(m) = self.locals.last_mut() else {
            self.undo.truncate(mark);
            return;
        };
        for (name, old) in self.undo.drain(mark..).rev() {
            match old {
                Some(r) => m.insert(name, r),
                None => m.remove(&name),
            };
        }
    }

    fn generic(&self, name: u32) -> Option<&Option<Segs>> {
        self.generics
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b)
    }

    /// Whether `n` is a bare type name naming a generic parameter in scope.
    fn names_generic(&mut self, n: Node) -> bool {
        n.kind_name() == "type_identifier" && {
            let name = self.node_name(n);
            self.generic(name).is_some()
        }
    }

    fn site(&mut self, kind: SiteKind) {
        self.refs.sites.push(Site {
            src: self.cur,
            module: self.module,
            kind,
        });
    }

    fn path_site(&mut self, segs: Vec<(u32, Pos)>, hidden: u8, role: Role) {
        if segs.len() > hidden as usize {
            self.site(SiteKind::Path { segs, role, hidden });
        }
    }

    /// The base for local names of items defined here.
    fn base(&self) -> String {
        if self.cur_fn != 0 {
            format!("{}::", self.defs[self.cur_fn as usize].local)
        } else {
            self.prefix.clone()
        }
    }

    /// Walk the named children; the receiver id of the last one (0:
    /// unknown): a block's value is its tail expression's.
    fn children(&mut self, n: Node) -> u32 {
        let mut cursor = n.walk();
        let kids: Vec<Node> = n.named_children(&mut cursor).collect();
        self.seq(kids)
    }

    /// Walk sibling nodes, handing each item the attributes before it.
    /// Returns the receiver id of the last one that is not a comment or an
    /// attribute (a statement's is 0).
    /// Run `f` inside a block (an `impl`, an inline `mod`, an item macro)
    /// whose cfg is `off` / on `feature`: its items inherit them.
    fn under_cfg<R>(
        &mut self,
        off: bool,
        feature: Option<(u32, bool)>,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let saved = (self.block_off, self.block_feature);
        self.block_off |= off;
        self.block_feature = feature.or(saved.1);
        let r = f(self);
        (self.block_off, self.block_feature) = saved;
        r
    }

    fn seq(&mut self, kids: Vec<Node>) -> u32 {
        let mut pending: Option<Pending> = None;
        let mut last = 0;
        for c in kids {
            match c.kind_name() {
                "attribute_item" => {
                    let flags = self.attr_flags(c);
                    let start = line(c.start_position().row);
                    let p = pending.get_or_insert(Pending {
                        start,
                        ..Pending::default()
                    });
                    p.test |= flags.test;
                    p.export |= flags.export;
                    p.macro_use |= flags.macro_use;
                    p.off |= flags.off;
                    p.feature = p.feature.or(flags.feature);
                    if p.path.is_none() {
                        p.path = self.path_value(c);
                    }
                }
                "line_comment" | "block_comment" => {}
                _ if c.is_error() => {
                    pending = None;
                    last = 0;
                }
                _ => {
                    self.attrs = pending.take();
                    last = self.node(c);
                    self.attrs = None;
                }
            }
        }
        last
    }

    /// The string of a `#[path = "…"]` attribute item.
    fn path_value(&self, item: Node) -> Option<String> {
        let attr = item.named_child(0)?;
        let name = attr.named_child(0)?;
        if name.kind_name() != "identifier" || self.text(name) != "path" {
            return None;
        }
        let raw = self.text(attr.field("value")?);
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.contains('\\')).then(|| inner.to_string())
    }

    /// What one attribute item says: a test attribute, `#[macro_export]`,
    /// `#[macro_use]`, a cfg likely off, the feature of a `cfg(feature =
    /// "x")` / `cfg(not(feature = "x"))`. (Its start and path are the
    /// caller's.)
    fn attr_flags(&mut self, item: Node) -> Pending {
        let attr = item.named_child(0);
        let Some(path) = attr.and_then(|a| a.named_child(0)) else {
            return Pending::default();
        };
        let last = match path.kind_name() {
            "scoped_identifier" => path.field("name"),
            _ => Some(path),
        };
        let last = last.map(|l| self.text(l)).unwrap_or("");
        let args = attr
            .and_then(|a| a.field("arguments"))
            .filter(|_| last == "cfg")
            .map(|a| self.text(a));
        let feature = args.and_then(items::cfg_feature);
        Pending {
            test: TEST_ATTRS.contains(&last),
            export: last == "macro_export",
            macro_use: last == "macro_use",
            off: args.is_some_and(items::cfg_likely_off),
            feature: feature.map(|(f, on)| (self.name(&f), on)),
            ..Pending::default()
        }
    }

    /// Walk any node; returns the receiver id of an expression (0: unknown).
    fn node(&mut self, n: Node) -> u32 {
        // Generated code can nest deeper than a thread's stack allows.
        if self.depth >= MAX_NESTING {
            return 0;
        }
        // Only the item right after attributes may read them.
        let attrs = self.attrs.take();
        if matches!(
            n.kind_name(),
            "function_item"
                | "function_signature_item"
                | "struct_item"
                | "union_item"
                | "enum_item"
                | "trait_item"
                | "type_item"
                | "macro_definition"
                | "mod_item"
                | "impl_item"
                | "use_declaration"
                | "extern_crate_declaration"
                | "macro_invocation"
        ) {
            self.attrs = attrs;
        }
        self.depth += 1;
        let r = self.node_inner(n);
        self.depth -= 1;
        r
    }

    fn node_inner(&mut self, n: Node) -> u32 {
        match n.kind_name() {
            "function_item" | "function_signature_item" => {
                self.function(n);
                0
            }
            "struct_item" | "union_item" | "enum_item" => {
                self.adt(n);
                0
            }
            "trait_item" => {
                self.trait_item(n);
                0
            }
            "impl_item" => {
                self.impl_item(n);
                0
            }
            "type_item" => {
                self.type_item(n);
                0
            }
            "mod_item" => {
                self.mod_item(n);
                0
            }
            "macro_definition" => {
                self.macro_def(n);
                0
            }
            "use_declaration" => {
                let public = has_child(n, "visibility_modifier");
                let first = self.scope.uses.len();
                if let Some(arg) = n.field("argument") {
                    self.use_tree(arg, &[], public);
                }
                let off = self.attrs.as_ref().is_some_and(|p| p.off) || self.block_off;
                let feature = self
                    .attrs
                    .as_ref()
                    .and_then(|p| p.feature)
                    .or(self.block_feature);
                for u in &mut self.scope.uses[first..] {
                    u.cfg_off = off;
                    u.feature = feature;
                }
                0
            }
            "extern_crate_declaration" => {
                self.extern_crate(n);
                0
            }
            "let_declaration" => {
                self.let_decl(n);
                0
            }
            "const_item" | "static_item" => {
                let ty = n.field("type").map(|t| self.ty(t));
                // (A primitive's is never an in-repo receiver; a
                // `thread_local!` static is std's `LocalKey`. The name is
                // interned only for a const kept: bindings have a hundred
                // thousand others. An inherent impl's are all kept: each
                // shadows its traits' items of its name, and `f16::E` is
                // of half's own `f16`, a name std's primitive has too.)
                let inherent = matches!(self.assoc, Some(Assoc::Impl(_, _, false)));
                let kept = ty.filter(|ty| inherent || (self.type_like_ty(ty) && !self.local_keys));
                if let (Some(ty), Some(nn)) = (kept, n.field("name")) {
                    let (name, module) = (self.node_name(nn), self.module);
                    match self.assoc {
                        Some(Assoc::Impl(imp, ..)) => self.scope.assoc_consts.push(Const {
                            owner: imp,
                            module,
                            name,
                            ty,
                        }),
                        Some(Assoc::Trait(..)) => {}
                        None => self.scope.consts.push(Const {
                            owner: self.cur_fn,
                            module,
                            name,
                            ty,
                        }),
                    }
                }
                if let Some(v) = n.field("value") {
                    self.node(v);
                }
                0
            }
            "associated_type" => {
                let bound = n.field("bounds").map(|b| self.ty(b));
                let name = n.field("name").map(|nn| self.node_name(nn));
                // A trait's `type Offset: Offset;`: what `T::Offset` of a
                // `T: TimeZone` is (a value of some type with that trait).
                if let (Some(Assoc::Trait(def, _)), Some(ty @ Ty::Path(_)), Some(name)) =
                    (&self.assoc, bound, name)
                {
                    let (owner, module) = (*def, self.module);
                    self.scope.trait_assoc_tys.push(Const {
                        owner,
                        module,
                        name,
                        ty,
                    });
                }
                0
            }
            "attribute_item"
            | "inner_attribute_item"
            | "line_comment"
            | "block_comment"
            | "visibility_modifier"
            | "label"
            | "lifetime"
            | "field_identifier"
            | "metavariable" => 0,
            // Receivers of outside types: methods called on them are std's
            // or an extension trait's (`(0..n).collect_vec()`).
            "string_literal" | "raw_string_literal" | "char_literal" | "integer_literal"
            | "float_literal" | "boolean_literal" => self.outside_recv(),
            "range_expression" => {
                self.children(n);
                self.range_recv(n)
            }
            // (Of literals: of outside elements, `for s in ["a", "b"]`.)
            "array_expression" => {
                self.children(n);
                let first = n.named_child(0).map(|k| k.kind_name());
                match first {
                    Some(
                        "string_literal" | "raw_string_literal" | "char_literal"
                        | "integer_literal" | "float_literal" | "boolean_literal",
                    ) => self.literals_recv(),
                    _ => self.vec_recv(),
                }
            }
            "macro_invocation" => {
                self.macro_call(n);
                let vec = n
                    .field("macro")
                    .is_some_and(|m| m.kind_name() == "identifier" && self.text(m) == "vec");
                let name = n.field("macro").and_then(|m| match m.kind_name() {
                    "identifier" => Some(m),
                    "scoped_identifier" => m.field("name"),
                    _ => None,
                });
                match name {
                    _ if vec => self.vec_macro_recv(),
                    Some(m) => self.macro_recv(m, names_in(n)),
                    None => 0,
                }
            }
            "token_tree" => {
                self.tokens(n);
                0
            }
            "call_expression" => self.call(n),
            "field_expression" => {
                let r = match n.field("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                match n.field("field") {
                    Some(f) => {
                        let name = self.node_name(f);
                        self.recv(Recv::Field(r, name))
                    }
                    None => 0,
                }
            }
            "identifier" => self.ident_value(n),
            "self" => 1,
            "scoped_identifier" | "generic_function" => {
                match self.value_path(n, Role::Value) {
                    // `Status::Paid`, `Unit`: a value of the type (resolve
                    // tells an enum variant from a const by its case).
                    Some(names) => {
                        let last = names.last().map_or("", |&l| self.str_of(l));
                        if super::const_like(last) {
                            self.recv(Recv::Const(names))
                        } else if !super::type_like(last) {
                            self.recv(Recv::Item(names))
                        } else {
                            self.recv(Recv::Ty(Ty::Path(names.into())))
                        }
                    }
                    None => 0,
                }
            }
            "struct_expression" => self.struct_expr(n),
            "tuple_expression" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                let elems = kids
                    .into_iter()
                    .filter(|k| k.kind_name() != "attribute_item")
                    .map(|k| self.node(k))
                    .collect();
                self.recv(Recv::Tuple(elems))
            }
            "reference_expression" | "parenthesized_expression" | "await_expression" => {
                let mut r = 0;
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for c in kids {
                    r = self.node(c);
                }
                r
            }
            "binary_expression" => {
                let op = n.field("operator").map_or("", |o| self.text(o));
                let left = n.field("left").map_or(0, |l| self.node(l));
                if let Some(r) = n.field("right") {
                    self.node(r);
                }
                match super::binary_op_method(op) {
                    Some(m) if left != 0 => {
                        let m = self.name(m);
                        self.recv(Recv::BinOp(left, m))
                    }
                    _ => 0,
                }
            }
            "unary_expression" => {
                let deref = n.child(0).is_some_and(|c| c.kind_name() == "*");
                let mut r = 0;
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for c in kids {
                    r = self.node(c);
                }
                if deref {
                    self.recv(Recv::Deref(r))
                } else {
                    0
                }
            }
            "index_expression" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                // `str![["…"]]` (snapbox's macro) parses as `str` indexed,
                // an error (`!`) between: the call of macro `str`.
                if let [name, bang, args] = kids[..] {
                    if name.kind_name() == "identifier"
                        && bang.kind_name() == "ERROR"
                        && self.text(bang) == "!"
                    {
                        self.node(args);
                        return self.macro_recv(name, tokens_name(args));
                    }
                }
                let range = kids
                    .get(1)
                    .is_some_and(|k| k.kind_name() == "range_expression");
                let mut base = None;
                for k in kids {
                    let r = self.node(k);
                    base.get_or_insert(r);
                }
                match base {
                    Some(r) if range => self.recv(Recv::Slice(r)),
                    Some(r) => self.recv(Recv::Index(r)),
                    None => 0,
                }
            }
            "try_expression" => {
                let mut r = 0;
                if let Some(c) = n.named_child(0) {
                    r = self.node(c);
                }
                self.recv(Recv::Try(r))
            }
            "closure_expression" => {
                self.closure(n, &[]);
                0
            }
            "type_cast_expression" => {
                if let Some(v) = n.field("value") {
                    self.node(v);
                }
                if let Some(t) = n.field("type") {
                    self.ty(t);
                }
                0
            }
            "for_expression" => {
                let r = match n.field("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                let elem = self.recv(Recv::Elem(r));
                let mark = self.scope_start();
                if let Some(p) = n.field("pattern") {
                    self.pattern(p, elem);
                }
                if let Some(b) = n.field("body") {
                    self.node(b);
                }
                self.scope_end(mark);
                0
            }
            "while_expression" => {
                let mark = self.scope_start();
                self.children(n);
                self.scope_end(mark);
                0
            }
            "let_condition" => {
                let r = match n.field("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                if let Some(p) = n.field("pattern") {
                    self.pattern(p, r);
                }
                0
            }
            // The value of a `match`, an `if` or a block is its first arm's,
            // branch's or its tail's that has a known type (the others
            // have the same type, or diverge: `panic!()`, `return`).
            "match_expression" => {
                let r = match n.field("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                let mut value = 0;
                if let Some(body) = n.field("body") {
                    let mut cursor = body.walk();
                    let arms: Vec<Node> = body.named_children(&mut cursor).collect();
                    for arm in arms {
                        let v = if arm.kind_name() == "match_arm" {
                            self.match_arm(arm, r)
                        } else {
                            self.node(arm)
                        };
                        if value == 0 {
                            value = v;
                        }
                    }
                }
                value
            }
            "match_arm" => self.match_arm(n, 0),
            "if_expression" => {
                // `if let` binds for the consequence only.
                let mark = self.scope_start();
                if let Some(c) = n.field("condition") {
                    self.node(c);
                }
                let then = n.field("consequence").map_or(0, |b| self.node(b));
                self.scope_end(mark);
                let alt = n.field("alternative").map_or(0, |e| self.node(e));
                if then != 0 {
                    then
                } else {
                    alt
                }
            }
            // (A statement's value, `x;`, is 0: it falls to the walk below.)
            "block" | "else_clause" | "unsafe_block" => {
                let mark = self.scope_start();
                let r = self.children(n);
                self.scope_end(mark);
                r
            }
            "where_clause" => {
                self.where_clause(n);
                0
            }
            "type_parameters" => 0,
            k if is_type_kind(k) => {
                self.ty(n);
                0
            }
            _ => {
                self.children(n);
                0
            }
        }
    }

    // ---- definitions -------------------------------------------------
}

/// How far an item is visible, as far as resolution tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Vis {
    /// No modifier, or `pub(self)`: its module (and the modules inside).
    Private,
    /// `pub(super)`: its module's parent.
    Super,
    /// `pub`, `pub(crate)`, `pub(in path)`.
    Public,
}

impl V<'_> {
    fn visibility(&self, item: Node) -> Vis {
        let Some(v) = child_of_kind(item, "visibility_modifier") else {
            return Vis::Private;
        };
        let text: String = self.text(v).split_whitespace().collect();
        match text.as_str() {
            "pub(self)" => Vis::Private,
            "pub(super)" => Vis::Super,
            _ => Vis::Public,
        }
    }
}

fn has_child(n: Node, kind: &str) -> bool {
    child_of_kind(n, kind).is_some()
}

fn child_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = n.walk();
    let found = n.children(&mut cursor).find(|c| c.kind_name() == kind);
    found
}
