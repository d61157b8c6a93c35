//! Definitions: fns, types, traits, impls, modules, macros, `use` trees.

use super::*;

impl<'s> V<'s> {
    /// (first line including attributes, is a test, has `#[macro_export]`)
    pub(super) fn attrs(&mut self, n: Node) -> (u32, bool, bool) {
        let own = line(n.start_position().row);
        match self.attrs.take() {
            Some(p) => {
                self.cfg_off = p.off;
                self.cfg_feature = p.feature;
                self.attr_path = p.path;
                (p.start.min(own), p.test, p.export)
            }
            None => {
                self.cfg_off = false;
                self.cfg_feature = None;
                self.attr_path = None;
                (own, false, false)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_def(
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
        if let Some((name, on)) = self.cfg_feature.take().or(self.block_feature) {
            self.scope.cfg_features.push(CfgFeature { def, name, on });
        }
        def
    }

    pub(super) fn free_parent(&self) -> u32 {
        self.cur_fn
    }

    pub(super) fn register_item(&mut self, def: u32, is_macro: bool) {
        if self.cur_fn == 0 {
            self.scope.items.push(Item {
                def,
                module: self.module,
                is_macro,
            });
        } else if is_macro {
            self.scope.local_macros.push(def);
        }
    }

    pub(super) fn function(&mut self, n: Node) {
        let Some(name_node) = n.field("name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let (start, test, _) = self.attrs(n);
        let vis = self.visibility(n);
        let base = self.base();
        let assoc = self.assoc.clone();
        let (kind, local, parent, exported) = match &assoc {
            Some(Assoc::Impl(_, ty, is_trait)) => (
                NodeKind::Method,
                format!("{base}{ty}::{name}"),
                self.free_parent(),
                vis != Vis::Private || *is_trait,
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
                vis != Vis::Private,
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
        let closure_bounds_len = self.closure_bounds.len();
        self.cur = def;
        self.fn_bounds = Some(Vec::new());
        if let Some(tp) = n.field("type_parameters") {
            self.type_params(tp);
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        self.bound_sets(def);
        self.locals.push(HashMap::default());
        let undo = self.scope_start();
        if let Some(params) = n.field("parameters") {
            let mut cursor = params.walk();
            let kids: Vec<Node> = params.named_children(&mut cursor).collect();
            if assoc.is_some() {
                let is_self = |p: &Node| {
                    p.kind_name() == "self_parameter"
                        || (p.kind_name() == "parameter"
                            && p.field("pattern")
                                .is_some_and(|pat| pat.kind_name() == "self"))
                };
                let has_self = kids.iter().any(is_self);
                let params = kids
                    .iter()
                    .filter(|p| {
                        matches!(p.kind_name(), "parameter" | "variadic_parameter") && !is_self(p)
                    })
                    .count();
                self.scope.sigs.push(Sig {
                    def,
                    params: params.min(UNKNOWN_ARGS as usize - 1) as u8,
                    has_self,
                    super_only: matches!(assoc, Some(Assoc::Impl(_, _, false)))
                        && vis == Vis::Super,
                });
            }
            let mut arg = 0u8;
            for p in kids {
                if p.kind_name() != "parameter" {
                    continue;
                }
                let ty = match p.field("type") {
                    Some(t) => self.ty(t),
                    None => Ty::Unknown,
                };
                let is_self = p
                    .field("pattern")
                    .is_some_and(|pat| pat.kind_name() == "self");
                if !is_self {
                    if let Some(params) = p.field("type").and_then(|t| self.closure_params(t, &ty))
                    {
                        self.scope.closures.push(ClosureSig {
                            def,
                            module: self.module,
                            arg,
                            params,
                        });
                    }
                    arg = arg.saturating_add(1);
                }
                let r = self.recv(Recv::Ty(ty));
                if let Some(pat) = p.field("pattern") {
                    self.pattern(pat, r);
                }
            }
        }
        if let Some(rt) = n.field("return_type") {
            self.caller_view = true;
            let ty = self.ty(rt);
            self.caller_view = false;
            if ty != Ty::Unknown {
                self.scope.rets.push(Ret {
                    def,
                    module: self.module,
                    ty,
                });
            }
        }
        if let Some(body) = n.field("body") {
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
        self.undo.truncate(undo);
        self.generics.truncate(generics_len);
        self.closure_bounds.truncate(closure_bounds_len);
        self.cur = saved_cur;
    }

    /// The parameter types of the closure a parameter of type `t` (typed
    /// `ty`) takes: `impl Fn(A)`, `&dyn FnMut(A)`, `Box<dyn Fn(A)>`,
    /// `fn(A)`, or a generic parameter bounded by one of those.
    fn closure_params(&self, t: Node, ty: &Ty) -> Option<Vec<Ty>> {
        match ty {
            Ty::Fn(params) => return Some(params.clone()),
            Ty::Generic(_, args) => {
                if let [Ty::Fn(params)] = &args[..] {
                    return Some(params.clone());
                }
            }
            _ => {}
        }
        let mut t = t;
        while t.kind_name() == "reference_type" {
            t = t.field("type")?;
        }
        if t.kind_name() != "type_identifier" {
            return None;
        }
        let name = self.text(t);
        self.closure_bounds
            .iter()
            .rev()
            .find(|(n, _)| self.str_of(*n) == name)
            .map(|(_, params)| params.clone())
    }

    /// The fn's generic parameters bounded by several traits
    /// (`I: Slice<…> + InputLength`): a receiver of such a type is typed by
    /// the first, and the resolver looks for a method missing there in the
    /// others.
    fn bound_sets(&mut self, def: u32) {
        let Some(noted) = self.fn_bounds.take() else {
            return;
        };
        let mut by_name: Vec<(u32, Vec<Vec<u32>>)> = Vec::new();
        for (name, paths) in noted {
            match by_name.iter_mut().find(|(n, _)| *n == name) {
                Some((_, all)) => all.extend(paths),
                None => by_name.push((name, paths)),
            }
        }
        for (name, mut bounds) in by_name {
            // The bound the parameter's type is written as comes first.
            let Some(Some(first)) = self.generic(name).cloned() else {
                continue;
            };
            bounds.retain(|b| b[..] != first[..]);
            bounds.dedup();
            if bounds.is_empty() {
                continue;
            }
            bounds.insert(0, first.into_vec());
            self.refs.bound_sets.push(BoundSet { owner: def, bounds });
        }
    }

    pub(super) fn adt(&mut self, n: Node) {
        let Some(name_node) = n.field("name") else {
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
        let closure_bounds_len = self.closure_bounds.len();
        self.cur = def;
        let mut params = Vec::new();
        if let Some(tp) = n.field("type_parameters") {
            self.type_params(tp);
            let mut cursor = tp.walk();
            for k in tp.named_children(&mut cursor) {
                match k.kind_name() {
                    "attribute_item" | "comment" | "line_comment" | "block_comment" => {}
                    "type_parameter" => match k.field("name") {
                        Some(name) => params.push(self.node_name(name)),
                        None => params.push(NONE),
                    },
                    _ => params.push(NONE),
                }
            }
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        let saved_params = std::mem::replace(&mut self.adt_params, params);
        if let Some(body) = n.field("body") {
            self.fields(def, body, Record::Own);
        }
        self.adt_params = saved_params;
        self.generics.truncate(generics_len);
        self.closure_bounds.truncate(closure_bounds_len);
        self.cur = saved_cur;
    }

    /// The fields of a struct, enum or enum variant `body`, recorded as
    /// `record` says; field types are visited in any case (they hold
    /// references).
    pub(super) fn fields(&mut self, owner: u32, body: Node, record: Record) {
        let mut cursor = body.walk();
        let kids: Vec<Node> = body.named_children(&mut cursor).collect();
        let mut ordinal = 0;
        for k in kids {
            match k.kind_name() {
                "field_declaration" => {
                    let ty = match k.field("type") {
                        Some(t) => self.field_ty(t, record),
                        None => Ty::Unknown,
                    };
                    let name = match (record, k.field("name")) {
                        (Record::Own, Some(f)) => Some(self.node_name(f)),
                        (Record::Variant(v), Some(f)) => {
                            let name = format!("{v}::{}", self.text(f));
                            Some(self.name(&name))
                        }
                        _ => None,
                    };
                    if let Some(name) = name {
                        self.scope.fields.get_mut().push(Field { owner, name, ty });
                    }
                }
                "enum_variant" => {
                    if let (Record::Own, Some(v)) = (record, k.field("name")) {
                        let v = self.node_name(v);
                        self.scope.variants.push((owner, v));
                    }
                    if let Some(b) = k.field("body") {
                        match (record, k.field("name")) {
                            (Record::Own, Some(v)) => {
                                let v = self.text(v).to_string();
                                self.fields(owner, b, Record::Variant(&v));
                            }
                            _ => self.fields(owner, b, Record::Skip),
                        }
                    }
                    if let Some(v) = k.field("value") {
                        self.node(v);
                    }
                }
                "attribute_item" | "visibility_modifier" => {}
                kind if is_type_kind(kind) => {
                    let ty = self.field_ty(k, record);
                    let name = match record {
                        Record::Own => Some(self.name(&ordinal.to_string())),
                        Record::Variant(v) => Some(self.name(&format!("{v}::{ordinal}"))),
                        Record::Skip => None,
                    };
                    if let Some(name) = name {
                        self.scope.fields.get_mut().push(Field { owner, name, ty });
                    }
                    ordinal += 1;
                }
                _ => {}
            }
        }
    }

    /// A field's type: [`Ty::Param`] for a struct's own field typed by
    /// one of its unbounded type parameters (through references), or for
    /// such an argument of a generic type (`inner: Option<T>`);
    /// [`Ty::BoundParam`] for one typed by a bounded parameter.
    fn field_ty(&mut self, t: Node, record: Record) -> Ty {
        let mut ty = self.ty(t);
        if !matches!(record, Record::Own) {
            return ty;
        }
        match &mut ty {
            Ty::Unknown => self.own_param(t).unwrap_or(ty),
            Ty::Path(bound) => match self.own_param(t) {
                Some(Ty::Param(i)) => Ty::BoundParam(i, std::mem::take(bound)),
                _ => ty,
            },
            Ty::Generic(_, args) if args.contains(&Ty::Unknown) => {
                let bare = strip_refs(t);
                let Some(ta) = bare.and_then(|b| b.field("type_arguments")) else {
                    return ty;
                };
                let mut cursor = ta.walk();
                for (a, k) in args.iter_mut().zip(ta.named_children(&mut cursor)) {
                    if *a == Ty::Unknown {
                        if let Some(p) = self.own_param(k) {
                            *a = p;
                        }
                    }
                }
                ty
            }
            _ => ty,
        }
    }

    /// [`Ty::Param`] when type node `t` is one of the struct's own type
    /// parameters, through references.
    fn own_param(&mut self, t: Node) -> Option<Ty> {
        let bare = strip_refs(t)?;
        if bare.kind_name() != "type_identifier" {
            return None;
        }
        let name = self.node_name(bare);
        match self.adt_params.iter().position(|&p| p == name) {
            Some(i) if i <= u8::MAX as usize => Some(Ty::Param(i as u8)),
            _ => None,
        }
    }

    pub(super) fn trait_item(&mut self, n: Node) {
        let Some(name_node) = n.field("name") else {
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
        let closure_bounds_len = self.closure_bounds.len();
        self.cur = def;
        if let Some(tp) = n.field("type_parameters") {
            self.type_params(tp);
        }
        if let Some(bounds) = n.field("bounds") {
            let mut cursor = bounds.walk();
            let kids: Vec<Node> = bounds.named_children(&mut cursor).collect();
            for b in kids {
                if let Ty::Path(path) | Ty::Generic(path, _) = self.ty_role(b, Role::Extends(def)) {
                    self.scope.supers.push(Super {
                        def,
                        module: self.module,
                        path: path.into_vec(),
                    });
                }
            }
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        if let Some(body) = n.field("body") {
            let saved_assoc = self.assoc.replace(Assoc::Trait(def, tname.clone()));
            let self_name = self.name(&tname);
            let saved_self = self.self_path.replace(smallvec::smallvec![self_name]);
            let saved_is_trait = std::mem::replace(&mut self.self_is_trait, true);
            let saved_assoc_tys = std::mem::take(&mut self.assoc_tys);
            self.children(body);
            self.assoc_tys = saved_assoc_tys;
            self.self_is_trait = saved_is_trait;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.generics.truncate(generics_len);
        self.closure_bounds.truncate(closure_bounds_len);
        self.cur = saved_cur;
    }

    /// The associated types an impl body declares (`type Error = E;`),
    /// read before its methods, which may name them first. Their sites are
    /// recorded when the items themselves are walked, not here. In an impl
    /// of trait `tr`, one the syntax does not name is [`Ty::ImplAssoc`].
    fn assoc_tys(&mut self, body: Node, tr: &Segs) -> Vec<(u32, Ty)> {
        let (sites, recvs) = (self.refs.sites.len(), self.refs.recvs.len());
        let mut out = Vec::new();
        let mut cursor = body.walk();
        for k in body.named_children(&mut cursor) {
            if k.kind_name() != "type_item" {
                continue;
            }
            if let (Some(name), Some(t)) = (k.field("name"), k.field("type")) {
                let name = self.node_name(name);
                let ty = self.ty(t);
                // `<&'a I as IntoPar>::Iter`, `I::Iter`: another impl's
                // type, known where the impl is used, not here.
                let projection = t.kind_name() == "scoped_type_identifier"
                    && t.field("path").is_some_and(|p| match p.kind_name() {
                        "bracketed_type" => true,
                        "type_identifier" => {
                            let first = self.node_name(p);
                            self.generic(first).is_some()
                        }
                        _ => false,
                    });
                if let (true, Ty::Path(p)) = (projection, &ty) {
                    out.push((name, Ty::ImplAssoc(p.clone())));
                } else if matches!(ty, Ty::Path(_) | Ty::Generic(..) | Ty::Slice(_)) {
                    out.push((name, ty));
                } else if ty == Ty::Unknown && !tr.is_empty() {
                    let mut path = tr.clone();
                    path.push(name);
                    out.push((name, Ty::ImplAssoc(path)));
                }
            }
        }
        self.refs.sites.truncate(sites);
        self.refs.recvs.truncate(recvs);
        // (A receiver made once per file, by an array length's literal
        // here, is made again when next needed.)
        let made = [
            &mut self.outside_recv,
            &mut self.vec_recv,
            &mut self.vec_macro_recv,
            &mut self.literals_recv,
        ];
        for slot in made.into_iter().chain(&mut self.range_recvs) {
            if slot.is_some_and(|id| id as usize >= recvs) {
                *slot = None;
            }
        }
        out
    }

    pub(super) fn impl_item(&mut self, n: Node) {
        self.attrs(n);
        let off = std::mem::take(&mut self.cfg_off);
        let feature = self.cfg_feature.take();
        self.under_cfg(off, feature, |v| v.impl_inner(n));
    }

    pub(super) fn impl_inner(&mut self, n: Node) {
        let generics_len = self.generics.len();
        let closure_bounds_len = self.closure_bounds.len();
        let outer_callables = self.impl_callables.replace(Vec::new());
        if let Some(tp) = n.field("type_parameters") {
            self.type_params(tp);
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
        let callables = std::mem::replace(&mut self.impl_callables, outer_callables);
        let idx = self.scope.impls.len() as u32;
        let ty_node = n.field("type");
        // `impl<T: Tr> X for T` is a blanket impl: no self type to name;
        // so is `impl<T: Tr> X for &mut T` (the type is a reference, not
        // `T`'s bound).
        let mut bare = ty_node;
        while let Some(t) =
            bare.filter(|t| matches!(t.kind_name(), "reference_type" | "pointer_type"))
        {
            bare = t.field("type");
        }
        let blanket = bare.is_some_and(|t| self.names_generic(t));
        let ty = match ty_node {
            Some(t) => self.ty(t),
            None => Ty::Unknown,
        };
        // (A blanket impl for every callable is known by its closure
        // trait, whatever other bounds it has: `impl<F: Fn(&str) -> R +
        // Clone> TypedValueParser for F`.)
        let callable = match bare.filter(|_| blanket) {
            Some(t) => {
                let name = self.node_name(t);
                let found = callables.iter().flatten().find(|(n, _)| *n == name);
                found.map(|(_, path)| path.clone())
            }
            None => None,
        };
        let (ty, bound) = match (blanket, ty) {
            (true, _) if let Some(b) = callable => (Ty::Unknown, b),
            (true, Ty::Path(b)) => (Ty::Unknown, b),
            (true, _) => (Ty::Unknown, Segs::new()),
            (false, ty) => (ty, Segs::new()),
        };
        let mut tr = Segs::new();
        let mut tr_arg = Ty::Unknown;
        if let Some(t) = n.field("trait") {
            let (base, args) = match t.kind_name() {
                "generic_type" => (t.field("type"), t.field("type_arguments")),
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
                let mut cursor = a.walk();
                let kids: Vec<Node> = a.named_children(&mut cursor).collect();
                for (i, k) in kids.into_iter().enumerate() {
                    let t = self.type_arg(k);
                    if i == 0 {
                        let param = self.names_generic(k);
                        tr_arg = match self.primitive_named(k) {
                            Some(p) => p,
                            None if param => Ty::Param(0),
                            None => t,
                        };
                    }
                }
            }
        }
        let self_path = match &ty {
            Ty::Path(p) | Ty::Generic(p, _) => Some(p.clone()),
            Ty::Unknown
            | Ty::External
            | Ty::Slice(_)
            | Ty::Param(_)
            | Ty::BoundParam(..)
            | Ty::ImplAssoc(_)
            | Ty::Tuple(_)
            | Ty::Fn(_) => None,
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
            methods: Segs::new(),
            blanket,
            bound,
            tr_arg,
        });
        if let Some(body) = n.field("body") {
            let saved_assoc = self.assoc.replace(Assoc::Impl(idx, ty_name, is_trait));
            let saved_self = std::mem::replace(&mut self.self_path, self_path);
            let saved_is_trait = std::mem::replace(&mut self.self_is_trait, false);
            let tr = self.scope.impls[idx as usize].tr.clone();
            let assoc_tys = self.assoc_tys(body, &tr);
            let saved_assoc_tys = std::mem::replace(&mut self.assoc_tys, assoc_tys);
            self.children(body);
            self.assoc_tys = saved_assoc_tys;
            self.self_is_trait = saved_is_trait;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.generics.truncate(generics_len);
        self.closure_bounds.truncate(closure_bounds_len);
    }

    pub(super) fn type_item(&mut self, n: Node) {
        if self.assoc.is_some() {
            if let Some(t) = n.field("type") {
                self.ty(t);
            }
            return;
        }
        let Some(name_node) = n.field("name") else {
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
        let closure_bounds_len = self.closure_bounds.len();
        self.cur = def;
        if let Some(tp) = n.field("type_parameters") {
            self.type_params(tp);
        }
        if let Some(t) = n.field("type") {
            let ty = self.ty(t);
            if !matches!(ty, Ty::Unknown | Ty::External) {
                self.scope.aliases.push(Alias { def, ty });
            }
        }
        self.generics.truncate(generics_len);
        self.closure_bounds.truncate(closure_bounds_len);
        self.cur = saved_cur;
    }

    /// A match arm; its bindings take the scrutinee `r` (`Some(x)` unwraps).
    /// The guard sees the pattern's bindings (`Item::Table(t) if t.is_dotted()`).
    /// A `match` arm whose scrutinee is `r`; returns its value's receiver
    /// id.
    pub(super) fn match_arm(&mut self, arm: Node, r: u32) -> u32 {
        let mark = self.scope_start();
        let v = self.match_arm_inner(arm, r);
        self.scope_end(mark);
        v
    }

    fn match_arm_inner(&mut self, arm: Node, r: u32) -> u32 {
        if let Some(p) = arm.field("pattern") {
            let cond = p.field("condition");
            let mut cursor = p.walk();
            let kids: Vec<Node> = p.named_children(&mut cursor).collect();
            for k in kids {
                if Some(k) != cond {
                    self.pattern(k, r);
                }
            }
            if let Some(c) = cond {
                self.node(c);
            }
        }
        match arm.field("value") {
            Some(v) => self.node(v),
            None => 0,
        }
    }

    pub(super) fn mod_item(&mut self, n: Node) {
        let Some(name_node) = n.field("name") else {
            return;
        };
        let name = self.node_name(name_node);
        let macro_use = self.attrs.as_ref().is_some_and(|p| p.macro_use);
        self.attrs(n);
        let cfg_off = std::mem::take(&mut self.cfg_off);
        let feature = self.cfg_feature.take();
        let Some(body) = n.field("body") else {
            if self.module == 0 && self.cur_fn == 0 {
                self.scope.mod_decls.push(name);
                let (off, feature) = (cfg_off || self.block_off, feature.or(self.block_feature));
                if off || feature.is_some() {
                    self.scope.mod_decl_cfgs.push(DeclCfg {
                        name,
                        cfg_off: off,
                        feature,
                    });
                }
                // (A module compiled out leaves the name to another
                // declaration: `#[cfg(not(feature = "std"))] #[path =
                // "core.rs"] mod imp;` beside `use std::io as imp;`.)
                if let Some(path) = self.attr_path.take().filter(|_| !cfg_off) {
                    self.scope.mod_paths.push(ModPath {
                        name,
                        path,
                        feature,
                    });
                }
            }
            return;
        };
        self.scope.mods.push(InlineMod {
            name,
            parent: self.module,
            cfg_off,
            feature,
            macro_use,
        });
        let id = self.scope.mods.len() as u32;
        let saved_module = std::mem::replace(&mut self.module, id);
        let saved_prefix = self.prefix.clone();
        self.prefix = format!("{}{}::", self.base(), self.text(name_node));
        let saved_fn = std::mem::replace(&mut self.cur_fn, 0);
        let saved_locals = std::mem::take(&mut self.locals);
        self.under_cfg(cfg_off, feature, |v| v.children(body));
        self.locals = saved_locals;
        self.cur_fn = saved_fn;
        self.prefix = saved_prefix;
        self.module = saved_module;
    }

    pub(super) fn macro_def(&mut self, n: Node) {
        let Some(name_node) = n.field("name") else {
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
        if self.cur_fn == 0 {
            if let Some(cfg) = self.wrapped_cfg(n) {
                let name = self.node_name(name_node);
                self.scope.cfg_macros.push(CfgMacro { name, cfg });
            }
        }
    }

    /// The `#[cfg(…)]` arguments a `macro_rules!` puts on every item it is
    /// given: each rule binds `$x:item` fragments, and its expansion writes
    /// each of them after attributes that hold one `#[cfg(P)]`, the same P
    /// throughout (mio's `cfg_os_poll!`, tokio's `cfg_rt!`).
    fn wrapped_cfg(&self, def: Node) -> Option<String> {
        let mut cursor = def.walk();
        let rules: Vec<Node> = def
            .named_children(&mut cursor)
            .filter(|k| k.kind_name() == "macro_rule")
            .collect();
        let mut cfg = None;
        for r in &rules {
            let (Some(left), Some(right)) = (r.field("left"), r.field("right")) else {
                return None;
            };
            let mut vars = Vec::new();
            self.item_vars(left, &mut vars);
            let mut uses = 0;
            if vars.is_empty() || !self.cfg_before(right, &vars, &mut cfg, &mut uses) || uses == 0 {
                return None;
            }
        }
        cfg
    }

    /// The metavariables of `item` fragments a macro rule's pattern binds.
    fn item_vars<'a>(&'a self, n: Node, out: &mut Vec<&'a str>) {
        if n.kind_name() == "token_binding_pattern" {
            if let (Some(var), Some(ty)) = (n.field("name"), n.field("type")) {
                if self.text(ty) == "item" {
                    out.push(self.text(var));
                }
            }
            return;
        }
        let mut cursor = n.walk();
        let kids: Vec<Node> = n.named_children(&mut cursor).collect();
        for k in kids {
            self.item_vars(k, out);
        }
    }

    /// Whether every use of `vars` in a transcriber comes after attributes
    /// holding one `#[cfg(…)]` whose arguments are `cfg`'s (set by the
    /// first); `uses` counts them.
    fn cfg_before(&self, n: Node, vars: &[&str], cfg: &mut Option<String>, uses: &mut u32) -> bool {
        let mut cursor = n.walk();
        let kids: Vec<Node> = n
            .children(&mut cursor)
            .filter(|k| !k.kind_name().ends_with("comment"))
            .collect();
        for (i, k) in kids.iter().enumerate() {
            if k.kind_name() == "metavariable" {
                if !vars.contains(&self.text(*k)) {
                    continue;
                }
                *uses += 1;
                // `# [ … ]` pairs right before it.
                let mut found = None;
                let mut j = i;
                while j >= 2
                    && kids[j - 1].kind_name() == "token_tree"
                    && self.text(kids[j - 1]).starts_with('[')
                    && self.text(kids[j - 2]) == "#"
                {
                    if let [name, args] = named_code_children(kids[j - 1]).as_slice() {
                        if self.text(*name) == "cfg" {
                            if found.is_some() {
                                return false;
                            }
                            found = Some(self.text(*args));
                        }
                    }
                    j -= 2;
                }
                let Some(found) = found else {
                    return false;
                };
                match cfg {
                    Some(c) if c != found => return false,
                    Some(_) => {}
                    None => *cfg = Some(found.to_string()),
                }
            } else if k.child_count() > 0 && !self.cfg_before(*k, vars, cfg, uses) {
                return false;
            }
        }
        true
    }

    pub(super) fn use_tree(&mut self, n: Node, prefix: &[(u32, Pos)], public: bool) {
        match n.kind_name() {
            "use_as_clause" => {
                let mut segs = prefix.to_vec();
                let Some(p) = n.field("path") else {
                    return;
                };
                if !self.path(p, &mut segs) {
                    return;
                }
                let alias = match n.field("alias") {
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
                if let Some(p) = n.field("path") {
                    if !self.path(p, &mut segs) {
                        return;
                    }
                }
                if let Some(list) = n.field("list") {
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

    pub(super) fn push_use(&mut self, segs: Vec<(u32, Pos)>, alias: u32, glob: bool, public: bool) {
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
            cfg_off: false,
            feature: None,
        });
    }

    pub(super) fn extern_crate(&mut self, n: Node) {
        let Some(name_node) = n.field("name") else {
            return;
        };
        let name = self.node_name(name_node);
        let alias = match n.field("alias") {
            Some(a) => self.node_name(a),
            None => NONE,
        };
        if self.attrs.as_ref().is_some_and(|p| p.macro_use) {
            self.scope.macro_use_crates.push(name);
        }
        let public = has_child(n, "visibility_modifier");
        self.push_use(vec![(name, pos(name_node))], alias, false, public);
    }

    // ---- generics and types -------------------------------------------
}

/// Whether the arguments of a `#[cfg(…)]` name a configuration that is
/// most likely off where rust-analyzer runs: Linux on a 64-bit little-endian
/// target of this machine's architecture with its default target features,
/// `test`, `debug_assertions` and `miri` on (rust-analyzer's
/// default `cargo.cfgs`), any other flag (`loom`, `docsrs`) off. Features
/// are decided elsewhere ([`cfg_feature`]), from the package's defaults.
pub(super) fn cfg_likely_off(args: &str) -> bool {
    cfg_value(args) == Cfg::Off
}

/// The value of a `#[cfg(…)]`'s arguments where rust-analyzer runs (see
/// [`cfg_likely_off`]); unknown for text that is not a predicate.
pub(super) fn cfg_value(args: &str) -> Cfg {
    cfg_value_with(args, None)
}

/// Whether a `#[cfg(…)]` with these arguments is on where rust-analyzer
/// runs, the package's default `features` known; `None` when that cannot
/// be told.
pub fn cfg_on(args: &str, features: &[String]) -> Option<bool> {
    match cfg_value_with(args, Some(features)) {
        Cfg::On => Some(true),
        Cfg::Off => Some(false),
        Cfg::Unknown => None,
    }
}

/// [`cfg_value`], with `feature = "x"` on when `features` (given) has it.
fn cfg_value_with(args: &str, features: Option<&[String]>) -> Cfg {
    // Whitespace and comments outside string literals carry no meaning.
    let mut a = String::with_capacity(args.len());
    let mut quoted = false;
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' {
            quoted = !quoted;
        }
        if !quoted && c == '/' && chars.peek() == Some(&'/') {
            chars.find(|&c| c == '\n');
            continue;
        }
        if !quoted && c == '/' && chars.peek() == Some(&'*') {
            chars.next();
            let mut prev = ' ';
            chars.find(|&c| std::mem::replace(&mut prev, c) == '*' && c == '/');
            continue;
        }
        if quoted || !c.is_whitespace() {
            a.push(c);
        }
    }
    let inner = a
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(&a);
    let mut p = CfgParser {
        s: inner,
        at: 0,
        depth: 0,
        features,
    };
    match p.pred() {
        Some(v) if p.at == inner.len() => v,
        _ => Cfg::Unknown,
    }
}

/// A configuration predicate's value where rust-analyzer runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Cfg {
    On,
    Off,
    Unknown,
}

/// `cfg` predicates over their text (no whitespace outside literals).
struct CfgParser<'a> {
    s: &'a str,
    /// The package's default features, when known.
    features: Option<&'a [String]>,
    at: usize,
    depth: u32,
}

impl CfgParser<'_> {
    fn ident(&mut self) -> &str {
        let rest = &self.s[self.at..];
        let n = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.at += n;
        &rest[..n]
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.s[self.at..].starts_with(c);
        if hit {
            self.at += c.len_utf8();
        }
        hit
    }

    /// One predicate; `None` on text that is not one.
    fn pred(&mut self) -> Option<Cfg> {
        // `not(not(not(…)))` thousands deep is not a configuration.
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let v = self.pred_inner();
        self.depth -= 1;
        v
    }

    fn pred_inner(&mut self) -> Option<Cfg> {
        let name = self.ident();
        if name.is_empty() {
            return None;
        }
        let name = name.to_string();
        if self.eat('=') {
            let rest = &self.s[self.at..];
            let body = rest.strip_prefix('"')?;
            let end = body.find('"')?;
            let value = &body[..end];
            self.at += end + 2;
            return Some(match (name.as_str(), self.features) {
                ("feature", Some(on)) => {
                    if on.iter().any(|f| f == value) {
                        Cfg::On
                    } else {
                        Cfg::Off
                    }
                }
                _ => key_value(&name, value),
            });
        }
        if !self.eat('(') {
            return Some(match name.as_str() {
                "unix" | "test" | "debug_assertions" | "miri" => Cfg::On,
                // A custom flag (`loom`, `docsrs`, `doc`), another OS.
                _ => Cfg::Off,
            });
        }
        let mut args = Vec::new();
        while !self.eat(')') {
            args.push(self.pred()?);
            if !self.eat(',') && !self.s[self.at..].starts_with(')') {
                return None;
            }
        }
        let all = |v: Cfg| args.iter().all(|a| *a == v);
        let some = |v: Cfg| args.contains(&v);
        Some(match name.as_str() {
            "not" if args.len() == 1 => match args[0] {
                Cfg::On => Cfg::Off,
                Cfg::Off => Cfg::On,
                Cfg::Unknown => Cfg::Unknown,
            },
            "all" if some(Cfg::Off) => Cfg::Off,
            "all" if all(Cfg::On) => Cfg::On,
            "any" if some(Cfg::On) => Cfg::On,
            "any" if all(Cfg::Off) => Cfg::Off,
            _ => Cfg::Unknown,
        })
    }
}

/// The target features rustc turns on by default for this machine's
/// architecture (`rustc --print cfg`), where rust-analyzer runs: a
/// `#[cfg(target_feature = "sse2")]` module is the one it reads on x86_64
/// (fixedbitset's `block::sse2`, not `block::default`). Empty: not known.
const HOST_TARGET_FEATURES: &[&str] = match std::env::consts::ARCH.as_bytes() {
    b"x86_64" => &["fxsr", "sse", "sse2"],
    b"aarch64" => &["neon"],
    _ => &[],
};

/// `key = "value"` on 64-bit little-endian Linux with panics unwinding, on
/// this machine's architecture with its default target features.
fn key_value(key: &str, value: &str) -> Cfg {
    let on = |yes: bool| if yes { Cfg::On } else { Cfg::Off };
    match key {
        "target_os" => on(value == "linux"),
        "target_family" => on(value == "unix"),
        "target_arch" if value.starts_with("wasm") => Cfg::Off,
        "target_arch" => on(value == std::env::consts::ARCH),
        "target_feature" if !HOST_TARGET_FEATURES.is_empty() => {
            on(HOST_TARGET_FEATURES.contains(&value))
        }
        "target_vendor" if value == "apple" => Cfg::Off,
        "target_pointer_width" => on(value == "64"),
        "target_endian" => on(value == "little"),
        "target_has_atomic" if value != "128" => Cfg::On,
        "panic" => on(value == "unwind"),
        _ => Cfg::Unknown,
    }
}

/// `feature = "x"` → ("x", true); `not(feature = "x")` → ("x", false).
/// Any other predicate over features whose value cannot be told without
/// them (`all(target_feature = "sse2", not(feature = "scalar-math"))`,
/// glam's pick of its SIMD modules) → its arguments as written, `(` first,
/// and true: it is judged with the package's features, in
/// [`feature_cfg_off`].
pub(super) fn cfg_feature(args: &str) -> Option<(String, bool)> {
    let a: String = args.chars().filter(|c| !c.is_whitespace()).collect();
    let simple = || {
        let a = a.strip_prefix('(')?.strip_suffix(')')?;
        let (inner, on) = match a.strip_prefix("not(") {
            Some(rest) => (rest.strip_suffix(')')?, false),
            None => (a, true),
        };
        let name = inner.strip_prefix("feature=\"")?.strip_suffix('"')?;
        (!name.contains('"')).then(|| (name.to_string(), on))
    };
    simple().or_else(|| {
        (a.starts_with('(') && a.contains("feature=\"") && cfg_value(args) == Cfg::Unknown)
            .then(|| (args.trim().to_string(), true))
    })
}

/// Whether a feature cfg as [`cfg_feature`] gives it (a feature's `name`
/// and `on`, or a whole predicate) compiles its item out, the package's
/// default `features` given. A predicate whose value is still unknown
/// with them (`all(feature = "x", target_env = "gnu")`) compiles nothing
/// out.
pub fn feature_cfg_off(name: &str, on: bool, features: &[String]) -> bool {
    if name.starts_with('(') {
        return cfg_on(name, features) == Some(false);
    }
    features.iter().any(|f| f == name) != on
}

pub(super) fn is_item_kind(kind: &str) -> bool {
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

/// How [`V::fields`] records the fields it reads.
#[derive(Clone, Copy)]
pub(super) enum Record<'a> {
    /// Not at all: only their types' references count.
    Skip,
    /// As fields of the struct or enum itself (`name`, `0`, `1`, …).
    Own,
    /// As fields of the enum, named for variant `V` (`V::name`, `V::0`):
    /// no field of the enum itself can be named so.
    Variant(&'a str),
}

/// The type under any references and pointers of type node `t`.
fn strip_refs(mut t: Node) -> Option<Node> {
    while matches!(t.kind_name(), "reference_type" | "pointer_type") {
        t = t.field("type")?;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::{cfg_feature, cfg_likely_off, feature_cfg_off};

    /// What rust-analyzer 0.0.330 on x86_64 Linux answered for a call of
    /// each fn (an answer: compiled in; none: compiled out).
    #[test]
    fn cfgs_are_judged_as_rust_analyzer_on_linux_takes_them() {
        for on in [
            "(miri)",
            "(test)",
            "(debug_assertions)",
            "(unix)",
            "(target_has_atomic = \"ptr\")",
            "(any(windows, unix))",
            "(all(unix, not(windows)))",
            "(feature = \"std\")",
            "(all(feature = \"std\", unix))",
            "(target_vendor = \"pc\")",
        ] {
            assert!(!cfg_likely_off(on), "{on} is not off");
        }
        // The architecture and its default target features are this
        // machine's (rust-analyzer 0.0.330 on x86_64 took fixedbitset's
        // `sse2` module, not `default` or `avx2`).
        if cfg!(target_arch = "x86_64") {
            for on in [
                "(target_arch = \"x86_64\")",
                "(any(target_arch = \"x86\", target_arch = \"x86_64\"))",
                "(all(target_feature = \"sse2\", not(target_feature = \"avx\")))",
            ] {
                assert!(!cfg_likely_off(on), "{on} is not off");
            }
            for off in [
                "(target_arch = \"aarch64\")",
                "(target_feature = \"avx2\")",
                "(not(target_feature = \"sse2\"))",
            ] {
                assert!(cfg_likely_off(off), "{off} is off");
            }
        }
        for off in [
            "(not(miri))",
            "(not(test))",
            "(not(target_has_atomic = \"ptr\"))",
            "(any(windows, target_os = \"macos\"))",
            "(target_pointer_width = \"32\")",
            "(panic = \"abort\")",
            "(target_endian = \"big\")",
            "(doc)",
            "(loom)",
            "(all(not(feature = \"std\"), no_core_error))",
            "(all(target_arch = \"wasm32\", target_os = \"unknown\"))",
            "(not(unix))",
            "(all(\n    target_arch = \"aarch64\", // a comment, with a comma\n    /* and (this) */ not(miri),\n))",
        ] {
            assert!(cfg_likely_off(off), "{off} is off");
        }
        // Text that is not a predicate decides nothing.
        assert!(!cfg_likely_off("(windows"));
        assert!(!cfg_likely_off("(version(\"1.80\"))"));
    }

    /// A cfg over one feature is kept as the feature; one over features
    /// and more that cannot be told without them, whole, and judged with
    /// the package's default features.
    #[test]
    fn feature_cfgs_are_kept_to_be_judged_with_the_default_features() {
        assert_eq!(
            cfg_feature("(feature = \"std\")"),
            Some(("std".into(), true))
        );
        assert_eq!(
            cfg_feature("(not(feature = \"std\"))"),
            Some(("std".into(), false))
        );
        // Off whatever the features: no feature cfg, `cfg_likely_off` has it.
        assert_eq!(cfg_feature("(all(windows, feature = \"std\"))"), None);
        assert_eq!(cfg_feature("(unix)"), None);
        let both = "(all(unix, not(any(feature = \"core-simd\", feature = \"scalar-math\"))))";
        let (name, on) = cfg_feature(both).expect("kept whole");
        assert_eq!((name.as_str(), on), (both, true));
        let std = ["std".to_string()];
        let scalar = ["std".to_string(), "scalar-math".to_string()];
        assert!(!feature_cfg_off(&name, on, &std));
        assert!(feature_cfg_off(&name, on, &scalar));
        assert!(feature_cfg_off("std", false, &std));
        assert!(!feature_cfg_off("std", true, &std));
        // Still unknown with the features: compiles nothing out.
        let gnu = "(all(feature = \"std\", target_env = \"gnu\"))";
        let (name, on) = cfg_feature(gnu).expect("kept whole");
        assert!(!feature_cfg_off(&name, on, &std));
    }
}
