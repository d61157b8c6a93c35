//! python: Tree-sitter → definitions, scope and reference sites.
//!
//! One parse and one tree walk per file. The walk tracks Python's scopes
//! (module, class, function, lambda, comprehension) and records every
//! expression that names something as a [`Chain`] (`a.b(c).d`: a root name
//! and a list of attribute/call/index operations). Bare names are bound to
//! their scope at the end of the walk, when every binding of every function
//! is known (an assignment anywhere in a function makes a name local to all
//! of it). What other files need — imports, `__all__`, module variables,
//! class bases and attribute types, return annotations, pytest fixtures — is
//! in [`Scope`]; the rest is in [`Refs`].

use std::cell::RefCell;
use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser};

use super::syntax::{self, Syntax};

use super::{module_def, syntax_diagnostics, Def, FileFacts, LangRefs, LangScope};
use crate::graph::{NodeKind, Pos};

/// What other files' resolution may read from this file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Scope {
    /// Every import statement of the file, in any scope (`scope` says which).
    pub imports: Vec<Import>,
    /// `__all__`, when the module declares it with literal strings.
    pub all: Option<Vec<String>>,
    /// Module-level variables (one entry per assignment).
    pub vars: Vec<Var>,
    pub classes: Vec<Class>,
    /// Functions with a return type or decorators that matter.
    pub funcs: Vec<Func>,
    /// Module-level pytest fixtures (def indexes).
    pub fixtures: Vec<u32>,
    /// Definitions in unreachable code (name lookup prefers the others).
    pub dead_defs: Vec<u32>,
    /// Module-level definitions and imports (indexes in `imports`) in an
    /// `except` clause: another module importing the name prefers the
    /// other declarations (pyright's rule for `try: … except ImportError:`
    /// fallbacks).
    pub except_defs: Vec<u32>,
    pub except_imports: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The enclosing definition (0 = module level).
    pub scope: u32,
    /// Leading dots of a relative import.
    pub level: u32,
    /// Dotted module path as written after the dots (may be empty).
    pub module: String,
    pub kind: ImportKind,
    /// The module name's last segment (or the dots of `from . import x`).
    pub module_pos: Pos,
    /// In code pyright considers unreachable (`if sys.platform == "win32":`
    /// on Linux, after a `raise`): binds its names only where nothing
    /// reachable does. Its edges are kept: pyright's find-references lists
    /// sites in unreachable code too.
    pub dead: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImportKind {
    /// `import a.b.c`: binds `a`.
    Plain,
    /// `import a.b.c as d`: binds `d` to `a.b.c`.
    Alias(String),
    /// `from m import name [as alias]`.
    From {
        name: String,
        alias: Option<String>,
        pos: Pos,
        /// The alias, when it repeats the name (`X as X`).
        same_alias: Option<Pos>,
    },
    /// `from m import *`.
    Star,
}

impl Scope {
    /// The same scope with definition indexes renumbered by `map` (old index
    /// → new index; `None`: the definition is gone, shown as `u32::MAX`):
    /// how an edit that inserted or removed definitions compares with the
    /// new scope when only the numbering moved.
    pub fn with_defs_moved(&self, map: &[Option<u32>]) -> Scope {
        let mv = |d: u32| map.get(d as usize).copied().flatten().unwrap_or(u32::MAX);
        let mut s = self.clone();
        for i in &mut s.imports {
            i.scope = mv(i.scope);
        }
        for c in &mut s.classes {
            c.def = mv(c.def);
        }
        for f in &mut s.funcs {
            f.def = mv(f.def);
        }
        for d in s
            .fixtures
            .iter_mut()
            .chain(s.dead_defs.iter_mut())
            .chain(s.except_defs.iter_mut())
        {
            *d = mv(*d);
        }
        s
    }
}

impl Import {
    /// The name this import binds in its scope.
    pub fn bound_name(&self) -> Option<&str> {
        match &self.kind {
            ImportKind::Plain => self.module.split('.').next(),
            ImportKind::Alias(a) => Some(a),
            ImportKind::From { name, alias, .. } => Some(alias.as_deref().unwrap_or(name)),
            ImportKind::Star => None,
        }
    }
}

/// The first segment of a [`TypeRef`] path that starts at `self` / `cls`
/// (not an identifier, so it cannot clash with a name).
pub const SELF_PATH: &str = "@self";
pub const CLS_PATH: &str = "@cls";
/// The path of a [`TypeRef`] to a literal's value (`{}`, `"a"`, `3`,
/// `None`): a builtin type, never an in-repo one.
pub const LITERAL_PATH: &str = "@literal";
/// The path of a [`TypeRef`] to a fixed-size tuple (its `parts`).
pub const TUPLE_PATH: &str = "@tuple";
/// The path of a [`TypeRef`] to a type we cannot name (a tuple's part
/// written as no plain type).
pub const UNKNOWN_PATH: &str = "@unknown";
/// [`TypeRef::path`] of a union of classes: its parts are the types.
pub const UNION_PATH: &str = "@union";

/// What an annotation declares about its principal type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cont {
    /// A value of the type.
    One,
    /// A sequence or iterable of it (`List[X]`, `Iterable[X]`).
    Seq,
    /// A mapping to it (`Dict[K, X]`).
    Map,
    /// Not an annotation: the object the path names itself (`Alias = Foo`
    /// holds the class, not an instance).
    Value,
    /// Not an annotation: the object the path names, subscripted
    /// (`Scope = MutableMapping[str, Any]`, `Alias = Foo[int]`,
    /// `FIRST = ITEMS[0]`).
    Subscript,
    /// Not an annotation: part `i` of unpacking what the path names, or
    /// what calling it returns (`a, b = make()`; `u32::MAX`: a part after
    /// a starred one).
    Unpacked(u32),
    /// A callable returning a value of it (`Callable[[F], X]`).
    Returns,
    /// The class itself (`type[X]`, `Type[X]`): calling it makes an `X`.
    Class,
}

const SEQ_TYPES: [&str; 20] = [
    "List",
    "list",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "Collection",
    "Set",
    "set",
    "FrozenSet",
    "frozenset",
    "AbstractSet",
    "MutableSet",
    "Deque",
    "deque",
    "Generator",
    "AsyncIterator",
    "AsyncIterable",
    "AsyncGenerator",
    "Reversible",
];
/// Context manager types (`typing`, `contextlib`) of what `with` gives.
const CONTEXT_MANAGERS: [&str; 4] = [
    "ContextManager",
    "AsyncContextManager",
    "AbstractContextManager",
    "AbstractAsyncContextManager",
];
/// Builtin types by name: a union part naming one has no in-repo members.
const BUILTIN_TYPES: [&str; 15] = [
    "str",
    "bytes",
    "bytearray",
    "memoryview",
    "int",
    "float",
    "complex",
    "bool",
    "tuple",
    "Tuple",
    "list",
    "dict",
    "set",
    "frozenset",
    "range",
];
const MAP_TYPES: [&str; 8] = [
    "Dict",
    "dict",
    "Mapping",
    "MutableMapping",
    "DefaultDict",
    "defaultdict",
    "OrderedDict",
    "ChainMap",
];

/// A dotted name resolved in the module scope of the file that declares it:
/// an annotation (`call == false`: an instance of the class) or a call
/// (`call == true`: `Foo()` or `make()`'s return type).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeRef {
    pub path: String,
    pub call: bool,
    pub cont: Cont,
    /// A fixed-size tuple's parts (`tuple[Key | None, Item]`, whose path
    /// is [`TUPLE_PATH`]) or a union's ([`UNION_PATH`]); empty for any
    /// other type.
    pub parts: Vec<TypeRef>,
}

impl TypeRef {
    /// A type of parts (a tuple's, a union's).
    fn of_parts(path: &str, cont: Cont, parts: Vec<TypeRef>) -> TypeRef {
        TypeRef {
            path: path.into(),
            call: false,
            cont,
            parts,
        }
    }
}

/// A variable (module level) or attribute (class) and what it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Var {
    pub name: String,
    pub ty: Option<TypeRef>,
    /// Assigned only in code pyright considers unreachable (the `else:` of
    /// `if TYPE_CHECKING:`): a reachable declaration elsewhere comes first.
    pub dead: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    pub def: u32,
    /// Positional base classes as dotted paths (`""` when not a plain path).
    pub bases: Vec<String>,
    /// Class-level variables and `self.x` attributes assigned in methods.
    pub attrs: Vec<Var>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Func {
    pub def: u32,
    pub ret: Option<TypeRef>,
    /// [`PROPERTY`], [`STATIC`], [`CLASSMETHOD`], [`FIXTURE`],
    /// [`SELF_TYPED`], [`OVERLOAD`].
    pub flags: u8,
    /// A function's decorators (not a method's), topmost first. What they
    /// make of the function (`@click.group()` makes a `Group`) is its
    /// value.
    pub decos: Vec<Deco>,
    /// A method's parameters, `self` and separators included, when one
    /// after the first is annotated (else empty): an override whose
    /// parameters match them by name and kind takes the annotation of an
    /// unannotated one (pyright's inference from the base class method).
    pub params: Vec<Param>,
    /// The positions in a call (past `self`) of parameters declared
    /// `type[T]` where the function returns `T` (textual's `def
    /// query_one(self, selector: type[QueryType]) -> QueryType`): given a
    /// class there, a call makes an instance of it.
    #[serde(default)]
    pub type_args: Vec<u16>,
}

/// A parameter as far as matching an override's goes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// Its name; `*` and `/` for the bare separators.
    pub name: String,
    /// [`PARAM_PLAIN`], [`PARAM_ARGS`] (`*args`, a bare `*`) or
    /// [`PARAM_KWARGS`].
    pub kind: u8,
    /// Its annotation (only in [`Func::params`]).
    pub ty: Option<TypeRef>,
}

pub const PARAM_PLAIN: u8 = 0;
pub const PARAM_ARGS: u8 = 1;
pub const PARAM_KWARGS: u8 = 2;

/// A method with an unannotated parameter, which may take its type from the
/// method it overrides ([`Src::Inherited`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodSig {
    pub def: u32,
    /// Every parameter, as in [`Func::params`] (without types).
    pub params: Vec<Param>,
}

/// A decorator, as far as what it makes of a function goes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deco {
    /// The dotted path it calls, looked up in the module (`@click.group()`
    /// and `@click.group` are both `click.group`; `""`: one that is not a
    /// dotted path, or whose first name is not the module's).
    pub path: String,
    /// The dotted path of its `cls=` argument (`@click.command(cls=
    /// AliasedGroup)`), `""` when none: the class a decorator declaring a
    /// TypeVar (`-> Callable[[F], CmdType]`) makes.
    pub cls: String,
}

pub const PROPERTY: u8 = 1;
pub const STATIC: u8 = 2;
pub const CLASSMETHOD: u8 = 4;
pub const FIXTURE: u8 = 8;
/// The return annotation is the first parameter's (`def __enter__(self:
/// T) -> T`, `def create(cls: type[T]) -> T`): a TypeVar there stands for
/// the receiver's class.
pub const SELF_TYPED: u8 = 16;
/// A `@typing.overload` signature: callers see the overloads, never the
/// implementation's own signature.
pub const OVERLOAD: u8 = 32;

/// Reference sites, read only when resolving this file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Refs {
    pub chains: Vec<Chain>,
    /// Type sources of each function/class-local variable.
    pub locals: Vec<Vec<Src>>,
    /// Parameters of tests and fixtures (pytest injects fixtures by name).
    pub fixture_params: Vec<FixtureParam>,
    /// The string entries of `__all__`: references to module-level names.
    pub all_sites: Vec<(String, Pos)>,
    /// Module-level variables with what they are assigned (the resolver of
    /// this file evaluates them fully; other files read `Scope::vars`).
    pub globals: Vec<(String, Src)>,
    /// Fixed-size tuple annotations (`tuple[int, Tag]`): the chain of the
    /// tuple type → its parts' type chains (as [`Src::Annot`]), by chain.
    pub tuples: Vec<(u32, TupleParts)>,
    /// Unions of two or more classes (`A | B`, `Union[A, B]`, an alias of
    /// one): the chain standing for the union → its parts' type chains (as
    /// [`Src::Annot`]), by chain.
    #[serde(default)]
    pub unions: Vec<(u32, Vec<(u32, Cont)>)>,
    /// Methods with unannotated parameters (see [`Src::Inherited`]).
    pub method_sigs: Vec<MethodSig>,
}

/// A fixed-size tuple type's parts: each part's type chain and container
/// (as [`Src::Annot`]), `None` where it is no plain type.
pub type TupleParts = Vec<Option<(u32, Cont)>>;

/// An expression that names something: `root.op.op…`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    /// Innermost enclosing definition.
    pub src: u32,
    pub root: Root,
    /// Start of the root identifier.
    pub pos: Pos,
    pub ops: Vec<Op>,
    /// A base class in a `class` statement: its last name is an `extends`.
    pub extends: bool,
    /// Positional arguments that are names (`query_one(TextArea)`): the
    /// index in `ops` of the call, the argument's position, its chain.
    #[serde(default)]
    pub args: Vec<(u16, u16, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Root {
    /// A module-level name of this file: a definition, an import, a
    /// variable, a star import or a builtin.
    Global(String),
    /// A definition bound in a function or class body of this file.
    Def(u32),
    /// An import inside a function or class body (index in `Scope::imports`).
    Import(u32),
    /// A local variable or parameter (index in `Refs::locals`).
    Local(u32),
    /// `self` (or `cls` when `cls`) of a method of class `class`.
    SelfParam { class: u32, cls: bool },
    /// `super()` in a method of class `class`.
    Super { class: u32 },
    /// A variable narrowed by `isinstance(x, C)`: an instance of the class
    /// the chain `class` names, unless what the variable was before (local
    /// `prior`, `u32::MAX`: not a local) is already a `C`.
    Narrowed { class: u32, prior: u32 },
    /// A literal: its type is not in the repository.
    External,
    /// A binary operator (`path / "x"`): what its left operand's dunder
    /// method (`__truediv__`) returns.
    Binary {
        left: Operand,
        op: BinOp,
        right: Operand,
    },
    /// Anything else (a comparison, a conditional…).
    Unknown,
}

/// An operand of a [`Root::Binary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    Chain(u32),
    /// A literal, or an operator of literals.
    Literal,
    Other,
}

/// A binary operator, by the dunder methods that implement it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    MatMul,
    TrueDiv,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    And,
    Or,
    Xor,
}

impl BinOp {
    fn parse(op: &str) -> Option<BinOp> {
        Some(match op {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "@" => BinOp::MatMul,
            "/" => BinOp::TrueDiv,
            "//" => BinOp::FloorDiv,
            "%" => BinOp::Mod,
            "**" => BinOp::Pow,
            "<<" => BinOp::LShift,
            ">>" => BinOp::RShift,
            "&" => BinOp::And,
            "|" => BinOp::Or,
            "^" => BinOp::Xor,
            _ => return None,
        })
    }

    /// The method of the left operand, and the reflected one of the right.
    pub fn dunders(self) -> (&'static str, &'static str) {
        match self {
            BinOp::Add => ("__add__", "__radd__"),
            BinOp::Sub => ("__sub__", "__rsub__"),
            BinOp::Mul => ("__mul__", "__rmul__"),
            BinOp::MatMul => ("__matmul__", "__rmatmul__"),
            BinOp::TrueDiv => ("__truediv__", "__rtruediv__"),
            BinOp::FloorDiv => ("__floordiv__", "__rfloordiv__"),
            BinOp::Mod => ("__mod__", "__rmod__"),
            BinOp::Pow => ("__pow__", "__rpow__"),
            BinOp::LShift => ("__lshift__", "__rlshift__"),
            BinOp::RShift => ("__rshift__", "__rrshift__"),
            BinOp::And => ("__and__", "__rand__"),
            BinOp::Or => ("__or__", "__ror__"),
            BinOp::Xor => ("__xor__", "__rxor__"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    Attr(String, Pos),
    Call,
    Index,
    /// Subscripting with an integer literal (`pair[1]`).
    Item(u32),
    /// `await`: what awaiting the value gives (the value itself for an
    /// `async def`'s result, whose return type the call gives already).
    Await,
}

/// Where a local variable's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Src {
    /// Assigned the value of a chain.
    Value(u32),
    /// Declared with an annotation (the chain of the annotated type, or of
    /// the element type of a container).
    Annot(u32, Cont),
    /// Assigned a literal (its type is not in the repository).
    External,
    /// An element of iterating a chain (`for x in chain`).
    Iter(u32),
    /// The `i`-th part of an element of iterating a chain
    /// (`for k, v in chain`).
    IterPart(u32, u32),
    /// What entering a context manager returns (`with chain as x`; `true`:
    /// `async with`).
    Enter(u32, bool),
    /// Anything we cannot follow.
    Unknown,
    /// An unannotated parameter of a function (not a method): unknown, and
    /// counted only when nothing else is assigned. pyright narrows it to
    /// what is assigned (`hooks = hooks or {}` is a dict after).
    Param,
    /// The value of one chain or the other (`a if c else b`, `a or b`):
    /// a type when both agree.
    Either(u32, u32),
    /// A builtin copy of a chain's elements (`list(x)`, `sorted(x)`): a
    /// sequence of what `x` holds when it is a sequence, else a builtin
    /// of unknown elements.
    SeqOf(u32),
    /// Part `i` of unpacking a chain's value (`a, b = make()`): an
    /// element of a sequence, that part of a tuple (`u32::MAX`: a part
    /// after a starred one).
    Part(u32, u32),
    /// An unannotated parameter of a method: parameter `i` of
    /// `Refs::method_sigs[s]`, typed by the annotation of the same
    /// parameter of the method it overrides, when their parameters match.
    Inherited(u32, u32),
    /// A list, set or dict literal whose items (a dict's values) are all
    /// made by calling one callee: a builtin sequence (`false`) or mapping
    /// (`true`: a dict) of what the first item's chain is (`{CLIENT:
    /// Connection(CLIENT), SERVER: Connection(SERVER)}`). (A `bool`, not a
    /// [`Cont`]: the variant stays as small as the others.)
    LitOf(u32, bool),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixtureParam {
    pub def: u32,
    pub name: String,
    pub pos: Pos,
}

static LANGUAGE: std::sync::LazyLock<tree_sitter::Language> =
    std::sync::LazyLock::new(|| super::grammar(crate::extract::Lang::Python));

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse(src: &[u8]) -> Option<tree_sitter::Tree> {
    PARSER.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&LANGUAGE).ok()?;
            *p = Some(parser);
        }
        p.as_mut()?.parse(src, None)
    })
}

