//! Facts → edges with confidence. Pure: the whole repository's definitions
//! and scopes ([`World`]) in, one file's edges out. A world may read its
//! files' facts only when a resolver first asks ([`FactSource`]): the
//! answers are the same.
//!
//! Each language resolver models its language's scope and import rules and
//! says *how* it resolved each site with a [`Strategy`]; the confidence and
//! status of an edge come from one table, [`grade`], so the whole policy is
//! in one place (DESIGN §3).

pub mod python;
pub mod rust;
pub mod typescript;

use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashMapExt};

use crate::extract::{Def, DefHead, Family, FileFacts, Lang, LangRefs, LangScope};
use crate::graph::{EdgeKind, NodeKind, Pos, Status};

/// Why the resolver believes a site refers to its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strategy {
    /// Defined in an enclosing scope of the same file; one candidate.
    Local,
    /// Bound by an explicit import (aliases included) to one definition.
    Import,
    /// Reached through re-exports (`__init__.py`, barrels, `pub use`).
    ReExport,
    /// A qualified path resolved by module rules: `pkg.mod.f`, `ns.f` for an
    /// imported namespace, `crate::a::f`, `Type::f` on a known type.
    Path,
    /// `self.m()`, `this.m()`, `Self::m()`, `super().m()`, found on the
    /// enclosing class or one of its bases.
    SelfMember,
    /// The receiver's type is known from a constructor call, an annotation
    /// or a parameter type, and the member is found on that type.
    TypedReceiver,
    /// A bare name with no import in sight and exactly one definition of
    /// that name in the repository.
    NameUnique,
    /// A bare name with no import in sight and `k` (≥ 2) definitions.
    NameAmbiguous { k: u32 },
    /// A member on a receiver of unknown type; `k` methods of that name.
    Member { k: u32 },
}

/// More candidates than this and a site is left unresolved (for the
/// language server), rather than spread over many weak edges.
pub const MAX_CANDIDATES: u32 = 5;

/// The confidence table (DESIGN §3). Everything a resolver decides ends here.
///
/// | strategy | status | confidence |
/// |---|---|---|
/// | `Local`, `Import`, `Path` | syntactic | 0.95 |
/// | `ReExport`, `SelfMember` | syntactic | 0.9 |
/// | `TypedReceiver` | inferred | 0.8 |
/// | `NameUnique` | inferred | 0.7 |
/// | `Member { k }` | inferred | 0.6 / k |
/// | `NameAmbiguous { k }` | inferred | 0.5 / k |
///
/// `SelfMember` is not 0.95 because an override in a subclass can receive
/// the call; `TypedReceiver` because local type inference can be wrong
/// (reassignment, unions, duck typing).
pub fn grade(strategy: Strategy) -> (Status, f64) {
    match strategy {
        Strategy::Local | Strategy::Import | Strategy::Path => (Status::Syntactic, 0.95),
        Strategy::ReExport | Strategy::SelfMember => (Status::Syntactic, 0.9),
        Strategy::TypedReceiver => (Status::Inferred, 0.8),
        Strategy::NameUnique => (Status::Inferred, 0.7),
        Strategy::Member { k } => (Status::Inferred, round2(0.6 / f64::from(k.max(1)))),
        Strategy::NameAmbiguous { k } => (Status::Inferred, round2(0.5 / f64::from(k.max(1)))),
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The `source` of a statically resolved edge.
pub fn static_source(status: Status) -> &'static str {
    match status {
        Status::Syntactic => "syntax",
        _ => "heuristic",
    }
}

/// Index of a file in the [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileIdx(pub u32);

/// A definition anywhere in the [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SymId {
    pub file: FileIdx,
    pub def: u32,
}

/// An edge whose site is in the file being resolved (the file "owns" it:
/// re-resolving the file replaces all its edges).
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedEdge {
    /// The referencing definition: the innermost definition enclosing the
    /// site, in this file (`def` 0 = module level). Only `extends` and
    /// `implements` from an `impl` block may name a definition elsewhere.
    pub src: SymId,
    pub dst: SymId,
    pub kind: EdgeKind,
    pub strategy: Strategy,
    /// Where the referencing identifier starts; `None` only for edges that
    /// have no site in the text.
    pub site: Option<Pos>,
}

