//! python: Tree-sitter → definitions, scope and reference sites.

use serde::{Deserialize, Serialize};

use super::{module_def, FileFacts, LangRefs, LangScope};

/// What other files' resolution may read from this file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Scope {}

/// Reference sites, read only when resolving this file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Refs {}

pub fn extract(path: &str, src: &[u8]) -> FileFacts {
    FileFacts {
        defs: vec![module_def(path, src)],
        diagnostics: Vec::new(),
        ref_names: Vec::new(),
        scope: LangScope::Python(Scope::default()),
        refs: LangRefs::Python(Refs::default()),
    }
}
