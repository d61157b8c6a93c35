//! Every indexed file's definitions and scope blobs, kept beside the
//! database in one file that is read in one go.
//!
//! An update of a few files in a large Rust or TypeScript tree reads every
//! other file's definitions and scope (the resolvers' world): row by row out
//! of SQLite that was some 30 ms of a 10-file update of rust-vendor (3,150
//! rows, 11 MB, on overflow pages); this file, mapped into memory, gives
//! them all in 1–3 ms.
//!
//! The file is only ever a copy of what the database holds. Each record
//! names the row it was written for (file id, path, language and content
//! hash) and ends with a checksum; a record that does not match its file's
//! row as the database has it now, or that is damaged, is not used, and
//! that row's blobs are read from the database instead. The header names
//! the schema and the refgraph version that wrote it: another one's file is
//! not read at all. Records are appended as files are written (the last
//! record of a file id is the one that counts); the file is written again
//! whole, from the database, when too much of it is missing or superseded.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::extract::Lang;

/// Where the records are kept, inside the database folder.
pub const FILE: &str = "scopes.bin";

const MAGIC: &[u8; 8] = b"RGSCOPE1";

/// What a record must be checked against: the row it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key<'a> {
    pub id: i64,
    pub path: &'a str,
    pub lang: Lang,
    pub hash: &'a str,
}

/// One file's blobs, as written to its `facts` row.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    pub key: Key<'a>,
    pub defs: &'a [u8],
    pub scope: &'a [u8],
}

impl<'a> Record<'a> {
    /// The blobs of row `id` (at `path`, in `lang`, of content `hash`).
    pub fn new(
        id: i64,
        path: &'a str,
        lang: Lang,
        hash: &'a str,
        defs: &'a [u8],
        scope: &'a [u8],
    ) -> Self {
        Record {
            key: Key {
                id,
                path,
                lang,
                hash,
            },
            defs,
            scope,
        }
    }
}

/// The schema and the build that wrote the file: records are the
/// extractor's output, which changes with either.
fn tag() -> String {
    format!(
        "schema {} refgraph {}",
        crate::store::schema::SCHEMA_VERSION,
        env!("CARGO_PKG_VERSION")
    )
}

fn header() -> Vec<u8> {
    let tag = tag();
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + tag.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(tag.len() as u32).to_le_bytes());
    out.extend_from_slice(tag.as_bytes());
    out
}

/// A checksum that is the same in every process (the tables' hashers are
/// seeded per process).
fn checksum(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    // "scopes", as a seed.
    foldhash::fast::FixedState::with_seed(0x7363_6f70_6573).hash_one(bytes)
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Appends `r` to `out`: its body's length, the body, the body's checksum.
fn encode(out: &mut Vec<u8>, r: &Record) {
    let start = out.len();
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&r.key.id.to_le_bytes());
    put(out, r.key.lang.as_str().as_bytes());
    put(out, r.key.path.as_bytes());
    put(out, r.key.hash.as_bytes());
    put(out, r.defs);
    put(out, r.scope);
    let body = start + 4;
    let len = (out.len() - body) as u32;
    out[start..body].copy_from_slice(&len.to_le_bytes());
    let check = checksum(&out[body..]);
    out.extend_from_slice(&check.to_le_bytes());
}

/// Reads the byte strings of a record body in order.
struct Fields<'a> {
    bytes: &'a [u8],
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// A record's fields, from its (checked) body.
fn decode(body: &[u8]) -> Option<Record<'_>> {
    let mut f = Fields { bytes: body };
    let id = f.i64()?;
    let lang = Lang::parse(std::str::from_utf8(f.bytes()?).ok()?)?;
    let path = std::str::from_utf8(f.bytes()?).ok()?;
    let hash = std::str::from_utf8(f.bytes()?).ok()?;
    let defs = f.bytes()?;
    let scope = f.bytes()?;
    f.bytes
        .is_empty()
        .then_some(Record::new(id, path, lang, hash, defs, scope))
}

/// The file's bytes: mapped into memory where that is possible (the
/// records are read where the page cache has them, not copied first).
///
/// A mapped file must not shrink while mapped. Only refgraph writes it,
/// under the writer lock: appends only add to its end, and it is replaced
/// by renaming a new file over it, never cut in place.
enum Bytes {
    #[cfg(unix)]
    Mapped {
        ptr: std::ptr::NonNull<u8>,
        len: usize,
    },
    Read(Vec<u8>),
}

