//! walk → hash → extract → resolve → store; incremental; interrupt-safe.
//!
//! The pure middle of the pipeline ([`analyze`]) is also what the fixture
//! tests snapshot ([`render`]).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;

use crate::extract::{self, FileFacts, Lang};
use crate::graph::EdgeKind;
use crate::resolve::{self, FileIdx, FileResolution, Layout, World};
use crate::walk::{self, Snapshot, WalkConfig};

/// Worker threads for extraction and resolution, with deep stacks: real
/// code nests expressions thousands deep (long `a + b + …` chains,
/// generated tables) and syntax-tree walks recurse.
pub fn workers() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| deep_stack_pool("worker"))
}

/// Threads that decode the stored facts an update will resolve against,
/// while the workers extract the changed files: a pool of their own, so a
/// few files' extraction is not queued behind thousands of decodes. Deep
/// stacks as the workers': decoding recurses as deep as the types nest.
fn preload_workers() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| deep_stack_pool("preload"))
}

fn deep_stack_pool(name: &'static str) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .stack_size(256 << 20)
        .thread_name(move |i| format!("refgraph-{name}-{i}"))
        .build()
        .unwrap_or_else(|e| panic!("{name} threads do not start: {e}"))
}

/// One source file with its facts, ready to be resolved.
pub struct Analyzed {
    pub path: String,
    pub lang: Lang,
    pub facts: FileFacts,
}

/// Read, check and extract every file of a walk, in parallel. Files that
/// cannot be read or are not text are returned as skips.
pub fn extract_files(
    root: &Path,
    files: &[walk::WalkedFile],
) -> (Vec<Analyzed>, Vec<walk::Skipped>) {
    let results: Vec<Result<Analyzed, walk::Skipped>> = workers().install(|| {
        largest_first(
            files,
            |f| f.size,
            |f| {
                let bytes = std::fs::read(root.join(&f.path)).map_err(|e| walk::Skipped {
                    path: f.path.clone(),
                    reason: if e.kind() == std::io::ErrorKind::NotFound {
                        walk::SkipReason::Vanished
                    } else {
                        walk::SkipReason::Unreadable
                    },
                    detail: e.to_string(),
                })?;
                let warning =
                    walk::check_text(f.lang, &bytes).map_err(|(reason, detail)| walk::Skipped {
                        path: f.path.clone(),
                        reason,
                        detail,
                    })?;
                let mut facts = extract::extract(f.lang, &f.path, &bytes);
                facts.diagnostics.extend(warning);
                Ok(Analyzed {
                    path: f.path.clone(),
                    lang: f.lang,
                    facts,
                })
            },
        )
    });
    let mut ok = Vec::new();
    let mut skipped = Vec::new();
    for r in results {
        match r {
            Ok(a) => ok.push(a),
            Err(s) => skipped.push(s),
        }
    }
    (ok, skipped)
}

/// `f` over `items` in parallel (in the current rayon pool), the largest
/// items first by `size`; the results in the items' order. Parsing time
/// grows with a file's size, and a batch in walk order could end on a large
/// file that one worker parses while the other idles: largest first, it
/// ends on small ones (zod's cold index, 644 files: 0.74 -> 0.67 s).
pub fn largest_first<T: Sync, R: Send>(
    items: &[T],
    size: impl Fn(&T) -> u64,
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(size(&items[i])));
    let mut done: Vec<(usize, R)> = order
        .par_iter()
        // Split down to single files: near the end, a worker that runs out
        // takes one small file from the other, not a share fixed up front.
        .with_max_len(1)
        .map(|&i| (i, f(&items[i])))
        .collect();
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The layout of the extracted `files`: the manifests a walk found, and
/// the build output they name.
pub fn read_layout(root: &Path, w: &walk::Walk, files: &[Analyzed]) -> Layout {
    layout_of(root, w, files.iter().map(|f| f.path.clone()).collect())
}

/// The layout of the indexed `files` of walk `w` of `root`.
fn layout_of(root: &Path, w: &walk::Walk, files: BTreeSet<String>) -> Layout {
    let mut layout = Layout {
        files,
        ..Layout::default()
    };
    for (rel, abs) in &w.manifests {
        if let Ok(text) = std::fs::read_to_string(abs) {
            layout.manifests.insert(rel.clone(), text);
        }
    }
    layout.built = resolve::typescript::built_outputs(root, &layout);
    layout
}

/// Build the world of `files` and resolve every one of them.
pub fn analyze(files: &[Analyzed], layout: &Layout) -> Vec<FileResolution> {
    let world = World::new(
        files
            .iter()
            .map(|f| resolve::world_input(&f.path, f.lang, &f.facts))
            .collect(),
        layout,
    );
    let prepared = resolve::prepare(&world);
    workers().install(|| {
        files
            .par_iter()
            .enumerate()
            .map(|(i, f)| {
                resolve::resolve_file(&world, &prepared, FileIdx(i as u32), &f.facts.refs)
            })
            .collect()
    })
}

/// The whole graph of a directory as sorted text, one item per line, for
/// snapshot tests: nodes (`N`), edges except `contains` (`E`), unresolved
/// sites (`U`) and diagnostics (`D`).
///
/// ```text
/// N class shop.payments.gateway.StripeGateway shop/payments/gateway.py:10:7-30
/// E calls shop.checkout.pay -> shop.payments.gateway.StripeGateway.refund @ shop/checkout.py:12:15 syntactic 0.95
/// U calls refund @ shop/checkout.py:20:9 (7 candidates)
/// D shop/broken.py:3:1 syntax error: …
/// ```
pub fn render(root: &Path) -> String {
    let w = walk::walk(root, &WalkConfig::default());
    let (files, _skipped) = extract_files(root, &w.files);
    let layout = read_layout(root, &w, &files);
    let resolutions = analyze(&files, &layout);
    let world = World::new(
        files
            .iter()
            .map(|f| resolve::world_input(&f.path, f.lang, &f.facts))
            .collect(),
        &layout,
    );
    let mut lines = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let keys = world.file_keys(FileIdx(fi as u32));
        for (i, d) in f.facts.defs.iter().enumerate() {
            lines.push(format!(
                "N {} {} {}:{}:{}-{}{}",
                d.kind.as_str(),
                keys[i],
                f.path,
                d.pos.line,
                d.pos.column,
                d.end_line,
                if d.exported { "" } else { " private" }
            ));
        }
        for d in &f.facts.diagnostics {
            lines.push(format!(
                "D {}:{}:{} {}",
                f.path, d.pos.line, d.pos.column, d.message
            ));
        }
        let res = &resolutions[fi];
        for e in &res.edges {
            if e.kind == EdgeKind::Contains {
                continue;
            }
            let (status, conf) = resolve::grade(e.strategy);
            let site = e
                .site
                .map(|s| format!(" @ {}:{}:{}", f.path, s.line, s.column))
                .unwrap_or_default();
            lines.push(format!(
                "E {} {} -> {}{} {} {}",
                e.kind.as_str(),
                world.key(e.src),
                world.key(e.dst),
                site,
                status.as_str(),
                conf
            ));
        }
        for u in &res.unresolved {
            lines.push(format!(
                "U {} {} @ {}:{}:{} ({})",
                u.kind.as_str(),
                u.name,
                f.path,
                u.site.line,
                u.site.column,
                u.reason
            ));
        }
    }
    lines.sort();
    let mut out = String::new();
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out
}

// ---------------------------------------------------------------------------
// The persistent, incremental index.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::extract::{Def, LangRefs, LangScope};
use crate::graph::node_id;
use crate::resolve::{grade, static_source};
use crate::store::{FileWrite, Incoming, NewEdge, NewUnresolved, OpenNote, Store, StoreError};

mod interface;
pub mod scope_cache;

/// Where the database lives, relative to the repository root.
pub const DB_DIR: &str = ".refgraph";
pub const DB_FILE: &str = "graph.db";

/// Files written per transaction: a crash loses at most one batch of work.
const BATCH: usize = 256;

/// Source bytes that the files of one chunk of work (extracted, or
/// resolved, together) may add up to, besides [`BATCH`]` * 4` files: a
/// chunk's results are held until written, and the 1,024 files of a chunk
/// of generated bindings are 110 MB of source (rust-large's `windows`
/// crates), eight times an average chunk of that tree.
const CHUNK_BYTES: u64 = 16 << 20;

/// `items` cut in order into chunks of at most `BATCH * 4` items whose
/// sizes add up to at most [`CHUNK_BYTES`] (a larger item is a chunk of
/// its own).
fn chunks_by_size<T>(items: &[T], size: impl Fn(&T) -> u64) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0u64;
        let n = rest
            .iter()
            .take(BATCH * 4)
            .take_while(|t| {
                bytes = bytes.saturating_add(size(t));
                bytes <= CHUNK_BYTES
            })
            .count()
            .max(1);
        let (chunk, tail) = rest.split_at(n);
        rest = tail;
        Some(chunk)
    })
}

/// A first index of at least this many files is a bulk load (see
/// [`Store::begin_bulk`]).
const BULK_MIN: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("repository path {0} does not exist")]
    NoSuchRepo(String),
    #[error("repository path {0} is not a directory")]
    NotADirectory(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Clone, Debug, Default)]
pub struct IndexConfig {
    pub walk: WalkConfig,
    /// Draw progress bars on stderr (only when it is a terminal).
    pub progress: bool,
    /// The process ends after this update and its one query (a CLI
    /// command): the resolvers' in-memory world is left for the OS to
    /// reclaim at exit instead of being freed object by object (20 ms of a
    /// 10-file re-index on Django). Not after a bulk load, where SQLite's
    /// index builds come next: the world is freed before them (see
    /// `resolve_pending`). Never set in a long-running process.
    pub one_shot: bool,
    /// Read the world's facts when a resolver asks for them (`Some(true)`)
    /// or all up front (`Some(false)`); `None`: on demand when the update
    /// resolves at most an eighth of the files and some are Python (only
    /// Python's resolver reads other files as it goes). Both give the same
    /// graph (tests force each).
    pub on_demand: Option<bool>,
}

