//! `stat` the folders and entries a snapshot knows, and nothing else.
//!
//! Statting `a/b/c/d.py` by its path makes the kernel look up every
//! component again; on a deep tree that lookup is most of the cost. On Unix
//! each folder is opened once (`O_PATH`, relative to its parent's
//! descriptor) and its entries are `stat`ed relative to it, so every lookup
//! is of one name. Folders are visited depth first on all cores; only the
//! folders on the paths being visited hold a descriptor.

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;

use crate::walk::{EntryKind, EntryStat};

/// `(parent folder, name)` of a repo-relative path (`""` is the root).
fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

/// A folder: its name in its parent, recorded mtime, sub-folders and
/// entries (indexes into the entry list, with their names).
struct Folder<'a> {
    name: &'a str,
    mtime: i64,
    folders: Vec<usize>,
    entries: Vec<(usize, &'a str)>,
}

/// The folders as a tree with the root's index, or `None` when the root
/// or an entry's folder is not among them (a snapshot from another walk:
/// not trusted).
fn tree<'a>(dirs: &'a [(String, i64)], entries: &[&'a str]) -> Option<(Vec<Folder<'a>>, usize)> {
    let index: foldhash::HashMap<&str, usize> = dirs
        .iter()
        .enumerate()
        .map(|(i, (rel, _))| (rel.as_str(), i))
        .collect();
    let mut folders: Vec<Folder> = dirs
        .iter()
        .map(|(rel, mtime)| Folder {
            name: split(rel).1,
            mtime: *mtime,
            folders: Vec::new(),
            entries: Vec::new(),
        })
        .collect();
    for (i, (rel, _)) in dirs.iter().enumerate() {
        if !rel.is_empty() {
            let parent = *index.get(split(rel).0)?;
            folders[parent].folders.push(i);
        }
    }
    for (i, rel) in entries.iter().enumerate() {
        let (parent, name) = split(rel);
        folders[*index.get(parent)?].entries.push((i, name));
    }
    Some((folders, *index.get("")?))
}

/// What [`stat_unchanged`] found.
#[derive(Debug)]
pub struct Restat {
    /// Each entry's stat, in order; `None` for the entries of changed
    /// folders (they must be walked again).
    pub stats: Vec<Option<EntryStat>>,
    /// Folders (indexes into `dirs`) with a new mtime, an untrusted one, or
    /// an entry that vanished, to be listed again. Their entries were not
    /// looked at, their sub-folders were (a folder that vanished from a
    /// changed one is not listed: the new listing leaves it out). Sorted.
    pub changed: Vec<usize>,
}

/// Stat every folder and entry the snapshot knows, except the entries of
/// folders found changed: a folder still has its recorded mtime, that mtime
/// is `trusted`, and all its entries still exist, or it is listed as changed.
/// `None` when the folders do not form a tree or the root cannot be opened.
pub fn stat_unchanged(
    root: &Path,
    dirs: &[(String, i64)],
    entries: &[&str],
    trusted: &(dyn Fn(i64) -> bool + Sync),
) -> Option<Restat> {
    let (folders, root_folder) = tree(dirs, entries)?;
    let slots: Vec<OnceLock<EntryStat>> = entries.iter().map(|_| OnceLock::new()).collect();
    let visit = Visit {
        folders: &folders,
        slots: &slots,
        trusted,
        changed: Mutex::new(Vec::new()),
    };
    visit.folder(&imp::open_root(root)?, root_folder);
    let mut changed = visit
        .changed
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    changed.sort_unstable();
    Some(Restat {
        stats: slots.into_iter().map(OnceLock::into_inner).collect(),
        changed,
    })
}

/// Checks folders depth first and fills in the entries' stats.
struct Visit<'a, 'b> {
    folders: &'a [Folder<'b>],
    slots: &'a [OnceLock<EntryStat>],
    trusted: &'a (dyn Fn(i64) -> bool + Sync),
    changed: Mutex<Vec<usize>>,
}

impl Visit<'_, '_> {
    /// Check folder `i` (open as `dir`) and everything under it.
    fn folder(&self, dir: &imp::Dir, i: usize) {
        let f = &self.folders[i];
        let entry = |&(slot, name): &(usize, &str)| self.record(slot, imp::stat_in(dir, name));
        let same = self.same_folder(imp::stat_dir(dir), f)
            && if f.entries.len() > 64 {
                f.entries.par_iter().with_min_len(32).all(entry)
            } else {
                f.entries.iter().all(entry)
            };
        if !same {
            self.mark(i);
        }
        f.folders.par_iter().for_each(|&c| {
            let sub = &self.folders[c];
            if sub.folders.is_empty() && sub.entries.len() <= LEAF_ENTRIES {
                self.leaf(dir, c, same)
            } else {
                match imp::open_in(dir, sub.name) {
                    Some(d) => self.folder(&d, c),
                    // Gone from a folder that is listed again anyway, or
                    // gone from an unchanged one (listing it fails: the
                    // caller walks the tree).
                    None if same => self.mark(c),
                    None => {}
                }
            }
        });
    }

