//! Fixture tests for python: the exact graph of fixtures/python.

use std::path::Path;

fn graph() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/python");
    refgraph::index::render(&root)
}

#[track_caller]
fn has(out: &str, line: &str) {
    assert!(
        out.lines().any(|l| l == line),
        "missing line `{line}`; graph:\n{out}"
    );
}

#[track_caller]
fn lacks(out: &str, needle: &str) {
    assert!(
        !out.lines().any(|l| l.contains(needle)),
        "unexpected `{needle}`; graph:\n{out}"
    );
}

#[test]
fn fixture_graph() {
    let out = graph();
    insta::assert_snapshot!(out);
}

/// The cases a name-based graph gets wrong, each checked against what
/// pyright answers for `textDocument/definition` at the site.
#[test]
fn fixture_tricky_cases() {
    let out = graph();
    // Same-named functions: `validate` in checkout.py is the local one...
    has(&out, "E calls shop.services.checkout.CheckoutService.pay -> shop.services.checkout.validate @ shop/services/checkout.py:44:16 syntactic 0.95");
    // ...and `validate_token` (an alias) is auth.tokens.validate, reached
    // through the re-export in shop/auth/__init__.py.
    has(&out, "E calls shop.services.checkout.CheckoutService.pay -> shop.auth.tokens.validate @ shop/services/checkout.py:47:38 syntactic 0.9");
    // Inside Token.is_valid, `validate` is the module's own function.
    has(&out, "E calls shop.auth.tokens.Token.is_valid -> shop.auth.tokens.validate @ shop/auth/tokens.py:13:16 syntactic 0.95");
    lacks(
        &out,
        "shop.auth.tokens.Token.is_valid -> shop.services.checkout.validate",
    );
    // Two gateways sharing `refund`, called through differently typed
    // receivers: each goes to its own class.
    has(&out, "E calls shop.services.checkout.refund_all -> shop.payments.stripe_gateway.StripeGateway.refund @ shop/services/checkout.py:72:19 inferred 0.8");
    has(&out, "E calls shop.services.checkout.refund_all -> shop.payments.paypal_gateway.PaypalGateway.refund @ shop/services/checkout.py:72:47 inferred 0.8");
    lacks(&out, "@ shop/services/checkout.py:72:19 inferred 0.2");
    // `self.backup = PaypalGateway()` types the attribute across methods.
    has(&out, "E calls shop.services.checkout.CheckoutService.refund -> shop.payments.paypal_gateway.PaypalGateway.refund @ shop/services/checkout.py:55:28 inferred 0.8");
    // `self.gateway: gw.Gateway` through a module alias (`gateway as gw`).
    has(&out, "E calls shop.services.checkout.CheckoutService.pay -> shop.payments.gateway.Gateway.charge @ shop/services/checkout.py:49:34 inferred 0.8");
    // A string annotation `Optional["gw.Gateway"]` is a reference.
    has(&out, "E references shop.services.checkout.CheckoutService.__init__ -> shop.payments.gateway.Gateway @ shop/services/checkout.py:34:46 syntactic 0.95");
    // Inheritance: an inherited method lands on the base, `super()` too.
    has(&out, "E calls shop.payments.paypal_gateway.PaypalGateway.charge -> shop.payments.gateway.Gateway.describe @ shop/payments/paypal_gateway.py:8:20 syntactic 0.9");
    has(&out, "E calls shop.payments.paypal_gateway.PaypalGateway.refund -> shop.payments.gateway.Gateway.refund @ shop/payments/paypal_gateway.py:13:28 syntactic 0.9");
    has(&out, "E extends shop.payments.paypal_gateway.PaypalGateway -> shop.payments.gateway.Gateway @ shop/payments/paypal_gateway.py:4:29 syntactic 0.95");
    // Return annotation: make_gateway() -> Gateway, then .charge().
    has(&out, "E calls shop.cli.main -> shop.payments.gateway.Gateway.charge @ shop/cli.py:12:25 inferred 0.8");
    // `import shop.payments.gateway` then the full dotted path.
    has(&out, "E calls shop.cli.main -> shop.payments.gateway.make_gateway @ shop/cli.py:11:37 syntactic 0.95");
    // `from shop import *` takes the names of `__all__`, re-exported.
    has(&out, "E calls shop.cli.main -> shop.services.checkout.CheckoutService @ shop/cli.py:15:15 syntactic 0.9");
    // A callback passed by name, a decorator, `raise` of an imported class.
    has(&out, "E references shop.services.checkout.checkout -> shop.services.checkout.notify @ shop/services/checkout.py:79:21 syntactic 0.95");
    has(&out, "E references shop.services.checkout.checkout -> shop.services.checkout.validate @ shop/services/checkout.py:80:22 syntactic 0.95");
    has(&out, "E references shop.services.checkout.CheckoutService.pay -> shop.services.checkout.audit @ shop/services/checkout.py:42:6 syntactic 0.95");
    has(&out, "E calls shop.services.checkout.CheckoutService.pay -> shop.payments.gateway.PaymentError @ shop/services/checkout.py:45:22 syntactic 0.95");
    // A function-level import counts from the function.
    has(&out, "E imports shop.payments.gateway.make_gateway -> shop.payments.stripe_gateway @ shop/payments/gateway.py:24:11 syntactic 0.95");
    // `from ..payments import gateway as gw`: the submodule is imported.
    has(&out, "E imports shop.services.checkout -> shop.payments.gateway @ shop/services/checkout.py:8:24 syntactic 0.95");
    // An unannotated receiver: every `charge` is a candidate.
    has(&out, "E calls shop.services.checkout.settle -> shop.payments.stripe_gateway.StripeGateway.charge @ shop/services/checkout.py:64:20 inferred 0.2");
    // Fixtures: the parameter names the conftest fixture (a pytest rule
    // pyright does not know, hence inferred).
    has(&out, "E references test_checkout.test_pay_charges_gateway -> conftest.gateway @ tests/test_checkout.py:5:36 inferred 0.7");
    // unittest: methods of a TestCase subclass are tests; setUp is not;
    // `self.assertTrue` lives in unittest and is not guessed.
    has(
        &out,
        "N test test_auth.TokenTest.test_login_issues_valid_token tests/test_auth.py:11:9-13",
    );
    has(
        &out,
        "N method test_auth.TokenTest.setUp tests/test_auth.py:8:9-9",
    );
    has(&out, "E calls test_auth.TokenTest.test_login_issues_valid_token -> shop.auth.users.User.login @ tests/test_auth.py:12:27 inferred 0.8");
    lacks(&out, "assertTrue");
    // Builtins and stdlib are never edges.
    lacks(&out, "PermissionError");
    lacks(&out, "hashlib");
    assert!(!out.lines().any(|l| l.starts_with("U ")), "{out}");
}

/// Render any directory: `REFGRAPH_PY_DIR=/path cargo test --test it
/// python::dump -- --ignored`; writes `$REFGRAPH_PY_DIR.graph.txt`.
#[test]
#[ignore]
fn dump() {
    let Ok(dir) = std::env::var("REFGRAPH_PY_DIR") else {
        return;
    };
    let root = Path::new(&dir);
    let w = refgraph::walk::walk(root, &refgraph::walk::WalkConfig::default());
    let start = std::time::Instant::now();
    let (files, _) = refgraph::index::extract_files(root, &w.files);
    let extracted = start.elapsed();
    let layout = refgraph::index::read_layout(root, &w, &files);
    let start = std::time::Instant::now();
    let _ = refgraph::index::analyze(&files, &layout);
    eprintln!(
        "{} files: extract {extracted:?}, resolve {:?}",
        files.len(),
        start.elapsed()
    );
    let out = refgraph::index::render(root);
    std::fs::write(format!("{dir}.graph.txt"), out).unwrap();
}
