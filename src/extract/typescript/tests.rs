//! Extraction rules for TypeScript/JavaScript.

use super::*;
use crate::extract::FileFacts;
use crate::graph::NodeKind;

fn facts(lang: Lang, path: &str, src: &str) -> FileFacts {
    extract(lang, path, src.as_bytes())
}

fn ts(src: &str) -> FileFacts {
    facts(Lang::TypeScript, "src/a.ts", src)
}

fn parts(f: &FileFacts) -> (&Scope, &Refs) {
    match (&f.scope, &f.refs) {
        (LangScope::Script(s), LangRefs::Script(r)) => (s, r),
        _ => panic!("not a script file"),
    }
}

fn def_idx(f: &FileFacts, local: &str) -> u32 {
    f.defs
        .iter()
        .position(|d| d.local == local)
        .unwrap_or_else(|| panic!("no def {local}: {:?}", f.defs)) as u32
}

fn sites_at(f: &FileFacts, line: u32) -> Vec<&Site> {
    parts(f)
        .1
        .sites
        .iter()
        .filter(|s| s.pos.line == line)
        .collect()
}

#[test]
fn defs_kinds_and_locals() {
    let f = ts(r#"
export class Shop {
  constructor(private gw: Gateway) {}
  get total(): number { return 1; }
  set total(v: number) {}
  handle = () => { this.pay(); };
  pay(): void {}
}
export interface Gateway { refund(id: string): void; }
type Alias = string;
enum E { A }
function outer() {
  const inner = () => 1;
  return inner();
}
namespace Ns { export function f() {} }
function over(a: string): void;
function over(a: number): void;
function over(a: any) {}
"#);
    let find = |local: &str| &f.defs[def_idx(&f, local) as usize];
    assert_eq!(find("Shop").kind, NodeKind::Class);
    assert!(find("Shop").exported);
    assert_eq!(find("Shop.total").kind, NodeKind::Method);
    assert_eq!(find("Shop.handle").kind, NodeKind::Method);
    assert!(!f.defs.iter().any(|d| d.name == "constructor"));
    // One node for a getter/setter pair.
    assert_eq!(f.defs.iter().filter(|d| d.local == "Shop.total").count(), 1);
    assert_eq!(find("Gateway.refund").kind, NodeKind::Method);
    assert!(find("Gateway.refund").exported);
    assert_eq!(find("Alias").kind, NodeKind::Class);
    assert!(!find("Alias").exported);
    assert_eq!(find("E").kind, NodeKind::Class);
    assert_eq!(find("outer.inner").kind, NodeKind::Function);
    assert_eq!(find("Ns.f").kind, NodeKind::Function);
    // Overloads: one node, named at the first signature (tsserver's usual
    // definition of a call) and spanning to the implementation's end.
    let over: Vec<_> = f.defs.iter().filter(|d| d.name == "over").collect();
    assert_eq!(over.len(), 1);
    assert_eq!(over[0].pos.line, 17);
    assert_eq!((over[0].start_line, over[0].end_line), (17, 19));
    // Name positions: `Shop` at column 14 of line 2.
    assert_eq!(
        find("Shop").pos,
        Pos {
            line: 2,
            column: 14
        }
    );
    assert_eq!(find("Shop").start_line, 2);
    assert_eq!(find("Shop").end_line, 8);
}

/// An overload set without an implementation (a declaration file's) is
/// one node from its first signature to its last.
#[test]
fn overload_signatures_without_implementation() {
    let f = facts(
        Lang::TypeScript,
        "src/util.d.ts",
        "export declare function issue(a: string): void;
export declare function issue(
    a: number,
): void;
export declare const x: number;
",
    );
    let sets: Vec<_> = f.defs.iter().filter(|d| d.name == "issue").collect();
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].kind, NodeKind::Function);
    assert_eq!(
        (sets[0].pos.line, sets[0].start_line, sets[0].end_line),
        (1, 1, 4)
    );
}

