//! What git says about a repository, read from `.git` directly (no process
//! per query): the repository root and the commit `HEAD` points at.

use std::path::{Path, PathBuf};

/// The nearest ancestor of `start` (itself included) holding a `.git`.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The commit id `HEAD` resolves to, if `root` is a git work tree.
pub fn head(root: &Path) -> Option<String> {
    let git_dir = git_dir(root)?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(reference) = head.strip_prefix("ref: ") else {
        return is_commit_id(head).then(|| head.to_string());
    };
    // Loose ref first (in the common dir for worktrees), then packed-refs.
    let common = common_dir(&git_dir);
    for dir in [&git_dir, &common] {
        if let Ok(id) = std::fs::read_to_string(dir.join(reference)) {
            let id = id.trim();
            if is_commit_id(id) {
                return Some(id.to_string());
            }
        }
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| {
        let (id, name) = l.split_once(' ')?;
        (name == reference && is_commit_id(id)).then(|| id.to_string())
    })
}

fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot = root.join(".git");
    if dot.is_dir() {
        return Some(dot);
    }
    // A worktree or submodule: `.git` is a file `gitdir: <path>`.
    let text = std::fs::read_to_string(&dot).ok()?;
    let dir = text.trim().strip_prefix("gitdir: ")?;
    let dir = Path::new(dir);
    Some(if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        root.join(dir)
    })
}

fn common_dir(git_dir: &Path) -> PathBuf {
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(c) => {
            let c = Path::new(c.trim());
            if c.is_absolute() {
                c.to_path_buf()
            } else {
                git_dir.join(c)
            }
        }
        Err(_) => git_dir.to_path_buf(),
    }
}

/// 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
pub fn is_commit_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64)
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
