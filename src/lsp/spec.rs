//! Server specs: what to run, for which languages, how to tell it is ready and how
//! to install it. Data in `servers/*.toml`, embedded as defaults and overridable
//! from `[servers.<name>]` in `.refgraph/config.toml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::extract::Lang;

/// The embedded default specs, one TOML per server.
const DEFAULTS: [(&str, &str); 3] = [
    ("pyright", include_str!("../../servers/pyright.toml")),
    (
        "typescript-language-server",
        include_str!("../../servers/typescript.toml"),
    ),
    (
        "rust-analyzer",
        include_str!("../../servers/rust-analyzer.toml"),
    ),
];

/// One language server, as data.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// `Lang::as_str` names this server answers for.
    pub languages: Vec<String>,
    #[serde(default)]
    pub root_markers: Vec<String>,
    /// A file that makes its folder the root of every root below it (a Cargo
    /// workspace): one session then serves all its members.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_marker: Option<WorkspaceMarker>,
    /// Live sessions (workspace roots) per server at most; the least recently
    /// used one is shut down to start another, and `verify` checks the roots
    /// with the most sites first.
    #[serde(default = "default_max_sessions")]
    pub max_sessions: usize,
    /// What to do at a root without a project file (typescript-language-server
    /// without tsconfig.json).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_fallback: Option<ProjectFallback>,
    /// Prints the version; the program is looked up next to `command` first.
    #[serde(default)]
    pub version_command: Vec<String>,
    #[serde(deserialize_with = "de_secs")]
    pub startup_timeout_secs: f64,
    #[serde(deserialize_with = "de_secs")]
    pub request_timeout_secs: f64,
    /// Timeout of whole-workspace searches (references, implementations,
    /// incoming calls); the request timeout when unset.
    #[serde(
        default,
        deserialize_with = "de_secs_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub search_timeout_secs: Option<f64>,
    /// This many request timeouts in a row mark the server as hung: it is killed
    /// and restarted.
    #[serde(default = "default_hung_after")]
    pub hung_after_timeouts: u32,
    /// Send `settings[<section>]` as initializationOptions (rust-analyzer).
    #[serde(default)]
    pub init_options_section: Option<String>,
    /// A `workspace/executeCommand` command taking `[uri, position]` that
    /// answers the implementation behind a declaration
    /// (typescript-language-server `_typescript.goToSourceDefinition`): asked
    /// when a definition lands in a declaration file (`.d.ts`, `.d.mts`, `.d.cts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_definition_command: Option<String>,
    /// The dotted setting that lists extra import folders (pyright:
    /// `python.analysis.extraPaths`): a session rooted below the repository
    /// gets the repository's own import roots there ([`crate::lsp::LspConfig::import_roots`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_roots_setting: Option<String>,
    pub readiness: Readiness,
    pub install: Install,
    #[serde(default = "empty_table")]
    pub initialization_options: toml::Value,
    /// Answers to `workspace/configuration`, by dotted section.
    #[serde(default = "empty_table")]
    pub settings: toml::Value,
    /// Merged over `settings` when the repository is trusted.
    #[serde(default = "empty_table")]
    pub trusted_settings: toml::Value,
    /// Extra environment for the server process.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Environment added when the repository is not trusted (wins over `env`).
    #[serde(default)]
    pub untrusted_env: BTreeMap<String, String>,
}

/// Seconds as a TOML integer or float.
fn de_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Secs {
        Int(i64),
        Float(f64),
    }
    Ok(match Secs::deserialize(d)? {
        Secs::Int(i) => i as f64,
        Secs::Float(f) => f,
    })
}

fn de_secs_opt<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    de_secs(d).map(Some)
}

fn default_hung_after() -> u32 {
    3
}

fn default_max_sessions() -> usize {
    4
}

/// `file` in a folder, containing `contains` (e.g. `Cargo.toml` with `[workspace]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceMarker {
    pub file: String,
    pub contains: String,
}

