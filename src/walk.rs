//! Walk a repository: source files by language, manifests, and what was
//! skipped and why. Respects `.gitignore`; never follows symlinks (a link
//! could lead outside the repository, or round in a loop).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use ignore::{WalkBuilder, WalkState};

use crate::extract::Lang;

pub mod snapshot;
pub use snapshot::{Snapshot, SNAPSHOT_FILE};

/// Version-control and refgraph's own folders: skipped, not counted.
const VCS_DIRS: [&str; 4] = [".git", ".hg", ".svn", ".refgraph"];

/// Folders users expect skipped: dependencies, build output, virtualenvs, caches.
pub const SKIP_DIRS: [&str; 18] = [
    ".git",
    ".hg",
    ".svn",
    ".refgraph",
    "node_modules",
    "bower_components",
    "target",
    "dist",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    ".next",
];

#[derive(Clone, Debug)]
pub struct WalkConfig {
    /// Files larger than this are skipped (generated or minified, mostly).
    pub max_file_size: u64,
    /// Honour `.gitignore` and friends.
    pub respect_gitignore: bool,
}

impl Default for WalkConfig {
    fn default() -> Self {
        WalkConfig {
            max_file_size: 1024 * 1024,
            respect_gitignore: true,
        }
    }
}

/// A source file found by the walk.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WalkedFile {
    /// Repo-relative, `/`-separated.
    pub path: String,
    pub lang: Lang,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (0 if unknown).
    pub mtime_ns: i64,
}

/// Why a file was not indexed.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum SkipReason {
    TooLarge,
    Symlink,
    Unreadable,
    Binary,
    NotAFile,
    Vanished,
    Minified,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too large",
            SkipReason::Symlink => "symlink",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Binary => "binary",
            SkipReason::NotAFile => "not a file",
            SkipReason::Vanished => "vanished",
            SkipReason::Minified => "minified",
        }
    }
}

/// A file that was skipped, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
    pub detail: String,
}

#[derive(Debug, Default)]
pub struct Walk {
    /// Sorted by path.
    pub files: Vec<WalkedFile>,
    /// Manifest path → absolute path, for the layout.
    pub manifests: BTreeMap<String, PathBuf>,
    /// Sorted by path.
    pub skipped: Vec<Skipped>,
    /// Folders skipped by name (`node_modules`, `target`, …, virtualenvs),
    /// repo-relative and sorted (a walk of part of the tree replaces that
    /// part's).
    pub skipped_dir_paths: Vec<String>,
    /// Every folder walked (repo-relative, `""` for the root) with its
    /// modification time: a folder whose entries change gets a new one.
    pub dirs: Vec<(String, i64)>,
    /// Ignore files (`.gitignore`, `.ignore`) met in the walk, absolute.
    pub ignore_files: Vec<PathBuf>,
    /// False when an entry could not be read or vanished mid-walk: such a
    /// walk is not a baseline for [`Snapshot`].
    pub stable: bool,
}

impl Walk {
    /// How many folders were skipped by name.
    pub fn skipped_dirs(&self) -> u64 {
        self.skipped_dir_paths.len() as u64
    }
}

/// Walk `root`. Errors on single entries are recorded in `skipped`; the walk
/// itself does not fail.
pub fn walk(root: &Path, config: &WalkConfig) -> Walk {
    walk_from(root, root, config)
}

/// Walk the folder `start` of the tree at `root` as [`walk`] walks it inside
/// the whole tree (the ignore files of the folders above it apply; paths
/// are relative to `root`).
pub fn walk_from(root: &Path, start: &Path, config: &WalkConfig) -> Walk {
    walk_in(root, start, config, None)
}

/// The folder `start` of the tree at `root` and its direct entries (its
/// sub-folders with their mtimes, not what is in them), as [`walk`] finds
/// them.
pub fn list_folder(root: &Path, start: &Path, config: &WalkConfig) -> Walk {
    walk_in(root, start, config, Some(1))
}

