//! Extractor unit tests: definitions, scope facts and sites of small files.

use super::*;
use crate::graph::NodeKind;

fn facts(src: &str) -> (Vec<crate::extract::Def>, Scope, Refs, Vec<Diagnostic>) {
    let f = extract("src/a.rs", src.as_bytes());
    let (LangScope::Rust(scope), LangRefs::Rust(refs)) = (f.scope, f.refs) else {
        panic!("not rust facts");
    };
    (f.defs, scope, refs, f.diagnostics)
}

/// The sites as `name@line:col role` strings, for compact assertions.
fn sites(src: &str) -> Vec<String> {
    let (_, scope, refs, _) = facts(src);
    let n = |i: u32| scope.names[i as usize].to_string();
    let mut out = Vec::new();
    for s in &refs.sites {
        match &s.kind {
            SiteKind::Path { segs, role, hidden } => {
                let path: Vec<String> = segs.iter().map(|(i, _)| n(*i)).collect();
                let p = segs.last().unwrap().1;
                out.push(format!(
                    "{}@{}:{} {:?}{}",
                    path.join("::"),
                    p.line,
                    p.column,
                    role,
                    if *hidden > 0 {
                        format!(" hidden{hidden}")
                    } else {
                        String::new()
                    }
                ));
            }
            SiteKind::Method {
                name, pos, args, ..
            } => {
                out.push(format!(
                    ".{}@{}:{} args{}",
                    n(*name),
                    pos.line,
                    pos.column,
                    args
                ));
            }
        }
    }
    out
}

#[test]
#[ignore = "manual tool"]
fn debug_file() {
    // `REFGRAPH_DEBUG_RS=path cargo test --lib debug_file -- --nocapture`
    let Ok(path) = std::env::var("REFGRAPH_DEBUG_RS") else {
        return;
    };
    let src = std::fs::read_to_string(&path).unwrap();
    let (defs, scope, refs, diags) = facts(&src);
    let consts = refs
        .recvs
        .iter()
        .filter(|r| matches!(r, Recv::Const(_)))
        .count();
    eprintln!(
        "recvs {} (const {consts}), sites {}, consts {}, assoc consts {}",
        refs.recvs.len(),
        refs.sites.len(),
        scope.consts.len(),
        scope.assoc_consts.len()
    );
    for d in &defs {
        eprintln!("{:?} {} {}:{}", d.kind, d.local, d.pos.line, d.pos.column);
    }
    eprintln!("{diags:?}");
    for s in sites(&src) {
        eprintln!("{s}");
    }
}

#[test]
fn defs_kinds_locals_and_parents() {
    let src = r#"
pub struct Stripe { key: String }
enum Status { Paid }
pub trait Gateway {
    fn charge(&self) -> u64;
    fn describe(&self) -> String { String::new() }
}
impl Stripe {
    pub fn new() -> Self { Stripe { key: String::new() } }
}
impl Gateway for Stripe {
    fn charge(&self) -> u64 { 1 }
}
impl Gateway for External {
    fn charge(&self) -> u64 { 2 }
}
fn outer() {
    fn inner() {}
}
macro_rules! m { () => {} }
mod inline {
    pub(crate) fn f() {}
    #[cfg(test)]
    mod tests {
        #[test]
        fn t() {}
        #[tokio::test]
        async fn t2() {}
        fn helper() {}
    }
}
type Alias = Stripe;
"#;
    let (defs, _, _, diags) = facts(src);
    assert!(diags.is_empty(), "{diags:?}");
    let got: Vec<(NodeKind, &str, Option<u32>, bool)> = defs
        .iter()
        .skip(1)
        .map(|d| (d.kind, d.local.as_str(), d.parent, d.exported))
        .collect();
    use NodeKind::*;
    assert_eq!(
        got,
        vec![
            (Class, "Stripe", Some(0), true),
            (Class, "Status", Some(0), false),
            (Class, "Gateway", Some(0), true),
            (Method, "Gateway::charge", Some(3), true),
            (Method, "Gateway::describe", Some(3), true),
            (Method, "Stripe::new", Some(1), true),
            (Method, "Stripe::charge", Some(1), true),
            (Method, "External::charge", Some(0), true),
            (Function, "outer", Some(0), false),
            (Function, "outer::inner", Some(9), false),
            (Function, "m", Some(0), false),
            (Function, "inline::f", Some(0), true),
            (Test, "inline::tests::t", Some(0), false),
            (Test, "inline::tests::t2", Some(0), false),
            (Function, "inline::tests::helper", Some(0), false),
            (Class, "Alias", Some(0), false),
        ]
    );
    // Positions are the name's; start lines include attributes.
    let t = &defs[13];
    assert_eq!((t.pos.line, t.pos.column), (26, 12));
    assert_eq!(t.start_line, 25);
}

