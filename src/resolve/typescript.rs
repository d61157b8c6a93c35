//! typescript: scope and import rules → edges.

use super::{FileIdx, FileResolution, World};
use crate::extract::typescript::Refs;

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
