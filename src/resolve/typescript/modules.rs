//! Module specifiers → files, the way TypeScript's bundler/node resolution
//! finds them in a repository: relative paths with extension probing
//! (`./x.js` written in ESM TypeScript means `./x.ts`), `index` files,
//! tsconfig `baseUrl` / `paths` (JSONC, `extends` followed within the
//! repository), and `package.json` names of in-repo packages (monorepos).
//! Anything else is an external package.

use std::collections::{BTreeMap, HashMap};

use crate::resolve::{FileIdx, Layout};

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
}

#[derive(Clone, Debug)]
struct Package {
    name: String,
    dir: String,
    entries: Vec<String>,
}

pub struct Modules {
    /// Directory ("" = root) → its tsconfig.json.
    tsconfigs: HashMap<String, TsConfig>,
    /// Longest name first.
    packages: Vec<Package>,
}

impl Modules {
    pub fn new(layout: &Layout) -> Modules {
        let mut raw: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        let mut packages = Vec::new();
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
                    let Some(v) = parse_jsonc(text) else { continue };
                    let Some(name) = v.get("name").and_then(|n| n.as_str()) else {
                        continue;
                    };
                    let mut entries = Vec::new();
                    for field in ["types", "typings", "source", "module", "main"] {
                        if let Some(e) = v.get(field).and_then(|e| e.as_str()) {
                            entries.push(join(&dir, e));
                        }
                    }
                    packages.push(Package {
                        name: name.to_string(),
                        dir,
                        entries,
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
        }
    }

    /// Resolve `spec` written in the file at `from`.
    pub fn resolve(&self, files: &HashMap<&str, FileIdx>, from: &str, spec: &str) -> Target {
        let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            return probe(files, &join(dir, spec)).map_or(Target::External, Target::File);
        }
        if spec.starts_with('/') || spec.contains(':') {
            return Target::External;
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
            if rest.is_empty() {
                for e in &p.entries {
                    if let Some(f) = probe(files, e) {
                        return Target::File(f);
                    }
                    // `dist/index.js` built from `src/index.ts`.
                    for out in ["dist/", "lib/", "build/", "out/", "esm/", "cjs/"] {
                        let prefix = join(&p.dir, out);
                        if let Some(tail) = e.strip_prefix(&prefix) {
                            if let Some(f) = probe(files, &join(&p.dir, &format!("src/{tail}"))) {
                                return Target::File(f);
                            }
                        }
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
fn probe(files: &HashMap<&str, FileIdx>, base: &str) -> Option<FileIdx> {
    let base = base.trim_end_matches('/');
    if let Some(f) = files.get(base) {
        return Some(*f);
    }
    // ESM TypeScript writes the emitted name: `./x.js` is `./x.ts`.
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
    for ext in EXTS {
        if let Some(f) = files.get(format!("{base}{ext}").as_str()) {
            return Some(*f);
        }
    }
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
    serde_json::from_slice(&out).ok()
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
        let files: HashMap<&str, FileIdx> = [
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
        assert_eq!(probe(&files, "src/zz"), None);
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
        let files: HashMap<&str, FileIdx> = [
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
}