/// A site the resolver could not pin to an in-repo definition: kept, because
/// it is what the language server will be asked about. Only sites whose name
/// matches some in-repo definition are kept (`len`, `std::fs::read` are not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    pub src: u32,
    pub name: String,
    pub kind: EdgeKind,
    pub site: Pos,
    /// Short reason, e.g. `"no definition in repo"`, `"7 candidates"`,
    /// `"dynamic attribute"`, `"external module"`.
    pub reason: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileResolution {
    pub edges: Vec<ResolvedEdge>,
    pub unresolved: Vec<Unresolved>,
}

/// What module keys depend on beyond a file's own path: the set of indexed
/// files and the manifests (`Cargo.toml`, `tsconfig.json`, `package.json`,
/// `pyproject.toml`, `setup.cfg`) found in the walk.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Every indexed source path, repo-relative with `/`.
    pub files: BTreeSet<String>,
    /// Manifest path (repo-relative) → its text.
    pub manifests: BTreeMap<String, String>,
    /// Files a `package.json` names as its entry or exports (`dist/index.d.ts`)
    /// that exist on disk but are not indexed (build output): TypeScript
    /// resolves the package's name to them, not to the sources they were
    /// built from. See [`typescript::built_outputs`].
    pub built: BTreeSet<String>,
}

/// The manifest file names the walk collects into a [`Layout`].
pub const MANIFESTS: [&str; 5] = [
    "Cargo.toml",
    "tsconfig.json",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
];

/// Whether a file name is a manifest the layout collects: the names in
/// [`MANIFESTS`], `jsconfig.json`, and `tsconfig.*.json` (monorepos keep
/// `paths` in a `tsconfig.base.json` that others extend).
pub fn is_manifest(name: &str) -> bool {
    MANIFESTS.contains(&name)
        || name == "jsconfig.json"
        || (name.starts_with("tsconfig.") && name.ends_with(".json"))
        || typescript::is_declaration_map(name)
}

/// The module key of a file (DESIGN §2): `shop.payments.gateway`,
/// `src/payments/gateway.ts`, `shop::payments::gateway`.
pub fn module_key(lang: Lang, path: &str, layout: &Layout) -> String {
    match lang.family() {
        Family::Python => python::module_key(path, layout),
        Family::Script => path.to_string(),
        Family::Rust => rust::module_key(path, layout),
    }
}

/// A definition's full key: the module key joined with its local name.
pub fn def_key(lang: Lang, module_key: &str, local: &str) -> String {
    if local.is_empty() {
        return module_key.to_string();
    }
    let sep = match lang.family() {
        Family::Python => ".",
        Family::Script => ":",
        Family::Rust => "::",
    };
    if module_key.is_empty() {
        local.to_string()
    } else {
        format!("{module_key}{sep}{local}")
    }
}

/// All keys of a file, with `#2`, `#3` suffixes on duplicates (conditional
/// definitions, overloads).
pub fn file_keys(lang: Lang, module_key: &str, defs: &[Def]) -> Vec<String> {
    let mut seen: HashMap<String, u32> = HashMap::new();
    defs.iter()
        .map(|d| {
            let key = def_key(lang, module_key, &d.local);
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                key
            } else {
                format!("{key}#{n}")
            }
        })
        .collect()
}

/// One file as the resolvers see it. Its definitions and scope are read
/// through the [`World`] ([`World::defs`], [`World::scope`]): they may be
/// decoded only when a resolver first asks for them.
pub struct WorldFile<'a> {
    pub path: &'a str,
    pub lang: Lang,
    /// Borrowed from the store's row when known there.
    pub module_key: std::borrow::Cow<'a, str>,
    /// The file is empty (so defines and imports nothing): known from its
    /// stored size without reading its facts.
    pub empty: bool,
    facts: FactsRef<'a>,
}

/// A file's definitions and scope, owned (decoded from the store). The
/// scope is boxed: some 500 bytes inline, moved three times per file on
/// its way from the decoding threads into the world.
#[derive(Debug)]
pub struct Facts {
    pub defs: Defs,
    pub scope: Box<LangScope>,
}

/// Bytes that many files' encoded facts are parts of (the mapped copy of
/// the facts beside the database), kept while any of them may be decoded.
pub type SharedBytes = std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>;

/// Where a file's encoded definitions are, until they are decoded.
pub enum Encoded {
    Owned(Vec<u8>),
    Shared(SharedBytes, std::ops::Range<usize>),
}