fn walk_in(root: &Path, start: &Path, config: &WalkConfig, max_depth: Option<usize>) -> Walk {
    let out = Mutex::new(Walk {
        stable: true,
        ..Walk::default()
    });
    if start != root && skip_dir(start) {
        // As the whole tree's walk would: skipped by name, not entered.
        let mut walk = out.into_inner().unwrap();
        if !is_vcs_dir(start) {
            walk.skipped_dir_paths.push(rel_path(root, start));
        }
        return walk;
    }
    let mut builder = WalkBuilder::new(start);
    builder
        .follow_links(false)
        .hidden(false)
        .git_ignore(config.respect_gitignore)
        .git_global(false)
        .git_exclude(config.respect_gitignore)
        .ignore(config.respect_gitignore)
        .parents(config.respect_gitignore)
        .require_git(false)
        .max_depth(max_depth)
        .threads(if max_depth.is_some() { 1 } else { 2 });
    let skipped_dirs = Arc::new(Mutex::new(Vec::new()));
    let counter = Arc::clone(&skipped_dirs);
    let filter_root = root.to_path_buf();
    builder.filter_entry(move |e| {
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        let skip = is_dir && e.depth() > 0 && skip_dir(e.path());
        if skip && !is_vcs_dir(e.path()) {
            counter
                .lock()
                .unwrap()
                .push(rel_path(&filter_root, e.path()));
        }
        !skip
    });
    builder.build_parallel().run(|| {
        let out = &out;
        Box::new(move |entry| {
            match entry {
                Ok(e) => visit(root, &e, config, out),
                Err(err) => {
                    let path = match &err {
                        ignore::Error::WithPath { path, .. } => rel_path(root, path),
                        _ => String::new(),
                    };
                    let mut out = out.lock().unwrap();
                    out.stable = false;
                    out.skipped.push(Skipped {
                        path,
                        reason: SkipReason::Unreadable,
                        detail: err.to_string(),
                    });
                }
            }
            WalkState::Continue
        })
    });
    let mut walk = out.into_inner().unwrap();
    walk.skipped_dir_paths = std::mem::take(&mut *skipped_dirs.lock().unwrap());
    walk.skipped_dir_paths.sort();
    walk.files.sort_by(|a, b| a.path.cmp(&b.path));
    walk.skipped.sort();
    walk.dirs.sort();
    walk.ignore_files.sort();
    walk
}

/// A version-control folder (and refgraph's own): skipped, not counted.
fn is_vcs_dir(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') && VCS_DIRS.contains(&n))
}

fn skip_dir(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    SKIP_DIRS.contains(&name) || venv_marker(path).is_file() || is_setuptools_build(path)
}

/// A `build` folder as setuptools leaves it (`build/lib`, `build/lib.<platform>`,
/// `build/bdist.<platform>`, `build/temp.<platform>`): copies of the
/// package's modules, which would make every name of it ambiguous. A
/// `build` folder of anything else (a project's build scripts) is walked.
/// The snapshot watches the folder itself: its entries are the marker.
pub fn is_setuptools_build(path: &Path) -> bool {
    if path.file_name().and_then(|n| n.to_str()) != Some("build") {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let setuptools = name == "lib"
            || ["lib.", "bdist.", "temp."]
                .iter()
                .any(|p| name.starts_with(p));
        setuptools && e.file_type().is_ok_and(|t| t.is_dir())
    })
}

/// The file that makes a folder a virtualenv (skipped whatever its name):
/// the snapshot watches it in folders skipped for it.
pub fn venv_marker(dir: &Path) -> PathBuf {
    dir.join("pyvenv.cfg")
}

