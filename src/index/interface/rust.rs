//! Rust interface facts: what `resolve::rust` reads from a file other than
//! the one it resolves — inline modules, items, `use`s, `impl` blocks,
//! fields, return types, supertraits, `mod x;` declarations, signatures,
//! type aliases and `cfg`s — each written with names as text, modules by
//! path and definitions by identity.

use std::collections::HashMap;

use super::{Fact, Facts, Text};
use crate::extract::rust::{MacroBlock, Scope, Ty, NONE};
use crate::extract::Def;

pub(super) fn facts(defs: &[Def], scope: &Scope) -> Vec<Fact> {
    let mut f = Facts::new(defs);
    let w = Writer {
        scope,
        mods: module_labels(scope),
    };
    // The item macro calls each inline module and `use` is in (whose cfg,
    // if the macro has one, is theirs).
    let in_macros = |range: fn(&MacroBlock) -> (u32, u32), i: usize, t: &mut Text| {
        for b in &scope.macro_blocks {
            let (start, end) = range(b);
            if (start..end).contains(&(i as u32)) {
                t.raw(" in-macro ");
                t.name(w.name(b.name));
            }
        }
    };
    // Inline modules are no definitions: any change to them counts.
    for (k, m) in scope.mods.iter().enumerate() {
        let mut t = Text::new("mod");
        w.module(&mut t, k as u32 + 1);
        t.raw(if m.cfg_off { " off" } else { " on" });
        if let Some((n, on)) = m.feature {
            t.raw(" feature ");
            t.name(w.name(n));
            t.raw(if on { " on" } else { " off" });
        }
        in_macros(|b| b.mods, k, &mut t);
        f.push(None, t);
    }
    for b in &scope.macro_blocks {
        for def in b.defs.0..b.defs.1 {
            let mut t = Text::new("in-macro");
            f.def(&mut t, def);
            t.raw(" ");
            t.name(w.name(b.name));
            f.push(Some(def), t);
        }
    }
    for m in &scope.cfg_macros {
        let mut t = Text::new("cfg-macro");
        t.name(w.name(m.name));
        t.raw(" ");
        t.raw(&m.cfg);
        f.push(None, t);
    }
    // Same-named items of a module are kept in order (likely compiled-in
    // ones are moved first): each carries its rank among them.
    for item in &scope.items {
        let mut t = Text::new("item");
        w.module(&mut t, item.module);
        t.raw(" ");
        t.name(defs.get(item.def as usize).map_or("", |d| d.name.as_str()));
        f.rank(&mut t);
        f.def(&mut t, item.def);
        t.raw(if item.is_macro { " macro" } else { "" });
        f.push(Some(item.def), t);
    }
    // A `use` in a function body is seen from that function only; one at
    // module level from any file (globs and bindings, in order).
    for (u, us) in scope.uses.iter().enumerate() {
        let mut t = Text::new("use");
        w.module(&mut t, us.module);
        t.raw(" in ");
        w.scope_fn(&f, &mut t, us.scope_fn);
        match us.binding() {
            Some(b) => t.name(w.name(b)),
            None => t.raw("*"),
        }
        f.rank(&mut t);
        w.path(&mut t, &us.segs);
        t.raw(if us.alias == NONE { "" } else { " as" });
        t.raw(if us.glob { " glob" } else { "" });
        t.raw(if us.public { " pub" } else { "" });
        t.raw(if us.cfg_off { " off" } else { "" });
        if let Some((n, on)) = us.feature {
            t.raw(if on { " if " } else { " unless " });
            t.name(w.name(n));
        }
        in_macros(|b| b.uses, u, &mut t);
        let owner = (us.scope_fn != 0 && us.scope_fn != NONE).then_some(us.scope_fn);
        let binds = us.binding().filter(|_| owner.is_none()).map(|b| w.name(b));
        f.push_bound(owner, t, binds);
    }
    // An `impl` block: its header belongs to no definition (a trait impl
    // applies wherever the type is used, even from inside a function
    // body); each method's membership belongs to the method.
    for imp in &scope.impls {
        let mut h = Text::new("impl");
        w.module(&mut h, imp.module);
        h.raw(" in ");
        w.scope_fn(&f, &mut h, imp.scope_fn);
        w.ty(&mut h, &imp.ty);
        h.raw(" for ");
        w.path(&mut h, &imp.tr);
        // `From<A>`: which impl a `T::from(x)` picks.
        h.raw(" of ");
        w.ty(&mut h, &imp.tr_arg);
        h.raw(if imp.blanket { " blanket " } else { " " });
        w.path(&mut h, &imp.bound);
        f.rank(&mut h);
        for &m in &imp.methods {
            let mut t = Text::new("method");
            t.raw(&h.s);
            t.names.extend(h.names.iter().cloned());
            t.raw(" ");
            f.def(&mut t, m);
            f.push(Some(m), t);
        }
        f.push(None, h);
    }
    // A glob of the enum brings its variants.
    for &(owner, name) in &scope.variants {
        let mut t = Text::new("variant");
        f.def(&mut t, owner);
        t.raw(" ");
        t.name(w.name(name));
        f.push(Some(owner), t);
    }
    for fl in scope.fields.get() {
        let mut t = Text::new("field");
        f.def(&mut t, fl.owner);
        t.raw(".");
        t.name(w.name(fl.name));
        f.rank(&mut t);
        w.ty(&mut t, &fl.ty);
        f.push(Some(fl.owner), t);
    }
    for r in &scope.rets {
        let mut t = Text::new("ret");
        f.def(&mut t, r.def);
        f.rank(&mut t);
        w.module(&mut t, r.module);
        t.raw(" ");
        w.ty(&mut t, &r.ty);
        f.push(Some(r.def), t);
    }
    for c in &scope.closures {
        let mut t = Text::new("closure");
        f.def(&mut t, c.def);
        f.rank(&mut t);
        w.module(&mut t, c.module);
        t.raw(&format!(" {} ", c.arg));
        w.ty(&mut t, &Ty::Fn(c.params.clone()));
        f.push(Some(c.def), t);
    }
    for s in &scope.supers {
        let mut t = Text::new("super");
        f.def(&mut t, s.def);
        f.rank(&mut t);
        w.module(&mut t, s.module);
        t.raw(" ");
        w.path(&mut t, &s.path);
        f.push(Some(s.def), t);
    }
    for &d in &scope.mod_decls {
        let mut t = Text::new("decl");
        t.name(w.name(d));
        f.push(None, t);
    }
    for c in &scope.mod_decl_cfgs {
        let mut t = Text::new("decl-cfg");
        t.name(w.name(c.name));
        t.raw(if c.cfg_off { " off" } else { " on" });
        if let Some((n, on)) = c.feature {
            t.raw(if on { " if " } else { " unless " });
            t.name(w.name(n));
        }
        f.push(None, t);
    }
    for m in &scope.mod_paths {
        let mut t = Text::new("decl-path");
        t.name(w.name(m.name));
        t.raw(" ");
        t.raw(&m.path);
        if let Some((feature, on)) = m.feature {
            t.raw(if on { " if " } else { " unless " });
            t.name(w.name(feature));
        }
        f.push(None, t);
    }
    for s in &scope.sigs {
        let mut t = Text::new("sig");
        f.def(&mut t, s.def);
        f.rank(&mut t);
        t.raw(&format!("{} {}", s.params, s.has_self));
        f.push(Some(s.def), t);
    }
    for a in &scope.aliases {
        let mut t = Text::new("alias");
        f.def(&mut t, a.def);
        f.rank(&mut t);
        w.ty(&mut t, &a.ty);
        let binds = defs.get(a.def as usize).map(|d| d.name.as_str());
        f.push_bound(Some(a.def), t, binds);
    }
    for &d in &scope.cfg_off {
        let mut t = Text::new("cfg_off");
        f.def(&mut t, d);
        f.push(Some(d), t);
    }
    for c in &scope.cfg_features {
        let mut t = Text::new("cfg_feature");
        f.def(&mut t, c.def);
        t.raw(" ");
        t.name(w.name(c.name));
        t.raw(if c.on { " on" } else { " off" });
        f.push(Some(c.def), t);
    }
    f.out
}