#[test]
fn syntax_errors_keep_partial_facts() {
    let src = "fn ok() { helper(); }\nfn broken( { let = ; }\nstruct Fine;\nfn also_ok() -> Fine { Fine }\n";
    let (defs, _, _, diags) = facts(src);
    assert!(!diags.is_empty());
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"ok"), "{names:?}");
    assert!(names.contains(&"also_ok"), "{names:?}");
    assert!(sites(src).iter().any(|s| s.starts_with("helper@1:11 Call")));
}

#[test]
fn columns_are_utf8_bytes() {
    let src = "fn f() { let s = \"é€\"; g(s); }\n";
    // `g` follows `é` (2 bytes) and `€` (3 bytes): column 27, not 24.
    assert!(
        sites(src).contains(&"g@1:27 Call".to_string()),
        "{:?}",
        sites(src)
    );
}

#[test]
fn locals_and_generics_are_not_sites() {
    let src = r#"
fn f<T: Gateway, Item>(parse: impl Fn(u8) -> u8, x: T, i: Item) {
    let validate = |c: u8| c > 0;
    validate(1);
    parse(2);
    x.charge(3, 4);
    let v: Vec<Item> = Vec::new();
    T::create();
}
"#;
    let s = sites(src);
    assert!(!s.iter().any(|s| s.starts_with("validate@")), "{s:?}");
    assert!(!s.iter().any(|s| s.starts_with("parse@")), "{s:?}");
    assert!(!s.iter().any(|s| s.starts_with("Item@")), "{s:?}");
    assert!(!s.iter().any(|s| s.starts_with("T@")), "{s:?}");
    assert!(s.contains(&".charge@6:7 args2".to_string()), "{s:?}");
    // `T::create()` is the bound's item; the `T` segment is no edge.
    assert!(
        s.contains(&"Gateway::create@8:8 Call hidden1".to_string()),
        "{s:?}"
    );
}

#[test]
fn uses_are_flattened() {
    let src = "use a::{b, c::d as e, f::*, self};\npub use crate::x::Y;\nextern crate z as w;\n";
    let (_, scope, _, _) = facts(src);
    let n = |i: u32| &scope.names[i as usize];
    let got: Vec<(String, Option<&str>, bool, bool)> = scope
        .uses
        .iter()
        .map(|u| {
            (
                u.segs.iter().map(|&s| n(s)).collect::<Vec<_>>().join("::"),
                u.binding().map(n),
                u.glob,
                u.public,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a::b".to_string(), Some("b"), false, false),
            ("a::c::d".to_string(), Some("e"), false, false),
            ("a::f".to_string(), None, true, false),
            ("a".to_string(), Some("a"), false, false),
            ("crate::x::Y".to_string(), Some("Y"), false, true),
            ("z".to_string(), Some("w"), false, false),
        ]
    );
}

#[test]
fn macro_arguments_and_item_macros() {
    let src = r#"
cfg_feature! {
    pub mod inner;
    pub use self::inner::Thing;
    pub fn in_macro() {}
}
fn f(cart: Cart) {
    assert_eq!(validate(&cart), Status::Paid);
    log!(self_check(), cart.total(1, 2));
    println!("{n}", n = Cart::<u8>::new().count(|x| x.size()));
}
"#;
    let (defs, scope, _, _) = facts(src);
    assert!(defs.iter().any(|d| d.local == "in_macro"));
    assert_eq!(scope.mod_decls.len(), 1);
    assert_eq!(scope.uses.len(), 1);
    let s = sites(src);
    for want in [
        "cfg_feature@2:1 Macro",
        "validate@8:16 Call",
        // Parsed as expressions: a value, as outside a macro.
        "Status::Paid@8:41 Value",
        "self_check@9:10 Call",
        ".total@9:29 args2",
        // A turbofish, a closure, a named format argument.
        "Cart::new@10:37 Call",
        ".count@10:43 args1",
        ".size@10:55 args0",
    ] {
        assert!(s.contains(&want.to_string()), "{want} not in {s:?}");
    }
}

#[test]
fn qualified_paths_name_the_self_type() {
    let src = "fn f(s: Stripe) { <Stripe as Gateway>::charge(&s); }\n";
    let s = sites(src);
    assert!(
        s.contains(&"Stripe::charge@1:40 Call hidden1".to_string()),
        "{s:?}"
    );
    assert!(s.contains(&"Gateway@1:30 Ref".to_string()), "{s:?}");
}

#[test]
#[ignore = "manual tool"]
fn scan_dir() {
    // `REFGRAPH_SCAN_DIR=dir cargo test --lib scan_dir -- --nocapture`:
    // extract every `.rs` file below, one by one (finds crashes).
    let Ok(dir) = std::env::var("REFGRAPH_SCAN_DIR") else {
        return;
    };
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let src = std::fs::read(&p).unwrap_or_default();
                eprintln!("FILE {}", p.display());
                let _ = extract(&p.to_string_lossy(), &src);
            }
        }
    }
}

