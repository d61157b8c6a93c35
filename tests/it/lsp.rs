//! The language-server layer against real servers (pyright,
//! typescript-language-server, rust-analyzer), found the way users find them
//! (PATH, then refgraph's prefix). A missing server skips with a printed reason,
//! and fails when `CI` is set. Faults are scripted in `fake`.

mod fake;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use refgraph::extract::Lang;
use refgraph::graph::Pos;
use refgraph::lsp::{install, Document, Location, LspConfig, LspError, Pool, ServerState};

/// Real servers start in seconds; this bounds every wait on them.
const WAIT: Duration = Duration::from_secs(240);

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, f)
        .await
        .expect("the language server did not answer within the test's bound")
}

/// `Some(pool)` when the server for `lang` is installed; otherwise prints why the
/// test is skipped, and panics under CI.
fn pool_for(lang: Lang) -> Option<Pool> {
    let pool = Pool::new(LspConfig::default());
    if pool.server_id(lang).is_some() {
        return Some(pool);
    }
    let ServerState::NotInstalled { hint } = pool.state(lang, Path::new("/")) else {
        panic!("server for {lang:?} neither found nor missing");
    };
    let msg = format!("skipping: no language server for {lang:?} ({hint})");
    if std::env::var_os("CI").is_some() {
        panic!("{msg} — required under CI");
    }
    eprintln!("{msg}");
    None
}

/// What a request is about: `file` (absolute or relative to `root`) with `text`.
pub(crate) fn doc<'a>(lang: Lang, root: &'a Path, file: &'a Path, text: &'a str) -> Document<'a> {
    Document {
        lang,
        root,
        file,
        text,
    }
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// 1-based position of the `nth` (0-based) occurrence of `needle` in `text`,
/// columns in UTF-8 bytes.
fn pos_of(text: &str, needle: &str, nth: usize) -> Pos {
    let (byte, _) = text.match_indices(needle).nth(nth).expect("needle in text");
    let line_start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: text[..byte].matches('\n').count() as u32 + 1,
        column: (byte - line_start) as u32 + 1,
    }
}

/// `file:line:col` lines relative to `root`, sorted.
fn render(root: &Path, locs: &[Location]) -> Vec<String> {
    let mut v: Vec<String> = locs
        .iter()
        .map(|l| {
            let rel = l.path.strip_prefix(root).unwrap_or(&l.path);
            format!("{}:{}:{}", rel.display(), l.pos.line, l.pos.column)
        })
        .collect();
    v.sort();
    v
}

fn canonical_tempdir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

// ---------------------------------------------------------------- Python

const PY_UTIL: &str = "def helper(x):\n    return x + 1\n\n\nclass Greeter:\n    def greet(self, name):\n        return \"hi \" + name\n";
const PY_A: &str = "from pkg.util import helper, Greeter\n\n\ndef use_a():\n    return helper(1)\n";
// Non-ASCII before the call: 😀 is 2 UTF-16 units / 4 bytes, 中文 1 unit / 3 bytes each.
const PY_B: &str = "from pkg.util import helper\n\n# 中文 😀\ns = \"😀中😀\"; y = helper(2)\n";
const PY_MAIN: &str = "import pkg.util\n\nz = pkg.util.helper(3)\n";

fn python_project(root: &Path) {
    write(
        root,
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"demo\"\nversion = \"0\"\n",
            ),
            ("pkg/__init__.py", ""),
            ("pkg/util.py", PY_UTIL),
            ("pkg/a.py", PY_A),
            ("pkg/b.py", PY_B),
            ("main.py", PY_MAIN),
        ],
    );
}