/// A project the client declares itself when the root has none of
/// `unless_present`: every file under the root with one of `extensions`
/// (skipping dependency and build folders), with `compiler_options`. Sent to
/// typescript-language-server as tsserver's `openExternalProject` (through its
/// `typescript.tsserverRequest` command), so nothing is written into the
/// repository. The session is then ready once the project is open and the
/// first file we opened has diagnostics (no loading progress is reported for
/// such a project).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProjectFallback {
    pub unless_present: Vec<String>,
    pub extensions: Vec<String>,
    #[serde(default = "empty_table")]
    pub compiler_options: toml::Value,
    /// At most this many files are put in the project.
    #[serde(default = "default_max_files")]
    pub max_files: usize,
}

fn default_max_files() -> usize {
    20_000
}

fn empty_table() -> toml::Value {
    toml::Value::Table(toml::Table::new())
}

/// The server's own signal that its answers are complete.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Readiness {
    /// First `publishDiagnostics` after our first didOpen, and (if set) a
    /// `window/logMessage` containing `log_contains` (pyright).
    Diagnostics {
        #[serde(default)]
        log_contains: Option<String>,
    },
    /// A `$/progress` whose begin title contains `progress_title` has ended (tsls).
    Progress { progress_title: String },
    /// `experimental/serverStatus` quiescent with no open progress (rust-analyzer).
    ServerStatus,
    /// Ready once initialized (servers with no warm-up).
    Initialized,
}

/// How `refgraph servers install` installs the pinned version.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Install {
    /// `npm install --prefix <prefix>/npm <packages…>`
    Npm {
        version: String,
        packages: Vec<String>,
    },
    /// `cargo install --locked <crate>@<version> --root <prefix>/<root>`
    Cargo {
        version: String,
        #[serde(rename = "crate")]
        krate: String,
        root: String,
    },
    /// Not installable by refgraph: the user provides it on PATH.
    None {
        #[serde(default)]
        version: Option<String>,
    },
}

impl Install {
    pub fn pinned_version(&self) -> Option<&str> {
        match self {
            Install::Npm { version, .. } | Install::Cargo { version, .. } => Some(version),
            Install::None { version } => version.as_deref(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("invalid server spec `{name}`: {source}")]
    Invalid {
        name: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("`[servers.{name}]` in config must be a table, found {found}")]
    NotATable { name: String, found: String },
}

impl ServerSpec {
    pub fn startup_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.startup_timeout_secs.max(0.0))
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.request_timeout_secs.max(0.0))
    }

    pub fn search_timeout(&self) -> Duration {
        Duration::from_secs_f64(
            self.search_timeout_secs
                .unwrap_or(self.request_timeout_secs)
                .max(0.0),
        )
    }

    pub fn serves(&self, lang: Lang) -> bool {
        self.languages.iter().any(|l| l == lang.as_str())
    }

    /// The workspace root for `file`: the nearest ancestor holding a root marker,
    /// not above `limit`; `limit` when none does. Then, if a folder between that
    /// root and `limit` holds the [`WorkspaceMarker`], the nearest such folder.
    pub fn root_for(&self, file: &Path, limit: &Path) -> std::path::PathBuf {
        let within = |d: &Path| d.starts_with(limit);
        let root = file
            .ancestors()
            .skip(1)
            .take_while(|d| within(d))
            .find(|d| self.root_markers.iter().any(|m| d.join(m).exists()))
            .unwrap_or(limit);
        let Some(ws) = &self.workspace_marker else {
            return root.to_path_buf();
        };
        root.ancestors()
            .take_while(|d| within(d))
            .find(|d| {
                std::fs::read_to_string(d.join(&ws.file))
                    .is_ok_and(|t| t.contains(ws.contains.as_str()))
            })
            .unwrap_or(root)
            .to_path_buf()
    }

    /// The fallback project to declare at `root`, if the spec has one and the
    /// root has no project file of its own.
    pub fn fallback_at(&self, root: &Path) -> Option<&ProjectFallback> {
        self.project_fallback
            .as_ref()
            .filter(|f| !f.unless_present.iter().any(|m| root.join(m).exists()))
    }

    /// Settings as JSON with trust applied and `{cache}`/`{root_hash}` filled in.
    pub fn effective_settings(&self, trust: bool, vars: &Vars) -> serde_json::Value {
        let mut s = self.settings.clone();
        if trust {
            merge(&mut s, &self.trusted_settings);
        }
        vars.fill(toml_to_json(&s))
    }

    /// The process environment: `env`, plus `untrusted_env` unless trusted.
    /// `{rustup_default}` is filled by `rustup_default()`; a variable whose
    /// placeholder cannot be filled is left out.
    pub fn effective_env(
        &self,
        trust: bool,
        vars: &Vars,
        rustup_default: impl Fn() -> Option<String>,
    ) -> Vec<(String, String)> {
        let mut env = self.env.clone();
        if !trust {
            env.extend(self.untrusted_env.clone());
        }
        let mut rustup: Option<Option<String>> = None;
        env.into_iter()
            .filter_map(|(k, v)| {
                let v = if v.contains("{rustup_default}") {
                    let d = rustup.get_or_insert_with(&rustup_default).clone()?;
                    v.replace("{rustup_default}", &d)
                } else {
                    v
                };
                let v = v
                    .replace("{cache}", &vars.cache)
                    .replace("{root_hash}", &vars.root_hash);
                Some((k, v))
            })
            .collect()
    }

    pub fn effective_init_options(&self, trust: bool, vars: &Vars) -> serde_json::Value {
        let mut opts = vars.fill(toml_to_json(&self.initialization_options));
        if let Some(section) = &self.init_options_section {
            let settings = self.effective_settings(trust, vars);
            if let Some(v) = lookup_section(&settings, section) {
                opts = v.clone();
            }
        }
        opts
    }
}

