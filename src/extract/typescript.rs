//! TypeScript, TSX and JavaScript: Tree-sitter → definitions, scope and reference sites.
//!
//! One parse and one scope-tracking walk per file ([`walk`]). Every name a
//! reference site uses is bound *here*, by the language's own scope rules
//! (block scoping, hoisting, shadowing, separate value and type spaces,
//! imports), into an [`Expr`]: a small description of the value the site
//! refers to (`Import(3)`, `Member(Var(2), "refund")`, `Instance(Def(5))`).
//! The resolver later evaluates these expressions across files (module
//! specifiers, exports, re-exports, class members, base classes, field and
//! return types). A name bound nowhere in the file is a global
//! ([`Expr::Global`]) and is never guessed to be another module's definition.

mod jsdoc;
mod walk;
#[cfg(test)]
use walk::walk_fix_for_tests;

use serde::{Deserialize, Serialize};

use super::{FileFacts, Lang, LangRefs, LangScope};
use crate::graph::Pos;

/// Index into [`Scope::names`].
pub type Name = u32;

/// The name of the default export.
pub const DEFAULT: &str = "default";
/// The name of `export =` / `module.exports =`.
pub const EXPORT_EQUALS: &str = "=";

/// Namespace bits: TypeScript keeps values and types apart.
pub const NS_VALUE: u8 = 1;
pub const NS_TYPE: u8 = 2;
pub const NS_ANY: u8 = NS_VALUE | NS_TYPE;
/// Export flag: a property of a CommonJS `module.exports = { … }` object.
/// tsserver defines such a name at the property, and when it is called at
/// the function too, so only calls to functions get edges.
pub const CJS_PROPERTY: u8 = 4;
/// Export flag: a definition made at the property (`exports.f = function
/// () {}`), which is where tsserver defines a destructured CommonJS name.
pub const AT_PROPERTY: u8 = 16;
/// Site flag: a name destructured from a `require()` (`const { f } =
/// require('./m')`), which tsserver defines at the exporting property: an
/// edge only to a definition made there ([`AT_PROPERTY`]).
pub const DESTRUCTURED: u8 = 32;

/// What a name or expression denotes, as far as one file can tell.
/// `Var`, `Import`, `Def`, `This`, `Super` indexes are into the file's own
/// [`Scope`] / definitions, so an `Expr` is evaluated in its file's context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    /// Bound locally, but to nothing known (an untyped parameter, a `?:`).
    /// A method called on it may be guessed by name.
    Unknown,
    /// Not declared in the file (a global such as `console`), a literal, an
    /// array or a builtin type: never an in-repo definition.
    Global,
    /// A definition of this file. `Def(0)`, the module, is a CommonJS
    /// file's own `exports` (`exports.f()`): its exports are its members.
    Def(u32),
    /// An import binding ([`Scope::imports`]).
    Import(u32),
    /// A local variable ([`Scope::vars`]).
    Var(u32),
    /// `this` in the class (or interface) definition given.
    This(u32),
    /// `super` in the class given: its base class.
    Super(u32),
    /// `require('spec')`: the module's `module.exports`.
    Require(u32),
    /// `obj.name`.
    Member(Box<Expr>, Name),
    /// The result of calling the expression.
    Call(Box<Expr>),
    /// An instance of the class the inner expression names (`new X()`, `: X`).
    Instance(Box<Expr>),
    /// An object literal (`{ a: x, b }`). Kept last: blobs written before
    /// it existed still decode.
    Object(Box<ObjectLit>),
    /// A function known by its type (`(a: A) => B`, a call signature): a
    /// call of it gives the inner value.
    Returns(Box<Expr>),
    /// Parameter `.2` of the callback passed as argument `.1` to the callee
    /// (`refine((val, ctx) => …)`): the type the callee declares for it
    /// (a [`Field`] of the callee named [`callback_param`]).
    Param(Box<Expr>, u16, u16),
    /// One of these types (the constituents of `type Option<A> = None<A> |
    /// Some<A>`, as a base of the alias): a member is the one every
    /// constituent has, the same declaration.
    Union(Vec<Expr>),
    /// An array or set whose elements are the inner value (`Option[]`,
    /// `Array<Option>`, JSDoc `{Option[]}`). An element is written
    /// `Param(Member(array, "forEach"), 0, 0)`: the first parameter of a
    /// `forEach` callback (also what `for (const x of array)` binds).
    Elements(Box<Expr>),
    /// An instance of the type the callee declares for its argument `.1`
    /// (`route(opts: RouteOptions)`: what an object literal passed there
    /// is checked against, its functions' parameters typed by it).
    Arg(Box<Expr>, u16),
    /// What a type guard returns (`(x: unknown): x is Foo`): a boolean
    /// that, when true, says its parameter `.0` holds a `.1`.
    Guard(u16, Box<Expr>),
    /// A local where a call `callee(…, x, …)` with `x` its argument `.1`
    /// was found true (`if (isFoo(x)) x.m()`): what the callee's
    /// [`Expr::Guard`] for that argument says, else `.2`, the local's
    /// value before.
    Narrowed(Box<Expr>, u16, Box<Expr>),
    /// A name in a type (or a JSDoc type) that the file does not declare:
    /// a global one of the repository's declaration files (`App.Locals`
    /// of `declare global { namespace App { … } }`), else outside it. Only
    /// a site's target: types are [`Expr::Global`] for the inference.
    Free(Name),
}

