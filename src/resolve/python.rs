//! python: scope and import rules → edges.

use super::{FileIdx, FileResolution, World};
use crate::extract::python::Refs;

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

/// `pkg/sub/mod.py` → `pkg.sub.mod`, rooted at the first directory upward
/// without an `__init__.py`.
pub fn module_key(path: &str, _layout: &super::Layout) -> String {
    let p = path.trim_end_matches(".pyi").trim_end_matches(".py");
    p.trim_end_matches("/__init__").replace('/', ".")
}