/// Values substituted into spec strings.
pub struct Vars {
    /// `{cache}`: refgraph's cache directory (outside any repository).
    pub cache: String,
    /// `{root_hash}`: a short hash of the workspace root.
    pub root_hash: String,
}

impl Vars {
    fn fill(&self, v: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match v {
            Value::String(s) => Value::String(
                s.replace("{cache}", &self.cache)
                    .replace("{root_hash}", &self.root_hash),
            ),
            Value::Array(a) => Value::Array(a.into_iter().map(|v| self.fill(v)).collect()),
            Value::Object(o) => {
                Value::Object(o.into_iter().map(|(k, v)| (k, self.fill(v))).collect())
            }
            other => other,
        }
    }
}

/// `settings["a"]["b"]` for section `a.b`; the whole object for an empty section.
pub fn lookup_section<'a>(
    settings: &'a serde_json::Value,
    section: &str,
) -> Option<&'a serde_json::Value> {
    if section.is_empty() {
        return Some(settings);
    }
    if let Some(v) = settings.get(section) {
        return Some(v);
    }
    section.split('.').try_fold(settings, |v, part| v.get(part))
}

/// Append `paths` to the list at the dotted `setting` of `settings`
/// (created, with the objects above it, when missing), skipping any
/// already listed.
pub fn add_paths(settings: &mut serde_json::Value, setting: &str, paths: &[PathBuf]) {
    if paths.is_empty() {
        return;
    }
    let mut at = settings;
    for part in setting.split('.') {
        if !at.is_object() {
            *at = serde_json::json!({});
        }
        at = at
            .as_object_mut()
            .expect("an object")
            .entry(part)
            .or_insert(serde_json::Value::Null);
    }
    if !at.is_array() {
        *at = serde_json::json!([]);
    }
    let list = at.as_array_mut().expect("an array");
    for p in paths {
        let p = serde_json::Value::String(p.display().to_string());
        if !list.contains(&p) {
            list.push(p);
        }
    }
}

