//! The per-world tables of the Rust resolver and path resolution over them.

use std::cell::{Cell, RefCell};
use std::sync::OnceLock;

use super::Packages;
use crate::extract::names::Names;
use crate::extract::rust::{Impl, MacroBlock, Scope, Ty, NONE};
use crate::extract::{Family, LangScope};
use crate::graph::NodeKind;
use crate::resolve::{FileIdx, SymId, World};

pub use foldhash::{HashMap, HashSet};

/// What a table holds under one key: most often one thing (of rust-vendor's
/// 58k item names in a module, 57k name one item), kept without a heap
/// allocation of its own.
pub type Few<T> = smallvec::SmallVec<[T; 1]>;

pub mod lookup;

thread_local! {
    /// Set when a lookup gave up at the depth limit: its result is not memoized.
    static TRUNCATED: Cell<bool> = const { Cell::new(false) };
    /// The `use`s being resolved on this thread, outermost first: one
    /// asked for again on the way binds nothing there (a cycle).
    static RESOLVING: RefCell<Vec<(UseRef, Ns)>> = const { RefCell::new(Vec::new()) };
    /// The outermost entry of [`RESOLVING`] a lookup found in progress
    /// since it started (`usize::MAX`: none): what was found then holds
    /// only while that `use` is being resolved, and is not memoized.
    static CUT: Cell<usize> = const { Cell::new(usize::MAX) };
    /// Nesting of type resolutions (aliases of aliases, generic arguments):
    /// a cycle in broken code must not overflow the stack.
    pub(super) static TY_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// A module: a file or an inline `mod m { … }`.
#[derive(Clone, Debug)]
pub struct Mod {
    pub file: FileIdx,
    /// 0: the file itself; `i`: the file's inline module `i`.
    pub inline: u32,
    pub parent: u32,
    pub root: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Res {
    Mod(u32),
    Def(SymId),
    /// Bound by a `use` to something outside the repository: it shadows
    /// globs and in-repo names all the same.
    Ext,
}

/// Which namespace a name is looked up in: macros are apart from the rest,
/// and a called name is a value (a module or a struct with named fields
/// is none: `mod peek_nth; pub use peek_nth::peek_nth;` binds both, and
/// `Values(i)` beside `struct Values { … }` is a variant a glob brings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ns {
    Any,
    Value,
    Macro,
    /// A path's prefix (`vec4` in `vec4::Vec4`): a module or a type, never
    /// a fn. glam's `pub use vec4::{vec4, Vec4};` binds fn `vec4`, and the
    /// module `vec4` its prefix names comes through a glob.
    Type,
}

/// How a module lookup found a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// An item or child module of the module.
    Item,
    /// A `use` of the module naming the item directly.
    Use,
    /// A `use` whose path goes through another `use`, or a glob.
    ReExport,
}

/// How the first segment of a path was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// Defined in this file, in scope.
    Local,
    /// Bound by a `use` of this module.
    Import,
    /// Through a `pub use` (or glob) of another module.
    ReExport,
    /// By module rules: a qualified path, an item of the module in another file.
    Path,
    /// The first of `k` associated items a type has under that name
    /// (`impl From<A> for T` and `impl From<B> for T` both give
    /// `T::from`): which one is meant depends on the argument types.
    Candidates(u8),
}

/// Names the std prelude (and primitive types) supply to every module: a
/// bare one not defined or imported is std's, not an unresolved site.
pub const PRELUDE: &[&str] = &[
    "AsMut",
    "AsRef",
    "Box",
    "Clone",
    "Copy",
    "Default",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "Err",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
    "bool",
    "char",
    "drop",
    "f32",
    "f64",
    "i128",
    "i16",
    "i32",
    "i64",
    "i8",
    "isize",
    "str",
    "u128",
    "u16",
    "u32",
    "u64",
    "u8",
    "usize",
];

/// A resolved type, as receiver inference needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TyRes {
    Unknown,
    /// Not an in-repo type (std, a dependency, a primitive).
    External,
    Def(SymId),
    Wrap(Box<TyRes>),
    /// An external collection of the type.
    Container(Box<TyRes>),
    /// An external map from the first type to the second.
    Map(Box<TyRes>, Box<TyRes>),
    /// A tuple of these element types.
    Tuple(Vec<TyRes>),
    /// A value of some type this trait is implemented for, which may have
    /// other traits' methods too: an impl's associated type the syntax
    /// does not name, seen through the bound its trait declares (rayon's
    /// `v.par_iter()`, a `ParallelIterator` that is also indexed).
    Impls(SymId),
    /// A callable: a fn item, a closure, `impl FnMut(I) -> R`, `fn(A)`.
    /// Its only methods are traits': those of in-repo traits with a
    /// blanket impl for every `Fn*` (see [`Index::fn_ext_traits`]), std's
    /// (`clone`), else those of some blanket impl, as on a value of
    /// unknown type.
    Fn,
}

/// Looks the first segment of a path up before the module does: the
/// fn-local items and `use`s around a site.
pub type FirstLookup<'a> = &'a dyn Fn(u32, Ns) -> Option<(Res, How)>;

/// A `use` of some file: (file, index in its `Scope::uses`).
pub type UseRef = (FileIdx, u32);

