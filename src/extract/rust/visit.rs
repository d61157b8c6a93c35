//! The one tree walk of a Rust file: definitions, scope facts and sites.

use tree_sitter::Node;

use super::FxHashMap as HashMap;
use super::{
    Alias, Field, Impl, InlineMod, Item, Recv, Refs, Ret, Role, Scope, Sig, Site, SiteKind, Super,
    Ty, Use, NONE, UNKNOWN_ARGS,
};
use crate::extract::Def;
use crate::graph::{NodeKind, Pos};

/// Attribute names (last path segment) that make a function a test.
const TEST_ATTRS: [&str; 4] = ["test", "rstest", "test_case", "quickcheck"];

/// Std traits that say little about which methods a generic type has: a
/// bound list's first other trait is used for method calls.
const STD_TRAITS: [&str; 28] = [
    "AsMut",
    "AsRef",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Deserialize",
    "Display",
    "Eq",
    "Error",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Future",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Send",
    "Serialize",
    "Sized",
    "Sync",
    "ToString",
    "Unpin",
];

/// Iterator/collection methods whose closure argument takes an element.
const ELEM_CLOSURE_METHODS: [&str; 21] = [
    "all",
    "any",
    "filter",
    "filter_map",
    "find",
    "find_map",
    "flat_map",
    "for_each",
    "inspect",
    "map",
    "max_by_key",
    "min_by_key",
    "partition",
    "position",
    "retain",
    "skip_while",
    "sort_by_key",
    "sort_unstable_by_key",
    "take_while",
    "try_for_each",
    "map_while",
];

/// Deeper expressions are skipped (a stack overflow would kill the indexer).
const MAX_NESTING: u32 = 256;

/// The associated-item context of the walk.
#[derive(Clone)]
enum Assoc {
    /// In `impl` number `.0`, whose self type is named `.1`.
    Impl(u32, String, bool),
    /// In the body of trait def `.0`, named `.1`.
    Trait(u32, String),
}

struct V<'s> {
    src: &'s [u8],
    defs: Vec<Def>,
    scope: Scope,
    refs: Refs,
    intern: HashMap<Box<str>, u32>,
    module: u32,
    prefix: String,
    /// Innermost def enclosing the walk (for sites).
    cur: u32,
    /// Innermost function def (0: none).
    cur_fn: u32,
    assoc: Option<Assoc>,
    /// Local variables of the function being walked → receiver id.
    locals: Vec<HashMap<u32, u32>>,
    /// Generic parameters in scope with their first trait bound.
    generics: Vec<(u32, Option<Vec<u32>>)>,
    /// The path `Self` stands for.
    self_path: Option<Vec<u32>>,
    /// `Self` is a trait's type parameter (not a reference to the trait).
    self_is_trait: bool,
    classes: HashMap<String, u32>,
    /// Leading segments of the last path that name the self type of a
    /// qualified path `<T as Trait>::f` (their site is recorded by the type).
    qhidden: u8,
    /// Nesting of [`V::node`] calls.
    depth: u32,
    /// Attributes right before the item being walked: (first line, is a
    /// test, `#[macro_export]`, under a cfg that is likely off).
    attrs: Option<(u32, bool, bool, bool)>,
    /// The cfg flag of the last [`V::attrs`] call, for the def it makes.
    cfg_off: bool,
    /// Inside an `impl` or inline `mod` whose cfg is likely off.
    block_off: bool,
    /// Methods whose parent is the class named by the string, if in this file.
    pending_parents: Vec<(u32, String)>,
}

pub(super) fn run(module: Def, src: &[u8], root: Node) -> (Vec<Def>, Scope, Refs) {
    let mut v = V {
        src,
        defs: vec![module],
        scope: Scope::default(),
        refs: Refs {
            sites: Vec::new(),
            recvs: vec![Recv::Unknown, Recv::SelfValue],
        },
        intern: HashMap::default(),
        module: 0,
        prefix: String::new(),
        cur: 0,
        cur_fn: 0,
        assoc: None,
        locals: Vec::new(),
        generics: Vec::new(),
        self_path: None,
        self_is_trait: false,
        classes: HashMap::default(),
        qhidden: 0,
        depth: 0,
        attrs: None,
        cfg_off: false,
        block_off: false,
        pending_parents: Vec::new(),
    };
    v.children(root);
    for (def, owner) in std::mem::take(&mut v.pending_parents) {
        if let Some(&c) = v.classes.get(&owner) {
            v.defs[def as usize].parent = Some(c);
        }
    }
    (v.defs, v.scope, v.refs)
}

fn pos(n: Node) -> Pos {
    Pos::from_ts(n.start_position())
}

fn line(row: usize) -> u32 {
    row as u32 + 1
}

fn starts_upper(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_uppercase())
}

fn is_type_kind(kind: &str) -> bool {
    matches!(
        kind,
        "type_identifier"
            | "scoped_type_identifier"
            | "generic_type"
            | "reference_type"
            | "pointer_type"
            | "dynamic_type"
            | "abstract_type"
            | "bounded_type"
            | "tuple_type"
            | "array_type"
            | "function_type"
            | "primitive_type"
            | "unit_type"
            | "never_type"
            | "qualified_type"
            | "bracketed_type"
            | "higher_ranked_trait_bound"
            | "removed_trait_bound"
            | "type_arguments"
            | "trait_bounds"
    )
}

