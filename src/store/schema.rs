//! The database schema. A version mismatch rebuilds the database (the graph
//! is derived data: rebuilding loses nothing but time).

/// Bump on any change to [`SCHEMA`] or to the encoding of the fact blobs,
/// and when a resolver's answers change (stored edges would stay stale).
pub const SCHEMA_VERSION: i64 = 102;

pub const PRAGMAS: &str = "
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA foreign_keys = OFF;
PRAGMA temp_store = MEMORY;
";

/// Every connection's, read-only ones too: its page cache and memory map.
pub const READ_PRAGMAS: &str = "
PRAGMA cache_size = -65536;
PRAGMA mmap_size = 1073741824;
";

pub const SCHEMA: &str = "
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- One row per indexed source file. `resolved = 0` marks a file whose edges
-- must be (re)computed: it is set in the same transaction as the change that
-- makes it necessary, so an interrupted run is completed by the next one.
CREATE TABLE files (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL UNIQUE,
    lang        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    module      TEXT NOT NULL,
    resolved    INTEGER NOT NULL,
    indexed_at  INTEGER NOT NULL
) STRICT;

-- A file's extracted facts (encoded definitions, scope and reference
-- sites), one row per `files` row. Kept apart from `files` because SQLite
-- stores a row as one record: with the blobs inline, a scan of the files'
-- small columns read a page or more per file, and every `resolved` update
-- rewrote the blobs' overflow pages.
CREATE TABLE facts (
    file_id     INTEGER PRIMARY KEY,
    defs        BLOB NOT NULL,
    scope       BLOB NOT NULL,
    refs        BLOB NOT NULL
) STRICT;

-- Node ids are file_id << 20 | index of the definition in its file.
CREATE TABLE nodes (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL,
    key         TEXT NOT NULL,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    line        INTEGER NOT NULL,
    col         INTEGER NOT NULL,
    start_line  INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    parent      INTEGER,
    exported    INTEGER NOT NULL
) STRICT;

