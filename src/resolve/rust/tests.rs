//! Resolver unit tests: small in-memory crates, edges as text.

use super::*;
use crate::extract::{self, Lang};
use crate::resolve::{self, world_input, Layout, World};

const MANIFEST: &str = "[package]\nname = \"shop-app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// Every edge (but `contains`/`tests`) and unresolved site, one per line:
/// `calls a::f -> a::g @3:5 Local`.
fn graph(files: &[(&str, &str)]) -> Vec<String> {
    graph_with(&[("Cargo.toml", MANIFEST)], files)
}

fn graph_with(manifests: &[(&str, &str)], files: &[(&str, &str)]) -> Vec<String> {
    let mut layout = Layout::default();
    for (p, m) in manifests {
        layout.manifests.insert(p.to_string(), m.to_string());
    }
    let facts: Vec<_> = files
        .iter()
        .map(|(p, s)| {
            layout.files.insert(p.to_string());
            extract::extract(Lang::Rust, p, s.as_bytes())
        })
        .collect();
    let world = World::new(
        files
            .iter()
            .zip(&facts)
            .map(|((p, _), f)| world_input(p, Lang::Rust, f))
            .collect(),
        &layout,
    );
    let prepared = resolve::prepare(&world);
    let mut out = Vec::new();
    for (i, f) in facts.iter().enumerate() {
        let res = resolve::resolve_file(&world, &prepared, FileIdx(i as u32), &f.refs);
        for e in res.edges {
            if matches!(
                e.kind,
                crate::graph::EdgeKind::Contains | crate::graph::EdgeKind::Tests
            ) {
                continue;
            }
            let site = e
                .site
                .map(|s| format!(" @{}:{}", s.line, s.column))
                .unwrap_or_default();
            out.push(format!(
                "{} {} -> {}{} {:?}",
                e.kind.as_str(),
                world.key(e.src),
                world.key(e.dst),
                site,
                e.strategy
            ));
        }
        for u in res.unresolved {
            out.push(format!(
                "U {} {} @{}:{} ({})",
                u.kind.as_str(),
                u.name,
                u.site.line,
                u.site.column,
                u.reason
            ));
        }
    }
    out
}

fn has(g: &[String], want: &str) -> bool {
    g.iter().any(|l| l == want)
}

#[track_caller]
fn assert_has(g: &[String], want: &str) {
    assert!(has(g, want), "missing `{want}` in:\n{}", g.join("\n"));
}

#[track_caller]
fn assert_none(g: &[String], prefix: &str) {
    assert!(
        !g.iter().any(|l| l.starts_with(prefix)),
        "unexpected `{prefix}…` in:\n{}",
        g.join("\n")
    );
}

#[test]
fn module_keys_follow_cargo_layout() {
    let mut layout = Layout::default();
    layout
        .manifests
        .insert("Cargo.toml".into(), MANIFEST.into());
    layout.manifests.insert(
        "crates/core/Cargo.toml".into(),
        "[package]\nname = \"core-x\"\n[lib]\nname = \"corex\"\npath = \"src/core.rs\"\n".into(),
    );
    layout.files.insert("src/lib.rs".into());
    for (path, key) in [
        ("src/lib.rs", "shop_app"),
        ("src/main.rs", "shop_app"),
        ("src/auth/mod.rs", "shop_app::auth"),
        ("src/auth/tokens.rs", "shop_app::auth::tokens"),
        ("src/bin/tool.rs", "tool"),
        ("src/bin/big/main.rs", "big"),
        ("tests/checkout.rs", "checkout"),
        ("examples/demo.rs", "demo"),
        ("benches/speed.rs", "speed"),
        ("crates/core/src/core.rs", "corex"),
        ("crates/core/src/a/b.rs", "corex::a::b"),
        ("build.rs", "build"),
    ] {
        assert_eq!(module_key(path, &layout), key, "{path}");
    }
    // No manifest at all: a path-based key.
    let empty = Layout::default();
    assert_eq!(module_key("x/src/a/b.rs", &empty), "x::a::b");
    assert_eq!(module_key("x/src/lib.rs", &empty), "x");
}

#[test]
fn same_name_in_two_modules_follows_imports_and_aliases() {
    let g = graph(&[
        ("src/lib.rs", "pub mod auth;\npub mod checkout;\n"),
        ("src/auth.rs", "pub fn validate() -> bool { true }\n"),
        (
            "src/checkout.rs",
            "use crate::auth::validate as auth_validate;\n\
             pub fn validate() -> bool { auth_validate() }\n\
             pub fn run() { validate(); crate::auth::validate(); }\n",
        ),
    ]);
    assert_has(
        &g,
        "calls shop_app::checkout::validate -> shop_app::auth::validate @2:29 Import",
    );
    assert_has(
        &g,
        "calls shop_app::checkout::run -> shop_app::checkout::validate @3:16 Local",
    );
    assert_has(
        &g,
        "calls shop_app::checkout::run -> shop_app::auth::validate @3:41 Path",
    );
    assert_has(
        &g,
        "references shop_app::checkout -> shop_app::auth::validate @1:18 Import",
    );
    assert_has(
        &g,
        "imports shop_app::checkout -> shop_app::auth @1:12 Import",
    );
    // A bare name not in scope is never pinned to another module's fn.
    let g = graph(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("src/a.rs", "pub fn helper() {}\n"),
        ("src/b.rs", "pub fn f() { helper(); }\n"),
    ]);
    assert_none(&g, "calls shop_app::b::f");
    assert_has(&g, "U calls helper @1:14 (no definition in scope)");
}

#[test]
fn receivers_typed_by_constructor_annotation_field_and_trait() {
    let src = r#"
pub trait Gateway { fn charge(&self, c: u64) -> u64; fn name(&self) -> u64 { self.charge(0) } }
pub struct Stripe;
pub struct Paypal;
impl Stripe { pub fn new() -> Self { Stripe } }
impl Gateway for Stripe { fn charge(&self, c: u64) -> u64 { c } }
impl Gateway for Paypal { fn charge(&self, c: u64) -> u64 { c + 1 } }
pub struct Shop { gw: Box<dyn Gateway>, backup: Option<Paypal> }
impl Shop {
    pub fn pay(&self, p: &Paypal) {
        let s = Stripe::new();
        s.charge(1);
        p.charge(2);
        self.gw.charge(3);
        self.backup.as_ref().unwrap().charge(4);
        s.name();
    }
}
pub fn generic<G: Gateway>(g: G) { g.charge(5); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::Shop::pay -> shop_app::Stripe::charge @12:11 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Shop::pay -> shop_app::Paypal::charge @13:11 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Shop::pay -> shop_app::Gateway::charge @14:17 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Shop::pay -> shop_app::Paypal::charge @15:39 TypedReceiver",
    );
    // The default method, through the trait the type implements.
    assert_has(
        &g,
        "calls shop_app::Shop::pay -> shop_app::Gateway::name @16:11 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::generic -> shop_app::Gateway::charge @19:38 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Gateway::name -> shop_app::Gateway::charge @2:83 SelfMember",
    );
    assert_has(
        &g,
        "calls shop_app::Shop::pay -> shop_app::Stripe::new @11:25 Path",
    );
    assert_has(
        &g,
        "references shop_app::Shop::pay -> shop_app::Stripe @11:17 Local",
    );
    assert_has(
        &g,
        "implements shop_app::Paypal -> shop_app::Gateway @7:6 Local",
    );
    assert_has(
        &g,
        "implements shop_app::Paypal::charge -> shop_app::Gateway::charge Path",
    );
}

#[test]
fn unknown_receivers_are_guessed_only_when_unambiguous() {
    let src = r#"
pub struct A;
pub struct B;
impl A { pub fn process(&self) {} pub fn only_here(&self, x: u8) {} pub fn len(&self) -> usize { 0 } }
impl B { pub fn process(&self) {} pub fn only_here(&self) {} }
pub fn f<T>(xs: Vec<(T, B)>) {
    for (x, _) in xs { x.process();
    x.only_here(1);
    x.len();
    let v: Vec<u8> = Vec::new();
    v.only_here(1); }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(&g, "U calls process @7:26 (2 candidates)");
    // Arity picks `A::only_here` among the two.
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::A::only_here @8:7 Member { k: 1 }",
    );
    // A common std method name is not an edge.
    assert_none(&g, "calls shop_app::f -> shop_app::A::len");
    // A receiver of a known external type is dropped altogether.
    assert_none(&g, "calls shop_app::f -> shop_app::A::only_here @11");
    assert_none(&g, "U calls only_here @11");
}

#[test]
fn reexports_globs_and_shadowing() {
    let g = graph(&[
        ("src/lib.rs", "pub mod inner;\npub use inner::Thing;\nmod t {\n    use super::*;\n    fn f() -> Thing { make() }\n}\n"),
        ("src/inner.rs", "pub struct Thing;\npub fn make() -> Thing { Thing }\n"),
        ("src/main.rs", "use shop_app::Thing;\nfn main() { let _t: Thing = todo!(); }\n"),
        (
            "src/other.rs",
            "use std::fmt::Error as Thing;\nuse super::*;\npub fn g(_: Thing) {}\n",
        ),
    ]);
    assert_has(
        &g,
        "references shop_app -> shop_app::inner::Thing @2:16 Import",
    );
    assert_has(
        &g,
        "references shop_app::t::f -> shop_app::inner::Thing @5:15 ReExport",
    );
    // `make` is not imported by `lib.rs`: the glob cannot bring it.
    assert_none(&g, "calls shop_app::t::f -> shop_app::inner::make");
    assert_has(
        &g,
        "references shop_app -> shop_app::inner::Thing @1:15 ReExport",
    );
    // An explicit import of an external name shadows the glob.
    assert_none(&g, "references shop_app::other::g");
}

#[test]
fn macros_are_textual_or_exported() {
    let g = graph(&[
        (
            "src/lib.rs",
            "#[macro_export]\nmacro_rules! money { () => { 1 } }\nmacro_rules! local { () => { 2 } }\npub mod a;\npub fn f() -> u32 { local!() + money!() }\n",
        ),
        ("src/a.rs", "pub fn g() -> u32 { money!() + crate::money!() }\n"),
        ("src/main.rs", "fn main() { shop_app::money!(); }\n"),
    ]);
    assert_has(&g, "calls shop_app::f -> shop_app::local @5:21 Local");
    assert_has(&g, "calls shop_app::a::g -> shop_app::money @1:21 Path");
    assert_has(&g, "calls shop_app::a::g -> shop_app::money @1:39 Path");
    assert_has(&g, "calls shop_app::main -> shop_app::money @1:23 Path");
}

/// A test module's own `assert_eq!` is textual: other modules' `assert_eq!`
/// is std's (as rust-analyzer says), not a guess at the crate's.
#[test]
fn std_macro_names_outside_textual_scope_are_std() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod a;\npub mod b;\nmacro_rules! tally { () => { 1 } }\n",
        ),
        (
            "src/a.rs",
            "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    macro_rules! assert_eq { ($a:expr, $b:expr) => {} }\n    fn t() { assert_eq!(1, 1); }\n}\n",
        ),
        ("src/b.rs", "pub fn g() -> u32 { assert_eq!(1, 1); tally!() }\n"),
    ]);
    assert_has(
        &g,
        "calls shop_app::a::tests::t -> shop_app::a::tests::assert_eq @5:14 Local",
    );
    assert_none(&g, "calls shop_app::b::g -> shop_app::a::tests::assert_eq");
    assert_has(&g, "calls shop_app::b::g -> shop_app::tally @1:39 Path");
}

/// A `macro_rules! println` compiled out where rust-analyzer runs (url's
/// tests redefine it for wasm32) leaves std's in scope.
#[test]
fn a_compiled_out_macro_does_not_shadow_std() {
    let src = "#[cfg(all(target_arch = \"wasm32\", target_os = \"unknown\"))]\nmacro_rules! println { ($($a:tt)*) => {} }\nmacro_rules! tally { () => { 1 } }\npub fn f() -> u32 { println!(\"x\"); tally!() }\n";
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::f -> shop_app::println");
    assert_has(&g, "calls shop_app::f -> shop_app::tally @4:36 Local");
    // Compiled out by a feature that is not on by default: the same.
    let manifest = "[package]\nname = \"shop-app\"\n[features]\ndefault = []\nnostd = []\n";
    let src = src.replace(
        "all(target_arch = \"wasm32\", target_os = \"unknown\")",
        "feature = \"nostd\"",
    );
    let g = graph_with(&[("Cargo.toml", manifest)], &[("src/lib.rs", &src)]);
    assert_none(&g, "calls shop_app::f -> shop_app::println");
    assert_has(&g, "calls shop_app::f -> shop_app::tally @4:36 Local");
}

/// winnow's `src/binary/tests.rs`: `mod complete` and `mod partial` each
/// define `macro_rules! assert_parse` and call their own; a later module's
/// call does not take the first one of the file.
#[test]
fn a_macro_is_the_one_in_textual_scope_at_the_call() {
    let src = "mod complete {\n    macro_rules! check { () => {} }\n    fn t() { check!(); }\n}\nmod partial {\n    fn before() { check!(); }\n    macro_rules! check { () => {} }\n    fn t() { check!(); }\n    mod inner {\n        fn t() { check!(); }\n    }\n}\nfn after() { check!(); }\n";
    let g = graph(&[("src/lib.rs", src)]);
    let want = [
        "calls shop_app::complete::t -> shop_app::complete::check @3:14 Local",
        "calls shop_app::partial::t -> shop_app::partial::check @8:14 Local",
        "calls shop_app::partial::inner::t -> shop_app::partial::check @10:18 Local",
    ];
    for w in want {
        assert_has(&g, w);
    }
    // Before its module's own, the only one written earlier (in another
    // module: reachable only through `#[macro_use]`, so a guess).
    assert_none(
        &g,
        "calls shop_app::partial::before -> shop_app::partial::check",
    );
    assert_has(
        &g,
        "calls shop_app::partial::before -> shop_app::complete::check @6:19 Local",
    );
    // After both modules, neither is in textual scope: the first written.
    assert_has(
        &g,
        "calls shop_app::after -> shop_app::complete::check @13:14 Local",
    );
}

/// `#[macro_use] mod m { macro_rules! … }` keeps its macros in textual
/// scope after it, in the parent, where they shadow earlier ones; a
/// definition compiled out yields to one compiled in wherever it is.
#[test]
fn a_macro_use_module_keeps_its_macros_in_scope_after_it() {
    let cases = [
        (
            "#[macro_use]\nmod a { macro_rules! m { () => {} } }\nmod b { macro_rules! m { () => {} } }\nmod c { fn f() { m!(); } }\n",
            "calls shop_app::c::f -> shop_app::a::m @4:18 Local",
        ),
        (
            "macro_rules! m { () => {} }\n#[macro_use]\nmod a {\n    macro_rules! m { () => {} }\n}\nfn f() { m!(); }\n",
            "calls shop_app::f -> shop_app::a::m @6:10 Local",
        ),
        (
            "#[macro_use]\nmod imp { macro_rules! m { () => {} } }\n#[cfg(windows)]\nmacro_rules! m { () => {} }\nfn f() { m!(); }\n",
            "calls shop_app::f -> shop_app::imp::m @5:10 Local",
        ),
    ];
    for (src, want) in cases {
        let g = graph(&[("src/lib.rs", src)]);
        assert_has(&g, want);
    }
}

/// `cfg_if!` picks one branch where rust-analyzer runs: the first whose
/// cfg is on (`not(miri)` is off: rust-analyzer sets `miri`), else `else`.
#[test]
fn cfg_if_branches_compiled_out_lose_to_the_one_compiled_in() {
    let group = "cfg_if! {\n    // SSE2 where it can.\n    if #[cfg(all(\n        target_feature = \"sse2\", // (x86)\n        not(miri),\n    ))] {\n        mod sse2;\n        use sse2 as imp;\n    } else if #[cfg(unix)] {\n        mod generic;\n        use generic as imp;\n    } else {\n        mod other;\n        use other as imp;\n    }\n}\npub use self::imp::Group;\n";
    let body = "pub struct Group;\nimpl Group { pub fn load() {} }\n";
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod group;\npub fn f() { group::Group::load(); }\n",
        ),
        ("src/group/mod.rs", group),
        ("src/group/sse2.rs", body),
        ("src/group/generic.rs", body),
        ("src/group/other.rs", body),
    ]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::group::generic::Group::load @2:28 Path",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::group::sse2");
    assert_none(&g, "calls shop_app::f -> shop_app::group::other");
}

#[test]
fn qualified_and_self_paths() {
    let src = r#"
pub trait Gateway { fn charge(&self) -> u8; }
pub struct Stripe;
impl Gateway for Stripe { fn charge(&self) -> u8 { 1 } }
impl Stripe {
    fn make() -> Self { Self::helper(); Stripe }
    fn helper() {}
}
pub fn f(s: Stripe) -> u8 { <Stripe as Gateway>::charge(&s) + Gateway::charge(&s) }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::Stripe::make -> shop_app::Stripe::helper @6:31 Path",
    );
    // `Self` in an impl is a reference to the type, as rust-analyzer counts it.
    assert_has(
        &g,
        "references shop_app::Stripe::make -> shop_app::Stripe @6:18 Local",
    );
    assert_has(
        &g,
        "references shop_app::Stripe::make -> shop_app::Stripe @6:25 Local",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Stripe::charge @9:50 Path",
    );
    // `Gateway::charge(&s)` with `s: Stripe` is the impl's, as
    // rust-analyzer answers it (see
    // `a_trait_path_call_on_a_typed_value_is_its_impls_method`).
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Stripe::charge @9:72 TypedReceiver",
    );
}

#[test]
fn common_method_table_is_sorted() {
    // Each table sorted without repeats (they are binary searched), the
    // iterators' and the inherent names among the common ones.
    for (table, subset) in [
        (sites::COMMON_METHODS, false),
        (sites::ITERATOR_METHODS, true),
        (sites::INHERENT_METHODS, true),
        (sites::FN_STD_METHODS, false),
        (sites::FLOAT_METHODS, false),
        (sites::INT_METHODS, false),
    ] {
        let mut sorted = table.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, table);
        for m in table.iter().filter(|_| subset) {
            assert!(sites::COMMON_METHODS.contains(m), "{m} is not common");
        }
    }
}

