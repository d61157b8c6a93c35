//! Fixture tests for typescript: the exact graph of fixtures/typescript.

use std::path::Path;

fn graph() -> String {
    refgraph::index::render(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/typescript"
    )))
}

/// Every edge of the fixture was compared with typescript-language-server
/// 5.3 / TypeScript 5.9 (`textDocument/definition` at each site): all agree.
/// The tricky expectations are asserted one by one below.
#[test]
fn fixture_graph() {
    let out = graph();
    insta::assert_snapshot!(out);
}

fn has(out: &str, line: &str) -> bool {
    out.lines().any(|l| l.starts_with(line))
}

#[test]
fn same_named_functions_and_aliases() {
    let out = graph();
    // `validateToken` is auth's `validate`, re-exported under another name
    // by the `@/auth` barrel (tsconfig `paths`, JSONC with comments).
    assert!(has(&out, "E calls src/services/checkout.ts:CheckoutService.pay -> src/auth/tokens.ts:validate @ src/services/checkout.ts:33:10 syntactic 0.9"));
    // The bare `validate(cart)` is checkout's own.
    assert!(has(&out, "E calls src/services/checkout.ts:CheckoutService.pay -> src/services/checkout.ts:validate @ src/services/checkout.ts:33:35 syntactic 0.95"));
    // In `audit`, a parameter named `validate` shadows both.
    assert!(!out.contains("@ src/services/checkout.ts:73:"));
    // Import specifiers are references, at the name and at its alias.
    assert!(has(
        &out,
        "E references src/auth/index.ts -> src/auth/tokens.ts:validate @ src/auth/index.ts:1:22"
    ));
    assert!(has(
        &out,
        "E references src/auth/index.ts -> src/auth/tokens.ts:validate @ src/auth/index.ts:1:34"
    ));
    // `./index.js` written in TypeScript is `index.ts`; `export { StripeGateway as Stripe }`.
    assert!(has(&out, "E calls src/services/checkout.ts:makeCheckout -> src/payments/stripe.ts:StripeGateway @ src/services/checkout.ts:60:47 syntactic 0.9"));
    // `export { default as createPaypal }` of a default-exported function.
    assert!(has(&out, "E calls src/services/checkout.ts:makeCheckout -> src/payments/paypal.ts:createPaypal @ src/services/checkout.ts:60:58 syntactic 0.9"));
    assert!(has(
        &out,
        "E imports src/services/checkout.ts -> src/auth/index.ts @ src/services/checkout.ts:1:"
    ));
}

#[test]
fn receivers_by_type() {
    let out = graph();
    // Differently typed receivers of `refund`: a `new` through a namespace
    // import, and the declared return type of `createPaypal`.
    assert!(has(&out, "E calls src/services/checkout.ts:quickRefund -> src/payments/stripe.ts:StripeGateway.refund @ src/services/checkout.ts:66:10 inferred 0.8"));
    assert!(has(&out, "E calls src/services/checkout.ts:quickRefund -> src/payments/paypal.ts:PaypalGateway.refund @ src/services/checkout.ts:68:10 inferred 0.8"));
    assert!(!has(&out, "E calls src/services/checkout.ts:quickRefund -> src/payments/paypal.ts:PaypalGateway.refund @ src/services/checkout.ts:66:10"));
    // `this.gw` is a constructor parameter property typed by an interface:
    // tsserver's definition is the interface member.
    assert!(has(&out, "E calls src/services/checkout.ts:CheckoutService.refundOne -> src/payments/gateway.ts:Gateway.refund @ src/services/checkout.ts:47:13 inferred 0.8"));
    assert!(has(&out, "E calls src/services/checkout.ts:CheckoutService.pay -> src/auth/users.ts:UserRepo.save @ src/services/checkout.ts:36:16 inferred 0.8"));
    // `this.log` inherited from the abstract base; `super.refund`.
    assert!(has(&out, "E calls src/payments/stripe.ts:StripeGateway.charge -> src/payments/gateway.ts:BaseGateway.log @ src/payments/stripe.ts:5:10 syntactic 0.9"));
    assert!(has(&out, "E calls src/payments/stripe.ts:StripeGateway.refund -> src/payments/gateway.ts:BaseGateway.refund @ src/payments/stripe.ts:10:11 syntactic 0.9"));
    assert!(has(&out, "E extends src/payments/stripe.ts:StripeGateway -> src/payments/gateway.ts:BaseGateway @ src/payments/stripe.ts:3:36"));
    assert!(has(&out, "E implements src/payments/paypal.ts:PaypalGateway -> src/payments/gateway.ts:Gateway @ src/payments/paypal.ts:3:39"));
    // A method passed as a callback is a reference.
    assert!(has(&out, "E references src/services/checkout.ts:CheckoutService.refundAll -> src/services/checkout.ts:CheckoutService.refundOne @ src/services/checkout.ts:43:22"));
    // `Currency.format` through a namespace.
    assert!(has(&out, "E calls src/ui/CheckoutButton.tsx:Price -> src/payments/currency.ts:Currency.format @ src/ui/CheckoutButton.tsx:5:44 syntactic 0.95"));
}