// SAFETY: the mapping is read-only and owned by this value alone.
unsafe impl Send for Bytes {}
// SAFETY: as above; nothing writes through the pointer.
unsafe impl Sync for Bytes {}

impl Bytes {
    #[cfg(unix)]
    fn read(path: &Path) -> std::io::Result<Bytes> {
        use rustix::mm::{mmap, MapFlags, ProtFlags};
        let file = std::fs::File::open(path)?;
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        if len == 0 {
            return Ok(Bytes::Read(Vec::new()));
        }
        // SAFETY: a fresh private read-only mapping of a whole file that
        // is not cut while mapped (see the type's comment); it stays valid
        // after `file` is closed, until `Drop` unmaps it.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ,
                MapFlags::PRIVATE,
                &file,
                0,
            )
        }?;
        let ptr = std::ptr::NonNull::new(ptr.cast::<u8>())
            .ok_or_else(|| std::io::Error::other("mmap gave a null pointer"))?;
        Ok(Bytes::Mapped { ptr, len })
    }

    #[cfg(not(unix))]
    fn read(path: &Path) -> std::io::Result<Bytes> {
        std::fs::read(path).map(Bytes::Read)
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            // SAFETY: `len` bytes mapped readable at `ptr` until dropped.
            #[cfg(unix)]
            Bytes::Mapped { ptr, len } => unsafe { std::slice::from_raw_parts(ptr.as_ptr(), *len) },
            Bytes::Read(v) => v,
        }
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Bytes::Mapped { ptr, len } = self {
            // SAFETY: the mapping `read` made; nothing borrows it any more.
            let _ = unsafe { rustix::mm::munmap(ptr.as_ptr().cast(), *len) };
        }
    }
}

impl AsRef<[u8]> for ScopeCache {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

/// The file as read: the last intact record of each file id.
pub struct ScopeCache {
    buf: Bytes,
    /// File id → the body of its last record in `buf`.
    latest: HashMap<i64, std::ops::Range<usize>>,
    /// Bytes of records a later one of the same file id supersedes.
    superseded: usize,
}

impl ScopeCache {
    /// The file in `dir`, or `None` when there is none, it cannot be read
    /// or another schema or build wrote it. Reading stops at a record cut
    /// short (a write that did not finish): the records after it are lost,
    /// not misread. Checksums are checked by [`ScopeCache::get`], for the
    /// records used.
    pub fn read(dir: &Path) -> Option<ScopeCache> {
        let buf = Bytes::read(&path(dir)).ok()?;
        let head = header();
        if !buf.starts_with(&head) {
            return None;
        }
        let mut latest: HashMap<i64, std::ops::Range<usize>> = HashMap::new();
        let mut superseded = 0;
        let mut at = head.len();
        while let Some(len) = buf
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
        {
            // The body, then its checksum (checked when the record is used:
            // a record cut short ends the read here; a damaged length makes
            // what follows fail its checksums).
            let body = at + 4..at + 4 + len;
            let Some(id) = buf
                .get(body.end..body.end + 8)
                .and_then(|_| buf.get(body.start..body.start + 8))
                .filter(|_| len >= 8)
                .map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
            else {
                break;
            };
            if let Some(old) = latest.insert(id, body.clone()) {
                superseded += old.len() + 12;
            }
            at = body.end + 8;
        }
        Some(ScopeCache {
            buf,
            latest,
            superseded,
        })
    }

    /// The definitions and scope blobs of the file `key` names, if the
    /// last record of its id was written for that row (same path, language
    /// and content hash).
    pub fn get(&self, key: Key) -> Option<(&[u8], &[u8])> {
        let (d, s) = self.locate(key)?;
        Some((&self.buf[d], &self.buf[s]))
    }

    /// Where in the file's bytes ([`AsRef`]) [`ScopeCache::get`]'s blobs
    /// are: for holders of the cache that outlive a borrow of it.
    pub fn locate(&self, key: Key) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let range = self.latest.get(&key.id)?.clone();
        let check = &self.buf[range.end..range.end + 8];
        let body = &self.buf[range.clone()];
        let r = decode(body)?;
        if r.key != key || checksum(body).to_le_bytes() != check {
            return None;
        }
        // The blobs are parts of `body`: their offsets in it, then in `buf`.
        let at = |part: &[u8]| {
            let start = range.start + (part.as_ptr() as usize - body.as_ptr() as usize);
            start..start + part.len()
        };
        Some((at(r.defs), at(r.scope)))
    }