/// What one update did.
#[derive(Clone, Debug, Default)]
pub struct IndexReport {
    /// Source files in the index after the update.
    pub files: usize,
    /// Files (re-)extracted because they were new or changed.
    pub extracted: usize,
    /// Files removed from the index (deleted, or now skipped).
    pub deleted: usize,
    /// Files whose edges were recomputed.
    pub resolved: usize,
    pub skipped: Vec<walk::Skipped>,
    pub skipped_dirs: u64,
    /// Diagnostics in the files extracted by this update.
    pub diagnostics: usize,
    pub elapsed: Duration,
    pub open_note: Option<OpenNote>,
    /// The tree was checked against the last walk's snapshot (only known
    /// entries `stat`ed) instead of walked.
    pub rewalked: bool,
    /// `Some(n)`: only the `n` folders that changed since the snapshot were
    /// listed again (their new sub-folders walked), the rest `stat`ed.
    pub partial_walk: Option<usize>,
}

impl IndexReport {
    /// Files re-indexed by this update (extracted or removed).
    pub fn reindexed(&self) -> usize {
        self.extracted + self.deleted
    }
}

/// Check the repository root and open (or create) its database.
pub fn open(root: &Path) -> Result<(Store, OpenNote), IndexError> {
    check_root(root)?;
    let dir = root.join(DB_DIR);
    std::fs::create_dir_all(&dir).map_err(|source| IndexError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(
            &ignore,
            "# refgraph's database: derived data, never commit it.\n*\n",
        )
        .map_err(|source| IndexError::Io {
            path: ignore.display().to_string(),
            source,
        })?;
    }
    // Creating or rebuilding the database is a write: one process at a time.
    let _lock = writer_lock(root)?;
    let (store, note) = Store::open(&dir.join(DB_FILE))?;
    if !matches!(note, OpenNote::Existing) {
        forget_derived(&dir)?;
    }
    Ok((store, note))
}

/// For a new database: the last walk's snapshot describes another one, and
/// the copy of the facts another one's rows.
fn forget_derived(dir: &Path) -> Result<(), IndexError> {
    Snapshot::remove(dir).map_err(|source| IndexError::Io {
        path: dir.join(walk::SNAPSHOT_FILE).display().to_string(),
        source,
    })?;
    scope_cache::remove(dir).map_err(|source| IndexError::Io {
        path: dir.join(scope_cache::FILE).display().to_string(),
        source,
    })
}

/// Held while a process writes the index: updates from several processes
/// (two MCP servers and a CLI, say) run one after another, and each sees the
/// database the previous one left. Readers never take it (WAL).
pub struct WriterLock(std::fs::File);

