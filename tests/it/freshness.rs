//! The freshness check's fast path: an unchanged tree is checked against the
//! last walk's snapshot (a `stat` per known entry) instead of walked, and
//! every kind of change still reaches the index.

use std::path::Path;

use refgraph::index::{self, IndexConfig, IndexReport};

use crate::cli::{age, graph_lines, write};

fn update(root: &Path, cfg: &IndexConfig) -> IndexReport {
    let (mut store, _) = index::open(root).expect("open");
    index::update(root, &mut store, cfg).expect("update")
}

/// `shop/pay.py` with a second function.
const PAY_WITH_REFUND: &str = "def charge(x):\n    return x\n\ndef refund(x):\n    return -x\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "shop/__init__.py", "");
    write(root, "shop/pay.py", "def charge(x):\n    return x\n");
    write(
        root,
        "shop/cart.py",
        "from shop.pay import charge\n\ndef total():\n    return charge(1)\n",
    );
    write(root, "tools/gen.py", "def make():\n    return 1\n");
    dir
}

/// Index, age the tree, and index again so that the snapshot is trusted.
fn settled(root: &Path, cfg: &IndexConfig) {
    settled_with(root, cfg, 4);
}

#[test]
fn an_unchanged_tree_is_not_walked_and_every_change_is_still_seen() {
    let dir = project();
    let root = dir.path();
    let cfg = IndexConfig::default();
    settled(root, &cfg);

    // A changed file: its folder is the same, so the snapshot still lists
    // the entries, and the file is re-extracted.
    write(root, "shop/pay.py", PAY_WITH_REFUND);
    let r = update(root, &cfg);
    assert!(r.rewalked);
    assert_eq!(r.extracted, 1);
    assert!(graph_lines(root).iter().any(|l| l.contains("refund")));

    // A new file changes its folder's mtime: that folder is walked again,
    // and finds it.
    settled(root, &cfg);
    write(
        root,
        "shop/ship.py",
        "from shop.pay import charge\n\ndef send():\n    charge(2)\n",
    );
    let r = update(root, &cfg);
    assert!(!r.rewalked);
    assert_eq!(r.partial_walk, Some(1));
    assert_eq!((r.extracted, r.files), (1, 5));

    // A deleted file, too.
    settled_with(root, &cfg, 5);
    std::fs::remove_file(root.join("shop/ship.py")).unwrap();
    let r = update(root, &cfg);
    assert!(!r.rewalked);
    assert_eq!(r.partial_walk, Some(1));
    assert_eq!((r.deleted, r.files), (1, 4));

    // A new ignore rule changes what is indexed without touching the
    // ignored folder: the ignore file is watched.
    write(root, ".gitignore", "# nothing yet\n");
    settled_with(root, &cfg, 4);
    write(root, ".gitignore", "tools/\n");
    let r = update(root, &cfg);
    assert!(!r.rewalked);
    assert_eq!(r.partial_walk, None, "a changed ignore file: a full walk");
    assert_eq!((r.deleted, r.files), (1, 3));

    // Other walk limits: a full walk with them.
    settled_with(root, &cfg, 3);
    let small = IndexConfig {
        walk: refgraph::walk::WalkConfig {
            max_file_size: 40,
            ..Default::default()
        },
        ..Default::default()
    };
    let r = update(root, &small);
    assert!(!r.rewalked);
    assert!(r.files < 3, "files over 40 bytes are skipped: {r:?}");
}

fn settled_with(root: &Path, cfg: &IndexConfig, files: usize) {
    update(root, cfg);
    age(root);
    let r = update(root, cfg);
    assert!(
        !r.rewalked,
        "the aged files differ from the snapshot: a full walk"
    );
    let r = update(root, cfg);
    assert!(
        r.rewalked,
        "an unchanged, settled tree is checked from the snapshot"
    );
    assert_eq!(
        (r.extracted, r.deleted, r.resolved, r.files),
        (0, 0, 0, files)
    );
}

