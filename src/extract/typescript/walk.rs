//! The scope-tracking walk: one pass over the tree, with a pre-pass per
//! block that hoists its declarations (functions, classes, interfaces,
//! `let`/`const`/`var` names, imports) so that uses before the declaration
//! line bind like the language binds them.

use std::cell::RefCell;
use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use tree_sitter::{Node, Parser};

use super::jsdoc::{self, Sep};
use super::{
    is_test_path, AmbientModule, ClassInfo, Export, Expr, Field, Import, Imported, Name, ObjectLit,
    Refs, Scope, Site, SiteKind, Spec, AT_PROPERTY, CJS_PROPERTY, DEFAULT, DESTRUCTURED,
    EXPORT_EQUALS, NS_ANY, NS_TYPE, NS_VALUE, SIGNATURE,
};
use crate::extract::syntax::{self, Syntax};
use crate::extract::{module_def, syntax_diagnostics, Def, Diagnostic, Lang};
use crate::graph::{NodeKind, Pos};

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// Call names that declare tests (with `.only`, `.skip`, `.each` …).
const TEST_FNS: &[&str] = &[
    "describe",
    "it",
    "test",
    "suite",
    "context",
    "fdescribe",
    "xdescribe",
    "fit",
    "xit",
    "xtest",
];
const TEST_MODIFIERS: &[&str] = &[
    "only",
    "skip",
    "todo",
    "concurrent",
    "failing",
    "sequential",
    "skipIf",
    "runIf",
];
/// Builtin generic collections whose type argument is their elements' type.
const COLLECTIONS: &[&str] = &["Array", "ReadonlyArray", "Set", "ReadonlySet"];
/// Builtin maps: their values (the second type argument) are read as
/// their elements (`m.get(k)`, the first parameter of `m.forEach`).
const MAPS: &[&str] = &["Map", "ReadonlyMap", "WeakMap"];

/// Wrapper types whose members are exactly their argument's. (Property
/// lookups on `Omit<T, K>` / `Pick<T, K>` find T's members: a name outside
/// the kept keys would not compile.)
const SAME_MEMBERS: &[&str] = &[
    "Readonly",
    "Partial",
    "Required",
    "Omit",
    "Pick",
    "NonNullable",
];

/// Wrapper types read as their argument where a value's members are
/// looked up (an awaited `Promise<T>` is a T), besides [`SAME_MEMBERS`].
const AWAITED: &[&str] = &["Promise", "PromiseLike", "Awaited"];

type Facts = (Vec<Def>, Vec<Diagnostic>, Vec<String>, Scope, Refs);

pub(super) fn run(lang: Lang, path: &str, src: &[u8]) -> Facts {
    let grammar = match lang {
        Lang::Tsx | Lang::JavaScript => lang,
        _ => Lang::TypeScript,
    };
    let language = crate::extract::grammar(grammar);
    syntax::walking(grammar);
    let mut patched = None;
    let tree = PARSER.with(|p| {
        let mut p = p.borrow_mut();
        if p.set_language(&language).is_err() {
            return None;
        }
        let fixed = (lang == Lang::TypeScript)
            .then(|| grammar_workarounds(src))
            .flatten();
        let Some(fixed) = fixed else {
            return p.parse(src, None);
        };
        // One parse when the rewrite reads cleanly (effect: every file with
        // an overload set or a variance annotation); else the original too,
        // and the tree with fewer errors.
        let t = p.parse(&fixed, None)?;
        if !t.root_node().has_error() {
            patched = Some(fixed);
            return Some(t);
        }
        let tree = p.parse(src, None)?;
        if error_bytes(t.root_node()) < error_bytes(tree.root_node()) {
            patched = Some(fixed);
            Some(t)
        } else {
            Some(tree)
        }
    });
    let original = src;
    let src: &[u8] = patched.as_deref().unwrap_or(src);
    let module = module_def(path, src);
    let Some(tree) = tree else {
        return (
            vec![module],
            vec![Diagnostic {
                pos: Pos { line: 1, column: 1 },
                message: "could not parse this file".into(),
            }],
            Vec::new(),
            Scope::default(),
            Refs::default(),
        );
    };
    let root = tree.root_node();
    let mut w = Walker::new(src, is_test_path(path), module);
    w.declaration_file = [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|e| path.ends_with(e));
    w.original = original;
    w.typed = lang != Lang::JavaScript;
    w.walk(root);
    w.finish(syntax_diagnostics(root, 50))
}

/// The source rewritten around constructs tree-sitter-typescript 0.23
/// cannot parse, or `None` if it has none of them. Only bytes that carry no
/// name are replaced, by bytes of the same length, so lines, columns and every
/// identifier stay where they were. The caller keeps the rewrite's tree if it
/// has no errors, else the one of the two with fewer.
fn grammar_workarounds(src: &[u8]) -> Option<Vec<u8>> {
    let mut buf = src.to_vec();
    let changed = call_signature_semicolons(&mut buf)
        | variance_modifiers(&mut buf)
        | escaped_backticks(&mut buf)
        | import_type_arguments(&mut buf);
    changed.then_some(buf)
}

/// Variance annotations on type parameters (`interface Effect<out A, in
/// out B>`, TypeScript 4.7) are not in the grammar: blanked, since they name
/// nothing. A modifier counts when it follows `<` or `,` and is followed by a
/// parameter name and then `,`, `>`, `=` or `extends`.
fn variance_modifiers(buf: &mut [u8]) -> bool {
    let mut changed = false;
    // Only a word right after a `<` or `,` (whitespace between) can be a
    // modifier: each is looked at from there, again after a blanked one
    // (`in out T`).
    let mut at = 0;
    while let Some(off) = memchr::memchr2(b'<', b',', &buf[at..]) {
        let p = at + off;
        at = p + 1;
        loop {
            let i = skip_ws(buf, p + 1);
            let len = word_at(buf, i);
            let word = &buf[i..i + len];
            if word != b"in" && word != b"out" {
                break;
            }
            let after = skip_ws(buf, i + len);
            let name = word_at(buf, after);
            let next = skip_ws(buf, after + name);
            let fits = after > i + len
                && name > 0
                && (&buf[after..after + name] == b"out"
                    || matches!(buf.get(next), Some(b',' | b'>' | b'='))
                    || buf[next..].starts_with(b"extends"));
            if !fits {
                break;
            }
            buf[i..i + len].fill(b' ');
            changed = true;
        }
    }
    changed
}

/// `import('./HKT').Kind<'Array', B>`, a type tsc writes into declaration
/// files for every type it infers from a module not imported by name: the
/// grammar takes no type arguments after an import type's name, and the
/// error often swallows the whole file (fp-ts's `es6/Array.d.ts`, 2,215
/// lines). The `import('…')` becomes one identifier of the same length
/// (`import____HKT__`), which the walker reads back as the module it names
/// ([`Walker::rewritten_import`]).
fn import_type_arguments(buf: &mut [u8]) -> bool {
    let mut changed = false;
    let mut at = 0;
    while let Some(off) = find(&buf[at..], b"import(") {
        let start = at + off;
        at = start + 7;
        if start > 0 && (ident(buf[start - 1]) || buf[start - 1] == b'.') {
            continue;
        }
        let q = skip_ws(buf, start + 7);
        let Some(&quote) = buf.get(q).filter(|c| matches!(c, b'\'' | b'"')) else {
            continue;
        };
        let Some(len) = memchr::memchr(quote, &buf[q + 1..]) else {
            continue;
        };
        let close = skip_ws(buf, q + 1 + len + 1);
        if buf.get(close) != Some(&b')') || buf[q + 1..q + 1 + len].contains(&b'\n') {
            continue;
        }
        // `.Name` segments, then `<`.
        let mut i = close + 1;
        let mut names = 0;
        while buf.get(i) == Some(&b'.') {
            let n = word_at(buf, i + 1);
            if n == 0 {
                break;
            }
            i += 1 + n;
            names += 1;
        }
        if names == 0 || buf.get(skip_ws(buf, i)) != Some(&b'<') {
            continue;
        }
        for b in &mut buf[start + 6..=close] {
            if !ident(*b) {
                *b = b'_';
            }
        }
        changed = true;
        at = close + 1;
    }
    changed
}

/// A byte of an identifier (ASCII letters, digits, `_`, `$`).
pub(super) fn ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The length of the identifier starting at `i` (0: none).
pub(super) fn word_at(buf: &[u8], i: usize) -> usize {
    buf[i..].iter().take_while(|&&b| ident(b)).count()
}