    /// A folder with no sub-folders and few entries, by names relative to
    /// its parent `dir`: cheaper than opening it. Gone from a changed
    /// parent (`parent_same` false), it is not marked, as in `folder`.
    fn leaf(&self, dir: &imp::Dir, i: usize, parent_same: bool) {
        let f = &self.folders[i];
        let now = imp::stat_in(dir, f.name);
        if now.is_none() && !parent_same {
            return;
        }
        let same = self.same_folder(now, f)
            && f.entries.iter().all(|&(slot, name)| {
                self.record(slot, imp::stat_in(dir, &format!("{}/{name}", f.name)))
            });
        if !same {
            self.mark(i);
        }
    }

    fn mark(&self, i: usize) {
        self.changed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(i);
    }

    /// Whether a folder's stat now is what the snapshot recorded, and
    /// that record is trusted.
    fn same_folder(&self, now: Option<EntryStat>, f: &Folder<'_>) -> bool {
        now.is_some_and(|now| {
            now.kind == EntryKind::Dir && now.mtime_ns == f.mtime && (self.trusted)(f.mtime)
        })
    }

    /// Keep an entry's stat; a vanished entry means its folder changed
    /// after all.
    fn record(&self, slot: usize, now: Option<EntryStat>) -> bool {
        now.is_some_and(|st| {
            let _ = self.slots[slot].set(st);
            true
        })
    }
}

/// Up to this many entries, a folder without sub-folders is not opened:
/// two-name lookups from its parent cost less than `open` and `close`.
const LEAF_ENTRIES: usize = 2;

/// Folders as descriptors opened for lookups only (`O_PATH`), each
/// relative to its parent's.
#[cfg(unix)]
mod imp {
    use std::os::fd::{AsFd, OwnedFd};
    use std::path::Path;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};

    use crate::walk::{EntryKind, EntryStat};

    pub struct Dir(OwnedFd);

    fn entry_stat(st: &Stat) -> EntryStat {
        let kind = match FileType::from_raw_mode(st.st_mode as _) {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Dir,
            FileType::Symlink => EntryKind::Symlink,
            _ => EntryKind::Other,
        };
        // As `walk::mtime_ns`: nanoseconds since the epoch, 0 before it.
        // `c_long` on some targets, `i64` on this one.
        #[allow(clippy::useless_conversion)]
        let secs = i64::from(st.st_mtime);
        let mtime_ns = if secs < 0 {
            0
        } else {
            secs * 1_000_000_000 + st.st_mtime_nsec as i64
        };
        EntryStat {
            kind,
            size: st.st_size as u64,
            mtime_ns,
        }
    }

    const FOLDER: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

    pub fn open_root(root: &Path) -> Option<Dir> {
        rustix::fs::openat(rustix::fs::CWD, root, FOLDER, Mode::empty())
            .ok()
            .map(Dir)
    }

    /// A sub-folder; a link to one is not followed (it fails here).
    pub fn open_in(dir: &Dir, name: &str) -> Option<Dir> {
        rustix::fs::openat(
            dir.0.as_fd(),
            name,
            FOLDER | OFlags::NOFOLLOW,
            Mode::empty(),
        )
        .ok()
        .map(Dir)
    }

    pub fn stat_dir(dir: &Dir) -> Option<EntryStat> {
        rustix::fs::fstat(dir.0.as_fd())
            .ok()
            .map(|st| entry_stat(&st))
    }

    pub fn stat_in(dir: &Dir, name: &str) -> Option<EntryStat> {
        rustix::fs::statat(dir.0.as_fd(), name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|st| entry_stat(&st))
    }
}

/// Folders as paths: every lookup walks the whole path.
#[cfg(not(unix))]
mod imp {
    use std::path::{Path, PathBuf};

    use crate::walk::EntryStat;

    pub struct Dir(PathBuf);

    pub fn open_root(root: &Path) -> Option<Dir> {
        Some(Dir(root.to_path_buf()))
    }

    pub fn open_in(dir: &Dir, name: &str) -> Option<Dir> {
        Some(Dir(dir.0.join(name)))
    }