pub struct Index {
    /// Global name ids.
    pub names: lookup::NameTable,
    kw_crate: u32,
    kw_self: u32,
    kw_super: u32,
    /// [`crate::extract::rust::GLOBAL_PATH`].
    kw_global: u32,
    /// File → index of its first use in `use_memo`.
    use_base: Vec<u32>,
    /// What each module-level `use` binds (type/value namespace), filled lazily.
    use_memo: Vec<OnceLock<Option<(Res, bool)>>>,
    /// File → its local name ids mapped to global ones (empty: not Rust).
    pub gnames: Vec<Vec<u32>>,
    /// File → the global name id of each def's name (empty: not Rust).
    pub def_names: Vec<Vec<u32>>,
    /// The Rust files whose ids in `gnames` and `def_names` this build
    /// interned: those [`KnownNames`] did not give.
    pub interned: Vec<FileIdx>,
    /// How many of `names` a [`KnownNames`] gave (0 without one).
    pub known_names: usize,
    pub mods: Vec<Mod>,
    /// File → module id of the file (NONE: not Rust).
    pub file_mod: Vec<u32>,
    pub children: HashMap<(u32, u32), u32>,
    /// File modules declared by more than one module (`mod support;` in
    /// each of `tests/*.rs`) → their parents besides [`Mod::parent`].
    pub other_parents: HashMap<u32, Vec<u32>>,
    /// (module, name) of each `mod name;` whose file is not in the graph
    /// (skipped as too large, generated, absent): no glob brings the name.
    pub unfiled: HashSet<(u32, u32)>,
    /// (module, name) → items, with "is a macro".
    pub items: HashMap<(u32, u32), Few<(SymId, bool)>>,
    pub uses: HashMap<(u32, u32), Few<UseRef>>,
    pub globs: HashMap<u32, Vec<UseRef>>,
    /// Module → its module-level `use`s with an `as` (`_` included): how a
    /// trait is in scope under another name (see [`Index::renamed_in`]).
    pub renamed: HashMap<u32, Vec<UseRef>>,
    /// Module → the defs in scope in it under another name, made on the
    /// first look (see [`Index::renamed_in`]).
    renamed_memo: Vec<OnceLock<Box<[SymId]>>>,
    /// Module → the modules its glob imports reach, in the order a name is
    /// searched in them, made on the first look: following every glob, and
    /// following only rooted ones (see [`Index::glob_reach`]).
    glob_memo: Vec<[OnceLock<Box<[u32]>>; 2]>,
    /// Library crate name → root module.
    pub crates: HashMap<u32, u32>,
    /// Files of edition-2015 packages (`::a` is the crate's `a`).
    pub edition_2015: HashSet<FileIdx>,
    /// File → its package (NONE: not Rust, or no manifest owns it).
    file_pkg: Vec<u32>,
    /// Package → the packages it may name: itself and, transitively, the
    /// dependencies its manifest lists that are in the tree.
    pkg_reach: Vec<HashSet<u32>>,
    /// (enum, variant name): what a glob import of an enum brings.
    pub variants: HashSet<(SymId, u32)>,
    /// The names of [`Index::variants`].
    pub variant_names: HashSet<u32>,
    /// Enums with a variant: types only, never values (`Err(e)` under `use
    /// nom::Err` is the prelude's `Result::Err`).
    pub enums: HashSet<SymId>,
    /// Item → the module it is declared in (`NONE`: not an item), at
    /// `def_base[file] + def`.
    def_module: Vec<u32>,
    /// Where each file's defs start in the tables by def (one past the last
    /// file: where they end).
    def_base: Vec<u32>,
    pub inherent: HashMap<(SymId, u32), Few<SymId>>,
    pub trait_impl_methods: HashMap<(SymId, u32), Few<SymId>>,
    /// (trait, method name) defined by some impl of the trait, made on
    /// the first look (see [`Index::impl_defines`]).
    impl_defined: OnceLock<HashSet<(SymId, u32)>>,
    /// The `index` fns of impls of std's `Index` (a trait path ending in
    /// `Index` that names no in-repo trait), by self type: what `t[i]`
    /// gives.
    pub index_fns: HashMap<SymId, Few<SymId>>,
    pub type_traits: HashMap<SymId, Vec<SymId>>,
    pub trait_methods: HashMap<(SymId, u32), SymId>,
    pub supers: HashMap<SymId, Vec<SymId>>,
    /// Traits with a supertrait from outside the repository (`trait
    /// Itertools: Iterator`): a method not found on them is that one's.
    pub ext_supers: HashSet<SymId>,
    pub traits: HashSet<SymId>,
    /// Traits with a blanket impl (`impl<T: B> Tr for T`), with `B`.
    pub blanket_traits: HashSet<(SymId, SymId)>,
    /// Traits with a blanket impl for every type (`impl<T: ?Sized> Tr for
    /// T`, rayon's `IntoParallelRefIterator`): a collection has their
    /// methods too.
    pub unbounded_traits: HashSet<SymId>,
    /// Method name → (method of a trait with a blanket impl, its bound `B`).
    pub blanket_methods: HashMap<u32, Vec<(SymId, SymId)>>,
    /// Method name → (method, trait) of extension traits: traits with a
    /// blanket impl for types bound by an outside trait, or by none
    /// (`impl<T: Iterator + ?Sized> Itertools for T`), callable on outside
    /// types. The method is the blanket impl's own, else the trait's.
    pub ext_methods: HashMap<u32, Vec<(SymId, SymId)>>,
    /// In-repo traits implemented for an outside type (`impl Buf for
    /// &[u8]`): their methods are in `ext_methods` too, and callable on an
    /// outside collection.
    pub ext_self_traits: HashSet<SymId>,
    /// Those impls themselves: (file, index in `Scope::impls`).
    pub outside_impls: HashSet<(FileIdx, u32)>,
    /// The std operator traits some in-repo impl implements for an outside
    /// type (glam's `impl Mul<Vec3> for f32`): `2.0 * v` may be in-repo.
    pub outside_operators: HashSet<&'static str>,
    /// Method name (global id) → those of `outside_impls` whose trait has
    /// a method of the name: what `x.name()` on an outside type may reach.
    pub outside_impls_by_name: HashMap<u32, Vec<(FileIdx, u32)>>,
    /// In-repo types that implement an outside trait (`impl Iterator for
    /// PutBack`): an extension trait's blanket impl over such a trait may
    /// give them methods (`put_back(…).peeking_take_while(…)`).
    pub outside_trait_types: HashSet<SymId>,
    /// Those of them that implement one of std's iterator traits
    /// ([`ITERATORS`]): an extension of iterators applies to them.
    pub iter_types: HashSet<SymId>,
    /// Traits with a blanket impl for every type one of std's iterator
    /// traits bounds (`impl<T: Iterator + ?Sized> Itertools for T`).
    pub iter_ext_traits: HashSet<SymId>,
    /// Traits with a blanket impl for every callable (`impl<F: FnMut(&mut
    /// I) -> R> Parser for F`), with that impl (file, index in
    /// `Scope::impls`): what `be_u8.map(…)` on a fn item reaches.
    pub fn_ext_traits: HashMap<SymId, (FileIdx, u32)>,
    /// Each file's fields by owner and name, made on the first look into
    /// that file's (most files' fields are never looked up in an update).
    fields: Vec<OnceLock<FileFields>>,
    /// Each file's consts and statics by module and name, made on the
    /// first look into that file's.
    consts: Vec<OnceLock<FileConsts>>,
    /// (type, name) → an associated const of one of its impls: (file,
    /// index in `Scope::assoc_consts`).
    pub assoc_consts: HashMap<(SymId, u32), (FileIdx, u32)>,
    /// (type, name) of the associated consts of inherent impls: such a
    /// const shadows the items of that name its traits have (`f16::E` is
    /// half's `impl f16 { pub const E: f16 }`, not `FloatConst::E`).
    pub inherent_consts: HashSet<(SymId, u32)>,
    /// (trait, name) → its associated type with a bound: (file, index in
    /// `Scope::trait_assoc_tys`).
    pub trait_assoc_tys: HashMap<(SymId, u32), (FileIdx, u32)>,
    /// fn → index in its file's `Scope::rets`, by def; `NONE` for others.
    rets: Vec<u32>,
    /// fn → indexes of its entries in its file's `Scope::closures`.
    pub closures: HashMap<SymId, Vec<u32>>,
    /// Defs most likely compiled out (cfg on another OS, a custom flag, a
    /// feature that is not on by default).
    pub off: HashSet<SymId>,
    /// The files of modules most likely compiled out (see
    /// [`Index::is_off`]).
    pub off_files: HashSet<FileIdx>,
    /// Module-level `use`s likely compiled out beyond their own
    /// `Use::cfg_off`: under a feature not on by default, or in the call of
    /// a macro whose cfg is off (see `Scope::cfg_macros`).
    pub off_uses: HashSet<UseRef>,
    /// Type alias → (file, index in `Scope::aliases`).
    pub aliases: HashMap<SymId, (FileIdx, u32)>,
    /// (file, impl index) → the impl's self type.
    pub impl_self: HashMap<(FileIdx, u32), SymId>,
    /// (file, impl index) → the impl's trait.
    pub impl_trait: HashMap<(FileIdx, u32), SymId>,
    pub methods_by_name: HashMap<u32, Vec<SymId>>,
    /// Method → (parameters besides `self`, takes `self`), by def (see
    /// `def_base`).
    sigs: Vec<Option<(u8, bool)>>,
    /// Method → the module of its impl or trait (for visibility), by def;
    /// `NONE` for others.
    method_module: Vec<u32>,
    /// Inherent methods declared `pub(super)` (`Sig::super_only`).
    pub super_only: HashSet<SymId>,
    pub macros_by_name: HashMap<u32, Vec<SymId>>,
    /// Global name id → whether some Rust definition other than a file's
    /// module has that name (what [`World::named`] answers for Rust,
    /// without asking a store).
    def_named: Vec<bool>,
}

/// Global name ids from an earlier build, kept by the store: an update
/// interns only the names of files without theirs (re-extracted, new).
#[derive(Default)]
pub struct KnownNames {
    pub table: lookup::NameTable,
    /// File → its names' ids, when known. Used only where they fit the
    /// file's facts (as many as its names and defs, each in the table).
    pub files: Vec<Option<FileNames>>,
}

/// A Rust file's names as global ids.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileNames {
    /// Of `Scope::names`, in order.
    pub scope: Vec<u32>,
    /// Of each def's name, in order.
    pub defs: Vec<u32>,
}

pub fn scope_of<'w>(world: &'w World, f: FileIdx) -> Option<&'w Scope> {
    if world.file(f).lang.family() != Family::Rust {
        return None;
    }
    match world.scope(f) {
        LangScope::Rust(s) => Some(s),
        _ => None,
    }
}

const MAX_DEPTH: u32 = 12;

/// External generic types whose methods are reached by auto-deref.
const DEREF_WRAPPERS: [&str; 8] = [
    "Box", "Rc", "Arc", "Cow", "Pin", "Lazy", "LazyLock", "LazyCell",
];
/// External generic types whose argument is reached by `unwrap`, `?`,
/// `borrow`, `lock`.
const WRAPPERS: [&str; 7] = [
    "Option", "Result", "RefCell", "Mutex", "RwLock", "Cell", "Poll",
];

/// Whether `name` is one of std's traits of callables.
pub(super) fn fn_trait(name: &str) -> bool {
    matches!(name, "Fn" | "FnMut" | "FnOnce")
}

/// Whether `name` is one of std's iterator traits (not `IntoIterator`:
/// every iterator is one, not every implementor an iterator).
pub(super) fn std_iterator_trait(name: &str) -> bool {
    ITERATORS.contains(&name) && name != "IntoIterator"
}

/// std's iterator traits: `impl Iterator<Item = T>` holds `T`s as a
/// container does (the extractor makes the item the one type argument).
const ITERATORS: [&str; 4] = [
    "Iterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "IntoIterator",
];

/// External collections of their first type argument.
const CONTAINERS: [&str; 8] = [
    "Vec",
    "VecDeque",
    "HashSet",
    "BTreeSet",
    "BinaryHeap",
    "LinkedList",
    "IndexSet",
    "SmallVec",
];
/// External maps from their first type argument to their second.
const MAPS: [&str; 3] = ["HashMap", "BTreeMap", "IndexMap"];
/// Modules searched through glob imports for one name.
const MAX_GLOB_MODULES: usize = 64;

/// Fill [`Index::file_pkg`] and [`Index::pkg_reach`]. Packages are told
/// apart by directory; a dependency names every package of its name
/// (a tree may vendor two versions of one crate).
fn package_graph(ix: &mut Index, files: &[FileIdx], roles: &[super::CrateFile]) {
    let mut ids: HashMap<&str, u32> = HashMap::default();
    let mut by_name: HashMap<&str, Vec<u32>> = HashMap::default();
    let mut deps: Vec<&[String]> = Vec::new();
    for (f, role) in files.iter().zip(roles) {
        let (Some(dir), Some(name)) = (role.package_dir.as_deref(), role.package.as_deref()) else {
            continue;
        };
        let next = ids.len() as u32;
        let id = *ids.entry(dir).or_insert_with(|| {
            by_name.entry(name).or_default().push(next);
            deps.push(&role.deps);
            next
        });
        ix.file_pkg[f.0 as usize] = id;
    }
    ix.pkg_reach = (0..deps.len() as u32)
        .map(|p| {
            let mut seen: HashSet<u32> = HashSet::default();
            let mut todo = vec![p];
            while let Some(q) = todo.pop() {
                if !seen.insert(q) {
                    continue;
                }
                let named = deps[q as usize].iter();
                todo.extend(named.filter_map(|d| by_name.get(d.as_str())).flatten());
            }
            seen
        })
        .collect();
}

