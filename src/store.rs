//! SQLite storage: the only module that knows SQL.
//!
//! One database per repository at `.refgraph/graph.db`, WAL mode so readers
//! never wait for the writer. A schema version mismatch or a corrupted file
//! is rebuilt from scratch (the graph is derived data).

pub mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};

use crate::extract::{Def, Diagnostic, Lang};
use crate::graph::{node_id, EdgeKind, NodeKind, Pos, Status};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database {path}: {source}")]
    Sqlite {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot create {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("corrupt fact blob for file id {0}: {1}")]
    Blob(i64, String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// What happened when the database was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenNote {
    Existing,
    Created,
    /// Rebuilt: the reason (version mismatch, corruption).
    Rebuilt(String),
}

pub struct Store {
    conn: Connection,
    path: String,
}

/// What [`Store::try_open`] found.
enum Tried {
    Open(Store),
    /// Why the database must be replaced by a new one.
    Rebuild(String),
}

/// A database of schema version `found` (`None`: unknown) is rebuilt.
fn other_schema(found: Option<&str>) -> Tried {
    Tried::Rebuild(format!(
        "schema version {} found, {} expected",
        found.unwrap_or("unknown"),
        schema::SCHEMA_VERSION
    ))
}

/// The meta key of a bulk load written without a journal
/// ([`Store::begin_bulk`]), set until the load is complete.
const UNJOURNALED: &str = "bulk_unjournaled";

/// Why a database holding that key is replaced by a new one.
pub const INTERRUPTED_UNJOURNALED: &str =
    "an interrupted first index was written without a journal: indexing starts again";

/// [`Store::lsp_owners_into`]'s query.
const LSP_OWNERS_INTO: &str = "SELECT DISTINCT owner FROM edges
     WHERE dst >= ?1 AND dst < ?2 AND owner != ?3 AND source LIKE 'lsp:%'";

/// How long a statement waits for another connection's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// A file id with its encoded definitions and scope.
pub type ScopeBlobs = (i64, Vec<u8>, Vec<u8>);

/// A row of the `files` table (the facts are in `facts`).
#[derive(Clone, Debug, PartialEq)]
pub struct FileRow {
    pub id: i64,
    pub path: String,
    pub lang: Lang,
    pub hash: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub module: String,
    pub resolved: bool,
}

/// A node as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRow {
    pub id: i64,
    pub key: String,
    pub name: String,
    pub kind: NodeKind,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub start_line: u32,
    pub end_line: u32,
    pub exported: bool,
}

/// An edge to insert.
pub struct NewEdge<'a> {
    pub src: i64,
    pub dst: i64,
    pub kind: EdgeKind,
    pub confidence: f64,
    pub status: Status,
    pub source: &'a str,
    pub site: Option<(u32, u32)>,
}

/// An unresolved site to insert.
pub struct NewUnresolved<'a> {
    pub src: i64,
    pub name: &'a str,
    pub kind: EdgeKind,
    pub line: u32,
    pub column: u32,
    pub reason: &'a str,
}

const NODE_COLS: &str =
    "n.id, n.key, n.name, n.kind, f.path, n.line, n.col, n.start_line, n.end_line, n.exported";

/// The condition of the partial index `nodes_odd` ([`Store::nodes_exact`]).
const ODD_NODES: &str = schema::odd_nodes!();

/// The names a node must have for its key to end with `q`: every suffix of
/// `q` without the `#N` that numbers a repeated name.
fn suffix_names(q: &str) -> Vec<&str> {
    let base = match q.rsplit_once('#') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => q,
    };
    let mut names: Vec<&str> = base.char_indices().map(|(i, _)| &base[i..]).collect();
    if base.len() < q.len() {
        names.push(q);
    }
    names
}

fn node_row(r: &rusqlite::Row) -> rusqlite::Result<NodeRow> {
    Ok(NodeRow {
        id: r.get(0)?,
        key: r.get(1)?,
        name: r.get(2)?,
        kind: NodeKind::parse(&r.get::<_, String>(3)?).unwrap_or(NodeKind::Function),
        file: r.get(4)?,
        line: r.get(5)?,
        column: r.get(6)?,
        start_line: r.get(7)?,
        end_line: r.get(8)?,
        exported: r.get::<_, i64>(9)? != 0,
    })
}

/// The columns [`file_row`] reads, in its order.
macro_rules! file_row_columns {
    () => {
        "id, path, lang, hash, size, mtime_ns, module, resolved"
    };
}

fn file_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FileRow> {
    Ok(FileRow {
        id: r.get(0)?,
        path: r.get(1)?,
        lang: Lang::parse(r.get_ref(2)?.as_str()?).unwrap_or(Lang::Python),
        hash: r.get(3)?,
        size: r.get::<_, i64>(4)? as u64,
        mtime_ns: r.get(5)?,
        module: r.get(6)?,
        resolved: r.get::<_, i64>(7)? != 0,
    })
}

