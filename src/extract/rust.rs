//! rust: Tree-sitter → definitions, scope and reference sites.
//!
//! One parse, one tree walk ([`visit`]) that tracks what Rust scoping needs:
//! the inline module and `impl`/`trait` a node is in, generic parameters
//! (so `T` is never mistaken for an in-repo type `T`), and the local
//! variables of each function (so `let parse = …; parse(x)` is not a call of
//! an in-repo `parse`, and `let s = Stripe::new(); s.charge()` knows the
//! receiver's type).
//!
//! Every string lives once in [`Scope::names`]; paths, uses and sites refer
//! to it by index. Resolution of a file reads its own [`Refs`] and every
//! file's [`Scope`].

mod visit;

pub use visit::{cfg_on, feature_cfg_off};

#[cfg(test)]
mod tests;

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use super::names::Names;
use super::{module_def, syntax_diagnostics, Diagnostic, FileFacts, LangRefs, LangScope};
use crate::graph::Pos;

/// "No value" for `u32` indexes.
pub const NONE: u32 = u32::MAX;

/// The first segment of a path written with a leading `::` (`::core::fmt`):
/// from edition 2018 on, what follows is a crate's name.
pub const GLOBAL_PATH: &str = "::";

/// What other files' resolution may read from this file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Scope {
    /// The string table of this file's scope and refs.
    pub names: Names,
    /// Inline `mod m { … }` blocks. Module id 0 is the file itself; id `i`
    /// is `mods[i - 1]`.
    pub mods: Vec<InlineMod>,
    /// Items directly in a module (not in fn bodies, not associated).
    pub items: Vec<Item>,
    /// Defs of `macro_rules!` in fn bodies (in scope in that body).
    pub local_macros: Vec<u32>,
    pub uses: Vec<Use>,
    pub impls: Vec<Impl>,
    /// Named (and tuple: `0`, `1`, …) struct fields with their types.
    /// (Packed: the Rust index tables a file's fields when one is first
    /// looked up.)
    pub fields: super::Packed<Vec<Field>>,
    /// Declared return types of functions and methods.
    pub rets: Vec<Ret>,
    /// Parameters of functions and methods that take a closure, with the
    /// types the closure is passed.
    pub closures: Vec<ClosureSig>,
    /// `trait A: B + C` → (A, path of B), (A, path of C).
    pub supers: Vec<Super>,
    /// `mod x;` declarations of the file's own module.
    pub mod_decls: Vec<u32>,
    /// Those of them with a `#[path = "…"]` attribute.
    pub mod_paths: Vec<ModPath>,
    /// Those of them under a cfg: the file of a module whose every
    /// declaration is compiled out is compiled out too.
    pub mod_decl_cfgs: Vec<DeclCfg>,
    /// Signatures of associated fns: what a method call can reach.
    pub sigs: Vec<Sig>,
    /// `type A = T;`: what each alias stands for.
    pub aliases: Vec<Alias>,
    /// `const`/`static` items outside impls whose type may be in the
    /// repository (`owner`: the fn whose body holds it, 0 at module level).
    pub consts: Vec<Const>,
    /// Associated consts of impls (`owner`: the impl's index).
    pub assoc_consts: Vec<Const>,
    /// Associated types of traits with a bound (`type Offset: Offset;`):
    /// `owner` the trait's def, `ty` its first in-repo-looking bound.
    pub trait_assoc_tys: Vec<Const>,
    /// Enum variants: (the enum's def, the variant's name). Not nodes; a
    /// glob import of the enum (`use Kind::*`) brings them.
    pub variants: Vec<(u32, u32)>,
    /// Defs under a `#[cfg(…)]` that is most likely off where rust-analyzer
    /// runs (`windows`, `loom`, …): a same-named sibling is preferred.
    pub cfg_off: Vec<u32>,
    /// Defs under `#[cfg(feature = "x")]` (`on`) or `#[cfg(not(feature =
    /// "x"))]`: compiled in depending on the package's default features.
    /// `name` may also be a whole predicate over features, its arguments
    /// as written (`(all(target_feature = "sse2", not(feature = "x")))`;
    /// see [`feature_cfg_off`]).
    pub cfg_features: Vec<CfgFeature>,
    /// `macro_rules!` whose every expansion puts `#[cfg(…)]` on the items
    /// it is given (`cfg_os_poll! { mod unix; }` in mio, tokio's `cfg_rt!`):
    /// the cfg is their items', decided where the macro is used.
    pub cfg_macros: Vec<CfgMacro>,
    /// The items of each item macro call walked as items: the cfg macro of
    /// that name (in the same package) applies to them.
    pub macro_blocks: Vec<MacroBlock>,
    /// `#[macro_use] extern crate x;`: the crates whose exported macros
    /// every module of the crate can name (the `macro_use` prelude).
    pub macro_use_crates: Vec<u32>,
}