pub fn writer_lock(root: &Path) -> Result<WriterLock, IndexError> {
    let path = root.join(DB_DIR).join("writer.lock");
    let io = |source| IndexError::Io {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(WriterLock(file))
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

pub fn check_root(root: &Path) -> Result<(), IndexError> {
    match std::fs::metadata(root) {
        Err(_) => Err(IndexError::NoSuchRepo(root.display().to_string())),
        Ok(m) if !m.is_dir() => Err(IndexError::NotADirectory(root.display().to_string())),
        Ok(_) => Ok(()),
    }
}

struct Changed {
    walked: walk::WalkedFile,
    hash: String,
    facts: FileFacts,
}

/// Bring the index up to date with the working tree: extract new and changed
/// files, drop deleted ones, and re-resolve every file whose edges could have
/// changed. Safe to interrupt at any point: the next update completes it.
pub fn update(
    root: &Path,
    store: &mut Store,
    cfg: &IndexConfig,
) -> Result<IndexReport, IndexError> {
    let start = Instant::now();
    check_root(root)?;
    std::fs::create_dir_all(root.join(DB_DIR)).map_err(|source| IndexError::Io {
        path: root.join(DB_DIR).display().to_string(),
        source,
    })?;
    let _lock = writer_lock(root)?;
    let mut report = IndexReport::default();
    // A load written without a journal that stopped on an error in this
    // process (another process's is caught when the database is opened):
    // its pages may be half written. Start again from a new database.
    if store.unjournaled_load()? {
        tracing::warn!("{}", crate::store::INTERRUPTED_UNJOURNALED);
        store.recreate()?;
        forget_derived(&root.join(DB_DIR))?;
    }
    // The last complete walk lets an unchanged tree skip the directory walk.
    let db_dir = root.join(DB_DIR);
    let taken_ns = now_ns();
    let snapshot = Snapshot::load(&db_dir);
    let rewalked = snapshot
        .as_ref()
        .and_then(|s| Some((s, s.rewalk(root, &cfg.walk)?)));
    if let Some((s, (w, folders))) = &rewalked {
        // The tree is as the last update left it; the database may still
        // have work queued by others (verdicts stored by `verify` mark their
        // files pending) or a load to finish.
        if s.unchanged(w) && !store.has_pending()? && !store.in_bulk()? {
            tracing::debug!(files = w.files.len(), folders, elapsed = ?start.elapsed(), "unchanged since the last walk");
            report.files = s.indexed_files;
            report.skipped = s.update_skipped.clone();
            report.skipped_dirs = w.skipped_dirs();
            report.rewalked = *folders == 0;
            if *folders > 0 {
                // Folders changed and their files did not (a file created
                // and removed again): a snapshot with their new mtimes saves
                // walking them on every later check.
                report.partial_walk = Some(*folders);
                let fresh = Snapshot::take(
                    root,
                    &cfg.walk,
                    taken_ns,
                    w,
                    &s.update_skipped,
                    s.indexed_files,
                );
                if let Some(fresh) = fresh {
                    if let Err(e) = fresh.store(&db_dir) {
                        tracing::debug!(error = %e, "walk snapshot not written");
                    }
                }
            }
            report.elapsed = start.elapsed();
            return Ok(report);
        }
    }
    let listed = rewalked.as_ref().map(|(_, (_, folders))| *folders);
    let quick = listed == Some(0);
    report.rewalked = quick;
    report.partial_walk = listed.filter(|n| *n > 0);
    let w = match rewalked {
        Some((_, (w, _))) => w,
        None => walk::walk(root, &cfg.walk),
    };
    tracing::debug!(files = w.files.len(), quick, elapsed = ?start.elapsed(), "walked");
    // From here the database may change: the snapshot no longer describes it.
    Snapshot::remove(&db_dir).map_err(|source| IndexError::Io {
        path: db_dir.join(walk::SNAPSHOT_FILE).display().to_string(),
        source,
    })?;
    // A file changed within the file system's timestamp granularity of the
    // last walk may have changed again with the same size and mtime.
    let racy_after = snapshot
        .as_ref()
        .map(|s| s.taken_ns - walk::snapshot::RACY_NS);
    report.skipped = w.skipped.clone();
    report.skipped_dirs = w.skipped_dirs();

    // Cheap path first: size and mtime; hash only on doubt.
    let differs = |f: &walk::WalkedFile, known: Option<(u64, i64, Lang)>| {
        known.is_none_or(|(size, mtime_ns, lang)| {
            size != f.size
                || mtime_ns != f.mtime_ns
                || lang != f.lang
                || racy_after.is_some_and(|t| f.mtime_ns >= t)
        })
    };
    // After a walk from the snapshot, its records are the rows' sizes,
    // mtimes and languages (it was taken as the last update completed): a
    // few candidates are found without reading every row, and every row is
    // read on another connection while they are extracted.
    let indexed = snapshot
        .as_ref()
        .filter(|s| listed.is_some() && s.indexed_files > 0)
        .map(Snapshot::indexed);
    let early: Option<(Vec<&walk::WalkedFile>, Store)> = indexed
        .as_ref()
        .map(|indexed| {
            w.files
                .iter()
                .filter(|f| differs(f, indexed.get(f.path.as_str()).copied()))
                .collect::<Vec<_>>()
        })
        .filter(|c| c.len() <= EARLY_PRELOAD_MAX)
        .and_then(|c| Some((c, store.reader()?.ok()?)));
    let (mut candidates, mut stored_rows, late_rows) = match early {
        Some((candidates, reader)) => {
            let paths: Vec<&str> = candidates.iter().map(|f| f.path.as_str()).collect();
            let rows = store.files_at(&paths)?;
            // The rows as they are before this update writes any.
            reader.begin_read()?;
            let late = std::thread::spawn(move || {
                let rows = reader.files();
                reader.end_read().and(rows)
            });
            (candidates, rows, Some(late))
        }
        None => (Vec::new(), store.files()?, None),
    };
    // Borrowed: a large tree has tens of thousands of rows.
    let known: Stored = stored_rows.iter().map(|f| (f.path.as_str(), f)).collect();
    if late_rows.is_none() {
        candidates = w
            .files
            .iter()
            .filter(|f| {
                let row = known.get(f.path.as_str());
                differs(f, row.map(|r| (r.size, r.mtime_ns, r.lang)))
            })
            .collect();
    }
    // Whether the database holds no file yet, and how many it holds, with
    // whether any is Python.
    let (first_index, indexed_count, any_python) = match &indexed {
        Some(indexed) if late_rows.is_some() => (
            false,
            indexed.len(),
            indexed
                .values()
                .any(|(_, _, lang)| lang.family() == crate::extract::Family::Python),
        ),
        _ => (
            stored_rows.is_empty(),
            stored_rows.len(),
            stored_rows.iter().any(is_python),
        ),
    };
    tracing::debug!(
        rows = known.len(),
        candidates = candidates.len(),
        elapsed = ?start.elapsed(),
        "read the file rows"
    );
    // The facts of the files this update does not re-extract are the same
    // before and after it: once a file's content is found changed (so edges
    // will be recomputed), they are read and decoded for the resolvers'
    // world on another thread while the changed files are written (only
    // the files of other languages than Python when the world will likely
    // be read on demand: TypeScript's and Rust's indexes read all of theirs
    // anyway). Not for a first index, which reads them as it resolves, nor
    // for files only touched (same content), which need no resolution.
    let mut preload: Option<std::thread::JoinHandle<Option<Preloaded>>> = None;

    // Extract and write in chunks: only one chunk's facts are in memory.
    let bar = progress_bar(
        cfg.progress && candidates.len() > 200,
        candidates.len() as u64,
        "extract",
    );
    // A first index of a large tree loads in bulk (indexes built once at
    // the end); an interrupted bulk load is finished before anything else.
    let bulk = first_index && candidates.len() >= BULK_MIN;
    if store.in_bulk()? && !bulk {
        store.end_bulk()?;
    }
    if bulk {
        store.begin_bulk()?;
    }
    // Workers extract the next chunk while this thread writes the last one.
    let mut files_added = false;
    let will_read_on_demand = on_demand(candidates.len(), indexed_count) && any_python;
    // What this update writes into existing rows, to patch the rows read
    // above when no file was added (instead of reading every row again).
    let mut updates: Vec<RowUpdate> = Vec::new();
    let (mut t_wait, mut t_write) = (Duration::ZERO, Duration::ZERO);
    let known_ref = &known;
    let bar_ref = &bar;
    let candidates_ref = &candidates;
    let start_preload = |store: &Store| {
        let python = !will_read_on_demand;
        let dir = db_dir.clone();
        store.reader().map(|reader| {
            std::thread::spawn(move || {
                let reader = reader.ok()?;
                let cache = scope_cache::ScopeCache::read(&dir);
                let blobs = world_blobs(&reader, cache, python);
                // The world's blobs decode on the pool while this thread
                // reads and decodes the Rust names kept.
                let decoded = std::sync::OnceLock::new();
                let rust_names = preload_workers().in_place_scope(|s| {
                    s.spawn(|_| {
                        let files = blobs.and_then(|blobs| {
                            let stale = blobs.stale;
                            let files = decode_world_files(preload_workers(), blobs)?;
                            Ok((files, stale))
                        });
                        let _ = decoded.set(files);
                    });
                    read_kept_names(&reader)
                });
                let files: Result<_, StoreError> = decoded.into_inner()?;
                let (files, stale_cache) = files.ok()?;
                Some(Preloaded {
                    files,
                    python,
                    rust_names: rust_names.ok()?,
                    stale_cache,
                })
            })
        })
    };
    // A small update knows before extracting whether a content changed
    // (hashing a few files is cheap next to parsing them): the preload
    // then overlaps the extraction too.
    if !first_index
        && candidates.len() <= EARLY_PRELOAD_MAX
        && candidates
            .iter()
            .any(|f| content_changed(root, f, known.get(f.path.as_str()).copied()))
    {
        preload = start_preload(store);
    }
    // The layout (which files exist, the manifests) is known from the walk
    // (after the preload starts: it needs none of it).
    let layout = layout_of(root, &w, w.files.iter().map(|f| f.path.clone()).collect());
    // (A build output appearing or going changes what a package's name
    // resolves to, as a manifest's change does.)
    let manifests_hash = {
        let mut h = blake3::Hasher::new();
        for (p, t) in &layout.manifests {
            h.update(p.as_bytes());
            h.update(&[0]);
            h.update(t.as_bytes());
            h.update(&[0]);
        }
        for p in &layout.built {
            h.update(p.as_bytes());
            h.update(&[1]);
        }
        h.finalize().to_hex().to_string()
    };
    let layout_changed = store.meta("manifests_hash")?.as_deref() != Some(manifests_hash.as_str());
    tracing::debug!(candidates = candidates.len(), elapsed = ?start.elapsed(), "layout");
    std::thread::scope(|scope| -> Result<(), IndexError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || {
            for chunk in chunks_by_size(candidates_ref, |f| f.size) {
                let results: Vec<Result<Option<Changed>, walk::Skipped>> =
                    workers().install(|| {
                        largest_first(
                            chunk,
                            |f| f.size,
                            |f| {
                                let r = read_and_extract(
                                    root,
                                    f,
                                    known_ref.get(f.path.as_str()).copied(),
                                );
                                bar_ref.inc(1);
                                r
                            },
                        )
                    });
                if tx.send((chunk, results)).is_err() {
                    break;
                }
            }
        });
        loop {
            let t = Instant::now();
            let Ok((chunk, results)) = rx.recv() else {
                break;
            };
            t_wait += t.elapsed();
            let mut changed = Vec::new();
            let mut touched = Vec::new();
            for (r, f) in results.into_iter().zip(chunk) {
                match r {
                    Ok(Some(c)) => changed.push(c),
                    Ok(None) => touched.push(*f),
                    Err(s) => report.skipped.push(s),
                }
            }
            files_added |= changed
                .iter()
                .any(|c| !known.contains_key(c.walked.path.as_str()));
            if preload.is_none() && !changed.is_empty() && !first_index {
                preload = start_preload(store);
            }
            let t = Instant::now();
            write_changed(
                store,
                Before {
                    rows: &known,
                    first_index,
                    dir: &db_dir,
                },
                &layout,
                &touched,
                &changed,
                &mut report,
                &mut updates,
            )?;
            t_write += t.elapsed();
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    tracing::debug!(
        files = candidates.len(),
        waited = ?t_wait,
        write = ?t_write,
        elapsed = ?start.elapsed(),
        "extracted and stored"
    );

    // Every row as it was before this update.
    let stored: Stored = match late_rows {
        Some(late) => {
            stored_rows = late
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            let stored: Stored = stored_rows.iter().map(|f| (f.path.as_str(), f)).collect();
            debug_assert!(
                w.files.iter().all(|f| {
                    let row = stored.get(f.path.as_str());
                    !differs(f, row.map(|r| (r.size, r.mtime_ns, r.lang)))
                        || candidates.iter().any(|c| c.path == f.path)
                }),
                "the snapshot finds every file the rows find changed"
            );
            stored
        }
        None => known,
    };
    report.skipped.sort();
    let skipped_paths: foldhash::HashSet<&str> =
        report.skipped.iter().map(|s| s.path.as_str()).collect();
    let present: foldhash::HashSet<&str> = w
        .files
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| !skipped_paths.contains(p))
        .collect();
    let deleted: Vec<&crate::store::FileRow> = stored
        .values()
        .copied()
        .filter(|s| !present.contains(s.path.as_str()))
        .collect();
    report.deleted = deleted.len();
    if !deleted.is_empty() {
        let mut affected = BTreeSet::new();
        let mut names = BTreeSet::new();
        for s in &deleted {
            names.extend(store.def_names(s.id)?);
            names.extend(module_names(&s.module));
            names.extend(store.ref_names_of(s.id)?);
            affected.extend(store.files_linked_to(s.id)?);
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        affected.extend(store.files_referencing(&name_refs)?);
        let ids: Vec<i64> = deleted.iter().map(|s| s.id).collect();
        store.transaction(|tx| {
            for id in &ids {
                tx.delete_file(*id)?;
            }
            let rest: Vec<i64> = affected
                .iter()
                .copied()
                .filter(|a| !ids.contains(a))
                .collect();
            tx.mark_pending(&rest)
        })?;
    }

    // Re-key files whose module key moved (a new `__init__.py`, a renamed
    // crate): only possible when the manifests or the set of files changed.
    // A layout change can move any resolution, so then resolve all.
    let wrote = report.extracted > 0 || !deleted.is_empty();
    let deleted_ids: foldhash::HashSet<i64> = deleted.iter().map(|s| s.id).collect();
    // Rows whose facts the preload may have read before this update
    // re-extracted them.
    let candidate_ids: Vec<i64> = candidates
        .iter()
        .filter_map(|f| stored.get(f.path.as_str()).map(|s| s.id))
        .collect();
    let any_deleted = !deleted.is_empty();
    if wrote {
        if files_added {
            stored_rows = store.files()?;
        } else {
            patch_rows(
                &mut stored_rows,
                &deleted_ids,
                &updates,
                &store.pending_ids()?,
            );
            debug_assert_eq!(
                stored_rows,
                store.files()?,
                "patched rows are the stored rows"
            );
        }
    }
    let rows: &[crate::store::FileRow] = &stored_rows;
    let mut rekeyed = Vec::new();
    if layout_changed || files_added || any_deleted {
        for row in rows {
            let module = resolve::module_key(row.lang, &row.path, &layout);
            if module != row.module {
                let defs: Vec<Def> = decode(row.id, &store.defs_blob(row.id)?)?;
                let keys = resolve::file_keys(row.lang, &module, &defs);
                rekeyed.push((row.id, module, keys));
            }
        }
    }
    if layout_changed || !rekeyed.is_empty() {
        store.transaction(|tx| {
            for (id, module, keys) in &rekeyed {
                tx.rekey_file(*id, module, keys)?;
            }
            tx.mark_all_pending()?;
            tx.set_meta("manifests_hash", &manifests_hash)
        })?;
    }

    let rekeyed_rows;
    let rows = if layout_changed || !rekeyed.is_empty() {
        rekeyed_rows = store.files()?;
        &rekeyed_rows
    } else {
        rows
    };
    let pending: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.resolved)
        .map(|(i, _)| i)
        .collect();
    report.resolved = pending.len();
    tracing::debug!(pending = pending.len(), elapsed = ?start.elapsed(), "stored facts");
    // The walk snapshot is known now: encoded on another thread while the
    // resolvers run, stored once the database is complete.
    let snapshot = {
        let (root, walk_cfg, skipped, indexed) = (
            root.to_path_buf(),
            cfg.walk.clone(),
            report.skipped.clone(),
            rows.len(),
        );
        std::thread::spawn(move || {
            Snapshot::take(&root, &walk_cfg, taken_ns, &w, &skipped, indexed).map(|s| s.encode())
        })
    };
    let mut stale_cache = false;
    if !pending.is_empty() {
        // Files re-extracted now are read again: the preload may predate them.
        let preloaded = preload.and_then(|h| h.join().ok().flatten()).map(|mut p| {
            stale_cache = p.stale_cache;
            for id in &candidate_ids {
                p.files.remove(id);
                if let Some(kept) = &mut p.rust_names {
                    kept.files.remove(id);
                }
            }
            p
        });
        if bulk {
            // What extraction freed goes back before the world is read.
            crate::memory::give_back_everywhere();
        }
        tracing::debug!(elapsed = ?start.elapsed(), rss = crate::memory::rss_mib(), "joined the preload");
        resolve_pending(store, rows, &pending, &layout, cfg, bulk, preloaded)?;
    }

    if bulk {
        let t = Instant::now();
        store.end_bulk()?;
        tracing::debug!(elapsed = ?t.elapsed(), rss = crate::memory::rss_mib(), "built indexes");
    }
    tracing::debug!(elapsed = ?start.elapsed(), "resolved");
    let skipped_rows: Vec<(String, String, String)> = report
        .skipped
        .iter()
        .map(|s| {
            (
                s.path.clone(),
                s.reason.as_str().to_string(),
                s.detail.clone(),
            )
        })
        .collect();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    if report.reindexed() > 0 || report.resolved > 0 || store.meta("last_update")?.is_none() {
        store.transaction(|tx| {
            tx.set_skipped(&skipped_rows)?;
            tx.set_meta("last_update", &now.to_string())
        })?;
    }
    report.files = rows.len();
    if stale_cache {
        let t = Instant::now();
        match rewrite_scope_cache(store, &db_dir) {
            Ok(()) => tracing::debug!(elapsed = ?t.elapsed(), "wrote the copy of the facts again"),
            Err(e) => tracing::debug!(error = %e, "the copy of the facts was not written again"),
        }
    }
    let written = match snapshot
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    {
        Some(Ok(bytes)) => Snapshot::store_encoded(&db_dir, &bytes),
        Some(Err(e)) => Err(e),
        // No baseline: the walk was not stable.
        None => Ok(()),
    };
    if let Err(e) = written {
        tracing::debug!(error = %e, "walk snapshot not written");
    }
    report.elapsed = start.elapsed();
    tracing::debug!(elapsed = ?report.elapsed, "stored the walk snapshot");
    Ok(report)
}

/// The stored rows by path, as an update found them (foldhash: a large tree
/// has tens of thousands, hashed several times per update).
type Stored<'a> = foldhash::HashMap<&'a str, &'a crate::store::FileRow>;

/// The database before an update, as far as writing a chunk needs it.
#[derive(Clone, Copy)]
struct Before<'s, 'r> {
    /// The rows of (at least) the chunk's files.
    rows: &'s Stored<'r>,
    /// It held no file.
    first_index: bool,
    /// Its folder, where the copy of the facts ([`scope_cache`]) is kept.
    dir: &'s Path,
}

/// What an update wrote into an existing file row.
struct RowUpdate {
    path: String,
    lang: Lang,
    /// The new content hash and module key of a re-extracted file (`None`:
    /// only its size or mtime changed).
    content: Option<(String, String)>,
    size: u64,
    mtime_ns: i64,
}

/// The rows as stored after an update that added no file: `rows` (sorted
/// by path) less the deleted ones, with the updates applied and the
/// pending flags as stored.
fn patch_rows(
    rows: &mut Vec<crate::store::FileRow>,
    deleted: &foldhash::HashSet<i64>,
    updates: &[RowUpdate],
    pending: &foldhash::HashSet<i64>,
) {
    rows.retain(|r| !deleted.contains(&r.id));
    for u in updates {
        let Ok(i) = rows.binary_search_by(|r| r.path.as_str().cmp(&u.path)) else {
            continue;
        };
        let r = &mut rows[i];
        if let Some((hash, module)) = &u.content {
            r.hash.clone_from(hash);
            r.module.clone_from(module);
            r.lang = u.lang;
        }
        r.size = u.size;
        r.mtime_ns = u.mtime_ns;
    }
    for r in rows.iter_mut() {
        r.resolved = !pending.contains(&r.id);
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// Write one chunk of extracted files (and the files whose content did not
/// change but whose mtime did), a batch per transaction, marking the files
/// whose edges could change pending in the same transaction. What it writes
/// into rows that existed is added to `updates` (nothing on a first index).
fn write_changed(
    store: &mut Store,
    before: Before,
    layout: &Layout,
    touched: &[&walk::WalkedFile],
    changed: &[Changed],
    report: &mut IndexReport,
    updates: &mut Vec<RowUpdate>,
) -> Result<(), IndexError> {
    // Write the changes, a batch per transaction, marking affected files pending.
    if !touched.is_empty() {
        store.transaction(|tx| {
            for f in touched {
                if let Some(s) = before.rows.get(f.path.as_str()) {
                    tx.touch_file(s.id, f.size, f.mtime_ns)?;
                }
            }
            Ok(())
        })?;
        updates.extend(touched.iter().map(|f| RowUpdate {
            path: f.path.clone(),
            lang: f.lang,
            content: None,
            size: f.size,
            mtime_ns: f.mtime_ns,
        }));
    }
    report.extracted += changed.len();
    report.diagnostics += changed
        .iter()
        .map(|c| c.facts.diagnostics.len())
        .sum::<usize>();
    for batch in changed.chunks(BATCH) {
        let mut affected = BTreeSet::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut remaps: Vec<Option<Vec<Option<u32>>>> = Vec::with_capacity(batch.len());
        // Some file's interface changed beyond its added or removed
        // definitions (the wide rule below applies).
        let mut any_changed = false;
        for c in batch {
            let Some(s) = before.rows.get(c.walked.path.as_str()) else {
                // A new file: whatever names what it defines, or its module,
                // may resolve to it now. (On a first index every file is new
                // and pending anyway.)
                if !before.first_index {
                    names.extend(c.facts.defs.iter().map(|d| d.name.clone()));
                    names.extend(module_names(&resolve::module_key(
                        c.walked.lang,
                        &c.walked.path,
                        layout,
                    )));
                    names.extend(c.facts.ref_names.iter().cloned());
                }
                remaps.push(None);
                continue;
            };
            let (defs, scope) = store.facts_blobs(s.id)?;
            let old_defs: Vec<Def> = decode(s.id, &defs)?;
            let old_scope: LangScope = decode(s.id, &scope)?;
            let remap = remap_defs(&old_defs, &c.facts.defs);
            // Definitions that appeared, disappeared or changed visibility:
            // references to those names may resolve differently now. Edges
            // into the rest keep their targets (moved to the new indexes).
            names.extend(changed_def_names(&old_defs, &c.facts.defs, &remap));
            let gone: Vec<u32> = (0..old_defs.len() as u32)
                .filter(|i| remap[*i as usize].is_none())
                .collect();
            affected.extend(store.owners_linked_to(s.id, &gone)?);
            // Language-server answers about sites pointing here are stale.
            affected.extend(store.lsp_owners_into(s.id)?);
            // A changed interface (imports, re-exports, bases, declared
            // types; positions aside) can move resolutions in any file that
            // names what this file names; a body-only edit cannot. Nor can
            // an edit whose interface changes only in what belongs to
            // definitions that appeared or disappeared (an appended
            // function, a method added to an impl): other files reach those
            // by their names, already in `names`.
            let change =
                interface::compare(&old_defs, &old_scope, &c.facts.defs, &c.facts.scope, &remap);
            let interface_changed = change == interface::Change::Changed;
            any_changed |= interface_changed;
            tracing::debug!(path = %c.walked.path, ?change, "re-extracted");
            if let interface::Change::Owned(mentioned) = change {
                names.extend(mentioned);
            }
            if interface_changed {
                names.extend(old_defs.iter().map(|d| d.name.clone()));
                names.extend(c.facts.defs.iter().map(|d| d.name.clone()));
                names.extend(store.ref_names_of(s.id)?);
                names.extend(c.facts.ref_names.iter().cloned());
            }
            remaps.push(Some(remap));
        }
        // What changed may also be reached under other names (re-exports,
        // aliases). After a wide change the names are already wide; the
        // chase is for the narrow rule, where it costs little. Python
        // files are not chased (see `chase_aliases`), nor do other
        // languages' files alias them.
        let chased = batch
            .iter()
            .any(|c| c.walked.lang.family() != crate::extract::Family::Python);
        if !any_changed && chased && !names.is_empty() {
            chase_aliases(store, before.rows, batch, &mut names)?;
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        affected.extend(store.files_referencing(&name_refs)?);
        tracing::debug!(?names, ?affected, "affected by this batch");
        let encoded: Vec<_> = batch
            .iter()
            .map(|c| {
                let module = resolve::module_key(c.walked.lang, &c.walked.path, layout);
                let keys = resolve::file_keys(c.walked.lang, &module, &c.facts.defs);
                let attrs = match &c.facts.scope {
                    LangScope::Python(s) => resolve::python::class_attrs(s),
                    _ => Vec::new(),
                };
                (
                    module,
                    keys,
                    encode(&c.facts.defs),
                    encode(&c.facts.scope),
                    encode(&c.facts.refs),
                    attrs,
                )
            })
            .collect();
        let ids = store.transaction(|tx| {
            let mut ids = Vec::with_capacity(batch.len());
            for ((c, (module, keys, defs, scope, refs, attrs)), remap) in
                batch.iter().zip(&encoded).zip(&remaps)
            {
                ids.push(tx.put_file(&FileWrite {
                    path: &c.walked.path,
                    lang: c.walked.lang,
                    hash: &c.hash,
                    size: c.walked.size,
                    mtime_ns: c.walked.mtime_ns,
                    module,
                    defs: &c.facts.defs,
                    keys,
                    defs_blob: defs,
                    scope_blob: scope,
                    refs_blob: refs,
                    ref_names: &c.facts.ref_names,
                    class_attrs: attrs,
                    diagnostics: &c.facts.diagnostics,
                    incoming: match remap {
                        Some(map) => Incoming::Remap(map),
                        None => Incoming::Drop,
                    },
                })?);
            }
            tx.mark_pending(&affected.iter().copied().collect::<Vec<_>>())?;
            Ok(ids)
        })?;
        // The copy beside the database follows it (a copy that could not
        // be written is only slower: its records no longer match the rows).
        let records: Vec<scope_cache::Record> = batch
            .iter()
            .zip(&encoded)
            .zip(&ids)
            .map(|((c, (_, _, defs, scope, ..)), &id)| {
                scope_cache::Record::new(id, &c.walked.path, c.walked.lang, &c.hash, defs, scope)
            })
            .collect();
        if let Err(e) = scope_cache::append(before.dir, &records) {
            tracing::debug!(error = %e, "the copy of the facts was not appended to");
        }
        // Files that had a row (a remap): new ones are read back instead.
        for ((c, (module, ..)), _) in batch
            .iter()
            .zip(encoded)
            .zip(&remaps)
            .filter(|(_, remap)| remap.is_some())
        {
            updates.push(RowUpdate {
                path: c.walked.path.clone(),
                lang: c.walked.lang,
                content: Some((c.hash.clone(), module)),
                size: c.walked.size,
                mtime_ns: c.walked.mtime_ns,
            });
        }
    }
    Ok(())
}

/// Extend `names` with the names other TypeScript and Rust files reach them
/// under ([`interface::aliases`]: `export { a as b }`, `pub use m::a as b`,
/// …), transitively: a file naming only `b` resolves differently when what
/// `a` denotes changes. The files read are those naming a name of the last
/// round (an alias's fact names what it aliases), in the edited version for
/// the files of `batch`.
fn chase_aliases(
    store: &Store,
    stored: &Stored,
    batch: &[Changed],
    names: &mut BTreeSet<String>,
) -> Result<(), IndexError> {
    let edited: HashSet<i64> = batch
        .iter()
        .filter_map(|c| stored.get(c.walked.path.as_str()).map(|r| r.id))
        .collect();
    let mut read: HashMap<i64, (Vec<Def>, LangScope)> = HashMap::new();
    let mut frontier: Vec<String> = names.iter().cloned().collect();
    while !frontier.is_empty() {
        let refs: Vec<&str> = frontier.iter().map(String::as_str).collect();
        let mut found: Vec<String> = Vec::new();
        for c in batch {
            found.extend(interface::aliases(&c.facts.defs, &c.facts.scope, names));
        }
        let ids = store.files_referencing(&refs)?;
        let langs = store.file_langs(&ids)?;
        for id in ids {
            let Some(lang) = langs.get(&id) else { continue };
            if edited.contains(&id) || lang.family() == crate::extract::Family::Python {
                continue;
            }
            let (defs, scope) = match read.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let (defs, scope) = store.facts_blobs(id)?;
                    let defs: Vec<Def> = decode(id, &defs)?;
                    let scope: LangScope = decode(id, &scope)?;
                    e.insert((defs, scope))
                }
            };
            found.extend(interface::aliases(defs, scope, names));
        }
        found.sort_unstable();
        found.dedup();
        found.retain(|n| !names.contains(n));
        tracing::debug!(?found, "aliases of changed names");
        names.extend(found.iter().cloned());
        frontier = found;
    }
    Ok(())
}

/// Where each old definition is in the new list: matched by qualified name
/// and kind, duplicates in order (so `#2` keys stay with their definition).
fn remap_defs(old: &[Def], new: &[Def]) -> Vec<Option<u32>> {
    let mut slots: HashMap<(&str, crate::graph::NodeKind), std::collections::VecDeque<u32>> =
        HashMap::new();
    for (j, d) in new.iter().enumerate() {
        slots
            .entry((d.local.as_str(), d.kind))
            .or_default()
            .push_back(j as u32);
    }
    old.iter()
        .map(|d| {
            slots
                .get_mut(&(d.local.as_str(), d.kind))
                .and_then(|q| q.pop_front())
        })
        .collect()
}

/// Names whose set of definitions changed: added, removed, or changed
/// visibility.
fn changed_def_names(old: &[Def], new: &[Def], remap: &[Option<u32>]) -> Vec<String> {
    let mut kept = vec![false; new.len()];
    let mut out = Vec::new();
    for (d, m) in old.iter().zip(remap) {
        match m {
            Some(j) => {
                kept[*j as usize] = true;
                if new[*j as usize].exported != d.exported {
                    out.push(d.name.clone());
                }
            }
            None => out.push(d.name.clone()),
        }
    }
    out.extend(
        new.iter()
            .zip(&kept)
            .filter(|(_, k)| !**k)
            .map(|(d, _)| d.name.clone()),
    );
    out
}

/// The segments of a module key (`shop.payments` → `shop`, `payments`;
/// `src/payments/index.ts` → `src`, `payments`, `index`): how other files
/// name a module (`mod.rs`, `__init__.py` and `index.ts` are named by their folder).
fn module_names(module: &str) -> impl Iterator<Item = String> + '_ {
    module
        .split(['.', ':', '/'])
        .filter(|s| !s.is_empty())
        .map(|s| s.split('.').next().unwrap_or(s).to_string())
}

/// An update of at most this many candidate files checks their contents
/// before extracting them, to start the preload at once; after a walk from
/// the snapshot, it reads every file row while they are extracted.
const EARLY_PRELOAD_MAX: usize = 64;

/// Whether the file's content differs from the stored row's (or it has
/// none): what [`read_and_extract`] will find, without extracting. A file
/// that cannot be read counts as unchanged here; the extraction reports it.
fn content_changed(
    root: &Path,
    f: &walk::WalkedFile,
    stored: Option<&crate::store::FileRow>,
) -> bool {
    let Some(s) = stored else {
        return true;
    };
    std::fs::read(root.join(&f.path))
        .is_ok_and(|bytes| s.lang != f.lang || blake3::hash(&bytes).to_hex().as_str() != s.hash)
}

fn read_and_extract(
    root: &Path,
    f: &walk::WalkedFile,
    stored: Option<&crate::store::FileRow>,
) -> Result<Option<Changed>, walk::Skipped> {
    let skip = |reason, detail| walk::Skipped {
        path: f.path.clone(),
        reason,
        detail,
    };
    let bytes = std::fs::read(root.join(&f.path)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            skip(walk::SkipReason::Vanished, "deleted during the walk".into())
        } else {
            skip(walk::SkipReason::Unreadable, e.to_string())
        }
    })?;
    let hash = blake3::hash(&bytes).to_hex().to_string();
    if stored.is_some_and(|s| s.hash == hash && s.lang == f.lang) {
        return Ok(None);
    }
    let warning =
        walk::check_text(f.lang, &bytes).map_err(|(reason, detail)| skip(reason, detail))?;
    tracing::trace!(path = %f.path, "extract");
    let mut walked = f.clone();
    walked.size = bytes.len() as u64;
    let mut facts = extract::extract(f.lang, &f.path, &bytes);
    facts.diagnostics.extend(warning);
    facts.diagnostics.sort_by_key(|d| d.pos);
    Ok(Some(Changed {
        walked,
        hash,
        facts,
    }))
}

