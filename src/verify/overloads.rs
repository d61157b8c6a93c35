//! Overloads: a server answers a call of an overloaded function with the
//! signature the call matches; the graph has one node for the whole set,
//! named at the first signature and spanning to the last declaration
//! (`extract::typescript`). An answer on another signature of the set names
//! that node.

use std::collections::HashMap;

use crate::graph::{NodeKind, Pos};
use crate::store::{NodeRow, Store};

/// The name position of the overload set whose other signature stands at
/// `at`, from the graph's facts: a function or method node of the file with
/// the same name whose span (`start_line..=end_line`) holds `at`, declared
/// in the same form (the words before the name: `export function`,
/// `public static`, … — TypeScript requires them alike across a set, so a
/// local `const f` inside `f`'s body is no signature of it). `None` when a
/// node is named at `at` itself, or no set holds it.
pub fn overload_node(nodes: &[NodeRow], lines: &[String], at: Pos) -> Option<Pos> {
    let pos = |n: &NodeRow| Pos {
        line: n.line,
        column: n.column,
    };
    if nodes.iter().any(|n| pos(n) == at) {
        return None;
    }
    let mut sets = nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Function | NodeKind::Method))
        .filter(|n| (n.start_line..=n.end_line).contains(&at.line))
        .peekable();
    sets.peek()?;
    let name = ident_at(lines, at)?;
    let form = declaration_form(lines, at)?;
    sets.filter(|n| n.name == name)
        .filter(|n| declaration_form(lines, pos(n)).as_deref() == Some(form.as_str()))
        .min_by_key(|n| (n.end_line - n.start_line, n.line))
        .map(pos)
}

/// The identifier starting at `at` (1-based line, UTF-8 byte column).
fn ident_at(lines: &[String], at: Pos) -> Option<&str> {
    ident_in(lines.get(at.line.checked_sub(1)? as usize)?, at.column)
}

/// The identifier starting at 1-based UTF-8 byte `column` of `line`.
pub(super) fn ident_in(line: &str, column: u32) -> Option<&str> {
    let rest = line.get(column.checked_sub(1)? as usize..)?;
    let len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
        .map_or(rest.len(), |(i, _)| i);
    (len > 0).then(|| &rest[..len])
}

/// The words before the name at `at` on its line, without `async` (an
/// implementation may be `async`, its signatures cannot).
fn declaration_form(lines: &[String], at: Pos) -> Option<String> {
    let line = lines.get(at.line.checked_sub(1)? as usize)?;
    let before = line.get(..at.column.checked_sub(1)? as usize)?;
    Some(
        before
            .split_whitespace()
            .filter(|w| *w != "async")
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// [`overload_node`] over the files a run's answers land in, each file's
/// nodes and text read once.
pub struct Overloads<'a> {
    root: &'a std::path::Path,
    /// Each file's nodes and lines.
    files: HashMap<String, (Vec<NodeRow>, Vec<String>)>,
}

impl<'a> Overloads<'a> {
    pub fn new(root: &'a std::path::Path) -> Overloads<'a> {
        Overloads {
            root,
            files: HashMap::new(),
        }
    }

    /// The node an answer at `at` in the repository-relative `path` names,
    /// when it is another signature of an overload set.
    pub fn node_at(&mut self, store: &Store, path: &str, at: Pos) -> Option<Pos> {
        if !self.files.contains_key(path) {
            let nodes = store.nodes_of_file(path).ok().flatten();
            let text = std::fs::read_to_string(self.root.join(path)).unwrap_or_default();
            let lines = text.lines().map(str::to_string).collect();
            self.files
                .insert(path.to_string(), (nodes.unwrap_or_default(), lines));
        }
        let (nodes, lines) = &self.files[path];
        overload_node(nodes, lines, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, kind: NodeKind, (line, column): (u32, u32), span: (u32, u32)) -> NodeRow {
        NodeRow {
            id: 0,
            key: name.into(),
            name: name.into(),
            kind,
            file: "a.ts".into(),
            line,
            column,
            start_line: span.0,
            end_line: span.1,
            exported: true,
        }
    }

    const TEXT: &str = "\
export function pick(x: string): string;
export function pick(x: number): number;
export function pick(x: any): any {
  const pick = x;
  return pick;
}
class C {
  get(a: string): string;
  get(a: number): number;
  async get(a: any): any {
    return a;
  }
}
";

    #[test]
    fn another_signature_names_the_overload_set() {
        let nodes = [
            node("pick", NodeKind::Function, (1, 17), (1, 6)),
            node("C", NodeKind::Class, (7, 7), (7, 13)),
            node("get", NodeKind::Method, (8, 3), (8, 12)),
        ];
        let at = |line, column| Pos { line, column };
        let lines: Vec<String> = TEXT.lines().map(str::to_string).collect();
        let lines = &lines[..];
        // The second signature and the implementation name the set.
        assert_eq!(overload_node(&nodes, lines, at(2, 17)), Some(at(1, 17)));
        assert_eq!(overload_node(&nodes, lines, at(3, 17)), Some(at(1, 17)));
        assert_eq!(overload_node(&nodes, lines, at(9, 3)), Some(at(8, 3)));
        assert_eq!(overload_node(&nodes, lines, at(10, 9)), Some(at(8, 3)));
        // The node's own position is the node; a local of the same name in
        // its body is no signature; another name is not the set.
        assert_eq!(overload_node(&nodes, lines, at(1, 17)), None);
        assert_eq!(overload_node(&nodes, lines, at(4, 9)), None);
        assert_eq!(overload_node(&nodes, lines, at(2, 8)), None);
        // Outside every span.
        assert_eq!(overload_node(&nodes[..1], lines, at(9, 3)), None);
    }
}
