//! Generics, types and paths: what a type or path names, with its sites.

use super::*;

impl<'s> V<'s> {
    pub(super) fn type_params(&mut self, tp: Node) {
        let mut cursor = tp.walk();
        let kids: Vec<Node> = tp.named_children(&mut cursor).collect();
        let first = self.generics.len();
        self.bound_bindings.retain(|&(j, _)| j < first);
        for k in &kids {
            if matches!(k.kind_name(), "type_parameter" | "const_parameter") {
                if let Some(name) = k.field("name") {
                    let name = self.node_name(name);
                    self.generics.push((name, None));
                }
            }
        }
        let mut slot = first;
        for k in kids {
            match k.kind_name() {
                "type_parameter" => {
                    if let Some(b) = k.field("bounds") {
                        let name = self.generics.get(slot).map(|g| g.0);
                        let bound = self.bounds(b, name);
                        if let Some(g) = self.generics.get_mut(slot) {
                            g.1 = bound;
                        }
                    }
                    if let Some(d) = k.field("default_type") {
                        self.ty(d);
                    }
                    slot += 1;
                }
                "const_parameter" => {
                    if let Some(t) = k.field("type") {
                        self.ty(t);
                    }
                    slot += 1;
                }
                _ => {}
            }
        }
    }

    /// Record sites of every bound; return the bound that best names the
    /// type's methods: the first that is not a common std trait, else the
    /// first, else the `Fn`/`FnMut`/`FnOnce` of a callable. The bounds
    /// of a fn's generic parameter `param` that are not common std traits
    /// are noted for [`BoundSet`].
    pub(super) fn bounds(&mut self, b: Node, param: Option<u32>) -> Option<Segs> {
        let mut first = None;
        let mut callable: Option<Segs> = None;
        let mut uncommon = Vec::new();
        let mut cursor = b.walk();
        let kids: Vec<Node> = b.named_children(&mut cursor).collect();
        for k in kids {
            if k.kind_name() == "lifetime" {
                continue;
            }
            // `TimeZone<Offset = Fixed>`: the associated types it fixes.
            if let (Some(name), Some(args)) = (
                param,
                (k.kind_name() == "generic_type")
                    .then(|| k.field("type_arguments"))
                    .flatten(),
            ) {
                if let Some(i) = self.generics.iter().rposition(|g| g.0 == name) {
                    let mut cur = args.walk();
                    let binds: Vec<Node> = args
                        .named_children(&mut cur)
                        .filter(|a| a.kind_name() == "type_binding")
                        .collect();
                    for a in binds {
                        if let Some(an) = a.field("name") {
                            let an = self.node_name(an);
                            self.bound_bindings.push((i, an));
                        }
                    }
                }
            }
            let t = self.ty(k);
            // (A fn's own generic parameters only: an impl's or a type's
            // would outlive the item where nothing truncates them.)
            if let (Ty::Fn(params), Some(name), true) = (&t, param, self.fn_bounds.is_some()) {
                self.closure_bounds.push((name, params.clone()));
            }
            // `F: FnMut(&mut I) -> R`: a callable, known by its trait's
            // path (`FnMut`) when no other trait bounds it.
            if let (Ty::Fn(_), None, Some(tr)) = (&t, &callable, k.field("trait")) {
                let mut segs = Vec::new();
                if self.path(tr, &mut segs) {
                    let path: Segs = segs.iter().map(|s| s.0).collect();
                    if let (Some(name), Some(noted)) = (param, self.impl_callables.as_mut()) {
                        noted.push((name, path.clone()));
                    }
                    callable = Some(path);
                }
            }
            if let Ty::Path(p) | Ty::Generic(p, _) = t {
                if !self.is_std_trait(&p) {
                    uncommon.push(p.clone());
                }
                first.get_or_insert(p);
            }
        }
        let best = uncommon.first().cloned().or(first).or(callable);
        if let (Some(name), Some(noted)) = (param, self.fn_bounds.as_mut()) {
            noted.push((name, uncommon.into_iter().map(Segs::into_vec).collect()));
        }
        best
    }