#[tokio::test]
async fn pyright_definition_across_files_with_non_ascii_columns() {
    let Some(pool) = pool_for(Lang::Python) else {
        return;
    };
    let (_d, root) = canonical_tempdir();
    python_project(&root);
    let b = root.join("pkg/b.py");
    let site = pos_of(PY_B, "helper", 1);
    assert_eq!(
        site,
        Pos {
            line: 4,
            column: 24
        }
    ); // bytes; chars would give 16, UTF-16 units 18
    let t = Instant::now();
    let locs = bounded(pool.definition(doc(Lang::Python, &root, &b, PY_B), site))
        .await
        .unwrap();
    eprintln!("pyright: start + first definition {:?}", t.elapsed());
    assert_eq!(render(&root, &locs), ["pkg/util.py:1:5"]);
    assert_eq!(
        locs[0].end,
        Pos {
            line: 1,
            column: 11
        }
    );
    assert_eq!(pool.state(Lang::Python, &root), ServerState::Ready);
    assert_eq!(
        pool.server_id(Lang::Python).as_deref(),
        Some("pyright@1.1.414")
    );

    // A definition *in* a non-ASCII position of the same file's text.
    let s_pos = pos_of(PY_B, "s = ", 0);
    let locs = bounded(pool.definition(doc(Lang::Python, &root, &b, PY_B), s_pos))
        .await
        .unwrap();
    assert_eq!(render(&root, &locs), ["pkg/b.py:4:1"]);

    // pyright has no textDocument/implementation.
    let e = bounded(pool.implementation(doc(Lang::Python, &root, &b, PY_B), site))
        .await
        .unwrap_err();
    assert!(matches!(e, LspError::Unsupported { .. }), "{e}");
    bounded(pool.shutdown()).await;
}

#[tokio::test]
async fn pyright_references_count_import_sites() {
    let Some(pool) = pool_for(Lang::Python) else {
        return;
    };
    let (_d, root) = canonical_tempdir();
    python_project(&root);
    let util = root.join("pkg/util.py");
    let decl = pos_of(PY_UTIL, "helper", 0);
    let locs = bounded(pool.references(doc(Lang::Python, &root, &util, PY_UTIL), decl, false))
        .await
        .unwrap();
    assert_eq!(
        render(&root, &locs),
        [
            "main.py:3:14",
            "pkg/a.py:1:22",
            "pkg/a.py:5:12",
            "pkg/b.py:1:22",
            "pkg/b.py:4:24",
        ]
    );
    let with_decl = bounded(pool.references(doc(Lang::Python, &root, &util, PY_UTIL), decl, true))
        .await
        .unwrap();
    assert_eq!(with_decl.len(), locs.len() + 1);

    let calls = bounded(pool.incoming_calls(doc(Lang::Python, &root, &util, PY_UTIL), decl))
        .await
        .unwrap();
    let rendered: Vec<String> = calls
        .iter()
        .map(|c| format!("{} {:?}", c.name, render(&root, &c.sites)))
        .collect();
    assert_eq!(
        rendered,
        [
            r#"(module) b.py ["pkg/b.py:4:24"]"#,
            r#"(module) main.py ["main.py:3:14"]"#,
            r#"use_a ["pkg/a.py:5:12"]"#,
        ]
    );
    bounded(pool.shutdown()).await;
}

// ---------------------------------------------------------------- TypeScript

const TS_UTIL: &str = "export function helper(x: number): number {\n  return x + 1;\n}\n";
const TS_A: &str = "import { helper } from \"./util\";\n\nexport const a = helper(1);\n";
const TS_B: &str =
    "import { helper } from \"./util\";\n// 中文 😀\nconst s = \"😀中😀\"; export const b = helper(2) + s.length;\n";

fn ts_project(root: &Path) {
    write(
        root,
        &[
            (
                "tsconfig.json",
                r#"{"compilerOptions": {"strict": true, "module": "commonjs", "target": "es2020"}, "include": ["src"]}"#,
            ),
            ("src/util.ts", TS_UTIL),
            ("src/a.ts", TS_A),
            ("src/b.ts", TS_B),
        ],
    );
}