#[test]
fn jsx_commonjs_and_tests() {
    let out = graph();
    // `<Price />` is a reference to the component; `<span>` is not a site.
    assert!(has(&out, "E references src/ui/CheckoutButton.tsx:CheckoutButton -> src/ui/CheckoutButton.tsx:Price @ src/ui/CheckoutButton.tsx:13:12"));
    // CommonJS: a call through `require` destructuring reaches the function;
    // a non-call use names the `module.exports` property (no edge).
    assert!(has(&out, "E calls src/legacy/report.js:report -> src/legacy/util.js:formatAmount @ src/legacy/report.js:6:28 syntactic 0.95"));
    assert!(!out.contains("@ src/legacy/report.js:10:25"));
    // `ledger.record()` on an untyped JavaScript parameter: tsserver sees
    // `any`, so no guessed edge, only an unresolved site.
    assert!(has(
        &out,
        "U calls record @ src/legacy/report.js:5:10 (unknown receiver, 1 candidate)"
    ));
    assert!(!has(
        &out,
        "E calls src/legacy/report.js:report -> src/legacy/util.js:Ledger.record"
    ));
    // describe/it become nested tests; their calls are tests edges.
    assert!(has(&out, "N test src/services/checkout.test.ts:Checkout > refunds > refunds through the interface src/services/checkout.test.ts:15:8-19"));
    assert!(has(&out, "E tests src/services/checkout.test.ts:Checkout > pays -> src/services/checkout.ts:CheckoutService.pay @ src/services/checkout.test.ts:10:35"));
    assert!(has(&out, "E calls src/services/checkout.test.ts:Checkout > refunds > refunds through the interface -> src/payments/gateway.ts:Gateway.refund @ src/services/checkout.test.ts:17:10 inferred 0.8"));
    // Globals (`console`, `Error`, `describe`) are never edges.
    assert!(!out.contains("globals.d.ts:describe @"));
}

/// Render any directory for manual comparison with a language server:
/// `REFGRAPH_RENDER_DIR=/path REFGRAPH_RENDER_OUT=/tmp/g.txt cargo test --test it
/// typescript::render_dir -- --ignored`.
#[test]
#[ignore]
fn render_dir() {
    let (Ok(dir), Ok(out)) = (
        std::env::var("REFGRAPH_RENDER_DIR"),
        std::env::var("REFGRAPH_RENDER_OUT"),
    ) else {
        return;
    };
    let root = Path::new(&dir);
    let start = std::time::Instant::now();
    let w = refgraph::walk::walk(root, &Default::default());
    let (files, _) = refgraph::index::extract_files(root, &w.files);
    let extracted = start.elapsed();
    let layout = refgraph::index::read_layout(root, &w, &files);
    let _ = refgraph::index::analyze(&files, &layout);
    eprintln!(
        "{} files: walk+extract {:?}, resolve {:?}",
        files.len(),
        extracted,
        start.elapsed() - extracted
    );
    // Parse-only versus full extraction, one thread, to see what the walk costs.
    let srcs: Vec<(String, Vec<u8>)> = w
        .files
        .iter()
        .map(|f| (f.path.clone(), std::fs::read(root.join(&f.path)).unwrap()))
        .collect();
    let t0 = std::time::Instant::now();
    let mut parser = tree_sitter::Parser::new();
    for (p, b) in &srcs {
        let lang: tree_sitter::Language = if p.ends_with(".tsx") {
            tree_sitter_typescript::LANGUAGE_TSX.into()
        } else if p.ends_with(".ts") {
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
        } else {
            tree_sitter_javascript::LANGUAGE.into()
        };
        parser.set_language(&lang).unwrap();
        let _ = parser.parse(b, None);
    }
    let parse = t0.elapsed();
    let t1 = std::time::Instant::now();
    for (p, b) in &srcs {
        let lang = refgraph::extract::Lang::of_path(p).unwrap();
        let _ = refgraph::extract::extract(lang, p, b);
    }
    eprintln!("one thread: parse {parse:?}, extract {:?}", t1.elapsed());
    let text = refgraph::index::render(root);
    std::fs::write(out, text).unwrap();
}