/// A `macro_rules!` that wraps its items in a cfg (see `Scope::cfg_macros`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgMacro {
    pub name: u32,
    /// The cfg's arguments as written (`(feature = "os-poll")`).
    pub cfg: String,
}

/// The defs, uses and inline modules (index ranges, end exclusive) an item
/// macro call holds (see `Scope::macro_blocks`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroBlock {
    /// The macro's name (last path segment).
    pub name: u32,
    pub defs: (u32, u32),
    pub uses: (u32, u32),
    pub mods: (u32, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgFeature {
    pub def: u32,
    /// The feature name.
    pub name: u32,
    /// Compiled in when the feature is on (else when it is off).
    pub on: bool,
}

/// The shape of an associated fn's parameter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sig {
    pub def: u32,
    /// Parameters besides `self`.
    pub params: u8,
    /// Takes `self` (in any form): callable as `x.f()`.
    pub has_self: bool,
    /// An inherent method declared `pub(super)`: visible in the parent of
    /// its impl's module only.
    pub super_only: bool,
}

/// The receiver id of `self` in every file's [`Refs::recvs`].
pub const SELF_RECV: u32 = 1;

/// Argument count of a call that could not be counted.
pub const UNKNOWN_ARGS: u8 = u8::MAX;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InlineMod {
    pub name: u32,
    /// Module id of the enclosing module.
    pub parent: u32,
    /// Under a `#[cfg(…)]` that is most likely off (see `Scope::cfg_off`).
    pub cfg_off: bool,
    /// Under `#[cfg(feature = "x")]` (name, on) (see `Scope::cfg_features`).
    pub feature: Option<(u32, bool)>,
    /// `#[macro_use] mod m { … }`: its `macro_rules!` stay in textual scope
    /// after it, in the parent.
    pub macro_use: bool,
}

/// Whether `s` is written like a type or variant (`Utc`, `Float`), not a
/// const (`MAX`) or a fn (`new`).
pub fn type_like(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().any(|c| c.is_ascii_lowercase())
}

/// Named as a `const` or `static` is (`MAX`, `BEFORE_MIN`, `UTF_8`): an
/// uppercase letter first, no lowercase one.
pub fn const_like(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A `const` or `static` with its declared type: what a path naming it is
/// as a receiver (`NaiveDate::MAX.year()`, `BEFORE_MIN.year()`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Const {
    /// See [`Scope::consts`] and [`Scope::assoc_consts`].
    pub owner: u32,
    /// Module id the type was written in.
    pub module: u32,
    pub name: u32,
    pub ty: Ty,
}

/// A `mod name;` declaration under a `#[cfg(…)]` (see `Scope::mod_decl_cfgs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclCfg {
    pub name: u32,
    /// Under a `#[cfg(…)]` that is most likely off (see `Scope::cfg_off`).
    pub cfg_off: bool,
    /// Under a feature cfg (name, on) (see `Scope::cfg_features`).
    pub feature: Option<(u32, bool)>,
}

/// `#[path = "…"] mod name;`
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModPath {
    pub name: u32,
    /// As written: relative to the directory of the file.
    pub path: String,
    /// Under `#[cfg(feature = "x")]` (name, on) (see `Scope::cfg_features`).
    pub feature: Option<(u32, bool)>,
}

/// A module-level item: a def and the module id it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    pub def: u32,
    pub module: u32,
    /// `macro_rules!` (macro namespace) rather than a type or value.
    pub is_macro: bool,
}

/// A path's segments (or a few defs), as names: most hold four or fewer,
/// kept inline. An update decodes every file's scope, with some 220k of
/// them on rust-vendor, each otherwise an allocation of its own. Encoded
/// as a `Vec` is.
pub type Segs = smallvec::SmallVec<[u32; 4]>;