impl Encoded {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Encoded::Owned(v) => v,
            Encoded::Shared(b, r) => &(**b).as_ref()[r.clone()],
        }
    }
}

/// A file's definitions: decoded, or (Rust files' in an update) their
/// heads at hand and the definitions themselves decoded when first asked.
/// An update of a large Rust tree reads every file's heads (the Rust index
/// needs each definition's kind, parent and visibility) but the whole
/// definitions of only the files it resolves and the targets it renders:
/// rust-vendor's 100k definitions are 8 MB and 200k strings decoded.
pub struct Defs(DefsState);

enum DefsState {
    Decoded(Vec<Def>),
    Encoded {
        heads: Vec<DefHead>,
        full: std::sync::OnceLock<Vec<Def>>,
        bytes: Encoded,
    },
}

impl std::fmt::Debug for Defs {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let decoded = match &self.0 {
            DefsState::Decoded(_) => true,
            DefsState::Encoded { full, .. } => full.get().is_some(),
        };
        f.debug_struct("Defs")
            .field("len", &self.heads().len())
            .field("decoded", &decoded)
            .finish()
    }
}

impl Defs {
    pub fn decoded(defs: Vec<Def>) -> Defs {
        Defs(DefsState::Decoded(defs))
    }

    /// Definitions as postcard encoded a `Vec<Def>`: their heads read now
    /// (failing where decoding them would fail), the rest when first asked.
    pub fn encoded(bytes: Encoded) -> Result<Defs, postcard::Error> {
        Ok(Defs(DefsState::Encoded {
            heads: DefHead::read_all(bytes.bytes())?,
            full: std::sync::OnceLock::new(),
            bytes,
        }))
    }

    pub fn heads(&self) -> Heads<'_> {
        match &self.0 {
            DefsState::Decoded(d) => Heads::Defs(d),
            DefsState::Encoded { heads, .. } => Heads::Heads(heads),
        }
    }

    pub fn get(&self) -> &[Def] {
        let (heads, full, bytes) = match &self.0 {
            DefsState::Decoded(d) => return d,
            DefsState::Encoded { heads, full, bytes } => (heads, full, bytes),
        };
        full.get_or_init(|| Defs::decode(heads, bytes))
    }

    /// The definitions, kept decoded only if they already were: a file
    /// resolved once (every file of a first index) reads its own
    /// definitions once, and the rest of the run has no use for them.
    pub fn peek(&self) -> std::borrow::Cow<'_, [Def]> {
        match &self.0 {
            DefsState::Decoded(d) => std::borrow::Cow::Borrowed(d),
            DefsState::Encoded { heads, full, bytes } => match full.get() {
                Some(d) => std::borrow::Cow::Borrowed(d),
                None => std::borrow::Cow::Owned(Defs::decode(heads, bytes)),
            },
        }
    }

    /// Calls `f` with each definition's name, in order, without keeping
    /// the definitions decoded.
    pub fn each_name(&self, mut f: impl FnMut(&str)) {
        let (heads, full, bytes) = match &self.0 {
            DefsState::Decoded(d) => return d.iter().for_each(|d| f(&d.name)),
            DefsState::Encoded { heads, full, bytes } => (heads, full, bytes),
        };
        if let Some(d) = full.get() {
            return d.iter().for_each(|d| f(&d.name));
        }
        let mut n = 0;
        let read = DefHead::each_name(bytes.bytes(), |name| {
            if n < heads.len() {
                f(name);
            }
            n += 1;
        });
        if read.is_err() || n != heads.len() {
            // Not expected (the heads were read from the same bytes): the
            // names not read are those decoding gives (see `decode`).
            let rest = Defs::decode(heads, bytes);
            rest.iter()
                .skip(n.min(heads.len()))
                .for_each(|d| f(&d.name));
        }
    }

    fn decode(heads: &[DefHead], bytes: &Encoded) -> Vec<Def> {
        match postcard::from_bytes::<Vec<Def>>(bytes.bytes()) {
            Ok(defs) if defs.len() == heads.len() => defs,
            // Not expected: the heads were read from the same bytes with
            // the same layout. Nameless definitions keep every index
            // valid; the error says why names are missing.
            other => {
                tracing::error!(
                    error = ?other.err(),
                    "definitions whose heads were read do not decode"
                );
                heads
                    .iter()
                    .map(|h| Def {
                        kind: h.kind,
                        parent: h.parent,
                        exported: h.exported,
                        ..UNREADABLE.clone()
                    })
                    .collect()
            }
        }
    }
}

