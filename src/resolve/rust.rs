//! rust: scope and import rules → edges.
//!
//! The module tree comes from the file layout and `Cargo.toml` ([`crate_file`]):
//! `src/a/b.rs` of package `shop` is `shop::a::b`; binaries, tests, examples
//! and benches are crates of their own. [`prepare`] builds the name tables of
//! every module (items, `use` bindings, globs, child modules) and of every
//! type (inherent and trait methods, field and return types); [`sites`]
//! resolves one file's sites with Rust's rules: fn-local items and `use`s,
//! then the module's items and `use`s, then glob imports, then other crates
//! of the workspace; anything else (std, prelude, dependencies) is dropped.
//! A `#[path]` attribute on a file-level `mod x;` names the file it is.

mod index;
mod sites;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, LazyLock, Mutex};

use super::{FileIdx, FileResolution, Layout, World};
use crate::extract::rust::Refs;

pub use index::lookup::NameTable;
pub use index::{FileNames, Index, KnownNames};

/// The Rust index of `world`; `known`: global names an earlier build kept.
pub fn prepare(world: &World, known: Option<KnownNames>) -> Index {
    index::build(world, known)
}

pub fn resolve_file(world: &World, index: &Index, file: FileIdx, refs: &Refs) -> FileResolution {
    sites::resolve(world, index, file, refs)
}

/// `src/a/b.rs` in crate `shop` → `shop::a::b`.
pub fn module_key(path: &str, layout: &Layout) -> String {
    crate_file(path, layout).key
}

/// Where a file sits in the crate structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateFile {
    pub key: String,
    /// The root file of a crate (`lib.rs`, `main.rs`, `src/bin/x.rs`,
    /// `tests/x.rs`, …): its module has no parent.
    pub root: bool,
    /// The root of a library crate others can `use` by name.
    pub lib: bool,
    /// The directory of the package's `Cargo.toml` (`""` at the repo root,
    /// `None` without one).
    pub package_dir: Option<String>,
    /// The package's default features (what rust-analyzer compiles).
    pub features: Arc<[String]>,
    /// The package is of edition 2015 (its manifest names none): a path
    /// written `::a::b` starts at the crate's root, not at a crate `a`.
    pub edition_2015: bool,
    /// The package's name, as a crate name (`-` → `_`).
    pub package: Option<Arc<str>>,
    /// The packages it depends on (normal, dev and build dependencies,
    /// under any target), as crate names.
    pub deps: Arc<[String]>,
}

/// What a `Cargo.toml` says about names and the library path.
struct Manifest {
    package: Option<String>,
    lib_name: Option<String>,
    lib_path: Option<String>,
    bins: Vec<(String, String)>,
    /// Features on by default, `default`'s own list expanded.
    features: Arc<[String]>,
    /// `[package]` names an edition (its own or the workspace's) other
    /// than 2015.
    edition_2018_on: bool,
    /// The packages of its dependency tables (a renamed one by its
    /// `package`), as crate names.
    deps: Arc<[String]>,
}

impl Manifest {
    /// The library's root file, relative to the package.
    fn lib_path(&self) -> &str {
        let p = self.lib_path.as_deref().unwrap_or("src/lib.rs");
        p.strip_prefix("./").unwrap_or(p)
    }
}

/// Parsed manifests by path, with the text they were parsed from: module
/// keys are computed per file, on every thread, and the Rust index asks
/// again on its own.
static MANIFEST_CACHE: LazyLock<Mutex<ManifestCache>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// Manifest path → (the text it was parsed from, what it says).
type ManifestCache = HashMap<String, (String, Arc<Manifest>)>;

fn manifest(path: &str, text: &str) -> Arc<Manifest> {
    // A panic elsewhere while the lock was held leaves a cache that is
    // still consistent (entries are inserted whole).
    let mut cache = MANIFEST_CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((t, m)) = cache.get(path) {
        if t == text {
            return m.clone();
        }
    }
    if cache.len() > 4096 {
        cache.clear();
    }
    let m = Arc::new(parse_manifest(text));
    cache.insert(path.to_string(), (text.to_string(), m.clone()));
    m
}