/// One leaf of a `use` tree (or an `extern crate`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Use {
    pub module: u32,
    /// The function whose body holds the `use` (0: module level).
    pub scope_fn: u32,
    /// Path segments, as names; `crate`, `self`, `super` included.
    pub segs: Segs,
    /// Start of each segment.
    pub pos: Vec<Pos>,
    /// `as alias` (`_` included); `NONE` when the binding is the last segment.
    pub alias: u32,
    pub glob: bool,
    /// `pub use` (any visibility): a re-export.
    pub public: bool,
    /// Under a `#[cfg(…)]` that is most likely off (see `Scope::cfg_off`):
    /// another binding of the name is preferred.
    pub cfg_off: bool,
    /// Under `#[cfg(feature = "x")]` (name, on) (see `Scope::cfg_features`).
    pub feature: Option<(u32, bool)>,
}

impl Use {
    /// The name this use binds, if any.
    pub fn binding(&self) -> Option<u32> {
        if self.glob {
            None
        } else if self.alias != NONE {
            Some(self.alias)
        } else {
            self.segs.last().copied()
        }
    }
}

/// `impl [Trait for] Type { methods }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Impl {
    pub module: u32,
    /// The function whose body holds the impl (0: module level).
    pub scope_fn: u32,
    pub ty: Ty,
    /// The trait path, empty for an inherent impl.
    pub tr: Segs,
    /// Defs of the methods (and associated fns) in the block.
    pub methods: Segs,
    /// `impl<T: Bound> Trait for T`: the trait's methods apply to many types.
    pub blanket: bool,
    /// The first bound of a blanket impl's type parameter (empty: none).
    pub bound: Segs,
    /// The trait's first type argument (`From<&'static str>`: `str`;
    /// `Unknown` when there is none). A primitive keeps its name here
    /// (`Ty::Path(["str"])`), and `Ty::Param(0)` is a type parameter of
    /// the impl (`impl<T: Buf> From<T>`): `T::from(x)` with several `impl
    /// From<_>` picks the impl by what `x` is.
    pub tr_arg: Ty,
}

/// A type as far as receiver inference needs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ty {
    Unknown,
    /// A primitive (or unit, or `!`): never an in-repo type.
    External,
    /// A path to resolve in the scope where it was written. Generic
    /// parameters are already replaced by their first trait bound, `Self`
    /// by the impl's type path.
    Path(Segs),
    /// `P<A, B, …>` with its first eight type arguments: when `P` is not an
    /// in-repo type, `Box`/`Rc`/`Arc` are `A`, `Option`/`Result`/`RefCell`/
    /// `Mutex` wrap `A` (reached by `unwrap`, `?`, `borrow`, `lock`),
    /// `Vec`/`HashSet`/… hold `A` and `HashMap`/`BTreeMap` map `A` to `B`.
    Generic(Segs, Vec<Ty>),
    /// `[T]`, `[T; N]`.
    Slice(Box<Ty>),
    /// A struct field typed by the struct's own unbounded type parameter
    /// (`inner: T`, `&'a mut T`), by its position among the struct's
    /// generic parameters: an impl's self type (`impl<T: Buf> Buf for
    /// Take<T>`) says what it is there.
    Param(u8),
    /// A struct field typed by one of the struct's own type parameters
    /// that has a trait bound (`base: I` of `Cloned<I: ParallelIterator>`),
    /// with that bound: an impl's self type says what it is there (`impl<I:
    /// IndexedParallelIterator> IndexedParallelIterator for Cloned<I>`,
    /// whose `self.base.drive()` is the subtrait's), else the bound.
    BoundParam(u8, Segs),
    /// `Self::Name` in an impl of trait `Tr` whose `type Name = …;` is
    /// another trait's associated type (`<&'data I as
    /// IntoParallelIterator>::Iter`: the path `IntoParallelIterator::Iter`)
    /// or one the syntax does not name (`T` unbounded: `Tr::Name`): some
    /// type with the bound that trait declares for it, and maybe other
    /// traits (see `TyRes::Impls`).
    ImplAssoc(Segs),
    /// `(A, B)`: each element's type, reached by `.0`, `.1` and tuple
    /// patterns (`let (ptr, len) = self.heap();`).
    Tuple(Vec<Ty>),
    /// `Fn(A, B) -> R`, `fn(A) -> R`: a callable taking these types.
    Fn(Vec<Ty>),
}