#[test]
fn block_scoping_and_shadowing() {
    let f = ts(r#"
import { helper } from "./h";
function run() {}
function g(run: number) {
  run;
  helper();
  { const helper = 1; helper; }
}
later();
function later() {}
console.log(missing);
"#);
    // The parameter shadows the function: no site for `run` on line 5.
    assert!(sites_at(&f, 5).is_empty());
    // The import is called on line 6.
    let s6 = sites_at(&f, 6);
    assert_eq!(s6.len(), 1);
    assert!(matches!(s6[0].target, Expr::Import(_)));
    assert_eq!(s6[0].kind, SiteKind::Call);
    // A block-level const shadows the import.
    assert!(sites_at(&f, 7).is_empty());
    // Hoisting: `later` is called before its declaration.
    let s9 = sites_at(&f, 9);
    assert_eq!(s9.len(), 1);
    assert_eq!(s9[0].target, Expr::Def(def_idx(&f, "later")));
    // Globals are not sites.
    assert!(sites_at(&f, 11).is_empty());
}

#[test]
fn imports_exports_and_requires() {
    let f = ts(r#"
import def, { a as b, type T } from "./m";
import * as ns from "../n.js";
export { b as c };
export * from "./star";
export { x as y } from "./re";
export default def;
export const v = new Local();
class Local {}
"#);
    let (scope, refs) = parts(&f);
    let specs: Vec<&str> = scope.specs.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(specs, ["./m", "../n.js", "./star", "./re"]);
    let stars: Vec<&str> = scope
        .specs
        .iter()
        .filter(|s| s.star)
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(stars, ["./star"]);
    let names: Vec<&str> = scope.exports.iter().map(|e| scope.name(e.name)).collect();
    assert_eq!(names, ["c", "default", "v", "y"]);
    // Import specifier sites: the default, the imported name `a` and its
    // alias `b` (tsserver counts both), the type.
    let s2 = sites_at(&f, 2);
    let cols: Vec<u32> = s2.iter().map(|s| s.pos.column).collect();
    assert_eq!(cols, [8, 15, 20, 28]);
    // Module sites are inside the quotes.
    assert_eq!(
        refs.modules[0].0,
        Pos {
            line: 2,
            column: 38
        }
    );
    let v = scope
        .exports
        .iter()
        .find(|e| scope.name(e.name) == "v")
        .unwrap();
    assert!(matches!(v.target, Expr::Var(_)));

    let j = facts(
        Lang::JavaScript,
        "lib/x.js",
        r#"
const { a, b: bb } = require("./a");
const mod = require("./mod");
function f() {}
exports.g = function () {};
module.exports.h = f;
"#,
    );
    let (scope, _) = parts(&j);
    assert_eq!(scope.imports.len(), 3);
    assert!(matches!(scope.imports[2].what, Imported::Module));
    assert!(j.defs.iter().any(|d| d.name == "g" && d.exported));
    assert!(j.defs.iter().any(|d| d.name == "f" && d.exported));
}

#[test]
fn receivers_fields_and_returns() {
    let f = ts(r#"
import { Gateway } from "./g";
class Svc {
  constructor(private gw: Gateway, plain: Gateway) {}
  run() { this.gw.refund(); }
}
function make(): Svc { return new Svc(null!, null!); }
const s = make();
s.run();
"#);
    let (scope, _) = parts(&f);
    let svc = def_idx(&f, "Svc");
    // Only the parameter property is a field (beside what the constructor
    // records of its parameters' declared types, under `(i)`).
    let props: Vec<_> = scope
        .fields
        .iter()
        .filter(|fl| !scope.name(fl.name).starts_with('('))
        .collect();
    assert_eq!(props.len(), 1);
    assert_eq!(props[0].class, svc);
    assert_eq!(
        scope
            .fields
            .iter()
            .filter(|fl| scope.name(fl.name).starts_with('('))
            .count(),
        2,
        "both constructor parameters name a declared type"
    );
    let s5 = sites_at(&f, 5);
    let refund = s5
        .iter()
        .find(|s| s.kind == SiteKind::Call)
        .expect("refund call");
    match &refund.target {
        Expr::Member(recv, _) => match recv.as_ref() {
            Expr::Member(this, _) => assert_eq!(**this, Expr::This(svc)),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    let make = def_idx(&f, "make");
    assert!(scope.returns.iter().any(|(d, _)| *d == make));
    let s9 = sites_at(&f, 9);
    assert_eq!(s9.len(), 1);
}

#[test]
fn tests_in_test_files_only() {
    let src = r#"
describe("Checkout", () => {
  it("pays", () => { pay(); });
  it.each([1])("each %s", () => {});
  test.skip("skipped", () => {});
});
function pay() {}
"#;
    let f = facts(Lang::TypeScript, "src/checkout.test.ts", src);
    let tests: Vec<&str> = f
        .defs
        .iter()
        .filter(|d| d.kind == NodeKind::Test)
        .map(|d| d.local.as_str())
        .collect();
    assert_eq!(
        tests,
        [
            "Checkout",
            "Checkout > pays",
            "Checkout > each %s",
            "Checkout > skipped"
        ]
    );
    let pays = def_idx(&f, "Checkout > pays");
    let call = sites_at(&f, 3);
    assert_eq!(call[0].src, pays);
    assert_eq!(f.defs[pays as usize].parent, Some(def_idx(&f, "Checkout")));
    let plain = facts(Lang::TypeScript, "src/checkout.ts", src);
    assert!(!plain.defs.iter().any(|d| d.kind == NodeKind::Test));
    assert!(is_test_path("src/__tests__/a.ts"));
    assert!(is_test_path("a.spec.tsx"));
    assert!(!is_test_path("src/contest.ts"));
}

#[test]
fn jsx_components_and_type_sites() {
    let f = facts(
        Lang::Tsx,
        "src/ui/A.tsx",
        r#"
import { Button } from "./Button";
export function A(): JSX.Element {
  return <div><Button label="x"></Button><span /></div>;
}
"#,
    );
    let s4 = sites_at(&f, 4);
    let cols: Vec<u32> = s4.iter().map(|s| s.pos.column).collect();
    // Opening and closing tags of the component, not the intrinsics.
    assert_eq!(cols, [16, 35]);
}

#[test]
fn syntax_errors_give_partial_facts() {
    let f = ts(r#"
export function ok() { return 1; }
function broken( { ;
class Fine { m() {} }
const x = ((( ;
ok();
"#);
    assert!(!f.diagnostics.is_empty());
    assert!(f.defs.iter().any(|d| d.name == "ok"));
    assert!(f
        .defs
        .iter()
        .any(|d| d.local == "Fine.m" || d.name == "Fine"));
    // And the garbage does not panic any grammar.
    for lang in [Lang::TypeScript, Lang::Tsx, Lang::JavaScript] {
        let g = facts(
            lang,
            "x.ts",
            "class { ( => } ] export * from ; <div></ import",
        );
        assert_eq!(g.defs[0].kind, NodeKind::Module);
    }
}

#[test]
fn columns_are_utf8_bytes() {
    let f = ts("import { f } from \"./f\";\nconst s = \"héllo ✓\"; f();\n");
    let s2 = sites_at(&f, 2);
    assert_eq!(s2.len(), 1);
    // `const s = "héllo ✓"; ` is 21 chars but 24 bytes: `f` is at byte 25.
    assert_eq!(s2[0].pos.column, 25);
    let g = ts("function ñandú() {}\nñandú();\n");
    assert_eq!(g.defs[1].name, "ñandú");
    assert_eq!(g.defs[1].pos.column, 10);
}

#[test]
fn ref_names_cover_imports_and_members() {
    let f = ts("import { a } from \"./pkg/mod\";\nx.y.z();\na();\n");
    for n in ["a", "mod", "pkg", "x", "z", "y"] {
        assert!(
            f.ref_names.iter().any(|r| r == n),
            "{n} in {:?}",
            f.ref_names
        );
    }
    assert!(f.ref_names.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn deep_nesting_does_not_overflow() {
    // Generated code: long operator chains and deep brackets.
    let chain = format!("const x = {}1;\n", "a + ".repeat(20_000));
    let brackets = format!("const y = {}1{};\n", "[".repeat(5_000), "]".repeat(5_000));
    let calls = format!("z{};\n", ".m()".repeat(5_000));
    for src in [chain, brackets, calls] {
        let messages = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                ts(&src)
                    .diagnostics
                    .into_iter()
                    .map(|d| d.message)
                    .collect::<Vec<_>>()
            })
            .unwrap()
            .join()
            .expect("no stack overflow");
        assert!(
            messages.iter().any(|m| m.contains("too deep")),
            "{messages:?}"
        );
    }
}

/// tree-sitter-typescript#335: a generic call signature starting a line
/// after another type member, with no `;`, made the grammar fail, and the
/// error swallowed the whole file (effect's `dual` overload sets).
#[test]
fn generic_call_signatures_separated_by_line_breaks() {
    let src = r#"import type * as Option from "./Option.js"
import { dual } from "./Function.js"
export const get: {
  /**
   * doc
   */
  <I, S>(tag: Tag<I, S>): <Services>(self: Context<Services>) => Option.Option<S>
  // a line comment
  <Services, T extends Tag<any, any>>(self: Context<Services>, tag: T): Option.Option<T>
} = dual(2, (self: any, tag: any) => tag)
export interface Tag<I, S> {
  readonly id: I
  <A>(a: A): S
}
export interface Context<Services> { readonly s: Services }
export const f = (a: number) =>
  <T>(t: T): T => t
"#;
    let f = ts(src);
    assert!(
        f.diagnostics.is_empty(),
        "no syntax errors left: {:?}",
        f.diagnostics
    );
    // Both overloads' `Option.Option` and the call of `dual` are sites, at
    // their own columns.
    let option_sites = |line: u32| -> Vec<u32> {
        sites_at(&f, line)
            .iter()
            .filter(|s| matches!(&s.target, Expr::Member(_, _)))
            .map(|s| s.pos.column)
            .collect()
    };
    assert_eq!(option_sites(7), [73]);
    assert_eq!(option_sites(9), [80]);
    assert!(sites_at(&f, 10)
        .iter()
        .any(|s| s.kind == SiteKind::Call && s.pos.column == 5));
    // The interface after it is still a definition with its member.
    assert_eq!(f.defs[def_idx(&f, "Tag") as usize].pos.line, 11);
    // A generic arrow continuing `=>` on the next line is left alone.
    assert_eq!(f.defs[def_idx(&f, "f") as usize].kind, NodeKind::Function);
    // The workaround only replaces indentation: the text is otherwise the same.
    let fixed = walk_fix_for_tests(src.as_bytes()).expect("two signatures to separate");
    assert_eq!(fixed.len(), src.len());
    let changed: Vec<usize> = (0..src.len())
        .filter(|&i| fixed[i] != src.as_bytes()[i])
        .collect();
    assert_eq!(changed.len(), 2);
    assert!(changed
        .iter()
        .all(|&i| src.as_bytes()[i] == b' ' && fixed[i] == b';'));
}

/// Variance annotations (`<out A, in out B>`) and escaped backticks in
/// template literal types are not in tree-sitter-typescript 0.23: the
/// re-parse blanks them, and what they were around is read as usual.
#[test]
fn variance_annotations_and_escaped_backticks_in_template_types() {
    let src = r#"import type { Box } from "./box"
export interface Effect<out A, in out E = never, in R extends Box = Box> {
  readonly a: Box
}
type Msg<U extends string> = `use \`${U}\` here`
export function run<const T>(t: T, b: Box): Effect<T> { return null! }
const x = [a in b, out]
"#;
    let f = ts(src);
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    assert!(sites_at(&f, 3).iter().any(|s| s.pos.column == 15));
    assert!(sites_at(&f, 6).iter().any(|s| s.pos.column == 39));
    let fixed = walk_fix_for_tests(src.as_bytes()).unwrap();
    let fixed = String::from_utf8(fixed).unwrap();
    let lines: Vec<&str> = fixed.lines().collect();
    assert_eq!(
        lines[1],
        "export interface Effect<    A,        E = never,    R extends Box = Box> {"
    );
    assert_eq!(lines[4], "type Msg<U extends string> = `use   ${U}   here`");
    // `in` as an operator and `out` as a name are left alone.
    assert_eq!(lines[6], "const x = [a in b, out]");
}

/// tsc writes `import('./HKT').Kind<'Array', B>` into declaration files;
/// the grammar takes no type arguments there, and the error swallowed
/// fp-ts's `Array.d.ts` whole. The import becomes one identifier of the same
/// length: the rest of the file, type arguments included, is read.
#[test]
fn import_types_with_type_arguments_leave_the_file_readable() {
    let src = r#"import { Alt1 } from './Alt'
export declare const flap: <A>(a: A) => <B>(fab: import('./HKT').Kind<'Array', (a: A) => B>) => import("./HKT").Kind<'Array', Alt1<B>>
export declare const Alt: Alt1<URI>
export declare const plain: import('./HKT').URIS
"#;
    let f = ts(src);
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    // `Alt1` inside the type arguments, and on the next line, are uses of
    // the import; `Kind` is a member of the module `import('./HKT')` names.
    assert!(sites_at(&f, 2).iter().any(|s| s.target == Expr::Import(0)));
    let (scope, refs) = parts(&f);
    let kinds: Vec<u32> = sites_at(&f, 2)
        .iter()
        .filter_map(|s| match &s.target {
            Expr::Member(m, n) if scope.name(*n) == "Kind" => match **m {
                Expr::Require(spec) => Some(spec),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(kinds.len(), 2, "{:?}", sites_at(&f, 2));
    assert!(kinds
        .iter()
        .all(|&k| scope.specs[k as usize].text == "./HKT"));
    // One module site per import, however often its type is read.
    for column in [58, 105] {
        let at: Vec<_> = refs
            .modules
            .iter()
            .filter(|(p, _)| p.line == 2 && p.column == column)
            .collect();
        assert_eq!(at.len(), 1, "{:?}", refs.modules);
    }
    assert!(sites_at(&f, 3).iter().any(|s| s.target == Expr::Import(0)));
    let fixed = String::from_utf8(walk_fix_for_tests(src.as_bytes()).unwrap()).unwrap();
    let lines: Vec<&str> = fixed.lines().collect();
    assert!(
        lines[1]
            .contains("fab: import____HKT__.Kind<'Array', (a: A) => B>) => import____HKT__.Kind<"),
        "{}",
        lines[1]
    );
    // Without type arguments the grammar reads it: left alone.
    assert_eq!(lines[3], "export declare const plain: import('./HKT').URIS");
}

/// `this: Chunk<A>` in a method's parameters is a type use (effect's
/// Chunk prototype methods), though it takes no argument: a callback's
/// parameters are counted without it.
#[test]
fn this_parameter_types_are_uses_and_take_no_argument() {
    let f = ts(r#"
interface Chunk<A> { a: A }
const proto = {
  toJSON<A>(this: Chunk<A>) { return 1; },
};
export function each(this: Chunk<number>, f: (c: Chunk<string>) => void) {}
"#);
    let chunk = def_idx(&f, "Chunk");
    assert!(sites_at(&f, 4).iter().any(|s| s.target == Expr::Def(chunk)));
    let (scope, _) = parts(&f);
    let each = def_idx(&f, "each");
    let recorded: Vec<&str> = scope
        .fields
        .iter()
        .filter(|fl| fl.class == each)
        .map(|fl| scope.name(fl.name))
        .collect();
    assert_eq!(recorded, [callback_param(0, 0)]);
}

/// The variance and escaped-backtick fix-ups look only where they can
/// apply (after a `<` or `,`, at a backtick); they must blank exactly what a
/// scan of every word and every byte blanks. Checked against that scan on
/// random text made of the tokens that matter.
#[test]
fn fix_ups_blank_what_a_full_scan_blanks() {
    // The scan's order is what it checks; the lexical helpers are shared.
    use super::walk::{ident, skip_ws, word_at};
    fn full_scan(src: &[u8]) -> Vec<u8> {
        let mut buf = src.to_vec();
        let mut i = 0;
        while i < buf.len() {
            if !((i == 0 || !ident(buf[i - 1])) && ident(buf[i])) {
                i += 1;
                continue;
            }
            let len = word_at(&buf, i);
            let word = &buf[i..i + len];
            if word == b"in" || word == b"out" {
                let before = buf[..i].iter().rev().find(|b| !b.is_ascii_whitespace());
                let after = skip_ws(&buf, i + len);
                let name = word_at(&buf, after);
                let next = skip_ws(&buf, after + name);
                let fits = matches!(before, Some(b'<' | b','))
                    && after > i + len
                    && name > 0
                    && (&buf[after..after + name] == b"out"
                        || matches!(buf.get(next), Some(b',' | b'>' | b'='))
                        || buf[next..].starts_with(b"extends"));
                if fits {
                    buf[i..i + len].fill(b' ');
                }
            }
            i += len;
        }
        let mut run = 0;
        for i in 0..buf.len() {
            match buf[i] {
                b'\\' => run += 1,
                b'`' if run % 2 == 1 => {
                    buf[i - 1] = b' ';
                    buf[i] = b' ';
                    run = 0;
                }
                _ => run = 0,
            }
        }
        buf
    }
    // One line each (no line break among the tokens), so the third fix-up
    // (call signatures, which looks back at the previous line) never
    // applies: what changes is the other two's doing.
    const TOKENS: [&str; 16] = [
        "in", "out", "<", ",", ">", " ", "\t", "\\", "`", "T", "extends", "=", "a", "in out", "x,",
        ";",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut blanked = 0;
    for _ in 0..20_000 {
        let len = 1 + next() % 14;
        let text: String = (0..len)
            .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
            .collect();
        let want = full_scan(text.as_bytes());
        let got = walk_fix_for_tests(text.as_bytes()).unwrap_or_else(|| text.as_bytes().to_vec());
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{text:?}"
        );
        blanked += usize::from(want != text.as_bytes());
    }
    assert!(
        blanked > 1_000,
        "the inputs exercise the fix-ups: {blanked}"
    );
}
/// A specifier a `require()` names is apart from the same text imported:
/// the two may resolve to different builds (`Modules::resolve_require`).
#[test]
fn required_specifiers_are_kept_apart_from_imported_ones() {
    let f = facts(
        Lang::TypeScript,
        "index.ts",
        "import { a } from 'pkg/vanilla';\nconst v = require('pkg/vanilla');\nimport r = require('pkg/react');\nrequire('pkg/vanilla').b();\n",
    );
    let (s, r) = parts(&f);
    let specs: Vec<(&str, bool)> = s
        .specs
        .iter()
        .map(|x| (x.text.as_str(), x.require))
        .collect();
    assert_eq!(
        specs,
        [
            ("pkg/vanilla", false),
            ("pkg/vanilla", true),
            ("pkg/react", true)
        ]
    );
    assert_eq!(
        r.modules.iter().map(|m| m.1).collect::<Vec<_>>(),
        [0, 1, 2, 1]
    );
}