#[test]
fn blanket_impl_methods_reach_known_types() {
    let src = r#"
pub trait Read { fn poll(&self); }
pub trait ReadExt: Read { fn read_all(&self) { self.poll() } }
impl<R: Read + ?Sized> ReadExt for R {}
pub struct File;
impl Read for File { fn poll(&self) {} }
pub fn f(file: File) { file.read_all(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::ReadExt::read_all @7:29 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::ReadExt::read_all -> shop_app::Read::poll @3:53 SelfMember",
    );
}

#[test]
fn items_under_a_cfg_likely_off_lose_to_their_siblings() {
    let src = r#"
#[cfg(windows)]
fn imp() {}
#[cfg(unix)]
fn imp() {}
#[cfg(loom)]
mod sync { pub fn lock() {} }
#[cfg(not(loom))]
mod sync { pub fn lock() {} }
pub fn f() { imp(); sync::lock(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(&g, "calls shop_app::f -> shop_app::imp#2 @10:14 Local");
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::sync::lock#2 @10:27 Path",
    );
}

#[test]
fn items_under_a_cfg_likely_off_yield_to_a_use_of_the_same_name() {
    let src = r#"
use std::error::Error as StdError;
#[cfg(all(not(feature = "std"), no_core_error))]
trait StdError { fn source(&self) {} }
pub fn f(e: &dyn StdError) { e.source(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert!(
        !g.iter().any(|e| e.contains("-> shop_app::StdError")),
        "the compiled-out trait was named: {g:#?}"
    );
}

#[test]
fn workspace_crates_and_shared_test_modules() {
    let g = graph_with(
        &[
            ("Cargo.toml", "[workspace]\nmembers = [\"core\", \"app\"]\n"),
            ("core/Cargo.toml", "[package]\nname = \"shop-core\"\n"),
            ("app/Cargo.toml", "[package]\nname = \"app\"\n"),
        ],
        &[
            ("core/src/lib.rs", "pub mod money;\npub use money::Money;\n"),
            (
                "core/src/money.rs",
                "pub struct Money;\nimpl Money { pub fn zero() -> Self { Money } }\n",
            ),
            (
                "app/src/main.rs",
                "use shop_core::Money;\nfn main() { let m = Money::zero(); }\n",
            ),
            (
                "app/tests/it.rs",
                "mod common;\n#[test]\nfn t() { common::setup(); }\n",
            ),
            ("app/tests/common/mod.rs", "pub fn setup() {}\n"),
        ],
    );
    assert_has(
        &g,
        "references app -> shop_core::money::Money @1:16 ReExport",
    );
    assert_has(&g, "imports app -> shop_core @1:5 Import");
    // Bound by a `use` that itself goes through a `pub use`: a re-export.
    assert_has(
        &g,
        "references app::main -> shop_core::money::Money @2:21 ReExport",
    );
    assert_has(
        &g,
        "calls app::main -> shop_core::money::Money::zero @2:28 Path",
    );
    assert_has(&g, "calls it::t -> common::setup @3:18 Path");
}

#[test]
fn bounds_aliases_and_match_arms_type_receivers() {
    let src = r#"
pub trait Gateway { fn charge(&self); }
pub struct Stripe;
impl Stripe { pub fn refund(&self) {} }
pub type Default2 = Stripe;
pub type Res<T> = std::result::Result<T, String>;
pub fn a<G: Clone + Gateway>(g: G) { g.charge(); }
pub fn b<G>(g: G) where G: Clone, G: Gateway { g.charge(); }
pub fn c(s: Default2, r: Res<Stripe>) { s.refund(); r.unwrap().refund(); }
pub fn d(o: Option<Stripe>) { match o { Some(s) => s.refund(), None => {} } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::a -> shop_app::Gateway::charge @7:40 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::b -> shop_app::Gateway::charge @8:50 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::c -> shop_app::Stripe::refund @9:43 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::c -> shop_app::Stripe::refund @9:64 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::d -> shop_app::Stripe::refund @10:54 TypedReceiver",
    );
}

#[test]
fn default_features_decide_feature_cfgs() {
    let manifest = "[package]\nname = \"shop-app\"\n\n[features]\ndefault = [\n  \"std\", # the usual\n]\nstd = [\"alloc\", \"dep:serde\"]\nalloc = []\ndebug = []\n";
    let src = r#"
#[cfg(feature = "debug")]
macro_rules! trace { () => {} }
#[cfg(not(feature = "debug"))]
macro_rules! trace { () => {} }
#[cfg(not(feature = "alloc"))]
fn buf() {}
#[cfg(feature = "alloc")]
fn buf() {}
pub fn f() { trace!(); buf(); }
"#;
    let g = graph_with(&[("Cargo.toml", manifest)], &[("src/lib.rs", src)]);
    assert_has(&g, "calls shop_app::f -> shop_app::trace#2 @10:14 Local");
    assert_has(&g, "calls shop_app::f -> shop_app::buf#2 @10:24 Local");
    let mut layout = Layout::default();
    layout
        .manifests
        .insert("Cargo.toml".into(), manifest.into());
    assert_eq!(
        *crate_file("src/lib.rs", &layout).features,
        ["alloc", "std"]
    );
}

/// regex-syntax: `fn perl_word() { #[cfg(not(feature = "unicode-perl"))]
/// fn imp() … #[cfg(feature = "unicode-perl")] fn imp() … imp() }`. The
/// feature is on by default: the call is the second `imp`, as
/// rust-analyzer answers.
#[test]
fn default_features_decide_between_items_of_a_fn_body() {
    let manifest = "[package]\nname = \"shop-app\"\n[features]\ndefault = [\"perl\"]\nperl = []\n";
    let src = r#"
pub fn word() -> u8 {
    #[cfg(not(feature = "perl"))]
    fn imp() -> u8 { 0 }
    #[cfg(feature = "perl")]
    fn imp() -> u8 { 1 }
    imp()
}
pub fn space() -> u8 {
    #[cfg(feature = "perl")]
    fn imp() -> u8 { 1 }
    #[cfg(not(feature = "perl"))]
    fn imp() -> u8 { 0 }
    imp()
}
"#;
    let g = graph_with(&[("Cargo.toml", manifest)], &[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::word -> shop_app::word::imp#2 @7:5 Local",
    );
    assert_has(
        &g,
        "calls shop_app::space -> shop_app::space::imp @14:5 Local",
    );
    assert_none(&g, "calls shop_app::word -> shop_app::word::imp @");
    assert_none(&g, "calls shop_app::space -> shop_app::space::imp#2");
}

#[test]
fn a_macro_that_puts_a_feature_cfg_on_its_items_is_read_where_it_is_used() {
    // mio: `cfg_os_poll!` wraps its items in `#[cfg(feature = "os-poll")]`,
    // off by default; the platform modules it holds are compiled out and
    // `shell` (under `cfg_not_os_poll!`) is what `sys::Event` names.
    let manifest =
        "[package]\nname = \"shop-app\"\n[features]\ndefault = [\"log\"]\nlog = []\nos-poll = []\n";
    let macros = r#"
macro_rules! cfg_os_poll {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "os-poll")]
            #[cfg_attr(docsrs, doc(cfg(feature = "os-poll")))]
            $item
        )*
    }
}
macro_rules! cfg_not_os_poll {
    ($($item:item)*) => { $( #[cfg(not(feature = "os-poll"))] $item )* }
}
macro_rules! cfg_any {
    ($($item:item)*) => { $( #[cfg(any(feature = "log", feature = "net"))] $item )* }
}
"#;
    let lib = r#"
#[macro_use]
mod macros;
mod sys;
cfg_any! {
    pub fn logged() {}
}
pub fn f(e: sys::Event) { sys::poll(); logged(); }
"#;
    let sys = r#"
#[cfg(unix)]
cfg_os_poll! {
    mod unix;
    pub use self::unix::*;
}
#[cfg(windows)]
cfg_os_poll! {
    mod windows;
    pub use self::windows::*;
}
cfg_not_os_poll! {
    mod shell;
    pub(crate) use self::shell::*;
    pub fn poll() {}
}
cfg_os_poll! {
    pub fn poll() {}
}
"#;
    let files = [
        ("src/lib.rs", lib),
        ("src/macros.rs", macros),
        ("src/sys.rs", sys),
        ("src/sys/unix.rs", "pub struct Event;"),
        ("src/sys/windows.rs", "pub struct Event;"),
        ("src/sys/shell.rs", "pub struct Event;"),
    ];
    let g = graph_with(&[("Cargo.toml", manifest)], &files);
    assert_has(
        &g,
        "references shop_app::f -> shop_app::sys::shell::Event @8:18 ReExport",
    );
    assert_has(&g, "calls shop_app::f -> shop_app::sys::poll @8:32 Path");
    assert_has(&g, "calls shop_app::f -> shop_app::logged @8:40 Local");
    // With the feature on, the cfg_os_poll! items are the ones compiled in.
    let on = manifest.replace("default = [\"log\"]", "default = [\"os-poll\"]");
    let g = graph_with(&[("Cargo.toml", &on)], &files);
    assert_has(
        &g,
        "references shop_app::f -> shop_app::sys::unix::Event @8:18 ReExport",
    );
    assert_has(&g, "calls shop_app::f -> shop_app::sys::poll#2 @8:32 Path");
}

#[test]
fn a_glob_compiled_out_yields_to_one_compiled_in() {
    let src = r#"
mod imp {
    pub mod windows { pub struct Event; }
    pub mod unix { pub struct Event; }
    #[cfg(windows)]
    pub use self::windows::*;
    #[cfg(unix)]
    pub use self::unix::*;
}
pub fn f(e: imp::Event) {}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "references shop_app::f -> shop_app::imp::unix::Event @10:18 ReExport",
    );
}

#[test]
fn enum_variant_values_have_the_enum_type() {
    let src = r#"
pub enum Status { Paid, Owed(u64), Held { why: u8 } }
impl Status { pub fn is_done(&self) -> bool { true } }
pub const LIMIT: Status = Status::Paid;
pub fn f() {
    let a = Status::Paid;
    a.is_done();
    Status::Owed(3).is_done();
    let c = Status::Held { why: 1 };
    c.is_done();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Status::is_done @7:7 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Status::is_done @8:21 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Status::is_done @10:7 TypedReceiver",
    );
}

#[test]
fn broken_code_with_cycles_terminates() {
    let src = r#"
pub type A = B;
pub type B = A;
pub type C<T> = C<T>;
mod m { pub use super::n::*; }
mod n { pub use super::m::*; }
pub fn Foo() -> Foo { Foo() }
pub fn f(a: A, c: C<u8>) { a.x(); c.y(); m::missing(); Foo().z(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert!(!g.is_empty());
}

#[test]
fn match_guards_see_the_arm_bindings() {
    // Regression (toml_edit): `Item::Table(table) if table.is_dotted()` left
    // `table` in the guard with "no definition in scope".
    let src = r#"
pub struct Table;
impl Table { pub fn is_dotted(&self) -> bool { true } }
pub enum Item { Table(Table), None }
pub fn f(i: Item, o: Option<Table>) {
    match i {
        Item::Table(table) if table.is_dotted() => {}
        _ => {}
    }
    match o {
        Some(t) if t.is_dotted() => {}
        _ => {}
    }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Table::is_dotted @7:37 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Table::is_dotted @11:22 TypedReceiver",
    );
}

#[test]
fn uses_reach_names_a_parent_globs_from_its_child_module() {
    // Regression (toml_edit): `ser/mod.rs` has `mod array; use array::*;`
    // and `ser/value.rs` `use super::SerializeValueArray;`, which found
    // nothing, so no use of `SerializeValueArray` in `value.rs` had an edge.
    let g = graph(&[
        ("src/lib.rs", "pub mod ser;\n"),
        ("src/ser.rs", "mod array;\nmod value;\nuse array::*;\n"),
        (
            "src/ser/array.rs",
            "pub struct Seq;\nimpl Seq { pub fn seq() -> Seq { Seq } }\n",
        ),
        (
            "src/ser/value.rs",
            "use super::Seq;\npub fn f() -> Seq { Seq::seq() }\n",
        ),
    ]);
    assert_has(
        &g,
        "references shop_app::ser::value -> shop_app::ser::array::Seq @1:12 ReExport",
    );
    assert_has(
        &g,
        "calls shop_app::ser::value::f -> shop_app::ser::array::Seq::seq @2:26 Path",
    );
}

#[test]
fn enum_variant_patterns_type_their_bindings() {
    // Regression (toml_edit): `Value::Float(f) => f.despan(input)` and
    // `Item::Table(v) => v.span()` were guessed among every method of that
    // name; the variant's declared field types say which.
    let src = r#"
pub struct Table;
impl Table { pub fn span(&self) {} }
pub struct Array;
impl Array { pub fn span(&self) {} }
pub enum Item { Table(Table), Pair(Array, Table), Named { arr: Array }, None }
pub fn f(i: Item) {
    match i {
        Item::Table(t) => t.span(),
        Item::Pair(a, ref b) => { a.span(); b.span() }
        Item::Pair(_, c) => c.span(),
        _ => {}
    }
    if let Option::Some(x) = Some(Table) { x.span() }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Table::span @9:29 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Array::span @10:37 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Table::span @10:47 TypedReceiver",
    );
    // `_` holds a place.
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Table::span @11:31 TypedReceiver",
    );
    // A dependency's enum types nothing: still a guess among both.
    assert_has(&g, "U calls span @14:46 (2 candidates)");
}

#[test]
fn a_fn_named_like_a_crate_does_not_hide_it_in_paths() {
    // Regression (indexmap): tests/quick.rs has `fn indexmap(…)` and
    // `use indexmap::map::Entry;`; the path's first segment found the fn,
    // so no use of the crate in the file resolved.
    let g = graph(&[
        ("src/lib.rs", "pub mod map;\npub use crate::map::Thing;\n"),
        ("src/map.rs", "pub struct Thing;\n"),
        (
            "tests/quick.rs",
            "use shop_app::map::Thing;\nfn shop_app() -> Thing { Thing }\nfn t() { shop_app(); }\n",
        ),
    ]);
    assert_has(&g, "references quick -> shop_app::map::Thing @1:20 Import");
    assert_has(
        &g,
        "references quick::shop_app -> shop_app::map::Thing @2:18 Import",
    );
    assert_has(&g, "calls quick::t -> quick::shop_app @3:10 Local");
}

#[test]
fn impls_through_aliases_do_not_depend_on_declaration_order() {
    // The alias comes after the impl that names it (and in a file after the
    // caller's): the impl belongs to the aliased type all the same. An
    // alias of an outside type keeps the impl itself.
    let dfa = r#"pub struct Dfa;
impl Owned {
    pub fn initial() -> Owned { Dfa }
    pub fn minimize(&mut self) {}
}
pub type Owned = Dfa;
pub trait ToSql { fn to_sql(&self); }
impl ToSql for Array { fn to_sql(&self) {} }
pub type Array = std::rc::Rc<Vec<u8>>;
"#;
    let run = "use crate::dfa::{Dfa, Owned};\npub fn run(mut d: Dfa) { d.minimize(); Owned::initial(); }\n";
    let g = graph(&[
        ("src/lib.rs", "pub mod run;\npub mod dfa;\n"),
        ("src/run.rs", run),
        ("src/dfa.rs", dfa),
    ]);
    assert_has(
        &g,
        "calls shop_app::run::run -> shop_app::dfa::Owned::minimize @2:28 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::run::run -> shop_app::dfa::Owned::initial @2:47 Path",
    );
    assert_has(
        &g,
        "implements shop_app::dfa::Array -> shop_app::dfa::ToSql @8:6 Local",
    );
}

#[test]
fn unresolved_sites_are_kept_only_for_names_some_definition_has() {
    // Calls to names not in scope: `charge` names a fn of another module
    // (not imported), so the site is kept for the language server;
    // `helpers` and `inner` only name modules (a file and an inline one),
    // and `frobnicate` nothing in the repository: those are dropped.
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod helpers;\nmod inner { pub fn run() {} }\npub mod pay { pub fn charge() {} }\npub fn f() { charge(); helpers(); frobnicate(); inner(); }\n",
        ),
        ("src/helpers.rs", "pub fn help() {}\n"),
    ]);
    assert_has(&g, "U calls charge @4:14 (no definition in scope)");
    for name in ["helpers", "frobnicate", "inner"] {
        assert_none(&g, &format!("U calls {name} "));
    }
}

#[test]
fn impls_for_references_to_a_generic_are_blanket() {
    // `impl<I: Peek> Peek for &mut I` is no impl of the trait `Peek` itself:
    // `self.peek()` in the trait reaches the trait's method, and
    // `(*self).peek()` in the impl is not a call of the impl's own method
    // (itertools' `PeekingNext`; rust-analyzer: the trait's method).
    let src = r#"
pub trait Peek { fn peek(&mut self); fn twice(&mut self) { self.peek() } }
impl<I: Peek> Peek for &mut I {
    fn peek(&mut self) { (*self).peek() }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::Peek::twice -> shop_app::Peek::peek @2:65 SelfMember",
    );
    assert_has(
        &g,
        "implements shop_app::&mutI::peek -> shop_app::Peek::peek Path",
    );
    assert_none(&g, "calls shop_app::&mutI::peek -> shop_app::&mutI::peek");
}

#[test]
fn called_names_are_looked_up_as_values() {
    // A module and the fn it re-exports share a name (itertools'
    // `peek_nth`): a call names the fn, and its return type types `p`.
    // A struct with named fields is no value: `Values(1)` is the variant
    // a glob brings (http's `HeaderMap` cursor), not the struct.
    let lib = r#"mod peek;
pub use peek::peek;
pub struct Values { pub i: usize }
enum Cursor { Head, Values(usize) }
use self::Cursor::*;
fn cursor() -> Cursor { Values(1) }
pub fn user() { let mut p = crate::peek(); p.next(); }
"#;
    let peek = "pub struct Peek;\nimpl Peek { pub fn next(&mut self) {} }\npub fn peek() -> Peek { Peek }\n";
    let g = graph(&[("src/lib.rs", lib), ("src/peek.rs", peek)]);
    assert_has(
        &g,
        "calls shop_app::user -> shop_app::peek::peek @7:36 ReExport",
    );
    assert_has(
        &g,
        "calls shop_app::user -> shop_app::peek::Peek::next @7:46 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::cursor -> shop_app::Values");
}

#[test]
fn enums_and_type_aliases_are_no_values() {
    // nom's `use crate::internal::Err;` brings an enum: `Err(…)` called is
    // still the prelude's `Result::Err`, and `Err::Error` the enum's.
    let lib = r#"pub mod internal { pub enum Err { Error(u8) } pub type Res = Result<u8, Err>; }
use crate::internal::{Err, Res};
pub fn f() -> Result<u8, Err> { Err(Err::Error(1)) }
pub fn g() -> Res { Res(1) }
"#;
    let g = graph(&[("src/lib.rs", lib)]);
    assert_has(
        &g,
        "references shop_app::f -> shop_app::internal::Err @3:37 Import",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::internal::Err");
    assert_none(&g, "calls shop_app::g -> shop_app::internal::Res");
}

#[test]
fn methods_missing_on_a_trait_with_an_outside_supertrait_are_outside() {
    // `self.enumerate()` in `trait Itertools: Iterator` is `Iterator`'s and
    // returns a std type: its `max_by` is no in-repo method of that name
    // (rust-analyzer refuted 6 such guesses on itertools).
    let src = r#"
pub trait Ext: Iterator { fn pos_max(self) { self.enumerate().max_by(1); } }
pub struct Group;
impl Group { pub fn max_by(&self, x: u8) {} }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(
        &g,
        "calls shop_app::Ext::pos_max -> shop_app::Group::max_by",
    );
}

#[test]
fn extension_trait_methods_reach_outside_receivers() {
    // `impl<T: Iterator + ?Sized> Ext for T`: where `Ext` is in scope, its
    // methods are called on std iterators (itertools' `collect_vec`), on
    // ranges and `vec![…]`, and their return types type what follows; a
    // method the blanket impl defines is the impl's. Out of scope, no edge.
    let ext = r#"pub trait Ext: Iterator {
    fn pairs(self) -> Pairs<Self> where Self: Sized { Pairs(self) }
    fn odd(self) -> u8;
}
impl<T: Iterator + ?Sized> Ext for T { fn odd(self) -> u8 { 1 } }
pub struct Pairs<I>(I);
impl<I> Pairs<I> { pub fn total(&self) -> usize { 0 } }
"#;
    let user = r#"use crate::ext::Ext;
pub fn u(s: &str, xs: &[u8]) { s.chars().pairs().total(); xs.iter().pairs(); }
pub fn v() { (0..3).odd(); vec![1].into_iter().pairs(); }
pub fn w(v: Vec<u8>) { v.pairs(); }
pub fn x(v: Vec<u8>) { let p = v.iter().pairs(); p.total(); }
"#;
    let other = "pub fn o(s: &str) { s.chars().pairs(); }\n";
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod ext;\npub mod user;\npub mod other;\n",
        ),
        ("src/ext.rs", ext),
        ("src/user.rs", user),
        ("src/other.rs", other),
    ]);
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::ext::Ext::pairs @2:42 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::ext::Pairs::total @2:50 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::ext::Ext::pairs @2:69 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::user::v -> shop_app::ext::T::odd @3:21 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::user::v -> shop_app::ext::Ext::pairs @3:48 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::user::x -> shop_app::ext::Pairs::total @5:52 TypedReceiver",
    );
    // A collection is no iterator: its own methods may share the name.
    assert_none(&g, "calls shop_app::user::w");
    assert_none(&g, "calls shop_app::other::o");
}