/// Read the few keys we need; a full TOML parse per file would be wasted.
fn parse_manifest(text: &str) -> Manifest {
    let mut m = Manifest {
        package: None,
        lib_name: None,
        lib_path: None,
        bins: Vec::new(),
        features: Arc::default(),
        edition_2018_on: false,
        deps: Arc::default(),
    };
    let mut deps: Vec<String> = Vec::new();
    let mut features: HashMap<String, Vec<String>> = HashMap::new();
    // A `[features]` array being read: (feature, text so far).
    let mut array: Option<(String, String)> = None;
    let mut section = String::new();
    let mut bin: (Option<String>, Option<String>) = (None, None);
    let flush_bin = |bin: &mut (Option<String>, Option<String>), m: &mut Manifest| {
        if let (Some(n), Some(p)) = (bin.0.take(), bin.1.take()) {
            m.bins.push((n, p));
        }
        *bin = (None, None);
    };
    for raw in text.lines() {
        let line = raw.trim();
        if let Some((name, mut acc)) = array.take() {
            acc.push_str(line.split('#').next().unwrap_or(""));
            if line.contains(']') {
                features.insert(name, quoted(&acc));
            } else {
                array = Some((name, acc));
            }
            continue;
        }
        if line.starts_with('[') {
            if section == "[[bin]]" {
                flush_bin(&mut bin, &mut m);
            }
            section = line.split('#').next().unwrap_or("").trim().replace(' ', "");
            // `[dependencies.foo]`, `[target.'cfg(unix)'.dev-dependencies.foo]`.
            if let Some(name) = dep_table(&section).and_then(|rest| rest.strip_prefix('.')) {
                deps.push(crate_name(name.trim_matches(['"', '\''])));
            }
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim();
        let v = v.trim();
        match dep_table(&section) {
            // `foo = "1"`, `foo = { version = "1", package = "bar" }`,
            // `foo.workspace = true`.
            Some("") => {
                let name = k.split('.').next().unwrap_or(k).trim_matches(['"', '\'']);
                deps.push(crate_name(renamed(v).unwrap_or(name)));
                continue;
            }
            // `package = "bar"` in `[dependencies.foo]`.
            Some(_) if k == "package" => {
                if let (Some(last), Some(real)) = (deps.last_mut(), renamed(line)) {
                    *last = crate_name(real);
                }
                continue;
            }
            _ => {}
        }
        if section == "[features]" && v.starts_with('[') {
            let name = k.trim_matches('"').to_string();
            if v.contains(']') {
                features.insert(name, quoted(v));
            } else {
                array = Some((name, v.to_string()));
            }
            continue;
        }
        if section == "[package]" && (k == "edition" || k.starts_with("edition.")) {
            // `edition = "2021"`, `edition.workspace = true`.
            m.edition_2018_on = !v.contains("2015");
        }
        if !v.starts_with('"') && !v.starts_with('\'') {
            continue;
        }
        let v = v[1..].split(['"', '\'']).next().unwrap_or("").to_string();
        match (section.as_str(), k) {
            ("[package]", "name") => m.package = Some(v),
            ("[lib]", "name") => m.lib_name = Some(v),
            ("[lib]", "path") => m.lib_path = Some(v),
            ("[[bin]]", "name") => bin.0 = Some(v),
            ("[[bin]]", "path") => bin.1 = Some(v),
            _ => {}
        }
    }
    if section == "[[bin]]" {
        flush_bin(&mut bin, &mut m);
    }
    // `default = ["std"]`, `std = ["alloc", "dep:x", "y/z"]`: local features only.
    let mut on: Vec<String> = Vec::new();
    let mut todo = vec!["default".to_string()];
    while let Some(f) = todo.pop() {
        for g in features.get(&f).into_iter().flatten() {
            if !g.contains(['/', ':']) && !on.contains(g) {
                on.push(g.clone());
                todo.push(g.clone());
            }
        }
    }
    on.sort();
    m.features = on.into();
    deps.sort();
    deps.dedup();
    m.deps = deps.into();
    m
}

/// What follows the dependency-table name in a section header
/// (`[dependencies]` → `""`, `[dev-dependencies.foo]` → `".foo"`), for
/// the tables of a package (not `[workspace.dependencies]`).
fn dep_table(section: &str) -> Option<&str> {
    let inner = section.strip_prefix('[')?.strip_suffix(']')?;
    let inner = match inner.strip_prefix("target.") {
        // The target's cfg may itself hold dots: the table name follows
        // its closing quote.
        Some(t) if t.starts_with(['\'', '"']) => {
            let q = t.as_bytes()[0];
            let mut escaped = false;
            let end = t.bytes().enumerate().skip(1).find_map(|(i, b)| {
                let close = b == q && !(escaped && q == b'"');
                escaped = b == b'\\' && !escaped;
                close.then_some(i + 1)
            })?;
            t[end..].strip_prefix('.')?
        }
        Some(t) => t.split_once('.')?.1,
        None => inner,
    };
    ["dependencies", "dev-dependencies", "build-dependencies"]
        .into_iter()
        .find_map(|d| inner.strip_prefix(d))
        .filter(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The `package = "…"` a dependency's value or line names.
fn renamed(text: &str) -> Option<&str> {
    let at = text.find("package")?;
    let rest = text[at + "package".len()..]
        .trim_start()
        .strip_prefix('=')?;
    let rest = rest.trim_start().strip_prefix(['"', '\''])?;
    rest.split(['"', '\'']).next()
}

/// The quoted strings of a TOML array's text.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn crate_name(s: &str) -> String {
    s.replace('-', "_")
}

/// `a/b.rs` → `a::b`, `a/mod.rs` → `a`.
fn mod_path(rest: &str) -> String {
    let rest = rest.strip_suffix(".rs").unwrap_or(rest);
    let rest = rest.strip_suffix("/mod").unwrap_or(rest);
    rest.replace('/', "::").replace('-', "_")
}

/// The crate key and role of a `.rs` file (see [`CrateFile`]).
pub fn crate_file(path: &str, layout: &Layout) -> CrateFile {
    Packages::new(layout).crate_file(path)
}

/// [`crate_file`] for many files of one layout: the package owning each
/// directory is looked up once (walking up to the nearest `Cargo.toml`
/// with a `[package]`), not once per file.
pub struct Packages<'l> {
    layout: &'l Layout,
    /// Directory → its package's directory and manifest.
    by_dir: RefCell<HashMap<String, Option<Package>>>,
}

/// A package as [`Packages`] found it.
#[derive(Clone)]
struct Package {
    dir: Rc<str>,
    /// The `[package]` name.
    name: Rc<str>,
    manifest: Arc<Manifest>,
    /// Whether the library's root file exists.
    has_lib: bool,
}

impl<'l> Packages<'l> {
    pub fn new(layout: &'l Layout) -> Self {
        Packages {
            layout,
            by_dir: RefCell::new(HashMap::new()),
        }
    }

    fn package(&self, dir: &str) -> Option<Package> {
        if let Some(hit) = self.by_dir.borrow().get(dir) {
            return hit.clone();
        }
        let manifest = if dir.is_empty() {
            "Cargo.toml".to_string()
        } else {
            format!("{dir}/Cargo.toml")
        };
        let here = self
            .layout
            .manifests
            .get(&manifest)
            .map(|text| self::manifest(&manifest, text))
            .and_then(|m| Some((Rc::<str>::from(m.package.as_deref()?), m)));
        let found = match here {
            Some((name, manifest)) => {
                let lib_full = if dir.is_empty() {
                    manifest.lib_path().to_string()
                } else {
                    format!("{dir}/{}", manifest.lib_path())
                };
                Some(Package {
                    dir: Rc::from(dir),
                    name,
                    has_lib: self.layout.files.contains(&lib_full),
                    manifest,
                })
            }
            None if dir.is_empty() => None,
            None => self.package(dir.rsplit_once('/').map_or("", |(d, _)| d)),
        };
        self.by_dir
            .borrow_mut()
            .insert(dir.to_string(), found.clone());
        found
    }

    pub fn crate_file(&self, path: &str) -> CrateFile {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let Some(p) = self.package(dir) else {
            return fallback(path);
        };
        let rel = if p.dir.is_empty() {
            path
        } else {
            &path[p.dir.len() + 1..]
        };
        let mut f = in_package(rel, &p.name, &p.manifest, p.has_lib);
        f.package_dir = Some(p.dir.to_string());
        f.features = p.manifest.features.clone();
        f.edition_2015 = !p.manifest.edition_2018_on;
        f.package = Some(Arc::from(crate_name(&p.name)));
        f.deps = p.manifest.deps.clone();
        f
    }
}

/// The role of the file at `rel` in package `pkg` (`has_lib`: the
/// library's root file exists).
fn in_package(rel: &str, pkg: &str, m: &Manifest, has_lib: bool) -> CrateFile {
    let lib_path = m.lib_path();
    let lib_name = crate_name(m.lib_name.as_deref().unwrap_or(pkg));
    let root = |key: String, lib: bool| CrateFile {
        key,
        root: true,
        lib,
        package_dir: None,
        features: Arc::default(),
        edition_2015: false,
        package: None,
        deps: Arc::default(),
    };
    let module = |key: String| CrateFile {
        key,
        root: false,
        lib: false,
        package_dir: None,
        features: Arc::default(),
        edition_2015: false,
        package: None,
        deps: Arc::default(),
    };
    if rel == lib_path {
        return root(lib_name, true);
    }
    if rel == "src/main.rs" {
        return root(crate_name(pkg), false);
    }
    for (name, p) in &m.bins {
        if rel == p.strip_prefix("./").unwrap_or(p) {
            return root(crate_name(name), false);
        }
    }
    for target_dir in ["src/bin/", "tests/", "examples/", "benches/"] {
        let Some(rest) = rel.strip_prefix(target_dir) else {
            continue;
        };
        return match rest.split_once('/') {
            None => root(mod_path(rest), false),
            Some((first, "main.rs")) => root(crate_name(first), false),
            // `tests/common/mod.rs`: a module of each test crate declaring it.
            Some((first, "mod.rs")) if target_dir != "src/bin/" => module(crate_name(first)),
            Some((first, tail)) => module(format!("{}::{}", crate_name(first), mod_path(tail))),
        };
    }
    if let Some(rest) = rel.strip_prefix("src/") {
        let declared = m.lib_name.is_some() || m.lib_path.is_some();
        let name = if declared || has_lib {
            lib_name
        } else {
            crate_name(pkg)
        };
        return module(format!("{name}::{}", mod_path(rest)));
    }
    if !rel.contains('/') {
        // `build.rs` and friends: crates of their own.
        return root(mod_path(rel), false);
    }
    module(mod_path(rel))
}

/// No `Cargo.toml` above: `x/src/a/b.rs` → `x::a::b`, else the path.
fn fallback(path: &str) -> CrateFile {
    let segs: Vec<&str> = path.split('/').collect();
    let (krate, rest): (Option<&str>, &[&str]) = match segs.iter().rposition(|s| *s == "src") {
        Some(i) => (i.checked_sub(1).map(|j| segs[j]), &segs[i + 1..]),
        None => (None, &segs[..]),
    };
    let is_root = matches!(rest, ["lib.rs"] | ["main.rs"]);
    let mut key = krate.map(crate_name).unwrap_or_default();
    if !is_root {
        let m = mod_path(&rest.join("/"));
        if key.is_empty() {
            key = m;
        } else {
            key = format!("{key}::{m}");
        }
    } else if key.is_empty() {
        key = "crate".to_string();
    }
    CrateFile {
        key,
        root: is_root || !path.contains('/'),
        lib: is_root && rest == ["lib.rs"],
        package_dir: None,
        features: Arc::default(),
        edition_2015: false,
        package: None,
        deps: Arc::default(),
    }
}