#[test]
fn std_macros_are_sorted_for_their_lookup() {
    assert!(
        super::STD_MACROS.windows(2).all(|w| w[0].0 < w[1].0),
        "STD_MACROS must stay sorted: std_macro searches it by halves"
    );
    assert_eq!(super::std_macro("assert_eq"), Some(true));
    assert_eq!(super::std_macro("writeln"), Some(true));
    // `matches!`'s second argument is a pattern.
    assert_eq!(super::std_macro("matches"), Some(false));
    assert_eq!(super::std_macro("my_macro"), None);
}

#[test]
fn a_cfg_on_an_item_macro_is_its_items() {
    // mio: `#[cfg(windows)] cfg_os_poll! { mod windows; pub use
    // self::windows::*; }` is off on Linux; `cfg_not_os_poll! { … }` is on.
    let (defs, scope, _, _) = facts(
        "#[cfg(windows)]\n\
         cfg_os_poll! {\n    mod windows;\n    pub use self::windows::*;\n    pub struct W;\n}\n\
         cfg_not_os_poll! {\n    mod shell;\n    pub use self::shell::*;\n}\n",
    );
    let off: Vec<bool> = scope.uses.iter().map(|u| u.cfg_off).collect();
    assert_eq!(off, [true, false]);
    let w = defs.iter().position(|d| d.name == "W").unwrap() as u32;
    assert!(scope.cfg_off.contains(&w));
}

#[test]
fn macros_that_put_a_cfg_on_their_items_are_recorded_with_it() {
    let (_, scope, _, _) = facts(
        r#"
macro_rules! cfg_rt {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "rt")]
            #[cfg_attr(docsrs, doc(cfg(feature = "rt")))]
            $item
        )*
    };
}
macro_rules! no_cfg { ($($item:item)*) => { $( #[doc(hidden)] $item )* } }
macro_rules! two_cfgs {
    ($it:item) => { #[cfg(unix)] $it };
    ($it:item, x) => { #[cfg(windows)] $it };
}
macro_rules! tokens { ($($t:tt)*) => { #[cfg(unix)] fn f() {} } }
macro_rules! bare_use { ($($item:item)*) => { $( #[cfg(unix)] $item )* $( $item )* } }
cfg_rt! {
    pub mod rt;
    pub use rt::Runtime;
}
"#,
    );
    let cfgs: Vec<(String, String)> = scope
        .cfg_macros
        .iter()
        .map(|m| (scope.names[m.name as usize].to_string(), m.cfg.clone()))
        .collect();
    assert_eq!(
        cfgs,
        [("cfg_rt".to_string(), "(feature = \"rt\")".to_string())]
    );
    // The call's module and use are recorded as its.
    let [b] = scope.macro_blocks.as_slice() else {
        panic!("{:?}", scope.macro_blocks);
    };
    assert_eq!(&scope.names[b.name as usize], "cfg_rt");
    assert_eq!((b.uses.1 - b.uses.0, b.mods.1 - b.mods.0), (1, 0));
}