/// Decoded files by row id.
type WorldFiles = foldhash::HashMap<i64, resolve::Facts>;

/// Files' facts read ahead of resolution, while the changed files were
/// written: every file's, or (`python: false`) those of the files that are
/// not Python, when the world was expected to be read on demand.
struct Preloaded {
    files: WorldFiles,
    python: bool,
    /// The Rust global names kept by the last update.
    rust_names: Option<KeptNames>,
    /// The copy of the facts beside the database ([`scope_cache`]) lacked
    /// too many of them, or is mostly superseded records: written again
    /// once the update is done.
    stale_cache: bool,
}

/// An update resolving at most this share of the files (1/n) reads the
/// others' facts only when a resolver asks for them ([`StoreFacts`]);
/// beyond it, every file is read and decoded up front, on all cores.
const ON_DEMAND_SHARE: usize = 8;

/// Whether resolving `pending` of `total` files reads facts on demand.
fn on_demand(pending: usize, total: usize) -> bool {
    pending * ON_DEMAND_SHARE <= total
}

fn is_python(row: &crate::store::FileRow) -> bool {
    row.lang.family() == crate::extract::Family::Python
}

/// World facts read from the store when a resolver first asks for them,
/// and the repository-wide lookups answered by its indexes.
struct StoreFacts<'a> {
    reader: std::sync::Mutex<Store>,
    rows: &'a [crate::store::FileRow],
    /// Row id → index in `rows`.
    row_of: foldhash::HashMap<i64, u32>,
    /// Answers given, by question and name.
    asked: std::sync::Mutex<foldhash::HashMap<(Question, String), Vec<resolve::SymId>>>,
    /// The first error: resolutions made once it is set are not stored.
    error: std::sync::Mutex<Option<StoreError>>,
}