-- `owner` is the file whose resolution produced the edge (the site's file);
-- re-resolving a file replaces exactly the edges it owns.
CREATE TABLE edges (
    id          INTEGER PRIMARY KEY,
    owner       INTEGER NOT NULL,
    src         INTEGER NOT NULL,
    dst         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    confidence  REAL NOT NULL,
    status      TEXT NOT NULL,
    source      TEXT NOT NULL,
    line        INTEGER,
    col         INTEGER
) STRICT;

CREATE TABLE unresolved (
    owner   INTEGER NOT NULL,
    src     INTEGER NOT NULL,
    name    TEXT NOT NULL,
    kind    TEXT NOT NULL,
    line    INTEGER NOT NULL,
    col     INTEGER NOT NULL,
    reason  TEXT NOT NULL
) STRICT;

-- The Rust index's global name table (`resolve::rust::index::NameTable`),
-- kept so that an update interns only the names of the files it re-extracted:
-- chunks in order, a name's id counting on across them. Each update appends
-- the names it added; a rebuild replaces them all, with every `rust_gnames`.
CREATE TABLE rust_names (
    chunk   INTEGER PRIMARY KEY,
    names   BLOB NOT NULL
) STRICT;

-- A Rust file's names as ids of `rust_names` (its scope's names, then its
-- definitions' names, encoded). Deleted whenever its facts are written: a
-- row is always of the facts beside it.
CREATE TABLE rust_gnames (
    file_id INTEGER PRIMARY KEY,
    ids     BLOB NOT NULL
) STRICT;

CREATE TABLE ref_names (
    name    TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    PRIMARY KEY (name, file_id)
) STRICT, WITHOUT ROWID;

-- Python: how many classes of a file have a data attribute of that name
-- (resolving a member of a receiver of unknown type weighs them against
-- the methods of that name, without reading every file's scope).
CREATE TABLE class_attrs (
    name    TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (name, file_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE diagnostics (
    file_id INTEGER NOT NULL,
    line    INTEGER NOT NULL,
    col     INTEGER NOT NULL,
    message TEXT NOT NULL
) STRICT;

CREATE TABLE skipped (
    path    TEXT PRIMARY KEY,
    reason  TEXT NOT NULL,
    detail  TEXT NOT NULL
) STRICT;

-- What a language server answered for a reference site, with the hashes
-- of both files: re-applied whenever the site's file is re-resolved, and
-- ignored once either file changes. `outcome`: 'target' (one row per
-- location), 'external' (outside the repository), 'none' (no answer).
CREATE TABLE verdicts (
    site_path   TEXT NOT NULL,
    line        INTEGER NOT NULL,
    col         INTEGER NOT NULL,
    site_hash   TEXT NOT NULL,
    server      TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    target_path TEXT,
    target_hash TEXT,
    target_line INTEGER,
    target_col  INTEGER,
    checked_at  INTEGER NOT NULL
) STRICT;

-- References a language server found that the static graph missed.
CREATE TABLE discovered (
    site_path   TEXT NOT NULL,
    line        INTEGER NOT NULL,
    col         INTEGER NOT NULL,
    site_hash   TEXT NOT NULL,
    server      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    target_path TEXT NOT NULL,
    target_hash TEXT NOT NULL,
    target_line INTEGER NOT NULL,
    target_col  INTEGER NOT NULL,
    checked_at  INTEGER NOT NULL
) STRICT;

CREATE VIRTUAL TABLE nodes_fts USING fts5(
    name, key, content = 'nodes', content_rowid = 'id',
    tokenize = \"unicode61 tokenchars '_'\"
);
";

/// The nodes whose name is not the last segment of their key, or holds a
/// separator: `nodes_odd` indexes them for `Store::nodes_exact`, whose
/// query must repeat this condition for SQLite to use the index.
macro_rules! odd_nodes {
    () => {
        "kind = 'module' OR name GLOB '*[.:]*'"
    };
}
pub(crate) use odd_nodes;

/// Indexes a bulk load of an empty graph drops (see `Store::begin_bulk`)
/// and builds once, in two parts; the others are in [`INDEXES`]. First those
/// over what extraction writes, built while the workers resolve.
pub const BULK_FACT_INDEXES: &str = concat!(
    "
CREATE INDEX IF NOT EXISTS nodes_file ON nodes(file_id);
CREATE INDEX IF NOT EXISTS nodes_key ON nodes(key);
CREATE INDEX IF NOT EXISTS nodes_name ON nodes(name);
CREATE INDEX IF NOT EXISTS nodes_odd ON nodes(key) WHERE ",
    odd_nodes!(),
    ";
CREATE INDEX IF NOT EXISTS ref_names_file ON ref_names(file_id);
CREATE INDEX IF NOT EXISTS class_attrs_file ON class_attrs(file_id);
CREATE INDEX IF NOT EXISTS diagnostics_file ON diagnostics(file_id);
"
);

/// Then those over the edges, once every file is resolved.
pub const BULK_EDGE_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS edges_src ON edges(src, kind);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst, kind);
";

/// Indexes that are always there (a bulk load's own writes need them).
pub const INDEXES: &str = "
CREATE INDEX IF NOT EXISTS files_pending ON files(id) WHERE resolved = 0;
CREATE INDEX IF NOT EXISTS edges_owner ON edges(owner);
-- The edges a language server decided, by target (`Store::lsp_owners_into`,
-- which must repeat the condition): few or none, where every edge into a
-- file is thousands.
CREATE INDEX IF NOT EXISTS edges_lsp ON edges(dst) WHERE source LIKE 'lsp:%';
CREATE INDEX IF NOT EXISTS unresolved_owner ON unresolved(owner);
CREATE INDEX IF NOT EXISTS verdicts_site ON verdicts(site_path, line, col);
CREATE INDEX IF NOT EXISTS discovered_site ON discovered(site_path);
";