    pub fn stat_dir(dir: &Dir) -> Option<EntryStat> {
        std::fs::symlink_metadata(&dir.0)
            .ok()
            .map(|m| EntryStat::of(&m))
    }

    pub fn stat_in(dir: &Dir, name: &str) -> Option<EntryStat> {
        std::fs::symlink_metadata(dir.0.join(name))
            .ok()
            .map(|m| EntryStat::of(&m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_form_a_tree_with_their_entries() {
        let dirs = vec![
            (String::new(), 1),
            ("a".to_string(), 2),
            ("a/b".to_string(), 3),
            ("c".to_string(), 4),
        ];
        let entries = ["x.py", "a/b/y.py", "c/z.py", "a/w.py"];
        let (t, root) = tree(&dirs, &entries).unwrap();
        assert_eq!(root, 0);
        assert_eq!(t[0].folders, vec![1, 3]);
        assert_eq!(t[1].folders, vec![2]);
        assert_eq!(t[0].entries, vec![(0, "x.py")]);
        assert_eq!(t[1].entries, vec![(3, "w.py")]);
        assert_eq!(t[2].entries, vec![(1, "y.py")]);
        assert_eq!(t[3].entries, vec![(2, "z.py")]);
        // An entry in a folder the walk did not record: not a tree.
        assert!(tree(&dirs, &["d/q.py"]).is_none());
        // Any order of folders; none without the root.
        let rev: Vec<_> = dirs.iter().rev().cloned().collect();
        assert_eq!(tree(&rev, &entries).unwrap().1, 3);
        assert!(tree(&dirs[1..], &[]).is_none());
    }

    #[test]
    fn stats_match_std_and_notice_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(root.join("top.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("pkg/sub/deep.py"), "y = 22\n").unwrap();
        std::os::unix::fs::symlink("top.py", root.join("pkg/link.py")).unwrap();
        let mtime =
            |rel: &str| crate::walk::mtime_ns(&std::fs::symlink_metadata(root.join(rel)).unwrap());
        let dirs: Vec<(String, i64)> = ["", "pkg", "pkg/sub"]
            .iter()
            .map(|d| (d.to_string(), mtime(d)))
            .collect();
        let entries = ["top.py", "pkg/sub/deep.py", "pkg/link.py"];
        let all = |_: i64| true;
        let r = stat_unchanged(root, &dirs, &entries, &all).unwrap();
        assert!(r.changed.is_empty());
        for (rel, st) in entries.iter().zip(&r.stats) {
            let want = EntryStat::of(&std::fs::symlink_metadata(root.join(rel)).unwrap());
            assert_eq!(*st, Some(want), "{rel}");
        }
        assert_eq!(r.stats[2].unwrap().kind, crate::walk::EntryKind::Symlink);
        // Untrusted folder mtimes: every folder is to be listed again.
        let r = stat_unchanged(root, &dirs, &entries, &|_| false).unwrap();
        assert_eq!(r.changed, vec![0, 1, 2]);
        assert!(r.stats.iter().all(Option::is_none));
        // A changed folder: only its own entries are not looked at.
        std::fs::write(root.join("pkg/sub/new.py"), "").unwrap();
        let r = stat_unchanged(root, &dirs, &entries, &all).unwrap();
        assert_eq!(r.changed, vec![2]);
        assert!(r.stats[0].is_some() && r.stats[2].is_some() && r.stats[1].is_none());
        let dirs: Vec<(String, i64)> = ["", "pkg", "pkg/sub"]
            .iter()
            .map(|d| (d.to_string(), mtime(d)))
            .collect();
        assert!(stat_unchanged(root, &dirs, &entries, &all)
            .unwrap()
            .changed
            .is_empty());
        // Vanished, in an opened folder and in a leaf folder.
        let r = stat_unchanged(root, &dirs, &["top.py", "pkg/gone.py"], &all).unwrap();
        assert_eq!(r.changed, vec![1]);
        let r = stat_unchanged(root, &dirs, &["pkg/sub/gone.py"], &all).unwrap();
        assert_eq!(r.changed, vec![2]);
        // A vanished folder.
        std::fs::remove_file(root.join("pkg/sub/new.py")).unwrap();
        std::fs::remove_file(root.join("pkg/sub/deep.py")).unwrap();
        std::fs::remove_dir(root.join("pkg/sub")).unwrap();
        let r = stat_unchanged(root, &dirs, &["top.py"], &all).unwrap();
        // Its parent has a new mtime and is listed again, without it.
        assert_eq!(r.changed, vec![1]);
    }
}