/// A repository-wide lookup by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Question {
    Named(crate::extract::Family),
    PythonMethods,
}

impl<'a> StoreFacts<'a> {
    fn new(reader: Store, rows: &'a [crate::store::FileRow]) -> StoreFacts<'a> {
        StoreFacts {
            reader: std::sync::Mutex::new(reader),
            rows,
            row_of: rows
                .iter()
                .enumerate()
                .map(|(i, r)| (r.id, i as u32))
                .collect(),
            asked: Default::default(),
            error: std::sync::Mutex::new(None),
        }
    }

    fn take_error(&self) -> Option<StoreError> {
        self.error.lock().ok().and_then(|mut e| e.take())
    }

    fn fail(&self, e: StoreError) {
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(e);
        }
    }

    fn read<T>(&self, f: impl FnOnce(&Store) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let reader = self
            .reader
            .lock()
            .map_err(|_| StoreError::Blob(0, "fact reader poisoned".into()))?;
        f(&reader)
    }

    /// The nodes of `family`'s files among `ids`, as world symbols in
    /// world order.
    fn syms(&self, ids: Vec<i64>, family: crate::extract::Family) -> Vec<resolve::SymId> {
        let mut syms: Vec<resolve::SymId> = ids
            .into_iter()
            .filter_map(|id| {
                let i = *self.row_of.get(&crate::graph::node_file(id))?;
                (self.rows[i as usize].lang.family() == family).then_some(resolve::SymId {
                    file: FileIdx(i),
                    def: crate::graph::node_index(id),
                })
            })
            .collect();
        syms.sort_unstable();
        syms
    }

    fn ask(&self, q: Question, name: &str) -> Vec<resolve::SymId> {
        let key = (q, name.to_string());
        if let Some(have) = self.asked.lock().ok().and_then(|a| a.get(&key).cloned()) {
            return have;
        }
        let found = match q {
            // A file's module is its definition 0, not a name (as
            // [`World::named`] without a source).
            Question::Named(family) => self.read(|s| s.named_nodes(name)).map(|ids| {
                let ids = ids
                    .into_iter()
                    .filter(|id| crate::graph::node_index(*id) != 0);
                self.syms(ids.collect(), family)
            }),
            Question::PythonMethods => self
                .read(|s| s.method_nodes(name))
                .map(|ids| self.syms(ids, crate::extract::Family::Python)),
        };
        let found = found.unwrap_or_else(|e| {
            self.fail(e);
            Vec::new()
        });
        if let Ok(mut a) = self.asked.lock() {
            a.insert(key, found.clone());
        }
        found
    }
}

