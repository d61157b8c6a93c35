//! Resolution rules for TypeScript/JavaScript, on small in-memory worlds.

use crate::extract::{self, Lang};
use crate::graph::EdgeKind;
use crate::resolve::{self, FileIdx, Layout, Strategy, World};

/// `(src key, dst key, kind, strategy, "line:col")` of every non-contains
/// edge, and the unresolved `(name, reason)`.
type Resolved = (
    Vec<(String, String, EdgeKind, Strategy, String)>,
    Vec<(String, String)>,
);

fn resolve_all(files: &[(&str, &str)]) -> Resolved {
    resolve_with(&[], files)
}

/// [`resolve_all`] with manifests (`package.json`, `tsconfig.json`) by path.
fn resolve_with(manifests: &[(&str, &str)], files: &[(&str, &str)]) -> Resolved {
    let facts: Vec<_> = files
        .iter()
        .map(|(p, s)| {
            let lang = Lang::of_path(p).unwrap();
            (p.to_string(), lang, extract::extract(lang, p, s.as_bytes()))
        })
        .collect();
    let mut layout = Layout::default();
    for (p, _, _) in &facts {
        layout.files.insert(p.clone());
    }
    for (p, text) in manifests {
        layout.manifests.insert(p.to_string(), text.to_string());
    }
    let world = World::new(
        facts
            .iter()
            .map(|(p, l, f)| resolve::world_input(p, *l, f))
            .collect(),
        &layout,
    );
    let prepared = resolve::prepare(&world);
    let mut edges = Vec::new();
    let mut unresolved = Vec::new();
    for (i, (_, _, f)) in facts.iter().enumerate() {
        let res = resolve::resolve_file(&world, &prepared, FileIdx(i as u32), &f.refs);
        for e in res.edges {
            if matches!(e.kind, EdgeKind::Contains | EdgeKind::Tests) {
                continue;
            }
            let site = e
                .site
                .map(|s| format!("{}:{}", s.line, s.column))
                .unwrap_or_default();
            edges.push((
                world.key(e.src).to_string(),
                world.key(e.dst).to_string(),
                e.kind,
                e.strategy,
                site,
            ));
        }
        for u in res.unresolved {
            unresolved.push((u.name, u.reason));
        }
    }
    (edges, unresolved)
}

fn targets(r: &Resolved, site: &str) -> Vec<String> {
    r.0.iter()
        .filter(|e| e.4 == site)
        .map(|e| e.1.clone())
        .collect()
}

#[test]
fn undeclared_names_are_globals_not_other_modules() {
    let r = resolve_all(&[
        ("a.ts", "export function helper() {}\n"),
        ("b.ts", "helper();\nexport {};\n"),
    ]);
    assert!(r.0.is_empty(), "{:?}", r.0);
}