/// A file's definition heads, wherever its definitions are.
#[derive(Clone, Copy)]
pub enum Heads<'a> {
    Defs(&'a [Def]),
    Heads(&'a [DefHead]),
}

impl<'a> Heads<'a> {
    pub fn len(&self) -> usize {
        match self {
            Heads::Defs(d) => d.len(),
            Heads::Heads(h) => h.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Option<DefHead> {
        match self {
            Heads::Defs(d) => d.get(i).map(DefHead::from),
            Heads::Heads(h) => h.get(i).copied(),
        }
    }

    /// The first of def `idx` and the defs around it (innermost first)
    /// that `pred` accepts.
    pub fn up_to(&self, mut idx: u32, pred: impl Fn(u32, &DefHead) -> bool) -> Option<u32> {
        loop {
            let h = self.get(idx as usize)?;
            if pred(idx, &h) {
                return Some(idx);
            }
            idx = h.parent?;
        }
    }

    /// The test def `idx` is or is nested in.
    pub fn enclosing_test(&self, idx: u32) -> Option<u32> {
        self.up_to(idx, |_, h| h.kind == NodeKind::Test)
    }

    pub fn iter(self) -> impl Iterator<Item = DefHead> + 'a {
        let (defs, heads) = match self {
            Heads::Defs(d) => (d, &[][..]),
            Heads::Heads(h) => (&[][..], h),
        };
        defs.iter().map(DefHead::from).chain(heads.iter().copied())
    }
}

/// Where a [`World`] file's facts are.
#[derive(Clone, Copy)]
pub enum FactsRef<'a> {
    /// At hand.
    Given {
        defs: &'a [Def],
        scope: &'a LangScope,
    },
    /// In a cell the world's [`FactSource`] fills when a resolver first asks
    /// (unless it was filled before).
    Cell(&'a std::sync::OnceLock<Facts>),
}

/// A world file's definitions as [`World::facts`] finds them.
#[derive(Clone, Copy)]
enum DefsRef<'a> {
    Given(&'a [Def]),
    Held(&'a Defs),
}

/// What fills a [`FactsRef::Cell`], and answers what would otherwise need
/// every file read: an update that resolves ten files of a large tree
/// reads and decodes the files those ten reach, not all of them.
///
/// A source that cannot answer returns a file with no definitions but the
/// module and an empty scope, or no definitions, and keeps the error for
/// its owner to report: resolutions made after it are not to be stored.
pub trait FactSource: Sync {
    /// The facts of world file `idx`.
    fn load(&self, idx: FileIdx) -> Facts;
    /// Definitions named `name` (modules excluded) in files of `family`,
    /// in world order (as [`World::named`] without a source).
    fn named(&self, name: &str, family: Family) -> Vec<SymId>;
    /// Python methods named `name`, in world order.
    fn python_methods(&self, name: &str) -> Vec<SymId>;
    /// How many Python classes have a data attribute named `name`.
    fn python_class_attrs(&self, name: &str) -> u32;
    /// Whether some answer failed (what was resolved since is void).
    fn failed(&self) -> bool;
}

/// What [`World::def`] gives for a definition of a file that could not be
/// read (its resolutions are void: see [`FactSource`]).
static UNREADABLE: Def = Def {
    name: String::new(),
    local: String::new(),
    kind: NodeKind::Module,
    parent: None,
    pos: Pos { line: 1, column: 1 },
    start_line: 1,
    end_line: 1,
    exported: false,
};

/// Every file's definitions and scope, with the lookups all resolvers need.
/// Language resolvers build their own extra indexes in `prepare`.
pub struct World<'a> {
    pub files: Vec<WorldFile<'a>>,
    pub layout: &'a Layout,
    pub by_path: PathIndex<'a>,
    /// Module key → files (usually one).
    pub by_module: HashMap<std::borrow::Cow<'a, str>, Vec<FileIdx>>,
    /// Per language family: bare name → definitions (modules excluded), in
    /// file order; built when first asked ([`World::named`]).
    by_name: [std::sync::OnceLock<HashMap<&'a str, Vec<SymId>>>; 3],
    source: Option<&'a dyn FactSource>,
}

/// Files by repo-relative path.
pub type PathIndex<'a> = HashMap<&'a str, FileIdx>;

/// Input to [`World::new`]: a file's path, language, definitions and scope.
pub struct WorldInput<'a> {
    pub path: &'a str,
    pub lang: Lang,
    pub facts: FactsRef<'a>,
    /// The file's module key when it is already known (the stored one,
    /// kept equal to [`module_key`] by re-keying); computed when `None`.
    pub module_key: Option<&'a str>,
    /// The file has no content (see [`WorldFile::empty`]); `false` when
    /// not known.
    pub empty: bool,
}

fn family_slot(family: Family) -> usize {
    match family {
        Family::Python => 0,
        Family::Script => 1,
        Family::Rust => 2,
    }
}

impl<'a> World<'a> {
    /// A world whose facts are all at hand or already in their cells.
    pub fn new(inputs: Vec<WorldInput<'a>>, layout: &'a Layout) -> World<'a> {
        Self::build(inputs, layout, None)
    }

    /// A world whose empty cells `source` fills on demand.
    pub fn with_source(
        inputs: Vec<WorldInput<'a>>,
        layout: &'a Layout,
        source: &'a dyn FactSource,
    ) -> World<'a> {
        Self::build(inputs, layout, Some(source))
    }

    fn build(
        inputs: Vec<WorldInput<'a>>,
        layout: &'a Layout,
        source: Option<&'a dyn FactSource>,
    ) -> World<'a> {
        let mut files = Vec::with_capacity(inputs.len());
        let mut by_path = PathIndex::with_capacity(inputs.len());
        let mut by_module: HashMap<std::borrow::Cow<'a, str>, Vec<FileIdx>> =
            HashMap::with_capacity(inputs.len());
        for (i, input) in inputs.into_iter().enumerate() {
            let idx = FileIdx(i as u32);
            let module_key = match input.module_key {
                Some(known) => {
                    debug_assert_eq!(known, module_key(input.lang, input.path, layout));
                    std::borrow::Cow::Borrowed(known)
                }
                None => std::borrow::Cow::Owned(module_key(input.lang, input.path, layout)),
            };
            by_path.insert(input.path, idx);
            by_module.entry(module_key.clone()).or_default().push(idx);
            files.push(WorldFile {
                path: input.path,
                lang: input.lang,
                module_key,
                empty: input.empty,
                facts: input.facts,
            });
        }
        World {
            files,
            layout,
            by_path,
            by_module,
            by_name: Default::default(),
            source,
        }
    }

    pub fn file(&self, idx: FileIdx) -> &WorldFile<'a> {
        &self.files[idx.0 as usize]
    }

    /// A file's definitions and scope (read and decoded on first use when
    /// the world has a source).
    fn facts(&self, idx: FileIdx) -> (DefsRef<'a>, &'a LangScope) {
        match self.files[idx.0 as usize].facts {
            FactsRef::Given { defs, scope } => (DefsRef::Given(defs), scope),
            FactsRef::Cell(cell) => {
                let f = cell.get_or_init(|| match self.source {
                    Some(s) => s.load(idx),
                    None => panic!("world file {} has no facts and no source", idx.0),
                });
                (DefsRef::Held(&f.defs), &f.scope)
            }
        }
    }

    /// What answers for files not yet read, if the world reads on demand.
    pub fn source(&self) -> Option<&'a dyn FactSource> {
        self.source
    }

    /// A file's definitions (decoded on first use when they were read
    /// encoded: see [`Defs`]).
    pub fn defs(&self, idx: FileIdx) -> &'a [Def] {
        match self.facts(idx).0 {
            DefsRef::Given(d) => d,
            DefsRef::Held(d) => d.get(),
        }
    }

    /// A file's definitions, without keeping them decoded if they were
    /// not (see [`Defs::peek`]).
    pub fn defs_once(&self, idx: FileIdx) -> std::borrow::Cow<'a, [Def]> {
        match self.facts(idx).0 {
            DefsRef::Given(d) => std::borrow::Cow::Borrowed(d),
            DefsRef::Held(d) => d.peek(),
        }
    }

    /// Calls `f` with the name of each of a file's definitions, in order,
    /// without keeping them decoded if they were not.
    pub fn each_def_name(&self, idx: FileIdx, f: impl FnMut(&str)) {
        match self.facts(idx).0 {
            DefsRef::Given(d) => d.iter().map(|d| d.name.as_str()).for_each(f),
            DefsRef::Held(d) => d.each_name(f),
        }
    }

    /// A file's definition heads, without decoding its definitions.
    pub fn heads(&self, idx: FileIdx) -> Heads<'a> {
        match self.facts(idx).0 {
            DefsRef::Given(d) => Heads::Defs(d),
            DefsRef::Held(d) => d.heads(),
        }
    }

    /// A definition's head (as [`World::def`], without decoding its file's
    /// definitions).
    pub fn head(&self, sym: SymId) -> DefHead {
        match self.heads(sym.file).get(sym.def as usize) {
            Some(h) => h,
            None if self.source.is_some_and(|s| s.failed()) => DefHead::from(&UNREADABLE),
            None => panic!("no definition {} in world file {}", sym.def, sym.file.0),
        }
    }

    pub fn scope(&self, idx: FileIdx) -> &'a LangScope {
        self.facts(idx).1
    }

    pub fn def(&self, sym: SymId) -> &'a Def {
        match self.defs(sym.file).get(sym.def as usize) {
            Some(d) => d,
            None if self.source.is_some_and(|s| s.failed()) => &UNREADABLE,
            None => panic!("no definition {} in world file {}", sym.def, sym.file.0),
        }
    }

    /// A definition's key (computed: resolution never needs keys, only the
    /// stored nodes and renderings do).
    pub fn key(&self, sym: SymId) -> String {
        self.file_keys(sym.file).swap_remove(sym.def as usize)
    }

    /// Every definition's key in one file, in definition order.
    pub fn file_keys(&self, idx: FileIdx) -> Vec<String> {
        let f = self.file(idx);
        file_keys(f.lang, &f.module_key, self.defs(idx))
    }

    /// Definitions named `name` (modules excluded) in files of the given
    /// family, in file order.
    pub fn named(&self, name: &str, family: Family) -> std::borrow::Cow<'_, [SymId]> {
        if let Some(s) = self.source {
            return std::borrow::Cow::Owned(s.named(name, family));
        }
        let by_name = self.by_name[family_slot(family)].get_or_init(|| {
            let mut by_name: HashMap<&'a str, Vec<SymId>> = HashMap::new();
            for (i, f) in self.files.iter().enumerate() {
                if f.lang.family() != family {
                    continue;
                }
                let idx = FileIdx(i as u32);
                for (d, def) in self.defs(idx).iter().enumerate().skip(1) {
                    by_name.entry(def.name.as_str()).or_default().push(SymId {
                        file: idx,
                        def: d as u32,
                    });
                }
            }
            by_name
        });
        std::borrow::Cow::Borrowed(by_name.get(name).map_or(&[][..], Vec::as_slice))
    }

    /// Children of a definition (direct, by parent index).
    pub fn children(&self, sym: SymId) -> impl Iterator<Item = SymId> + '_ {
        self.heads(sym.file)
            .iter()
            .enumerate()
            .filter(move |(_, d)| d.parent == Some(sym.def))
            .map(move |(i, _)| SymId {
                file: sym.file,
                def: i as u32,
            })
    }
}