impl resolve::FactSource for StoreFacts<'_> {
    fn load(&self, idx: FileIdx) -> resolve::Facts {
        let row = &self.rows[idx.0 as usize];
        let read = || -> Result<resolve::Facts, StoreError> {
            let (defs, scope) = self.read(|s| s.facts_blobs(row.id))?;
            let scope: Box<LangScope> = decode(row.id, &scope)?;
            let defs = decode_defs(row.id, &scope, resolve::Encoded::Owned(defs))?;
            Ok(resolve::Facts { defs, scope })
        };
        read().unwrap_or_else(|e| {
            self.fail(e);
            placeholder_facts(row)
        })
    }

    fn named(&self, name: &str, family: crate::extract::Family) -> Vec<resolve::SymId> {
        self.ask(Question::Named(family), name)
    }

    fn python_methods(&self, name: &str) -> Vec<resolve::SymId> {
        self.ask(Question::PythonMethods, name)
    }

    fn python_class_attrs(&self, name: &str) -> u32 {
        self.read(|s| s.class_attr_count(name)).unwrap_or_else(|e| {
            self.fail(e);
            0
        })
    }

    fn failed(&self) -> bool {
        self.error.lock().map_or(true, |e| e.is_some())
    }
}

/// What a file whose facts cannot be read stands as: its module alone.
fn placeholder_facts(row: &crate::store::FileRow) -> resolve::Facts {
    let stem = row.path.rsplit('/').next().unwrap_or(&row.path);
    let stem = stem.split('.').next().unwrap_or(stem);
    resolve::Facts {
        defs: resolve::Defs::decoded(vec![Def {
            name: stem.to_string(),
            local: String::new(),
            kind: crate::graph::NodeKind::Module,
            parent: None,
            pos: crate::graph::Pos { line: 1, column: 1 },
            start_line: 1,
            end_line: 1,
            exported: true,
        }]),
        scope: Box::new(match row.lang.family() {
            crate::extract::Family::Python => LangScope::Python(Default::default()),
            crate::extract::Family::Script => LangScope::Script(Default::default()),
            crate::extract::Family::Rust => LangScope::Rust(Default::default()),
        }),
    }
}

/// Decode files' scopes on all cores, and their definitions as
/// [`decode_defs`] does (Rust's only as far as their heads).
fn decode_world_files(
    pool: &rayon::ThreadPool,
    blobs: WorldBlobs,
) -> Result<WorldFiles, StoreError> {
    let WorldBlobs { kept, read, .. } = blobs;
    let (cache, kept) = kept.unzip();
    let kept = kept.unwrap_or_default();
    pool.install(|| {
        let kept = kept.into_par_iter().map(|(id, d, s)| {
            let cache = cache.as_ref().expect("records kept come with their copy");
            let scope: Box<LangScope> = decode(id, &(**cache).as_ref()[s])?;
            let shared: resolve::SharedBytes = cache.clone();
            let defs = decode_defs(id, &scope, resolve::Encoded::Shared(shared, d))?;
            Ok((id, resolve::Facts { defs, scope }))
        });
        let read = read.into_par_iter().map(|(id, d, s)| {
            let scope: Box<LangScope> = decode(id, &s)?;
            let defs = decode_defs(id, &scope, resolve::Encoded::Owned(d))?;
            Ok((id, resolve::Facts { defs, scope }))
        });
        kept.chain(read).collect()
    })
}

/// A file's definitions as its language's resolver reads them: Rust's as
/// heads until asked (the Rust index reads every file's heads and the
/// definitions of few), the others' decoded now (their resolvers read the
/// definitions of every file they read).
fn decode_defs(
    id: i64,
    scope: &LangScope,
    bytes: resolve::Encoded,
) -> Result<resolve::Defs, StoreError> {
    match scope {
        LangScope::Rust(_) => {
            resolve::Defs::encoded(bytes).map_err(|e| StoreError::Blob(id, e.to_string()))
        }
        _ => Ok(resolve::Defs::decoded(decode(id, bytes.bytes())?)),
    }
}

/// Some rows' definitions and scopes: read one by one, decoded on all cores.
fn read_world_files<'r>(
    store: &Store,
    rows: impl Iterator<Item = &'r crate::store::FileRow>,
) -> Result<WorldFiles, StoreError> {
    let read: Vec<crate::store::ScopeBlobs> = rows
        .map(|r| {
            let (d, s) = store.facts_blobs(r.id)?;
            Ok((r.id, d, s))
        })
        .collect::<Result<_, StoreError>>()?;
    decode_world_files(workers(), WorldBlobs::read(read))
}

/// The world's blobs as the preload reads them: from the copy beside the
/// database where it has a file's as its row is now, else from the
/// database.
struct WorldBlobs {
    /// Where in the copy (file id, definitions, scope).
    #[allow(clippy::type_complexity)]
    kept: Option<(
        std::sync::Arc<scope_cache::ScopeCache>,
        Vec<(i64, std::ops::Range<usize>, std::ops::Range<usize>)>,
    )>,
    read: Vec<crate::store::ScopeBlobs>,
    /// The copy is worth writing again ([`scope_cache::ScopeCache::stale`]).
    stale: bool,
}

impl WorldBlobs {
    fn read(read: Vec<crate::store::ScopeBlobs>) -> WorldBlobs {
        WorldBlobs {
            kept: None,
            read,
            stale: false,
        }
    }
}

/// Every file's definitions and scope blobs (`python: false`: those of the
/// files that are not Python), in one snapshot of the database: from
/// `cache` for each row it has a record of (same id, path, language and
/// content hash), the others from the database (one query when they are
/// many, else one by one).
fn world_blobs(
    reader: &Store,
    cache: Option<scope_cache::ScopeCache>,
    python: bool,
) -> Result<WorldBlobs, StoreError> {
    reader.begin_read()?;
    let read = (|| {
        let mut rows = reader.files()?;
        let ids: HashSet<i64> = rows.iter().map(|r| r.id).collect();
        rows.retain(|r| python || r.lang != Lang::Python);
        // (Each record's checksum is checked as it is found: on all cores.)
        let found: Vec<Option<_>> = preload_workers().install(|| {
            rows.par_iter()
                .map(|r| {
                    let key = scope_cache::Key {
                        id: r.id,
                        path: &r.path,
                        lang: r.lang,
                        hash: &r.hash,
                    };
                    cache.as_ref().and_then(|c| c.locate(key))
                })
                .collect()
        });
        let mut kept = Vec::with_capacity(rows.len());
        let mut missing = Vec::new();
        for (r, found) in rows.iter().zip(found) {
            match found {
                Some((d, s)) => kept.push((r.id, d, s)),
                None => missing.push(r.id),
            }
        }
        let stale = match &cache {
            Some(c) => c.stale(|id| ids.contains(&id), rows.len(), missing.len()),
            None => !rows.is_empty(),
        };
        let read: Vec<crate::store::ScopeBlobs> =
            if scope_cache::too_many_missing(rows.len(), missing.len()) {
                let missing: HashSet<i64> = missing.iter().copied().collect();
                let all = if python {
                    reader.scopes()?
                } else {
                    reader.scopes_except(Lang::Python)?
                };
                all.into_iter()
                    .filter(|(id, ..)| missing.contains(id))
                    .collect()
            } else {
                let mut out = Vec::with_capacity(missing.len());
                for id in missing {
                    let (d, s) = reader.facts_blobs(id)?;
                    out.push((id, d, s));
                }
                out
            };
        tracing::debug!(kept = kept.len(), read = read.len(), stale, "world blobs");
        let kept = cache.map(|c| (std::sync::Arc::new(c), kept));
        Ok(WorldBlobs { kept, read, stale })
    })();
    let end = reader.end_read();
    let blobs = read?;
    end?;
    Ok(blobs)
}

/// Writes the copy of every file's definitions and scope beside the
/// database again, from the database.
fn rewrite_scope_cache(store: &Store, dir: &Path) -> Result<(), IndexError> {
    let mut image = scope_cache::Image::default();
    store.each_keyed_scope(|id, path, lang, hash, defs, scope| {
        image.push(&scope_cache::Record::new(id, path, lang, hash, defs, scope));
    })?;
    image.write(dir).map_err(|source| IndexError::Io {
        path: dir.join(scope_cache::FILE).display().to_string(),
        source,
    })
}

/// The facts resolution reads up front: every row's definitions and scope,
/// or (`python: false`, the world read on demand) those of the rows that
/// are not Python. What `preloaded` has is taken from it, a language it
/// left out is read in one query, and the rest (files re-extracted since,
/// new files) one by one.
fn load_world_files(
    store: &Store,
    rows: &[crate::store::FileRow],
    preloaded: Option<Preloaded>,
    python: bool,
) -> Result<WorldFiles, StoreError> {
    let Some(Preloaded {
        files: mut have,
        python: had_python,
        ..
    }) = preloaded
    else {
        let blobs = if python {
            store.scopes()?
        } else {
            store.scopes_except(Lang::Python)?
        };
        return decode_world_files(workers(), WorldBlobs::read(blobs));
    };
    if python && !had_python {
        let blobs = store.scopes_of(Lang::Python)?;
        have.extend(decode_world_files(workers(), WorldBlobs::read(blobs))?);
    }
    let missing = read_world_files(
        store,
        rows.iter()
            .filter(|r| (python || !is_python(r)) && !have.contains_key(&r.id)),
    )?;
    have.extend(missing);
    Ok(have)
}