#[tokio::test]
async fn tsls_definition_and_references_with_non_ascii_columns() {
    let Some(pool) = pool_for(Lang::TypeScript) else {
        return;
    };
    let (_d, root) = canonical_tempdir();
    ts_project(&root);
    let b = root.join("src/b.ts");
    let site = pos_of(TS_B, "helper", 1);
    assert_eq!(site.line, 3);
    let t = Instant::now();
    let locs = bounded(pool.definition(doc(Lang::TypeScript, &root, &b, TS_B), site))
        .await
        .unwrap();
    eprintln!("tsls: start + first definition {:?}", t.elapsed());
    assert_eq!(render(&root, &locs), ["src/util.ts:1:17"]);
    assert!(pool
        .server_id(Lang::TypeScript)
        .unwrap()
        .starts_with("typescript-language-server@5.3.0"));

    let util = root.join("src/util.ts");
    let decl = pos_of(TS_UTIL, "helper", 0);
    let locs = bounded(pool.references(doc(Lang::TypeScript, &root, &util, TS_UTIL), decl, false))
        .await
        .unwrap();
    let b_call = pos_of(TS_B, "helper", 1);
    assert_eq!(
        render(&root, &locs),
        [
            "src/a.ts:1:10".to_string(),
            "src/a.ts:3:18".into(),
            "src/b.ts:1:10".into(),
            format!("src/b.ts:{}:{}", b_call.line, b_call.column),
        ]
    );
    let calls = bounded(pool.incoming_calls(doc(Lang::TypeScript, &root, &util, TS_UTIL), decl))
        .await
        .unwrap();
    let sites: Vec<String> = calls.iter().flat_map(|c| render(&root, &c.sites)).collect();
    assert!(sites.contains(&"src/a.ts:3:18".to_string()), "{calls:#?}");

    // Same server for every script language.
    assert_eq!(pool.state(Lang::Tsx, &root), ServerState::Ready);
    bounded(pool.shutdown()).await;
}

/// Session-1 bug: without a tsconfig.json the server never reported the end of
/// "Initializing JS/TS language features" (no such progress for an inferred
/// project), and an inferred project holds only the open files and their
/// imports. refgraph declares the root's files as one project instead.
#[tokio::test]
async fn tsls_without_tsconfig_is_ready_and_finds_unopened_importers() {
    let Some(pool) = pool_for(Lang::TypeScript) else {
        return;
    };
    let (_d, root) = canonical_tempdir();
    write(
        &root,
        &[
            (
                "package.json",
                r#"{"name": "demo", "version": "0.0.0", "type": "module"}"#,
            ),
            ("src/util.ts", TS_UTIL),
            ("src/a.ts", TS_A),
            ("src/b.ts", TS_B),
            (
                "lib/c.js",
                "import { helper } from \"../src/util.js\";\nexport const c = helper(3);\n",
            ),
            ("node_modules/dep/index.ts", "export const unrelated = 1;\n"),
        ],
    );
    let util = root.join("src/util.ts");
    let decl = pos_of(TS_UTIL, "helper", 0);
    let t = Instant::now();
    let locs = bounded(pool.references(doc(Lang::TypeScript, &root, &util, TS_UTIL), decl, false))
        .await
        .unwrap();
    eprintln!(
        "tsls without tsconfig: start + references {:?}",
        t.elapsed()
    );
    let b_call = pos_of(TS_B, "helper", 1);
    assert_eq!(
        render(&root, &locs),
        [
            "lib/c.js:1:10".to_string(),
            "lib/c.js:2:18".into(),
            "src/a.ts:1:10".into(),
            "src/a.ts:3:18".into(),
            "src/b.ts:1:10".into(),
            format!("src/b.ts:{}:{}", b_call.line, b_call.column),
        ]
    );
    assert_eq!(pool.state(Lang::TypeScript, &root), ServerState::Ready);
    let stats = pool.stats(Lang::TypeScript, &root).unwrap();
    assert!(
        stats.ready_after.is_some() && stats.requests >= 1,
        "{stats:?}"
    );
    bounded(pool.shutdown()).await;
}