/// A parameter that takes a closure (`f: impl Fn(&mut Table)`, `func: F`
/// with `F: FnMut(&str, Value)`, `&dyn Fn(T)`): what the closure's
/// parameters are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureSig {
    pub def: u32,
    /// Module id the types were written in.
    pub module: u32,
    /// The parameter's position among a call's arguments (besides `self`).
    pub arg: u8,
    /// The closure's parameter types.
    pub params: Vec<Ty>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    pub owner: u32,
    pub name: u32,
    pub ty: Ty,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ret {
    pub def: u32,
    /// Module id the type was written in.
    pub module: u32,
    pub ty: Ty,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    pub def: u32,
    pub ty: Ty,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Super {
    pub def: u32,
    pub module: u32,
    pub path: Vec<u32>,
}

/// Reference sites, read only when resolving this file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Refs {
    pub sites: Vec<Site>,
    /// Receiver expressions; 0 is `Unknown`, 1 is `self`.
    pub recvs: Vec<Recv>,
    /// The argument of `Type::f(x)` calls with one argument, by site
    /// (in site order): what tells `impl From<A>` from `impl From<B>`.
    pub call_args: Vec<CallArg>,
    /// The first argument of `Path::f(x, …)` calls, by site (in site
    /// order), when it is an expression with a receiver: what tells which
    /// impl's `f` a trait's `Trait::f(&g, …)` calls.
    pub self_args: Vec<SelfArg>,
    /// Generic parameters of fns bounded by several in-repo-looking traits.
    pub bound_sets: Vec<BoundSet>,
}

