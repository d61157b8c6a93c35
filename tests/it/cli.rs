//! The real binary on temp directories: bad input, crashes, rebuilds, and
//! incremental updates that must equal a fresh index.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_refgraph"))
}

pub fn run(repo: &Path, args: &[&str]) -> Output {
    let out = bin()
        .arg("--repo")
        .arg(repo)
        .args(args)
        .output()
        .expect("refgraph runs");
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Move every file's and folder's mtime an hour back, as if the tree had
/// been edited long before the walk (a change within the file system's
/// timestamp granularity of a walk is never trusted, so a test that edits
/// and re-checks within a second would only ever see full walks).
pub fn age(root: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".refgraph" {
                continue;
            }
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                let f = std::fs::File::options().write(true).open(e.path()).unwrap();
                f.set_modified(past).unwrap();
            }
        }
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
}

/// Copy a fixture into a fresh temp dir.
pub fn copy_fixture(name: &str) -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&src, dir.path());
    dir
}

/// Copy a tree, leaving out its database.
pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        if e.file_name() == ".refgraph" {
            continue;
        }
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// The exported graph with ids replaced by keys, one sorted line per item:
/// comparable across databases whose file ids differ.
pub fn graph_lines(repo: &Path) -> BTreeSet<String> {
    let out = run(repo, &["export", "--format", "json"]);
    assert!(out.status.success(), "export failed: {}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut keys = std::collections::HashMap::new();
    let mut lines = BTreeSet::new();
    for n in v["nodes"].as_array().unwrap() {
        keys.insert(
            n["id"].as_i64().unwrap(),
            n["key"].as_str().unwrap().to_string(),
        );
        lines.insert(format!(
            "N {} {} {}:{}:{}-{}",
            n["kind"].as_str().unwrap(),
            n["key"].as_str().unwrap(),
            n["file"].as_str().unwrap(),
            n["line"],
            n["column"],
            n["end_line"]
        ));
    }
    for e in v["edges"].as_array().unwrap() {
        let site = match &e["site"] {
            serde_json::Value::Null => String::new(),
            s => format!(
                "{}:{}:{}",
                s["file"].as_str().unwrap(),
                s["line"],
                s["column"]
            ),
        };
        lines.insert(format!(
            "E {} {} -> {} @{} {} {} {}",
            e["kind"].as_str().unwrap(),
            keys[&e["src"].as_i64().unwrap()],
            keys[&e["dst"].as_i64().unwrap()],
            site,
            e["status"].as_str().unwrap(),
            e["confidence"],
            e["source"].as_str().unwrap()
        ));
    }
    lines
}

fn status_json(repo: &Path) -> serde_json::Value {
    let out = run(repo, &["status", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn missing_repository_is_an_error_naming_it() {
    let out = run(Path::new("/no/such/repo"), &["status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/no/such/repo does not exist"),
        "{}",
        stderr(&out)
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    let out = run(file.path(), &["status"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not a directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_files_are_reported_and_the_rest_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "good.py", "def ok():\n    return 1\n");
    std::fs::write(root.join("blob.py"), b"\x00\x01\x02binary").unwrap();
    std::fs::write(root.join("latin.py"), b"def caf\xe9():\n    pass\n").unwrap();
    write(
        root,
        "node_modules/dep/index.js",
        "export function dep() {}\n",
    );
    write(root, "big.ts", &"// padding\n".repeat(200));
    write(
        root,
        ".refgraph/config.toml",
        "[index]\nmax_file_size = 1000\n",
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root, root.join("loop")).unwrap();
        std::os::unix::fs::symlink(root.join("good.py"), root.join("link.py")).unwrap();
        let fifo = root.join("pipe.py");
        let ok = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "mkfifo works here");
    }
    let out = bin().arg("index").arg(root).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("skipped blob.py: binary"), "{err}");
    assert!(err.contains("skipped link.py: symlink"), "{err}");
    assert!(err.contains("skipped pipe.py: not a file"), "{err}");
    let text = stdout(&out);
    assert!(text.contains("latin.py:1:8 invalid UTF-8"), "{text}");
    assert!(text.contains("1 too large"), "{text}");
    let status = status_json(root);
    assert_eq!(status["files"]["python"], 2, "{status}");
    assert!(
        status["files"].get("javascript").is_none(),
        "node_modules is skipped: {status}"
    );
    let skipped: Vec<&str> = status["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["big.ts", "blob.py", "link.py", "pipe.py"]);
}

#[test]
fn minified_javascript_is_skipped_by_name_and_by_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app.js",
        "export function start() {\n  return 1;\n}\n",
    );
    let packed = format!("var a=function(b){{return b}};{}\n", "a(1);".repeat(1200));
    write(root, "static/jquery.min.js", "function $(){}\n");
    write(root, "static/bundle.js", &packed);
    // Hand-written, with one long data line: its lines stay short on average.
    let data = format!(
        "export const DATA = '{}';\n{}",
        "x".repeat(5000),
        "export function use() {\n  return DATA;\n}\n".repeat(40)
    );
    write(root, "data.js", &data);
    let out = bin().arg("index").arg(root).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 minified"), "{}", stdout(&out));
    let status = status_json(root);
    assert_eq!(status["files"]["javascript"], 2, "{status}");
    let skipped: Vec<(&str, &str)> = status["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("static/bundle.js", "minified"),
            ("static/jquery.min.js", "minified")
        ]
    );
    // A file minified in place leaves the graph.
    write(root, "app.js", &packed);
    assert!(run(root, &["index"]).status.success());
    let status = status_json(root);
    assert_eq!(status["files"]["javascript"], 1, "{status}");
    let found = run(root, &["find", "start", "--json"]);
    assert_eq!(found.status.code(), Some(1), "{}", stdout(&found));
}

#[test]
fn corrupt_and_foreign_databases_are_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.py", "def f():\n    pass\n");
    assert!(run(root, &["index"]).status.success());
    let db = root.join(".refgraph/graph.db");
    // Another schema version.
    let conn = rusqlite_free_set_version(&db);
    drop(conn);
    let out = run(root, &["status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("rebuilt the database"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("schema version 999 found"),
        "{}",
        stderr(&out)
    );
    // Garbage bytes.
    for f in ["graph.db-wal", "graph.db-shm"] {
        let _ = std::fs::remove_file(root.join(".refgraph").join(f));
    }
    std::fs::write(&db, b"this is not a database at all, just text".repeat(100)).unwrap();
    let out = run(root, &["find", "f"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("rebuilt the database"),
        "{}",
        stderr(&out)
    );
    assert!(root.join(".refgraph/.gitignore").exists());
}

/// Sets the stored schema version to 999 with the sqlite3 library through
/// refgraph's own store module (tests may use the library).
fn rusqlite_free_set_version(db: &Path) -> refgraph::store::Store {
    let (store, _) = refgraph::store::Store::open(db).unwrap();
    store.set_meta("schema_version", "999").unwrap();
    store
}

/// Make a repository big enough that indexing takes a while.
fn big_repo(root: &Path, files: usize) {
    for i in 0..files {
        let body: String = (0..30)
            .map(|j| {
                format!(
                    "def f{j}_{i}(x):\n    return g{j}(x) + f{}_{i}(x)\n\n",
                    (j + 1) % 30
                )
            })
            .collect();
        write(root, &format!("pkg{}/m{i}.py", i % 10), &body);
        write(root, &format!("pkg{}/__init__.py", i % 10), "");
    }
}

#[test]
fn killed_index_is_completed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    big_repo(root, 3000);
    let mut killed_mid_run = false;
    for delay_ms in [150u64, 400, 900] {
        let _ = std::fs::remove_dir_all(root.join(".refgraph"));
        let mut child = bin()
            .args(["index", "--no-progress"])
            .arg(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            killed_mid_run = true;
        }
        child.wait().unwrap();
        if killed_mid_run {
            break;
        }
    }
    assert!(
        killed_mid_run,
        "indexing finished before it could be killed"
    );
    let out = run(root, &["index", "--no-progress"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    if said.contains("rebuilt the database") {
        assert!(said.contains("without a journal"), "{said}");
    }
    let status = status_json(root);
    assert_eq!(status["pending"], 0);
    assert_eq!(status["files"]["python"], 3010);
    // A first index this large is a bulk load, written without a journal:
    // the next run starts the interrupted one again from a new database
    // (or, killed before the load began, simply indexes).
    let (store, _) = refgraph::store::Store::open(&root.join(".refgraph/graph.db")).unwrap();
    assert!(
        !store.in_bulk().unwrap(),
        "the interrupted bulk load was finished"
    );
    drop(store);
    let found = run(root, &["find", "f3_17", "--json"]);
    assert!(found.status.success(), "{}", stderr(&found));
    let resumed = graph_lines(root);
    let fresh = tempfile::tempdir().unwrap();
    big_repo(fresh.path(), 3000);
    assert!(run(fresh.path(), &["index"]).status.success());
    assert_eq!(resumed, graph_lines(fresh.path()));
}

#[test]
fn queries_reindex_changed_files_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.py", "def alpha():\n    pass\n");
    assert!(run(root, &["index"]).status.success());
    let out = run(root, &["find", "beta", "--json"]);
    assert_eq!(out.status.code(), Some(1), "nothing found is exit 1");
    write(root, "b.py", "def beta():\n    pass\n");
    let out = run(root, &["find", "beta", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["index"]["reindexed"], 1);
    assert_eq!(v["index"]["fresh"], true);
    assert_eq!(v["results"][0]["file"], "b.py");
    std::fs::remove_file(root.join("b.py")).unwrap();
    let out = run(root, &["find", "beta"]);
    assert_eq!(out.status.code(), Some(1), "deleted file leaves no node");
}

/// An edit that moves, renames, adds and removes definitions leaves the
/// stored nodes and the search index as a fresh index would (unchanged
/// rows are kept, changed ones updated).
#[test]
fn edited_definitions_are_found_where_they_are_now() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "a.py",
        "def alpha():\n    pass\n\ndef beta():\n    pass\n\ndef omega():\n    pass\n",
    );
    assert!(run(root, &["index"]).status.success());
    // alpha moves down two lines, beta becomes gamma, omega goes, and
    // delta is new.
    write(
        root,
        "a.py",
        "import os\n\ndef alpha():\n    pass\n\ndef gamma():\n    pass\n\ndef delta():\n    return os\n",
    );
    let found = |q: &str| -> Vec<(String, i64)> {
        let out = run(root, &["find", q, "--json"]);
        if out.status.code() == Some(1) {
            return Vec::new();
        }
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["line"].as_i64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(found("alpha"), [("alpha".to_string(), 3)]);
    assert_eq!(found("gamma"), [("gamma".to_string(), 6)]);
    assert_eq!(found("delta"), [("delta".to_string(), 9)]);
    assert!(found("beta").is_empty(), "{:?}", found("beta"));
    assert!(found("omega").is_empty(), "{:?}", found("omega"));
    let incremental = graph_lines(root);
    let _ = std::fs::remove_dir_all(root.join(".refgraph"));
    assert_eq!(incremental, graph_lines(root));
}

/// Apply edits to a copy of each fixture, update incrementally, and compare
/// with a fresh index of the same tree: incremental must equal cold.
pub fn assert_incremental_equals_cold(fixture: &str, edits: &[(&str, Option<&str>)]) {
    let repo = copy_fixture(fixture);
    assert!(run(repo.path(), &["index"]).status.success());
    for (path, text) in edits {
        match text {
            Some(t) => write(repo.path(), path, t),
            None => std::fs::remove_file(repo.path().join(path)).unwrap(),
        }
    }
    let incremental = graph_lines(repo.path());
    let _ = std::fs::remove_dir_all(repo.path().join(".refgraph"));
    let cold = graph_lines(repo.path());
    let only_inc: Vec<_> = incremental.difference(&cold).collect();
    let only_cold: Vec<_> = cold.difference(&incremental).collect();
    assert!(
        only_inc.is_empty() && only_cold.is_empty(),
        "incremental differs from cold on {fixture}:\nonly incremental: {only_inc:#?}\nonly cold: {only_cold:#?}"
    );
}

/// A file of the fixtures, by path below `fixtures/`.
pub fn fixture_path(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}