#[test]
fn conversions_of_in_repo_types_return_what_their_impls_say() {
    // `self.as_ref().len()` in http's `HeaderValue::len` is the slice's
    // `len`, and `self.borrow().len()` in itertools' `trait PoolIndex:
    // BorrowMut<[usize]>` too: neither calls the method it is in.
    let src = r#"
pub struct Value;
impl Value { pub fn len(&self) -> usize { self.as_ref().len() } }
impl AsRef<[u8]> for Value { fn as_ref(&self) -> &[u8] { &[] } }
pub trait Pool: std::borrow::BorrowMut<[usize]> {
    fn len(&self) -> usize { self.borrow().len() }
}
pub struct Cell;
impl Cell { pub fn get(&self) -> u8 { 0 } }
pub fn f(c: Cell) { c.borrow().get(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::Value::len -> shop_app::Value::len");
    assert_none(&g, "calls shop_app::Pool::len -> shop_app::Pool::len");
    // std's `Borrow<T> for T`: the same type.
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Cell::get @10:32 TypedReceiver",
    );
}

#[test]
fn value_paths_and_tuple_struct_patterns_are_looked_up_as_values() {
    // http's `HeaderMap` cursor: `Values(idx) =>` and `x = Values(i)` name
    // the variant a glob of an enum brings, not the braced `struct Values`;
    // `let f = peek;` names the fn beside a module of that name.
    let lib = r#"mod peek;
pub use peek::peek;
pub struct Values { pub i: usize }
enum Cursor { Head, Values(usize) }
use self::Cursor::*;
fn step(c: Cursor) -> usize { match c { Values(i) => i, Head => 0 } }
pub fn user() { let f = peek; }
"#;
    let peek = "pub fn peek() {}\n";
    let g = graph(&[("src/lib.rs", lib), ("src/peek.rs", peek)]);
    assert_none(&g, "references shop_app::step -> shop_app::Values");
    assert_has(
        &g,
        "references shop_app::user -> shop_app::peek::peek @7:25 Import",
    );
}

#[test]
fn a_trait_typed_receiver_calls_the_trait_method_not_an_impl_through_a_wrapper() {
    // `impl<I: Stream + ?Sized> Stream for Box<I>` is registered under the
    // trait (Box<I> derefs to a Stream). A call on a receiver typed by the
    // trait itself (`self` in a default method, `&mut dyn Stream`, a
    // generic bound) is the trait's method: rust-analyzer names the
    // declaration, not the Box impl's method.
    let g = graph(&[(
        "src/lib.rs",
        "pub trait Stream {\n    fn get(&self) -> u8;\n    fn find(&self) -> u8 { self.get() }\n}\nimpl<I: Stream + ?Sized> Stream for Box<I> {\n    fn get(&self) -> u8 { 0 }\n}\npub fn f(s: &dyn Stream) -> u8 { s.get() }\npub fn g<S: Stream>(s: S) -> u8 { s.get() }\n",
    )]);
    assert_has(
        &g,
        "calls shop_app::Stream::find -> shop_app::Stream::get @3:33 SelfMember",
    );
    assert_none(&g, "calls shop_app::Stream::find -> shop_app::Box::get");
    assert_none(&g, "calls shop_app::f -> shop_app::Box::get");
    assert_none(&g, "calls shop_app::g -> shop_app::Box::get");
}

#[test]
fn an_associated_fn_several_impls_give_is_a_guess_among_them() {
    // `Bytes::from(v)` with `impl From<Vec<u8>> for Bytes` and `impl
    // From<String> for Bytes`: which `from` is meant depends on `v`'s type
    // (rust-analyzer picks by it). Without a known argument both are
    // guesses, not a syntactic edge to the first; a name one impl gives
    // stays a path.
    let g = graph(&[(
        "src/lib.rs",
        "pub struct Bytes;\npub struct Other;\nimpl From<Vec<u8>> for Bytes { fn from(_: Vec<u8>) -> Self { Bytes } }\nimpl From<String> for Bytes { fn from(_: String) -> Self { Bytes } }\nimpl From<u8> for Other { fn from(_: u8) -> Self { Other } }\npub fn f(v: Unknown) -> Bytes { let _ = Other::from(1); Bytes::from(v) }\n",
    )]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Bytes::from @6:64 Member { k: 2 }",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Bytes::from#2 @6:64 Member { k: 2 }",
    );
    assert_has(&g, "calls shop_app::f -> shop_app::Other::from @6:48 Path");
}

#[test]
fn an_associated_fn_of_several_impls_is_picked_by_its_argument() {
    // rust-analyzer picks `Bytes::from`'s impl by the argument's type; so
    // does the graph when the argument says what it is: a literal, `vec!`,
    // `format!`, a slice, a typed binding, a conversion, an in-repo value.
    // A generic impl takes what no other does; an argument of unknown type
    // leaves every impl a guess.
    let g = graph(&[(
        "src/lib.rs",
        "pub struct Bytes;
pub struct Mut;
pub trait Buf {}
impl Mut { pub fn new() -> Mut { Mut } }
impl From<&'static str> for Bytes { fn from(_: &'static str) -> Self { Bytes } }
impl From<Vec<u8>> for Bytes { fn from(_: Vec<u8>) -> Self { Bytes } }
impl From<String> for Bytes { fn from(_: String) -> Self { Bytes } }
impl From<&'static [u8]> for Bytes { fn from(_: &'static [u8]) -> Self { Bytes } }
impl From<Mut> for Bytes { fn from(_: Mut) -> Self { Bytes } }
pub struct Wrap;
impl From<u8> for Wrap { fn from(_: u8) -> Self { Wrap } }
impl<T: Buf> From<T> for Wrap { fn from(_: T) -> Self { Wrap } }
pub fn lit() -> Bytes { Bytes::from(\"abc\") }
pub fn vec() -> Bytes { Bytes::from(vec![1u8]) }
pub fn fmt(n: u8) -> Bytes { Bytes::from(format!(\"{n}\")) }
pub fn slice(b: &[u8]) -> Bytes { Bytes::from(&b[..2]) }
pub fn typed(v: Vec<u8>) -> Bytes { Bytes::from(v) }
pub fn conv(s: &str) -> Bytes { Bytes::from(s.to_string()) }
pub fn call() -> Bytes { Bytes::from(String::new()) }
pub fn own() -> Bytes { let m = Mut::new(); Bytes::from(m) }
pub fn byte() -> Wrap { Wrap::from(1u8) }
pub fn generic() -> Wrap { Wrap::from(Mut::new()) }
pub fn unknown(x: u64) -> Bytes { Bytes::from(x) }
pub fn bound() -> Bytes { let v = vec![1u8]; Bytes::from(v) }
pub fn cloned(v: Vec<u8>) -> Bytes { Bytes::from(v.clone()) }
pub fn owned() -> Bytes { Bytes::from(\"abc\".to_owned()) }
",
    )]);
    for (f, to) in [
        ("lit", "Bytes::from"),
        ("vec", "Bytes::from#2"),
        ("fmt", "Bytes::from#3"),
        ("slice", "Bytes::from#4"),
        ("typed", "Bytes::from#2"),
        ("conv", "Bytes::from#3"),
        ("call", "Bytes::from#3"),
        ("own", "Bytes::from#5"),
        ("byte", "Wrap::from"),
        ("generic", "Wrap::from#2"),
        ("bound", "Bytes::from#2"),
        ("cloned", "Bytes::from#2"),
        ("owned", "Bytes::from#3"),
    ] {
        let hits: Vec<&String> = g
            .iter()
            .filter(|l| {
                l.starts_with(&format!("calls shop_app::{f} -> shop_app::")) && l.contains("::from")
            })
            .collect();
        assert_eq!(hits.len(), 1, "{f}: {hits:#?}");
        assert!(
            hits[0].contains(&format!("-> shop_app::{to} @")) && hits[0].ends_with("TypedReceiver"),
            "{f}: {hits:#?}"
        );
    }
    // `u64` is a primitive the graph does not name at a binding: unknown.
    assert_has(
        &g,
        "calls shop_app::unknown -> shop_app::Bytes::from#5 @23:42 Member { k: 5 }",
    );
}

#[test]
fn an_associated_fn_more_impls_give_than_guesses_allow_is_left_to_the_server() {
    // Six `impl From<_> for Big`: beyond MAX_CANDIDATES (5) guesses, the
    // site stays unresolved (rust-analyzer is asked), as for other names.
    let impls: String = ["u8", "u16", "u32", "u64", "i8", "i16"]
        .iter()
        .map(|t| format!("impl From<{t}> for Big {{ fn from(_: {t}) -> Self {{ Big }} }}\n"))
        .collect();
    let src = format!("pub struct Big;\n{impls}pub fn f() -> Big {{ Big::from(1) }}\npub fn g() -> Big {{ Big::from(1u32) }}\n");
    let g = graph(&[("src/lib.rs", &src)]);
    assert_none(&g, "calls shop_app::f -> shop_app::Big::from");
    assert_has(&g, "U calls from @8:26 (6 candidates)");
    // A suffixed literal says which.
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::Big::from#3 @9:26 TypedReceiver",
    );
}

#[test]
fn self_assoc_type_of_an_impl_is_its_declared_type() {
    // `Self::Error` in an impl declaring `type Error = Error;` is that
    // type (serde-style code types closure parameters and results with
    // it); it was taken for `V` (as if `Error` were a variant of `V`).
    let g = graph(&[(
        "src/lib.rs",
        "pub struct Error;
impl Error { pub fn span(&self) -> u8 { 0 } }
pub trait De { type Error; fn go(self) -> Result<u8, Self::Error>; }
pub struct V;
impl V { pub fn span(&self) -> u8 { 1 } }
impl De for V {
    fn go(self) -> Result<u8, Self::Error> {
        let f = |e: Self::Error| e.span();
        Ok(f(Error))
    }
    type Error = Error;
}
",
    )]);
    assert_has(
        &g,
        "calls shop_app::V::go -> shop_app::Error::span @8:36 TypedReceiver",
    );
    assert!(
        !g.iter().any(|l| l.contains("-> shop_app::V::span")),
        "{g:#?}"
    );
}

#[test]
fn a_use_through_an_inline_module_imports_the_file_at_its_segment() {
    // An inline `mod prelude { … }` has no node: the file edge sits on the
    // segment naming the file (where rust-analyzer answers that file), not
    // on `prelude` (where it answers the inline module).
    let g = graph(&[
        ("src/lib.rs", "mod a;\nmod parser;\n"),
        ("src/parser.rs", "pub mod prelude {\n    pub struct P;\n}\n"),
        (
            "src/a.rs",
            "use crate::parser::prelude::*;\npub fn f(_: P) {}\n",
        ),
    ]);
    assert_has(&g, "imports shop_app::a -> shop_app::parser @1:12 Import");
    assert!(!g.iter().any(|l| l.contains("@1:20")), "{g:#?}");
}

#[test]
fn impls_of_a_type_defined_twice_under_feature_cfgs_follow_the_type_on() {
    // smallvec: `union SmallVecData` with the non-default feature `union`,
    // `enum SmallVecData` without; each has its own impl under the same cfg.
    let manifest = "[package]\nname = \"shop-app\"\n\n[features]\nunion = []\n";
    let src = r#"
#[cfg(feature = "union")]
union Data { a: u32 }
#[cfg(feature = "union")]
impl Data { fn from_inline() -> Data { Data { a: 0 } } fn heap(&self) {} }
#[cfg(not(feature = "union"))]
enum Data { A(u32) }
#[cfg(not(feature = "union"))]
impl Data { fn from_inline() -> Data { Data::A(0) } fn heap(&self) {} }
pub fn f() { let d = Data::from_inline(); d.heap(); }
"#;
    let g = graph_with(&[("Cargo.toml", manifest)], &[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Data::from_inline#2 @10:28 Path",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Data::heap#2 @10:45 TypedReceiver",
    );
}

#[test]
fn a_leading_double_colon_names_a_crate_from_edition_2018_on() {
    let files = [
        (
            "src/lib.rs",
            "mod core;\nuse ::core::fmt;\nuse self::core::Ledger;\npub fn total() {}\n",
        ),
        ("src/core.rs", "pub struct Ledger;\n"),
        (
            "tests/it.rs",
            "use ::shop::total;\n#[test]\nfn t() { ::shop::total(); total(); }\n",
        ),
    ];
    let g = graph_with(
        &[(
            "Cargo.toml",
            "[package]\nname = \"shop\"\nedition = \"2021\"\n",
        )],
        &files,
    );
    // `::core` is the `core` crate, not the module `core` in scope.
    assert!(!g.iter().any(|l| l.contains("@2:")), "{g:#?}");
    assert_has(&g, "imports shop -> shop::core @3:11 Import");
    // `::shop` is this workspace's crate.
    assert_has(&g, "imports it -> shop @1:7 Import");
    assert_has(&g, "references it -> shop::total @1:13 Import");
    assert_has(&g, "calls it::t -> shop::total @3:18 Path");
    // Edition 2015 (no edition in the manifest): `::core` is the crate's
    // own module.
    let g = graph_with(
        &[("Cargo.toml", "[package]\nname = \"shop\"\n")],
        &files[..2],
    );
    assert_has(&g, "imports shop -> shop::core @2:7 Import");
}

#[test]
fn an_edition_2015_use_path_starts_at_the_crate_root() {
    // lewton (no edition in its manifest): `use VorbisError;` in a module,
    // `use imdct_test::*;` in a test fn, both the crate root's.
    let files = [
        ("Cargo.toml", "[package]\nname = \"shop\"\n"),
        (
            "src/lib.rs",
            "mod ogg;\nmod helpers;\npub struct VorbisError;\n",
        ),
        ("src/helpers.rs", "pub fn prepare() {}\n"),
        (
            "src/ogg.rs",
            "use VorbisError;\npub struct VorbisError2;\npub fn f(_: VorbisError) {\n    use helpers::*;\n    prepare();\n}\n",
        ),
    ];
    let g = graph_with(&files[..1], &files[1..]);
    assert_has(&g, "references shop::ogg -> shop::VorbisError @1:5 Path");
    assert_has(&g, "imports shop::ogg -> shop::helpers @4:9 Import");
    assert_has(
        &g,
        "references shop::ogg::f -> shop::VorbisError @3:13 Import",
    );
    assert_has(
        &g,
        "calls shop::ogg::f -> shop::helpers::prepare @5:5 Import",
    );
}

#[test]
fn a_macro_use_extern_crate_brings_its_exported_macros_everywhere() {
    // approx's tests: `#[macro_use] extern crate approx;` at the test
    // crate's root, then `assert_abs_diff_eq!(…)` in its modules.
    let g = graph(&[
        ("src/lib.rs", "#[macro_use]\nmod macros;\n"),
        (
            "src/macros.rs",
            "#[macro_export]\nmacro_rules! check { () => {} }\n",
        ),
        (
            "tests/t.rs",
            "#[macro_use]\nextern crate shop_app;\nmod inner {\n    fn t() { check!(); }\n}\n",
        ),
        ("tests/u.rs", "mod inner {\n    fn t() { check!(); }\n}\n"),
    ]);
    assert_has(
        &g,
        "calls t::inner::t -> shop_app::macros::check @4:14 Import",
    );
    // Without it, the macro is not in scope.
    assert!(!g
        .iter()
        .any(|l| l.starts_with("calls u::inner::t -> shop_app::macros::check")));
}

#[test]
fn blocks_ifs_and_matches_have_the_type_of_their_value() {
    let src = r#"
pub struct Ledger;
impl Ledger { pub fn new() -> Ledger { Ledger } pub fn post(&self) {} }
pub struct Journal;
impl Journal { pub fn post(&self) {} }
pub fn f(c: bool, o: Option<u8>) {
    let a = unsafe { Ledger::new() };
    a.post();
    let b = if c { Ledger::new() } else { panic!() };
    b.post();
    let d = match o { None => return, Some(_) => Ledger::new() };
    d.post();
    let e = { let _x = 1; Ledger::new() };
    e.post();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for (line, col) in [(8, 7), (10, 7), (12, 7), (14, 7)] {
        assert_has(
            &g,
            &format!("calls shop_app::f -> shop_app::Ledger::post @{line}:{col} TypedReceiver"),
        );
    }
    assert!(!g.iter().any(|l| l.contains("Journal::post")), "{g:#?}");
}

#[test]
fn a_manifest_lists_its_dependencies_by_package() {
    let m = parse_manifest(
        r#"[package]
name = "app"
[dependencies]
serde = "1"
shop-core = { path = "../core" }
money = { package = "shop-money", version = "1" }
tokio.workspace = true
[dev-dependencies.proptest]
version = "1"
[target.'cfg(unix)'.dependencies]
libc = "0.2"
[target."cfg(any(windows, target_os = \"wasi\"))".build-dependencies.winres]
package = "win-res"
[workspace.dependencies]
never = "1"
[features]
default = ["std"]
std = []
"#,
    );
    assert_eq!(
        &*m.deps,
        [
            "libc",
            "proptest",
            "serde",
            "shop_core",
            "shop_money",
            "tokio",
            "win_res"
        ]
    );
    assert_eq!(&*m.features, ["std"]);
}

#[test]
fn an_unknown_receiver_is_not_guessed_from_a_crate_this_one_cannot_use() {
    let ledger = "pub struct Book;\nimpl Book { pub fn reconcile(&self) {} }\n";
    // An unbounded type parameter leaves `b` of unknown type.
    let caller = "pub fn f<T>(xs: Vec<(T, u8)>) { for (b, _) in xs { b.reconcile(); } }\n";
    let g = graph_with(
        &[
            ("Cargo.toml", "[workspace]\nmembers = [\"ledger\", \"app\", \"tool\", \"cli\"]\n"),
            ("ledger/Cargo.toml", "[package]\nname = \"shop-ledger\"\n"),
            (
                "app/Cargo.toml",
                "[package]\nname = \"app\"\n[dependencies]\nbooks = { package = \"shop-ledger\", path = \"../ledger\" }\n",
            ),
            ("tool/Cargo.toml", "[package]\nname = \"tool\"\n"),
            // Through `app`: a dependency of a dependency.
            ("cli/Cargo.toml", "[package]\nname = \"cli\"\n[dependencies]\napp = { path = \"../app\" }\n"),
        ],
        &[
            ("ledger/src/lib.rs", ledger),
            ("app/src/lib.rs", caller),
            ("tool/src/lib.rs", caller),
            ("cli/src/lib.rs", caller),
        ],
    );
    assert_has(
        &g,
        "calls app::f -> shop_ledger::Book::reconcile @1:54 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls cli::f -> shop_ledger::Book::reconcile @1:54 Member { k: 1 }",
    );
    assert!(!g.iter().any(|l| l.starts_with("calls tool::f")), "{g:#?}");
}

#[test]
fn a_use_under_a_cfg_likely_off_yields_to_the_one_compiled_in() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod node;\npub mod real;\n#[cfg(test_node)]\nuse node::Req;\n#[cfg(not(test_node))]\nuse real::Req;\npub fn f(r: &Req) { r.matches(); }\n#[cfg(test_node)]\nuse node::parse;\nuse real::*;\npub fn g() { parse(); }\n",
        ),
        (
            "src/node.rs",
            "pub struct Req;\nimpl Req { pub fn matches(&self) {} }\npub fn parse() {}\n",
        ),
        (
            "src/real.rs",
            "pub struct Req;\nimpl Req { pub fn matches(&self) {} }\npub fn parse() {}\n",
        ),
    ]);
    assert_has(
        &g,
        "references shop_app::f -> shop_app::real::Req @7:14 Import",
    );
    // Not even before a glob: the glob's `parse` is the one compiled in.
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::real::parse @11:14 Import",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::real::Req::matches @7:23 TypedReceiver",
    );
    assert!(
        !g.iter()
            .any(|l| l.contains("shop_app::f -> shop_app::node")),
        "{g:#?}"
    );
}