/// A fn's generic parameter with several trait bounds
/// (`where I: Slice<…> + InputIter + InputLength`). Its type is written as
/// the first bound (see [`Ty::Path`]); a method not found on that trait is
/// looked for in the others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoundSet {
    /// The fn's def.
    pub owner: u32,
    /// Trait paths, the one the parameter's type is written as first.
    pub bounds: Vec<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallArg {
    /// Index of the call's path site in [`Refs::sites`].
    pub site: u32,
    pub arg: ArgTy,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfArg {
    /// Index of the call's path site in [`Refs::sites`].
    pub site: u32,
    /// The argument's receiver expression (`&g` and `&mut g`: `g`'s).
    pub recv: u32,
}

/// What the syntax says of a call's argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArgTy {
    /// Its receiver expression: its type as inference finds it.
    Recv(u32),
    /// A value of a named outside type: a literal's primitive (`"a"` is
    /// `str`, `1u8` is `u8`), `vec![…]`'s `Vec`, `format!(…)`'s `String`.
    Named(u32),
    /// `&x[..]`, `&x[a..b]`: a slice.
    Slice,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// Innermost enclosing def.
    pub src: u32,
    /// Module id the site is in.
    pub module: u32,
    pub kind: SiteKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SiteKind {
    /// `a::b::C` (names with positions). The last segment is the site of
    /// `role`; earlier segments that are types are references.
    Path {
        segs: Vec<(u32, Pos)>,
        role: Role,
        /// Leading segments that stand for something else (a generic
        /// parameter replaced by its bound): never edges themselves.
        hidden: u8,
    },
    /// `recv.name(…)` (`call`) or `recv.name` passed as a value.
    Method {
        recv: u32,
        name: u32,
        pos: Pos,
        /// Number of arguments, [`UNKNOWN_ARGS`] if not known.
        args: u8,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    Call,
    Ref,
    Macro,
    /// The trait of `impl Trait for T` (index into `Scope::impls`).
    ImplTrait(u32),
    /// A supertrait of the def.
    Extends(u32),
    /// A path used as a value but not called: `x = f;`, `Status::Paid`,
    /// the path of a tuple-struct pattern (`Values(i) =>`). Its last
    /// segment is looked up among values, as a call's is.
    Value,
    /// A lone snake_case name where a value goes among a macro's
    /// arguments, not a local (`assert_parse!(be_i128.parse_peek(…), …)`,
    /// `seq! { x: dec_uint }`), or interpolated in `quote!` (`#private`): a
    /// fn passed as a value, or a type (a unit struct), when one of that
    /// name is in scope; else a name the macro makes or binds, and no site.
    MacroValue,
}

/// What a receiver expression is, for finding its type at resolve time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Recv {
    Unknown,
    SelfValue,
    Ty(Ty),
    /// `recv.field`
    Field(u32, u32),
    /// The value of calling the path (names): a fn's return type, a tuple
    /// struct, `Type::new()`.
    Call(Vec<u32>),
    /// The value of `recv.method(…)`.
    Method(u32, u32),
    /// `recv?`
    Try(u32),
    /// `*recv`: the same type, unless an in-repo type implements `Deref`.
    Deref(u32),
    /// An element of `recv`: `for x in recv`, the argument of
    /// `recv.map(|x| …)`.
    Elem(u32),
    /// A field of what a pattern's path names (`Value::Float(f)`: the path,
    /// and the field's name qualified by the path's last segment, `Float::0`).
    /// An enum variant's fields are recorded so, as [`Field`]s of the enum; a
    /// struct's (`Pair { a }`, `m::Wrap(x)`: `Pair::a`, `Wrap::0`) without
    /// the qualifier, which the resolver drops when the path ends on one.
    Variant(Vec<u32>, u32),
    /// Element `i` of a tuple pattern matched against `recv`: `let (a, b)
    /// = recv;`, `for (i, x) in v.iter().enumerate()`.
    TupleElem(u32, u32),
    /// Element `k` from the end (0: the last) of a tuple pattern after
    /// `..`: `let (first, .., last) = recv;`.
    TupleElemBack(u32, u32),
    /// `(a, b)`: each element's receiver (`let (x, y) = (&v[0], &v[1]);`).
    Tuple(Vec<u32>),
    /// Parameter `param` of a closure passed as argument `arg` to
    /// `recv.method(…)` (receiver, method name, arg, param).
    MethodClosure(u32, u32, u8, u8),
    /// Parameter `param` of a closure passed as argument `arg` to a call
    /// of the path (names, arg, param).
    CallClosure(Vec<u32>, u8, u8),
    /// A path whose last name is written as a const's (`MAX`,
    /// `NaiveDate::MIN`): the const's declared type, else what
    /// [`Recv::Ty`] of the path is.
    Const(Vec<u32>),
    /// `recv[i]`: what `Index` gives (an element of a collection, a map's
    /// value, an in-repo impl's `Output`).
    Index(u32),
    /// `recv[a..b]`: a part of `recv`, of the same kind of collection.
    Slice(u32),
    /// A path used as a value, not a local, whose last name is written as
    /// a fn's (`be_u8`, `Self::helper`): a fn item when it names one, a
    /// callable whose only methods are traits' (`be_u8.map(…)` is an
    /// in-repo `impl<F: FnMut(I) -> R> Parser for F`'s).
    Item(Vec<u32>),
    /// The value of a call of a macro (by its name) that is std's of an
    /// outside type (`format!`), or that is given no names, only literals
    /// (snapbox's `str![["…"]]`): an outside type's unless the repository
    /// defines a macro (or proc macro fn) of the name. (What a macro given
    /// names makes may be theirs: tokio-test's `assert_ready!(fut)`.)
    MacroCall(u32),
    /// `recv.name::<T>()` (the [`Recv::Method`] receiver it is, and `T`):
    /// on an outside type, `str::parse::<T>` is a `Result<T, _>` and
    /// `collect::<T>` a `T`.
    Turbofish(u32, Ty),
    /// `lhs + rhs` and the other overloadable binary operators, by the
    /// [`Recv`] of the left operand and the name of the operator trait's
    /// method (`add`, `bitand`, …): on an in-repo type, what its impl of
    /// the operator returns (fixedbitset's `&a & &b` is a `FixedBitSet`).
    BinOp(u32, u32),
}

/// The overloadable binary operators: each with the std trait it calls and
/// that trait's method (`+`: `Add::add`). The others (`&&`, `==`, …) give
/// `bool`s.
const BINARY_OPS: [(&str, &str, &str); 10] = [
    ("+", "Add", "add"),
    ("-", "Sub", "sub"),
    ("*", "Mul", "mul"),
    ("/", "Div", "div"),
    ("%", "Rem", "rem"),
    ("&", "BitAnd", "bitand"),
    ("|", "BitOr", "bitor"),
    ("^", "BitXor", "bitxor"),
    ("<<", "Shl", "shl"),
    (">>", "Shr", "shr"),
];

/// The method of the std trait binary operator `op` calls (`+`: `add`).
pub fn binary_op_method(op: &str) -> Option<&'static str> {
    BINARY_OPS.iter().find(|o| o.0 == op).map(|o| o.2)
}