impl<'s> V<'s> {
    fn text(&self, n: Node) -> &'s str {
        std::str::from_utf8(&self.src[n.byte_range()]).unwrap_or("")
    }

    fn name(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.intern.get(s) {
            return i;
        }
        let i = self.scope.names.len() as u32;
        self.scope.names.push(s.to_string());
        self.intern.insert(s.into(), i);
        i
    }

    fn node_name(&mut self, n: Node) -> u32 {
        let t = self.text(n);
        self.name(t)
    }

    fn str_of(&self, name: u32) -> &str {
        &self.scope.names[name as usize]
    }

    fn recv(&mut self, r: Recv) -> u32 {
        match r {
            Recv::Unknown => 0,
            Recv::SelfValue => 1,
            r => {
                self.refs.recvs.push(r);
                self.refs.recvs.len() as u32 - 1
            }
        }
    }

    fn local(&self, name: u32) -> Option<u32> {
        self.locals.last().and_then(|m| m.get(&name).copied())
    }

    fn bind(&mut self, name: u32, r: u32) {
        if let Some(m) = self.locals.last_mut() {
            m.insert(name, r);
        }
    }

    fn generic(&self, name: u32) -> Option<&Option<Vec<u32>>> {
        self.generics
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b)
    }

    fn site(&mut self, kind: SiteKind) {
        self.refs.sites.push(Site {
            src: self.cur,
            module: self.module,
            kind,
        });
    }

    fn path_site(&mut self, segs: Vec<(u32, Pos)>, hidden: u8, role: Role) {
        if segs.len() > hidden as usize {
            self.site(SiteKind::Path { segs, role, hidden });
        }
    }

    /// The base for local names of items defined here.
    fn base(&self) -> String {
        if self.cur_fn != 0 {
            format!("{}::", self.defs[self.cur_fn as usize].local)
        } else {
            self.prefix.clone()
        }
    }

    fn children(&mut self, n: Node) {
        let mut cursor = n.walk();
        let kids: Vec<Node> = n.named_children(&mut cursor).collect();
        self.seq(kids);
    }

    /// Walk sibling nodes, handing each item the attributes before it.
    fn seq(&mut self, kids: Vec<Node>) {
        let mut pending: Option<(u32, bool, bool, bool)> = None;
        for c in kids {
            match c.kind() {
                "attribute_item" => {
                    let (test, export, off) = self.attr_flags(c);
                    let row = line(c.start_position().row);
                    let p = pending.get_or_insert((row, false, false, false));
                    p.1 |= test;
                    p.2 |= export;
                    p.3 |= off;
                }
                "line_comment" | "block_comment" => {}
                _ if c.is_error() => pending = None,
                _ => {
                    self.attrs = pending.take();
                    self.node(c);
                    self.attrs = None;
                }
            }
        }
    }

    /// (is a test attribute, is `#[macro_export]`, is a cfg likely off)
    fn attr_flags(&self, item: Node) -> (bool, bool, bool) {
        let attr = item.named_child(0);
        let Some(path) = attr.and_then(|a| a.named_child(0)) else {
            return (false, false, false);
        };
        let last = match path.kind() {
            "scoped_identifier" => path.child_by_field_name("name"),
            _ => Some(path),
        };
        let last = last.map(|l| self.text(l)).unwrap_or("");
        let off = last == "cfg"
            && attr
                .and_then(|a| a.child_by_field_name("arguments"))
                .is_some_and(|args| cfg_likely_off(self.text(args)));
        (TEST_ATTRS.contains(&last), last == "macro_export", off)
    }

    /// Walk any node; returns the receiver id of an expression (0: unknown).
    fn node(&mut self, n: Node) -> u32 {
        // Generated code can nest deeper than a thread's stack allows.
        if self.depth >= MAX_NESTING {
            return 0;
        }
        // Only the item right after attributes may read them.
        let attrs = self.attrs.take();
        if matches!(
            n.kind(),
            "function_item"
                | "function_signature_item"
                | "struct_item"
                | "union_item"
                | "enum_item"
                | "trait_item"
                | "type_item"
                | "macro_definition"
                | "mod_item"
                | "impl_item"
        ) {
            self.attrs = attrs;
        }
        self.depth += 1;
        let r = self.node_inner(n);
        self.depth -= 1;
        r
    }

    fn node_inner(&mut self, n: Node) -> u32 {
        match n.kind() {
            "function_item" | "function_signature_item" => {
                self.function(n);
                0
            }
            "struct_item" | "union_item" | "enum_item" => {
                self.adt(n);
                0
            }
            "trait_item" => {
                self.trait_item(n);
                0
            }
            "impl_item" => {
                self.impl_item(n);
                0
            }
            "type_item" => {
                self.type_item(n);
                0
            }
            "mod_item" => {
                self.mod_item(n);
                0
            }
            "macro_definition" => {
                self.macro_def(n);
                0
            }
            "use_declaration" => {
                let public = has_child(n, "visibility_modifier");
                if let Some(arg) = n.child_by_field_name("argument") {
                    self.use_tree(arg, &[], public);
                }
                0
            }
            "extern_crate_declaration" => {
                self.extern_crate(n);
                0
            }
            "let_declaration" => {
                self.let_decl(n);
                0
            }
            "const_item" | "static_item" => {
                if let Some(t) = n.child_by_field_name("type") {
                    self.ty(t);
                }
                if let Some(v) = n.child_by_field_name("value") {
                    self.node(v);
                }
                0
            }
            "associated_type" => {
                if let Some(b) = n.child_by_field_name("bounds") {
                    self.ty(b);
                }
                0
            }
            "attribute_item"
            | "inner_attribute_item"
            | "line_comment"
            | "block_comment"
            | "visibility_modifier"
            | "label"
            | "lifetime"
            | "field_identifier"
            | "metavariable"
            | "string_literal"
            | "raw_string_literal"
            | "char_literal"
            | "integer_literal"
            | "float_literal"
            | "boolean_literal" => 0,
            "macro_invocation" => {
                self.macro_call(n);
                0
            }
            "token_tree" => {
                self.tokens(n);
                0
            }
            "call_expression" => self.call(n),
            "field_expression" => {
                let r = match n.child_by_field_name("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                match n.child_by_field_name("field") {
                    Some(f) => {
                        let name = self.node_name(f);
                        self.recv(Recv::Field(r, name))
                    }
                    None => 0,
                }
            }
            "identifier" => self.ident_value(n),
            "self" => 1,
            "scoped_identifier" | "generic_function" => {
                self.value_path(n, Role::Ref);
                0
            }
            "struct_expression" => self.struct_expr(n),
            "reference_expression" | "parenthesized_expression" | "await_expression" => {
                let mut r = 0;
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for c in kids {
                    r = self.node(c);
                }
                r
            }
            "unary_expression" => {
                let deref = n.child(0).is_some_and(|c| c.kind() == "*");
                let mut r = 0;
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for c in kids {
                    r = self.node(c);
                }
                if deref {
                    self.recv(Recv::Deref(r))
                } else {
                    0
                }
            }
            "index_expression" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                let mut base = None;
                for k in kids {
                    let r = self.node(k);
                    base.get_or_insert(r);
                }
                match base {
                    Some(r) => self.recv(Recv::Elem(r)),
                    None => 0,
                }
            }
            "try_expression" => {
                let mut r = 0;
                if let Some(c) = n.named_child(0) {
                    r = self.node(c);
                }
                self.recv(Recv::Try(r))
            }
            "closure_expression" => {
                self.closure(n, 0);
                0
            }
            "type_cast_expression" => {
                if let Some(v) = n.child_by_field_name("value") {
                    self.node(v);
                }
                if let Some(t) = n.child_by_field_name("type") {
                    self.ty(t);
                }
                0
            }
            "for_expression" => {
                let r = match n.child_by_field_name("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                let elem = self.recv(Recv::Elem(r));
                if let Some(p) = n.child_by_field_name("pattern") {
                    self.pattern(p, elem);
                }
                if let Some(b) = n.child_by_field_name("body") {
                    self.node(b);
                }
                0
            }
            "let_condition" => {
                let r = match n.child_by_field_name("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                if let Some(p) = n.child_by_field_name("pattern") {
                    self.pattern(p, r);
                }
                0
            }
            "match_expression" => {
                let r = match n.child_by_field_name("value") {
                    Some(v) => self.node(v),
                    None => 0,
                };
                if let Some(body) = n.child_by_field_name("body") {
                    let mut cursor = body.walk();
                    let arms: Vec<Node> = body.named_children(&mut cursor).collect();
                    for arm in arms {
                        if arm.kind() == "match_arm" {
                            self.match_arm(arm, r);
                        } else {
                            self.node(arm);
                        }
                    }
                }
                0
            }
            "match_arm" => {
                self.match_arm(n, 0);
                0
            }
            "where_clause" => {
                self.where_clause(n);
                0
            }
            "type_parameters" => 0,
            k if is_type_kind(k) => {
                self.ty(n);
                0
            }
            _ => {
                self.children(n);
                0
            }
        }
    }

    // ---- definitions -------------------------------------------------

    /// (first line including attributes, is a test, has `#[macro_export]`)
    fn attrs(&mut self, n: Node) -> (u32, bool, bool) {
        let own = line(n.start_position().row);
        match self.attrs.take() {
            Some((start, test, export, off)) => {
                self.cfg_off = off;
                (start.min(own), test, export)
            }
            None => {
                self.cfg_off = false;
                (own, false, false)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_def(
        &mut self,
        n: Node,
        name_node: Node,
        local: String,
        kind: NodeKind,
        parent: u32,
        start_line: u32,
        exported: bool,
    ) -> u32 {
        let name = self.text(name_node).to_string();
        self.defs.push(Def {
            name,
            local,
            kind,
            parent: Some(parent),
            pos: pos(name_node),
            start_line,
            end_line: line(n.end_position().row),
            exported,
        });
        let def = self.defs.len() as u32 - 1;
        if std::mem::take(&mut self.cfg_off) || self.block_off {
            self.scope.cfg_off.push(def);
        }
        def
    }

    fn free_parent(&self) -> u32 {
        self.cur_fn
    }

    fn register_item(&mut self, def: u32, is_macro: bool) {
        if self.cur_fn == 0 {
            self.scope.items.push(Item {
                def,
                module: self.module,
                is_macro,
            });
        }
    }

    fn function(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let (start, test, _) = self.attrs(n);
        let vis = has_child(n, "visibility_modifier");
        let base = self.base();
        let assoc = self.assoc.clone();
        let (kind, local, parent, exported) = match &assoc {
            Some(Assoc::Impl(_, ty, is_trait)) => (
                NodeKind::Method,
                format!("{base}{ty}::{name}"),
                self.free_parent(),
                vis || *is_trait,
            ),
            Some(Assoc::Trait(d, tr)) => {
                let exported = self.defs[*d as usize].exported;
                (
                    NodeKind::Method,
                    format!("{base}{tr}::{name}"),
                    *d,
                    exported,
                )
            }
            None => (
                NodeKind::Function,
                format!("{base}{name}"),
                self.cur_fn,
                vis,
            ),
        };
        let kind = if test { NodeKind::Test } else { kind };
        let def = self.push_def(n, name_node, local, kind, parent, start, exported);
        match &assoc {
            Some(Assoc::Impl(i, ty, _)) => {
                self.scope.impls[*i as usize].methods.push(def);
                self.pending_parents.push((def, format!("{base}{ty}")));
            }
            Some(Assoc::Trait(..)) => {}
            None => self.register_item(def, false),
        }

        let saved_cur = self.cur;
        let generics_len = self.generics.len();
        self.cur = def;
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            self.type_params(tp);
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        self.locals.push(HashMap::default());
        if let Some(params) = n.child_by_field_name("parameters") {
            let mut cursor = params.walk();
            let kids: Vec<Node> = params.named_children(&mut cursor).collect();
            if assoc.is_some() {
                let is_self = |p: &Node| {
                    p.kind() == "self_parameter"
                        || (p.kind() == "parameter"
                            && p.child_by_field_name("pattern")
                                .is_some_and(|pat| pat.kind() == "self"))
                };
                let has_self = kids.iter().any(is_self);
                let params = kids
                    .iter()
                    .filter(|p| {
                        matches!(p.kind(), "parameter" | "variadic_parameter") && !is_self(p)
                    })
                    .count();
                self.scope.sigs.push(Sig {
                    def,
                    params: params.min(UNKNOWN_ARGS as usize - 1) as u8,
                    has_self,
                });
            }
            for p in kids {
                if p.kind() != "parameter" {
                    continue;
                }
                let ty = match p.child_by_field_name("type") {
                    Some(t) => self.ty(t),
                    None => Ty::Unknown,
                };
                let r = self.recv(Recv::Ty(ty));
                if let Some(pat) = p.child_by_field_name("pattern") {
                    self.pattern(pat, r);
                }
            }
        }
        if let Some(rt) = n.child_by_field_name("return_type") {
            let ty = self.ty(rt);
            if ty != Ty::Unknown {
                self.scope.rets.push(Ret {
                    def,
                    module: self.module,
                    ty,
                });
            }
        }
        if let Some(body) = n.child_by_field_name("body") {
            let saved_assoc = self.assoc.take();
            let saved_fn = self.cur_fn;
            let saved_self = self.self_path.clone();
            self.cur_fn = def;
            self.node(body);
            self.cur_fn = saved_fn;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.locals.pop();
        self.generics.truncate(generics_len);
        self.cur = saved_cur;
    }

    fn adt(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let (start, _, _) = self.attrs(n);
        let local = format!("{}{}", self.base(), self.text(name_node));
        let vis = has_child(n, "visibility_modifier");
        let parent = self.free_parent();
        let def = self.push_def(
            n,
            name_node,
            local.clone(),
            NodeKind::Class,
            parent,
            start,
            vis,
        );
        self.register_item(def, false);
        self.classes.insert(local, def);

        let saved_cur = self.cur;
        let generics_len = self.generics.len();
        self.cur = def;
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            self.type_params(tp);
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.fields(def, body, true);
        }
        self.generics.truncate(generics_len);
        self.cur = saved_cur;
    }

    /// Field types of a struct (recorded when `record`) or an enum variant.
    fn fields(&mut self, owner: u32, body: Node, record: bool) {
        let mut cursor = body.walk();
        let kids: Vec<Node> = body.named_children(&mut cursor).collect();
        let mut ordinal = 0;
        for k in kids {
            match k.kind() {
                "field_declaration" => {
                    let ty = match k.child_by_field_name("type") {
                        Some(t) => self.ty(t),
                        None => Ty::Unknown,
                    };
                    if let (true, Some(f)) = (record, k.child_by_field_name("name")) {
                        let name = self.node_name(f);
                        self.scope.fields.push(Field { owner, name, ty });
                    }
                }
                "enum_variant" => {
                    if let Some(b) = k.child_by_field_name("body") {
                        self.fields(owner, b, false);
                    }
                    if let Some(v) = k.child_by_field_name("value") {
                        self.node(v);
                    }
                }
                "attribute_item" | "visibility_modifier" => {}
                kind if is_type_kind(kind) => {
                    let ty = self.ty(k);
                    if record {
                        let name = self.name(&ordinal.to_string());
                        self.scope.fields.push(Field { owner, name, ty });
                    }
                    ordinal += 1;
                }
                _ => {}
            }
        }
    }

    fn trait_item(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let (start, _, _) = self.attrs(n);
        let tname = self.text(name_node).to_string();
        let local = format!("{}{}", self.base(), tname);
        let vis = has_child(n, "visibility_modifier");
        let parent = self.free_parent();
        let def = self.push_def(
            n,
            name_node,
            local.clone(),
            NodeKind::Class,
            parent,
            start,
            vis,
        );
        self.register_item(def, false);
        self.classes.insert(local, def);

        let saved_cur = self.cur;
        let generics_len = self.generics.len();
        self.cur = def;
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            self.type_params(tp);
        }
        if let Some(bounds) = n.child_by_field_name("bounds") {
            let mut cursor = bounds.walk();
            let kids: Vec<Node> = bounds.named_children(&mut cursor).collect();
            for b in kids {
                if let Ty::Path(path) = self.ty_role(b, Role::Extends(def)) {
                    self.scope.supers.push(Super {
                        def,
                        module: self.module,
                        path,
                    });
                }
            }
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        if let Some(body) = n.child_by_field_name("body") {
            let saved_assoc = self.assoc.replace(Assoc::Trait(def, tname.clone()));
            let self_name = self.name(&tname);
            let saved_self = self.self_path.replace(vec![self_name]);
            let saved_is_trait = std::mem::replace(&mut self.self_is_trait, true);
            self.children(body);
            self.self_is_trait = saved_is_trait;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.generics.truncate(generics_len);
        self.cur = saved_cur;
    }

    fn impl_item(&mut self, n: Node) {
        self.attrs(n);
        let off = std::mem::take(&mut self.cfg_off);
        let saved_off = self.block_off;
        self.block_off |= off;
        self.impl_inner(n);
        self.block_off = saved_off;
    }

    fn impl_inner(&mut self, n: Node) {
        let generics_len = self.generics.len();
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            self.type_params(tp);
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        let idx = self.scope.impls.len() as u32;
        let ty_node = n.child_by_field_name("type");
        // `impl<T: Tr> X for T` is a blanket impl: no self type to name.
        let blanket = ty_node.is_some_and(|t| {
            t.kind() == "type_identifier" && {
                let name = self.node_name(t);
                self.generic(name).is_some()
            }
        });
        let ty = match ty_node {
            Some(t) => self.ty(t),
            None => Ty::Unknown,
        };
        let (ty, bound) = match (blanket, ty) {
            (true, Ty::Path(b)) => (Ty::Unknown, b),
            (true, _) => (Ty::Unknown, Vec::new()),
            (false, ty) => (ty, Vec::new()),
        };
        let mut tr = Vec::new();
        if let Some(t) = n.child_by_field_name("trait") {
            let (base, args) = match t.kind() {
                "generic_type" => (
                    t.child_by_field_name("type"),
                    t.child_by_field_name("type_arguments"),
                ),
                _ => (Some(t), None),
            };
            if let Some(base) = base {
                let mut segs = Vec::new();
                if self.path(base, &mut segs) {
                    tr = segs.iter().map(|s| s.0).collect();
                    self.path_site(segs, 0, Role::ImplTrait(idx));
                }
            }
            if let Some(a) = args {
                self.ty(a);
            }
        }
        let self_path = match &ty {
            Ty::Path(p) | Ty::Generic(p, _) => Some(p.clone()),
            Ty::Unknown | Ty::External | Ty::Slice(_) => None,
        };
        let ty_name = match &self_path {
            Some(p) => self.str_of(*p.last().unwrap_or(&0)).to_string(),
            None => ty_node
                .map(|t| self.text(t).replace(char::is_whitespace, ""))
                .unwrap_or_default(),
        };
        let is_trait = !tr.is_empty();
        self.scope.impls.push(Impl {
            module: self.module,
            scope_fn: self.cur_fn,
            ty,
            tr,
            methods: Vec::new(),
            blanket,
            bound,
        });
        if let Some(body) = n.child_by_field_name("body") {
            let saved_assoc = self.assoc.replace(Assoc::Impl(idx, ty_name, is_trait));
            let saved_self = std::mem::replace(&mut self.self_path, self_path);
            let saved_is_trait = std::mem::replace(&mut self.self_is_trait, false);
            self.children(body);
            self.self_is_trait = saved_is_trait;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.generics.truncate(generics_len);
    }

    fn type_item(&mut self, n: Node) {
        if self.assoc.is_some() {
            if let Some(t) = n.child_by_field_name("type") {
                self.ty(t);
            }
            return;
        }
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let (start, _, _) = self.attrs(n);
        let local = format!("{}{}", self.base(), self.text(name_node));
        let vis = has_child(n, "visibility_modifier");
        let parent = self.free_parent();
        let def = self.push_def(
            n,
            name_node,
            local.clone(),
            NodeKind::Class,
            parent,
            start,
            vis,
        );
        self.register_item(def, false);
        self.classes.insert(local, def);
        let saved_cur = self.cur;
        let generics_len = self.generics.len();
        self.cur = def;
        if let Some(tp) = n.child_by_field_name("type_parameters") {
            self.type_params(tp);
        }
        if let Some(t) = n.child_by_field_name("type") {
            let ty = self.ty(t);
            if !matches!(ty, Ty::Unknown | Ty::External) {
                self.scope.aliases.push(Alias { def, ty });
            }
        }
        self.generics.truncate(generics_len);
        self.cur = saved_cur;
    }

    /// A match arm; its bindings take the scrutinee `r` (`Some(x)` unwraps).
    fn match_arm(&mut self, arm: Node, r: u32) {
        if let Some(p) = arm.child_by_field_name("pattern") {
            if let Some(c) = p.child_by_field_name("condition") {
                self.node(c);
            }
            let cond = p.child_by_field_name("condition");
            let mut cursor = p.walk();
            let kids: Vec<Node> = p.named_children(&mut cursor).collect();
            for k in kids {
                if Some(k) != cond {
                    self.pattern(k, r);
                }
            }
        }
        if let Some(v) = arm.child_by_field_name("value") {
            self.node(v);
        }
    }

    fn mod_item(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.node_name(name_node);
        self.attrs(n);
        let cfg_off = std::mem::take(&mut self.cfg_off);
        let Some(body) = n.child_by_field_name("body") else {
            if self.module == 0 && self.cur_fn == 0 {
                self.scope.mod_decls.push(name);
            }
            return;
        };
        self.scope.mods.push(InlineMod {
            name,
            parent: self.module,
            cfg_off,
        });
        let id = self.scope.mods.len() as u32;
        let saved_module = std::mem::replace(&mut self.module, id);
        let saved_prefix = self.prefix.clone();
        self.prefix = format!("{}{}::", self.base(), self.text(name_node));
        let saved_fn = std::mem::replace(&mut self.cur_fn, 0);
        let saved_locals = std::mem::take(&mut self.locals);
        let saved_off = self.block_off;
        self.block_off |= cfg_off;
        self.children(body);
        self.block_off = saved_off;
        self.locals = saved_locals;
        self.cur_fn = saved_fn;
        self.prefix = saved_prefix;
        self.module = saved_module;
    }

    fn macro_def(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let (start, _, export) = self.attrs(n);
        let local = format!("{}{}", self.base(), self.text(name_node));
        let parent = self.free_parent();
        let def = self.push_def(
            n,
            name_node,
            local,
            NodeKind::Function,
            parent,
            start,
            export,
        );
        self.register_item(def, true);
    }

    fn use_tree(&mut self, n: Node, prefix: &[(u32, Pos)], public: bool) {
        match n.kind() {
            "use_as_clause" => {
                let mut segs = prefix.to_vec();
                let Some(p) = n.child_by_field_name("path") else {
                    return;
                };
                if !self.path(p, &mut segs) {
                    return;
                }
                let alias = match n.child_by_field_name("alias") {
                    Some(a) => self.node_name(a),
                    None => NONE,
                };
                self.push_use(segs, alias, false, public);
            }
            "use_wildcard" => {
                let mut segs = prefix.to_vec();
                if let Some(p) = n.named_child(0) {
                    if !self.path(p, &mut segs) {
                        return;
                    }
                }
                self.push_use(segs, NONE, true, public);
            }
            "use_list" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for c in kids {
                    self.use_tree(c, prefix, public);
                }
            }
            "scoped_use_list" => {
                let mut segs = prefix.to_vec();
                if let Some(p) = n.child_by_field_name("path") {
                    if !self.path(p, &mut segs) {
                        return;
                    }
                }
                if let Some(list) = n.child_by_field_name("list") {
                    self.use_tree(list, &segs, public);
                }
            }
            _ => {
                let mut segs = prefix.to_vec();
                if !self.path(n, &mut segs) {
                    return;
                }
                // `use a::{self}` binds `a`.
                if segs.len() > 1 && self.str_of(segs[segs.len() - 1].0) == "self" {
                    segs.pop();
                }
                self.push_use(segs, NONE, false, public);
            }
        }
    }

    fn push_use(&mut self, segs: Vec<(u32, Pos)>, alias: u32, glob: bool, public: bool) {
        if segs.is_empty() {
            return;
        }
        self.scope.uses.push(Use {
            module: self.module,
            scope_fn: self.cur_fn,
            segs: segs.iter().map(|s| s.0).collect(),
            pos: segs.iter().map(|s| s.1).collect(),
            alias,
            glob,
            public,
        });
    }

    fn extern_crate(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.node_name(name_node);
        let alias = match n.child_by_field_name("alias") {
            Some(a) => self.node_name(a),
            None => NONE,
        };
        let public = has_child(n, "visibility_modifier");
        self.push_use(vec![(name, pos(name_node))], alias, false, public);
    }

    // ---- generics and types -------------------------------------------

    fn type_params(&mut self, tp: Node) {
        let mut cursor = tp.walk();
        let kids: Vec<Node> = tp.named_children(&mut cursor).collect();
        let first = self.generics.len();
        for k in &kids {
            if matches!(k.kind(), "type_parameter" | "const_parameter") {
                if let Some(name) = k.child_by_field_name("name") {
                    let name = self.node_name(name);
                    self.generics.push((name, None));
                }
            }
        }
        let mut slot = first;
        for k in kids {
            match k.kind() {
                "type_parameter" => {
                    if let Some(b) = k.child_by_field_name("bounds") {
                        let bound = self.bounds(b);
                        if let Some(g) = self.generics.get_mut(slot) {
                            g.1 = bound;
                        }
                    }
                    if let Some(d) = k.child_by_field_name("default_type") {
                        self.ty(d);
                    }
                    slot += 1;
                }
                "const_parameter" => {
                    if let Some(t) = k.child_by_field_name("type") {
                        self.ty(t);
                    }
                    slot += 1;
                }
                _ => {}
            }
        }
    }

    /// Record sites of every bound; return the bound that best names the
    /// type's methods: the first that is not a common std trait.
    fn bounds(&mut self, b: Node) -> Option<Vec<u32>> {
        let mut first = None;
        let mut best = None;
        let mut cursor = b.walk();
        let kids: Vec<Node> = b.named_children(&mut cursor).collect();
        for k in kids {
            if k.kind() == "lifetime" {
                continue;
            }
            if let Ty::Path(p) | Ty::Generic(p, _) = self.ty(k) {
                if best.is_none() && !self.is_std_trait(&p) {
                    best = Some(p.clone());
                }
                first.get_or_insert(p);
            }
        }
        best.or(first)
    }

    fn is_std_trait(&self, path: &[u32]) -> bool {
        path.last()
            .is_some_and(|&l| STD_TRAITS.contains(&self.str_of(l)))
    }

    fn where_clause(&mut self, wc: Node) {
        let mut cursor = wc.walk();
        let preds: Vec<Node> = wc.named_children(&mut cursor).collect();
        for p in preds {
            let bound = match p.child_by_field_name("bounds") {
                Some(b) => self.bounds(b),
                None => None,
            };
            let Some(left) = p.child_by_field_name("left") else {
                continue;
            };
            if left.kind() == "type_identifier" {
                let name = self.node_name(left);
                let std_bound =
                    |s: &Self, b: &Option<Vec<u32>>| b.as_ref().is_none_or(|p| s.is_std_trait(p));
                let better = !std_bound(self, &bound);
                if let Some(i) = self.generics.iter().rposition(|g| g.0 == name) {
                    if self.generics[i].1.is_none()
                        || (better && std_bound(self, &self.generics[i].1))
                    {
                        self.generics[i].1 = bound;
                    }
                    continue;
                }
            }
            self.ty(left);
        }
    }

    fn ty(&mut self, n: Node) -> Ty {
        self.ty_role(n, Role::Ref)
    }

    /// Record the sites of a type; `role` applies to its outermost path.
    fn ty_role(&mut self, n: Node, role: Role) -> Ty {
        match n.kind() {
            "type_identifier" | "scoped_type_identifier" => self.type_path(n, role),
            "generic_type" => {
                let base = n.child_by_field_name("type");
                let mut args = Vec::new();
                if let Some(ta) = n.child_by_field_name("type_arguments") {
                    let mut cursor = ta.walk();
                    let kids: Vec<Node> = ta.named_children(&mut cursor).collect();
                    for k in kids {
                        args.push(self.type_arg(k));
                    }
                }
                let Some(base) = base else {
                    return Ty::Unknown;
                };
                let ty = self.type_path(base, role);
                args.truncate(2);
                match ty {
                    Ty::Path(p) => Ty::Generic(p, args),
                    other => other,
                }
            }
            "reference_type" | "pointer_type" => match n.child_by_field_name("type") {
                Some(t) => self.ty_role(t, role),
                None => Ty::Unknown,
            },
            "dynamic_type" | "abstract_type" => match n.child_by_field_name("trait") {
                Some(t) => self.ty_role(t, role),
                None => Ty::Unknown,
            },
            "higher_ranked_trait_bound" => match n.child_by_field_name("type") {
                Some(t) => self.ty_role(t, role),
                None => Ty::Unknown,
            },
            "bounded_type" => {
                let mut first = Ty::Unknown;
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for k in kids {
                    if k.kind() == "lifetime" {
                        continue;
                    }
                    let t = self.ty_role(k, role);
                    if first == Ty::Unknown {
                        first = t;
                    }
                }
                first
            }
            "primitive_type" | "unit_type" | "never_type" => Ty::External,
            "lifetime" | "metavariable" => Ty::Unknown,
            "macro_invocation" => {
                self.macro_call(n);
                Ty::Unknown
            }
            "trait_bounds" => match self.bounds(n) {
                Some(p) => Ty::Path(p),
                None => Ty::Unknown,
            },
            "type_arguments"
            | "tuple_type"
            | "array_type"
            | "function_type"
            | "removed_trait_bound"
            | "bracketed_type"
            | "qualified_type" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                let mut first = None;
                for k in kids {
                    let t = self.type_arg(k);
                    first.get_or_insert(t);
                }
                match n.kind() {
                    "array_type" => Ty::Slice(Box::new(first.unwrap_or(Ty::Unknown))),
                    "tuple_type" => Ty::External,
                    _ => Ty::Unknown,
                }
            }
            _ => {
                self.node(n);
                Ty::Unknown
            }
        }
    }

    /// A type argument, a parameter of a function type, an array length…
    fn type_arg(&mut self, k: Node) -> Ty {
        match k.kind() {
            "type_binding" => {
                if let Some(t) = k.child_by_field_name("type") {
                    self.ty(t);
                }
                Ty::Unknown
            }
            "parameters" => {
                let mut cursor = k.walk();
                let kids: Vec<Node> = k.named_children(&mut cursor).collect();
                for p in kids {
                    match p.kind() {
                        "parameter" => {
                            if let Some(t) = p.child_by_field_name("type") {
                                self.ty(t);
                            }
                        }
                        kind if is_type_kind(kind) => {
                            self.ty(p);
                        }
                        _ => {}
                    }
                }
                Ty::Unknown
            }
            kind if is_type_kind(kind) => self.ty(k),
            "lifetime" => Ty::Unknown,
            _ => {
                self.node(k);
                Ty::Unknown
            }
        }
    }

    /// A path in type position: a site (unless a generic parameter) and its type.
    fn type_path(&mut self, n: Node, role: Role) -> Ty {
        let mut segs = Vec::new();
        if !self.path(n, &mut segs) {
            return Ty::Unknown;
        }
        match self.subst(segs) {
            Some((segs, hidden)) => {
                let names: Vec<u32> = segs.iter().map(|s| s.0).collect();
                // `T::Assoc` of a generic `T`: an associated type, unknown.
                let ty = if hidden > 0 && segs.len() > hidden as usize {
                    Ty::Unknown
                } else {
                    Ty::Path(names)
                };
                self.path_site(segs, hidden, role);
                ty
            }
            None => Ty::Unknown,
        }
    }

    /// Replace a leading generic parameter by its bound and `Self` by the
    /// impl's type. `None`: the path names nothing we can know.
    fn subst(&mut self, segs: Vec<(u32, Pos)>) -> Option<(Vec<(u32, Pos)>, u8)> {
        let qhidden = std::mem::take(&mut self.qhidden);
        let (first, p) = *segs.first()?;
        // `Self` in an impl is a reference to the type (rust-analyzer counts
        // it among the type's references); the type's own path is hidden.
        let mut shown = 0;
        let replacement = if self.str_of(first) == "Self" {
            shown = usize::from(!self.self_is_trait);
            self.self_path.clone()?
        } else {
            match self.generic(first) {
                Some(Some(bound)) => bound.clone(),
                Some(None) => return None,
                None => return Some((segs, qhidden)),
            }
        };
        let extra = qhidden.saturating_sub(1) as usize;
        let hidden = (replacement.len() + extra - shown).min(u8::MAX as usize) as u8;
        let mut out: Vec<(u32, Pos)> = replacement.into_iter().map(|r| (r, p)).collect();
        out.extend_from_slice(&segs[1..]);
        Some((out, hidden))
    }

    /// Collect the segments of a path node. `false`: not a plain path.
    fn path(&mut self, n: Node, out: &mut Vec<(u32, Pos)>) -> bool {
        self.qhidden = 0;
        self.path_rec(n, out)
    }

    fn path_rec(&mut self, n: Node, out: &mut Vec<(u32, Pos)>) -> bool {
        match n.kind() {
            "identifier" | "type_identifier" | "crate" | "self" | "super" => {
                let name = self.node_name(n);
                out.push((name, pos(n)));
                true
            }
            "metavariable" if self.text(n) == "$crate" => {
                let name = self.name("crate");
                out.push((name, pos(n)));
                true
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                if let Some(p) = n.child_by_field_name("path") {
                    if !self.path_rec(p, out) {
                        return false;
                    }
                }
                match n.child_by_field_name("name") {
                    Some(name) => self.path_rec(name, out),
                    None => false,
                }
            }
            "generic_type" | "generic_type_with_turbofish" => {
                if let Some(ta) = n.child_by_field_name("type_arguments") {
                    self.ty(ta);
                }
                match n.child_by_field_name("type") {
                    Some(t) => self.path_rec(t, out),
                    None => false,
                }
            }
            "bracketed_type" => {
                let Some(inner) = n.named_child(0) else {
                    return false;
                };
                if inner.kind() == "qualified_type" {
                    let ty = inner.child_by_field_name("type");
                    let concrete = ty.filter(|t| match t.kind() {
                        "type_identifier" => {
                            let name = self.node_name(*t);
                            self.generic(name).is_none()
                        }
                        "scoped_type_identifier" | "generic_type" => true,
                        _ => false,
                    });
                    if let Some(t) = ty {
                        self.ty(t);
                    }
                    if let Some(t) = concrete {
                        // `<Stripe as Gateway>::charge` is `Stripe`'s charge
                        // (what rust-analyzer answers); the trait is a reference.
                        if let Some(a) = inner.child_by_field_name("alias") {
                            self.ty(a);
                        }
                        let before = out.len();
                        let ok = self.path_rec(t, out);
                        self.qhidden = (out.len() - before).min(u8::MAX as usize) as u8;
                        return ok;
                    }
                    // `<T as Trait>::f` of a generic `T`: the trait's item.
                    match inner.child_by_field_name("alias") {
                        Some(a) => {
                            let (base, args) = match a.kind() {
                                "generic_type" => (
                                    a.child_by_field_name("type"),
                                    a.child_by_field_name("type_arguments"),
                                ),
                                _ => (Some(a), None),
                            };
                            if let Some(args) = args {
                                self.ty(args);
                            }
                            base.is_some_and(|b| self.path_rec(b, out))
                        }
                        None => false,
                    }
                } else if matches!(inner.kind(), "type_identifier" | "scoped_type_identifier") {
                    self.path_rec(inner, out)
                } else {
                    self.ty(inner);
                    false
                }
            }
            _ => false,
        }
    }

    // ---- expressions ---------------------------------------------------

    fn ident_value(&mut self, n: Node) -> u32 {
        let name = self.node_name(n);
        if let Some(r) = self.local(name) {
            return r;
        }
        if self.generic(name).is_some() {
            return 0;
        }
        self.path_site(vec![(name, pos(n))], 0, Role::Ref);
        0
    }

    /// A path used as a value or callee. Returns its names when it is one.
    fn value_path(&mut self, n: Node, role: Role) -> Option<Vec<u32>> {
        let n = if n.kind() == "generic_function" {
            if let Some(ta) = n.child_by_field_name("type_arguments") {
                self.ty(ta);
            }
            n.child_by_field_name("function")?
        } else {
            n
        };
        if n.kind() == "identifier" {
            let name = self.node_name(n);
            if self.local(name).is_some() || self.generic(name).is_some() {
                return None;
            }
        }
        let mut segs = Vec::new();
        if !self.path(n, &mut segs) {
            self.children(n);
            return None;
        }
        let (segs, hidden) = self.subst(segs)?;
        let names = segs.iter().map(|s| s.0).collect();
        self.path_site(segs, hidden, role);
        Some(names)
    }

    fn call(&mut self, n: Node) -> u32 {
        let mut r = 0;
        let mut elem_hint = None;
        if let Some(f) = n.child_by_field_name("function") {
            let target = if f.kind() == "generic_function" {
                if let Some(ta) = f.child_by_field_name("type_arguments") {
                    self.ty(ta);
                }
                f.child_by_field_name("function")
            } else {
                Some(f)
            };
            if let Some(t) = target {
                r = match t.kind() {
                    "identifier" | "scoped_identifier" => match self.value_path(t, Role::Call) {
                        Some(names) => self.recv(Recv::Call(names)),
                        None => 0,
                    },
                    "field_expression" => {
                        let recv = match t.child_by_field_name("value") {
                            Some(v) => self.node(v),
                            None => 0,
                        };
                        match t.child_by_field_name("field") {
                            Some(field) if field.kind() == "field_identifier" => {
                                let name = self.node_name(field);
                                let args = match n.child_by_field_name("arguments") {
                                    Some(a) => {
                                        let mut cursor = a.walk();
                                        let count = a
                                            .named_children(&mut cursor)
                                            .filter(|c| {
                                                !matches!(
                                                    c.kind(),
                                                    "line_comment"
                                                        | "block_comment"
                                                        | "attribute_item"
                                                )
                                            })
                                            .count();
                                        count.min(UNKNOWN_ARGS as usize - 1) as u8
                                    }
                                    None => UNKNOWN_ARGS,
                                };
                                self.site(SiteKind::Method {
                                    recv,
                                    name,
                                    pos: pos(field),
                                    args,
                                });
                                if ELEM_CLOSURE_METHODS.contains(&self.str_of(name)) {
                                    elem_hint = Some(self.recv(Recv::Elem(recv)));
                                }
                                self.recv(Recv::Method(recv, name))
                            }
                            _ => 0,
                        }
                    }
                    _ => {
                        self.node(t);
                        0
                    }
                };
            }
        }
        if let Some(args) = n.child_by_field_name("arguments") {
            let mut cursor = args.walk();
            let kids: Vec<Node> = args.named_children(&mut cursor).collect();
            for k in kids {
                match elem_hint {
                    Some(e) if k.kind() == "closure_expression" => self.closure(k, e),
                    _ => {
                        self.node(k);
                    }
                }
            }
        }
        r
    }

    fn struct_expr(&mut self, n: Node) -> u32 {
        let mut r = 0;
        if let Some(name) = n.child_by_field_name("name") {
            let mut segs = Vec::new();
            if self.path(name, &mut segs) {
                if let Some((segs, hidden)) = self.subst(segs) {
                    let names = segs.iter().map(|s| s.0).collect();
                    self.path_site(segs, hidden, Role::Ref);
                    r = self.recv(Recv::Ty(Ty::Path(names)));
                }
            }
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.children(body);
        }
        r
    }

    fn let_decl(&mut self, n: Node) {
        let ty = n.child_by_field_name("type").map(|t| self.ty(t));
        let value = match n.child_by_field_name("value") {
            Some(v) => self.node(v),
            None => 0,
        };
        if let Some(alt) = n.child_by_field_name("alternative") {
            self.node(alt);
        }
        let r = match ty {
            Some(Ty::Unknown) => 0,
            Some(ty) => self.recv(Recv::Ty(ty)),
            None => value,
        };
        if let Some(p) = n.child_by_field_name("pattern") {
            self.pattern(p, r);
        }
    }

    /// A closure; `first` types its first parameter (an element of the
    /// iterator whose `map`/`filter`/… it is passed to).
    fn closure(&mut self, n: Node, first: u32) {
        let own = self.locals.is_empty();
        if own {
            self.locals.push(HashMap::default());
        }
        if let Some(params) = n.child_by_field_name("parameters") {
            let mut cursor = params.walk();
            let kids: Vec<Node> = params.named_children(&mut cursor).collect();
            for (i, p) in kids.into_iter().enumerate() {
                let hint = if i == 0 { first } else { 0 };
                if p.kind() == "parameter" {
                    let r = match p.child_by_field_name("type") {
                        Some(t) => {
                            let ty = self.ty(t);
                            self.recv(Recv::Ty(ty))
                        }
                        None => hint,
                    };
                    if let Some(pat) = p.child_by_field_name("pattern") {
                        self.pattern(pat, r);
                    }
                } else {
                    self.pattern(p, hint);
                }
            }
        }
        if let Some(rt) = n.child_by_field_name("return_type") {
            self.ty(rt);
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.node(body);
        }
        if own {
            self.locals.pop();
        }
    }

    fn pattern(&mut self, p: Node, r: u32) {
        match p.kind() {
            "identifier" => {
                let text = self.text(p);
                let name = self.name(text);
                if starts_upper(text) && self.local(name).is_none() {
                    self.path_site(vec![(name, pos(p))], 0, Role::Ref);
                } else {
                    self.bind(name, r);
                }
            }
            "mut_pattern" | "ref_pattern" | "reference_pattern" | "captured_pattern" => {
                let mut cursor = p.walk();
                let kids: Vec<Node> = p.named_children(&mut cursor).collect();
                for k in kids {
                    self.pattern(k, r);
                }
            }
            "tuple_struct_pattern" => {
                let mut unwrap = false;
                if let Some(t) = p.child_by_field_name("type") {
                    let mut segs = Vec::new();
                    if self.path(t, &mut segs) {
                        let last = segs.last().map(|s| self.str_of(s.0)).unwrap_or("");
                        unwrap = segs.len() == 1 && matches!(last, "Some" | "Ok");
                        if let Some((segs, hidden)) = self.subst(segs) {
                            self.path_site(segs, hidden, Role::Ref);
                        }
                    }
                }
                let inner = if unwrap { self.recv(Recv::Try(r)) } else { 0 };
                let mut cursor = p.walk();
                let kids: Vec<Node> = p
                    .named_children(&mut cursor)
                    .filter(|k| Some(*k) != p.child_by_field_name("type"))
                    .collect();
                let inner = if kids.len() == 1 { inner } else { 0 };
                for k in kids {
                    self.pattern(k, inner);
                }
            }
            "struct_pattern" => {
                if let Some(t) = p.child_by_field_name("type") {
                    let mut segs = Vec::new();
                    if self.path(t, &mut segs) {
                        if let Some((segs, hidden)) = self.subst(segs) {
                            self.path_site(segs, hidden, Role::Ref);
                        }
                    }
                }
                let mut cursor = p.walk();
                let kids: Vec<Node> = p.named_children(&mut cursor).collect();
                for k in kids {
                    if k.kind() != "field_pattern" {
                        continue;
                    }
                    if let Some(sub) = k.child_by_field_name("pattern") {
                        self.pattern(sub, 0);
                    } else if let Some(name) = k.child_by_field_name("name") {
                        let name = self.node_name(name);
                        self.bind(name, 0);
                    }
                }
            }
            "scoped_identifier" => {
                let mut segs = Vec::new();
                if self.path(p, &mut segs) {
                    if let Some((segs, hidden)) = self.subst(segs) {
                        self.path_site(segs, hidden, Role::Ref);
                    }
                }
            }
            "tuple_pattern" | "slice_pattern" | "or_pattern" | "match_pattern"
            | "range_pattern" => {
                if let Some(c) = p.child_by_field_name("condition") {
                    self.node(c);
                }
                let cond = p.child_by_field_name("condition");
                let mut cursor = p.walk();
                let kids: Vec<Node> = p.named_children(&mut cursor).collect();
                for k in kids {
                    if Some(k) != cond {
                        self.pattern(k, 0);
                    }
                }
            }
            "macro_invocation" => self.macro_call(p),
            _ => {}
        }
    }

    fn macro_call(&mut self, n: Node) {
        if let Some(m) = n.child_by_field_name("macro") {
            let mut segs = Vec::new();
            if self.path(m, &mut segs) {
                self.path_site(segs, 0, Role::Macro);
            }
        }
        let mut cursor = n.walk();
        let kids: Vec<Node> = n.named_children(&mut cursor).collect();
        for k in kids {
            if k.kind() == "token_tree" && !self.macro_items(n, k) {
                self.tokens(k);
            }
        }
    }

    /// `cfg_feature! { pub mod a; pub use a::B; }`: a brace-delimited macro
    /// in item position whose body parses as items is walked as items (its
    /// expansion usually is them). Returns whether it did.
    fn macro_items(&mut self, mac: Node, tt: Node) -> bool {
        let in_items = mac
            .parent()
            .is_some_and(|p| matches!(p.kind(), "source_file" | "declaration_list"));
        if !in_items || self.depth >= MAX_NESTING / 2 {
            return false;
        }
        let (Some(open), Some(close)) = (tt.child(0), tt.child(tt.child_count().saturating_sub(1)))
        else {
            return false;
        };
        if open.kind() != "{" || close.kind() != "}" || open.end_byte() >= close.start_byte() {
            return false;
        }
        let range = tree_sitter::Range {
            start_byte: open.end_byte(),
            end_byte: close.start_byte(),
            start_point: open.end_position(),
            end_point: close.start_position(),
        };
        let Some(tree) = super::parse(self.src, Some(range)) else {
            return false;
        };
        let root = tree.root_node();
        let mut cursor = root.walk();
        let kids: Vec<Node> = root.named_children(&mut cursor).collect();
        // Items with a few unparsable spots (`Token![extern]` in a field
        // type) still count; expressions or mostly errors do not.
        let errors = kids.iter().filter(|c| c.is_error()).count();
        let items = kids.iter().filter(|c| is_item_kind(c.kind())).count();
        let other = kids.len() - errors - items;
        if items == 0 || errors >= items || other > 0 {
            return false;
        }
        self.depth += 1;
        self.seq(kids);
        self.depth -= 1;
        true
    }

    /// Macro arguments are not parsed: read calls, paths, method calls and
    /// macro calls off the tokens.
    fn tokens(&mut self, tt: Node) {
        if self.depth >= MAX_NESTING {
            return;
        }
        self.depth += 1;
        self.tokens_inner(tt);
        self.depth -= 1;
    }

    fn tokens_inner(&mut self, tt: Node) {
        let mut cursor = tt.walk();
        let kids: Vec<Node> = tt.children(&mut cursor).collect();
        let mut i = 0;
        while i < kids.len() {
            let k = kids[i];
            match k.kind() {
                "token_tree" => {
                    self.tokens(k);
                    i += 1;
                }
                "identifier" | "crate" | "super" => {
                    let name = self.node_name(k);
                    let mut segs = vec![(name, pos(k))];
                    let mut j = i + 1;
                    while j + 1 < kids.len()
                        && kids[j].kind() == "::"
                        && kids[j + 1].kind() == "identifier"
                    {
                        let s = self.node_name(kids[j + 1]);
                        segs.push((s, pos(kids[j + 1])));
                        j += 2;
                    }
                    let prev = if i > 0 { kids[i - 1].kind() } else { "" };
                    let next = kids.get(j).copied();
                    let opens = |c: &str| {
                        next.is_some_and(|n| {
                            n.kind() == "token_tree" && n.child(0).is_some_and(|o| o.kind() == c)
                        })
                    };
                    let call = opens("(");
                    let brace = opens("{");
                    let bang = next.is_some_and(|n| n.kind() == "!");
                    if prev == "." {
                        if call && segs.len() == 1 {
                            let recv = self.token_recv(&kids, i - 1);
                            let args = next.map_or(UNKNOWN_ARGS, token_args);
                            self.site(SiteKind::Method {
                                recv,
                                name,
                                pos: pos(k),
                                args,
                            });
                        }
                    } else if prev == "::" || prev == "$" {
                        // The tail of a path we could not read.
                    } else if bang {
                        self.path_site(segs, 0, Role::Macro);
                    } else {
                        let single_local = segs.len() == 1
                            && (self.local(name).is_some() || !starts_upper(self.str_of(name)));
                        let upper_last =
                            segs.last().is_some_and(|s| starts_upper(self.str_of(s.0)));
                        if call && !(segs.len() == 1 && self.local(name).is_some()) {
                            if let Some((segs, hidden)) = self.subst(segs) {
                                self.path_site(segs, hidden, Role::Call);
                            }
                        } else if (brace && upper_last) || !single_local {
                            if let Some((segs, hidden)) = self.subst(segs) {
                                self.path_site(segs, hidden, Role::Ref);
                            }
                        }
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }

    /// The receiver of a method call in a token tree, `dot` being the index
    /// of the `.` before the method name: `self`, `self.a.b`, a local.
    fn token_recv(&mut self, kids: &[Node], dot: usize) -> u32 {
        self.token_recv_depth(kids, dot, 0)
    }

    fn token_recv_depth(&mut self, kids: &[Node], dot: usize, depth: u32) -> u32 {
        let mut chain = Vec::new();
        let mut d = dot;
        loop {
            if d == 0 || depth > 8 {
                return 0;
            }
            let k = kids[d - 1];
            match k.kind() {
                "token_tree" if d >= 2 && k.child(0).is_some_and(|o| o.kind() == "(") => {
                    // `f(…).m(`, `a::f(…).m(`, `x.f(…).m(`
                    let mut j = d - 2;
                    if kids[j].kind() != "identifier" {
                        return 0;
                    }
                    let mut path = vec![(self.node_name(kids[j]), pos(kids[j]))];
                    while j >= 2 && kids[j - 1].kind() == "::" && kids[j - 2].kind() == "identifier"
                    {
                        path.insert(0, (self.node_name(kids[j - 2]), pos(kids[j - 2])));
                        j -= 2;
                    }
                    let mut r = if j >= 1 && kids[j - 1].kind() == "." && path.len() == 1 {
                        let base = self.token_recv_depth(kids, j - 1, depth + 1);
                        self.recv(Recv::Method(base, path[0].0))
                    } else if path.len() == 1 && self.local(path[0].0).is_some() {
                        0
                    } else {
                        match self.subst(path) {
                            Some((p, _)) => {
                                let names = p.iter().map(|s| s.0).collect();
                                self.recv(Recv::Call(names))
                            }
                            None => 0,
                        }
                    };
                    for f in chain.into_iter().rev() {
                        r = self.recv(Recv::Field(r, f));
                    }
                    return r;
                }
                "self" => {
                    let mut r = 1;
                    for f in chain.into_iter().rev() {
                        r = self.recv(Recv::Field(r, f));
                    }
                    return r;
                }
                "identifier" => {
                    let name = self.node_name(k);
                    if d >= 2 && kids[d - 2].kind() == "." {
                        chain.push(name);
                        d -= 2;
                        continue;
                    }
                    let Some(mut r) = self.local(name) else {
                        return 0;
                    };
                    for f in chain.into_iter().rev() {
                        r = self.recv(Recv::Field(r, f));
                    }
                    return r;
                }
                _ => return 0,
            }
        }
    }
}

/// Arguments in a `( … )` token tree: top-level commas, unless a closure
/// (`|a, b|`) makes commas ambiguous.
fn token_args(tt: Node) -> u8 {
    let mut cursor = tt.walk();
    let mut commas = 0usize;
    let mut tokens = 0usize;
    let mut last_comma = false;
    for c in tt.children(&mut cursor) {
        match c.kind() {
            "(" | ")" => {}
            "|" | "||" => return UNKNOWN_ARGS,
            "," => {
                commas += 1;
                last_comma = true;
            }
            _ => {
                tokens += 1;
                last_comma = false;
            }
        }
    }
    if tokens == 0 {
        return 0;
    }
    let n = commas + usize::from(!last_comma);
    n.min(UNKNOWN_ARGS as usize - 1) as u8
}

/// Whether the arguments of a `#[cfg(…)]` name a configuration that is
/// most likely off where rust-analyzer runs (Linux, default features,
/// `test` on): another OS, or a custom flag such as `loom` or `docsrs`.
fn cfg_likely_off(args: &str) -> bool {
    let a: String = args.chars().filter(|c| !c.is_whitespace()).collect();
    let a = a.trim_start_matches('(').trim_end_matches(')');
    if a.starts_with("not(") || a.starts_with("any(") {
        return false;
    }
    const OTHER_OS: [&str; 7] = [
        "windows",
        "target_os=\"windows\"",
        "target_os=\"macos\"",
        "target_os=\"ios\"",
        "target_os=\"freebsd\"",
        "target_family=\"wasm\"",
        "target_arch=\"wasm32\"",
    ];
    let parts: Vec<&str> = match a.strip_prefix("all(") {
        Some(rest) => rest.trim_end_matches(')').split(',').collect(),
        None => vec![a],
    };
    parts.iter().any(|p| {
        OTHER_OS.contains(p)
            || (p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !matches!(*p, "unix" | "test" | "debug_assertions" | "target_os" | ""))
    })
}

fn is_item_kind(kind: &str) -> bool {
    matches!(
        kind,
        "function_item"
            | "function_signature_item"
            | "struct_item"
            | "union_item"
            | "enum_item"
            | "trait_item"
            | "impl_item"
            | "type_item"
            | "mod_item"
            | "use_declaration"
            | "extern_crate_declaration"
            | "const_item"
            | "static_item"
            | "macro_definition"
            | "macro_invocation"
            | "attribute_item"
            | "inner_attribute_item"
            | "line_comment"
            | "block_comment"
            | "foreign_mod_item"
            | "associated_type"
    )
}

fn has_child(n: Node, kind: &str) -> bool {
    child_of_kind(n, kind).is_some()
}

fn child_of_kind<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = n.walk();
    let found = n.children(&mut cursor).find(|c| c.kind() == kind);
    found
}
