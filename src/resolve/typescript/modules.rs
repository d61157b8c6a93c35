//! Module specifiers → files, the way TypeScript's bundler/node resolution
//! finds them in a repository: relative paths with extension probing
//! (`./x.js` written in ESM TypeScript means `./x.ts`), `index` files,
//! tsconfig `baseUrl` / `paths` (JSONC, `extends` followed within the
//! repository), and `package.json` names of in-repo packages (monorepos and a
//! package importing itself by name), through the package's `exports` map
//! when it has one. Anything else is an external package.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::resolve::{FileIdx, Layout, PathIndex};

/// What a specifier resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    File(FileIdx),
    /// A package or file outside the repository (or not indexed).
    External,
}

const EXTS: [&str; 9] = [
    ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
];

#[derive(Clone, Debug, Default)]
struct TsConfig {
    /// Repo-relative directory `baseUrl` points at.
    base_url: Option<String>,
    /// `paths` patterns and their targets, targets already joined with the
    /// directory they are relative to; longest prefix first.
    paths: Vec<(String, Vec<String>)>,
    /// `customConditions`: more `exports` conditions to match.
    conditions: Vec<String>,
}

#[derive(Clone, Debug)]
struct Package {
    name: String,
    dir: String,
    /// `types`, `typings`, `source`, `module`, `main`, each with whether
    /// TypeScript reads that field (not `source` nor `module`).
    entries: Vec<(String, bool)>,
    exports: Option<Exports>,
    /// [`source_conditions`]: used when no tsconfig decides.
    source_conditions: Vec<String>,
}

/// A `package.json` `exports` value, with object keys in file order (the
/// order decides which condition wins).
#[derive(Clone, Debug, PartialEq)]
enum Exports {
    Path(String),
    /// Fallbacks, tried in order.
    List(Vec<Exports>),
    /// Subpaths (`"./x"`) or conditions (`"types"`, `"import"`, …).
    Map(Vec<(String, Exports)>),
    /// `null` (a blocked subpath) or anything unusable.
    None,
}