/// Whether `cfg(feature = "name")` (`on`) or `cfg(not(feature = "name"))`
/// (not `on`) compiles its item out: a cfg on a feature is decided by the
/// package's default features.
/// The cfg macros of each package (by its directory) by name; `None` for a
/// name defined with two different cfgs.
type CfgMacros = HashMap<(Option<String>, String), Option<String>>;

fn cfg_macros(world: &World, packages: &Packages) -> CfgMacros {
    let mut out = CfgMacros::default();
    for (i, wf) in world.files.iter().enumerate() {
        let Some(scope) = scope_of(world, FileIdx(i as u32)) else {
            continue;
        };
        if scope.cfg_macros.is_empty() {
            continue;
        }
        let dir = packages.crate_file(wf.path).package_dir;
        for m in &scope.cfg_macros {
            let key = (dir.clone(), scope.names[m.name as usize].to_string());
            out.entry(key)
                .and_modify(|c| {
                    if c.as_deref() != Some(m.cfg.as_str()) {
                        *c = None;
                    }
                })
                .or_insert_with(|| Some(m.cfg.clone()));
        }
    }
    out
}

fn feature_off(role: &super::CrateFile, scope: &Scope, name: u32, on: bool) -> bool {
    crate::extract::rust::feature_cfg_off(&scope.names[name as usize], on, &role.features)
}

/// Where def `s` goes among same-named ones, those likely compiled in
/// first: compiled in; then off by a feature or in a module compiled out,
/// but on for this platform (windows-sys's `#[cfg(target_arch =
/// "x86_64")]` struct beside the x86 one, both under features that are
/// off by default); then off for this platform.
fn off_order(
    world: &World,
    off: &HashSet<SymId>,
    off_files: &HashSet<FileIdx>,
    s: SymId,
) -> (bool, bool) {
    // (`Scope::cfg_off` is in def order.)
    let platform =
        || scope_of(world, s.file).is_some_and(|sc| sc.cfg_off.binary_search(&s.def).is_ok());
    let is_off = off.contains(&s) || off_files.contains(&s.file);
    (is_off, is_off && platform())
}

/// The files of modules compiled out: every `mod x;` declaring the
/// module, or one declaring a module it is in, is under a cfg likely off
/// or a feature cfg the package's defaults turn off (glam's
/// `#[cfg(all(target_feature = "sse2", not(any(feature = "core-simd", …))))]
/// mod sse2;`, and `mod coresimd;` under the opposite cfg: rust-analyzer
/// reads only the first, whose `impl Vec4Swizzles for Vec4` is the one
/// `v.xyz()` calls).
fn off_file_modules(
    ix: &Index,
    world: &World,
    rust_files: &[FileIdx],
    roles: &[super::CrateFile],
) -> HashSet<FileIdx> {
    let mut off_mods: HashSet<u32> = HashSet::default();
    for (&f, role) in rust_files.iter().zip(roles) {
        let Some(scope) = scope_of(world, f) else {
            continue;
        };
        if scope.mod_decl_cfgs.is_empty() {
            continue;
        }
        let m = ix.file_mod[f.0 as usize];
        let off = |c: &crate::extract::rust::DeclCfg| {
            c.cfg_off
                || c.feature
                    .is_some_and(|(n, on)| feature_off(role, scope, n, on))
        };
        for c in &scope.mod_decl_cfgs {
            // `#[cfg(unix)] mod imp; #[cfg(not(unix))] mod imp;` would
            // name one file twice: it is on if either is.
            let decls = scope.mod_decls.iter().filter(|&&d| d == c.name).count();
            let offs = scope
                .mod_decl_cfgs
                .iter()
                .filter(|d| d.name == c.name && off(d))
                .count();
            if offs < decls {
                continue;
            }
            let name = ix.gnames[f.0 as usize][c.name as usize];
            if let Some(&cm) = ix.children.get(&(m, name)) {
                if ix.mods[cm as usize].inline == 0 && ix.mods[cm as usize].file != f {
                    off_mods.insert(cm);
                }
            }
        }
    }
    if off_mods.is_empty() {
        return HashSet::default();
    }
    rust_files
        .iter()
        .copied()
        .filter(|f| {
            let mut m = ix.file_mod[f.0 as usize];
            for _ in 0..64 {
                if off_mods.contains(&m) {
                    return true;
                }
                match ix.mods[m as usize].parent {
                    NONE => return false,
                    p => m = p,
                }
            }
            false
        })
        .collect()
}