#[test]
fn a_file_grown_past_the_size_limit_is_skipped_on_the_fast_path() {
    let dir = project();
    let root = dir.path();
    let cfg = IndexConfig {
        walk: refgraph::walk::WalkConfig {
            max_file_size: 1000,
            ..Default::default()
        },
        ..Default::default()
    };
    settled(root, &cfg);
    write(root, "tools/gen.py", &"# padding\n".repeat(200));
    let r = update(root, &cfg);
    assert!(r.rewalked);
    assert_eq!((r.deleted, r.files), (1, 3));
    assert!(r.skipped.iter().any(|s| s.path == "tools/gen.py"));
}

#[test]
fn a_new_database_forgets_the_old_snapshot() {
    let dir = project();
    let root = dir.path();
    let cfg = IndexConfig::default();
    settled(root, &cfg);
    for f in ["graph.db", "graph.db-wal", "graph.db-shm"] {
        let _ = std::fs::remove_file(root.join(".refgraph").join(f));
    }
    let r = update(root, &cfg);
    assert!(!r.rewalked);
    assert_eq!((r.extracted, r.files), (4, 4));
}

#[test]
fn work_queued_in_the_database_is_done_even_when_the_tree_is_unchanged() {
    let dir = project();
    let root = dir.path();
    let cfg = IndexConfig::default();
    settled(root, &cfg);
    // `verify` stores verdicts and marks their files pending, then updates:
    // an unchanged tree must not skip that work.
    let (mut store, _) = index::open(root).unwrap();
    let id = store
        .files()
        .unwrap()
        .into_iter()
        .find(|f| f.path == "shop/cart.py")
        .unwrap()
        .id;
    store.transaction(|tx| tx.mark_pending(&[id])).unwrap();
    let r = index::update(root, &mut store, &cfg).unwrap();
    assert!(r.rewalked, "the tree itself is unchanged");
    assert_eq!((r.extracted, r.resolved), (0, 1));
    assert!(!store.has_pending().unwrap());
}

#[test]
fn folders_changed_by_saves_are_walked_again_and_the_graph_is_a_fresh_index() {
    let dir = project();
    let root = dir.path();
    let cfg = IndexConfig::default();
    settled(root, &cfg);

    // An editor's atomic save (a new file renamed over the old: the folder
    // changes), a new module in a new package, and a file created and
    // removed again in another folder.
    write(root, "shop/.pay.py.tmp", PAY_WITH_REFUND);
    std::fs::rename(root.join("shop/.pay.py.tmp"), root.join("shop/pay.py")).unwrap();
    write(root, "shop/ship/__init__.py", "");
    write(
        root,
        "shop/ship/post.py",
        "from shop.pay import refund\n\ndef back():\n    refund(3)\n",
    );
    write(root, "tools/scratch.txt", "");
    std::fs::remove_file(root.join("tools/scratch.txt")).unwrap();
    let r = update(root, &cfg);
    assert_eq!(r.partial_walk, Some(2), "{r:?}");
    assert_eq!((r.extracted, r.files), (3, 6));

    // The same tree indexed from nothing.
    let fresh = tempfile::tempdir().unwrap();
    for rel in [
        "shop/__init__.py",
        "shop/pay.py",
        "shop/cart.py",
        "shop/ship/__init__.py",
        "shop/ship/post.py",
        "tools/gen.py",
    ] {
        write(
            fresh.path(),
            rel,
            &std::fs::read_to_string(root.join(rel)).unwrap(),
        );
    }
    update(fresh.path(), &cfg);
    assert_eq!(graph_lines(root), graph_lines(fresh.path()));
    assert!(graph_lines(root)
        .iter()
        .any(|l| l.contains("shop.ship.post.back -> shop.pay.refund")));

    // Only a folder changed, and no file: the next check is from the
    // snapshot again.
    age(root);
    update(root, &cfg);
    update(root, &cfg);
    write(root, "tools/scratch.txt", "");
    std::fs::remove_file(root.join("tools/scratch.txt")).unwrap();
    let r = update(root, &cfg);
    assert_eq!((r.partial_walk, r.extracted), (Some(1), 0));
}
