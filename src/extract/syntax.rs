//! Node kinds and fields by table lookup, for the grammar this thread walks.
//!
//! tree-sitter's `Node::kind` finds the kind's name, measures it (`strlen`)
//! and checks that it is UTF-8 on every call, and `child_by_field_name`
//! compares the name with each of the grammar's field names: on a cold index
//! the two were 7–12% of all instructions (callgrind: Django's `db` package,
//! effect, tokio). Here a kind is an index into the grammar's names and a
//! field a hash lookup of its id, answered the same way.
//!
//! Each extractor calls [`walking`] with its language before it looks at a
//! tree; a thread that has not falls back to tree-sitter's own lookups.

use std::cell::Cell;
use std::sync::LazyLock;

use tree_sitter::{Language, Node};

use super::Lang;

/// One grammar's kind names by id and field ids by name.
pub struct Grammar {
    kinds: Box<[&'static str]>,
    fields: foldhash::HashMap<&'static str, u16>,
}

impl Grammar {
    fn new(language: &'static Language) -> Grammar {
        // Alias symbols are counted with the others (`node_kind_count`).
        let kinds = (0..language.node_kind_count())
            .map(|id| language.node_kind_for_id(id as u16).unwrap_or(""))
            .collect();
        let fields = (1..=language.field_count() as u16)
            .filter_map(|id| language.field_name_for_id(id).map(|name| (name, id)))
            .collect();
        Grammar { kinds, fields }
    }

    fn kind<'t>(&self, node: &Node<'t>) -> &'t str {
        match self.kinds.get(node.kind_id() as usize) {
            Some(kind) => kind,
            // `ERROR` and the internal error-repeat symbol have ids past the
            // table (u16::MAX and one below).
            None => node.kind(),
        }
    }
}

static LANGUAGES: LazyLock<[Language; 5]> = LazyLock::new(|| Lang::ALL.map(super::grammar));
static GRAMMARS: LazyLock<[Grammar; 5]> =
    LazyLock::new(|| std::array::from_fn(|i| Grammar::new(&LANGUAGES[i])));

thread_local! {
    static CURRENT: Cell<Option<&'static Grammar>> = const { Cell::new(None) };
}

/// From now on this thread walks trees of `lang`'s grammar.
pub fn walking(lang: Lang) {
    let i = Lang::ALL
        .iter()
        .position(|l| *l == lang)
        .expect("every language is in Lang::ALL");
    CURRENT.with(|c| c.set(Some(&GRAMMARS[i])));
}

/// The current grammar's tables, checked against the node's own grammar in
/// debug builds (a wrong table would misname every node).
fn current(node: &Node) -> Option<&'static Grammar> {
    let g = CURRENT.with(Cell::get)?;
    debug_assert!(
        node.language().node_kind_count() == g.kinds.len()
            && node.language().field_count() == g.fields.len(),
        "syntax::walking was told another grammar than the tree's"
    );
    Some(g)
}

/// `kind` and `child_by_field_name` through the current grammar's tables.
pub trait Syntax<'t> {
    /// The node's kind, as `Node::kind` names it.
    fn kind_name(&self) -> &'t str;
    /// The child in the field, as `Node::child_by_field_name` finds it.
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> Syntax<'t> for Node<'t> {
    #[inline]
    fn kind_name(&self) -> &'t str {
        match current(self) {
            Some(g) => g.kind(self),
            None => self.kind(),
        }
    }

    #[inline]
    fn field(&self, name: &str) -> Option<Node<'t>> {
        match current(self) {
            Some(g) => g
                .fields
                .get(name)
                .and_then(|id| self.child_by_field_id(*id)),
            None => self.child_by_field_name(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node of a real file is named and every field found as
    /// tree-sitter's own lookups name and find them, in each grammar.
    #[test]
    fn tables_answer_as_tree_sitter_does() {
        let samples: [(Lang, &str); 5] = [
            (Lang::Python, "class A(B):\n    def f(self, x: int) -> C:\n        return x.y(1, *z)\n"),
            (Lang::TypeScript, "export class A<in out T> extends B implements C { m(x: T): void { this.f(x) } }\nconst q = <T,>(a: T) => a;\n"),
            (Lang::Tsx, "export function F({ a }: P) { return <div onClick={a}>{a.b}</div> }\n"),
            (Lang::JavaScript, "import x from './x'; function f(a) { return a?.b ?? x(1) }\n$$$ %%% )\n"),
            (Lang::Rust, "use a::{b as c, *};\nimpl<T: X> Tr for S<T> where T: Y { fn f(&self) -> u8 { self.g::<T>(1)? } }\nfn broken( {\n"),
        ];
        for (lang, src) in samples {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&crate::extract::grammar(lang)).unwrap();
            let tree = parser.parse(src, None).unwrap();
            walking(lang);
            let language = crate::extract::grammar(lang);
            let mut nodes = vec![tree.root_node()];
            let mut seen_error = false;
            while let Some(n) = nodes.pop() {
                assert_eq!(n.kind_name(), n.kind(), "{lang:?} kind at {:?}", n.range());
                seen_error |= n.is_error();
                for id in 1..=language.field_count() as u16 {
                    let name = language.field_name_for_id(id).unwrap();
                    assert_eq!(
                        n.field(name),
                        n.child_by_field_name(name),
                        "{lang:?} field {name}"
                    );
                }
                let mut cur = n.walk();
                nodes.extend(n.children(&mut cur));
            }
            if matches!(lang, Lang::JavaScript | Lang::Rust) {
                assert!(
                    seen_error,
                    "{lang:?}: the sample has a syntax error to name"
                );
            }
        }
        CURRENT.with(|c| c.set(None));
    }
}