/// Per-language indexes built once per [`World`].
pub struct Prepared<'w> {
    python: python::Index<'w>,
    script: typescript::Index,
    rust: rust::Index,
}

impl Prepared<'_> {
    pub fn rust(&self) -> &rust::Index {
        &self.rust
    }
}

pub fn prepare<'w>(world: &World<'w>) -> Prepared<'w> {
    prepare_with(world, None)
}

/// [`prepare`], with the Rust global names an earlier build kept.
pub fn prepare_with<'w>(world: &World<'w>, rust_names: Option<rust::KnownNames>) -> Prepared<'w> {
    // The languages' indexes are independent; each also works in parallel
    // inside (on the deep-stack workers: resolution recurses).
    crate::index::workers().install(|| {
        let (python, (script, rust)) = rayon::join(
            || python::prepare(world),
            || {
                rayon::join(
                    || typescript::prepare(world),
                    || rust::prepare(world, rust_names),
                )
            },
        );
        Prepared {
            python,
            script,
            rust,
        }
    })
}

/// Resolve one file's reference sites. The `contains` and `tests` edges are
/// added here for every language, so resolvers only emit what needs rules.
pub fn resolve_file<'w>(
    world: &World<'w>,
    prepared: &Prepared<'w>,
    file: FileIdx,
    refs: &LangRefs,
) -> FileResolution {
    // The file's own facts first: when they (or any before) could not be
    // read, the resolution is void anyway.
    let _ = world.heads(file);
    if world.source.is_some_and(|s| s.failed()) {
        return FileResolution::default();
    }
    let mut res = match refs {
        LangRefs::Python(r) => python::resolve_file(world, &prepared.python, file, r),
        LangRefs::Script(r) => typescript::resolve_file(world, &prepared.script, file, r),
        LangRefs::Rust(r) => rust::resolve_file(world, &prepared.rust, file, r),
    };
    add_structural_edges(world, file, &mut res);
    res.edges.sort_by_key(|e| (e.site, e.src, e.kind, e.dst));
    res.edges.dedup();
    res.unresolved
        .sort_by(|a, b| (a.site, &a.name).cmp(&(b.site, &b.name)));
    res
}