/// The std operator trait named `name`, as [`BINARY_OPS`] spells it.
pub fn operator_trait_name(name: &str) -> Option<&'static str> {
    BINARY_OPS.iter().find(|o| o.1 == name).map(|o| o.1)
}

/// The std operator trait whose method is named `method` (`add`: `Add`).
pub fn operator_trait(method: &str) -> Option<&'static str> {
    BINARY_OPS.iter().find(|o| o.2 == method).map(|o| o.1)
}

/// Macros std exports to every crate. A crate's own `macro_rules!` of the
/// same name reaches other modules only through `#[macro_use]` order,
/// which the index does not model; a bare call of one of these names that
/// is not in textual scope (same file) is taken to be std's. Measured on
/// regex-syntax 0.8.12: 726 calls of `assert_eq!` in other files had been
/// linked to the `assert_eq!` its `ast::parse::tests` module defines, and
/// rust-analyzer refuted every one.
///
/// With each, whether its arguments are expressions (a format string is
/// one), which extraction walks as code; not `matches!`'s, whose second
/// argument is a pattern. Sorted by name.
const STD_MACROS: &[(&str, bool)] = &[
    ("assert", true),
    ("assert_eq", true),
    ("assert_ne", true),
    ("cfg", false),
    ("column", false),
    ("compile_error", false),
    ("concat", false),
    ("dbg", true),
    ("debug_assert", true),
    ("debug_assert_eq", true),
    ("debug_assert_ne", true),
    ("env", false),
    ("eprint", true),
    ("eprintln", true),
    ("file", false),
    ("format", true),
    ("format_args", true),
    ("include", false),
    ("include_bytes", false),
    ("include_str", false),
    ("line", false),
    ("matches", false),
    ("module_path", false),
    ("option_env", false),
    ("panic", true),
    ("print", true),
    ("println", true),
    ("stringify", false),
    ("todo", true),
    ("unimplemented", true),
    ("unreachable", true),
    ("vec", true),
    ("write", true),
    ("writeln", true),
];

/// Whether `name` is a macro std exports, and if so whether its arguments
/// are expressions.
pub fn std_macro(name: &str) -> Option<bool> {
    STD_MACROS
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| STD_MACROS[i].1)
}

thread_local! {
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// At most this many syntax diagnostics per file.
const MAX_DIAGNOSTICS: usize = 20;

/// Parse `src`, or only `range` of it (positions stay those of `src`).
fn parse(src: &[u8], range: Option<tree_sitter::Range>) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut p = tree_sitter::Parser::new();
            // The grammar's ABI is checked by a test; a failure here leaves
            // the parser without a language and `parse` returns `None`.
            let _ = p.set_language(&super::grammar(super::Lang::Rust));
            p
        });
        match range {
            Some(r) => {
                parser.set_included_ranges(&[r]).ok()?;
                let tree = parser.parse(src, None);
                let _ = parser.set_included_ranges(&[]);
                tree
            }
            None => parser.parse(src, None),
        }
    })
}

pub fn extract(path: &str, src: &[u8]) -> FileFacts {
    super::syntax::walking(super::Lang::Rust);
    let module = module_def(path, src);
    let tree = parse(src, None);
    let Some(tree) = tree else {
        return FileFacts {
            defs: vec![module],
            diagnostics: vec![Diagnostic {
                pos: Pos { line: 1, column: 1 },
                message: "could not parse the file".into(),
            }],
            ref_names: Vec::new(),
            scope: LangScope::Rust(Scope::default()),
            refs: LangRefs::Rust(Refs::default()),
        };
    };
    let root = tree.root_node();
    let diagnostics = syntax_diagnostics(root, MAX_DIAGNOSTICS);
    let (defs, scope, refs) = visit::run(module, src, root);
    let mut ref_names: Vec<String> = scope.names.iter().map(str::to_string).collect();
    ref_names.sort_unstable();
    ref_names.dedup();
    FileFacts {
        defs,
        diagnostics,
        ref_names,
        scope: LangScope::Rust(scope),
        refs: LangRefs::Rust(refs),
    }
}
