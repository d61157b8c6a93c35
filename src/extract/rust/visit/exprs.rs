//! Expressions, patterns and macro arguments: sites and receivers.

use super::*;
use crate::extract::rust::std_macro;

impl<'s> V<'s> {
    pub(super) fn ident_value(&mut self, n: Node) -> u32 {
        let name = self.node_name(n);
        if let Some(r) = self.local(name) {
            return r;
        }
        if self.generic(name).is_some() {
            return 0;
        }
        self.path_site(vec![(name, pos(n))], 0, Role::Value);
        // A unit struct as a value (`Utc.timestamp_opt(…)`): a value of
        // the type, as `Unit` written with a path is.
        if super::super::type_like(self.text(n)) {
            return self.recv(Recv::Ty(Ty::Path(smallvec::smallvec![name])));
        }
        if super::super::const_like(self.text(n)) {
            return self.recv(Recv::Const(vec![name]));
        }
        self.recv(Recv::Item(vec![name]))
    }

    /// A path used as a value or callee. Returns its names when it is one.
    pub(super) fn value_path(&mut self, n: Node, role: Role) -> Option<Vec<u32>> {
        let n = if n.kind_name() == "generic_function" {
            if let Some(ta) = n.field("type_arguments") {
                self.ty(ta);
            }
            n.field("function")?
        } else {
            n
        };
        if n.kind_name() == "identifier" {
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

    pub(super) fn call(&mut self, n: Node) -> u32 {
        let mut r = 0;
        let mut elem_hint = None;
        // What a closure argument's parameters are, asked of the callee.
        let mut callee: Option<Recv> = None;
        // The site of a `Type::f(…)` callee, whose argument is recorded.
        let mut typed_call = None;
        // `recv.parse::<T>()`: its one type argument.
        let mut turbofish = None;
        if let Some(f) = n.field("function") {
            let target = if f.kind_name() == "generic_function" {
                if let Some(ta) = f.field("type_arguments") {
                    let args = named_code_children(ta);
                    let tys: Vec<Ty> = args.iter().map(|&k| self.type_arg(k)).collect();
                    if let [t] = &tys[..] {
                        turbofish = Some(t.clone());
                    }
                }
                f.field("function")
            } else {
                Some(f)
            };
            if let Some(t) = target {
                r = match t.kind_name() {
                    "identifier" | "scoped_identifier" => {
                        let before = self.refs.sites.len();
                        match self.value_path(t, Role::Call) {
                            Some(names) => {
                                // The path's own site is the last one added.
                                if names.len() > 1 && self.refs.sites.len() > before {
                                    typed_call = Some(self.refs.sites.len() as u32 - 1);
                                }
                                callee = Some(Recv::CallClosure(names.clone(), 0, 0));
                                self.recv(Recv::Call(names))
                            }
                            None => 0,
                        }
                    }
                    "field_expression" => {
                        let recv = match t.field("value") {
                            Some(v) => self.node(v),
                            None => 0,
                        };
                        match t.field("field") {
                            Some(field) if field.kind_name() == "field_identifier" => {
                                let name = self.node_name(field);
                                let args = match n.field("arguments") {
                                    Some(a) => {
                                        arguments(a).len().min(UNKNOWN_ARGS as usize - 1) as u8
                                    }
                                    None => UNKNOWN_ARGS,
                                };
                                self.site(SiteKind::Method {
                                    recv,
                                    name,
                                    pos: pos(field),
                                    args,
                                });
                                let method = self.str_of(name);
                                let pair = ELEM_PAIR_CLOSURE_METHODS.contains(&method);
                                if pair || ELEM_CLOSURE_METHODS.contains(&method) {
                                    elem_hint = Some((self.recv(Recv::Elem(recv)), pair));
                                } else if recv != 0 {
                                    callee = Some(Recv::MethodClosure(recv, name, 0, 0));
                                }
                                let m = self.recv(Recv::Method(recv, name));
                                match turbofish.take() {
                                    Some(t) if m != 0 => self.recv(Recv::Turbofish(m, t)),
                                    _ => m,
                                }
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
        if let Some(args) = n.field("arguments") {
            let mut cursor = args.walk();
            let kids: Vec<Node> = args.named_children(&mut cursor).collect();
            // `Type::f(x)`: what `x` is, recorded for the call's site.
            let one = match (typed_call, &arguments(args)[..]) {
                (Some(site), &[x]) => Some((site, x)),
                _ => None,
            };
            let positions = arguments(args);
            for k in kids {
                match (elem_hint, &callee) {
                    (Some((e, pair)), _) if k.kind_name() == "closure_expression" => {
                        let hints = [e, e];
                        self.closure(k, &hints[..1 + usize::from(pair)])
                    }
                    (None, Some(c)) if k.kind_name() == "closure_expression" => {
                        let arg = positions.iter().position(|p| *p == k).unwrap_or(0);
                        let arg = arg.min(u8::MAX as usize) as u8;
                        let count = k
                            .field("parameters")
                            .map_or(0, |p| named_code_children(p).len().min(u8::MAX as usize));
                        let hints: Vec<u32> = (0..count as u8)
                            .map(|param| {
                                self.recv(match c {
                                    Recv::MethodClosure(recv, name, ..) => {
                                        Recv::MethodClosure(*recv, *name, arg, param)
                                    }
                                    Recv::CallClosure(names, ..) => {
                                        Recv::CallClosure(names.clone(), arg, param)
                                    }
                                    _ => Recv::Unknown,
                                })
                            })
                            .collect();
                        self.closure(k, &hints)
                    }
                    _ => {
                        let kr = self.node(k);
                        if let Some((site, _)) = one.filter(|&(_, x)| x == k) {
                            if let Some(arg) = self.arg_ty(k, kr) {
                                self.refs.call_args.push(CallArg { site, arg });
                            }
                        }
                        if let Some(site) = typed_call.filter(|_| kr != 0) {
                            if positions.first() == Some(&k) {
                                self.refs.self_args.push(SelfArg { site, recv: kr });
                            }
                        }
                    }
                }
            }
        }
        r
    }

    /// What the syntax says of argument `k`, whose receiver is `r` (0:
    /// none known).
    fn arg_ty(&mut self, k: Node, r: u32) -> Option<ArgTy> {
        let text = self.text(k);
        let named = |v: &mut Self, s: &str| Some(ArgTy::Named(v.name(s)));
        match k.kind_name() {
            // `b"…"` is an array reference, not `str`.
            "string_literal" | "raw_string_literal" if !text.starts_with('b') => named(self, "str"),
            "char_literal" if text.starts_with('b') => named(self, "u8"),
            "char_literal" => named(self, "char"),
            "boolean_literal" => named(self, "bool"),
            "integer_literal" | "float_literal" => {
                // `0x1f32` is hex digits, not an `f32`.
                let hex = text.starts_with("0x");
                let suffix = NUMBER_SUFFIXES
                    .iter()
                    .find(|s| text.ends_with(*s) && !(hex && s.starts_with('f')))?;
                named(self, suffix)
            }
            "reference_expression" => {
                let v = k.field("value")?;
                let ranged = v.kind_name() == "index_expression"
                    && v.named_child(1)
                        .is_some_and(|i| i.kind_name() == "range_expression");
                ranged.then_some(ArgTy::Slice)
            }
            // `"a".to_owned()`: a `String` (the literal's receiver does not
            // say `str`).
            "call_expression" => {
                let f = k
                    .field("function")
                    .filter(|f| f.kind_name() == "field_expression")
                    .filter(|f| f.field("field").is_some_and(|m| self.text(m) == "to_owned"));
                match f.and_then(|f| f.field("value")).map(|v| self.arg_ty(v, 0)) {
                    Some(Some(ArgTy::Named(n))) if self.str_of(n) == "str" => named(self, "String"),
                    _ => (r != 0).then_some(ArgTy::Recv(r)),
                }
            }
            "macro_invocation" => {
                let m = k.field("macro")?;
                match (m.kind_name(), self.text(m)) {
                    ("identifier", "vec") => named(self, "Vec"),
                    ("identifier", "format") => named(self, "String"),
                    _ => None,
                }
            }
            _ => (r != 0).then_some(ArgTy::Recv(r)),
        }
    }

    pub(super) fn struct_expr(&mut self, n: Node) -> u32 {
        let mut r = 0;
        if let Some(name) = n.field("name") {
            let mut segs = Vec::new();
            if self.path(name, &mut segs) {
                if let Some((segs, hidden)) = self.subst(segs) {
                    let names = segs.iter().map(|s| s.0).collect();
                    self.path_site(segs, hidden, Role::Ref);
                    r = self.recv(Recv::Ty(Ty::Path(names)));
                }
            }
        }
        if let Some(body) = n.field("body") {
            self.children(body);
        }
        r
    }

    pub(super) fn let_decl(&mut self, n: Node) {
        let ty = n.field("type").map(|t| self.ty(t));
        let value = match n.field("value") {
            Some(v) => self.node(v),
            None => 0,
        };
        if let Some(alt) = n.field("alternative") {
            self.node(alt);
        }
        let r = match ty {
            Some(Ty::Unknown) => 0,
            Some(ty) => self.recv(Recv::Ty(ty)),
            None => value,
        };
        if let Some(p) = n.field("pattern") {
            self.pattern(p, r);
        }
    }

    /// A closure; `hints` are what its parameters are, in order (0 or
    /// missing: unknown).
    pub(super) fn closure(&mut self, n: Node, hints: &[u32]) {
        let own = self.locals.is_empty();
        if own {
            self.locals.push(HashMap::default());
        }
        let mark = self.scope_start();
        if let Some(params) = n.field("parameters") {
            for (i, p) in named_code_children(params).into_iter().enumerate() {
                let hint = hints.get(i).copied().unwrap_or(0);
                if p.kind_name() == "parameter" {
                    let r = match p.field("type") {
                        Some(t) => {
                            let ty = self.ty(t);
                            self.recv(Recv::Ty(ty))
                        }
                        None => hint,
                    };
                    if let Some(pat) = p.field("pattern") {
                        self.pattern(pat, r);
                    }
                } else {
                    self.pattern(p, hint);
                }
            }
        }
        if let Some(rt) = n.field("return_type") {
            self.ty(rt);
        }
        if let Some(body) = n.field("body") {
            self.node(body);
        }
        self.scope_end(mark);
        if own {
            self.locals.pop();
        }
    }

    pub(super) fn pattern(&mut self, p: Node, r: u32) {
        // Generated code: a `match` arm of hundreds of `|` alternatives.
        if self.depth >= MAX_NESTING {
            return;
        }
        self.depth += 1;
        self.pattern_inner(p, r);
        self.depth -= 1;
    }

    fn pattern_inner(&mut self, p: Node, r: u32) {
        match p.kind_name() {
            "identifier" => {
                let text = self.text(p);
                let name = self.name(text);
                if starts_upper(text) && self.local(name).is_none() {
                    self.path_site(vec![(name, pos(p))], 0, Role::Value);
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
                // `Enum::Variant(a, b)`: the path, for the fields' types.
                let mut variant = None;
                if let Some(t) = p.field("type") {
                    let mut segs = Vec::new();
                    if self.path(t, &mut segs) {
                        let last = segs.last().map(|s| self.str_of(s.0)).unwrap_or("");
                        unwrap = segs.len() == 1 && matches!(last, "Some" | "Ok");
                        if let Some((segs, hidden)) = self.subst(segs) {
                            if segs.len() >= 2 {
                                variant = Some(segs.iter().map(|s| s.0).collect::<Vec<u32>>());
                            }
                            self.path_site(segs, hidden, Role::Value);
                        }
                    }
                }
                let inner = if unwrap { self.recv(Recv::Try(r)) } else { 0 };
                let kids = pattern_elements(p, p.field("type"));
                let inner = if kids.len() == 1 { inner } else { 0 };
                // After `..` the positions are not known.
                let rest = kids
                    .iter()
                    .position(|k| k.kind_name() == "remaining_field_pattern")
                    .unwrap_or(kids.len());
                for (i, k) in kids.into_iter().enumerate() {
                    let r = match &variant {
                        Some(path) if !unwrap && i < rest => {
                            let vname = self.str_of(*path.last().unwrap_or(&0)).to_string();
                            let field = self.name(&format!("{vname}::{i}"));
                            self.recv(Recv::Variant(path.clone(), field))
                        }
                        _ => inner,
                    };
                    self.pattern(k, r);
                }
            }
            "struct_pattern" => {
                // What a field binds: `let Self { iter, f } = self;`, the
                // field of `self` (typed by what the impl's self type puts
                // in the struct's parameters); else the field the pattern's
                // path names, which says more than the value matched (a
                // value of an outside type would make every field one too):
                // `V::x` of `E::V { x }`, as for `E::V(x)`, or `x` of a
                // struct (`Pair { x }`, `m::Pair { x }`), as the resolver
                // finds the path to end on a variant or a struct. A name
                // that is neither in the repository (`Two { a }` after `use
                // Shape::*`, an outside type) binds nothing known.
                let mut path = None;
                if let Some(t) = p.field("type") {
                    let mut segs = Vec::new();
                    if self.path(t, &mut segs) {
                        let written = segs.len();
                        if let Some((segs, hidden)) = self.subst(segs) {
                            let ids: Vec<u32> = segs.iter().map(|s| s.0).collect();
                            path = Some((ids, written));
                            self.path_site(segs, hidden, Role::Ref);
                        }
                    }
                }
                let mut cursor = p.walk();
                let kids: Vec<Node> = p.named_children(&mut cursor).collect();
                for k in kids {
                    if k.kind_name() != "field_pattern" {
                        continue;
                    }
                    let field = match (&path, k.field("name")) {
                        (Some((_, 1)), Some(f)) if r == SELF_RECV => {
                            let name = self.node_name(f);
                            self.recv(Recv::Field(r, name))
                        }
                        (Some((ids, _)), Some(f)) => {
                            let last = self.str_of(*ids.last().unwrap_or(&0));
                            let name = format!("{last}::{}", self.text(f));
                            let name = self.name(&name);
                            self.recv(Recv::Variant(ids.clone(), name))
                        }
                        _ => 0,
                    };
                    if let Some(sub) = k.field("pattern") {
                        self.pattern(sub, field);
                    } else if let Some(name) = k.field("name") {
                        let name = self.node_name(name);
                        self.bind(name, field);
                    }
                }
            }
            "scoped_identifier" => {
                let mut segs = Vec::new();
                if self.path(p, &mut segs) {
                    if let Some((segs, hidden)) = self.subst(segs) {
                        self.path_site(segs, hidden, Role::Value);
                    }
                }
            }
            "tuple_pattern" if r != 0 => {
                let kids = pattern_elements(p, None);
                // After `..` the positions count from the end.
                let rest = kids
                    .iter()
                    .position(|k| k.kind_name() == "remaining_field_pattern");
                let n = kids.len();
                for (i, k) in kids.into_iter().enumerate() {
                    let elem = match rest {
                        Some(at) if i == at => continue,
                        Some(at) if i > at => Recv::TupleElemBack(r, (n - 1 - i) as u32),
                        _ => Recv::TupleElem(r, i as u32),
                    };
                    let elem = self.recv(elem);
                    self.pattern(k, elem);
                }
            }
            "tuple_pattern" | "slice_pattern" | "or_pattern" | "match_pattern"
            | "range_pattern" => {
                if let Some(c) = p.field("condition") {
                    self.node(c);
                }
                let cond = p.field("condition");
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

    pub(super) fn macro_call(&mut self, n: Node) {
        // The attributes of an item macro (`#[cfg(windows)] cfg_os_poll! {
        // … }`) are its items'.
        let cfg = self
            .attrs
            .take()
            .map_or((false, None), |p| (p.off, p.feature));
        if let Some(m) = n.field("macro") {
            let mut segs = Vec::new();
            if self.path(m, &mut segs) {
                self.path_site(segs, 0, Role::Macro);
            }
        }
        let mut cursor = n.walk();
        let kids: Vec<Node> = n.named_children(&mut cursor).collect();
        let outer = self.macro_values;
        let outer_bound = std::mem::take(&mut self.macro_bound);
        let name = n.field("macro").map_or("", |m| self.macro_name(m));
        // Not among an impl's or a trait's items, where a macro's names are
        // those of the items it makes or of fields (itertools'
        // `clone_fields!(rciter)` in `impl Clone for RcIter`).
        let among_items = n.parent().is_some_and(|p| {
            p.kind_name() == "declaration_list"
                && p.parent()
                    .is_some_and(|g| matches!(g.kind_name(), "impl_item" | "trait_item"))
        });
        self.macro_values = !among_items && values_in(name);
        // `quote! { … }` writes code for another crate as tokens, turned
        // into strings: no name in it is resolved where it is written (nor
        // by rust-analyzer), but for its interpolations.
        for k in kids {
            if k.kind_name() != "token_tree" {
                continue;
            }
            if quotes(name) {
                self.quoted_tokens(k, name.ends_with("_spanned"));
            } else if !self.cfg_if_items(n, k)
                && !self.macro_items(n, k, cfg)
                && !self.macro_exprs(n, k)
                && !self.macro_blocks(n, k)
            {
                // (Only for tokens walked as tokens: not for the many
                // `assert!`/`format!` whose arguments parse as expressions.)
                if self.macro_values {
                    let mut bound = std::mem::take(&mut self.macro_bound);
                    self.token_bindings(k, false, &mut bound);
                    self.macro_bound = bound;
                }
                self.tokens(k);
            }
        }
        self.macro_values = outer;
        self.macro_bound = outer_bound;
    }

    /// The names a macro's tokens bind, which are locals there, not fns:
    /// in a pattern after `let` or `for` (up to `=` or `in`), between a
    /// closure's bars (`|(k, v)|`), before `@`, `=` or `=>` (a match arm,
    /// `tokio::select!`'s `Some(msg) = rx.recv() =>`), after `mut` or
    /// `ref`; in a tree, every name when the tree is one of those (`all`).
    /// (`a | b` counts `b` too: a name wrongly taken as bound costs an
    /// edge, never makes a wrong one.)
    fn token_bindings(&mut self, tt: Node, all: bool, out: &mut Vec<u32>) {
        let mut cursor = tt.walk();
        let kids: Vec<Node> = tt.children(&mut cursor).collect();
        let mut bars = false;
        let mut pattern = false;
        for (i, k) in kids.iter().enumerate() {
            let next = kids.get(i + 1).map(|n| n.kind());
            let binding_next = matches!(next, Some("@" | "=" | "=>"));
            match k.kind() {
                "let" | "for" => pattern = true,
                "=" => pattern = false,
                "|" => bars = !bars,
                "token_tree" => {
                    let whole = all || bars || pattern || binding_next;
                    self.token_bindings(*k, whole, out);
                }
                "identifier" if self.text(*k) == "in" => pattern = false,
                "identifier" => {
                    let prev = i.checked_sub(1).map(|p| kids[p].kind());
                    let after_mut = matches!(prev, Some("mutable_specifier" | "ref"));
                    if all || bars || pattern || binding_next || after_mut {
                        let name = self.node_name(*k);
                        out.push(name);
                    }
                }
                _ => {}
            }
        }
    }

    /// The last segment of a macro's path (`quote` of `quote::quote!`).
    fn macro_name(&self, m: Node) -> &'s str {
        match m.kind_name() {
            "scoped_identifier" => m.field("name").map_or("", |l| self.text(l)),
            _ => self.text(m),
        }
    }

    /// `glam_test!(test_align, { … })`: a call of another macro whose
    /// arguments parse cleanly as names, literals and blocks, a block among
    /// them. The blocks are walked as code, as a test macro expands them
    /// (their `let`s typed, their calls resolved); the names are left
    /// unresolved (a test macro's first one names the fn it makes). Returns
    /// whether it did.
    pub(super) fn macro_blocks(&mut self, mac: Node, tt: Node) -> bool {
        let name = mac.field("macro").map_or("", |m| self.macro_name(m));
        if name.is_empty()
            || std_macro(name).is_some()
            || self.depth >= MAX_NESTING / 2
            || tt.child(0).is_none_or(|o| o.kind_name() != "(")
        {
            return false;
        }
        // Parsed only when its tokens have that shape (a parse for every
        // macro call took rust-vendor's extraction from 4.1 to 5.8 s:
        // windows-sys's thousands of `link!(…)`).
        let mut cursor = tt.walk();
        let mut block = false;
        for k in tt.children(&mut cursor) {
            match k.kind_name() {
                "(" | ")" | "," | "identifier" | "string_literal" | "integer_literal"
                | "float_literal" | "boolean_literal" | "line_comment" | "block_comment" => {}
                "token_tree" if k.child(0).is_some_and(|o| o.kind_name() == "{") => block = true,
                _ => return false,
            }
        }
        if !block {
            return false;
        }
        let Some(tree) = crate::extract::rust::parse(self.src, Some(tt.range())) else {
            return false;
        };
        let Some(e) = one_expression(tree.root_node()) else {
            return false;
        };
        let mut cursor = e.walk();
        let args: Vec<Node> = match e.kind_name() {
            "tuple_expression" | "parenthesized_expression" => {
                e.named_children(&mut cursor).collect()
            }
            _ => return false,
        };
        let plain = |a: &Node| {
            matches!(
                a.kind_name(),
                "identifier"
                    | "block"
                    | "string_literal"
                    | "integer_literal"
                    | "float_literal"
                    | "boolean_literal"
            )
        };
        if !args.iter().all(plain) || !args.iter().any(|a| a.kind_name() == "block") {
            return false;
        }
        // At module level (`glam_test!` in item position), its locals
        // are its own, as a closure's there are.
        let own = self.locals.is_empty();
        if own {
            self.locals.push(HashMap::default());
        }
        self.depth += 1;
        for a in args.iter().filter(|a| a.kind_name() == "block") {
            let mark = self.scope_start();
            self.node(*a);
            self.scope_end(mark);
        }
        self.depth -= 1;
        if own {
            self.locals.pop();
        }
        true
    }

    /// `assert_eq!(a.len(), Vec::<u8>::new())`: the arguments of a std
    /// macro that takes expressions (see [`std_macro`]) are parsed and
    /// walked as expressions when they parse cleanly: `(a, b)` as a tuple,
    /// `[x; n]` as an array. Returns whether they were.
    pub(super) fn macro_exprs(&mut self, mac: Node, tt: Node) -> bool {
        let Some(name) = mac.field("macro") else {
            return false;
        };
        let name = match name.kind_name() {
            "identifier" => name,
            "scoped_identifier" => match name.field("name") {
                Some(n) => n,
                None => return false,
            },
            _ => return false,
        };
        if std_macro(self.text(name)) != Some(true) || self.depth >= MAX_NESTING / 2 {
            return false;
        }
        if tt.child(0).is_none_or(|o| o.kind_name() == "{") {
            return false;
        }
        let Some(tree) = crate::extract::rust::parse(self.src, Some(tt.range())) else {
            return false;
        };
        let Some(e) = one_expression(tree.root_node()) else {
            return false;
        };
        if !matches!(
            e.kind_name(),
            "tuple_expression"
                | "parenthesized_expression"
                | "array_expression"
                | "unit_expression"
        ) {
            return false;
        }
        self.depth += 1;
        let mut cursor = e.walk();
        let args: Vec<Node> = e.named_children(&mut cursor).collect();
        for a in args {
            // `format!("{x}", x = a.b())`: a named argument's value.
            let a = match (a.kind_name(), a.field("left"), a.field("right")) {
                ("assignment_expression", Some(l), Some(r)) if l.kind_name() == "identifier" => r,
                _ => a,
            };
            self.node(a);
        }
        self.depth -= 1;
        true
    }

    /// `cfg_if! { if #[cfg(a)] { items } else if #[cfg(b)] { items } else
    /// { items } }` in item position: every branch's items are walked, and
    /// those of a branch compiled out where rust-analyzer runs (its cfg is
    /// off, or an earlier one is on) are marked off, as under `#[cfg]`
    /// (hashbrown picks its `Group` so, libc its platform modules). Returns
    /// whether it did.
    pub(super) fn cfg_if_items(&mut self, mac: Node, tt: Node) -> bool {
        let name = mac.field("macro").and_then(|m| match m.kind_name() {
            "identifier" => Some(m),
            "scoped_identifier" => m.field("name"),
            _ => None,
        });
        let in_items = mac
            .parent()
            .is_some_and(|p| matches!(p.kind_name(), "source_file" | "declaration_list"));
        if name.is_none_or(|n| self.text(n) != "cfg_if")
            || !in_items
            || self.depth >= MAX_NESTING / 2
            || tt.child(0).is_none_or(|o| o.kind_name() != "{")
        {
            return false;
        }
        // (cfg value, body) per branch; the final `else` has no cfg.
        let mut cursor = tt.walk();
        let toks: Vec<Node> = tt
            .children(&mut cursor)
            .filter(|t| !t.kind_name().ends_with("comment"))
            .collect();
        let toks = &toks[1..toks.len().saturating_sub(1).max(1)];
        let mut branches: Vec<(Option<items::Cfg>, Node)> = Vec::new();
        let mut i = 0;
        loop {
            let word = |i: usize| toks.get(i).map(|t| self.text(*t));
            let cfg = if word(i) == Some("if") && word(i + 1) == Some("#") {
                // `[cfg(…)]`: the attribute's token tree.
                let attr = toks.get(i + 2).filter(|t| t.kind_name() == "token_tree");
                let args = attr.and_then(|a| match named_code_children(*a).as_slice() {
                    [k, args] if self.text(*k) == "cfg" => Some(self.text(*args)),
                    _ => None,
                });
                let Some(args) = args else {
                    return false;
                };
                i += 3;
                Some(items::cfg_value(args))
            } else if branches.is_empty() {
                return false;
            } else {
                None
            };
            let Some(body) = toks
                .get(i)
                .filter(|t| t.kind_name() == "token_tree")
                .filter(|t| t.child(0).is_some_and(|o| o.kind_name() == "{"))
            else {
                return false;
            };
            branches.push((cfg, *body));
            i += 1;
            if cfg.is_none() || i == toks.len() {
                break;
            }
            if word(i) != Some("else") {
                return false;
            }
            i += 1;
        }
        if i != toks.len() {
            return false;
        }
        let mut parsed = Vec::new();
        for (cfg, body) in branches {
            let (Some(open), Some(close)) = (
                body.child(0),
                body.child(body.child_count().saturating_sub(1)),
            ) else {
                continue;
            };
            if open.end_byte() >= close.start_byte() {
                continue;
            }
            if let Some(tree) = crate::extract::rust::parse(self.src, Some(between(open, close))) {
                parsed.push((cfg, tree));
            }
        }
        // A glob import in a branch (libc's `mod unix; pub use
        // self::unix::*;`) is left to the tokens: the chains of glob
        // re-exports it opens made the index's per-name lookups through
        // globs explode (libc did not finish indexing).
        let globs = parsed.iter().any(|(_, tree)| {
            let root = tree.root_node();
            let mut cursor = root.walk();
            let kids: Vec<Node> = root.named_children(&mut cursor).collect();
            kids.iter()
                .any(|k| k.kind_name() == "use_declaration" && self.text(*k).contains('*'))
        });
        if globs {
            return false;
        }
        let mut earlier_on = false;
        for (cfg, tree) in parsed {
            let off = earlier_on || cfg == Some(items::Cfg::Off);
            earlier_on |= cfg == Some(items::Cfg::On);
            let root = tree.root_node();
            let mut cursor = root.walk();
            let kids: Vec<Node> = root.named_children(&mut cursor).collect();
            let saved = self.block_off;
            self.block_off |= off;
            self.depth += 1;
            self.seq(kids);
            self.depth -= 1;
            self.block_off = saved;
        }
        true
    }

    /// `cfg_feature! { pub mod a; pub use a::B; }`: a brace-delimited macro
    /// in item position whose body parses as items is walked as items (its
    /// expansion usually is them). Returns whether it did.
    pub(super) fn macro_items(
        &mut self,
        mac: Node,
        tt: Node,
        (off, feature): (bool, Option<(u32, bool)>),
    ) -> bool {
        let in_items = mac
            .parent()
            .is_some_and(|p| matches!(p.kind_name(), "source_file" | "declaration_list"));
        if !in_items || self.depth >= MAX_NESTING / 2 {
            return false;
        }
        let (Some(open), Some(close)) = (tt.child(0), tt.child(tt.child_count().saturating_sub(1)))
        else {
            return false;
        };
        if open.kind_name() != "{"
            || close.kind_name() != "}"
            || open.end_byte() >= close.start_byte()
        {
            return false;
        }
        let range = between(open, close);
        let Some(tree) = crate::extract::rust::parse(self.src, Some(range)) else {
            return false;
        };
        let root = tree.root_node();
        let mut cursor = root.walk();
        let kids: Vec<Node> = root.named_children(&mut cursor).collect();
        // Items with a few unparsable spots (`Token![extern]` in a field
        // type) still count; expressions or mostly errors do not.
        let errors = kids.iter().filter(|c| c.is_error()).count();
        let items = kids
            .iter()
            .filter(|c| items::is_item_kind(c.kind_name()))
            .count();
        let other = kids.len() - errors - items;
        if items == 0 || errors >= items || other > 0 {
            return false;
        }
        // `#[cfg(windows)] cfg_os_poll! { mod windows; pub use
        // self::windows::*; }` (mio): the macro's cfg is its items'.
        let name = mac.field("macro").and_then(|m| match m.kind_name() {
            "identifier" => Some(m),
            "scoped_identifier" => m.field("name"),
            _ => None,
        });
        let start = (
            self.defs.len() as u32,
            self.scope.uses.len() as u32,
            self.scope.mods.len() as u32,
        );
        // `thread_local! { static CUR: T = …; }`: `CUR` is a `LocalKey<T>`.
        let local_keys =
            name.is_some_and(|m| matches!(self.text(m), "thread_local" | "task_local"));
        let outer_keys = std::mem::replace(&mut self.local_keys, local_keys);
        self.depth += 1;
        self.under_cfg(off, feature, |v| v.seq(kids));
        self.depth -= 1;
        self.local_keys = outer_keys;
        // Whether the macro puts a cfg on them is known where it is defined.
        if let Some(name) = name {
            let name = self.node_name(name);
            self.scope.macro_blocks.push(MacroBlock {
                name,
                defs: (start.0, self.defs.len() as u32),
                uses: (start.1, self.scope.uses.len() as u32),
                mods: (start.2, self.scope.mods.len() as u32),
            });
        }
        true
    }

    /// Macro arguments are not parsed: read calls, paths, method calls and
    /// macro calls off the tokens.
    pub(super) fn tokens(&mut self, tt: Node) {
        if self.depth >= MAX_NESTING {
            return;
        }
        self.depth += 1;
        self.tokens_inner(tt);
        self.depth -= 1;
    }

    pub(super) fn tokens_inner(&mut self, tt: Node) {
        let mut cursor = tt.walk();
        let kids: Vec<Node> = tt.children(&mut cursor).collect();
        self.token_run(&kids);
    }

    /// The tokens of `quote! { … }` (see [`V::macro_call`]): only its
    /// interpolations (`#ident`, `#private::Default`'s `private`) are
    /// names resolved where they are written, and for `quote_spanned!`
    /// the span expression before `=>`.
    fn quoted_tokens(&mut self, tt: Node, spanned: bool) {
        let mut cursor = tt.walk();
        let kids: Vec<Node> = tt.children(&mut cursor).collect();
        let arrow = kids.iter().position(|k| k.kind_name() == "=>");
        let rest = match arrow.filter(|_| spanned) {
            Some(a) => {
                self.token_run(&kids[1..a]);
                &kids[a + 1..]
            }
            None => &kids[..],
        };
        self.interpolations(rest);
    }

    fn interpolations(&mut self, kids: &[Node]) {
        for (i, k) in kids.iter().enumerate() {
            match k.kind_name() {
                "token_tree" if self.depth < MAX_NESTING => {
                    let mut cursor = k.walk();
                    let inner: Vec<Node> = k.children(&mut cursor).collect();
                    self.depth += 1;
                    self.interpolations(&inner);
                    self.depth -= 1;
                }
                "identifier" if i > 0 && kids[i - 1].kind_name() == "#" => {
                    let name = self.node_name(*k);
                    self.macro_value(name, pos(*k));
                }
                _ => {}
            }
        }
    }

    /// A lone name where a macro's tokens may pass a fn (see
    /// [`Role::MacroValue`]), unless it is a local, a generic parameter
    /// or a name the tokens bind.
    fn macro_value(&mut self, name: u32, at: Pos) {
        if self.unbound_in_macro(name) {
            self.path_site(vec![(name, at)], 0, Role::MacroValue);
        }
    }

    /// Whether `name` among a macro's tokens is no local, generic
    /// parameter or name the tokens bind.
    fn unbound_in_macro(&self, name: u32) -> bool {
        self.local(name).is_none()
            && self.generic(name).is_none()
            && !self.macro_bound.contains(&name)
    }

    /// The tree `kids[i]` among a macro's tokens. The arguments of a macro
    /// written there (`check!(stringify!(f))`) are read as that macro's
    /// (see [`values_in`], [`quotes`]); an attribute's (`#[cfg(test)]`)
    /// name no values.
    fn nested_tokens(&mut self, kids: &[Node], i: usize) {
        let kind = |k: usize| kids.get(k).map(|n| n.kind_name());
        let attribute = i >= 1 && kind(i - 1) == Some("#")
            || i >= 2 && kind(i - 1) == Some("!") && kind(i - 2) == Some("#");
        let mac = (i >= 2 && kind(i - 1) == Some("!") && kind(i - 2) == Some("identifier"))
            .then(|| self.text(kids[i - 2]));
        if let Some(m) = mac.filter(|m| quotes(m)) {
            self.quoted_tokens(kids[i], m.ends_with("_spanned"));
            return;
        }
        let values = self.macro_values && !attribute && mac.is_none_or(values_in);
        let outer = std::mem::replace(&mut self.macro_values, values);
        self.tokens(kids[i]);
        self.macro_values = outer;
    }

    fn token_run(&mut self, kids: &[Node]) {
        // The lone type-like names (`CheckedMul`) and value names
        // (`checked_mul`) among these tokens: see [`V::member_pairs`].
        let (mut types, mut values) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < kids.len() {
            let k = kids[i];
            match k.kind_name() {
                "token_tree" => {
                    self.nested_tokens(kids, i);
                    i += 1;
                }
                "identifier" | "crate" | "super" => {
                    let name = self.node_name(k);
                    let mut segs = vec![(name, pos(k))];
                    let mut j = i + 1;
                    while j + 1 < kids.len()
                        && kids[j].kind_name() == "::"
                        && kids[j + 1].kind_name() == "identifier"
                    {
                        let s = self.node_name(kids[j + 1]);
                        segs.push((s, pos(kids[j + 1])));
                        j += 2;
                    }
                    let prev = if i > 0 { kids[i - 1].kind_name() } else { "" };
                    // A turbofish (`.tuples::<(_, _)>()`, `dec_uint::<_, u32,
                    // _>`): what follows it (its types are walked as the next
                    // tokens).
                    let after = if segs.len() == 1 {
                        past_turbofish(kids, j)
                    } else {
                        j
                    };
                    let next = kids.get(after).copied();
                    let opens = |c: &str| {
                        next.is_some_and(|n| {
                            n.kind_name() == "token_tree"
                                && n.child(0).is_some_and(|o| o.kind_name() == c)
                        })
                    };
                    let call = opens("(");
                    let brace = opens("{");
                    let bang = next.is_some_and(|n| n.kind_name() == "!");
                    if prev == "." {
                        if call && segs.len() == 1 {
                            let recv = self.token_recv(kids, i - 1);
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
                        let declared = segs.len() == 1 && prev == "fn";
                        if call && !declared && !(segs.len() == 1 && self.local(name).is_some()) {
                            if let Some((segs, hidden)) = self.subst(segs) {
                                self.path_site(segs, hidden, Role::Call);
                            }
                        } else if (brace && upper_last) || !single_local {
                            if segs.len() == 1 && !brace && value_position(kids, i, after) {
                                types.push(segs[0]);
                            }
                            if let Some((segs, hidden)) = self.subst(segs) {
                                self.path_site(segs, hidden, Role::Ref);
                            }
                        } else if segs.len() == 1
                            && value_position(kids, i, after)
                            && self.unbound_in_macro(name)
                        {
                            // (Among items, a lone name is no value, but
                            // may be a method a trait's impl gets.)
                            values.push((name, pos(k)));
                            if self.macro_values {
                                self.path_site(vec![(name, pos(k))], 0, Role::MacroValue);
                            }
                        }
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
        self.member_pairs(&types, &values);
    }

    /// A macro given a trait and a method's name among its arguments
    /// (num-traits' `checked_impl!(CheckedMul, checked_mul, u8)`, which
    /// implements the trait with that method): each pair of a lone
    /// type-like name and a lone value name is a site of `Type::value`
    /// (its type hidden: it is a site of its own), kept only when the
    /// type is a trait with such a method (see [`Role::MacroValue`]).
    fn member_pairs(&mut self, types: &[(u32, Pos)], values: &[(u32, Pos)]) {
        if types.len() > MAX_PAIR_TYPES || values.len() > MAX_PAIR_VALUES {
            return;
        }
        for &ty in types {
            for &value in values {
                self.path_site(vec![ty, value], 1, Role::MacroValue);
            }
        }
    }

    /// The receiver of a method call in a token tree, `dot` being the index
    /// of the `.` before the method name: `self`, `self.a.b`, a local.
    pub(super) fn token_recv(&mut self, kids: &[Node], dot: usize) -> u32 {
        self.token_recv_depth(kids, dot, 0)
    }

    pub(super) fn token_recv_depth(&mut self, kids: &[Node], dot: usize, depth: u32) -> u32 {
        let mut chain = Vec::new();
        let mut d = dot;
        loop {
            if d == 0 || depth > 8 {
                return 0;
            }
            let k = kids[d - 1];
            match k.kind_name() {
                // `str![["…"]].m(`: a macro's value (see [`Recv::MacroCall`]).
                "token_tree" if d >= 3 && kids[d - 2].kind_name() == "!" => {
                    let m = kids[d - 3];
                    if !chain.is_empty()
                        || !matches!(m.kind_name(), "identifier" | "primitive_type")
                    {
                        return 0;
                    }
                    return self.macro_recv(m, tokens_name(k));
                }
                "token_tree" if d >= 2 && k.child(0).is_some_and(|o| o.kind_name() == "(") => {
                    // `f(…).m(`, `a::f(…).m(`, `x.f(…).m(`
                    let mut j = d - 2;
                    if kids[j].kind_name() != "identifier" {
                        return 0;
                    }
                    let mut path = vec![(self.node_name(kids[j]), pos(kids[j]))];
                    while j >= 2
                        && kids[j - 1].kind_name() == "::"
                        && kids[j - 2].kind_name() == "identifier"
                    {
                        path.insert(0, (self.node_name(kids[j - 2]), pos(kids[j - 2])));
                        j -= 2;
                    }
                    let mut r = if j >= 1 && kids[j - 1].kind_name() == "." && path.len() == 1 {
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
                    if d >= 2 && kids[d - 2].kind_name() == "." {
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

/// The index past a turbofish starting at `kids[at]` (`::<Vec<_>>`), or
/// `at` when there is none or it does not close.
fn past_turbofish(kids: &[Node], at: usize) -> usize {
    let kind = |k: usize| kids.get(k).map(|n| n.kind_name());
    if kind(at) != Some("::") || kind(at + 1) != Some("<") {
        return at;
    }
    let mut open = 0usize;
    for (k, n) in kids.iter().enumerate().skip(at + 1) {
        match n.kind_name() {
            "<" => open += 1,
            ">" => open -= 1,
            ">>" => open = open.saturating_sub(2),
            _ => {}
        }
        if open == 0 {
            return k + 1;
        }
    }
    at
}

/// Arguments in a `( … )` token tree: top-level commas, unless a closure
/// (`|a, b|`) makes commas ambiguous.
pub(super) fn token_args(tt: Node) -> u8 {
    let mut cursor = tt.walk();
    let mut commas = 0usize;
    let mut tokens = 0usize;
    let mut last_comma = false;
    for c in tt.children(&mut cursor) {
        match c.kind_name() {
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

/// The arguments of a call's argument list: comments and attributes not.
fn arguments(args: Node) -> Vec<Node> {
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|c| {
            !matches!(
                c.kind_name(),
                "line_comment" | "block_comment" | "attribute_item"
            )
        })
        .collect()
}

/// The element patterns of a tuple or tuple-struct pattern, in order: `_`
/// included (an anonymous token, so not among the named children), the
/// path `skip` and comments not.
fn pattern_elements<'t>(p: Node<'t>, skip: Option<Node<'t>>) -> Vec<Node<'t>> {
    let mut cursor = p.walk();
    p.children(&mut cursor)
        .filter(|k| {
            Some(*k) != skip
                && (k.is_named() || k.kind_name() == "_")
                && !matches!(
                    k.kind_name(),
                    "line_comment" | "block_comment" | "attribute_item"
                )
        })
        .collect()
}

/// The one expression a parse of a macro argument holds, if it parsed
/// cleanly: a statement (its `;` missing) or an error node around exactly
/// one error-free expression (`"{}"`, `[1, 2]` and `a = b` are errors at
/// the top of a file).
fn one_expression(root: Node) -> Option<Node> {
    // (An error node can be the root itself.)
    let s = if root.is_error() {
        root
    } else if root.named_child_count() == 1 {
        root.named_child(0)?
    } else {
        return None;
    };
    if !matches!(s.kind_name(), "expression_statement" | "ERROR") {
        return None;
    }
    let mut cursor = s.walk();
    let mut kids = s.children(&mut cursor).filter(|k| !k.is_missing());
    let e = kids.next()?;
    if kids.next().is_some() || !e.is_named() || e.has_error() || e.is_error() {
        return None;
    }
    Some(e)
}

/// The source between the end of `open` and the start of `close`.
fn between(open: Node, close: Node) -> tree_sitter::Range {
    tree_sitter::Range {
        start_byte: open.end_byte(),
        end_byte: close.start_byte(),
        start_point: open.end_position(),
        end_point: close.start_position(),
    }
}

/// Whether a lone snake_case name among the arguments of the macro named
/// `name` may be a fn passed as a value. Not for std macros whose arguments
/// are not expressions (`stringify!(f)`, `matches!(x, Some(f))`), nor for
/// those that quote or paste tokens into new code (`quote! { fn f() }`,
/// `paste! { [<get_ f>] }`), whose names are not references.
/// At most this many type-like names and value names are paired among a
/// macro's tokens (see [`V::member_pairs`]).
const MAX_PAIR_TYPES: usize = 3;
const MAX_PAIR_VALUES: usize = 6;

fn values_in(name: &str) -> bool {
    !matches!(name, "paste" | "concat_idents" | "format_ident")
        && !quotes(name)
        && std_macro(name) != Some(false)
}

/// Whether the macro named `name` quotes code (see [`V::macro_call`]).
fn quotes(name: &str) -> bool {
    matches!(
        name,
        "quote" | "quote_spanned" | "parse_quote" | "parse_quote_spanned"
    )
}

/// Whether the lone name `kids[i]` (the next token at `kids[next]`) stands
/// where a value (or a type) goes among a macro's tokens: after the tree's
/// opening or `,`, `;`, `=`, `:`, `=>`, `->`, `&` or `return`, and before
/// its closing, `,`, `;` or a method call (`digits.parse(…)`). So not a
/// flag or tag of a macro's own language (clap's `arg!(-c --config
/// <FILE>)`, `html! { <div> }`), a field read (`task.name = …`), an operand
/// (`key + item`), a label or key (`x: …`, `name = …`), a declared name
/// (`fn f`) or a path's head. (A keyword read as a name, `in`, names no fn:
/// its site makes no edge.)
fn value_position(kids: &[Node], i: usize, next: usize) -> bool {
    let prev = i.checked_sub(1).map(|p| kids[p].kind());
    let after = |k: usize| kids.get(next + k).map(|n| n.kind());
    let opens = matches!(
        prev,
        None | Some("(" | "[" | "{" | "," | ";" | "=" | ":" | "=>" | "->" | "&" | "return")
    );
    let method = after(0) == Some(".")
        && after(1) == Some("identifier")
        && after(2) == Some("token_tree")
        && kids[next + 2].child(0).is_some_and(|o| o.kind() == "(");
    let closes = method || matches!(after(0), None | Some(")" | "]" | "}" | "," | ";"));
    opens && closes
}