/// `contains` from each parent to its children, and `tests` from each test
/// to the non-test code it calls or references directly.
fn add_structural_edges(world: &World, file: FileIdx, res: &mut FileResolution) {
    let heads = world.heads(file);
    for (i, d) in heads.iter().enumerate() {
        if let Some(p) = d.parent {
            res.edges.push(ResolvedEdge {
                src: SymId { file, def: p },
                dst: SymId {
                    file,
                    def: i as u32,
                },
                kind: EdgeKind::Contains,
                strategy: Strategy::Local,
                site: None,
            });
        }
    }
    let mut tests = Vec::new();
    for e in &res.edges {
        if !matches!(e.kind, EdgeKind::Calls | EdgeKind::References) {
            continue;
        }
        if e.src.file != file {
            continue;
        }
        let Some(test) = heads.enclosing_test(e.src.def) else {
            continue;
        };
        let target = world.head(e.dst);
        if matches!(target.kind, NodeKind::Test | NodeKind::Module) {
            continue;
        }
        tests.push(ResolvedEdge {
            src: SymId { file, def: test },
            dst: e.dst,
            kind: EdgeKind::Tests,
            strategy: e.strategy,
            site: e.site,
        });
    }
    res.edges.extend(tests);
}

/// Facts of a file as the indexer holds them, for building a [`World`].
pub fn world_input<'a>(path: &'a str, lang: Lang, facts: &'a FileFacts) -> WorldInput<'a> {
    WorldInput {
        path,
        lang,
        facts: FactsRef::Given {
            defs: &facts.defs,
            scope: &facts.scope,
        },
        module_key: None,
        empty: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, local: &str, kind: NodeKind, parent: Option<u32>, exported: bool) -> Def {
        Def {
            name: name.into(),
            local: local.into(),
            kind,
            parent,
            pos: Pos {
                line: 40_000,
                column: 200,
            },
            start_line: 39_999,
            end_line: 70_000,
            exported,
        }
    }

    /// Definitions read encoded give the heads their decoding gives, and
    /// decode when asked to what was encoded; what postcard rejects as a
    /// `Vec<Def>` is rejected.
    #[test]
    fn definitions_read_encoded_give_their_heads_and_decode_when_asked() {
        let long = "é".repeat(100);
        let many: Vec<Def> = std::iter::once(def("m", "", NodeKind::Module, None, true))
            .chain((1..300).map(|i| {
                let kind = [NodeKind::Class, NodeKind::Method, NodeKind::Test][i % 3];
                def(
                    &format!("n{i}"),
                    &format!("T::n{i}"),
                    kind,
                    Some(i as u32 / 2),
                    i % 2 == 0,
                )
            }))
            .collect();
        for defs in [
            vec![],
            vec![
                def("lib", "", NodeKind::Module, None, true),
                def("Stripe", "Stripe", NodeKind::Class, Some(0), true),
                def(&long, "Stripe::héllo", NodeKind::Method, Some(1), false),
                def(
                    "it_works",
                    "tests::it_works",
                    NodeKind::Test,
                    Some(0),
                    false,
                ),
            ],
            many,
        ] {
            let bytes = postcard::to_allocvec(&defs).unwrap();
            let heads: Vec<DefHead> = defs.iter().map(DefHead::from).collect();
            let owned = Defs::encoded(Encoded::Owned(bytes.clone())).unwrap();
            // Shared: the blob in the middle of other bytes.
            let mut buf = b"before".to_vec();
            buf.extend_from_slice(&bytes);
            buf.extend_from_slice(b"after");
            let range = 6..6 + bytes.len();
            let shared = Defs::encoded(Encoded::Shared(std::sync::Arc::new(buf), range)).unwrap();
            let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
            let names_of = |d: &Defs| {
                let mut out = Vec::new();
                d.each_name(|n| out.push(n.to_string()));
                out
            };
            let kept =
                |d: &Defs| matches!(&d.0, DefsState::Encoded { full, .. } if full.get().is_some());
            for d in [&owned, &shared] {
                assert_eq!(d.heads().iter().collect::<Vec<_>>(), heads);
                // Names and a look at the definitions leave them encoded.
                assert_eq!(names_of(d), names);
                assert!(!kept(d), "decoded for their names");
                let peeked = d.peek();
                assert!(matches!(peeked, std::borrow::Cow::Owned(_)));
                assert_eq!(&peeked[..], &defs[..]);
                assert!(!kept(d), "decoded before asked");
                assert_eq!(d.get(), &defs[..]);
                assert!(kept(d));
                // Once decoded, they are what both give.
                assert!(matches!(d.peek(), std::borrow::Cow::Borrowed(_)));
                assert_eq!(names_of(d), names);
            }
            let decoded = Defs::decoded(defs.clone());
            assert_eq!(decoded.heads().iter().collect::<Vec<_>>(), heads);
            assert_eq!(names_of(&decoded), names);
        }
        let bytes =
            postcard::to_allocvec(&vec![def("ab", "ab", NodeKind::Function, Some(0), true)])
                .unwrap();
        let mut bad_text = bytes.clone();
        bad_text[2] = 0xff;
        for bad in [
            vec![0xff],
            bytes[..bytes.len() - 1].to_vec(),
            bytes[..3].to_vec(),
            bad_text,
        ] {
            assert!(
                Defs::encoded(Encoded::Owned(bad.clone())).is_err(),
                "{bad:?} accepted"
            );
            assert!(postcard::from_bytes::<Vec<Def>>(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn grade_table_orders_strategies() {
        let order = [
            Strategy::Local,
            Strategy::ReExport,
            Strategy::TypedReceiver,
            Strategy::NameUnique,
            Strategy::Member { k: 1 },
            Strategy::Member { k: 2 },
        ];
        let confs: Vec<f64> = order.iter().map(|s| grade(*s).1).collect();
        assert!(confs.windows(2).all(|w| w[0] >= w[1]), "{confs:?}");
        assert_eq!(grade(Strategy::Import), (Status::Syntactic, 0.95));
        assert_eq!(grade(Strategy::Member { k: 3 }), (Status::Inferred, 0.2));
        assert_eq!(
            grade(Strategy::NameAmbiguous { k: 2 }),
            (Status::Inferred, 0.25)
        );
        for s in [
            Strategy::TypedReceiver,
            Strategy::NameUnique,
            Strategy::Member { k: 1 },
        ] {
            let (status, c) = grade(s);
            assert_eq!(status, Status::Inferred);
            assert!(c <= 0.8);
        }
    }

    #[test]
    fn duplicate_keys_get_suffixes() {
        let d = |local: &str| Def {
            name: local.rsplit('.').next().unwrap().to_string(),
            local: local.to_string(),
            kind: NodeKind::Function,
            parent: Some(0),
            pos: Pos { line: 1, column: 1 },
            start_line: 1,
            end_line: 1,
            exported: true,
        };
        let defs = vec![d(""), d("f"), d("f"), d("g"), d("f")];
        let keys = file_keys(Lang::Python, "pkg.m", &defs);
        assert_eq!(
            keys,
            ["pkg.m", "pkg.m.f", "pkg.m.f#2", "pkg.m.g", "pkg.m.f#3"]
        );
        assert_eq!(
            def_key(Lang::Rust, "shop::pay", "Gw::refund"),
            "shop::pay::Gw::refund"
        );
        assert_eq!(def_key(Lang::TypeScript, "src/a.ts", "A.b"), "src/a.ts:A.b");
    }
}
