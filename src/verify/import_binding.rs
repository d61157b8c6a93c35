//! Import bindings the server stopped at: when tsserver cannot resolve a
//! module (`import { render } from 'preact'` in preact's own `compat/`,
//! whose `preact` is a peer dependency not installed beside it), its
//! definition of `render` is the import binding itself, and asking again
//! there gives the binding again. That answer says nothing about where
//! `render` is defined: it neither confirms nor refutes the graph's edge.

use std::collections::HashMap;
use std::path::Path;

use crate::extract::{Family, Lang};
use crate::graph::Pos;

fn parse(lang: Lang, text: &str) -> Option<tree_sitter::Tree> {
    if lang.family() != Family::Script {
        return None;
    }
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&crate::extract::grammar(lang)).ok()?;
    parser.parse(text, None)
}

/// Whether the identifier at `at` (1-based line, byte column) in `text`
/// (parsed as `tree`) names what an import brings: a binding of `import …
/// from`, of `import x = require(…)`, or of a `const … = require(…)`
/// declaration.
fn binding_at(tree: &tree_sitter::Tree, text: &str, at: Pos) -> bool {
    let point = tree_sitter::Point {
        row: at.line.saturating_sub(1) as usize,
        column: at.column.saturating_sub(1) as usize,
    };
    let Some(mut node) = tree
        .root_node()
        .named_descendant_for_point_range(point, point)
    else {
        return false;
    };
    if !node.kind().contains("identifier") || node.start_position() != point {
        return false;
    }
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "import_specifier"
            | "import_clause"
            | "namespace_import"
            | "import_statement"
            | "import_require_clause" => return true,
            "variable_declarator" => {
                // The binding is in the declared name, not in the value.
                let in_name = parent
                    .child_by_field_name("name")
                    .is_some_and(|n| n.byte_range().contains(&node.start_byte()));
                return in_name
                    && parent
                        .child_by_field_name("value")
                        .is_some_and(|v| is_require(v, text));
            }
            k if k.ends_with("statement") || k.ends_with("declaration") || k == "program" => {
                return false;
            }
            _ => node = parent,
        }
    }
    false
}

/// `require('…')`, also behind `await` or a member access
/// (`require('./x').y`).
fn is_require(mut value: tree_sitter::Node, text: &str) -> bool {
    loop {
        match value.kind() {
            "await_expression" | "parenthesized_expression" => match value.named_child(0) {
                Some(c) => value = c,
                None => return false,
            },
            "member_expression" => match value.child_by_field_name("object") {
                Some(o) => value = o,
                None => return false,
            },
            "call_expression" => {
                return value
                    .child_by_field_name("function")
                    .is_some_and(|f| f.utf8_text(text.as_bytes()) == Ok("require"));
            }
            _ => return false,
        }
    }
}

/// The script files answers land in, each read and parsed once.
pub struct ImportBindings<'a> {
    root: &'a Path,
    files: HashMap<String, Option<(String, tree_sitter::Tree)>>,
}

impl<'a> ImportBindings<'a> {
    pub fn new(root: &'a Path) -> ImportBindings<'a> {
        ImportBindings {
            root,
            files: HashMap::new(),
        }
    }

    /// Whether `at` in the script file `path` (relative to the root) is an
    /// import binding (see [`binding_at`]).
    pub fn at(&mut self, path: &str, at: Pos) -> bool {
        let Some(lang) = Lang::of_path(path).filter(|l| l.family() == Family::Script) else {
            return false;
        };
        let root = self.root;
        let file = self.files.entry(path.to_string()).or_insert_with(|| {
            let text = std::fs::read_to_string(root.join(path)).ok()?;
            let tree = parse(lang, &text)?;
            Some((text, tree))
        });
        file.as_ref()
            .is_some_and(|(text, tree)| binding_at(tree, text, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_import_binding(lang: Lang, text: &str, at: Pos) -> bool {
        parse(lang, text).is_some_and(|tree| binding_at(&tree, text, at))
    }

    fn pos(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }

    #[test]
    fn import_bindings_are_told_from_declarations() {
        let js = "import { render, h as hh } from 'preact';\n\
                  import D, * as NS from 'x';\n\
                  const { a, b: bb } = require('./m');\n\
                  const c = require('./m').c;\n\
                  const local = make();\n\
                  function f(render) { return render; }\n";
        let at = |line, column| is_import_binding(Lang::JavaScript, js, pos(line, column));
        assert!(at(1, 10), "render");
        assert!(at(1, 23), "hh (the local name of an aliased import)");
        assert!(at(2, 8), "a default import");
        assert!(at(2, 16), "a namespace import");
        assert!(at(3, 9), "a destructured require");
        assert!(at(3, 15), "a renamed destructured require");
        assert!(at(4, 7), "a member of a require");
        assert!(!at(5, 7), "a declaration from a call");
        assert!(!at(6, 12), "a parameter");
        assert!(!at(6, 29), "a use, not a binding");
        let ts = "import type { A } from 'a';\nimport fs = require('fs');\ninterface B { x: A }\n";
        let at = |line, column| is_import_binding(Lang::TypeScript, ts, pos(line, column));
        assert!(at(1, 15));
        assert!(at(2, 8));
        assert!(!at(3, 11));
        assert!(!is_import_binding(
            Lang::Python,
            "from a import b\n",
            pos(1, 15)
        ));
    }
}