/// `rel` (a `#[path]`, `/`-separated, maybe with `..`) from directory
/// `dir` of the tree; `None` when it leaves the tree.
fn join_rel(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Build the tables of every Rust file of `world`; `known`: the global
/// names of an earlier build, to intern only what they do not give.
pub fn build(world: &World, known: Option<KnownNames>) -> Index {
    let start = std::time::Instant::now();
    let mut ix = Index {
        names: lookup::NameTable::default(),
        kw_crate: 0,
        kw_self: 0,
        kw_super: 0,
        kw_global: 0,
        use_base: vec![0; world.files.len()],
        use_memo: Vec::new(),
        gnames: Vec::with_capacity(world.files.len()),
        def_names: Vec::new(),
        interned: Vec::new(),
        known_names: 0,
        mods: Vec::new(),
        file_mod: vec![NONE; world.files.len()],
        children: HashMap::default(),
        other_parents: HashMap::default(),
        unfiled: HashSet::default(),
        items: HashMap::default(),
        uses: HashMap::default(),
        globs: HashMap::default(),
        renamed: HashMap::default(),
        crates: HashMap::default(),
        edition_2015: HashSet::default(),
        file_pkg: vec![NONE; world.files.len()],
        pkg_reach: Vec::new(),
        variants: HashSet::default(),
        enums: HashSet::default(),
        variant_names: HashSet::default(),
        def_module: Vec::new(),
        def_base: Vec::new(),
        inherent: HashMap::default(),
        trait_impl_methods: HashMap::default(),
        impl_defined: OnceLock::new(),
        renamed_memo: Vec::new(),
        glob_memo: Vec::new(),
        index_fns: HashMap::default(),
        type_traits: HashMap::default(),
        trait_methods: HashMap::default(),
        supers: HashMap::default(),
        ext_supers: HashSet::default(),
        traits: HashSet::default(),
        blanket_traits: HashSet::default(),
        unbounded_traits: HashSet::default(),
        blanket_methods: HashMap::default(),
        ext_methods: HashMap::default(),
        ext_self_traits: HashSet::default(),
        outside_impls: HashSet::default(),
        outside_operators: HashSet::default(),
        outside_impls_by_name: HashMap::default(),
        outside_trait_types: HashSet::default(),
        iter_types: HashSet::default(),
        iter_ext_traits: HashSet::default(),
        fn_ext_traits: HashMap::default(),
        fields: Vec::new(),
        consts: Vec::new(),
        assoc_consts: HashMap::default(),
        inherent_consts: HashSet::default(),
        trait_assoc_tys: HashMap::default(),
        rets: Vec::new(),
        closures: HashMap::default(),
        aliases: HashMap::default(),
        off: HashSet::default(),
        off_files: HashSet::default(),
        off_uses: HashSet::default(),
        impl_self: HashMap::default(),
        impl_trait: HashMap::default(),
        methods_by_name: HashMap::default(),
        sigs: Vec::new(),
        method_module: Vec::new(),
        super_only: HashSet::default(),
        macros_by_name: HashMap::default(),
        def_named: Vec::new(),
    };
    // The tables' sizes, to allocate each once.
    let mut n = [0usize; 4];
    for i in 0..world.files.len() {
        if let Some(s) = scope_of(world, FileIdx(i as u32)) {
            for (k, len) in [s.names.len(), s.items.len(), s.uses.len(), s.impls.len()]
                .into_iter()
                .enumerate()
            {
                n[k] += len;
            }
        }
    }
    let [names, items, uses, impls] = n;
    let KnownNames {
        table: known_table,
        files: mut known_files,
    } = known.unwrap_or_default();
    ix.known_names = known_table.len();
    ix.names = if known_table.is_empty() {
        // Names recur across files: rust-vendor has 43% distinct.
        lookup::NameTable::with_capacity(names / 2)
    } else {
        known_table
    };
    let def_base: Vec<u32> = std::iter::once(0)
        .chain((0..world.files.len()).scan(0u32, |n, i| {
            // Only Rust files' defs are read (others' may be read on demand).
            let f = FileIdx(i as u32);
            if scope_of(world, f).is_some() {
                *n += world.heads(f).len() as u32;
            }
            Some(*n)
        }))
        .collect();
    let defs = *def_base.last().unwrap_or(&0) as usize;
    ix.def_module = vec![NONE; defs];
    ix.items.reserve(items);
    ix.uses.reserve(uses);
    ix.impl_self.reserve(impls);
    ix.impl_trait.reserve(impls);
    ix.kw_crate = ix.intern("crate");
    ix.kw_self = ix.intern("self");
    ix.kw_super = ix.intern("super");
    ix.kw_global = ix.intern(crate::extract::rust::GLOBAL_PATH);
    let mut total_uses = 0u32;
    let mut off_mods: HashSet<u32> = HashSet::default();
    let mut feature_off_defs: Vec<SymId> = Vec::new();
    let mut roles = Vec::new();
    let packages = Packages::new(world.layout);
    let cfg_macros = cfg_macros(world, &packages);
    // Module ids: each Rust file's, then its inline modules', in file
    // order (as the loop below pushes them), known up front so that what
    // needs no name can be tabled while the names are interned.
    let mut rust_bases: Vec<(FileIdx, u32)> = Vec::new();
    let mut next_mod = 0u32;
    for i in 0..world.files.len() {
        let f = FileIdx(i as u32);
        let Some(scope) = scope_of(world, f) else {
            continue;
        };
        ix.file_mod[i] = next_mod;
        rust_bases.push((f, next_mod));
        next_mod += 1 + scope.mods.len() as u32;
    }
    let rust_files: Vec<FileIdx> = rust_bases.iter().map(|&(f, _)| f).collect();
    let mut unnamed = Unnamed {
        sigs: vec![None; defs],
        super_only: std::mem::take(&mut ix.super_only),
        method_module: vec![NONE; defs],
        traits: std::mem::take(&mut ix.traits),
        trait_method_of: Vec::new(),
        rets: vec![NONE; defs],
        closures: std::mem::take(&mut ix.closures),
        aliases: std::mem::take(&mut ix.aliases),
    };
    // File → the global name id of each def's name.
    let mut def_names: Vec<Vec<u32>> = Vec::with_capacity(world.files.len());
    std::thread::scope(|sc| {
        let tables = sc.spawn(|| unnamed.fill(world, &rust_bases, &def_base));
        for (i, wf) in world.files.iter().enumerate() {
            let f = FileIdx(i as u32);
            let Some(scope) = scope_of(world, f) else {
                ix.gnames.push(Vec::new());
                def_names.push(Vec::new());
                continue;
            };
            let heads = world.heads(f);
            let known = known_files.get_mut(i).and_then(Option::take).filter(|k| {
                k.scope.len() == scope.names.len()
                    && k.defs.len() == heads.len()
                    && k.scope
                        .iter()
                        .chain(&k.defs)
                        .all(|&n| (n as usize) < ix.known_names)
            });
            let (g, dn) = match known {
                Some(k) => (k.scope, k.defs),
                None => {
                    ix.interned.push(f);
                    let g: Vec<u32> = scope.names.iter().map(|n| ix.intern(n)).collect();
                    let mut dn = Vec::with_capacity(heads.len());
                    world.each_def_name(f, |name| dn.push(ix.intern(name)));
                    (g, dn)
                }
            };
            ix.gnames.push(g);
            for &n in dn.iter().skip(1) {
                let n = n as usize;
                if ix.def_named.len() <= n {
                    ix.def_named.resize(n + 1, false);
                }
                ix.def_named[n] = true;
            }
            def_names.push(dn);
            let id = ix.file_mod[i];
            debug_assert_eq!(id, ix.mods.len() as u32, "module ids as numbered above");
            ix.mods.push(Mod {
                file: f,
                inline: 0,
                parent: NONE,
                root: NONE,
            });
            let role = packages.crate_file(wf.path);
            let feature_off = |name: u32, on: bool| feature_off(&role, scope, name, on);
            // The calls of macros whose cfg is off (`cfg_os_poll! { … }` with
            // `os-poll` not a default feature) hold items compiled out.
            let off_blocks: Vec<&MacroBlock> = scope
                .macro_blocks
                .iter()
                .filter(|b| {
                    let key = (
                        role.package_dir.clone(),
                        scope.names[b.name as usize].to_string(),
                    );
                    cfg_macros
                        .get(&key)
                        .and_then(|cfg| cfg.as_deref())
                        .and_then(|cfg| crate::extract::rust::cfg_on(cfg, &role.features))
                        == Some(false)
                })
                .collect();
            for b in &off_blocks {
                feature_off_defs.extend((b.defs.0..b.defs.1).map(|def| SymId { file: f, def }));
                ix.off_uses.extend((b.uses.0..b.uses.1).map(|u| (f, u)));
            }
            for (u, us) in scope.uses.iter().enumerate() {
                if us.feature.is_some_and(|(n, on)| feature_off(n, on)) {
                    ix.off_uses.insert((f, u as u32));
                }
            }
            for (k, m) in scope.mods.iter().enumerate() {
                let mid = ix.mods.len() as u32;
                let parent = id + m.parent;
                ix.mods.push(Mod {
                    file: f,
                    inline: k as u32 + 1,
                    parent,
                    root: NONE,
                });
                let name = ix.gnames[i][m.name as usize];
                // `#[cfg(windows)] mod imp {…} #[cfg(unix)] mod imp {…}`: the
                // one likely on wins.
                let k = k as u32;
                if m.cfg_off
                    || m.feature.is_some_and(|(n, on)| feature_off(n, on))
                    || off_blocks.iter().any(|b| (b.mods.0..b.mods.1).contains(&k))
                {
                    off_mods.insert(mid);
                }
                match ix.children.get(&(parent, name)) {
                    Some(prev) if !off_mods.contains(prev) || off_mods.contains(&mid) => {}
                    _ => {
                        ix.children.insert((parent, name), mid);
                    }
                }
            }
            ix.use_base[i] = total_uses;
            total_uses += scope.uses.len() as u32;
            for c in &scope.cfg_features {
                if feature_off(c.name, c.on) {
                    feature_off_defs.push(SymId {
                        file: f,
                        def: c.def,
                    });
                }
            }
            if role.edition_2015 {
                ix.edition_2015.insert(f);
            }
            roles.push(role);
        }
        tables
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    });
    let Unnamed {
        sigs,
        super_only,
        method_module,
        traits,
        trait_method_of,
        rets,
        closures,
        aliases,
    } = unnamed;
    (ix.sigs, ix.super_only, ix.method_module, ix.traits) =
        (sigs, super_only, method_module, traits);
    (ix.rets, ix.closures, ix.aliases) = (rets, closures, aliases);

    ix.def_base = def_base;
    let interned = start.elapsed();
    ix.use_memo = (0..total_uses).map(|_| OnceLock::new()).collect();
    ix.fields = (0..world.files.len()).map(|_| OnceLock::new()).collect();
    ix.consts = (0..world.files.len()).map(|_| OnceLock::new()).collect();
    package_graph(&mut ix, &rust_files, &roles);

    // File modules: parents from keys, crates from library roots.
    for (&f, role) in rust_files.iter().zip(&roles) {
        let m = ix.file_mod[f.0 as usize];
        if role.lib {
            let name = ix.intern(&role.key);
            ix.crates.entry(name).or_insert(m);
        }
        if role.root {
            continue;
        }
        let Some((parent_key, last)) = role.key.rsplit_once("::") else {
            continue;
        };
        let last_g = ix.intern(last);
        // `mod gen { mod clone; }` in `lib.rs`, whose file is
        // `gen/clone.rs` (syn's generated impls): no file is the parent
        // module; the nearest file above is, through its inline modules.
        let mut anchor = parent_key;
        let mut inline: Vec<&str> = Vec::new();
        let cands = loop {
            if let Some(c) = world.by_module.get(anchor) {
                break Some(c);
            }
            match anchor.rsplit_once("::") {
                Some((up, seg)) => {
                    inline.push(seg);
                    anchor = up;
                }
                None => break None,
            }
        };
        let Some(cands) = cands else {
            continue;
        };
        inline.reverse();
        let inline: Vec<u32> = inline.iter().map(|s| ix.intern(s)).collect();
        let pkg = role.package_dir.as_deref();
        let mut best: Option<(u32, FileIdx)> = None;
        for &c in cands {
            let Some(scope) = scope_of(world, c) else {
                continue;
            };
            let cpath = world.file(c).path;
            let same_pkg = match pkg {
                Some("") | None => true,
                Some(d) => cpath.starts_with(d) && cpath[d.len()..].starts_with('/'),
            };
            let declares = match inline.first() {
                None => scope
                    .mod_decls
                    .iter()
                    .any(|d| ix.gnames[c.0 as usize][*d as usize] == last_g),
                Some(&first) => scope
                    .mods
                    .iter()
                    .any(|m| m.parent == 0 && ix.gnames[c.0 as usize][m.name as usize] == first),
            };
            let is_main = cpath.ends_with("main.rs");
            let score = u32::from(same_pkg) * 4 + u32::from(declares) * 2 + u32::from(!is_main);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, c));
            }
        }
        if let Some((_, c)) = best {
            let down = |pm: u32, seg: &u32| ix.children.get(&(pm, *seg)).copied();
            let Some(pm) = inline.iter().try_fold(ix.file_mod[c.0 as usize], down) else {
                continue;
            };
            ix.mods[m as usize].parent = pm;
            ix.children.entry((pm, last_g)).or_insert(m);
        }
    }
    // `mod common;` in `tests/a.rs` → `tests/common.rs` or `tests/common/mod.rs`.
    for (&f, role) in rust_files.iter().zip(&roles) {
        let Some(scope) = scope_of(world, f) else {
            continue;
        };
        let m = ix.file_mod[f.0 as usize];
        let path = world.file(f).path;
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let base = if role.root || file == "mod.rs" {
            dir.to_string()
        } else {
            let stem = file.strip_suffix(".rs").unwrap_or(file);
            if dir.is_empty() {
                stem.to_string()
            } else {
                format!("{dir}/{stem}")
            }
        };
        // `#[path = "../src/lexical/mod.rs"] mod lexical;`: that file's
        // module, whatever the layout says (serde_json's tests include its
        // sources this way); a module already placed elsewhere in the tree
        // keeps its parent and is reached from here too.
        for mp in &scope.mod_paths {
            if mp
                .feature
                .is_some_and(|(n, on)| feature_off(role, scope, n, on))
            {
                continue;
            }
            let dg = ix.gnames[f.0 as usize][mp.name as usize];
            let Some(target) = join_rel(dir, &mp.path) else {
                continue;
            };
            let Some(&c) = world.by_path.get(target.as_str()) else {
                continue;
            };
            let cm = ix.file_mod[c.0 as usize];
            if cm != NONE && cm != m {
                ix.adopt(m, dg, cm);
            }
        }
        for &d in &scope.mod_decls {
            let dg = ix.gnames[f.0 as usize][d as usize];
            if ix.children.contains_key(&(m, dg)) || scope.mod_paths.iter().any(|p| p.name == d) {
                continue;
            }
            let name = &scope.names[d as usize];
            let prefix = if base.is_empty() {
                String::new()
            } else {
                format!("{base}/")
            };
            let child = [
                format!("{prefix}{name}.rs"),
                format!("{prefix}{name}/mod.rs"),
            ]
            .iter()
            .find_map(|p| world.by_path.get(p.as_str()).copied());
            if let Some(c) = child {
                let cm = ix.file_mod[c.0 as usize];
                if cm != NONE && cm != m {
                    ix.adopt(m, dg, cm);
                }
            } else {
                ix.unfiled.insert((m, dg));
            }
        }
    }
    for i in 0..ix.mods.len() {
        let mut r = i as u32;
        let mut steps = 0;
        while ix.mods[r as usize].parent != NONE && steps < 64 {
            r = ix.mods[r as usize].parent;
            steps += 1;
        }
        ix.mods[i].root = r;
    }

    // Defs likely compiled out: cfg'd off, or under a feature not on by
    // default; and the files of modules compiled out.
    ix.off_files = off_file_modules(&ix, world, &rust_files, &roles);
    ix.off = rust_files
        .iter()
        .filter_map(|&f| scope_of(world, f).map(|s| (f, s)))
        .flat_map(|(f, s)| s.cfg_off.iter().map(move |&def| SymId { file: f, def }))
        .chain(feature_off_defs)
        .collect();

    let modules = start.elapsed();
    // Items and uses, and the table of trait methods (what else types need
    // before any path is resolved is in `Unnamed`, and the fields are
    // tabled per file when first looked up): passes over every file, side
    // by side.
    {
        let Index {
            file_mod,
            gnames,
            mods,
            off,
            def_module,
            def_base,
            items,
            macros_by_name,
            variants,
            variant_names,
            enums,
            globs,
            uses,
            renamed,
            methods_by_name,
            trait_methods,
            names,
            ..
        } = &mut ix;
        let (file_mod, gnames, mods, off, def_base, names) =
            (&*file_mod, &*gnames, &*mods, &*off, &*def_base, &*names);
        let (rust_files, def_names, trait_method_of) = (&rust_files, &def_names, &trait_method_of);
        // The items, by module and name (most of the work).
        let item_tables = || {
            for &f in rust_files {
                let Some(scope) = scope_of(world, f) else {
                    continue;
                };
                let base = file_mod[f.0 as usize];
                let heads = world.heads(f);
                for item in &scope.items {
                    let sym = SymId {
                        file: f,
                        def: item.def,
                    };
                    let (Some(def), Some(&name)) = (
                        heads.get(item.def as usize),
                        def_names[f.0 as usize].get(item.def as usize),
                    ) else {
                        continue;
                    };
                    let m = base + item.module;
                    // `#[cfg(target_arch = "wasm32")] macro_rules! println`: where
                    // it is compiled out, std's is the one in scope.
                    if item.is_macro
                        && crate::extract::rust::std_macro(&names.names()[name as usize]).is_some()
                        && off.contains(&sym)
                    {
                        continue;
                    }
                    if let Some(i) = def_slot(def_base, sym) {
                        def_module[i] = m;
                    }
                    items
                        .entry((m, name))
                        .or_default()
                        .push((sym, item.is_macro));
                    if item.is_macro {
                        macros_by_name.entry(name).or_default().push(sym);
                        if def.exported {
                            let root = mods[m as usize].root;
                            if root != m {
                                items.entry((root, name)).or_default().push((sym, true));
                            }
                        }
                    }
                }
            }
        };
        // Uses, enum variants, methods by name.
        let use_tables = || {
            for &f in rust_files {
                let Some(scope) = scope_of(world, f) else {
                    continue;
                };
                let base = file_mod[f.0 as usize];
                let g = &gnames[f.0 as usize];
                for &(owner, name) in &scope.variants {
                    let sym = SymId {
                        file: f,
                        def: owner,
                    };
                    variants.insert((sym, g[name as usize]));
                    variant_names.insert(g[name as usize]);
                    enums.insert(sym);
                }
                for (u, us) in scope.uses.iter().enumerate() {
                    if us.scope_fn != 0 {
                        continue;
                    }
                    let m = base + us.module;
                    if us.glob {
                        globs.entry(m).or_default().push((f, u as u32));
                    } else if let Some(b) = us.binding() {
                        uses.entry((m, g[b as usize]))
                            .or_default()
                            .push((f, u as u32));
                        if us.alias != NONE {
                            renamed.entry(m).or_default().push((f, u as u32));
                        }
                    }
                }
                let heads = world.heads(f).iter();
                for ((d, def), &name) in heads.enumerate().zip(&def_names[f.0 as usize]) {
                    if def.kind == NodeKind::Method {
                        methods_by_name.entry(name).or_default().push(SymId {
                            file: f,
                            def: d as u32,
                        });
                    }
                }
            }
        };
        // A trait's methods by name, first of a name first.
        let trait_tables = || {
            for &(m, tr) in trait_method_of {
                trait_methods
                    .entry((tr, def_names[m.file.0 as usize][m.def as usize]))
                    .or_insert(m);
            }
        };
        rayon::join(|| rayon::join(item_tables, use_tables), trait_tables);
    }
    // (Tabled before the headers are resolved: their lookups read a
    // definition's name from here, not from its file's decoded definitions.)
    ix.def_names = def_names;
    // A trait method's module is its trait's.
    for (m, tr) in trait_method_of {
        if let Some(tm) = ix.def_module(tr) {
            if let Some(slot) = ix.def_slot(m) {
                ix.method_module[slot] = tm;
            }
        }
    }
    // A module's globs likely compiled out are searched after the others
    // (`#[cfg(windows)] pub use self::windows::*;` beside `pub use
    // self::unix::*;`).
    let mut globs = std::mem::take(&mut ix.globs);
    for v in globs.values_mut() {
        v.sort_by_key(|&u| ix.use_off(world, u));
    }
    ix.globs = globs;

    // Same-named items: those likely compiled in come first, before any
    // path is resolved (an impl header under `cfg(not(feature = "x"))`
    // names the type defined under the same cfg, not its `cfg(feature =
    // "x")` twin).
    if !ix.off.is_empty() || !ix.off_files.is_empty() {
        let (off, off_files) = (&ix.off, &ix.off_files);
        for v in ix.items.values_mut() {
            v.sort_by_key(|(s, _)| off_order(world, off, off_files, *s));
        }
    }

    let tables = start.elapsed();
    // Every table a glob's or a renamed `use`'s path is looked up in is
    // final from here: the memos made on the first look start here, not
    // after the headers (a `renamed_in` asked before would have said no).
    ix.glob_memo = (0..ix.mods.len()).map(|_| Default::default()).collect();
    ix.renamed_memo = (0..ix.mods.len()).map(|_| OnceLock::new()).collect();
    // Then each impl's self type, trait and blanket bound, and each trait's
    // supertraits, resolved on all cores against the tables so far (which
    // the lookups only read; `use` memos are shared).
    let resolved: Vec<FileTypes> = {
        use rayon::prelude::*;
        let ix = &ix;
        rust_files
            .par_iter()
            .map(|&f| file_types(ix, world, f))
            .collect()
    };
    let headers = start.elapsed();
    // Last, the tables of impls and supertraits, in file order: the methods
    // of impls by type and name on one side, the rest on the other.
    let mut ext_traits: HashSet<SymId> = HashSet::default();
    let mut ext_impl_methods: HashMap<(SymId, u32), SymId> = HashMap::default();
    // Impls of in-repo traits for outside types: (trait, file, impl index).
    let mut outside_impls: Vec<(SymId, FileIdx, u32)> = Vec::new();
    let std_index = ix.gname("Index").zip(ix.gname("index"));
    {
        let Index {
            impl_trait,
            impl_self,
            blanket_traits,
            unbounded_traits,
            type_traits,
            outside_trait_types,
            iter_types,
            iter_ext_traits,
            fn_ext_traits,
            supers,
            ext_supers,
            inherent,
            trait_impl_methods,
            index_fns,
            macros_by_name,
            off,
            off_files,
            def_names,
            gnames,
            assoc_consts,
            inherent_consts,
            trait_assoc_tys,
            outside_operators,
            ..
        } = &mut ix;
        let (off, resolved, def_names, rust_files) = (&*off, &resolved, &*def_names, &rust_files);
        let gnames = &*gnames;
        let (ext_traits, ext_impl_methods, outside_impls) =
            (&mut ext_traits, &mut ext_impl_methods, &mut outside_impls);
        // Same-named methods: those likely compiled in come first.
        let off_files = &*off_files;
        let off_last = |v: &mut [SymId]| v.sort_by_key(|&s| off_order(world, off, off_files, s));
        rayon::join(
            || {
                for (&f, types) in rust_files.iter().zip(resolved) {
                    let Some(scope) = scope_of(world, f) else {
                        continue;
                    };
                    for (i, (imp, res)) in scope.impls.iter().zip(&types.impls).enumerate() {
                        if let Some(t) = res.tr {
                            impl_trait.insert((f, i as u32), t);
                            if res.ext_self {
                                outside_impls.push((t, f, i as u32));
                            }
                            if let Some(b) = res.bound {
                                blanket_traits.insert((t, b));
                            }
                            if res.ext_bound {
                                ext_traits.insert(t);
                                if res.iter_bound {
                                    iter_ext_traits.insert(t);
                                }
                                if res.fn_bound {
                                    fn_ext_traits.entry(t).or_insert((f, i as u32));
                                }
                                if imp.bound.is_empty() {
                                    unbounded_traits.insert(t);
                                }
                                // What the blanket impl itself defines is what such a
                                // call reaches.
                                for &md in &imp.methods {
                                    if let Some(&name) = def_names[f.0 as usize].get(md as usize) {
                                        ext_impl_methods
                                            .entry((t, name))
                                            .or_insert(SymId { file: f, def: md });
                                    }
                                }
                            }
                        }
                        let Some(t) = res.self_ty else {
                            if res.tr.is_none() && !imp.blanket {
                                let tr = imp.tr.last().map(|&l| &scope.names[l as usize]);
                                if let Some(op) =
                                    tr.and_then(crate::extract::rust::operator_trait_name)
                                {
                                    outside_operators.insert(op);
                                }
                            }
                            continue;
                        };
                        impl_self.insert((f, i as u32), t);
                        match res.tr {
                            Some(tr) => type_traits.entry(t).or_default().push(tr),
                            None if !imp.tr.is_empty() => {
                                outside_trait_types.insert(t);
                                if res.iter_trait {
                                    iter_types.insert(t);
                                }
                            }
                            None => {}
                        }
                    }
                    for (i, c) in scope.assoc_consts.iter().enumerate() {
                        let (Some(&t), Some(&name)) = (
                            impl_self.get(&(f, c.owner)),
                            gnames[f.0 as usize].get(c.name as usize),
                        ) else {
                            continue;
                        };
                        let inherent = scope
                            .impls
                            .get(c.owner as usize)
                            .is_some_and(|imp| imp.tr.is_empty());
                        if inherent {
                            assoc_consts.insert((t, name), (f, i as u32));
                            inherent_consts.insert((t, name));
                        } else {
                            assoc_consts.entry((t, name)).or_insert((f, i as u32));
                        }
                    }
                    for (i, a) in scope.trait_assoc_tys.iter().enumerate() {
                        let Some(&name) = gnames[f.0 as usize].get(a.name as usize) else {
                            continue;
                        };
                        let tr = SymId {
                            file: f,
                            def: a.owner,
                        };
                        trait_assoc_tys.entry((tr, name)).or_insert((f, i as u32));
                    }
                    for &(def, sup) in &types.supers {
                        supers.entry(SymId { file: f, def }).or_default().push(sup);
                    }
                    for &def in &types.ext_supers {
                        ext_supers.insert(SymId { file: f, def });
                    }
                }
                if !off.is_empty() || !off_files.is_empty() {
                    macros_by_name.values_mut().for_each(|v| off_last(v));
                }
            },
            || {
                // At most one entry a method: each table allocated once.
                let typed = rust_files.iter().zip(resolved).flat_map(|(&f, types)| {
                    let impls = scope_of(world, f).map_or(&[][..], |s| &s.impls[..]);
                    impls.iter().zip(&types.impls)
                });
                let (mut own, mut of_traits) = (0, 0);
                for (imp, _) in typed.filter(|(_, res)| res.self_ty.is_some()) {
                    if imp.tr.is_empty() {
                        own += imp.methods.len();
                    } else {
                        of_traits += imp.methods.len();
                    }
                }
                inherent.reserve(own);
                trait_impl_methods.reserve(of_traits);
                for (&f, types) in rust_files.iter().zip(resolved) {
                    let Some(scope) = scope_of(world, f) else {
                        continue;
                    };
                    for (imp, res) in scope.impls.iter().zip(&types.impls) {
                        let Some(t) = res.self_ty else {
                            continue;
                        };
                        let table = if imp.tr.is_empty() {
                            &mut *inherent
                        } else {
                            &mut *trait_impl_methods
                        };
                        let index_of = std_index.filter(|&(tr, _)| {
                            res.tr.is_none()
                                && imp
                                    .tr
                                    .last()
                                    .and_then(|&l| gnames[f.0 as usize].get(l as usize))
                                    == Some(&tr)
                        });
                        for &md in &imp.methods {
                            if let Some(&name) = def_names[f.0 as usize].get(md as usize) {
                                if index_of.is_some_and(|(_, index)| index == name) {
                                    index_fns
                                        .entry(t)
                                        .or_default()
                                        .push(SymId { file: f, def: md });
                                }
                                table
                                    .entry((t, name))
                                    .or_default()
                                    .push(SymId { file: f, def: md });
                            }
                        }
                    }
                }
                if !off.is_empty() || !off_files.is_empty() {
                    inherent.values_mut().for_each(|v| off_last(v));
                    trait_impl_methods.values_mut().for_each(|v| off_last(v));
                }
            },
        );
    }
    if !ix.blanket_traits.is_empty() || !ext_traits.is_empty() || !outside_impls.is_empty() {
        let mut by_trait: HashMap<SymId, Vec<(u32, SymId)>> = HashMap::default();
        for (&(tr, name), &m) in &ix.trait_methods {
            by_trait.entry(tr).or_default().push((name, m));
        }
        for &tr in &ext_traits {
            for &(name, m) in by_trait.get(&tr).into_iter().flatten() {
                let m = ext_impl_methods.get(&(tr, name)).copied().unwrap_or(m);
                ix.ext_methods.entry(name).or_default().push((m, tr));
            }
        }
        // A trait implemented for outside types: what `x.name()` on one
        // reaches is that impl's own method, else the trait's (a default
        // method); each distinct one is a candidate.
        for &(tr, f, i) in &outside_impls {
            let Some(imp) = scope_of(world, f).map(|s| &s.impls[i as usize]) else {
                continue;
            };
            ix.ext_self_traits.insert(tr);
            ix.outside_impls.insert((f, i));
            for &(name, m) in by_trait.get(&tr).into_iter().flatten() {
                let target = (ix.own_method(f, imp, name).unwrap_or(m), tr);
                ix.ext_methods.entry(name).or_default().push(target);
                ix.outside_impls_by_name
                    .entry(name)
                    .or_default()
                    .push((f, i));
            }
        }
        // Deterministic order whatever the hash tables' order; each
        // distinct method once (many impls may share a trait's default).
        for v in ix.ext_methods.values_mut() {
            v.sort();
            v.dedup();
        }
        for &(tr, bound) in &ix.blanket_traits {
            for &(name, m) in by_trait.get(&tr).into_iter().flatten() {
                ix.blanket_methods.entry(name).or_default().push((m, bound));
            }
        }
    }
    // Where a Rust update's time goes (each since the start).
    tracing::debug!(
        ?interned,
        ?modules,
        ?tables,
        ?headers,
        elapsed = ?start.elapsed(),
        names = ix.names.len(),
        known = ix.known_names,
        interned_files = ix.interned.len(),
        rss = crate::memory::rss_mib(),
        "built the Rust index"
    );
    ix
}

