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
            for p in kids {
                if p.kind_name() != "parameter" {
                    continue;
                }
                let ty = match p.field("type") {
                    Some(t) => self.ty(t),
                    None => Ty::Unknown,
                };
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
        self.generics.truncate(generics_len);
        self.cur = saved_cur;
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
            bounds.retain(|b| *b != first);
            bounds.dedup();
            if bounds.is_empty() {
                continue;
            }
            bounds.insert(0, first);
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
                        self.scope.fields.push(Field { owner, name, ty });
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
                        self.scope.fields.push(Field { owner, name, ty });
                    }
                    ordinal += 1;
                }
                _ => {}
            }
        }
    }

    /// A field's type: [`Ty::Param`] for a struct's own field typed by
    /// one of its unbounded type parameters (through references), or for
    /// such an argument of a generic type (`inner: Option<T>`).
    fn field_ty(&mut self, t: Node, record: Record) -> Ty {
        let mut ty = self.ty(t);
        if !matches!(record, Record::Own) {
            return ty;
        }
        match &mut ty {
            Ty::Unknown => self.own_param(t).unwrap_or(ty),
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
                        path,
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
            let saved_self = self.self_path.replace(vec![self_name]);
            let saved_is_trait = std::mem::replace(&mut self.self_is_trait, true);
            let saved_assoc_tys = std::mem::take(&mut self.assoc_tys);
            self.children(body);
            self.assoc_tys = saved_assoc_tys;
            self.self_is_trait = saved_is_trait;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.generics.truncate(generics_len);
        self.cur = saved_cur;
    }

    /// The associated types an impl body declares (`type Error = E;`),
    /// read before its methods, which may name them first. Their sites are
    /// recorded when the items themselves are walked, not here.
    fn assoc_tys(&mut self, body: Node) -> Vec<(u32, Ty)> {
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
                if matches!(ty, Ty::Path(_) | Ty::Generic(..) | Ty::Slice(_)) {
                    out.push((name, ty));
                }
            }
        }
        self.refs.sites.truncate(sites);
        self.refs.recvs.truncate(recvs);
        out
    }

    pub(super) fn impl_item(&mut self, n: Node) {
        self.attrs(n);
        let off = std::mem::take(&mut self.cfg_off);
        let feature = self.cfg_feature.take();
        let saved_off = self.block_off;
        let saved_feature = self.block_feature;
        self.block_off |= off;
        self.block_feature = feature.or(saved_feature);
        self.impl_inner(n);
        self.block_off = saved_off;
        self.block_feature = saved_feature;
    }

    pub(super) fn impl_inner(&mut self, n: Node) {
        let generics_len = self.generics.len();
        if let Some(tp) = n.field("type_parameters") {
            self.type_params(tp);
        }
        if let Some(wc) = child_of_kind(n, "where_clause") {
            self.where_clause(wc);
        }
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
        let (ty, bound) = match (blanket, ty) {
            (true, Ty::Path(b)) => (Ty::Unknown, b),
            (true, _) => (Ty::Unknown, Vec::new()),
            (false, ty) => (ty, Vec::new()),
        };
        let mut tr = Vec::new();
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
            Ty::Unknown | Ty::External | Ty::Slice(_) | Ty::Param(_) | Ty::Tuple(_) => None,
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
            tr_arg,
        });
        if let Some(body) = n.field("body") {
            let saved_assoc = self.assoc.replace(Assoc::Impl(idx, ty_name, is_trait));
            let saved_self = std::mem::replace(&mut self.self_path, self_path);
            let saved_is_trait = std::mem::replace(&mut self.self_is_trait, false);
            let assoc_tys = self.assoc_tys(body);
            let saved_assoc_tys = std::mem::replace(&mut self.assoc_tys, assoc_tys);
            self.children(body);
            self.assoc_tys = saved_assoc_tys;
            self.self_is_trait = saved_is_trait;
            self.assoc = saved_assoc;
            self.self_path = saved_self;
        }
        self.generics.truncate(generics_len);
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
        self.cur = saved_cur;
    }

    /// A match arm; its bindings take the scrutinee `r` (`Some(x)` unwraps).
    /// The guard sees the pattern's bindings (`Item::Table(t) if t.is_dotted()`).
    /// A `match` arm whose scrutinee is `r`; returns its value's receiver
    /// id.
    pub(super) fn match_arm(&mut self, arm: Node, r: u32) -> u32 {
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
        self.attrs(n);
        let cfg_off = std::mem::take(&mut self.cfg_off);
        let feature = self.cfg_feature.take();
        let Some(body) = n.field("body") else {
            if self.module == 0 && self.cur_fn == 0 {
                self.scope.mod_decls.push(name);
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
        });
        let id = self.scope.mods.len() as u32;
        let saved_module = std::mem::replace(&mut self.module, id);
        let saved_prefix = self.prefix.clone();
        self.prefix = format!("{}{}::", self.base(), self.text(name_node));
        let saved_fn = std::mem::replace(&mut self.cur_fn, 0);
        let saved_locals = std::mem::take(&mut self.locals);
        let saved_off = self.block_off;
        let saved_feature = self.block_feature;
        self.block_off |= cfg_off;
        self.block_feature = feature.or(saved_feature);
        self.children(body);
        self.block_off = saved_off;
        self.block_feature = saved_feature;
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
        let public = has_child(n, "visibility_modifier");
        self.push_use(vec![(name, pos(name_node))], alias, false, public);
    }

    // ---- generics and types -------------------------------------------
}

/// Whether the arguments of a `#[cfg(…)]` name a configuration that is
/// most likely off where rust-analyzer runs (Linux, default features,
/// `test` on): another OS, or a custom flag such as `loom` or `docsrs`.
pub(super) fn cfg_likely_off(args: &str) -> bool {
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

/// `feature = "x"` → ("x", true); `not(feature = "x")` → ("x", false).
pub(super) fn cfg_feature(args: &str) -> Option<(String, bool)> {
    let a: String = args.chars().filter(|c| !c.is_whitespace()).collect();
    let a = a.strip_prefix('(')?.strip_suffix(')')?;
    let (inner, on) = match a.strip_prefix("not(") {
        Some(rest) => (rest.strip_suffix(')')?, false),
        None => (a, true),
    };
    let name = inner.strip_prefix("feature=\"")?.strip_suffix('"')?;
    (!name.contains('"')).then(|| (name.to_string(), on))
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