#[test]
fn a_glob_of_an_enum_brings_its_variants() {
    let src = r#"
pub enum Kind { Status(u8), Method(u8), Unit }
pub struct Status(pub u8);
pub fn Method(x: u8) -> u8 { x }
pub fn f(k: Kind) -> u8 {
    use self::Kind::*;
    match k { Status(e) => e, Method(e) => e, Unit => 0 }
}
mod inner {
    use super::Kind::{self, *};
    pub fn g(k: Kind) -> u8 { match k { Status(e) => e, Method(e) => e, Unit => 0 } }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    // In the fn, the glob's variants shadow the module's struct and fn.
    assert!(!g.iter().any(|l| l.contains("@7:")), "{g:#?}");
    // At module level, they are what the names are, and no site is left.
    assert!(
        !g.iter().any(|l| l.contains("@11:4") || l.contains("@11:5")),
        "{g:#?}"
    );
}

#[test]
fn a_field_typed_by_a_struct_parameter_takes_the_impls_argument() {
    // `struct Take<T> { inner: T }`: in `impl<T: Buf> Buf for Take<T>`,
    // `self.inner` is a `Buf` (rust-analyzer names the trait's method); in
    // `impl Take<Slice>` it is a `Slice`; in `impl<T> Take<T>` it is not
    // known, and no impl's argument is taken for it.
    let src = r#"pub trait Buf { fn remaining(&self) -> usize; }
pub struct Slice;
impl Buf for Slice { fn remaining(&self) -> usize { 0 } }
pub struct Take<'a, T, U> { inner: &'a mut T, limit: U }
impl<'a, T, U> Buf for Take<'a, T, U> where T: Buf { fn remaining(&self) -> usize { self.inner.remaining() } }
impl<'a, U> Take<'a, Slice, U> { fn first(&self) -> usize { self.inner.remaining() } }
impl<'a, T, U> Take<'a, T, U> { fn plain(&self) -> usize { self.inner.remaining() } }
pub struct Pair<T>(T, Slice);
impl<T: Buf> Pair<T> { fn both(&self) -> usize { self.0.remaining() + self.1.remaining() } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::Take::remaining -> shop_app::Buf::remaining @5:96 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Take::first -> shop_app::Slice::remaining @6:72 TypedReceiver",
    );
    assert_none(
        &g,
        "calls shop_app::Take::plain -> shop_app::Buf::remaining @7:71",
    );
    assert_none(
        &g,
        "calls shop_app::Take::plain -> shop_app::Slice::remaining @7:71",
    );
    assert_has(
        &g,
        "calls shop_app::Pair::both -> shop_app::Buf::remaining @9:57 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Pair::both -> shop_app::Slice::remaining @9:78 TypedReceiver",
    );
}

#[test]
fn a_struct_parameter_inside_a_fields_generic_type_takes_the_impls_argument() {
    // `struct Chain<T> { head: Option<T>, rest: Vec<T> }`: in `impl<T:
    // Buf> Buf for Chain<T>`, `self.head.unwrap()` and `self.rest[0]` are
    // `Buf`s; in `impl Chain<Slice>` they are `Slice`s; through another
    // base than `self` nothing is known.
    let src = r#"pub trait Buf { fn remaining(&self) -> usize; }
pub struct Slice;
impl Buf for Slice { fn remaining(&self) -> usize { 0 } }
pub struct Chain<T> { head: Option<T>, rest: Vec<T> }
impl<T: Buf> Buf for Chain<T> { fn remaining(&self) -> usize { self.head.unwrap().remaining() + self.rest[0].remaining() } }
impl Chain<Slice> { fn first(&self) -> usize { self.head.unwrap().remaining() } }
pub fn other(c: Chain<Slice>) -> usize { c.head.unwrap().remaining() }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::Chain::remaining -> shop_app::Buf::remaining @5:83 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Chain::remaining -> shop_app::Buf::remaining @5:110 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Chain::first -> shop_app::Slice::remaining @6:67 TypedReceiver",
    );
    assert_none(
        &g,
        "calls shop_app::other -> shop_app::Slice::remaining @7:58 TypedReceiver",
    );
}

#[test]
fn a_trait_implemented_for_an_outside_type_is_callable_on_it() {
    // `impl BufMut for Vec<u8>`: `v.put_u8(1)` on a `Vec` reaches the
    // trait's default method (the impl does not define it), `v.advance_mut`
    // the impl's own; with a second outside impl that defines `advance_mut`
    // too, which one depends on the receiver's type: the `Vec` one where
    // the receiver is named a `Vec`, else not a guess. Without the trait in
    // scope, no method of it is callable.
    let lib = r#"pub trait BufMut { fn advance_mut(&mut self, n: usize); fn put_u8(&mut self, b: u8) { self.advance_mut(1) } }
impl BufMut for Vec<u8> { fn advance_mut(&mut self, n: usize) {} }
pub mod other { pub fn f(v: &mut Vec<u8>) { v.put_u8(1); } }
"#;
    let user = "use shop_app::BufMut;\npub fn g() { let mut v = Vec::new(); v.put_u8(1); v.advance_mut(2); }\n";
    let g = graph(&[("src/lib.rs", lib), ("tests/t.rs", user)]);
    assert_has(
        &g,
        "calls t::g -> shop_app::BufMut::put_u8 @2:40 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls t::g -> shop_app::Vec::advance_mut @2:53 Member { k: 1 }",
    );
    assert_none(&g, "calls shop_app::other::f -> shop_app::BufMut::put_u8");
    let two =
        format!("{lib}impl BufMut for &mut [u8] {{ fn advance_mut(&mut self, n: usize) {{}} }}\n");
    let g = graph(&[("src/lib.rs", &two), ("tests/t.rs", user)]);
    assert_has(
        &g,
        "calls t::g -> shop_app::BufMut::put_u8 @2:40 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls t::g -> shop_app::Vec::advance_mut @2:53 Member { k: 1 }",
    );
    let unnamed = "use shop_app::BufMut;\npub fn g(v: &mut impl Sized) { v.advance_mut(2); }\n";
    let g = graph(&[("src/lib.rs", &two), ("tests/t.rs", unnamed)]);
    assert_has(&g, "U calls advance_mut @2:34 (2 candidates)");
    // In such an impl, `self.name()` is the impl's own method, else the
    // trait's; but a name the outside type has itself (`Vec::reserve`) is
    // its inherent method, which comes first.
    let own = "pub trait Put { fn put(&mut self); fn put_two(&mut self) { self.put() } fn grow(&mut self); fn reserve(&mut self); }\nimpl Put for Vec<u8> {\n    fn put(&mut self) { self.grow(); self.put_two(); self.reserve(); }\n    fn grow(&mut self) {}\n    fn reserve(&mut self) {}\n}\n";
    let g = graph(&[("src/lib.rs", own)]);
    assert_has(
        &g,
        "calls shop_app::Vec::put -> shop_app::Vec::grow @3:30 SelfMember",
    );
    assert_has(
        &g,
        "calls shop_app::Vec::put -> shop_app::Put::put_two @3:43 SelfMember",
    );
    assert_none(&g, "calls shop_app::Vec::put -> shop_app::Vec::reserve");
}

#[test]
fn the_impl_for_the_receiver_s_outside_type_is_the_one_called() {
    // bytes: `Buf` is implemented for `&[u8]`, `VecDeque<u8>` and
    // `Cursor<T>`, each with its own `remaining`; `get_u8` is the trait's
    // default. The receiver's declared or constructed type picks the impl;
    // a type with no impl of the trait gets none of them.
    let lib = r#"pub trait Buf { fn remaining(&self) -> usize; fn get_u8(&mut self) -> u8 { 0 } }
impl Buf for &[u8] { fn remaining(&self) -> usize { 0 } }
impl Buf for std::collections::VecDeque<u8> { fn remaining(&self) -> usize { 0 } }
impl<T> Buf for std::io::Cursor<T> { fn remaining(&self) -> usize { 0 } fn get_u8(&mut self) -> u8 { 1 } }
"#;
    let user = "use shop_app::Buf;\nuse std::collections::VecDeque;\nuse std::io::Cursor;\npub fn g(s: &[u8]) {\n    let d: VecDeque<u8> = VecDeque::new();\n    d.remaining();\n    d.get_u8();\n    let c = Cursor::new(s);\n    c.remaining();\n    c.get_u8();\n    s.remaining();\n    let v = Vec::new();\n    v.remaining();\n}\n";
    let g = graph(&[("src/lib.rs", lib), ("tests/t.rs", user)]);
    assert_has(
        &g,
        "calls t::g -> shop_app::VecDeque::remaining @6:7 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls t::g -> shop_app::Buf::get_u8 @7:7 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls t::g -> shop_app::Cursor::remaining @9:7 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls t::g -> shop_app::Cursor::get_u8 @10:7 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls t::g -> shop_app::&[u8]::remaining @11:7 Member { k: 1 }",
    );
    assert_has(&g, "U calls remaining @13:7 (3 candidates)");
    // tokio: `Pin::new(&mut inner).poll_read(…)` is the inner value's
    // method (`self: Pin<&mut Self>`), not that of `impl AsyncRead for
    // Pin<P>`.
    let pin = r#"use std::pin::Pin;
pub trait AsyncRead { fn poll_read(self: Pin<&mut Self>); }
impl<P> AsyncRead for Pin<P> where P: std::ops::DerefMut + Unpin { fn poll_read(self: Pin<&mut Self>) {} }
impl AsyncRead for std::fs::File { fn poll_read(self: Pin<&mut Self>) {} }
impl AsyncRead for Vec<u8> { fn poll_read(self: Pin<&mut Self>) {} }
pub struct S { io: std::process::ChildStdin }
pub fn f(s: &mut S) { Pin::new(&mut s.io).poll_read(); }
"#;
    let g = graph(&[("src/lib.rs", pin)]);
    assert_none(&g, "calls shop_app::f -> shop_app::Pin::poll_read");
}

#[test]
fn review3_an_outside_type_s_inherent_method_comes_before_an_impl_s() {
    // A buffer trait implemented for `Vec<u8>` and `VecDeque<u8>` by
    // delegation: `v.extend_from_slice(s)` on a `Vec` is std's inherent
    // `Vec::extend_from_slice` (inherent methods come first at the same
    // autoref), as rust-analyzer answers; not the impl's. With two impls
    // this was "2 candidates"; now the `Vec` impl is picked.
    let lib = r#"pub trait Buffer { fn extend_from_slice(&mut self, s: &[u8]); }
impl Buffer for Vec<u8> { fn extend_from_slice(&mut self, s: &[u8]) { Vec::extend_from_slice(self, s) } }
impl Buffer for std::collections::VecDeque<u8> { fn extend_from_slice(&mut self, s: &[u8]) { self.extend(s) } }
"#;
    let user = "use shop_app::Buffer;\npub fn g(s: &[u8]) { let mut v: Vec<u8> = Vec::new(); v.extend_from_slice(s); }\n";
    let g = graph(&[("src/lib.rs", lib), ("tests/t.rs", user)]);
    assert_none(&g, "calls t::g -> shop_app::Vec::extend_from_slice");
}

#[test]
fn review3_an_associated_fn_s_value_is_not_always_its_type() {
    // `String::from_utf8_lossy(b)` is a `Cow<str>`, not a `String`: its
    // `tag()` autoderefs to `str`'s impl (rust-analyzer), not `String`'s.
    // The receiver shape takes `T::f(…)` for a `T`.
    let lib = r#"pub trait Tag { fn tag(&self) -> u8; }
impl Tag for String { fn tag(&self) -> u8 { 1 } }
impl Tag for str { fn tag(&self) -> u8 { 2 } }
"#;
    let user =
        "use shop_app::Tag;\npub fn g(b: &[u8]) -> u8 { String::from_utf8_lossy(b).tag() }\n";
    let g = graph(&[("src/lib.rs", lib), ("tests/t.rs", user)]);
    assert_none(&g, "calls t::g -> shop_app::String::tag");
}