/// The argument index under which a function type alias (`type Handler =
/// (req: Req) => void`) records its own parameters' types, as a function
/// records those of a function-typed parameter ([`callback_param`]): a
/// function expression declared a `Handler` takes them.
pub const SIGNATURE: u16 = u16::MAX;

/// The [`Field`] name under which a function or method records the
/// declared type of parameter `param` of its function-typed parameter
/// `arg` (no identifier looks like it).
pub fn callback_param(arg: u16, param: u16) -> String {
    format!("({arg}).{param}")
}

/// The [`Field`] name under which a function, method or call signature
/// records the named type of its parameter `arg`: a callback passed there
/// takes the parameters of a named function type's [`SIGNATURE`]
/// (`handler: RouteHandlerMethod<…>`), an object literal is checked against
/// a class or interface (`opts: RouteOptions`, [`Expr::Arg`]).
pub fn callback_alias(arg: u16) -> String {
    format!("({arg})")
}

/// The properties of an object literal whose names can be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectLit {
    /// Each named property and its value (`Unknown` for a method).
    pub props: Vec<(Name, Expr)>,
    /// A spread or a computed key: a name not listed may still be there.
    pub open: bool,
}

/// What an import binding takes from its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Imported {
    /// `import { name }`, `const { name } = require()`.
    Named(Name),
    /// `import x from`.
    Default,
    /// `import * as ns`, `export * as ns from`.
    Namespace,
    /// `const x = require()`, `import x = require()`: `module.exports`.
    Module,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub local: Name,
    /// Index into [`Scope::specs`].
    pub spec: u32,
    pub what: Imported,
}

/// One exported name and what it denotes in this file (re-exports are
/// exports of an [`Expr::Import`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    pub name: Name,
    /// [`NS_VALUE`] / [`NS_TYPE`] bits, and [`CJS_PROPERTY`].
    pub ns: u8,
    pub target: Expr,
}

/// A class or interface: what `extends` names (in this file's context).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassInfo {
    pub def: u32,
    pub bases: Vec<Expr>,
}

/// A typed or initialised property of a class, interface or object type that
/// is not itself a definition (`private gw: Gateway`, `gw = new Stripe()`);
/// for a function or method, the declared parameter types of the callbacks
/// it takes ([`callback_param`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    pub class: u32,
    pub name: Name,
    pub value: Expr,
}