/// Deep merge of TOML tables: `over` wins; tables merge key by key.
pub fn merge(base: &mut toml::Value, over: &toml::Value) {
    match (base, over) {
        (toml::Value::Table(b), toml::Value::Table(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(existing) => merge(existing, v),
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

pub fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

/// The built-in specs, by name.
pub fn defaults() -> BTreeMap<String, ServerSpec> {
    DEFAULTS
        .iter()
        .map(|(name, text)| {
            let spec: ServerSpec = toml::from_str(text)
                .unwrap_or_else(|e| panic!("embedded spec servers/{name}.toml is invalid: {e}"));
            (spec.name.clone(), spec)
        })
        .collect()
}

/// The built-in specs with `[servers.<name>]` tables of a parsed config merged
/// over them. `config` is the whole parsed `.refgraph/config.toml`; a table for an
/// unknown name defines a new server (it must then be complete).
pub fn with_overrides(config: &toml::Value) -> Result<BTreeMap<String, ServerSpec>, SpecError> {
    let mut specs = defaults();
    let Some(servers) = config.get("servers") else {
        return Ok(specs);
    };
    let Some(servers) = servers.as_table() else {
        return Err(SpecError::NotATable {
            name: "*".into(),
            found: servers.type_str().into(),
        });
    };
    for (name, over) in servers {
        if !over.is_table() {
            return Err(SpecError::NotATable {
                name: name.clone(),
                found: over.type_str().into(),
            });
        }
        let mut base = match specs.get(name) {
            Some(spec) => toml::Value::try_from(spec).expect("a spec serializes"),
            None => {
                let mut t = toml::Table::new();
                t.insert("name".into(), toml::Value::String(name.clone()));
                toml::Value::Table(t)
            }
        };
        merge(&mut base, over);
        let spec: ServerSpec = base.try_into().map_err(|source| SpecError::Invalid {
            name: name.clone(),
            source,
        })?;
        specs.insert(name.clone(), spec);
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_cover_every_language() {
        let specs = defaults();
        assert_eq!(specs.len(), 3);
        for lang in Lang::ALL {
            let n = specs.values().filter(|s| s.serves(lang)).count();
            assert_eq!(n, 1, "{lang:?} served by {n} specs");
        }
        assert_eq!(specs["pyright"].install.pinned_version(), Some("1.1.414"));
    }

    #[test]
    fn rust_analyzer_runs_no_code_unless_trusted() {
        let spec = &defaults()["rust-analyzer"];
        let vars = Vars {
            cache: "/c".into(),
            root_hash: "abc".into(),
        };
        let off = spec.effective_init_options(false, &vars);
        assert_eq!(off["cargo"]["buildScripts"]["enable"], false);
        assert_eq!(off["procMacro"]["enable"], false);
        assert_eq!(off["checkOnSave"], false);
        assert_eq!(off["cargo"]["targetDir"], "/c/rust-analyzer-target/abc");
        let on = spec.effective_init_options(true, &vars);
        assert_eq!(on["cargo"]["buildScripts"]["enable"], true);
        assert_eq!(on["procMacro"]["enable"], true);
        assert_eq!(on["checkOnSave"], false);
    }

    #[test]
    fn untrusted_rust_analyzer_cannot_reach_repository_toolchains() {
        let spec = &defaults()["rust-analyzer"];
        let vars = Vars {
            cache: "/c".into(),
            root_hash: "abc".into(),
        };
        let env: BTreeMap<_, _> = spec
            .effective_env(false, &vars, || Some("stable".into()))
            .into_iter()
            .collect();
        assert_eq!(env["RUSTC_WRAPPER"], "");
        assert_eq!(env["RUSTC_WORKSPACE_WRAPPER"], "");
        assert_eq!(env["RUSTC"], "rustc");
        assert_eq!(env["RUSTUP_TOOLCHAIN"], "stable");
        let no_rustup = spec.effective_env(false, &vars, || None);
        assert!(no_rustup.iter().all(|(k, _)| k != "RUSTUP_TOOLCHAIN"));
        assert!(spec.effective_env(true, &vars, || None).is_empty());
    }

    #[test]
    fn config_overrides_merge_over_defaults() {
        let cfg: toml::Value = toml::from_str(
            r#"
            [servers.pyright]
            command = "/opt/pyright-langserver"
            request_timeout_secs = 5
            [servers.pyright.settings.python.analysis]
            diagnosticMode = "workspace"
            "#,
        )
        .unwrap();
        let specs = with_overrides(&cfg).unwrap();
        let p = &specs["pyright"];
        assert_eq!(p.command, "/opt/pyright-langserver");
        assert_eq!(p.request_timeout(), Duration::from_secs(5));
        assert_eq!(p.args, ["--stdio"]);
        let s = toml_to_json(&p.settings);
        assert_eq!(s["python"]["analysis"]["diagnosticMode"], "workspace");
        assert_eq!(s["python"]["analysis"]["autoSearchPaths"], true);
    }

    #[test]
    fn bad_override_names_the_server() {
        let cfg: toml::Value = toml::from_str("[servers.pyright]\nreadiness = 3\n").unwrap();
        let err = with_overrides(&cfg).unwrap_err().to_string();
        assert!(err.contains("pyright"), "{err}");
    }

    #[test]
    fn import_roots_are_appended_to_the_dotted_setting() {
        let mut s = serde_json::json!({"python": {"analysis": {"autoSearchPaths": true}}});
        let paths = [PathBuf::from("/r/src"), PathBuf::from("/r")];
        add_paths(&mut s, "python.analysis.extraPaths", &paths);
        add_paths(&mut s, "python.analysis.extraPaths", &paths[..1]);
        assert_eq!(
            s,
            serde_json::json!({"python": {"analysis": {
                "autoSearchPaths": true,
                "extraPaths": ["/r/src", "/r"]
            }}})
        );
        assert_eq!(
            defaults()["pyright"].import_roots_setting.as_deref(),
            Some("python.analysis.extraPaths")
        );
    }

    #[test]
    fn roots_are_the_nearest_marker_or_the_enclosing_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for (p, t) in [
            ("repo/Django-5.1.4/pyproject.toml", ""),
            ("repo/Django-5.1.4/django/db/models.py", ""),
            ("repo/Django-5.1.4/tests/requirements.txt", ""),
            ("repo/Django-5.1.4/tests/test_models.py", ""),
            ("repo/loose/x.py", ""),
            (
                "repo/ws/Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\"]\n",
            ),
            ("repo/ws/crates/a/Cargo.toml", "[package]\nname = \"a\"\n"),
            ("repo/ws/crates/a/src/lib.rs", ""),
            ("repo/vendor/b/Cargo.toml", "[package]\nname = \"b\"\n"),
            ("repo/vendor/b/src/lib.rs", ""),
        ] {
            let p = d.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        }
        let repo = d.join("repo");
        let specs = defaults();
        let py = &specs["pyright"];
        assert_eq!(
            py.root_for(&repo.join("Django-5.1.4/django/db/models.py"), &repo),
            repo.join("Django-5.1.4")
        );
        // A requirements file beside the tests is no project of its own:
        // its files import the package as the project's root sees it.
        assert_eq!(
            py.root_for(&repo.join("Django-5.1.4/tests/test_models.py"), &repo),
            repo.join("Django-5.1.4")
        );
        assert_eq!(py.root_for(&repo.join("loose/x.py"), &repo), repo);
        let ra = &specs["rust-analyzer"];
        assert_eq!(
            ra.root_for(&repo.join("ws/crates/a/src/lib.rs"), &repo),
            repo.join("ws")
        );
        assert_eq!(
            ra.root_for(&repo.join("vendor/b/src/lib.rs"), &repo),
            repo.join("vendor/b")
        );
        // Never above the limit, even if a marker is there.
        assert_eq!(
            py.root_for(
                &repo.join("Django-5.1.4/django/db/models.py"),
                &repo.join("Django-5.1.4/django")
            ),
            repo.join("Django-5.1.4/django")
        );
        let ts = &specs["typescript-language-server"];
        assert!(ts.fallback_at(&repo).is_some());
        std::fs::write(repo.join("tsconfig.json"), "{}").unwrap();
        assert!(ts.fallback_at(&repo).is_none());
        assert_eq!(py.max_sessions, 4);
        assert!(py.search_timeout() > py.request_timeout());
    }

    #[test]
    fn sections_resolve_dotted_and_nested() {
        let s = serde_json::json!({"python": {"analysis": {"x": 1}}, "a.b": 2});
        assert_eq!(lookup_section(&s, "python.analysis").unwrap()["x"], 1);
        assert_eq!(lookup_section(&s, "a.b").unwrap(), 2);
        assert!(lookup_section(&s, "nope").is_none());
    }
}
