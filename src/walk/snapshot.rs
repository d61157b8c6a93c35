//! The last complete walk, kept beside the database so that the next
//! freshness check can skip the directory walk.
//!
//! A folder's modification time changes whenever an entry is added to it,
//! removed from it or renamed in it. So if no walked folder, ignore file or
//! manifest changed since the last walk, the set of entries is the same and
//! only the known files need a `stat` for their size and mtime — no
//! directory reads, no ignore-rule matching. Anything else (a changed folder,
//! a new `.gitignore`, other walk limits, a folder touched within
//! [`RACY_NS`] of the walk) falls back to the full walk.
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
const VERSION: u32 = 1;

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
    skipped_dirs: u64,
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
            skipped_dirs: walk.skipped_dirs,
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
        let bytes = postcard::to_allocvec(self).map_err(std::io::Error::other)?;
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

    /// The walk of `root` now, if no folder, ignore file or manifest changed
    /// since the snapshot (then only the known entries are `stat`ed);
    /// `None` when a full walk is needed.
    pub fn rewalk(&self, root: &Path, config: &WalkConfig) -> Option<Walk> {
        if self.max_file_size != config.max_file_size
            || self.respect_gitignore != config.respect_gitignore
        {
            return None;
        }
        let trusted = |mtime: i64| mtime < self.taken_ns - RACY_NS;
        // Thousands of `stat`s: on all cores.
        crate::index::workers().install(|| {
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
            let stats = tree::stat_unchanged(root, &self.dirs, &paths, &trusted)?;
            let mut walk = Walk {
                manifests: self.manifests.clone(),
                skipped_dirs: self.skipped_dirs,
                dirs: self.dirs.clone(),
                ignore_files: self.ignore_files.clone(),
                stable: true,
                ..Walk::default()
            };
            for ((path, lang), st) in entries.iter().zip(&stats) {
                match super::classify((*path).clone(), *lang, st, config) {
                    Ok(f) => walk.files.push(f),
                    Err(s) => walk.skipped.push(s),
                }
            }
            walk.files.sort_by(|a, b| a.path.cmp(&b.path));
            walk.skipped.sort();
            Some(walk)
        })
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