#[test]
fn tuple_elements_take_their_declared_types() {
    // A fn returning `(Cn, usize)`: its elements reach `.0` and tuple
    // patterns (after `..`, counted from the end); `enumerate`, a map's
    // pairs and `zip` yield tuples; an element of the other iterator of a
    // `zip` is unknown, and says so.
    let src = r#"use std::collections::HashMap;
pub struct Cn(u8);
impl Cn { fn as_ptr(self) -> usize { 0 } }
pub struct Sv;
impl Sv { fn heap(&self) -> (Cn, usize) { todo!() } fn triple(&self) -> (Cn, usize, Cn) { todo!() } }
pub fn c(s: Sv) { let (p, l) = s.heap(); p.as_ptr(); s.triple().0.as_ptr(); let (.., z) = s.triple(); z.as_ptr(); }
pub fn d(v: Vec<Cn>, m: HashMap<u32, Cn>) { for (i, x) in v.iter().enumerate() { x.as_ptr(); } for (k, y) in &m { y.as_ptr(); } m.iter().map(|(k, w)| w.as_ptr()); for (a, b) in v.iter().zip(v.iter()) { a.as_ptr(); b.as_ptr(); } }
pub fn e(t: (Cn, Sv)) { t.0.as_ptr(); t.1.heap(); let (q, r) = t; q.as_ptr(); }
pub fn g(t: (u8, Cn)) { let (_, p) = t; p.as_ptr(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for (src, col) in [
        ("c", 44),
        ("c", 67),
        ("d", 84),
        ("d", 117),
        ("d", 153),
        ("d", 205),
    ] {
        let line = if src == "c" { 6 } else { 7 };
        assert_has(
            &g,
            &format!("calls shop_app::{src} -> shop_app::Cn::as_ptr @{line}:{col} TypedReceiver"),
        );
    }
    assert_has(
        &g,
        "calls shop_app::e -> shop_app::Cn::as_ptr @8:29 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::e -> shop_app::Sv::heap @8:43 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::e -> shop_app::Cn::as_ptr @8:69 TypedReceiver",
    );
    // After `..`, from the end.
    assert_has(
        &g,
        "calls shop_app::c -> shop_app::Cn::as_ptr @6:105 TypedReceiver",
    );
    assert_has(
        &g,
        "U calls as_ptr @7:217 (unknown receiver, common method name)",
    );
}

#[test]
fn a_type_bound_nowhere_is_unknown_unless_an_outside_glob_may_bring_it() {
    // `bitflags! { struct Flags … }` defines a type the graph does not
    // see: a receiver of it is unknown (its methods guessed, or flagged),
    // not an outside type whose methods are dropped. With an outside
    // glob in scope, the name most likely comes from there.
    let g = graph(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\npub struct Cn;\nimpl Cn { pub fn go(&self) {} }\n"),
        (
            "src/a.rs",
            "pub fn g(x: Unbound) { x.go(); make().go(); Unbound::A.go(); }\npub fn h(s: String, v: Vec<crate::Cn>) { s.go(); v[0].go(); }\n",
        ),
        (
            "src/b.rs",
            "use std::collections::*;\npub fn f(m: HashMap<u8, crate::Cn>, x: Unbound) { m.get(&1).unwrap().go(); x.go(); }\n",
        ),
    ]);
    for col in [26, 39, 56] {
        assert_has(
            &g,
            &format!("calls shop_app::a::g -> shop_app::Cn::go @1:{col} Member {{ k: 1 }}"),
        );
    }
    // Prelude names stay outside types.
    assert_none(&g, "calls shop_app::a::h -> shop_app::Cn::go @2:44");
    assert_has(
        &g,
        "calls shop_app::a::h -> shop_app::Cn::go @2:55 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::b::f -> shop_app::Cn::go @2:70 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::b::f -> shop_app::Cn::go @2:78");
    // A type a fn body defines is bound there, for its impls too.
    let g = graph(&[(
        "src/lib.rs",
        "pub fn de() { struct Id; impl serde::Visitor for Id { fn visit_str(&self) {} fn visit(&self) { self.visit_str(); } } }\nstruct Other; impl Other { fn visit_str(&self) {} }\n",
    )]);
    assert_has(
        &g,
        "calls shop_app::de::Id::visit -> shop_app::de::Id::visit_str @1:101 SelfMember",
    );
}

#[test]
fn a_macro_defined_in_a_fn_body_is_in_scope_there() {
    // smallvec's tests/macro.rs: `macro_rules! check { … }` in a test fn,
    // then `check!([1; 1]);`. A fn of the same name elsewhere is not it.
    let src = "pub fn t() {\n    macro_rules! check { ($x:tt) => {} }\n    check!([1]);\n    check([1]);\n}\npub fn check(_: [u8; 1]) {}\n";
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(&g, "calls shop_app::t -> shop_app::t::check @3:5 Local");
    assert_has(&g, "calls shop_app::t -> shop_app::check @4:5 Local");
}

#[test]
fn a_macro_defined_again_in_a_fn_body_shadows_the_one_above() {
    // lewton's `inverse_mdct`: each block defines `d!` and `e!` anew; a
    // call expands the last one defined above it.
    let src = "pub fn t() {\n    {\n        macro_rules! d { () => {} }\n        d!();\n    }\n    {\n        macro_rules! d { () => {} }\n        d!();\n    }\n}\n";
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(&g, "calls shop_app::t -> shop_app::t::d @4:9 Local");
    assert_has(&g, "calls shop_app::t -> shop_app::t::d#2 @8:9 Local");
    assert!(!g
        .iter()
        .any(|l| l.starts_with("calls shop_app::t -> shop_app::t::d @8:9")));
}

/// A fn passed as a value among a macro's arguments is a reference, as
/// rust-analyzer finds by expanding the macro (winnow's `assert_parse!(
/// be_i128.parse_peek(…), …)`, `seq! { Point { x: dec_uint } }`). Names a
/// macro binds, declares, labels or quotes are not; a name no fn has is
/// not a site at all.
#[test]
fn a_fn_named_among_a_macros_arguments_is_a_reference() {
    let src = r#"pub fn digits() {}
pub fn x() {}
pub fn name() {}
pub struct S;
impl S {
    pub fn get<T>(&self) {}
    clone_fields!(digits);
}
#[allow(non_camel_case_types)]
struct private;
pub fn checks(d: u8, s: S) {
    check!(digits.parse(), d);
    seq! { Point { x: digits, _: ',' } }
    named!(name = digits);
    make!(fn name() {} let x = 1; for x in y {});
    stringify!(digits);
    check!(unknown_name, d);
    check!(|x| x, d);
    check!(d.x, d);
    check!(ys.map(|y, digits| digits), { let name = 1; name + 1 });
    check!(match d { Some(name) => name, x @ _ => x });
    tracing!(x.id = d);
    check!(s.get::<Vec<u8>>(), d);
    quote! { digits(); let v = digits; S::get(); _serde::#private::Default; #d }
    quote_spanned! { s.get::<u8>() => x(); }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    let from_checks: Vec<&String> = g
        .iter()
        .filter(|l| l.contains(" shop_app::checks -> ") && !l.contains("-> shop_app::S @"))
        .collect();
    let want = [
        "references shop_app::checks -> shop_app::digits @12:12 Local",
        "references shop_app::checks -> shop_app::digits @13:23 Local",
        "references shop_app::checks -> shop_app::digits @14:19 Local",
        // A method called with a turbofish among a macro's tokens.
        "calls shop_app::checks -> shop_app::S::get @23:14 TypedReceiver",
        // In `quote!`, only what is interpolated, and the span.
        "references shop_app::checks -> shop_app::private @24:59 Local",
        "calls shop_app::checks -> shop_app::S::get @25:24 TypedReceiver",
    ];
    assert_eq!(from_checks, want, "in:\n{}", g.join("\n"));
    assert_none(&g, "U references unknown_name");
    // Names among an impl's items are those of items or fields.
    assert_none(&g, "references shop_app::S -> shop_app::digits");
}

/// What a macro's tokens bind (destructuring, closure parameters, match
/// arms, `tokio::select!` arms), what a std macro written among them does
/// not evaluate (`stringify!`, `matches!`'s pattern), what they quote, the
/// flags and tags of a macro's own language (clap's `arg!`), attributes,
/// and names among an impl's items (even in a fn body) are not fns passed
/// as values. (Cases from a review, each a wrong edge before its mend.)
#[test]
fn names_a_macro_binds_quotes_or_reads_in_its_own_language_are_not_references() {
    let src = r#"pub fn value() {}
pub fn item() {}
pub fn key() {}
pub fn n() {}
pub fn msg() {}
pub fn v() {}
pub fn config() {}
pub fn test() {}
pub async fn f(d: Option<u8>, w: Vec<(u8, u8)>, rx: Rx) {
    check!({ let (key, item) = (1, 2); key + item });
    check!({ if let Some(value) = d { value } else { 0 } });
    check!({ for (n, item) in w { use_it(n, item) } });
    check!(w.iter().map(|(key, value)| key + value));
    check!(match d { value => value });
    tokio::select! {
        Some(msg) = rx.recv() => { handle(msg) }
        v = rx.recv() => { handle(v) }
    }
    check!(stringify!(value), matches!(d, Some(item)), concat!(key));
    wrap!(quote! { value(); let x = item; });
    let c = Command::new("x").arg(arg!(-c --config <FILE> "file")).arg(arg!(v: -v --config));
    run! { #[cfg(test)] let a = 1; }
    struct S;
    impl S { clone_fields!(value); }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for name in ["value", "item", "key", "n", "msg", "v", "config", "test"] {
        assert_none(&g, &format!("references shop_app::f -> shop_app::{name} "));
        assert_none(&g, &format!("calls shop_app::f -> shop_app::{name} "));
    }
}

#[test]
fn a_generic_bounded_by_several_traits_has_the_methods_of_each() {
    // nom's `escaped`: `Input` is written as its first bound, `Offset`;
    // `input_len` is `Len`'s, in a closure and on a clone. A method no
    // bound has stays unresolved.
    let lib = r#"pub trait Len { fn input_len(&self) -> usize; }
pub trait Offset { fn offset(&self) -> usize; }
pub trait Parser<I> { fn parse(&mut self, i: I) -> usize; }
pub struct Other;
impl Other { pub fn missing(&self) {} }
pub fn escaped<'a, Input: 'a, F>(mut normal: F) -> impl FnMut(Input) -> usize
where
  Input: Clone
    + crate::Offset
    + Len,
  F: Parser<Input>,
{
  move |input: Input| {
    let mut i = input.clone();
    while i.input_len() > 0 {
      normal.parse(i.clone());
    }
    input.missing();
    input.offset()
  }
}
pub fn single<T: Offset>(t: T) -> usize { t.input_len() }
"#;
    let g = graph(&[("src/lib.rs", lib)]);
    assert_has(
        &g,
        "calls shop_app::escaped -> shop_app::Len::input_len @15:13 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::escaped -> shop_app::Offset::offset @19:11 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::escaped -> shop_app::Parser::parse @16:14 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::escaped -> shop_app::Other::missing");
    assert_none(&g, "calls shop_app::single -> shop_app::Len::input_len");
}

#[test]
fn a_private_inherent_method_out_of_reach_yields_to_the_trait_impls() {
    // chrono: `NaiveDate` has a private `const fn year` and `impl Datelike
    // for NaiveDate`; from another module, `d.year()` is the impl's, as
    // rust-analyzer answers.
    let lib = r#"pub mod date {
    pub trait Datelike { fn year(&self) -> i32; }
    pub struct NaiveDate;
    impl NaiveDate {
        const fn year(&self) -> i32 { 0 }
        pub fn inner(&self) -> i32 { self.year() }
    }
    impl Datelike for NaiveDate { fn year(&self) -> i32 { 1 } }
}
use date::{Datelike, NaiveDate};
pub fn outer(d: NaiveDate) -> i32 { d.year() }
"#;
    let g = graph(&[("src/lib.rs", lib)]);
    assert_has(
        &g,
        "calls shop_app::date::NaiveDate::inner -> shop_app::date::NaiveDate::year @6:43 SelfMember",
    );
    assert_has(
        &g,
        "calls shop_app::outer -> shop_app::date::NaiveDate::year#2 @11:39 TypedReceiver",
    );
}

#[test]
fn a_path_attribute_names_the_module_file() {
    // serde_json's tests include its sources a second time by path.
    let manifest = format!("{MANIFEST}[features]\ndefault = [\"std\"]\nstd = []\n");
    let g = graph_with(&[("Cargo.toml", manifest.as_str())], &[
        (
            "src/lib.rs",
            "mod lexical;\n#[path = \"sys/unix.rs\"]\nmod imp;\npub fn f() { imp::open(); }\n\
             #[cfg(not(feature = \"std\"))]\n#[path = \"sys/core.rs\"]\nmod io;\n\
             #[cfg(feature = \"std\")]\nuse std::io;\npub fn g() { io::stdout(); }\n",
        ),
        ("src/lexical/mod.rs", "pub mod float;\n"),
        (
            "src/lexical/float.rs",
            "pub struct ExtendedFloat;\nimpl ExtendedFloat { pub fn normalize(&self) {} }\n",
        ),
        ("src/sys/unix.rs", "pub fn open() {}\n"),
        ("src/sys/core.rs", "pub fn stdout() {}\n"),
        // A decoy where the layout alone would look.
        ("src/imp.rs", "pub fn open() {}\n"),
        (
            "tests/lexical.rs",
            "#[path = \"../src/lexical/mod.rs\"]\nmod lexical;\nmod float;\n",
        ),
        (
            "tests/lexical/float.rs",
            "use crate::lexical::float::ExtendedFloat;\nfn t(x: &ExtendedFloat) { x.normalize(); }\n",
        ),
    ]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::sys::unix::open @4:19 Path",
    );
    assert!(
        !g.iter().any(|l| l.contains("-> shop_app::imp::open")),
        "the layout's file was taken: {g:#?}"
    );
    // Compiled out under the default features: `io` is std's.
    assert!(
        !g.iter().any(|l| l.contains("-> shop_app::sys::core")),
        "a module compiled out was taken: {g:#?}"
    );
    assert_has(
        &g,
        "references lexical::float -> shop_app::lexical::float::ExtendedFloat @1:28 Import",
    );
    assert_has(
        &g,
        "calls lexical::float::t -> shop_app::lexical::float::ExtendedFloat::normalize @2:29 TypedReceiver",
    );
}

#[test]
fn extension_trait_methods_reach_in_repo_types_that_implement_outside_traits() {
    // itertools: `put_back(0..10).peeking_take_while(…)` — `PutBack`
    // implements `Iterator`, so `impl<T: Iterator> Ext for T` gives it
    // `Ext`'s methods where `Ext` is in scope. A type implementing no
    // outside trait gets none.
    let ext = r#"pub trait Ext: Iterator {
    fn pairs(self) -> Pairs<Self> where Self: Sized { Pairs(self) }
}
impl<T: Iterator + ?Sized> Ext for T {}
pub struct Pairs<I>(I);
impl<I> Pairs<I> { pub fn total(&self) -> usize { 0 } }
pub struct PutBack;
impl Iterator for PutBack { type Item = u8; fn next(&mut self) -> Option<u8> { None } }
pub struct Plain;
"#;
    let user = r#"use crate::ext::{Ext, Plain, PutBack};
pub fn u(p: PutBack, q: Plain) { p.pairs().total(); q.pairs(); }
"#;
    let g = graph(&[
        ("src/lib.rs", "pub mod ext;\npub mod user;\n"),
        ("src/ext.rs", ext),
        ("src/user.rs", user),
    ]);
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::ext::Ext::pairs @2:36 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::ext::Pairs::total @2:44 TypedReceiver",
    );
    assert!(
        !g.iter().any(|l| l.contains("@2:56")),
        "a type implementing no outside trait got an extension method: {g:#?}"
    );
}

#[test]
fn a_unit_struct_written_as_a_value_is_typed() {
    // chrono: `Utc.with_ymd_and_hms(…).unwrap()` — `Utc` is a value of the
    // unit struct, so the trait's default method and what it returns
    // (through a generic alias) are known.
    let src = r#"pub type Mapped<T> = LocalResult<T>;
pub enum LocalResult<T> { None, Single(T) }
impl<T> LocalResult<T> { pub fn unwrap(self) -> T { todo!() } }
pub trait TimeZone: Sized { fn make(&self) -> Mapped<Self> { LocalResult::None } }
pub struct Utc;
impl TimeZone for Utc {}
pub fn f() { Utc.make().unwrap(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::TimeZone::make @7:18 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::LocalResult::unwrap @7:25 TypedReceiver",
    );
}

#[test]
fn a_generic_return_type_bounded_by_std_traits_is_the_callers_type() {
    // `impl<T: Debug> LocalResult<T> { fn unwrap(self) -> T }`: what a
    // caller unwraps is its own type argument, not an outside type whose
    // methods would be dropped; here it is unknown, and the method is
    // guessed by name rather than silently left out.
    let src = r#"pub enum LocalResult<T> { None, Single(T) }
impl<T: std::fmt::Debug> LocalResult<T> { pub fn unwrap(self) -> T { todo!() } }
pub struct DateTime;
impl DateTime { pub fn nano(&self) -> u8 { 0 } }
pub fn make() -> LocalResult<DateTime> { LocalResult::None }
pub fn f() { make().unwrap().nano(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::DateTime::nano @6:30 Member { k: 1 }",
    );
}

#[test]
fn option_and_comparator_closures_take_elements() {
    // `Option::and_then`/`map_or`/`is_some_and` pass the `Some` value;
    // `sort_by` passes two elements.
    let src = r#"pub struct Cn(u8);
impl Cn { fn as_ptr(&self) -> usize { 0 } }
pub fn f(o: Option<Cn>, v: Vec<Cn>) {
    o.and_then(|c| Some(c.as_ptr()));
    o.map_or(0, |c| c.as_ptr());
    o.is_some_and(|c| c.as_ptr() > 0);
    v.sort_by(|a, b| a.as_ptr().cmp(&b.as_ptr()));
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for (line, col) in [(4, 27), (5, 23), (6, 25), (7, 24), (7, 40)] {
        assert_has(
            &g,
            &format!("calls shop_app::f -> shop_app::Cn::as_ptr @{line}:{col} TypedReceiver"),
        );
    }
}

#[test]
fn a_tuple_pattern_takes_a_tuple_expression_element_by_element() {
    let src = r#"pub struct Cn(u8);
impl Cn { fn as_ptr(&self) -> usize { 0 } }
pub struct Sv;
impl Sv { fn ents(&self) -> Vec<Cn> { todo!() } fn heap(&self) -> usize { 0 } }
pub fn f(s: Sv) {
    let ents = s.ents();
    let (a, b) = (&ents[1], Sv);
    a.as_ptr();
    b.heap();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Cn::as_ptr @8:7 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Sv::heap @9:7 TypedReceiver",
    );
}

#[test]
fn a_pub_super_inherent_method_is_out_of_reach_beyond_the_parent_module() {
    // chrono: `pub(super) const fn weekday` in `naive::date`; from
    // `format`, `d.weekday()` is `Datelike`'s, from `naive` the inherent one.
    let lib = r#"pub trait Datelike { fn weekday(&self) -> i32; }
pub mod naive {
    pub mod date {
        pub struct NaiveDate;
        impl NaiveDate {
            pub(super) const fn weekday(&self) -> i32 { 0 }
        }
        impl crate::Datelike for NaiveDate { fn weekday(&self) -> i32 { 1 } }
    }
    pub fn near(d: date::NaiveDate) -> i32 { d.weekday() }
}
pub mod format {
    use crate::Datelike;
    pub fn far(d: crate::naive::date::NaiveDate) -> i32 { d.weekday() }
}
"#;
    let g = graph(&[("src/lib.rs", lib)]);
    assert_has(
        &g,
        "calls shop_app::naive::near -> shop_app::naive::date::NaiveDate::weekday @10:48 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::format::far -> shop_app::naive::date::NaiveDate::weekday#2 @14:61 TypedReceiver",
    );
}

/// `inner.read_exact(buf)` in the `read_exact` of `impl Read for
/// Either<L, R>` (either's `for_both!`): a delegation to the inner value,
/// not a call of the method itself nor of another in-repo impl of the same
/// trait. A same-named method elsewhere is still a candidate, and an
/// inherent method may still recurse.
#[test]
fn an_outside_trait_method_does_not_guess_itself_for_an_unknown_receiver() {
    let src = r#"
use std::io::{self, Read};
pub enum Either<L, R> { Left(L), Right(R) }
impl<L: Read, R: Read> Read for Either<L, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> { Ok(0) }
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        unknown_inner(self).read_exact(buf)
    }
    fn read_to_end(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        unknown_inner(self).walk_tree(buf)
    }
}
pub struct Tree;
impl Tree {
    pub fn walk_tree(&self, b: &mut Vec<u8>) -> io::Result<usize> { unknown_inner(self).walk_tree(b) }
}
pub struct Other;
impl Read for Other {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> { Ok(0) }
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> { Ok(()) }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::Either::read_exact -> shop_app::");
    assert_has(
        &g,
        "U calls read_exact @7:29 (unknown receiver, delegating to the same method)",
    );
    assert_has(
        &g,
        "calls shop_app::Either::read_to_end -> shop_app::Tree::walk_tree @10:29 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::Tree::walk_tree -> shop_app::Tree::walk_tree @15:89 Member { k: 1 }",
    );
}

/// A closure passed to an in-repo fn or method has the parameter types the
/// callee's bound gives it: `F: Fn(&mut Table)` in a where clause, `impl
/// FnMut(Doc)`, `&dyn Fn(usize, &Table)`, an inline `<F: FnOnce(Doc)>`
/// (toml_edit's tests: `.running(|root| root.decor_mut())`).
#[test]
fn closures_passed_to_in_repo_fns_take_the_bound_s_parameter_types() {
    let src = r#"
pub struct Table;
impl Table { pub fn decor_mut(&mut self) {} }
pub struct Doc;
impl Doc { pub fn set_trailing(&self) {} }
pub struct Test { t: Table }
impl Test {
    pub fn running<F>(&mut self, func: F) -> &mut Self
    where
        F: Fn(&mut Table),
    {
        func(&mut self.t);
        self
    }
    pub fn on_doc(&mut self, f: impl FnMut(Doc)) {}
    pub fn each(&self, f: &dyn Fn(usize, &Table)) {}
}
pub fn with_doc<F: FnOnce(Doc)>(f: F) {}
pub fn t(mut x: Test) {
    x.running(|root| root.decor_mut());
    x.on_doc(|d| d.set_trailing());
    x.each(|i, tb| tb.decor_mut());
    with_doc(|d| d.set_trailing());
    Test::on_doc(&mut x, |d| d.set_trailing());
    walk(&x.t, |n| n.decor_mut());
}
pub trait Node { fn decor_mut(&mut self); }
pub fn walk<N: Node>(n: &N, f: impl Fn(&N)) {}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::t -> shop_app::Table::decor_mut @20:27 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::t -> shop_app::Doc::set_trailing @21:20 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::t -> shop_app::Table::decor_mut @22:23 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::t -> shop_app::Doc::set_trailing @23:20 TypedReceiver",
    );
    // `Type::method(&recv, |d| …)`: the receiver is the first argument.
    assert_has(
        &g,
        "calls shop_app::t -> shop_app::Doc::set_trailing @24:32 TypedReceiver",
    );
    // A generic parameter is what the caller passes, not its bound.
    assert_none(&g, "calls shop_app::t -> shop_app::Node::decor_mut");
}

/// syn 2: `mod gen { mod clone; }` in `lib.rs` puts `gen/clone.rs` below an
/// inline module (its `crate::Abi` was "not found in module": the file had
/// no parent), and `pub mod parse;` beside `pub fn parse()` is the module
/// in a path (`use crate::parse::ParseStream` found the fn).
#[test]
fn files_below_inline_modules_and_modules_beside_same_named_fns() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod parse;\nmod ty;\npub use crate::ty::Abi;\nmod gen {\n    mod clone;\n}\npub fn parse() -> parse::ParseBuffer { parse::ParseBuffer }\n",
        ),
        (
            "src/parse.rs",
            "pub struct ParseBuffer;\npub type ParseStream<'a> = &'a ParseBuffer;\n",
        ),
        (
            "src/ty.rs",
            "pub struct Abi;\npub(crate) mod parsing {\n    use crate::parse::ParseStream;\n    pub fn p(input: ParseStream) {}\n}\n",
        ),
        (
            "src/gen/clone.rs",
            "impl Clone for crate::Abi {\n    fn clone(&self) -> Self { crate::Abi }\n}\n",
        ),
    ]);
    assert_has(
        &g,
        "references shop_app::gen::clone -> shop_app::ty::Abi @1:23 ReExport",
    );
    assert_has(
        &g,
        "references shop_app::gen::clone::Abi::clone -> shop_app::ty::Abi @2:38 ReExport",
    );
    assert_has(
        &g,
        "references shop_app::ty -> shop_app::parse::ParseStream @3:23 Import",
    );
    assert_has(
        &g,
        "references shop_app::ty::parsing::p -> shop_app::parse::ParseStream @4:21 Import",
    );
    // The fn's own paths into the module still resolve.
    assert_has(
        &g,
        "references shop_app::parse -> shop_app::parse::ParseBuffer @7:47 Path",
    );
    assert_none(&g, "U ");
}

/// syn 2: `pub use proc_macro2::Ident;` beside `pub fn Ident(…)`: a use of
/// `crate::ident::Ident` names the outside type where a type goes (a
/// field's type was an edge to the fn, refuted 55 times) and the fn where a
/// value goes (`input.peek(Ident)`).
#[test]
fn a_fn_yields_to_a_same_named_use_where_a_type_goes() {
    let g = graph(&[
        ("src/lib.rs", "mod ident;\nmod data;\n"),
        (
            "src/ident.rs",
            "pub use proc_macro2::Ident;\n#[allow(non_snake_case)]\npub fn Ident(x: u8) -> u8 { x }\n",
        ),
        (
            "src/data.rs",
            "use crate::ident::Ident;\npub struct F { pub name: Ident }\npub fn g() -> u8 { Ident(1) }\n",
        ),
    ]);
    assert_none(&g, "references shop_app::data::F -> shop_app::ident::Ident");
    assert_none(&g, "references shop_app::data -> shop_app::ident::Ident");
    assert_has(
        &g,
        "calls shop_app::data::g -> shop_app::ident::Ident @3:20 Import",
    );
    // clap: a snake_case fn beside a `use` of its name under another cfg
    // is the fn (the use is the alternative), in a `use` too.
    let g = graph(&[
        ("src/lib.rs", "mod util;\nmod value;\n"),
        (
            "src/util.rs",
            "#[cfg(not(feature = \"unicode\"))]\npub(crate) fn eq_ignore_case(a: &str) -> bool { true }\n#[cfg(feature = \"unicode\")]\npub(crate) use unicase::eq as eq_ignore_case;\n",
        ),
        (
            "src/value.rs",
            "use crate::util::eq_ignore_case;\npub fn m() -> bool { eq_ignore_case(\"x\") }\n",
        ),
    ]);
    assert_has(
        &g,
        "references shop_app::value -> shop_app::util::eq_ignore_case @1:18 Import",
    );
    assert_has(
        &g,
        "calls shop_app::value::m -> shop_app::util::eq_ignore_case @2:22 Import",
    );
}