fn visit(root: &Path, e: &ignore::DirEntry, config: &WalkConfig, out: &Mutex<Walk>) {
    let Some(ft) = e.file_type() else { return };
    if ft.is_dir() {
        let mtime = e.metadata().ok().map_or(0, |m| mtime_ns(&m));
        out.lock()
            .unwrap()
            .dirs
            .push((rel_path(root, e.path()), mtime));
        return;
    }
    let path = rel_path(root, e.path());
    let name = e.file_name().to_str().unwrap_or("");
    if matches!(name, ".gitignore" | ".ignore") {
        out.lock()
            .unwrap()
            .ignore_files
            .push(e.path().to_path_buf());
    }
    let lang = Lang::of_path(name);
    if crate::resolve::is_manifest(name) && ft.is_file() {
        out.lock()
            .unwrap()
            .manifests
            .insert(path, e.path().to_path_buf());
        return;
    }
    let Some(lang) = lang else { return };
    if ft.is_symlink() {
        out.lock().unwrap().skipped.push(Skipped {
            path,
            reason: SkipReason::Symlink,
            detail: "symlinks are not followed".into(),
        });
        return;
    }
    if !ft.is_file() {
        out.lock().unwrap().skipped.push(Skipped {
            path,
            reason: SkipReason::NotAFile,
            detail: "not a regular file (a fifo, socket or device)".into(),
        });
        return;
    }
    let meta = match e.metadata() {
        Ok(m) => m,
        Err(err) => {
            let mut out = out.lock().unwrap();
            out.stable = false;
            out.skipped.push(Skipped {
                path,
                reason: SkipReason::Vanished,
                detail: err.to_string(),
            });
            return;
        }
    };
    match classify(path, lang, &EntryStat::of(&meta), config) {
        Ok(f) => out.lock().unwrap().files.push(f),
        Err(s) => out.lock().unwrap().skipped.push(s),
    }
}

/// A source file's entry from its metadata (not following symlinks): the
/// file to index, or why it is skipped.
fn classify(
    path: String,
    lang: Lang,
    stat: &EntryStat,
    config: &WalkConfig,
) -> Result<WalkedFile, Skipped> {
    match stat.kind {
        EntryKind::File => {}
        EntryKind::Symlink => {
            return Err(Skipped {
                path,
                reason: SkipReason::Symlink,
                detail: "symlinks are not followed".into(),
            })
        }
        EntryKind::Dir | EntryKind::Other => {
            return Err(Skipped {
                path,
                reason: SkipReason::NotAFile,
                detail: "not a regular file (a fifo, socket or device)".into(),
            })
        }
    }
    if lang == Lang::JavaScript && MINIFIED_SUFFIXES.iter().any(|s| path.ends_with(s)) {
        return Err(Skipped {
            path,
            reason: SkipReason::Minified,
            detail: "named as minified JavaScript".into(),
        });
    }
    if stat.size > config.max_file_size {
        return Err(Skipped {
            path,
            reason: SkipReason::TooLarge,
            detail: format!("{} bytes, limit {}", stat.size, config.max_file_size),
        });
    }
    Ok(WalkedFile {
        path,
        lang,
        size: stat.size,
        mtime_ns: stat.mtime_ns,
    })
}

/// What a `stat` that does not follow symlinks says about an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryStat {
    pub kind: EntryKind,
    pub size: u64,
    /// As [`mtime_ns`] computes it.
    pub mtime_ns: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    /// A fifo, socket or device.
    Other,
}

impl EntryStat {
    pub fn of(meta: &std::fs::Metadata) -> EntryStat {
        let ft = meta.file_type();
        let kind = if ft.is_symlink() {
            EntryKind::Symlink
        } else if ft.is_dir() {
            EntryKind::Dir
        } else if ft.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        };
        EntryStat {
            kind,
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
        }
    }
}

/// Modification time in nanoseconds since the epoch (0 if unknown).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// `root/a/b.py` → `a/b.py`.
pub fn rel_path(root: &Path, path: &Path) -> String {
    // The walk joins names to the root: on `/` systems the path is the
    // root's text, a `/` and a clean relative path, taken as it is. Parsing
    // components was most of a full walk (6,000 instructions a path).
    if std::path::MAIN_SEPARATOR == '/' {
        if let (Some(p), Some(r)) = (path.to_str(), root.to_str()) {
            let r = r.trim_end_matches('/');
            if let Some(rest) = p.strip_prefix(r).and_then(|s| s.strip_prefix('/')) {
                if rest
                    .split('/')
                    .all(|c| !c.is_empty() && c != "." && c != "..")
                {
                    return rest.to_string();
                }
            }
        }
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut s = String::new();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            s.push('/');
        }
        s.push_str(&c.as_os_str().to_string_lossy());
    }
    s
}