/// One file's struct fields, looked up by owner and name.
#[derive(Default)]
struct FileFields {
    /// (owner def, field name's global id, index in `Scope::fields`),
    /// sorted: of fields with the same owner and name, the last is the one.
    by_name: Vec<(u32, u32, u32)>,
    /// Owners with a named field (`x`, not `0` of a tuple struct or `V::x`
    /// of an enum variant), sorted.
    braced: Vec<u32>,
}

impl FileFields {
    fn new(scope: &Scope, gnames: &[u32]) -> Self {
        let mut by_name: Vec<(u32, u32, u32)> = scope
            .fields
            .get()
            .iter()
            .enumerate()
            .map(|(i, fl)| (fl.owner, gnames[fl.name as usize], i as u32))
            .collect();
        by_name.sort_unstable();
        let mut braced: Vec<u32> = scope
            .fields
            .get()
            .iter()
            .filter(|fl| {
                let text = &scope.names[fl.name as usize];
                !text.starts_with(|c: char| c.is_ascii_digit()) && !text.contains(':')
            })
            .map(|fl| fl.owner)
            .collect();
        braced.sort_unstable();
        braced.dedup();
        FileFields { by_name, braced }
    }
}

/// Where def `s` is in the tables by def laid out by `def_base` (see
/// [`Index::def_base`]); `None`: not a def of a Rust file.
fn def_slot(def_base: &[u32], s: SymId) -> Option<usize> {
    let f = s.file.0 as usize;
    let (&start, &end) = (def_base.get(f)?, def_base.get(f + 1)?);
    let i = start.checked_add(s.def).filter(|&i| i < end)?;
    Some(i as usize)
}