/// Is this path a test file by pytest's conventions?
pub fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file
        .strip_suffix(".py")
        .or_else(|| file.strip_suffix(".pyi"))
        .unwrap_or(file);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem == "conftest"
        || path
            .split('/')
            .rev()
            .skip(1)
            .any(|d| d == "tests" || d == "test")
}

pub fn extract(path: &str, src: &[u8]) -> FileFacts {
    syntax::walking(crate::extract::Lang::Python);
    let module = module_def(path, src);
    let Some(tree) = parse(src) else {
        return FileFacts {
            defs: vec![module],
            diagnostics: vec![super::Diagnostic {
                pos: Pos { line: 1, column: 1 },
                message: "could not parse the file".into(),
            }],
            ref_names: Vec::new(),
            scope: LangScope::Python(Scope::default()),
            refs: LangRefs::Python(Refs::default()),
        };
    };
    let root = tree.root_node();
    let mut x = Extractor {
        src,
        test_file: is_test_path(path),
        defs: vec![module],
        scope: Scope::default(),
        refs: Refs::default(),
        scopes: vec![ScopeB::new(None, ScopeKind::Module, 0, None)],
        pending: Vec::new(),
        param_uses: Vec::new(),
        chain_at: HashMap::new(),
        names: BTreeSet::new(),
        attr_assigns: Vec::new(),
        var_assigns: Vec::new(),
        module_all: HashMap::new(),
        module_locals: HashMap::new(),
        call_args: Vec::new(),
        class_of_def: HashMap::new(),
        ret_chains: Vec::new(),
        param_chains: Vec::new(),
        deco_scopes: Vec::new(),
        dead: false,
        in_except: false,
        depth: 0,
        class_stmt_end: Pos { line: 0, column: 0 },
        narrowing: Vec::new(),
        narrowed: Vec::new(),
        narrowed_attrs: Vec::new(),
        returns: HashMap::new(),
        annotated_returns: std::collections::HashSet::new(),
        yields: HashMap::new(),
        tuple_parts: HashMap::new(),
        union_parts: HashMap::new(),
    };
    x.block(root, 0, 0);
    x.finish();
    let diagnostics = syntax_diagnostics(root, 20);
    let mut names = std::mem::take(&mut x.names);
    for c in &x.refs.chains {
        for op in &c.ops {
            if let Op::Attr(n, _) = op {
                if !names.contains(n.as_str()) {
                    names.insert(n.clone());
                }
            }
        }
    }
    FileFacts {
        defs: x.defs,
        diagnostics,
        ref_names: names.into_iter().collect(),
        scope: LangScope::Python(x.scope),
        refs: LangRefs::Python(x.refs),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Class,
    Function,
    /// Lambdas and comprehensions: their own names, no definitions.
    Inner,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bind {
    Def(u32),
    Import(u32),
    Local(u32),
    SelfParam { class: u32, cls: bool },
}

struct ScopeB {
    parent: Option<usize>,
    kind: ScopeKind,
    /// For functions defined directly in a class: that class's def.
    method_of: Option<u32>,
    binds: HashMap<String, Bind>,
    globals: Vec<String>,
    nonlocals: Vec<String>,
    def: u32,
    /// Class scopes: where each name is first bound (the end of the
    /// statement binding it). A use in the class body before that point
    /// reads the enclosing scope, as Python (and pyright's code flow) do.
    bound_at: HashMap<String, Pos>,
    /// Function scopes and the module: the local each plain assignment at
    /// the top of the body starts (`x = A()` … `x = B()`), from the end of
    /// its statement, by name, and the local each top statement assigning
    /// it inside starts (see [`Extractor::flow`]).
    versions: HashMap<String, Vec<(Pos, u32)>>,
    /// A lambda's scope (which runs later), not a comprehension's.
    lambda: bool,
}

impl ScopeB {
    fn new(parent: Option<usize>, kind: ScopeKind, def: u32, method_of: Option<u32>) -> Self {
        ScopeB {
            parent,
            kind,
            method_of,
            binds: HashMap::new(),
            globals: Vec::new(),
            nonlocals: Vec::new(),
            def,
            bound_at: HashMap::new(),
            versions: HashMap::new(),
            lambda: false,
        }
    }
}

/// What a `self.x = …` or module-level `x = …` assignment holds.
#[derive(Clone, Copy)]
enum Rhs {
    Value(u32),
    Annot(u32, Cont),
    /// One of two chains' values ([`Src::Either`]).
    Either(u32, u32),
    /// [`Src::SeqOf`].
    SeqOf(u32),
    /// [`Src::Part`].
    Part(u32, u32),
    /// [`Src::LitOf`].
    LitOf(u32, bool),
    /// A literal (its type is a builtin).
    Literal,
    Unknown,
}

impl Rhs {
    fn of(s: Option<Src>) -> Rhs {
        match s {
            Some(Src::Value(c)) => Rhs::Value(c),
            Some(Src::Annot(c, k)) => Rhs::Annot(c, k),
            Some(Src::Either(a, b)) => Rhs::Either(a, b),
            Some(Src::SeqOf(c)) => Rhs::SeqOf(c),
            Some(Src::Part(c, i)) => Rhs::Part(c, i),
            Some(Src::LitOf(c, k)) => Rhs::LitOf(c, k),
            Some(Src::External) => Rhs::Literal,
            _ => Rhs::Unknown,
        }
    }
}

struct Extractor<'s> {
    src: &'s [u8],
    test_file: bool,
    defs: Vec<Def>,
    scope: Scope,
    refs: Refs,
    scopes: Vec<ScopeB>,
    /// Chains whose root is a bare name: (chain, scope, name).
    pending: Vec<(u32, usize, String)>,
    /// Chains rooted at an unannotated function parameter before anything
    /// else is assigned to it (`def f(x): x.m(); x = Foo()`): the
    /// parameter itself there, of no known type (pyright), whatever is
    /// assigned to the local further on.
    param_uses: Vec<u32>,
    /// Chain by the byte range of its outermost node.
    chain_at: HashMap<(usize, usize), u32>,
    names: BTreeSet<String>,
    /// `self.x = …` in methods: (index in `scope.classes`, name, value).
    attr_assigns: Vec<(usize, String, Rhs, bool)>,
    /// Module-level `x = …`.
    var_assigns: Vec<(String, Rhs, bool)>,
    /// The [`Chain::args`] of the chain being built.
    call_args: Vec<(u16, u16, u32)>,
    /// A module-level variable's local with every module-level assignment
    /// (the `all` of [`Self::flow`] for the module), by name.
    module_all: HashMap<String, u32>,
    /// The module-level variable each local [`Self::module_flow`] starts
    /// stands for, by local: another file reading a value made from it
    /// reads the variable (every assignment), as before code flow.
    module_locals: HashMap<u32, String>,
    /// Class def → index in `scope.classes`.
    class_of_def: HashMap<u32, usize>,
    /// Return annotations: (index in `scope.funcs`, chain).
    ret_chains: Vec<(usize, u32, Cont)>,
    /// (index in `Scope::funcs`, parameter index, chain, container) of
    /// annotated method parameters: typed in `finish`, as returns are.
    param_chains: Vec<(usize, usize, u32, Cont)>,
    /// Decorated functions: (index in `scope.funcs`, the scope and place
    /// of the decorators), whose paths are kept in `finish` only when
    /// their first names are the module's.
    deco_scopes: Vec<(usize, usize, Pos)>,
    /// Inside unreachable code.
    dead: bool,
    /// Inside an `except` clause at module level.
    in_except: bool,
    /// Current recursion depth of the walk.
    depth: u32,
    /// The end of the class-body statement being walked (where the
    /// names it binds become visible in the class body).
    class_stmt_end: Pos,
    /// What the code walked so far says of names: (name, fact, scope),
    /// the latest last.
    narrowing: Vec<(String, Narrow, usize)>,
    /// Chains whose root name was narrowed: (chain, class chain, the
    /// narrowing's scope, the name, whether the type the name had may be
    /// kept: no `isinstance` of it is known false there).
    narrowed: Vec<(u32, u32, usize, String, bool)>,
    /// Chains whose first attribute of a name was narrowed (`isinstance(
    /// self.x, C)`, then `self.x.m()`): chain, class chain, scope, name.
    narrowed_attrs: Vec<(u32, u32, usize, String)>,
    /// Returned values of functions without a return annotation
    /// (`None`: a value we cannot follow).
    returns: HashMap<u32, Vec<Returned>>,
    /// Functions with a return annotation.
    annotated_returns: std::collections::HashSet<u32>,
    /// Yielded values of generators (`None`: a value we cannot follow,
    /// a bare `yield`, a `yield from`).
    yields: HashMap<u32, Vec<Option<u32>>>,
    /// The chain of a fixed-size tuple type → its parts' type chains.
    tuple_parts: HashMap<u32, TupleParts>,
    /// The chain standing for a union of classes → its parts' chains.
    union_parts: HashMap<u32, Vec<(u32, Cont)>>,
}

/// A table by chain, as [`Refs`] keeps it: sorted for binary search.
fn by_chain<T: Clone>(table: &HashMap<u32, T>) -> Vec<(u32, T)> {
    let mut out: Vec<(u32, T)> = table.iter().map(|(c, p)| (*c, p.clone())).collect();
    out.sort_by_key(|(c, _)| *c);
    out
}

fn pos(n: Node) -> Pos {
    Pos::from_ts(n.start_position())
}

/// An annotation as written, without quotes.
fn unquote(s: &str) -> &str {
    s.trim().trim_matches(|c| c == '"' || c == '\'')
}

/// `T` of an annotation `type[T]` (or `Type[T]`, `typing.Type[T]`).
fn type_of(a: &str) -> Option<&str> {
    unquote(a)
        .strip_suffix(']')
        .and_then(|x| x.split_once('['))
        .filter(|(head, _)| matches!(head.rsplit('.').next(), Some("type" | "Type")))
        .map(|(_, t)| unquote(t))
}

/// The statement at the top of a function's body, or of the module, that
/// holds `n` (none past a lambda, a class or a nested function).
fn body_statement(n: Node) -> Option<Node> {
    let mut cur = n;
    loop {
        let p = cur.parent()?;
        match p.kind_name() {
            "block" if p.parent()?.kind_name() == "function_definition" => return Some(cur),
            "module" => return Some(cur),
            "function_definition" | "class_definition" | "lambda" => return None,
            _ => cur = p,
        }
    }
}

/// How deep the walk descends into nested syntax.
const MAX_NESTING: u32 = 256;

/// What decorator `d` calls (`@a.b` and `@a.b(…)` call `a.b`), and its
/// `cls=` argument.
fn decorator(d: Node, src: &[u8]) -> Deco {
    let Some(e) = d.named_child(0) else {
        return Deco::default();
    };
    if e.kind_name() != "call" {
        return Deco {
            path: dotted(e, src).unwrap_or_default(),
            cls: String::new(),
        };
    }
    let cls = e.field("arguments").and_then(|args| {
        let mut cur = args.walk();
        let kw = args.named_children(&mut cur).find(|a| {
            a.kind_name() == "keyword_argument"
                && a.field("name").and_then(|n| n.utf8_text(src).ok()) == Some("cls")
        });
        dotted(kw?.field("value")?, src)
    });
    Deco {
        path: e
            .field("function")
            .and_then(|f| dotted(f, src))
            .unwrap_or_default(),
        cls: cls.unwrap_or_default(),
    }
}

/// `a.b.c` as a string, when `e` is a dotted name.
fn dotted(e: Node, src: &[u8]) -> Option<String> {
    let mut ids = Vec::new();
    if !flatten_member(e, &mut ids) {
        return None;
    }
    let parts: Option<Vec<&str>> = ids.iter().map(|i| i.utf8_text(src).ok()).collect();
    Some(parts?.join("."))
}

const TYPING_WRAPPERS: [&str; 8] = [
    "Optional",
    "Annotated",
    "Final",
    "ClassVar",
    "Required",
    "NotRequired",
    "ReadOnly",
    "TypeGuard",
];

/// A fact about a name in the code after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Narrow {
    /// `isinstance(x, C)` holds (the chain naming `C`).
    Is(u32),
    /// `isinstance(x, C)` is known false: x is no C (an `elif` after it,
    /// the code after `if isinstance(x, C): return`).
    Not,
    /// An assignment to the name: the facts before it no longer hold.
    Assigned,
}

/// Subscripted forms whose arguments are type expressions wherever they
/// stand (`Alias = Union["A", B]`, `Dict["K", V]`): pyright reads strings
/// there as forward references.
const TYPE_FORMS: [&str; 10] = [
    "Union",
    "Callable",
    "Type",
    "type",
    "Tuple",
    "tuple",
    "Awaitable",
    "Coroutine",
    "Concatenate",
    "TypeGuard",
];

fn is_type_form(head: &str) -> bool {
    TYPE_FORMS.contains(&head)
        || CONTEXT_MANAGERS.contains(&head)
        || TYPING_WRAPPERS.contains(&head)
        || SEQ_TYPES.contains(&head)
        || MAP_TYPES.contains(&head)
}