impl Store {
    /// Open (or create) the database at `path`, rebuilding it when its
    /// schema version differs or it is not a readable refgraph database.
    pub fn open(path: &Path) -> Result<(Store, OpenNote)> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let existed = path.exists();
        if !existed {
            // A log left beside a database removed by hand is another
            // database's: not to be read into the new one.
            Store::remove(path)?;
        }
        let rebuild = |why: String| Ok((Store::create(path)?, OpenNote::Rebuilt(why)));
        match Store::try_open(path) {
            Ok(Tried::Open(store)) => Ok((
                store,
                if existed {
                    OpenNote::Existing
                } else {
                    OpenNote::Created
                },
            )),
            Ok(Tried::Rebuild(why)) => rebuild(why),
            Err(e) if is_corrupt(&e) => rebuild(format!("unreadable database ({e})")),
            Err(e) => Err(e),
        }
    }

    /// Whether a bulk load written without a journal was left unfinished
    /// ([`Store::begin_bulk`]): its pages may be half written, and only a
    /// new database is sure to be right. Only a process holding the
    /// writer's lock may conclude that the load was interrupted.
    pub fn unjournaled_load(&self) -> Result<bool> {
        Ok(self.meta(UNJOURNALED)?.is_some())
    }

    /// Replace this database with a new, empty one (see
    /// [`Store::unjournaled_load`]).
    pub fn recreate(&mut self) -> Result<()> {
        let path = PathBuf::from(&self.path);
        // Close the file before removing it: a connection closed later
        // could remove the new database's log. Should creating the new one
        // fail, this store is left on an empty in-memory database, where
        // every statement fails (no tables), not on the old file.
        self.conn = Connection::open_in_memory().map_err(|e| self.err(e))?;
        *self = Store::create(&path)?;
        Ok(())
    }

    /// A new database in place of the one at `path`.
    fn create(path: &Path) -> Result<Store> {
        Store::remove(path)?;
        match Store::try_open(path)? {
            Tried::Open(store) => Ok(store),
            Tried::Rebuild(why) => Err(StoreError::Io {
                path: path.display().to_string(),
                source: std::io::Error::other(format!(
                    "a new database could not be created in place of the old one ({why})"
                )),
            }),
        }
    }

    /// A second, read-only connection to the same database, for reading
    /// on another thread while this one writes (WAL lets both proceed).
    /// `None` for an in-memory database.
    pub fn reader(&self) -> Option<Result<Store>> {
        if self.path == ":memory:" {
            return None;
        }
        let open = || -> rusqlite::Result<Connection> {
            let conn = Connection::open_with_flags(
                &self.path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            // Read through the map, as the writer does: reading every
            // file's facts by `pread`, a page at a time, took twice as long.
            conn.execute_batch(schema::READ_PRAGMAS)?;
            Ok(conn)
        };
        Some(
            open()
                .map(|conn| Store {
                    conn,
                    path: self.path.clone(),
                })
                .map_err(|e| sql(&self.path, e)),
        )
    }

    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory().map_err(|e| sql(":memory:", e))?;
        let store = Store {
            conn,
            path: ":memory:".into(),
        };
        store.init()?;
        Ok(store)
    }

    fn remove(path: &Path) -> Result<()> {
        for suffix in ["", "-wal", "-shm"] {
            let p = PathBuf::from(format!("{}{suffix}", path.display()));
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(StoreError::Io {
                        path: p.display().to_string(),
                        source,
                    })
                }
            }
        }
        Ok(())
    }

    /// A readable database, or why it must be rebuilt (another schema
    /// version, an interrupted load written without a journal).
    fn try_open(path: &Path) -> Result<Tried> {
        let name = path.display().to_string();
        let conn = Connection::open(path).map_err(|e| sql(&name, e))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| sql(&name, e))?;
        // The WAL outlives the process: closing would otherwise copy its
        // pages into the database and sync both, and the next writer would
        // start a new log (syncing its header and the folder). SQLite
        // checkpoints as the log grows (every 1,000 pages).
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(|e| sql(&name, e))?;
        let store = Store { conn, path: name };
        store
            .conn
            .execute_batch(schema::PRAGMAS)
            .and_then(|()| store.conn.execute_batch(schema::READ_PRAGMAS))
            .map_err(|e| sql(&store.path, e))?;
        let has_meta: bool = store
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| sql(&store.path, e))?
            > 0;
        if !has_meta {
            let tables: i64 = store
                .conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(|e| sql(&store.path, e))?;
            if tables > 0 {
                return Ok(other_schema(None));
            }
            store.init()?;
            return Ok(Tried::Open(store));
        }
        let version = store.meta("schema_version")?;
        if version.as_deref() != Some(&schema::SCHEMA_VERSION.to_string()) {
            return Ok(other_schema(version.as_deref()));
        }
        if store.unjournaled_load()? {
            return Ok(Tried::Rebuild(INTERRUPTED_UNJOURNALED.into()));
        }
        // A cheap integrity probe: a corrupt file usually fails here.
        store
            .conn
            .query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0))
            .map_err(|e| sql(&store.path, e))?;
        Ok(Tried::Open(store))
    }

    fn init(&self) -> Result<()> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| sql(&self.path, e))?;
        tx.execute_batch(schema::SCHEMA)
            .map_err(|e| sql(&self.path, e))?;
        tx.execute_batch(schema::INDEXES)
            .map_err(|e| sql(&self.path, e))?;
        for indexes in [schema::BULK_FACT_INDEXES, schema::BULK_EDGE_INDEXES] {
            tx.execute_batch(indexes).map_err(|e| sql(&self.path, e))?;
        }
        tx.execute_batch(TRIGGERS).map_err(|e| sql(&self.path, e))?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('schema_version', ?1)",
            [schema::SCHEMA_VERSION.to_string()],
        )
        .map_err(|e| sql(&self.path, e))?;
        tx.commit().map_err(|e| sql(&self.path, e))
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// Start loading an empty graph in bulk: the indexes in
    /// [`schema::BULK_FACT_INDEXES`], [`schema::BULK_EDGE_INDEXES`] and the
    /// search-index triggers are dropped, to be built once by
    /// [`Store::end_bulk`], and commits skip fsync. The `bulk` meta key
    /// records it ([`Store::in_bulk`]).
    ///
    /// When no other connection has the database open, the load is written
    /// without a journal: each page once, where the WAL writes it twice
    /// (into the log, then into the database). A load cut short then
    /// leaves a file that may be half written, so the `bulk_unjournaled`
    /// key, committed through the WAL before the journal is turned off,
    /// makes the next open start again from a new database
    /// ([`Store::unjournaled_load`]). With another connection open, the
    /// journal cannot be turned off; the load keeps the WAL, which stays
    /// consistent if the process dies, and an interrupted load is finished
    /// by the next update.
    pub fn begin_bulk(&mut self) -> Result<()> {
        let mut drop = String::new();
        let bulk = [schema::BULK_FACT_INDEXES, schema::BULK_EDGE_INDEXES];
        for line in bulk.iter().flat_map(|s| s.lines()) {
            if let Some(name) = line
                .strip_prefix("CREATE INDEX IF NOT EXISTS ")
                .and_then(|r| r.split_whitespace().next())
            {
                drop.push_str(&format!("DROP INDEX IF EXISTS {name};\n"));
            }
        }
        for t in ["nodes_ai", "nodes_ad", "nodes_au"] {
            drop.push_str(&format!("DROP TRIGGER IF EXISTS {t};\n"));
        }
        self.transaction(|tx| {
            tx.conn.execute_batch(&drop).map_err(|e| sql(tx.path, e))?;
            tx.set_meta("bulk", "1")?;
            tx.set_meta(UNJOURNALED, "1")
        })?;
        if !self.leave_wal()? {
            self.conn
                .execute("DELETE FROM meta WHERE key = ?1", [UNJOURNALED])
                .map_err(|e| self.err(e))?;
        }
        // Each blob of a first index is read once: through the memory map,
        // its pages stayed in the process's resident memory (rust-large:
        // 0.5 GB while its references were resolved). For the same reason
        // the page cache is small (8 MiB, not 64): a bulk load appends
        // rows and reads each blob once, and the cache it filled was held
        // through the resolution's peak (rust-large: 57 MB less at the
        // peak, rust-vendor's cold index no slower).
        self.conn
            .execute_batch(
                "PRAGMA synchronous = OFF; PRAGMA mmap_size = 0; PRAGMA cache_size = -8192;",
            )
            .map_err(|e| self.err(e))
    }

    /// Turn the journal off, unless another connection has the database
    /// open (leaving WAL needs it alone): then at once, not after the busy
    /// timeout, `false`.
    fn leave_wal(&self) -> Result<bool> {
        let busy = |t| self.conn.busy_timeout(t).map_err(|e| self.err(e));
        busy(Duration::ZERO)?;
        let mode = self
            .conn
            .query_row("PRAGMA journal_mode = OFF", [], |r| r.get::<_, String>(0));
        busy(BUSY_TIMEOUT)?;
        match mode {
            Ok(mode) => Ok(mode.eq_ignore_ascii_case("off")),
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => Ok(false),
            Err(e) => Err(self.err(e)),
        }
    }

    /// The connection's journal mode (`wal`, `off`, …).
    pub fn journal_mode(&self) -> Result<String> {
        self.conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Whether a bulk load is under way (or was interrupted).
    pub fn in_bulk(&self) -> Result<bool> {
        Ok(self.meta("bulk")?.is_some())
    }

    /// Whether any file waits for its edges to be recomputed (an
    /// interrupted update, or verdicts stored by `verify`).
    pub fn has_pending(&self) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM files WHERE resolved = 0)",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }

    /// The files waiting for their edges to be recomputed.
    pub fn pending_ids(&self) -> Result<foldhash::HashSet<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM files WHERE resolved = 0")
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// The first half of [`Store::end_bulk`], once every file's facts are
    /// written: the indexes over nodes and names, the search index and its
    /// triggers. Edges may still be written in bulk after it.
    pub fn end_bulk_facts(&mut self) -> Result<()> {
        if self.meta("bulk")?.as_deref() != Some("1") {
            return Ok(());
        }
        self.sorting_on_disk(|s| {
            s.transaction(|tx| {
                tx.conn
                    .execute_batch(schema::BULK_FACT_INDEXES)
                    .map_err(|e| sql(tx.path, e))?;
                tx.conn
                    .execute_batch(TRIGGERS)
                    .map_err(|e| sql(tx.path, e))?;
                // A rebuild leaves the index in many segments, whose merging
                // FTS5 then spreads over the next writes: without `optimize`, a
                // 10-file update of a 10,000-file tree paid 130M instructions
                // for it (more than the rest of the update together).
                tx.conn
                    .execute_batch(
                        "INSERT INTO nodes_fts (nodes_fts) VALUES ('rebuild');
                     INSERT INTO nodes_fts (nodes_fts) VALUES ('optimize');",
                    )
                    .map_err(|e| sql(tx.path, e))?;
                tx.set_meta("bulk", "edges")
            })
        })
    }

    /// Run `f`, which builds indexes over whole tables, with SQLite's
    /// sorts spilling to temporary files and the database read without the
    /// memory map. (The benchmark's rust-large row, 9.5M edges: peak
    /// resident memory of its cold index 2.64 GB -> 2.13 GB, and the
    /// index builds 11.4 s -> 8.1 s.)
    fn sorting_on_disk<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let pragma = |s: &Self, name: &str| -> Result<i64> {
            s.conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .map_err(|e| s.err(e))
        };
        let (temp_store, mmap_size) = (pragma(self, "temp_store")?, pragma(self, "mmap_size")?);
        self.conn
            .execute_batch("PRAGMA temp_store = FILE; PRAGMA mmap_size = 0;")
            .map_err(|e| self.err(e))?;
        let out = f(self);
        let back = format!("PRAGMA temp_store = {temp_store}; PRAGMA mmap_size = {mmap_size};");
        let restored = self.conn.execute_batch(&back).map_err(|e| self.err(e));
        // The build's own error first: it is what went wrong.
        let v = out?;
        restored?;
        Ok(v)
    }

    /// Build what [`Store::begin_bulk`] dropped and rebuild the search index
    /// (unless [`Store::end_bulk_facts`] did).
    pub fn end_bulk(&mut self) -> Result<()> {
        self.end_bulk_facts()?;
        self.sorting_on_disk(|s| {
            s.transaction(|tx| {
                tx.conn
                    .execute_batch(schema::BULK_EDGE_INDEXES)
                    .map_err(|e| sql(tx.path, e))
            })
        })?;
        // Back to the WAL before the load is marked complete: that last
        // commit is atomic again.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            // Left as it is, every later commit of this connection would
            // be written without a journal, and unmarked. The marker stays:
            // the next update starts again.
            return Err(StoreError::Io {
                path: self.path.clone(),
                source: std::io::Error::other(format!(
                    "the journal could not be turned back on after the first index (mode {mode})"
                )),
            });
        }
        self.transaction(|tx| {
            tx.conn
                .execute("DELETE FROM meta WHERE key IN ('bulk', ?1)", [UNJOURNALED])
                .map_err(|e| sql(tx.path, e))?;
            Ok(())
        })?;
        self.conn
            .execute_batch("PRAGMA synchronous = NORMAL;")
            .and_then(|()| self.conn.execute_batch(schema::READ_PRAGMAS))
            .map_err(|e| self.err(e))
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        sql(&self.path, e)
    }

    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Run `f` in one transaction: all of it lands, or none of it.
    pub fn transaction<T>(&mut self, f: impl FnOnce(&Writer) -> Result<T>) -> Result<T> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| sql(&path, e))?;
        let out = f(&Writer {
            conn: &tx,
            path: &path,
        })?;
        tx.commit().map_err(|e| sql(&path, e))?;
        Ok(out)
    }

    pub fn files(&self) -> Result<Vec<FileRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(concat!(
                // In rowid order (one pass over the table's pages), sorted
                // below: ORDER BY path would look every row up through the
                // path index.
                "SELECT ",
                file_row_columns!(),
                " FROM files"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], file_row).map_err(|e| self.err(e))?;
        let mut rows: Vec<FileRow> = rows
            .collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))?;
        // (A bulk load inserts in path order: then this is one pass.)
        if !rows.is_sorted_by(|a, b| a.path <= b.path) {
            rows.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        }
        Ok(rows)
    }

    /// The rows of these paths (those that have one), sorted by path.
    pub fn files_at(&self, paths: &[&str]) -> Result<Vec<FileRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(concat!(
                "SELECT ",
                file_row_columns!(),
                " FROM files WHERE path = ?1"
            ))
            .map_err(|e| self.err(e))?;
        let mut rows = Vec::new();
        for p in paths {
            if let Some(row) = stmt
                .query_row([p], file_row)
                .optional()
                .map_err(|e| self.err(e))?
            {
                rows.push(row);
            }
        }
        rows.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        Ok(rows)
    }

    /// The language of each of these files that has a row.
    pub fn file_langs(&self, ids: &[i64]) -> Result<foldhash::HashMap<i64, Lang>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT lang FROM files WHERE id = ?1")
            .map_err(|e| self.err(e))?;
        let mut out = foldhash::HashMap::default();
        for &id in ids {
            let lang: Option<String> = stmt
                .query_row([id], |r| r.get(0))
                .optional()
                .map_err(|e| self.err(e))?;
            if let Some(lang) = lang.as_deref().and_then(Lang::parse) {
                out.insert(id, lang);
            }
        }
        Ok(out)
    }

    /// Start a read transaction and take its snapshot of the database now
    /// (in WAL mode a transaction's snapshot is taken at its first read):
    /// what this connection reads until [`Store::end_read`] is the database
    /// as it is at this call, whatever other connections write meanwhile.
    pub fn begin_read(&self) -> Result<()> {
        self.conn
            .execute_batch("BEGIN; SELECT count(*) FROM meta;")
            .map_err(|e| self.err(e))
    }

    pub fn end_read(&self) -> Result<()> {
        self.conn.execute_batch("COMMIT").map_err(|e| self.err(e))
    }

    /// Every file's content hash, by path.
    pub fn file_hashes(&self) -> Result<std::collections::HashMap<String, String>> {
        Ok(self
            .files()?
            .into_iter()
            .map(|f| (f.path, f.hash))
            .collect())
    }

    /// Every file's definitions and scope blobs (for building the world).
    pub fn scopes(&self) -> Result<Vec<ScopeBlobs>> {
        self.scope_rows("SELECT file_id, defs, scope FROM facts", [])
    }

    /// The definitions and scope blobs of the files in `lang`.
    pub fn scopes_of(&self, lang: Lang) -> Result<Vec<ScopeBlobs>> {
        self.scope_rows(
            "SELECT facts.file_id, facts.defs, facts.scope FROM facts
             JOIN files ON files.id = facts.file_id WHERE files.lang = ?1",
            [lang.as_str()],
        )
    }

    /// The definitions and scope blobs of the files not in `lang`.
    pub fn scopes_except(&self, lang: Lang) -> Result<Vec<ScopeBlobs>> {
        self.scope_rows(
            "SELECT facts.file_id, facts.defs, facts.scope FROM facts
             JOIN files ON files.id = facts.file_id WHERE files.lang <> ?1",
            [lang.as_str()],
        )
    }

    fn scope_rows(&self, sql: &str, params: impl rusqlite::Params) -> Result<Vec<ScopeBlobs>> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// One file's reference blob.
    pub fn refs_blob(&self, file_id: i64) -> Result<Vec<u8>> {
        self.conn
            .prepare_cached("SELECT refs FROM facts WHERE file_id = ?1")
            .map_err(|e| self.err(e))?
            .query_row([file_id], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Files whose resolution depends on any of `names`.
    pub fn files_referencing(&self, names: &[&str]) -> Result<Vec<i64>> {
        let mut out = Vec::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT file_id FROM ref_names WHERE name = ?1")
            .map_err(|e| self.err(e))?;
        for n in names {
            let ids = stmt
                .query_map([n], |r| r.get::<_, i64>(0))
                .map_err(|e| self.err(e))?;
            for id in ids {
                out.push(id.map_err(|e| self.err(e))?);
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Files owning an edge whose source or target is a node of `file_id`.
    pub fn files_linked_to(&self, file_id: i64) -> Result<Vec<i64>> {
        let lo = node_id(file_id, 0);
        let hi = node_id(file_id + 1, 0);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT owner FROM edges WHERE dst >= ?1 AND dst < ?2
                 UNION SELECT owner FROM edges WHERE src >= ?1 AND src < ?2",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([lo, hi], |r| r.get::<_, i64>(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Files other than `file_id` owning an edge to or from one of its
    /// definitions `defs` (indexes).
    pub fn owners_linked_to(&self, file_id: i64, defs: &[u32]) -> Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT owner FROM edges WHERE dst = ?1 AND owner != ?2
                 UNION SELECT owner FROM edges WHERE src = ?1 AND owner != ?2",
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for d in defs {
            let rows = stmt
                .query_map([node_id(file_id, *d), file_id], |r| r.get::<_, i64>(0))
                .map_err(|e| self.err(e))?;
            for r in rows {
                out.push(r.map_err(|e| self.err(e))?);
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Files other than `file_id` owning an edge into it that a language
    /// server decided (verified, retargeted, refuted, discovered): those
    /// answers go stale when the file changes. Read through `edges_lsp`
    /// (the condition on `source` is the index's).
    pub fn lsp_owners_into(&self, file_id: i64) -> Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached(LSP_OWNERS_INTO)
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(
                [node_id(file_id, 0), node_id(file_id + 1, 0), file_id],
                |r| r.get::<_, i64>(0),
            )
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Every file's id, path, language and content hash with its
    /// definitions and scope blobs, passed to `each` one by one.
    pub fn each_keyed_scope(
        &self,
        mut each: impl FnMut(i64, &str, Lang, &str, &[u8], &[u8]),
    ) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT files.id, files.path, files.lang, files.hash, facts.defs, facts.scope
                 FROM files JOIN facts ON facts.file_id = files.id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            let path: String = r.get(1).map_err(|e| self.err(e))?;
            let lang: String = r.get(2).map_err(|e| self.err(e))?;
            let hash: String = r.get(3).map_err(|e| self.err(e))?;
            let Some(lang) = Lang::parse(&lang) else {
                continue;
            };
            // Borrowed from the row: not copied out of the database's map.
            let blob = |i| blob_ref(r, i).map_err(|e| self.err(e));
            each(id, &path, lang, &hash, blob(4)?, blob(5)?);
        }
        Ok(())
    }

    /// A file's encoded definitions and scope.
    pub fn facts_blobs(&self, file_id: i64) -> Result<(Vec<u8>, Vec<u8>)> {
        self.conn
            .prepare_cached("SELECT defs, scope FROM facts WHERE file_id = ?1")
            .map_err(|e| self.err(e))?
            .query_row([file_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))
    }

    /// The Rust global name table's chunks (see `rust_names` in the
    /// schema), each read straight into a buffer of its own (not through
    /// SQLite's copy of it) and given to `chunk` in order; then, unless
    /// `chunk` said stop (`false`), each Rust file's encoded name ids, lent
    /// to `file` as the database holds them. One snapshot for both.
    pub fn read_rust_names(
        &self,
        mut chunk: impl FnMut(Vec<u8>) -> bool,
        mut file: impl FnMut(i64, &[u8]),
    ) -> Result<()> {
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let chunks: Vec<i64> = column(
            &self.conn,
            &self.path,
            "SELECT chunk FROM rust_names ORDER BY chunk",
            [],
        )?;
        for c in chunks {
            let blob = self
                .conn
                .blob_open("main", "rust_names", "names", c, true)
                .map_err(|e| self.err(e))?;
            let mut bytes = vec![0; blob.len()];
            blob.read_at_exact(&mut bytes, 0).map_err(|e| self.err(e))?;
            if !chunk(bytes) {
                return tx.finish().map_err(|e| self.err(e));
            }
        }
        self.each_blob_row("SELECT file_id, ids FROM rust_gnames", &mut file)?;
        tx.finish().map_err(|e| self.err(e))
    }

    /// Each row of `query` (an integer, a blob), the blob borrowed from the
    /// row.
    fn each_blob_row(&self, query: &str, mut each: impl FnMut(i64, &[u8])) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(query).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            each(id, blob_ref(r, 1).map_err(|e| self.err(e))?);
        }
        Ok(())
    }

    /// The ids of the nodes named `name`, in id order.
    pub fn named_nodes(&self, name: &str) -> Result<Vec<i64>> {
        column(
            &self.conn,
            &self.path,
            "SELECT id FROM nodes WHERE name = ?1 ORDER BY id",
            [name],
        )
    }

    /// The ids of the method nodes named `name`, in id order.
    pub fn method_nodes(&self, name: &str) -> Result<Vec<i64>> {
        column(
            &self.conn,
            &self.path,
            "SELECT id FROM nodes WHERE name = ?1 AND kind = 'method' ORDER BY id",
            [name],
        )
    }

    /// How many classes have a data attribute named `name` (Python).
    pub fn class_attr_count(&self, name: &str) -> Result<u32> {
        self.conn
            .prepare_cached("SELECT coalesce(sum(n), 0) FROM class_attrs WHERE name = ?1")
            .map_err(|e| self.err(e))?
            .query_row([name], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// A file's encoded definitions.
    pub fn defs_blob(&self, file_id: i64) -> Result<Vec<u8>> {
        self.conn
            .prepare_cached("SELECT defs FROM facts WHERE file_id = ?1")
            .map_err(|e| self.err(e))?
            .query_row([file_id], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// The names a file's resolution depends on.
    pub fn ref_names_of(&self, file_id: i64) -> Result<Vec<String>> {
        column(&self.conn, &self.path, REF_NAMES_OF, [file_id])
    }

    /// Names of the definitions of a file (for the affected-set computation).
    pub fn def_names(&self, file_id: i64) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT name FROM nodes WHERE file_id = ?1")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([file_id], |r| r.get::<_, String>(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    pub fn count(&self, table: Table) -> Result<u64> {
        self.conn
            .query_row(&format!("SELECT count(*) FROM {}", table.name()), [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    /// `(kind, status, count)` over all edges, sorted.
    pub fn edge_counts(&self) -> Result<Vec<(String, String, u64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT kind, status, count(*) FROM edges GROUP BY kind, status ORDER BY kind, status")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// `(kind, count)` over all nodes.
    pub fn node_counts(&self) -> Result<Vec<(String, u64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT kind, count(*) FROM nodes GROUP BY kind ORDER BY kind")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// `(lang, files)` per language.
    pub fn file_counts(&self) -> Result<Vec<(String, u64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT lang, count(*) FROM files GROUP BY lang ORDER BY lang")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    pub fn skipped(&self) -> Result<Vec<(String, String, String)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, reason, detail FROM skipped ORDER BY path")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// `(path, line, column, message)` for every diagnostic, sorted.
    pub fn diagnostics(&self) -> Result<Vec<(String, u32, u32, String)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT f.path, d.line, d.col, d.message FROM diagnostics d
                 JOIN files f ON f.id = d.file_id ORDER BY f.path, d.line, d.col",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Nodes whose key or name equals `q` exactly, or whose key ends with
    /// `q` on a `.`/`::`/`:` boundary (case-sensitive, as names are).
    ///
    /// Answered from indexes, not by a scan of every key: a definition's key
    /// ends with its name (plus a `#N` where a name repeats), so a key that
    /// ends with `q` belongs to a node named by a suffix of `q`, or to one of
    /// the few whose name holds a `.` or `:` itself or differs from its key's
    /// last segment (modules: `__init__`, `mod`, a file stem), which
    /// `nodes_odd` lists.
    pub fn nodes_exact(&self, q: &str) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLS} FROM nodes n JOIN files f ON f.id = n.file_id
             WHERE n.id IN (
                   SELECT id FROM nodes WHERE name IN (SELECT value FROM json_each(?2))
                   UNION SELECT id FROM nodes WHERE key = ?1
                   UNION SELECT id FROM nodes INDEXED BY nodes_odd WHERE {ODD_NODES})
               AND (n.key = ?1 OR n.name = ?1
                    OR substr(n.key, -length(?1) - 1) IN ('.' || ?1, ':' || ?1))
             ORDER BY n.key, f.path, n.line"
        );
        let names = serde_json::to_string(&suffix_names(q)).expect("strings serialize");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![q, names], node_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Nodes with exactly this key (indexed).
    pub fn nodes_by_key(&self, key: &str) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLS} FROM nodes n JOIN files f ON f.id = n.file_id
             WHERE n.key = ?1 ORDER BY f.path, n.line"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map([key], node_row).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// How many definitions have this bare name (indexed).
    pub fn count_named(&self, name: &str) -> Result<usize> {
        self.conn
            .prepare_cached("SELECT count(*) FROM nodes WHERE name = ?1 AND kind != 'module'")
            .map_err(|e| self.err(e))?
            .query_row([name], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// Full-text search over names and keys (FTS5), best first.
    pub fn nodes_search(&self, q: &str, limit: usize) -> Result<Vec<NodeRow>> {
        let terms: Vec<String> = q
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty())
            .map(|t| format!("\"{}\"*", t.replace('"', "")))
            .collect();
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {NODE_COLS} FROM nodes_fts s
             JOIN nodes n ON n.id = s.rowid JOIN files f ON f.id = n.file_id
             WHERE nodes_fts MATCH ?1 ORDER BY s.rank, n.key LIMIT ?2"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![terms.join(" "), limit as i64], node_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Nodes of one file, in source order.
    pub fn nodes_of_file(&self, path: &str) -> Result<Option<Vec<NodeRow>>> {
        let id: Option<i64> = self
            .conn
            .query_row("SELECT id FROM files WHERE path = ?1", [path], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))?;
        let Some(id) = id else { return Ok(None) };
        let sql = format!(
            "SELECT {NODE_COLS} FROM nodes n JOIN files f ON f.id = n.file_id
             WHERE n.file_id = ?1 ORDER BY n.id"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map([id], node_row).map_err(|e| self.err(e))?;
        Ok(Some(
            rows.collect::<rusqlite::Result<_>>()
                .map_err(|e| self.err(e))?,
        ))
    }

    /// Every node, sorted by id.
    pub fn all_nodes(&self) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLS} FROM nodes n JOIN files f ON f.id = n.file_id ORDER BY f.path, n.id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], node_row).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Every edge except refuted ones, with its site.
    pub fn all_edges(&self) -> Result<Vec<Link>> {
        let sql = format!(
            "SELECT {LINK_COLS} FROM edges e JOIN files f ON f.id = e.owner
             WHERE e.status != 'refuted'
             ORDER BY e.src, e.dst, e.kind, f.path, e.line, e.col"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], link_row).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Table {
    Files,
    Nodes,
    Edges,
    Unresolved,
    Diagnostics,
}

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Files => "files",
            Table::Nodes => "nodes",
            Table::Edges => "edges",
            Table::Unresolved => "unresolved",
            Table::Diagnostics => "diagnostics",
        }
    }
}

const TRIGGERS: &str = "
CREATE TRIGGER IF NOT EXISTS nodes_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO nodes_fts (rowid, name, key) VALUES (new.id, new.name, new.key);
END;
CREATE TRIGGER IF NOT EXISTS nodes_ad AFTER DELETE ON nodes BEGIN
    INSERT INTO nodes_fts (nodes_fts, rowid, name, key) VALUES ('delete', old.id, old.name, old.key);
END;
CREATE TRIGGER IF NOT EXISTS nodes_au AFTER UPDATE OF name, key ON nodes BEGIN
    INSERT INTO nodes_fts (nodes_fts, rowid, name, key) VALUES ('delete', old.id, old.name, old.key);
    INSERT INTO nodes_fts (rowid, name, key) VALUES (new.id, new.name, new.key);
END;
";

const INSERT_NODE: &str =
    "INSERT INTO nodes (id, file_id, key, name, kind, line, col, start_line, end_line, parent, exported)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

const REF_NAMES_OF: &str = "SELECT name FROM ref_names WHERE file_id = ?1";

/// The first column of every row `query` selects.
/// Column `i` of row `r`, a blob, as the row holds it (not copied).
fn blob_ref<'r>(r: &'r rusqlite::Row, i: usize) -> rusqlite::Result<&'r [u8]> {
    r.get_ref(i)?.as_blob().map_err(rusqlite::Error::from)
}

fn column<T: rusqlite::types::FromSql>(
    conn: &Connection,
    path: &str,
    query: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<T>> {
    let mut stmt = conn.prepare_cached(query).map_err(|e| sql(path, e))?;
    let rows = stmt
        .query_map(params, |r| r.get(0))
        .map_err(|e| sql(path, e))?;
    rows.collect::<rusqlite::Result<_>>()
        .map_err(|e| sql(path, e))
}

/// Edges written by one `INSERT`: a statement's fixed cost (opening the
/// table and its index, halting, freeing) was about half of a one-row
/// insert's, and a first index writes hundreds of thousands of edges on the
/// writer thread, which the resolving workers then wait for.
const EDGE_ROWS: usize = 32;

/// The `INSERT`s of one edge row and of [`EDGE_ROWS`] rows.
static INSERT_EDGES: std::sync::LazyLock<[String; 2]> = std::sync::LazyLock::new(|| {
    [1, EDGE_ROWS].map(|n| {
        let rows: Vec<String> = (0..n)
            .map(|i| {
                let params: Vec<String> = (1..=9).map(|k| format!("?{}", i * 9 + k)).collect();
                format!("({})", params.join(", "))
            })
            .collect();
        format!(
            "INSERT INTO edges (owner, src, dst, kind, confidence, status, source, line, col) VALUES {}",
            rows.join(", ")
        )
    })
});

/// Bind one edge row's nine values after the first `at` parameters.
fn bind_edge(
    stmt: &mut rusqlite::Statement,
    at: usize,
    owner: i64,
    e: &NewEdge,
) -> rusqlite::Result<()> {
    stmt.raw_bind_parameter(at + 1, owner)?;
    stmt.raw_bind_parameter(at + 2, e.src)?;
    stmt.raw_bind_parameter(at + 3, e.dst)?;
    stmt.raw_bind_parameter(at + 4, e.kind.as_str())?;
    stmt.raw_bind_parameter(at + 5, e.confidence)?;
    stmt.raw_bind_parameter(at + 6, e.status.as_str())?;
    stmt.raw_bind_parameter(at + 7, e.source)?;
    stmt.raw_bind_parameter(at + 8, e.site.map(|s| s.0))?;
    stmt.raw_bind_parameter(at + 9, e.site.map(|s| s.1))
}

/// Stored rows by their values, with the ids of the rows holding each.
type OwnedRows<K> = foldhash::HashMap<K, Vec<i64>>;

/// The `wanted` rows that `have` does not hold; each match is taken out of
/// `have`, which is left with the rows no longer wanted.
fn unmatched<'w, T, K: Eq + std::hash::Hash>(
    have: &mut OwnedRows<K>,
    wanted: &'w [T],
    values: impl Fn(&T) -> K,
) -> Vec<&'w T> {
    // A file resolved for the first time (every file of a first index)
    // owns nothing: no row's values need computing.
    if have.is_empty() {
        return wanted.iter().collect();
    }
    wanted
        .iter()
        .filter(|w| have.get_mut(&values(w)).and_then(Vec::pop).is_none())
        .collect()
}

/// Writes inside one transaction (see [`Store::transaction`]).
pub struct Writer<'a> {
    conn: &'a Connection,
    path: &'a str,
}

/// A file's new facts, encoded.
pub struct FileWrite<'a> {
    pub path: &'a str,
    pub lang: Lang,
    pub hash: &'a str,
    pub size: u64,
    pub mtime_ns: i64,
    pub module: &'a str,
    pub defs: &'a [Def],
    pub keys: &'a [String],
    pub defs_blob: &'a [u8],
    pub scope_blob: &'a [u8],
    pub refs_blob: &'a [u8],
    pub ref_names: &'a [String],
    /// Python: data attribute names of the file's classes, with how many
    /// classes have each.
    pub class_attrs: &'a [(String, u32)],
    pub diagnostics: &'a [Diagnostic],
    /// What becomes of edges other files own into this file's definitions.
    pub incoming: Incoming<'a>,
}

/// Edges other files own that point into a re-extracted file.
#[derive(Clone, Copy, Debug)]
pub enum Incoming<'a> {
    /// Drop them all (their owners are re-resolved).
    Drop,
    /// Keep them, moved to the definitions' new indexes: `map[old] = new`,
    /// `None` for a definition that is gone (its edges are dropped and
    /// their owners re-resolved).
    Remap(&'a [Option<u32>]),
}

impl Writer<'_> {
    fn err(&self, e: rusqlite::Error) -> StoreError {
        sql(self.path, e)
    }

    /// Insert or replace a file with its nodes, names and diagnostics; the
    /// file is left pending resolution. Returns its id (kept when the path
    /// was already indexed).
    pub fn put_file(&self, f: &FileWrite) -> Result<i64> {
        let existing: Option<i64> = self
            .conn
            .prepare_cached("SELECT id FROM files WHERE path = ?1")
            .map_err(|e| self.err(e))?
            .query_row([f.path], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let id = match existing {
            Some(id) => {
                // Its nodes and names are brought up to date row by row
                // below, and its edges when it is resolved again
                // ([`Writer::put_resolution`]): an edit keeps most rows as
                // they were, and each row written costs the pages of every
                // index it is in (names and edge targets are all over them).
                self.execute_each(
                    &[
                        "DELETE FROM class_attrs WHERE file_id = ?1",
                        "DELETE FROM diagnostics WHERE file_id = ?1",
                    ],
                    id,
                )?;
                match f.incoming {
                    Incoming::Drop => self.drop_incoming(id)?,
                    Incoming::Remap(map) => self.remap_incoming(id, map)?,
                }
                self.conn
                    .prepare_cached(
                        "UPDATE files SET lang = ?2, hash = ?3, size = ?4, mtime_ns = ?5, module = ?6,
                         resolved = 0, indexed_at = ?7 WHERE id = ?1",
                    )
                    .map_err(|e| self.err(e))?
                    .execute(params![
                        id,
                        f.lang.as_str(),
                        f.hash,
                        f.size as i64,
                        f.mtime_ns,
                        f.module,
                        now
                    ])
                    .map_err(|e| self.err(e))?;
                id
            }
            None => {
                self.conn
                    .prepare_cached(
                        "INSERT INTO files (path, lang, hash, size, mtime_ns, module, resolved, indexed_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7)",
                    )
                    .map_err(|e| self.err(e))?
                    .execute(params![
                        f.path,
                        f.lang.as_str(),
                        f.hash,
                        f.size as i64,
                        f.mtime_ns,
                        f.module,
                        now
                    ])
                    .map_err(|e| self.err(e))?;
                self.conn.last_insert_rowid()
            }
        };
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO facts (file_id, defs, scope, refs) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(|e| self.err(e))?
            .execute(params![id, f.defs_blob, f.scope_blob, f.refs_blob])
            .map_err(|e| self.err(e))?;
        // Its names' global ids were of the facts just replaced.
        self.conn
            .prepare_cached("DELETE FROM rust_gnames WHERE file_id = ?1")
            .map_err(|e| self.err(e))?
            .execute([id])
            .map_err(|e| self.err(e))?;
        let mut kept: std::collections::HashSet<String> = std::collections::HashSet::new();
        match existing {
            Some(_) => {
                self.sync_nodes(id, f.defs, f.keys)?;
                let wanted: std::collections::HashSet<&str> =
                    f.ref_names.iter().map(String::as_str).collect();
                let mut drop = self
                    .conn
                    .prepare_cached("DELETE FROM ref_names WHERE name = ?1 AND file_id = ?2")
                    .map_err(|e| self.err(e))?;
                let old: Vec<String> = column(self.conn, self.path, REF_NAMES_OF, [id])?;
                for n in old {
                    if wanted.contains(n.as_str()) {
                        kept.insert(n);
                    } else {
                        drop.execute(params![n, id]).map_err(|e| self.err(e))?;
                    }
                }
            }
            None => self.put_nodes(id, f.defs, f.keys)?,
        }
        let mut names = self
            .conn
            .prepare_cached("INSERT OR IGNORE INTO ref_names (name, file_id) VALUES (?1, ?2)")
            .map_err(|e| self.err(e))?;
        for n in f.ref_names.iter().filter(|n| !kept.contains(n.as_str())) {
            names.execute(params![n, id]).map_err(|e| self.err(e))?;
        }
        let mut attrs = self
            .conn
            .prepare_cached("INSERT INTO class_attrs (name, file_id, n) VALUES (?1, ?2, ?3)")
            .map_err(|e| self.err(e))?;
        for (name, n) in f.class_attrs {
            attrs
                .execute(params![name, id, n])
                .map_err(|e| self.err(e))?;
        }
        let mut diags = self
            .conn
            .prepare_cached(
                "INSERT INTO diagnostics (file_id, line, col, message) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(|e| self.err(e))?;
        for d in f.diagnostics {
            diags
                .execute(params![id, d.pos.line, d.pos.column, d.message])
                .map_err(|e| self.err(e))?;
        }
        Ok(id)
    }

    fn put_nodes(&self, file_id: i64, defs: &[Def], keys: &[String]) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached(INSERT_NODE)
            .map_err(|e| self.err(e))?;
        for (i, (d, key)) in defs.iter().zip(keys).enumerate() {
            self.insert_node(&mut stmt, file_id, i, d, key)?;
        }
        Ok(())
    }

    /// Insert definition `i` of file `file_id` with [`INSERT_NODE`].
    fn insert_node(
        &self,
        stmt: &mut rusqlite::CachedStatement<'_>,
        file_id: i64,
        i: usize,
        d: &Def,
        key: &str,
    ) -> Result<()> {
        stmt.execute(params![
            node_id(file_id, i as u32),
            file_id,
            key,
            d.name,
            d.kind.as_str(),
            d.pos.line,
            d.pos.column,
            d.start_line,
            d.end_line,
            d.parent.map(|p| node_id(file_id, p)),
            d.exported as i64
        ])
        .map(|_| ())
        .map_err(|e| self.err(e))
    }

    /// Make a file's stored nodes those of `defs`: rows that are already
    /// so are left alone, changed ones updated, missing ones inserted and
    /// the rest deleted.
    fn sync_nodes(&self, file_id: i64, defs: &[Def], keys: &[String]) -> Result<()> {
        type Node = (
            String,
            String,
            String,
            u32,
            u32,
            u32,
            u32,
            Option<i64>,
            bool,
        );
        let lo = node_id(file_id, 0);
        let hi = node_id(file_id + 1, 0);
        let mut old: std::collections::HashMap<i64, Node> = std::collections::HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare_cached(
                    "SELECT id, key, name, kind, line, col, start_line, end_line, parent, exported
                     FROM nodes WHERE id >= ?1 AND id < ?2",
                )
                .map_err(|e| self.err(e))?;
            let rows = stmt
                .query_map([lo, hi], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        (
                            r.get(1)?,
                            r.get(2)?,
                            r.get(3)?,
                            r.get(4)?,
                            r.get(5)?,
                            r.get(6)?,
                            r.get(7)?,
                            r.get(8)?,
                            r.get::<_, i64>(9)? != 0,
                        ),
                    ))
                })
                .map_err(|e| self.err(e))?;
            for row in rows {
                let (id, node) = row.map_err(|e| self.err(e))?;
                old.insert(id, node);
            }
        }
        self.conn
            .prepare_cached("DELETE FROM nodes WHERE id >= ?1 AND id < ?2")
            .map_err(|e| self.err(e))?
            .execute([node_id(file_id, defs.len() as u32), hi])
            .map_err(|e| self.err(e))?;
        let mut insert = self
            .conn
            .prepare_cached(INSERT_NODE)
            .map_err(|e| self.err(e))?;
        for (i, (d, key)) in defs.iter().zip(keys).enumerate() {
            let id = node_id(file_id, i as u32);
            let parent = d.parent.map(|p| node_id(file_id, p));
            if let Some(o) = old.get(&id) {
                let same = o.0 == *key
                    && o.1 == d.name
                    && o.2 == d.kind.as_str()
                    && (o.3, o.4, o.5, o.6) == (d.pos.line, d.pos.column, d.start_line, d.end_line)
                    && o.7 == parent
                    && o.8 == d.exported;
                if same {
                    continue;
                }
                if o.0 == *key && o.1 == d.name {
                    // Moved or changed kind: the search index's row stays.
                    self.conn
                        .prepare_cached(
                            "UPDATE nodes SET kind = ?2, line = ?3, col = ?4, start_line = ?5,
                             end_line = ?6, parent = ?7, exported = ?8 WHERE id = ?1",
                        )
                        .map_err(|e| self.err(e))?
                        .execute(params![
                            id,
                            d.kind.as_str(),
                            d.pos.line,
                            d.pos.column,
                            d.start_line,
                            d.end_line,
                            parent,
                            d.exported as i64
                        ])
                        .map_err(|e| self.err(e))?;
                    continue;
                }
                self.conn
                    .prepare_cached("DELETE FROM nodes WHERE id = ?1")
                    .map_err(|e| self.err(e))?
                    .execute([id])
                    .map_err(|e| self.err(e))?;
            }
            self.insert_node(&mut insert, file_id, i, d, key)?;
        }
        Ok(())
    }

    /// Re-key a file's nodes (its module key changed; its facts did not).
    pub fn rekey_file(&self, file_id: i64, module: &str, keys: &[String]) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE files SET module = ?2 WHERE id = ?1")
            .map_err(|e| self.err(e))?
            .execute(params![file_id, module])
            .map_err(|e| self.err(e))?;
        let mut stmt = self
            .conn
            .prepare_cached("UPDATE nodes SET key = ?2 WHERE id = ?1")
            .map_err(|e| self.err(e))?;
        for (i, key) in keys.iter().enumerate() {
            stmt.execute(params![node_id(file_id, i as u32), key])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Only the size and mtime changed (same content).
    pub fn touch_file(&self, file_id: i64, size: u64, mtime_ns: i64) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE files SET size = ?2, mtime_ns = ?3 WHERE id = ?1")
            .map_err(|e| self.err(e))?
            .execute(params![file_id, size as i64, mtime_ns])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Delete what a file owns: nodes, names, diagnostics, its edges and
    /// unresolved sites.
    fn clear_own_facts(&self, id: i64) -> Result<()> {
        self.execute_each(
            &[
                "DELETE FROM nodes WHERE file_id = ?1",
                "DELETE FROM ref_names WHERE file_id = ?1",
                "DELETE FROM class_attrs WHERE file_id = ?1",
                "DELETE FROM diagnostics WHERE file_id = ?1",
                "DELETE FROM edges WHERE owner = ?1",
                "DELETE FROM unresolved WHERE owner = ?1",
            ],
            id,
        )
    }

    /// Edges other files own that point into this file are stale now;
    /// their owners are marked pending by the caller and re-resolved.
    fn drop_incoming(&self, id: i64) -> Result<()> {
        let lo = node_id(id, 0);
        let hi = node_id(id + 1, 0);
        self.conn
            .prepare_cached(
                "DELETE FROM edges WHERE (dst >= ?1 AND dst < ?2) OR (src >= ?1 AND src < ?2)",
            )
            .map_err(|e| self.err(e))?
            .execute([lo, hi])
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Move edges into this file's definitions to their new indexes (see
    /// [`Incoming::Remap`]). Two passes through negative ids, so a move onto
    /// an index that is itself moving never collides.
    fn remap_incoming(&self, id: i64, map: &[Option<u32>]) -> Result<()> {
        let moved = map
            .iter()
            .enumerate()
            .any(|(old, new)| *new != Some(old as u32));
        if !moved {
            return Ok(());
        }
        let hi = node_id(id + 1, 0);
        let hi_old = node_id(id, map.len() as u32);
        // Definitions past the old list (should not exist) and gone ones: drop.
        self.conn
            .prepare_cached(
                "DELETE FROM edges WHERE (dst >= ?1 AND dst < ?2) OR (src >= ?1 AND src < ?2)",
            )
            .map_err(|e| self.err(e))?
            .execute([hi_old, hi])
            .map_err(|e| self.err(e))?;
        for col in ["dst", "src"] {
            let mut stmt = self
                .conn
                .prepare_cached(&format!("UPDATE edges SET {col} = ?2 WHERE {col} = ?1"))
                .map_err(|e| self.err(e))?;
            let mut drop = self
                .conn
                .prepare_cached(&format!("DELETE FROM edges WHERE {col} = ?1"))
                .map_err(|e| self.err(e))?;
            for (old, new) in map.iter().enumerate() {
                let old_id = node_id(id, old as u32);
                match new {
                    Some(n) if *n == old as u32 => {}
                    Some(n) => {
                        stmt.execute([old_id, -node_id(id, *n) - 1])
                            .map_err(|e| self.err(e))?;
                    }
                    None => {
                        drop.execute([old_id]).map_err(|e| self.err(e))?;
                    }
                }
            }
            self.conn
                .execute(
                    &format!("UPDATE edges SET {col} = -{col} - 1 WHERE {col} < 0"),
                    [],
                )
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Remove a file and everything it owns.
    pub fn delete_file(&self, id: i64) -> Result<()> {
        self.clear_own_facts(id)?;
        self.drop_incoming(id)?;
        self.execute_each(
            &[
                "DELETE FROM facts WHERE file_id = ?1",
                "DELETE FROM rust_gnames WHERE file_id = ?1",
                "DELETE FROM files WHERE id = ?1",
            ],
            id,
        )
    }

    /// Run each statement with `id` as its one parameter.
    fn execute_each(&self, sqls: &[&str], id: i64) -> Result<()> {
        for sql in sqls {
            self.conn
                .prepare_cached(sql)
                .map_err(|e| self.err(e))?
                .execute([id])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Mark files pending resolution.
    pub fn mark_pending(&self, ids: &[i64]) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached("UPDATE files SET resolved = 0 WHERE id = ?1")
            .map_err(|e| self.err(e))?;
        for id in ids {
            stmt.execute([id]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    pub fn mark_all_pending(&self) -> Result<()> {
        self.conn
            .execute("UPDATE files SET resolved = 0", [])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Drop the Rust global name table and every file's ids into it.
    pub fn clear_rust_names(&self) -> Result<()> {
        self.conn
            .execute_batch("DELETE FROM rust_names; DELETE FROM rust_gnames;")
            .map_err(|e| self.err(e))
    }

    /// Append a chunk of names to the Rust global name table.
    pub fn append_rust_names(&self, names: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO rust_names (chunk, names)
                 VALUES ((SELECT COALESCE(MAX(chunk) + 1, 0) FROM rust_names), ?1)",
            )
            .map_err(|e| self.err(e))?
            .execute([names])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Set a Rust file's encoded name ids.
    pub fn put_rust_gnames(&self, file_id: i64, ids: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO rust_gnames (file_id, ids) VALUES (?1, ?2)")
            .map_err(|e| self.err(e))?
            .execute(params![file_id, ids])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Replace the edges and unresolved sites a file owns, and mark it resolved.
    pub fn put_resolution(
        &self,
        file_id: i64,
        edges: &[NewEdge],
        unresolved: &[NewUnresolved],
    ) -> Result<()> {
        // The rows the file owns already are kept where they are still
        // wanted (a re-resolution mostly finds what it found before): each
        // row written costs a page of every index it is in.
        type EdgeRow = (
            i64,
            i64,
            String,
            u64,
            String,
            String,
            Option<u32>,
            Option<u32>,
        );
        let mut have: OwnedRows<EdgeRow> = self.owned_rows(
            "SELECT id, src, dst, kind, confidence, status, source, line, col
             FROM edges WHERE owner = ?1",
            file_id,
            |r| {
                Ok((
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get::<_, f64>(4)?.to_bits(),
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                ))
            },
        )?;
        let fresh = unmatched(&mut have, edges, |e| {
            (
                e.src,
                e.dst,
                e.kind.as_str().to_string(),
                e.confidence.to_bits(),
                e.status.as_str().to_string(),
                e.source.to_string(),
                e.site.map(|s| s.0),
                e.site.map(|s| s.1),
            )
        });
        self.delete_rows("DELETE FROM edges WHERE id = ?1", have)?;
        // EDGE_ROWS rows to a statement, the rest one by one, in order (so
        // with the ids one statement a row would give).
        let (many, rest) = fresh.split_at(fresh.len() / EDGE_ROWS * EDGE_ROWS);
        self.insert_edges(&INSERT_EDGES[1], file_id, many.chunks(EDGE_ROWS))?;
        self.insert_edges(&INSERT_EDGES[0], file_id, rest.chunks(1))?;
        type SiteRow = (i64, String, String, u32, u32, String);
        let mut have: OwnedRows<SiteRow> = self.owned_rows(
            "SELECT rowid, src, name, kind, line, col, reason FROM unresolved WHERE owner = ?1",
            file_id,
            |r| {
                Ok((
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            },
        )?;
        let fresh = unmatched(&mut have, unresolved, |u| {
            (
                u.src,
                u.name.to_string(),
                u.kind.as_str().to_string(),
                u.line,
                u.column,
                u.reason.to_string(),
            )
        });
        self.delete_rows("DELETE FROM unresolved WHERE rowid = ?1", have)?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT INTO unresolved (owner, src, name, kind, line, col, reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .map_err(|e| self.err(e))?;
        for u in fresh {
            stmt.execute(params![
                file_id,
                u.src,
                u.name,
                u.kind.as_str(),
                u.line,
                u.column,
                u.reason
            ])
            .map_err(|e| self.err(e))?;
        }
        self.conn
            .prepare_cached("UPDATE files SET resolved = 1 WHERE id = ?1")
            .map_err(|e| self.err(e))?
            .execute([file_id])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Insert edges owned by `owner`, one statement of `sql` per chunk
    /// (whose rows all fill its parameters).
    fn insert_edges<'e>(
        &self,
        sql: &str,
        owner: i64,
        mut chunks: impl Iterator<Item = &'e [&'e NewEdge<'e>]>,
    ) -> Result<()> {
        let Some(first) = chunks.next() else {
            return Ok(());
        };
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        for chunk in std::iter::once(first).chain(chunks) {
            for (i, e) in chunk.iter().enumerate() {
                bind_edge(&mut stmt, i * 9, owner, e).map_err(|e| self.err(e))?;
            }
            stmt.raw_execute().map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The rows of a table that `file_id` owns, by their values (`sql`
    /// selects the row id first, then what `values` reads).
    fn owned_rows<K: Eq + std::hash::Hash>(
        &self,
        sql: &str,
        file_id: i64,
        values: impl Fn(&rusqlite::Row) -> rusqlite::Result<K>,
    ) -> Result<OwnedRows<K>> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([file_id], |r| Ok((r.get::<_, i64>(0)?, values(r)?)))
            .map_err(|e| self.err(e))?;
        let mut have = OwnedRows::default();
        for row in rows {
            let (id, k) = row.map_err(|e| self.err(e))?;
            have.entry(k).or_default().push(id);
        }
        Ok(have)
    }

    /// Delete the rows left in `have` (by id, with `sql`).
    fn delete_rows<K>(&self, sql: &str, have: OwnedRows<K>) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        for id in have.into_values().flatten() {
            stmt.execute([id]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    pub fn set_skipped(&self, skipped: &[(String, String, String)]) -> Result<()> {
        self.conn
            .execute("DELETE FROM skipped", [])
            .map_err(|e| self.err(e))?;
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT OR REPLACE INTO skipped (path, reason, detail) VALUES (?1, ?2, ?3)",
            )
            .map_err(|e| self.err(e))?;
        for (p, r, d) in skipped {
            stmt.execute(params![p, r, d]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Ids of files whose path is in `paths`.
    pub fn ids_of(&self, paths: &[&str]) -> Result<Vec<i64>> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; paths.len()].join(",");
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT id FROM files WHERE path IN ({marks})"))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params_from_iter(paths), |r| r.get::<_, i64>(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }
}

/// Only a file that is not a database, or a corrupt one, is rebuilt; a busy
/// or failing disk is an error, never a reason to delete.
fn is_corrupt(e: &StoreError) -> bool {
    match e {
        StoreError::Sqlite { source, .. } => matches!(
            source.sqlite_error_code(),
            Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
        ),
        _ => false,
    }
}

fn sql(path: &str, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_string(),
        source,
    }
}

/// An edge with its site, as the query layer reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub src: i64,
    pub dst: i64,
    pub kind: EdgeKind,
    pub confidence: f64,
    pub status: Status,
    pub source: String,
    /// Site file, line, column.
    pub site: Option<(String, u32, u32)>,
}

/// An unresolved reference site.
#[derive(Clone, Debug, PartialEq)]
pub struct UnresolvedRow {
    pub src: i64,
    pub name: String,
    pub kind: EdgeKind,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub reason: String,
}

fn unresolved_row(r: &rusqlite::Row) -> rusqlite::Result<UnresolvedRow> {
    Ok(UnresolvedRow {
        src: r.get(0)?,
        name: r.get(1)?,
        kind: EdgeKind::parse(&r.get::<_, String>(2)?).unwrap_or(EdgeKind::References),
        file: r.get(3)?,
        line: r.get(4)?,
        column: r.get(5)?,
        reason: r.get(6)?,
    })
}

fn link_row(r: &rusqlite::Row) -> rusqlite::Result<Link> {
    let line: Option<u32> = r.get(7)?;
    let col: Option<u32> = r.get(8)?;
    Ok(Link {
        src: r.get(0)?,
        dst: r.get(1)?,
        kind: EdgeKind::parse(&r.get::<_, String>(2)?).unwrap_or(EdgeKind::References),
        confidence: r.get(3)?,
        status: Status::parse(&r.get::<_, String>(4)?).unwrap_or(Status::Inferred),
        source: r.get(5)?,
        site: match (line, col) {
            (Some(l), Some(c)) => Some((r.get(6)?, l, c)),
            _ => None,
        },
    })
}

const LINK_COLS: &str =
    "e.src, e.dst, e.kind, e.confidence, e.status, e.source, f.path, e.line, e.col";

impl Store {
    /// Served (not refuted) edges into `node`.
    pub fn links_to(&self, node: i64) -> Result<Vec<Link>> {
        let sql = format!(
            "SELECT {LINK_COLS} FROM edges e JOIN files f ON f.id = e.owner
             WHERE e.dst = ?1 AND e.status != 'refuted'"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map([node], link_row).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Served (not refuted) edges out of `node`.
    pub fn links_from(&self, node: i64) -> Result<Vec<Link>> {
        let sql = format!(
            "SELECT {LINK_COLS} FROM edges e JOIN files f ON f.id = e.owner
             WHERE e.src = ?1 AND e.status != 'refuted'"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map([node], link_row).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Every served edge of the given kinds (for whole-graph analyses), as
    /// `(src, dst, kind, confidence)`.
    pub fn edge_list(&self, kinds: &[EdgeKind]) -> Result<Vec<(i64, i64, EdgeKind, f64)>> {
        let marks = kinds
            .iter()
            .map(|k| format!("'{}'", k.as_str()))
            .collect::<Vec<_>>()
            .join(",");
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT src, dst, kind, confidence FROM edges
                 WHERE status != 'refuted' AND kind IN ({marks})"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    EdgeKind::parse(&r.get::<_, String>(2)?).unwrap_or(EdgeKind::References),
                    r.get(3)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    pub fn node(&self, id: i64) -> Result<Option<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?1"
        );
        self.conn
            .prepare_cached(&sql)
            .map_err(|e| self.err(e))?
            .query_row([id], node_row)
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Unresolved sites with this name.
    pub fn unresolved_named(&self, name: &str) -> Result<Vec<UnresolvedRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT u.src, u.name, u.kind, f.path, u.line, u.col, u.reason
                 FROM unresolved u JOIN files f ON f.id = u.owner WHERE u.name = ?1
                 ORDER BY f.path, u.line, u.col",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([name], unresolved_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// How many files mention `name` in their references (any form).
    pub fn files_mentioning(&self, name: &str) -> Result<u64> {
        self.conn
            .prepare_cached("SELECT count(*) FROM ref_names WHERE name = ?1")
            .map_err(|e| self.err(e))?
            .query_row([name], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    /// Distinct definition names (for "did you mean").
    pub fn all_names(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT name FROM nodes WHERE kind != 'module'")
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// The module node of a file.
    pub fn module_node(&self, path: &str) -> Result<Option<i64>> {
        self.conn
            .prepare_cached("SELECT id FROM files WHERE path = ?1")
            .map_err(|e| self.err(e))?
            .query_row([path], |r| r.get::<_, i64>(0))
            .optional()
            .map(|id| id.map(|id| node_id(id, 0)))
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Files whose references mention `name`.
    pub fn files_with_ref_name(&self, name: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.path FROM ref_names r JOIN files f ON f.id = r.file_id
                 WHERE r.name = ?1 ORDER BY f.path",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([name], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Edge count per status of the given kinds with confidence below `min`.
    pub fn count_below(&self, kinds: &[EdgeKind], min: f64) -> Result<usize> {
        let marks = kinds
            .iter()
            .map(|k| format!("'{}'", k.as_str()))
            .collect::<Vec<_>>()
            .join(",");
        self.conn
            .prepare_cached(&format!(
                "SELECT count(*) FROM edges WHERE status != 'refuted' AND kind IN ({marks}) AND confidence < ?1"
            ))
            .map_err(|e| self.err(e))?
            .query_row([min], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(|e| self.err(e))
    }

    /// All nodes by id, for whole-graph analyses.
    pub fn nodes_by_id(&self) -> Result<std::collections::HashMap<i64, NodeRow>> {
        Ok(self.all_nodes()?.into_iter().map(|n| (n.id, n)).collect())
    }
}

/// A language server's answer for one site (one row per location).
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictRow {
    pub site_path: String,
    pub line: u32,
    pub column: u32,
    pub site_hash: String,
    pub server: String,
    pub outcome: Outcome,
}

/// What the server said a site refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// An in-repository location: path, its content hash, name position.
    Target {
        path: String,
        hash: String,
        line: u32,
        column: u32,
    },
    /// Outside the repository (standard library, dependency).
    External,
    /// No answer.
    None,
}

impl Outcome {
    /// An in-repository location's path and position.
    pub fn target(&self) -> Option<(String, Pos)> {
        match self {
            Outcome::Target {
                path, line, column, ..
            } => Some((
                path.clone(),
                Pos {
                    line: *line,
                    column: *column,
                },
            )),
            _ => None,
        }
    }
}

/// A reference a server found that the static graph did not have.
#[derive(Clone, Debug, PartialEq)]
pub struct DiscoveredRow {
    pub site_path: String,
    pub line: u32,
    pub column: u32,
    pub site_hash: String,
    pub server: String,
    pub kind: EdgeKind,
    pub target_path: String,
    pub target_hash: String,
    pub target_line: u32,
    pub target_column: u32,
}

impl Store {
    /// Verdicts recorded for sites in `path` while it had `hash`.
    pub fn verdicts_for(&self, path: &str, hash: &str) -> Result<Vec<VerdictRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT site_path, line, col, site_hash, server, outcome, target_path, target_hash, target_line, target_col
                 FROM verdicts WHERE site_path = ?1 AND site_hash = ?2 ORDER BY line, col",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([path, hash], |r| {
                let outcome: String = r.get(5)?;
                Ok(VerdictRow {
                    site_path: r.get(0)?,
                    line: r.get(1)?,
                    column: r.get(2)?,
                    site_hash: r.get(3)?,
                    server: r.get(4)?,
                    outcome: match outcome.as_str() {
                        "target" => Outcome::Target {
                            path: r.get(6)?,
                            hash: r.get(7)?,
                            line: r.get(8)?,
                            column: r.get(9)?,
                        },
                        "external" => Outcome::External,
                        _ => Outcome::None,
                    },
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Discovered references for sites in `path` while it had `hash`.
    pub fn discovered_for(&self, path: &str, hash: &str) -> Result<Vec<DiscoveredRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT site_path, line, col, site_hash, server, kind, target_path, target_hash, target_line, target_col
                 FROM discovered WHERE site_path = ?1 AND site_hash = ?2 ORDER BY line, col",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([path, hash], |r| {
                Ok(DiscoveredRow {
                    site_path: r.get(0)?,
                    line: r.get(1)?,
                    column: r.get(2)?,
                    site_hash: r.get(3)?,
                    server: r.get(4)?,
                    kind: EdgeKind::parse(&r.get::<_, String>(5)?).unwrap_or(EdgeKind::References),
                    target_path: r.get(6)?,
                    target_hash: r.get(7)?,
                    target_line: r.get(8)?,
                    target_column: r.get(9)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Whether any verdict or discovery is stored (skips the work when not).
    pub fn has_verdicts(&self) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM verdicts) OR EXISTS (SELECT 1 FROM discovered)",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|v| v != 0)
            .map_err(|e| self.err(e))
    }
}

impl Writer<'_> {
    /// Replace the verdicts of the given sites.
    pub fn put_verdicts(&self, rows: &[VerdictRow]) -> Result<()> {
        let now = unix_now();
        let mut del = self
            .conn
            .prepare_cached("DELETE FROM verdicts WHERE site_path = ?1 AND line = ?2 AND col = ?3")
            .map_err(|e| self.err(e))?;
        for r in rows {
            del.execute(params![r.site_path, r.line, r.column])
                .map_err(|e| self.err(e))?;
        }
        let mut ins = self
            .conn
            .prepare_cached(
                "INSERT INTO verdicts (site_path, line, col, site_hash, server, outcome, target_path, target_hash, target_line, target_col, checked_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )
            .map_err(|e| self.err(e))?;
        for r in rows {
            let (outcome, tp, th, tl, tc) = match &r.outcome {
                Outcome::Target {
                    path,
                    hash,
                    line,
                    column,
                } => (
                    "target",
                    Some(path.as_str()),
                    Some(hash.as_str()),
                    Some(*line),
                    Some(*column),
                ),
                Outcome::External => ("external", None, None, None, None),
                Outcome::None => ("none", None, None, None, None),
            };
            ins.execute(params![
                r.site_path,
                r.line,
                r.column,
                r.site_hash,
                r.server,
                outcome,
                tp,
                th,
                tl,
                tc,
                now
            ])
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Record discovered references (duplicates of a site and target are replaced).
    pub fn put_discovered(&self, rows: &[DiscoveredRow]) -> Result<()> {
        let now = unix_now();
        let mut del = self
            .conn
            .prepare_cached(
                "DELETE FROM discovered WHERE site_path = ?1 AND line = ?2 AND col = ?3 AND target_path = ?4 AND target_line = ?5 AND target_col = ?6",
            )
            .map_err(|e| self.err(e))?;
        let mut ins = self
            .conn
            .prepare_cached(
                "INSERT INTO discovered (site_path, line, col, site_hash, server, kind, target_path, target_hash, target_line, target_col, checked_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            )
            .map_err(|e| self.err(e))?;
        for r in rows {
            del.execute(params![
                r.site_path,
                r.line,
                r.column,
                r.target_path,
                r.target_line,
                r.target_column
            ])
            .map_err(|e| self.err(e))?;
            ins.execute(params![
                r.site_path,
                r.line,
                r.column,
                r.site_hash,
                r.server,
                r.kind.as_str(),
                r.target_path,
                r.target_hash,
                r.target_line,
                r.target_column,
                now
            ])
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A static edge with its site and its target's name position.
#[derive(Clone, Debug)]
pub struct UnverifiedEdge {
    pub site_path: String,
    pub line: u32,
    pub column: u32,
    pub kind: EdgeKind,
    pub target_path: String,
    pub target_line: u32,
    pub target_column: u32,
}

impl Store {
    /// Static (syntactic or inferred) reference edges below `min` confidence
    /// (all of them at 1.0), with sites.
    pub fn unverified_edges(&self, min: f64) -> Result<Vec<UnverifiedEdge>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT sf.path, e.line, e.col, e.kind, tf.path, n.line, n.col
                 FROM edges e JOIN files sf ON sf.id = e.owner
                 JOIN nodes n ON n.id = e.dst JOIN files tf ON tf.id = n.file_id
                 WHERE e.status IN ('syntactic', 'inferred') AND e.confidence < ?1
                   AND e.kind IN ('calls', 'references', 'imports', 'extends', 'implements')
                   AND e.line IS NOT NULL
                 ORDER BY sf.path, e.line, e.col",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([min + 1e-9], |r| {
                Ok(UnverifiedEdge {
                    site_path: r.get(0)?,
                    line: r.get(1)?,
                    column: r.get(2)?,
                    kind: EdgeKind::parse(&r.get::<_, String>(3)?).unwrap_or(EdgeKind::References),
                    target_path: r.get(4)?,
                    target_line: r.get(5)?,
                    target_column: r.get(6)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    pub fn all_unresolved(&self) -> Result<Vec<UnresolvedRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT u.src, u.name, u.kind, f.path, u.line, u.col, u.reason
                 FROM unresolved u JOIN files f ON f.id = u.owner ORDER BY f.path, u.line, u.col",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], unresolved_row)
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Every site that has an edge (any status), as `(path, line, column)`.
    pub fn edge_sites(&self) -> Result<std::collections::HashSet<(String, u32, u32)>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT f.path, e.line, e.col FROM edges e JOIN files f ON f.id = e.owner
                 WHERE e.line IS NOT NULL",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexes(store: &Store) -> Vec<String> {
        let mut stmt = store
            .conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') ORDER BY name",
            )
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    #[test]
    fn exact_lookups_match_names_keys_and_key_suffixes_on_a_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(&dir.path().join("graph.db")).unwrap();
        store
            .conn
            .execute(
                "INSERT INTO files VALUES (1, 'a', 'python', '', 0, 0, '', 1, 0)",
                [],
            )
            .unwrap();
        let nodes = [
            ("shop.auth", "__init__", "module"),
            ("shop.auth.login", "login", "function"),
            ("shop.Login", "Login", "class"),
            ("crate::a::Box::value_parser#4", "value_parser", "method"),
            ("src/a.test.ts:.flatten() works", ".flatten() works", "test"),
            ("src/a.test.ts:A > b", "b", "test"),
        ];
        for (i, (key, name, kind)) in nodes.iter().enumerate() {
            store
                .conn
                .execute(
                    "INSERT INTO nodes VALUES (?1, 1, ?2, ?3, ?4, 1, 1, 1, 1, NULL, 1)",
                    params![i as i64, key, name, kind],
                )
                .unwrap();
        }
        let keys = |q: &str| -> Vec<String> {
            store
                .nodes_exact(q)
                .unwrap()
                .into_iter()
                .map(|n| n.key)
                .collect()
        };
        assert_eq!(keys("auth"), ["shop.auth"]);
        assert_eq!(keys("login"), ["shop.auth.login"]);
        assert_eq!(keys("auth.login"), ["shop.auth.login"]);
        assert_eq!(keys("shop.auth.login"), ["shop.auth.login"]);
        assert!(keys("uth.login").is_empty());
        assert_eq!(keys("Login"), ["shop.Login"]);
        assert_eq!(keys("value_parser"), ["crate::a::Box::value_parser#4"]);
        assert_eq!(
            keys("Box::value_parser#4"),
            ["crate::a::Box::value_parser#4"]
        );
        assert!(keys("Box::value_parser#3").is_empty());
        assert_eq!(keys("flatten() works"), ["src/a.test.ts:.flatten() works"]);
        assert_eq!(keys("A > b"), ["src/a.test.ts:A > b"]);
        assert_eq!(keys("b"), ["src/a.test.ts:A > b"]);
        assert_eq!(keys("100%_x"), Vec::<String>::new());
    }

    #[test]
    fn a_bulk_load_interrupted_between_its_halves_is_finished_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.db");
        let (mut store, _) = Store::open(&path).unwrap();
        let all = indexes(&store);
        // Another connection keeps the journal on (WAL): the load can be
        // resumed.
        let reader = store.reader().unwrap().unwrap();
        store.begin_bulk().unwrap();
        drop(reader);
        assert_eq!(store.journal_mode().unwrap(), "wal");
        assert!(!store.unjournaled_load().unwrap());
        assert!(!indexes(&store)
            .iter()
            .any(|n| n == "nodes_name" || n == "edges_dst"));
        store.end_bulk_facts().unwrap();
        let half = indexes(&store);
        assert!(half.iter().any(|n| n == "nodes_name"), "{half:?}");
        assert!(half.iter().any(|n| n == "nodes_ai"), "{half:?}");
        assert!(!half.iter().any(|n| n == "edges_dst"), "{half:?}");
        assert!(store.in_bulk().unwrap());
        drop(store);
        // The next process finds the load half done and finishes it.
        let (mut store, _) = Store::open(&path).unwrap();
        assert!(store.in_bulk().unwrap());
        store.end_bulk().unwrap();
        assert!(!store.in_bulk().unwrap());
        assert_eq!(indexes(&store), all);
    }

    #[test]
    fn a_bulk_load_alone_is_unjournaled_and_an_interrupted_one_starts_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.db");
        let (mut store, _) = Store::open(&path).unwrap();
        store.begin_bulk().unwrap();
        assert_eq!(store.journal_mode().unwrap(), "off");
        assert!(store.unjournaled_load().unwrap());
        store
            .conn
            .execute("INSERT INTO meta (key, value) VALUES ('probe', 'x')", [])
            .unwrap();
        // Cut short: the next open finds the marker and starts again.
        drop(store);
        let (mut store, note) = Store::open(&path).unwrap();
        let OpenNote::Rebuilt(why) = note else {
            panic!("not rebuilt: {note:?}")
        };
        assert!(why.contains("without a journal"), "{why}");
        assert_eq!(store.meta("probe").unwrap(), None, "a new database");
        assert!(!store.in_bulk().unwrap());
        assert_eq!(store.journal_mode().unwrap(), "wal");
        // Finished: the journal is back on and the marker gone.
        store.begin_bulk().unwrap();
        store.end_bulk().unwrap();
        assert_eq!(store.journal_mode().unwrap(), "wal");
        assert!(!store.unjournaled_load().unwrap());
        assert!(!store.in_bulk().unwrap());
        drop(store);
        let (mut store, note) = Store::open(&path).unwrap();
        assert_eq!(note, OpenNote::Existing);
        // Interrupted in this process (an update that failed): recreated
        // in place.
        store.begin_bulk().unwrap();
        store.set_meta("probe", "y").unwrap();
        store.recreate().unwrap();
        assert_eq!(store.meta("probe").unwrap(), None);
        assert!(!store.unjournaled_load().unwrap());
        assert_eq!(store.journal_mode().unwrap(), "wal");
    }

    #[test]
    fn owners_of_language_server_edges_are_read_through_their_index() {
        let store = Store::open_in_memory().unwrap();
        // Edges into file 2's definitions from files 1, 3 and 4 (and one
        // of file 2's own); only 3's and 4's were decided by a server.
        for (owner, dst_file, source) in [
            (1, 2, "static"),
            (3, 2, "lsp:rust-analyzer@1"),
            (4, 2, "lsp:pyright@1"),
            (2, 2, "lsp:pyright@1"),
            (5, 6, "lsp:pyright@1"),
        ] {
            store
                .conn
                .execute(
                    "INSERT INTO edges (owner, src, dst, kind, confidence, status, source)
                     VALUES (?1, ?2, ?3, 'calls', 1.0, 'verified', ?4)",
                    params![owner, node_id(owner, 0), node_id(dst_file, 1), source],
                )
                .unwrap();
        }
        let mut owners = store.lsp_owners_into(2).unwrap();
        owners.sort_unstable();
        assert_eq!(owners, [3, 4]);
        let plan: Vec<String> = store
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {LSP_OWNERS_INTO}"))
            .unwrap()
            .query_map(params![0, 1, 2], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(plan.iter().any(|p| p.contains("edges_lsp")), "{plan:?}");
    }

    #[test]
    fn the_log_outlives_the_process_but_not_a_database_removed_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("graph.db");
        let wal = dir.path().join("graph.db-wal");
        let (store, _) = Store::open(&path).unwrap();
        store.set_meta("probe", "x").unwrap();
        drop(store);
        // Not checkpointed on close: the commit is in the log, and read
        // from it.
        assert!(std::fs::metadata(&wal).unwrap().len() > 0);
        let (store, note) = Store::open(&path).unwrap();
        assert_eq!(note, OpenNote::Existing);
        assert_eq!(store.meta("probe").unwrap().as_deref(), Some("x"));
        drop(store);
        // The database removed alone: its log is not replayed into the new
        // one.
        std::fs::remove_file(&path).unwrap();
        assert!(wal.exists());
        let (store, note) = Store::open(&path).unwrap();
        assert_eq!(note, OpenNote::Created);
        assert_eq!(store.meta("probe").unwrap(), None);
        assert_eq!(
            store.meta("schema_version").unwrap(),
            Some(schema::SCHEMA_VERSION.to_string())
        );
    }
}