impl<'de> serde::Deserialize<'de> for Exports {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Exports, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Exports;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a package.json exports value")
            }
            fn visit_str<E>(self, v: &str) -> Result<Exports, E> {
                Ok(Exports::Path(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<Exports, E> {
                Ok(Exports::None)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Exports, E> {
                Ok(Exports::None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Exports, E> {
                Ok(Exports::None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Exports, E> {
                Ok(Exports::None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Exports, E> {
                Ok(Exports::None)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Exports, A::Error> {
                let mut out = Vec::new();
                while let Some(e) = a.next_element()? {
                    out.push(e);
                }
                Ok(Exports::List(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Exports, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Exports>()? {
                    out.push((k, v));
                }
                Ok(Exports::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// The conditions TypeScript matches in `exports` when resolving types
/// (`default` always matches). TypeScript takes `import` or `require` by
/// the importing file's module kind; both are accepted here, so the first
/// of them in the file wins, as it does for an ESM-only or CJS-only map.
const CONDITIONS: [&str; 5] = ["types", "import", "require", "node", "default"];

impl Exports {
    /// The targets `exports` maps the subpath (`"."`, `"./x"`) to, `*`
    /// substituted, in the order TypeScript tries them (an `imports` map
    /// the same for its `#x` keys).
    fn lookup(&self, subpath: &str, custom: &[String], require: bool) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Exports::Map(m) if m.iter().any(|(k, _)| k.starts_with(['.', '#'])) => {
                if let Some((_, v)) = m.iter().find(|(k, _)| k == subpath) {
                    v.targets("", custom, require, &mut out);
                    return out;
                }
                // Patterns: the longest prefix before `*` wins.
                let best = m
                    .iter()
                    .filter_map(|(k, v)| {
                        let star = match_pattern(k, subpath)?;
                        k.contains('*')
                            .then_some((k.find('*').unwrap_or(0), star, v))
                    })
                    .max_by_key(|(pre, _, _)| *pre);
                if let Some((_, star, v)) = best {
                    v.targets(star, custom, require, &mut out);
                }
            }
            // Sugar for `{ ".": … }`.
            e if subpath == "." => e.targets("", custom, require, &mut out),
            _ => {}
        }
        out
    }

    /// (`require`: for a `require()` call, which the `import` condition
    /// does not match.)
    fn targets(&self, star: &str, custom: &[String], require: bool, out: &mut Vec<String>) {
        match self {
            Exports::Path(p) => out.push(p.replace('*', star)),
            Exports::List(l) => l.iter().for_each(|e| e.targets(star, custom, require, out)),
            Exports::Map(m) => {
                for (k, v) in m {
                    let matches = CONDITIONS.contains(&k.as_str()) && !(require && k == "import");
                    if matches || custom.contains(k) {
                        v.targets(star, custom, require, out);
                    }
                }
            }
            Exports::None => {}
        }
    }
}

/// The export conditions of a `package.json` that point at TypeScript source
/// files (zod's `"@zod/source": "./src/index.ts"`), sorted: the package's own
/// way to say where its sources are. Declared as `customConditions`, they
/// make the package's imports of itself (`import … from "zod/v4/core"`)
/// resolve to its sources instead of the declarations it ships beside them.
/// Conditions TypeScript applies anyway (`types`, `import`, `require`,
/// `default`) are left out.
pub fn source_conditions(package: &serde_json::Value) -> Vec<String> {
    fn is_source(target: &str) -> bool {
        let declaration = [".d.ts", ".d.mts", ".d.cts"]
            .iter()
            .any(|e| target.ends_with(e));
        !declaration
            && [".ts", ".tsx", ".mts", ".cts"]
                .iter()
                .any(|e| target.ends_with(e))
    }
    fn walk(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    let is_condition = !key.starts_with('.')
                        && !["types", "typings", "import", "require", "default"]
                            .contains(&key.as_str());
                    if is_condition && value.as_str().is_some_and(is_source) {
                        out.insert(key.clone());
                    }
                    walk(value, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    if let Some(exports) = package.get("exports") {
        walk(exports, &mut out);
    }
    out.into_iter().collect()
}

/// The files on disk, not indexed, in the folders a `package.json` of
/// `layout` names as its `exports` targets or its `types`, `typings` or
/// `main` (`dist/` of `./dist/index.d.ts`, `./dist/*.js`, `"main":
/// "dist/index"`): build output in a package published with its sources.
/// TypeScript resolves the package's own name (`import … from
/// '@reduxjs/toolkit'` in its tests) to those; where they do not exist, the
/// graph links to the sources they are built from. At most
/// [`MAX_BUILT`] files are listed.
pub fn built_outputs(root: &std::path::Path, layout: &Layout) -> BTreeSet<String> {
    fn strings<'v>(v: &'v serde_json::Value, out: &mut Vec<&'v str>) {
        match v {
            serde_json::Value::String(s) => out.push(s),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut folders = BTreeSet::new();
    for (path, text) in &layout.manifests {
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
        if file != "package.json" {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&clean_jsonc(text)) else {
            continue;
        };
        let mut named = Vec::new();
        for field in ["types", "typings", "main"] {
            if let Some(e) = v.get(field).and_then(|e| e.as_str()) {
                named.push(e);
            }
        }
        if let Some(e) = v.get("exports") {
            strings(e, &mut named);
        }
        for t in named {
            // The folder before any `*`; a target that is a folder itself.
            let p = join(dir, t.split('*').next().unwrap_or(t));
            if p.starts_with("../") {
                continue;
            }
            let folder = if !p.ends_with('/') && root.join(&p).is_dir() {
                p
            } else {
                p.rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_string())
            };
            // Not the package's own folder: a file beside package.json is
            // looked at alone.
            if folder.trim_end_matches('/') == dir {
                let f = join(dir, t);
                if !layout.files.contains(&f) && root.join(&f).is_file() {
                    folders.insert(f);
                }
                continue;
            }
            folders.insert(folder.trim_end_matches('/').to_string());
        }
    }
    let mut built = BTreeSet::new();
    for f in folders {
        let abs = root.join(&f);
        if abs.is_file() {
            built.insert(f);
            continue;
        }
        // A folder the walk indexes (`"main": "lib/index.js"` beside the
        // sources) holds sources, not build output: not read again on
        // every update.
        let prefix = format!("{f}/");
        if layout
            .files
            .range(prefix.clone()..)
            .next()
            .is_some_and(|p| p.starts_with(&prefix))
        {
            continue;
        }
        let mut stack = vec![(abs, f)];
        while let Some((abs, rel)) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&abs) else {
                continue;
            };
            for e in rd.flatten() {
                let Ok(name) = e.file_name().into_string() else {
                    continue;
                };
                let r = format!("{rel}/{name}");
                match e.file_type() {
                    Ok(t) if t.is_dir() => stack.push((e.path(), r)),
                    Ok(t) if t.is_file() && !layout.files.contains(&r) => {
                        built.insert(r);
                        if built.len() >= MAX_BUILT {
                            return built;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    built
}

/// How many build output files [`built_outputs`] lists at most.
const MAX_BUILT: usize = 50_000;

pub struct Modules {
    /// Directory ("" = root) → its tsconfig.json.
    tsconfigs: HashMap<String, TsConfig>,
    /// Longest name first.
    packages: Vec<Package>,
    /// Directory of a `package.json` → what importing the directory itself
    /// reads (`require('..')`): its `types`, `typings` and `main`.
    dir_entries: HashMap<String, Vec<String>>,
    /// [`Layout::built`].
    built: BTreeSet<String>,
    /// Each `package.json`'s folder, with its `imports` map (`"#x":
    /// "./src/x.js"`) if it has one: a `#` specifier is looked up in the
    /// nearest `package.json` above the importing file.
    scopes: HashMap<String, Option<Exports>>,
}

impl Modules {
    pub fn new(layout: &Layout) -> Modules {
        let mut raw: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        let mut packages = Vec::new();
        let mut dir_entries = HashMap::new();
        let mut scopes = HashMap::new();
        for (path, text) in &layout.manifests {
            let (dir, file) = match path.rsplit_once('/') {
                Some((d, f)) => (d.to_string(), f),
                None => (String::new(), path.as_str()),
            };
            match file {
                "tsconfig.json" => {
                    if let Some(v) = parse_jsonc(text) {
                        raw.insert(path.clone(), v);
                    }
                }
                "package.json" => {
                    let clean = clean_jsonc(text);
                    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&clean) else {
                        continue;
                    };
                    let dir_entry: Vec<String> = ["types", "typings", "main"]
                        .iter()
                        .filter_map(|f| v.get(*f).and_then(|e| e.as_str()))
                        .map(|e| join(&dir, e))
                        .collect();
                    if !dir_entry.is_empty() {
                        dir_entries.insert(dir.clone(), dir_entry);
                    }
                    // The two maps, keys in file order (a `Value` sorts them).
                    #[derive(serde::Deserialize)]
                    struct Maps {
                        exports: Option<Exports>,
                        imports: Option<Exports>,
                    }
                    let maps = serde_json::from_slice::<Maps>(&clean).ok();
                    let (exports, imports) = maps.map_or((None, None), |m| (m.exports, m.imports));
                    scopes.insert(dir.clone(), imports);
                    let Some(name) = v.get("name").and_then(|n| n.as_str()) else {
                        continue;
                    };
                    let mut entries = Vec::new();
                    for field in ["types", "typings", "source", "module", "main"] {
                        if let Some(e) = v.get(field).and_then(|e| e.as_str()) {
                            let read = !matches!(field, "source" | "module");
                            entries.push((join(&dir, e), read));
                        }
                    }
                    packages.push(Package {
                        name: name.to_string(),
                        dir,
                        entries,
                        exports,
                        source_conditions: source_conditions(&v),
                    });
                }
                _ => {}
            }
        }
        packages.sort_by(|a, b| b.name.len().cmp(&a.name.len()).then(a.name.cmp(&b.name)));
        let mut tsconfigs = HashMap::new();
        for path in raw.keys() {
            let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
            tsconfigs.insert(dir.to_string(), tsconfig(&raw, path, 0));
        }
        Modules {
            tsconfigs,
            packages,
            dir_entries,
            built: layout.built.clone(),
            scopes,
        }
    }

    /// Resolve `spec` written in the file at `from`.
    pub fn resolve(&self, files: &PathIndex, from: &str, spec: &str) -> Target {
        self.resolve_as(files, from, spec, false)
    }

    /// What `require(spec)` in file `from` loads: as [`Self::resolve`],
    /// but a package's `import` condition does not match (zustand's CJS
    /// build requires `zustand/vanilla`, whose `import` branch is its ESM
    /// build).
    pub fn resolve_require(&self, files: &PathIndex, from: &str, spec: &str) -> Target {
        self.resolve_as(files, from, spec, true)
    }

    fn resolve_as(&self, files: &PathIndex, from: &str, spec: &str, require: bool) -> Target {
        let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            // A file first, then a directory: its package.json's entry
            // (`require('..')` of a package), then its index.
            let path = join(dir, spec);
            let entry = || {
                self.dir_entries
                    .get(path.trim_end_matches('/'))
                    .and_then(|es| es.iter().find_map(|e| probe(files, e)))
            };
            return probe_file(files, &path)
                .or_else(entry)
                .or_else(|| probe_index(files, &path))
                .map_or(Target::External, Target::File);
        }
        if spec.starts_with('/') || spec.contains(':') {
            return Target::External;
        }
        if spec.starts_with('#') {
            return self.subpath_import(files, dir, spec, require);
        }
        if let Some(cfg) = self.tsconfig_for(dir) {
            for (pattern, targets) in &cfg.paths {
                let Some(star) = match_pattern(pattern, spec) else {
                    continue;
                };
                for t in targets {
                    let candidate = t.replacen('*', star, 1);
                    if let Some(f) = probe(files, &candidate) {
                        return Target::File(f);
                    }
                }
            }
            if let Some(base) = &cfg.base_url {
                if let Some(f) = probe(files, &join(base, spec)) {
                    return Target::File(f);
                }
            }
        }
        for p in &self.packages {
            let rest = if spec == p.name {
                ""
            } else if let Some(r) = spec
                .strip_prefix(p.name.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                r
            } else {
                continue;
            };
            if let Some(exports) = &p.exports {
                // `exports` is all TypeScript consults when present. Its
                // targets are usually build output (`./dist/x.js`): the
                // declaration or source beside it if indexed, else the
                // source it was built from (below).
                let subpath = if rest.is_empty() {
                    ".".to_string()
                } else {
                    format!("./{rest}")
                };
                // A tsconfig's `customConditions`; without one, the
                // conditions under which the package exports its own
                // TypeScript sources (zod's `@zod/source`), as the bridge
                // declares them to tsserver for a root with no tsconfig.
                let custom = match self.tsconfig_for(dir) {
                    Some(c) => c.conditions.as_slice(),
                    None => p.source_conditions.as_slice(),
                };
                if let Some(t) = self.mapped(files, exports, &subpath, custom, &p.dir, require) {
                    return t;
                }
            }
            if rest.is_empty() {
                // In the order TypeScript reads them: an indexed entry, else
                // build output that is there (outside the graph), else the
                // source it is built from.
                for (e, read) in &p.entries {
                    if let Some(f) = probe(files, e) {
                        return Target::File(f);
                    }
                    if *read && p.exports.is_none() && self.is_built(e) {
                        return Target::External;
                    }
                    if let Some(f) = built_from(files, &p.dir, e) {
                        return Target::File(f);
                    }
                }
                for cand in [join(&p.dir, "src/index"), join(&p.dir, "index")] {
                    if let Some(f) = probe(files, &cand) {
                        return Target::File(f);
                    }
                }
            } else {
                for cand in [join(&p.dir, &format!("src/{rest}")), join(&p.dir, rest)] {
                    if let Some(f) = probe(files, &cand) {
                        return Target::File(f);
                    }
                }
            }
            return Target::External;
        }
        Target::External
    }

    /// `#x` written in a file of folder `dir`: what the `imports` map of
    /// the nearest `package.json` above it says, probed as a package's
    /// `exports` targets are (outside the graph when the nearest has no
    /// such key, as for TypeScript).
    fn subpath_import(&self, files: &PathIndex, dir: &str, spec: &str, require: bool) -> Target {
        let mut d = dir;
        let (scope, imports) = loop {
            if let Some(imports) = self.scopes.get(d) {
                break (d, imports);
            }
            match d.rsplit_once('/') {
                Some((up, _)) => d = up,
                None if !d.is_empty() => d = "",
                None => return Target::External,
            }
        };
        let Some(imports) = imports else {
            return Target::External;
        };
        let custom = self
            .tsconfig_for(dir)
            .map_or(&[][..], |c| c.conditions.as_slice());
        self.mapped(files, imports, spec, custom, scope, require)
            .unwrap_or(Target::External)
    }

    /// What an `exports` or `imports` map of the `package.json` in folder
    /// `dir` maps `key` to: an indexed target (or the declaration or source
    /// beside it), else outside the graph when the build output it names is
    /// there but not indexed (what TypeScript reads), else the source that
    /// output is built from; `None` when it maps `key` to nothing known.
    fn mapped(
        &self,
        files: &PathIndex,
        map: &Exports,
        key: &str,
        custom: &[String],
        dir: &str,
        require: bool,
    ) -> Option<Target> {
        let targets: Vec<String> = map
            .lookup(key, custom, require)
            .iter()
            .map(|t| join(dir, t))
            .collect();
        if let Some(f) = targets.iter().find_map(|t| probe(files, t)) {
            return Some(Target::File(f));
        }
        if targets.iter().any(|t| self.is_built(t)) {
            return Some(Target::External);
        }
        targets
            .iter()
            .find_map(|t| built_from(files, dir, t))
            .map(Target::File)
    }

    /// Whether `path` names build output on disk (see [`built_outputs`]):
    /// the file, its declaration (`x.js` → `x.d.ts`), or with an extension
    /// or `index` added as TypeScript probes (`"main": "dist/index"`).
    fn is_built(&self, path: &str) -> bool {
        let has = |p: &str| self.built.contains(p);
        if has(path) {
            return true;
        }
        for (js, dts) in [(".js", ".d.ts"), (".mjs", ".d.mts"), (".cjs", ".d.cts")] {
            if let Some(stem) = path.strip_suffix(js) {
                if has(&format!("{stem}{dts}")) {
                    return true;
                }
            }
        }
        let bare = path.trim_end_matches('/');
        [".d.ts", ".ts", ".js", "/index.d.ts", "/index.js"]
            .iter()
            .any(|x| has(&format!("{bare}{x}")))
    }

    fn tsconfig_for(&self, dir: &str) -> Option<&TsConfig> {
        let mut d = dir;
        loop {
            if let Some(c) = self.tsconfigs.get(d) {
                return Some(c);
            }
            if d.is_empty() {
                return None;
            }
            d = d.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        }
    }
}

/// The source file a build output path of the package in `dir` was built
/// from: `dist/index.js` (or `dist/esm/index.d.ts`) from `src/index.ts`.
fn built_from(files: &PathIndex, dir: &str, path: &str) -> Option<FileIdx> {
    const OUT: [&str; 6] = ["dist/", "lib/", "build/", "out/", "esm/", "cjs/"];
    let mut tail = path.strip_prefix(dir)?.trim_start_matches('/');
    let mut stripped = false;
    while let Some(t) = OUT.iter().find_map(|o| tail.strip_prefix(o)) {
        tail = t;
        stripped = true;
    }
    // `dts/` under an output folder holds declarations.
    if stripped {
        tail = tail.strip_prefix("dts/").unwrap_or(tail);
    }
    if !stripped {
        return None;
    }
    let tail = [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .find_map(|x| tail.strip_suffix(x))
        .unwrap_or(tail);
    probe(files, &join(dir, &format!("src/{tail}")))
}

/// A tsconfig's effective `baseUrl`/`paths`, following `extends` within the
/// collected manifests.
fn tsconfig(raw: &BTreeMap<String, serde_json::Value>, path: &str, depth: u32) -> TsConfig {
    let Some(v) = raw.get(path) else {
        return TsConfig::default();
    };
    let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let mut cfg = TsConfig::default();
    if depth < 8 {
        if let Some(ext) = v.get("extends").and_then(|e| e.as_str()) {
            if ext.starts_with('.') {
                let mut p = join(dir, ext);
                if !p.ends_with(".json") {
                    p.push_str(".json");
                }
                cfg = tsconfig(raw, &p, depth + 1);
            }
        }
    }
    let opts = v.get("compilerOptions");
    let base_url = opts
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .map(|b| join(dir, b));
    if base_url.is_some() {
        cfg.base_url = base_url;
    }
    if let Some(c) = opts
        .and_then(|o| o.get("customConditions"))
        .and_then(|c| c.as_array())
    {
        cfg.conditions = c
            .iter()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect();
    }
    if let Some(paths) = opts
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
    {
        let rel = cfg.base_url.clone().unwrap_or_else(|| dir.to_string());
        let mut list: Vec<(String, Vec<String>)> = paths
            .iter()
            .map(|(k, v)| {
                let targets = v
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|t| t.as_str())
                            .map(|t| join(&rel, t))
                            .collect()
                    })
                    .unwrap_or_default();
                (k.clone(), targets)
            })
            .collect();
        list.sort_by(|a, b| {
            let pa = a.0.find('*').unwrap_or(a.0.len());
            let pb = b.0.find('*').unwrap_or(b.0.len());
            pb.cmp(&pa).then(a.0.cmp(&b.0))
        });
        cfg.paths = list;
    }
    cfg
}

/// `@app/*` against `@app/x/y` → `x/y`; exact patterns match themselves.
fn match_pattern<'a>(pattern: &str, spec: &'a str) -> Option<&'a str> {
    match pattern.split_once('*') {
        None => (pattern == spec).then_some(""),
        Some((pre, suf)) => {
            let rest = spec.strip_prefix(pre)?;
            let star = rest.strip_suffix(suf)?;
            Some(star)
        }
    }
}

/// The indexed file a path (without or with extension) names.
fn probe(files: &PathIndex, base: &str) -> Option<FileIdx> {
    probe_file(files, base).or_else(|| probe_index(files, base))
}

/// `base` as a file: as written, its TypeScript twin, or with an extension.
fn probe_file(files: &PathIndex, base: &str) -> Option<FileIdx> {
    let base = base.trim_end_matches('/');
    // ESM TypeScript writes the emitted name: `./x.js` is `./x.ts`. The
    // TypeScript file (or declaration) wins over the JavaScript one beside
    // it, as in TypeScript's own resolution.
    let swaps: &[(&str, &[&str])] = &[
        (".js", &[".ts", ".tsx", ".d.ts"]),
        (".jsx", &[".tsx"]),
        (".mjs", &[".mts", ".d.mts"]),
        (".cjs", &[".cts", ".d.cts"]),
    ];
    for (ext, alts) in swaps {
        if let Some(stem) = base.strip_suffix(ext) {
            for alt in *alts {
                if let Some(f) = files.get(format!("{stem}{alt}").as_str()) {
                    return Some(*f);
                }
            }
        }
    }
    if let Some(f) = files.get(base) {
        return Some(*f);
    }
    for ext in EXTS {
        if let Some(f) = files.get(format!("{base}{ext}").as_str()) {
            return Some(*f);
        }
    }
    None
}

/// `base` as a directory: its index file.
fn probe_index(files: &PathIndex, base: &str) -> Option<FileIdx> {
    let base = base.trim_end_matches('/');
    for ext in EXTS {
        let p = if base.is_empty() {
            format!("index{ext}")
        } else {
            format!("{base}/index{ext}")
        };
        if let Some(f) = files.get(p.as_str()) {
            return Some(*f);
        }
    }
    None
}

/// Join a repo-relative directory and a relative path, normalising `.`/`..`.
pub fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = if rel.starts_with('/') {
        Vec::new()
    } else {
        dir.split('/').filter(|s| !s.is_empty()).collect()
    };
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// JSON with comments and trailing commas (tsconfig's dialect).
pub fn parse_jsonc(text: &str) -> Option<serde_json::Value> {
    serde_json::from_slice(&clean_jsonc(text)).ok()
}

/// JSONC text as plain JSON bytes.
fn clean_jsonc(text: &str) -> Vec<u8> {
    let stripped = strip_comments(text.as_bytes());
    // Drop commas followed (after whitespace) by `}` or `]`.
    let b = &stripped;
    let mut out = Vec::with_capacity(b.len());
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
            out.push(c);
        } else if c == b',' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if !(j < b.len() && (b[j] == b'}' || b[j] == b']')) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// Remove `//` and `/* */` comments outside strings.
fn strip_comments(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                out.push(c);
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes each of `paths` (with its folders) under `root`.
    fn touch(root: &std::path::Path, paths: &[&str]) {
        for p in paths {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "export {}\n").unwrap();
        }
    }

    #[test]
    fn jsonc_with_comments_and_trailing_commas() {
        let v = parse_jsonc(
            r#"{
  // line comment
  "compilerOptions": { /* block */ "baseUrl": ".", "paths": { "@/*": ["src/*",], /* c */ }, },
  "x": "http://not-a-comment",
}"#,
        )
        .unwrap();
        assert_eq!(v["compilerOptions"]["baseUrl"], ".");
        assert_eq!(v["x"], "http://not-a-comment");
    }

    #[test]
    fn joins_and_matches() {
        assert_eq!(join("src/a", "../b/c"), "src/b/c");
        assert_eq!(join("", "./x"), "x");
        assert_eq!(match_pattern("@/*", "@/auth/x"), Some("auth/x"));
        assert_eq!(match_pattern("@/*", "react"), None);
        assert_eq!(match_pattern("exact", "exact"), Some(""));
    }

    #[test]
    fn probes_extensions_and_index() {
        let files: PathIndex = [
            ("src/a.ts", FileIdx(0)),
            ("src/b/index.tsx", FileIdx(1)),
            ("src/c.mts", FileIdx(2)),
            ("lib/d.js", FileIdx(3)),
        ]
        .into_iter()
        .collect();
        assert_eq!(probe(&files, "src/a"), Some(FileIdx(0)));
        assert_eq!(probe(&files, "src/a.js"), Some(FileIdx(0)));
        assert_eq!(probe(&files, "src/b"), Some(FileIdx(1)));
        assert_eq!(probe(&files, "src/c.mjs"), Some(FileIdx(2)));
        assert_eq!(probe(&files, "lib/d.js"), Some(FileIdx(3)));
        // Built output beside its declaration: the declaration is what
        // TypeScript reads (zod's `v4/index.d.cts` re-exports
        // `./classic/index.cjs`, meaning `./classic/index.d.cts`).
        let files: PathIndex = [
            ("v4/classic/index.cjs", FileIdx(0)),
            ("v4/classic/index.d.cts", FileIdx(1)),
            ("lib/x.js", FileIdx(2)),
            ("lib/x.ts", FileIdx(3)),
        ]
        .into_iter()
        .collect();
        assert_eq!(probe(&files, "v4/classic/index.cjs"), Some(FileIdx(1)));
        assert_eq!(probe(&files, "lib/x.js"), Some(FileIdx(3)));
        assert_eq!(probe(&files, "src/zz"), None);
    }

    #[test]
    fn a_package_s_name_resolves_to_its_build_output_when_it_is_there() {
        // @reduxjs/toolkit as published: `src/` and `dist/`, whose tests
        // import the package by name. tsserver reads `dist/index.d.ts`
        // (not indexed: `dist` is skipped); only without it is the name the
        // source it was built from. Measured: 2,706 edges into `src/` that
        // tsserver refuted.
        let dir = tempfile::tempdir().unwrap();
        let mut layout = Layout::default();
        layout.manifests.insert(
            "package.json".into(),
            r#"{ "name": "@rtk/kit", "types": "dist/index.d.ts",
                 "exports": { ".": { "types": "./dist/index.d.ts", "default": "./dist/cjs/index.js" } } }"#
                .into(),
        );
        layout.manifests.insert(
            "sub/package.json".into(),
            r#"{ "name": "@rtk/sub", "types": "dist/index.d.ts" }"#.into(),
        );
        layout.files.insert("src/index.ts".into());
        layout.files.insert("sub/src/index.ts".into());
        let files: PathIndex = [
            ("src/index.ts", FileIdx(0)),
            ("sub/src/index.ts", FileIdx(1)),
        ]
        .into_iter()
        .collect();
        let resolve =
            |layout: &Layout, spec| Modules::new(layout).resolve(&files, "src/t.ts", spec);
        assert!(built_outputs(dir.path(), &layout).is_empty());
        assert_eq!(resolve(&layout, "@rtk/kit"), Target::File(FileIdx(0)));
        assert_eq!(resolve(&layout, "@rtk/sub"), Target::File(FileIdx(1)));
        touch(dir.path(), &["dist/index.d.ts", "sub/dist/index.d.ts"]);
        layout.built = built_outputs(dir.path(), &layout);
        assert_eq!(
            layout.built.iter().map(String::as_str).collect::<Vec<_>>(),
            ["dist/index.d.ts", "sub/dist/index.d.ts"]
        );
        assert_eq!(resolve(&layout, "@rtk/kit"), Target::External);
        assert_eq!(resolve(&layout, "@rtk/sub"), Target::External);
        // A folder holding indexed sources is not read as build output.
        layout.manifests.insert(
            "lib/package.json".into(),
            r#"{ "name": "@rtk/lib", "main": "out/index.js" }"#.into(),
        );
        layout.files.insert("lib/out/index.ts".into());
        touch(dir.path(), &["lib/out/index.js"]);
        assert!(!built_outputs(dir.path(), &layout).contains("lib/out/index.js"));
    }

    /// TypeScript reads `types` (then `typings`, then `main`) and never
    /// `module`: an indexed `types` file is what the package's name is, even
    /// when a `main` build output exists; and a `module` bundle on disk says
    /// nothing about what TypeScript reads (`main` is the indexed source).
    #[test]
    fn review3_an_indexed_types_entry_wins_over_a_built_main() {
        let dir = tempfile::tempdir().unwrap();
        let mut layout = Layout::default();
        layout.manifests.insert(
            "a/package.json".into(),
            r#"{ "name": "a", "types": "src/index.ts", "main": "dist/index.js" }"#.into(),
        );
        layout.manifests.insert(
            "b/package.json".into(),
            r#"{ "name": "b", "main": "src/index.js", "module": "dist/index.mjs" }"#.into(),
        );
        layout.files.insert("a/src/index.ts".into());
        layout.files.insert("b/src/index.js".into());
        touch(dir.path(), &["a/dist/index.js", "b/dist/index.mjs"]);
        layout.built = built_outputs(dir.path(), &layout);
        let files: PathIndex = [
            ("a/src/index.ts", FileIdx(0)),
            ("b/src/index.js", FileIdx(1)),
        ]
        .into_iter()
        .collect();
        let m = Modules::new(&layout);
        assert_eq!(
            [
                m.resolve(&files, "t/t.ts", "a"),
                m.resolve(&files, "t/t.js", "b")
            ],
            [Target::File(FileIdx(0)), Target::File(FileIdx(1))]
        );
    }

    /// `"main": "dist/index"` (no extension, as TypeScript and Node allow):
    /// TypeScript reads `dist/index.d.ts`, which is there; the graph does
    /// not see it as build output and maps the name to `src/index.ts`.
    #[test]
    fn review3_a_main_without_extension_names_its_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let mut layout = Layout::default();
        layout.manifests.insert(
            "package.json".into(),
            r#"{ "name": "p", "main": "dist/index" }"#.into(),
        );
        layout.files.insert("src/index.ts".into());
        touch(dir.path(), &["dist/index.js", "dist/index.d.ts"]);
        layout.built = built_outputs(dir.path(), &layout);
        let files: PathIndex = [("src/index.ts", FileIdx(0))].into_iter().collect();
        assert_eq!(
            Modules::new(&layout).resolve(&files, "test/t.ts", "p"),
            Target::External
        );
    }

    /// A subpath pattern (`"./*": "./dist/*.js"`): `p/util` is
    /// `dist/util.d.ts` for TypeScript, there on disk as `p`'s own
    /// `dist/index.d.ts` is; `p` becomes External but `p/util` still maps
    /// to `src/util.ts` (patterns are never listed as built output).
    #[test]
    fn review3_a_subpath_pattern_export_names_its_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let mut layout = Layout::default();
        layout.manifests.insert(
            "package.json".into(),
            r#"{ "name": "p", "exports": { ".": "./dist/index.js", "./*": "./dist/*.js" } }"#
                .into(),
        );
        layout.files.insert("src/index.ts".into());
        layout.files.insert("src/util.ts".into());
        touch(
            dir.path(),
            &[
                "dist/index.js",
                "dist/index.d.ts",
                "dist/util.js",
                "dist/util.d.ts",
            ],
        );
        layout.built = built_outputs(dir.path(), &layout);
        let files: PathIndex = [("src/index.ts", FileIdx(0)), ("src/util.ts", FileIdx(1))]
            .into_iter()
            .collect();
        let m = Modules::new(&layout);
        assert_eq!(m.resolve(&files, "test/t.ts", "p"), Target::External);
        assert_eq!(m.resolve(&files, "test/t.ts", "p/util"), Target::External);
    }

    #[test]
    fn tsconfig_paths_and_packages() {
        let mut layout = Layout::default();
        layout.manifests.insert(
            "tsconfig.json".into(),
            r#"{ "compilerOptions": { "baseUrl": "./src", "paths": { "@pay/*": ["payments/*"] } } }"#
                .into(),
        );
        layout.manifests.insert(
            "packages/auth/package.json".into(),
            r#"{ "name": "@shop/auth", "main": "dist/index.js" }"#.into(),
        );
        let m = Modules::new(&layout);
        let files: PathIndex = [
            ("src/payments/stripe.ts", FileIdx(0)),
            ("src/util.ts", FileIdx(1)),
            ("packages/auth/src/index.ts", FileIdx(2)),
            ("packages/auth/src/tokens.ts", FileIdx(3)),
        ]
        .into_iter()
        .collect();
        let r = |s| m.resolve(&files, "src/x.ts", s);
        assert_eq!(r("@pay/stripe"), Target::File(FileIdx(0)));
        assert_eq!(r("util"), Target::File(FileIdx(1)));
        assert_eq!(r("@shop/auth"), Target::File(FileIdx(2)));
        assert_eq!(r("@shop/auth/tokens"), Target::File(FileIdx(3)));
        assert_eq!(r("react"), Target::External);
        assert_eq!(r("./payments/stripe.js"), Target::File(FileIdx(0)));
    }

    #[test]
    fn a_require_call_does_not_match_the_import_condition() {
        // zustand's package: ESM under `import`, CommonJS under `default`.
        let mut layout = Layout::default();
        layout.manifests.insert(
            "package.json".into(),
            r#"{ "name": "zustand",
                 "exports": { "./*": { "import": { "types": "./esm/*.d.mts", "default": "./esm/*.mjs" },
                                       "default": { "types": "./*.d.ts", "default": "./*.js" } } } }"#
                .into(),
        );
        let m = Modules::new(&layout);
        let files: PathIndex = [
            ("esm/vanilla.d.mts", FileIdx(0)),
            ("vanilla.d.ts", FileIdx(1)),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            m.resolve(&files, "index.js", "zustand/vanilla"),
            Target::File(FileIdx(0))
        );
        assert_eq!(
            m.resolve_require(&files, "index.js", "zustand/vanilla"),
            Target::File(FileIdx(1))
        );
    }

    #[test]
    fn package_exports_map_with_conditions_in_file_order() {
        let mut layout = Layout::default();
        // zod's shape: a custom condition first (not enabled), then `types`
        // pointing at a `.d.cts` that exists in the package.
        layout.manifests.insert(
            "package.json".into(),
            r#"{ "name": "zod", "main": "./index.cjs",
                 "exports": {
                   ".": { "@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js" },
                   "./v4": { "@zod/source": "./src/v4/index.ts", "types": "./v4/index.d.cts" },
                   "./v4/*": { "import": "./v4/*.js", "types": "./v4/*.d.cts" },
                   "./internal": null,
                   "./package.json": "./package.json"
                 } }"#
                .into(),
        );
        // A workspace package whose exports point at build output that is
        // not in the repository: its sources stand in.
        layout.manifests.insert(
            "packages/auth/package.json".into(),
            r#"{ "name": "@shop/auth",
                 "exports": { ".": { "import": "./dist/esm/index.js", "types": "./dist/dts/index.d.ts" },
                              "./tokens": "./dist/tokens.js" } }"#
                .into(),
        );
        let m = Modules::new(&layout);
        let files: PathIndex = [
            ("src/index.ts", FileIdx(0)),
            ("index.d.cts", FileIdx(1)),
            ("src/v4/index.ts", FileIdx(2)),
            ("v4/index.d.cts", FileIdx(3)),
            ("v4/mini.ts", FileIdx(4)),
            ("v4/mini.d.cts", FileIdx(5)),
            ("src/internal.ts", FileIdx(6)),
            ("packages/auth/src/index.ts", FileIdx(7)),
            ("packages/auth/src/tokens.ts", FileIdx(8)),
        ]
        .into_iter()
        .collect();
        let r = |s| m.resolve(&files, "src/v4/core/tests/a.test.ts", s);
        // No tsconfig: the package's own source condition is on, as the
        // bridge declares it to tsserver (`@zod/source` → `src/`).
        assert_eq!(r("zod"), Target::File(FileIdx(0)));
        assert_eq!(r("zod/v4"), Target::File(FileIdx(2)));
        // A tsconfig without `customConditions` decides: `types` wins.
        let mut with_tsconfig = layout.clone();
        with_tsconfig.manifests.insert(
            "tsconfig.json".into(),
            r#"{ "compilerOptions": {} }"#.into(),
        );
        let t = Modules::new(&with_tsconfig);
        let rt = |s| t.resolve(&files, "src/v4/core/tests/a.test.ts", s);
        assert_eq!(rt("zod"), Target::File(FileIdx(1)));
        assert_eq!(rt("zod/v4"), Target::File(FileIdx(3)));
        // `import` comes first in the pattern's conditions: `./v4/mini.js`,
        // which TypeScript reads as `./v4/mini.ts`.
        assert_eq!(r("zod/v4/mini"), Target::File(FileIdx(4)));
        assert_eq!(r("@shop/auth"), Target::File(FileIdx(7)));
        assert_eq!(r("@shop/auth/tokens"), Target::File(FileIdx(8)));
        let blocked = Exports::Map(vec![("./internal".into(), Exports::None)]);
        assert!(blocked.lookup("./internal", &[], false).is_empty());
        let sugar = Exports::Path("./main.js".into());
        assert_eq!(sugar.lookup(".", &[], false), vec!["./main.js".to_string()]);
        assert!(sugar.lookup("./x", &[], false).is_empty());
        // zod's own repository sets `customConditions: ["@zod/source"]`:
        // the sources win there.
        layout.manifests.insert(
            "tsconfig.json".into(),
            r#"{ "compilerOptions": { "customConditions": ["@zod/source"] } }"#.into(),
        );
        let m = Modules::new(&layout);
        let r = |s| m.resolve(&files, "src/v4/core/tests/a.test.ts", s);
        assert_eq!(r("zod/v4"), Target::File(FileIdx(2)));
        assert_eq!(r("zod"), Target::File(FileIdx(0)));
    }
}
