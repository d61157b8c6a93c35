//! rust: scope and import rules → edges.

use super::{FileIdx, FileResolution, World};
use crate::extract::rust::Refs;

/// Indexes built once per world.
pub struct Index {}

pub fn prepare(_world: &World) -> Index {
    Index {}
}

pub fn resolve_file(
    _world: &World,
    _index: &Index,
    _file: FileIdx,
    _refs: &Refs,
) -> FileResolution {
    FileResolution::default()
}

/// `src/a/b.rs` in crate `shop` → `shop::a::b`.
pub fn module_key(path: &str, _layout: &super::Layout) -> String {
    path.trim_end_matches(".rs").replace('/', "::")
}