/// rayon: `v.par_iter()` on a `Vec` reaches `IntoParallelRefIterator`,
/// implemented for every type (`impl<I: ?Sized> … for I`); a trait
/// implemented only under a bound (`impl<T: Iterator> Ext for T`) is not
/// a collection's.
#[test]
fn collections_have_the_methods_of_traits_implemented_for_every_type() {
    let g = graph(&[(
        "src/lib.rs",
        "pub trait ParRef { fn par_iter(&self) -> u8; }\n\
         impl<I: ?Sized> ParRef for I { fn par_iter(&self) -> u8 { 0 } }\n\
         pub trait Ext: Iterator { fn glue(self) -> u8; }\n\
         impl<T: Iterator> Ext for T { fn glue(self) -> u8 { 0 } }\n\
         pub fn f(v: Vec<u8>) { v.par_iter(); v.glue(); }\n",
    )]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::I::par_iter @5:26 Member { k: 1 }",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::T::glue");
    assert_none(&g, "calls shop_app::f -> shop_app::Ext::glue");
}

#[test]
fn fields_past_two_type_parameters_and_through_struct_patterns() {
    // itertools: `impl<I, J, F> Iterator for MergeBy<I, J, F> where F:
    // OrderingOrBool<…>` calls `self.cmp_fn.merge(…)`, the struct's third
    // parameter; `let Self { iter, last, f } = self;` then `f.coalesce_pair(…)`.
    // Otherwise a struct pattern's fields are those of the struct or variant
    // its path names, however written, not of the value matched (an outside
    // value's fields would be outside types, whose methods the impl for
    // `u32` could take); a name that is neither (an imported variant) binds
    // nothing known.
    let src = r#"pub trait Merge { fn merge(&mut self); }
pub struct A;
impl Merge for A { fn merge(&mut self) {} }
pub struct B;
impl Merge for B { fn merge(&mut self) {} }
pub struct By<I, J, F> { i: I, j: J, f: F }
impl<I, J, F: Merge> By<I, J, F> { fn go(&mut self) { self.f.merge() } }
impl<I, J, F: Merge> By<I, J, F> { fn own(self) { let Self { mut f, .. } = self; f.merge(); } }
pub struct Pair { a: A, b: B }
pub enum Shape { Two { a: A, b: B } }
pub fn named(p: Pair) { let Pair { a: mut x, mut b } = p; x.merge(); b.merge(); }
pub fn unknown() { let f = |Pair { mut a, .. }| a.merge(); }
pub fn variant(s: Shape) { match s { Shape::Two { mut a, b: mut y } => { a.merge(); y.merge(); } } }
impl Merge for u32 { fn merge(&mut self) {} }
pub fn outside() { let Pair { mut a, .. } = Default::default(); a.merge(); }
pub fn imported() { use Shape::*; let f = |Two { mut a, .. }| a.merge(); }
impl Shape { fn each(&mut self) { match self { Shape::Two { a, .. } => a.merge() } } }
pub mod m { pub struct W(pub super::B); }
pub fn qualified(p: Pair, w: m::W) { let crate::Pair { mut a, .. } = p; let m::W(mut x) = w; a.merge(); x.merge(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for want in [
        "calls shop_app::By::go -> shop_app::Merge::merge @7:62 TypedReceiver",
        "calls shop_app::By::own -> shop_app::Merge::merge @8:84 TypedReceiver",
        "calls shop_app::named -> shop_app::A::merge @11:61 TypedReceiver",
        "calls shop_app::named -> shop_app::B::merge @11:72 TypedReceiver",
        "calls shop_app::unknown -> shop_app::A::merge @12:51 TypedReceiver",
        "calls shop_app::variant -> shop_app::A::merge @13:76 TypedReceiver",
        "calls shop_app::variant -> shop_app::B::merge @13:87 TypedReceiver",
        "calls shop_app::outside -> shop_app::A::merge @15:67 TypedReceiver",
        "calls shop_app::Shape::each -> shop_app::A::merge @17:74 TypedReceiver",
        "calls shop_app::qualified -> shop_app::A::merge @19:96 TypedReceiver",
        "calls shop_app::qualified -> shop_app::B::merge @19:107 TypedReceiver",
    ] {
        assert_has(&g, want);
    }
    for unwanted in [
        "calls shop_app::outside -> shop_app::u32::merge",
        "calls shop_app::imported -> shop_app::u32::merge",
    ] {
        assert_none(&g, unwanted);
    }
}

#[test]
fn a_self_type_alias_does_not_say_which_struct_parameter_is_which() {
    // `type Rev<F, J, I> = By<I, J, F>`: in `impl … for Rev<I, J, F>` the
    // impl's first argument is the struct's third parameter; the graph
    // does not map them, and leaves `self.f` unknown rather than wrong.
    let src = r#"pub trait Merge { fn merge(&mut self); }
pub trait Other { fn merge(&mut self); }
pub trait Go { fn go(&mut self); }
pub struct By<I, J, F> { i: I, j: J, f: F }
pub type Rev<F, J, I> = By<I, J, F>;
impl<I: Other, J, F: Merge> Go for Rev<I, J, F> { fn go(&mut self) { self.f.merge() } }
impl<I, J, F: Merge> By<I, J, F> { fn by(&mut self) { self.f.merge() } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::Rev::go -> shop_app::Merge::merge");
    assert_none(&g, "calls shop_app::By::go -> shop_app::Merge::merge");
    assert_has(
        &g,
        "calls shop_app::By::by -> shop_app::Merge::merge @7:62 TypedReceiver",
    );
}

#[test]
fn a_const_or_static_receiver_has_its_declared_type() {
    // chrono: `NaiveDate::MAX.year()`, `BEFORE_MIN.year()` (a test module's
    // const, or its parent's through `use super::*`), a `use`d const, a
    // `LazyLock<…>` static (hashbrown's tests), a const in a fn body.
    let src = r#"pub struct Date(i32);
pub struct Time(i32);
impl Date {
    pub const MAX: Date = Date(9);
    pub const MIN: Self = Date(0);
    pub fn year(&self) -> i32 { self.0 }
}
impl Time { pub fn year(&self) -> i32 { self.0 } }
pub const EPOCH: Time = Time(0);
static CACHE: std::sync::LazyLock<Date> = std::sync::LazyLock::new(|| Date(1));
pub mod consts { pub const NOON: crate::Time = crate::Time(12); }
use consts::NOON;
pub fn f() -> i32 {
    const LOCAL: Date = Date(3);
    Date::MAX.year() + Date::MIN.year() + EPOCH.year() + CACHE.year() + NOON.year() + LOCAL.year() + consts::NOON.year()
}
mod tests {
    use super::*;
    fn g() -> i32 { EPOCH.year() + Date::MAX.year() }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for want in [
        "calls shop_app::f -> shop_app::Date::year @15:15 TypedReceiver",
        "calls shop_app::f -> shop_app::Date::year @15:34 TypedReceiver",
        "calls shop_app::f -> shop_app::Time::year @15:49 TypedReceiver",
        "calls shop_app::f -> shop_app::Date::year @15:64 TypedReceiver",
        "calls shop_app::f -> shop_app::Time::year @15:78 TypedReceiver",
        "calls shop_app::f -> shop_app::Date::year @15:93 TypedReceiver",
        "calls shop_app::f -> shop_app::Time::year @15:115 TypedReceiver",
        "calls shop_app::tests::g -> shop_app::Time::year @19:27 TypedReceiver",
        "calls shop_app::tests::g -> shop_app::Date::year @19:46 TypedReceiver",
    ] {
        assert_has(&g, want);
    }
}

#[test]
fn a_generic_s_associated_type_is_a_value_of_its_bound() {
    // chrono: `offset: Tz::Offset` in `DateTime<Tz: TimeZone>` with `trait
    // TimeZone { type Offset: Offset; }`; memchr's `V::Mask`. rust-analyzer
    // names the bound trait's method; the type had been unknown.
    let src = r#"pub trait Offset { fn fix(&self) -> i32; }
pub trait TimeZone { type Offset: Offset; fn offset_of(&self) -> Self::Offset; }
pub struct DateTime<Tz: TimeZone> { offset: Tz::Offset }
impl<Tz: TimeZone> DateTime<Tz> {
    pub fn f(&self) -> i32 { self.offset.fix() }
    pub fn offset(&self) -> &Tz::Offset { &self.offset }
    pub fn g(&self) -> i32 { self.offset().fix() }
}
pub fn h<T: TimeZone>(t: T) -> i32 { t.offset_of().fix() }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for want in [
        "calls shop_app::DateTime::f -> shop_app::Offset::fix @5:42 TypedReceiver",
        "calls shop_app::DateTime::g -> shop_app::Offset::fix @7:44 TypedReceiver",
        "calls shop_app::h -> shop_app::Offset::fix @9:52 TypedReceiver",
    ] {
        assert_has(&g, want);
    }
}

#[test]
fn a_thread_local_static_is_a_local_key_not_its_declared_type() {
    // `thread_local! { static CUR: Ctx = … }`: `CUR` is std's
    // `LocalKey<Ctx>`; `CUR.with(…)`, `CUR.set(…)` are `LocalKey`'s
    // (rust-analyzer), never `Ctx`'s same-named methods as typed. (A
    // name guess on an unknown receiver is another matter.)
    let src = r#"pub struct Ctx(i32);
impl Ctx { pub fn with<F: Fn()>(&self, f: F) { f() } pub fn set(&self, _v: i32) {} }
thread_local! { static CUR: Ctx = Ctx(0); }
pub fn f() { CUR.with(|| ()); CUR.set(3); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert!(
        !g.iter()
            .any(|l| l.contains("-> shop_app::Ctx::") && l.ends_with("TypedReceiver")),
        "{}",
        g.join("\n")
    );
}

#[test]
fn a_const_of_an_enclosing_fn_body_shadows_the_module_s() {
    // Items of a block are in scope in fns nested in it: `C` in `inner`
    // is `outer`'s `Time`, not the module's `Date` (rust-analyzer).
    let src = r#"pub struct Date(i32);
pub struct Time(i32);
impl Date { pub fn hour(&self) -> i32 { self.0 } }
impl Time { pub fn hour(&self) -> i32 { self.0 } }
pub const C: Date = Date(0);
pub fn outer() -> i32 {
    const C: Time = Time(1);
    fn inner() -> i32 { C.hour() }
    inner()
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::outer::inner -> shop_app::Time::hour @8:27 TypedReceiver",
    );
}

#[test]
fn review2_a_projection_bound_to_a_concrete_type_is_not_the_trait() {
    // `T: TimeZone<Offset = Fixed>`: `T::Offset` is `Fixed`, and `fix`
    // on it is Fixed's inherent method (rust-analyzer), not the trait's
    // that bounds the associated type.
    let src = r#"pub trait Offset { fn fix(&self) -> i32; }
pub trait TimeZone { type Offset: Offset; fn name(&self) -> i32; }
pub struct Fixed;
impl Fixed { pub fn fix(&self) -> i32 { 0 } }
impl Offset for Fixed { fn fix(&self) -> i32 { 1 } }
pub fn k<T: TimeZone<Offset = Fixed>>(o: T::Offset) { o.fix(); }
pub fn w<T>(o: T::Offset) where T: TimeZone<Offset = Fixed> { o.fix(); }
pub fn g<T: TimeZone>(o: T::Offset) { o.fix(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert!(
        !g.iter()
            .any(|l| (l.contains("@6:") || l.contains("@7:"))
                && l.contains("-> shop_app::Offset::fix")),
        "{}",
        g.join("\n")
    );
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::Offset::fix @8:41 TypedReceiver",
    );
}

#[test]
fn review2_a_trait_default_method_s_projection_on_a_concrete_type() {
    let src = r#"pub trait Offset { fn fix(&self) -> i32; }
pub trait TimeZone { type Offset: Offset; fn off(&self) -> Self::Offset { todo!() } }
pub struct Fixed;
impl Fixed { pub fn fix(&self) -> i32 { 0 } }
impl Offset for Fixed { fn fix(&self) -> i32 { 1 } }
pub struct Local;
impl TimeZone for Local { type Offset = Fixed; }
pub fn run(l: Local) { l.off().fix(); }
pub fn gen<T: TimeZone>(t: T) { t.off().fix(); }
"#;
    // `Local.off()` is the trait's default method returning `Self::Offset`,
    // with Self = Local that is `Fixed`: rust-analyzer names Fixed's
    // inherent `fix`, never the trait `Offset`'s.
    let g = graph(&[("src/lib.rs", src)]);
    assert!(
        !g.iter().any(|l| l.contains("-> shop_app::Offset::fix @8:")),
        "{}",
        g.join("\n")
    );
    // (Generic code has the trait's, as rust-analyzer does.)
    assert_has(
        &g,
        "calls shop_app::gen -> shop_app::Offset::fix @9:41 TypedReceiver",
    );
}

#[test]
fn review2_a_const_of_a_tuple_of_in_repo_types_is_kept() {
    // `const BOUNDS: (Date, Date)`: `BOUNDS.0` is a Date (rust-analyzer);
    // a tuple's elements may be in-repo types as an array's may.
    let src = r#"pub struct Date(i32);
impl Date { pub fn year(&self) -> i32 { self.0 } }
pub const BOUNDS: (Date, Date) = (Date(0), Date(9));
pub fn f() -> i32 { BOUNDS.0.year() + BOUNDS.1.year() }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Date::year @4:30 TypedReceiver",
    );
}

#[test]
fn indexing_slicing_and_turbofish_give_types() {
    // toml_edit's tests: `doc["key"].as_str()` through `impl Index<&str>
    // for DocumentMut { type Output = Item }`, and `"…".parse::<DocumentMut>()`.
    let src = r#"use std::ops::Index;
pub struct Doc;
pub struct Item;
impl Item { pub fn as_str(&self) -> Option<&str> { None } }
impl std::str::FromStr for Doc { type Err = (); fn from_str(_: &str) -> Result<Doc, ()> { Ok(Doc) } }
impl Index<&str> for Doc { type Output = Item; fn index(&self, _: &str) -> &Item { &Item } }
pub struct Span;
impl Span { pub fn index(&self) -> usize { 0 } }
pub fn a(d: Doc, s: &str, v: Vec<Item>, m: std::collections::HashMap<u32, Item>) {
    d["k"].as_str();
    s.parse::<Doc>().unwrap()["k"].as_str();
    v[0].as_str();
    m[&0].as_str();
    s.split(',').map(|x| x.len()).collect::<Vec<Item>>()[0].as_str();
    v[1..].len();
}
pub fn b(sp: Span, any: &dyn std::any::Any) {
    sp[0].as_str();
    any.downcast_ref::<Item>().unwrap().as_str();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for line in [10, 11, 12, 13, 14] {
        let col = src.lines().nth(line - 1).unwrap().find("as_str").unwrap() + 1;
        assert_has(
            &g,
            &format!("calls shop_app::a -> shop_app::Item::as_str @{line}:{col} TypedReceiver"),
        );
    }
    assert_has(
        &g,
        "calls shop_app::b -> shop_app::Item::as_str @19:41 TypedReceiver",
    );
    // A slice of a Vec is a slice: `len` is std's, not guessed.
    assert_none(&g, "U calls len @15:");
    assert_none(&g, "calls shop_app::a -> shop_app::Item::len");
    // An inherent `index` fn is not `Index`: `sp[0]` stays unknown (the
    // one `as_str` in the crate is a guess, not a typed call).
    assert_none(
        &g,
        "calls shop_app::b -> shop_app::Item::as_str @18:11 TypedReceiver",
    );
}

#[test]
fn a_closure_s_arm_s_and_block_s_names_end_with_them() {
    // toml_edit's CustomError::duplicate_key: `key.as_repr().and_then(|key|
    // key.as_raw()).unwrap_or_else(|| key.default_repr())`: the second
    // closure's `key` is the outer one (a Key), not the first closure's
    // parameter (a Repr), which had been left bound after it.
    let src = r#"pub struct Key;
pub struct Repr;
impl Key { pub fn as_repr(&self) -> Option<&Repr> { None } pub fn default_repr(&self) -> Repr { Repr } }
impl Repr { pub fn as_raw(&self) -> &str { "" } }
pub enum Entry { Occupied(Repr), Vacant }
impl Entry { pub fn or_insert(self) {} }
pub fn f(key: &Key, e: Entry) {
    key.as_repr().map(|key| key.as_raw()).unwrap_or_else(|| key.default_repr().as_raw());
    match e { Entry::Occupied(ref e) => { e.as_raw(); } Entry::Vacant => {} }
    e.or_insert();
    if let Some(key) = key.as_repr() { key.as_raw(); }
    { let key = Repr; key.as_raw(); }
    for key in [Repr] { key.as_raw(); }
    key.default_repr();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Key::default_repr @8:65 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Entry::or_insert @10:7 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Key::default_repr @14:9 TypedReceiver",
    );
    // Inside each, its own binding.
    for (line, col) in [(8, 33), (9, 45), (11, 44), (12, 27)] {
        assert_has(
            &g,
            &format!("calls shop_app::f -> shop_app::Repr::as_raw @{line}:{col} TypedReceiver"),
        );
    }
}

/// tracing-core's `stdlib` module: `#[cfg(feature = "std")] pub use
/// std::*;` beside `#[cfg(not(feature = "std"))] pub use
/// self::no_std::*;`, with `std` a default feature. `stdlib::sync::Mutex`
/// is std's, not the compiled-out module's wrapper; with the feature off,
/// the in-repo glob is the live one.
#[test]
fn a_glob_compiled_out_yields_to_a_live_one() {
    let lib = "pub(crate) mod stdlib;\nmod user;\npub fn f() { let m = stdlib::sync::Mutex::new(1); m.lock(); }\n";
    // Through a `use`, as tracing-core's modules name it.
    let user =
        "use crate::stdlib::{sync::Mutex};\npub fn g() { let m = Mutex::new(1); m.lock(); }\n";
    let stdlib = "#[cfg(feature = \"std\")]\npub(crate) use std::*;\n#[cfg(not(feature = \"std\"))]\npub(crate) use self::no_std::*;\n#[cfg(not(feature = \"std\"))]\nmod no_std {\n    pub(crate) mod sync {\n        pub struct Mutex<T>(T);\n        impl<T> Mutex<T> {\n            pub fn new(t: T) -> Self { Mutex(t) }\n            pub fn lock(&self) {}\n        }\n    }\n}\n";
    for (default, edges) in [("[\"std\"]", 0), ("[]", 2)] {
        let manifest =
            format!("[package]\nname = \"shop-app\"\n[features]\ndefault = {default}\nstd = []\n");
        let g = graph_with(
            &[("Cargo.toml", manifest.as_str())],
            &[
                ("src/lib.rs", lib),
                ("src/stdlib.rs", stdlib),
                ("src/user.rs", user),
            ],
        );
        for from in ["calls shop_app::f ", "calls shop_app::user::g "] {
            let into_no_std: Vec<_> = g
                .iter()
                .filter(|e| e.starts_with(from) && e.contains("-> shop_app::stdlib::no_std"))
                .collect();
            assert_eq!(
                into_no_std.len(),
                edges,
                "{from}, default = {default}:\n{}",
                g.join("\n")
            );
        }
    }
}

/// clap's `fn get_subcommands(&self) -> impl Iterator<Item = &Command>`:
/// what the iterator yields is the item type, into closures (`flat_map(|sc|
/// sc.get_name())`), `for` loops and `next()`, through a `Box<dyn …>` too.
#[test]
fn iterator_item_types_flow_into_closures_and_loops() {
    let src = r#"
pub struct Command { subs: Vec<Command> }
impl Command {
    pub fn get_name(&self) -> &str { "" }
    pub fn get_subcommands(&self) -> impl Iterator<Item = &Command> { self.subs.iter() }
    pub fn boxed(&self) -> Box<dyn DoubleEndedIterator<Item = &Command> + '_> { Box::new(self.subs.iter()) }
}
pub fn f(c: &Command) {
    c.get_subcommands().flat_map(|sc| sc.get_name().chars());
    for sc in c.get_subcommands() { sc.get_name(); }
    c.boxed().map(|sc| sc.get_name());
    c.get_subcommands().next().unwrap().get_name();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for at in ["9:42", "10:40", "11:27", "12:41"] {
        assert_has(
            &g,
            &format!("calls shop_app::f -> shop_app::Command::get_name @{at} TypedReceiver"),
        );
    }
}

#[test]
fn a_range_expression_picks_the_impl_for_its_range_type() {
    let src = r#"
use std::ops::{Range, RangeInclusive};
pub trait IntoPar { fn into_par(self) -> usize; }
impl IntoPar for Range<u32> { fn into_par(self) -> usize { 0 } }
impl IntoPar for RangeInclusive<u32> { fn into_par(self) -> usize { 1 } }
impl IntoPar for Vec<u32> { fn into_par(self) -> usize { 2 } }
pub fn f(n: u32) -> usize { (0..n).into_par() + (0..=n).into_par() }
pub trait MakeIter { fn make(self) -> RIter; }
impl MakeIter for Range<u32> { fn make(self) -> RIter { RIter } }
impl MakeIter for Vec<u32> { fn make(self) -> RIter { RIter } }
pub struct RIter; impl RIter { pub fn total(&self) -> usize { 0 } }
pub struct Other; impl Other { pub fn total(&self) -> usize { 0 } }
pub fn g(n: u32) -> usize { (0..n).make().total() }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    // What the impl picked returns types what follows.
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::RIter::total @13:43 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Range::into_par @7:36 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::RangeInclusive::into_par @7:57 Member { k: 1 }",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::Vec::into_par");
}

#[test]
fn a_struct_parameter_is_what_the_impl_bounds_it_by() {
    // `Cloned<I: Par>`: in the impl bounding `I` by the subtrait, the
    // field has the subtrait's methods; elsewhere, the struct's bound.
    let src = r#"
pub trait Par { fn drive_unindexed(self) -> usize; }
pub trait IdxPar: Par { fn drive(self) -> usize; fn len(&self) -> usize; }
pub struct Cloned<I: Par> { base: I }
impl<I> Par for Cloned<I> where I: Par { fn drive_unindexed(self) -> usize { self.base.drive_unindexed() } }
impl<I> IdxPar for Cloned<I> where I: IdxPar {
    fn drive(self) -> usize { self.base.drive() }
    fn len(&self) -> usize { self.base.len() }
}
pub struct Other;
impl Other { pub fn drive(self) -> usize { 0 } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::Cloned::drive -> shop_app::IdxPar::drive @7:41 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Cloned::len -> shop_app::IdxPar::len @8:40 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::Cloned::drive_unindexed -> shop_app::Par::drive_unindexed @5:88 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::Cloned::drive -> shop_app::Other");
}

#[test]
fn an_impls_associated_type_named_elsewhere_has_its_traits_bound() {
    // `type Iter = <&'a I as IntoPar>::Iter` is some type with `Par`, and
    // maybe more traits: `Par`'s `map`, else the name's candidates. A
    // supertrait's associated type is the subtrait's too.
    let src = r#"
pub trait Par: Sized { fn map(self) -> usize { 0 } }
pub trait IdxPar: Par { fn collect_idx(self) -> usize { 0 } }
pub trait IntoPar { type Iter: Par; fn into_p(self) -> Self::Iter; }
pub trait RefPar<'a> { type Iter: Par; fn p_iter(&'a self) -> Self::Iter; }
impl<'a, I: 'a + ?Sized> RefPar<'a> for I where &'a I: IntoPar {
    type Iter = <&'a I as IntoPar>::Iter;
    fn p_iter(&'a self) -> Self::Iter { self.into_p() }
}
pub struct Other;
impl Other { pub fn map(self) -> usize { 0 } pub fn reduce(self) -> usize { 0 } }
pub fn user(v: Vec<u8>) -> usize { v.p_iter().map() + v.p_iter().collect_idx() }
pub trait Reducer { fn reduce(self) -> usize; }
pub trait Consumer { type Reducer: Reducer; }
pub trait Unindexed: Consumer { fn to_reducer(&self) -> Self::Reducer; }
pub fn g<C: Unindexed>(c: C) -> usize { c.to_reducer().reduce() }
pub trait Drive { fn drive(self) -> usize; } pub trait MkDrive { type It: Drive; }
pub trait IntoDrive { type Iter: Drive; fn into_d(self) -> Self::Iter; }
impl<T> IntoDrive for T where Vec<T>: MkDrive { type Iter = <Vec<T> as MkDrive>::It; fn into_d(self) -> Self::Iter { todo!() } }
pub struct S;
impl Drive for S { fn drive(self) -> usize { 0 } }
pub fn h(v: Vec<u8>) -> usize { v.into_d().drive() }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::user -> shop_app::Par::map @12:47 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::user -> shop_app::Other::map");
    assert_has(
        &g,
        "calls shop_app::user -> shop_app::IdxPar::collect_idx @12:66 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::Reducer::reduce @16:56 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::g -> shop_app::Other::reduce");
    // A method impls define is the unknown type's impl's: not the trait's.
    assert_has(
        &g,
        "calls shop_app::h -> shop_app::T::into_d @22:35 Member { k: 1 }",
    );
    assert!(!has(
        &g,
        "calls shop_app::h -> shop_app::Drive::drive @22:44 TypedReceiver"
    ));
}

#[test]
fn as_mut_without_an_impl_of_its_own_keeps_the_type() {
    // `pin!(fut)` makes `fut` a `Pin<&mut Fut>`, unseen here: its
    // `as_mut()` is still the future, whose `poll` is called. A type with
    // its own `as_mut` returns what that says.
    let src = r#"
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
pub struct Wait;
impl Future for Wait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> { Poll::Ready(()) }
}
pub struct Other;
impl Other { pub fn poll(&self) {} }
pub struct Conv;
impl AsMut<Other> for Conv { fn as_mut(&mut self) -> &mut Other { todo!() } }
pub fn f(cx: &mut Context<'_>, c: Conv) {
    let fut = Wait;
    tokio::pin!(fut);
    let _ = fut.as_mut().poll(cx);
    c.as_mut().poll();
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Wait::poll @17:26 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Other::poll @18:16 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::Other::poll @17");
}

#[test]
fn set_on_an_unknown_receiver_is_no_guess() {
    // futures-util: `this.future.set(None)` on a pin-projected field is
    // `Pin::set`, `rng.set(x)` `Cell::set`; not the crate's `Window::set`.
    let src = r#"
pub struct Window;
impl Window { pub fn set(&mut self, x: usize) {} }
pub fn f<T>(this: T) { this.future.set(None); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::f -> shop_app::Window::set");
}

#[test]
fn a_turbofish_types_an_in_repo_collect() {
    // rayon's `collect<C: FromParallelIterator<…>>`: `collect::<Vec<D>>()`
    // is a `Vec`, not a value of the bound, and its methods follow.
    let src = r#"
pub trait FromPar { fn from_par() -> Self; }
impl<T> FromPar for Vec<T> { fn from_par() -> Self { Vec::new() } }
pub trait Par: Sized { fn collect<C: FromPar>(self) -> C { C::from_par() } }
pub trait RefPar { fn p_iter(&self) -> usize; }
impl<T> RefPar for Vec<T> { fn p_iter(&self) -> usize { 0 } }
pub struct PIter; impl Par for PIter {}
pub fn f(p: PIter) { let v = p.collect::<Vec<u8>>(); v.p_iter(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Par::collect @8:32 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Vec::p_iter @8:56 Member { k: 1 }",
    );
}

#[test]
fn a_trait_path_call_on_a_typed_value_is_its_impls_method() {
    // petgraph's tests: `NodeIndexable::from_index(&g, 0)` with `g` a
    // `Graph` is `impl NodeIndexable for Graph`'s `from_index`, as
    // `g.from_index(0)` is; with `g` of a generic type, or when the impl
    // does not define the method, the trait's (not that of an impl for
    // `Box<T: Ix>`, log's `Source::count(&**self)`).
    let src = r#"pub trait Ix { fn from_index(&self, i: usize) -> usize; fn dflt(&self) -> u8 { 0 } }
pub struct Graph;
impl Ix for Graph { fn from_index(&self, i: usize) -> usize { i } }
pub struct List;
impl Ix for List { fn from_index(&self, i: usize) -> usize { i } }
pub fn a(g: Graph) { Ix::from_index(&g, 0); Ix::dflt(&g); }
pub fn b<G: Ix>(g: G) { Ix::from_index(&g, 0); }
pub fn c(l: &mut List) { Ix::from_index(l, 1); }
impl<T: Ix> Ix for Box<T> { fn from_index(&self, i: usize) -> usize { i } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::a -> shop_app::Graph::from_index @6:26 TypedReceiver",
    );
    assert_has(&g, "calls shop_app::a -> shop_app::Ix::dflt @6:49 Path");
    assert_has(
        &g,
        "calls shop_app::b -> shop_app::Ix::from_index @7:29 Path",
    );
    assert_has(
        &g,
        "calls shop_app::c -> shop_app::List::from_index @8:30 TypedReceiver",
    );
}

#[test]
fn an_extension_of_an_outside_trait_reaches_an_in_repo_type_implementing_it() {
    // tracing-subscriber's benches: `impl<S: Subscriber> SubscriberExt for
    // S {}` over tracing's `Subscriber`, re-exported by the prelude under
    // another name; `EnabledSubscriber.with(filter)` on a type implementing
    // `tracing::Subscriber` is `SubscriberExt::with`.
    let ext = r#"pub trait SubscriberExt: tracing::Subscriber {
    fn with<L>(self, layer: L) -> L where Self: Sized { layer }
}
impl<S: tracing::Subscriber> SubscriberExt for S {}
"#;
    let prelude = "pub use crate::layer::SubscriberExt as __tracing_subscriber_SubscriberExt;\n";
    let user = r#"use crate::prelude::*;
struct Enabled;
impl tracing::Subscriber for Enabled {}
pub fn u() { Enabled.with(1); }
pub struct Padded(Enabled);
impl tracing::Subscriber for Padded {}
impl std::ops::Deref for Padded { type Target = Enabled; fn deref(&self) -> &Enabled { &self.0 } }
pub fn v(p: Padded) { p.with(2); }
"#;
    let manifest = format!("{MANIFEST}[dependencies]\ntracing = \"0.1\"\n");
    let files = [
        (
            "src/lib.rs",
            "pub mod layer;\npub mod prelude;\npub mod user;\n",
        ),
        ("src/layer.rs", ext),
        ("src/prelude.rs", prelude),
        ("src/user.rs", user),
    ];
    let g = graph_with(&[("Cargo.toml", &manifest)], &files);
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::layer::SubscriberExt::with @4:22 Member { k: 1 }",
    );
    // Through a `Deref`, a std type's own `with` may be the target's.
    assert_none(&g, "calls shop_app::user::v");
}

#[test]
fn a_trait_renamed_several_globs_away_is_in_scope() {
    // bevy's preludes glob each other's (`pub use crate::{a::prelude::*,
    // b::prelude::*}`): each module the globs reach is searched once for
    // renamed uses, however many paths lead to it, and a renamed trait
    // two globs away through a diamond is still in scope.
    let ext = r#"pub trait Ext: tracing::Subscriber {
    fn with<L>(self, layer: L) -> L where Self: Sized { layer }
}
impl<S: tracing::Subscriber> Ext for S {}
"#;
    let user = r#"use crate::top::*;
struct Enabled;
impl tracing::Subscriber for Enabled {}
pub fn u() { Enabled.with(1); }
"#;
    let manifest = format!("{MANIFEST}[dependencies]\ntracing = \"0.1\"\n");
    let files = [
        (
            "src/lib.rs",
            "pub mod layer;\npub mod top;\npub mod left;\npub mod right;\npub mod inner;\npub mod user;\n",
        ),
        ("src/layer.rs", ext),
        ("src/top.rs", "pub use crate::left::*;\npub use crate::right::*;\n"),
        ("src/left.rs", "pub use crate::inner::*;\npub use crate::right::*;\n"),
        ("src/right.rs", "pub use crate::inner::*;\npub use crate::top::*;\n"),
        ("src/inner.rs", "pub use crate::layer::Ext as _;\n"),
        ("src/user.rs", user),
    ];
    let g = graph_with(&[("Cargo.toml", &manifest)], &files);
    assert_has(
        &g,
        "calls shop_app::user::u -> shop_app::layer::Ext::with @4:22 Member { k: 1 }",
    );
}

#[test]
fn a_parenthesized_impl_trait_parameter_is_the_trait() {
    // indicatif's `term: &(impl TermLike + ?Sized)`: one type in
    // parentheses (tree-sitter's one-element `tuple_type` without a
    // comma), not a tuple. `(A,)` stays a tuple.
    let src = r#"
pub trait Tl { fn up(&self) -> u8; }
pub struct A;
impl Tl for A { fn up(&self) -> u8 { 1 } }
impl A { pub fn own(&self) {} }
pub fn f(t: &(impl Tl + ?Sized)) -> u8 { t.up() }
pub fn g(a: (A,), b: &(A)) { a.own(); b.own(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Tl::up @6:44 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::A::own @7:41 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::g -> shop_app::A::own @7:32");
}

#[test]
fn a_derived_default_is_the_type() {
    // regex-automata's `let mut f = LookSet::default(); f.contains(…)`
    // with `#[derive(Default)]`: `Default::default` returns `Self`.
    let src = r#"
#[derive(Clone, Copy, Default)]
pub struct LookSet { bits: u32 }
impl LookSet { pub fn contains(&self, x: u32) -> bool { self.bits & x != 0 } }
pub fn f() -> bool { let k = LookSet::default(); k.contains(4) }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::LookSet::contains @5:52 TypedReceiver",
    );
}

#[test]
fn a_module_declared_without_its_file_is_not_what_a_glob_brings() {
    // ash's `mod definitions;`, its 2 MB file over the size limit: the
    // module is there for rustc, and a glob bringing another module of
    // the name does not stand in for it.
    let files = [
        (
            "src/lib.rs",
            "mod gen;\npub mod other;\nuse other::*;\npub fn f() { gen::make(); }\npub fn g() { other::gen::make(); }\n",
        ),
        ("src/other.rs", "pub mod gen {\n    pub fn make() {}\n}\n"),
    ];
    let g = graph(&files);
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::other::gen::make @5:26 Path",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::other::gen::make");
}

#[test]
fn modules_whose_globs_reach_each_other_still_resolve_what_they_bring() {
    // ash's `vk` globs its children (`pub use bitflags::*; …`), and each
    // child globs a sibling through `vk` (`use crate::vk::definitions::*`):
    // resolving one child's glob reaches the others', which reach it
    // again. A path no module has (`nowhere`) is searched through all of
    // them; what the globs do bring is found.
    let child = |other: &str| {
        format!("use crate::vk::defs::*;\nuse crate::vk::nowhere::*;\nuse crate::vk::{other}::*;\n")
    };
    let vk = "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod defs;\n\
              pub use a::*;\npub use b::*;\npub use c::*;\npub use d::*;\npub use defs::*;\n";
    let a = format!("{}pub struct A;\nimpl Def for A {{}}\n", child("b"));
    let (b, c, d) = (child("c"), child("d"), child("a"));
    let user = "use crate::vk::*;\npub fn u(x: A) -> Option<B> { None }\nimpl Def for Local {}\npub struct Local;\n";
    let files = [
        ("src/lib.rs", "pub mod vk;\npub mod user;\n"),
        ("src/vk.rs", vk),
        ("src/vk/a.rs", a.as_str()),
        ("src/vk/b.rs", &format!("{b}pub struct B;\n")),
        ("src/vk/c.rs", c.as_str()),
        ("src/vk/d.rs", d.as_str()),
        ("src/vk/defs.rs", "pub trait Def {}\n"),
        ("src/user.rs", user),
    ];
    let g = graph(&files);
    for want in [
        "implements shop_app::vk::a::A -> shop_app::vk::defs::Def @5:6 Import",
        "implements shop_app::user::Local -> shop_app::vk::defs::Def @3:6 Import",
        "references shop_app::user::u -> shop_app::vk::a::A @2:13 Import",
        "references shop_app::user::u -> shop_app::vk::b::B @2:26 Import",
    ] {
        assert_has(&g, want);
    }
}

#[test]
fn an_extern_crate_is_the_crate_beside_a_glob_bringing_its_name() {
    // cpal's `extern crate wasm_bindgen;` with `use
    // self::wasm_bindgen::prelude::*`, whose prelude brings the
    // `wasm_bindgen` attribute macro (a fn of the proc-macro crate): the
    // extern crate binds the crate, and the glob reaches the prelude
    // through it.
    let g = graph_with(
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"bindgen\", \"macros\", \"app\"]\n",
            ),
            (
                "bindgen/Cargo.toml",
                "[package]\nname = \"bindgen\"\n[dependencies]\nmacros = { path = \"../macros\" }\n",
            ),
            ("macros/Cargo.toml", "[package]\nname = \"macros\"\n"),
            (
                "app/Cargo.toml",
                "[package]\nname = \"app\"\n[dependencies]\nbindgen = { path = \"../bindgen\" }\n",
            ),
        ],
        &[
            (
                "bindgen/src/lib.rs",
                "pub mod prelude {\n    pub use macros::bindgen;\n    pub struct Closure;\n}\n",
            ),
            ("macros/src/lib.rs", "#[proc_macro_attribute]\npub fn bindgen() {}\n"),
            (
                "app/src/lib.rs",
                "extern crate bindgen;\nuse self::bindgen::prelude::*;\npub fn f(_: Closure) {}\n",
            ),
        ],
    );
    assert_has(&g, "imports app -> bindgen @1:14 Import");
    assert_has(
        &g,
        "references app::f -> bindgen::prelude::Closure @3:13 Import",
    );
}

/// A common method name that no iterator has, called on an iterator, is an
/// iterator extension's (itertools' `v.iter().dedup()`, `Panicking.get(1..4)`
/// on an in-repo iterator, as rust-analyzer answers), not a collection's
/// own, nor an extension's of other types, nor an iterator's own method.
#[test]
fn a_common_name_no_iterator_has_is_an_iterator_extensions() {
    let src = r#"
pub trait Itertools: Iterator {
    fn dedup(self) -> u8 where Self: Sized { 0 }
    fn get(self, i: usize) -> u8 where Self: Sized { 0 }
    fn map(self) -> u8 where Self: Sized { 0 }
}
impl<T: Iterator + ?Sized> Itertools for T {}
pub trait Lookup { fn remove(&self, i: usize) -> u8 { 0 } }
impl<T: std::fmt::Debug> Lookup for T {}
pub struct Panicking;
impl Iterator for Panicking { type Item = u8; fn next(&mut self) -> Option<u8> { None } }
pub struct Many;
impl IntoIterator for Many { type Item = u8; type IntoIter = Panicking; fn into_iter(self) -> Panicking { Panicking } }
pub fn f(mut xs: Vec<u8>) {
    xs.iter().dedup();
    Panicking.get(1);
    let p = Panicking;
    p.get(1);
    xs.dedup();
    xs.iter().remove(1);
    xs.iter().map();
    Many.get(1);
}
pub fn g<I: ExactSizeIterator + Clone>(it: I) { it.clone().get(1); it.get(2); }
pub fn h(it: impl Iterator<Item = u8>) { it.dedup(); }
pub fn k(v: Vec<u8>) { v.clone().dedup(); }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    // Values declared iterators: a generic bounded by one, through
    // `clone()`, and `impl Iterator`; not a `Vec` through `clone()`.
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::Itertools::get @24:60 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::Itertools::get @24:71 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::h -> shop_app::Itertools::dedup @25:45 Member { k: 1 }",
    );
    assert_none(&g, "calls shop_app::k ->");
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Itertools::dedup @15:15 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Itertools::get @16:15 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Itertools::get @18:7 Member { k: 1 }",
    );
    // A Vec's own `dedup`; a trait not for iterators; an iterator's own
    // `map`; an `IntoIterator` that is no iterator.
    for site in ["@19:8", "@20:15", "@21:15", "@22:10"] {
        let edge = |e: &&String| e.starts_with("calls") && e.contains(site);
        assert!(!g.iter().any(|e| edge(&e)), "{site} in {g:#?}");
    }
}

#[test]
fn a_callable_has_the_methods_of_a_trait_implemented_for_every_fn() {
    // winnow's `impl<F: FnMut(&mut I) -> PResult<O, E>> Parser<I, O, E>
    // for F`: `digit1.parse_next(i)` on a fn item is that impl's method,
    // `be_u8.map(…)` the trait's, and what `map` returns is a type of the
    // repository again. Not where the trait is out of scope.
    let src = r#"
pub trait Parser<I, O> {
    fn parse_next(&mut self, i: &mut I) -> Option<O>;
    fn map<G, O2>(self, g: G) -> Map<Self, G, O> where Self: Sized { Map(self, g, None) }
}
pub struct Map<P, G, O>(P, G, Option<O>);
impl<P: Parser<I, O>, G: FnMut(O) -> O2, I, O, O2> Parser<I, O2> for Map<P, G, O> {
    fn parse_next(&mut self, i: &mut I) -> Option<O2> { self.0.parse_next(i).map(&mut self.1) }
}
impl<I, O, F> Parser<I, O> for F where F: FnMut(&mut I) -> Option<O> {
    fn parse_next(&mut self, i: &mut I) -> Option<O> { self(i) }
}
impl Parser<u8, u8> for u8 { fn parse_next(&mut self, i: &mut u8) -> Option<u8> { Some(*i) } }
pub fn digit(i: &mut u8) -> Option<u8> { Some(*i) }
pub mod num { pub fn be_u8(i: &mut u8) -> Option<u8> { Some(*i) } }
pub fn user(i: &mut u8) {
    digit.parse_next(i);
    num::be_u8.map(|x| x).parse_next(i);
}
pub fn hof<P: FnMut(&mut u8) -> Option<u8>>(mut p: P, i: &mut u8) { p.parse_next(i); }
pub fn ret() -> impl FnMut(&mut u8) -> Option<u8> { digit }
pub fn chained(i: &mut u8) { ret().parse_next(i); }
pub mod other { pub fn f(i: &mut u8) { super::digit.parse_next(i); } }
pub trait Typed { fn parse_ref(&self) -> u8 { 0 } }
impl<F, T> Typed for F where F: Fn(&mut u8) -> Option<T> + Clone + Send {}
pub fn typed() { digit.parse_ref(); digit.clone(); }
pub struct Cl;
impl Cl { pub fn clone(&self) -> Cl { Cl } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    for want in [
        "calls shop_app::user -> shop_app::F::parse_next @17:11 TypedReceiver",
        "calls shop_app::user -> shop_app::Parser::map @18:16 TypedReceiver",
        "calls shop_app::user -> shop_app::Map::parse_next @18:27 TypedReceiver",
        // A generic bound by `FnMut(…)`, and an `impl FnMut(…)` returned.
        "calls shop_app::hof -> shop_app::F::parse_next @20:71 TypedReceiver",
        "calls shop_app::chained -> shop_app::F::parse_next @22:36 TypedReceiver",
    ] {
        assert_has(&g, want);
    }
    assert_none(&g, "calls shop_app::other::f ->");
    // Known by its closure trait among other bounds; `clone` is std's,
    // not a guess among the repository's (`Cl::clone`).
    assert_has(
        &g,
        "calls shop_app::typed -> shop_app::Typed::parse_ref @26:24 TypedReceiver",
    );
    assert!(!g.iter().any(|l| l.starts_with("U calls clone")), "{g:#?}");
    assert_has(
        &g,
        "U calls parse_next @23:53 (1 traits for callables have it, not one in scope)",
    );
}

#[test]
fn an_element_of_an_array_of_literals_is_no_in_repo_type() {
    // toml_edit's `for input in [r#"…"#, …] { input.raw() }`: snapbox's
    // `raw` of `str`, not the in-repo `ImDocument::raw` a guess among
    // methods of the name would give. Other arrays' elements stay unknown.
    let src = r#"
pub struct Doc;
impl Doc { pub fn raw(&self) -> u8 { 0 } }
pub fn f(d: Doc) {
    for input in ["a", "b"] { input.raw(); }
    for x in [d] { x.raw(); }
}
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::f -> shop_app::Doc::raw @5:37");
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Doc::raw @6:22 Member { k: 1 }",
    );
}

#[test]
fn a_dependencys_macro_makes_a_value_of_an_outside_type() {
    // toml_edit's tests: `str![[r#"…"#]].raw()` is snapbox's `Data::raw`,
    // not a guess of the in-repo `ImDocument::raw`. The repository's own
    // macros, and those given names (`ready!(x)`: what they give back may
    // be of its types), are not known.
    let src = r##"
pub struct Doc;
impl Doc { pub fn raw(&self) -> u8 { 0 } }
macro_rules! doc { () => { Doc } }
pub fn f() {
    snapbox::str![["a"]].raw();
    doc!().raw();
    ready!(x).raw();
    assert_eq!(1, str![[r#"
a
"#]].raw());
    let s = str![["b"]].raw();
    let d = match 1 { 0 => unreachable!(), _ => Doc };
    d.raw();
}
"##;
    let g = graph(&[("src/lib.rs", src)]);
    assert_none(&g, "calls shop_app::f -> shop_app::Doc::raw @6:26");
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Doc::raw @7:12 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Doc::raw @8:15 Member { k: 1 }",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::Doc::raw @11:");
    // (`str![…]` outside a macro parses as `str` indexed.)
    assert_none(&g, "calls shop_app::f -> shop_app::Doc::raw @12:");
    // A match arm that never returns gives no type.
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Doc::raw @14:7 TypedReceiver",
    );
}

#[test]
fn an_iterators_std_method_keeps_its_elements_beside_an_extension_trait() {
    // rust-large: combine's `Parser` (implemented for every `FnMut`) has a
    // `skip`; regex-syntax's `for h in hirs.iter().skip(1) { h.kind() }`
    // is still over `Hir`s.
    let src = r#"
pub trait Parser<I> { fn skip<P2>(self, p: P2) -> u8 where Self: Sized { 0 } }
impl<I, O, F> Parser<I> for F where F: FnMut(&mut I) -> O {}
pub struct Hir; impl Hir { pub fn kind(&self) -> u8 { 0 } }
pub struct Other; impl Other { pub fn kind(&self) -> u8 { 0 } }
pub fn f(hirs: Vec<Hir>) { for h in hirs.iter().skip(1) { h.kind(); } }
"#;
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Hir::kind @6:61 TypedReceiver",
    );
}

/// An inherent impl's associated const is found before a trait's item of
/// its name, whatever its type is written as: half's `f16::E` is its `impl
/// f16 { pub const E: f16 }` (no node), not `FloatConst::E`, and a call on
/// it is `f16`'s.
#[test]
fn an_inherent_const_shadows_a_traits_item_of_its_name() {
    let src = "pub trait FloatConst { fn E() -> Self; }\n\
               pub struct f16(u16);\n\
               impl f16 {\n    pub const E: f16 = f16(1);\n    pub fn to_bits(self) -> u16 { self.0 }\n}\n\
               impl FloatConst for f16 { fn E() -> Self { f16(1) } }\n\
               pub fn g() -> u16 { f16::E.to_bits() }\n";
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::g -> shop_app::f16::to_bits @8:28 TypedReceiver",
    );
    assert_none(&g, "references shop_app::g -> shop_app::f16::E");
    assert_none(&g, "calls shop_app::g -> shop_app::f16::E");
}