/// A module specifier.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec {
    pub text: String,
    /// Re-exported wholesale: `export * from`.
    pub star: bool,
    /// Named by a `require()` call (see `Modules::resolve_require`).
    #[serde(default)]
    pub require: bool,
}

/// What other files' resolution may read from this file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Scope {
    /// Interned identifiers used by every other table.
    pub names: Vec<String>,
    /// Module specifiers as written (`./stripe`, `@shop/auth`).
    pub specs: Vec<Spec>,
    pub imports: Vec<Import>,
    /// Sorted by name text.
    pub exports: Vec<Export>,
    /// Value of each local variable (its annotated type's instance, else its
    /// initialiser).
    pub vars: Vec<Expr>,
    /// Sorted by `def`.
    pub classes: Vec<ClassInfo>,
    /// Sorted by `class`.
    pub fields: Vec<Field>,
    /// Declared (or single-expression) return value per function, sorted by def.
    pub returns: Vec<(u32, Expr)>,
    /// Members that are getters (`get view(): View`), sorted: reading one
    /// gives its return value.
    pub getters: Vec<u32>,
    /// JavaScript: names assigned on a class itself (`C.set = function …`,
    /// a static), sorted by class. `C.set` is that static, which is no
    /// node, even where a prototype method has the same name.
    pub statics: Vec<(u32, Name)>,
    /// A namespace's `export { a as b }` (fastify's `export { fastify as
    /// default }`): the namespace, the name it exports and what that names,
    /// sorted by namespace. `N.b` is `a` itself, not a property of `N`.
    pub ns_exports: Vec<(u32, Name, Expr)>,
    /// Type aliases of a value's type (`type Fastify = typeof fastify`),
    /// sorted by alias: a value of the alias is that value.
    pub typeofs: Vec<(u32, Expr)>,
    /// The ambient modules the file declares (`declare module '@sveltejs/kit'
    /// { export interface RequestEvent … }`), in order.
    pub ambient: Vec<AmbientModule>,
    /// The global declarations the file makes: the top-level ones of a
    /// declaration file that is no module (`declare namespace App`), and
    /// those in `declare global { … }`. In order.
    pub globals: Vec<(Name, u32)>,
}

/// `declare module 'spec' { … }`: what importing `spec` gives, where no
/// file of the repository is that module.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmbientModule {
    /// The module's name as written, without quotes.
    pub spec: String,
    /// Sorted by name text.
    pub exports: Vec<Export>,
}

impl Scope {
    pub fn name(&self, n: Name) -> &str {
        &self.names[n as usize]
    }
}

/// How a site uses what it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SiteKind {
    Call,
    Ref,
    Extends,
    Implements,
}

/// One reference site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// Start of the referencing identifier.
    pub pos: Pos,
    /// Innermost enclosing definition.
    pub src: u32,
    pub kind: SiteKind,
    /// Which namespace the name is looked up in ([`NS_VALUE`], [`NS_TYPE`], both).
    pub ns: u8,
    pub target: Expr,
}

/// Reference sites, read only when resolving this file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Refs {
    pub sites: Vec<Site>,
    /// Module specifier strings (`imports` edges): position of the path
    /// text and index into [`Scope::specs`].
    pub modules: Vec<(Pos, u32)>,
}

/// Is this path a test file by the usual JS conventions?
pub fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.contains(".test.")
        || file.contains(".spec.")
        || path.starts_with("__tests__/")
        || path.contains("/__tests__/")
}

pub fn extract(lang: Lang, path: &str, src: &[u8]) -> FileFacts {
    let (defs, diagnostics, ref_names, scope, refs) = walk::run(lang, path, src);
    FileFacts {
        defs,
        diagnostics,
        ref_names,
        scope: LangScope::Script(scope),
        refs: LangRefs::Script(refs),
    }
}

#[cfg(test)]
mod tests;