/// Each module id's path from the file (`a::b`), with its ordinal among
/// inline modules of the same path (`#[cfg(unix)] mod imp` and
/// `#[cfg(windows)] mod imp`). Id 0, the file, is the empty path.
fn module_labels(scope: &Scope) -> Vec<String> {
    let mut paths: Vec<String> = vec![String::new()];
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut labels = vec!["#0".to_string()];
    for m in &scope.mods {
        // A parent is always an earlier module (else written as unknown).
        let parent = paths.get(m.parent as usize);
        let name = scope.names.get(m.name as usize).unwrap_or("");
        let path = match parent {
            Some(p) => format!("{p}::{}:{name}", name.len()),
            None => format!("?::{}:{name}", name.len()),
        };
        let ord = seen.entry(path.clone()).or_insert(0);
        labels.push(format!("{path}#{ord}"));
        *ord += 1;
        paths.push(path);
    }
    labels
}

struct Writer<'s> {
    scope: &'s Scope,
    mods: Vec<String>,
}

impl Writer<'_> {
    fn name(&self, n: u32) -> &str {
        self.scope.names.get(n as usize).unwrap_or("")
    }

    fn module(&self, t: &mut Text, m: u32) {
        match self.mods.get(m as usize) {
            Some(label) => {
                t.raw("mod(");
                t.raw(label);
                t.raw(")");
            }
            None => t.raw("mod?"),
        }
        if let Some(k) = (m as usize).checked_sub(1) {
            if let Some(im) = self.scope.mods.get(k) {
                t.names.push(self.name(im.name).to_string());
            }
        }
    }

    /// The function whose body holds a `use` or `impl` (0: module level).
    fn scope_fn(&self, f: &Facts, t: &mut Text, d: u32) {
        if d == 0 || d == NONE {
            t.raw("- ");
        } else {
            f.def(t, d);
            t.raw(" ");
        }
    }

    fn path(&self, t: &mut Text, segs: &[u32]) {
        t.raw("[");
        for &s in segs {
            t.name(self.name(s));
            t.raw(",");
        }
        t.raw("]");
    }

    fn ty(&self, t: &mut Text, ty: &Ty) {
        if t.full() {
            return;
        }
        match ty {
            Ty::Unknown => t.raw("?"),
            Ty::External => t.raw("X"),
            Ty::Path(p) => {
                t.raw("P");
                self.path(t, p);
            }
            Ty::Generic(p, args) => {
                t.raw("G");
                self.path(t, p);
                t.raw("<");
                for a in args {
                    self.ty(t, a);
                    t.raw(",");
                }
                t.raw(">");
            }
            Ty::Slice(e) => {
                t.raw("S(");
                self.ty(t, e);
                t.raw(")");
            }
            Ty::Param(i) => {
                t.raw("T");
                t.raw(&i.to_string());
            }
            Ty::ImplAssoc(p) => {
                t.raw("A");
                self.path(t, p);
            }
            Ty::BoundParam(i, p) => {
                t.raw("B");
                t.raw(&i.to_string());
                self.path(t, p);
            }
            Ty::Tuple(elems) => self.tys(t, "(", elems),
            Ty::Fn(params) => self.tys(t, "F(", params),
        }
    }

    /// `open` then each type followed by `,`, then `)`.
    fn tys(&self, t: &mut Text, open: &str, tys: &[Ty]) {
        t.raw(open);
        for ty in tys {
            self.ty(t, ty);
            t.raw(",");
        }
        t.raw(")");
    }
}