impl Index {
    /// `mod name;` in module `m` declares file module `cm`: the first
    /// declaration found is its parent, the others are kept beside it.
    fn adopt(&mut self, m: u32, name: u32, cm: u32) {
        self.children.insert((m, name), cm);
        let parent = &mut self.mods[cm as usize].parent;
        if *parent == NONE {
            *parent = m;
        } else if *parent != m {
            let others = self.other_parents.entry(cm).or_default();
            if !others.contains(&m) {
                others.push(m);
            }
        }
    }

    /// Whether def `s` is most likely compiled out: by its own cfg (see
    /// [`Index::off`]) or in a module compiled out.
    pub fn is_off(&self, s: SymId) -> bool {
        self.off.contains(&s) || self.off_files.contains(&s.file)
    }

    fn def_slot(&self, s: SymId) -> Option<usize> {
        def_slot(&self.def_base, s)
    }

    /// The module item `s` is declared in; `None` when it is not an item.
    pub fn def_module(&self, s: SymId) -> Option<u32> {
        Some(self.def_module[self.def_slot(s)?]).filter(|&m| m != NONE)
    }

    /// Method `s`'s signature: (parameters besides `self`, takes `self`).
    pub fn sig(&self, s: SymId) -> Option<(u8, bool)> {
        self.sigs[self.def_slot(s)?]
    }