// ---------------------------------------------------------------- Rust

/// A Cargo fixture that would leave a marker file for every way it could run code
/// while being analysed: build.rs, a `.cargo/config.toml` rustc/rustc-wrapper/
/// rustc-workspace-wrapper, and a `rust-toolchain.toml` toolchain inside the repo.
fn hostile_cargo_project(root: &Path) -> (String, Vec<PathBuf>) {
    let marker = |name: &str| root.join(format!("RAN_{name}"));
    let script = |name: &str| {
        format!(
            "#!/bin/sh\ntouch {:?}\nexit 1\n",
            marker(name).display().to_string()
        )
    };
    let build_rs = format!(
        "fn main() {{ std::fs::write({:?}, \"ran\").unwrap(); }}\n",
        marker("build_rs").display().to_string()
    );
    let lib = "mod util;\n\npub fn run() -> u32 {\n    // 中文 😀\n    let s = \"😀\"; util::helper(s.len() as u32)\n}\n";
    let config = format!(
        "[build]\nrustc = {:?}\nrustc-wrapper = {:?}\nrustc-workspace-wrapper = {:?}\n",
        root.join("evil/rustc").display().to_string(),
        root.join("evil/wrapper").display().to_string(),
        root.join("evil/workspace-wrapper").display().to_string(),
    );
    // A repository's own rust-analyzer.toml asking for build scripts, a check on
    // save and override commands.
    let ratoml = format!(
        "checkOnSave = true\n[cargo.buildScripts]\nenable = true\noverrideCommand = [{:?}]\n[check]\noverrideCommand = [{:?}]\n[procMacro]\nenable = true\n",
        root.join("evil/ra-build").display().to_string(),
        root.join("evil/ra-check").display().to_string(),
    );
    let toolchain = format!(
        "[toolchain]\npath = {:?}\n",
        root.join("evil/toolchain").display().to_string()
    );
    write(
        root,
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n",
            ),
            ("build.rs", &build_rs),
            ("src/lib.rs", lib),
            ("src/util.rs", "pub fn helper(x: u32) -> u32 {\n    x + 1\n}\n"),
            (".cargo/config.toml", &config),
            ("rust-toolchain.toml", &toolchain),
            ("rust-analyzer.toml", &ratoml),
            ("evil/ra-build", &script("ra_build_override")),
            ("evil/ra-check", &script("ra_check_override")),
            ("evil/rustc", &script("config_rustc")),
            ("evil/wrapper", &script("rustc_wrapper")),
            ("evil/workspace-wrapper", &script("workspace_wrapper")),
            ("evil/toolchain/bin/cargo", &script("toolchain_cargo")),
            ("evil/toolchain/bin/rustc", &script("toolchain_rustc")),
        ],
    );
    use std::os::unix::fs::PermissionsExt;
    for f in [
        "evil/rustc",
        "evil/wrapper",
        "evil/workspace-wrapper",
        "evil/toolchain/bin/cargo",
        "evil/toolchain/bin/rustc",
    ] {
        std::fs::set_permissions(root.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let markers = [
        "build_rs",
        "config_rustc",
        "rustc_wrapper",
        "workspace_wrapper",
        "toolchain_cargo",
        "toolchain_rustc",
    ]
    .iter()
    .map(|n| marker(n))
    .collect();
    (lib.to_string(), markers)
}

#[tokio::test]
async fn rust_analyzer_answers_without_running_repository_code() {
    let Some(pool) = pool_for(Lang::Rust) else {
        return;
    };
    let (_d, root) = canonical_tempdir();
    let (lib, markers) = hostile_cargo_project(&root);
    let file = root.join("src/lib.rs");
    let site = pos_of(&lib, "helper", 0);
    let t = Instant::now();
    let locs = bounded(pool.definition(doc(Lang::Rust, &root, &file, &lib), site))
        .await
        .unwrap();
    eprintln!("rust-analyzer: start + first definition {:?}", t.elapsed());
    assert_eq!(render(&root, &locs), ["src/util.rs:1:8"]);
    assert_eq!(
        pool.server_id(Lang::Rust).as_deref(),
        Some("rust-analyzer@0.0.330")
    );
    let refs = bounded(pool.references(
        doc(
            Lang::Rust,
            &root,
            &root.join("src/util.rs"),
            "pub fn helper(x: u32) -> u32 {\n    x + 1\n}\n",
        ),
        Pos { line: 1, column: 8 },
        false,
    ))
    .await
    .unwrap();
    assert_eq!(
        render(&root, &refs),
        [format!("src/lib.rs:{}:{}", site.line, site.column)]
    );
    bounded(pool.shutdown()).await;
    for m in &markers {
        assert!(
            !m.exists(),
            "rust-analyzer ran repository code with trust off: {}",
            m.display()
        );
    }
    assert!(
        !root.join("target").exists(),
        "rust-analyzer wrote target/ into the repository"
    );
}

/// The other side of the switch: trusted, rust-analyzer does run build.rs (so the
/// untrusted test above is not passing by accident).
#[tokio::test]
async fn rust_analyzer_runs_build_scripts_only_when_trusted() {
    if pool_for(Lang::Rust).is_none() {
        return;
    }
    let pool = Pool::new(LspConfig {
        trust: true,
        ..LspConfig::default()
    });
    let (_d, root) = canonical_tempdir();
    let marker = root.join("RAN_build_rs");
    let lib = "pub fn helper() -> u32 {\n    1\n}\n\npub fn run() -> u32 {\n    helper()\n}\n";
    write(
        &root,
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n",
            ),
            (
                "build.rs",
                &format!(
                    "fn main() {{ std::fs::write({:?}, \"ran\").unwrap(); }}\n",
                    marker.display().to_string()
                ),
            ),
            ("src/lib.rs", lib),
        ],
    );
    let site = pos_of(lib, "helper", 1);
    let locs =
        bounded(pool.definition(doc(Lang::Rust, &root, &root.join("src/lib.rs"), lib), site))
            .await
            .unwrap();
    assert_eq!(render(&root, &locs), ["src/lib.rs:1:8"]);
    bounded(pool.shutdown()).await;
    assert!(
        marker.exists(),
        "trusted rust-analyzer did not run build.rs"
    );
    assert!(
        !root.join("target").exists(),
        "target/ belongs under refgraph's cache"
    );
}

