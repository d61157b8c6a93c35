//! The last complete walk, kept beside the database so that the next
//! freshness check can skip the directory walk.
//!
//! A folder's modification time changes whenever an entry is added to it,
//! removed from it or renamed in it. So if no walked folder, ignore file or
//! manifest changed since the last walk, the set of entries is the same and
//! only the known files need a `stat` for their size and mtime — no
//! directory reads, no ignore-rule matching. A folder that changed (a file
//! added, removed or renamed in it, as an editor's atomic save does), or was
//! touched within [`RACY_NS`] of the walk, is listed again: its entries, and
//! its new sub-folders walked whole (a new ignore file in it: the folder
//! walked whole); the rest of the snapshot is kept. Anything else (a changed
//! ignore file or manifest, a new one at the root, other walk limits, many
//! changed folders) falls back to the full walk.
//!
//! The snapshot describes what a completed update left in the database: it
//! is removed before an update writes anything and written again when the
//! update has finished.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Skipped, Walk, WalkConfig, WalkedFile};

mod tree;

/// Where the snapshot is kept, inside the database folder.
pub const SNAPSHOT_FILE: &str = "walk.bin";

/// Bumped when the layout of [`Snapshot`] changes.
const VERSION: u32 = 3;

/// More changed folders than this and the whole tree is walked again.
const MAX_CHANGED_FOLDERS: usize = 32;

/// File systems keep coarse timestamps (a clock tick, often milliseconds):
/// a folder or file changed this close to the walk may change again with
/// the same mtime, so it is not trusted.
pub const RACY_NS: i64 = 2_000_000_000;

#[derive(Debug, Serialize, Deserialize)]
pub struct Snapshot {
    version: u32,
    max_file_size: u64,
    respect_gitignore: bool,
    /// When the walk started (ns since the epoch).
    pub taken_ns: i64,
    dirs: Vec<(String, i64)>,
    /// Ignore files and manifests, with their size and mtime when they
    /// existed (a missing one is watched for appearing).
    watched: Vec<(PathBuf, Option<(u64, i64)>)>,
    files: Vec<WalkedFile>,
    skipped: Vec<Skipped>,
    skipped_dir_paths: Vec<String>,
    manifests: BTreeMap<String, PathBuf>,
    ignore_files: Vec<PathBuf>,
    /// What the update reported as skipped (the walk's skips and the files
    /// it could not read as text) and how many files the index held.
    pub update_skipped: Vec<Skipped>,
    pub indexed_files: usize,
}

fn stat(path: &Path) -> Option<(u64, i64)> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.len(), super::mtime_ns(&m)))
}

/// The ignore files above `root` that the walk honours (parents' ignore
/// files and the repository's `info/exclude`), present or not.
fn outer_ignore_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (depth, dir) in root.ancestors().enumerate() {
        if depth > 0 {
            out.push(dir.join(".gitignore"));
            out.push(dir.join(".ignore"));
        }
        let git = dir.join(".git");
        out.push(git.join("info").join("exclude"));
        if git.exists() {
            break;
        }
    }
    out
}

impl Snapshot {
    /// A snapshot of `walk`, or `None` when the walk is no baseline (an
    /// entry could not be read, or vanished).
    pub fn take(
        root: &Path,
        config: &WalkConfig,
        taken_ns: i64,
        walk: &Walk,
        update_skipped: &[Skipped],
        indexed_files: usize,
    ) -> Option<Snapshot> {
        if !walk.stable || walk.dirs.is_empty() {
            return None;
        }
        let watched = walk
            .ignore_files
            .iter()
            .cloned()
            .chain(walk.manifests.values().cloned())
            .chain(outer_ignore_files(root))
            // A virtualenv is skipped for its marker file, and not walked:
            // only that file going away would show that it is no longer one.
            // A setuptools `build` folder is skipped for its entries: its
            // own mtime changes with them.
            .chain(
                walk.skipped_dir_paths
                    .iter()
                    .filter(|d| {
                        let name = d.rsplit('/').next().unwrap_or(d);
                        !super::SKIP_DIRS.contains(&name)
                    })
                    .map(|d| match d.rsplit('/').next() {
                        Some("build") => root.join(d),
                        _ => super::venv_marker(&root.join(d)),
                    }),
            )
            .map(|p| {
                let s = stat(&p);
                (p, s)
            })
            .collect();
        Some(Snapshot {
            version: VERSION,
            max_file_size: config.max_file_size,
            respect_gitignore: config.respect_gitignore,
            taken_ns,
            dirs: walk.dirs.clone(),
            watched,
            files: walk.files.clone(),
            skipped: walk.skipped.clone(),
            skipped_dir_paths: walk.skipped_dir_paths.clone(),
            manifests: walk.manifests.clone(),
            ignore_files: walk.ignore_files.clone(),
            update_skipped: update_skipped.to_vec(),
            indexed_files,
        })
    }