    /// The module of method `s`'s impl or trait (for visibility).
    pub fn method_module(&self, s: SymId) -> Option<u32> {
        Some(self.method_module[self.def_slot(s)?]).filter(|&m| m != NONE)
    }

    /// fn `s`'s declared return type: its file and index in `Scope::rets`.
    pub fn ret(&self, s: SymId) -> Option<(FileIdx, u32)> {
        Some((s.file, self.rets[self.def_slot(s)?])).filter(|&(_, i)| i != NONE)
    }

    /// The impl that method `c` is defined in: its index in its file's
    /// `Scope::impls`, and the impl.
    pub fn impl_of<'w>(&self, world: &'w World, c: SymId) -> Option<(u32, &'w Impl)> {
        let scope = scope_of(world, c.file)?;
        let i = scope
            .impls
            .iter()
            .position(|i| i.methods.contains(&c.def))?;
        Some((i as u32, &scope.impls[i]))
    }

    /// The method named `name` (global id) that impl `imp` of file `f`
    /// defines itself.
    pub fn own_method(&self, f: FileIdx, imp: &Impl, name: u32) -> Option<SymId> {
        let names = &self.def_names[f.0 as usize];
        imp.methods
            .iter()
            .find(|&&md| names.get(md as usize) == Some(&name))
            .map(|&md| SymId { file: f, def: md })
    }

    /// Whether some impl of trait `tr` defines method `name` (a global
    /// name id): a call on a value of an unknown type with the trait
    /// ([`TyRes::Impls`]) may reach that impl's method rather than the
    /// trait's. Made from [`Index::impl_trait`] on the first look: most
    /// updates never ask.
    pub fn impl_defines(&self, world: &World, tr: SymId, name: u32) -> bool {
        let defined = self.impl_defined.get_or_init(|| {
            let mut out = HashSet::default();
            for (&(f, i), &t) in &self.impl_trait {
                let Some(imp) = scope_of(world, f).and_then(|s| s.impls.get(i as usize)) else {
                    continue;
                };
                let names = &self.def_names[f.0 as usize];
                let defs = imp.methods.iter().filter_map(|&md| names.get(md as usize));
                out.extend(defs.map(|&n| (t, n)));
            }
            out
        });
        defined.contains(&(tr, name))
    }

    fn file_fields(&self, world: &World, f: FileIdx) -> &FileFields {
        static NONE_FIELDS: FileFields = FileFields {
            by_name: Vec::new(),
            braced: Vec::new(),
        };
        let Some(cell) = self.fields.get(f.0 as usize) else {
            return &NONE_FIELDS;
        };
        cell.get_or_init(|| match scope_of(world, f) {
            Some(scope) => FileFields::new(scope, &self.gnames[f.0 as usize]),
            None => FileFields::default(),
        })
    }

    /// Field `name` of struct `t`: its file and index in `Scope::fields`.
    pub fn field(&self, world: &World, t: SymId, name: u32) -> Option<(FileIdx, u32)> {
        let by_name = &self.file_fields(world, t.file).by_name;
        let end = by_name.partition_point(|&(o, n, _)| (o, n) <= (t.def, name));
        let &(o, n, i) = by_name.get(end.checked_sub(1)?)?;
        ((o, n) == (t.def, name)).then_some((t.file, i))
    }

    fn file_consts(&self, world: &World, f: FileIdx) -> &FileConsts {
        static NONE_CONSTS: FileConsts = FileConsts {
            by_name: Vec::new(),
        };
        let Some(cell) = self.consts.get(f.0 as usize) else {
            return &NONE_CONSTS;
        };
        cell.get_or_init(|| match scope_of(world, f) {
            Some(scope) => FileConsts::new(scope, &self.gnames[f.0 as usize]),
            None => FileConsts::default(),
        })
    }

    /// The const or static `name` (global id) declared at the level of
    /// module `m`.
    pub fn module_const(&self, world: &World, m: u32, name: u32) -> Option<ConstRef> {
        let md = self.mods.get(m as usize)?;
        let consts = self.file_consts(world, md.file);
        consts.find(0, md.inline, name).map(|idx| ConstRef {
            file: md.file,
            idx,
            assoc: false,
        })
    }

    /// The const or static `name` declared in the body of fn `owner` of
    /// file `f`.
    pub fn fn_const(&self, world: &World, f: FileIdx, owner: u32, name: u32) -> Option<ConstRef> {
        // (Any module of the file: a fn's consts are in its own.)
        let by_name = &self.file_consts(world, f).by_name;
        let start = by_name.partition_point(|&(o, ..)| o < owner);
        by_name[start..]
            .iter()
            .take_while(|&&(o, ..)| o == owner)
            .find(|&&(_, _, n, _)| n == name)
            .map(|&(.., idx)| ConstRef {
                file: f,
                idx,
                assoc: false,
            })
    }

    /// Const `name` of what a path names: an associated const of one of a
    /// type's impls, or a module's own.
    pub fn const_of(&self, world: &World, at: Res, name: u32) -> Option<ConstRef> {
        match at {
            Res::Mod(m) => self.module_const(world, m, name),
            Res::Def(t) => {
                self.assoc_consts
                    .get(&(self.unalias(world, t), name))
                    .map(|&(file, idx)| ConstRef {
                        file,
                        idx,
                        assoc: true,
                    })
            }
            Res::Ext => None,
        }
    }

    /// Const `name` in scope in module `m`: its own, one a `use` of it
    /// names (`use crate::limits::MAX;`, renamed or not), or one its globs
    /// bring (`use super::*;`). Consts are no defs, so a `use` naming one
    /// resolves as far as its prefix.
    pub fn module_scope_const(&self, world: &World, m: u32, name: u32) -> Option<ConstRef> {
        if let Some(c) = self.module_const(world, m, name) {
            return Some(c);
        }
        let named = self
            .uses
            .get(&(m, name))
            .into_iter()
            .flatten()
            .find_map(|&u| {
                let us = scope_of(world, u.0)?.uses.get(u.1 as usize)?;
                let (&own, prefix) = us.segs.split_last()?;
                let g = &self.gnames[u.0 .0 as usize];
                let prefix: Vec<u32> = prefix.iter().map(|&n| g[n as usize]).collect();
                let um = self.file_mod[u.0 .0 as usize] + us.module;
                let w = self.walk_from(world, u.0, um, &prefix, Ns::Any, 0, Some(u), None);
                if w.external || w.hits.len() != prefix.len() {
                    return None;
                }
                self.const_of(world, w.hits.last()?.0, g[own as usize])
            });
        named.or_else(|| {
            self.globs.get(&m)?.iter().find_map(|&u| {
                match self.resolve_use(world, u, Ns::Any, 0)? {
                    (Res::Mod(t), _) => self.module_const(world, t, name),
                    _ => None,
                }
            })
        })
    }

    /// The declared type of const `c`.
    pub fn const_ty(&self, world: &World, c: ConstRef) -> TyRes {
        let Some(scope) = scope_of(world, c.file) else {
            return TyRes::Unknown;
        };
        let list = if c.assoc {
            &scope.assoc_consts
        } else {
            &scope.consts
        };
        match list.get(c.idx as usize) {
            Some(k) => self.declared_ty(world, c.file, k),
            None => TyRes::Unknown,
        }
    }

    /// The type of a [`crate::extract::rust::Const`] record (a const, an
    /// associated type's bound) of file `f`, resolved where it was written.
    pub(super) fn declared_ty(
        &self,
        world: &World,
        f: FileIdx,
        k: &crate::extract::rust::Const,
    ) -> TyRes {
        let m = self.file_mod[f.0 as usize] + k.module;
        self.resolve_ty(world, f, m, &k.ty)
    }

    /// Whether `t` is a struct with named fields: a type only, never a value.
    pub fn braced(&self, world: &World, t: SymId) -> bool {
        self.file_fields(world, t.file)
            .braced
            .binary_search(&t.def)
            .is_ok()
    }
}

/// A const or static: its file, its index in `Scope::assoc_consts` (an
/// impl's, `assoc`) or else in `Scope::consts`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstRef {
    pub file: FileIdx,
    pub idx: u32,
    pub assoc: bool,
}