// ---------------------------------------------------------------- install / status

#[test]
fn status_reports_every_server_with_pinned_versions() {
    let cfg = LspConfig::default();
    let st = install::status(&cfg);
    let names: Vec<&str> = st.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["pyright", "rust-analyzer", "typescript-language-server"]
    );
    for s in &st {
        assert!(s.pinned_version.is_some(), "{s:?}");
        assert_eq!(s.found, s.path.is_some(), "{s:?}");
        if !s.found {
            assert!(s.install_hint.contains(&s.name), "{s:?}");
        }
        eprintln!("{s:?}");
    }
}

#[test]
fn install_skips_what_is_already_installed() {
    let cfg = LspConfig::default();
    let pyright = install::status(&cfg)
        .into_iter()
        .find(|s| s.name == "pyright")
        .unwrap();
    if !pyright.at_pinned_version() {
        let msg = format!("skipping: pyright not installed at the pinned version ({pyright:?})");
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("{msg}");
        return;
    }
    let mut seen = vec![];
    let done = install::install(&["pyright".into()], &cfg, &mut |e| seen.push(e.clone())).unwrap();
    assert!(
        matches!(&done[..], [install::InstallEvent::Skipped { server, .. }] if server == "pyright")
    );
    assert_eq!(seen, done);
    let e = install::install(&["nope".into()], &cfg, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("unknown server `nope`"), "{e}");
}

