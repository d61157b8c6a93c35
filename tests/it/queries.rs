//! Queries on the fixtures and on small projects written here, through the
//! real binary: exact answers a reviewer can check.

use std::path::Path;

use serde_json::Value;

use crate::cli::{copy_fixture, run, stderr, stdout, write};

fn json(repo: &Path, args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = run(repo, &a);
    assert!(
        out.status.success(),
        "refgraph {args:?} failed: {}",
        stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn keys(v: &Value, field: &str) -> Vec<String> {
    v[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["key"].as_str().unwrap().to_string())
        .collect()
}

fn git(repo: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn blast_radius_of_a_payments_commit() {
    let repo = copy_fixture("python");
    let root = repo.path();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "init"]);
    let f = root.join("shop/payments/stripe_gateway.py");
    let text = std::fs::read_to_string(&f).unwrap().replace(
        "return charge_id.startswith(\"ch_\")",
        "return charge_id.startswith(\"ch_\") and len(charge_id) > 3",
    );
    std::fs::write(&f, text).unwrap();
    git(root, &["commit", "-qam", "refund: check the length"]);

    let out = tempfile::NamedTempFile::new().unwrap();
    let v = json(
        root,
        &[
            "blast-radius",
            "--commit",
            "HEAD",
            "--output",
            out.path().to_str().unwrap(),
        ],
    );
    assert_eq!(
        keys(&v, "changed"),
        ["shop.payments.stripe_gateway.StripeGateway.refund"]
    );
    assert_eq!(v["changed"][0]["change"], "modified");
    let impacted = keys(&v, "impacted");
    assert!(
        impacted.contains(&"shop.services.checkout.refund_all".to_string()),
        "{v}"
    );
    assert!(
        !impacted.iter().any(|k| k.contains("StripeGateway.refund")),
        "changed symbols are not repeated"
    );
    assert_eq!(keys(&v, "tests"), ["test_checkout.test_refund_all"]);
    assert!(v["untested"].as_array().unwrap().is_empty(), "{v}");
    let full: Value = serde_json::from_slice(&std::fs::read(out.path()).unwrap()).unwrap();
    assert_eq!(full["total"], v["total"]);
    // The text answer is compact.
    let text = run(root, &["blast-radius", "--commit", "HEAD"]);
    assert!(stdout(&text).len() < 2048, "{}", stdout(&text));

    // The working tree: a new untested caller of refund.
    write(
        root,
        "shop/services/audit.py",
        "from shop.payments.stripe_gateway import StripeGateway\n\n\ndef audit_refund(g: StripeGateway) -> bool:\n    return g.refund(\"ch_1\")\n",
    );
    git(root, &["add", "-A"]);
    let v = json(root, &["blast-radius", "--staged"]);
    assert_eq!(
        keys(&v, "changed"),
        ["shop.services.audit", "shop.services.audit.audit_refund"]
    );
    assert!(
        v["changed"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["change"] == "added"),
        "{v}"
    );
    assert!(
        v["untested"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "shop.services.audit.audit_refund"),
        "{v}"
    );
}

#[test]
fn blast_radius_bad_input_is_named() {
    let repo = copy_fixture("python");
    let root = repo.path();
    let out = run(root, &["blast-radius", "--commit", "--upload-pack=x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(root, &["blast-radius", "--commit", "HEAD"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("needs a git repository"),
        "{}",
        stderr(&out)
    );
    let diff = root.join("bad.diff");
    std::fs::write(&diff, "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n?bad\n").unwrap();
    let out = run(root, &["blast-radius", "--diff", diff.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("malformed diff: line 4"),
        "{}",
        stderr(&out)
    );
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "init"]);
    let out = run(root, &["blast-radius", "--commit", "deadbeef"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown commit `deadbeef`"),
        "{}",
        stderr(&out)
    );
    let out = run(root, &["blast-radius", "--range", "HEAD"]);
    assert!(stderr(&out).contains("expected A..B"), "{}", stderr(&out));
}

#[test]
fn same_named_functions_are_never_merged() {
    for (fixture, a, b) in [
        (
            "python",
            "shop.auth.tokens.validate",
            "shop.services.checkout.validate",
        ),
        (
            "typescript",
            "src/auth/tokens.ts:validate",
            "src/services/checkout.ts:validate",
        ),
    ] {
        let repo = copy_fixture(fixture);
        let found = keys(&json(repo.path(), &["find", "validate"]), "results");
        assert!(
            found.contains(&a.to_string()) && found.contains(&b.to_string()),
            "{found:?}"
        );
        let ra = json(repo.path(), &["refs", a]);
        let rb = json(repo.path(), &["refs", b]);
        let sites = |v: &Value| -> Vec<String> {
            v["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| format!("{}:{}:{}", r["file"], r["line"], r["column"]))
                .collect()
        };
        let (sa, sb) = (sites(&ra), sites(&rb));
        assert!(!sa.is_empty() && !sb.is_empty(), "{fixture}: {ra} {rb}");
        assert!(
            sa.iter().all(|s| !sb.contains(s)),
            "{fixture}: a site refers to both: {sa:?} {sb:?}"
        );
    }
}

#[test]
fn ambiguous_and_unknown_names() {
    let repo = copy_fixture("python");
    let out = run(repo.path(), &["refs", "refund", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = keys(&v, "candidates");
    assert_eq!(c.len(), 4, "{c:?}");
    assert!(v.get("symbol").is_none());
    let out = run(repo.path(), &["refs", "refnud"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("closest names: refund"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn refs_and_callers_with_paths() {
    let repo = copy_fixture("python");
    let v = json(repo.path(), &["refs", "shop.services.checkout.refund_all"]);
    let sites: Vec<(String, u64, String)> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["file"].as_str().unwrap().into(),
                r["line"].as_u64().unwrap(),
                r["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        sites,
        [
            (
                "tests/test_checkout.py".to_string(),
                2,
                "references".to_string()
            ),
            (
                "tests/test_checkout.py".to_string(),
                16,
                "calls".to_string()
            )
        ]
    );
    assert_eq!(
        v["results"][1]["referrer"]["key"],
        "test_checkout.test_refund_all"
    );
    let v = json(
        repo.path(),
        &["callers", "StripeGateway.refund", "--depth", "5"],
    );
    let first = &v["results"][0];
    assert_eq!(first["key"], "shop.services.checkout.refund_all");
    assert_eq!(first["depth"], 1);
    let deeper = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "test_checkout.test_refund_all")
        .expect("the test is a transitive caller");
    assert_eq!(deeper["depth"], 2);
    assert_eq!(
        deeper["path"],
        serde_json::json!([
            "shop.payments.stripe_gateway.StripeGateway.refund",
            "shop.services.checkout.refund_all",
            "test_checkout.test_refund_all"
        ])
    );
    let callees = keys(
        &json(
            repo.path(),
            &["callees", "shop.services.checkout.refund_all"],
        ),
        "results",
    );
    assert!(
        callees.iter().any(|k| k.ends_with("StripeGateway.refund")),
        "{callees:?}"
    );
    let deps = json(repo.path(), &["dependents", "shop/services/checkout.py"]);
    let files: Vec<&str> = deps["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert!(files.contains(&"tests/test_checkout.py"), "{files:?}");
}

/// A small project with a cycle, a hub, a dead function and one whose
/// reachability the graph cannot know.
fn analysis_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "app/__init__.py", "");
    write(
        r,
        "app/core.py",
        "def ping(n):\n    return pong(n - 1) if n else 0\n\n\ndef pong(n):\n    return ping(n)\n\n\ndef hub():\n    return 1\n\n\ndef _dead_helper():\n    return hub()\n\n\ndef _maybe_used():\n    return hub()\n",
    );
    write(
        r,
        "app/users.py",
        "from app.core import hub, ping\n\n\ndef a():\n    return hub() + ping(2)\n\n\ndef b():\n    return hub()\n\n\ndef c(obj):\n    return hub() + obj._maybe_used()\n",
    );
    write(
        r,
        "tests/test_users.py",
        "from app.users import a\n\n\ndef test_a():\n    assert a() == 1\n",
    );
    dir
}

#[test]
fn cycles_hubs_dead_code_untested() {
    let repo = analysis_project();
    let r = repo.path();
    let cycles = json(r, &["cycles"]);
    assert_eq!(
        cycles["results"][0]["members"],
        serde_json::json!(["app.core.ping", "app.core.pong"])
    );
    let hubs = json(r, &["hubs", "--limit", "1"]);
    assert_eq!(hubs["results"][0]["key"], "app.core.hub");
    assert_eq!(hubs["results"][0]["fan_in"], 5);
    let dead = json(r, &["dead-code"]);
    let verdict = |key: &str| {
        dead["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["key"] == key)
            .map(|d| d["verdict"].as_str().unwrap().to_string())
    };
    assert_eq!(
        verdict("app.core._dead_helper").as_deref(),
        Some("dead"),
        "{dead}"
    );
    assert_eq!(
        verdict("app.core._maybe_used").as_deref(),
        Some("unknown"),
        "{dead}"
    );
    assert_eq!(verdict("app.users.b"), None, "public API is an entry point");
    let untested = keys(&json(r, &["untested"]), "results");
    assert!(
        untested.contains(&"app.users.b".to_string()),
        "{untested:?}"
    );
    assert!(
        !untested.contains(&"app.users.a".to_string()),
        "{untested:?}"
    );
    assert!(
        !untested.contains(&"app.core.hub".to_string()),
        "reached through a: {untested:?}"
    );
    let bridges = json(r, &["bridges"]);
    assert_eq!(bridges["results"][0]["key"], "app.users.a", "{bridges}");
    let comms = json(r, &["communities"]);
    assert!(comms["total"].as_u64().unwrap() >= 1, "{comms}");
}

#[test]
fn incremental_updates_equal_a_fresh_index() {
    crate::cli::assert_incremental_equals_cold(
        "python",
        &[
            ("shop/services/checkout.py", None),
            (
                "shop/extra.py",
                Some("from shop.payments.stripe_gateway import StripeGateway\n\n\ndef extra(g: StripeGateway):\n    return g.refund(\"x\")\n"),
            ),
            ("shop/auth/__init__.py", Some("from .tokens import *\n")),
        ],
    );
    crate::cli::assert_incremental_equals_cold(
        "typescript",
        &[
            ("src/legacy/util.js", None),
            ("src/extra.ts", Some("import { validate } from './services/checkout';\nexport function extra() { return validate; }\n")),
            ("src/payments/stripe.ts", Some("export class StripeGateway {}\n")),
        ],
    );
    // Rust: a re-export moves (the interface of lib.rs changes, not its
    // definitions), a module file is rewritten, an integration test removed.
    let lib = std::fs::read_to_string(crate::cli::fixture_path("rust/src/lib.rs")).unwrap();
    let lib = lib.replace(
        "pub use payments::stripe::Stripe;",
        "pub use payments::paypal::*;",
    );
    let payments = "//! Payment gateways.\n\npub mod gateway;\npub mod paypal;\npub mod stripe;\n\npub use gateway::Gateway;\n";
    crate::cli::assert_incremental_equals_cold(
        "rust",
        &[
            ("src/lib.rs", Some(&lib)),
            ("src/payments/mod.rs", Some(payments)),
            ("tests/checkout.rs", None),
        ],
    );
}

/// Edits that move, add and rename definitions (a body edit shifting lines,
/// a definition inserted above referenced ones, one renamed) must equal a
/// fresh index. Here the added functions also change each file's interface,
/// so other files are re-resolved; the edge move alone is pinned down by
/// `edges_into_an_edited_file_follow_its_definitions`.
#[test]
fn incremental_edits_that_move_definitions_equal_a_fresh_index() {
    let read = |rel: &str| std::fs::read_to_string(crate::cli::fixture_path(rel)).unwrap();
    let stripe = read("python/shop/payments/stripe_gateway.py")
        .replace(
            "    name = \"stripe\"\n",
            "    name = \"stripe\"\n\n    def preflight(self) -> bool:\n        return True\n",
        )
        .replace(
            "return f\"ch_{amount}\"",
            "\n\n        return f\"ch_{amount}\"",
        );
    let gateway = read("python/shop/payments/gateway.py");
    let gateway = format!("\n\ndef audit_hook():\n    return None\n\n{gateway}");
    crate::cli::assert_incremental_equals_cold(
        "python",
        &[
            ("shop/payments/stripe_gateway.py", Some(&stripe)),
            ("shop/payments/gateway.py", Some(&gateway)),
        ],
    );
    let ts = read("typescript/src/payments/stripe.ts")
        .replace(
            "export class StripeGateway",
            "export function preflight(): boolean {\n  return true;\n}\n\nexport class StripeGateway",
        )
        .replace("override refund(id: string): void {", "override refundAll(id: string): void {");
    crate::cli::assert_incremental_equals_cold(
        "typescript",
        &[("src/payments/stripe.ts", Some(&ts))],
    );
    let rs = read("rust/src/payments/stripe.rs")
        .replace(
            "pub struct Stripe {",
            "pub fn preflight() -> bool {\n    true\n}\n\npub struct Stripe {",
        )
        .replace(
            "    pub fn new(key: &str) -> Self {",
            "\n\n    pub fn new(key: &str) -> Self {",
        );
    crate::cli::assert_incremental_equals_cold("rust", &[("src/payments/stripe.rs", Some(&rs))]);
}

/// A definition inserted above referenced ones in a file whose interface
/// does not change (Python scopes name definitions by index — `beta`'s
/// inferred return type here — and are compared in the new numbering):
/// only that file is re-resolved, and the edges other files own into it
/// follow their definitions to the new indexes.
#[test]
fn edges_into_an_edited_file_follow_its_definitions() {
    use crate::cli::{graph_lines, run, write};
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "lib.py",
        "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n",
    );
    write(
        r,
        "app.py",
        "from lib import alpha, beta\n\n\ndef main():\n    return alpha() + beta()\n",
    );
    write(
        r,
        "other.py",
        "import lib\n\n\ndef run():\n    return lib.beta()\n",
    );
    assert!(run(r, &["index"]).status.success());
    write(
        r,
        "lib.py",
        "def zeta():\n    pass\n\n\ndef alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n",
    );
    let out = run(r, &["index", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["extracted"], 1, "{v}");
    assert_eq!(
        v["resolved"],
        1,
        "only the edited file is re-resolved: {v}\n{}",
        crate::cli::stderr(&out)
    );
    let incremental = graph_lines(r);
    assert!(
        incremental
            .iter()
            .any(|l| l.contains("app.main -> lib.beta")),
        "{incremental:#?}"
    );
    let _ = std::fs::remove_dir_all(r.join(".refgraph"));
    assert_eq!(incremental, graph_lines(r));
}

/// Index `fixture`, apply `edits` (path, text), update the index and return
/// how many files were re-resolved; the updated graph must equal a fresh
/// index of the edited tree.
fn resolved_after_edit(fixture: &str, edits: &[(&str, String)]) -> u64 {
    let repo = copy_fixture(fixture);
    let r = repo.path();
    assert!(run(r, &["index"]).status.success());
    for (path, text) in edits {
        write(r, path, text);
    }
    let v = json(r, &["index"]);
    assert_eq!(v["extracted"].as_u64(), Some(edits.len() as u64), "{v}");
    let incremental = crate::cli::graph_lines(r);
    let _ = std::fs::remove_dir_all(r.join(".refgraph"));
    let cold = crate::cli::graph_lines(r);
    let only_inc: Vec<_> = incremental.difference(&cold).collect();
    let only_cold: Vec<_> = cold.difference(&incremental).collect();
    assert!(
        only_inc.is_empty() && only_cold.is_empty(),
        "incremental differs from cold on {fixture} {edits:?}:\nonly incremental: {only_inc:#?}\nonly cold: {only_cold:#?}"
    );
    v["resolved"].as_u64().unwrap()
}

/// Fixture files (below `root`, with extension `ext`) whose text contains
/// `word`: the files that reference a name.
fn files_naming(root: &str, ext: &str, word: &str) -> u64 {
    fn walk(dir: &Path, ext: &str, word: &str, n: &mut u64) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, ext, word, n);
            } else if p.extension().is_some_and(|x| x == ext)
                && std::fs::read_to_string(&p).unwrap().contains(word)
            {
                *n += 1;
            }
        }
    }
    let mut n = 0;
    walk(&crate::cli::fixture_path(root), ext, word, &mut n);
    n
}

/// Issue 2: a new function appended to a TypeScript or Rust file, or a
/// method added to an existing class or impl, is no interface change. The
/// incremental graph equals a cold one, and only the edited file is
/// re-resolved, plus the files naming the class or type the method was added
/// to (a file calling the new method names it too). Before, every file
/// naming anything the edited file names was (all but one of the fixture's).
#[test]
fn added_definitions_re_resolve_only_the_files_naming_them() {
    let read = |rel: &str| std::fs::read_to_string(crate::cli::fixture_path(rel)).unwrap();
    let ts = read("typescript/src/payments/stripe.ts");
    let appended =
        format!("{ts}\nexport function refgraphAdded(): boolean {{\n  return true;\n}}\n");
    assert_eq!(
        resolved_after_edit("typescript", &[("src/payments/stripe.ts", appended)]),
        1
    );
    let method = ts.replace(
        "  override refund(",
        "  preflight(): boolean {\n    return true;\n  }\n\n  override refund(",
    );
    assert_ne!(method, ts);
    // `payments/index.ts` re-exports the class as `Stripe`: files naming
    // that are re-resolved too.
    let naming = files_naming("typescript/src", "ts", "Stripe")
        + files_naming("typescript/src", "tsx", "Stripe");
    assert!(naming > 1);
    assert_eq!(
        resolved_after_edit("typescript", &[("src/payments/stripe.ts", method)]),
        naming
    );

    let rs = read("rust/src/payments/stripe.rs");
    let appended = format!("{rs}\npub fn refgraph_added() -> u32 {{\n    1\n}}\n");
    let inserted = read("rust/src/payments/paypal.rs").replacen(
        "\npub struct",
        "\npub fn refgraph_first() -> u32 {\n    2\n}\n\npub struct",
        1,
    );
    assert!(inserted.contains("refgraph_first"));
    assert_eq!(
        resolved_after_edit(
            "rust",
            &[
                ("src/payments/stripe.rs", appended),
                ("src/payments/paypal.rs", inserted)
            ]
        ),
        2
    );
    let method = rs.replace(
        "impl Stripe {\n",
        "impl Stripe {\n    pub fn preflight(&self) -> bool {\n        true\n    }\n\n",
    );
    assert_ne!(method, rs);
    let naming =
        files_naming("rust/src", "rs", "Stripe") + files_naming("rust/tests", "rs", "Stripe");
    assert!(naming > 1);
    assert_eq!(
        resolved_after_edit("rust", &[("src/payments/stripe.rs", method)]),
        naming
    );
}

/// A definition appears that other files reach only under another name
/// (`export { foo as bar }`, `pub use … as bar`, through two files): the
/// file naming only `bar` is re-resolved too, and the graph equals a cold
/// one. Before, neither the narrow nor the wide rule re-resolved it.
#[test]
fn a_new_definition_reached_under_an_alias_re_resolves_its_users() {
    use crate::cli::{graph_lines, run, write};
    /// Files besides the edited one, the edited file and its text before,
    /// the edge the new definition must get.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str, &'a str);
    let cases: [Case; 2] = [
        (
            &[
                ("src/g.ts", "export { foo as bar } from './f';\n"),
                ("src/g2.ts", "export { bar as baz } from './g';\n"),
                (
                    "src/h.ts",
                    "import { baz } from './g2';\nexport function main() {\n  return baz();\n}\n",
                ),
            ],
            "src/f.ts",
            "export function other() {\n  return 1;\n}\n",
            "calls src/h.ts:main -> src/f.ts:foo",
        ),
        (
            &[
                (
                    "Cargo.toml",
                    "[package]\nname = \"ar\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                ),
                (
                    "src/lib.rs",
                    "pub mod f;\npub mod g;\npub mod g2;\npub mod h;\n",
                ),
                ("src/g.rs", "pub use crate::f::foo as bar;\n"),
                ("src/g2.rs", "pub use crate::g::bar as baz;\n"),
                (
                    "src/h.rs",
                    "use crate::g2::baz;\n\npub fn main2() {\n    baz()\n}\n",
                ),
            ],
            "src/f.rs",
            "pub fn other() {}\n",
            "calls ar::h::main2 -> ar::f::foo",
        ),
    ];
    for (files, edited, text, edge) in cases {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for (path, t) in files {
            write(r, path, t);
        }
        write(r, edited, text);
        assert!(run(r, &["index"]).status.success());
        let added = if edited.ends_with(".ts") {
            "export function foo() {\n  return 2;\n}\n"
        } else {
            "pub fn foo() {}\n"
        };
        write(r, edited, &format!("{text}{added}"));
        let v = json(r, &["index"]);
        // The edited file, the two re-exporting files, and the user.
        assert_eq!(v["resolved"], 4, "{v}");
        let incremental = graph_lines(r);
        assert!(
            incremental.iter().any(|l| l.contains(edge)),
            "{edge}: {incremental:#?}"
        );
        let _ = std::fs::remove_dir_all(r.join(".refgraph"));
        assert_eq!(incremental, graph_lines(r));
    }
}