impl<'s> Extractor<'s> {
    fn text(&self, n: Node) -> &'s str {
        n.utf8_text(self.src).unwrap_or("")
    }

    fn name(&mut self, s: &str) {
        if !self.names.contains(s) {
            self.names.insert(s.to_string());
        }
    }

    // ---- statements -------------------------------------------------------

    /// Visit every named child of `node` as a statement or expression.
    fn block(&mut self, node: Node, sid: usize, src: u32) {
        let mut cur = node.walk();
        let children: Vec<Node> = node.named_children(&mut cur).collect();
        let dead = self.dead;
        let narrowing = self.narrowing.len();
        let class_body = self.scopes[sid].kind == ScopeKind::Class;
        let stmt_end = self.class_stmt_end;
        for (i, &c) in children.iter().enumerate() {
            if class_body {
                self.class_stmt_end = Pos::from_ts(c.end_position());
            }
            self.visit(c, sid, src);
            if c.kind_name() == "expression_statement"
                && c.named_child(0)
                    .is_some_and(|a| a.kind_name() == "assignment")
            {
                // The next named sibling (asking the node for it walks
                // down from the parent again).
                if let Some(t) = children
                    .get(i + 1)
                    .copied()
                    .filter(|n| n.kind_name() == "comment")
                    .filter(|n| n.start_position().row == c.end_position().row)
                {
                    self.type_comment(t, sid, src);
                }
            }
            // Code after `raise`/`return` (also in the branch a static
            // condition takes) is unreachable: pyright does not analyse it.
            if !self.dead && self.exits(c) {
                self.dead = true;
            }
            if !self.narrowing.is_empty() {
                self.unnarrow_after(c, sid);
            }
            self.narrow_after(c, sid);
        }
        self.class_stmt_end = stmt_end;
        self.dead = dead;
        self.narrowing.truncate(narrowing);
    }

    /// What statement `c` says about the code after it in its block:
    /// `assert isinstance(x, C)` and `if not isinstance(x, C): return`
    /// narrow x below. (Out of [`Self::block`], whose frame every nesting
    /// level pays.)
    #[inline(never)]
    fn narrow_after(&mut self, c: Node, sid: usize) {
        if c.kind_name() == "assert_statement" {
            if let Some(cond) = c.named_child(0) {
                self.narrow(cond, false, sid);
            }
        }
        if c.kind_name() == "if_statement"
            && c.field("alternative").is_none()
            && c.field("consequence").is_some_and(|b| self.exits(b))
        {
            if let Some(cond) = c.field("condition") {
                self.narrow(cond, true, sid);
            }
        }
    }

    /// An assignment statement ends the `isinstance` narrowings of the
    /// names it assigns (`assert isinstance(md, dict)`, then `md = …`):
    /// each marked by a [`Narrow::Assigned`] entry, popped with its block.
    #[inline(never)]
    fn unnarrow_after(&mut self, c: Node, sid: usize) {
        let Some(a) = c
            .named_child(0)
            .filter(|a| c.kind_name() == "expression_statement" && a.kind_name() == "assignment")
        else {
            return;
        };
        // `x = x.copy()`: a value made from the narrowed one, most often of
        // its class (Django's `order_field = order_field.copy()` in an
        // `isinstance(order_field, OrderBy)` branch): kept narrowed.
        let mut root = a.field("right");
        while let Some(r) = root.filter(|r| matches!(r.kind_name(), "call" | "attribute")) {
            root = r.field("function").or(r.field("object"));
        }
        let from = root
            .filter(|r| r.kind_name() == "identifier")
            .map(|r| self.text(r));
        let mut names = Vec::new();
        match a.field("left") {
            Some(t) if t.kind_name() == "identifier" => names.push(self.text(t).to_string()),
            Some(t) if t.kind_name() == "attribute" => names.extend(self.narrowable(t)),
            Some(t) if matches!(t.kind_name(), "pattern_list" | "tuple_pattern") => {
                let mut cur = t.walk();
                for k in t.named_children(&mut cur) {
                    if k.kind_name() == "identifier" {
                        names.push(self.text(k).to_string());
                    }
                }
            }
            _ => {}
        }
        for name in names {
            if from != Some(name.as_str()) && self.narrowing.iter().any(|(x, _, _)| *x == name) {
                self.narrowing.push((name, Narrow::Assigned, sid));
            }
        }
    }

    /// Record the `isinstance(name, Class)` facts a condition implies
    /// (`negated`: the condition is known false).
    fn narrow(&mut self, cond: Node, negated: bool, sid: usize) {
        match cond.kind_name() {
            "parenthesized_expression" => {
                if let Some(c) = cond.named_child(0) {
                    self.narrow(c, negated, sid);
                }
            }
            "not_operator" => {
                if let Some(c) = cond.field("argument") {
                    self.narrow(c, !negated, sid);
                }
            }
            "boolean_operator" => {
                let is_and = cond
                    .field("operator")
                    .is_some_and(|o| o.kind_name() == "and");
                // `a and b` true, or `a or b` false: both parts are.
                if is_and != negated {
                    for f in ["left", "right"] {
                        if let Some(c) = cond.field(f) {
                            self.narrow(c, negated, sid);
                        }
                    }
                }
            }
            "call" => {
                let is_isinstance = cond
                    .field("function")
                    .is_some_and(|f| self.text(f) == "isinstance");
                let Some(args) = cond.field("arguments") else {
                    return;
                };
                if !is_isinstance || args.named_child_count() != 2 {
                    return;
                }
                let (Some(x), Some(class)) = (args.named_child(0), args.named_child(1)) else {
                    return;
                };
                if !matches!(class.kind_name(), "identifier" | "attribute") {
                    return;
                }
                let Some(name) = self.narrowable(x) else {
                    return;
                };
                let Some(&c) = self.chain_at.get(&(class.start_byte(), class.end_byte())) else {
                    return;
                };
                // Known false: recorded so that a later narrowing does not
                // keep x the class it had.
                let fact = if negated { Narrow::Not } else { Narrow::Is(c) };
                self.narrowing.push((name, fact, sid));
            }
            _ => {}
        }
    }

    /// What `isinstance` can narrow: a name, or a name's attribute
    /// (`self.x`), as the key of its narrowing facts.
    fn narrowable(&self, x: Node) -> Option<String> {
        match x.kind_name() {
            "identifier" => Some(self.text(x).to_string()),
            "attribute" => {
                let (o, a) = (x.field("object")?, x.field("attribute")?);
                (o.kind_name() == "identifier")
                    .then(|| format!("{}.{}", self.text(o), self.text(a)))
            }
            _ => None,
        }
    }

    /// Does control never get past this statement?
    fn exits(&self, n: Node) -> bool {
        match n.kind_name() {
            "raise_statement" | "return_statement" | "continue_statement" | "break_statement" => {
                true
            }
            "block" => {
                // Control never reaches the end when any statement exits.
                let mut cur = n.walk();
                let children: Vec<Node> = n.named_children(&mut cur).collect();
                children.into_iter().any(|c| self.exits(c))
            }
            "else_clause" => n.field("body").is_some_and(|b| self.exits(b)),
            "assert_statement" => n
                .named_child(0)
                .is_some_and(|c| self.static_cond(c) == Some(false)),
            "if_statement" => {
                let cons = n.field("consequence");
                let cons_exits = cons.is_some_and(|b| self.exits(b));
                let mut cur = n.walk();
                let alts: Vec<Node> = n.children_by_field_name("alternative", &mut cur).collect();
                let cond = n.field("condition").and_then(|c| self.static_cond(c));
                match cond {
                    Some(true) => cons_exits,
                    Some(false) => alts.len() == 1 && self.exits(alts[0]),
                    None => {
                        cons_exits
                            && alts.len() == 1
                            && alts[0].kind_name() == "else_clause"
                            && self.exits(alts[0])
                    }
                }
            }
            _ => false,
        }
    }

    /// The value of a condition pyright evaluates statically (on Linux,
    /// a recent Python): platform, version and `TYPE_CHECKING` checks.
    fn static_cond(&self, n: Node) -> Option<bool> {
        match n.kind_name() {
            "parenthesized_expression" => self.static_cond(n.named_child(0)?),
            "not_operator" => self.static_cond(n.field("argument")?).map(|b| !b),
            "boolean_operator" => {
                let l = self.static_cond(n.field("left")?);
                let r = self.static_cond(n.field("right")?);
                let op = n.field("operator")?.kind_name();
                match (op, l, r) {
                    ("and", Some(false), _) | ("and", _, Some(false)) => Some(false),
                    ("and", Some(true), Some(true)) => Some(true),
                    ("or", Some(true), _) | ("or", _, Some(true)) => Some(true),
                    ("or", Some(false), Some(false)) => Some(false),
                    _ => None,
                }
            }
            // `TYPE_CHECKING`, `typing.TYPE_CHECKING`, and through an
            // alias of the module (`import typing as t`: `t.TYPE_CHECKING`).
            "identifier" => (self.text(n) == "TYPE_CHECKING").then_some(true),
            "attribute" => {
                let module = n.field("object")?;
                let name = self.text(n.field("attribute")?);
                (module.kind_name() == "identifier" && name == "TYPE_CHECKING").then_some(true)
            }
            "call" => {
                // sys.platform.startswith("win")
                let f = self.text(n.field("function")?);
                if f != "sys.platform.startswith" {
                    return None;
                }
                let arg = n.field("arguments")?.named_child(0)?;
                let lit = self.text(arg).trim_matches(|c| c == '"' || c == '\'');
                Some("linux".starts_with(lit))
            }
            "comparison_operator" => {
                let l = n.named_child(0)?;
                let r = n.named_child(1)?;
                if n.named_child_count() != 2 {
                    return None;
                }
                let op = n.child(1)?.kind_name();
                let lt = self.text(l);
                let rt = self.text(r).trim_matches(|c| c == '"' || c == '\'');
                match lt {
                    "sys.platform" | "os.name" => {
                        let actual = if lt == "os.name" { "posix" } else { "linux" };
                        match op {
                            "==" => Some(actual == rt),
                            "!=" => Some(actual != rt),
                            _ => None,
                        }
                    }
                    "sys.version_info" => {
                        // (3, N): assume Python 3.11.
                        let nums: Vec<u32> = rt
                            .trim_matches(|c| c == '(' || c == ')')
                            .split(',')
                            .filter_map(|x| x.trim().parse().ok())
                            .collect();
                        let v = (*nums.first()?, nums.get(1).copied().unwrap_or(0));
                        let cur = (3, 11);
                        match op {
                            ">=" => Some(cur >= v),
                            ">" => Some(cur > v),
                            "<" => Some(cur < v),
                            "<=" => Some(cur <= v),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn visit(&mut self, node: Node, sid: usize, src: u32) {
        // Generated code nests expressions thousands deep: stop descending
        // rather than overflow the stack.
        if self.depth >= MAX_NESTING {
            return;
        }
        self.depth += 1;
        self.visit_node(node, sid, src);
        self.depth -= 1;
    }

    /// An `if` (or `elif`) and its alternatives; kept out of
    /// [`Self::visit_node`], whose frame every level of nesting pays.
    /// Returns the condition's static value.
    #[inline(never)]
    fn if_statement(&mut self, node: Node, sid: usize, src: u32) -> Option<bool> {
        let cond = node.field("condition");
        if let Some(c) = cond {
            self.expr(c, sid, src);
        }
        let value = cond.and_then(|c| self.static_cond(c));
        let dead = self.dead;
        if let Some(b) = node.field("consequence") {
            self.dead = dead || value == Some(false);
            let before = self.narrowing.len();
            if let Some(c) = cond {
                self.narrow(c, false, sid);
            }
            self.block(b, sid, src);
            self.narrowing.truncate(before);
        }
        let mut cur = node.walk();
        let alts: Vec<Node> = node
            .children_by_field_name("alternative", &mut cur)
            .collect();
        // An `elif`/`else` runs when the conditions above it were
        // false: `elif not isinstance(x, C): continue` / `else:`
        // knows x is a C. After a condition pyright takes as true
        // (the `if`'s or an `elif`'s), none runs.
        let before = self.narrowing.len();
        if let Some(c) = cond {
            self.narrow(c, true, sid);
        }
        let mut taken = value == Some(true);
        for a in alts {
            self.dead = dead || taken;
            if a.kind_name() == "elif_clause" {
                taken |= self.if_statement(a, sid, src) == Some(true);
            } else {
                self.visit(a, sid, src);
            }
            if let Some(c) = a.field("condition") {
                self.narrow(c, true, sid);
            }
        }
        self.narrowing.truncate(before);
        self.dead = dead;
        value
    }

    fn visit_node(&mut self, node: Node, sid: usize, src: u32) {
        match node.kind_name() {
            "function_definition" => self.function(node, &[], node, sid, src),
            "class_definition" => self.class(node, &[], node, sid, src),
            "decorated_definition" => {
                let mut cur = node.walk();
                let decorators: Vec<Node> = node
                    .named_children(&mut cur)
                    .filter(|c| c.kind_name() == "decorator")
                    .collect();
                if let Some(def) = node.field("definition") {
                    if def.kind_name() == "class_definition" {
                        self.class(def, &decorators, node, sid, src);
                    } else {
                        self.function(def, &decorators, node, sid, src);
                    }
                }
            }
            "import_statement" => self.import(node, sid, src),
            "import_from_statement" => self.import_from(node, sid, src),
            "future_import_statement" | "comment" | "pass_statement" => {}
            "global_statement" | "nonlocal_statement" => {
                let global = node.kind_name() == "global_statement";
                let mut cur = node.walk();
                let ids: Vec<String> = node
                    .named_children(&mut cur)
                    .filter(|c| c.kind_name() == "identifier")
                    .map(|c| self.text(c).to_string())
                    .collect();
                let s = &mut self.scopes[sid];
                if global {
                    s.globals.extend(ids);
                } else {
                    s.nonlocals.extend(ids);
                }
            }
            "assignment" => self.assignment(node, sid, src),
            "augmented_assignment" => {
                if let Some(l) = node.field("left") {
                    self.all_extend(l, node.field("right"), sid);
                    self.expr(l, sid, src);
                }
                if let Some(r) = node.field("right") {
                    self.expr(r, sid, src);
                }
            }
            "for_statement" => {
                let right = node.field("right");
                let iter = right.and_then(|r| self.expr(r, sid, src));
                if let Some(l) = node.field("left") {
                    let s = iter.map(Src::Iter).unwrap_or(Src::Unknown);
                    self.iter_target(l, right, s, sid, src);
                }
                for f in ["body", "alternative"] {
                    if let Some(b) = node.field(f) {
                        self.block(b, sid, src);
                    }
                }
            }
            "except_clause" => {
                let value = node.field("value");
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                let mut value_chain = None;
                for c in children {
                    if Some(c) == value {
                        value_chain = self.expr(c, sid, src);
                    } else if Some(c) == node.field("alias") {
                        let s = value_chain
                            .map(|c| Src::Annot(c, Cont::One))
                            .unwrap_or(Src::Unknown);
                        self.target(c, Some(s), sid, src);
                    } else {
                        self.visit(c, sid, src);
                    }
                }
            }
            "as_pattern" => {
                let alias = node.field("alias");
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                let mut value = None;
                // `async with` (the statement's first token): `__aenter__`.
                let is_async = node
                    .parent()
                    .and_then(|item| item.parent())
                    .and_then(|clause| clause.parent())
                    .filter(|w| w.kind_name() == "with_statement")
                    .and_then(|w| w.child(0))
                    .is_some_and(|t| t.kind() == "async");
                for c in children {
                    if Some(c) == alias {
                        // `with X() as x`: what `X.__enter__` returns.
                        let s = value
                            .map(|v| Src::Enter(v, is_async))
                            .unwrap_or(Src::Unknown);
                        self.target(c, Some(s), sid, src);
                    } else {
                        value = self.expr(c, sid, src);
                    }
                }
            }
            "named_expression" => {
                let chain = node.field("value").and_then(|v| self.expr(v, sid, src));
                if let Some(n) = node.field("name") {
                    let s = chain.map(Src::Value).unwrap_or(Src::Unknown);
                    self.target(n, Some(s), sid, src);
                }
            }
            "keyword_argument" => {
                if let Some(v) = node.field("value") {
                    self.expr(v, sid, src);
                }
            }
            "lambda" => {
                let inner = self.push_scope(sid, ScopeKind::Inner, src, None);
                self.scopes[inner].lambda = true;
                if let Some(p) = node.field("parameters") {
                    let mut cur = p.walk();
                    let params: Vec<Node> = p.named_children(&mut cur).collect();
                    for prm in params {
                        if let Some(v) = prm.field("value") {
                            self.expr(v, sid, src);
                        }
                        if let Some(id) = param_name(prm) {
                            let n = self.text(id).to_string();
                            self.bind_local(inner, n, Src::Unknown, None);
                        }
                    }
                }
                if let Some(b) = node.field("body") {
                    self.expr(b, inner, src);
                }
            }
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => {
                let inner = self.push_scope(sid, ScopeKind::Inner, src, None);
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                // Names are bound to scopes at the end of the walk, so the
                // body may be visited before the clauses that bind it.
                for c in children {
                    if c.kind_name() == "for_in_clause" {
                        let mut cur = c.walk();
                        let rights: Vec<Node> =
                            c.children_by_field_name("right", &mut cur).collect();
                        let mut iter = None;
                        let right = rights.last().copied();
                        for r in rights {
                            iter = self.expr(r, inner, src);
                        }
                        if let Some(l) = c.field("left") {
                            let s = iter.map(Src::Iter).unwrap_or(Src::Unknown);
                            self.iter_target(l, right, s, inner, src);
                        }
                    } else {
                        self.visit(c, inner, src);
                    }
                }
            }
            // `isinstance(x, C) and x.m()`: the right operand runs only
            // when the left one was true (`or`: false), and knows it.
            "boolean_operator" => self.boolean(node, sid, src),
            "conditional_expression" => self.conditional(node, sid, src),
            "case_clause" => self.case_clause(node, sid, src),
            "try_statement" => {
                // `else:` runs only when the body did not raise: pyright
                // does not analyse it when the body always raises.
                let body = node.field("body");
                let skip_else = body.is_some_and(|b| self.exits(b));
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                let dead = self.dead;
                let in_except = self.in_except;
                for c in children {
                    self.dead = dead || (skip_else && c.kind_name() == "else_clause");
                    self.in_except = in_except
                        || (sid == 0
                            && matches!(c.kind_name(), "except_clause" | "except_group_clause"));
                    self.visit(c, sid, src);
                }
                self.dead = dead;
                self.in_except = in_except;
            }
            "if_statement" | "elif_clause" => {
                self.if_statement(node, sid, src);
            }
            "return_statement" => self.return_statement(node, sid, src),
            "yield" => self.yield_expr(node, sid, src),
            "type" => {
                self.annotation(node, sid, src);
            }
            "decorator" => self.block(node, sid, src),
            "identifier"
            | "attribute"
            | "call"
            | "subscript"
            | "await"
            | "parenthesized_expression" => {
                self.expr(node, sid, src);
            }
            "string" | "concatenated_string" => self.block(node, sid, src),
            "block" => self.block(node, sid, src),
            _ => {
                if node.is_named() {
                    self.block(node, sid, src)
                }
            }
        }
    }

    /// `a and b`, `a or b`: `b` knows what `a` says when it runs.
    /// (Out of [`Self::visit_node`], whose frame every nesting level pays.)
    #[inline(never)]
    fn boolean(&mut self, node: Node, sid: usize, src: u32) {
        let (Some(l), Some(r)) = (node.field("left"), node.field("right")) else {
            return self.block(node, sid, src);
        };
        self.expr(l, sid, src);
        let or = node
            .field("operator")
            .is_some_and(|o| o.kind_name() == "or");
        let before = self.narrowing.len();
        self.narrow(l, or, sid);
        self.expr(r, sid, src);
        self.narrowing.truncate(before);
    }

    /// `a if c else b`: `a` knows `c`, `b` knows not `c`.
    #[inline(never)]
    fn conditional(&mut self, node: Node, sid: usize, src: u32) {
        let mut cur = node.walk();
        let parts: Vec<Node> = node
            .named_children(&mut cur)
            .filter(|c| c.kind_name() != "comment")
            .collect();
        let [a, cond, b] = parts[..] else {
            return self.block(node, sid, src);
        };
        self.expr(cond, sid, src);
        for (x, negated) in [(a, false), (b, true)] {
            let before = self.narrowing.len();
            self.narrow(cond, negated, sid);
            self.expr(x, sid, src);
            self.narrowing.truncate(before);
        }
    }

    fn push_scope(
        &mut self,
        parent: usize,
        kind: ScopeKind,
        def: u32,
        method_of: Option<u32>,
    ) -> usize {
        self.scopes
            .push(ScopeB::new(Some(parent), kind, def, method_of));
        self.scopes.len() - 1
    }

    fn bind(&mut self, sid: usize, name: String, b: Bind) {
        let s = &mut self.scopes[sid];
        if s.kind == ScopeKind::Module {
            return;
        }
        if s.globals.contains(&name) || s.nonlocals.contains(&name) {
            return;
        }
        if s.kind == ScopeKind::Class && !s.bound_at.contains_key(&name) {
            s.bound_at.insert(name.clone(), self.class_stmt_end);
        }
        match s.binds.get(&name) {
            // A definition wins over other bindings of the name; an import
            // over a variable.
            // The first definition stays: `@x.setter def x` and overloads
            // refer to the first one.
            Some(Bind::Def(_)) => {}
            Some(Bind::Import(_)) => {
                if matches!(b, Bind::Def(_) | Bind::Import(_)) {
                    s.binds.insert(name, b);
                }
            }
            Some(Bind::Local(_)) | Some(Bind::SelfParam { .. }) => {
                if matches!(b, Bind::Def(_) | Bind::Import(_)) {
                    s.binds.insert(name, b);
                }
            }
            None => {
                s.binds.insert(name, b);
            }
        }
    }

    /// Bind a variable in a function/class scope, adding a type source;
    /// `at`: the name bound (a function's own local starts anew there, see
    /// [`Self::flow`]).
    fn bind_local(&mut self, sid: usize, name: String, s: Src, at: Option<Node>) {
        let sc = &self.scopes[sid];
        if sc.kind == ScopeKind::Module
            || sc.globals.contains(&name)
            || sc.nonlocals.contains(&name)
        {
            return;
        }
        if sc.kind == ScopeKind::Class && !sc.bound_at.contains_key(&name) {
            let at = self.class_stmt_end;
            self.scopes[sid].bound_at.insert(name.clone(), at);
        }
        let function = self.scopes[sid].kind == ScopeKind::Function;
        let local = match self.scopes[sid].binds.get(&name) {
            Some(Bind::Local(id)) => {
                let id = *id;
                self.refs.locals[id as usize].push(s);
                id
            }
            Some(_) => return,
            None => {
                let id = self.refs.locals.len() as u32;
                self.refs.locals.push(vec![s]);
                self.scopes[sid].binds.insert(name.clone(), Bind::Local(id));
                id
            }
        };
        if let Some(at) = at.filter(|_| function) {
            self.flow(sid, name, s, at, local);
        }
    }

    /// pyright's code flow, for a local of function scope `sid` bound at
    /// `at` (its first local `all` keeps every source: what nested
    /// functions, which run later, read). A plain `x = …` at the top of
    /// the body starts a local that uses after it read (networkx's
    /// `z_support = nx.MultiGraph()` … `z_support = nx.Graph(z_support)`);
    /// one inside a top statement (an `if`, a loop, a `try`) starts, at
    /// that statement, a local with what the name held before it too.
    fn flow(&mut self, sid: usize, name: String, s: Src, at: Node, all: u32) {
        let Some(top) = body_statement(at) else {
            return;
        };
        let plain = at.parent().is_some_and(|a| {
            a.kind_name() == "assignment" && a.field("left") == Some(at) && a.parent() == Some(top)
        });
        let versions = self.scopes[sid].versions.entry(name).or_default();
        let (start, sources) = if plain {
            (Pos::from_ts(top.end_position()), vec![s])
        } else {
            let start = pos(top);
            if let Some(&(_, v)) = versions.last().filter(|(last, _)| *last == start) {
                self.refs.locals[v as usize].push(s);
                return;
            }
            let before = versions.last().map_or(all, |&(_, v)| v);
            let mut sources = self.refs.locals[before as usize].clone();
            // (`all` has `s` already.)
            if before != all {
                sources.push(s);
            }
            (start, sources)
        };
        let id = self.refs.locals.len() as u32;
        self.refs.locals.push(sources);
        versions.push((start, id));
    }

    /// [`Self::flow`] for a module-level variable assigned at `at`: uses
    /// in the module's own statements read the assignment before them
    /// (networkx's examples: `G = nx.Graph()` … `G = nx.DiGraph(G)`).
    fn module_flow(&mut self, name: String, s: Src, at: Node) {
        let locals = &mut self.refs.locals;
        let all = *self.module_all.entry(name.clone()).or_insert_with(|| {
            locals.push(Vec::new());
            (locals.len() - 1) as u32
        });
        locals[all as usize].push(s);
        self.flow(0, name.clone(), s, at, all);
        if let Some(&(_, v)) = self.scopes[0].versions.get(&name).and_then(|v| v.last()) {
            self.module_locals.insert(v, name);
        }
    }

    /// The local a use of module-level variable `name` at `at` in scope
    /// `sid` reads: in the module's own statements (or a comprehension
    /// there), when the name is only a variable, assigned more than once
    /// and never declared, the version its assignments before `at` make
    /// (see [`Self::module_flow`]); elsewhere (a function, which runs
    /// later, another file) every assignment.
    fn module_version(&self, mut sid: usize, name: &str, at: Pos) -> Option<u32> {
        while let Some(p) = self.scopes[sid].parent.filter(|_| {
            let s = &self.scopes[sid];
            s.kind == ScopeKind::Inner && !s.lambda && !s.binds.contains_key(name)
        }) {
            sid = p;
        }
        let module = &self.scopes[0];
        if sid != 0 || module.binds.contains_key(name) {
            return None;
        }
        let all = &self.refs.locals[*self.module_all.get(name)? as usize];
        if all.len() < 2 || all.iter().any(|s| matches!(s, Src::Annot(..))) {
            return None;
        }
        let versions = module.versions.get(name)?;
        let last = versions.iter().rev().find(|(start, _)| *start <= at)?;
        Some(last.1)
    }

    // ---- definitions ------------------------------------------------------

    fn new_def(
        &mut self,
        name_node: Node,
        outer: Node,
        node: Node,
        kind: NodeKind,
        parent: u32,
    ) -> u32 {
        let name = self.text(name_node).to_string();
        let p = &self.defs[parent as usize];
        let local = if p.local.is_empty() {
            name.clone()
        } else {
            format!("{}.{}", p.local, name)
        };
        let exported = matches!(p.kind, NodeKind::Module | NodeKind::Class)
            && (!name.starts_with('_') || (name.starts_with("__") && name.ends_with("__")));
        if self.dead {
            self.scope.dead_defs.push(self.defs.len() as u32);
        }
        if self.in_except && parent == 0 {
            self.scope.except_defs.push(self.defs.len() as u32);
        }
        self.defs.push(Def {
            name,
            local,
            kind,
            parent: Some(parent),
            pos: pos(name_node),
            start_line: outer.start_position().row as u32 + 1,
            end_line: node.end_position().row as u32 + 1,
            exported,
        });
        (self.defs.len() - 1) as u32
    }

    fn function(&mut self, node: Node, decorators: &[Node], outer: Node, sid: usize, src: u32) {
        let Some(name_node) = node.field("name") else {
            self.block(node, sid, src);
            return;
        };
        let name = self.text(name_node);
        let mut flags = 0u8;
        let mut decos = Vec::new();
        for d in decorators {
            let t = self.text(*d).trim_start_matches('@').trim();
            let head = t.split('(').next().unwrap_or(t).trim();
            match head {
                "property" | "functools.cached_property" | "cached_property" => flags |= PROPERTY,
                "staticmethod" => flags |= STATIC,
                "classmethod" => flags |= CLASSMETHOD,
                "pytest.fixture" | "fixture" | "pytest_asyncio.fixture" => flags |= FIXTURE,
                "overload" | "typing.overload" | "t.overload" | "typing_extensions.overload" => {
                    flags |= OVERLOAD
                }
                _ => decos.push(decorator(*d, self.src)),
            }
        }
        let scope_kind = self.scopes[sid].kind;
        if scope_kind == ScopeKind::Class || flags != 0 {
            // (A method's decorators make descriptors: not followed.)
            decos.clear();
        }
        let method_of = (scope_kind == ScopeKind::Class).then_some(self.scopes[sid].def);
        let kind = if let Some(class) = method_of {
            if self.test_file && name.starts_with("test") && self.is_test_class(class) {
                NodeKind::Test
            } else {
                NodeKind::Method
            }
        } else if scope_kind == ScopeKind::Module
            && self.test_file
            && name.starts_with("test")
            && flags & FIXTURE == 0
        {
            NodeKind::Test
        } else {
            NodeKind::Function
        };
        let parent = self.scopes[sid].def;
        let idx = self.new_def(name_node, outer, node, kind, parent);
        self.bind(sid, name.to_string(), Bind::Def(idx));
        if flags & FIXTURE != 0 && scope_kind == ScopeKind::Module {
            self.scope.fixtures.push(idx);
        }
        for d in decorators {
            self.block(*d, sid, idx);
        }
        let fsid = self.push_scope(sid, ScopeKind::Function, idx, method_of);
        let wants_fixtures = kind == NodeKind::Test || flags & FIXTURE != 0;
        let mut self_annot = None;
        // A method's parameters, for overrides ([`Func::params`]) and for
        // inheriting types ([`Src::Inherited`]).
        let mut plist: Vec<Param> = Vec::new();
        let mut annotated: Vec<(usize, u32, Cont)> = Vec::new();
        let mut inherits = false;
        let sig = self.refs.method_sigs.len() as u32;
        // Annotated parameters a call passes by position (past `self`),
        // with that position: for [`Func::type_args`].
        let mut by_position: Vec<(u16, &'s str)> = Vec::new();
        let mut positional = Some(0u16);
        if let Some(params) = node.field("parameters") {
            let mut cur = params.walk();
            let list: Vec<Node> = params.named_children(&mut cur).collect();
            let mut first = true;
            for p in list {
                // (A comment between parameters is a named child too:
                // `def update(  # type: ignore` must keep `self` first.)
                match p.kind_name() {
                    "comment" => continue,
                    "keyword_separator" | "positional_separator" => {
                        let bare_star = p.kind_name() == "keyword_separator";
                        if bare_star {
                            positional = None;
                        }
                        plist.push(Param {
                            name: if bare_star { "*" } else { "/" }.into(),
                            kind: if bare_star { PARAM_ARGS } else { PARAM_PLAIN },
                            ty: None,
                        });
                        continue;
                    }
                    _ => {}
                }
                let mut annot = None;
                if let Some(t) = p.field("type") {
                    annot = self.annotation(t, sid, idx);
                }
                let default = p.field("value");
                if let Some(v) = default {
                    self.expr(v, sid, idx);
                }
                let splat_kind = |n: Node| match n.kind_name() {
                    "list_splat_pattern" => Some(PARAM_ARGS),
                    "dictionary_splat_pattern" => Some(PARAM_KWARGS),
                    _ => None,
                };
                let kind = splat_kind(p)
                    .or_else(|| p.named_child(0).and_then(splat_kind))
                    .unwrap_or(PARAM_PLAIN);
                let splat = kind != PARAM_PLAIN;
                let Some(id) = param_name(p) else {
                    first = false;
                    plist.push(Param::default());
                    continue;
                };
                let pname = self.text(id).to_string();
                let at = plist.len();
                plist.push(Param {
                    name: pname.clone(),
                    kind,
                    ty: None,
                });
                if let (Some((c, k)), false) = (annot, first) {
                    annotated.push((at, c, k));
                }
                if first && !splat {
                    if let Some(class) = method_of {
                        if flags & STATIC == 0 {
                            self_annot = p.field("type").map(|t| self.text(t));
                            let cls = flags & CLASSMETHOD != 0
                                || matches!(
                                    name,
                                    "__new__" | "__init_subclass__" | "__class_getitem__"
                                );
                            self.scopes[fsid]
                                .binds
                                .insert(pname, Bind::SelfParam { class, cls });
                            first = false;
                            continue;
                        }
                    }
                }
                first = false;
                if splat {
                    positional = None;
                }
                if let Some(at) = positional {
                    if let Some(t) = p.field("type") {
                        by_position.push((at, self.text(t)));
                    }
                    positional = Some(at + 1);
                }
                if wants_fixtures && default.is_none() && !splat {
                    self.name(&pname);
                    self.refs.fixture_params.push(FixtureParam {
                        def: idx,
                        name: pname.clone(),
                        pos: pos(id),
                    });
                }
                let s = match annot {
                    // `*args: X` is a tuple of `X`, `**kwargs: X` a dict to
                    // `X`; unannotated, a tuple or a dict all the same.
                    Some((c, Cont::One)) if kind == PARAM_ARGS => Src::Annot(c, Cont::Seq),
                    Some((c, Cont::One)) if kind == PARAM_KWARGS => Src::Annot(c, Cont::Map),
                    _ if splat => Src::External,
                    Some((c, k)) => Src::Annot(c, k),
                    None if method_of.is_some() => {
                        inherits = true;
                        Src::Inherited(sig, at as u32)
                    }
                    None => Src::Param,
                };
                self.bind_local(fsid, pname, s, None);
            }
        }
        if method_of.is_none() {
            annotated.clear();
        }
        if inherits {
            self.refs.method_sigs.push(MethodSig {
                def: idx,
                params: plist.clone(),
            });
        }
        let ret_type = node.field("return_type");
        if ret_type.is_some() {
            self.annotated_returns.insert(idx);
        }
        if let (Some(a), Some(r)) = (self_annot, ret_type) {
            // `cls: type[T]` (or `Type[T]`, `typing.Type[T]`), or `self: T`.
            if type_of(a).unwrap_or(unquote(a)) == unquote(self.text(r)) {
                flags |= SELF_TYPED;
            }
        }
        let type_args: Vec<u16> = match ret_type {
            Some(r) => by_position
                .iter()
                .filter(|(_, a)| type_of(a) == Some(unquote(self.text(r))))
                .map(|&(at, _)| at)
                .collect(),
            None => Vec::new(),
        };
        let ret = ret_type.and_then(|t| self.annotation(t, sid, idx));
        if let Some(body) = node.field("body") {
            self.block(body, fsid, idx);
        }
        if ret.is_some() || flags != 0 || !decos.is_empty() || !annotated.is_empty() {
            // Resolved to a TypeRef in `finish`, when names are bound.
            if let Some((c, k)) = ret {
                self.ret_chains.push((self.scope.funcs.len(), c, k));
            }
            for (at, c, k) in &annotated {
                self.param_chains
                    .push((self.scope.funcs.len(), *at, *c, *k));
            }
            if annotated.is_empty() {
                plist.clear();
            }
            if !decos.is_empty() {
                let at = Pos::from_ts(outer.start_position());
                self.deco_scopes.push((self.scope.funcs.len(), sid, at));
            }
            self.scope.funcs.push(Func {
                def: idx,
                ret: None,
                flags,
                decos,
                params: plist,
                type_args,
            });
        }
    }

    fn is_test_class(&self, class: u32) -> bool {
        let d = &self.defs[class as usize];
        if d.name.starts_with("Test") {
            return true;
        }
        // unittest.TestCase, or an in-repo base named like a test base
        // (`BaseTestCase`, `TestBase`): bases are not resolved here.
        self.class_of_def
            .get(&class)
            .map(|&ci| {
                self.scope.classes[ci].bases.iter().any(|b| {
                    let last = b.rsplit('.').next().unwrap_or(b);
                    last.ends_with("TestCase") || last.starts_with("Test")
                })
            })
            .unwrap_or(false)
    }

    fn class(&mut self, node: Node, decorators: &[Node], outer: Node, sid: usize, src: u32) {
        let Some(name_node) = node.field("name") else {
            self.block(node, sid, src);
            return;
        };
        let parent = self.scopes[sid].def;
        let idx = self.new_def(name_node, outer, node, NodeKind::Class, parent);
        let name = self.text(name_node).to_string();
        self.bind(sid, name, Bind::Def(idx));
        for d in decorators {
            self.block(*d, sid, idx);
        }
        let mut bases = Vec::new();
        if let Some(args) = node.field("superclasses") {
            let mut cur = args.walk();
            let list: Vec<Node> = args.named_children(&mut cur).collect();
            for a in list {
                if a.kind_name() == "comment" {
                    continue;
                }
                if a.kind_name() == "keyword_argument" {
                    self.visit(a, sid, idx);
                    continue;
                }
                let base = if a.kind_name() == "subscript" {
                    a.field("value").unwrap_or(a)
                } else {
                    a
                };
                bases.push(if matches!(base.kind_name(), "identifier" | "attribute") {
                    self.text(base).split_whitespace().collect::<String>()
                } else {
                    String::new()
                });
                if let Some(c) = self.expr(a, sid, idx) {
                    self.refs.chains[c as usize].extends = true;
                }
            }
        }
        self.class_of_def.insert(idx, self.scope.classes.len());
        self.scope.classes.push(Class {
            def: idx,
            bases,
            attrs: Vec::new(),
        });
        let csid = self.push_scope(sid, ScopeKind::Class, idx, None);
        if let Some(body) = node.field("body") {
            self.block(body, csid, idx);
        }
    }

    // ---- imports ----------------------------------------------------------

    fn import(&mut self, node: Node, sid: usize, src: u32) {
        let mut cur = node.walk();
        let names: Vec<Node> = node.children_by_field_name("name", &mut cur).collect();
        for n in names {
            let (dotted, alias) = if n.kind_name() == "aliased_import" {
                (
                    n.field("name"),
                    n.field("alias").map(|a| self.text(a).to_string()),
                )
            } else {
                (Some(n), None)
            };
            let Some(dotted) = dotted else { continue };
            let module = self.dotted(dotted);
            let module_pos = last_ident_pos(dotted);
            let kind = match alias {
                Some(a) => ImportKind::Alias(a),
                None => ImportKind::Plain,
            };
            self.add_import(
                Import {
                    scope: src,
                    level: 0,
                    module,
                    kind,
                    module_pos,
                    dead: false,
                },
                sid,
            );
        }
    }

    fn import_from(&mut self, node: Node, sid: usize, src: u32) {
        let Some(m) = node.field("module_name") else {
            return;
        };
        let (level, module, module_pos) = if m.kind_name() == "relative_import" {
            let mut level = 0;
            let mut module = String::new();
            let mut mpos = pos(m);
            let mut cur = m.walk();
            let children: Vec<Node> = m.named_children(&mut cur).collect();
            for c in children {
                if c.kind_name() == "import_prefix" {
                    level = self.text(c).chars().filter(|&ch| ch == '.').count() as u32;
                } else if c.kind_name() == "dotted_name" {
                    module = self.dotted(c);
                    mpos = last_ident_pos(c);
                }
            }
            (level, module, mpos)
        } else {
            (0, self.dotted(m), last_ident_pos(m))
        };
        let mut cur = node.walk();
        let children: Vec<Node> = node.named_children(&mut cur).collect();
        let mut any = false;
        for c in children {
            if c == m {
                continue;
            }
            let kind = match c.kind_name() {
                "wildcard_import" => ImportKind::Star,
                "dotted_name" => ImportKind::From {
                    name: self.text(c).to_string(),
                    alias: None,
                    pos: pos(c),
                    same_alias: None,
                },
                "aliased_import" => {
                    let Some(n) = c.field("name") else {
                        continue;
                    };
                    let alias = c.field("alias");
                    ImportKind::From {
                        name: self.text(n).to_string(),
                        alias: alias.map(|a| self.text(a).to_string()),
                        pos: pos(n),
                        // `import X as X` (the re-export idiom): pyright
                        // counts the alias as a reference too.
                        same_alias: alias.filter(|a| self.text(*a) == self.text(n)).map(pos),
                    }
                }
                _ => continue,
            };
            any = true;
            self.add_import(
                Import {
                    scope: src,
                    level,
                    module: module.clone(),
                    kind,
                    module_pos,
                    dead: false,
                },
                sid,
            );
        }
        if !any {
            // `from x import (` with a syntax error: still the module edge.
            self.add_import(
                Import {
                    scope: src,
                    level,
                    module,
                    kind: ImportKind::Star,
                    module_pos,
                    dead: false,
                },
                sid,
            );
            if let Some(last) = self.scope.imports.last_mut() {
                last.kind = ImportKind::Alias(String::new());
            }
        }
    }

    fn add_import(&mut self, mut imp: Import, sid: usize) {
        imp.dead = self.dead;
        for seg in imp.module.split('.').filter(|s| !s.is_empty()) {
            self.name(seg);
        }
        if let ImportKind::From { name, alias, .. } = &imp.kind {
            let (n, a) = (name.clone(), alias.clone());
            self.name(&n);
            if let Some(a) = a {
                self.name(&a);
            }
        }
        let idx = self.scope.imports.len() as u32;
        if self.in_except && imp.scope == 0 {
            self.scope.except_imports.push(idx);
        }
        if let Some(b) = imp.bound_name() {
            if !b.is_empty() {
                let b = b.to_string();
                self.bind(sid, b, Bind::Import(idx));
            }
        }
        self.scope.imports.push(imp);
    }

    fn dotted(&self, n: Node) -> String {
        self.text(n).split_whitespace().collect()
    }

    // ---- assignments ------------------------------------------------------

    fn assignment(&mut self, node: Node, sid: usize, src: u32) {
        let left = node.field("left");
        let right = node.field("right");
        let annot = node.field("type").and_then(|t| {
            let a = self.annotation(t, sid, src);
            // `converter: Final = Converter()`: the value's type, as pyright
            // infers it.
            let bare_final = matches!(self.text(t).rsplit('.').next(), Some("Final"));
            a.filter(|_| !bare_final || right.is_none())
        });
        if let (Some(l), Some(r)) = (left, right) {
            if sid == 0 && self.text(l) == "__all__" {
                self.all_literal(r, false);
            }
            // `a, b = A(), B()`, `a, b = (A(), B())`: item by item.
            if annot.is_none() {
                if let Some(pairs) = unpacked_items(l, r) {
                    for (target, value) in pairs {
                        let v = self.value_src(value, sid, src);
                        self.target(target, Some(v), sid, src);
                    }
                    return;
                }
            }
        }
        let value = match right {
            Some(r) if r.kind_name() == "assignment" => {
                // a = b = value
                self.assignment(r, sid, src);
                None
            }
            Some(r) => Some(self.value_src(r, sid, src)),
            None => None,
        };
        let s = match (annot, value) {
            (Some((a, k)), _) => Some(Src::Annot(a, k)),
            (None, v) => v,
        };
        if let Some(l) = left {
            self.target(l, s.or(Some(Src::Unknown)), sid, src);
        }
    }

    /// Visit an assigned value; what it says about the variable's type.
    fn value_src(&mut self, r: Node, sid: usize, src: u32) -> Src {
        // `a if c else b` and `a or b`: either operand's value; a literal
        // operand (`[] if x is None else list(x)`, `x or {}`) only counts
        // when the other is one too, as for separate assignments.
        // (What each operand knows when it runs: `a if c else b`, `c` and
        // not `c`; `a or b`, not `a`.)
        // (Parenthesized over several lines: `x = (a if c else b)`.)
        if r.kind_name() == "parenthesized_expression" && r.named_child_count() == 1 {
            if let Some(inner) = r
                .named_child(0)
                .filter(|c| matches!(c.kind_name(), "conditional_expression" | "boolean_operator"))
            {
                return self.value_src(inner, sid, src);
            }
        }
        type Cond<'t> = Option<(Node<'t>, bool)>;
        let either: Option<(Node, Node, Cond, Cond)> = match r.kind_name() {
            "conditional_expression" => {
                let mut cur = r.walk();
                let parts: Vec<Node> = r
                    .named_children(&mut cur)
                    .filter(|c| c.kind_name() != "comment")
                    .collect();
                match parts[..] {
                    [a, cond, b] => {
                        self.expr(cond, sid, src);
                        Some((a, b, Some((cond, false)), Some((cond, true))))
                    }
                    _ => None,
                }
            }
            "boolean_operator"
                if r.child_by_field_name("operator")
                    .is_some_and(|o| o.kind_name() == "or") =>
            {
                r.field("left")
                    .zip(r.field("right"))
                    .map(|(a, b)| (a, b, None, Some((a, true))))
            }
            _ => None,
        };
        if let Some((a, b, cond_a, cond_b)) = either {
            let mut operand = |x: Node, cond: Cond| {
                let before = self.narrowing.len();
                if let Some((c, negated)) = cond {
                    self.narrow(c, negated, sid);
                }
                let v = match self.value_src(x, sid, src) {
                    // `a, f = (x, g) if c else (None, F)`: what is unpacked
                    // is the tuple's items, of no type known here.
                    Src::External if x.kind_name() == "tuple" => Src::Unknown,
                    // `hooks or {}` of an unannotated parameter: only the
                    // other operand is known (pyright: a dict).
                    Src::Value(_)
                        if x.kind_name() == "identifier"
                            && self.is_bare_param(sid, self.text(x), pos(x)) =>
                    {
                        Src::Param
                    }
                    v => v,
                };
                self.narrowing.truncate(before);
                v
            };
            let va = operand(a, cond_a);
            let vb = operand(b, cond_b);
            return match (va, vb) {
                (Src::Param, v) | (v, Src::Param) => v,
                (Src::Value(x), Src::Value(y)) => Src::Either(x, y),
                (Src::External, Src::External) => Src::External,
                (x @ (Src::Value(_) | Src::SeqOf(_) | Src::Annot(..)), Src::External)
                | (Src::External, x @ (Src::Value(_) | Src::SeqOf(_) | Src::Annot(..))) => x,
                // A literal container of calls is a literal for this rule
                // (`[t.copy()] if t else [{}]`): what its items make when
                // they make instances of one class, else a builtin.
                (x @ Src::LitOf(..), Src::External | Src::LitOf(..))
                | (Src::External, x @ Src::LitOf(..)) => x,
                _ => Src::Unknown,
            };
        }
        if let Some(arg) = self.builtin_copy(r) {
            self.expr(r, sid, src);
            return match self.chain_at.get(&(arg.start_byte(), arg.end_byte())) {
                Some(&c) => Src::SeqOf(c),
                None => Src::Unknown,
            };
        }
        if let Some(arg) = self.module_copy(r) {
            self.expr(r, sid, src);
            return match self.chain_at.get(&(arg.start_byte(), arg.end_byte())) {
                Some(&c) => Src::Value(c),
                None => Src::Unknown,
            };
        }
        match self.expr(r, sid, src) {
            // `x = cast(T, v)`: the annotation's type.
            Some(_) if let Some((t, k)) = self.cast_type(r) => Src::Annot(t, k),
            // `MaybeFoo = Optional[Foo]`: an alias of the type it wraps
            // (`Union[A, B]`: of no one type).
            Some(_) if r.kind_name() == "subscript" && self.wraps_a_type(r) => {
                match self.principal(r, Cont::One) {
                    Some((p, Cont::One)) => self
                        .chain_at
                        .get(&(p.start_byte(), p.end_byte()))
                        .map_or(Src::Unknown, |c| Src::Value(*c)),
                    // `Context = Union[Dict[str, Any], Dict[Any, Any]]`
                    // (structlog): a builtin container.
                    Some((_, Cont::Seq | Cont::Map)) => Src::External,
                    // `AnyByteStream = Union[ObjectStream[bytes],
                    // ByteStream]` (anyio): values of it are of either.
                    None => match self.union_annotation(r, src) {
                        Some(c) => Src::Annot(c, Cont::One),
                        None => Src::Unknown,
                    },
                    _ => Src::Unknown,
                }
            }
            Some(c) => Src::Value(c),
            None if matches!(r.kind_name(), "list" | "set" | "dictionary") => {
                self.made_by_one_callee(r).unwrap_or(Src::External)
            }
            None if is_literal(r.kind_name()) => Src::External,
            None => Src::Unknown,
        }
    }

    /// A visited list, set or dict literal whose items (a dict's values)
    /// are all calls of one callee, written alike: [`Src::LitOf`]. (Not
    /// inlined: its frame would weigh on every level of a deep expression.)
    #[inline(never)]
    fn made_by_one_callee(&self, r: Node) -> Option<Src> {
        let mut cur = r.walk();
        let items: Vec<Node> = r
            .named_children(&mut cur)
            .filter(|c| c.kind_name() != "comment")
            .map(|c| match c.kind_name() {
                "pair" => c.field("value").unwrap_or(c),
                _ => c,
            })
            .collect();
        let callee = |n: &Node| {
            (n.kind_name() == "call")
                .then(|| n.field("function").map(|f| self.text(f)))
                .flatten()
        };
        let first = *items.first()?;
        let head = callee(&first)?;
        if items.iter().any(|i| callee(i) != Some(head)) {
            return None;
        }
        let c = *self.chain_at.get(&(first.start_byte(), first.end_byte()))?;
        Some(Src::LitOf(c, r.kind_name() == "dictionary"))
    }

    /// The argument of `copy(x)` / `deepcopy(x)` from the `copy` module
    /// (`from copy import deepcopy`, `import copy` then `copy.copy(x)`),
    /// which is a value of `x`'s type (typeshed: `def copy(x: T) -> T`).
    fn module_copy<'t>(&self, call: Node<'t>) -> Option<Node<'t>> {
        if call.kind_name() != "call" {
            return None;
        }
        let f = call.field("function")?;
        let imported = |i: &Import| i.level == 0 && i.module == "copy";
        let from_copy =
            match f.kind_name() {
                "identifier" => {
                    let local = self.text(f);
                    self.scope
                        .imports
                        .iter()
                        .filter(|i| imported(i))
                        .any(|i| match &i.kind {
                            ImportKind::From { name, alias, .. } => {
                                matches!(name.as_str(), "copy" | "deepcopy")
                                    && alias.as_deref().unwrap_or(name) == local
                            }
                            _ => false,
                        })
                }
                "attribute" => {
                    let (obj, attr) = (f.field("object")?, f.field("attribute")?);
                    let module = self.text(obj);
                    matches!(self.text(attr), "copy" | "deepcopy")
                        && obj.kind_name() == "identifier"
                        && self.scope.imports.iter().filter(|i| imported(i)).any(|i| {
                            match &i.kind {
                                ImportKind::Plain => module == "copy",
                                ImportKind::Alias(a) => module == a,
                                _ => false,
                            }
                        })
                }
                _ => false,
            };
        if !from_copy {
            return None;
        }
        single_value_arg(call)
    }

    /// `list(x)`, `tuple(x)`, `sorted(x)`, `set(x)`, `frozenset(x)`: the
    /// argument. (The name is taken for the builtin's: a module that
    /// defines its own `list` is not worth a lookup here.)
    fn builtin_copy<'t>(&self, call: Node<'t>) -> Option<Node<'t>> {
        if call.kind_name() != "call" {
            return None;
        }
        let f = call.field("function")?;
        if f.kind_name() != "identifier"
            || !matches!(
                self.text(f),
                "list" | "tuple" | "sorted" | "set" | "frozenset"
            )
        {
            return None;
        }
        single_value_arg(call)
    }

    /// Is this subscript a typing wrapper or a union (`Optional[X]`,
    /// `t.Union[X, None]`), whose value as a type is its argument's?
    fn wraps_a_type(&self, sub: Node) -> bool {
        sub.field("value").is_some_and(|v| {
            let head = self.text(v).rsplit('.').next().unwrap_or("");
            TYPING_WRAPPERS.contains(&head) || head == "Union"
        })
    }

    /// `__all__ = [...]`, `__all__ += [...]`, `__all__.extend([...])`.
    fn all_literal(&mut self, r: Node, extend: bool) {
        if !matches!(r.kind_name(), "list" | "tuple") {
            return;
        }
        let mut names = Vec::new();
        let mut cur = r.walk();
        for c in r.named_children(&mut cur) {
            if c.kind_name() == "string" {
                let t = self.text(c);
                let t = t.trim_matches(|ch| ch == '"' || ch == '\'');
                names.push(t.to_string());
                // pyright counts the entries of `__all__` as references.
                let mut cur = c.walk();
                let content = c
                    .named_children(&mut cur)
                    .find(|x| x.kind_name() == "string_content");
                if let Some(content) = content {
                    self.refs.all_sites.push((t.to_string(), pos(content)));
                }
                self.name(t);
            }
        }
        match (&mut self.scope.all, extend) {
            (Some(all), true) => all.extend(names),
            (all, _) => *all = Some(names),
        }
    }

    fn all_extend(&mut self, l: Node, r: Option<Node>, sid: usize) {
        if sid == 0 && self.text(l) == "__all__" {
            if let Some(r) = r {
                self.all_literal(r, true);
            }
        }
    }

    /// An assignment target: bind names, record `self.x` attributes and
    /// module variables, visit anything else as an expression.
    fn target(&mut self, t: Node, s: Option<Src>, sid: usize, src: u32) {
        match t.kind_name() {
            "identifier" => {
                let name = self.text(t).to_string();
                let s = s.unwrap_or(Src::Unknown);
                if self.scopes[sid].kind == ScopeKind::Module
                    || self.scopes[sid].globals.contains(&name)
                {
                    if self.scopes[sid].kind == ScopeKind::Module {
                        self.refs.globals.push((name.clone(), s));
                        self.module_flow(name.clone(), s, t);
                    }
                    self.var_assigns.push((name, Rhs::of(Some(s)), self.dead));
                } else {
                    if self.scopes[sid].kind == ScopeKind::Class {
                        let class = self.scopes[sid].def;
                        if let Some(&ci) = self.class_of_def.get(&class) {
                            self.attr_assigns
                                .push((ci, name.clone(), Rhs::of(Some(s)), self.dead));
                        }
                    }
                    self.bind_local(sid, name, s, Some(t));
                }
            }
            "attribute" => {
                // `self.x = …` in a method (`cls.x = …` in a classmethod):
                // an attribute of the class.
                if let (Some(obj), Some(attr)) = (t.field("object"), t.field("attribute")) {
                    if obj.kind_name() == "identifier" {
                        let o = self.text(obj);
                        if let Some(class) = self.self_class(sid, o) {
                            if let Some(&ci) = self.class_of_def.get(&class) {
                                let n = self.text(attr).to_string();
                                self.attr_assigns.push((ci, n, Rhs::of(s), self.dead));
                            }
                        }
                    }
                }
                self.expr(t, sid, src);
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "expression_list"
            | "tuple"
            | "list"
            | "parenthesized_expression" => {
                // `for k, v in chain`: parts of the elements; unpacking an
                // external value gives external values.
                let mut cur = t.walk();
                let children: Vec<Node> = t.named_children(&mut cur).collect();
                let mut starred = false;
                for (i, c) in children.into_iter().enumerate() {
                    starred |= matches!(c.kind_name(), "list_splat_pattern" | "list_splat");
                    let i = if starred { u32::MAX } else { i as u32 };
                    let part = match s {
                        Some(Src::Iter(chain)) => Some(Src::IterPart(chain, i)),
                        Some(Src::External) => Some(Src::External),
                        Some(Src::Value(chain)) => Some(Src::Part(chain, i)),
                        _ => None,
                    };
                    self.target(c, part, sid, src);
                }
            }
            "list_splat_pattern" | "list_splat" => {
                if let Some(c) = t.named_child(0) {
                    self.target(c, None, sid, src);
                }
            }
            "as_pattern_target" => {
                if let Some(c) = t.named_child(0) {
                    self.target(c, s, sid, src);
                }
            }
            _ => {
                self.expr(t, sid, src);
            }
        }
    }

    /// The target of a `for` (loop or comprehension) over `right`, whose
    /// elements are `s`. `enumerate(x)` gives pairs of an int and an
    /// element of `x`, `zip(a, b, …)` tuples of an element of each: their
    /// parts unpack to those (the builtins' names are taken for the
    /// builtins', as in [`Self::builtin_copy`]).
    fn iter_target(&mut self, l: Node, right: Option<Node>, s: Src, sid: usize, src: u32) {
        let parts = right.and_then(|r| self.iter_parts(r));
        let kids: Vec<Node> = match l.kind_name() {
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list" => {
                let mut cur = l.walk();
                l.named_children(&mut cur)
                    .filter(|c| c.kind_name() != "comment")
                    .collect()
            }
            _ => Vec::new(),
        };
        match parts {
            Some(parts) if parts.len() == kids.len() => {
                for (k, p) in kids.into_iter().zip(parts) {
                    self.target(k, Some(p), sid, src);
                }
            }
            _ => self.target(l, Some(s), sid, src),
        }
    }

    /// What each part of an element of `enumerate(x)` / `zip(a, b, …)` is
    /// (after the call has been visited).
    fn iter_parts(&self, call: Node) -> Option<Vec<Src>> {
        if call.kind_name() != "call" {
            return None;
        }
        let f = call.field("function")?;
        if f.kind_name() != "identifier" {
            return None;
        }
        let name = self.text(f);
        if !matches!(name, "enumerate" | "zip") {
            return None;
        }
        let args = call.field("arguments")?;
        if args.kind_name() != "argument_list" {
            return None;
        }
        let mut cur = args.walk();
        let positional: Vec<Node> = args
            .named_children(&mut cur)
            .filter(|a| !matches!(a.kind_name(), "comment" | "keyword_argument"))
            .collect();
        if positional
            .iter()
            .any(|a| matches!(a.kind_name(), "list_splat" | "dictionary_splat"))
        {
            return None;
        }
        let elems = |a: &Node| match self.chain_at.get(&(a.start_byte(), a.end_byte())) {
            Some(&c) => Src::Iter(c),
            None if is_literal(a.kind_name()) => Src::External,
            None => Src::Unknown,
        };
        match (name, &positional[..]) {
            ("enumerate", [a]) => Some(vec![Src::External, elems(a)]),
            ("zip", list) if !list.is_empty() => Some(list.iter().map(elems).collect()),
            _ => None,
        }
    }

    /// The class whose method binds `name` as its `self` parameter (or a
    /// classmethod's `cls`: pytest's `setup_class(cls)` assigning
    /// `cls.graph = …`), seen from scope `sid`.
    fn self_class(&self, mut sid: usize, name: &str) -> Option<u32> {
        loop {
            let s = &self.scopes[sid];
            if s.kind == ScopeKind::Function || s.kind == ScopeKind::Inner {
                match s.binds.get(name) {
                    Some(Bind::SelfParam { class, .. }) => return Some(*class),
                    Some(_) => return None,
                    None => {}
                }
            }
            if s.kind == ScopeKind::Module {
                return None;
            }
            sid = s.parent?;
        }
    }

    // ---- patterns (match statements) --------------------------------------

    fn case_clause(&mut self, node: Node, sid: usize, src: u32) {
        let mut cur = node.walk();
        let children: Vec<Node> = node.named_children(&mut cur).collect();
        for c in children {
            if c.kind_name() == "case_pattern" {
                self.pattern(c, sid, src);
            } else {
                self.visit(c, sid, src);
            }
        }
    }

    fn pattern(&mut self, node: Node, sid: usize, src: u32) {
        match node.kind_name() {
            "class_pattern" => {
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                for c in children {
                    if c.kind_name() == "dotted_name" {
                        self.dotted_chain(c, sid, src);
                    } else {
                        self.pattern(c, sid, src);
                    }
                }
            }
            "dotted_name" => {
                if node.named_child_count() == 1 {
                    let name = self.text(node).to_string();
                    if name != "_" {
                        self.bind_local(sid, name, Src::Unknown, Some(node));
                    }
                } else {
                    self.dotted_chain(node, sid, src);
                }
            }
            "keyword_pattern" => {
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).skip(1).collect();
                for c in children {
                    self.pattern(c, sid, src);
                }
            }
            "identifier" => {
                let name = self.text(node).to_string();
                self.bind_local(sid, name, Src::Unknown, Some(node));
            }
            "as_pattern" => {
                let alias = node.field("alias");
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                for c in children {
                    if Some(c) == alias {
                        self.target(c, Some(Src::Unknown), sid, src);
                    } else {
                        self.pattern(c, sid, src);
                    }
                }
            }
            "if_clause" => self.visit(node, sid, src),
            _ => {
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                for c in children {
                    self.pattern(c, sid, src);
                }
            }
        }
    }

    /// A `dotted_name` used as a value (`case Color.RED`, `case Point()`).
    fn dotted_chain(&mut self, node: Node, sid: usize, src: u32) {
        let mut cur = node.walk();
        let ids: Vec<Node> = node
            .named_children(&mut cur)
            .filter(|c| c.kind_name() == "identifier")
            .collect();
        let Some(first) = ids.first() else { return };
        let name = self.text(*first).to_string();
        let ops = ids[1..]
            .iter()
            .map(|i| Op::Attr(self.text(*i).to_string(), pos(*i)))
            .collect();
        self.push_chain(
            node,
            Some((name, sid)),
            Root::Unknown,
            pos(*first),
            ops,
            src,
        );
    }

    // ---- expressions ------------------------------------------------------

    /// An annotation: every name in it is a reference; returns the chain of
    /// the type it declares (unwrapping `Optional[X]`, `X | None`, `"X"`).
    fn annotation(&mut self, node: Node, sid: usize, src: u32) -> Option<(u32, Cont)> {
        self.annot_visit(node, sid, src);
        let Some((p, cont)) = self.principal(node, Cont::One) else {
            // `list[A | B]`: a sequence of the union.
            if let Some((elem, k)) = self.container_element(node) {
                if let Some(c) = self.union_annotation(elem, src) {
                    return Some((c, k));
                }
            }
            return self.union_annotation(node, src).map(|c| (c, Cont::One));
        };
        let c = self
            .chain_at
            .get(&(p.start_byte(), p.end_byte()))
            .copied()?;
        self.record_tuple(p, c, 0);
        Some((c, cont))
    }

    /// A visited type that is a union of two or more classes (`A | B`,
    /// `Optional[Union[A, B]]`): the chain standing for it, its parts
    /// recorded in [`Refs::unions`]. pyright answers a member of such a
    /// value with each part's.
    fn union_annotation(&mut self, node: Node, src: u32) -> Option<u32> {
        let parts = self.union_members(node, 0)?;
        let mut chains = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for p in parts {
            let (pn, k) = self.principal(p, Cont::One)?;
            let pc = *self.chain_at.get(&(pn.start_byte(), pn.end_byte()))?;
            if !seen.contains(&self.text(p)) {
                seen.push(self.text(p));
                chains.push((pc, k));
            }
        }
        if chains.len() < 2 {
            return None;
        }
        let key = match self.chain_at.get(&(node.start_byte(), node.end_byte())) {
            Some(&c) => c,
            None => self.push_chain(node, None, Root::Unknown, pos(node), Vec::new(), src),
        };
        self.union_parts.insert(key, chains);
        Some(key)
    }

    /// The parts of a union type that are not `None` nor builtins, when
    /// two or more (see [`Self::union_principal`]); `Optional[…]`, `type`
    /// and parentheses unwrapped.
    fn union_members<'t>(&self, node: Node<'t>, depth: u32) -> Option<Vec<Node<'t>>> {
        if depth > 4 {
            return None;
        }
        let parts: Vec<Node<'t>> = match node.kind_name() {
            "type" | "parenthesized_expression" => {
                return self.union_members(node.named_child(0)?, depth + 1)
            }
            "subscript" | "generic_type" => match self.type_args(node)? {
                (_, "Optional", args) => return self.union_members(*args.first()?, depth + 1),
                (_, "Union", args) => args,
                _ => return None,
            },
            "binary_operator" | "union_type" => {
                let mut cur = node.walk();
                node.named_children(&mut cur).collect()
            }
            _ => return None,
        };
        let classes: Vec<Node<'t>> = self
            .union_flat(parts)
            .into_iter()
            .filter(|p| !self.is_builtin_type(*p))
            .collect();
        (classes.len() >= 2).then_some(classes)
    }

    /// When the type node `p` (whose chain is `c`) is a fixed-size tuple
    /// (`tuple[A, B]`, `Tuple[A, B]`), remember its parts' types.
    fn record_tuple(&mut self, p: Node, c: u32, depth: u32) {
        if depth > 3 {
            return;
        }
        let args: Vec<Node> = match (p.kind_name(), p.parent()) {
            ("subscript", _) => {
                let head = p.field("value").map(|v| self.text(v)).unwrap_or("");
                if !matches!(head.rsplit('.').next(), Some("tuple" | "Tuple")) {
                    return;
                }
                let mut cur = p.walk();
                p.children_by_field_name("subscript", &mut cur).collect()
            }
            ("identifier" | "attribute", Some(g)) if g.kind_name() == "generic_type" => {
                if !matches!(self.text(p).rsplit('.').next(), Some("tuple" | "Tuple")) {
                    return;
                }
                let Some(tp) = g.named_child(1) else { return };
                let mut cur = tp.walk();
                tp.named_children(&mut cur).collect()
            }
            _ => return,
        };
        if args.is_empty()
            || args
                .iter()
                .any(|a| self.text(*a).trim() == "..." || a.kind_name() == "comment")
        {
            return;
        }
        let mut parts = Vec::new();
        for a in args {
            let part = self.principal(a, Cont::One).and_then(|(pn, k)| {
                let pc = *self.chain_at.get(&(pn.start_byte(), pn.end_byte()))?;
                Some((pn, pc, k))
            });
            if let Some((pn, pc, _)) = part {
                self.record_tuple(pn, pc, depth + 1);
            }
            parts.push(part.map(|(_, pc, k)| (pc, k)));
        }
        self.tuple_parts.insert(c, parts);
    }

    fn annot_visit(&mut self, node: Node, sid: usize, src: u32) {
        match node.kind_name() {
            "string" => self.string_annotation(node, sid, src),
            "identifier" | "attribute" => {
                self.expr(node, sid, src);
            }
            "subscript" => {
                self.chain_expr(node, sid, src, true);
            }
            "member_type" => {
                let mut ids = Vec::new();
                if flatten_member(node, &mut ids) && !ids.is_empty() {
                    let name = self.text(ids[0]).to_string();
                    let ops = ids[1..]
                        .iter()
                        .map(|i| Op::Attr(self.text(*i).to_string(), pos(*i)))
                        .collect();
                    self.push_chain(
                        node,
                        Some((name, sid)),
                        Root::Unknown,
                        pos(ids[0]),
                        ops,
                        src,
                    );
                }
            }
            _ => {
                let mut cur = node.walk();
                let children: Vec<Node> = node.named_children(&mut cur).collect();
                for c in children {
                    self.annot_visit(c, sid, src);
                }
            }
        }
    }

    /// The type an annotation declares: the node naming it and whether it
    /// is a container of it (`cont` is the container already entered).
    fn principal<'t>(&self, node: Node<'t>, cont: Cont) -> Option<(Node<'t>, Cont)> {
        match node.kind_name() {
            "type" | "parenthesized_expression" => self.principal(node.named_child(0)?, cont),
            "identifier" | "attribute" | "string" | "member_type" => Some((node, cont)),
            "subscript" | "generic_type" => {
                let (value, head, args) = self.type_args(node)?;
                if TYPING_WRAPPERS.contains(&head) {
                    return self.principal(*args.first()?, cont);
                }
                if cont == Cont::One && head == "Callable" {
                    return self.principal(*args.get(1)?, Cont::Returns);
                }
                // `type[X]`: the class named, not an instance (`type[A | B]`
                // and `type[Any]` name no one class).
                if cont == Cont::One && (head == "type" || head == "Type") && args.len() == 1 {
                    return match self.principal(args[0], Cont::One)? {
                        (n, Cont::One) => Some((n, Cont::Class)),
                        _ => None,
                    };
                }
                if cont == Cont::One {
                    // What `with` enters gives its argument: read as a
                    // sequence of it, as a `@contextmanager`'s `Iterator`.
                    if SEQ_TYPES.contains(&head) || CONTEXT_MANAGERS.contains(&head) {
                        return self.principal(*args.first()?, Cont::Seq);
                    }
                    if MAP_TYPES.contains(&head) {
                        return self.principal(*args.get(1)?, Cont::Map);
                    }
                    // Tuple[X, ...] is a sequence of X.
                    if (head == "Tuple" || head == "tuple")
                        && args.len() == 2
                        && self.text(args[1]).trim() == "..."
                    {
                        return self.principal(args[0], Cont::Seq);
                    }
                }
                if head == "Union" {
                    return self.union_principal(args, cont);
                }
                let generic = node.kind_name() == "generic_type";
                Some((if generic { value } else { node }, cont))
            }
            "binary_operator" | "union_type" => {
                let mut cur = node.walk();
                let parts: Vec<Node> = node.named_children(&mut cur).collect();
                self.union_principal(parts, cont)
            }
            _ => None,
        }
    }

    /// The element type of a builtin sequence or mapping type (`list[X]`,
    /// `Optional[dict[str, X]]`, `Iterator[X] | None`) and which kind of
    /// container it is.
    fn container_element<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, Cont)> {
        match node.kind_name() {
            "type" | "parenthesized_expression" => self.container_element(node.named_child(0)?),
            "subscript" | "generic_type" => {
                let (_, head, args) = self.type_args(node)?;
                if TYPING_WRAPPERS.contains(&head) {
                    self.container_element(*args.first()?)
                } else if SEQ_TYPES.contains(&head) || CONTEXT_MANAGERS.contains(&head) {
                    Some((*args.first()?, Cont::Seq))
                } else if MAP_TYPES.contains(&head) {
                    Some((*args.get(1)?, Cont::Map))
                } else {
                    None
                }
            }
            "binary_operator" | "union_type" => {
                let mut cur = node.walk();
                match self.union_flat(node.named_children(&mut cur).collect())[..] {
                    [one] => self.container_element(one),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The principal type of a union: its one part that is not `None` nor
    /// a builtin type (`ContentRange | str | None` is a ContentRange for
    /// any member a str does not have, which is what pyright answers), or
    /// its first part when all are builtins (`bytes | bytearray`).
    fn union_principal<'t>(&self, parts: Vec<Node<'t>>, cont: Cont) -> Option<(Node<'t>, Cont)> {
        let flat = self.union_flat(parts);
        let head = |n: &Node| self.type_head(*n);
        let others: Vec<Node> = flat
            .iter()
            .copied()
            .filter(|p| !self.is_builtin_type(*p))
            .collect();
        match (&others[..], flat.first()) {
            ([one], _) => self.principal(*one, cont),
            ([], Some(first)) => self.principal(*first, cont),
            // One generic with different arguments (`IO[str] | IO[bytes]`):
            // its members are the generic's.
            ([first, rest @ ..], _)
                if head(first).is_some() && rest.iter().all(|p| head(p) == head(first)) =>
            {
                self.principal(*first, cont)
            }
            _ => None,
        }
    }

    /// The parts of a union (`A | B | C` nests: the binary operators
    /// flattened), `None` left out.
    fn union_flat<'t>(&self, parts: Vec<Node<'t>>) -> Vec<Node<'t>> {
        let mut flat = Vec::new();
        let mut stack = parts;
        stack.reverse();
        while let Some(p) = stack.pop() {
            let p = match p.kind_name() {
                "type" => p.named_child(0).unwrap_or(p),
                _ => p,
            };
            if matches!(p.kind_name(), "binary_operator" | "union_type") {
                let mut cur = p.walk();
                let mut inner: Vec<Node> = p.named_children(&mut cur).collect();
                inner.reverse();
                stack.extend(inner);
            } else if p.kind_name() != "none" && self.text(p) != "None" {
                flat.push(p);
            }
        }
        flat
    }

    /// The name a type is written with (`IO` of `IO[str]`), as written.
    fn type_head(&self, n: Node) -> Option<&'s str> {
        let n = match n.kind_name() {
            "type" => n.named_child(0).unwrap_or(n),
            _ => n,
        };
        match n.kind_name() {
            "subscript" => n.field("value").map(|v| self.text(v)),
            "generic_type" => n.named_child(0).map(|v| self.text(v)),
            "identifier" | "attribute" => Some(self.text(n)),
            _ => None,
        }
    }

    /// A builtin scalar, sequence or mapping type (`str`, `list[X]`).
    fn is_builtin_type(&self, n: Node) -> bool {
        self.type_head(n)
            .map(|h| h.rsplit('.').next().unwrap_or(h))
            .is_some_and(|h| {
                BUILTIN_TYPES.contains(&h) || SEQ_TYPES.contains(&h) || MAP_TYPES.contains(&h)
            })
    }

    /// A subscripted type (`Dict[K, V]`, `dict[K, V]`): the node naming
    /// the generic, its last dotted name, and the arguments.
    fn type_args<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, &'s str, Vec<Node<'t>>)> {
        let generic = node.kind_name() == "generic_type";
        let value = if generic {
            node.named_child(0)?
        } else {
            node.field("value")?
        };
        let head = self.text(value).rsplit('.').next().unwrap_or("");
        let mut cur = node.walk();
        let args: Vec<Node> = if generic {
            let tp = node.named_child(1)?;
            tp.named_children(&mut cur).collect()
        } else {
            node.children_by_field_name("subscript", &mut cur).collect()
        };
        Some((value, head, args))
    }

    /// `"Gateway"` or `"pkg.Gateway"` as an annotation.
    fn string_annotation(&mut self, node: Node, sid: usize, src: u32) {
        let mut cur = node.walk();
        let contents: Vec<Node> = node
            .named_children(&mut cur)
            .filter(|c| c.kind_name() == "string_content")
            .collect();
        if contents.len() != 1 || node.named_child_count() != 3 {
            return;
        }
        let content = contents[0];
        let text = self.text(content);
        let valid = !text.is_empty()
            && text.split('.').all(|seg| {
                let mut chars = seg.chars();
                chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                    && chars.all(|c| c.is_alphanumeric() || c == '_')
            });
        if !valid {
            return self.string_type_expr(node, content, sid, src);
        }
        let start = pos(content);
        let mut offset = 0u32;
        let mut segs = Vec::new();
        for seg in text.split('.') {
            segs.push((
                seg.to_string(),
                Pos {
                    line: start.line,
                    column: start.column + offset,
                },
            ));
            offset += seg.len() as u32 + 1;
        }
        let (first, first_pos) = segs[0].clone();
        let ops = segs[1..]
            .iter()
            .map(|(n, p)| Op::Attr(n.clone(), *p))
            .collect();
        self.push_chain(node, Some((first, sid)), Root::Unknown, first_pos, ops, src);
    }

    /// A string holding a type expression (`"ProgressBar[V]"`,
    /// `"Optional['Context']"`, `"t.Callable[[Ctx], R]"`): pyright parses it,
    /// so each dotted name in it is a reference (nothing inside
    /// `Literal[…]`). Only one-line strings without escapes, whose columns
    /// are the source's. The string stands for its first name's chain
    /// when that is no typing form (`"Bar[V]"` declares a `Bar`).
    fn string_type_expr(&mut self, node: Node, content: Node, sid: usize, src: u32) {
        let text = self.text(content);
        if text.contains(['\\', '\n', '\r'])
            || content.start_position().row != content.end_position().row
        {
            return;
        }
        let first = self.type_expr_names(node, text, pos(content), sid, src);
        self.chain_at.remove(&(node.start_byte(), node.end_byte()));
        if let Some((c, false)) = first {
            self.chain_at
                .insert((node.start_byte(), node.end_byte()), c);
        }
    }

    /// `x = None  # type: Foo` (PEP 484 type comments, which pyright
    /// reads): each dotted name of the type is a reference.
    fn type_comment(&mut self, comment: Node, sid: usize, src: u32) {
        let text = self.text(comment);
        let Some(rest) = text.strip_prefix('#') else {
            return;
        };
        let rest = rest.trim_start();
        let Some(ty) = rest.strip_prefix("type:") else {
            return;
        };
        let ty = ty.trim_start();
        // `# type: ignore` and `# type: ignore[code]` are no types.
        if ty.is_empty() || ty.starts_with("ignore") || ty.contains(['#', '\\']) {
            return;
        }
        let offset = (text.len() - ty.len()) as u32;
        let start = pos(comment);
        let start = Pos {
            line: start.line,
            column: start.column + offset,
        };
        self.type_expr_names(comment, ty, start, sid, src);
    }

    /// Each dotted name in a type expression written as text from
    /// `start` (nothing inside `Literal[…]`); the first one's chain, and
    /// whether it is a typing form.
    fn type_expr_names(
        &mut self,
        node: Node,
        text: &str,
        start: Pos,
        sid: usize,
        src: u32,
    ) -> Option<(u32, bool)> {
        let bytes = text.as_bytes();
        let ident_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
        let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut first = None;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if !ident_start(b) || (i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b'.')) {
                i += 1;
                continue;
            }
            // A dotted name: segments and their offsets.
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let s0 = j;
                while j < bytes.len() && ident(bytes[j]) {
                    j += 1;
                }
                segs.push((&text[s0..j], s0));
                if j + 1 < bytes.len() && bytes[j] == b'.' && ident_start(bytes[j + 1]) {
                    j += 1;
                } else {
                    break;
                }
            }
            i = j;
            let (name, off) = segs[0];
            if segs.len() == 1 && name == "Literal" && bytes.get(j) == Some(&b'[') {
                // Skip to the matching bracket.
                let mut level = 0;
                while i < bytes.len() {
                    match bytes[i] {
                        b'[' => level += 1,
                        b']' => {
                            level -= 1;
                            if level == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            if matches!(name, "None" | "True" | "False") {
                continue;
            }
            let at = |o: usize| Pos {
                line: start.line,
                column: start.column + o as u32,
            };
            let ops = segs[1..]
                .iter()
                .map(|(n, o)| Op::Attr(n.to_string(), at(*o)))
                .collect();
            let head = segs[segs.len() - 1].0;
            let c = self.push_chain(
                node,
                Some((name.to_string(), sid)),
                Root::Unknown,
                at(off),
                ops,
                src,
            );
            // A generic class's name says the type; a typing form's
            // (`"Optional[X]"`, `"List[X]"`) does not, as written.
            first.get_or_insert((
                c,
                is_type_form(head) || head == "Literal" || head == "Union",
            ));
        }
        first
    }

    fn push_chain(
        &mut self,
        top: Node,
        name: Option<(String, usize)>,
        root: Root,
        p: Pos,
        ops: Vec<Op>,
        src: u32,
    ) -> u32 {
        let idx = self.refs.chains.len() as u32;
        let root = match name {
            Some((n, sid)) => {
                // (A comprehension or lambda inside the narrowed block
                // sees the narrowing too, when the name is the same
                // variable there: checked in `finish`.)
                let inner_of = |s: usize| {
                    let mut x = sid;
                    while x != s {
                        if self.scopes[x].kind != ScopeKind::Inner {
                            return false;
                        }
                        match self.scopes[x].parent {
                            Some(p) => x = p,
                            None => return false,
                        }
                    }
                    true
                };
                // The latest narrowing of `key` since its last assignment,
                // and whether some `isinstance` of it is known false.
                let latest = |key: &str| {
                    let (mut found, mut excluded) = (None, false);
                    let entries = self.narrowing.iter().rev();
                    for (_, fact, s) in entries.filter(|(x, _, s)| x == key && inner_of(*s)) {
                        match *fact {
                            Narrow::Assigned => break,
                            Narrow::Not => excluded = true,
                            Narrow::Is(c) => {
                                found.get_or_insert((c, *s));
                            }
                        }
                    }
                    (found, excluded)
                };
                let (found, excluded) = latest(&n);
                if let Some((class, s)) = found {
                    self.narrowed.push((idx, class, s, n.clone(), !excluded));
                } else if let (Some(Op::Attr(a, _)), true) =
                    (ops.first(), ops.len() > 1 && !self.narrowing.is_empty())
                {
                    // `isinstance(self.x, C)` then `self.x.m()`.
                    if let (Some((class, s)), _) = latest(&format!("{n}.{a}")) {
                        self.narrowed_attrs.push((idx, class, s, n.clone()));
                    }
                }
                self.name(&n);
                // (Also through a comprehension or lambda around the use:
                // `[x.m() for …]` before `x = Foo()`.)
                if self.is_bare_param(sid, &n, p) {
                    self.param_uses.push(idx);
                }
                self.pending.push((idx, sid, n));
                Root::Unknown
            }
            None => root,
        };
        self.refs.chains.push(Chain {
            src,
            root,
            pos: p,
            ops,
            extends: false,
            args: Vec::new(),
        });
        self.chain_at
            .insert((top.start_byte(), top.end_byte()), idx);
        idx
    }

    /// Visit an expression; returns its chain when it is one.
    fn expr(&mut self, node: Node, sid: usize, src: u32) -> Option<u32> {
        match node.kind_name() {
            "identifier" | "attribute" | "call" | "subscript" | "await" | "binary_operator" => {
                self.chain_expr(node, sid, src, false)
            }
            "parenthesized_expression" if node.named_child_count() == 1 => {
                let inner = node.named_child(0)?;
                let c = self.expr(inner, sid, src)?;
                self.chain_at
                    .insert((node.start_byte(), node.end_byte()), c);
                Some(c)
            }
            _ => {
                self.visit(node, sid, src);
                None
            }
        }
    }

    fn chain_expr(&mut self, node: Node, sid: usize, src: u32, annot: bool) -> Option<u32> {
        let mut ops = Vec::new();
        let outer = std::mem::take(&mut self.call_args);
        let (name, root, p) = self.chain_parts(node, sid, src, annot, &mut ops);
        let args = std::mem::replace(&mut self.call_args, outer);
        if name.is_none() && matches!(root, Root::Unknown | Root::External) && ops.is_empty() {
            return None;
        }
        let c = self.push_chain(node, name.map(|n| (n, sid)), root, p, ops, src);
        self.refs.chains[c as usize].args = args;
        Some(c)
    }

    /// Build a chain bottom-up; arguments and indexes are visited as their
    /// own expressions.
    fn chain_parts(
        &mut self,
        node: Node,
        sid: usize,
        src: u32,
        annot: bool,
        ops: &mut Vec<Op>,
    ) -> (Option<String>, Root, Pos) {
        if self.depth >= MAX_NESTING {
            return (None, Root::Unknown, pos(node));
        }
        self.depth += 1;
        let r = self.chain_parts_node(node, sid, src, annot, ops);
        self.depth -= 1;
        r
    }

    fn chain_parts_node(
        &mut self,
        node: Node,
        sid: usize,
        src: u32,
        annot: bool,
        ops: &mut Vec<Op>,
    ) -> (Option<String>, Root, Pos) {
        match node.kind_name() {
            "identifier" => (Some(self.text(node).to_string()), Root::Unknown, pos(node)),
            "attribute" => {
                let r = match node.field("object") {
                    Some(o) => self.chain_parts(o, sid, src, annot, ops),
                    None => (None, Root::Unknown, pos(node)),
                };
                if let Some(a) = node.field("attribute") {
                    ops.push(Op::Attr(self.text(a).to_string(), pos(a)));
                }
                r
            }
            "call" => {
                let func = node.field("function");
                let args = node.field("arguments");
                // super() / super(C, self) in a method.
                if let Some(f) = func {
                    if f.kind_name() == "identifier" && self.text(f) == "super" {
                        if let Some(class) = self.enclosing_method_class(sid) {
                            if let Some(a) = args {
                                self.visit(a, sid, src);
                            }
                            return (None, Root::Super { class }, pos(f));
                        }
                    }
                }
                let r = match func {
                    Some(f) => self.chain_parts(f, sid, src, annot, ops),
                    None => (None, Root::Unknown, pos(node)),
                };
                if let Some(a) = args {
                    let callee = func
                        .filter(|f| matches!(f.kind_name(), "identifier" | "attribute"))
                        .map(|f| self.text(f).rsplit('.').next().unwrap_or(""))
                        .unwrap_or("");
                    self.arguments(a, callee, sid, src);
                    self.name_args(a, ops.len());
                }
                ops.push(Op::Call);
                r
            }
            "subscript" => {
                let value = node.field("value");
                let head = value
                    .filter(|v| matches!(v.kind_name(), "identifier" | "attribute"))
                    .map(|v| self.text(v).rsplit('.').next().unwrap_or(""))
                    .unwrap_or("");
                // `Literal["a"]` holds values, never names.
                let types = head != "Literal" && (annot || is_type_form(head));
                let r = match value {
                    Some(v) => self.chain_parts(v, sid, src, annot, ops),
                    None => (None, Root::Unknown, pos(node)),
                };
                let mut cur = node.walk();
                let subs: Vec<Node> = node.children_by_field_name("subscript", &mut cur).collect();
                let item = match subs[..] {
                    [s] if !types && s.kind_name() == "integer" => self.text(s).parse().ok(),
                    _ => None,
                };
                for s in subs {
                    if types {
                        self.annot_visit(s, sid, src);
                    } else {
                        self.expr(s, sid, src);
                    }
                }
                ops.push(item.map_or(Op::Index, Op::Item));
                r
            }
            "await" => match node.named_child(0) {
                Some(c) => {
                    let r = self.chain_parts(c, sid, src, annot, ops);
                    ops.push(Op::Await);
                    r
                }
                None => (None, Root::Unknown, pos(node)),
            },
            "parenthesized_expression" if node.named_child_count() == 1 => {
                match node.named_child(0) {
                    Some(c) => self.chain_parts(c, sid, src, annot, ops),
                    None => (None, Root::Unknown, pos(node)),
                }
            }
            "binary_operator" if !annot => {
                let op = node
                    .child_by_field_name("operator")
                    .and_then(|o| BinOp::parse(o.kind()));
                let (Some(l), Some(r), Some(op)) = (node.field("left"), node.field("right"), op)
                else {
                    self.visit(node, sid, src);
                    return (None, Root::Unknown, pos(node));
                };
                let left = self.operand(l, sid, src);
                let right = self.operand(r, sid, src);
                let root = match (left, right) {
                    (Operand::Literal, Operand::Literal) => Root::External,
                    _ => Root::Binary { left, op, right },
                };
                (None, root, pos(node))
            }
            k => {
                self.visit(node, sid, src);
                let root = if is_literal(k) {
                    Root::External
                } else {
                    Root::Unknown
                };
                (None, root, pos(node))
            }
        }
    }

    /// Visit an operand of a binary operator: its chain, or whether it is
    /// a literal.
    fn operand(&mut self, node: Node, sid: usize, src: u32) -> Operand {
        match self.expr(node, sid, src) {
            Some(c) => Operand::Chain(c),
            None if literal_operand(node) => Operand::Literal,
            None => Operand::Other,
        }
    }

    /// The positional arguments of the call at `ops[op]` that are names,
    /// as [`Chain::args`] (up to the first `*xs`, past which positions are
    /// unknown).
    fn name_args(&mut self, args: Node, op: usize) {
        let mut cur = args.walk();
        let mut at = 0u16;
        for a in args.named_children(&mut cur) {
            match a.kind_name() {
                "comment" | "keyword_argument" | "dictionary_splat" => continue,
                "list_splat" => break,
                "identifier" | "attribute" => {
                    if let Some(&c) = self.chain_at.get(&(a.start_byte(), a.end_byte())) {
                        self.call_args.push((op as u16, at, c));
                    }
                }
                _ => {}
            }
            at += 1;
        }
    }

    /// `cast(T, v)` (`typing.cast`, `t.cast`): the chain of the type `T`
    /// declares, once the call has been visited.
    fn cast_type(&self, call: Node) -> Option<(u32, Cont)> {
        if call.kind_name() != "call" {
            return None;
        }
        let f = call.field("function")?;
        if !matches!(f.kind_name(), "identifier" | "attribute")
            || self.text(f).rsplit('.').next() != Some("cast")
        {
            return None;
        }
        let first = call.field("arguments")?.named_child(0)?;
        let (p, cont) = self.principal(first, Cont::One)?;
        let c = self
            .chain_at
            .get(&(p.start_byte(), p.end_byte()))
            .copied()?;
        Some((c, cont))
    }

    /// A call's arguments. Those that are type expressions for pyright —
    /// `cast(T, v)`'s first, `TypeVar("T", A, B, bound=C)`'s constraints and
    /// bound — are visited as annotations, so `"Client"` there is a name.
    fn arguments(&mut self, args: Node, callee: &str, sid: usize, src: u32) {
        let type_arg = |i: usize, kw: Option<&str>| match callee {
            "cast" => kw.is_none() && i == 0,
            "TypeVar" => kw.map_or(i > 0, |k| k == "bound"),
            _ => false,
        };
        if !matches!(callee, "cast" | "TypeVar") || args.kind_name() != "argument_list" {
            return self.visit(args, sid, src);
        }
        let mut cur = args.walk();
        let children: Vec<Node> = args.named_children(&mut cur).collect();
        let mut positional = 0;
        for c in children {
            if c.kind_name() == "keyword_argument" {
                let kw = c.field("name").map(|n| self.text(n));
                match c.field("value") {
                    Some(v) if type_arg(0, kw) => self.annot_visit(v, sid, src),
                    _ => self.visit(c, sid, src),
                }
            } else {
                if type_arg(positional, None) {
                    self.annot_visit(c, sid, src);
                } else {
                    self.visit(c, sid, src);
                }
                positional += 1;
            }
        }
    }

    fn enclosing_function(&self, mut sid: usize) -> Option<u32> {
        loop {
            let s = &self.scopes[sid];
            match s.kind {
                ScopeKind::Function => return Some(s.def),
                ScopeKind::Inner => sid = s.parent?,
                _ => return None,
            }
        }
    }

    fn enclosing_method_class(&self, mut sid: usize) -> Option<u32> {
        loop {
            let s = &self.scopes[sid];
            if s.kind == ScopeKind::Function {
                if let Some(c) = s.method_of {
                    return Some(c);
                }
            }
            if s.kind == ScopeKind::Module || s.kind == ScopeKind::Class {
                return None;
            }
            sid = s.parent?;
        }
    }

    // ---- the end of the walk ----------------------------------------------

    /// The binding `name` has at `at` in scope `sid`.
    fn resolve_name(&self, sid: usize, name: &str, at: Pos) -> Root {
        match self.bind_of(sid, name, at) {
            Some(Bind::Def(d)) => Root::Def(d),
            Some(Bind::Import(i)) => Root::Import(i),
            Some(Bind::Local(l)) => {
                // In its own scope (or a comprehension in it, which runs
                // there), the local the last assignment at the top of the
                // body before `at` started.
                let mut owner = sid;
                while let Some(p) = self.scopes[owner].parent.filter(|_| {
                    let s = &self.scopes[owner];
                    s.kind == ScopeKind::Inner && !s.lambda && !s.binds.contains_key(name)
                }) {
                    owner = p;
                }
                let own = self.scopes[owner].binds.get(name) == Some(&Bind::Local(l));
                // (A declared type is what every use reads: httpx's `proxy:
                // ProxyTypes | None` parameter, reassigned `proxy =
                // Proxy(url=proxy) if … else proxy`.)
                let declared = || {
                    let srcs = &self.refs.locals[l as usize];
                    srcs.iter().any(|s| matches!(s, Src::Annot(..)))
                };
                let versions = self.scopes[owner]
                    .versions
                    .get(name)
                    .filter(|_| own && !declared());
                let last = versions.and_then(|v| v.iter().rev().find(|(start, _)| *start <= at));
                Root::Local(last.map_or(l, |&(_, v)| v))
            }
            Some(Bind::SelfParam { class, cls }) => Root::SelfParam { class, cls },
            None => match self.module_version(sid, name, at) {
                Some(l) => Root::Local(l),
                None => Root::Global(name.to_string()),
            },
        }
    }

    /// What `name` used at `at` in scope `sid` is bound to, as bound so
    /// far (`None`: a module-level or builtin name).
    fn bind_of(&self, sid: usize, name: &str, at: Pos) -> Option<Bind> {
        let mut s = sid;
        let mut first = true;
        loop {
            let sc = &self.scopes[s];
            match sc.kind {
                ScopeKind::Module => return None,
                ScopeKind::Class if !first => {}
                // `json_module = json` above a `def json`: the module.
                ScopeKind::Class if sc.bound_at.get(name).is_some_and(|b| at < *b) => {}
                _ => {
                    if sc.globals.iter().any(|g| g == name) {
                        return None;
                    }
                    if !sc.nonlocals.iter().any(|g| g == name) {
                        if let Some(b) = sc.binds.get(name) {
                            return Some(*b);
                        }
                    }
                }
            }
            first = false;
            s = sc.parent?;
        }
    }

    /// Whether `name` at `at` in scope `sid` is a local bound only as an
    /// unannotated function parameter so far ([`Src::Param`]).
    fn is_bare_param(&self, sid: usize, name: &str, at: Pos) -> bool {
        match self.bind_of(sid, name, at) {
            Some(Bind::Local(id)) => matches!(self.refs.locals[id as usize][..], [Src::Param]),
            _ => false,
        }
    }

    fn finish(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for (c, sid, name) in pending {
            let at = self.refs.chains[c as usize].pos;
            let root = self.resolve_name(sid, &name, at);
            self.refs.chains[c as usize].root = root;
        }
        for (c, class, s, name, keep) in std::mem::take(&mut self.narrowed) {
            let chain = &self.refs.chains[c as usize];
            // The variable the narrowing is about (not a comprehension's
            // own variable of that name).
            let same = matches!(chain.root, Root::Local(_) | Root::Global(_))
                && chain.root == self.resolve_name(s, &name, chain.pos);
            if same {
                let prior = match chain.root {
                    Root::Local(l) if keep => l,
                    _ => u32::MAX,
                };
                self.refs.chains[c as usize].root = Root::Narrowed { class, prior };
            }
        }
        // `self.x.m()` under `isinstance(self.x, C)`: a `C` then `.m()`,
        // when the name is the variable the narrowing was about.
        for (c, class, s, name) in std::mem::take(&mut self.narrowed_attrs) {
            let chain = &self.refs.chains[c as usize];
            let same = matches!(
                chain.root,
                Root::Local(_) | Root::Global(_) | Root::SelfParam { .. }
            ) && chain.root == self.resolve_name(s, &name, chain.pos);
            if same {
                // The attribute keeps its own site (`client.headers` under
                // `isinstance(client.headers, Headers)` still names the
                // property), in a chain of its own.
                let mut named = self.refs.chains[c as usize].clone();
                named.ops.truncate(1);
                let chain = &mut self.refs.chains[c as usize];
                chain.root = Root::Narrowed {
                    class,
                    prior: u32::MAX,
                };
                chain.ops.remove(0);
                self.refs.chains.push(named);
            }
        }
        // A bare parameter's use before anything is assigned to it: what is
        // assigned after does not reach it.
        for c in std::mem::take(&mut self.param_uses) {
            let chain = &mut self.refs.chains[c as usize];
            if let Root::Local(l) = chain.root {
                if !matches!(self.refs.locals[l as usize][..], [Src::Param]) {
                    chain.root = Root::Unknown;
                }
            }
        }
        // Exported: names listed in __all__ too.
        if let Some(all) = &self.scope.all {
            for d in self.defs.iter_mut().skip(1) {
                if d.parent == Some(0) && all.contains(&d.name) {
                    d.exported = true;
                }
            }
        }
        self.refs.tuples = by_chain(&self.tuple_parts);
        self.refs.unions = by_chain(&self.union_parts);
        // Decorator paths are looked up in the module: one whose first
        // name is bound in a function around (`@cli.command()` under a
        // local `cli`) is not followed.
        for (fi, sid, at) in std::mem::take(&mut self.deco_scopes) {
            let mut decos = std::mem::take(&mut self.scope.funcs[fi].decos);
            for d in &mut decos {
                for path in [&mut d.path, &mut d.cls] {
                    let first = path.split('.').next().unwrap_or("");
                    if !matches!(self.resolve_name(sid, first, at), Root::Global(_)) {
                        path.clear();
                    }
                }
            }
            self.scope.funcs[fi].decos = decos;
        }
        // Return annotations: chain → TypeRef.
        for (fi, c, k) in std::mem::take(&mut self.ret_chains) {
            self.scope.funcs[fi].ret = self.typeref(Rhs::Annot(c, k), 0);
        }
        for (fi, pi, c, k) in std::mem::take(&mut self.param_chains) {
            self.scope.funcs[fi].params[pi].ty = self.typeref(Rhs::Annot(c, k), 0);
        }
        // Unannotated functions: what they return, when every `return`
        // agrees (pyright infers it the same way).
        let mut returns: Vec<(u32, Vec<Returned>)> = std::mem::take(&mut self.returns)
            .into_iter()
            // (A generator's `return` is no value its call gives.)
            .filter(|(f, _)| !self.annotated_returns.contains(f) && !self.yields.contains_key(f))
            .collect();
        returns.sort_by_key(|(f, _)| *f);
        for (f, rets) in returns {
            let types: Vec<Option<TypeRef>> = rets
                .into_iter()
                .map(|r| match r {
                    Returned::Value(c) => c.and_then(|c| self.return_typeref(c)),
                    Returned::Tuple(parts) => {
                        let part = |p: Part| match p {
                            Part::Chain(c) => self.return_typeref(c).unwrap_or_else(|| {
                                TypeRef::of_parts(UNKNOWN_PATH, Cont::One, Vec::new())
                            }),
                            Part::Literal => {
                                TypeRef::of_parts(LITERAL_PATH, Cont::Value, Vec::new())
                            }
                            Part::Unknown => TypeRef::of_parts(UNKNOWN_PATH, Cont::One, Vec::new()),
                        };
                        let parts = parts.into_iter().map(part).collect();
                        Some(TypeRef::of_parts(TUPLE_PATH, Cont::One, parts))
                    }
                })
                .collect();
            if let Some(ty) = agreed(types) {
                self.infer_return(f, ty);
            }
        }
        // Unannotated generators: an iterator of what they yield, when
        // every `yield` agrees (pyright's `Generator[X, …]`): iterating
        // the call gives X, and so does entering it as a
        // `@contextmanager` (its `Iterator[X]` is read that way).
        let mut yields: Vec<(u32, Vec<Option<u32>>)> = std::mem::take(&mut self.yields)
            .into_iter()
            .filter(|(f, _)| !self.annotated_returns.contains(f))
            .collect();
        yields.sort_by_key(|(f, _)| *f);
        for (f, ys) in yields {
            let one = |t: &TypeRef| {
                t.cont == Cont::One
                    && ![LITERAL_PATH, UNION_PATH, UNKNOWN_PATH].contains(&t.path.as_str())
            };
            let types: Vec<Option<TypeRef>> = ys
                .into_iter()
                .map(|y| y.and_then(|c| self.return_typeref(c)).filter(one))
                .collect();
            if let Some(mut ty) = agreed(types) {
                ty.cont = Cont::Seq;
                self.infer_return(f, ty);
            }
        }
        let attrs = std::mem::take(&mut self.attr_assigns);
        for (ci, name, rhs, dead) in attrs {
            let ty = self.typeref(rhs, 0);
            let literal = matches!(rhs, Rhs::Literal);
            let class = &mut self.scope.classes[ci];
            if let Some(v) = class.attrs.iter_mut().find(|v| v.name == name) {
                v.dead &= dead;
                let was_literal = v.ty.as_ref().is_some_and(|t| t.path == LITERAL_PATH);
                if was_literal && !literal {
                    // Not only literals: what else is assigned (or nothing known).
                    v.ty = ty;
                } else if (v.ty.is_none() || matches!(rhs, Rhs::Annot(..)))
                    && ty.is_some()
                    && !literal
                {
                    // The first typed assignment, unless an annotation follows.
                    v.ty = ty;
                }
            } else {
                class.attrs.push(Var { name, ty, dead });
            }
        }
        let vars = std::mem::take(&mut self.var_assigns);
        for (name, rhs, dead) in vars {
            let ty = self.typeref(rhs, 0);
            self.name(&name);
            self.scope.vars.push(Var { name, ty, dead });
        }
        let mut extra = Vec::new();
        for t in self
            .scope
            .vars
            .iter()
            .filter_map(|v| v.ty.as_ref())
            .chain(self.scope.funcs.iter().filter_map(|f| f.ret.as_ref()))
            .chain(
                self.scope
                    .classes
                    .iter()
                    .flat_map(|c| c.attrs.iter().filter_map(|a| a.ty.as_ref())),
            )
        {
            extra.extend(t.path.split('.').map(str::to_string));
        }
        for c in &self.scope.classes {
            extra.extend(
                c.bases
                    .iter()
                    .flat_map(|b| b.split('.'))
                    .map(str::to_string),
            );
        }
        for n in extra {
            self.name(&n);
        }
    }

    /// A returned value as a type: `self`/`cls()` are `Self`.
    /// A `return`: what it gives, for an unannotated function's type.
    /// (Apart from `visit`, whose frame every level of nesting pays for.)
    #[inline(never)]
    fn return_statement(&mut self, node: Node, sid: usize, src: u32) {
        let value = node.named_child(0);
        let returned = match value {
            Some(v) if v.kind_name() == "none" => None,
            // `return a, b` (or `(a, b)`): a tuple of their types.
            Some(v) if matches!(v.kind_name(), "expression_list" | "tuple") => {
                let mut cur = v.walk();
                let items: Vec<Node> = v
                    .named_children(&mut cur)
                    .filter(|c| c.kind_name() != "comment")
                    .collect();
                let mut parts = Vec::with_capacity(items.len());
                for item in items {
                    parts.push(match item.kind_name() {
                        "list_splat" | "parenthesized_list_splat" => {
                            self.expr(item, sid, src);
                            Part::Unknown
                        }
                        k if literal_operand(item) || is_literal(k) => {
                            self.expr(item, sid, src);
                            Part::Literal
                        }
                        _ => self.expr(item, sid, src).map_or(Part::Unknown, Part::Chain),
                    });
                }
                Some(Returned::Tuple(parts))
            }
            Some(v) => Some(Returned::Value(self.expr(v, sid, src))),
            None => None,
        };
        if let (Some(f), Some(r)) = (self.enclosing_function(sid), returned) {
            self.returns.entry(f).or_default().push(r);
        }
    }

    /// A `yield`: what the generator gives, for its type.
    #[inline(never)]
    fn yield_expr(&mut self, node: Node, sid: usize, src: u32) {
        // `yield x`: one named child, the value; `yield from xs` has the
        // keyword `from` first.
        let from = node.child(1).is_some_and(|c| c.kind() == "from");
        let value = node.named_child(0).filter(|_| !from);
        let chain = value.map(|v| self.expr(v, sid, src));
        if let Some(f) = self.enclosing_function(sid) {
            self.yields.entry(f).or_default().push(chain.flatten());
        }
        if value.is_none() {
            self.block(node, sid, src);
        }
    }

    /// Function `f` (with no return annotation) gives `ty`.
    fn infer_return(&mut self, f: u32, ty: TypeRef) {
        match self.scope.funcs.iter_mut().find(|x| x.def == f) {
            Some(x) => x.ret = Some(ty),
            None => self.scope.funcs.push(Func {
                def: f,
                ret: Some(ty),
                flags: 0,
                decos: Vec::new(),
                params: Vec::new(),
                type_args: Vec::new(),
            }),
        }
    }

    fn return_typeref(&self, c: u32) -> Option<TypeRef> {
        let chain = self.refs.chains.get(c as usize)?;
        match (&chain.root, chain.ops.as_slice()) {
            (Root::SelfParam { cls: false, .. }, [])
            | (Root::SelfParam { cls: true, .. }, [Op::Call]) => Some(TypeRef {
                path: "Self".into(),
                call: false,
                cont: Cont::One,
                parts: Vec::new(),
            }),
            _ => self.typeref(Rhs::Value(c), 0),
        }
    }

    /// A tuple's or union's part (its type chain) as a [`TypeRef`], unknown
    /// when it is none.
    fn part_typeref(&self, part: Option<(u32, Cont)>, depth: u32) -> TypeRef {
        part.and_then(|(pc, pk)| self.typeref(Rhs::Annot(pc, pk), depth + 1))
            .unwrap_or_else(|| TypeRef::of_parts(UNKNOWN_PATH, Cont::One, Vec::new()))
    }

    /// A chain that is a plain dotted path from a module-level name (with an
    /// optional final call) as a [`TypeRef`]; locals are followed once.
    fn typeref(&self, rhs: Rhs, depth: u32) -> Option<TypeRef> {
        if depth > 3 {
            return None;
        }
        let (c, annot, cont) = match rhs {
            // A union of classes: each part's type.
            // (`list[A | B]`: a sequence of them.)
            Rhs::Annot(c, k @ (Cont::One | Cont::Seq | Cont::Map))
                if self.union_parts.contains_key(&c) =>
            {
                let parts = self.union_parts[&c]
                    .iter()
                    .map(|&p| self.part_typeref(Some(p), depth))
                    .collect();
                return Some(TypeRef::of_parts(UNION_PATH, k, parts));
            }
            // A fixed-size tuple (or a sequence of them): its parts' types.
            Rhs::Annot(c, k @ (Cont::One | Cont::Seq)) if self.tuple_parts.contains_key(&c) => {
                let parts = self.tuple_parts[&c]
                    .iter()
                    .map(|&p| self.part_typeref(p, depth))
                    .collect();
                return Some(TypeRef::of_parts(TUPLE_PATH, k, parts));
            }
            Rhs::Value(c) => (c, false, Cont::One),
            Rhs::Annot(c, k) => (c, true, k),
            Rhs::Literal => {
                return Some(TypeRef {
                    path: LITERAL_PATH.into(),
                    call: false,
                    cont: Cont::Value,
                    parts: Vec::new(),
                })
            }
            Rhs::Either(a, b) => {
                let t = self.typeref(Rhs::Value(a), depth + 1)?;
                return (self.typeref(Rhs::Value(b), depth + 1)? == t).then_some(t);
            }
            // `a, b = make()`: the value's path, unpacked.
            Rhs::Part(c, i) => {
                let t = self.typeref(Rhs::Value(c), depth + 1)?;
                return (t.cont == Cont::Value || (t.call && t.cont == Cont::One)).then_some(
                    TypeRef {
                        cont: Cont::Unpacked(i),
                        ..t
                    },
                );
            }
            // A copy of an annotated sequence: the same annotation; of
            // anything else, a builtin of unknown elements.
            Rhs::SeqOf(c) => {
                return self
                    .typeref(Rhs::Value(c), depth + 1)
                    .filter(|t| !t.call && t.cont == Cont::Seq)
                    .or(Some(TypeRef {
                        path: LITERAL_PATH.into(),
                        call: false,
                        cont: Cont::Value,
                        parts: Vec::new(),
                    }));
            }
            // A literal container of calls of one callee: a builtin
            // container of what the call makes.
            Rhs::LitOf(c, map) => {
                let cont = if map { Cont::Map } else { Cont::Seq };
                return self
                    .typeref(Rhs::Value(c), depth + 1)
                    .filter(|t| t.call && t.cont == Cont::One)
                    .map(|t| TypeRef { cont, ..t })
                    .or(Some(TypeRef {
                        path: LITERAL_PATH.into(),
                        call: false,
                        cont: Cont::Value,
                        parts: Vec::new(),
                    }));
            }
            Rhs::Unknown => return None,
        };
        let chain = self.refs.chains.get(c as usize)?;
        let mut path = match &chain.root {
            Root::Global(n) => n.clone(),
            Root::Local(l) if self.module_locals.contains_key(l) => self.module_locals[l].clone(),
            // `self._make()` in a method: resolved against the class.
            Root::SelfParam { cls: false, .. } if !chain.ops.is_empty() => SELF_PATH.to_string(),
            Root::SelfParam { cls: true, .. } if !chain.ops.is_empty() => CLS_PATH.to_string(),
            // `self.stream = environment._tokenize(…)` with a parameter
            // `environment: Environment`: a member of the annotated class.
            Root::Local(l) if matches!(chain.ops.first(), Some(Op::Attr(..))) => {
                let srcs = &self.refs.locals[*l as usize];
                let t = srcs.iter().find_map(|s| match *s {
                    Src::Annot(c, Cont::One) => self.typeref(Rhs::Annot(c, Cont::One), depth + 1),
                    _ => None,
                })?;
                if t.call
                    || t.cont != Cont::One
                    || t.path.starts_with('@')
                    || t.path == "Self"
                    || t.path.ends_with(".Self")
                {
                    return None;
                }
                t.path
            }
            Root::Local(l) if chain.ops.is_empty() => {
                let srcs = &self.refs.locals[*l as usize];
                let s = srcs
                    .iter()
                    .find(|s| matches!(s, Src::Annot(..)))
                    .or(srcs.first())?;
                return match *s {
                    Src::Annot(c, k) => self.typeref(Rhs::Annot(c, k), depth + 1),
                    Src::Value(c) if srcs.len() == 1 => self.typeref(Rhs::Value(c), depth + 1),
                    _ => None,
                };
            }
            _ => return None,
        };
        let mut call = false;
        let mut index = false;
        for (i, op) in chain.ops.iter().enumerate() {
            match op {
                Op::Attr(n, _) if !call => {
                    path.push('.');
                    path.push_str(n);
                }
                Op::Call
                    if !annot
                        && (i + 1 == chain.ops.len()
                            || (i + 2 == chain.ops.len() && chain.ops[i + 1] == Op::Await)) =>
                {
                    call = true
                }
                // (Another file's `x = await f()`: what `f` returns, as
                // before awaits were told apart.)
                Op::Await if call && i + 1 == chain.ops.len() => {}
                Op::Index | Op::Item(_) if i + 1 == chain.ops.len() => index = !annot,
                _ => return None,
            }
        }
        let cont = match (annot, call, index) {
            (false, false, true) => Cont::Subscript,
            (false, false, false) => Cont::Value,
            _ => cont,
        };
        Some(TypeRef {
            path,
            call,
            cont,
            parts: Vec::new(),
        })
    }
}

/// The one type all of `types` are (none when one is unknown or two
/// differ).
fn agreed(types: Vec<Option<TypeRef>>) -> Option<TypeRef> {
    let mut out: Option<TypeRef> = None;
    for t in types {
        let t = t?;
        match &out {
            None => out = Some(t),
            Some(prev) if *prev == t => {}
            Some(_) => return None,
        }
    }
    out
}

/// What a `return` gives, for inferring an unannotated function's type.
enum Returned {
    /// One value's chain (`None`: a value we cannot follow).
    Value(Option<u32>),
    /// `return a, b`: a tuple of these.
    Tuple(Vec<Part>),
}

/// A part of a returned tuple.
enum Part {
    Chain(u32),
    /// A literal: a builtin's value.
    Literal,
    Unknown,
}

/// The targets of an unpacking (`a, b = …`, `(a, b) = …`, `[a, b] = …`)
/// paired with the items of a literal sequence of as many (`A(), B()`,
/// `(A(), B())`, `[A(), B()]`); `None` for anything else (a starred target
/// or item, other counts, another value).
fn unpacked_items<'t>(left: Node<'t>, right: Node<'t>) -> Option<Vec<(Node<'t>, Node<'t>)>> {
    let items = |n: Node<'t>| -> Vec<Node<'t>> {
        let mut cur = n.walk();
        n.named_children(&mut cur)
            .filter(|c| c.kind_name() != "comment")
            .collect()
    };
    if !matches!(
        left.kind_name(),
        "pattern_list" | "tuple_pattern" | "list_pattern"
    ) || !matches!(right.kind_name(), "expression_list" | "tuple" | "list")
    {
        return None;
    }
    let (targets, values) = (items(left), items(right));
    let starred = |n: &Node| matches!(n.kind_name(), "list_splat_pattern" | "list_splat");
    if targets.len() != values.len() || targets.iter().chain(&values).any(starred) {
        return None;
    }
    Some(targets.into_iter().zip(values).collect())
}