    /// Read the snapshot in `dir` (the database folder), if there is a
    /// readable one of this version.
    pub fn load(dir: &Path) -> Option<Snapshot> {
        let bytes = std::fs::read(dir.join(SNAPSHOT_FILE)).ok()?;
        let s: Snapshot = postcard::from_bytes(&bytes).ok()?;
        (s.version == VERSION).then_some(s)
    }

    /// Write it to `dir` atomically (a temporary file renamed over the old).
    pub fn store(&self, dir: &Path) -> std::io::Result<()> {
        Snapshot::store_encoded(dir, &self.encode()?)
    }

    /// Its bytes as [`Snapshot::store_encoded`] writes them (encoding a
    /// large tree's snapshot takes milliseconds: an update does it while it
    /// resolves, and stores it once the database is complete).
    pub fn encode(&self) -> std::io::Result<Vec<u8>> {
        postcard::to_allocvec(self).map_err(std::io::Error::other)
    }

    /// Write an encoded snapshot to `dir` atomically (a temporary file
    /// renamed over the old).
    pub fn store_encoded(dir: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let tmp = dir.join(format!("{SNAPSHOT_FILE}.tmp"));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, dir.join(SNAPSHOT_FILE))
    }

    /// Forget the snapshot in `dir` (before the database is written).
    pub fn remove(dir: &Path) -> std::io::Result<()> {
        match std::fs::remove_file(dir.join(SNAPSHOT_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The walk of `root` now, if no ignore file or manifest changed since
    /// the snapshot: the known entries `stat`ed, and the folders that
    /// changed listed again. With it, how many folders were listed again
    /// (0: none, the walk is the snapshot's entries). `None` when a full
    /// walk is needed.
    pub fn rewalk(&self, root: &Path, config: &WalkConfig) -> Option<(Walk, usize)> {
        if self.max_file_size != config.max_file_size
            || self.respect_gitignore != config.respect_gitignore
        {
            return None;
        }
        let trusted = |mtime: i64| mtime < self.taken_ns - RACY_NS;
        // Thousands of `stat`s: on all cores.
        let (restat, entries) = crate::index::workers().install(|| {
            let watched_same = self.watched.iter().all(|(path, was)| {
                let now = stat(path);
                now == *was && now.is_none_or(|(_, m)| trusted(m))
            });
            if !watched_same {
                return None;
            }
            // The same entries: classify each again from its metadata.
            let entries: Vec<(&String, crate::extract::Lang)> = self
                .files
                .iter()
                .map(|f| (&f.path, f.lang))
                .chain(self.skipped.iter().filter_map(|s| {
                    let lang = crate::extract::Lang::of_path(&s.path)?;
                    Some((&s.path, lang))
                }))
                .collect();
            let paths: Vec<&str> = entries.iter().map(|(p, _)| p.as_str()).collect();
            let restat = tree::stat_unchanged(root, &self.dirs, &paths, &trusted)?;
            Some((restat, entries))
        })?;
        let changed: Vec<&str> = restat
            .changed
            .iter()
            .map(|&i| self.dirs[i].0.as_str())
            .collect();
        if changed.len() > MAX_CHANGED_FOLDERS {
            return None;
        }
        let known_dirs: foldhash::HashSet<&str> =
            self.dirs.iter().map(|(d, _)| d.as_str()).collect();
        let known_ignores: foldhash::HashSet<&Path> =
            self.ignore_files.iter().map(PathBuf::as_path).collect();
        // What replaces the snapshot's records: the changed folders listed
        // again (their direct entries and sub-folders), and folders walked
        // whole (new ones, and changed ones with a new ignore file, whose
        // rules reach everything under them). `dropped`: folders whose
        // records under them all go (walked whole, gone, or now skipped).
        let mut parts: Vec<Walk> = Vec::new();
        let mut listed: Vec<&str> = Vec::new();
        let mut dropped: Vec<String> = Vec::new();
        for &c in &changed {
            if dropped.iter().any(|d| is_under(c, d)) {
                continue;
            }
            let mut part = super::list_folder(root, &root.join(c), config);
            if !part.stable {
                return None;
            }
            let new_rules = part
                .ignore_files
                .iter()
                .any(|f| !known_ignores.contains(f.as_path()));
            let gone_or_skipped = !part.dirs.iter().any(|(d, _)| d == c);
            if c.is_empty() && (new_rules || gone_or_skipped) {
                // New rules at the root reach everything: the full walk.
                return None;
            }
            if gone_or_skipped {
                // Now skipped by name (a virtualenv): the listing says so.
                // Gone, or no longer a folder: its parent's listing has
                // whatever took its place.
                dropped.push(c.to_string());
                parts.push(Walk {
                    skipped_dir_paths: part.skipped_dir_paths,
                    ..Walk::default()
                });
                continue;
            }
            if new_rules {
                part = super::walk_from(root, &root.join(c), config);
                if !part.stable {
                    return None;
                }
                dropped.push(c.to_string());
                parts.push(part);
                continue;
            }
            // Sub-folders: new ones are walked whole; known ones keep their
            // records (checked above); known ones missing from the listing
            // (gone, or now skipped or ignored) lose them.
            let subs: Vec<&str> = part
                .dirs
                .iter()
                .map(|(d, _)| d.as_str())
                .filter(|d| *d != c)
                .collect();
            let mut whole = Vec::new();
            for d in &subs {
                if !known_dirs.contains(d) {
                    let sub = super::walk_from(root, &root.join(d), config);
                    if !sub.stable {
                        return None;
                    }
                    dropped.push(d.to_string());
                    whole.push(sub);
                }
            }
            for (d, _) in &self.dirs {
                if parent_dir(d) == Some(c) && !subs.contains(&d.as_str()) {
                    dropped.push(d.clone());
                }
            }
            listed.push(c);
            parts.push(part);
            parts.extend(whole);
        }
        let dropped_ref = &dropped;
        let listed_set: foldhash::HashSet<&str> = listed.iter().copied().collect();
        let listed_ref = &listed_set;
        // A record the new listings and walks replace (asked for every
        // record of the tree: set lookups, not a scan of the listings).
        let replaced = move |path: &str, is_dir: bool| {
            (is_dir && listed_ref.contains(path))
                || parent_dir(path).is_some_and(|p| listed_ref.contains(p))
                || dropped_ref.iter().any(|d| is_under(path, d))
        };
        let mut walk = Walk {
            manifests: self.manifests.clone(),
            skipped_dir_paths: self.skipped_dir_paths.clone(),
            dirs: self.dirs.clone(),
            ignore_files: self.ignore_files.clone(),
            stable: true,
            ..Walk::default()
        };
        for ((path, lang), st) in entries.iter().zip(&restat.stats) {
            if replaced(path, false) {
                continue;
            }
            // Entries of unchanged folders were all stat'ed.
            let st = st.as_ref()?;
            match super::classify((*path).clone(), *lang, st, config) {
                Ok(f) => walk.files.push(f),
                Err(s) => walk.skipped.push(s),
            }
        }
        if !changed.is_empty() {
            walk.dirs.retain(|(d, _)| !replaced(d, true));
            walk.skipped_dir_paths.retain(|d| !replaced(d, true));
            walk.manifests.retain(|m, _| !replaced(m, false));
            walk.ignore_files
                .retain(|f| !replaced(&super::rel_path(root, f), false));
            for part in parts {
                walk.files.extend(part.files);
                walk.skipped.extend(part.skipped);
                walk.dirs.extend(part.dirs);
                walk.skipped_dir_paths.extend(part.skipped_dir_paths);
                walk.manifests.extend(part.manifests);
                walk.ignore_files.extend(part.ignore_files);
            }
            // A changed folder is also in its changed parent's listing: as
            // a folder, or as a folder now skipped by name.
            walk.dirs.sort();
            walk.dirs.dedup_by(|a, b| a.0 == b.0);
            walk.skipped_dir_paths.sort();
            walk.skipped_dir_paths.dedup();
            walk.ignore_files.sort();
        }
        walk.files.sort_by(|a, b| a.path.cmp(&b.path));
        walk.skipped.sort();
        Some((walk, changed.len()))
    }

    /// The size, mtime and language of each file the update that took this
    /// snapshot indexed (it could read all but its `update_skipped`), by
    /// path: what the database's rows held as that update completed.
    pub fn indexed(&self) -> foldhash::HashMap<&str, (u64, i64, crate::extract::Lang)> {
        let skipped: foldhash::HashSet<&str> = self
            .update_skipped
            .iter()
            .map(|s| s.path.as_str())
            .collect();
        self.files
            .iter()
            .filter(|f| !skipped.contains(f.path.as_str()))
            .map(|f| (f.path.as_str(), (f.size, f.mtime_ns, f.lang)))
            .collect()
    }

    /// Whether `walk` is exactly the walk this snapshot was taken of, with no
    /// file changed too close to it to trust its mtime.
    pub fn unchanged(&self, walk: &Walk) -> bool {
        walk.files == self.files
            && walk.skipped == self.skipped
            && walk
                .files
                .iter()
                .all(|f| f.mtime_ns < self.taken_ns - RACY_NS)
    }
}

/// The folder a repo-relative path is in (`None` for the root itself).
fn parent_dir(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    Some(path.rsplit_once('/').map_or("", |(d, _)| d))
}

/// Whether repo-relative `path` is folder `dir` or inside it.
fn is_under(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// The parts of a walk a snapshot and an update use.
    fn view(w: &Walk) -> String {
        format!(
            "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{} {:?}",
            w.files,
            w.skipped,
            w.dirs,
            w.manifests,
            w.ignore_files,
            w.skipped_dirs(),
            w.skipped_dir_paths
        )
    }

    #[test]
    fn changed_folders_are_walked_again_and_the_result_is_the_full_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            "app/core/a.py",
            "app/core/b.py",
            "app/web/views.py",
            "app/web/deep/x.py",
            "lib/util.py",
            "lib/old/gone.py",
            "lib/keep/k.py",
            "lib/keep/inner/i.py",
            "top.py",
        ] {
            write(root, rel, "x = 1\n");
        }
        let cfg = WalkConfig::default();
        let before = crate::walk::walk(root, &cfg);
        // Taken "later" than every mtime here, so that only a changed
        // mtime makes a folder changed (not the racy window).
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i64;
        let taken = now + 10 * RACY_NS;
        let snap = Snapshot::take(root, &cfg, taken, &before, &[], before.files.len()).unwrap();
        let (same, folders) = snap.rewalk(root, &cfg).unwrap();
        assert_eq!(folders, 0);
        assert_eq!(view(&same), view(&before));

        // An atomic save (write aside, rename over), a new file, a new
        // folder with a file, a skipped folder, a manifest, an ignore file
        // that ignores a file next to it, and a removed folder.
        write(root, "app/core/.a.py.swp", "");
        std::fs::rename(root.join("app/core/.a.py.swp"), root.join("app/core/a.py")).unwrap();
        write(root, "app/web/deep/y.py", "y = 2\n");
        write(root, "app/web/new/z.py", "z = 3\n");
        write(root, "app/web/node_modules/m.js", "");
        write(root, "app/web/package.json", "{}");
        write(root, "app/web/deep/.gitignore", "x.py\n");
        std::fs::remove_file(root.join("lib/old/gone.py")).unwrap();
        std::fs::remove_dir(root.join("lib/old")).unwrap();
        let (part, folders) = snap.rewalk(root, &cfg).unwrap();
        let full = crate::walk::walk(root, &cfg);
        assert_eq!(view(&part), view(&full));
        // `app/core`, `app/web`, `app/web/deep` (walked whole: a new ignore
        // file) and `lib`.
        assert_eq!(folders, 4);
        assert!(full.files.iter().any(|f| f.path == "app/web/new/z.py"));
        assert!(!full.files.iter().any(|f| f.path == "app/web/deep/x.py"));
        assert_eq!(full.skipped_dir_paths, ["app/web/node_modules"]);
        // Unchanged folders under a changed one keep their records.
        assert!(part.files.iter().any(|f| f.path == "lib/keep/inner/i.py"));

        // A folder that is now a virtualenv is skipped as a full walk skips it.
        let snap = Snapshot::take(root, &cfg, taken, &full, &[], full.files.len()).unwrap();
        write(root, "lib/pyvenv.cfg", "");
        let (part, folders) = snap.rewalk(root, &cfg).unwrap();
        let full = crate::walk::walk(root, &cfg);
        assert_eq!(folders, 1);
        assert_eq!(view(&part), view(&full));
        assert_eq!(full.skipped_dir_paths, ["app/web/node_modules", "lib"]);

        // A new file at the top: the root is listed again.
        let snap = Snapshot::take(root, &cfg, taken, &full, &[], full.files.len()).unwrap();
        write(root, "new_top.py", "");
        write(root, "README.md", "");
        let (part, folders) = snap.rewalk(root, &cfg).unwrap();
        let full = crate::walk::walk(root, &cfg);
        assert_eq!(folders, 1);
        assert_eq!(view(&part), view(&full));

        // A new ignore file at the top reaches everything: a full walk.
        let snap = Snapshot::take(root, &cfg, taken, &full, &[], full.files.len()).unwrap();
        write(root, ".gitignore", "app/\n");
        assert!(snap.rewalk(root, &cfg).is_none());
    }

    /// Random edits of a small tree, many rounds: whenever the snapshot
    /// answers, its walk is the full walk.
    #[test]
    fn random_edits_rewalk_as_the_full_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let folders = ["", "a", "a/b", "a/b/c", "d", "d/e", "f"];
        let names = ["x.py", "y.ts", "z.rs", "w.txt", "package.json"];
        let mut seed: u64 = 0x5eed_1234_abcd_0001;
        let mut next = |n: usize| {
            // xorshift64*
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        };
        for f in &folders[1..] {
            std::fs::create_dir_all(root.join(f)).unwrap();
        }
        write(root, "a/b/c/x.py", "x = 1\n");
        let cfg = WalkConfig::default();
        let mut base = crate::walk::walk(root, &cfg);
        let (mut partial, mut full_walks) = (0, 0);
        for round in 0..150 {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as i64;
            let snap = Snapshot::take(root, &cfg, now + 10 * RACY_NS, &base, &[], 0).unwrap();
            // Past the file system's timestamp tick of the walk, so that
            // every change shows in an mtime (the racy window is what covers
            // this in real use, and this test trusts every mtime).
            std::thread::sleep(std::time::Duration::from_millis(15));
            for _ in 0..1 + next(4) {
                let folder = folders[next(folders.len())];
                let at = |name: &str| {
                    if folder.is_empty() {
                        name.to_string()
                    } else {
                        format!("{folder}/{name}")
                    }
                };
                match next(10) {
                    9 if !folder.is_empty() => {
                        let _ = std::fs::remove_dir_all(root.join(folder));
                    }
                    0 | 1 => write(root, &at(names[next(names.len())]), "v = 2\n"),
                    2 => {
                        let _ = std::fs::remove_file(root.join(at(names[next(names.len())])));
                    }
                    3 => {
                        // An atomic save.
                        let name = names[next(3)];
                        write(root, &at(".save.tmp"), "s = 3\n");
                        std::fs::rename(root.join(at(".save.tmp")), root.join(at(name))).unwrap();
                    }
                    4 => write(root, &at("new/sub/n.py"), "n = 4\n"),
                    5 => {
                        let _ = std::fs::remove_dir_all(root.join(at("new")));
                    }
                    6 => write(root, &at("node_modules/m.js"), ""),
                    7 => {
                        if !folder.is_empty() && next(2) == 0 {
                            write(root, &at("pyvenv.cfg"), "");
                        } else {
                            let _ = std::fs::remove_file(root.join(at("pyvenv.cfg")));
                        }
                        // A `build` folder with files, that setuptools'
                        // output makes skipped, and back.
                        match next(3) {
                            0 => write(root, &at("build/x.py"), "b = 5\n"),
                            1 => write(root, &at("build/lib/x.py"), "b = 6\n"),
                            _ => {
                                let _ = std::fs::remove_dir_all(root.join(at("build/lib")));
                            }
                        }
                    }
                    _ => write(
                        root,
                        &at(".gitignore"),
                        ["x.py\n", "sub/\n", "*.ts\n"][next(3)],
                    ),
                }
            }
            let full = crate::walk::walk(root, &cfg);
            match snap.rewalk(root, &cfg) {
                Some((w, n)) => {
                    assert_eq!(view(&w), view(&full), "round {round}");
                    if n > 0 {
                        partial += 1;
                    }
                }
                None => full_walks += 1,
            }
            base = full;
        }
        // Many rounds were answered by listing folders (65 of 150 when
        // written; ignore files written in most others mean full walks).
        assert!(partial >= 40, "{partial} partial, {full_walks} full");
    }

    #[test]
    fn paths_under_folders() {
        assert!(is_under("a/b", "a") && is_under("a", "a") && !is_under("ab", "a"));
        assert!(is_under("x", "") && !is_under("a-b/c", "a"));
        assert_eq!(parent_dir("a/b/c.py"), Some("a/b"));
        assert_eq!(parent_dir("c.py"), Some(""));
        assert_eq!(parent_dir(""), None);
    }
}