fn resolve_pending(
    store: &mut Store,
    rows: &[crate::store::FileRow],
    pending: &[usize],
    layout: &Layout,
    cfg: &IndexConfig,
    bulk: bool,
    preloaded: Option<Preloaded>,
) -> Result<(), IndexError> {
    let t = Instant::now();
    // A few files to resolve in a large tree: the world's facts are read
    // when a resolver first asks for them, and Python's members by name
    // come from the store, for the names the pending files use.
    // (Only Python's resolver reads other files as it goes: TypeScript's
    // and Rust's indexes are built from all their files.)
    let wanted = cfg.on_demand.unwrap_or_else(|| {
        !preloaded.as_ref().is_some_and(|p| p.python)
            && on_demand(pending.len(), rows.len())
            && rows.iter().any(is_python)
    });
    let demand = if !bulk && wanted {
        store.reader().transpose()?
    } else {
        None
    };
    let cells: Vec<std::sync::OnceLock<resolve::Facts>> =
        rows.iter().map(|_| std::sync::OnceLock::new()).collect();
    let source = demand.map(|reader| StoreFacts::new(reader, rows));
    // On demand, the files TypeScript's and Rust's indexes read anyway
    // are still read up front; the Python files' cells fill as asked.
    let mut preloaded = preloaded;
    let kept_names = preloaded.as_mut().map(|p| p.rust_names.take());
    let mut world_files = load_world_files(store, rows, preloaded, source.is_none())?;
    for (cell, r) in cells.iter().zip(rows) {
        match world_files.remove(&r.id) {
            Some(f) => {
                let _ = cell.set(f);
            }
            None if source.is_none() => return Err(StoreError::Blob(r.id, "missing".into()).into()),
            None => {}
        }
    }
    tracing::debug!(elapsed = ?t.elapsed(), on_demand = source.is_some(), rss = crate::memory::rss_mib(), "loaded world");
    let inputs = rows
        .iter()
        .zip(&cells)
        .map(|(r, cell)| resolve::WorldInput {
            path: &r.path,
            lang: r.lang,
            facts: resolve::FactsRef::Cell(cell),
            module_key: Some(&r.module),
            empty: r.size == 0,
        })
        .collect();
    let world_owned = match &source {
        Some(s) => World::with_source(inputs, layout, s),
        None => World::new(inputs, layout),
    };
    let world = &world_owned;
    let t = Instant::now();
    let any_rust = rows
        .iter()
        .any(|r| r.lang.family() == extract::Family::Rust);
    let (known, chunks) = match (any_rust, kept_names) {
        (false, _) => (None, 0),
        (true, Some(kept)) => known_rust_names(kept, rows),
        (true, None) => known_rust_names(read_kept_names(store)?, rows),
    };
    tracing::debug!(elapsed = ?t.elapsed(), chunks, "read the Rust names kept");
    let prepared_owned = resolve::prepare_with(world, known);
    if any_rust {
        let t = Instant::now();
        keep_rust_names(store, rows, prepared_owned.rust(), chunks)?;
        tracing::debug!(elapsed = ?t.elapsed(), "kept the Rust names");
    }
    tracing::debug!(elapsed = ?t.elapsed(), rss = crate::memory::rss_mib(), "prepared resolvers");
    let t = Instant::now();
    let file_ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let lookup = if store.has_verdicts()? {
        Some(Lookup::new(world, rows))
    } else {
        None
    };
    let bar = progress_bar(
        cfg.progress && pending.len() > 200,
        pending.len() as u64,
        "resolve",
    );
    // Workers resolve the next batch while this thread reads and writes.
    type Resolved = Result<Vec<(usize, FileResolution)>, StoreError>;
    let read_refs = |store: &Store, batch: &[usize]| -> Result<Vec<(usize, Vec<u8>)>, StoreError> {
        batch
            .iter()
            .map(|&i| Ok((i, store.refs_blob(rows[i].id)?)))
            .collect()
    };
    let (prepared, bar, source_ref) = (&prepared_owned, &bar, source.as_ref());
    std::thread::scope(|scope| -> Result<(), IndexError> {
        let (job_tx, job_rx) = std::sync::mpsc::sync_channel::<Vec<(usize, Vec<u8>)>>(1);
        let (res_tx, res_rx) = std::sync::mpsc::sync_channel::<Resolved>(1);
        scope.spawn(move || {
            for refs in job_rx {
                let resolved: Resolved = workers().install(|| {
                    refs.par_iter()
                        .map(|(i, blob)| {
                            let refs: LangRefs = decode(rows[*i].id, blob)?;
                            let resolve = || {
                                resolve::resolve_file(world, prepared, FileIdx(*i as u32), &refs)
                            };
                            let res = match source_ref {
                                None => resolve(),
                                // A file that could not be read stands as
                                // its module alone: a resolver indexing
                                // into it fails, and the error is the read.
                                Some(s) => match std::panic::catch_unwind(
                                    std::panic::AssertUnwindSafe(resolve),
                                ) {
                                    Ok(res) => res,
                                    Err(_) if resolve::FactSource::failed(s) => {
                                        FileResolution::default()
                                    }
                                    Err(panic) => std::panic::resume_unwind(panic),
                                },
                            };
                            bar.inc(1);
                            Ok((*i, res))
                        })
                        .collect()
                });
                if res_tx.send(resolved).is_err() {
                    break;
                }
            }
        });
        let mut batches = chunks_by_size(pending, |&i| rows[i].size);
        let mut in_flight = 0usize;
        // In a bulk load, the workers resolve the first two batches while
        // this thread builds the indexes over the facts.
        for _ in 0..if bulk { 2 } else { 1 } {
            if let Some(batch) = batches.next() {
                let _ = job_tx.send(read_refs(store, batch)?);
                in_flight += 1;
            }
        }
        if bulk {
            let t = Instant::now();
            store.end_bulk_facts()?;
            tracing::debug!(elapsed = ?t.elapsed(), rss = crate::memory::rss_mib(), "built fact indexes");
        }
        while in_flight > 0 {
            if let Some(next) = batches.next() {
                let _ = job_tx.send(read_refs(store, next)?);
                in_flight += 1;
            }
            let Ok(resolved) = res_rx.recv() else {
                break;
            };
            in_flight -= 1;
            let resolved = resolved?;
            // A file read on demand failed: what was resolved after it may
            // rest on its placeholder, and is not stored.
            if let Some(e) = source
                .as_ref()
                .filter(|s| resolve::FactSource::failed(*s))
                .and_then(|s| s.take_error())
            {
                return Err(e.into());
            }
            let verdicts = match &lookup {
                Some(_) => resolved
                    .iter()
                    .map(|(i, _)| {
                        let r = &rows[*i];
                        Ok((
                            store.verdicts_for(&r.path, &r.hash)?,
                            store.discovered_for(&r.path, &r.hash)?,
                        ))
                    })
                    .collect::<Result<Vec<_>, StoreError>>()?,
                None => Vec::new(),
            };
            store.transaction(|tx| {
                for (n, (i, res)) in resolved.iter().enumerate() {
                    let nid = |s: resolve::SymId| node_id(file_ids[s.file.0 as usize], s.def);
                    let mut edges: Vec<Checked> = res
                        .edges
                        .iter()
                        .map(|e| {
                            let (status, confidence) = grade(e.strategy);
                            Checked {
                                src: e.src,
                                dst: e.dst,
                                kind: e.kind,
                                confidence,
                                status,
                                source: Cow::Borrowed(static_source(status)),
                                site: e.site,
                            }
                        })
                        .collect();
                    let mut unresolved = res.unresolved.clone();
                    if let (Some(lookup), Some((v, d))) = (&lookup, verdicts.get(n)) {
                        apply_verdicts(
                            world,
                            lookup,
                            FileIdx(*i as u32),
                            &mut edges,
                            &mut unresolved,
                            v,
                            d,
                        );
                    }
                    let new_edges: Vec<NewEdge> = edges
                        .iter()
                        .map(|e| NewEdge {
                            src: nid(e.src),
                            dst: nid(e.dst),
                            kind: e.kind,
                            confidence: e.confidence,
                            status: e.status,
                            source: &e.source,
                            site: e.site.map(|p| (p.line, p.column)),
                        })
                        .collect();
                    let unresolved: Vec<NewUnresolved> = unresolved
                        .iter()
                        .map(|u| NewUnresolved {
                            src: node_id(file_ids[*i], u.src),
                            name: &u.name,
                            kind: u.kind,
                            line: u.site.line,
                            column: u.site.column,
                            reason: &u.reason,
                        })
                        .collect();
                    tx.put_resolution(file_ids[*i], &new_edges, &unresolved)?;
                }
                Ok(())
            })?;
        }
        drop(job_tx);
        Ok(())
    })?;
    bar.finish_and_clear();
    tracing::debug!(elapsed = ?t.elapsed(), rss = crate::memory::rss_mib(), "resolved and written");
    if cfg.one_shot && !bulk {
        std::mem::forget(lookup);
        std::mem::forget(prepared_owned);
        std::mem::forget(world_owned);
        std::mem::forget(cells);
    } else if bulk {
        // The indexes SQLite builds next sort whole tables: the world and
        // the resolvers' tables go first, and their pages back to the
        // system (rust-large's peak: 1,053 MB with them kept to the end).
        let t = Instant::now();
        drop(lookup);
        drop(prepared_owned);
        drop(world_owned);
        drop(cells);
        crate::memory::give_back_everywhere();
        tracing::debug!(elapsed = ?t.elapsed(), rss = crate::memory::rss_mib(), "freed the world");
    }
    Ok(())
}

/// The Rust index's chunks of names kept at most: past them, the next
/// update interns every name again and keeps one chunk (names of files
/// since changed or removed stay in the table until then).
pub const MAX_RUST_NAME_CHUNKS: usize = 64;

/// The Rust global names the last update kept (see [`keep_rust_names`]).
struct KeptNames {
    table: resolve::rust::NameTable,
    /// How many chunks the table was kept in.
    chunks: usize,
    /// File id → its names' ids.
    files: HashMap<i64, resolve::rust::FileNames>,
}