/// A literal, or an operator of literals (`"a" + "b"`, which makes no
/// chain).
fn literal_operand(node: Node) -> bool {
    is_literal(node.kind_name())
        || (node.kind_name() == "binary_operator"
            && node.field("left").is_some_and(literal_operand)
            && node.field("right").is_some_and(literal_operand))
}

/// The one argument of `call` when it is a name, attribute, call or
/// subscript (a value with a type the resolver may know).
fn single_value_arg<'t>(call: Node<'t>) -> Option<Node<'t>> {
    let args = call.field("arguments")?;
    let mut cur = args.walk();
    let list: Vec<Node> = args
        .named_children(&mut cur)
        .filter(|a| a.kind_name() != "comment")
        .collect();
    match list[..] {
        [a] if matches!(
            a.kind_name(),
            "identifier" | "attribute" | "call" | "subscript"
        ) =>
        {
            Some(a)
        }
        _ => None,
    }
}

fn is_literal(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "concatenated_string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "list"
            | "dictionary"
            | "set"
            | "tuple"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "ellipsis"
    )
}

/// The identifier a parameter binds.
fn param_name(p: Node) -> Option<Node> {
    match p.kind_name() {
        "identifier" => Some(p),
        "default_parameter" | "typed_default_parameter" => {
            p.field("name").filter(|n| n.kind_name() == "identifier")
        }
        "typed_parameter" => {
            let c = p.named_child(0)?;
            match c.kind_name() {
                "identifier" => Some(c),
                "list_splat_pattern" | "dictionary_splat_pattern" => c.named_child(0),
                _ => None,
            }
        }
        "list_splat_pattern" | "dictionary_splat_pattern" => {
            p.named_child(0).filter(|n| n.kind_name() == "identifier")
        }
        _ => None,
    }
}

/// The identifiers of `a.b.C` parsed as a `member_type`.
fn flatten_member<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) -> bool {
    match n.kind_name() {
        "identifier" => {
            out.push(n);
            true
        }
        "type" => n.named_child(0).is_some_and(|c| flatten_member(c, out)),
        "attribute" => {
            let (Some(o), Some(a)) = (n.field("object"), n.field("attribute")) else {
                return false;
            };
            flatten_member(o, out) && {
                out.push(a);
                true
            }
        }
        "member_type" => {
            let (Some(t), Some(id)) = (n.named_child(0), n.named_child(1)) else {
                return false;
            };
            flatten_member(t, out) && {
                out.push(id);
                true
            }
        }
        _ => false,
    }
}

fn last_ident_pos(dotted: Node) -> Pos {
    let mut cur = dotted.walk();
    let last = dotted
        .named_children(&mut cur)
        .filter(|c| c.kind_name() == "identifier")
        .last();
    pos(last.unwrap_or(dotted))
}

#[cfg(test)]
mod tests;