    /// Whether the file is worth writing again whole: most of it is
    /// records superseded or of files that have no row any more (`is_row`
    /// says which ids have one), or many of the rows asked for had none.
    pub fn stale(&self, is_row: impl Fn(i64) -> bool, asked: usize, missing: usize) -> bool {
        let gone: usize = self
            .latest
            .iter()
            .filter(|(id, _)| !is_row(**id))
            .map(|(_, body)| body.len() + 12)
            .sum();
        let garbage = self.superseded + gone;
        (garbage > (1 << 20) && garbage > self.buf.len() / 2) || too_many_missing(asked, missing)
    }
}

/// Whether `missing` of `asked` rows without a record call for writing the
/// file again (a new build, a deleted file, writes that failed).
pub fn too_many_missing(asked: usize, missing: usize) -> bool {
    missing > 32 && missing * 8 > asked
}

fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// Appends `records` to the file in `dir`, starting it (or starting it
/// again, if another schema or build wrote it) when needed. The caller
/// holds the writer lock: one process writes at a time.
pub fn append(dir: &Path, records: &[Record]) -> std::io::Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let head = header();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .append(true)
        .open(path(dir));
    let ours = match file {
        Ok(mut file) => {
            let mut found = vec![0; head.len()];
            (file.read_exact(&mut found).is_ok() && found == head).then_some(file)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let Some(mut file) = ours else {
        // None yet, or another build's: a new file (renamed over the old
        // one, which a reader may have mapped).
        let mut image = Image::default();
        for r in records {
            image.push(r);
        }
        return image.write(dir);
    };
    let mut out = Vec::new();
    for r in records {
        encode(&mut out, r);
    }
    file.write_all(&out)
}

/// The file written again whole: [`Image::push`] each record, then
/// [`Image::write`].
pub struct Image {
    out: Vec<u8>,
}

impl Default for Image {
    fn default() -> Self {
        Image { out: header() }
    }
}

impl Image {
    pub fn push(&mut self, r: &Record) {
        encode(&mut self.out, r);
    }

    /// Replaces the file in `dir` (written beside it, then renamed over it:
    /// a reader has the old file or the new one).
    pub fn write(self, dir: &Path) -> std::io::Result<()> {
        let tmp = dir.join(format!("{FILE}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, &self.out)?;
        std::fs::rename(&tmp, path(dir)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

/// Removes the file in `dir` (a new database, or a write that failed and
/// may have left it behind the database).
pub fn remove(dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path(dir)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key<'a>(id: i64, path: &'a str, hash: &'a str) -> Key<'a> {
        Key {
            id,
            path,
            lang: Lang::Rust,
            hash,
        }
    }

    fn rec<'a>(k: Key<'a>, defs: &'a [u8], scope: &'a [u8]) -> Record<'a> {
        Record {
            key: k,
            defs,
            scope,
        }
    }

    #[test]
    fn records_are_found_only_for_the_row_they_were_written_for() {
        let dir = tempfile::tempdir().unwrap();
        let a = key(1, "src/a.rs", "h1");
        let b = key(2, "src/b.rs", "h2");
        append(dir.path(), &[rec(a, b"da", b"sa"), rec(b, b"db", b"sb")]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert_eq!(c.get(a), Some((&b"da"[..], &b"sa"[..])));
        assert_eq!(c.get(b), Some((&b"db"[..], &b"sb"[..])));
        // Located, the blobs are where `get` found them in the file's bytes.
        let (d, s) = c.locate(b).unwrap();
        assert_eq!((&c.as_ref()[d], &c.as_ref()[s]), (&b"db"[..], &b"sb"[..]));
        assert_eq!(c.locate(key(2, "src/b.rs", "h9")), None);
        // Another content, path, language or id: not this record's row.
        assert_eq!(c.get(key(1, "src/a.rs", "h9")), None);
        assert_eq!(c.get(key(1, "src/z.rs", "h1")), None);
        assert_eq!(
            c.get(Key {
                lang: Lang::Python,
                ..a
            }),
            None
        );
        assert_eq!(c.get(key(3, "src/a.rs", "h1")), None);
    }

    #[test]
    fn the_last_record_of_a_file_counts() {
        let dir = tempfile::tempdir().unwrap();
        let old = key(1, "src/a.rs", "h1");
        let new = key(1, "src/a.rs", "h2");
        append(dir.path(), &[rec(old, b"d1", b"s1")]).unwrap();
        append(dir.path(), &[rec(new, b"d2", b"s2")]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert_eq!(c.get(new), Some((&b"d2"[..], &b"s2"[..])));
        // The row as it was before is not answered from the older record.
        assert_eq!(c.get(old), None);
        assert!(c.superseded > 0);
    }

    #[test]
    fn a_cut_or_damaged_record_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let a = key(1, "src/a.rs", "h1");
        let b = key(2, "src/b.rs", "h2");
        append(dir.path(), &[rec(a, b"da", b"sa"), rec(b, b"db", b"sb")]).unwrap();
        let full = std::fs::read(path(dir.path())).unwrap();
        // Cut inside the second record.
        std::fs::write(path(dir.path()), &full[..full.len() - 3]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert!(c.get(a).is_some());
        assert_eq!(c.get(b), None);
        // A flipped byte in the first record's blobs: its checksum fails,
        // the next record stands.
        let mut bad = full.clone();
        let at = bad.windows(2).position(|w| w == b"da").unwrap();
        bad[at] = b'x';
        std::fs::write(path(dir.path()), &bad).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert_eq!(c.get(a), None);
        assert!(c.get(b).is_some());
        // A damaged length: what it points at fails its checksum.
        let mut bad = full.clone();
        let second = bad
            .windows(8)
            .position(|w| w == 2i64.to_le_bytes())
            .unwrap()
            - 4;
        bad[second] ^= 0x01;
        std::fs::write(path(dir.path()), &bad).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert!(c.get(a).is_some());
        assert_eq!(c.get(b), None);
        // Appending after a damaged tail starts nothing new: the damaged
        // record still ends the read, so no record after it is misread.
        std::fs::write(path(dir.path()), &full[..full.len() - 3]).unwrap();
        append(dir.path(), &[rec(key(3, "src/c.rs", "h3"), b"dc", b"sc")]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert!(c.get(a).is_some());
        assert_eq!(c.get(key(3, "src/c.rs", "h3")), None);
    }

    #[test]
    fn another_build_s_file_is_not_read_and_is_started_again() {
        let dir = tempfile::tempdir().unwrap();
        let a = key(1, "src/a.rs", "h1");
        let mut other = b"RGSCOPE1".to_vec();
        other.extend_from_slice(&9u32.to_le_bytes());
        other.extend_from_slice(b"schema 0 ");
        std::fs::write(path(dir.path()), &other).unwrap();
        assert!(ScopeCache::read(dir.path()).is_none());
        append(dir.path(), &[rec(a, b"da", b"sa")]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert!(c.get(a).is_some());
    }

    #[test]
    fn mostly_garbage_or_mostly_missing_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![7u8; 1 << 20];
        let a = key(1, "src/a.rs", "h1");
        let b = key(2, "src/b.rs", "h2");
        append(dir.path(), &[rec(a, &big, b"sa"), rec(b, b"db", b"sb")]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        // Both files have rows, every row asked for was found.
        assert!(!c.stale(|_| true, 2, 0));
        // a.rs (most of the file) has no row any more.
        assert!(c.stale(|id| id != 1, 1, 0));
        // a.rs superseded by a small record.
        append(dir.path(), &[rec(key(1, "src/a.rs", "h3"), b"d", b"s")]).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert!(c.stale(|_| true, 2, 0));
        // Many rows without a record.
        assert!(!too_many_missing(1000, 32));
        assert!(too_many_missing(1000, 200));
        assert!(!too_many_missing(10_000, 200));
    }

    #[test]
    fn a_rewrite_keeps_only_what_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let a = key(1, "src/a.rs", "h1");
        let b = key(2, "src/b.rs", "h2");
        append(dir.path(), &[rec(a, b"da", b"sa"), rec(b, b"db", b"sb")]).unwrap();
        let mut image = Image::default();
        image.push(&rec(b, b"db", b"sb"));
        image.write(dir.path()).unwrap();
        let c = ScopeCache::read(dir.path()).unwrap();
        assert_eq!(c.get(a), None);
        assert!(c.get(b).is_some());
        assert_eq!(c.superseded, 0);
        remove(dir.path()).unwrap();
        assert!(ScopeCache::read(dir.path()).is_none());
        remove(dir.path()).unwrap();
    }
}