/// Read and decode the kept Rust names; `None` when none are kept, they
/// do not decode, or they are due to be rebuilt.
fn read_kept_names(store: &Store) -> Result<Option<KeptNames>, StoreError> {
    let mut text = crate::extract::names::Names::default();
    let (mut chunks, mut usable) = (0, true);
    let mut files = HashMap::default();
    store.read_rust_names(
        |chunk| {
            chunks += 1;
            // Past the limit the table is rebuilt: nothing more to read.
            usable = chunks < MAX_RUST_NAME_CHUNKS
                && match crate::extract::names::Names::from_encoded(chunk) {
                    Ok(names) if text.is_empty() => {
                        text = names;
                        true
                    }
                    Ok(names) => {
                        text.append(&names);
                        true
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "the Rust names kept do not decode: interned again");
                        false
                    }
                };
            usable
        },
        |id, blob| {
            // One that does not decode is interned again.
            if let Ok(names) = postcard::from_bytes(blob) {
                files.insert(id, names);
            }
        },
    )?;
    if !usable || chunks == 0 {
        return Ok(None);
    }
    Ok(Some(KeptNames {
        table: resolve::rust::NameTable::from_names(text),
        chunks,
        files,
    }))
}

/// The kept names for the world of `rows` (by row index, its file order),
/// with how many chunks they were kept in (0: none).
fn known_rust_names(
    kept: Option<KeptNames>,
    rows: &[crate::store::FileRow],
) -> (Option<resolve::rust::KnownNames>, usize) {
    let Some(mut kept) = kept else {
        return (None, 0);
    };
    let files = rows.iter().map(|r| kept.files.remove(&r.id)).collect();
    let known = resolve::rust::KnownNames {
        table: kept.table,
        files,
    };
    (Some(known), kept.chunks)
}

/// Keep what `ix` interned for the next update: the names it added, as a
/// new chunk, and the ids of the files whose names it interned (`chunks`
/// kept before it; 0: the table is `ix`'s alone and replaces any kept).
fn keep_rust_names(
    store: &mut Store,
    rows: &[crate::store::FileRow],
    ix: &resolve::rust::Index,
    chunks: usize,
) -> Result<(), StoreError> {
    let added = ix.names.len() - ix.known_names;
    if ix.interned.is_empty() && added == 0 {
        return Ok(());
    }
    store.transaction(|tx| {
        if chunks == 0 {
            tx.clear_rust_names()?;
        }
        if added > 0 {
            let new: crate::extract::names::Names =
                ix.names.names().iter().skip(ix.known_names).collect();
            tx.append_rust_names(&encode(&new))?;
        }
        for &f in &ix.interned {
            let i = f.0 as usize;
            // Encoded as `FileNames` is.
            let ids = (&ix.gnames[i][..], &ix.def_names[i][..]);
            tx.put_rust_gnames(rows[i].id, &encode(&ids))?;
        }
        Ok(())
    })
}

fn encode<T: serde::Serialize>(v: &T) -> Vec<u8> {
    postcard::to_allocvec(v).expect("facts serialize to memory")
}

fn decode<T: serde::de::DeserializeOwned>(id: i64, bytes: &[u8]) -> Result<T, StoreError> {
    postcard::from_bytes(bytes).map_err(|e| StoreError::Blob(id, e.to_string()))
}

fn progress_bar(show: bool, len: u64, what: &'static str) -> ProgressBar {
    use std::io::IsTerminal;
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>8} [{bar:30}] {pos}/{len} files {per_sec} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(what);
    bar
}

/// An edge on its way to the store, after language-server verdicts.
struct Checked {
    src: resolve::SymId,
    dst: resolve::SymId,
    kind: EdgeKind,
    confidence: f64,
    status: crate::graph::Status,
    /// Borrowed for the static sources: most edges of a first index.
    source: Cow<'static, str>,
    site: Option<crate::graph::Pos>,
}

/// Where definitions are, by file and name position, and each file's hash:
/// how a server's answer is mapped back onto the graph.
struct Lookup<'s, 'a> {
    world: &'s World<'a>,
    hash: HashMap<&'s str, &'s str>,
}

impl<'s, 'a> Lookup<'s, 'a> {
    fn new(world: &'s World<'a>, rows: &'s [crate::store::FileRow]) -> Lookup<'s, 'a> {
        let hash = rows
            .iter()
            .map(|r| (r.path.as_str(), r.hash.as_str()))
            .collect();
        Lookup { world, hash }
    }

    /// The definition a server's location names, if it is current and a node.
    /// `Err(())`: the target file changed since the answer (stale verdict).
    fn target(
        &self,
        path: &str,
        hash: &str,
        line: u32,
        column: u32,
    ) -> Result<Option<resolve::SymId>, ()> {
        if self.hash.get(path) != Some(&hash) {
            return Err(());
        }
        let Some(&file) = self.world.by_path.get(path) else {
            return Ok(None);
        };
        let defs = self.world.defs(file);
        let sym = |i: usize| resolve::SymId {
            file,
            def: i as u32,
        };
        // The definition named there (the last, if several are).
        if let Some(i) = defs
            .iter()
            .rposition(|d| d.pos.line == line && d.pos.column == column)
        {
            return Ok(Some(sym(i)));
        }
        // A server may point at the start of a line or a keyword: accept the
        // only definition named on that line.
        let mut on_line = defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.pos.line == line)
            .map(|(i, _)| i);
        match (on_line.next(), on_line.next()) {
            (Some(i), None) => Ok(Some(sym(i))),
            _ => Ok(None),
        }
    }
}

/// Apply recorded language-server answers to one file's static edges:
/// a site whose answer names the edge's target is `verified`; one whose
/// answer names something else is `refuted`, and the named definition (if it
/// is a node) gets a `verified` edge instead; references the server found
/// that the graph missed are added as `verified`. Stale answers (either file
/// changed) are ignored.
fn apply_verdicts(
    world: &World,
    lookup: &Lookup,
    file: FileIdx,
    edges: &mut Vec<Checked>,
    unresolved: &mut Vec<resolve::Unresolved>,
    verdicts: &[crate::store::VerdictRow],
    discovered: &[crate::store::DiscoveredRow],
) {
    use crate::graph::{Pos, Status};
    use crate::store::Outcome;
    use std::collections::BTreeMap;

    let mut by_site: BTreeMap<(u32, u32), Vec<&crate::store::VerdictRow>> = BTreeMap::new();
    for v in verdicts {
        by_site.entry((v.line, v.column)).or_default().push(v);
    }
    let mut added = Vec::new();
    for ((line, column), vs) in &by_site {
        let site = Pos {
            line: *line,
            column: *column,
        };
        let server = format!("lsp:{}", vs[0].server);
        let mut targets = Vec::new();
        let mut stale = false;
        let mut external = false;
        for v in vs {
            match &v.outcome {
                Outcome::Target {
                    path,
                    hash,
                    line,
                    column,
                } => match lookup.target(path, hash, *line, *column) {
                    Ok(Some(t)) => targets.push(t),
                    Ok(None) => external = true,
                    Err(()) => stale = true,
                },
                Outcome::External => external = true,
                Outcome::None => {}
            }
        }
        if stale || (targets.is_empty() && !external) {
            continue;
        }
        let mut template = None;
        for e in edges.iter_mut().filter(|e| e.site == Some(site)) {
            if e.kind != EdgeKind::Tests {
                template = Some((e.src, e.kind));
            }
            if targets.contains(&e.dst) {
                e.status = Status::Verified;
                e.confidence = 1.0;
            } else {
                e.status = Status::Refuted;
                e.confidence = 0.0;
            }
            e.source = Cow::Owned(server.clone());
        }
        let template = template.or_else(|| {
            let u = unresolved.iter().find(|u| u.site == site)?;
            Some((resolve::SymId { file, def: u.src }, u.kind))
        });
        unresolved.retain(|u| u.site != site);
        let Some((src, kind)) = template else {
            continue;
        };
        for t in targets {
            if !edges
                .iter()
                .any(|e| e.site == Some(site) && e.dst == t && e.kind == kind)
            {
                added.push(Checked {
                    src,
                    dst: t,
                    kind,
                    confidence: 1.0,
                    status: Status::Verified,
                    source: Cow::Owned(server.clone()),
                    site: Some(site),
                });
            }
        }
    }
    edges.extend(added);
    let defs = world.defs(file);
    for d in discovered {
        let Ok(Some(t)) = lookup.target(
            &d.target_path,
            &d.target_hash,
            d.target_line,
            d.target_column,
        ) else {
            continue;
        };
        let site = Pos {
            line: d.line,
            column: d.column,
        };
        if edges
            .iter()
            .any(|e| e.site == Some(site) && e.dst == t && e.status != Status::Refuted)
        {
            continue;
        }
        // The innermost definition around the site is the referrer.
        let src = defs
            .iter()
            .enumerate()
            .filter(|(_, x)| x.start_line <= d.line && d.line <= x.end_line)
            .min_by_key(|(i, x)| (x.end_line - x.start_line, usize::MAX - i))
            .map_or(0, |(i, _)| i as u32);
        unresolved.retain(|u| u.site != site);
        edges.push(Checked {
            src: resolve::SymId { file, def: src },
            dst: t,
            kind: d.kind,
            confidence: 1.0,
            status: Status::Verified,
            source: Cow::Owned(format!("lsp:{}", d.server)),
            site: Some(site),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks keep the order, hold at most `BATCH * 4` items and
    /// `CHUNK_BYTES` of them, and an item larger than that alone.
    #[test]
    fn chunks_are_cut_by_count_and_by_size() {
        let mb = 1u64 << 20;
        let lens = |items: &[u64]| -> Vec<usize> {
            chunks_by_size(items, |&s| s).map(<[u64]>::len).collect()
        };
        assert_eq!(lens(&[]), Vec::<usize>::new());
        // Small files: by count.
        let small = vec![100u64; BATCH * 4 * 2 + 3];
        assert_eq!(lens(&small), [BATCH * 4, BATCH * 4, 3]);
        // Large ones: by size, the one over the limit on its own.
        let mut mixed = vec![mb; 20];
        mixed.insert(3, 40 * mb);
        assert_eq!(lens(&mixed), [3, 1, 16, 1]);
        let chunks: Vec<&[u64]> = chunks_by_size(&mixed, |&s| s).collect();
        assert_eq!(chunks.concat(), mixed);
        assert!(chunks
            .iter()
            .all(|c| c.len() == 1 || c.iter().sum::<u64>() <= CHUNK_BYTES));
    }
}