/// A binary operator on an in-repo type is the call of its operator impl's
/// method, and the value what that returns: fixedbitset's `let ab = &a &
/// &b; ab.contains(i)` is `FixedBitSet::contains`, not a guess among the
/// methods named `contains`. An inherent method of the operator method's
/// name is not what the operator calls.
#[test]
fn a_binary_operator_on_an_in_repo_type_gives_what_its_impl_returns() {
    let src = "use std::ops::BitAnd;\n\
               pub struct Set;\n\
               impl Set { pub fn contains(&self) -> bool { true } pub fn bitand(&self) -> Other { Other } }\n\
               impl BitAnd for &Set {\n    type Output = Set;\n    fn bitand(self, _: &Set) -> Set { Set }\n}\n\
               pub struct Other;\n\
               impl Other { pub fn contains(&self) -> bool { false } }\n\
               pub fn f(a: Set, b: Set) -> bool { let ab = &a & &b; ab.contains() }\n";
    let g = graph(&[("src/lib.rs", src)]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Set::contains @10:57 TypedReceiver",
    );
    assert_none(&g, "calls shop_app::f -> shop_app::Other::contains");
}

/// glam: `#[cfg(all(target_feature = "sse2", not(any(feature =
/// "core-simd", feature = "scalar-math"))))] mod sse2;` and `use sse2::*;`
/// beside `mod scalar;` / `use scalar::*;` under the opposite cfg. A cfg
/// over features and targets is judged with the package's default
/// features: the glob compiled in is the one followed, and in the files
/// of a module compiled out (`sw::scalar`, a second `impl Swizzles for
/// Vec4`) nothing is preferred.
#[test]
fn a_cfg_over_features_and_targets_is_judged_with_the_default_features() {
    let manifest = "[package]\nname = \"shop-app\"\n[features]\ndefault = [\"std\"]\nstd = []\nscalar-math = []\n";
    let off = r#"#[cfg(any(not(unix), feature = "scalar-math"))]"#;
    let on = r#"#[cfg(all(unix, not(feature = "scalar-math")))]"#;
    let lib = format!(
        "{off}\nmod scalar;\n{on}\nmod simd;\n{off}\nuse scalar::*;\n{on}\nuse simd::*;\n\
         pub use vec4::Vec4;\npub mod sw;\npub trait Swizzles {{ fn xy(self) -> u8; }}\n\
         pub fn f(v: Vec4) -> u8 {{ v.xy() }}\n"
    );
    let sw = format!("{off}\nmod scalar;\n{on}\nmod simd;\n");
    let vec4 = "pub struct Vec4;\n";
    let imp =
        |n: u8| format!("impl crate::Swizzles for crate::Vec4 {{ fn xy(self) -> u8 {{ {n} }} }}\n");
    let (imp0, imp1) = (imp(0), imp(1));
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/scalar.rs", "pub mod vec4;\n"),
        ("src/scalar/vec4.rs", vec4),
        ("src/simd.rs", "pub mod vec4;\n"),
        ("src/simd/vec4.rs", vec4),
        ("src/sw.rs", sw.as_str()),
        ("src/sw/scalar.rs", imp0.as_str()),
        ("src/sw/simd.rs", imp1.as_str()),
    ];
    let g = graph_with(&[("Cargo.toml", manifest)], &files);
    assert_has(&g, "imports shop_app -> shop_app::simd::vec4 @9:9 Import");
    assert_has(
        &g,
        "references shop_app::f -> shop_app::simd::vec4::Vec4 @12:13 ReExport",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::sw::simd::Vec4::xy @12:29 TypedReceiver",
    );
    assert_none(&g, "references shop_app::f -> shop_app::scalar");
    assert_none(&g, "calls shop_app::f -> shop_app::sw::scalar");
}

