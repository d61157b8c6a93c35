//! TypeScript / JavaScript interface facts: what `resolve::typescript`
//! reads from a file other than the one it resolves — specifiers (`export *`
//! chains), imports (through re-exports), exports, class bases, fields and
//! callback parameter types, return values — each written with names as
//! text, definitions by identity and local variables inlined.

use super::{Fact, Facts, Text};
use crate::extract::typescript::{Export, Expr, Imported, Scope, DEFAULT, EXPORT_EQUALS};
use crate::extract::Def;

/// Variables inlined into one another deeper than this make a fact opaque.
const MAX_VARS: usize = 32;

pub(super) fn facts(defs: &[Def], scope: &Scope) -> Vec<Fact> {
    let mut f = Facts::new(defs);
    let w = Writer { scope };
    // Specifiers: `export *` ones are searched in order, so each carries its
    // rank among them. Any specifier belongs to no definition.
    for spec in &scope.specs {
        let mut t = Text::new("spec");
        t.str(&spec.text);
        if spec.require {
            t.raw(" require");
        }
        if spec.star {
            t.raw(" *");
            f.rank(&mut t);
        }
        f.push(None, t);
    }
    for i in 0..scope.imports.len() {
        let mut t = Text::new("import");
        w.import(&mut t, i as u32);
        f.push(None, t);
    }
    // Exports: the first with a name (and namespace) wins, so each carries
    // its rank among those of its name. An export of one of the file's
    // definitions belongs to it, except the default and `export =` ones,
    // which importers name by their own bindings, not by the definition's.
    for e in &scope.exports {
        export_fact(&mut f, &w, "export", None, e);
    }
    // Ambient modules and global declarations: what importing a bare
    // name, or a name no file declares, finds (the first of each wins).
    for m in &scope.ambient {
        for e in &m.exports {
            export_fact(&mut f, &w, "ambient", Some(&m.spec), e);
        }
    }
    for &(name, d) in &scope.globals {
        let mut t = Text::new("global");
        let name = w.name(name);
        t.name(name);
        f.rank(&mut t);
        t.raw(" ");
        f.def(&mut t, d);
        f.push_bound(Some(d), t, Some(name));
    }
    for c in &scope.classes {
        let mut t = Text::new("class");
        f.def(&mut t, c.def);
        f.rank(&mut t);
        for b in &c.bases {
            t.raw(" ");
            w.expr(&f, &mut t, b, &mut Vec::new());
        }
        f.push(Some(c.def), t);
    }
    for fl in &scope.fields {
        let mut t = Text::new("field");
        f.def(&mut t, fl.class);
        t.raw(".");
        t.name(w.name(fl.name));
        f.rank(&mut t);
        w.expr(&f, &mut t, &fl.value, &mut Vec::new());
        f.push(Some(fl.class), t);
    }
    for (ns, name, e) in &scope.ns_exports {
        let mut t = Text::new("ns_export");
        f.def(&mut t, *ns);
        t.raw(".");
        t.name(w.name(*name));
        f.rank(&mut t);
        w.expr(&f, &mut t, e, &mut Vec::new());
        f.push(Some(*ns), t);
    }
    for (d, e) in &scope.typeofs {
        let mut t = Text::new("typeof");
        f.def(&mut t, *d);
        f.rank(&mut t);
        w.expr(&f, &mut t, e, &mut Vec::new());
        f.push(Some(*d), t);
    }
    // A getter's read is its result; a static assigned on a class hides a
    // prototype method of its name: both change what other files resolve.
    for d in &scope.getters {
        let mut t = Text::new("getter");
        f.def(&mut t, *d);
        f.push(Some(*d), t);
    }
    for (c, name) in &scope.statics {
        let mut t = Text::new("static");
        f.def(&mut t, *c);
        t.raw(".");
        t.name(w.name(*name));
        f.push(Some(*c), t);
    }
    for (d, e) in &scope.returns {
        let mut t = Text::new("returns");
        f.def(&mut t, *d);
        f.rank(&mut t);
        w.expr(&f, &mut t, e, &mut Vec::new());
        f.push(Some(*d), t);
    }
    f.out
}

/// An export of the file (or of ambient module `spec`).
fn export_fact(f: &mut Facts, w: &Writer, kind: &str, spec: Option<&str>, e: &Export) {
    let mut t = Text::new(kind);
    if let Some(spec) = spec {
        t.str(spec);
        t.raw(" ");
    }
    let name = w.name(e.name);
    t.name(name);
    f.rank(&mut t);
    t.raw(&format!(" ns{} ", e.ns));
    w.expr(f, &mut t, &e.target, &mut Vec::new());
    let owner = match e.target {
        Expr::Def(d) if name != DEFAULT && name != EXPORT_EQUALS => Some(d),
        _ => None,
    };
    f.push_bound(owner, t, Some(name));
}