#[test]
fn barrels_and_star_cycles() {
    let r = resolve_all(&[
        ("lib/impl.ts", "export class Impl { run() {} }\n"),
        (
            "lib/index.ts",
            "export * from './impl';\nexport * from './index';\n",
        ),
        (
            "app.ts",
            "import { Impl } from './lib';\nnew Impl().run();\nimport { Nope } from './lib';\n",
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("1:10"), ["lib/impl.ts:Impl"]);
    assert_eq!(at("2:5"), ["lib/impl.ts:Impl"]);
    assert_eq!(at("2:12"), ["lib/impl.ts:Impl.run"]);
    let new = r.0.iter().find(|e| e.4 == "2:5").unwrap();
    assert_eq!(new.2, EdgeKind::Calls);
    assert_eq!(new.3, Strategy::ReExport);
    let run = r.0.iter().find(|e| e.4 == "2:12").unwrap();
    assert_eq!(run.3, Strategy::TypedReceiver);
    assert!(at("3:10").is_empty());
}

#[test]
fn types_and_values_are_separate_namespaces() {
    let r = resolve_all(&[
        (
            "m.ts",
            "export const Schema = make();\nexport type Schema = { id: string };\nfunction make() { return 1; }\n",
        ),
        (
            "u.ts",
            "import { Schema } from './m';\nlet x: Schema;\nSchema.toString();\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:8"), ["m.ts:Schema"]);
    // The value `Schema` is a constant, not a node: no edge.
    assert!(targets(&r, "3:1").is_empty());
}

#[test]
fn unknown_receivers() {
    let r = resolve_all(&[
        ("a.ts", "export class A { settle() {} map() {} twice() {} }\n"),
        ("b.ts", "export class B { twice() {} }\n"),
        (
            "c.ts",
            "export function f() {\n  use((x) => {\n    x.settle();\n    x.map();\n    x.twice();\n  });\n}\ndeclare function use(cb: Function): void;\n",
        ),
        ("d.js", "function g(y) { y.settle(); }\nmodule.exports = g;\n"),
    ]);
    // (`use` declares no parameter types for `cb`: a declared `(x: any)`
    // would make `x` an `any`, never an in-repo class, like an `any`
    // parameter.) A unique method name in TypeScript: one weak edge.
    let settle = r.0.iter().find(|e| e.4 == "3:7").unwrap();
    assert_eq!(settle.1, "a.ts:A.settle");
    assert_eq!(settle.3, Strategy::Member { k: 1 });
    // Builtin-looking names are not guessed; two candidates are left to
    // the language server, and so is every guess in JavaScript.
    assert!(targets(&r, "4:7").is_empty());
    assert!(targets(&r, "5:7").is_empty());
    assert!(targets(&r, "1:19").is_empty());
    assert!(r
        .1
        .contains(&("twice".into(), "unknown receiver, 2 candidates".into())));
    assert!(r
        .1
        .contains(&("settle".into(), "unknown receiver, 1 candidate".into())));
}

#[test]
fn commonjs_and_export_equals() {
    let r = resolve_all(&[
        (
            "lib/u.js",
            "function fmt(x) { return x; }\nclass Ledger { add() {} }\nmodule.exports = { fmt, Ledger };\n",
        ),
        ("lib/k.js", "module.exports = class Klass { go() {} };\n"),
        ("lib/t.ts", "class T { m() {} }\nexport = T;\n"),
        (
            "app.js",
            "const u = require('./lib/u');\nconst K = require('./lib/k');\nu.fmt(1);\nconst f = u.fmt;\nnew K().go();\n",
        ),
        ("app2.ts", "import T = require('./lib/t');\nnew T().m();\n"),
    ]);
    assert_eq!(targets(&r, "3:3"), ["lib/u.js:fmt"]);
    // A non-call use of a `module.exports` property names the property.
    assert!(targets(&r, "4:13").is_empty());
    assert_eq!(targets(&r, "5:5"), ["lib/k.js:Klass"]);
    assert_eq!(targets(&r, "5:9"), ["lib/k.js:Klass.go"]);
    let app2: Vec<_> = r.0.iter().filter(|e| e.0 == "app2.ts").collect();
    assert!(app2.iter().any(|e| e.1 == "lib/t.ts:T.m"), "{app2:?}");
}

#[test]
fn prototype_methods_of_a_constructor_function() {
    // express's router: `Layer.prototype.match = function match(…) {…}`
    // makes `match` a method of `Layer`, which tsserver makes a class: an
    // instance from `new Layer()` (here or where `Layer` is required)
    // reaches it, and `this` inside another prototype method is a `Layer`.
    let r = resolve_all(&[
        (
            "lib/layer.js",
            "function Layer(path) { this.path = path; this.match(path); }\nLayer.prototype.match = function match(p) { return p; };\nLayer.prototype.handle = function (req) { return this.match(req); };\n['a'].forEach(function (n) { Layer.prototype[n] = function () { return this.match(n); }; });\n/** @returns {Layer} */\nfunction make() { return new Layer('/'); }\nmodule.exports = Layer;\n",
        ),
        (
            "lib/router.js",
            "var Layer = require('./layer');\nfunction route(p) { var l = new Layer(p); return l.match(p) && l.handle(p); }\n",
        ),
        (
            "lib/other.js",
            "function Other() {}\nOther.prototype = {};\nfunction f(x) { x.prototype.go = function go() {}; }\n",
        ),
        ("lib/one.js", "var Layer = require('./layer');\nconst one = module.exports = exports = new Layer('/');\n"),
        ("lib/use.js", "const one = require('./one');\n\none.handle('/');\n"),
        (
            "lib/static.js",
            "function S() {}\nS.prototype.set = function set() {};\nS.set = function set() {};\nS.set();\nnew S().set();\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:55"), ["lib/layer.js:Layer.match"]);
    // mongoose: `module.exports = exports = new Mongoose()` exports the
    // instance.
    assert_eq!(targets(&r, "3:5"), ["lib/layer.js:Layer.handle"]);
    // `this` in the constructor function's own body, before the prototype
    // assignments.
    assert_eq!(targets(&r, "1:47"), ["lib/layer.js:Layer.match"]);
    // mongoose: a static `S.set` beside `S.prototype.set` is the static
    // (no node), an instance's `set` the prototype method.
    let on = |line: &str| -> Vec<&str> {
        r.0.iter()
            .filter(|e| e.0.starts_with("lib/static.js") && e.4 == line)
            .map(|e| e.1.as_str())
            .collect()
    };
    assert_eq!(on("4:3"), Vec::<&str>::new());
    assert_eq!(on("5:9"), ["lib/static.js:S.set"]);
    // `this` in a function assigned to a computed prototype member.
    assert_eq!(targets(&r, "4:77"), ["lib/layer.js:Layer.match"]);
    // The class is a type in JSDoc.
    assert!(
        r.0.iter()
            .any(|e| e.0 == "lib/layer.js" && e.4 == "5:15" && e.1 == "lib/layer.js:Layer"),
        "{:?}",
        r.0
    );
    assert_eq!(targets(&r, "2:52"), ["lib/layer.js:Layer.match"]);
    assert_eq!(targets(&r, "2:66"), ["lib/layer.js:Layer.handle"]);
    // `Layer` in `Layer.prototype.match` is a reference to `Layer`.
    assert!(r
        .0
        .iter()
        .any(|e| e.0 == "lib/layer.js" && e.4 == "2:1" && e.1 == "lib/layer.js:Layer"));
    let facts = extract::extract(
        Lang::JavaScript,
        "lib/layer.js",
        b"function Layer() {}\nLayer.prototype.match = function match() {};\nLayer.prototype.go = function () {};\n",
    );
    let defs: Vec<_> = facts
        .defs
        .iter()
        .map(|d| (d.local.as_str(), d.kind, d.pos.line, d.pos.column))
        .collect();
    assert!(
        defs.contains(&("Layer", crate::graph::NodeKind::Class, 1, 10)),
        "{defs:?}"
    );
    // Named at the function expression's name, else at the property.
    assert!(
        defs.contains(&("Layer.match", crate::graph::NodeKind::Method, 2, 34)),
        "{defs:?}"
    );
    assert!(
        defs.contains(&("Layer.go", crate::graph::NodeKind::Method, 3, 17)),
        "{defs:?}"
    );
    // Not for a parameter's prototype.
    let other = extract::extract(
        Lang::JavaScript,
        "lib/other.js",
        b"function f(x) { x.prototype.go = function go() {}; }\n",
    );
    assert!(!other.defs.iter().any(|d| d.name == "go"));
}

#[test]
fn self_members_inheritance_and_fields() {
    let r = resolve_all(&[
        (
            "base.ts",
            "export interface Port { send(): void }\nexport class Base { protected log() {} }\n",
        ),
        (
            "sub.ts",
            "import { Base, Port } from './base';\nclass Sub extends Base {\n  private port!: Port;\n  run() { this.log(); this.port.send(); }\n}\n",
        ),
    ]);
    let log = r.0.iter().find(|e| e.4 == "4:16").unwrap();
    assert_eq!(log.1, "base.ts:Base.log");
    assert_eq!(log.3, Strategy::SelfMember);
    let send = r.0.iter().find(|e| e.4 == "4:33").unwrap();
    assert_eq!(send.1, "base.ts:Port.send");
    assert_eq!(send.3, Strategy::TypedReceiver);
    let ext = r.0.iter().find(|e| e.2 == EdgeKind::Extends).unwrap();
    assert_eq!(
        (ext.0.as_str(), ext.1.as_str()),
        ("sub.ts:Sub", "base.ts:Base")
    );
}

/// zod's published shape: declarations beside the built JavaScript, a
/// re-export of `./classic/index.cjs` meaning its `.d.cts`, overloaded
/// `declare function`s whose first signature gives the type of a call, and
/// members inherited through interfaces.
#[test]
fn declarations_beside_output_and_overload_returns() {
    let r = resolve_all(&[
        ("v4/index.d.cts", "export * from \"./classic/index.cjs\";\n"),
        ("v4/classic/index.cjs", "module.exports = {};\n"),
        (
            "v4/classic/index.d.cts",
            concat!(
                "export interface ZodType { parse(data: unknown): unknown; }\n",
                "export interface ZodString extends ZodType { min(n: number): this; }\n",
                "export declare function string(): ZodString;\n",
                "export declare function string<T extends string>(p: T): Other;\n",
                "interface Other { parse(): void; }\n",
            ),
        ),
        (
            "t.test.ts",
            "import * as z from \"./v4/index.cjs\";\nz.string().parse(1);\n",
        ),
    ]);
    assert_eq!(
        targets(&r, "2:3"),
        ["v4/classic/index.d.cts:string"],
        "{:?}",
        r.0
    );
    assert_eq!(
        targets(&r, "2:12"),
        ["v4/classic/index.d.cts:ZodType.parse"]
    );
}

/// `this.parse = this.parse.bind(this)` (zod v3's constructor): in
/// TypeScript the write names the declared method, and tsserver lists it
/// among the method's references; in JavaScript it declares a property.
#[test]
fn writes_through_this_reference_declared_members() {
    let r = resolve_all(&[
        (
            "a.ts",
            "export class T {\n  constructor() {\n    this.parse = this.parse.bind(this);\n  }\n  parse() {}\n}\n",
        ),
        (
            "b.js",
            "class J {\n  constructor() {\n    this.run = 1;\n  }\n  run() {}\n}\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:10"), ["a.ts:T.parse"]);
    assert_eq!(targets(&r, "3:23"), ["a.ts:T.parse"]);
    assert!(
        !r.0.iter().any(|e| e.0.starts_with("b.js") && e.4 == "3:10"),
        "{:?}",
        r.0
    );
}

/// Builder chains typed by a polymorphic `this` return
/// (`z.string().min(1).parse(x)`): the call gives back its receiver, so an
/// override in the receiver's own class is found, not the base's.
#[test]
fn polymorphic_this_returns_give_the_receiver() {
    let r = resolve_all(&[(
        "s.ts",
        concat!(
            "interface Base { min(n: number): this; parse(x: unknown): unknown; }\n",
            "interface Str extends Base { parse(x: unknown): string; }\n",
            "declare function string(): Str;\n",
            "const s = string().min(1);\n",
            "s.parse(1);\n",
            "string().min(2).min(3).parse(2);\n",
        ),
    )]);
    assert_eq!(targets(&r, "5:3"), ["s.ts:Str.parse"], "{:?}", r.0);
    assert_eq!(targets(&r, "6:24"), ["s.ts:Str.parse"]);
    assert_eq!(targets(&r, "6:17"), ["s.ts:Base.min"]);
}

/// An implementation's callers see its overload signatures, not its body:
/// `literal("x")` has the first signature's return type (zod's
/// `z.literal(…).parse`, whose implementation returns `new ZodLiteral(…)`
/// through an untyped constructor constant).
#[test]
fn overloaded_implementations_return_the_signature_type() {
    let r = resolve_all(&[(
        "s.ts",
        concat!(
            "interface Lit { parse(x: unknown): unknown; }\n",
            "declare const Make: any;\n",
            "export function literal(v: string): Lit;\n",
            "export function literal(v: number): Lit;\n",
            "export function literal(v: any) {\n  return new Make(v);\n}\n",
            "literal('a').parse(1);\n",
        ),
    )]);
    assert_eq!(targets(&r, "8:14"), ["s.ts:Lit.parse"], "{:?}", r.0);
    assert_eq!(targets(&r, "8:1"), ["s.ts:literal"]);
}

/// Properties of an object literal held by a constant (zod v3's
/// `z.coerce.string()`): a property's value is a receiver, cast types
/// included (`as (typeof ZodString)["create"]`, an indexed access on a
/// `typeof`); the property itself is no node, so naming it gives no edge.
#[test]
fn object_literal_properties_and_indexed_access_casts() {
    let r = resolve_all(&[
        (
            "types.ts",
            concat!(
                "export class ZodString {\n",
                "  parse(x: unknown): string { return ''; }\n",
                "  static create = (p?: {}): ZodString => new ZodString();\n",
                "}\n",
                "function make() { return new ZodString(); }\n",
                "export const coerce = {\n",
                "  string: ((arg) => ZodString.create(arg)) as (typeof ZodString)[\"create\"],\n",
                "  make,\n",
                "  ...{ other: 1 },\n",
                "};\n",
                "export const closed = { a: make };\n",
            ),
        ),
        (
            "t.ts",
            concat!(
                "import * as z from './types';\n",
                "const schema = z.coerce.string();\n",
                "schema.parse('x');\n",
                "z.coerce.make().parse(1);\n",
                "z.closed.a().parse(2);\n",
                "z.closed.b().parse(3);\n",
                "z.coerce.unknownName().parse(4);\n",
            ),
        ),
    ]);
    assert_eq!(
        targets(&r, "3:8"),
        ["types.ts:ZodString.parse"],
        "{:?}",
        r.0
    );
    // The property names the literal's property, not `create`.
    assert!(targets(&r, "2:25").is_empty(), "{:?}", r.0);
    // A shorthand property holds the function; calling it gives its return.
    assert!(targets(&r, "4:10").is_empty());
    assert_eq!(targets(&r, "4:17"), ["types.ts:ZodString.parse"]);
    assert_eq!(targets(&r, "5:14"), ["types.ts:ZodString.parse"]);
    // Not a property of a closed literal: a builtin at most, never a guess.
    assert!(targets(&r, "6:14").is_empty());
    // A spread may bring any name: unknown, so left to a guess.
    assert!(r
        .1
        .iter()
        .all(|u| u.0 != "parse" || u.1.contains("candidate")));
}

/// Properties of an object literal with a contextual type name that type's
/// members (tsserver defines them there and lists them as references):
/// an annotated constant, a declared return type (arrow body and `return`),
/// `satisfies`/`as`, a typed class field, `Omit<T, K>`, nested literals.
#[test]
fn object_literal_properties_name_the_contextual_type_members() {
    let r = resolve_all(&[(
        "p.ts",
        concat!(
            "interface Pipeable { pipe(): unknown; }\n",
            "interface Level extends Pipeable { label: string; sub: Pipeable; }\n",
            "const a: Level = { label: 'x', pipe() { return 1; }, sub: { pipe: () => 2 } };\n",
            "const b = (): Level => ({ pipe() {} });\n",
            "function c(): Promise<Pipeable> { return { pipe() {} } as any; }\n",
            "function d(): Pipeable { return { pipe() {} }; }\n",
            "const e = { pipe() {} } satisfies Pipeable;\n",
            "const f: Omit<Level, 'label'> = { pipe() {} };\n",
            "class G { p: Pipeable = { pipe() {} }; }\n",
            "const h = { pipe() {} };\n",
            "const i: Level = { nope: 1, ['pipe']() {} };\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    let all: Vec<_> = r.0.iter().map(|e| format!("{} {}", e.4, e.1)).collect();
    assert_eq!(at("3:32"), ["p.ts:Pipeable.pipe"], "{all:?}");
    // A field is no node; a nested literal gets the field's type.
    assert!(at("3:20").is_empty());
    assert_eq!(at("3:61"), ["p.ts:Pipeable.pipe"]);
    assert_eq!(at("4:27"), ["p.ts:Pipeable.pipe"]);
    // `as any` takes the literal out of the declared return type's context.
    assert!(at("5:44").is_empty());
    assert_eq!(at("6:35"), ["p.ts:Pipeable.pipe"]);
    assert_eq!(at("7:13"), ["p.ts:Pipeable.pipe"]);
    assert_eq!(at("8:35"), ["p.ts:Pipeable.pipe"]);
    assert_eq!(at("9:27"), ["p.ts:Pipeable.pipe"]);
    // No contextual type: the literal's own property.
    assert!(at("10:13").is_empty());
    // Neither an unknown name nor a computed key.
    assert_eq!(r.0.iter().filter(|e| e.4.starts_with("11:")).count(), 1);
}

/// An object literal passed to a call of a parameter declared a function
/// type (trpc's `observable(subscribe: (observer: Observer<…>) => …)`
/// calling `subscribe({ next(v) {…} })`) is checked against the parameter
/// type that function type declares: its properties name the members.
#[test]
fn an_object_literal_passed_to_a_function_typed_parameter_names_its_type_members() {
    let r = resolve_all(&[(
        "o.ts",
        concat!(
            "interface Observer { next(v: number): void; error(e: unknown): void; }\n",
            "export function observable(subscribe: (observer: Observer) => void, plain: any) {\n",
            "  subscribe({ next(v) {}, error: (e) => {} });\n",
            "  plain({ next() {} });\n",
            "}\n",
            "class C { constructor(run: (o: Observer) => void) { run({ next() {} }); } }\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    let all: Vec<_> = r.0.iter().map(|e| format!("{} {}", e.4, e.1)).collect();
    assert_eq!(at("3:15"), ["o.ts:Observer.next"], "{all:?}");
    assert_eq!(at("3:27"), ["o.ts:Observer.error"], "{all:?}");
    // A parameter of no function type: the literal's own property.
    assert!(at("4:11").is_empty(), "{all:?}");
    assert_eq!(at("6:59"), ["o.ts:Observer.next"], "{all:?}");
}

/// A namespace merges into the interface of its name even when a constant
/// of that name stands between them (effect's `interface Scope`,
/// `const Scope`, `namespace Scope`), and the qualifier of a type name is
/// that namespace, not the constant: `Scope.Closeable`, and through a
/// namespace import `Scope.Scope.Closeable`.
#[test]
fn type_qualifiers_are_namespaces_not_same_named_constants() {
    let r = resolve_all(&[
        (
            "Scope.ts",
            concat!(
                "export interface Scope { close(): void; }\n",
                "export const Scope: number = 1;\n",
                "export declare namespace Scope {\n  export interface Closeable { x(): void; }\n}\n",
                "let a: Scope.Closeable;\n",
                "let b: Scope;\n",
            ),
        ),
        (
            "u.ts",
            "import * as Scope from './Scope';\nlet c: Scope.Scope.Closeable;\nScope.Scope.toFixed();\n",
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert!(
        !r.0.iter().any(|e| e.1.contains('#')),
        "one node: {:?}",
        r.0
    );
    assert_eq!(at("6:8"), ["Scope.ts:Scope"], "{:?}", r.0);
    assert_eq!(at("6:14"), ["Scope.ts:Scope.Closeable"]);
    assert_eq!(at("7:8"), ["Scope.ts:Scope"]);
    let u: Vec<_> = r.0.iter().filter(|e| e.0.starts_with("u.ts")).collect();
    assert!(
        u.iter().any(|e| e.4 == "2:14" && e.1 == "Scope.ts:Scope"),
        "{u:?}"
    );
    assert!(u
        .iter()
        .any(|e| e.4 == "2:20" && e.1 == "Scope.ts:Scope.Closeable"));
    // In a value, `Scope.Scope` is the constant (no node).
    assert!(!u.iter().any(|e| e.4.starts_with("3:")), "{u:?}");
}

/// Constants typed by a function type or by call signatures (effect's
/// `export const succeed: <A>(a: A) => Effect<A> = core.succeed` and its
/// dual APIs): a call gives the declared result, so `.pipe` on it is the
/// interface's. A data-last signature (returning a function) is skipped.
#[test]
fn function_typed_constants_give_their_declared_results() {
    let r = resolve_all(&[
        (
            "Effect.ts",
            concat!(
                "interface Pipeable { pipe(): unknown; }\n",
                "export interface Effect<A> extends Pipeable { a: A; }\n",
                "declare const core: any;\n",
                "export const succeed: <A>(a: A) => Effect<A> = core.succeed;\n",
                "export const map: {\n",
                "  <A, B>(f: (a: A) => B): (self: Effect<A>) => Effect<B>;\n",
                "  <A, B>(self: Effect<A>, f: (a: A) => B): Effect<B>;\n",
                "} = core.map;\n",
                "export const id: <A>(a: A) => A = core.id;\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import * as Effect from './Effect';\n",
                "Effect.succeed(1).pipe();\n",
                "Effect.map(Effect.succeed(1), (n) => n).pipe();\n",
                "Effect.id(1).pipe();\n",
                "const f = (g: (n: number) => Effect.Effect<number>) => g(1).pipe();\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:19"), ["Effect.ts:Pipeable.pipe"], "{:?}", r.0);
    assert_eq!(at("3:41"), ["Effect.ts:Pipeable.pipe"]);
    // A type parameter's value is not known: no edge and no guess.
    assert!(at("4:14").is_empty());
    assert_eq!(at("5:61"), ["Effect.ts:Pipeable.pipe"], "{:?}", r.0);
    // The constants themselves are no nodes.
    assert!(at("2:8").is_empty());
}

/// An untyped parameter of a function passed as an argument takes the type
/// the callee declares for it (zod's `s.superRefine((val, ctx) =>
/// ctx.addIssue(…))`, `z.preprocess((val, ctx) => …, s)`); a type
/// parameter of the callee stays unknown (left to a guess).
#[test]
fn callback_parameters_take_the_callee_declared_types() {
    let r = resolve_all(&[
        (
            "api.ts",
            concat!(
                "export interface Ctx<T> { addIssue(i: T): void; }\n",
                "export interface Schema {\n",
                "  superRefine(f: (arg: unknown, ctx: Ctx<unknown>) => void): this;\n",
                "  map<T>(f: (arg: T) => void): this;\n",
                "}\n",
                "export declare function string(): Schema;\n",
                "export function preprocess(fn: (arg: unknown, ctx: Ctx<string>) => unknown, s: Schema) { return s; }\n",
            ),
        ),
        (
            "t.ts",
            concat!(
                "import * as z from './api';\n",
                "z.string().superRefine((val, ctx) => { ctx.addIssue(val); });\n",
                "z.preprocess(function (val, ctx) { ctx.addIssue(1); }, z.string());\n",
                "z.preprocess(ctx => ctx.addIssue(2), z.string());\n",
                "z.string().map((x) => x.addIssue(3));\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:44"), ["api.ts:Ctx.addIssue"], "{:?}", r.0);
    assert_eq!(at("3:40"), ["api.ts:Ctx.addIssue"]);
    // The first parameter is `unknown`: no edge, not even a guess.
    assert!(at("4:25").is_empty(), "{:?}", r.0);
    // A type parameter: the receiver is unknown, as before (a unique
    // method name is guessed).
    let guess = r.0.iter().find(|e| e.4 == "5:25").unwrap();
    assert_eq!(guess.3, Strategy::Member { k: 1 });
}

/// A type alias is its constituents (effect's `type Option<A> = None<A> |
/// Some<A>`, `type LogLevel = All | Fatal | …`): a member every constituent
/// inherits from the same declaration is that declaration (`.pipe` of an
/// `Option` is `Pipeable.pipe`), also for an object literal the alias types;
/// a member the constituents declare each for itself has no one target. An
/// alias of one type or of an intersection has its parts' members.
#[test]
fn type_aliases_of_unions_share_their_constituents_members() {
    let r = resolve_all(&[
        (
            "Option.ts",
            concat!(
                "export interface Pipeable { pipe(): unknown; }\n",
                "export interface None<A> extends Pipeable { readonly _tag: 'None'; }\n",
                "export interface Some<A> extends Pipeable { readonly _tag: 'Some'; value: A; }\n",
                "export type Option<A> = None<A> | Some<A> | undefined;\n",
                "export type Same<A> = Some<A>;\n",
                "export interface Tagged { tag(): string; }\n",
                "export type Both<A> = Some<A> & Tagged;\n",
                "export type Loose<A> = Some<A> | { pipe(): number };\n",
                "export declare function get<A>(a: A): Option<A>;\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import * as O from './Option';\n",
                "O.get(1).pipe();\n",
                "O.get(1)._tag;\n",
                "const s: O.Same<number> = O.get(1) as any; s.pipe();\n",
                "declare const b: O.Both<number>; b.tag(); b.pipe();\n",
                "declare const l: O.Loose<number>; l.pipe();\n",
                "export const none: O.Option<number> = { _tag: 'None', pipe() { return 1 } };\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:10"), ["Option.ts:Pipeable.pipe"], "{:?}", r.0);
    // `_tag` is declared by each constituent: no edge.
    assert!(at("3:10").is_empty(), "{:?}", r.0);
    assert_eq!(at("4:46"), ["Option.ts:Pipeable.pipe"]);
    assert_eq!(at("5:36"), ["Option.ts:Tagged.tag"]);
    assert_eq!(at("5:45"), ["Option.ts:Pipeable.pipe"]);
    // A constituent that names no type: nothing known.
    assert!(at("6:37").is_empty(), "{:?}", r.0);
    assert_eq!(at("7:55"), ["Option.ts:Pipeable.pipe"], "{:?}", r.0);
    assert!(at("7:41").is_empty(), "{:?}", r.0);
}

/// A callback passed to a call with explicit type arguments takes its
/// parameter types from the function type argument with its arity when
/// none has more (effect's `dual<DataLast, DataFirst>(2, (self, f) =>
/// self.modify(f))`); a callback with fewer parameters than the widest
/// function type gets no type from them.
#[test]
fn callbacks_take_explicit_function_type_arguments() {
    let r = resolve_all(&[
        (
            "TRef.ts",
            concat!(
                "export interface TRef<A> { modify(f: (a: A) => A): A; get(): A; }\n",
                "export declare const dual: <L extends Function, F extends Function>(n: number, body: F) => L & F;\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import * as T from './TRef';\n",
                "export const modify = T.dual<\n",
                "  <A>(f: (a: A) => A) => (self: T.TRef<A>) => A,\n",
                "  <A>(self: T.TRef<A>, f: (a: A) => A) => A\n",
                ">(2, (self, f) => self.modify(f));\n",
                "export const get = T.dual<(that: T.TRef<number>) => number, (self: T.TRef<number>, that: T.TRef<number>) => number>(\n",
                "  2, (self) => self.get());\n",
                "export const one = T.dual<(self: T.TRef<number>) => number, (self: T.TRef<number>) => number>(\n",
                "  1, function (self) { return self.get() });\n",
                "export const arrow = T.dual<() => number, (self: T.TRef<number>) => number>(1, self => self.get());\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("5:24"), ["TRef.ts:TRef.modify"], "{:?}", r.0);
    // Typed, not a guess of the unique method name.
    let e = r.0.iter().find(|e| e.4 == "5:24").unwrap();
    assert!(!matches!(e.3, Strategy::Member { .. }), "{e:?}");
    // One parameter where the widest function type has two: no type.
    assert!(at("7:21").is_empty(), "{:?}", r.0);
    // Two function types of that arity: which one is unknown.
    assert!(at("9:36").is_empty(), "{:?}", r.0);
    assert_eq!(at("10:93"), ["TRef.ts:TRef.get"], "{:?}", r.0);
}

/// A class whose base is a call (effect Schema's `class Int extends
/// make<number>(ast) {}`, a mixin) inherits statics from the call's value:
/// `Int.pipe` is the member of the interface `make` returns, also through
/// a class extending that class. Instance members are not taken from it.
#[test]
fn classes_extending_factory_calls_inherit_their_statics() {
    let r = resolve_all(&[
        (
            "Schema.ts",
            concat!(
                "export interface Pipeable { pipe(): unknown; }\n",
                "export interface SchemaClass<A> extends Pipeable { new (_: never): { a: A }; annotations(): SchemaClass<A>; }\n",
                "export const make = <A>(ast: unknown): SchemaClass<A> => null as any;\n",
                "export class Num extends make<number>(1) { static own() {} }\n",
                "export class Int extends Num {}\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import * as S from './Schema';\n",
                "S.Num.pipe();\n",
                "S.Int.annotations();\n",
                "S.Int.own();\n",
                "new S.Int(null as never).pipe();\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:7"), ["Schema.ts:Pipeable.pipe"], "{:?}", r.0);
    assert_eq!(
        at("3:7"),
        ["Schema.ts:SchemaClass.annotations"],
        "{:?}",
        r.0
    );
    assert_eq!(at("4:7"), ["Schema.ts:Num.own"], "{:?}", r.0);
    // An instance: its members come from the construct signature.
    assert!(at("5:27").is_empty(), "{:?}", r.0);
    // The base's callee is referenced where it is called.
    assert_eq!(at("4:26"), ["Schema.ts:make"], "{:?}", r.0);
}

/// A constant made by a call with function-typed type arguments (effect's
/// `export const pipeTo = dual<DataLast, DataFirst>(2, …)`) is callable as
/// them: a call gives the first one's result that is no function.
#[test]
fn constants_made_by_typed_calls_give_their_type_arguments_results() {
    let r = resolve_all(&[
        (
            "Channel.ts",
            concat!(
                "export interface Pipeable { pipe(): unknown; }\n",
                "export interface Channel<A> extends Pipeable { a: A; }\n",
                "export declare const dual: <L, F>(n: number, body: F) => L & F;\n",
                "export const pipeTo = dual<\n",
                "  <A>(that: Channel<A>) => (self: Channel<A>) => Channel<A>,\n",
                "  <A>(self: Channel<A>, that: Channel<A>) => Channel<A>\n",
                ">(2, (self, that) => that);\n",
                "export const lazy = dual<() => () => Channel<number>, () => () => Channel<number>>(0, () => null as any);\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import * as C from './Channel';\n",
                "declare const a: C.Channel<number>;\n",
                "C.pipeTo(a, a).pipe();\n",
                "C.lazy().pipe();\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("3:16"), ["Channel.ts:Pipeable.pipe"], "{:?}", r.0);
    // Every type argument returns a function: nothing known.
    assert!(at("4:10").is_empty(), "{:?}", r.0);
}

/// `a ?? b` and `a || b` as receivers (effect's `(scheduler ??
/// defaultScheduler).scheduleTask(…)`) are the first operand whose value is
/// known; other binary expressions are no in-repo values.
#[test]
fn nullish_and_or_receivers_take_an_operand_value() {
    let r = resolve_all(&[(
        "s.ts",
        concat!(
            "export interface Scheduler { scheduleTask(): void; }\n",
            "export declare const defaultScheduler: Scheduler;\n",
            "export function run(scheduler?: Scheduler, other?: any) {\n",
            "  (scheduler ?? defaultScheduler).scheduleTask();\n",
            "  (scheduler || other).scheduleTask();\n",
            "  (other && defaultScheduler).scheduleTask();\n",
            "}\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("4:35"), ["s.ts:Scheduler.scheduleTask"], "{:?}", r.0);
    assert_eq!(at("5:24"), ["s.ts:Scheduler.scheduleTask"], "{:?}", r.0);
    assert!(at("6:31").is_empty(), "{:?}", r.0);
}

/// Contextual types tsserver keeps that were lost: through `as const`
/// (`const Proto: Omit<Duration, "value"> = { pipe() {} } as const`), from
/// an intersection annotation (`Effect<never> & Equal`: its first part),
/// and for the object literal a typed callback returns (`dual<…, (self:
/// Hook) => Hook>(2, (self) => ({ pipe() {} }))`).
#[test]
fn object_literals_keep_contextual_types_through_const_intersections_and_callbacks() {
    let r = resolve_all(&[
        (
            "t.ts",
            concat!(
                "export interface Pipeable { pipe(): unknown; }\n",
                "export interface Equal { equals(): boolean; }\n",
                "export interface Duration extends Pipeable { value: number; }\n",
                "export declare const dual: <L, F>(n: number, body: F) => L & F;\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import * as T from './t';\n",
                "const P: Omit<T.Duration, 'value'> = { pipe() { return 1 } } as const;\n",
                "const E: T.Duration & T.Equal = { value: 1, pipe() { return 1 }, equals() { return true } };\n",
                "export const on = T.dual<(n: number) => (self: T.Duration) => T.Duration, (self: T.Duration, n: number) => T.Duration>(\n",
                "  2, (self, n) => ({ value: n, pipe() { return 1 } }));\n",
                "declare const d: T.Duration & T.Equal; d.pipe();\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:40"), ["t.ts:Pipeable.pipe"], "{:?}", r.0);
    assert_eq!(at("3:45"), ["t.ts:Pipeable.pipe"], "{:?}", r.0);
    // A member of the second part only: no edge.
    assert!(at("3:66").is_empty(), "{:?}", r.0);
    assert_eq!(at("5:32"), ["t.ts:Pipeable.pipe"], "{:?}", r.0);
    assert_eq!(at("6:42"), ["t.ts:Pipeable.pipe"], "{:?}", r.0);
}

#[test]
fn jsdoc_links_see_and_type_tags_reference_names_in_scope() {
    let r = resolve_all(&[
        (
            "q.ts",
            "export class Query {\n  fetch() {}\n  static create() {}\n}\nexport interface Opts { retry: number }\n",
        ),
        (
            "u.ts",
            concat!(
                "import { Query, type Opts } from './q';\n",
                "/**\n",
                " * Like {@link Query#fetch}, or {@linkcode Query.create | make one}.\n",
                " * @see Query\n",
                " * @see {@link https://example.com}\n",
                " * @throws {Query} never\n",
                " * @param {Opts} o\n",
                " */\n",
                "export function run(o: Opts) {\n",
                "  /** {@link helper} is local; {@link Missing} is nothing. */\n",
                "  return helper();\n",
                "}\n",
                "function helper() {}\n",
                "// {@link Query} in a line comment is no JSDoc\n",
                "/* {@link Query} nor in a block comment */\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("3:16"), ["q.ts:Query"]);
    assert_eq!(at("3:22"), ["q.ts:Query.fetch"]);
    assert_eq!(at("3:44"), ["q.ts:Query"]);
    assert_eq!(at("3:50"), ["q.ts:Query.create"]);
    assert_eq!(at("4:9"), ["q.ts:Query"]);
    assert_eq!(at("6:13"), ["q.ts:Query"]);
    assert_eq!(at("7:12"), ["q.ts:Opts"]);
    assert_eq!(at("10:14"), ["u.ts:helper"]);
    let doc = r.0.iter().find(|e| e.4 == "3:22").unwrap();
    assert_eq!(doc.2, EdgeKind::References);
    // Nothing else is named in a comment: no URL, no unbound name, no
    // plain comment.
    let comment_lines = ["5:", "10:", "14:", "15:"];
    for e in &r.0 {
        assert!(
            e.4 == "10:14" || !comment_lines.iter().any(|l| e.4.starts_with(l)),
            "unexpected edge {e:?}"
        );
    }
}

#[test]
fn infer_declares_type_parameters_of_the_true_branch() {
    let r = resolve_all(&[(
        "t.ts",
        concat!(
            "export type Tail = string;\n",
            "export type Last<T> = T extends [infer H, ...infer Tail extends unknown[]]\n",
            "  ? [H, Tail]\n",
            "  : Tail;\n",
            "export type Outer<T> = T extends infer Tail ? (Tail extends [infer Tail] ? Tail : 0) : 1;\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    // The declaration, and its use in the true branch, are the parameter.
    assert!(at("2:52").is_empty(), "{:?}", r.0);
    assert!(at("3:9").is_empty(), "{:?}", r.0);
    // The false branch sees the module's alias.
    assert_eq!(at("4:5"), ["t.ts:Tail"]);
    // A nested conditional type declares its own.
    assert!(r.0.iter().all(|e| !e.4.starts_with("5:")), "{:?}", r.0);
}

#[test]
fn heritage_qualifiers_are_namespace_uses() {
    let r = resolve_all(&[(
        "e.ts",
        concat!(
            "export namespace JSONRPC2 {\n",
            "  export interface Request<T> { method: T }\n",
            "}\n",
            "export interface TRPCRequest extends JSONRPC2.Request<string> {}\n",
            "export class Impl implements JSONRPC2.Request<number> { method = 1; }\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("4:38"), ["e.ts:JSONRPC2"]);
    assert_eq!(at("4:47"), ["e.ts:JSONRPC2.Request"]);
    assert_eq!(at("5:30"), ["e.ts:JSONRPC2"]);
    assert_eq!(at("5:39"), ["e.ts:JSONRPC2.Request"]);
}

#[test]
fn jsdoc_names_in_a_class_or_interface_body_fall_back_to_its_members() {
    let r = resolve_all(&[(
        "p.ts",
        concat!(
            "export interface Builder {\n",
            "  concat(): Builder;\n",
            "  /** @deprecated Use {@link concat} instead; {@link nothing} is nothing. */\n",
            "  unstable_concat(): Builder;\n",
            "}\n",
            "export class Impl {\n",
            "  run() {\n",
            "    /** {@link run} in a body is not a member. */\n",
            "    return 1;\n",
            "  }\n",
            "  /** {@link run} */\n",
            "  go() {}\n",
            "}\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("3:30"), ["p.ts:Builder.concat"]);
    assert!(at("3:54").is_empty());
    assert!(at("8:16").is_empty());
    assert_eq!(at("11:14"), ["p.ts:Impl.run"]);
}

#[test]
fn this_parameters_and_constructor_callbacks_type_their_receivers() {
    let r = resolve_all(&[
        (
            "s.ts",
            concat!(
                "export class Subscriber<T> { complete() {} }\n",
                "export interface SchedulerAction<T> { schedule(): void; }\n",
                "export class Observable<T> {\n",
                "  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {}\n",
                "  pipe() {}\n",
                "}\n",
            ),
        ),
        (
            "u.ts",
            concat!(
                "import { Observable, SchedulerAction } from './s';\n",
                "export const o = new Observable((subscriber) => { subscriber.complete(); });\n",
                "export function run(s: { go(f: () => void): void }) {\n",
                "  s.go(function (this: SchedulerAction<number>) {\n",
                "    this.schedule();\n",
                "    const inner = () => this.schedule();\n",
                "    function plain() { this.schedule(); }\n",
                "  });\n",
                "}\n",
            ),
        ),
    ]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:62"), ["s.ts:Subscriber.complete"]);
    assert_eq!(at("5:10"), ["s.ts:SchedulerAction.schedule"]);
    // An arrow function keeps the `this` around it, a function has its own.
    assert_eq!(at("6:30"), ["s.ts:SchedulerAction.schedule"]);
    for site in ["2:62", "5:10", "6:30"] {
        let e = r.0.iter().find(|e| e.4 == site).unwrap();
        assert_eq!(e.3, Strategy::TypedReceiver, "{site}: typed, not guessed");
    }
    let plain = r.0.iter().find(|e| e.4 == "7:29").unwrap();
    assert_eq!(plain.3, Strategy::Member { k: 1 }, "only a guess by name");
}

#[test]
fn prototypes_indexed_member_types_and_merged_jsdoc_names() {
    let r = resolve_all(&[(
        "t.ts",
        concat!(
            "export class TestScheduler { createTime() {} }\n",
            "export interface Api { cold: typeof TestScheduler.prototype.createTime }\n",
            "export type Fetch = TestScheduler['createTime'];\n",
            "export interface TimeoutError { info: string }\n",
            "export const TimeoutError = make();\n",
            "/** Emits a {@link TimeoutError}. */\n",
            "export function timeout() {}\n",
            "function make() { return 1; }\n",
        ),
    )]);
    let at = |s: &str| targets(&r, s);
    assert_eq!(at("2:37"), ["t.ts:TestScheduler"]);
    assert_eq!(at("2:61"), ["t.ts:TestScheduler.createTime"]);
    assert!(at("2:51").is_empty(), "{:?}", r.0);
    assert_eq!(at("3:36"), ["t.ts:TestScheduler.createTime"]);
    assert_eq!(at("6:20"), ["t.ts:TimeoutError"]);
}

#[test]
fn type_parameters_take_their_constraints_members() {
    let r = resolve_all(&[
        (
            "r.ts",
            "export class R { go() {} }\nexport class Other { other() {} }\n",
        ),
        (
            "b.ts",
            "import { R } from './r';\n\
             export function h<T extends R>(x: T) { x.go() }\n\
             export class Box<T extends R> { m(x: T) { x.go() } }\n\
             export function s<T extends string>(x: T) { x.other() }\n\
             export function u<T>(x: T) { x.other() }\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:42"), ["r.ts:R.go"]);
    assert_eq!(targets(&r, "3:45"), ["r.ts:R.go"]);
    let go: Vec<_> = r.0.iter().filter(|e| e.1 == "r.ts:R.go").collect();
    assert!(go.iter().all(|e| e.3 == Strategy::TypedReceiver), "{go:?}");
    // A string's members are not in the repository: no guess.
    assert!(targets(&r, "4:48").is_empty(), "{:?}", r.0);
    // An unconstrained parameter is still unknown: the unique name is guessed.
    assert_eq!(targets(&r, "5:32"), ["r.ts:Other.other"]);
    // A constraint of an outside type and a type literal has no in-repo
    // member: `other` is the literal's property.
    let r = resolve_all(&[
        ("r.ts", "export class Other { other() {} }\n"),
        (
            "b.ts",
            "export function f<T extends Extract<string, { a: 1 }> & { other: () => void }>(x: T) {\n\
             x.other() }\n",
        ),
    ]);
    assert!(r.0.iter().all(|e| e.1 != "r.ts:Other.other"), "{:?}", r.0);
    assert!(r.1.is_empty(), "{:?}", r.1);
}

#[test]
fn object_type_parameters_type_their_properties() {
    let r = resolve_all(&[
        (
            "r.ts",
            "export class R { go() {} }\nexport class Other { cleanup() {} }\n",
        ),
        (
            "b.ts",
            "import { R } from './r';\n\
             export function f({ r }: { r: R }) { r.go() }\n\
             export function g(o: { r: R; cleanup: () => void }) { o.r.go(); o.cleanup() }\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:40"), ["r.ts:R.go"]);
    assert_eq!(targets(&r, "3:59"), ["r.ts:R.go"]);
    // `cleanup` is the type literal's property, not `Other.cleanup`.
    assert!(r.0.iter().all(|e| e.1 != "r.ts:Other.cleanup"), "{:?}", r.0);
    assert!(r.1.is_empty(), "{:?}", r.1);
}

#[test]
fn functions_of_a_declared_function_type_take_its_parameter_types() {
    let r = resolve_all(&[
        (
            "types.ts",
            "export class Props { go() {} }\nexport class Other { go() {} }\n\
             export type Logic = (props: Props) => void;\n",
        ),
        (
            "b.ts",
            "import { Props, Logic } from './types';\n\
             export const a: Logic = (props) => { props.go() };\n\
             export const b = (): Logic => (props) => { props.go() };\n\
             export const c: (p: Props) => void = (p) => p.go();\n\
             function inner() { const d: Logic = function (q) { q.go() }; }\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:44"), ["types.ts:Props.go"]);
    assert_eq!(targets(&r, "3:50"), ["types.ts:Props.go"]);
    assert_eq!(targets(&r, "4:47"), ["types.ts:Props.go"]);
    assert_eq!(targets(&r, "5:54"), ["types.ts:Props.go"]);
    assert!(r.1.is_empty(), "{:?}", r.1);
}

#[test]
fn names_declared_as_a_value_and_a_type_import_the_type_node() {
    let r = resolve_all(&[
        (
            "m.ts",
            "export const Mode = { A: 'a' } as const;\n\
             export type Mode = (typeof Mode)[keyof typeof Mode];\n",
        ),
        (
            "b.ts",
            "import { Mode } from './m';\nexport const x: Mode = Mode.A;\n",
        ),
    ]);
    // The import names both declarations; the type alias is the node.
    assert_eq!(targets(&r, "1:10"), ["m.ts:Mode"]);
    // The value use is the constant, no node.
    assert!(targets(&r, "2:24").is_empty(), "{:?}", r.0);
    assert_eq!(targets(&r, "2:17"), ["m.ts:Mode"]);
}

#[test]
fn array_elements_are_typed_in_callbacks_and_for_of() {
    let r = resolve_all(&[
        (
            "o.ts",
            "export class Opt { is() {} }\nexport class Other { is() {} }\n",
        ),
        (
            "c.ts",
            "import { Opt } from './o';\n\
             export class C {\n\
             opts: Opt[] = [];\n\
             m(xs: Array<Opt>) {\n\
             for (const o of this.opts) { o.is(); }\n\
             xs.filter((x) => x.is()).forEach((y) => y.is());\n\
             this.opts.map((o, i) => i);\n\
             }\n\
             }\n",
        ),
        (
            "d.js",
            "const { Opt } = require('./o');\n\
             class D {\n\
             constructor() {\n\
             /** @type {Opt[]} */\n\
             this.opts = [];\n\
             }\n\
             m() { this.opts.find((o) => o.is()); }\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "5:32"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "6:20"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "6:43"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "7:31"), ["o.ts:Opt.is"]);
    assert!(r.1.is_empty(), "{:?}", r.1);
}

#[test]
fn elements_of_indexes_reduce_callbacks_and_array_aliases() {
    let r = resolve_all(&[
        (
            "o.ts",
            "export class Opt { is() {} }\nexport class Other { is() {} }\nexport type Opts = Opt[];\nexport type Many = Array<Opt>;\n",
        ),
        (
            "c.ts",
            "import { Opt, Opts, Many } from './o';\n\
             export class C {\n\
             opts: Opts = [];\n\
             m(xs: Opt[], ys: Many, i: number) {\n\
             xs[0].is(); xs![i].is(); xs['0'].is();\n\
             this.opts.reduce((acc, o) => { o.is(); return acc; }, 0);\n\
             this.opts.forEach((o) => o.is()); ys.map((y) => y.is());\n\
             this.opts.length; this.opts.is();\n\
             }\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "5:7"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "5:20"), ["o.ts:Opt.is"]);
    // A string index names a property, not an element.
    assert!(targets(&r, "5:34").is_empty(), "{r:?}");
    assert_eq!(targets(&r, "6:34"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "7:28"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "7:51"), ["o.ts:Opt.is"]);
    // The array's own members are the builtin's.
    assert!(targets(&r, "8:29").is_empty(), "{r:?}");
}

#[test]
fn getters_give_their_declared_type_and_methods_their_elements() {
    let r = resolve_all(&[
        (
            "o.ts",
            "export class Pos {\n\
             get parent(): Pos | null { return null; }\n\
             get children(): Pos[] { return []; }\n\
             all(): Pos[] { return []; }\n\
             node() {}\n\
             }\n\
             export class Other { node() {} parent() {} }\n",
        ),
        (
            "c.ts",
            "import { Pos } from './o';\n\
             export function f(p: Pos, ps: Pos[] | null, rs: readonly Pos[]) {\n\
             p.parent!.node();\n\
             p.children[0].node();\n\
             p.children.forEach((c) => c.node());\n\
             ps![0].node(); p.all()[1].node();\n\
             p.parent;\n\
             rs[0].node();\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:11"), ["o.ts:Pos.node"]);
    assert_eq!(targets(&r, "4:15"), ["o.ts:Pos.node"]);
    assert_eq!(targets(&r, "5:29"), ["o.ts:Pos.node"]);
    assert_eq!(targets(&r, "6:8"), ["o.ts:Pos.node"]);
    assert_eq!(targets(&r, "6:27"), ["o.ts:Pos.node"]);
    assert_eq!(targets(&r, "8:7"), ["o.ts:Pos.node"]);
    // The getter itself is what its name references.
    assert_eq!(targets(&r, "7:3"), ["o.ts:Pos.parent"]);
}

#[test]
fn destructured_members_are_references() {
    let r = resolve_all(&[
        (
            "o.ts",
            "export class Editor { get view() { return 1; } m() {} }\n\
             export class Other { get view() { return 2; } m() {} }\n",
        ),
        (
            "c.ts",
            "import { Editor } from './o';\n\
             export function f(editor: Editor, { view: w }: Editor) {\n\
             const { view } = editor;\n\
             const { m: g, m = 1 } = editor;\n\
             const { m: h } = { m: 1 };\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:37"), ["o.ts:Editor.view"]);
    assert_eq!(targets(&r, "3:9"), ["o.ts:Editor.view"]);
    assert_eq!(targets(&r, "4:9"), ["o.ts:Editor.m"]);
    assert_eq!(targets(&r, "4:15"), ["o.ts:Editor.m"]);
    // An object literal's property is no member of a class.
    assert!(targets(&r, "5:9").is_empty(), "{r:?}");
}

#[test]
fn commonjs_aliases_own_exports_and_jsdoc_types() {
    let r = resolve_all(&[
        (
            "ws.js",
            "class WebSocket { send2() {} }\nmodule.exports = WebSocket;\n",
        ),
        ("util.js", "exports.a = function () {};\nexports.b = function () { exports.a(); module.exports.a(); };\n"),
        ("obj.js", "module.exports = { x: 1 };\n"),
        (
            "idx.js",
            "const WebSocket = require('./ws');\nvar obj = require('./obj');\n\
             /**\n * @param {WebSocket} w\n * @param {Buffer} b\n */\n\
             function f(w, b) { w.send2(); b.send2(); }\n\
             /**\n * @extends WebSocket\n */\nclass Sub extends WebSocket {}\n",
        ),
        ("e.ts", "import W = require('./ws');\nexport {};\n"),
    ]);
    // The variable a JavaScript require() makes is an alias of the export.
    assert_eq!(targets(&r, "1:7"), ["ws.js:WebSocket"]);
    // No module or object literal is a definition the alias could name.
    assert!(targets(&r, "2:5").is_empty(), "{:?}", r.0);
    // So is the name of TypeScript's `import x = require()`.
    let e: Vec<_> =
        r.0.iter()
            .filter(|e| e.0 == "e.ts")
            .map(|e| (e.1.as_str(), e.4.as_str()))
            .collect();
    assert!(e.contains(&("ws.js:WebSocket", "1:8")), "{e:?}");
    // `exports.a()` and `module.exports.a()` in the module itself.
    let util: Vec<_> =
        r.0.iter()
            .filter(|e| e.0 == "util.js:b")
            .map(|e| (e.1.as_str(), e.4.as_str()))
            .collect();
    assert_eq!(util, [("util.js:a", "2:35"), ("util.js:a", "2:55")]);
    // A JSDoc @param type types the parameter; a global type is no guess.
    assert_eq!(targets(&r, "7:22"), ["ws.js:WebSocket.send2"]);
    assert!(targets(&r, "7:33").is_empty(), "{:?}", r.0);
    assert!(r.1.is_empty(), "{:?}", r.1);
    // `@extends X` names the class.
    assert_eq!(targets(&r, "9:13"), ["ws.js:WebSocket"]);
    // JSDoc typedef imports: the member is a reference, the typedef types
    // parameters; names inside union types are references.
    let r = resolve_all(&[
        (
            "cmd.js",
            "class Command { help() {} }\nexports.Command = Command;\n",
        ),
        (
            "help.js",
            "/**\n * @typedef { import(\"./cmd.js\").Command } Command\n */\n\
             const { Command: Real } = require('./cmd.js');\n\
             /**\n * @param {Command} cmd\n * @returns {(string|Real)}\n */\n\
             function f(cmd) { cmd.help(); }\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:34"), ["cmd.js:Command"]);
    assert_eq!(targets(&r, "9:23"), ["cmd.js:Command.help"]);
    assert_eq!(targets(&r, "7:22"), ["cmd.js:Command"]);
    // `@returns {T}` types a call's result.
    let r = resolve_all(&[(
        "c.js",
        "class Command {\n\
         /** @return {Command} */\n\
         find() { return lookup(); }\n\
         help() { this.find().help(); }\n\
         }\n",
    )]);
    assert_eq!(targets(&r, "4:22"), ["c.js:Command.help"]);
    // `@type {T}` declares a field or a variable, past a line comment.
    let r = resolve_all(&[(
        "c.js",
        "class Command {\n\
         constructor() {\n\
         /** @type {(Command|null)} */\n\
         this.parent = null;\n\
         }\n\
         help() {\n\
         this.parent.help();\n\
         /** @type {Command} */\n\
         // eslint-disable-next-line\n\
         let cmd = this.parent;\n\
         cmd.help();\n\
         }\n\
         }\n",
    )]);
    assert_eq!(targets(&r, "7:13"), ["c.js:Command.help"]);
    assert_eq!(targets(&r, "11:5"), ["c.js:Command.help"]);
    // undici: `/** @type {import('../types/webidl').Webidl} */ const webidl
    // = {}` and then `webidl.brandCheck = function …`: tsserver types the
    // object by the declaration file's interface, and so does the graph.
    let r = resolve_all(&[
        (
            "types/webidl.d.ts",
            "export interface Webidl {\n  brandCheck(v: unknown): void\n}\n",
        ),
        (
            "lib/webidl.js",
            "/** @type {import('../types/webidl').Webidl} */\n\
             const webidl = {}\n\
             webidl.brandCheck = function (v) {}\n\
             module.exports = { webidl }\n",
        ),
        (
            "lib/cache.js",
            "const { webidl } = require('./webidl')\n\
             /** @param {import('../types/webidl').Webidl} w */\n\
             function f(w) { webidl.brandCheck(1); w.brandCheck(2) }\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:41"), ["types/webidl.d.ts:Webidl.brandCheck"]);
    assert_eq!(targets(&r, "3:24"), ["types/webidl.d.ts:Webidl.brandCheck"]);
    // A function in a parameter's default value keeps the outer JSDoc.
    let r = resolve_all(&[
        (
            "ws.js",
            "class WebSocket { send2() {} }\nmodule.exports = WebSocket;\n",
        ),
        (
            "idx.js",
            "const WebSocket = require('./ws');\n\
             /**\n * @param {Function} f\n * @param {WebSocket} w\n */\n\
             function g(f = function (x) {}, w) { w.send2(); }\n",
        ),
    ]);
    assert_eq!(targets(&r, "6:40"), ["ws.js:WebSocket.send2"]);
}

/// mobx 6.15: `this.data_.get(key)!.get()` with `data_: Map<K,
/// ObservableValue<V>>` was no edge (7 sites the server resolved): a map's
/// values are its elements, and `get`/`at`/`find`/`pop` give one.
#[test]
fn map_values_and_single_elements_are_typed() {
    let r = resolve_all(&[
        ("o.ts", "export class Opt { is() {} }\n"),
        (
            "c.ts",
            "import { Opt } from './o';\n\
             export class C {\n\
             byKey: Map<string, Opt> = new Map();\n\
             m(xs: Opt[]) {\n\
             this.byKey.get('a')!.is();\n\
             const v = this.byKey.get('b');\n\
             v?.is();\n\
             xs.at(0)?.is();\n\
             this.byKey.forEach((o) => o.is());\n\
             }\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "5:22"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "7:4"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "8:11"), ["o.ts:Opt.is"]);
    assert_eq!(targets(&r, "9:29"), ["o.ts:Opt.is"]);
}

#[test]
fn inline_jsdoc_import_types_and_shorthand_properties_of_imports() {
    let r = resolve_all(&[
        (
            "internal.d.ts",
            "export interface VNode { type: string }\n\
             export namespace NS { export interface Inner {} }\n",
        ),
        ("hooks.js", "export function useState() {}\n"),
        (
            "index.js",
            "import { useState } from './hooks';\n\
             /**\n * @param {import('./internal').VNode} v\n\
             \x20* @returns {Array<import(\"./internal\").NS.Inner>}\n */\n\
             function f(v) {}\n\
             export default { useState };\n",
        ),
    ]);
    // `import("./m").X` in a type tag: X is the module's, each member a
    // reference.
    assert_eq!(targets(&r, "3:33"), ["internal.d.ts:VNode"]);
    assert_eq!(targets(&r, "4:41"), ["internal.d.ts:NS"]);
    assert_eq!(targets(&r, "4:44"), ["internal.d.ts:NS.Inner"]);
    // `{ useState }` refers to the imported function, as the call would.
    assert_eq!(targets(&r, "7:18"), ["hooks.js:useState"]);
}

#[test]
fn namespace_aliases_reference_what_they_name() {
    let r = resolve_all(&[
        (
            "hooks.d.ts",
            "export type Reducer<S> = (s: S) => S;\nexport declare namespace Inner { type T = 1; }\n",
        ),
        (
            "compat.d.ts",
            "import * as _hooks from './hooks';\n\
             declare namespace React {\n\
             \texport import Reducer = _hooks.Reducer;\n\
             \texport import T = _hooks.Inner.T;\n\
             }\n\
             export = React;\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:33"), ["hooks.d.ts:Reducer"]);
    assert_eq!(targets(&r, "4:27"), ["hooks.d.ts:Inner"]);
    assert_eq!(targets(&r, "4:33"), ["hooks.d.ts:Inner.T"]);
}

#[test]
fn this_in_a_static_method_is_the_class() {
    // axios: `static from(thing) { return thing instanceof this ? thing :
    // new this(thing); }` returns an instance.
    let r = resolve_all(&[
        (
            "h.js",
            "class Headers {\n\
             set(k) { return this; }\n\
             static from(thing) { return thing instanceof this ? thing : new this(thing); }\n\
             static make() { return this.from({}); }\n\
             }\n\
             export default Headers;\n",
        ),
        (
            "u.js",
            "import Headers from './h.js';\nHeaders.from({}).set('a');\nHeaders.make().set('b');\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:18"), ["h.js:Headers.set"]);
    assert_eq!(targets(&r, "3:16"), ["h.js:Headers.set"]);
    // `this.from` in a static method is the static member.
    assert_eq!(targets(&r, "4:29"), ["h.js:Headers.from"]);
    // A global or a polyfill: neither is the value.
    let r = resolve_all(&[
        ("p.js", "export default class Polyfill { get(k) {} }\n"),
        (
            "u.js",
            "import P from './p.js';\n\
             const U = typeof URLSearchParams !== 'undefined' ? URLSearchParams : P;\n\
             new U().get('a');\n",
        ),
    ]);
    assert!(targets(&r, "3:9").is_empty(), "{:?}", r.0);
}

/// A JavaScript package with hand-written declarations (fastify): its tests
/// `require('..')`, which TypeScript reads through the package.json's
/// `types`; the declared namespace is also the function of its name, and
/// calling it gives what the signatures return.
#[test]
fn a_package_directory_is_its_declared_entry_and_a_callable_namespace_returns() {
    let r = resolve_with(
        &[(
            "package.json",
            r#"{"name": "srv", "main": "srv.js", "types": "srv.d.ts"}"#,
        )],
        &[
            (
                "srv.d.ts",
                "declare namespace srv {\n  export interface Options { port: number }\n}\ninterface Instance { listen(): void }\ndeclare function srv(opts?: srv.Options): Instance;\nexport = srv\n",
            ),
            ("srv.js", "function srv() { return { listen() {} } }\nmodule.exports = srv\n"),
            ("test/app.test.js", "const Srv = require('..')\nconst app = Srv()\napp.listen()\n"),
        ],
    );
    assert_eq!(targets(&r, "2:13"), ["srv.d.ts:srv"]);
    assert_eq!(targets(&r, "3:5"), ["srv.d.ts:Instance.listen"]);
}

#[test]
fn callbacks_take_the_parameters_a_named_function_type_declares() {
    let types = "\
export type Handler = (this: App, req: Req, reply: Reply) => void;
export type Plugin = (instance: App, opts: object, done: () => void) => void;
export interface Req { raw(): void }
export interface Reply { send(x: unknown): Reply; code(n: number): Reply }
export interface Opts { schema?: unknown }
export interface RouteOptions { url: string; handler: Handler }
export interface Shorthand {
  (path: string, opts: Opts, handler: Handler): App;
  (path: string, handler: Handler): App;
}
export type HookA = (a: Reply) => void;
export type HookB = (b: Req) => void;
export interface App {
  get: Shorthand;
  route(opts: RouteOptions): App;
  register(plugin: Plugin): App;
  on(name: 'a', hook: HookA): void;
  on(name: 'b', hook: HookB): void;
}
export declare function create(): App;
";
    let app = "\
const { create } = require('./types')
const app = create()
app.get('/', (req, reply) => { reply.send(1) })
app.get('/', {}, function (req, reply) { reply.code(2) })
app.route({ url: '/', handler (req, reply) { reply.send(3) } })
app.route({ url: '/', handler: (req, reply) => reply.code(4) })
app.register((instance, opts, done) => { instance.route({}) })
app.on('a', (x) => { x.send(5) })
";
    let r = resolve_all(&[("types.d.ts", types), ("app.js", app)]);
    let at = |site: &str| -> Vec<String> {
        r.0.iter()
            .filter(|e| e.0.starts_with("app.js") && e.4 == site)
            .map(|e| e.1.clone())
            .collect()
    };
    // Through an interface's call signatures, by the argument's position
    // in each (a 2- and a 3-argument form), to the alias's parameters.
    assert_eq!(at("3:38"), ["types.d.ts:Reply.send"]);
    assert_eq!(at("4:48"), ["types.d.ts:Reply.code"]);
    // An object literal argument is checked against the declared
    // parameter: its functions take the member's function type.
    assert_eq!(at("5:52"), ["types.d.ts:Reply.send"]);
    assert_eq!(at("6:54"), ["types.d.ts:Reply.code"]);
    assert_eq!(at("7:51"), ["types.d.ts:App.route"]);
    // Overloads naming different types for the callback: no guess
    // from the declarations (HookA's Reply or HookB's Req).
    assert!(
        r.0.iter()
            .all(|e| e.4 != "8:24" || e.3 != Strategy::TypedReceiver),
        "{:?}",
        r.0.iter().filter(|e| e.4 == "8:24").collect::<Vec<_>>()
    );
}

/// zod: `else if (schema instanceof ZodOptional) { … schema.unwrap() }`:
/// the branch taken narrows a local to the class (one candidate of several
/// was no edge). Not past the branch, and not a name that is no local.
#[test]
fn instanceof_narrows_a_local_in_the_branch_taken() {
    let r = resolve_all(&[
        (
            "types.js",
            "export class ZodOptional { unwrap() {} }\n\
             export class ZodNullable { unwrap() {} }\n",
        ),
        (
            "p.js",
            "import { ZodOptional, ZodNullable } from './types';\n\
             function f(schema) {\n\
             if (schema instanceof ZodOptional) {\n\
             schema.unwrap();\n\
             } else if (schema instanceof ZodNullable) schema.unwrap();\n\
             schema.unwrap();\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "4:8"), ["types.js:ZodOptional.unwrap"]);
    assert_eq!(targets(&r, "5:50"), ["types.js:ZodNullable.unwrap"]);
    // Past the branches, `schema` is what it was (no one class).
    let after = targets(&r, "6:8");
    assert_ne!(after, ["types.js:ZodOptional.unwrap"]);
    assert_ne!(after, ["types.js:ZodNullable.unwrap"]);
}

/// mobx: `if (isObservableMap(obj)) obj.get(k)`, effect's `if
/// (Either.isLeft(e))`: a call of a type guard (`(x: unknown): x is T`,
/// declared or as a function type) narrows its argument in the branch
/// taken, the right of `&&`, a ternary's first branch, and after an `if`
/// that leaves when the guard fails. A call of no guard, or a guard for
/// another argument, leaves the local as it was.
#[test]
fn a_type_guard_call_narrows_its_argument() {
    let r = resolve_all(&[
        (
            "types.ts",
            "export class Foo { m() {} }\n\
             export class Bar { m() {} k() {} }\n\
             export function isFoo(x: unknown): x is Foo { return x instanceof Foo; }\n\
             export const isBar = ((x: unknown) => x instanceof Bar) as (x: unknown) => x is Bar;\n\
             export function second(a: unknown, b: unknown): b is Bar { return !!a; }\n\
             export function check(x: unknown): boolean { return !!x; }\n",
        ),
        (
            "p.ts",
            "import { Foo, Bar, isFoo, isBar, second, check } from './types';\n\
             export function f(o: unknown, p: Foo | Bar, q: Foo) {\n\
             if (isFoo(o)) { o.m(); }\n\
             const r = isBar(p) && p.k();\n\
             isFoo(p) ? p.m() : p.m();\n\
             if (second(o, p)) { p.k(); o.m(); }\n\
             if (check(q)) { q.m(); }\n\
             if (!isBar(o)) throw new Error('no');\n\
             o.k();\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:19"), ["types.ts:Foo.m"]);
    assert_eq!(targets(&r, "4:25"), ["types.ts:Bar.k"]);
    assert_eq!(targets(&r, "5:14"), ["types.ts:Foo.m"]);
    assert_ne!(targets(&r, "5:22"), ["types.ts:Foo.m"]);
    assert_eq!(targets(&r, "6:23"), ["types.ts:Bar.k"]);
    assert_ne!(targets(&r, "6:30"), ["types.ts:Bar.m"]);
    assert_eq!(targets(&r, "7:19"), ["types.ts:Foo.m"]);
    assert_eq!(targets(&r, "9:3"), ["types.ts:Bar.k"]);
}

/// zod: `const { ctx, status } = this._processInputParams(input)` with
/// `_processInputParams` returning `{ status: new ParseStatus(), ctx: … }`:
/// a returned object literal's properties are typed (the resolver reads an
/// object only through a variable, and a returned one was none).
#[test]
fn returned_object_literals_type_their_properties() {
    let r = resolve_all(&[(
        "p.js",
        "class ParseStatus { dirty() {} }\n\
         function mk() { return { status: new ParseStatus() }; }\n\
         const mk2 = () => ({ status: new ParseStatus() });\n\
         mk().status.dirty();\n\
         mk2().status.dirty();\n\
         class Z { p() { return { status: new ParseStatus() }; } q() { this.p().status.dirty(); } }\n\
         class Y extends Z { r() { const { status } = this.p(); status.dirty(); } }\n",
    )]);
    assert_eq!(targets(&r, "4:13"), ["p.js:ParseStatus.dirty"]);
    assert_eq!(targets(&r, "5:14"), ["p.js:ParseStatus.dirty"]);
    assert_eq!(targets(&r, "6:79"), ["p.js:ParseStatus.dirty"]);
    assert_eq!(targets(&r, "7:63"), ["p.js:ParseStatus.dirty"]);
}

/// A class field, a constructor assignment or a parameter property holding
/// an object literal (or typed by an object type): its properties are typed
/// as a variable's are (the resolver reads an object only through a
/// variable, and a field's was none).
#[test]
fn fields_holding_object_literals_type_their_properties() {
    let r = resolve_all(&[
        (
            "f.ts",
            "export class ParseStatus { dirty() {} }\n\
             class A { opts = { status: new ParseStatus() }; m() { this.opts.status.dirty(); } }\n\
             class B { o: { status: ParseStatus }; m() { this.o.status.dirty(); } }\n",
        ),
        (
            "g.js",
            "import { ParseStatus } from './f';\n\
             class C { constructor() { this.c = { status: new ParseStatus() }; } m() { this.c.status.dirty(); } }\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:72"), ["f.ts:ParseStatus.dirty"]);
    assert_eq!(targets(&r, "3:59"), ["f.ts:ParseStatus.dirty"]);
    assert_eq!(targets(&r, "2:89"), ["f.ts:ParseStatus.dirty"]);
}

/// A member typed as a function (`next: (value: T) => void` in an
/// interface, a declared class field) is a method: a call on a value of the
/// type reaches it, and so does an object literal's key where the type is
/// expected, as tsserver has them. Not beside a static member of the same
/// name (rxjs's `Scheduler`), whose `Scheduler.now` it is not.
#[test]
fn a_member_typed_as_a_function_is_a_method() {
    let src = "export interface Observer<T> {\n  next: (value: T) => void;\n  size: number;\n}\nexport class Scheduler {\n  static now: () => number = Date.now;\n  now: () => number;\n  tick: () => void;\n  constructor() { this.now = Scheduler.now; this.tick = () => {}; }\n}\nexport function take<T>(o: Observer<T>) {}\nexport function run(o: Observer<number>, s: Scheduler) {\n  o.next(1);\n  take({ next: (v: number) => {}, size: 1 });\n  s.tick();\n  s.now();\n}\n";
    let r = resolve_all(&[("a.ts", src)]);
    assert_eq!(targets(&r, "13:5"), ["a.ts:Observer.next"]);
    assert_eq!(targets(&r, "14:10"), ["a.ts:Observer.next"]);
    assert_eq!(targets(&r, "15:5"), ["a.ts:Scheduler.tick"]);
    assert!(targets(&r, "16:5").is_empty(), "{:?}", r.0);
    assert!(targets(&r, "9:40").is_empty(), "{:?}", r.0);
    assert!(!r.0.iter().any(|e| e.1.ends_with("Observer.size")));
}

/// An object literal passed where `Partial<T>`, `Readonly<T>`, `T | null`
/// is declared (a function's or a constructor's parameter) is checked
/// against T: its keys are T's members (rxjs's `new SafeSubscriber({ next
/// … })`, effect's `make({ span, context })` with `Omit<Tracer, TypeId>`).
#[test]
fn an_object_literal_is_checked_against_the_type_inside_partial_or_a_nullable_union() {
    let src = "export interface Observer<T> {\n  next(value: T): void;\n  error(e: unknown): void;\n}\nexport class Sub<T> {\n  constructor(o?: Partial<Observer<T>> | null) {}\n}\nexport function take<T>(o: Readonly<Observer<T>>) {}\nexport function run() {\n  take({ next: (v: number) => {}, error: () => {} });\n  new Sub<number>({ next: (v) => {} });\n}\n";
    let r = resolve_all(&[("a.ts", src)]);
    assert_eq!(targets(&r, "10:10"), ["a.ts:Observer.next"]);
    assert_eq!(targets(&r, "10:35"), ["a.ts:Observer.error"]);
    assert_eq!(targets(&r, "11:21"), ["a.ts:Observer.next"]);
}

/// rxjs's `new SafeSubscriber({ next, error })`, whose parameter is
/// `Partial<Observer<T>> | ((value: T) => void) | null`: an object literal
/// passed there is checked against the one named type, and a function
/// passed there takes the function type's parameters.
#[test]
fn an_object_literal_is_checked_against_the_named_type_of_a_union_with_a_function() {
    let src = "export interface Observer<T> {\n  next(value: T): void;\n  error(e: unknown): void;\n}\nexport class Item { go() {} }\nexport class Sub<T> {\n  constructor(o?: Partial<Observer<T>> | ((value: Item) => void) | null) {}\n}\nexport function run() {\n  new Sub<number>({ next: (v) => {}, error: () => {} });\n  new Sub<number>((v) => v.go());\n}\n";
    let r = resolve_all(&[("a.ts", src)]);
    assert_eq!(targets(&r, "10:21"), ["a.ts:Observer.next"]);
    assert_eq!(targets(&r, "10:38"), ["a.ts:Observer.error"]);
    assert_eq!(targets(&r, "11:28"), ["a.ts:Item.go"]);
}
/// The guards and classes the narrowing tests below import.
const GUARDS_TS: &str = "export class Foo { m() {} f() {} }\n\
     export class Bar { m() {} k() {} }\n\
     export class Base { m() {} }\n\
     export class Derived extends Base { m() {} }\n\
     export function isFoo(x: unknown): x is Foo { return x instanceof Foo; }\n\
     export function isBase(x: unknown): x is Base { return x instanceof Base; }\n\
     export function is<T extends Base>(x: unknown, c: new () => T): x is T { return x instanceof c; }\n\
     export function check(x: unknown): boolean { return !!x; }\n";

/// `if (!isFoo(q)) return;` narrows the rest of the block it is a
/// statement of, and nothing more: as an `else if`, a loop's body or a
/// `case`'s statement, tsserver joins it with the paths that skipped it
/// (`q` stays a `Bar` after them).
#[test]
fn an_early_exit_narrows_only_the_rest_of_its_own_block() {
    let r = resolve_all(&[
        ("types.ts", GUARDS_TS),
        (
            "p.ts",
            "import { Foo, Bar, isFoo } from './types';\n\
             export function f(c: number, q: Bar) {\n\
             if (c) { q.k(); } else if (!isFoo(q)) return;\n\
             q.k();\n\
             while (c) if (!isFoo(q)) continue;\n\
             q.k();\n\
             switch (c) { case 1: if (!isFoo(q)) break; break; case 2: q.k(); }\n\
             q.k();\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "4:3"), ["types.ts:Bar.k"]);
    assert_eq!(targets(&r, "6:3"), ["types.ts:Bar.k"]);
    assert_eq!(targets(&r, "7:61"), ["types.ts:Bar.k"]);
    assert_eq!(targets(&r, "8:3"), ["types.ts:Bar.k"]);
}

/// A local passed to a call that is no guard (`check(xs)`, `Array.isArray`)
/// keeps its elements: `for (const x of xs)` and `xs.map(x => …)` still
/// take them.
#[test]
fn a_local_passed_to_a_condition_s_call_keeps_its_elements() {
    let r = resolve_all(&[
        ("types.ts", GUARDS_TS),
        (
            "p.ts",
            "import { Foo, check } from './types';\n\
             export function f(xs: Foo[], ys: Foo[]) {\n\
             if (check(xs)) { for (const x of xs) x.m(); }\n\
             if (!check(ys)) return;\n\
             ys.map(y => y.m());\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:40"), ["types.ts:Foo.m"]);
    assert_eq!(targets(&r, "5:15"), ["types.ts:Foo.m"]);
}

/// `if (!isFoo(q)) return; q = z;`: an assignment ends the narrowing.
#[test]
fn an_assignment_ends_a_narrowing() {
    let r = resolve_all(&[
        ("types.ts", GUARDS_TS),
        (
            "p.ts",
            "import { Foo, Bar, isFoo } from './types';\n\
             export function f(q: Bar, z: Bar) {\n\
             if (!isFoo(q)) return;\n\
             q.m();\n\
             q = z;\n\
             q.k();\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "4:3"), ["types.ts:Foo.m"]);
    assert_eq!(targets(&r, "6:3"), ["types.ts:Bar.k"]);
}

/// tsserver narrows a `Derived` by a guard for its base `Base` to
/// `Derived` (`d.m()` is `Derived.m`), and a generic guard's `x is T` to
/// the `T` of the call (`is(x, Derived)`), not to `T`'s constraint.
#[test]
fn a_guard_for_a_base_or_a_generic_guard_does_not_widen() {
    let r = resolve_all(&[
        ("types.ts", GUARDS_TS),
        (
            "p.ts",
            "import { Derived, isBase, is } from './types';\n\
             export function f(d: Derived, x: unknown) {\n\
             if (isBase(d)) { d.m(); }\n\
             if (is(x, Derived)) { x.m(); }\n\
             }\n",
        ),
    ]);
    assert_eq!(targets(&r, "3:20"), ["types.ts:Derived.m"]);
    assert_ne!(targets(&r, "4:25"), ["types.ts:Base.m"]);
}

/// Inside `C.prototype.run = function run(n) {…}` the name `run` is the
/// function expression itself (its name is bound in its own body), which
/// tsserver answers at 3:28; before prototype methods were defs the
/// name was bound there (no edge). Now the body is walked with a def and
/// the name is not bound, so `run` reaches the module's `run`.
#[test]
fn review3_a_prototype_method_s_own_name_is_not_the_module_s() {
    let r = resolve_all(&[(
        "lib/a.js",
        "function run() {}\nfunction C() {}\nC.prototype.run = function run(n) { return n && run(n - 1); };\n",
    )]);
    assert!(
        !targets(&r, "3:49").contains(&"lib/a.js:run".to_string()),
        "{:?}",
        r.0
    );
}

/// mongoose's `Query.set = function(…)` (static) beside
/// `Query.prototype.set = function(…)`: both are kept as the one member
/// `C.set`, the prototype's, so the static call `C.set()` goes to the
/// instance method (tsserver: the static at 3:3).
#[test]
fn review3_a_static_function_beside_a_prototype_method_is_not_it() {
    let src = "function C() {}\nC.prototype.set = function set() {};\nC.set = function set() {};
C.set();
";
    let r = resolve_all(&[("lib/a.js", src)]);
    let facts = extract::extract(Lang::JavaScript, "lib/a.js", src.as_bytes());
    let lines: Vec<u32> = facts
        .defs
        .iter()
        .filter(|d| d.local == "C.set")
        .map(|d| d.pos.line)
        .collect();
    // The only `C.set` is the prototype method (line 2); the call at 4:3
    // must not reach it.
    assert!(
        !(lines == [2] && targets(&r, "4:3") == ["lib/a.js:C.set"]),
        "defs C.set at lines {lines:?}, edges {:?}",
        r.0
    );
}

#[test]
fn svelte_style_javascript_subpath_imports_jsdoc_imports_and_casts() {
    // svelte 5: `import * as b from '#compiler/builders'` through the
    // package.json `imports` map, `export { var_builder as var }` (a
    // reserved word the grammar takes for no alias), `/** @import { Parser }
    // from './index.js' */` and `/** @type {Batch} */ (current)`.
    let r = resolve_with(
        &[(
            "package.json",
            r##"{ "name": "s", "type": "module", "imports": { "#builders": "./src/builders.js", "#lib/*": "./src/lib/*.js", "#gone": "./src/gone.js" } }"##,
        )],
        &[
            (
                "src/builders.js",
                "function var_builder(x) { return x; }\nfunction call(x) { return x; }\nexport { var_builder as var, call };\nexport class Batch { run() {} }\nexport let current = null;\n",
            ),
            ("src/lib/util.js", "export function util() {}\n"),
            (
                "src/a.js",
                concat!(
                    "/** @import { Batch as B } from './builders.js' */\n",
                    "/**\n * @import * as ns from './builders.js'\n */\n",
                    "import * as b from '#builders';\nimport { util } from '#lib/util';\nimport { current } from './builders.js';\nimport { gone } from '#gone';\n",
                    "b.var(1); b.call(2); util(); gone();\n",
                    "/** @param {B} x @returns {ns.Batch} */\n",
                    "export function f(x) { x.run(); var y = /** @type {B} */ (current); y.run(); }\n",
                ),
            ),
        ],
    );
    // The `imports` map, exact and a pattern.
    assert_eq!(targets(&r, "9:3"), ["src/builders.js:var_builder"]);
    assert_eq!(targets(&r, "9:13"), ["src/builders.js:call"]);
    assert_eq!(targets(&r, "9:22"), ["src/lib/util.js:util"]);
    // A target not in the repository is outside it.
    assert!(targets(&r, "9:30").is_empty());
    // The alias that is a reserved word names the export; the next name
    // is its own.
    assert_eq!(targets(&r, "3:25"), ["src/builders.js:var_builder"]);
    assert_eq!(targets(&r, "3:30"), ["src/builders.js:call"]);
    // `@import`: the imported name, its uses in JSDoc, a namespace.
    assert_eq!(targets(&r, "1:15"), ["src/builders.js:Batch"]);
    assert_eq!(targets(&r, "10:13"), ["src/builders.js:Batch"]);
    assert_eq!(targets(&r, "10:31"), ["src/builders.js:Batch"]);
    assert_eq!(targets(&r, "11:26"), ["src/builders.js:Batch.run"]);
    // The cast: a reference, and the variable is a `Batch`.
    assert_eq!(targets(&r, "11:52"), ["src/builders.js:Batch"]);
    assert_eq!(targets(&r, "11:71"), ["src/builders.js:Batch.run"]);
}

#[test]
fn compiled_commonjs_calls_through_a_comma_expression() {
    // tsc's and Babel's CommonJS output calls an imported function as
    // `(0, _definition.isObjectType)(type)` (graphql 16): a call of it, and
    // a type guard like any other.
    let r = resolve_all(&[
        (
            "b.ts",
            "export class Obj { getFields() { return 1; } }\nexport function isObj(x: unknown): x is Obj { return x instanceof Obj; }\nexport function make(n: number) { return n; }\n",
        ),
        (
            "a.js",
            "'use strict';\nvar _b = require('./b');\nfunction f(type) {\n  if ((0, _b.isObj)(type)) {\n    return type.getFields();\n  }\n  return (0, _b.make)(1);\n}\nexports.f = f;\n",
        ),
    ]);
    let kind = |site: &str| {
        r.0.iter()
            .filter(|e| e.4 == site)
            .map(|e| (e.1.clone(), e.2))
            .collect::<Vec<_>>()
    };
    assert_eq!(kind("4:14"), [("b.ts:isObj".to_string(), EdgeKind::Calls)]);
    assert_eq!(kind("7:17"), [("b.ts:make".to_string(), EdgeKind::Calls)]);
    assert_eq!(targets(&r, "5:17"), ["b.ts:Obj.getFields"]);
}

/// `import f from 'm'` of a module whose `export =` value declares a
/// `default` member is that member, as TypeScript's interop takes it;
/// without one it is the `export =` value itself. fastify declares `export
/// const fastify: Fastify` (`type Fastify = typeof fastify`) in its
/// namespace and exports it `as default`: the import and a call of it name
/// that constant, which is no node (tsserver defines them there), and a
/// call gives what the function returns.
#[test]
fn a_default_import_of_an_export_equals_value_is_its_default_member() {
    let r = resolve_all(&[
        (
            "srv.d.ts",
            "type Srv = typeof srv\ndeclare namespace srv {\n  export interface Options { port: number }\n  export const srv: Srv\n  export { srv as default }\n}\ninterface Instance { listen(): void }\ndeclare function srv(opts?: srv.Options): Instance;\nexport = srv\n",
        ),
        ("plain.d.ts", "declare function plain(): void;\nexport = plain\n"),
        (
            "app.ts",
            "import srv from './srv'\nimport plain from './plain'\nsrv({ port: 1 }).listen()\nplain()\n",
        ),
    ]);
    assert_eq!(targets(&r, "1:8"), Vec::<String>::new());
    assert_eq!(targets(&r, "3:1"), Vec::<String>::new());
    assert_eq!(targets(&r, "3:18"), ["srv.d.ts:Instance.listen"]);
    assert_eq!(targets(&r, "2:8"), ["plain.d.ts:plain"]);
    assert_eq!(targets(&r, "4:1"), ["plain.d.ts:plain"]);
}

/// fastify's tests: `const { getServerUrl } = require('./helper')` with
/// `module.exports.getServerUrl = function (app) {…}`. tsserver defines a
/// destructured name at the exporting property: the function made there
/// is named; `exports.sleep = sleep` or a `module.exports = { wait }`
/// property holds one defined elsewhere, no edge (commander's `const {
/// Argument } = require('./lib/argument.js')`). Calls reach the function.
#[test]
fn destructured_commonjs_names_reference_what_the_exports_name() {
    let r = resolve_all(&[
        (
            "test/helper.js",
            "'use strict'\nfunction sleep() {}\nmodule.exports.sleep = sleep\nmodule.exports.getServerUrl = function (app) {\n  return app\n}\n",
        ),
        ("test/obj.js", "function wait() {}\nmodule.exports = { wait }\n"),
        (
            "test/a.test.js",
            "'use strict'\nconst { getServerUrl, sleep } = require('./helper')\nconst { wait } = require('./obj')\ngetServerUrl(1)\nwait()\nsleep()\n",
        ),
    ]);
    assert_eq!(targets(&r, "2:9"), ["test/helper.js:getServerUrl"]);
    assert!(targets(&r, "2:23").is_empty(), "{:?}", r.0);
    assert!(targets(&r, "3:9").is_empty(), "{:?}", r.0);
    assert_eq!(targets(&r, "4:1"), ["test/helper.js:getServerUrl"]);
    assert_eq!(targets(&r, "5:1"), ["test/obj.js:wait"]);
    assert_eq!(targets(&r, "6:1"), ["test/helper.js:sleep"]);
}

/// svelte-kit: `types/index.d.ts`, what its `package.json` exports name,
/// is `declare module '@sveltejs/kit' { … }`; a bare name no file of the
/// repository is (a shim, `declare module 'shimmed'`) is the ambient
/// module's too. JavaScript reaches them through JSDoc.
#[test]
fn ambient_modules_are_what_their_names_import() {
    let package = r#"{ "name": "@acme/kit", "exports": { ".": { "types": "./types/index.d.ts", "import": "./src/index.js" } } }"#;
    let r = resolve_with(
        &[("package.json", package)],
        &[
            (
                "types/index.d.ts",
                "declare module '@acme/kit' {\n\texport interface RequestEvent { url: string; }\n}\ndeclare module 'shimmed' {\n\texport function shim(): void;\n}\n",
            ),
            (
                "src/use.ts",
                "import type { RequestEvent } from '@acme/kit';\nimport { shim } from 'shimmed';\nexport function f(e: RequestEvent): void { shim(); }\n",
            ),
            (
                "src/index.js",
                "/** @param {import('@acme/kit').RequestEvent} e */\nexport function g(e) {}\n",
            ),
            ("src/other.ts", "import { shim } from './missing';\nshim();\nexport {};\n"),
        ],
    );
    let event = "types/index.d.ts:RequestEvent".to_string();
    let shim = "types/index.d.ts:shim".to_string();
    assert_eq!(targets(&r, "3:22"), vec![event.clone()], "{r:?}");
    assert_eq!(targets(&r, "3:44"), vec![shim.clone()], "{r:?}");
    assert_eq!(targets(&r, "1:33"), vec![event], "{r:?}");
    // A relative specifier names a file, never an ambient module.
    assert!(
        !r.0.iter().any(|e| e.0 == "src/other.ts" && e.1 == shim),
        "{r:?}"
    );
}

/// Names no scope of a file declares, in types and JSDoc: the global
/// declarations of declaration files that are no modules and of `declare
/// global { … }`, a namespace merged from both (`App.Error`, `App.Locals`).
#[test]
fn undeclared_type_names_are_global_declarations() {
    let r = resolve_all(&[
        (
            "types/index.d.ts",
            "declare namespace App {\n\tinterface Error { message: string; }\n}\n",
        ),
        (
            "src/ambient.d.ts",
            "declare global {\n\tnamespace App {\n\t\tinterface Locals {}\n\t}\n}\nexport {};\n",
        ),
        (
            "src/module.d.ts",
            "export interface Hidden {}\ninterface AlsoHidden {}\n",
        ),
        (
            "src/use.ts",
            "export function f(b: App.Error, l: App.Locals, h: AlsoHidden): void {}\n",
        ),
        (
            "src/doc.js",
            "/** @param {App.Error} b */\nexport function g(b) {}\n",
        ),
    ]);
    assert_eq!(
        targets(&r, "1:26"),
        vec!["types/index.d.ts:App.Error"],
        "{r:?}"
    );
    assert_eq!(
        targets(&r, "1:40"),
        vec!["src/ambient.d.ts:App.Locals"],
        "{r:?}"
    );
    assert_eq!(
        targets(&r, "1:17"),
        vec!["types/index.d.ts:App.Error"],
        "{r:?}"
    );
    // A module's declarations are not global.
    assert!(targets(&r, "1:51").is_empty(), "{r:?}");
}

/// A `.d.ts` built with a declaration map (svelte-kit's bundled
/// `types/index.d.ts` and its `index.d.ts.map`): tsserver answers with the
/// declaration it was built from, and so does the graph.
#[test]
fn a_declaration_map_leads_to_the_source_declaration() {
    let map = r#"{ "version": 3, "file": "index.d.ts", "names": [], "sources": ["../src/public.d.ts"], "mappings": ";kBAAiB" }"#;
    let files = [
        (
            "types/index.d.ts",
            "declare module 'kit' {\n\texport interface RequestEvent { url: string; }\n}\n",
        ),
        (
            "src/public.d.ts",
            "export interface RequestEvent { url: string; }\n",
        ),
        (
            "src/use.ts",
            "import type { RequestEvent } from 'kit';\nexport let e: RequestEvent;\n",
        ),
    ];
    let r = resolve_with(&[("types/index.d.ts.map", map)], &files);
    assert_eq!(
        targets(&r, "2:15"),
        vec!["src/public.d.ts:RequestEvent"],
        "{r:?}"
    );
    // Without the map: the bundle's own declaration.
    let r = resolve_with(&[], &files);
    assert_eq!(
        targets(&r, "2:15"),
        vec!["types/index.d.ts:RequestEvent"],
        "{r:?}"
    );
}