/// glam's `pub use vec4::{vec4, Vec4};`: the first leaf binds fn `vec4`,
/// and the prefix `vec4` of both is the module a glob brings. A path's
/// prefix is looked up as a module or type, never as a fn.
#[test]
fn a_path_prefix_looks_past_a_fn_of_its_name() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod f32;\npub use self::f32::*;\nmod sw;\n",
        ),
        (
            "src/f32.rs",
            "mod simd;\nuse simd::*;\npub use vec4::{vec4, Vec4};\n",
        ),
        ("src/f32/simd.rs", "pub mod vec4;\n"),
        (
            "src/f32/simd/vec4.rs",
            "pub struct Vec4;\npub fn vec4() -> Vec4 { Vec4 }\n",
        ),
        ("src/sw.rs", "use crate::Vec4;\npub fn f(v: Vec4) {}\n"),
    ]);
    assert_has(
        &g,
        "references shop_app::f32 -> shop_app::f32::simd::vec4::Vec4 @3:22 Import",
    );
    assert_has(
        &g,
        "references shop_app::sw::f -> shop_app::f32::simd::vec4::Vec4 @2:13 ReExport",
    );
}

/// glam's tests: each `tests/*.rs` has `#[macro_use] mod support;`, whose
/// `#[macro_use] mod macros;` defines `glam_test!`. The shared module has
/// one parent in the tree (the first test crate); its macros are the
/// other crates' too. A call of such a macro whose arguments are a name
/// and a block has its block walked as code.
#[test]
fn a_shared_test_module_s_macros_serve_every_test_crate() {
    let support = "#[path = \"support/macros.rs\"]\n#[macro_use]\nmod macros;\n";
    let macros = "#[macro_export]\nmacro_rules! glam_test {\n    ($name:ident, $block:block) => { #[test] fn $name() $block };\n}\n";
    let test = "#[macro_use]\nmod support;\nuse shop_app::*;\nglam_test!(test_xy, {\n    let v = vec2();\n    v.xy();\n});\n";
    let g = graph(&[
        (
            "src/lib.rs",
            "pub struct Vec2;\npub fn vec2() -> Vec2 { Vec2 }\nimpl Vec2 { pub fn xy(&self) {} }\n",
        ),
        ("tests/a.rs", test),
        ("tests/b.rs", test),
        ("tests/support.rs", support),
        ("tests/support/macros.rs", macros),
    ]);
    for t in ["a", "b"] {
        assert_has(
            &g,
            &format!("calls {t} -> support::macros::glam_test @4:1 Path"),
        );
        assert_has(&g, &format!("calls {t} -> shop_app::vec2 @5:13 Import"));
        assert_has(
            &g,
            &format!("calls {t} -> shop_app::Vec2::xy @6:7 TypedReceiver"),
        );
    }
}

/// ttf-parser's `s.read::<Offset32>()?.to_usize()`: `read<T: FromData>`
/// gives an `Option<T>`, typed by the bound; the turbofish names `T`.
#[test]
fn a_turbofish_names_what_a_generic_method_gives() {
    let g = graph(&[(
        "src/lib.rs",
        r#"pub trait FromData { fn parse(d: &[u8]) -> Option<Self> where Self: Sized; }
pub trait Offset { fn to_usize(&self) -> usize; }
pub struct Offset32(pub u32);
impl Offset for Offset32 { fn to_usize(&self) -> usize { 0 } }
pub struct Stream;
impl Stream { pub fn read<T: FromData>(&mut self) -> Option<T> { None } }
pub fn f(s: &mut Stream) -> Option<usize> {
    let o = s.read::<Offset32>()?;
    Some(s.read::<Offset32>()?.to_usize() + o.to_usize())
}
"#,
    )]);
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Offset32::to_usize @9:32 TypedReceiver",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::Offset32::to_usize @9:47 TypedReceiver",
    );
}

/// libm: `x.to_bits()` on an `f32` is `f32::to_bits`, std's own method,
/// though an in-repo trait implemented for `f32` has one of the name; an
/// operator's value on a number is a number (`(x * y).exp_unbiased()` is
/// the trait's, as `x.exp_unbiased()` is), unless some in-repo impl of
/// the operator for an outside type may make it an in-repo one.
#[test]
fn a_number_s_own_methods_are_std_s() {
    let lib = r#"pub trait Float { fn to_bits(self) -> u32; fn exp_unbiased(self) -> u32; }
impl Float for f32 {
    fn to_bits(self) -> u32 { 0 }
    fn exp_unbiased(self) -> u32 { 0 }
}
pub fn f(x: f32, y: f32) -> u32 {
    x.to_bits() + (x * y).to_bits() + x.exp_unbiased() + (x * y).exp_unbiased()
}
"#;
    // An outside value not known to be a number: the trait is implemented
    // for numbers only.
    let elems = "pub fn g(cases: &[(f32, u32)]) { for (input, _) in cases { input.to_bits(); } }\n";
    let g = graph(&[("src/lib.rs", &format!("{lib}{elems}"))]);
    assert_none(&g, "calls shop_app::f -> shop_app::f32::to_bits");
    assert_none(&g, "calls shop_app::g -> shop_app::f32::to_bits");
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::f32::exp_unbiased @7:41 Member { k: 1 }",
    );
    assert_has(
        &g,
        "calls shop_app::f -> shop_app::f32::exp_unbiased @7:66 Member { k: 1 }",
    );
    // An `i32` has no `to_bits` of its own: aho-corasick's `I32` gives it one.
    let ints = "pub trait I32 { fn to_bits(self) -> u32; }\nimpl I32 for i32 { fn to_bits(self) -> u32 { 0 } }\nfn ext() -> i32 { 0 }\npub fn h() -> u32 { ext().to_bits() }\n";
    let g = graph(&[("src/lib.rs", ints)]);
    assert_has(
        &g,
        "calls shop_app::h -> shop_app::i32::to_bits @4:27 Member { k: 1 }",
    );
    // `impl Mul<V> for f32`: `x * y` may be a `V`, whose method it is not told.
    let with_op = format!(
        "{lib}pub struct V;\nimpl core::ops::Mul<V> for f32 {{ type Output = V; fn mul(self, v: V) -> V {{ v }} }}\n"
    );
    let g = graph(&[("src/lib.rs", &with_op)]);
    assert_none(&g, "calls shop_app::f -> shop_app::f32::exp_unbiased @7:66");
}

/// num-traits: `<Self as crate::Float>::mul_add(…)` in `impl MulAdd for
/// f32` is the trait's item, as `<f32 as Float>::mul_add` is; and
/// `checked_impl!(CheckedMul, checked_mul, u8)` names the trait and the
/// method its impl defines.
#[test]
fn a_trait_s_method_named_through_an_outside_self_or_a_macro() {
    let g = graph(&[(
        "src/lib.rs",
        r#"pub trait Float { fn mul_add(self) -> f32; }
pub trait MulAdd { fn mul_add(self) -> f32; }
impl MulAdd for f32 {
    fn mul_add(self) -> f32 { <Self as crate::Float>::mul_add(self) }
}
pub trait CheckedMul: Sized { fn checked_mul(&self, v: &Self) -> Option<Self>; }
macro_rules! checked_impl {
    ($tr:ident, $method:ident, $t:ty) => {
        impl $tr for $t { fn $method(&self, v: &$t) -> Option<$t> { <$t>::$method(*self, *v) } }
    };
}
checked_impl!(CheckedMul, checked_mul, u8);
pub struct Wide;
impl Wide { pub fn checked_mul(&self) {} }
checked_impl!(Wide, checked_mul, u16);
"#,
    )]);
    assert_has(
        &g,
        "calls shop_app::f32::mul_add -> shop_app::Float::mul_add @4:55 Path",
    );
    assert_has(
        &g,
        "references shop_app -> shop_app::CheckedMul::checked_mul @12:27 Member { k: 1 }",
    );
    // Not a trait: no pair.
    assert_none(&g, "references shop_app -> shop_app::Wide::checked_mul");
}