/// The first index from `i` that is not ASCII whitespace.
pub(super) fn skip_ws(buf: &[u8], mut i: usize) -> usize {
    while i < buf.len() && buf[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// An escaped backtick (`` \` ``) inside a template literal *type* ends it
/// for the grammar. Blanked with its backslash wherever it occurs: it is text
/// in a string, a template, a regex or a comment, never a name.
fn escaped_backticks(buf: &mut [u8]) -> bool {
    let mut changed = false;
    let mut at = 0;
    while let Some(off) = memchr::memchr(b'`', &buf[at..]) {
        let i = at + off;
        at = i + 1;
        let run = buf[..i].iter().rev().take_while(|&&b| b == b'\\').count();
        if run % 2 == 1 {
            buf[i - 1] = b' ';
            buf[i] = b' ';
            changed = true;
        }
    }
    changed
}

/// tree-sitter-typescript misreads a type member list without semicolons
/// when a generic call signature starts a line (`(a: A): B` then
/// `<T>(t: T): T`, upstream issue tree-sitter-typescript#335): it takes the
/// `<` for type arguments of the previous member, and the error often
/// swallows the whole file (effect writes every `dual` overload set so).
/// TypeScript ends a type member at the line break. This puts a `;` in
/// place of the indentation character before each such `<` (a line starting
/// `<Ident` or just `<`, after a code line ending in a name, `)`, `]`, `}`
/// or a closing `>`).
fn call_signature_semicolons(buf: &mut [u8]) -> bool {
    let mut changed = false;
    let mut in_comment = false;
    // Last significant byte of the previous code line, and the one before it.
    let mut prev: (u8, u8) = (b';', b';');
    let mut start = 0;
    while start < buf.len() {
        let end = memchr::memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
        let line = &buf[start..end];
        let indent = line
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let mut code = &line[indent..];
        if in_comment {
            match find(code, b"*/") {
                Some(i) => {
                    in_comment = false;
                    code = &code[i + 2..];
                }
                None => code = &[],
            }
        }
        let separate = code.first() == Some(&b'<')
            && indent > 0
            && code
                .get(1)
                .is_none_or(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'\r'))
            && (prev.1.is_ascii_alphanumeric()
                || matches!(prev.1, b'_' | b'$' | b')' | b']' | b'}')
                || (prev.1 == b'>' && prev.0 != b'='));
        // Drop comments from what the next line looks back at.
        if let Some(i) = find(code, b"//") {
            if i == 0 || code[i - 1] == b' ' {
                code = &code[..i];
            }
        }
        if let Some(i) = find(code, b"/*") {
            if find(&code[i..], b"*/").is_none() {
                in_comment = true;
            }
            code = &code[..i];
        }
        let mut sig = code.iter().rev().filter(|b| !b.is_ascii_whitespace());
        match (sig.next(), sig.next()) {
            (Some(&last), Some(&before)) => prev = (before, last),
            (Some(&last), None) => prev = (prev.1, last),
            _ => {}
        }
        if separate {
            buf[start + indent - 1] = b';';
            changed = true;
        }
        start = end + 1;
    }
    changed
}

#[cfg(test)]
pub(super) fn walk_fix_for_tests(src: &[u8]) -> Option<Vec<u8>> {
    grammar_workarounds(src)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Bytes covered by error nodes, plus one per missing node.
fn error_bytes(root: Node) -> usize {
    let mut total = 0;
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(n) = stack.pop() {
        if n.is_error() {
            total += n.end_byte() - n.start_byte();
        } else if n.is_missing() {
            total += 1;
        } else if n.has_error() {
            stack.extend(n.children(&mut cursor));
        }
    }
    total
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binding {
    Def(u32),
    Import(u32),
    Var(u32),
    /// Declared, but nothing is known about its value.
    Opaque,
    /// A type parameter with a constraint: a value of it is a value of
    /// the constraint ([`Walker::constraints`]).
    TypeParam(u32),
}

impl Binding {
    fn expr(self) -> Expr {
        match self {
            Binding::Def(d) => Expr::Def(d),
            Binding::Import(i) => Expr::Import(i),
            Binding::Var(v) => Expr::Var(v),
            Binding::Opaque | Binding::TypeParam(_) => Expr::Unknown,
        }
    }
}

#[derive(Default)]
struct Frame<'s> {
    values: HashMap<&'s str, Binding>,
    types: HashMap<&'s str, Binding>,
}

struct Walker<'s> {
    src: &'s [u8],
    /// The comments [`Walker::doc_comment`] has read (a cast's comment is
    /// read from its expression, and may be a child walked too).
    docs_read: HashSet<usize>,
    /// The source before [`grammar_workarounds`] (`src` when none applied).
    original: &'s [u8],
    /// Start bytes of the rewritten import types whose module site is
    /// recorded (a type's qualifier is read more than once).
    rewritten: HashSet<usize>,
    test_file: bool,
    /// TypeScript (members are declared), not JavaScript (`this.x = …`
    /// declares `x`).
    typed: bool,
    defs: Vec<Def>,
    private: Vec<bool>,
    scope: Scope,
    name_ids: HashMap<String, Name>,
    spec_ids: HashMap<String, u32>,
    refs: Refs,
    used: HashSet<&'s str>,
    frames: Vec<Frame<'s>>,
    /// A variable bound to a narrowed local (`if (isFoo(x))`, `x
    /// instanceof C`) → the local's value before: an assignment to the
    /// local ends the narrowing.
    narrowed_from: HashMap<u32, Expr>,
    /// Innermost enclosing definition.
    cur: u32,
    /// The ambient module (index in `Scope::ambient`) whose body is being
    /// walked, with the number of frames inside that body: an `export`
    /// there is the module's.
    ambient: Option<(usize, usize)>,
    /// A `.d.ts` file: when it is no module, its declarations are global.
    declaration_file: bool,
    /// Class whose instance `this` is.
    this_class: Option<u32>,
    /// What `this` is in a function declaring it (`function (this:
    /// SchedulerAction<T>) {}`): it wins over [`Walker::this_class`].
    this_value: Option<Expr>,
    /// Function whose `return` values are recorded.
    fn_def: Option<u32>,
    returned: HashSet<u32>,
    /// The declared return type's value of the function being walked: the
    /// contextual type of a returned object literal.
    ret_ctx: Option<Expr>,
    /// Object literal node id → the value its contextual type describes
    /// (`const x: T = { … }`, `{ … } satisfies T`, a property of such).
    obj_ctx: HashMap<usize, Expr>,
    /// Function argument node id → (callee, argument index): its untyped
    /// parameters take the types the callee declares for them.
    cb_ctx: HashMap<usize, (Expr, u16)>,
    /// Local of a parameter declared a function type → (the function
    /// declaring it, its index): an object literal passed to a call of the
    /// parameter is checked against that type's parameter
    /// ([`Walker::callback_args`]).
    fn_params: HashMap<u32, (u32, u16)>,
    /// Function argument node id → the declared types of its parameters
    /// and of its result, from the call's explicit type argument that
    /// types it ([`Walker::typed_callbacks`]).
    cb_types: HashMap<usize, (Vec<Expr>, Expr)>,
    /// Declaration node id → its definition (made by the hoisting pre-pass).
    node_defs: HashMap<usize, u32>,
    /// Namespaces (`namespace X {}`, or merged into a class or interface):
    /// what the qualifier of a type name (`X.Y`) denotes.
    namespaces: HashSet<u32>,
    /// (class, member name) → definition, for accessor pairs and overloads.
    member_defs: HashMap<(u32, &'s str), u32>,
    /// Overload signatures seen before an implementation in the block being
    /// hoisted: name → (signature name node, signature statement).
    first_sig: HashMap<&'s str, (Node<'s>, Node<'s>)>,
    /// The parameter types the JSDoc comment of the JavaScript function
    /// being entered declares (`@param {T} name`), for [`Walker::params`].
    doc_params: Vec<(&'s str, Expr)>,
    /// What a value of each constrained type parameter is
    /// ([`Binding::TypeParam`]): its constraint's value.
    constraints: Vec<Expr>,
    /// Recursion depth of the walk (deeply nested generated code must not
    /// overflow the stack).
    depth: u32,
    stack_base: usize,
    too_deep: bool,
    extra_diagnostics: Vec<Diagnostic>,
}

/// Deeper syntax than this is not analysed.
const MAX_DEPTH: u32 = 3000;
/// Nor once the walk has used this much stack (rayon threads have 2 MiB;
/// debug builds have large frames).
const STACK_BUDGET: usize = 1 << 20;

/// An address on the current stack.
#[inline(always)]
fn stack_here() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}

impl<'s> Walker<'s> {
    fn new(src: &'s [u8], test_file: bool, module: Def) -> Self {
        Walker {
            src,
            docs_read: HashSet::new(),
            original: src,
            rewritten: HashSet::new(),
            test_file,
            typed: true,
            defs: vec![module],
            private: vec![false],
            scope: Scope::default(),
            name_ids: HashMap::new(),
            spec_ids: HashMap::new(),
            refs: Refs::default(),
            used: HashSet::new(),
            frames: Vec::new(),
            narrowed_from: HashMap::new(),
            cur: 0,
            ambient: None,
            declaration_file: false,
            this_class: None,
            this_value: None,
            fn_def: None,
            returned: HashSet::new(),
            ret_ctx: None,
            obj_ctx: HashMap::new(),
            cb_ctx: HashMap::new(),
            fn_params: HashMap::new(),
            cb_types: HashMap::new(),
            node_defs: HashMap::new(),
            member_defs: HashMap::new(),
            namespaces: HashSet::new(),
            first_sig: HashMap::new(),
            constraints: Vec::new(),
            doc_params: Vec::new(),
            depth: 0,
            stack_base: stack_here(),
            too_deep: false,
            extra_diagnostics: Vec::new(),
        }
    }

    fn finish(mut self, mut diagnostics: Vec<Diagnostic>) -> Facts {
        diagnostics.append(&mut self.extra_diagnostics);
        // Members are visible when their class is, unless private.
        for i in 1..self.defs.len() {
            let p = self.defs[i].parent.unwrap_or(0) as usize;
            if p != 0
                && self.defs[p].kind == NodeKind::Class
                && matches!(self.defs[i].kind, NodeKind::Method | NodeKind::Class)
            {
                self.defs[i].exported = self.defs[p].exported && !self.private[i];
            }
        }
        let names = &self.scope.names;
        self.scope
            .exports
            .sort_by(|a, b| names[a.name as usize].cmp(&names[b.name as usize]));
        for m in &mut self.scope.ambient {
            m.exports
                .sort_by(|a, b| names[a.name as usize].cmp(&names[b.name as usize]));
        }
        self.scope.classes.sort_by_key(|c| c.def);
        self.scope.fields.sort_by_key(|f| f.class);
        self.scope.returns.sort_by_key(|r| r.0);
        self.scope.getters.sort_unstable();
        self.scope.statics.sort_unstable();
        self.scope.statics.dedup();
        self.scope.ns_exports.sort_by_key(|e| e.0);
        self.scope.typeofs.sort_by_key(|e| e.0);
        self.scope.getters.dedup();
        let mut ref_names: BTreeSet<String> = self.used.iter().map(|s| s.to_string()).collect();
        ref_names.extend(self.scope.names.iter().cloned());
        for spec in &self.scope.specs {
            for seg in spec.text.split('/') {
                let stem = seg.split('.').next().unwrap_or(seg);
                if !stem.is_empty() {
                    ref_names.insert(stem.to_string());
                }
            }
        }
        ref_names.remove(DEFAULT);
        ref_names.remove(EXPORT_EQUALS);
        (
            self.defs,
            diagnostics,
            ref_names.into_iter().collect(),
            self.scope,
            self.refs,
        )
    }

    // ----- small helpers -------------------------------------------------

    fn text(&self, n: Node<'s>) -> &'s str {
        n.utf8_text(self.src).unwrap_or("")
    }

    fn intern(&mut self, s: &str) -> Name {
        if let Some(&i) = self.name_ids.get(s) {
            return i;
        }
        let i = self.scope.names.len() as Name;
        self.scope.names.push(s.to_string());
        self.name_ids.insert(s.to_string(), i);
        i
    }

    fn intern_spec(&mut self, s: &str) -> u32 {
        self.intern_spec_as(s, false)
    }

    /// A specifier as a `require()` call names it: apart from the same
    /// text imported, which may resolve elsewhere.
    fn intern_spec_as(&mut self, s: &str, require: bool) -> u32 {
        let key = if require {
            format!("\0{s}")
        } else {
            s.to_string()
        };
        if let Some(&i) = self.spec_ids.get(&key) {
            return i;
        }
        let i = self.scope.specs.len() as u32;
        self.scope.specs.push(Spec {
            text: s.to_string(),
            star: false,
            require,
        });
        self.spec_ids.insert(key, i);
        i
    }

    /// The text and position of a string literal's content.
    fn string_value(&self, n: Node<'s>) -> Option<(&'s str, Pos)> {
        match n.kind_name() {
            "string" => {
                let mut c = n.walk();
                let frag = n
                    .named_children(&mut c)
                    .find(|c| c.kind_name() == "string_fragment");
                match frag {
                    Some(f) => Some((self.text(f), Pos::from_ts(f.start_position()))),
                    None => {
                        let p = Pos::from_ts(n.start_position());
                        Some((
                            "",
                            Pos {
                                line: p.line,
                                column: p.column + 1,
                            },
                        ))
                    }
                }
            }
            "template_string" => {
                let mut c = n.walk();
                let mut kids = n.named_children(&mut c);
                if kids.any(|k| k.kind_name() == "template_substitution") {
                    return None;
                }
                let t = self.text(n);
                let p = Pos::from_ts(n.start_position());
                Some((
                    t.trim_matches('`'),
                    Pos {
                        line: p.line,
                        column: p.column + 1,
                    },
                ))
            }
            _ => None,
        }
    }

    /// What function `d` returns (an object kept in a variable: `return
    /// { status: new ParseStatus() }`, zod).
    fn push_return(&mut self, d: u32, e: Expr) {
        let e = self.held(e);
        self.scope.returns.push((d, e));
    }

    /// `e`, an object (a literal, an object type) kept in a new variable:
    /// the resolver reads an object's properties only there.
    fn held(&mut self, e: Expr) -> Expr {
        match e {
            Expr::Object(_) => Expr::Var(self.new_var(e)),
            e => e,
        }
    }

    /// Field `name` of class (or alias) `class` holds `value` (an object
    /// kept in a variable, as a return is).
    fn push_field(&mut self, class: u32, name: u32, value: Expr) {
        let value = self.held(value);
        self.scope.fields.push(Field { class, name, value });
    }

    /// A new variable of the file holding `e`.
    fn new_var(&mut self, e: Expr) -> u32 {
        self.scope.vars.push(e);
        self.scope.vars.len() as u32 - 1
    }

    fn push_frame(&mut self) {
        self.frames.push(Frame::default());
    }

    fn pop_frame(&mut self) {
        self.frames.pop();
    }

    fn bind(&mut self, name: &'s str, ns: u8, b: Binding) {
        if self.frames.is_empty() {
            self.push_frame();
        }
        let f = self.frames.last_mut().expect("a frame");
        if ns & NS_VALUE != 0 {
            f.values.insert(name, b);
        }
        if ns & NS_TYPE != 0 {
            f.types.insert(name, b);
        }
    }

    fn lookup(&mut self, name: &'s str, ns: u8) -> Option<Binding> {
        self.used.insert(name);
        for f in self.frames.iter().rev() {
            if ns & NS_VALUE != 0 {
                if let Some(b) = f.values.get(name) {
                    return Some(*b);
                }
            }
            if ns & NS_TYPE != 0 {
                if let Some(b) = f.types.get(name) {
                    return Some(*b);
                }
            }
        }
        None
    }

    fn lookup_expr(&mut self, name: &'s str, ns: u8) -> Expr {
        match self.lookup(name, ns) {
            Some(b) => b.expr(),
            None => Expr::Global,
        }
    }

    fn at_module_level(&self) -> bool {
        self.frames.len() == 1
    }

    fn add_def(
        &mut self,
        name: &str,
        name_node: Node,
        outer: Node,
        kind: NodeKind,
        exported: bool,
    ) -> u32 {
        let parent = self.cur;
        let p = &self.defs[parent as usize];
        let local = if p.local.is_empty() {
            name.to_string()
        } else if kind == NodeKind::Test && p.kind == NodeKind::Test {
            format!("{} > {}", p.local, name)
        } else {
            format!("{}.{}", p.local, name)
        };
        let idx = self.defs.len() as u32;
        self.defs.push(Def {
            name: name.to_string(),
            local,
            kind,
            parent: Some(parent),
            pos: Pos::from_ts(name_node.start_position()),
            start_line: outer.start_position().row as u32 + 1,
            end_line: outer.end_position().row as u32 + 1,
            exported,
        });
        self.private.push(false);
        idx
    }

    /// The node whose lines a declaration spans (its `export` wrapper).
    fn outer(n: Node) -> Node {
        let mut o = n;
        while let Some(p) = o.parent() {
            if matches!(p.kind_name(), "export_statement" | "ambient_declaration") {
                o = p;
            } else {
                break;
            }
        }
        o
    }

    fn is_exported(n: Node) -> bool {
        let mut o = n;
        while let Some(p) = o.parent() {
            match p.kind_name() {
                "export_statement" => return true,
                "ambient_declaration" => o = p,
                _ => return false,
            }
        }
        false
    }

    fn site(&mut self, pos_node: Node<'s>, kind: SiteKind, ns: u8, target: Expr) {
        self.site_at(Pos::from_ts(pos_node.start_position()), kind, ns, target)
    }

    fn site_at(&mut self, pos: Pos, kind: SiteKind, ns: u8, target: Expr) {
        if is_dead(&target) {
            return;
        }
        self.refs.sites.push(Site {
            pos,
            src: self.cur,
            kind,
            ns,
            target,
        });
    }

    fn module_site(&mut self, string: Node<'s>) -> Option<u32> {
        self.module_site_as(string, false)
    }

    fn module_site_as(&mut self, string: Node<'s>, require: bool) -> Option<u32> {
        let (text, pos) = self.string_value(string)?;
        let spec = self.intern_spec_as(text, require);
        self.refs.modules.push((pos, spec));
        Some(spec)
    }

    // ----- hoisting ------------------------------------------------------

    /// Declare what a block's statements bind before walking them.
    fn hoist(&mut self, block: Node<'s>) {
        let mut c = block.walk();
        let stmts: Vec<Node> = block.named_children(&mut c).collect();
        let mut impls: HashSet<&str> = HashSet::new();
        for s in &stmts {
            let d = unwrap_decl(*s);
            if matches!(
                d.kind_name(),
                "function_declaration" | "generator_function_declaration"
            ) {
                if let Some(n) = d.field("name") {
                    impls.insert(self.text(n));
                }
            }
        }
        self.first_sig.clear();
        for s in stmts {
            if s.kind_name() == "import_statement" {
                self.import_statement(s);
                continue;
            }
            let (d, placed) = unwrap_placed(s);
            debug_assert!(
                placed.exported == Self::is_exported(d) && placed.outer == Self::outer(d),
                "placement of {d:?} from {s:?}"
            );
            self.hoist_decl(d, placed, &impls);
        }
        // JavaScript: a function given prototype methods in this block is
        // a class from the start, so that `this` in its own body is an
        // instance (`function View() { this.lookup(…) }`).
        if !self.typed {
            for s in block.named_children(&mut c) {
                let Some(a) = s.named_child(0).filter(|a| {
                    s.kind_name() == "expression_statement"
                        && a.kind_name() == "assignment_expression"
                }) else {
                    continue;
                };
                if let (Some(left), Some(right)) = (a.field("left"), a.field("right")) {
                    if let Some((class, obj, Some(_))) =
                        self.prototype_method(left, skip_parens(right))
                    {
                        self.defs[class as usize].kind = NodeKind::Class;
                        // A class is a type too: `@returns {Query}`.
                        if let Some(ctor) = obj.field("object") {
                            let name = self.text(ctor);
                            self.bind(name, NS_TYPE, Binding::Def(class));
                        }
                    }
                }
            }
        }
    }

    fn hoist_decl(&mut self, d: Node<'s>, placed: Placed<'s>, impls: &HashSet<&str>) {
        let name_node = d.field("name");
        let name = name_node.map(|n| self.text(n)).unwrap_or("");
        let Placed { exported, outer } = placed;
        match d.kind_name() {
            "function_declaration" | "generator_function_declaration" => {
                let Some(nn) = name_node else { return };
                let def = self.add_def(name, nn, outer, NodeKind::Function, exported);
                // Overloads: tsserver's definition of a call is a signature,
                // most often the first, so the node starts there.
                if let Some((sig_name, sig)) = self.first_sig.remove(name) {
                    let def_mut = &mut self.defs[def as usize];
                    def_mut.pos = Pos::from_ts(sig_name.start_position());
                    def_mut.start_line = Self::outer(sig).start_position().row as u32 + 1;
                    // Its declared return type is the call's (the
                    // implementation's own is not visible to callers).
                    self.node_defs.insert(sig.id(), def);
                }
                self.node_defs.insert(d.id(), def);
                self.bind(name, NS_VALUE, Binding::Def(def));
            }
            "function_signature" => {
                let Some(nn) = name_node else { return };
                if impls.contains(name) {
                    self.first_sig.entry(name).or_insert((nn, d));
                    return;
                }
                let existing = self.frames.last().and_then(|f| f.values.get(name).copied());
                let def = match existing {
                    Some(Binding::Def(def)) => {
                        // Another signature of a set with no implementation
                        // (`declare function f(a: A): A;` twice, as in a
                        // `.d.ts`): the set is one symbol, its node spans
                        // every signature.
                        let end = outer.end_position().row as u32 + 1;
                        let node = &mut self.defs[def as usize];
                        if node.kind == NodeKind::Function {
                            node.end_line = node.end_line.max(end);
                        }
                        def
                    }
                    _ => {
                        let def = self.add_def(name, nn, outer, NodeKind::Function, exported);
                        self.bind(name, NS_VALUE, Binding::Def(def));
                        def
                    }
                };
                self.node_defs.insert(d.id(), def);
            }
            "class_declaration" | "abstract_class_declaration" | "enum_declaration" => {
                let Some(nn) = name_node else { return };
                let def = self.add_def(name, nn, outer, NodeKind::Class, exported);
                self.node_defs.insert(d.id(), def);
                self.bind(name, NS_ANY, Binding::Def(def));
            }
            "interface_declaration" | "type_alias_declaration" => {
                let Some(nn) = name_node else { return };
                let existing = self.frames.last().and_then(|f| f.types.get(name).copied());
                let def = match existing {
                    // Interface merging: one node for all declarations.
                    Some(Binding::Def(def)) if d.kind_name() == "interface_declaration" => def,
                    _ => {
                        let def = self.add_def(name, nn, outer, NodeKind::Class, exported);
                        self.bind(name, NS_TYPE, Binding::Def(def));
                        def
                    }
                };
                self.node_defs.insert(d.id(), def);
            }
            "internal_module" | "module" => {
                let Some(nn) = name_node.filter(|n| n.kind_name() == "identifier") else {
                    return;
                };
                // Declaration merging: a namespace adds members to the class,
                // interface or namespace of the same name (a same-named
                // constant beside an interface is no obstacle).
                let frame = self.frames.last();
                let class_def = |b: Option<&Binding>| match b {
                    Some(&Binding::Def(d)) if self.defs[d as usize].kind == NodeKind::Class => {
                        Some(Binding::Def(d))
                    }
                    _ => None,
                };
                let existing = frame.and_then(|f| {
                    class_def(f.values.get(name)).or_else(|| class_def(f.types.get(name)))
                });
                let def = match existing {
                    Some(Binding::Def(def)) => {
                        if !self
                            .frames
                            .last()
                            .is_some_and(|f| f.values.contains_key(name))
                        {
                            self.bind(name, NS_VALUE, Binding::Def(def));
                        }
                        def
                    }
                    _ => {
                        let def = self.add_def(name, nn, outer, NodeKind::Class, exported);
                        self.bind(name, NS_ANY, Binding::Def(def));
                        def
                    }
                };
                self.namespaces.insert(def);
                self.node_defs.insert(d.id(), def);
            }
            "lexical_declaration" | "variable_declaration" => {
                let mut c = d.walk();
                let decls: Vec<Node> = d
                    .named_children(&mut c)
                    .filter(|n| n.kind_name() == "variable_declarator")
                    .collect();
                for v in decls {
                    self.hoist_declarator(v, exported);
                }
            }
            _ => {}
        }
    }

    fn hoist_declarator(&mut self, v: Node<'s>, exported: bool) {
        let Some(nn) = v.field("name") else {
            return;
        };
        let value = v.field("value").map(skip_parens);
        if let Some(val) = value {
            if let Some(spec_node) = require_arg(val, self.src) {
                self.require_declarator(nn, spec_node);
                self.node_defs.insert(v.id(), u32::MAX);
                return;
            }
        }
        if nn.kind_name() != "identifier" {
            return;
        }
        let name = self.text(nn);
        match value.map(|n| n.kind_name()) {
            Some("arrow_function" | "function_expression" | "function" | "generator_function") => {
                let def = self.add_def(name, nn, Self::outer(v), NodeKind::Function, exported);
                self.node_defs.insert(v.id(), def);
                self.bind(name, NS_VALUE, Binding::Def(def));
            }
            Some("class") => {
                let def = self.add_def(name, nn, Self::outer(v), NodeKind::Class, exported);
                self.node_defs.insert(v.id(), def);
                self.bind(name, NS_ANY, Binding::Def(def));
            }
            _ => {
                let var = self.new_var(Expr::Unknown);
                self.bind(name, NS_VALUE, Binding::Var(var));
            }
        }
    }

    /// `const x = require('m')` / `const { a, b: c } = require('m')`.
    fn require_declarator(&mut self, name: Node<'s>, spec_node: Node<'s>) {
        let Some(spec) = self.module_site_as(spec_node, true) else {
            return;
        };
        match name.kind_name() {
            "identifier" => {
                let local = self.text(name);
                let l = self.intern(local);
                let i = self.push_import(l, spec, Imported::Module);
                self.bind(local, NS_ANY, Binding::Import(i));
                // In JavaScript the variable is an alias of what the module
                // exports: tsserver counts its name among the references
                // of a `module.exports = X` definition and answers X there.
                // (In TypeScript it is a plain variable.)
                if !self.typed {
                    self.site(name, SiteKind::Ref, NS_ANY, Expr::Import(i));
                }
            }
            "object_pattern" => {
                let mut c = name.walk();
                let kids: Vec<Node> = name.named_children(&mut c).collect();
                for k in kids {
                    let (key, local) = match k.kind_name() {
                        "shorthand_property_identifier_pattern" => (k, k),
                        "pair_pattern" => {
                            let (Some(key), Some(val)) = (k.field("key"), k.field("value")) else {
                                continue;
                            };
                            if val.kind_name() != "identifier" {
                                continue;
                            }
                            (key, val)
                        }
                        _ => continue,
                    };
                    let imported = self.text(key);
                    let local_text = self.text(local);
                    let n = self.intern(imported);
                    let l = self.intern(local_text);
                    let what = if imported == DEFAULT {
                        Imported::Default
                    } else {
                        Imported::Named(n)
                    };
                    let i = self.push_import(l, spec, what);
                    self.bind(local_text, NS_ANY, Binding::Import(i));
                    // tsserver defines `key` at the exporting property:
                    // a definition made there (`exports.f = function ()
                    // {}`) is named by it, any other is not.
                    self.site(key, SiteKind::Ref, NS_ANY | DESTRUCTURED, Expr::Import(i));
                }
            }
            _ => {}
        }
    }

    fn push_import(&mut self, local: Name, spec: u32, what: Imported) -> u32 {
        let i = self.scope.imports.len() as u32;
        self.scope.imports.push(Import { local, spec, what });
        i
    }

    fn import_statement(&mut self, s: Node<'s>) {
        let mut c = s.walk();
        let kids: Vec<Node> = s.named_children(&mut c).collect();
        let source = s.field("source");
        let spec = source.and_then(|src| self.module_site(src));
        for k in kids {
            match k.kind_name() {
                "import_clause" => {
                    let Some(spec) = spec else { continue };
                    let mut c2 = k.walk();
                    let parts: Vec<Node> = k.named_children(&mut c2).collect();
                    for p in parts {
                        match p.kind_name() {
                            "identifier" => {
                                let local = self.text(p);
                                let l = self.intern(local);
                                let i = self.push_import(l, spec, Imported::Default);
                                self.bind(local, NS_ANY, Binding::Import(i));
                                self.site(p, SiteKind::Ref, NS_ANY, Expr::Import(i));
                            }
                            "namespace_import" => {
                                let mut c3 = p.walk();
                                let id = p
                                    .named_children(&mut c3)
                                    .find(|n| n.kind_name() == "identifier");
                                if let Some(id) = id {
                                    let local = self.text(id);
                                    let l = self.intern(local);
                                    let i = self.push_import(l, spec, Imported::Namespace);
                                    self.bind(local, NS_ANY, Binding::Import(i));
                                }
                            }
                            "named_imports" => {
                                let mut c3 = p.walk();
                                let specs: Vec<Node> = p
                                    .named_children(&mut c3)
                                    .filter(|n| n.kind_name() == "import_specifier")
                                    .collect();
                                for sp in specs {
                                    let Some(name) = sp.field("name") else {
                                        continue;
                                    };
                                    let imported = match name.kind_name() {
                                        "string" => match self.string_value(name) {
                                            Some((t, _)) => t,
                                            None => continue,
                                        },
                                        _ => self.text(name),
                                    };
                                    let local_node = sp.field("alias").unwrap_or(name);
                                    let local = if local_node.kind_name() == "string" {
                                        imported
                                    } else {
                                        self.text(local_node)
                                    };
                                    let n = self.intern(imported);
                                    let l = self.intern(local);
                                    let what = if imported == DEFAULT {
                                        Imported::Default
                                    } else {
                                        Imported::Named(n)
                                    };
                                    let i = self.push_import(l, spec, what);
                                    self.bind(local, NS_ANY, Binding::Import(i));
                                    self.site(name, SiteKind::Ref, NS_ANY, Expr::Import(i));
                                    // tsserver counts the alias too.
                                    if let Some(alias) = sp.field("alias") {
                                        self.site(alias, SiteKind::Ref, NS_ANY, Expr::Import(i));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "import_require_clause" => {
                    // (`import x = require('m')` is a `require()`.)
                    let spec = k
                        .field("source")
                        .and_then(|src| self.module_site_as(src, true));
                    let mut c2 = k.walk();
                    let id = k
                        .named_children(&mut c2)
                        .find(|n| n.kind_name() == "identifier");
                    if let (Some(spec), Some(id)) = (spec, id) {
                        let local = self.text(id);
                        let l = self.intern(local);
                        let i = self.push_import(l, spec, Imported::Module);
                        self.bind(local, NS_ANY, Binding::Import(i));
                        // An alias, like a default import's name.
                        self.site(id, SiteKind::Ref, NS_ANY, Expr::Import(i));
                    }
                }
                _ => {}
            }
        }
    }

    // ----- the walk ------------------------------------------------------

    fn walk_children(&mut self, n: Node<'s>) {
        let mut c = n.walk();
        if !c.goto_first_child() {
            return;
        }
        loop {
            let k = c.node();
            if k.is_named() {
                self.walk(k);
            }
            if !c.goto_next_sibling() {
                break;
            }
        }
    }

    fn walk_field(&mut self, n: Node<'s>, field: &str) {
        if let Some(f) = n.field(field) {
            self.walk(f);
        }
    }

    /// Too deep to go on (the stack grows down on every supported target).
    fn too_deep_here(&self) -> bool {
        self.depth >= MAX_DEPTH || self.stack_base.saturating_sub(stack_here()) > STACK_BUDGET
    }

    fn walk(&mut self, n: Node<'s>) {
        if self.too_deep_here() {
            if !self.too_deep {
                self.too_deep = true;
                self.extra_diagnostics.push(Diagnostic {
                    pos: Pos::from_ts(n.start_position()),
                    message: "nesting too deep: not analysed further".into(),
                });
            }
            return;
        }
        self.depth += 1;
        self.walk_node(n);
        self.depth -= 1;
    }

    fn walk_node(&mut self, n: Node<'s>) {
        if matches!(
            n.kind_name(),
            "class_declaration"
                | "abstract_class_declaration"
                | "interface_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "internal_module"
                | "module"
        ) && !self.node_defs.contains_key(&n.id())
        {
            // Not at block level (inside an error, a `case`): declare now.
            let placed = Placed {
                exported: Self::is_exported(n),
                outer: Self::outer(n),
            };
            self.hoist_decl(n, placed, &HashSet::new());
        }
        match n.kind_name() {
            "program" | "statement_block" => {
                self.push_frame();
                if n.kind_name() == "program" && !self.typed {
                    self.typedef_imports(n);
                }
                self.hoist(n);
                if self.declares_globals(n) {
                    self.record_globals();
                }
                self.walk_children(n);
                self.pop_frame();
            }
            "class_static_block" => self.walk_children(n),
            "function_declaration" | "generator_function_declaration" => {
                let def = match self.node_defs.get(&n.id()) {
                    Some(&d) => d,
                    None => {
                        // Not at block level (`case 1: function f() {}`).
                        let Some(nn) = n.field("name") else {
                            return;
                        };
                        let name = self.text(nn);
                        let d = self.add_def(name, nn, n, NodeKind::Function, false);
                        self.bind(name, NS_VALUE, Binding::Def(d));
                        d
                    }
                };
                // (A constructor function with prototype methods: see `hoist`.)
                let this = (self.defs[def as usize].kind == NodeKind::Class).then_some(def);
                self.function(n, Some(def), this);
            }
            "function_signature" => {
                let def = self.node_defs.get(&n.id()).copied();
                self.function(n, def, None);
            }
            "arrow_function" => {
                let this = self.this_class;
                self.function(n, None, this);
            }
            "function_expression" | "function" | "generator_function" | "method_definition" => {
                self.function(n, None, None)
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                let mut def = self.node_defs.get(&n.id()).copied();
                if def.is_none() {
                    // A named class expression (or a declaration the
                    // parser recovered as one).
                    if let Some(nn) = n.field("name") {
                        let name = self.text(nn);
                        let d = self.add_def(name, nn, n, NodeKind::Class, false);
                        self.node_defs.insert(n.id(), d);
                        def = Some(d);
                    }
                }
                self.class(n, def);
            }
            "interface_declaration" => {
                let def = self.node_defs.get(&n.id()).copied();
                self.interface(n, def);
            }
            "type_alias_declaration" => {
                let def = self.node_defs.get(&n.id()).copied();
                self.type_alias(n, def);
            }
            "enum_declaration" => self.walk_field(n, "body"),
            "internal_module" | "module" => {
                let saved = self.cur;
                if let Some(&d) = self.node_defs.get(&n.id()) {
                    self.cur = d;
                }
                // `declare module 'spec' { … }`: its exports are the
                // ambient module's (its body is a block: one frame more).
                let ambient = self.ambient;
                if let Some(name) = n.field("name").filter(|m| m.kind_name() == "string") {
                    let spec = self.text(name).trim_matches(|c| c == '"' || c == '\'');
                    self.scope.ambient.push(AmbientModule {
                        spec: spec.to_string(),
                        exports: Vec::new(),
                    });
                    self.ambient = Some((self.scope.ambient.len() - 1, self.frames.len() + 1));
                }
                self.walk_field(n, "body");
                self.ambient = ambient;
                self.cur = saved;
            }
            "lexical_declaration" | "variable_declaration" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                for k in kids {
                    if k.kind_name() == "variable_declarator" {
                        self.declarator(k);
                    } else {
                        self.walk(k);
                    }
                }
            }
            "import_statement" => {
                // Handled when its block was hoisted.
            }
            // `import X = A.B;` (a namespace alias): A and B are references.
            "import_alias" => {
                if let Some(v) = n.named_child(1) {
                    self.qualifier_sites(v);
                }
            }
            "export_statement" => self.export(n),
            "call_expression" => self.call(n),
            "new_expression" => self.new_expr(n),
            "member_expression" => self.member_ref(n),
            "identifier" => self.ident_ref(n, NS_VALUE),
            // `{ x }` refers to x: tsserver lists it among the references of
            // x's definition, an imported x's too (its go-to-definition stops
            // at the import, which `verify` follows one step).
            "shorthand_property_identifier" => self.ident_ref(n, NS_VALUE),
            "type_identifier" => self.ident_ref(n, NS_TYPE),
            "nested_type_identifier" => {
                if let Some(name) = n.field("name") {
                    let mut e = self.nested_type(n);
                    if is_dead(&e) {
                        if let Some(base) = n.field("module").and_then(|m| self.free_path(m)) {
                            e = Expr::Member(Box::new(base), self.intern(self.text(name)));
                        }
                    }
                    self.site(name, SiteKind::Ref, NS_TYPE, e);
                }
                if let Some(m) = n.field("module") {
                    self.qualifier_sites(m);
                }
            }
            "jsx_opening_element" | "jsx_closing_element" | "jsx_self_closing_element" => {
                self.jsx(n)
            }
            "comment" => self.doc_comment(n),
            "parenthesized_expression" if !self.typed => {
                if let Some(c) = cast_comment(n, self.src) {
                    self.doc_comment(c);
                }
                self.walk_children(n);
            }
            "conditional_type" => {
                // `A extends [infer H, ...infer T] ? X<T> : Y`: each `infer`
                // declares a type parameter, in scope in the extends clause
                // and the true branch only.
                self.walk_field(n, "left");
                self.push_frame();
                if let Some(r) = n.field("right") {
                    self.bind_infers(r);
                }
                self.walk_field(n, "right");
                self.walk_field(n, "consequence");
                self.pop_frame();
                self.walk_field(n, "alternative");
            }
            "type_query" => match n.named_child(0) {
                Some(q) if matches!(q.kind_name(), "identifier" | "member_expression") => {
                    self.query_chain(q);
                }
                _ => self.walk_children(n),
            },
            "lookup_type" => {
                // `Observer<T>['next']` names the member.
                let key = n
                    .named_child(1)
                    .filter(|i| i.kind_name() == "literal_type")
                    .and_then(|i| i.named_child(0))
                    .filter(|k| k.kind_name() == "string");
                if let (Some(obj), Some((name, pos))) =
                    (n.named_child(0), key.and_then(|k| self.string_value(k)))
                {
                    let base = self.type_value(obj);
                    if !matches!(base, Expr::Unknown | Expr::Global) && !name.is_empty() {
                        let e = self.member_of(&base, name);
                        self.site_at(pos, SiteKind::Ref, NS_TYPE, e);
                    }
                }
                self.walk_children(n);
            }
            "infer_type" => {
                // The name is declared (above); a constraint is a use.
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).skip(1).collect();
                for k in kids {
                    self.walk(k);
                }
            }
            "catch_clause" => {
                self.push_frame();
                if let Some(p) = n.field("parameter") {
                    self.bind_pattern(p, Expr::Unknown);
                }
                self.walk_field(n, "type");
                self.walk_field(n, "body");
                self.pop_frame();
            }
            "for_in_statement" => {
                self.push_frame();
                self.walk_field(n, "right");
                if let Some(left) = n.field("left") {
                    if n.field("kind").is_some() {
                        // `for (const x of xs)`: an element of `xs`.
                        let of = n.field("operator").is_some_and(|o| self.text(o) == "of");
                        let val = match n.field("right") {
                            Some(r) if of => {
                                let xs = self.expr(r);
                                self.element_of(xs)
                            }
                            _ => Expr::Unknown,
                        };
                        self.bind_pattern(left, val);
                    } else {
                        self.walk(left);
                    }
                }
                self.walk_field(n, "body");
                self.pop_frame();
            }
            "if_statement" if self.narrowed_if(n) => {}
            "ternary_expression"
                if n.field("condition")
                    .zip(n.field("consequence"))
                    .is_some_and(|(c, a)| self.narrowed_operand(c, a, n.field("alternative"))) => {}
            "binary_expression"
                if n.field("operator").map(|o| self.text(o)) == Some("&&")
                    && n.field("left")
                        .zip(n.field("right"))
                        .is_some_and(|(l, r)| self.narrowed_operand(l, r, None)) => {}
            "for_statement" => {
                self.push_frame();
                self.walk_children(n);
                self.pop_frame();
            }
            "assignment_expression" => self.assignment(n),
            "object" => {
                if let Some(ctx) = self.obj_ctx.remove(&n.id()) {
                    self.object_sites(n, ctx);
                }
                self.walk_children(n);
            }
            "as_expression" | "satisfies_expression" => {
                if let (Some(v), Some(t)) = (n.named_child(0), n.named_child(1)) {
                    if skip_parens(v).kind_name() == "object" {
                        let ctx = self.type_value(t);
                        self.expect_object(v, ctx);
                    }
                }
                self.walk_children(n);
            }
            "return_statement" => {
                if let (Some(ctx), Some(v)) = (self.ret_ctx.clone(), n.named_child(0)) {
                    self.expect_object(v, ctx);
                }
                if let Some(d) = self.fn_def {
                    if !self.returned.contains(&d) {
                        if let Some(v) = n.named_child(0) {
                            let e = self.expr(v);
                            if !matches!(e, Expr::Unknown | Expr::Global) {
                                self.returned.insert(d);
                                self.push_return(d, e);
                            }
                        }
                    }
                }
                self.walk_children(n);
            }
            "required_parameter" | "optional_parameter" => {
                // Parameters of a function *type*: only the types are uses.
                self.walk_field(n, "type");
            }
            "property_identifier"
            | "private_property_identifier"
            | "statement_identifier"
            | "shorthand_property_identifier_pattern"
            | "string"
            | "number"
            | "regex"
            | "predefined_type"
            | "this"
            | "super"
            | "import"
            | "undefined"
            | "true"
            | "false"
            | "null"
            | "string_fragment"
            | "hash_bang_line" => {}
            _ => self.walk_children(n),
        }
    }

    /// The names a JSDoc comment refers to (`{@link Query#fetch}`, `@see
    /// X`, `@throws {E}`), looked up where the comment stands: tsserver
    /// resolves them in the scope of the declaration or statement the
    /// comment documents (its block's names, imports included) and counts
    /// them as references. A name not bound in the file is no site.
    fn doc_comment(&mut self, n: Node<'s>) {
        if !self.docs_read.insert(n.id()) {
            return;
        }
        let text = self.text(n);
        let start = n.start_position();
        // In a class or interface body, a name bound nowhere is a member
        // of it (`{@link concat}` on a sibling method).
        let host = n
            .parent()
            .filter(|p| {
                matches!(
                    p.kind_name(),
                    "class_body" | "interface_body" | "object_type"
                )
            })
            .and(self.this_class);
        // `@import { A } from "./m"`: `A` names the module's export.
        let tags = if self.typed {
            Vec::new()
        } else {
            jsdoc::import_tags(text)
        };
        for t in tags {
            let module = Expr::Require(self.intern_spec(t.spec));
            for (seg, _) in &t.named {
                let e = Expr::Member(Box::new(module.clone()), self.intern(seg.name));
                let pos = doc_pos(text, start, seg.offset);
                self.site_at(pos, SiteKind::Ref, NS_ANY, e);
            }
        }
        for name in jsdoc::names(text) {
            let mut base: Option<Expr> = name.module.map(|m| Expr::Require(self.intern_spec(m)));
            for seg in &name.segments {
                let e = match (base.take(), seg.sep) {
                    (None, _) => match (self.lookup_doc(seg.name, name.ns), host) {
                        (Some(b @ (Binding::Def(_) | Binding::Import(_))), _) => b.expr(),
                        (None, Some(c)) => {
                            Expr::Member(Box::new(Expr::This(c)), self.intern(seg.name))
                        }
                        // A name the file does not declare: maybe a global.
                        (None, None) => Expr::Free(self.intern(seg.name)),
                        _ => break,
                    },
                    (Some(b), Some(Sep::Hash)) => {
                        Expr::Member(Box::new(instance(b)), self.intern(seg.name))
                    }
                    (Some(b), _) => Expr::Member(Box::new(b), self.intern(seg.name)),
                };
                let pos = doc_pos(text, start, seg.offset);
                self.site_at(pos, SiteKind::Ref, NS_ANY, e.clone());
                base = Some(e);
            }
        }
    }

    /// `@typedef {import("./m").A} A` in a JavaScript file's top-level
    /// comments: `A` is a type of the file (from the start, like any
    /// declaration), the imported definition; `.A` is a reference to it.
    fn typedef_imports(&mut self, program: Node<'s>) {
        let mut c = program.walk();
        let comments: Vec<Node> = program
            .named_children(&mut c)
            .filter(|k| k.kind_name() == "comment")
            .collect();
        for k in comments {
            let text = self.text(k);
            for t in jsdoc::typedef_imports(text) {
                // The members are references where the comment is walked.
                let spec = self.intern_spec(t.spec);
                let mut e = Expr::Require(spec);
                for seg in &t.members {
                    e = Expr::Member(Box::new(e), self.intern(seg.name));
                }
                let v = self.new_var(e);
                self.bind(t.local, NS_TYPE, Binding::Var(v));
            }
            // Bound as imports, of types only: a use in a later comment
            // is a reference to what the module exports, as for `import`.
            for t in jsdoc::import_tags(text) {
                let spec = self.intern_spec(t.spec);
                let mut bound = Vec::new();
                if let Some(ns) = t.namespace {
                    bound.push((ns, Imported::Namespace));
                }
                if let Some(d) = t.default {
                    bound.push((d, Imported::Default));
                }
                for (seg, local) in &t.named {
                    bound.push((local, Imported::Named(self.intern(seg.name))));
                }
                for (local, what) in bound {
                    let l = self.intern(local);
                    // (`{ns.A}` looks `ns` up as a value.)
                    let ns = if what == Imported::Namespace {
                        NS_ANY
                    } else {
                        NS_TYPE
                    };
                    let i = self.push_import(l, spec, what);
                    self.bind(local, ns, Binding::Import(i));
                }
            }
        }
    }

    /// `typeof a.b.c`: a site per segment. The grammar's member
    /// expressions in a type query give the wrong `property` child past two
    /// segments (the inner one's), so children are taken by position.
    fn query_chain(&mut self, n: Node<'s>) -> Expr {
        match n.kind_name() {
            "identifier" => {
                let name = self.text(n);
                let e = self.lookup_expr(name, NS_VALUE);
                if matches!(e, Expr::Def(_) | Expr::Import(_)) {
                    self.site(n, SiteKind::Ref, NS_VALUE, e.clone());
                }
                e
            }
            "member_expression" if n.named_child_count() >= 2 => {
                let obj = n.named_child(0).expect("two children");
                let prop = n
                    .named_child(n.named_child_count() as u32 - 1)
                    .expect("two children");
                let base = self.query_chain(obj);
                let name = self.text(prop);
                let e = self.member_of(&base, name);
                if !matches!(base, Expr::Unknown) {
                    self.site(prop, SiteKind::Ref, NS_VALUE, e.clone());
                }
                e
            }
            _ => {
                self.walk(n);
                Expr::Unknown
            }
        }
    }

    /// A JSDoc name in both namespaces (`ns` = [`NS_ANY`]) is the innermost
    /// scope's symbol of either meaning: where a constant and an interface
    /// share the name (`const TimeoutError` beside `interface
    /// TimeoutError`), the definition among them.
    fn lookup_doc(&mut self, name: &'s str, ns: u8) -> Option<Binding> {
        if ns != NS_ANY {
            return self.lookup(name, ns);
        }
        self.used.insert(name);
        let named = |b: &&Binding| matches!(b, Binding::Def(_) | Binding::Import(_));
        for f in self.frames.iter().rev() {
            let (v, t) = (f.values.get(name), f.types.get(name));
            if v.is_some() || t.is_some() {
                return v.filter(named).or(t.filter(named)).or(v).or(t).copied();
            }
        }
        None
    }

    fn ident_ref(&mut self, n: Node<'s>, ns: u8) {
        let name = self.text(n);
        match self.lookup(name, ns) {
            Some(b @ (Binding::Def(_) | Binding::Import(_))) => {
                self.site(n, SiteKind::Ref, ns, b.expr())
            }
            // A type no scope of the file declares: maybe a global one.
            None if ns == NS_TYPE => {
                let free = Expr::Free(self.intern(name));
                self.site(n, SiteKind::Ref, ns, free)
            }
            _ => {}
        }
    }

    /// Whether the block (or program) `n` holds global declarations: a
    /// declaration file that is no module (no top-level `import` or
    /// `export`), or the body of `declare global { … }`.
    fn declares_globals(&self, n: Node<'s>) -> bool {
        let mut c = n.walk();
        match n.kind_name() {
            "program" => {
                self.declaration_file
                    && !n
                        .named_children(&mut c)
                        .any(|k| matches!(k.kind_name(), "import_statement" | "export_statement"))
            }
            _ => n.parent().is_some_and(|p| {
                p.kind_name() == "ambient_declaration"
                    && p.children(&mut c).any(|k| k.kind_name() == "global")
            }),
        }
    }

    /// The definitions the innermost frame binds, as global declarations.
    fn record_globals(&mut self) {
        let Some(f) = self.frames.last() else {
            return;
        };
        let mut found: Vec<(&'s str, u32)> = f
            .values
            .iter()
            .chain(f.types.iter())
            .filter_map(|(&name, b)| match b {
                Binding::Def(d) => Some((name, *d)),
                _ => None,
            })
            .collect();
        found.sort_unstable_by_key(|&(name, d)| (d, name));
        found.dedup();
        for (name, d) in found {
            let n = self.intern(name);
            self.scope.globals.push((n, d));
        }
    }

    /// The path a type's qualifier spells when its first name is declared
    /// nowhere in the file (`App.Error`): a global's member.
    fn free_path(&mut self, m: Node<'s>) -> Option<Expr> {
        match m.kind_name() {
            "identifier" => {
                let t = self.text(m);
                match self.lookup(t, NS_ANY) {
                    None => Some(Expr::Free(self.intern(t))),
                    Some(_) => None,
                }
            }
            "nested_identifier" | "member_expression" => {
                let o = m.field("object").or_else(|| m.named_child(0))?;
                let p = m
                    .field("property")
                    .or_else(|| m.named_child(m.named_child_count().saturating_sub(1) as u32))?;
                let base = self.free_path(o)?;
                Some(Expr::Member(Box::new(base), self.intern(self.text(p))))
            }
            _ => None,
        }
    }

    fn member_ref(&mut self, n: Node<'s>) {
        let (Some(obj), Some(prop)) = (n.field("object"), n.field("property")) else {
            self.walk_children(n);
            return;
        };
        if matches!(obj.kind_name(), "satisfies_expression" | "as_expression") {
            // The grammar reads `x satisfies a.B.C` as `(x satisfies a.B).C`.
            let last = obj.named_child(obj.named_child_count().saturating_sub(1) as u32);
            if let Some(t) = last
                .filter(|t| matches!(t.kind_name(), "nested_type_identifier" | "type_identifier"))
            {
                let base = match t.kind_name() {
                    "type_identifier" => {
                        let name = self.text(t);
                        self.lookup_expr(name, NS_ANY)
                    }
                    _ => self.nested_type(t),
                };
                let name = self.text(prop);
                let e = self.member_of(&base, name);
                self.site(prop, SiteKind::Ref, NS_TYPE, e);
                self.walk(obj);
                return;
            }
        }
        let recv = self.expr(obj);
        if !matches!(recv, Expr::Unknown) {
            let name = self.text(prop);
            let p = self.intern(name);
            self.site(
                prop,
                SiteKind::Ref,
                NS_VALUE,
                Expr::Member(Box::new(recv), p),
            );
        }
        self.walk(obj);
    }

    fn jsx(&mut self, n: Node<'s>) {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        let name = n.field("name");
        for k in kids {
            if Some(k) == name {
                match k.kind_name() {
                    "identifier" if self.text(k).starts_with(|c: char| c.is_ascii_uppercase()) => {
                        self.ident_ref(k, NS_VALUE);
                    }
                    "member_expression" => self.member_ref(k),
                    _ => {}
                }
            } else {
                self.walk(k);
            }
        }
    }

    // ----- functions and classes ------------------------------------------

    /// Walk a function-like node. `def` becomes the enclosing definition of
    /// its body; `this` is the class `this` refers to inside it.
    fn function(&mut self, n: Node<'s>, def: Option<u32>, this: Option<u32>) {
        self.function_with(n, def, this, None)
    }

    fn function_with(
        &mut self,
        n: Node<'s>,
        def: Option<u32>,
        this: Option<u32>,
        ctor_class: Option<u32>,
    ) {
        let saved = (self.cur, self.this_class, self.fn_def);
        let saved_ret = self.ret_ctx.take();
        // An arrow function keeps the `this` around it; any other function
        // has its own (its `this:` parameter, or its class).
        let saved_this = if n.kind_name() == "arrow_function" {
            self.this_value.clone()
        } else {
            self.this_value.take()
        };
        // In a static method `this` is the class itself (`new this(x)` is
        // an instance).
        if let Some(c) = this.filter(|_| is_static(n)) {
            self.this_value = Some(Expr::Def(c));
        }
        if let Some(d) = def {
            self.cur = d;
        }
        self.fn_def = def;
        self.this_class = this;
        self.push_frame();
        // A named function expression binds its own name inside: to its
        // def when that is named by it (`C.prototype.run = function run(n)
        // { run(n - 1) }`), else to nothing known.
        if n.kind_name() == "function_expression" {
            if let Some(nn) = n.field("name") {
                let name = self.text(nn);
                let b = match def {
                    Some(d) if self.defs[d as usize].pos == Pos::from_ts(nn.start_position()) => {
                        Binding::Def(d)
                    }
                    _ => Binding::Opaque,
                };
                self.bind(name, NS_VALUE, b);
            }
        }
        self.type_params(n);
        let cb = self.cb_ctx.remove(&n.id());
        let (typed, typed_ret) = match self.cb_types.remove(&n.id()) {
            Some((ps, r)) => (Some(ps), Some(r)),
            None => (None, None),
        };
        // A result an object literal is checked against (`(self) => ({ … })`).
        if let Some(r) = typed_ret.filter(|r| !matches!(r, Expr::Unknown | Expr::Global)) {
            self.ret_ctx = Some(r);
        }
        // Kept until this function's parameters are bound (a default value
        // may hold a function with its own).
        let doc = if self.typed {
            Vec::new()
        } else {
            self.jsdoc_types(n, def)
        };
        let outer_doc = std::mem::replace(&mut self.doc_params, doc);
        if let Some(p) = n.field("parameters") {
            self.params(p, ctor_class, def, cb.as_ref(), typed.as_deref());
        }
        if let Some(p) = n.field("parameter") {
            // `x => …`
            let doc = self.doc_param(p);
            let val = match (typed.and_then(|t| t.into_iter().next()), cb) {
                (Some(t), _) => t,
                (None, _) if doc.is_some() => doc.expect("checked"),
                (None, Some((callee, arg))) => Expr::Param(Box::new(callee), arg, 0),
                (None, None) => Expr::Unknown,
            };
            self.bind_pattern(p, val);
        }
        self.doc_params = outer_doc;
        if let Some(rt) = n.field("return_type") {
            self.walk(rt);
            // `(): Handler => (req) => …`: the returned function is a `Handler`.
            if let Some(body) = n.field("body") {
                self.contextual_fn(body, rt);
            }
            if rt.kind_name() == "type_annotation" {
                let e = self.type_value(rt);
                if !matches!(e, Expr::Unknown | Expr::Global) {
                    self.ret_ctx = Some(e);
                }
            }
            // Overloads: the first signature's type, the one TypeScript
            // tries first (and `returns` holds one entry per function).
            if let Some(d) = def.filter(|d| !self.returned.contains(d)) {
                if rt.kind_name() == "type_annotation" {
                    let e = self.type_value(rt);
                    if !matches!(e, Expr::Unknown) {
                        self.returned.insert(d);
                        self.push_return(d, e);
                    }
                } else if rt.kind_name() == "type_predicate_annotation" {
                    let e = self.predicate(rt, signature_params(n));
                    self.returned.insert(d);
                    self.push_return(d, e);
                }
            }
        }
        if let Some(body) = n.field("body") {
            if body.kind_name() == "statement_block" {
                self.walk(body);
            } else {
                if let Some(ctx) = self.ret_ctx.clone() {
                    self.expect_object(body, ctx);
                }
                if let Some(d) = def {
                    if !self.returned.contains(&d) {
                        let e = self.expr(body);
                        if !matches!(e, Expr::Unknown | Expr::Global) {
                            self.returned.insert(d);
                            self.push_return(d, e);
                        }
                    }
                }
                self.walk(body);
            }
        }
        self.pop_frame();
        (self.cur, self.this_class, self.fn_def) = saved;
        self.ret_ctx = saved_ret;
        self.this_value = saved_this;
    }

    /// A function expression of a declared type (`const f: Handler =
    /// (req) => …`, or the result of a function declared to return one):
    /// its untyped parameters take the parameter types the function type
    /// declares, written out (`(req: Req) => void`) or through a type
    /// alias of one (its [`SIGNATURE`] fields, read by the resolver).
    fn contextual_fn(&mut self, f: Node<'s>, t: Node<'s>) {
        let f = skip_parens(f);
        if !matches!(
            f.kind_name(),
            "arrow_function" | "function_expression" | "function"
        ) {
            return;
        }
        let mut t = t;
        while matches!(t.kind_name(), "type_annotation" | "parenthesized_type") {
            let Some(c) = t.named_child(0) else { return };
            t = c;
        }
        match t.kind_name() {
            "function_type" => {
                let Some(ps) = signature_params(t) else {
                    return;
                };
                // The function type's own type parameters are no outer names.
                self.push_frame();
                self.type_params(t);
                let types: Vec<Expr> = ps
                    .iter()
                    .map(|p| match p.field("type") {
                        Some(ty) => self.type_value(ty),
                        None => Expr::Unknown,
                    })
                    .collect();
                let ret = match t.field("return_type") {
                    Some(r) => self.type_value(r),
                    None => Expr::Unknown,
                };
                self.pop_frame();
                self.cb_types.insert(f.id(), (types, ret));
            }
            _ => {
                if let Some(e) = self.named_type(t) {
                    self.cb_ctx.insert(f.id(), (e, SIGNATURE));
                }
            }
        }
    }

    /// A type predicate (`x is Foo`, alone or in its annotation) of a
    /// function with parameters `params` (`None`: not known): an
    /// [`Expr::Guard`] for the parameter it names, else a boolean.
    fn predicate(&mut self, pred: Node<'s>, params: Option<Vec<Node<'s>>>) -> Expr {
        let pred = if pred.kind_name() == "type_predicate_annotation" {
            match pred.named_child(0) {
                Some(p) => p,
                None => return Expr::Global,
            }
        } else {
            pred
        };
        let (Some(name), Some(ty), Some(params)) = (pred.field("name"), pred.field("type"), params)
        else {
            return Expr::Global;
        };
        let name = self.text(name);
        let k = params.iter().position(|p| {
            p.field("pattern")
                .is_some_and(|x| x.kind_name() == "identifier" && self.text(x) == name)
        });
        let Some(k) = k.and_then(|k| u16::try_from(k).ok()) else {
            return Expr::Global;
        };
        // `<T extends Base>(x: unknown, c: Ctor<T>): x is T`: `T` is what
        // each call passes (`is(x, Derived)`), not its constraint.
        if ty.kind_name() == "type_identifier" {
            let t = self.text(ty);
            let inferred = matches!(self.lookup(t, NS_TYPE), Some(Binding::TypeParam(_)))
                && params.iter().enumerate().any(|(i, p)| {
                    i != k as usize
                        && p.field("type")
                            .is_some_and(|pt| names_type(pt, t, self.src))
                });
            if inferred {
                return Expr::Global;
            }
        }
        match self.type_value(ty) {
            Expr::Unknown | Expr::Global => Expr::Global,
            t => Expr::Guard(k, Box::new(t)),
        }
    }

    /// What condition `cond` says of locals (parameters and variables)
    /// when it holds, each conjunct of an `&&`:
    /// - `x instanceof C`: `x` is a `C` (zod: `else if (schema instanceof
    ///   ZodOptional) { schema.unwrap() }`);
    /// - a call with `x` among its arguments (`isObservableMap(x)`,
    ///   `Either.isLeft(e)`): `x` is what the callee's type predicate
    ///   says, when it is a type guard for that argument (the resolver
    ///   tells, [`Expr::Narrowed`]).
    fn narrowings(&mut self, cond: Node<'s>, out: &mut Vec<(&'s str, Expr)>) {
        let test = skip_parens(cond);
        match test.kind_name() {
            "binary_expression" => {
                let op = test.field("operator").map(|o| self.text(o));
                let (Some(l), Some(r)) = (test.field("left"), test.field("right")) else {
                    return;
                };
                match op {
                    Some("&&") => {
                        self.narrowings(l, out);
                        self.narrowings(r, out);
                    }
                    Some("instanceof") => {
                        if l.kind_name() != "identifier" || r.kind_name() != "identifier" {
                            return;
                        }
                        let name = self.text(l);
                        if !matches!(
                            self.lookup(name, NS_VALUE),
                            Some(Binding::Var(_) | Binding::Opaque)
                        ) {
                            return;
                        }
                        if let e @ (Expr::Def(_) | Expr::Import(_) | Expr::Var(_)) =
                            self.lookup_expr(self.text(r), NS_VALUE)
                        {
                            out.push((name, instance(e)));
                        }
                    }
                    _ => {}
                }
            }
            "call_expression" => {
                let (Some(f), Some(args)) = (test.field("function"), test.field("arguments"))
                else {
                    return;
                };
                if args.kind_name() != "arguments" {
                    return;
                }
                let callee = match self.expr(f) {
                    Expr::Unknown | Expr::Global => return,
                    e => e,
                };
                let mut c = args.walk();
                let kids: Vec<Node> = args
                    .named_children(&mut c)
                    .filter(|k| k.kind_name() != "comment")
                    .collect();
                for (i, a) in kids.into_iter().enumerate().take(8) {
                    if a.kind_name() != "identifier" {
                        continue;
                    }
                    let name = self.text(a);
                    let Some(b @ (Binding::Var(_) | Binding::Opaque)) = self.lookup(name, NS_VALUE)
                    else {
                        continue;
                    };
                    let e = Expr::Narrowed(Box::new(callee.clone()), i as u16, Box::new(b.expr()));
                    out.push((name, e));
                }
            }
            _ => {}
        }
    }

    /// What `cond` says when it is false, where it is a negation or a
    /// disjunction of negations (`!isFoo(x)`, `!(x instanceof C) || !ok`):
    /// what each negated operand says when true.
    fn negated_narrowings(&mut self, cond: Node<'s>, out: &mut Vec<(&'s str, Expr)>) {
        let test = skip_parens(cond);
        match test.kind_name() {
            "unary_expression" if test.field("operator").map(|o| self.text(o)) == Some("!") => {
                if let Some(x) = test.field("argument") {
                    self.narrowings(x, out);
                }
            }
            "binary_expression" if test.field("operator").map(|o| self.text(o)) == Some("||") => {
                if let (Some(l), Some(r)) = (test.field("left"), test.field("right")) {
                    self.negated_narrowings(l, out);
                    self.negated_narrowings(r, out);
                }
            }
            _ => {}
        }
    }

    /// Walk `body` with the locals `narrowed` bound to their narrowed values.
    fn walk_narrowed(&mut self, narrowed: Vec<(&'s str, Expr)>, body: Node<'s>) {
        self.push_frame();
        self.bind_narrowed(narrowed);
        self.walk(body);
        self.pop_frame();
    }

    /// Bind the locals `narrowed` to their narrowed values in the frame on
    /// top, remembering what each held before.
    fn bind_narrowed(&mut self, narrowed: Vec<(&'s str, Expr)>) {
        for (name, e) in narrowed {
            let before = self
                .lookup(name, NS_VALUE)
                .map_or(Expr::Unknown, |b| b.expr());
            let v = self.new_var(e);
            self.narrowed_from.insert(v, before);
            self.bind(name, NS_VALUE, Binding::Var(v));
        }
    }

    /// An `if` whose condition narrows locals ([`Walker::narrowings`]): the
    /// branch taken is walked with them narrowed. Without an `else`, a
    /// branch that always leaves (`if (!isFoo(x)) return;`, `throw`)
    /// narrows them for the rest of the block by what its negated
    /// condition says. Walks the statement and returns true when either
    /// applies.
    fn narrowed_if(&mut self, n: Node<'s>) -> bool {
        let (Some(cond), Some(then)) = (n.field("condition"), n.field("consequence")) else {
            return false;
        };
        if self.narrowed_operand(cond, then, n.field("alternative")) {
            return true;
        }
        // The rest of the block is narrowed only when the `if` is one of
        // its statements: not an `else if`, a `case`'s statement or a
        // loop's body, whose frame is the block around them.
        let in_block = n
            .parent()
            .is_some_and(|p| matches!(p.kind_name(), "statement_block" | "program"));
        if !in_block || n.field("alternative").is_some() || !always_leaves(then) {
            return false;
        }
        let mut narrowed = Vec::new();
        self.negated_narrowings(cond, &mut narrowed);
        if narrowed.is_empty() {
            return false;
        }
        self.walk(cond);
        self.walk(then);
        self.bind_narrowed(narrowed);
        true
    }

    /// `if (c) a else b`, `c ? a : b` and `c && a` where `c` narrows
    /// locals: `a` is walked with them narrowed. Returns false (nothing
    /// walked) otherwise.
    fn narrowed_operand(
        &mut self,
        cond: Node<'s>,
        taken: Node<'s>,
        other: Option<Node<'s>>,
    ) -> bool {
        let mut narrowed = Vec::new();
        self.narrowings(cond, &mut narrowed);
        if narrowed.is_empty() {
            return false;
        }
        self.walk(cond);
        self.walk_narrowed(narrowed, taken);
        if let Some(o) = other {
            self.walk(o);
        }
        true
    }

    /// The types a JavaScript function's JSDoc gives its parameters
    /// (`@param {WebSocket} ws`): an instance of the class the name is
    /// bound to here, or a global (`{Buffer}`, `{Object}`: nothing in the
    /// repository). tsserver reads them as declared types. Its `@returns
    /// {T}` is what a call of function `def` gives (before any `return`).
    fn jsdoc_types(&mut self, f: Node<'s>, def: Option<u32>) -> Vec<(&'s str, Expr)> {
        let Some(doc) = doc_comment_of(f, self.src) else {
            return Vec::new();
        };
        let text = self.text(doc);
        let mut out = Vec::new();
        for (name, path) in jsdoc::param_types(text) {
            let e = self.doc_type(&path);
            out.push((name, e));
        }
        if let (Some(d), Some(path)) = (def, jsdoc::return_type(text)) {
            if !self.returned.contains(&d) {
                let e = self.doc_type(&path);
                self.returned.insert(d);
                self.push_return(d, e);
            }
        }
        out
    }

    /// The type a JavaScript declaration's or assignment's `/** @type {T} */`
    /// gives it (`None` in TypeScript, which ignores JSDoc types).
    fn jsdoc_declared(&mut self, n: Node<'s>) -> Option<Expr> {
        if self.typed {
            return None;
        }
        let doc = doc_comment_of(n, self.src)?;
        let path = jsdoc::type_tag(self.text(doc))?;
        Some(self.doc_type(&path))
    }

    /// A value of the JSDoc type `a.b.C` written where the walk stands.
    fn doc_type(&mut self, path: &[&'s str]) -> Expr {
        if let Some((&"[]", elem)) = path.split_last() {
            return match self.doc_type(elem) {
                e @ (Expr::Unknown | Expr::Global) => e,
                e => elements(e),
            };
        }
        let mut e = match jsdoc::import_spec(path[0]) {
            // `{import("./m")}`: the module itself.
            Some(spec) if path.len() == 1 => return Expr::Require(self.intern_spec(spec)),
            Some(spec) => Expr::Require(self.intern_spec(spec)),
            None => self.lookup_expr(path[0], NS_TYPE),
        };
        for seg in &path[1..] {
            e = self.member_of(&e, seg);
        }
        instance(e)
    }

    /// The JSDoc type of parameter `p` of the function being entered.
    fn doc_param(&self, p: Node<'s>) -> Option<Expr> {
        if self.doc_params.is_empty() || p.kind_name() != "identifier" {
            return None;
        }
        let name = self.text(p);
        self.doc_params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, e)| e.clone())
    }

    /// Bind the names `infer` declares in a conditional type's extends
    /// clause (a nested conditional type declares its own).
    fn bind_infers(&mut self, t: Node<'s>) {
        let mut stack = vec![t];
        while let Some(n) = stack.pop() {
            match n.kind_name() {
                "infer_type" => {
                    if let Some(name) = n
                        .named_child(0)
                        .filter(|k| k.kind_name() == "type_identifier")
                    {
                        let name = self.text(name);
                        self.bind(name, NS_TYPE, Binding::Opaque);
                    }
                }
                "conditional_type" => {}
                _ => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
            }
        }
    }

    fn type_params(&mut self, n: Node<'s>) {
        let Some(tp) = n.field("type_parameters") else {
            return;
        };
        let mut c = tp.walk();
        let params: Vec<Node> = tp.named_children(&mut c).collect();
        for p in &params {
            if let Some(name) = p.field("name") {
                let t = self.text(name);
                self.bind(t, NS_TYPE, Binding::Opaque);
            }
        }
        let mut constrained = Vec::new();
        for p in params {
            self.walk_field(p, "constraint");
            self.walk_field(p, "value");
            // `T extends C`: TypeScript looks a member of a `T` up in `C`
            // (`x: T` then `x.m()` is `C`'s `m`). Bound after every
            // constraint is read: `<T extends U, U extends C>` leaves `T`
            // opaque rather than chasing `U`.
            let (Some(name), Some(c)) = (
                p.field("name"),
                p.field("constraint").and_then(|c| c.named_child(0)),
            ) else {
                continue;
            };
            let v = self.type_value(c);
            if !matches!(v, Expr::Unknown) {
                constrained.push((self.text(name), v));
            }
        }
        for (name, v) in constrained {
            let i = self.constraints.len() as u32;
            self.constraints.push(v);
            self.bind(name, NS_TYPE, Binding::TypeParam(i));
        }
    }

    /// `def`: the function the parameters belong to (it records its
    /// callbacks' parameter types); `cb`: the call this function is an
    /// argument of (its untyped parameters take the declared types);
    /// `typed`: their types from the call's type arguments, which win.
    fn params(
        &mut self,
        fp: Node<'s>,
        ctor_class: Option<u32>,
        def: Option<u32>,
        cb: Option<&(Expr, u16)>,
        typed: Option<&[Expr]>,
    ) {
        let mut c = fp.walk();
        let kids: Vec<Node> = fp.named_children(&mut c).collect();
        let mut index: u16 = 0;
        for p in kids {
            let i = index;
            // `this: T` is typed like a parameter but takes no argument.
            let this_param = p.field("pattern").is_some_and(|x| x.kind_name() == "this");
            if p.kind_name() != "comment" && !this_param {
                index = index.saturating_add(1);
            }
            match p.kind_name() {
                "required_parameter" | "optional_parameter" => {
                    let mut c2 = p.walk();
                    let parts: Vec<Node> = p.named_children(&mut c2).collect();
                    let mut property = false;
                    for part in &parts {
                        match part.kind_name() {
                            "decorator" => self.walk(*part),
                            "accessibility_modifier" | "override_modifier" => property = true,
                            _ => {}
                        }
                    }
                    // `readonly` is an anonymous token.
                    let mut c3 = p.walk();
                    if p.children(&mut c3).any(|k| k.kind_name() == "readonly") {
                        property = true;
                    }
                    let ty = p.field("type");
                    if let Some(t) = ty {
                        self.walk(t);
                        // A constructor's are the class's (`new X(cb)`).
                        if let (Some(d), false) = (def.or(ctor_class), this_param) {
                            self.callback_types(d, i, t);
                        }
                    }
                    self.walk_field(p, "value");
                    let from_type_arg = typed.and_then(|t| t.get(i as usize)).cloned();
                    let doc = p.field("pattern").and_then(|x| self.doc_param(x));
                    let val = match (ty, cb) {
                        (Some(t), _) => match self.type_literal(t) {
                            Some(lit) => lit,
                            None => self.type_value(t),
                        },
                        (None, _) if from_type_arg.is_some() => from_type_arg.expect("checked"),
                        (None, _) if doc.is_some() => doc.expect("checked"),
                        (None, Some((callee, arg))) => {
                            Expr::Param(Box::new(callee.clone()), *arg, i)
                        }
                        (None, None) => Expr::Unknown,
                    };
                    let pat = p.field("pattern").or_else(|| p.field("name"));
                    let Some(pat) = pat else { continue };
                    if pat.kind_name() == "this" {
                        if ty.is_some() && !matches!(val, Expr::Unknown) {
                            self.this_value = Some(val);
                        }
                        continue;
                    }
                    if let (true, Some(class), "identifier") =
                        (property, ctor_class, pat.kind_name())
                    {
                        let name = self.text(pat);
                        let nm = self.intern(name);
                        if !matches!(val, Expr::Unknown) {
                            self.push_field(class, nm, val.clone());
                        }
                    }
                    let fn_type = ty.is_some_and(|t| bare_type(t).kind_name() == "function_type");
                    let is_name = pat.kind_name() == "identifier";
                    self.bind_pattern(pat, val);
                    if let (true, true, Some(d)) = (fn_type, is_name, def.or(ctor_class)) {
                        if let Expr::Var(v) = self.lookup_expr(self.text(pat), NS_VALUE) {
                            self.fn_params.insert(v, (d, i));
                        }
                    }
                }
                "comment" => {}
                // JavaScript: a bare pattern, typed only by JSDoc.
                _ => {
                    let name = match p.kind_name() {
                        "assignment_pattern" => p.field("left"),
                        _ => Some(p),
                    };
                    let val = match (name.and_then(|x| self.doc_param(x)), cb) {
                        (Some(t), _) => t,
                        (None, Some((callee, arg))) => {
                            Expr::Param(Box::new(callee.clone()), *arg, i)
                        }
                        (None, None) => Expr::Unknown,
                    };
                    self.bind_pattern(p, val);
                }
            }
        }
    }

    /// What a type reference (`Handler`, `ns.Handler`, `Handler<A>`) names,
    /// when that may be a declaration of the repository.
    fn named_type(&mut self, t: Node<'s>) -> Option<Expr> {
        let name = match t.kind_name() {
            "generic_type" => t.field("name")?,
            "type_identifier" | "nested_type_identifier" => t,
            // `observer?: Observer<T> | null`: the one type that is not
            // null or undefined.
            "union_type" => {
                let mut leaves = Vec::new();
                union_leaves(t, self.src, &mut leaves);
                return match leaves[..] {
                    [one] => self.named_type(one),
                    _ => None,
                };
            }
            _ => return None,
        };
        // `Partial<Observer<T>>`, `Readonly<Options>`: the members are the
        // argument's (what an object literal passed there is checked
        // against).
        let text = self.text(name);
        if name.kind_name() == "type_identifier"
            && SAME_MEMBERS.contains(&text)
            && self.lookup(text, NS_TYPE).is_none()
        {
            let arg = t.field("type_arguments").and_then(|a| a.named_child(0))?;
            return self.named_type(arg);
        }
        let e = self.type_name(name);
        (matches!(e, Expr::Def(_) | Expr::Import(_) | Expr::Member(..)) && !is_dead(&e))
            .then_some(e)
    }

    /// Parameter `arg` of function `def` is typed `t`: if that is a
    /// function type, record its parameters' declared types.
    fn callback_types(&mut self, def: u32, arg: u16, t: Node<'s>) {
        let t = match t.kind_name() {
            "type_annotation" | "opting_type_annotation" => match t.named_child(0) {
                Some(x) => x,
                None => return,
            },
            _ => t,
        };
        // `observerOrNext?: Partial<Observer<T>> | ((value: T) => void) |
        // null` (rxjs's `new SafeSubscriber({ next, error })`): an object
        // literal passed there is checked against the one named type, a
        // function against the one function type.
        if t.kind_name() == "union_type" {
            let mut leaves = Vec::new();
            union_leaves(t, self.src, &mut leaves);
            let unwrap = |l: Node<'s>| match l.kind_name() {
                "parenthesized_type" => l.named_child(0).unwrap_or(l),
                _ => l,
            };
            let (fns, named): (Vec<Node>, Vec<Node>) = leaves
                .into_iter()
                .map(unwrap)
                .partition(|l| l.kind_name() == "function_type");
            if fns.len() <= 1 && named.len() <= 1 && !(fns.is_empty() && named.is_empty()) {
                for l in fns.into_iter().chain(named) {
                    self.callback_types(def, arg, l);
                }
                return;
            }
        }
        // A named function type (`handler: RouteHandlerMethod<…>`): the
        // resolver reads its parameters' types from the alias (its
        // [`SIGNATURE`] fields).
        if let Some(e) = self.named_type(t) {
            let name = self.intern(&super::callback_alias(arg));
            self.push_field(def, name, e);
            return;
        }
        if t.kind_name() != "function_type" {
            return;
        }
        let Some(ps) = t.field("parameters") else {
            return;
        };
        let mut c = ps.walk();
        let kids: Vec<Node> = ps
            .named_children(&mut c)
            .filter(|k| matches!(k.kind_name(), "required_parameter" | "optional_parameter"))
            .filter(|k| k.field("pattern").is_none_or(|x| x.kind_name() != "this"))
            .collect();
        for (j, k) in kids.into_iter().enumerate() {
            let Some(ty) = k.field("type") else { continue };
            // `unknown`, `string`, … (Global) are kept: no guess then.
            let e = self.type_value(ty);
            if matches!(e, Expr::Unknown) {
                continue;
            }
            let name = self.intern(&super::callback_param(arg, j as u16));
            self.push_field(def, name, e);
        }
    }

    fn bind_var(&mut self, name: &'s str, val: Expr) {
        if let Some(Binding::Var(v)) = self.frames.last().and_then(|f| f.values.get(name)) {
            // (A parameter given another value is no longer the function
            // its type declares.)
            self.fn_params.remove(v);
            self.scope.vars[*v as usize] = val;
            return;
        }
        let b = if matches!(val, Expr::Unknown) {
            Binding::Opaque
        } else {
            Binding::Var(self.new_var(val))
        };
        self.bind(name, NS_VALUE, b);
    }

    fn bind_pattern(&mut self, p: Node<'s>, val: Expr) {
        match p.kind_name() {
            "identifier" => {
                let name = self.text(p);
                self.bind_var(name, val);
            }
            "object_pattern" => {
                let mut c = p.walk();
                let kids: Vec<Node> = p.named_children(&mut c).collect();
                for k in kids {
                    match k.kind_name() {
                        "shorthand_property_identifier_pattern" => {
                            let name = self.text(k);
                            self.pattern_site(k, &val);
                            let v = self.member_of(&val, name);
                            self.bind_var(name, v);
                        }
                        "pair_pattern" => {
                            let key = k.field("key");
                            let v = match key {
                                Some(key) if key.kind_name() == "property_identifier" => {
                                    self.pattern_site(key, &val);
                                    let t = self.text(key);
                                    self.member_of(&val, t)
                                }
                                _ => Expr::Unknown,
                            };
                            if let Some(value) = k.field("value") {
                                self.bind_pattern(value, v);
                            }
                        }
                        "object_assignment_pattern" => {
                            self.walk_field(k, "right");
                            if let Some(left) = k.field("left") {
                                let v = if left.kind_name()
                                    == "shorthand_property_identifier_pattern"
                                {
                                    self.pattern_site(left, &val);
                                    let t = self.text(left);
                                    let name = self.text(left);
                                    let v = self.member_of(&val, t);
                                    self.bind_var(name, v);
                                    continue;
                                } else {
                                    Expr::Unknown
                                };
                                self.bind_pattern(left, v);
                            }
                        }
                        "rest_pattern" => self.bind_pattern(k, Expr::Unknown),
                        _ => {}
                    }
                }
            }
            "array_pattern" => {
                let mut c = p.walk();
                let kids: Vec<Node> = p.named_children(&mut c).collect();
                for k in kids {
                    self.bind_pattern(k, Expr::Unknown);
                }
            }
            "assignment_pattern" => {
                self.walk_field(p, "right");
                if let Some(left) = p.field("left") {
                    self.bind_pattern(left, val);
                }
            }
            "rest_pattern" => {
                let mut c = p.walk();
                let kids: Vec<Node> = p.named_children(&mut c).collect();
                for k in kids {
                    self.bind_pattern(k, Expr::Unknown);
                }
            }
            "shorthand_property_identifier_pattern" => {
                let name = self.text(p);
                self.bind_var(name, Expr::Unknown);
            }
            _ => self.walk(p),
        }
    }

    /// An element of the array `xs`, written as what a `forEach` callback
    /// takes first (the resolver reads the array's element type).
    fn element_of(&mut self, xs: Expr) -> Expr {
        if matches!(xs, Expr::Unknown | Expr::Global) {
            return Expr::Unknown;
        }
        let each = self.intern("forEach");
        Expr::Param(Box::new(Expr::Member(Box::new(xs), each)), 0, 0)
    }

    /// `{ view }` or `{ view: v }` destructuring a value of a known type
    /// reads its member `view`: tsserver lists the property name among
    /// the member's references (as it does `x.view`).
    fn pattern_site(&mut self, key: Node<'s>, val: &Expr) {
        if matches!(val, Expr::Unknown | Expr::Global | Expr::Object(_)) {
            return;
        }
        let p = self.intern(self.text(key));
        self.site(
            key,
            SiteKind::Ref,
            NS_VALUE,
            Expr::Member(Box::new(val.clone()), p),
        );
    }

    fn member_of(&mut self, val: &Expr, name: &str) -> Expr {
        match val {
            Expr::Unknown => Expr::Unknown,
            Expr::Global => Expr::Global,
            // An object literal or object type: the property's value; a
            // name it does not list is outside the repository unless a
            // spread or an index signature may hold it.
            Expr::Object(lit) => {
                let found = lit
                    .props
                    .iter()
                    .rev()
                    .find(|(n, _)| self.scope.name(*n) == name);
                match found {
                    Some((_, e)) => e.clone(),
                    None if lit.open => Expr::Unknown,
                    None => Expr::Global,
                }
            }
            v => {
                let n = self.intern(name);
                Expr::Member(Box::new(v.clone()), n)
            }
        }
    }

    fn declarator(&mut self, v: Node<'s>) {
        if self.node_defs.get(&v.id()) == Some(&u32::MAX) {
            return; // a `require` declarator, done when hoisted
        }
        let Some(name) = v.field("name") else {
            return;
        };
        let value = v.field("value");
        let ty = v.field("type");
        if let Some(&def) = self.node_defs.get(&v.id()) {
            if let Some(t) = ty {
                self.walk(t);
                if let Some(val) = value {
                    self.contextual_fn(val, t);
                }
            }
            if let Some(val) = value.map(skip_parens) {
                if val.kind_name() == "class" {
                    self.class(val, Some(def));
                } else {
                    let this = if val.kind_name() == "arrow_function" {
                        self.this_class
                    } else {
                        None
                    };
                    self.function(val, Some(def), this);
                }
            }
            return;
        }
        if let Some(val) = value.map(skip_parens) {
            if let Some(spec) = require_arg(val, self.src) {
                // Not hoisted (e.g. in a `for` header): bind now.
                self.require_declarator(name, spec);
                return;
            }
        }
        if let Some(t) = ty {
            self.walk(t);
        }
        let declared = match ty {
            Some(t) => Some(self.type_value(t)),
            None => self.jsdoc_declared(v),
        };
        if let Some(val) = value {
            if let Some(ctx) = &declared {
                self.expect_object(val, ctx.clone());
            }
            if let Some(t) = ty {
                self.contextual_fn(val, t);
            }
            self.walk(val);
        }
        let e = match (declared, value) {
            (Some(t), _) => t,
            (None, Some(val)) => match self.typed_call_value(val) {
                Some(e) => e,
                None => self.expr(val),
            },
            (None, None) => Expr::Unknown,
        };
        self.bind_pattern(name, e);
    }

    /// `const f = g<DataLast, DataFirst>(…)` (effect's `dual`, a memoizer):
    /// a constant made by a call whose explicit type arguments are function
    /// types is callable as those types, and a call of it gives the first
    /// one's result that is no function (as for call signatures: a call
    /// used as a receiver has all its arguments).
    fn typed_call_value(&mut self, val: Node<'s>) -> Option<Expr> {
        let val = skip_parens(val);
        if val.kind_name() != "call_expression" {
            return None;
        }
        let ta = val.field("type_arguments")?;
        let mut c = ta.walk();
        let fn_types: Vec<Node> = ta
            .named_children(&mut c)
            .filter(|t| t.kind_name() == "function_type")
            .collect();
        let ft = fn_types.into_iter().find(|ft| {
            let r = ft.field("return_type");
            let r = match r {
                Some(a) if a.kind_name() == "type_annotation" => a.named_child(0),
                r => r,
            };
            r.is_some_and(|r| r.kind_name() != "function_type")
        })?;
        self.push_frame();
        self.type_params(ft);
        let e = self.type_value(ft);
        self.pop_frame();
        matches!(e, Expr::Returns(_)).then_some(e)
    }

    fn class(&mut self, n: Node<'s>, def: Option<u32>) {
        let saved = (self.cur, self.this_class, self.fn_def);
        if let Some(d) = def {
            self.cur = d;
        }
        self.push_frame();
        self.type_params(n);
        let mut bases = Vec::new();
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in &kids {
            match k.kind_name() {
                "decorator" => self.walk(*k),
                "class_heritage" => {
                    let mut c2 = k.walk();
                    let clauses: Vec<Node> = k.named_children(&mut c2).collect();
                    for cl in clauses {
                        match cl.kind_name() {
                            "extends_clause" => {
                                if let Some(v) = cl.field("value") {
                                    if let Some(b) = self.heritage_value(v) {
                                        bases.push(b);
                                    }
                                }
                                self.walk_field(cl, "type_arguments");
                            }
                            "implements_clause" => {
                                let mut c3 = cl.walk();
                                let types: Vec<Node> = cl.named_children(&mut c3).collect();
                                for t in types {
                                    self.heritage_type(t, SiteKind::Implements);
                                }
                            }
                            // JavaScript: `extends <expression>` directly.
                            _ => {
                                if let Some(b) = self.heritage_value(cl) {
                                    bases.push(b);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some(body) = n.field("body") {
            self.members(body, def);
        }
        self.pop_frame();
        if let Some(d) = def {
            self.scope.classes.push(ClassInfo { def: d, bases });
        }
        (self.cur, self.this_class, self.fn_def) = saved;
    }

    /// `extends <value>` of a class: an `extends` site and the base.
    fn heritage_value(&mut self, v: Node<'s>) -> Option<Expr> {
        let v = skip_parens(v);
        match v.kind_name() {
            "identifier" => {
                let name = self.text(v);
                let e = self.lookup_expr(name, NS_VALUE);
                self.site(v, SiteKind::Extends, NS_VALUE, e.clone());
                Some(e)
            }
            "member_expression" => {
                let e = self.expr(v);
                if let Some(p) = v.field("property") {
                    self.site(p, SiteKind::Extends, NS_VALUE, e.clone());
                }
                if let Some(o) = v.field("object") {
                    self.walk(o);
                }
                Some(e)
            }
            // A class factory (`extends make<number>(ast)`): the base is
            // the call's value, which gives the class its statics.
            "call_expression" => {
                let e = self.expr(v);
                self.walk(v);
                (!matches!(e, Expr::Unknown | Expr::Global)).then_some(e)
            }
            _ => {
                self.walk(v);
                None
            }
        }
    }

    /// A type in `implements` / interface `extends`: a site, and the type.
    fn heritage_type(&mut self, t: Node<'s>, kind: SiteKind) -> Option<Expr> {
        match t.kind_name() {
            "type_identifier" => {
                let name = self.text(t);
                let e = self.lookup_expr(name, NS_TYPE);
                self.site(t, kind, NS_TYPE, e.clone());
                Some(e)
            }
            "nested_type_identifier" => {
                let e = self.nested_type(t);
                if let Some(name) = t.field("name") {
                    self.site(name, kind, NS_TYPE, e.clone());
                }
                // The qualifier (`JSONRPC2` in `extends JSONRPC2.Request`)
                // is a use of the namespace, as in any other type.
                if let Some(m) = t.field("module") {
                    self.qualifier_sites(m);
                }
                Some(e)
            }
            "generic_type" => {
                let base = t.field("name").and_then(|nm| self.heritage_type(nm, kind));
                self.walk_field(t, "type_arguments");
                base
            }
            // JavaScript-ish or unusual forms (`implements a.B` as an expression).
            _ => {
                self.walk(t);
                None
            }
        }
    }

    fn interface(&mut self, n: Node<'s>, def: Option<u32>) {
        let saved = (self.cur, self.this_class, self.fn_def);
        if let Some(d) = def {
            self.cur = d;
        }
        self.push_frame();
        self.type_params(n);
        let mut bases = Vec::new();
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            if k.kind_name() == "extends_type_clause" {
                let mut c2 = k.walk();
                let types: Vec<Node> = k.named_children(&mut c2).collect();
                for t in types {
                    if let Some(b) = self.heritage_type(t, SiteKind::Extends) {
                        bases.push(b);
                    }
                }
            }
        }
        if let Some(body) = n.field("body") {
            self.members(body, def);
        }
        self.pop_frame();
        if let Some(d) = def {
            match self.scope.classes.iter_mut().find(|c| c.def == d) {
                Some(ci) => ci.bases.extend(bases),
                None => self.scope.classes.push(ClassInfo { def: d, bases }),
            }
        }
        (self.cur, self.this_class, self.fn_def) = saved;
    }

    fn type_alias(&mut self, n: Node<'s>, def: Option<u32>) {
        let saved = self.cur;
        if let Some(d) = def {
            self.cur = d;
        }
        self.push_frame();
        self.type_params(n);
        if let Some(v) = n.field("value") {
            if let Some(d) = def {
                // What a function declared of this type takes.
                self.callback_types(d, SIGNATURE, v);
            }
            if v.kind_name() == "object_type" {
                self.members(v, def);
            } else if let (Some(d), "type_query") = (def, v.kind_name()) {
                if let Some(q) = v.named_child(0) {
                    let e = self.expr(q);
                    self.scope.typeofs.push((d, e));
                }
                self.walk(v);
            } else {
                if let Some(d) = def {
                    // `type Opts = Opt[]` (or `Array<Opt>`): its values are
                    // arrays of `Opt`s (the resolver's `elements_of`).
                    let bases = match v.kind_name() {
                        "array_type" | "generic_type" | "readonly_type" => {
                            match self.type_value(v) {
                                e @ Expr::Elements(_) => vec![e],
                                _ => self.alias_bases(v),
                            }
                        }
                        _ => self.alias_bases(v),
                    };
                    if !bases.is_empty() {
                        self.scope.classes.push(ClassInfo { def: d, bases });
                    }
                }
                self.walk(v);
            }
        }
        self.pop_frame();
        self.cur = saved;
    }

    /// What the members of an alias come from: the type it names
    /// (`type A<T> = B<T>`), each part of an intersection, or the one
    /// [`Expr::Union`] of a union's constituents (`null`/`undefined` left
    /// out). A constituent that names no type leaves the union without
    /// members.
    fn alias_bases(&mut self, v: Node<'s>) -> Vec<Expr> {
        let named = |w: &mut Self, t: Node<'s>| match t.kind_name() {
            "type_identifier" | "nested_type_identifier" => Some(w.type_name(t)),
            "generic_type" => t.field("name").map(|nm| w.type_name(nm)),
            "parenthesized_type" => t.named_child(0).and_then(|c| match c.kind_name() {
                "type_identifier" | "nested_type_identifier" => Some(w.type_name(c)),
                _ => None,
            }),
            _ => None,
        };
        match v.kind_name() {
            "union_type" => {
                let mut leaves = Vec::new();
                union_leaves(v, self.src, &mut leaves);
                let mut parts = Vec::new();
                for l in leaves {
                    match named(self, l) {
                        Some(e) => parts.push(e),
                        None => return Vec::new(),
                    }
                }
                match parts.len() {
                    0 => Vec::new(),
                    1 => parts,
                    _ => vec![Expr::Union(parts)],
                }
            }
            "intersection_type" => {
                let mut c = v.walk();
                let kids: Vec<Node> = v.named_children(&mut c).collect();
                let mut bases = Vec::new();
                for k in kids {
                    if k.kind_name() == "intersection_type" {
                        bases.extend(self.alias_bases(k));
                    } else {
                        bases.extend(named(self, k));
                    }
                }
                bases
            }
            _ => named(self, v).into_iter().collect(),
        }
    }

    /// Members of a class body, interface body or object type.
    fn members(&mut self, body: Node<'s>, class: Option<u32>) {
        let saved = (self.cur, self.this_class);
        let saved_this = self.this_value.take();
        if let Some(c) = class {
            self.cur = c;
            self.this_class = Some(c);
        } else {
            self.this_class = None;
        }
        let mut c = body.walk();
        let kids: Vec<Node> = body.named_children(&mut c).collect();
        // Names of static members: an instance member of the same name is
        // not made a method from its type alone (see below).
        let statics: Vec<&str> = kids
            .iter()
            .filter(|m| is_static(**m))
            .filter_map(|m| m.field("name").or_else(|| m.field("property")))
            .map(|n| self.text(n))
            .collect();
        for m in kids {
            match m.kind_name() {
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    let Some(nn) = m.field("name") else {
                        continue;
                    };
                    let name = self.text(nn);
                    if nn.kind_name() == "computed_property_name" {
                        self.walk(nn);
                    }
                    let is_ctor = name == "constructor";
                    let def = match (class, is_ctor) {
                        (Some(cl), false) => Some(self.member_def(cl, name, nn, m)),
                        _ => None,
                    };
                    if let Some(d) = def.filter(|_| is_getter(m)) {
                        self.scope.getters.push(d);
                    }
                    self.walk_decorators(m);
                    let ctor = if is_ctor { class } else { None };
                    self.function_with(m, def, class, ctor);
                }
                "public_field_definition" | "field_definition" | "property_signature" => {
                    let nn = m.field("name").or_else(|| m.field("property"));
                    let value = m.field("value").map(skip_parens);
                    let ty = m.field("type");
                    self.walk_decorators(m);
                    let (Some(nn), Some(cl)) = (nn, class) else {
                        if let Some(t) = ty {
                            self.walk(t);
                        }
                        if let Some(v) = value {
                            self.walk(v);
                        }
                        continue;
                    };
                    let name = self.text(nn);
                    if nn.kind_name() == "computed_property_name" {
                        self.walk(nn);
                    }
                    if let Some(t) = ty {
                        self.walk(t);
                    }
                    let fn_value = value.filter(|v| {
                        matches!(
                            v.kind_name(),
                            "arrow_function" | "function_expression" | "function"
                        )
                    });
                    // A member typed as a function and given no function
                    // (`next: (value: T) => void;` in an interface): a
                    // method, called as one (`observer.next(v)`), as
                    // tsserver has it.
                    // Not when a static member has the name: members are
                    // kept by name, and rxjs's `static now: () => number =
                    // provider.now` beside an instance `now: () => number`
                    // would take `Scheduler.now` to the instance's.
                    let fn_typed = ty
                        .and_then(|t| t.named_child(0))
                        .is_some_and(|t| t.kind_name() == "function_type");
                    if fn_typed && fn_value.is_none() && !statics.contains(&name) {
                        self.member_def(cl, name, nn, m);
                    }
                    if let Some(f) = fn_value {
                        let def = self.member_def(cl, name, nn, m);
                        let this = if f.kind_name() == "arrow_function" {
                            Some(cl)
                        } else {
                            None
                        };
                        self.function(f, Some(def), this);
                        continue;
                    }
                    if let (Some(v), Some(t)) = (value, ty) {
                        let ctx = self.type_value(t);
                        self.expect_object(v, ctx);
                    }
                    if let Some(v) = value {
                        self.walk(v);
                    }
                    // An object type (`o: { status: ParseStatus }`) is an
                    // object whose properties have the declared types.
                    let e = match (ty, value) {
                        (Some(t), _) => match self.type_literal(t) {
                            Some(lit) => lit,
                            None => self.type_value(t),
                        },
                        (None, Some(v)) => self.expr(v),
                        _ => Expr::Unknown,
                    };
                    if !matches!(e, Expr::Unknown) {
                        let n = self.intern(name);
                        self.push_field(cl, n, e);
                    }
                }
                // A call signature of an interface (`interface RouteShorthandMethod
                // { (path: string, handler: RouteHandlerMethod): … }`): what a
                // callback passed to a value of it takes, as for a function.
                "call_signature" => {
                    if let Some(cl) = class {
                        for (j, p) in signature_params(m).unwrap_or_default().iter().enumerate() {
                            if let Some(t) = p.field("type") {
                                self.callback_types(cl, j as u16, t);
                            }
                        }
                    }
                    self.walk(m);
                }
                _ => self.walk(m),
            }
        }
        (self.cur, self.this_class) = saved;
        self.this_value = saved_this;
    }

    fn walk_decorators(&mut self, m: Node<'s>) {
        let mut c = m.walk();
        let decs: Vec<Node> = m
            .named_children(&mut c)
            .filter(|k| k.kind_name() == "decorator")
            .collect();
        for d in decs {
            self.walk(d);
        }
    }

    /// The node of a class member: the first declaration of the name
    /// (an overload signature, a getter) spanning to the last one.
    fn member_def(&mut self, class: u32, name: &'s str, nn: Node<'s>, m: Node<'s>) -> u32 {
        if let Some(&d) = self.member_defs.get(&(class, name)) {
            let end = m.end_position().row as u32 + 1;
            let def = &mut self.defs[d as usize];
            def.end_line = def.end_line.max(end);
            return d;
        }
        let saved = self.cur;
        self.cur = class;
        let d = self.add_def(name, nn, m, NodeKind::Method, false);
        self.cur = saved;
        let mut c = m.walk();
        let private = name.starts_with('#')
            || m.children(&mut c)
                .any(|k| k.kind_name() == "accessibility_modifier" && self.text(k) == "private");
        self.private[d as usize] = private;
        self.member_defs.insert((class, name), d);
        d
    }

    // ----- statements with special meaning ---------------------------------

    fn export(&mut self, n: Node<'s>) {
        let module_level = self.at_module_level();
        let mut c = n.walk();
        let tokens: Vec<Node> = n.children(&mut c).collect();
        let is_default = tokens.iter().any(|t| t.kind_name() == "default");
        let is_equals = tokens.iter().any(|t| t.kind_name() == "=");
        for t in &tokens {
            if t.kind_name() == "decorator" {
                self.walk(*t);
            }
        }
        let ambient = self
            .ambient
            .filter(|&(_, frames)| frames == self.frames.len())
            .map(|(i, _)| i);
        if let Some(decl) = n.field("declaration") {
            self.walk(decl);
            if module_level || ambient.is_some() {
                for (name, b) in self.declared(decl) {
                    let ns = self.ns_of(b);
                    let exported = if is_default { DEFAULT } else { name };
                    let export = Export {
                        name: self.intern(exported),
                        ns,
                        target: b.expr(),
                    };
                    match ambient {
                        Some(i) => self.scope.ambient[i].exports.push(export),
                        None => self.scope.exports.push(export),
                    }
                }
            }
            return;
        }
        if let Some(source) = n.field("source") {
            let Some(spec) = self.module_site(source) else {
                return;
            };
            let mut any = false;
            for t in tokens {
                match t.kind_name() {
                    "export_clause" => {
                        any = true;
                        let mut c2 = t.walk();
                        let specs: Vec<Node> = t
                            .named_children(&mut c2)
                            .filter(|s| s.kind_name() == "export_specifier")
                            .collect();
                        for s in specs {
                            let Some(name) = s.field("name") else {
                                continue;
                            };
                            let imported = self.spec_name(name);
                            let alias = s
                                .field("alias")
                                .map(|a| self.spec_name(a))
                                .unwrap_or(imported);
                            let nm = self.intern(imported);
                            let what = if imported == DEFAULT {
                                Imported::Default
                            } else {
                                Imported::Named(nm)
                            };
                            let i = self.push_import(nm, spec, what);
                            self.site(name, SiteKind::Ref, NS_ANY, Expr::Import(i));
                            if let Some(a) = s.field("alias") {
                                self.site(a, SiteKind::Ref, NS_ANY, Expr::Import(i));
                            }
                            if module_level {
                                let al = self.intern(alias);
                                self.scope.exports.push(Export {
                                    name: al,
                                    ns: NS_ANY,
                                    target: Expr::Import(i),
                                });
                            }
                        }
                    }
                    "namespace_export" => {
                        any = true;
                        let mut c2 = t.walk();
                        let id = t.named_children(&mut c2).next();
                        if let Some(id) = id {
                            let alias = self.spec_name(id);
                            let al = self.intern(alias);
                            let i = self.push_import(al, spec, Imported::Namespace);
                            if module_level {
                                self.scope.exports.push(Export {
                                    name: al,
                                    ns: NS_ANY,
                                    target: Expr::Import(i),
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
            if !any && module_level {
                self.scope.specs[spec as usize].star = true;
            }
            return;
        }
        let mut handled_value = false;
        for t in tokens {
            match t.kind_name() {
                "export_clause" => {
                    for (name, alias_node) in self.export_names(t) {
                        let local = self.spec_name(name);
                        let alias = alias_node.map(|a| self.spec_name(a)).unwrap_or(local);
                        let b = self.lookup(local, NS_ANY);
                        let Some(b) = b else { continue };
                        if let Binding::Def(_) | Binding::Import(_) = b {
                            self.site(name, SiteKind::Ref, NS_ANY, b.expr());
                            if let Some(a) = alias_node {
                                self.site(a, SiteKind::Ref, NS_ANY, b.expr());
                            }
                        }
                        if let Binding::Def(d) = b {
                            self.defs[d as usize].exported = true;
                        }
                        let al = self.intern(alias);
                        if module_level {
                            let ns = self.ns_of(b);
                            self.scope.exports.push(Export {
                                name: al,
                                ns,
                                target: b.expr(),
                            });
                        } else if let Some(i) = ambient {
                            let ns = self.ns_of(b);
                            self.scope.ambient[i].exports.push(Export {
                                name: al,
                                ns,
                                target: b.expr(),
                            });
                        } else if self.cur != 0 {
                            // Inside a namespace body (no other block takes
                            // `export`): a member of the namespace.
                            self.scope.ns_exports.push((self.cur, al, b.expr()));
                        }
                    }
                }
                "decorator" | "comment" => {}
                _ if t.is_named() && !handled_value => {
                    // `export default <expr>` / `export = <expr>`.
                    handled_value = true;
                    self.export_value(t, if is_equals { EXPORT_EQUALS } else { DEFAULT });
                }
                _ => {}
            }
        }
    }

    fn export_value(&mut self, v: Node<'s>, as_name: &str) {
        let v = skip_parens(v);
        self.walk(v);
        let e = if v.kind_name() == "identifier" {
            let t = self.text(v);
            self.lookup_expr(t, NS_ANY)
        } else {
            self.expr(v)
        };
        if let Expr::Def(d) = e {
            self.defs[d as usize].exported = true;
        }
        if self.at_module_level() {
            let ns = match &e {
                Expr::Def(d) => self.def_ns(*d),
                _ => NS_ANY,
            };
            let nm = self.intern(as_name);
            self.scope.exports.push(Export {
                name: nm,
                ns,
                target: e,
            });
        }
    }

    /// The names of an `export { … }` clause, each with its alias. The
    /// grammar takes no reserved word as an alias (`export { var_builder
    /// as var }`, svelte's builders): `as var` is left an error, after the
    /// specifier or inside it, where the next name is then taken for the
    /// alias (`{ var_builder as var, call }` reads as `var_builder as
    /// call`). The error's word is the alias, and that next name a
    /// specifier of its own.
    fn export_names(&self, clause: Node<'s>) -> Vec<(Node<'s>, Option<Node<'s>>)> {
        // `as <word>` or `<word>` after an `as` (then perhaps `,`): the word.
        let reserved_alias = |e: Node<'s>| {
            let mut c = e.walk();
            let mut words: Vec<Node<'s>> = e.children(&mut c).collect();
            let after_as = e.prev_sibling().is_some_and(|p| self.text(p) == "as");
            if !after_as && words.first().is_some_and(|w| self.text(*w) == "as") {
                words.remove(0);
            } else if !after_as {
                return None;
            }
            match words[..] {
                [word, ..]
                    if word.child_count() == 0
                        && self.text(word).bytes().all(|b| b.is_ascii_lowercase())
                        && words[1..].iter().all(|w| self.text(*w) == ",") =>
                {
                    Some(word)
                }
                _ => None,
            }
        };
        let mut out: Vec<(Node<'s>, Option<Node<'s>>)> = Vec::new();
        let mut c = clause.walk();
        let kids: Vec<Node<'s>> = clause.children(&mut c).collect();
        for k in kids {
            match k.kind_name() {
                "export_specifier" => {
                    let Some(name) = k.field("name") else {
                        continue;
                    };
                    let mut c2 = k.walk();
                    let inner = k
                        .children(&mut c2)
                        .find(|e| e.kind_name() == "ERROR")
                        .and_then(reserved_alias);
                    match (inner, k.field("alias")) {
                        (Some(word), next) => {
                            out.push((name, Some(word)));
                            if let Some(next) = next {
                                out.push((next, None));
                            }
                        }
                        (None, alias) => out.push((name, alias)),
                    }
                }
                "ERROR" => {
                    if let Some(last) = out.last_mut().filter(|(_, a)| a.is_none()) {
                        last.1 = reserved_alias(k);
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn spec_name(&self, n: Node<'s>) -> &'s str {
        if n.kind_name() == "string" {
            self.string_value(n).map(|(t, _)| t).unwrap_or("")
        } else {
            self.text(n)
        }
    }

    fn def_ns(&self, d: u32) -> u8 {
        match self.defs[d as usize].kind {
            NodeKind::Class => NS_ANY,
            _ => NS_VALUE,
        }
    }

    fn ns_of(&self, b: Binding) -> u8 {
        match b {
            Binding::Def(d) => {
                // Interfaces and type aliases are types only; we cannot
                // tell them from classes by kind, so look at the binding.
                let name = self.defs[d as usize].name.as_str();
                let f = &self.frames[0];
                let v = f.values.get(name) == Some(&b);
                let t = f.types.get(name) == Some(&b);
                match (v, t) {
                    (true, false) => NS_VALUE,
                    (false, true) => NS_TYPE,
                    _ => self.def_ns(d),
                }
            }
            Binding::Var(_) | Binding::Opaque => NS_VALUE,
            Binding::TypeParam(_) => NS_TYPE,
            Binding::Import(_) => NS_ANY,
        }
    }

    /// Names a declaration statement binds, with their bindings.
    fn declared(&mut self, decl: Node<'s>) -> Vec<(&'s str, Binding)> {
        let mut out = Vec::new();
        match decl.kind_name() {
            "lexical_declaration" | "variable_declaration" => {
                let mut c = decl.walk();
                let decls: Vec<Node> = decl.named_children(&mut c).collect();
                for d in decls {
                    if d.kind_name() != "variable_declarator" {
                        continue;
                    }
                    let Some(nn) = d.field("name") else {
                        continue;
                    };
                    let mut names = Vec::new();
                    pattern_names(nn, self.src, &mut names);
                    for name in names {
                        if let Some(b) = self
                            .frames
                            .last()
                            .and_then(|f| f.values.get(name).or_else(|| f.types.get(name)).copied())
                        {
                            out.push((name, b));
                        }
                    }
                }
            }
            "ambient_declaration" => {
                let mut c = decl.walk();
                let kids: Vec<Node> = decl.named_children(&mut c).collect();
                for k in kids {
                    out.extend(self.declared(k));
                }
            }
            _ => {
                if let (Some(nn), Some(&d)) = (decl.field("name"), self.node_defs.get(&decl.id())) {
                    out.push((self.text(nn), Binding::Def(d)));
                }
            }
        }
        out
    }

    fn assignment(&mut self, n: Node<'s>) {
        let (Some(left), Some(right)) = (n.field("left"), n.field("right")) else {
            self.walk_children(n);
            return;
        };
        let right = skip_parens(right);
        if left.kind_name() == "member_expression" {
            if let (Some(obj), Some(prop)) = (left.field("object"), left.field("property")) {
                let prop_name = self.text(prop);
                if self.is_free(obj, "module") && prop_name == "exports" {
                    // `module.exports = class X {}` / `= function f() {}`:
                    // the definition is the export.
                    let named = right.field("name");
                    let def = match (right.kind_name(), named) {
                        ("class", Some(_)) => {
                            self.walk(right);
                            self.node_defs.get(&right.id()).copied()
                        }
                        ("function_expression" | "function", Some(nn)) => {
                            let name = self.text(nn);
                            let d = self.add_def(name, nn, n, NodeKind::Function, true);
                            self.function(right, Some(d), None);
                            Some(d)
                        }
                        _ => None,
                    };
                    match def {
                        Some(d) => {
                            self.defs[d as usize].exported = true;
                            let nm = self.intern(EXPORT_EQUALS);
                            self.scope.exports.push(Export {
                                name: nm,
                                ns: NS_ANY,
                                target: Expr::Def(d),
                            });
                        }
                        None => {
                            // `module.exports = exports = new Mongoose()`:
                            // an assignment's value is its right side. (Not
                            // `… = exports = SchemaType`: tsserver defines
                            // such a name at the assignment, an alias.)
                            let mut value = right;
                            while value.kind_name() == "assignment_expression" {
                                match value.field("right").map(skip_parens) {
                                    Some(r) if r.kind_name() != "identifier" => value = r,
                                    _ => break,
                                }
                            }
                            self.module_exports(value);
                            self.walk(right);
                        }
                    }
                    return;
                }
                let on_exports = self.is_free(obj, "exports")
                    || (obj.kind_name() == "member_expression"
                        && obj
                            .field("object")
                            .is_some_and(|o| self.is_free(o, "module"))
                        && obj
                            .field("property")
                            .is_some_and(|p| self.text(p) == "exports"));
                if on_exports {
                    let e = match right.kind_name() {
                        "function_expression" | "arrow_function" | "function" => {
                            // `exports.f = function f() {}`: tsserver names it
                            // at the function's own name.
                            let at = right.field("name").unwrap_or(prop);
                            let d = self.add_def(prop_name, at, n, NodeKind::Function, true);
                            self.function(right, Some(d), None);
                            Expr::Def(d)
                        }
                        "class" => {
                            let d = self.add_def(prop_name, prop, n, NodeKind::Class, true);
                            self.class(right, Some(d));
                            Expr::Def(d)
                        }
                        _ => {
                            self.walk(right);
                            let e = if right.kind_name() == "identifier" {
                                let t = self.text(right);
                                self.lookup_expr(t, NS_ANY)
                            } else {
                                self.expr(right)
                            };
                            if let Expr::Def(d) = e {
                                self.defs[d as usize].exported = true;
                            }
                            e
                        }
                    };
                    // (A named function expression is named at its name.)
                    let at_property = match right.kind_name() {
                        "function_expression" | "arrow_function" | "function" => {
                            right.field("name").is_none()
                        }
                        "class" => true,
                        _ => false,
                    };
                    let nm = self.intern(prop_name);
                    self.scope.exports.push(Export {
                        name: nm,
                        ns: NS_VALUE | if at_property { AT_PROPERTY } else { 0 },
                        target: e,
                    });
                    return;
                }
            }
        }
        match self.prototype_method(left, right) {
            // JavaScript: `C.prototype.m = function m() {…}` defines method
            // `m` of the constructor function `C`, which tsserver makes a
            // class (its symbol is the function expression's name).
            Some((class, obj, Some(prop))) => {
                self.walk(obj);
                let name = self.text(prop);
                let at = right.field("name").unwrap_or(prop);
                let d = self.member_def(class, name, at, n);
                self.defs[class as usize].kind = NodeKind::Class;
                self.function(right, Some(d), Some(class));
                return;
            }
            // `C.prototype[name] = function (…) {…}`: no method to name, but
            // `this` is a `C`.
            Some((class, _, None)) => {
                self.walk(left);
                self.function(right, None, Some(class));
                return;
            }
            None => {}
        }
        self.static_assignment(left);
        match (left.kind_name(), left.field("object")) {
            // `this.x = …` declares `x` in JavaScript (for tsserver too),
            // and says what `this.x` holds. In TypeScript `x` is declared in
            // the class: the write is a reference to it.
            ("member_expression", Some(o)) if o.kind_name() == "this" => {
                if self.typed {
                    self.member_ref(left);
                }
                if let (Some(class), Some(prop)) = (self.this_class, left.field("property")) {
                    // JavaScript: `/** @type {T} */ this.x = …` declares `x` a `T`.
                    let e = match self.jsdoc_declared(n) {
                        Some(t) => t,
                        None => self.expr(right),
                    };
                    if matches!(
                        e,
                        Expr::Instance(_)
                            | Expr::Def(_)
                            | Expr::Import(_)
                            | Expr::Elements(_)
                            | Expr::Object(_)
                    ) {
                        let name = self.text(prop);
                        let n = self.intern(name);
                        self.push_field(class, n, e);
                    }
                }
            }
            _ => self.walk(left),
        }
        self.walk(right);
        if left.kind_name() == "identifier" {
            // `x = new Foo()` refines a local variable declared without a value.
            let name = self.text(left);
            // `if (!isFoo(x)) return; x = other;`: `x` is no longer narrowed.
            if let Some(Binding::Var(v)) = self.lookup(name, NS_VALUE) {
                if let Some(before) = self.narrowed_from.get(&v).cloned() {
                    let nv = self.new_var(before);
                    self.bind(name, NS_VALUE, Binding::Var(nv));
                }
            }
            if let Some(Binding::Var(v)) = self.lookup(name, NS_VALUE) {
                if matches!(self.scope.vars[v as usize], Expr::Unknown) {
                    self.scope.vars[v as usize] = self.expr(right);
                }
            }
        }
    }

    /// JavaScript: `C.name = …` on a class `C` of this file (a
    /// constructor function given prototype methods) records a static.
    fn static_assignment(&mut self, left: Node<'s>) {
        if self.typed || left.kind_name() != "member_expression" {
            return;
        }
        let (Some(obj), Some(prop)) = (left.field("object"), left.field("property")) else {
            return;
        };
        if obj.kind_name() != "identifier" || prop.kind_name() != "property_identifier" {
            return;
        }
        let name = self.text(prop);
        if name == "prototype" {
            return;
        }
        let ctor = self.text(obj);
        if let Some(Binding::Def(d)) = self.lookup(ctor, NS_VALUE) {
            if self.defs[d as usize].kind == NodeKind::Class {
                let n = self.intern(name);
                self.scope.statics.push((d, n));
            }
        }
    }

    /// `C.prototype.m = function …` in JavaScript, where `C` is a function
    /// (or class) declared in this file: `C`'s def, the `C.prototype`
    /// node and the `m` node (`None` for `C.prototype[name] = …`).
    fn prototype_method(
        &mut self,
        left: Node<'s>,
        right: Node<'s>,
    ) -> Option<(u32, Node<'s>, Option<Node<'s>>)> {
        if self.typed || right.kind_name() != "function_expression" {
            return None;
        }
        let obj = left.field("object")?;
        let prop = match left.kind_name() {
            "member_expression" => {
                let prop = left.field("property")?;
                (prop.kind_name() == "property_identifier").then_some(prop)?;
                Some(prop)
            }
            "subscript_expression" => None,
            _ => return None,
        };
        let (ctor, proto) = (obj.field("object")?, obj.field("property")?);
        if obj.kind_name() != "member_expression"
            || ctor.kind_name() != "identifier"
            || self.text(proto) != "prototype"
        {
            return None;
        }
        let name = self.text(ctor);
        match self.lookup(name, NS_VALUE)? {
            Binding::Def(d)
                if matches!(
                    self.defs[d as usize].kind,
                    NodeKind::Function | NodeKind::Class
                ) =>
            {
                Some((d, obj, prop))
            }
            _ => None,
        }
    }

    /// `module.exports = X` / `module.exports = { a, b: c }`.
    fn module_exports(&mut self, right: Node<'s>) {
        if right.kind_name() == "object" {
            let mut c = right.walk();
            let kids: Vec<Node> = right.named_children(&mut c).collect();
            for k in kids {
                let (name, e) = match k.kind_name() {
                    "shorthand_property_identifier" => {
                        let t = self.text(k);
                        (t, self.lookup_expr(t, NS_ANY))
                    }
                    "pair" => {
                        let (Some(key), Some(v)) = (k.field("key"), k.field("value")) else {
                            continue;
                        };
                        if key.kind_name() != "property_identifier" {
                            continue;
                        }
                        let v = skip_parens(v);
                        let e = if v.kind_name() == "identifier" {
                            let t = self.text(v);
                            self.lookup_expr(t, NS_ANY)
                        } else {
                            self.expr(v)
                        };
                        (self.text(key), e)
                    }
                    _ => continue,
                };
                if let Expr::Def(d) = e {
                    self.defs[d as usize].exported = true;
                }
                // tsserver defines these names at the property (and, for a
                // call, at the function too).
                let ns = NS_VALUE | CJS_PROPERTY;
                let nm = self.intern(name);
                self.scope.exports.push(Export {
                    name: nm,
                    ns,
                    target: e,
                });
            }
            return;
        }
        let e = if right.kind_name() == "identifier" {
            let t = self.text(right);
            self.lookup_expr(t, NS_ANY)
        } else {
            self.expr(right)
        };
        if let Expr::Def(d) = e {
            self.defs[d as usize].exported = true;
        }
        let nm = self.intern(EXPORT_EQUALS);
        self.scope.exports.push(Export {
            name: nm,
            ns: NS_ANY,
            target: e,
        });
    }

    /// Is `n` the identifier `name`, not declared in the file?
    fn is_free(&mut self, n: Node<'s>, name: &str) -> bool {
        n.kind_name() == "identifier"
            && self.text(n) == name
            && self.lookup(self.text(n), NS_VALUE).is_none()
    }

    // ----- calls -------------------------------------------------------------

    fn call(&mut self, n: Node<'s>) {
        let Some(f) = n.field("function").map(indirect_callee) else {
            self.walk_children(n);
            return;
        };
        let args = n.field("arguments");
        if self.test_file {
            if let Some((name, at)) = self.test_call(n) {
                let saved = self.cur;
                let d = self.add_def(name, at, n, NodeKind::Test, false);
                self.cur = d;
                if let Some(a) = args {
                    let mut c = a.walk();
                    let kids: Vec<Node> = a.named_children(&mut c).skip(1).collect();
                    for k in kids {
                        self.walk(k);
                    }
                }
                self.cur = saved;
                return;
            }
        }
        match f.kind_name() {
            "identifier" => {
                let name = self.text(f);
                if name == "require" && self.lookup(name, NS_VALUE).is_none() {
                    if let Some(spec) = args.and_then(|a| first_string_arg(a)) {
                        self.module_site_as(spec, true);
                        return;
                    }
                }
                if let Some(b @ (Binding::Def(_) | Binding::Import(_))) =
                    self.lookup(name, NS_VALUE)
                {
                    self.site(f, SiteKind::Call, NS_VALUE, b.expr())
                }
            }
            "import" => {
                if let Some(spec) = args.and_then(|a| first_string_arg(a)) {
                    self.module_site(spec);
                    return;
                }
            }
            "member_expression" => {
                if let (Some(obj), Some(prop)) = (f.field("object"), f.field("property")) {
                    let recv = self.expr(obj);
                    let name = self.text(prop);
                    let p = self.intern(name);
                    self.site(
                        prop,
                        SiteKind::Call,
                        NS_VALUE,
                        Expr::Member(Box::new(recv), p),
                    );
                    self.walk(obj);
                } else {
                    self.walk(f);
                }
            }
            "super" => {
                if let Some(c) = self.this_class {
                    self.site(f, SiteKind::Call, NS_VALUE, Expr::Super(c));
                }
            }
            _ => self.walk(f),
        }
        self.walk_field(n, "type_arguments");
        if let Some(a) = args {
            self.callback_args(f, a);
            if let Some(ta) = n.field("type_arguments") {
                self.typed_callbacks(ta, a);
            }
            self.walk(a);
        }
    }

    /// A call with explicit type arguments (effect's `dual<DataLast,
    /// DataFirst>(2, (self, that) => …)`): a callback argument whose
    /// parameters are untyped is contextually typed by the type parameter
    /// the callee declares for it, given here as a function type. Without
    /// the callee's declaration, the function type is the one with as many
    /// parameters as the callback when no other one has more (a callback
    /// may declare fewer parameters than its type: then no guess).
    fn typed_callbacks(&mut self, type_args: Node<'s>, args: Node<'s>) {
        let mut c = type_args.walk();
        let fn_types: Vec<(Node, Vec<Node>)> = type_args
            .named_children(&mut c)
            .filter(|t| t.kind_name() == "function_type")
            .filter_map(|t| Some((t, signature_params(t)?)))
            .collect();
        let Some(most) = fn_types.iter().map(|(_, ps)| ps.len()).max() else {
            return;
        };
        let mut c = args.walk();
        let callbacks: Vec<Node> = args
            .named_children(&mut c)
            .filter(|k| matches!(k.kind_name(), "arrow_function" | "function_expression"))
            .collect();
        for cb in callbacks {
            let Some(n) = untyped_arity(cb) else { continue };
            if n != most {
                continue;
            }
            let mut fits = fn_types.iter().filter(|(_, ps)| ps.len() == n);
            let (Some((ft, ps)), None) = (fits.next(), fits.next()) else {
                continue;
            };
            // The function type's own type parameters are no outer names.
            self.push_frame();
            self.type_params(*ft);
            let types: Vec<Expr> = ps
                .iter()
                .map(|p| match p.field("type") {
                    Some(t) => self.type_value(t),
                    None => Expr::Unknown,
                })
                .collect();
            let ret = match ft.field("return_type") {
                Some(r) => self.type_value(r),
                None => Expr::Unknown,
            };
            self.pop_frame();
            self.cb_types.insert(cb.id(), (types, ret));
        }
    }

    /// Function arguments of a call (`s.refine((val, ctx) => …)`): their
    /// untyped parameters are typed by the callee's declaration.
    fn callback_args(&mut self, f: Node<'s>, args: Node<'s>) {
        let mut c = args.walk();
        let kids: Vec<Node> = args.named_children(&mut c).collect();
        let callbacks: Vec<(u16, Node)> = kids
            .into_iter()
            .filter(|k| k.kind_name() != "comment")
            .enumerate()
            .filter(|(_, k)| {
                matches!(
                    k.kind_name(),
                    "arrow_function" | "function_expression" | "object"
                )
            })
            .map(|(i, k)| (i as u16, k))
            .collect();
        if callbacks.is_empty() {
            return;
        }
        let callee = self.expr(f);
        if matches!(callee, Expr::Unknown | Expr::Global) {
            return;
        }
        // A call of a parameter declared a function type (trpc's
        // `observable(subscribe: (observer: Observer<…>) => …)` calling
        // `subscribe({ next(v) {…} })`): the type that function type
        // declares for the argument, which the declaring function records.
        let fn_param = match callee {
            Expr::Var(v) => self.fn_params.get(&v).copied(),
            _ => None,
        };
        for (i, k) in callbacks {
            if let (Some((d, p)), "object") = (fn_param, k.kind_name()) {
                self.expect_object(k, Expr::Param(Box::new(Expr::Def(d)), p, i));
            } else if k.kind_name() == "object" {
                // `fastify.route({ url, handler: (req, reply) => … })`.
                self.expect_object(k, Expr::Arg(Box::new(callee.clone()), i));
            } else {
                self.cb_ctx.insert(k.id(), (callee.clone(), i));
            }
        }
    }

    /// `describe('…', …)`, `it.only('…', …)`, `test.each(t)('…', …)`:
    /// the test's name and the node it starts at.
    fn test_call(&self, n: Node<'s>) -> Option<(&'s str, Node<'s>)> {
        let f = n.field("function")?;
        let base = match f.kind_name() {
            "identifier" => f,
            "member_expression" => {
                let prop = f.field("property")?;
                if !TEST_MODIFIERS.contains(&self.text(prop)) {
                    return None;
                }
                let obj = f.field("object")?;
                if obj.kind_name() == "member_expression" {
                    // `describe.skip.each`-style chains: look at the root.
                    obj.field("object")?
                } else {
                    obj
                }
            }
            "call_expression" => {
                let inner = f.field("function")?;
                if inner.kind_name() != "member_expression" {
                    return None;
                }
                let prop = inner.field("property")?;
                if self.text(prop) != "each" {
                    return None;
                }
                let obj = inner.field("object")?;
                if obj.kind_name() == "member_expression" {
                    obj.field("object")?
                } else {
                    obj
                }
            }
            _ => return None,
        };
        if base.kind_name() != "identifier" || !TEST_FNS.contains(&self.text(base)) {
            return None;
        }
        let args = n.field("arguments")?;
        let first = args.named_child(0)?;
        let (name, _) = self.string_value(first)?;
        if name.is_empty() {
            return None;
        }
        Some((name, first))
    }

    fn new_expr(&mut self, n: Node<'s>) {
        if let Some(ctor) = n.field("constructor") {
            match ctor.kind_name() {
                "identifier" => {
                    let name = self.text(ctor);
                    if let Some(b @ (Binding::Def(_) | Binding::Import(_))) =
                        self.lookup(name, NS_VALUE)
                    {
                        self.site(ctor, SiteKind::Call, NS_VALUE, b.expr())
                    }
                }
                "member_expression" => {
                    let e = self.expr(ctor);
                    if let Some(p) = ctor.field("property") {
                        self.site(p, SiteKind::Call, NS_VALUE, e);
                    }
                    if let Some(o) = ctor.field("object") {
                        self.walk(o);
                    }
                }
                _ => self.walk(ctor),
            }
        }
        self.walk_field(n, "type_arguments");
        if let (Some(ctor), Some(a)) = (n.field("constructor"), n.field("arguments")) {
            // `new Observable((subscriber) => …)`: a callback's untyped
            // parameters take the types the constructor declares.
            self.callback_args(ctor, a);
        }
        self.walk_field(n, "arguments");
    }

    // ----- expressions and types as values -------------------------------------

    /// What an expression evaluates to, as far as this file can say.
    fn expr(&mut self, n: Node<'s>) -> Expr {
        if self.too_deep_here() {
            return Expr::Unknown;
        }
        self.depth += 1;
        let e = self.expr_node(n);
        self.depth -= 1;
        e
    }

    /// The value of the fallback operand of `a || b` or `c ? a : b`: none
    /// when it is a global (the whole is then no in-repo value).
    fn known_value(&mut self, n: Node<'s>) -> Expr {
        match self.expr(n) {
            Expr::Global => Expr::Unknown,
            e => e,
        }
    }

    fn expr_node(&mut self, n: Node<'s>) -> Expr {
        match n.kind_name() {
            "identifier" => {
                let t = self.text(n);
                if t == "undefined" {
                    return Expr::Global;
                }
                // CommonJS: a free `exports` is this module's exports.
                if t == "exports" && !self.typed && self.is_free(n, "exports") {
                    return Expr::Def(0);
                }
                self.lookup_expr(t, NS_VALUE)
            }
            "this" => match (&self.this_value, self.this_class) {
                (Some(v), _) => v.clone(),
                (None, Some(c)) => Expr::This(c),
                (None, None) => Expr::Unknown,
            },
            "super" => match self.this_class {
                Some(c) => Expr::Super(c),
                None => Expr::Unknown,
            },
            "member_expression" => {
                let (Some(obj), Some(prop)) = (n.field("object"), n.field("property")) else {
                    return Expr::Unknown;
                };
                let name = self.text(prop);
                // CommonJS: `module.exports` (free `module`) is this
                // module's exports.
                if name == "exports" && !self.typed && self.is_free(obj, "module") {
                    return Expr::Def(0);
                }
                let o = self.expr(obj);
                self.member_of(&o, name)
            }
            "call_expression" => {
                let Some(f) = n.field("function") else {
                    return Expr::Unknown;
                };
                if f.kind_name() == "identifier" && self.text(f) == "require" {
                    if let Some(spec) = n
                        .field("arguments")
                        .and_then(|a| first_string_arg(a))
                        .and_then(|s| self.string_value(s))
                    {
                        let i = self.intern_spec_as(spec.0, true);
                        return Expr::Require(i);
                    }
                }
                match self.expr(f) {
                    Expr::Unknown => Expr::Unknown,
                    Expr::Global => Expr::Global,
                    e => Expr::Call(Box::new(e)),
                }
            }
            "new_expression" => {
                let Some(c) = n.field("constructor") else {
                    return Expr::Unknown;
                };
                let e = self.expr(c);
                instance(e)
            }
            // `xs[i]`: an element of `xs` (written as what a `forEach`
            // callback takes first); `o["k"]` names a property instead.
            "subscript_expression" => {
                let (Some(obj), Some(idx)) = (n.field("object"), n.field("index")) else {
                    return Expr::Unknown;
                };
                if matches!(idx.kind_name(), "string" | "template_string") {
                    return Expr::Unknown;
                }
                let xs = self.expr(obj);
                self.element_of(xs)
            }
            // `/** @type {T} */ (x)`: a cast to `T` in JavaScript.
            "parenthesized_expression"
                if !self.typed
                    && let Some(path) =
                        cast_comment(n, self.src).and_then(|c| jsdoc::type_tag(self.text(c))) =>
            {
                self.doc_type(&path)
            }
            // `(0, f)`: the last expression's value.
            "sequence_expression" => {
                match n.named_child(n.named_child_count().saturating_sub(1) as u32) {
                    Some(last) => self.expr(last),
                    None => Expr::Unknown,
                }
            }
            "await_expression"
            | "parenthesized_expression"
            | "non_null_expression"
            | "satisfies_expression" => match n.named_child(0) {
                Some(c) => self.expr(c),
                None => Expr::Unknown,
            },
            "as_expression" => match (const_assertion(n), n.named_child(1)) {
                (Some(e), _) => self.expr(e),
                (None, Some(t)) => self.type_value(t),
                (None, None) => Expr::Unknown,
            },
            "instantiation_expression" => match n.field("function") {
                Some(f) => self.expr(f),
                None => Expr::Unknown,
            },
            "object" => self.object_lit(n),
            // `a ?? b`, `a || b`: `a` when it is set (its declared type
            // without null), else `b`, usually of the same type: the first
            // operand whose value is known.
            "binary_expression"
                if n.field("operator")
                    .is_some_and(|o| matches!(self.text(o), "??" | "||")) =>
            {
                let (Some(l), Some(r)) = (n.field("left"), n.field("right")) else {
                    return Expr::Unknown;
                };
                match self.expr(l) {
                    Expr::Unknown | Expr::Global => self.known_value(r),
                    e => e,
                }
            }
            // `c ? a : b`: `a` when its value is known, `b` when `a`'s is
            // unknown (a narrowed `x instanceof this ? x : new this(x)` is
            // the class's instance either way); nothing when `a` is a
            // global (`typeof URLSearchParams !== 'undefined' ?
            // URLSearchParams : Polyfill` is either).
            "ternary_expression" => {
                let (Some(a), Some(b)) = (n.field("consequence"), n.field("alternative")) else {
                    return Expr::Unknown;
                };
                match self.expr(a) {
                    Expr::Unknown => self.known_value(b),
                    Expr::Global => Expr::Unknown,
                    e => e,
                }
            }
            "string" | "template_string" | "number" | "true" | "false" | "null" | "array"
            | "regex" | "binary_expression" | "unary_expression" => Expr::Global,
            _ => Expr::Unknown,
        }
    }

    /// The object literal `v` (if it is one) is of the type whose value
    /// `ctx` describes: its properties name that type's members.
    fn expect_object(&mut self, v: Node<'s>, ctx: Expr) {
        let mut v = skip_parens(v);
        // `{ … } as const` keeps the contextual type of the assertion.
        while let Some(inner) = const_assertion(v) {
            v = skip_parens(inner);
        }
        if v.kind_name() == "object" && !matches!(ctx, Expr::Unknown | Expr::Global) {
            self.obj_ctx.insert(v.id(), ctx);
        }
    }

    /// Properties of an object literal with a contextual type: tsserver
    /// defines `{ pipe() {} }` in a `const p: Pipeable = …` at the
    /// contextual type's member, and lists it among that member's
    /// references. Shorthand properties are defined at their local value.
    fn object_sites(&mut self, n: Node<'s>, ctx: Expr) {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            let key = match k.kind_name() {
                "pair" => k.field("key"),
                "method_definition" => k.field("name"),
                _ => None,
            };
            let Some(key) = key.filter(|k| k.kind_name() == "property_identifier") else {
                continue;
            };
            let name = self.text(key);
            let member = self.member_of(&ctx, name);
            self.site(key, SiteKind::Ref, NS_VALUE, member.clone());
            // A function there takes the parameters the member's function
            // type declares (`handler: RouteHandlerMethod`).
            let function = match k.kind_name() {
                "method_definition" => Some(k),
                _ => k
                    .field("value")
                    .map(skip_parens)
                    .filter(|v| matches!(v.kind_name(), "arrow_function" | "function_expression")),
            };
            if let Some(f) = function {
                self.cb_ctx
                    .entry(f.id())
                    .or_insert((member.clone(), SIGNATURE));
            }
            if let Some(v) = k.field("value") {
                self.expect_object(v, member);
            }
        }
    }

    /// `{ a: x, b, c() {} }`: each property's value, by name.
    fn object_lit(&mut self, n: Node<'s>) -> Expr {
        let mut lit = ObjectLit {
            props: Vec::new(),
            open: false,
        };
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        for k in kids {
            let (key, value) = match k.kind_name() {
                "pair" => {
                    let (Some(key), Some(v)) = (k.field("key"), k.field("value")) else {
                        continue;
                    };
                    let e = self.expr(v);
                    (key, e)
                }
                "method_definition" => {
                    let Some(key) = k.field("name") else { continue };
                    (key, Expr::Unknown)
                }
                "shorthand_property_identifier" => {
                    let name = self.text(k);
                    let e = self.lookup_expr(name, NS_VALUE);
                    (k, e)
                }
                "comment" => continue,
                _ => {
                    lit.open = true;
                    continue;
                }
            };
            let Some(name) = self.prop_key(key) else {
                lit.open = true;
                continue;
            };
            let nm = self.intern(name);
            lit.props.push((nm, value));
        }
        Expr::Object(Box::new(lit))
    }

    /// The name a property key gives (`a`, `0`, `"a"`); `None` for a
    /// computed key, whose name is not known.
    fn prop_key(&self, key: Node<'s>) -> Option<&'s str> {
        match key.kind_name() {
            "property_identifier" | "shorthand_property_identifier" | "number" => {
                Some(self.text(key))
            }
            "string" => self.string_value(key).map(|(t, _)| t),
            _ => None,
        }
    }

    /// A parameter's or field's object type literal (`{ router }: {
    /// router: Router }`, `o: { status: ParseStatus }`) as an object whose
    /// properties have the declared types: tsserver defines a member of it
    /// at the property signature (no node), and a property's value is a
    /// receiver. `None` for any other type, and for
    /// a literal with call or construct signatures (a function type).
    fn type_literal(&mut self, t: Node<'s>) -> Option<Expr> {
        let t = bare_type(t);
        if t.kind_name() != "object_type" {
            return None;
        }
        let mut lit = ObjectLit {
            props: Vec::new(),
            open: false,
        };
        let mut c = t.walk();
        let kids: Vec<Node> = t.named_children(&mut c).collect();
        for k in kids {
            let value = match k.kind_name() {
                "property_signature" => match k.field("type") {
                    Some(ty) => self.type_value(ty),
                    None => Expr::Unknown,
                },
                "method_signature" => Expr::Unknown,
                "call_signature" | "construct_signature" => return None,
                "comment" => continue,
                _ => {
                    lit.open = true;
                    continue;
                }
            };
            let Some(key) = k.field("name") else {
                lit.open = true;
                continue;
            };
            let Some(name) = self.prop_key(key) else {
                lit.open = true;
                continue;
            };
            let nm = self.intern(name);
            lit.props.push((nm, value));
        }
        Some(Expr::Object(Box::new(lit)))
    }

    /// The class a type names (for `extends`/`implements` and instances).
    fn type_name(&mut self, t: Node<'s>) -> Expr {
        match t.kind_name() {
            "type_identifier" | "identifier" => {
                let name = self.text(t);
                self.lookup_expr(name, NS_TYPE)
            }
            "nested_type_identifier" => self.nested_type(t),
            _ => Expr::Unknown,
        }
    }

    /// `a.b.C` in a type: `Member(Member(a, b), C)`.
    fn nested_type(&mut self, t: Node<'s>) -> Expr {
        let module = t.field("module");
        let name = t.field("name");
        let (Some(m), Some(nm)) = (module, name) else {
            return Expr::Unknown;
        };
        let base = self.nested_module(m);
        let text = self.text(nm);
        self.member_of(&base, text)
    }

    /// The qualifiers of a type name (`A` and `B` in `A.B.C`) reference the
    /// namespaces they name.
    fn qualifier_sites(&mut self, m: Node<'s>) {
        let mut e = self.nested_module(m);
        if is_dead(&e) {
            if let Some(free) = self.free_path(m) {
                e = free;
            }
        }
        match m.kind_name() {
            "identifier" => {
                if matches!(e, Expr::Def(_) | Expr::Import(_) | Expr::Free(_)) {
                    self.site(m, SiteKind::Ref, NS_TYPE, e);
                }
            }
            "nested_identifier" | "member_expression" => {
                let o = m.field("object").or_else(|| m.named_child(0));
                let p = m
                    .field("property")
                    .or_else(|| m.named_child(m.named_child_count().saturating_sub(1) as u32));
                if let (Some(o), Some(p)) = (o, p) {
                    if matches!(e, Expr::Member(..)) {
                        self.site(p, SiteKind::Ref, NS_TYPE, e);
                    }
                    self.qualifier_sites(o);
                }
            }
            _ => {}
        }
    }

    fn nested_module(&mut self, m: Node<'s>) -> Expr {
        match m.kind_name() {
            "identifier" => {
                if let Some(spec) = self.rewritten_import(m) {
                    return Expr::Require(spec);
                }
                let t = self.text(m);
                if let Some(Binding::Def(d)) = self.lookup(t, NS_TYPE) {
                    if self.namespaces.contains(&d) {
                        return Expr::Def(d);
                    }
                }
                self.lookup_expr(t, NS_ANY)
            }
            "nested_identifier" | "member_expression" => {
                let (Some(o), Some(p)) = (
                    m.field("object").or_else(|| m.named_child(0)),
                    m.field("property")
                        .or_else(|| m.named_child(m.named_child_count().saturating_sub(1) as u32)),
                ) else {
                    return Expr::Unknown;
                };
                let base = self.nested_module(o);
                let text = self.text(p);
                self.member_of(&base, text)
            }
            _ => Expr::Unknown,
        }
    }

    /// An `import('./HKT')` that [`import_type_arguments`] made one
    /// identifier: its module specifier (also a module site), read from
    /// the original source.
    fn rewritten_import(&mut self, m: Node<'s>) -> Option<u32> {
        let range = m.byte_range();
        let text = self.original.get(range.clone())?;
        if self.src.get(range.clone())? == text || !text.starts_with(b"import(") {
            return None;
        }
        let q = skip_ws(text, 7);
        let quote = *text.get(q)?;
        let len = memchr::memchr(quote, text.get(q + 1..)?)?;
        let spec = std::str::from_utf8(&text[q + 1..q + 1 + len]).ok()?;
        let id = self.intern_spec(spec);
        if self.rewritten.insert(range.start) {
            let start = m.start_position();
            let pos = Pos {
                line: start.row as u32 + 1,
                column: (start.column + q + 2) as u32,
            };
            self.refs.modules.push((pos, id));
        }
        Some(id)
    }

    /// The value something annotated with type `t` holds.
    fn type_value(&mut self, t: Node<'s>) -> Expr {
        if self.too_deep_here() {
            return Expr::Unknown;
        }
        self.depth += 1;
        let e = self.type_value_node(t);
        self.depth -= 1;
        e
    }

    fn type_value_node(&mut self, t: Node<'s>) -> Expr {
        match t.kind_name() {
            "type_annotation" | "parenthesized_type" | "opting_type_annotation" => {
                match t.named_child(0) {
                    Some(c) => self.type_value(c),
                    None => Expr::Unknown,
                }
            }
            "type_identifier" | "nested_type_identifier" => {
                if t.kind_name() == "type_identifier" {
                    let name = self.text(t);
                    if let Some(Binding::TypeParam(i)) = self.lookup(name, NS_TYPE) {
                        return self.constraints[i as usize].clone();
                    }
                }
                let e = self.type_name(t);
                instance(e)
            }
            "generic_type" => {
                let Some(name) = t.field("name") else {
                    return Expr::Unknown;
                };
                let text = self.text(name);
                let map = MAPS.contains(&text);
                if name.kind_name() == "type_identifier"
                    && (COLLECTIONS.contains(&text) || map)
                    && self.lookup(text, NS_TYPE).is_none()
                {
                    let arg = t
                        .field("type_arguments")
                        .and_then(|a| a.named_child(u32::from(map)));
                    return match arg.map(|a| self.type_value(a)) {
                        Some(e) if !matches!(e, Expr::Unknown | Expr::Global) => elements(e),
                        _ => Expr::Global,
                    };
                }
                if name.kind_name() == "type_identifier"
                    && (SAME_MEMBERS.contains(&text) || AWAITED.contains(&text))
                    && self.lookup(text, NS_TYPE).is_none()
                {
                    let arg = t.field("type_arguments").and_then(|a| a.named_child(0));
                    return match arg {
                        Some(a) => self.type_value(a),
                        None => Expr::Unknown,
                    };
                }
                let e = self.type_name(name);
                instance(e)
            }
            "union_type" => {
                let mut leaves = Vec::new();
                union_leaves(t, self.src, &mut leaves);
                if leaves.len() == 1 {
                    self.type_value(leaves[0])
                } else {
                    Expr::Unknown
                }
            }
            // `A & B`: a value of `A` as far as `A` goes (a member only `B`
            // has is not found, never misplaced: what both have is the
            // same declaration, or both are where tsserver defines it).
            // With no part of a known type, but one outside the repository
            // or an object type literal (`Extract<A, B> & { init(): void }`),
            // no member is an in-repo definition: `Global`, not a guess.
            "intersection_type" => {
                let mut c = t.walk();
                let parts: Vec<Node> = t.named_children(&mut c).collect();
                let mut outside = false;
                for p in parts {
                    match self.type_value(p) {
                        Expr::Global => outside = true,
                        Expr::Unknown => outside |= is_object_type(p),
                        e => return e,
                    }
                }
                if outside {
                    Expr::Global
                } else {
                    Expr::Unknown
                }
            }
            // `T["k"]`: the property `k` of a `T`.
            "lookup_type" => {
                let (Some(obj), Some(idx)) = (t.named_child(0), t.named_child(1)) else {
                    return Expr::Unknown;
                };
                let key = match idx.kind_name() {
                    "literal_type" => idx.named_child(0).filter(|s| s.kind_name() == "string"),
                    _ => None,
                };
                let Some((name, _)) = key.and_then(|k| self.string_value(k)) else {
                    return Expr::Unknown;
                };
                let base = self.type_value(obj);
                self.member_of(&base, name)
            }
            "type_query" => match t.named_child(0) {
                Some(c) => self.expr(c),
                None => Expr::Unknown,
            },
            // Polymorphic `this` (`min(n: number): this`): the class or
            // interface declaring it; a call through a receiver gives the
            // receiver (resolver).
            "this_type" => match self.this_class {
                Some(c) => Expr::This(c),
                None => Expr::Unknown,
            },
            // A function: what a call of it gives, when that is known.
            "function_type" => match t.field("return_type") {
                Some(r) if r.kind_name() == "type_predicate" => {
                    returns(self.predicate(r, signature_params(t)))
                }
                Some(r) => returns(self.type_value(r)),
                None => Expr::Global,
            },
            // Call signatures (`{ <A>(self: X<A>): X<A>; (n: number): … }`,
            // effect's dual APIs): the first one whose result is no
            // function, as a call used as a receiver must be.
            "object_type" => {
                let mut c = t.walk();
                let sigs: Vec<Node> = t
                    .named_children(&mut c)
                    .filter(|m| m.kind_name() == "call_signature")
                    .collect();
                let ret = sigs.iter().find_map(|sig| {
                    let r = sig.field("return_type")?;
                    let ty = if r.kind_name() == "type_annotation" {
                        r.named_child(0)?
                    } else {
                        r
                    };
                    (ty.kind_name() != "function_type").then_some(ty)
                });
                match ret {
                    Some(r) => returns(self.type_value(r)),
                    None => Expr::Unknown,
                }
            }
            "array_type" => match t.named_child(0).map(|e| self.type_value(e)) {
                Some(e) if !matches!(e, Expr::Unknown | Expr::Global) => elements(e),
                _ => Expr::Global,
            },
            // `readonly Opt[]`: an array all the same.
            "readonly_type" => match t.named_child(0) {
                Some(inner) if inner.kind_name() == "array_type" => self.type_value(inner),
                _ => Expr::Global,
            },
            "predefined_type"
            | "tuple_type"
            | "literal_type"
            | "template_literal_type"
            | "constructor_type"
            // A boolean (a type guard's, where its parameters are not in
            // view: see [`Walker::predicate`]).
            | "type_predicate"
            | "type_predicate_annotation"
            | "asserts"
            | "asserts_annotation" => Expr::Global,
            _ => Expr::Unknown,
        }
    }
}

/// A function whose calls give `e`.
fn returns(e: Expr) -> Expr {
    match e {
        Expr::Unknown | Expr::Global => Expr::Global,
        e => Expr::Returns(Box::new(e)),
    }
}

/// `static m() {}` in a class body.
fn is_static(m: Node<'_>) -> bool {
    has_keyword_before_name(m, "static")
}

/// `get name() {}` (a `get` keyword before the name).
fn is_getter(m: Node<'_>) -> bool {
    has_keyword_before_name(m, "get")
}

/// Whether keyword `kw` comes before the name of member `m`.
fn has_keyword_before_name(m: Node<'_>, kw: &str) -> bool {
    let mut c = m.walk();
    let found = m
        .children(&mut c)
        .take_while(|k| k.kind_name() != "property_identifier")
        .any(|k| k.kind_name() == kw);
    found
}

/// An array of `e`s.
fn elements(e: Expr) -> Expr {
    Expr::Elements(Box::new(e))
}

/// `new e` / `: e` as a value.
fn instance(e: Expr) -> Expr {
    match e {
        Expr::Unknown => Expr::Unknown,
        Expr::Global => Expr::Global,
        e => Expr::Instance(Box::new(e)),
    }
}

/// Can this target never be an in-repo definition (rooted at a global)?
fn is_dead(e: &Expr) -> bool {
    match e {
        Expr::Global => true,
        Expr::Member(b, _) | Expr::Call(b) | Expr::Instance(b) => is_dead(b),
        _ => false,
    }
}

/// The position of byte `offset` of a comment starting at `start`.
fn doc_pos(text: &str, start: tree_sitter::Point, offset: usize) -> Pos {
    let before = &text[..offset];
    match before.rfind('\n') {
        Some(nl) => Pos {
            line: start.row as u32 + 1 + before.matches('\n').count() as u32,
            column: (offset - nl) as u32,
        },
        None => Pos {
            line: start.row as u32 + 1,
            column: (start.column + offset) as u32 + 1,
        },
    }
}

/// An object type literal with properties only (no call or construct
/// signature: that would be a function type).
fn is_object_type(t: Node) -> bool {
    let mut c = t.walk();
    t.kind_name() == "object_type"
        && !t
            .named_children(&mut c)
            .any(|m| matches!(m.kind_name(), "call_signature" | "construct_signature"))
}

/// `(0, m.f)` in `(0, m.f)(x)`, the call compiled CommonJS makes of an
/// imported function (tsc, Babel: called without `m` as `this`): `m.f`, the
/// function called; any other callee as it is.
fn indirect_callee(f: Node<'_>) -> Node<'_> {
    let seq = (f.kind_name() == "parenthesized_expression")
        .then(|| f.named_child(0))
        .flatten()
        .filter(|s| s.kind_name() == "sequence_expression" && s.named_child_count() == 2);
    match seq.and_then(|s| s.named_child(0).zip(s.named_child(1))) {
        Some((zero, callee))
            if zero.kind_name() == "number"
                && matches!(callee.kind_name(), "identifier" | "member_expression") =>
        {
            callee
        }
        _ => f,
    }
}

/// The `/** … */` just before parenthesized expression `n`, a JSDoc cast
/// (`/** @type {Batch} */ (current_batch)`) when it has a `@type`.
fn cast_comment<'t>(n: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    n.prev_sibling()
        .filter(|c| c.kind_name() == "comment" && src[c.start_byte()..].starts_with(b"/**"))
}

/// The `/** … */` comment just before a function, declaration or
/// assignment, or before the declaration, assignment, property or export
/// whose value it is (other comments between are passed over).
fn doc_comment_of<'t>(f: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    let mut n = f;
    for _ in 0..5 {
        // The nearest `/** … */` of the comments just before (an
        // `// eslint-disable-next-line` may stand between).
        let mut p = n.prev_sibling();
        let mut comments = false;
        while let Some(c) = p.filter(|c| c.kind_name() == "comment") {
            if src[c.start_byte()..].starts_with(b"/**") {
                return Some(c);
            }
            comments = true;
            p = c.prev_sibling();
        }
        if comments {
            return None;
        }
        let parent = n.parent()?;
        if !matches!(
            parent.kind_name(),
            "variable_declarator"
                | "lexical_declaration"
                | "variable_declaration"
                | "assignment_expression"
                | "expression_statement"
                | "export_statement"
                | "pair"
                | "parenthesized_expression"
        ) {
            return None;
        }
        n = parent;
    }
    None
}

/// Whether statement `n` never completes normally: a `return`, `throw`,
/// `break` or `continue`, or a block ending in one.
fn always_leaves(n: Node) -> bool {
    match n.kind_name() {
        "return_statement" | "throw_statement" | "break_statement" | "continue_statement" => true,
        "statement_block" => {
            let mut c = n.walk();
            let last = n
                .named_children(&mut c)
                .filter(|k| k.kind_name() != "comment")
                .last();
            last.is_some_and(always_leaves)
        }
        _ => false,
    }
}

/// Whether type `t` mentions the type named `name` (`Ctor<T>`, `T[]`).
fn names_type(t: Node, name: &str, src: &[u8]) -> bool {
    if t.kind_name() == "type_identifier" {
        return t.utf8_text(src).is_ok_and(|x| x == name);
    }
    let mut c = t.walk();
    let kids: Vec<Node> = t.named_children(&mut c).collect();
    kids.into_iter().any(|k| names_type(k, name, src))
}

fn skip_parens(n: Node) -> Node {
    let mut n = n;
    while n.kind_name() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// The declaration inside `export …` / `declare …`.
fn unwrap_decl(s: Node) -> Node {
    let mut s = s;
    while let Some(d) = unwrap_step(s) {
        s = d;
    }
    s
}

/// One wrapper of [`unwrap_decl`] taken off, if `s` is one.
fn unwrap_step(s: Node) -> Option<Node> {
    match s.kind_name() {
        "export_statement" => s.field("declaration"),
        // `namespace N {}` at statement level parses as an expression.
        "expression_statement" => s
            .named_child(0)
            .filter(|d| matches!(d.kind_name(), "internal_module" | "module")),
        "ambient_declaration" => {
            let mut c = s.walk();
            let inner = s.named_children(&mut c).find(|k| {
                k.kind_name().ends_with("declaration")
                    || matches!(
                        k.kind_name(),
                        "function_signature" | "internal_module" | "module"
                    )
            });
            inner
        }
        _ => None,
    }
}

/// Where a declaration stands: whether it is exported, and the node whose
/// lines it spans (its `export` wrapper), as [`Walker::is_exported`] and
/// [`Walker::outer`] find them by walking up from it.
#[derive(Clone, Copy)]
struct Placed<'t> {
    exported: bool,
    outer: Node<'t>,
}

/// [`unwrap_decl`] of a block's statement, placed from the wrappers it went
/// through rather than by asking for parents (tree-sitter finds a parent by
/// descending from the root past every earlier sibling: `is_exported` was
/// 2% of effect's cold index). Above the statement is its block, neither an
/// export nor an ambient declaration, where walking up stops.
fn unwrap_placed(s: Node) -> (Node, Placed) {
    let (mut d, mut outer, mut exported) = (s, s, false);
    while let Some(inner) = unwrap_step(d) {
        // `d` is a wrapper above the declaration. Walking up, the first
        // wrapper that is not `declare` decides the export, and `outer`
        // climbs through the unbroken run of export/declare wrappers.
        match d.kind_name() {
            "export_statement" => exported = true,
            "ambient_declaration" => {}
            _ => {
                exported = false;
                outer = inner;
            }
        }
        d = inner;
    }
    (d, Placed { exported, outer })
}

/// `require('x')`: the string node.
fn require_arg<'t>(n: Node<'t>, src: &[u8]) -> Option<Node<'t>> {
    if n.kind_name() != "call_expression" {
        return None;
    }
    let f = n.field("function")?;
    if f.kind_name() != "identifier" || f.utf8_text(src).ok()? != "require" {
        return None;
    }
    first_string_arg(n.field("arguments")?)
}

fn first_string_arg(args: Node) -> Option<Node> {
    let first = args.named_child(0)?;
    (first.kind_name() == "string").then_some(first)
}

/// `e as const`: `e`.
fn const_assertion(n: Node) -> Option<Node> {
    if n.kind_name() != "as_expression" {
        return None;
    }
    let mut c = n.walk();
    let is_const = n
        .children(&mut c)
        .last()
        .is_some_and(|k| k.kind_name() == "const");
    is_const.then(|| n.named_child(0)).flatten()
}

/// The parameters of a function type, without a `this` parameter; `None`
/// with a rest parameter (its arity is open).
/// Type `t` without the annotation (`: T`, `?: T`) and parentheses around
/// it; an empty wrapper (broken code) is returned as it is.
fn bare_type(mut t: Node) -> Node {
    while let ("type_annotation" | "opting_type_annotation" | "parenthesized_type", Some(c)) =
        (t.kind_name(), t.named_child(0))
    {
        t = c;
    }
    t
}

fn signature_params(t: Node) -> Option<Vec<Node>> {
    let ps = t.field("parameters")?;
    let mut c = ps.walk();
    let mut out = Vec::new();
    for k in ps.named_children(&mut c) {
        match k.kind_name() {
            "required_parameter" | "optional_parameter" => {
                let pat = k.field("pattern");
                if pat.is_some_and(|x| x.kind_name() == "this") {
                    continue;
                }
                if pat.is_some_and(|x| x.kind_name() == "rest_pattern") {
                    return None;
                }
                out.push(k);
            }
            "comment" => {}
            _ => return None,
        }
    }
    Some(out)
}

/// The number of parameters of a function argument when none is typed
/// (else `None`: its own types apply).
fn untyped_arity(f: Node) -> Option<usize> {
    if f.field("parameter").is_some() {
        return Some(1);
    }
    let ps = f.field("parameters")?;
    let mut c = ps.walk();
    let mut n = 0;
    for k in ps.named_children(&mut c) {
        match k.kind_name() {
            "required_parameter" | "optional_parameter" => {
                if k.field("type").is_some()
                    || k.field("pattern")
                        .is_some_and(|x| x.kind_name() == "rest_pattern")
                {
                    return None;
                }
                n += 1;
            }
            "comment" => {}
            _ => return None,
        }
    }
    Some(n)
}

fn union_leaves<'t>(t: Node<'t>, src: &[u8], out: &mut Vec<Node<'t>>) {
    let mut c = t.walk();
    for k in t.named_children(&mut c) {
        match k.kind_name() {
            "union_type" => union_leaves(k, src, out),
            "literal_type" => {
                let txt = k.utf8_text(src).unwrap_or("");
                if txt != "null" && txt != "undefined" {
                    out.push(k);
                }
            }
            "predefined_type" => {
                let txt = k.utf8_text(src).unwrap_or("");
                if txt != "undefined" && txt != "null" && txt != "void" {
                    out.push(k);
                }
            }
            _ => out.push(k),
        }
    }
}

fn pattern_names<'t>(p: Node, src: &'t [u8], out: &mut Vec<&'t str>) {
    match p.kind_name() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            if let Ok(t) = p.utf8_text(src) {
                out.push(t);
            }
        }
        "pair_pattern" => {
            if let Some(v) = p.field("value") {
                pattern_names(v, src, out);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(v) = p.field("left") {
                pattern_names(v, src, out);
            }
        }
        _ => {
            let mut c = p.walk();
            for k in p.named_children(&mut c) {
                pattern_names(k, src, out);
            }
        }
    }
}