// ---------------------------------------------------------------- measurements

/// Numbers for the report, not assertions: `cargo test --test it lsp::measure -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "measurement; run by hand"]
async fn measure() {
    const RS_LIB: &str =
        "mod util;\n\npub fn run() -> u32 {\n    util::helper(1) + util::helper(2)\n}\n";
    for lang in [Lang::Python, Lang::TypeScript, Lang::Rust] {
        let Some(pool) = pool_for(lang) else { continue };
        let (_d, root) = canonical_tempdir();
        let (file, text, needle) = match lang {
            Lang::Python => {
                python_project(&root);
                (root.join("pkg/b.py"), PY_B, "helper")
            }
            Lang::TypeScript => {
                ts_project(&root);
                (root.join("src/b.ts"), TS_B, "helper")
            }
            _ => {
                write(
                    &root,
                    &[
                        (
                            "Cargo.toml",
                            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                        ),
                        ("src/lib.rs", RS_LIB),
                        (
                            "src/util.rs",
                            "pub fn helper(x: u32) -> u32 {\n    x + 1\n}\n",
                        ),
                    ],
                );
                (root.join("src/lib.rs"), RS_LIB, "helper")
            }
        };
        let site = pos_of(text, needle, 1);
        let t = Instant::now();
        bounded(pool.definition(doc(lang, &root, &file, text), site))
            .await
            .unwrap();
        let ready = t.elapsed();
        let mut warm = vec![];
        for _ in 0..20 {
            let t = Instant::now();
            bounded(pool.definition(doc(lang, &root, &file, text), site))
                .await
                .unwrap();
            warm.push(t.elapsed());
        }
        warm.sort();
        eprintln!(
            "{lang:?}: start-to-first-answer {ready:?}; warm definition median {:?} max {:?}",
            warm[warm.len() / 2],
            warm[warm.len() - 1]
        );
        bounded(pool.shutdown()).await;
    }
    // 200 distinct definition sites on pyright, one at a time vs all in flight.
    let Some(pool) = pool_for(Lang::Python) else {
        return;
    };
    let (_d, root) = canonical_tempdir();
    let n = 200;
    let defs: String = (0..n)
        .map(|i| format!("def f{i}(x):\n    return x + {i}\n\n"))
        .collect();
    let uses: String = std::iter::once("from defs import *\n\n".to_string())
        .chain((0..n).map(|i| format!("v{i} = f{i}({i})\n")))
        .collect();
    write(
        &root,
        &[
            ("pyproject.toml", ""),
            ("defs.py", &defs),
            ("uses.py", &uses),
        ],
    );
    let file = root.join("uses.py");
    let sites: Vec<Pos> = (0..n)
        .map(|i| Pos {
            line: i as u32 + 3,
            column: format!("v{i} = ").len() as u32 + 1,
        })
        .collect();
    bounded(pool.definition(doc(Lang::Python, &root, &file, &uses), sites[0]))
        .await
        .unwrap();
    for (label, pipelined) in [
        ("sequential", false),
        ("pipelined", true),
        ("sequential again", false),
    ] {
        let t = Instant::now();
        let results = if pipelined {
            bounded(futures::future::join_all(sites.iter().map(|&p| {
                pool.definition(doc(Lang::Python, &root, &file, &uses), p)
            })))
            .await
        } else {
            let mut v = vec![];
            for &p in &sites {
                v.push(bounded(pool.definition(doc(Lang::Python, &root, &file, &uses), p)).await);
            }
            v
        };
        let el = t.elapsed();
        assert!(results
            .iter()
            .all(|r| r.as_ref().is_ok_and(|l| l.len() == 1)));
        eprintln!(
            "pyright: {n} distinct definitions {label}: {el:?} ({:.0}/s)",
            n as f64 / el.as_secs_f64()
        );
    }
    bounded(pool.shutdown()).await;
}