struct Writer<'s> {
    scope: &'s Scope,
}

impl Writer<'_> {
    fn name(&self, n: u32) -> &str {
        self.scope.names.get(n as usize).map_or("", String::as_str)
    }

    fn spec(&self, t: &mut Text, s: u32) {
        match self.scope.specs.get(s as usize) {
            Some(spec) => {
                t.str(&spec.text);
                if spec.require {
                    t.raw(" require");
                }
            }
            None => t.raw("?"),
        }
    }

    /// An import binding: local name, specifier and what it takes.
    fn import(&self, t: &mut Text, i: u32) {
        let Some(imp) = self.scope.imports.get(i as usize) else {
            t.raw("?");
            return;
        };
        t.name(self.name(imp.local));
        t.raw(" from ");
        self.spec(t, imp.spec);
        match imp.what {
            Imported::Named(n) => {
                t.raw(" named ");
                t.name(self.name(n));
            }
            Imported::Default => t.raw(" default"),
            Imported::Namespace => t.raw(" *"),
            Imported::Module => t.raw(" module"),
        }
    }

    /// An expression, variables inlined: a variable met again inside its
    /// own value is written as a reference to that enclosing level, so the
    /// text stays finite and still tells different values apart.
    fn expr(&self, f: &Facts, t: &mut Text, e: &Expr, vars: &mut Vec<u32>) {
        if t.full() {
            return;
        }
        match e {
            Expr::Unknown => t.raw("?"),
            Expr::Global => t.raw("G"),
            Expr::Free(n) => {
                t.raw("F(");
                t.name(self.name(*n));
                t.raw(")");
            }
            Expr::Def(d) => f.def(t, *d),
            Expr::Import(i) => {
                t.raw("I(");
                self.import(t, *i);
                t.raw(")");
            }
            Expr::Var(v) => {
                if let Some(level) = vars.iter().position(|x| x == v) {
                    t.raw(&format!("R{level}"));
                } else if vars.len() >= MAX_VARS {
                    t.opaque = true;
                } else {
                    match self.scope.vars.get(*v as usize) {
                        Some(value) => {
                            vars.push(*v);
                            t.raw("V(");
                            self.expr(f, t, value, vars);
                            t.raw(")");
                            vars.pop();
                        }
                        None => t.raw("V?"),
                    }
                }
            }
            Expr::This(c) => {
                t.raw("This(");
                f.def(t, *c);
                t.raw(")");
            }
            Expr::Super(c) => {
                t.raw("Super(");
                f.def(t, *c);
                t.raw(")");
            }
            Expr::Require(s) => {
                t.raw("Req(");
                self.spec(t, *s);
                t.raw(")");
            }
            Expr::Member(obj, n) => {
                t.raw("M(");
                self.expr(f, t, obj, vars);
                t.raw(",");
                t.name(self.name(*n));
                t.raw(")");
            }
            Expr::Call(c) => {
                t.raw("C(");
                self.expr(f, t, c, vars);
                t.raw(")");
            }
            Expr::Elements(e) => {
                t.raw("E(");
                self.expr(f, t, e, vars);
                t.raw(")");
            }
            Expr::Instance(c) => {
                t.raw("N(");
                self.expr(f, t, c, vars);
                t.raw(")");
            }
            Expr::Object(lit) => {
                t.raw(if lit.open { "O+(" } else { "O(" });
                for (n, v) in &lit.props {
                    t.name(self.name(*n));
                    t.raw("=");
                    self.expr(f, t, v, vars);
                    t.raw(",");
                }
                t.raw(")");
            }
            Expr::Returns(r) => {
                t.raw("F(");
                self.expr(f, t, r, vars);
                t.raw(")");
            }
            Expr::Param(callee, arg, param) => {
                t.raw("P(");
                self.expr(f, t, callee, vars);
                t.raw(&format!(",{arg},{param})"));
            }
            Expr::Arg(callee, arg) => {
                t.raw("A(");
                self.expr(f, t, callee, vars);
                t.raw(&format!(",{arg})"));
            }
            Expr::Union(parts) => {
                t.raw("U(");
                for part in parts {
                    self.expr(f, t, part, vars);
                    t.raw(",");
                }
                t.raw(")");
            }
            Expr::Guard(arg, ty) => {
                t.raw(&format!("Is({arg},"));
                self.expr(f, t, ty, vars);
                t.raw(")");
            }
            Expr::Narrowed(callee, arg, before) => {
                t.raw("Nw(");
                self.expr(f, t, callee, vars);
                t.raw(&format!(",{arg},"));
                self.expr(f, t, before, vars);
                t.raw(")");
            }
        }
    }
}