    /// Whether generic `param`'s bound fixes its associated type `assoc`
    /// (`T: TimeZone<Offset = Fixed>`).
    fn bound_fixes(&self, param: u32, assoc: u32) -> bool {
        self.generics
            .iter()
            .rposition(|g| g.0 == param)
            .is_some_and(|i| self.bound_bindings.contains(&(i, assoc)))
    }

    pub(super) fn is_std_trait(&self, path: &[u32]) -> bool {
        path.last()
            .is_some_and(|&l| STD_TRAITS.contains(&self.str_of(l)))
    }

    pub(super) fn where_clause(&mut self, wc: Node) {
        let mut cursor = wc.walk();
        let preds: Vec<Node> = wc.named_children(&mut cursor).collect();
        for p in preds {
            let Some(left) = p.field("left") else {
                if let Some(b) = p.field("bounds") {
                    self.bounds(b, None);
                }
                continue;
            };
            let param = (left.kind_name() == "type_identifier").then(|| self.node_name(left));
            let bound = match p.field("bounds") {
                Some(b) => self.bounds(b, param),
                None => None,
            };
            if let Some(name) = param {
                let std_bound =
                    |s: &Self, b: &Option<Segs>| b.as_ref().is_none_or(|p| s.is_std_trait(p));
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

    pub(super) fn ty(&mut self, n: Node) -> Ty {
        self.ty_role(n, Role::Ref)
    }

    /// Record the sites of a type; `role` applies to its outermost path.
    pub(super) fn ty_role(&mut self, n: Node, role: Role) -> Ty {
        match n.kind_name() {
            "type_identifier" | "scoped_type_identifier" => self.type_path(n, role),
            "generic_type" => {
                let base = n.field("type");
                let mut args = Vec::new();
                // `Iterator<Item = T>` (`impl Iterator<Item = &Command>`):
                // the item's type is the one argument, as a `Vec<T>`'s.
                let mut item = None;
                if let Some(ta) = n.field("type_arguments") {
                    let mut cursor = ta.walk();
                    let kids: Vec<Node> = ta.named_children(&mut cursor).collect();
                    for k in kids {
                        let bound = (k.kind_name() == "type_binding"
                            && k.field("name").is_some_and(|nm| self.text(nm) == "Item"))
                        .then(|| k.field("type"))
                        .flatten();
                        match bound {
                            Some(b) => item = Some(self.ty(b)),
                            None => args.push(self.type_arg(k)),
                        }
                    }
                }
                if let Some(item) = item {
                    args = vec![item];
                }
                let Some(base) = base else {
                    return Ty::Unknown;
                };
                let ty = self.type_path(base, role);
                args.truncate(MAX_TYPE_ARGS);
                match ty {
                    Ty::Path(p) => Ty::Generic(p, args),
                    other => other,
                }
            }
            "reference_type" | "pointer_type" => match n.field("type") {
                Some(t) => self.ty_role(t, role),
                None => Ty::Unknown,
            },
            "dynamic_type" | "abstract_type" => match n.field("trait") {
                Some(t) => self.ty_role(t, role),
                None => Ty::Unknown,
            },
            "higher_ranked_trait_bound" => match n.field("type") {
                Some(t) => self.ty_role(t, role),
                None => Ty::Unknown,
            },
            "bounded_type" => {
                let mut first = Ty::Unknown;
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                for k in kids {
                    if k.kind_name() == "lifetime" {
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
            "trait_bounds" => match self.bounds(n, None) {
                Some(p) => Ty::Path(p),
                None => Ty::Unknown,
            },
            "function_type" => {
                if let Some(tr) = n.field("trait") {
                    self.type_arg(tr);
                }
                let mut params = Vec::new();
                if let Some(ps) = n.field("parameters") {
                    for k in named_code_children(ps) {
                        let k = match k.kind_name() {
                            "parameter" => match k.field("type") {
                                Some(t) => t,
                                None => continue,
                            },
                            _ => k,
                        };
                        let ty = self.type_arg(k);
                        // A generic parameter (or a trait's `Self`) is what
                        // the caller's argument is, not its bound.
                        let mut bare = k;
                        while bare.kind_name() == "reference_type" {
                            match bare.field("type") {
                                Some(t) => bare = t,
                                None => break,
                            }
                        }
                        let text = self.text(bare);
                        let generic = bare.kind_name() == "type_identifier"
                            && ((text == "Self" && self.self_is_trait)
                                || self.generics.iter().any(|(n, _)| self.str_of(*n) == text));
                        params.push(if generic { Ty::Unknown } else { ty });
                    }
                }
                if let Some(r) = n.field("return_type") {
                    self.type_arg(r);
                }
                Ty::Fn(params)
            }
            // `&(impl TermLike + ?Sized)` (indicatif): one type in
            // parentheses, without the comma of a one-element tuple.
            "tuple_type"
                if n.named_child_count() == 1
                    && !(0..n.child_count())
                        .any(|i| n.child(i).is_some_and(|c| c.kind() == ",")) =>
            {
                match n.named_child(0) {
                    Some(t) => self.ty_role(t, role),
                    None => Ty::Unknown,
                }
            }
            "type_arguments"
            | "tuple_type"
            | "array_type"
            | "removed_trait_bound"
            | "bracketed_type"
            | "qualified_type" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                let mut all = Vec::new();
                for k in kids {
                    let t = self.type_arg(k);
                    all.push(t);
                }
                match n.kind_name() {
                    "array_type" => {
                        Ty::Slice(Box::new(all.into_iter().next().unwrap_or(Ty::Unknown)))
                    }
                    "tuple_type" => Ty::Tuple(all),
                    _ => Ty::Unknown,
                }
            }
            _ => {
                self.node(n);
                Ty::Unknown
            }
        }
    }

    /// `str`, `&'static str`, `u8`: a primitive type (behind references)
    /// as a path of its name, where telling primitives apart matters.
    pub(super) fn primitive_named(&mut self, mut k: Node) -> Option<Ty> {
        while matches!(k.kind_name(), "reference_type" | "pointer_type") {
            k = k.field("type")?;
        }
        (k.kind_name() == "primitive_type")
            .then(|| Ty::Path(smallvec::smallvec![self.node_name(k)]))
    }

    /// A type argument, a parameter of a function type, an array length…
    pub(super) fn type_arg(&mut self, k: Node) -> Ty {
        match k.kind_name() {
            "type_binding" => {
                if let Some(t) = k.field("type") {
                    self.ty(t);
                }
                Ty::Unknown
            }
            "parameters" => {
                let mut cursor = k.walk();
                let kids: Vec<Node> = k.named_children(&mut cursor).collect();
                for p in kids {
                    match p.kind_name() {
                        "parameter" => {
                            if let Some(t) = p.field("type") {
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
    pub(super) fn type_path(&mut self, n: Node, role: Role) -> Ty {
        let mut segs = Vec::new();
        if !self.path(n, &mut segs) {
            return Ty::Unknown;
        }
        let own = self.own_assoc_ty(&segs);
        let std_generic = self.caller_view
            && segs.len() == 1
            && matches!(self.generic(segs[0].0), Some(Some(b)) if self.is_std_trait(b));
        // `T::Offset` of a `T: TimeZone` (or `Self::Offset` in the trait):
        // the trait's associated type, as a path the resolver reads.
        let projection = segs.len() == 2
            && match self.generic(segs[0].0) {
                Some(Some(b)) => !self.is_std_trait(b) && !self.bound_fixes(segs[0].0, segs[1].0),
                Some(None) => false,
                None => self.self_is_trait && self.str_of(segs[0].0) == "Self",
            };
        match self.subst(segs) {
            Some((segs, hidden)) => {
                let names: Segs = segs.iter().map(|s| s.0).collect();
                // `T::Assoc` of a generic `T`: an associated type, unknown.
                let ty = if let Some(t) = own {
                    t
                } else if projection {
                    Ty::Path(names)
                } else if std_generic || (hidden > 0 && segs.len() > hidden as usize) {
                    Ty::Unknown
                } else {
                    Ty::Path(names)
                };
                self.path_site(segs, hidden, role);
                ty
            }
            // (`Self::Iter` in a blanket impl, whose `Self` has no path.)
            None => own.unwrap_or(Ty::Unknown),
        }
    }

    /// `Self::Name` in an impl declaring `type Name = T;`: `T`.
    fn own_assoc_ty(&self, segs: &[(u32, Pos)]) -> Option<Ty> {
        let [(first, _), (name, _)] = *segs else {
            return None;
        };
        if self.str_of(first) != "Self" {
            return None;
        }
        self.assoc_tys
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
    }

    /// Replace a leading generic parameter by its bound and `Self` by the
    /// impl's type. `None`: the path names nothing we can know.
    pub(super) fn subst(&mut self, segs: Vec<(u32, Pos)>) -> Option<(Vec<(u32, Pos)>, u8)> {
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
    pub(super) fn path(&mut self, n: Node, out: &mut Vec<(u32, Pos)>) -> bool {
        self.qhidden = 0;
        self.path_rec(n, out)
    }

    pub(super) fn path_rec(&mut self, n: Node, out: &mut Vec<(u32, Pos)>) -> bool {
        match n.kind_name() {
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
                match n.field("path") {
                    Some(p) if !self.path_rec(p, out) => return false,
                    Some(_) => {}
                    // `::name`: a crate (edition 2018 on), never a module
                    // or item in scope; the resolver reads the marker.
                    None if n.child(0).is_some_and(|c| c.kind_name() == "::") => {
                        let marker = self.name(GLOBAL_PATH);
                        out.push((marker, pos(n)));
                    }
                    None => {}
                }
                match n.field("name") {
                    Some(name) => self.path_rec(name, out),
                    None => false,
                }
            }
            "generic_type" | "generic_type_with_turbofish" => {
                if let Some(ta) = n.field("type_arguments") {
                    self.ty(ta);
                }
                match n.field("type") {
                    Some(t) => self.path_rec(t, out),
                    None => false,
                }
            }
            "bracketed_type" => {
                let Some(inner) = n.named_child(0) else {
                    return false;
                };
                if inner.kind_name() == "qualified_type" {
                    let ty = inner.field("type");
                    let concrete = ty.filter(|t| match t.kind_name() {
                        // `Self` of an impl for an outside type (`impl
                        // MulAdd for f32`'s `<Self as Float>::mul_add`):
                        // the trait's item, as for a primitive.
                        "type_identifier" => {
                            let name = self.node_name(*t);
                            self.generic(name).is_none()
                                && (self.str_of(name) != "Self" || self.self_path.is_some())
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
                        if let Some(a) = inner.field("alias") {
                            self.ty(a);
                        }
                        let before = out.len();
                        let ok = self.path_rec(t, out);
                        self.qhidden = (out.len() - before).min(u8::MAX as usize) as u8;
                        return ok;
                    }
                    // `<T as Trait>::f` of a generic `T`: the trait's item.
                    match inner.field("alias") {
                        Some(a) => {
                            let (base, args) = match a.kind_name() {
                                "generic_type" => (a.field("type"), a.field("type_arguments")),
                                _ => (Some(a), None),
                            };
                            if let Some(args) = args {
                                self.ty(args);
                            }
                            base.is_some_and(|b| self.path_rec(b, out))
                        }
                        None => false,
                    }
                } else if matches!(
                    inner.kind_name(),
                    "type_identifier" | "scoped_type_identifier"
                ) {
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
}