/// A file's consts (see `Scope::consts`) by owner fn, module and name.
#[derive(Default)]
struct FileConsts {
    /// (owner fn (0: module level), module id in the file, global name id,
    /// index in `Scope::consts`), sorted: of the same key, the first
    /// written is first.
    by_name: Vec<(u32, u32, u32, u32)>,
}

impl FileConsts {
    fn new(scope: &Scope, gnames: &[u32]) -> Self {
        let mut by_name: Vec<(u32, u32, u32, u32)> = scope
            .consts
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((c.owner, c.module, *gnames.get(c.name as usize)?, i as u32)))
            .collect();
        by_name.sort_unstable();
        FileConsts { by_name }
    }

    fn find(&self, owner: u32, module: u32, name: u32) -> Option<u32> {
        let at = self
            .by_name
            .partition_point(|&(o, m, n, _)| (o, m, n) < (owner, module, name));
        let &(o, m, n, i) = self.by_name.get(at)?;
        ((o, m, n) == (owner, module, name)).then_some(i)
    }
}

/// The tables of what types need that no name decides: method signatures,
/// the modules of impl methods, the traits that declare methods, return
/// types, closures, aliases. Filled on a thread of their own while the
/// names are interned.
struct Unnamed {
    sigs: Vec<Option<(u8, bool)>>,
    super_only: HashSet<SymId>,
    method_module: Vec<u32>,
    traits: HashSet<SymId>,
    /// (trait method, its trait): the method's module is its trait's,
    /// known once the items are.
    trait_method_of: Vec<(SymId, SymId)>,
    rets: Vec<u32>,
    closures: HashMap<SymId, Vec<u32>>,
    aliases: HashMap<SymId, (FileIdx, u32)>,
}

impl Unnamed {
    /// `files`: each Rust file with the id of its module; `def_base`: as
    /// [`Index::def_base`].
    fn fill(&mut self, world: &World, files: &[(FileIdx, u32)], def_base: &[u32]) {
        let mut in_impl = HashSet::default();
        for &(f, base) in files {
            let Some(scope) = scope_of(world, f) else {
                continue;
            };
            let sym = |def: u32| SymId { file: f, def };
            let slot = |def: u32| def_slot(def_base, sym(def));
            for sig in &scope.sigs {
                if let Some(i) = slot(sig.def) {
                    self.sigs[i] = Some((sig.params, sig.has_self));
                }
                if sig.super_only {
                    self.super_only.insert(sym(sig.def));
                }
            }
            in_impl.clear();
            for imp in &scope.impls {
                in_impl.extend(imp.methods.iter().copied());
                for &md in &imp.methods {
                    if let Some(i) = slot(md) {
                        self.method_module[i] = base + imp.module;
                    }
                }
            }
            for (d, def) in world.heads(f).iter().enumerate() {
                if def.kind != NodeKind::Method || in_impl.contains(&(d as u32)) {
                    continue;
                }
                let Some(p) = def.parent.filter(|&p| p != 0) else {
                    continue;
                };
                self.traits.insert(sym(p));
                self.trait_method_of.push((sym(d as u32), sym(p)));
            }
            for (i, r) in scope.rets.iter().enumerate() {
                if let Some(slot) = slot(r.def) {
                    self.rets[slot] = i as u32;
                }
            }
            for (i, c) in scope.closures.iter().enumerate() {
                self.closures.entry(sym(c.def)).or_default().push(i as u32);
            }
            for (i, a) in scope.aliases.iter().enumerate() {
                self.aliases.insert(sym(a.def), (f, i as u32));
            }
        }
    }
}

/// What one impl's header names, resolved.
struct ImplTypes {
    self_ty: Option<SymId>,
    tr: Option<SymId>,
    /// The bound `B` of a blanket `impl<T: B> Tr for T`.
    bound: Option<SymId>,
    /// A blanket impl whose bound is an outside trait, or that has none.
    ext_bound: bool,
    /// A blanket impl whose bound is one of std's iterator traits.
    iter_bound: bool,
    /// A blanket impl whose bound is `Fn`, `FnMut` or `FnOnce`.
    fn_bound: bool,
    /// The trait is one of std's iterator traits (an outside trait whose
    /// path ends in one of [`ITERATORS`], not `IntoIterator`).
    iter_trait: bool,
    /// An in-repo trait's impl for an outside type (`impl Buf for &[u8]`,
    /// `impl BufMut for Vec<u8>`).
    ext_self: bool,
}

/// One file's impls (in order) and supertraits (trait def, supertrait),
/// resolved, and the traits with a supertrait from outside the repository.
struct FileTypes {
    impls: Vec<ImplTypes>,
    supers: Vec<(u32, SymId)>,
    ext_supers: Vec<u32>,
}

fn file_types(ix: &Index, world: &World, f: FileIdx) -> FileTypes {
    let mut out = FileTypes {
        impls: Vec::new(),
        supers: Vec::new(),
        ext_supers: Vec::new(),
    };
    let Some(scope) = scope_of(world, f) else {
        return out;
    };
    let base = ix.file_mod[f.0 as usize];
    let g = &ix.gnames[f.0 as usize];
    let walk = |p: &[u32], m: u32| -> PathWalk {
        let segs: Vec<u32> = p.iter().map(|&n| g[n as usize]).collect();
        ix.walk(world, f, m, &segs, Ns::Any)
    };
    for imp in &scope.impls {
        let m = base + imp.module;
        // An impl in a fn body may be of a type that fn (or one around
        // it) defines: `fn deserialize() { struct Id; impl Visitor for Id }`.
        let local = |n: u32, _: Ns| -> Option<(Res, How)> {
            let defs = world.defs(f);
            let mut d = imp.scope_fn;
            while d != 0 {
                let found = defs.iter().enumerate().find(|(_, x)| {
                    x.parent == Some(d) && x.kind == NodeKind::Class && ix.gname(&x.name) == Some(n)
                });
                if let Some((i, _)) = found {
                    let sym = SymId {
                        file: f,
                        def: i as u32,
                    };
                    return Some((Res::Def(sym), How::Local));
                }
                d = defs.get(d as usize).and_then(|x| x.parent).unwrap_or(0);
            }
            None
        };
        let first: Option<FirstLookup> = (imp.scope_fn != 0).then_some(&local);
        let resolved = ix.resolve_ty_with(world, f, m, &imp.ty, first);
        let outside = !matches!(resolved, TyRes::Def(_) | TyRes::Unknown);
        let self_ty = match resolved {
            TyRes::Def(t) => Some(t),
            // An alias of an outside type (`type Array = Rc<Vec<Value>>;
            // impl ToSql for Array`): the alias is what the repository
            // knows the impl by.
            _ => match &imp.ty {
                Ty::Path(p) | Ty::Generic(p, _) => match ix.path_ty(world, f, m, p, first) {
                    TyRes::Def(d) if ix.aliases.contains_key(&d) => Some(d),
                    _ => None,
                },
                _ => None,
            },
        };
        // A path found nowhere in the repository that ends in the name of
        // one of std's iterator traits (`IntoIterator` too, `into`: as a
        // bound, it covers every iterator).
        let std_iterator = |p: &[u32], w: &PathWalk, into: bool| {
            w.external
                && p.last().is_some_and(|&n| {
                    let n = &scope.names[n as usize];
                    std_iterator_trait(n) || (into && n == "IntoIterator")
                })
        };
        let (tr, iter_trait) = if imp.tr.is_empty() {
            (None, false)
        } else {
            let w = walk(&imp.tr, m);
            (w.last_def(), std_iterator(&imp.tr, &w, false))
        };
        let blanket = tr.is_some() && imp.blanket;
        let (bound, ext_bound, iter_bound, fn_bound) = match blanket {
            true if imp.bound.is_empty() => (None, true, false, false),
            true => {
                let w = walk(&imp.bound, m);
                let callable = w.external
                    && imp
                        .bound
                        .last()
                        .is_some_and(|&n| fn_trait(&scope.names[n as usize]));
                let iter = std_iterator(&imp.bound, &w, true);
                (w.last_def(), w.external, iter, callable)
            }
            false => (None, false, false, false),
        };
        out.impls.push(ImplTypes {
            ext_self: outside && self_ty.is_none() && tr.is_some() && !blanket,
            self_ty,
            tr,
            bound,
            ext_bound,
            iter_bound,
            fn_bound,
            iter_trait,
        });
    }
    for s in &scope.supers {
        let w = walk(&s.path, base + s.module);
        if let Some(sup) = w.last_def() {
            out.supers.push((s.def, sup));
        } else if w.external && out.ext_supers.last() != Some(&s.def) {
            out.ext_supers.push(s.def);
        }
    }
    out
}

/// The outcome of walking a path segment by segment.
#[derive(Debug, Default)]
pub struct PathWalk {
    /// One entry per resolved segment, from the first.
    pub hits: Vec<(Res, How)>,
    /// The first segment was found nowhere: std, prelude or a dependency.
    pub external: bool,
    /// The first segment is bound to something outside the graph (an
    /// outside `use`, a variant a glob of an enum brings), not unknown.
    pub bound_outside: bool,
    /// The first segment is a plain name bound nowhere: the std prelude,
    /// an outside glob, or an item a macro defines.
    pub unbound: bool,
}

impl PathWalk {
    pub fn last_def(&self) -> Option<SymId> {
        match self.hits.last() {
            Some((Res::Def(d), _)) => Some(*d),
            _ => None,
        }
    }
}