/// Minified JavaScript is generated, not written: its one-letter names
/// would only make the project's own names ambiguous. Skipped by name
/// (`jquery.min.js`) and, unnamed, by its lines (see [`check_text`]).
const MINIFIED_SUFFIXES: [&str; 3] = [".min.js", ".min.mjs", ".min.cjs"];

/// JavaScript whose lines average this many bytes or more (over at least
/// [`MINIFIED_MIN_SIZE`] bytes) is minified: hand-written code averages
/// under 40, and a bundle that is not minified (`jquery.js`) keeps its lines.
const MINIFIED_MEAN_LINE: usize = 300;
const MINIFIED_MIN_SIZE: usize = 4096;

/// Check bytes read from a source file. Binary files and minified
/// JavaScript are refused; a file that is not valid UTF-8 is still parsed
/// (Tree-sitter reads bytes), and the returned diagnostic says where the
/// first invalid byte is.
pub fn check_text(
    lang: Lang,
    bytes: &[u8],
) -> Result<Option<crate::extract::Diagnostic>, (SkipReason, String)> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err((SkipReason::Binary, "contains NUL bytes".into()));
    }
    if lang == Lang::JavaScript && bytes.len() >= MINIFIED_MIN_SIZE {
        let lines = 1 + memchr::memchr_iter(b'\n', bytes).count();
        let mean = bytes.len() / lines;
        if mean >= MINIFIED_MEAN_LINE {
            return Err((
                SkipReason::Minified,
                format!("{lines} lines of {mean} bytes on average"),
            ));
        }
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        let upto = &bytes[..e.valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        return Ok(Some(crate::extract::Diagnostic {
            pos: crate::graph::Pos {
                line: line as u32,
                column: (upto.len() - line_start + 1) as u32,
            },
            message: "invalid UTF-8: the file is indexed as bytes from here on".into(),
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setuptools_build_folder_is_skipped_and_other_build_folders_are_walked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, text) in [
            ("pkg/a.py", "def f(): pass\n"),
            ("build/lib/pkg/a.py", "def f(): pass\n"),
            ("build/bdist.linux-x86_64/x.py", ""),
            ("ext/build/lib.linux-x86_64-cpython-312/pkg/b.py", ""),
            // A project's own build scripts, and a `lib` file (not a folder).
            ("web/build/rollup.config.js", "export default {}\n"),
            ("tools/build/lib", ""),
            ("tools/build/make.py", ""),
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let w = walk(root, &WalkConfig::default());
        let files: Vec<&str> = w.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            files,
            [
                "pkg/a.py",
                "tools/build/make.py",
                "web/build/rollup.config.js"
            ]
        );
        assert_eq!(w.skipped_dir_paths, ["build", "ext/build"]);
    }

    #[test]
    fn rel_path_takes_clean_paths_as_they_are_and_normalizes_the_rest() {
        let cases = [
            ("/r", "/r/a/b.py", "a/b.py"),
            ("/r/", "/r/a/b.py", "a/b.py"),
            ("/", "/a.py", "a.py"),
            (".", "./pkg/m.py", "pkg/m.py"),
            // Not a clean path under the root by text: components decide.
            ("/r", "/r", ""),
            ("/r", "/r/./a//b.py", "a/b.py"),
            ("/r", "/r/a/../b.py", "a/../b.py"),
        ];
        for (root, path, want) in cases {
            assert_eq!(
                rel_path(Path::new(root), Path::new(path)),
                want,
                "{root} {path}"
            );
        }
    }
}
